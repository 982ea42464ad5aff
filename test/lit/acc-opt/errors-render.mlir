// Errors are rendered with the file, line and column, the source line and a caret.
// RUN: not acc-opt --allow-unregistered-dialect %s 2>&1 | FileCheck %s

// CHECK: error: use of undeclared SSA value name '%nope'
// CHECK-NEXT: {{.*}}errors-render.mlir:[[# @LINE + 5]]:11
// CHECK: "t.use"(%nope) : (i32) -> ()
// CHECK-NEXT: {{.*}} ^^^^^
func.func @f() {
  "func.return"() : () -> ()
  "t.use"(%nope) : (i32) -> ()
}
