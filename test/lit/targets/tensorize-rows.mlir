// Tiles of output rows (tensorize): a convolution whose input alone (1 x 4 x 48 x
// 48 int8, 9216 bytes) overflows tinynpu's 8 KiB local memory, so tiles of output
// channels, which all read the whole input, cannot fit. Each tile computes a band
// of output rows from the input rows its windows reach (the rows around a band
// are read by both neighbours: the halo), padded only where it meets the plane's
// top or bottom edge; --check-semantics runs the tiles against the op.
// RUN: acc-opt --target %S/../../../examples/targets/tinynpu.acc --check-semantics --remarks --pass partition,tensorize %s 2>&1 | FileCheck %s
// RUN: acc-opt --target %S/../../../examples/targets/tinynpu.acc --check-semantics --pass partition,tensorize,weight-prep,graph-to-tensor,bufferize,buffer-deallocation,memory-plan %s | FileCheck %s --check-prefix=LOOPS

// The input and the output (18432 bytes) are split; the weights, bias and table are
// read whole by every tile.
// CHECK: tensorize: 'npu_conv2d_s8' computes this in 8 tiles of 6 output rows (its buffers take 28096 bytes, more than memory 'npu_local' holds, 8192;
// CHECK-LABEL: func.func @conv(
// The first band: output rows 0-5 from input rows 0-6, padded above.
// CHECK: %[[X0:[0-9]+]] = graph.slice %arg0 {axes = array<i64: 2>, ends = array<i64: 7>, starts = array<i64: 0>} {{.*}} -> tensor<1x4x7x48x
// The next: output rows 6-11 from input rows 5-12 (a row above and below).
// CHECK-NEXT: %[[X1:[0-9]+]] = graph.slice %arg0 {axes = array<i64: 2>, ends = array<i64: 13>, starts = array<i64: 5>} {{.*}} -> tensor<1x4x8x48x
// The last: input rows 41-47.
// CHECK: %[[X7:[0-9]+]] = graph.slice %arg0 {axes = array<i64: 2>, ends = array<i64: 48>, starts = array<i64: 41>} {{.*}} -> tensor<1x4x7x48x
// Then the tiles, one after another (the weights stay in the local memory): the
// first padded above, the inner ones not at all, the last below.
// CHECK-NEXT: graph.qconv2d %[[X0]], {{.*}}pads = array<i64: 1, 1, 0, 1>} {{.*}} -> tensor<1x8x6x48x
// CHECK-NEXT: graph.qconv2d %[[X1]], {{.*}}pads = array<i64: 0, 1, 0, 1>} {{.*}} -> tensor<1x8x6x48x
// CHECK: graph.qconv2d %[[X7]], {{.*}}pads = array<i64: 0, 1, 1, 1>} {{.*}} -> tensor<1x8x6x48x
// CHECK-NEXT: graph.concat {{.*}} {axis = 2 : i64}
// The weights go to the local memory once; each tile's input band and result pass
// through it.
// LOOPS: hw.dma_start %{{[0-9]+}}, %[[WL:[0-9]+]] {call = "npu_dma"} : memref<8x4x3x3x
// LOOPS-COUNT-8: hw.intrinsic "npu_conv2d_s8"(%{{[0-9]+}}, %[[WL]],
// LOOPS-NOT: hw.intrinsic
func.func @conv(%x: tensor<1x4x48x48x!quant.uniform<i8:f32, 0.05:2>>) -> tensor<1x8x48x48x!quant.uniform<i8:f32, 0.1:-3>> {
  %wi = graph.constant dense<[[[[-5, 17, 14], [-12, 3, 18], [10, 20, 17]], [[-16, 18, -20], [10, -4, 15], [-6, -8, 10]], [[14, 15, 10], [5, 20, -11], [-6, 20, -11]], [[13, 4, -20], [-16, -10, 17], [-18, -1, -19]]], [[[-3, 10, 18], [4, 7, 5], [16, 8, -12]], [[3, -14, -18], [-12, 11, -7], [-4, 7, 20]], [[-1, 6, 12], [4, 16, 2], [14, 17, 6]], [[17, -6, 1], [-19, -3, 18], [-10, 0, 14]]], [[[16, 16, -14], [-7, 20, 16], [-3, -2, -13]], [[-16, 10, 20], [10, -15, 2], [-16, 6, -11]], [[-19, -2, 7], [6, -13, -18], [18, 19, -18]], [[4, 17, 1], [15, -3, 12], [-5, -18, -1]]], [[[-20, -16, -14], [18, 14, -18], [-8, 6, -2]], [[19, -4, -11], [-18, 1, 0], [3, -12, 4]], [[4, 9, 13], [4, 18, 15], [-14, 19, 12]], [[-3, 7, 20], [-5, -1, 7], [-4, 13, -1]]], [[[15, 1, -20], [6, 17, 0], [-19, 4, 19]], [[17, 20, -12], [-17, 20, 20], [1, 9, 2]], [[2, 18, -3], [11, -19, 17], [-17, -19, 3]], [[-4, 20, 9], [-1, 17, 18], [0, -9, 3]]], [[[-9, 0, 3], [18, -4, -1], [4, -14, -19]], [[16, -12, -1], [12, -6, -3], [-5, 0, -9]], [[7, -14, -14], [18, 0, 1], [-6, 8, -10]], [[-15, 1, -7], [16, 8, -3], [-6, -13, -18]]], [[[13, -8, 0], [16, -9, -3], [1, -15, 19]], [[2, 17, -12], [6, -2, 13], [-3, 9, 2]], [[20, 6, -2], [6, 16, 6], [-18, 6, -11]], [[-8, -20, 10], [19, 12, 7], [15, -6, -18]]], [[[9, 13, -2], [14, 1, -6], [-16, 17, -2]], [[-13, -5, -18], [-18, 12, -8], [7, 16, -17]], [[-20, 10, -13], [-10, 12, -1], [-5, -19, 13]], [[14, 6, -17], [19, -13, 1], [-12, -4, 14]]]]> : tensor<8x4x3x3xi8>
  %w = graph.storage_cast %wi : tensor<8x4x3x3xi8> to tensor<8x4x3x3x!quant.uniform<i8:f32, 0.02>>
  %b = graph.constant dense<[188, -238, 60, -74, -98, -175, 247, -178]> : tensor<8xi32>
  %y = graph.qconv2d %x, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x48x48x!quant.uniform<i8:f32, 0.05:2>>, tensor<8x4x3x3x!quant.uniform<i8:f32, 0.02>>, tensor<8xi32>) -> tensor<1x8x48x48x!quant.uniform<i8:f32, 0.1:-3>>
  return %y : tensor<1x8x48x48x!quant.uniform<i8:f32, 0.1:-3>>
}

// A pool has no channel tiles (every channel is one window per position): an input
// of 8192 bytes in a 4 KiB memory goes in bands of output rows, the windows of
// stride 2 and extent 3 overlapping by one input row.
// RUN: acc-opt --target %S/Inputs/pool-npu.acc --check-semantics --remarks --pass partition,tensorize %s 2>&1 | FileCheck %s --check-prefix=POOL
// POOL: tensorize: 'max_pool_s8' computes this in 6 tiles of 3 output rows (its buffers take 10240 bytes, more than memory 'local' holds, 4096;
// POOL-LABEL: func.func @pool(
// POOL: graph.slice %arg0 {axes = array<i64: 2>, ends = array<i64: 6>, starts = array<i64: 0>}
// POOL-NEXT: graph.slice %arg0 {axes = array<i64: 2>, ends = array<i64: 12>, starts = array<i64: 5>}
// POOL: graph.slice %arg0 {axes = array<i64: 2>, ends = array<i64: 32>, starts = array<i64: 29>}
// The first band padded above; the last window ends on the plane's last row, so
// no band needs the padding below.
// POOL-NEXT: graph.max_pool {{.*}}pads = array<i64: 1, 1, 0, 1>
// POOL-NEXT: graph.max_pool {{.*}}pads = array<i64: 0, 1, 0, 1>
// POOL: graph.max_pool {{.*}}pads = array<i64: 0, 1, 0, 1>{{.*}} -> tensor<1x8x1x16xi8>
// POOL-NEXT: graph.concat {{.*}} {axis = 2 : i64}

// The same pool on the unit's channel-blocked format (NCHW16c): the 8 channels fill
// half of each 16-lane block, the other half padding, so the buffers hold twice
// the bytes (20480) and a band is one output row.
// RUN: sed '0,/^    memory local$/s//    memory local\n    layout %%x "NCHW" -> "NCHW16c", %%y "NCHW" -> "NCHW16c"/' %S/Inputs/pool-npu.acc > %t.acc
// RUN: acc-opt --target %t.acc --check-semantics --remarks --pass partition,tensorize %s 2>&1 | FileCheck %s --check-prefix=BLOCKED
// RUN: acc-opt --target %t.acc --check-semantics --pass partition,tensorize,graph-to-tensor,bufferize,buffer-deallocation,memory-plan %s | FileCheck %s --check-prefix=BLOCKED-LOOPS
// BLOCKED: tensorize: 'max_pool_s8' computes this in 16 tiles of 1 output rows (its buffers take 20480 bytes, more than memory 'local' holds, 4096;
// BLOCKED-LOOPS-LABEL: func.func @pool(
// BLOCKED-LOOPS-COUNT-16: hw.intrinsic "max_pool_s8"({{.*}}memref<1x1x{{[23]}}x32x16xi8
// BLOCKED-LOOPS-NOT: hw.intrinsic "max_pool_s8"
func.func @pool(%x: tensor<1x8x32x32xi8>) -> tensor<1x8x16x16xi8> {
  %y = graph.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x32x32xi8>) -> tensor<1x8x16x16xi8>
  return %y : tensor<1x8x16x16xi8>
}
