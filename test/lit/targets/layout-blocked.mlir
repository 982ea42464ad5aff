// Channel-blocked layouts from the target file (`layout %x "NCHW" -> "NCHW16c"`):
// 20 channels are two blocks of 16, the second with 12 lanes of zero padding. The
// input is blocked once (real lanes, then the padding), the two relu calls pass
// their blocks between them as they are, sigmoid's NHWC16c takes an unblocking and
// a reblocking, and the host's tanh gets its plain value from one unblocking.
// `--check-semantics` runs every step against the graph.
// RUN: acc-opt --check-semantics --target %S/Inputs/blocked-npu.acc --pass partition,tensorize,graph-to-tensor,bufferize %s | FileCheck %s

// CHECK-LABEL: func.func @chain(
// CHECK: %[[B:[0-9]+]] = loop.alloc() : memref<1x2x4x4x16xf32>
// CHECK: %[[ZERO:[0-9]+]] = arith.constant 0.000000e+00 : f32
// CHECK: loop.parallel
// CHECK: arith.muli %arg2
// CHECK: loop.load %arg0[%arg1, %{{[0-9]+}}, %arg3, %arg4] : memref<1x20x4x4xf32>
// CHECK: loop.store %{{[0-9]+}}, %[[B]][%arg1, %arg2, %arg3, %arg4, %arg5]
// The padding lanes: zeros.
// CHECK: loop.store %[[ZERO]], %[[B]]
// CHECK: %[[R1:[0-9]+]] = loop.alloc() : memref<1x2x4x4x16xf32>
// CHECK: hw.intrinsic "relu_nchw16c"(%[[B]], %[[R1]],
// CHECK: tensor.unpack %arg1 inner_dims_pos = [1] inner_tiles = [16] into %{{[0-9]+}} {hw.layout} : tensor<1x2x4x4x16xf32> -> tensor<1x20x4x4xf32>
// CHECK: graph.relu
// CHECK: tensor.pack %{{[0-9]+}} padding_value(%{{[0-9]+}} : f32) inner_dims_pos = [1] inner_tiles = [16] into %{{[0-9]+}} {hw.layout} : tensor<1x20x4x4xf32> -> tensor<1x2x4x4x16xf32>
// No copy between the two relu calls.
// CHECK-NOT: loop.parallel
// CHECK: hw.intrinsic "relu_nchw16c"(%[[R1]], %[[R2:[0-9]+]],
// CHECK: graph.relu
// CHECK: hw.yield
// NCHW16c to NHWC16c: unblocked, transposed, blocked again with its padding.
// CHECK: loop.load %[[R2]]
// CHECK: loop.alloc() : memref<1x4x4x20xf32>
// CHECK: %[[S:[0-9]+]] = loop.alloc() : memref<1x4x4x2x16xf32>
// CHECK: hw.intrinsic "sigmoid_nhwc16c"(%[[S]], %[[SY:[0-9]+]],
// CHECK: tensor.unpack %arg1 inner_dims_pos = [3] inner_tiles = [16]
// CHECK: graph.transpose %{{[0-9]+}} {hw.layout, perm = array<i64: 0, 3, 1, 2>}
// CHECK: graph.sigmoid
// CHECK: graph.transpose %{{[0-9]+}} {hw.layout, perm = array<i64: 0, 2, 3, 1>}
// CHECK: tensor.pack %{{[0-9]+}} padding_value
// The host's tanh reads the plain value.
// CHECK: loop.load %[[SY]][%arg1, %arg2, %arg3, %arg4, %arg5] : memref<1x4x4x2x16xf32>
// CHECK: math.tanh
// CHECK: return

func.func @chain(%x: tensor<1x20x4x4xf32>) -> tensor<1x20x4x4xf32> {
  %r = graph.relu %x : tensor<1x20x4x4xf32>
  %r2 = graph.relu %r : tensor<1x20x4x4xf32>
  %s = graph.sigmoid %r2 : tensor<1x20x4x4xf32>
  %t = graph.tanh %s : tensor<1x20x4x4xf32>
  return %t : tensor<1x20x4x4xf32>
}
