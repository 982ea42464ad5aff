// A bias added to a matrix product along its last dimension (a linear layer: MatMul
// then Add) becomes the product's init, the bias broadcast over its rows: no
// separate pass over the product's result, and the host's packed product reads the
// bias itself (acc_sgemm_nk48n_bias). Checked against the interpreter.
// RUN: acc-opt --check-semantics --pass graph-to-tensor %s | FileCheck %s
// RUN: acc-opt --check-semantics --target %S/../../../lowering/runtime/host.acc --pipeline host-pipeline %s | FileCheck %s --check-prefix=LOOPS

// Rows of a 3-D input, the bias on the left of the add.
// CHECK-LABEL: func.func @linear(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<1x6x8xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<6x16xf32>
// CHECK: %[[B:.*]] = tensor.broadcast ins(%{{.*}} : tensor<16xf32>) outs(%[[E]] : tensor<6x16xf32>) dimensions = [0]
// CHECK: %[[P:.*]] = tensor.matmul ins(%{{.*}}, %{{.*}} : tensor<6x8xf32>, tensor<8x16xf32>) outs(%[[B]] : tensor<6x16xf32>)
// CHECK-NOT: tensor.map
// CHECK: return
// LOOPS-LABEL: func.func @linear(
// LOOPS: hw.intrinsic "acc_sgemm_nk48n_bias"
// LOOPS-NOT: loop.parallel
// LOOPS: return
func.func @linear(%x: tensor<1x6x8xf32>) -> tensor<1x6x16xf32> {
  %w = graph.constant dense<0.25> : tensor<8x16xf32>
  %b = graph.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0]> : tensor<16xf32>
  %m = graph.matmul %x, %w : (tensor<1x6x8xf32>, tensor<8x16xf32>) -> tensor<1x6x16xf32>
  %y = graph.add %b, %m : (tensor<16xf32>, tensor<1x6x16xf32>) -> tensor<1x6x16xf32>
  return %y : tensor<1x6x16xf32>
}

// The product is used twice: the add stays a map.
// CHECK-LABEL: func.func @product_used_twice(
// CHECK: tensor.matmul ins(%{{.*}}, %{{.*}} : tensor<6x8xf32>, tensor<8x16xf32>) outs(%{{.*}} : tensor<6x16xf32>)
// CHECK: tensor.map
// CHECK: return
func.func @product_used_twice(%x: tensor<6x8xf32>, %b: tensor<16xf32>) -> (tensor<6x16xf32>, tensor<6x16xf32>) {
  %w = graph.constant dense<0.5> : tensor<8x16xf32>
  %m = graph.matmul %x, %w : (tensor<6x8xf32>, tensor<8x16xf32>) -> tensor<6x16xf32>
  %y = graph.add %m, %b : (tensor<6x16xf32>, tensor<16xf32>) -> tensor<6x16xf32>
  return %y, %m : tensor<6x16xf32>, tensor<6x16xf32>
}

// A bias along the rows (a column vector) is not a per-column bias: a map.
// CHECK-LABEL: func.func @row_bias(
// CHECK: tensor.matmul
// CHECK: tensor.map
// CHECK: return
func.func @row_bias(%x: tensor<6x8xf32>, %b: tensor<6x1xf32>) -> tensor<6x16xf32> {
  %w = graph.constant dense<0.5> : tensor<8x16xf32>
  %m = graph.matmul %x, %w : (tensor<6x8xf32>, tensor<8x16xf32>) -> tensor<6x16xf32>
  %y = graph.add %m, %b : (tensor<6x16xf32>, tensor<6x1xf32>) -> tensor<6x16xf32>
  return %y : tensor<6x16xf32>
}
