// -o writes the output file; on an error no output file is left behind.
// RUN: rm -f %t.ok %t.bad
// RUN: acc-opt %s -o %t.ok
// RUN: FileCheck %s < %t.ok
// RUN: not acc-opt %s --print-generic --no-such-flag -o %t.bad
// RUN: not acc-opt %S/Inputs/invalid.mlir -o %t.bad
// RUN: not test -e %t.bad
// Reading standard input works too.
// RUN: acc-opt - < %s | FileCheck %s

// CHECK: func.func private @f()
func.func private @f()
