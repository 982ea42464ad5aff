// Mistakes in the newer parts of a dialect file (enums, parameters, classes, relations,
// successors, hooks, formats, redefinitions, ambiguous formats) are all reported, each at its place, before any IR is read.
// RUN: not acc-opt --dialect %S/Inputs/bad-features.acc %s 2>&1 | FileCheck %s

// CHECK-DAG: error: enum 'worse.level' gives case values but no storage type
// CHECK-DAG: bad-features.acc:2:3
// CHECK-DAG: error: unknown attribute kind 'colour'
// CHECK-DAG: bad-features.acc:3:18
// CHECK-DAG: error: unknown class 'Missing'
// CHECK-DAG: bad-features.acc:4:10
// CHECK-DAG: error: 'y' is not an operand or result of 'worse.b'
// CHECK-DAG: bad-features.acc:7:29
// CHECK-DAG: error: unknown infer hook 'no_such_hook': acc provides arg_reduce, broadcast,
// CHECK-DAG: bad-features.acc:8:11
// CHECK-DAG: error: successor operands 'rest' must name a variadic operand group of 'worse.c'
// CHECK-DAG: bad-features.acc:12:23
// CHECK-DAG: error: op 'worse.d' has both a format and a syntax hook
// CHECK-DAG: error: ElementTypeOf relates exactly two values
// CHECK-DAG: error: invalid default value: expected number, found '<'
// CHECK-DAG: bad-features.acc:24:26
// CHECK-DAG: error: dialect 'worse' is already loaded: a dialect file cannot redefine or extend it
// CHECK-DAG: bad-features.acc:27:9
// CHECK-DAG: error: constraint 'C' is defined twice
// CHECK-DAG: error: 'ambiguous.twice' is declared twice
// CHECK-DAG: error: in the format of 'ambiguous.g': operand groups '$x' and '$y' must be separated by a literal
// CHECK-DAG: error: in the format of 'ambiguous.h': attr-dict cannot come right before a region
// CHECK-NOT: module

func.func private @f()
