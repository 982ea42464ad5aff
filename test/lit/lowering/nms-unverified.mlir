// Unverified IR (--no-verify) whose init is smaller than what the op may select
// would let the loops write past it: bufferize checks the bound itself, and nothing
// is written.
// RUN: not acc-opt --no-verify --pass bufferize %s -o %t 2>&1 | FileCheck %s
// RUN: not test -e %t

// CHECK: error: cannot bufferize 'tensor.non_max_suppression': an init of 5 rows cannot hold the 6 it may select
func.func @small(%b: tensor<1x10x4xf32>, %s: tensor<1x2x10xf32>, %i: tensor<5x3xi64>) -> index {
  %r:2 = tensor.non_max_suppression ins(%b, %s : tensor<1x10x4xf32>, tensor<1x2x10xf32>) outs(%i : tensor<5x3xi64>) {max_output_boxes_per_class = 3 : i64} -> tensor<5x3xi64>, index
  return %r#1 : index
}
