// A dialect file cannot redefine a dialect acc ships (or one loaded before).
// RUN: not acc-opt --dialect %S/Inputs/redefine-arith.acc %s 2>&1 | FileCheck %s
// CHECK: error: dialect 'arith' is already loaded: a dialect file cannot redefine or extend it
// CHECK: redefine-arith.acc:2:9

func.func private @f()
