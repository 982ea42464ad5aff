// A fusion pattern loaded at run time with --dialect rewrites conv2d + relu into the
// vendor's fused op, keeping the convolution's attributes; a conv2d whose result has
// another use is left alone (one_use).
// RUN: acc-opt --dialect %S/Inputs/fusion.acc --pass canonicalize %s | FileCheck %s

// CHECK-LABEL: func.func @fused
// CHECK-NEXT: %[[F:.*]] = npu.conv2d_relu %arg0, %arg1, %arg2 {dilations = array<i64: 1, 1>, groups = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT: return %[[F]]
func.func @fused(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x4x4xf32> {
  %c = graph.conv2d %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  %r = graph.relu %c : tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// CHECK-LABEL: func.func @shared
// CHECK: graph.conv2d
// CHECK: graph.relu
// CHECK-NOT: npu.conv2d_relu
func.func @shared(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) {
  %c = graph.conv2d %x, %w, %b : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  %r = graph.relu %c : tensor<1x4x6x6xf32>
  return %c, %r : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>
}
