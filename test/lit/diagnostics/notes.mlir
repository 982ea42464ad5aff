// The parser's errors carry MLIR's notes: where a name was defined before, where a
// value was used with another type.
// RUN: acc-opt --split-input-file --verify-diagnostics --allow-unregistered-dialect %s

func.func @redefined() {
  // expected-note @+1 {{previously defined here}}
  %a = "t.def"() : () -> i32
  // expected-error @+1 {{redefinition of SSA value '%a'}}
  %a = "t.def"() : () -> i32
  return
}

// -----

func.func @prior_use() {
  // expected-note @+1 {{prior use here}}
  %a = "t.def"() : () -> i32
  // expected-error @+1 {{use of value '%a' expects different type than prior uses: 'i64' vs 'i32'}}
  "t.use"(%a) : (i64) -> ()
  return
}

// -----

func.func @forward() {
  // expected-note @+1 {{previously used here with type i64}}
  "t.use"(%b) : (i64) -> ()
  // expected-error @+1 {{definition of SSA value '%b#0' has type i32, but a prior use expects i64}}
  %b = "t.def"() : () -> i32
  return
}
