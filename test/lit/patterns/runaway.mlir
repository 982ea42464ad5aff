// A pattern that rebuilds what it matched would rewrite forever: canonicalize stops,
// names the pattern, fails, and writes no output.
// RUN: not acc-opt --dialect %S/Inputs/runaway.acc --pass canonicalize %s -o %t 2>&1 | FileCheck %s
// RUN: not test -e %t

// CHECK: error: canonicalization does not terminate: rewriting went on without end (last pattern applied: 'forever')
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = graph.relu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
