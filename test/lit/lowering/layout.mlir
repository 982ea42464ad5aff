// layout (table=host): ungrouped f32 batch-1 convolutions with at least 16 input
// channels run in NCHW16c with OIHW16i16o filters. Their operands are packed and
// their results unpacked, then the packs move up through pads, broadcasts (the
// bias) and elementwise maps to the unpack they meet, where both cancel; packs of
// constants are folded (the filter changes layout at compile time). One pack is left
// where a plain value enters the blocked ops, one unpack where a blocked value leaves.
// Checked against the interpreter, which computes blocked convolutions.
// RUN: acc-opt --check-semantics --pass layout %s | FileCheck %s
// RUN: acc-opt --check-semantics --pass 'layout{table=none}' %s | FileCheck %s --check-prefix=NONE
// RUN: not acc-opt --pass 'layout{table=tpu}' %s 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: acc-opt --check-semantics --pass 'layout{assume-finite=true}' %s | FileCheck %s --check-prefix=FINITE

// CHECK-LABEL: func.func @chain(
// CHECK-SAME: %[[X:.*]]: tensor<1x16x6x6xf32>
// CHECK: %[[XB:.*]] = tensor.pack %[[X]] inner_dims_pos = [1] inner_tiles = [16] into %{{[0-9]+}} : tensor<1x16x6x6xf32> -> tensor<1x1x6x6x16xf32>
// CHECK-NEXT: %[[XP:.*]] = tensor.pad %[[XB]] low[0, 0, 1, 1, 0] high[0, 0, 1, 1, 0]
// CHECK: } : tensor<1x1x6x6x16xf32> to tensor<1x1x8x8x16xf32>
// CHECK-NEXT: %[[W:.*]] = arith.constant dense<{{.*}}> : tensor<2x1x3x3x16x16xf32>
// CHECK-NEXT: %[[B:.*]] = arith.constant dense<{{.*}}> : tensor<2x16xf32>
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<1x2x6x6x16xf32>
// CHECK-NEXT: %[[BB:.*]] = tensor.broadcast ins(%[[B]] : tensor<2x16xf32>) outs(%[[E]] : tensor<1x2x6x6x16xf32>) dimensions = [0, 2, 3]
// CHECK-NEXT: %[[C:.*]] = tensor.conv2d {filter_layout = #tensor.layout<"OIHW16i16o">, input_layout = #tensor.layout<"NCHW16c">, output_layout = #tensor.layout<"NCHW16c">} ins(%[[XP]], %[[W]] : tensor<1x1x8x8x16xf32>, tensor<2x1x3x3x16x16xf32>) outs(%[[BB]] : tensor<1x2x6x6x16xf32>) -> tensor<1x2x6x6x16xf32>
// CHECK-NOT: tensor.unpack
// CHECK: %[[R:.*]] = tensor.map ins(%[[C]] : tensor<1x2x6x6x16xf32>)
// CHECK: arith.maximumf
// CHECK-NOT: tensor.pack
// CHECK: tensor.conv2d {{.*}}strides = array<i64: 2, 2>} ins(%[[R]], %{{[0-9]+}} : tensor<1x2x6x6x16xf32>, tensor<2x2x1x1x16x16xf32>) outs(%{{[0-9]+}} : tensor<1x2x3x3x16xf32>)
// CHECK: %[[U:.*]] = tensor.unpack %{{[0-9]+}} inner_dims_pos = [1] inner_tiles = [16] into %{{[0-9]+}} : tensor<1x2x3x3x16xf32> -> tensor<1x32x3x3xf32>
// CHECK-NEXT: return %[[U]]
// NONE-LABEL: func.func @chain(
// NONE-NOT: tensor.pack
// BAD: layout: unknown table 'tpu' (expected host or none)
func.func @chain(%x: tensor<1x16x6x6xf32>) -> tensor<1x32x3x3xf32> {
  %w32 = arith.constant dense<0.03125> : tensor<32x16x3x3xf32>
  %w2 = arith.constant dense<[[[[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]]], [[[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]]], [[[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]]], [[[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]]], [[[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]]], [[[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]]], [[[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]]], [[[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]]], [[[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]]], [[[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]]], [[[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]]], [[[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]]], [[[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]]], [[[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]]], [[[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]]], [[[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]]], [[[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]]], [[[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]]], [[[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]]], [[[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]]], [[[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]]], [[[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]]], [[[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]]], [[[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]]], [[[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]]], [[[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]]], [[[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]]], [[[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]]], [[[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]]], [[[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]]], [[[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]]], [[[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]], [[0.0]], [[0.1875]], [[-0.3125]], [[-0.125]], [[0.0625]], [[0.25]], [[-0.25]], [[-0.0625]], [[0.125]], [[0.3125]], [[-0.1875]]]]> : tensor<32x32x1x1xf32>
  %b = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, -1.0, -2.0, -3.0, -4.0, -5.0, -6.0, -7.0, -8.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, -8.0]> : tensor<32xf32>
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x16x6x6xf32> to tensor<1x16x8x8xf32>
  %e = tensor.empty() : tensor<1x32x6x6xf32>
  %bb = tensor.broadcast ins(%b : tensor<32xf32>) outs(%e : tensor<1x32x6x6xf32>) dimensions = [0, 2, 3] -> tensor<1x32x6x6xf32>
  %c = tensor.conv2d ins(%p, %w32 : tensor<1x16x8x8xf32>, tensor<32x16x3x3xf32>) outs(%bb : tensor<1x32x6x6xf32>) -> tensor<1x32x6x6xf32>
  %e2 = tensor.empty() : tensor<1x32x6x6xf32>
  %r = tensor.map ins(%c : tensor<1x32x6x6xf32>) outs(%e2 : tensor<1x32x6x6xf32>) -> tensor<1x32x6x6xf32> {
  ^bb0(%a: f32):
    %m = arith.maximumf %a, %zero : f32
    tensor.yield %m : f32
  }
  %z = arith.constant dense<0.5> : tensor<1x32x3x3xf32>
  %c2 = tensor.conv2d {strides = array<i64: 2, 2>} ins(%r, %w2 : tensor<1x32x6x6xf32>, tensor<32x32x1x1xf32>) outs(%z : tensor<1x32x3x3xf32>) -> tensor<1x32x3x3xf32>
  return %c2 : tensor<1x32x3x3xf32>
}

// Partial blocks: 24 channels are two blocks, the second padded with zeros. The map
// after the first convolution runs on the blocks (unpacks move down through maps:
// the unpack drops the padding lanes it computes), but it makes those lanes ones, so
// the unpack and the pack that zeroes them again for the second convolution stay.
// CHECK-LABEL: func.func @partial(
// CHECK: tensor.pack %{{.*}} padding_value(%{{.*}} : f32) inner_dims_pos = [1] inner_tiles = [16] into %{{[0-9]+}} : tensor<1x24x4x4xf32> -> tensor<1x2x4x4x16xf32>
// CHECK: tensor.conv2d
// CHECK: tensor.map ins(%{{[0-9]+}} : tensor<1x2x4x4x16xf32>)
// CHECK: tensor.unpack
// CHECK: tensor.pack
// CHECK: tensor.conv2d
func.func @partial(%x: tensor<1x24x4x4xf32>) -> tensor<1x24x4x4xf32> {
  %w = arith.constant dense<0.125> : tensor<24x24x1x1xf32>
  %z = arith.constant dense<0.0> : tensor<1x24x4x4xf32>
  %c = tensor.conv2d ins(%x, %w : tensor<1x24x4x4xf32>, tensor<24x24x1x1xf32>) outs(%z : tensor<1x24x4x4xf32>) -> tensor<1x24x4x4xf32>
  %e = tensor.empty() : tensor<1x24x4x4xf32>
  %r = tensor.map ins(%c : tensor<1x24x4x4xf32>) outs(%e : tensor<1x24x4x4xf32>) -> tensor<1x24x4x4xf32> {
  ^bb0(%a: f32):
    %one = arith.constant 1.0 : f32
    %m = arith.addf %a, %one : f32
    tensor.yield %m : f32
  }
  %c2 = tensor.conv2d ins(%r, %w : tensor<1x24x4x4xf32>, tensor<24x24x1x1xf32>) outs(%z : tensor<1x24x4x4xf32>) -> tensor<1x24x4x4xf32>
  return %c2 : tensor<1x24x4x4xf32>
}

// Fewer than 16 input channels (a network's first convolution): the input stays
// NCHW, the filter is OIHW16o, the output NCHW16c. Left alone: groups of fewer than
// 8 channels that are not depthwise, batch 2.
// CHECK-LABEL: func.func @first(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<1x8x4x4xf32>
// CHECK: %[[C:.*]] = tensor.conv2d {filter_layout = #tensor.layout<"OIHW16o">, output_layout = #tensor.layout<"NCHW16c">} ins(%[[X]], %{{[0-9]+}} : tensor<1x8x4x4xf32>, tensor<1x8x1x1x16xf32>) outs(%{{[0-9]+}} : tensor<1x1x4x4x16xf32>)
// CHECK: tensor.unpack %[[C]]
// CHECK-NOT: tensor.pack
// CHECK: tensor.conv2d {groups = 4 : i64} ins(%{{.*}} : tensor<1x16x4x4xf32>, tensor<16x4x1x1xf32>)
// CHECK-NOT: tensor.pack
// CHECK: tensor.conv2d ins(%{{.*}} : tensor<2x16x4x4xf32>, tensor<16x16x1x1xf32>)
func.func @first(%x: tensor<1x8x4x4xf32>, %y: tensor<2x16x4x4xf32>) -> (tensor<1x16x4x4xf32>, tensor<1x16x4x4xf32>, tensor<2x16x4x4xf32>) {
  %w = arith.constant dense<[[[0.5]], [[0.25]], [[-1.0]], [[2.0]], [[0.125]], [[-0.5]], [[1.5]], [[3.0]]]> : tensor<8x1x1xf32>
  %we = tensor.empty() : tensor<16x8x1x1xf32>
  %w16 = tensor.broadcast ins(%w : tensor<8x1x1xf32>) outs(%we : tensor<16x8x1x1xf32>) dimensions = [0] -> tensor<16x8x1x1xf32>
  %z = arith.constant dense<0.0> : tensor<1x16x4x4xf32>
  %c = tensor.conv2d ins(%x, %w16 : tensor<1x8x4x4xf32>, tensor<16x8x1x1xf32>) outs(%z : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %w4 = arith.constant dense<0.25> : tensor<16x4x1x1xf32>
  %g = tensor.conv2d {groups = 4 : i64} ins(%c, %w4 : tensor<1x16x4x4xf32>, tensor<16x4x1x1xf32>) outs(%z : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %w2 = arith.constant dense<0.5> : tensor<16x16x1x1xf32>
  %z2 = arith.constant dense<0.0> : tensor<2x16x4x4xf32>
  %c2 = tensor.conv2d ins(%y, %w2 : tensor<2x16x4x4xf32>, tensor<16x16x1x1xf32>) outs(%z2 : tensor<2x16x4x4xf32>) -> tensor<2x16x4x4xf32>
  return %c, %g, %c2 : tensor<1x16x4x4xf32>, tensor<1x16x4x4xf32>, tensor<2x16x4x4xf32>
}

// Depthwise convolutions (one filter per channel) run in NCHW16c too, their filters
// in OIHW16o; groups count the padding channels of a partial block as well. (The
// pass does not prove the padding lanes of the ReLU6 zeros, so the unpack / pack
// pair between it and the next convolution stays.)
// CHECK-LABEL: func.func @depthwise(
// CHECK: tensor.pack
// CHECK: %[[D:.*]] = tensor.conv2d {filter_layout = #tensor.layout<"OIHW16o">, groups = 32 : i64, input_layout = #tensor.layout<"NCHW16c">, output_layout = #tensor.layout<"NCHW16c">} ins(%{{[0-9]+}}, %{{[0-9]+}} : tensor<1x2x8x8x16xf32>, tensor<2x1x3x3x16xf32>) outs(%{{[0-9]+}} : tensor<1x2x6x6x16xf32>)
// CHECK: %[[R:.*]] = tensor.map ins(%[[D]] : tensor<1x2x6x6x16xf32>)
// CHECK: %[[U:.*]] = tensor.unpack %[[R]]
// CHECK: %[[P:.*]] = tensor.pack %[[U]] padding_value
// With assume-finite the padding channels of the depthwise result are zeros (zero
// filter lanes and init lanes, finite inputs) and stay zeros through the ReLU6: the
// pair cancels. The partial example above keeps its pair (its map gives ones).
// FINITE-LABEL: func.func @partial(
// FINITE: tensor.unpack
// FINITE: tensor.pack
// FINITE-LABEL: func.func @depthwise(
// FINITE: %[[D:.*]] = tensor.conv2d {filter_layout = #tensor.layout<"OIHW16o">
// FINITE-NEXT: %{{[0-9]+}} = tensor.empty() : tensor<1x2x6x6x16xf32>
// FINITE-NEXT: %[[R:.*]] = tensor.map ins(%[[D]] : tensor<1x2x6x6x16xf32>)
// FINITE-NOT: tensor.pack
// FINITE: tensor.conv2d {filter_layout = #tensor.layout<"OIHW16i16o">, input_layout = #tensor.layout<"NCHW16c">, output_layout = #tensor.layout<"NCHW16c">} ins(%[[R]], %{{[0-9]+}} : tensor<1x2x6x6x16xf32>, tensor<1x2x1x1x16x16xf32>)
// CHECK: tensor.conv2d {filter_layout = #tensor.layout<"OIHW16i16o">, input_layout = #tensor.layout<"NCHW16c">, output_layout = #tensor.layout<"NCHW16c">} ins(%[[P]], %{{[0-9]+}} : tensor<1x2x6x6x16xf32>, tensor<1x2x1x1x16x16xf32>)
// CHECK: tensor.unpack
func.func @depthwise(%x: tensor<1x24x6x6xf32>) -> tensor<1x16x6x6xf32> {
  %dw = arith.constant dense<[[[[-0.524, 0.088, -0.26], [0.208, 0.251, -0.869], [-0.974, 0.675, -0.481]]], [[[-0.531, 0.991, -0.059], [0.673, -0.047, 0.278], [-0.699, 0.27, 0.736]]], [[[0.046, 0.483, 0.343], [-0.872, 0.516, 0.182], [-0.397, -0.938, 0.731]]], [[[-0.055, 0.438, 0.758], [0.428, 0.842, -0.21], [0.602, -0.111, 0.871]]], [[[0.758, -0.805, -0.728], [-0.566, 0.931, -0.128], [0.253, -0.398, 0.014]]], [[[-0.228, -0.298, 0.17], [0.169, 0.808, 0.364], [0.858, 0.713, 0.982]]], [[[0.343, -0.674, 0.721], [0.929, 0.809, 0.138], [0.428, -0.578, 0.663]]], [[[0.147, -0.43, -0.873], [0.708, 0.98, -0.823], [0.601, -0.179, -0.698]]], [[[-0.412, 0.538, 0.746], [-0.912, 0.229, -0.91], [0.437, -0.338, 0.762]]], [[[0.961, 0.011, 0.997], [-0.381, -0.846, 0.2], [-0.937, -0.605, -0.184]]], [[[0.221, -0.688, -0.915], [0.736, -0.372, 0.917], [0.793, -0.244, -0.079]]], [[[0.04, 0.288, 0.191], [0.119, 0.24, 0.881], [0.014, -0.138, 0.441]]], [[[-0.525, -0.398, 0.956], [0.042, 0.097, -0.977], [-0.17, 0.16, -0.96]]], [[[0.232, 0.264, -0.88], [0.255, -0.067, 0.359], [-0.295, 0.414, 0.476]]], [[[-0.956, -0.879, 0.352], [0.927, -0.498, -0.087], [0.185, -0.36, -0.272]]], [[[-0.375, -0.262, 0.191], [-0.399, -0.246, 0.545], [-0.946, 0.139, 0.47]]], [[[-0.38, -0.555, 0.608], [-0.523, -0.625, -0.13], [0.396, -0.796, -0.356]]], [[[-0.332, 0.667, -0.123], [0.711, -0.661, -0.327], [0.3, 0.77, -0.098]]], [[[-0.55, -0.758, 0.059], [-0.618, 0.614, 0.677], [-0.633, -0.443, 0.614]]], [[[0.284, 0.613, -0.309], [-0.741, -0.416, 0.588], [-0.458, -0.307, -0.166]]], [[[-0.16, -0.181, 0.841], [-0.688, -0.991, 0.887], [0.76, 0.974, -0.131]]], [[[0.9, 0.855, -0.556], [0.491, 0.673, 0.326], [0.038, -0.422, -0.318]]], [[[-0.545, -0.864, 0.177], [-0.426, 0.62, -0.91], [0.807, 0.387, 0.848]]], [[[0.793, 0.799, 0.154], [-0.974, 0.491, -0.656], [-0.4, 0.326, 0.05]]]]> : tensor<24x1x3x3xf32>
  %w2 = arith.constant dense<0.125> : tensor<16x24x1x1xf32>
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x24x6x6xf32> to tensor<1x24x8x8xf32>
  %z = arith.constant dense<0.5> : tensor<1x24x6x6xf32>
  %d = tensor.conv2d {groups = 24 : i64} ins(%p, %dw : tensor<1x24x8x8xf32>, tensor<24x1x3x3xf32>) outs(%z : tensor<1x24x6x6xf32>) -> tensor<1x24x6x6xf32>
  %e = tensor.empty() : tensor<1x24x6x6xf32>
  %r = tensor.map ins(%d : tensor<1x24x6x6xf32>) outs(%e : tensor<1x24x6x6xf32>) -> tensor<1x24x6x6xf32> {
  ^bb0(%a: f32):
    %c6 = arith.constant 6.0 : f32
    %m = arith.maximumf %a, %zero : f32
    %n = arith.minimumf %m, %c6 : f32
    tensor.yield %n : f32
  }
  %z2 = arith.constant dense<0.0> : tensor<1x16x6x6xf32>
  %c = tensor.conv2d ins(%r, %w2 : tensor<1x24x6x6xf32>, tensor<16x24x1x1xf32>) outs(%z2 : tensor<1x16x6x6xf32>) -> tensor<1x16x6x6xf32>
  return %c : tensor<1x16x6x6xf32>
}

// Hard-swish, x * clip(x + 3, 0, 6) / 6, maps zeros to zeros (the division by 6
// included): with assume-finite the pair between it and the next convolution
// cancels too.
// FINITE-LABEL: func.func @hardswish(
// FINITE: %[[D:.*]] = tensor.conv2d {filter_layout = #tensor.layout<"OIHW16o">
// FINITE: %[[H:.*]] = tensor.map ins(%[[D]] : tensor<1x2x6x6x16xf32>)
// FINITE: arith.divf
// FINITE-NOT: tensor.pack
// FINITE: tensor.conv2d {filter_layout = #tensor.layout<"OIHW16i16o">, input_layout = #tensor.layout<"NCHW16c">, output_layout = #tensor.layout<"NCHW16c">} ins(%[[H]], %{{[0-9]+}} : tensor<1x2x6x6x16xf32>, tensor<1x2x1x1x16x16xf32>)
func.func @hardswish(%x: tensor<1x24x8x8xf32>) -> tensor<1x16x6x6xf32> {
  %dw = arith.constant dense<0.25> : tensor<24x1x3x3xf32>
  %w2 = arith.constant dense<0.125> : tensor<16x24x1x1xf32>
  %z = arith.constant dense<0.0> : tensor<1x24x6x6xf32>
  %d = tensor.conv2d {groups = 24 : i64} ins(%x, %dw : tensor<1x24x8x8xf32>, tensor<24x1x3x3xf32>) outs(%z : tensor<1x24x6x6xf32>) -> tensor<1x24x6x6xf32>
  %e = tensor.empty() : tensor<1x24x6x6xf32>
  %h = tensor.map ins(%d : tensor<1x24x6x6xf32>) outs(%e : tensor<1x24x6x6xf32>) -> tensor<1x24x6x6xf32> {
  ^bb0(%a: f32):
    %zero = arith.constant 0.0 : f32
    %c3 = arith.constant 3.0 : f32
    %c6 = arith.constant 6.0 : f32
    %s = arith.addf %a, %c3 : f32
    %m = arith.maximumf %s, %zero : f32
    %n = arith.minimumf %m, %c6 : f32
    %p = arith.mulf %a, %n : f32
    %q = arith.divf %p, %c6 : f32
    tensor.yield %q : f32
  }
  %z2 = arith.constant dense<0.0> : tensor<1x16x6x6xf32>
  %c = tensor.conv2d ins(%h, %w2 : tensor<1x24x6x6xf32>, tensor<16x24x1x1xf32>) outs(%z2 : tensor<1x16x6x6xf32>) -> tensor<1x16x6x6xf32>
  return %c : tensor<1x16x6x6xf32>
}

// The same hard-swish as three maps (as PP-OCR's export has it): the padding lanes
// of clip(x + 3, 0, 6) hold 3, not zero, but the product with x is zero for
// finite x, so the pair still cancels with assume-finite.
// FINITE-LABEL: func.func @hardswish_maps(
// FINITE: arith.divf
// FINITE-NOT: tensor.pack
// FINITE: tensor.conv2d {filter_layout = #tensor.layout<"OIHW16i16o">, input_layout = #tensor.layout<"NCHW16c">, output_layout = #tensor.layout<"NCHW16c">} ins(%{{[0-9]+}}, %{{[0-9]+}} : tensor<1x2x6x6x16xf32>, tensor<1x2x1x1x16x16xf32>)
func.func @hardswish_maps(%x: tensor<1x24x8x8xf32>) -> tensor<1x16x6x6xf32> {
  %dw = arith.constant dense<0.25> : tensor<24x1x3x3xf32>
  %w2 = arith.constant dense<0.125> : tensor<16x24x1x1xf32>
  %z = arith.constant dense<0.0> : tensor<1x24x6x6xf32>
  %d = tensor.conv2d {groups = 24 : i64} ins(%x, %dw : tensor<1x24x8x8xf32>, tensor<24x1x3x3xf32>) outs(%z : tensor<1x24x6x6xf32>) -> tensor<1x24x6x6xf32>
  %e = tensor.empty() : tensor<1x24x6x6xf32>
  %t = tensor.map ins(%d : tensor<1x24x6x6xf32>) outs(%e : tensor<1x24x6x6xf32>) -> tensor<1x24x6x6xf32> {
  ^bb0(%a: f32):
    %zero = arith.constant 0.0 : f32
    %c3 = arith.constant 3.0 : f32
    %c6 = arith.constant 6.0 : f32
    %s = arith.addf %a, %c3 : f32
    %m = arith.maximumf %s, %zero : f32
    %n = arith.minimumf %m, %c6 : f32
    tensor.yield %n : f32
  }
  %p = tensor.map ins(%d, %t : tensor<1x24x6x6xf32>, tensor<1x24x6x6xf32>) outs(%e : tensor<1x24x6x6xf32>) -> tensor<1x24x6x6xf32> {
  ^bb0(%a: f32, %b: f32):
    %r = arith.mulf %a, %b : f32
    tensor.yield %r : f32
  }
  %h = tensor.map ins(%p : tensor<1x24x6x6xf32>) outs(%e : tensor<1x24x6x6xf32>) -> tensor<1x24x6x6xf32> {
  ^bb0(%a: f32):
    %c6 = arith.constant 6.0 : f32
    %r = arith.divf %a, %c6 : f32
    tensor.yield %r : f32
  }
  %z2 = arith.constant dense<0.0> : tensor<1x16x6x6xf32>
  %c = tensor.conv2d ins(%h, %w2 : tensor<1x24x6x6xf32>, tensor<16x24x1x1xf32>) outs(%z2 : tensor<1x16x6x6xf32>) -> tensor<1x16x6x6xf32>
  return %c : tensor<1x16x6x6xf32>
}

// A concatenation along channels of whole blocks joins the blocked results: the
// packs move through both insert_slices and cancel against the unpacks of the two
// convolutions (SqueezeNet's fire modules).
// CHECK-LABEL: func.func @concat(
// CHECK: %[[A:.*]] = tensor.conv2d {filter_layout = #tensor.layout<"OIHW16i16o">
// CHECK: %[[B:.*]] = tensor.conv2d {filter_layout = #tensor.layout<"OIHW16i16o">
// CHECK-NOT: tensor.pack
// CHECK: %[[I:.*]] = tensor.insert_slice %[[A]] into %{{[0-9]+}}[0, 0, 0, 0, 0] [1, 1, 4, 4, 16] [1, 1, 1, 1, 1] : tensor<1x1x4x4x16xf32> into tensor<1x2x4x4x16xf32>
// CHECK: %[[J:.*]] = tensor.insert_slice %[[B]] into %[[I]][0, 1, 0, 0, 0] [1, 1, 4, 4, 16] [1, 1, 1, 1, 1] : tensor<1x1x4x4x16xf32> into tensor<1x2x4x4x16xf32>
// CHECK-NOT: tensor.pack
// CHECK: tensor.conv2d {{.*}} ins(%[[J]], %{{[0-9]+}} : tensor<1x2x4x4x16xf32>, tensor<1x2x1x1x16x16xf32>)
func.func @concat(%x: tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32> {
  %wa = arith.constant dense<0.25> : tensor<16x16x1x1xf32>
  %wb = arith.constant dense<-0.5> : tensor<16x16x1x1xf32>
  %wc = arith.constant dense<0.125> : tensor<16x32x1x1xf32>
  %z = arith.constant dense<0.0> : tensor<1x16x4x4xf32>
  %a = tensor.conv2d ins(%x, %wa : tensor<1x16x4x4xf32>, tensor<16x16x1x1xf32>) outs(%z : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %b = tensor.conv2d ins(%x, %wb : tensor<1x16x4x4xf32>, tensor<16x16x1x1xf32>) outs(%z : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %e = tensor.empty() : tensor<1x32x4x4xf32>
  %i = tensor.insert_slice %a into %e[0, 0, 0, 0] [1, 16, 4, 4] [1, 1, 1, 1] : tensor<1x16x4x4xf32> into tensor<1x32x4x4xf32>
  %j = tensor.insert_slice %b into %i[0, 16, 0, 0] [1, 16, 4, 4] [1, 1, 1, 1] : tensor<1x16x4x4xf32> into tensor<1x32x4x4xf32>
  %c = tensor.conv2d ins(%j, %wc : tensor<1x32x4x4xf32>, tensor<16x32x1x1xf32>) outs(%z : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  return %c : tensor<1x16x4x4xf32>
}

// The groups of a grouped convolution, as graph-to-tensor splits one with 16
// channels per group (RegNet), read whole blocks of the blocked input: the packs of
// the slices move through them and cancel against the first convolution's unpack.
// Each group's weights, a slice of one constant, fold into a packed constant.
// CHECK-LABEL: func.func @groups(
// CHECK: %[[X:.*]] = tensor.conv2d {filter_layout = #tensor.layout<"OIHW16i16o">
// CHECK-NOT: tensor.pack
// CHECK: %[[G0:.*]] = tensor.extract_slice %[[X]][0, 0, 0, 0, 0] [1, 1, 4, 4, 16] [1, 1, 1, 1, 1] : tensor<1x2x4x4x16xf32> to tensor<1x1x4x4x16xf32>
// CHECK: tensor.conv2d {{.*}} ins(%[[G0]], %{{[0-9]+}} : tensor<1x1x4x4x16xf32>, tensor<1x1x1x1x16x16xf32>)
// CHECK: %[[G1:.*]] = tensor.extract_slice %[[X]][0, 1, 0, 0, 0] [1, 1, 4, 4, 16] [1, 1, 1, 1, 1] : tensor<1x2x4x4x16xf32> to tensor<1x1x4x4x16xf32>
// CHECK: tensor.conv2d {{.*}} ins(%[[G1]], %{{[0-9]+}} : tensor<1x1x4x4x16xf32>, tensor<1x1x1x1x16x16xf32>)
// CHECK-NOT: tensor.pack
// CHECK: return
func.func @groups(%x: tensor<1x16x4x4xf32>) -> tensor<1x32x4x4xf32> {
  %w = arith.constant dense<0.25> : tensor<32x16x1x1xf32>
  %wgr = arith.constant dense<[[[[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]]], [[[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]]], [[[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]]], [[[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]]], [[[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]]], [[[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]]], [[[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]]], [[[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]]], [[[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]]], [[[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]]], [[[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]]], [[[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]]], [[[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]]], [[[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]]], [[[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]]], [[[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]]], [[[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]]], [[[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]]], [[[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]]], [[[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]]], [[[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]]], [[[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]]], [[[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]]], [[[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]]], [[[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]]], [[[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]]], [[[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]]], [[[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]]], [[[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]]], [[[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]]], [[[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]]], [[[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]], [[0.25]], [[0.0]], [[-0.25]], [[0.375]], [[0.125]], [[-0.125]], [[-0.375]]]]> : tensor<32x16x1x1xf32>
  %wa = tensor.extract_slice %wgr[0, 0, 0, 0] [16, 16, 1, 1] [1, 1, 1, 1] : tensor<32x16x1x1xf32> to tensor<16x16x1x1xf32>
  %wb = tensor.extract_slice %wgr[16, 0, 0, 0] [16, 16, 1, 1] [1, 1, 1, 1] : tensor<32x16x1x1xf32> to tensor<16x16x1x1xf32>
  %z = arith.constant dense<0.0> : tensor<1x32x4x4xf32>
  %z16 = arith.constant dense<0.0> : tensor<1x16x4x4xf32>
  %c = tensor.conv2d ins(%x, %w : tensor<1x16x4x4xf32>, tensor<32x16x1x1xf32>) outs(%z : tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32>
  %s0 = tensor.extract_slice %c[0, 0, 0, 0] [1, 16, 4, 4] [1, 1, 1, 1] : tensor<1x32x4x4xf32> to tensor<1x16x4x4xf32>
  %s1 = tensor.extract_slice %c[0, 16, 0, 0] [1, 16, 4, 4] [1, 1, 1, 1] : tensor<1x32x4x4xf32> to tensor<1x16x4x4xf32>
  %a = tensor.conv2d ins(%s0, %wa : tensor<1x16x4x4xf32>, tensor<16x16x1x1xf32>) outs(%z16 : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %b = tensor.conv2d ins(%s1, %wb : tensor<1x16x4x4xf32>, tensor<16x16x1x1xf32>) outs(%z16 : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %e = tensor.empty() : tensor<1x32x4x4xf32>
  %i = tensor.insert_slice %a into %e[0, 0, 0, 0] [1, 16, 4, 4] [1, 1, 1, 1] : tensor<1x16x4x4xf32> into tensor<1x32x4x4xf32>
  %j = tensor.insert_slice %b into %i[0, 16, 0, 0] [1, 16, 4, 4] [1, 1, 1, 1] : tensor<1x16x4x4xf32> into tensor<1x32x4x4xf32>
  return %j : tensor<1x32x4x4xf32>
}

// Packs move up through pooling (which then runs in NCHW16c): the first
// convolution's result stays blocked through the ReLU and the max pool.
// CHECK-LABEL: func.func @pooled(
// CHECK: %[[C:.*]] = tensor.conv2d {filter_layout = #tensor.layout<"OIHW16o">, output_layout = #tensor.layout<"NCHW16c">}
// CHECK: %[[R:.*]] = tensor.map ins(%[[C]] : tensor<1x1x8x8x16xf32>)
// CHECK: %[[P:.*]] = tensor.pool {kind = #tensor.pool_kind<max>, layout = #tensor.layout<"NCHW16c">, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, window = array<i64: 3, 3>} ins(%[[R]] : tensor<1x1x8x8x16xf32>) outs(%{{[0-9]+}} : tensor<1x1x4x4x16xf32>)
// CHECK-NOT: tensor.pack
// CHECK: tensor.conv2d {{.*}} ins(%[[P]], %{{[0-9]+}} : tensor<1x1x4x4x16xf32>, tensor<1x1x1x1x16x16xf32>)
func.func @pooled(%x: tensor<1x3x8x8xf32>) -> tensor<1x16x4x4xf32> {
  %w = arith.constant dense<[[[0.5]], [[-0.25]], [[1.0]]]> : tensor<3x1x1xf32>
  %we = tensor.empty() : tensor<16x3x1x1xf32>
  %w16 = tensor.broadcast ins(%w : tensor<3x1x1xf32>) outs(%we : tensor<16x3x1x1xf32>) dimensions = [0] -> tensor<16x3x1x1xf32>
  %z = arith.constant dense<0.125> : tensor<1x16x8x8xf32>
  %c = tensor.conv2d ins(%x, %w16 : tensor<1x3x8x8xf32>, tensor<16x3x1x1xf32>) outs(%z : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %e = tensor.empty() : tensor<1x16x8x8xf32>
  %r = tensor.map ins(%c : tensor<1x16x8x8xf32>) outs(%e : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  ^bb0(%a: f32):
    %zero = arith.constant 0.0 : f32
    %m = arith.maximumf %a, %zero : f32
    tensor.yield %m : f32
  }
  %pe = tensor.empty() : tensor<1x16x4x4xf32>
  %p = tensor.pool {kind = #tensor.pool_kind<max>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, window = array<i64: 3, 3>} ins(%r : tensor<1x16x8x8xf32>) outs(%pe : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %w2 = arith.constant dense<0.0625> : tensor<16x16x1x1xf32>
  %z2 = arith.constant dense<0.0> : tensor<1x16x4x4xf32>
  %c2 = tensor.conv2d ins(%p, %w2 : tensor<1x16x4x4xf32>, tensor<16x16x1x1xf32>) outs(%z2 : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  return %c2 : tensor<1x16x4x4xf32>
}

// An unpack moves down through a map whose result has another element type (a
// comparison): the blocked map produces i1 blocks.
// CHECK-LABEL: func.func @compared(
// CHECK: %[[C:.*]] = tensor.conv2d
// CHECK: %[[M:.*]] = tensor.map ins(%[[C]] : tensor<1x1x2x2x16xf32>) outs(%{{[0-9]+}} : tensor<1x1x2x2x16xi1>) -> tensor<1x1x2x2x16xi1>
// CHECK: tensor.unpack %[[M]] inner_dims_pos = [1] inner_tiles = [16] into %{{[0-9]+}} : tensor<1x1x2x2x16xi1> -> tensor<1x16x2x2xi1>
func.func @compared(%x: tensor<1x16x2x2xf32>) -> tensor<1x16x2x2xi1> {
  %w = arith.constant dense<0.5> : tensor<16x16x1x1xf32>
  %z = arith.constant dense<0.0> : tensor<1x16x2x2xf32>
  %c = tensor.conv2d ins(%x, %w : tensor<1x16x2x2xf32>, tensor<16x16x1x1xf32>) outs(%z : tensor<1x16x2x2xf32>) -> tensor<1x16x2x2xf32>
  %e = tensor.empty() : tensor<1x16x2x2xi1>
  %m = tensor.map ins(%c : tensor<1x16x2x2xf32>) outs(%e : tensor<1x16x2x2xi1>) -> tensor<1x16x2x2xi1> {
  ^bb0(%a: f32):
    %zero = arith.constant 0.0 : f32
    %p = arith.cmpf ogt, %a, %zero : f32
    tensor.yield %p : i1
  }
  return %m : tensor<1x16x2x2xi1>
}

// A squeeze-and-excitation block on 24 channels (a partial second block) stays
// blocked: the unpack of the first convolution's result moves down through the
// spatial sums (a reduction leaves the channels alone), the mean, the reshapes that
// only add or drop dimensions of size 1, the bias (a constant, packed at compile
// time), the gate and its broadcast back; the product with the activation then
// meets the last convolution's pack, and the padding lanes are zero (the sums of
// zero lanes are zero, times any finite gate), so they cancel.
// FINITE-LABEL: func.func @squeeze_excite(
// FINITE: %[[X:.*]] = tensor.conv2d {filter_layout = #tensor.layout<"OIHW16i16o">
// FINITE-NOT: tensor.pack
// FINITE: tensor.reduce ins(%[[X]] : tensor<1x2x4x4x16xf32>) outs(%{{[0-9]+}} : tensor<1x2x4x16xf32>) dimensions = [3]
// FINITE: tensor.collapse_shape %{{[0-9]+}} {{\[}}[0, 1], [2]] : tensor<1x2x16xf32> into tensor<2x16xf32>
// FINITE: tensor.expand_shape %{{[0-9]+}} {{\[}}[0, 1, 2, 3], [4]] output_shape [1, 2, 1, 1, 16] : tensor<2x16xf32> into tensor<1x2x1x1x16xf32>
// FINITE: %[[G:.*]] = tensor.broadcast ins(%{{[0-9]+}} : tensor<1x2x16xf32>) outs(%{{[0-9]+}} : tensor<1x2x4x4x16xf32>) dimensions = [2, 3]
// FINITE: %[[Y:.*]] = tensor.map ins(%[[X]], %[[G]] : tensor<1x2x4x4x16xf32>, tensor<1x2x4x4x16xf32>)
// FINITE-NOT: tensor.pack
// FINITE-NOT: tensor.unpack
// FINITE: tensor.conv2d {{.*}} ins(%[[Y]], %{{[0-9]+}} : tensor<1x2x4x4x16xf32>, tensor<1x2x1x1x16x16xf32>)
// FINITE: tensor.unpack
// FINITE-NEXT: return
func.func @squeeze_excite(%x: tensor<1x24x4x4xf32>) -> tensor<1x16x4x4xf32> {
  %w1 = arith.constant dense<0.125> : tensor<24x24x1x1xf32>
  %z1 = arith.constant dense<0.25> : tensor<1x24x4x4xf32>
  %c1 = tensor.conv2d ins(%x, %w1 : tensor<1x24x4x4xf32>, tensor<24x24x1x1xf32>) outs(%z1 : tensor<1x24x4x4xf32>) -> tensor<1x24x4x4xf32>
  %r0 = arith.constant dense<0.0> : tensor<1x24x4xf32>
  %s1 = tensor.reduce ins(%c1 : tensor<1x24x4x4xf32>) outs(%r0 : tensor<1x24x4xf32>) dimensions = [3] -> tensor<1x24x4xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tensor.yield %s : f32
  }
  %r1 = arith.constant dense<0.0> : tensor<1x24xf32>
  %s2 = tensor.reduce ins(%s1 : tensor<1x24x4xf32>) outs(%r1 : tensor<1x24xf32>) dimensions = [2] -> tensor<1x24xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tensor.yield %s : f32
  }
  %e24 = tensor.empty() : tensor<1x24xf32>
  %mean = tensor.map ins(%s2 : tensor<1x24xf32>) outs(%e24 : tensor<1x24xf32>) -> tensor<1x24xf32> {
  ^bb0(%a: f32):
    %c16 = arith.constant 16.0 : f32
    %d = arith.divf %a, %c16 : f32
    tensor.yield %d : f32
  }
  %flat = tensor.collapse_shape %mean [[0, 1]] : tensor<1x24xf32> into tensor<24xf32>
  %sq = tensor.expand_shape %flat [[0, 1, 2, 3]] output_shape [1, 24, 1, 1] : tensor<24xf32> into tensor<1x24x1x1xf32>
  %w2 = arith.constant dense<0.0625> : tensor<16x24x1x1xf32>
  %z2 = arith.constant dense<0.0> : tensor<1x16x1x1xf32>
  %f1 = tensor.conv2d ins(%sq, %w2 : tensor<1x24x1x1xf32>, tensor<16x24x1x1xf32>) outs(%z2 : tensor<1x16x1x1xf32>) -> tensor<1x16x1x1xf32>
  %bias = arith.constant dense<[[[[0.5]], [[-0.25]], [[1.0]], [[0.125]], [[0.5]], [[-0.25]], [[1.0]], [[0.125]], [[0.5]], [[-0.25]], [[1.0]], [[0.125]], [[0.5]], [[-0.25]], [[1.0]], [[0.125]]]]> : tensor<1x16x1x1xf32>
  %e16 = tensor.empty() : tensor<1x16x1x1xf32>
  %g1 = tensor.map ins(%f1, %bias : tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>) outs(%e16 : tensor<1x16x1x1xf32>) -> tensor<1x16x1x1xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %s, %zero : f32
    tensor.yield %r : f32
  }
  %w3 = arith.constant dense<-0.0625> : tensor<24x16x1x1xf32>
  %z3 = arith.constant dense<0.0> : tensor<1x24x1x1xf32>
  %f2 = tensor.conv2d ins(%g1, %w3 : tensor<1x16x1x1xf32>, tensor<24x16x1x1xf32>) outs(%z3 : tensor<1x24x1x1xf32>) -> tensor<1x24x1x1xf32>
  %e24b = tensor.empty() : tensor<1x24x1x1xf32>
  %gate = tensor.map ins(%f2 : tensor<1x24x1x1xf32>) outs(%e24b : tensor<1x24x1x1xf32>) -> tensor<1x24x1x1xf32> {
  ^bb0(%a: f32):
    %k = arith.constant 0.2 : f32
    %h = arith.constant 0.5 : f32
    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %m = arith.mulf %a, %k : f32
    %s = arith.addf %m, %h : f32
    %lo = arith.maximumf %s, %zero : f32
    %r = arith.minimumf %lo, %one : f32
    tensor.yield %r : f32
  }
  %gflat = tensor.collapse_shape %gate [[0, 1, 2, 3]] : tensor<1x24x1x1xf32> into tensor<24xf32>
  %g2 = tensor.expand_shape %gflat [[0, 1]] output_shape [1, 24] : tensor<24xf32> into tensor<1x24xf32>
  %eb = tensor.empty() : tensor<1x24x4x4xf32>
  %gb = tensor.broadcast ins(%g2 : tensor<1x24xf32>) outs(%eb : tensor<1x24x4x4xf32>) dimensions = [2, 3] -> tensor<1x24x4x4xf32>
  %y = tensor.map ins(%c1, %gb : tensor<1x24x4x4xf32>, tensor<1x24x4x4xf32>) outs(%eb : tensor<1x24x4x4xf32>) -> tensor<1x24x4x4xf32> {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    tensor.yield %p : f32
  }
  %w4 = arith.constant dense<0.125> : tensor<16x24x1x1xf32>
  %z4 = arith.constant dense<0.0> : tensor<1x16x4x4xf32>
  %c4 = tensor.conv2d ins(%y, %w4 : tensor<1x24x4x4xf32>, tensor<16x24x1x1xf32>) outs(%z4 : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  return %c4 : tensor<1x16x4x4xf32>
}
