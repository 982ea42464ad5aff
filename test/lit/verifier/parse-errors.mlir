// Parse errors point at the offending token.
// RUN: acc-opt --split-input-file --verify-diagnostics --allow-unregistered-dialect %s

func.func @undefined() {
  // expected-error @+1 {{use of undeclared SSA value name '%nope'}}
  "t.use"(%nope) : (i32) -> ()
  return
}

// -----

func.func @redefined() {
  // expected-note @+1 {{previously defined here}}
  %a = "t.def"() : () -> i32
  // expected-error @+1 {{redefinition of SSA value '%a'}}
  %a = "t.def"() : () -> i32
  return
}

// -----

func.func @type_mismatch() {
  // expected-note @+1 {{prior use here}}
  %a = "t.def"() : () -> i32
  // expected-error @+1 {{use of value '%a' expects different type than prior uses: 'i64' vs 'i32'}}
  "t.use"(%a) : (i64) -> ()
  return
}

// -----

// expected-error @+1 {{operation defines 1 results but was provided 2 to bind}}
%a, %b = "t.def"() : () -> i32

// -----

// expected-error @+1 {{2 operands present, but expected 1}}
"t.use"(%x, %y) : (i32) -> ()

// -----

// expected-error @+1 {{expected type, found 'x'}}
"t.op"() {t = tensor<4xx>} : () -> ()

// -----

// expected-error @+1 {{integer constant out of range for 8-bit type}}
"t.op"() {v = 256 : i8} : () -> ()

// -----

// expected-error @+1 {{duplicate key 'a' in dictionary attribute}}
"t.op"() {a = 1, a = 2} : () -> ()

// -----

// expected-error @+1 {{reference to an undefined block '^nowhere'}}
"t.br"() [^nowhere] : () -> ()

// -----

// expected-error @+1 {{undefined location alias '#nope'}}
"t.op"() : () -> () loc(#nope)

// -----

// expected-error @+1 {{custom op 'frobnicate' is unknown}}
frobnicate %x

// -----

// expected-error @+1 {{dense literal does not match the shape}}
"t.op"() {d = dense<[1, 2, 3]> : tensor<2xi32>} : () -> ()

// -----

// expected-error @+1 {{expected ':' followed by the operation's function type, found '->'}}
"t.op"() -> ()

// -----

// Quantized constants are their stored integers, cast (as in MLIR).
// expected-error @+1 {{dense elements cannot have a quantized element type: give the stored integers their integer type (and cast them with graph.storage_cast)}}
"t.op"() {d = dense<[1, -2]> : tensor<2x!quant.uniform<i8:f32, 0.5>>} : () -> ()
