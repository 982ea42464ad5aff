// bufferize{blocked=NAME}: convolutions in NCHW16c / OIHW16i16o (from the layout
// pass) become calls to the host's blocked convolution, with the channel counts in
// whole blocks (blocks x 16) and otherwise the operands of bufferize{conv=...}: the
// zero pad is read in place, the ReLU becomes the clamp (gate 0: none), the bias
// broadcast (blocks x 16) makes it the NAME_bias call. tensor.pack and tensor.unpack become loop nests
// (positions past a partial block's end take the padding value). Checked against the
// interpreter, which runs the call's semantics.
// RUN: acc-opt --check-semantics --pass 'layout,bufferize{blocked=acc_sconv2d_nchw16c}' %s | FileCheck %s
// RUN: not acc-opt --pass 'layout,bufferize' %s 2>&1 | FileCheck %s --check-prefix=NOLIB

// CHECK-LABEL: func.func @block(
// CHECK-SAME: %[[X:.*]]: memref<1x20x5x5xf32>
// The pack: 20 channels, one whole block, then the last block's 4 real lanes and
// its 12 padding lanes, three nests without a test per element.
// CHECK: %[[XB:.*]] = loop.alloc() : memref<1x2x5x5x16xf32>
// CHECK: loop.parallel
// CHECK-NOT: arith.select
// CHECK: loop.store %{{[0-9]+}}, %[[XB]]
// CHECK: loop.parallel
// CHECK: loop.load %[[X]]
// CHECK: loop.store %{{[0-9]+}}, %[[XB]]
// CHECK: loop.parallel
// CHECK-NEXT: loop.store %{{[0-9]+}}, %[[XB]]
// CHECK-NOT: loop.parallel
// CHECK: %[[OUT:.*]] = loop.alloc() : memref<1x2x5x5x16xf32>
// CHECK: %[[C:.*]] = arith.constant 32 : index
// CHECK-NEXT: %{{[0-9]+}} = arith.constant 5 : index
// CHECK-NEXT: %{{[0-9]+}} = arith.constant 5 : index
// CHECK-NEXT: %[[M:.*]] = arith.constant 32 : index
// CHECK: %[[LO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[HI:.*]] = arith.constant 0x7F800000 : f32
// CHECK-NEXT: %[[GATE:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[SCALE:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[SHIFT:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: hw.intrinsic "acc_sconv2d_nchw16c_bias"(%[[XB]], %{{[0-9]+}}, %{{[0-9]+}}, %[[OUT]], %[[C]], %{{[0-9]+}}, %{{[0-9]+}}, %[[M]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[LO]], %[[HI]], %[[GATE]], %[[SCALE]], %[[SHIFT]])
// The unpack: over the blocked result, its whole block and then the 8 real lanes
// of the last, each lane stored at channel block * 16 + lane.
// CHECK: %[[Y:.*]] = loop.alloc() : memref<1x24x5x5xf32>
// CHECK: loop.parallel
// CHECK-NEXT: loop.load %[[OUT]]
// CHECK-NOT: arith.divui
// CHECK: loop.store %{{[0-9]+}}, %[[Y]]
// CHECK: loop.parallel
// CHECK-NEXT: loop.load %[[OUT]]
// CHECK: loop.store %{{[0-9]+}}, %[[Y]]
// NOLIB: cannot bufferize 'tensor.conv2d': input_layout #tensor.layout<"NCHW16c"> has no bufferization without a library convolution for it
func.func @block(%x: tensor<1x20x5x5xf32>) -> tensor<1x24x5x5xf32> {
  %w24 = arith.constant dense<0.0625> : tensor<24x20x3x3xf32>
  %b = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, -1.0, -2.0, -3.0, -4.0, -5.0, -6.0, -7.0, -8.0]> : tensor<24xf32>
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x20x5x5xf32> to tensor<1x20x7x7xf32>
  %e = tensor.empty() : tensor<1x24x5x5xf32>
  %bb = tensor.broadcast ins(%b : tensor<24xf32>) outs(%e : tensor<1x24x5x5xf32>) dimensions = [0, 2, 3] -> tensor<1x24x5x5xf32>
  %c = tensor.conv2d ins(%p, %w24 : tensor<1x20x7x7xf32>, tensor<24x20x3x3xf32>) outs(%bb : tensor<1x24x5x5xf32>) -> tensor<1x24x5x5xf32>
  %e2 = tensor.empty() : tensor<1x24x5x5xf32>
  %r = tensor.map ins(%c : tensor<1x24x5x5xf32>) outs(%e2 : tensor<1x24x5x5xf32>) -> tensor<1x24x5x5xf32> {
  ^bb0(%a: f32):
    %m = arith.maximumf %a, %zero : f32
    tensor.yield %m : f32
  }
  return %r : tensor<1x24x5x5xf32>
}
