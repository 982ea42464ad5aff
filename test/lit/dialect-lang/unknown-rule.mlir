// Names in a dialect file resolve when it loads: an `interpret` rule the interpreter
// does not have, like a verifier or folder acc does not provide, is an error at the
// name, with the names that exist; nothing of the file is used.
// RUN: not acc-opt --dialect %S/Inputs/unknown-rule.acc %s 2>&1 | FileCheck %s

// CHECK-DAG: error: unknown interpreter rule 'no_such_rule': acc's interpreter has {{.*}}binary{{.*}}
// CHECK-DAG: unknown-rule.acc:9:15
// CHECK-DAG: error: unknown verifier hook 'no_such_verifier': acc provides
// CHECK-DAG: unknown-rule.acc:14:14
// CHECK-DAG: error: unknown folder hook 'no_such_folder': acc provides
// CHECK-DAG: unknown-rule.acc:15:12

func.func @f() {
  return
}
