// A byte that is not UTF-8 is reported like other errors: file, line, column and a
// caret under it (Inputs/not-utf8.mlir has a 0xFF byte on line 2, column 16).
// RUN: not acc-opt --allow-unregistered-dialect %S/Inputs/not-utf8.mlir 2>&1 | FileCheck %s
// RUN: not acc-opt --allow-unregistered-dialect - < %S/Inputs/not-utf8.mlir 2>&1 | FileCheck %s --check-prefix=STDIN

// CHECK: error: invalid UTF-8 byte 0xFF: input files must be UTF-8
// CHECK-NEXT: {{.*}}not-utf8.mlir:2:16
// CHECK: "t.b"() {s = "x
// CHECK-NEXT: │ ^

// STDIN: error: invalid UTF-8 byte 0xFF
// STDIN-NEXT: <stdin>:2:16
