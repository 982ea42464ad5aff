// func.func, func.return and func.call verifiers.
// RUN: acc-opt --split-input-file --verify-diagnostics %s

func.func @wrong_count() -> i32 {
  // expected-error @+1 {{'func.return' op has 0 operands, but enclosing function (@wrong_count) returns 1}}
  return
}

// -----

func.func @wrong_type(%a: i64) -> i32 {
  // expected-error @+1 {{type of return operand 0 (i64) doesn't match function result type (i32)}}
  return %a : i64
}

// -----

// expected-error @+1 {{entry block must have 1 arguments to match function signature}}
"func.func"() <{function_type = (i32) -> (), sym_name = "args"}> ({
  "func.return"() : () -> ()
}) : () -> ()

// -----

// expected-error @+1 {{symbol declaration cannot have public visibility}}
func.func @public_decl()

// -----

func.func @bad_call() {
  // expected-error @+1 {{'missing' does not reference a valid function}}
  func.call @missing() : () -> ()
  return
}

// -----

func.func private @callee(i32) -> i32
func.func @call_mismatch(%a: i64) {
  // expected-error @+1 {{operand type mismatch with callee signature}}
  %0 = func.call @callee(%a) : (i64) -> i32
  return
}
