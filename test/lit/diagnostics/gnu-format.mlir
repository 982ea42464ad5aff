// --diagnostics-format=gnu prints one 'file:line:col: severity: message' line per
// diagnostic and per note, as mlir-opt, GCC and Clang do; the default stays the
// codespan rendering (the source line and a caret).
// RUN: not acc-opt --diagnostics-format=gnu --allow-unregistered-dialect %s 2>&1 | FileCheck %s --check-prefix=GNU
// RUN: not acc-opt --allow-unregistered-dialect %s 2>&1 | FileCheck %s --check-prefix=CODESPAN
// RUN: not acc-opt --diagnostics-format=fancy %s 2>&1 | FileCheck %s --check-prefix=BAD

// GNU: {{.*}}gnu-format.mlir:[[# @LINE + 6]]:3: error: redefinition of SSA value '%a'
// GNU-NEXT: {{.*}}gnu-format.mlir:[[# @LINE + 4]]:3: note: previously defined here
// CODESPAN: error: redefinition of SSA value '%a'
// CODESPAN: previously defined here
func.func @f() {
  %a = "t.def"() : () -> i32
  %a = "t.def"() : () -> i32
  return
}

// BAD: acc-opt: invalid --diagnostics-format 'fancy': expected 'codespan' or 'gnu'
