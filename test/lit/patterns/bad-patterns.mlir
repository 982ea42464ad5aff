// Mistakes in rewrite patterns are reported when the file is loaded, each at its
// place, and no IR is read or written.
// RUN: not acc-opt --dialect %S/Inputs/bad-patterns.acc %s -o %t.out 2>&1 | FileCheck %s
// RUN: not test -e %t.out

// CHECK-DAG: error: unknown op 'graph.nope' in a pattern
// CHECK-DAG: bad-patterns.acc:2:16
// CHECK-DAG: error: no later op of the match uses this op's results: a match is a DAG of ops rooted at its last op
// CHECK-DAG: bad-patterns.acc:7:10
// CHECK-DAG: error: argument of 'constant' must be a value (%name)
// CHECK-DAG: bad-patterns.acc:14:9
// CHECK-DAG: error: unknown constraint 'sometimes': acc provides constant, not_constant, one_use, single_element, same_type, equal, inverse_permutations
// CHECK-DAG: bad-patterns.acc:14:23
// CHECK-DAG: error: '%z' is not defined
// CHECK-DAG: bad-patterns.acc:20:26
// CHECK-DAG: error: '$q' is not captured by the match
// CHECK-DAG: bad-patterns.acc:20:38
// CHECK-DAG: error: '%x' is not a result of the root op
// CHECK-DAG: bad-patterns.acc:26:21
// CHECK-DAG: error: the rewrite does not replace %r
// CHECK-DAG: bad-patterns.acc:24:1
// CHECK-DAG: error: benefit must be between 1 and 65535
// CHECK-DAG: bad-patterns.acc:29:3
// CHECK-DAG: error: in attribute literal: expected element literal, found 'oops'
// CHECK-DAG: bad-patterns.acc:30:59
// CHECK-DAG: error: '%r' is defined twice
// CHECK-DAG: bad-patterns.acc:34:11
// CHECK-DAG: error: pattern 'twice' is defined twice
// CHECK-DAG: bad-patterns.acc:41:9

func.func @f() {
  return
}
