// A grouped convolution with at least 8 input channels per group (RegNet's groups of
// 16) becomes one dense tensor.conv2d per group over its slices of the input, the
// weights and the bias-filled init, each inserted into the result; depthwise
// convolutions stay one op. Checked against the interpreter by --check-semantics,
// through graph-to-tensor and the host pipeline.
// RUN: acc-opt --check-semantics --pass graph-to-tensor %s | FileCheck %s
// RUN: acc-opt --check-semantics --target %S/../../../lowering/runtime/host.acc --pipeline host-pipeline %s | FileCheck %s --check-prefix=LOOPS

// CHECK-LABEL: func.func @two_groups(
// CHECK: %[[X0:.*]] = tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 16, 10, 10] [1, 1, 1, 1] : tensor<1x32x10x10xf32> to tensor<1x16x10x10xf32>
// CHECK: %[[W0:.*]] = tensor.extract_slice %arg1[0, 0, 0, 0] [8, 16, 3, 3] [1, 1, 1, 1]
// CHECK: %[[C0:.*]] = tensor.conv2d ins(%[[X0]], %[[W0]] :
// CHECK: tensor.insert_slice %[[C0]] into %{{.*}}[0, 0, 0, 0] [1, 8, 8, 8]
// CHECK: tensor.extract_slice %{{.*}}[0, 16, 0, 0] [1, 16, 10, 10]
// CHECK: tensor.extract_slice %arg1[8, 0, 0, 0] [8, 16, 3, 3]
// CHECK: tensor.conv2d
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 8, 0, 0] [1, 8, 8, 8]
// Each group runs the library's blocked dense convolution (8 output channels padded
// to a block of 16).
// LOOPS-LABEL: func.func @two_groups(
// LOOPS: hw.intrinsic "acc_sconv2d_nchw16c"({{.*}}) : (memref<1x1x10x10x16xf32>, memref<1x1x3x3x16x16xf32>, memref<1x1x8x8x16xf32>,
// LOOPS: hw.intrinsic "acc_sconv2d_nchw16c"(
// LOOPS: return
func.func @two_groups(%x: tensor<1x32x8x8xf32>, %w: tensor<16x16x3x3xf32>, %b: tensor<16xf32>) -> tensor<1x16x8x8xf32> {
  %y = graph.conv2d %x, %w, %b {groups = 2 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x32x8x8xf32>, tensor<16x16x3x3xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>
  return %y : tensor<1x16x8x8xf32>
}

// Depthwise: one grouped op.
// CHECK-LABEL: func.func @depthwise(
// CHECK: tensor.conv2d {groups = 8 : i64}
// CHECK-NOT: tensor.conv2d
func.func @depthwise(%x: tensor<1x8x6x6xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<1x8x4x4xf32> {
  %y = graph.conv2d %x, %w {groups = 8 : i64} : (tensor<1x8x6x6xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}
