// Grouped convolutions. graph-to-tensor keeps each one a single tensor.conv2d with
// its groups. The host's layout table then runs groups of whole 16-channel blocks
// (RegNetX's) as one blocked op, acc_sgconv2d_nchw16c; splits other groups of at
// least 8 input channels into one dense tensor.conv2d per group (the slices of the
// input, the weights and the bias-filled init, each inserted into the result),
// which the dense blocked kernel runs; and leaves narrower groups alone. Each step
// is checked against the interpreter by --check-semantics.
// RUN: acc-opt --check-semantics --pass graph-to-tensor %s | FileCheck %s
// RUN: acc-opt --check-semantics --pass graph-to-tensor,layout %s | FileCheck %s --check-prefix=LAYOUT
// RUN: acc-opt --check-semantics --target %S/../../../lowering/runtime/host.acc --pipeline host-pipeline %s | FileCheck %s --check-prefix=LOOPS

// Two groups of one input block and one output block each, with a bias and a ReLU
// that the call applies as it stores.
// CHECK-LABEL: func.func @whole_blocks(
// CHECK: tensor.conv2d {groups = 2 : i64} ins(%{{.*}}, %arg1 : tensor<1x32x10x10xf32>, tensor<32x16x3x3xf32>)
// CHECK-NOT: tensor.conv2d
// LAYOUT-LABEL: func.func @whole_blocks(
// LAYOUT: tensor.pack %arg1 inner_dims_pos = [1, 0] inner_tiles = [16, 16] into %{{.*}} : tensor<32x16x3x3xf32> -> tensor<2x1x3x3x16x16xf32>
// LAYOUT: tensor.conv2d {filter_layout = #tensor.layout<"OIHW16i16o">, groups = 2 : i64, input_layout = #tensor.layout<"NCHW16c">, output_layout = #tensor.layout<"NCHW16c">} ins(%{{.*}} : tensor<1x2x10x10x16xf32>, tensor<2x1x3x3x16x16xf32>) outs(%{{.*}} : tensor<1x2x8x8x16xf32>)
// LAYOUT-NOT: tensor.conv2d
// The sizes: 32 channels of 8 x 8, 32 filters of 3 x 3, an 8 x 8 output, strides,
// dilations, padding, then 2 groups; the clamp of the ReLU and no gate.
// LOOPS-LABEL: func.func @whole_blocks(
// LOOPS: loop.alloc() {{.*}} : memref<2x16xf32>
// LOOPS: %[[OUT:[0-9]+]] = loop.alloc() {{.*}} : memref<1x2x8x8x16xf32>
// LOOPS-NEXT: %[[C:.*]] = arith.constant 32 : index
// LOOPS-COUNT-2: arith.constant 8 : index
// LOOPS-NEXT: %[[M:.*]] = arith.constant 32 : index
// LOOPS-COUNT-2: arith.constant 3 : index
// LOOPS-COUNT-2: arith.constant 8 : index
// LOOPS-COUNT-6: arith.constant 1 : index
// LOOPS-NEXT: %[[G:.*]] = arith.constant 2 : index
// LOOPS-NEXT: %[[LO:.*]] = arith.constant 0.000000e+00 : f32
// LOOPS-NEXT: %[[HI:.*]] = arith.constant 0x7F800000 : f32
// LOOPS-NEXT: %[[GATE:.*]] = arith.constant 0 : index
// LOOPS-COUNT-2: arith.constant 0.000000e+00 : f32
// LOOPS-NEXT: hw.intrinsic "acc_sgconv2d_nchw16c_bias"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[OUT]], %[[C]], %{{[0-9]+}}, %{{[0-9]+}}, %[[M]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[G]], %[[LO]], %[[HI]], %[[GATE]], %{{[0-9]+}}, %{{[0-9]+}}) : (memref<1x2x8x8x16xf32>, memref<2x1x3x3x16x16xf32>, memref<2x16xf32>, memref<1x2x8x8x16xf32>,
// LOOPS-NOT: hw.intrinsic
// LOOPS: return
func.func @whole_blocks(%x: tensor<1x32x8x8xf32>, %w: tensor<32x16x3x3xf32>, %b: tensor<32xf32>) -> tensor<1x32x8x8xf32> {
  %y = graph.conv2d %x, %w, %b {groups = 2 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x32x8x8xf32>, tensor<32x16x3x3xf32>, tensor<32xf32>) -> tensor<1x32x8x8xf32>
  %r = graph.relu %y : tensor<1x32x8x8xf32>
  return %r : tensor<1x32x8x8xf32>
}

// Groups of 16 input channels but 8 output channels: one dense convolution per
// group, each run by the blocked dense kernel (8 output channels padded to a block).
// CHECK-LABEL: func.func @two_groups(
// CHECK: tensor.conv2d {groups = 2 : i64}
// CHECK-NOT: tensor.conv2d
// LAYOUT-LABEL: func.func @two_groups(
// LAYOUT: tensor.extract_slice %{{.*}}[0, 0, 0, 0, 0] [1, 1, 10, 10, 16] [1, 1, 1, 1, 1] : tensor<1x2x10x10x16xf32> to tensor<1x1x10x10x16xf32>
// LAYOUT: tensor.conv2d {filter_layout = #tensor.layout<"OIHW16i16o">, input_layout = #tensor.layout<"NCHW16c">, output_layout = #tensor.layout<"NCHW16c">}
// LAYOUT: tensor.extract_slice %{{.*}}[0, 1, 0, 0, 0] [1, 1, 10, 10, 16] [1, 1, 1, 1, 1] : tensor<1x2x10x10x16xf32> to tensor<1x1x10x10x16xf32>
// LAYOUT: tensor.conv2d {filter_layout = #tensor.layout<"OIHW16i16o">, input_layout = #tensor.layout<"NCHW16c">, output_layout = #tensor.layout<"NCHW16c">}
// LAYOUT: tensor.insert_slice %{{.*}} into %{{.*}}[0, 8, 0, 0] [1, 8, 8, 8]
// LOOPS-LABEL: func.func @two_groups(
// LOOPS: hw.intrinsic "acc_sconv2d_nchw16c"({{.*}}) : (memref<1x1x10x10x16xf32>, memref<1x1x3x3x16x16xf32>, memref<1x1x8x8x16xf32>,
// LOOPS: hw.intrinsic "acc_sconv2d_nchw16c"(
// LOOPS: return
func.func @two_groups(%x: tensor<1x32x8x8xf32>, %w: tensor<16x16x3x3xf32>, %b: tensor<16xf32>) -> tensor<1x16x8x8xf32> {
  %y = graph.conv2d %x, %w, %b {groups = 2 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x32x8x8xf32>, tensor<16x16x3x3xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>
  return %y : tensor<1x16x8x8xf32>
}

// Groups of 4 channels: one grouped op, in loops.
// CHECK-LABEL: func.func @narrow(
// CHECK: tensor.conv2d {groups = 4 : i64}
// LAYOUT-LABEL: func.func @narrow(
// LAYOUT-NOT: tensor.pack
// LAYOUT: tensor.conv2d {groups = 4 : i64} ins(%arg0, %arg1 : tensor<1x16x6x6xf32>, tensor<16x4x3x3xf32>)
// LOOPS-LABEL: func.func @narrow(
// LOOPS-NOT: hw.intrinsic
// LOOPS: return
func.func @narrow(%x: tensor<1x16x6x6xf32>, %w: tensor<16x4x3x3xf32>) -> tensor<1x16x4x4xf32> {
  %y = graph.conv2d %x, %w {groups = 4 : i64} : (tensor<1x16x6x6xf32>, tensor<16x4x3x3xf32>) -> tensor<1x16x4x4xf32>
  return %y : tensor<1x16x4x4xf32>
}

// Depthwise: one grouped op (8 channels: too few for the host's row).
// CHECK-LABEL: func.func @depthwise(
// LAYOUT-LABEL: func.func @depthwise(
// LAYOUT: tensor.conv2d {groups = 8 : i64}
// CHECK: tensor.conv2d {groups = 8 : i64}
// CHECK-NOT: tensor.conv2d
func.func @depthwise(%x: tensor<1x8x6x6xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<1x8x4x4xf32> {
  %y = graph.conv2d %x, %w {groups = 8 : i64} : (tensor<1x8x6x6xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}
