// Mistakes in a dialect file are diagnostics that point into the file.
// RUN: not acc-opt --dialect %S/Inputs/bad.acc %s 2>&1 | FileCheck %s
// RUN: not acc-opt --dialect %S/Inputs/syntax-error.acc %s 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: not acc-opt --dialect %S/Inputs/no-such-file.acc %s 2>&1 | FileCheck %s --check-prefix=MISSING

// CHECK-DAG: error: unknown type constraint 'Blue'
// CHECK-DAG: bad.acc:4:25
// CHECK-DAG: error: invalid default value: expected number
// CHECK-DAG: error: unknown trait 'Sparkly'
// CHECK-DAG: bad.acc:3:18
// SYNTAX: error: syntax error in dialect definition: expected
// SYNTAX: syntax-error.acc:3:15
// MISSING: acc-opt: cannot read dialect file '{{.*}}no-such-file.acc'

func.func private @f()
