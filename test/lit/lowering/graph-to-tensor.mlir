// graph-to-tensor: graph ops as destination-passing tensor ops (the results checked
// against the interpreter by --check-semantics on seeded inputs).
// RUN: acc-opt --check-semantics --pass graph-to-tensor %s | FileCheck %s

// Broadcasting an operand, then an elementwise map per op.
// CHECK-LABEL: func.func @bias_relu(
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK-NEXT: %[[B:.*]] = tensor.broadcast ins(%arg1 : tensor<3xf32>) outs(%[[E]] : tensor<2x3xf32>) dimensions = [0]
// CHECK: %[[S:.*]] = tensor.map ins(%arg0, %[[B]] : tensor<2x3xf32>, tensor<2x3xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32):
// CHECK-NEXT: %[[A:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT: tensor.yield %[[A]] : f32
// CHECK: tensor.map ins(%[[S]] : tensor<2x3xf32>)
// CHECK: arith.constant 0.000000e+00 : f32
// CHECK-NEXT: arith.maximumf
// CHECK-NOT: graph.
func.func @bias_relu(%x: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %s = graph.add %x, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %r = graph.relu %s : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// A matrix product into a zero init.
// CHECK-LABEL: func.func @dense(
// CHECK-NEXT: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<4x5xf32>
// CHECK-NEXT: %[[M:.*]] = tensor.matmul ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<8x5xf32>) outs(%[[Z]] : tensor<4x5xf32>) -> tensor<4x5xf32>
// CHECK-NEXT: return %[[M]]
func.func @dense(%x: tensor<4x8xf32>, %w: tensor<8x5xf32>) -> tensor<4x5xf32> {
  %y = graph.matmul %x, %w : (tensor<4x8xf32>, tensor<8x5xf32>) -> tensor<4x5xf32>
  return %y : tensor<4x5xf32>
}

// Padding, the convolution into the broadcast bias, then the pool.
// CHECK-LABEL: func.func @conv(
// CHECK-NEXT: %[[P:.*]] = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1] {
// CHECK: } : tensor<1x2x5x5xf32> to tensor<1x2x7x7xf32>
// CHECK: %[[B:.*]] = tensor.broadcast ins(%arg2 : tensor<3xf32>) {{.*}} dimensions = [0, 2, 3]
// CHECK-NEXT: %[[C:.*]] = tensor.conv2d {strides = array<i64: 2, 2>} ins(%[[P]], %arg1 : {{.*}}) outs(%[[B]] : tensor<1x3x3x3xf32>)
// CHECK: tensor.pool {kind = #tensor.pool_kind<max>, window = array<i64: 2, 2>} ins(%[[C]] : tensor<1x3x3x3xf32>)
func.func @conv(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>, %b: tensor<3xf32>) -> tensor<1x3x2x2xf32> {
  %y = graph.conv2d %x, %w, %b {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x3x3x3xf32>
  %p = graph.max_pool %y {kernel_shape = array<i64: 2, 2>} : (tensor<1x3x3x3xf32>) -> tensor<1x3x2x2xf32>
  return %p : tensor<1x3x2x2xf32>
}

// A reshape: collapsed to one dimension, expanded to the result.
// CHECK-LABEL: func.func @flat(
// CHECK-NEXT: %[[F:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK-NEXT: tensor.expand_shape %[[F]] {{\[\[}}0, 1]] output_shape [2, 12] : tensor<24xf32> into tensor<2x12xf32>
func.func @flat(%x: tensor<2x3x4xf32>) -> tensor<2x12xf32> {
  %y = graph.flatten %x {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  return %y : tensor<2x12xf32>
}

// A one-element gemm bias (as torch exports `mm`): collapsed to rank 0 with the
// empty reassociation, then broadcast to the result.
// CHECK-LABEL: func.func @gemm_scalar_bias(
// CHECK-NEXT: %[[S:.*]] = tensor.collapse_shape %arg2 [] : tensor<1xf32> into tensor<f32>
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<2x4xf32>
// CHECK-NEXT: %[[B:.*]] = tensor.broadcast ins(%[[S]] : tensor<f32>) outs(%[[E]] : tensor<2x4xf32>) dimensions = [0, 1]
// CHECK: tensor.matmul ins(%arg0, %arg1 : tensor<2x3xf32>, tensor<3x4xf32>) outs(%[[B]] : tensor<2x4xf32>)
func.func @gemm_scalar_bias(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<1xf32>) -> tensor<2x4xf32> {
  %y = graph.gemm %a, %b, %c : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<1xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// A reduction over every axis, dimensions kept: the rank-0 result expanded with the
// empty reassociation.
// CHECK-LABEL: func.func @reduce_max_all_kept(
// CHECK: %[[R:.*]] = tensor.reduce ins(%arg0 : tensor<2x3xi32>) {{.*}} dimensions = [0, 1] -> tensor<i32>
// CHECK: %[[F:.*]] = tensor.expand_shape %[[R]] [] output_shape [1] : tensor<i32> into tensor<1xi32>
// CHECK-NEXT: tensor.expand_shape %[[F]] {{\[\[}}0, 1]] output_shape [1, 1] : tensor<1xi32> into tensor<1x1xi32>
func.func @reduce_max_all_kept(%x: tensor<2x3xi32>) -> tensor<1x1xi32> {
  %y = graph.reduce_max %x : (tensor<2x3xi32>) -> tensor<1x1xi32>
  return %y : tensor<1x1xi32>
}
