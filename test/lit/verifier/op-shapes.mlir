// Registered ops check their numbers of operands, results, regions and successors and
// their symbol attributes, so that custom forms never drop anything.
// RUN: acc-opt --split-input-file --verify-diagnostics %s

func.func @f() {
  // expected-error @+1 {{'func.return' op expects 0 results, but found 1}}
  %0 = "func.return"() : () -> i32
}

// -----

// expected-error @+1 {{'func.func' op expects 0 results, but found 1}}
%0 = "func.func"() <{function_type = () -> (), sym_name = "f", sym_visibility = "private"}> ({
}) : () -> i32

// -----

// expected-error @+1 {{attribute 'sym_visibility' must be "public", "private" or "nested"}}
"func.func"() <{function_type = () -> (), sym_name = "f", sym_visibility = "foo"}> ({
}) : () -> ()

// -----

// expected-error @+1 {{'func.func' op attribute 'arg_attrs' must be of kind 'array'}}
"func.func"() <{function_type = (i32) -> (), sym_name = "f", sym_visibility = "private", arg_attrs = 5}> ({
}) : () -> ()

// -----

// expected-error @+1 {{expects 'arg_attrs' to be an array of 1 dictionaries}}
"func.func"() <{function_type = (i32) -> (), sym_name = "f", sym_visibility = "private", arg_attrs = [{}, {}]}> ({
}) : () -> ()

// -----

// expected-error @+1 {{'builtin.module' op attribute 'sym_name' must be of kind 'string'}}
"builtin.module"() <{sym_name = 1 : i64}> ({
^bb0:
}) : () -> ()

// -----

module @m {
}
func.func @calls_a_module() {
  // expected-error @+1 {{'m' does not reference a valid function}}
  func.call @m() : () -> ()
  return
}

// -----

func.func @cond_ui1(%c: ui1) {
  // expected-error @+1 {{operand #0 ('condition') must be i1, but got ui1}}
  "cf.cond_br"(%c) [^bb1, ^bb1] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (ui1) -> ()
^bb1:
  return
}

// -----

func.func @segments_i8(%c: i1) {
  // expected-error @+1 {{requires property 'operandSegmentSizes': an array<i32: ...> of 3 non-negative sizes}}
  "cf.cond_br"(%c) [^bb1, ^bb1] <{operandSegmentSizes = array<i8: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>}> : (i1) -> ()
^bb1:
  return
}

// -----

func.func private @callee()
func.func @unknown_property() {
  // expected-error @+1 {{'x' is not a property of 'func.call'}}
  "func.call"() <{callee = @callee, x}> : () -> ()
  return
}
