// Inputs that once crashed or were accepted wrongly; each now gets a diagnostic.
// RUN: acc-opt --split-input-file --verify-diagnostics --allow-unregistered-dialect %s

// A huge result count does not overflow.
// expected-error @+1 {{operation defines 0 results but was provided 4294967296 to bind}}
%a:4294967295, %b:1 = "t.op"() : () -> ()

// -----

// expected-error @+1 {{shaped type has too many elements}}
"t.op"() {a = dense<"0x00"> : tensor<9223372036854775807x9223372036854775807xi8>} : () -> ()

// -----

// expected-error @+1 {{hex dense data has 8 bytes, expected 4 (a splat) or 4611686018427387906 elements of 4 bytes}}
"t.op"() {a = dense<"0x0000000000000000"> : tensor<4611686018427387906xi32>} : () -> ()

// -----

// expected-error @+1 {{i1 elements in hex dense data must be 0 or 1}}
"t.op"() {a = dense<"0x0203"> : tensor<2xi1>} : () -> ()

// -----

// A value defined inside a nested graph region is not visible outside it.
// expected-error @+1 {{operand #0 does not dominate this use}}
"t.use"(%x) : (i32) -> ()
"t.r"() ({
  // expected-note @+1 {{operand defined here}}
  %x = "t.def"() : () -> i32
}) : () -> ()

// -----

#notloc = 1
// expected-error @+1 {{'#notloc' is not a location}}
"t.op"() : () -> () loc(#notloc)

// -----

// expected-error @+1 {{scales must be finite and positive}}
func.func private @f(tensor<4x!quant.uniform<i8:f32, 1.0e999>>)

// -----

// expected-error @+1 {{storage range [-200, 200] does not fit the 8-bit storage type}}
func.func private @f(tensor<4x!quant.uniform<i8<-200:200>:f32, 0.5>>)

// -----

// expected-error @+1 {{sparse indices must be rows of 2 in-bounds indices}}
"t.op"() {a = sparse<[[0, 7]], [1]> : tensor<2x2xi32>} : () -> ()

// -----

// expected-error @+1 {{sparse attribute has 2 indices but 1 values}}
"t.op"() {a = sparse<[[0, 0], [1, 1]], [1]> : tensor<2x2xi32>} : () -> ()
