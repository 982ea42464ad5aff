// bufferize{conv=NAME depthwise=NAME}: f32 batch-1 ungrouped convolutions become
// calls to the host's convolution (out += conv(x, w) on the NCHW input, no patches
// buffer), with the sizes c, h, w, m, kh, kw, oh, ow, sh, sw, dh, dw, pad top, pad
// left and the bounds lo, hi of a clamp of the result (-inf, +inf: none); depthwise
// ones (groups = channels) calls to its depthwise convolution, the same operands
// without m. A zero pad whose only user is such a call is not materialized: the call
// reads the unpadded input; a ReLU / ReLU6 / Clip map that is the result's only user
// becomes the call's clamp; an init broadcasting a per-channel bias makes it the
// NAME_bias call (x, w, bias, out, ...), which starts from the bias: no fill nest. Checked against the interpreter, which runs the
// intrinsics' semantics. Matrix products still use gemm.
// RUN: acc-opt --check-semantics --pass 'bufferize{gemm=acc_sgemm conv=acc_sconv2d depthwise=acc_sdwconv2d}' %s | FileCheck %s

// CHECK-LABEL: func.func @strided(
// CHECK-NOT: loop.parallel
// CHECK: loop.copy %{{.*}}, %[[OUT:.*]] :
// CHECK-NEXT: %[[S0:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[S1:.*]] = arith.constant 5 : index
// CHECK-NEXT: %[[S2:.*]] = arith.constant 5 : index
// CHECK-NEXT: %[[S3:.*]] = arith.constant 3 : index
// CHECK-NEXT: %[[S4:.*]] = arith.constant 3 : index
// CHECK-NEXT: %[[S5:.*]] = arith.constant 3 : index
// CHECK-NEXT: %[[S6:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[S7:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[S8:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[S9:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[S10:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[S11:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[S12:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[S13:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[LO:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT: %[[HI:.*]] = arith.constant 0x7F800000 : f32
// CHECK-NEXT: hw.intrinsic "acc_sconv2d"(%arg0, %arg1, %[[OUT]], %[[S0]], %[[S1]], %[[S2]], %[[S3]], %[[S4]], %[[S5]], %[[S6]], %[[S7]], %[[S8]], %[[S9]], %[[S10]], %[[S11]], %[[S12]], %[[S13]], %[[LO]], %[[HI]]) : (memref<1x2x5x5xf32>, memref<3x2x3x3xf32>, memref<1x3x2x2xf32>, index, index, index, index, index, index, index, index, index, index, index, index, index, index, f32, f32) -> ()
func.func @strided(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x2x2xf32> {
  %z = arith.constant dense<0.25> : tensor<1x3x2x2xf32>
  %y = tensor.conv2d {strides = array<i64: 2, 2>} ins(%x, %w : tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) outs(%z : tensor<1x3x2x2xf32>) -> tensor<1x3x2x2xf32>
  return %y : tensor<1x3x2x2xf32>
}

// Dilations reach the intrinsic before the padding.
// CHECK-LABEL: func.func @dilated(
// CHECK: arith.constant 7 : index
// CHECK-NEXT: arith.constant 7 : index
// CHECK-NEXT: arith.constant 2 : index
// CHECK-NEXT: arith.constant 3 : index
// CHECK-NEXT: arith.constant 3 : index
// CHECK-NEXT: arith.constant 3 : index
// CHECK-NEXT: arith.constant 3 : index
// CHECK-NEXT: arith.constant 1 : index
// CHECK-NEXT: arith.constant 1 : index
// CHECK-NEXT: arith.constant 2 : index
// CHECK-NEXT: arith.constant 2 : index
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: arith.constant 0xFF800000 : f32
// CHECK-NEXT: arith.constant 0x7F800000 : f32
// CHECK-NEXT: hw.intrinsic "acc_sconv2d"(
// CHECK-SAME: memref<1x1x7x7xf32>, memref<2x1x3x3xf32>, memref<1x2x3x3xf32>
func.func @dilated(%x: tensor<1x1x7x7xf32>, %w: tensor<2x1x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %z = arith.constant dense<0.0> : tensor<1x2x3x3xf32>
  %y = tensor.conv2d {dilations = array<i64: 2, 2>} ins(%x, %w : tensor<1x1x7x7xf32>, tensor<2x1x3x3xf32>) outs(%z : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}

// A zero pad of the spatial dimensions feeding only the convolution: no padded
// buffer, the call reads %arg0 with 1 row above and 2 columns left of padding.
// CHECK-LABEL: func.func @padded(
// CHECK-NOT: 1x2x5x7
// CHECK-NOT: loop.parallel
// CHECK: loop.copy
// CHECK-NEXT: arith.constant 2 : index
// CHECK-NEXT: arith.constant 4 : index
// CHECK-NEXT: arith.constant 4 : index
// CHECK-NEXT: arith.constant 3 : index
// CHECK-NEXT: arith.constant 3 : index
// CHECK-NEXT: arith.constant 3 : index
// CHECK-NEXT: arith.constant 3 : index
// CHECK-NEXT: arith.constant 5 : index
// CHECK-NEXT: arith.constant 1 : index
// CHECK-NEXT: arith.constant 1 : index
// CHECK-NEXT: arith.constant 1 : index
// CHECK-NEXT: arith.constant 1 : index
// CHECK-NEXT: arith.constant 1 : index
// CHECK-NEXT: arith.constant 2 : index
// CHECK-NEXT: arith.constant 0xFF800000 : f32
// CHECK-NEXT: arith.constant 0x7F800000 : f32
// CHECK-NEXT: hw.intrinsic "acc_sconv2d"(%arg0, %arg1,
// CHECK-SAME: (memref<1x2x4x4xf32>, memref<3x2x3x3xf32>, memref<1x3x3x5xf32>,
func.func @padded(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x3x5xf32> {
  %p = tensor.pad %x low[0, 0, 1, 2] high[0, 0, 0, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    %zero = arith.constant 0.0 : f32
    tensor.yield %zero : f32
  } : tensor<1x2x4x4xf32> to tensor<1x2x5x7xf32>
  %z = arith.constant dense<0.5> : tensor<1x3x3x5xf32>
  %y = tensor.conv2d ins(%p, %w : tensor<1x2x5x7xf32>, tensor<3x2x3x3xf32>) outs(%z : tensor<1x3x3x5xf32>) -> tensor<1x3x3x5xf32>
  return %y : tensor<1x3x3x5xf32>
}

// A pad of another value, or with another user, is materialized as before.
// CHECK-LABEL: func.func @padded_by_one(
// CHECK: loop.alloc() : memref<1x2x6x6xf32>
// CHECK: loop.parallel
// CHECK: hw.intrinsic "acc_sconv2d"
// CHECK-SAME: memref<1x2x6x6xf32>
// CHECK-LABEL: func.func @pad_used_twice(
// CHECK: loop.alloc() : memref<1x1x6x6xf32>
// CHECK: loop.parallel
// CHECK: hw.intrinsic "acc_sconv2d"
// CHECK-SAME: memref<1x1x6x6xf32>
func.func @padded_by_one(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x4x4xf32> {
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    %one = arith.constant 1.0 : f32
    tensor.yield %one : f32
  } : tensor<1x2x4x4xf32> to tensor<1x2x6x6xf32>
  %z = arith.constant dense<0.0> : tensor<1x3x4x4xf32>
  %y = tensor.conv2d ins(%p, %w : tensor<1x2x6x6xf32>, tensor<3x2x3x3xf32>) outs(%z : tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  return %y : tensor<1x3x4x4xf32>
}
func.func @pad_used_twice(%x: tensor<1x1x4x4xf32>, %w: tensor<1x1x3x3xf32>) -> (tensor<1x1x4x4xf32>, tensor<1x1x6x6xf32>) {
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    %zero = arith.constant 0.0 : f32
    tensor.yield %zero : f32
  } : tensor<1x1x4x4xf32> to tensor<1x1x6x6xf32>
  %z = arith.constant dense<0.0> : tensor<1x1x4x4xf32>
  %y = tensor.conv2d ins(%p, %w : tensor<1x1x6x6xf32>, tensor<1x1x3x3xf32>) outs(%z : tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  return %y, %p : tensor<1x1x4x4xf32>, tensor<1x1x6x6xf32>
}

// Depthwise (groups = channels = output channels): the depthwise call, reading the
// unpadded input (padding 1 all round, stride 2): c, h, w, kh, kw, oh, ow, sh, sw,
// dh, dw, pad top, pad left.
// CHECK-LABEL: func.func @depthwise(
// CHECK-NOT: loop.parallel
// CHECK: %[[S0:.*]] = arith.constant 3 : index
// CHECK-NEXT: %[[S1:.*]] = arith.constant 7 : index
// CHECK-NEXT: %[[S2:.*]] = arith.constant 7 : index
// CHECK-NEXT: %[[S3:.*]] = arith.constant 3 : index
// CHECK-NEXT: %[[S4:.*]] = arith.constant 3 : index
// CHECK-NEXT: %[[S5:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[S6:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[S7:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[S8:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[S9:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[S10:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[S11:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[S12:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[LO:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT: %[[HI:.*]] = arith.constant 0x7F800000 : f32
// CHECK-NEXT: hw.intrinsic "acc_sdwconv2d"(%arg0, %arg1, %{{[0-9]+}}, %[[S0]], %[[S1]], %[[S2]], %[[S3]], %[[S4]], %[[S5]], %[[S6]], %[[S7]], %[[S8]], %[[S9]], %[[S10]], %[[S11]], %[[S12]], %[[LO]], %[[HI]]) : (memref<1x3x7x7xf32>, memref<3x1x3x3xf32>, memref<1x3x4x4xf32>,
func.func @depthwise(%x: tensor<1x3x7x7xf32>, %w: tensor<3x1x3x3xf32>) -> tensor<1x3x4x4xf32> {
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    %zero = arith.constant 0.0 : f32
    tensor.yield %zero : f32
  } : tensor<1x3x7x7xf32> to tensor<1x3x9x9xf32>
  %z = arith.constant dense<0.125> : tensor<1x3x4x4xf32>
  %y = tensor.conv2d {groups = 3 : i64, strides = array<i64: 2, 2>} ins(%p, %w : tensor<1x3x9x9xf32>, tensor<3x1x3x3xf32>) outs(%z : tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  return %y : tensor<1x3x4x4xf32>
}

// A ReLU6 (max with 0, then min with 6) that is the convolution's only user: the call
// clamps to [0, 6] and returns its own buffer; no loop nest, no second buffer.
// CHECK-LABEL: func.func @relu6(
// CHECK-NOT: loop.parallel
// CHECK: %[[LO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[HI:.*]] = arith.constant 6.000000e+00 : f32
// CHECK-NEXT: hw.intrinsic "acc_sdwconv2d"(%arg0, %arg1, %[[OUT:[0-9]+]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[LO]], %[[HI]])
// CHECK-NEXT: return %[[OUT]]
func.func @relu6(%x: tensor<1x3x7x7xf32>, %w: tensor<3x1x3x3xf32>) -> tensor<1x3x5x5xf32> {
  %z = arith.constant dense<0.125> : tensor<1x3x5x5xf32>
  %y = tensor.conv2d {groups = 3 : i64} ins(%x, %w : tensor<1x3x7x7xf32>, tensor<3x1x3x3xf32>) outs(%z : tensor<1x3x5x5xf32>) -> tensor<1x3x5x5xf32>
  %e = tensor.empty() : tensor<1x3x5x5xf32>
  %r = tensor.map ins(%y : tensor<1x3x5x5xf32>) outs(%e : tensor<1x3x5x5xf32>) -> tensor<1x3x5x5xf32> {
  ^bb0(%v: f32):
    %c0 = arith.constant 0.0 : f32
    %m = arith.maximumf %v, %c0 : f32
    %c6 = arith.constant 6.0 : f32
    %n = arith.minimumf %m, %c6 : f32
    tensor.yield %n : f32
  }
  return %r : tensor<1x3x5x5xf32>
}

// A ReLU written with the constant first is a clamp to [0, +inf); a map that is not
// a clamp (an add) stays a loop nest, and so does a clamp of a result with another
// user.
// CHECK-LABEL: func.func @relu_and_others(
// CHECK: arith.constant 0.000000e+00 : f32
// CHECK-NEXT: arith.constant 0x7F800000 : f32
// CHECK-NEXT: hw.intrinsic "acc_sconv2d"
// CHECK: arith.constant 0xFF800000 : f32
// CHECK-NEXT: arith.constant 0x7F800000 : f32
// CHECK-NEXT: hw.intrinsic "acc_sconv2d"
// CHECK: loop.parallel
// CHECK: arith.addf
// CHECK: arith.constant 0xFF800000 : f32
// CHECK-NEXT: arith.constant 0x7F800000 : f32
// CHECK-NEXT: hw.intrinsic "acc_sconv2d"
// CHECK: loop.parallel
// CHECK: arith.maximumf
func.func @relu_and_others(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x3x3xf32>) -> (tensor<1x3x2x2xf32>, tensor<1x3x2x2xf32>, tensor<1x3x2x2xf32>, tensor<1x3x2x2xf32>) {
  %z = arith.constant dense<-0.5> : tensor<1x3x2x2xf32>
  %y = tensor.conv2d ins(%x, %w : tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>) outs(%z : tensor<1x3x2x2xf32>) -> tensor<1x3x2x2xf32>
  %e = tensor.empty() : tensor<1x3x2x2xf32>
  %r = tensor.map ins(%y : tensor<1x3x2x2xf32>) outs(%e : tensor<1x3x2x2xf32>) -> tensor<1x3x2x2xf32> {
  ^bb0(%v: f32):
    %c0 = arith.constant 0.0 : f32
    %m = arith.maximumf %c0, %v : f32
    tensor.yield %m : f32
  }
  %y2 = tensor.conv2d ins(%x, %w : tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>) outs(%z : tensor<1x3x2x2xf32>) -> tensor<1x3x2x2xf32>
  %e2 = tensor.empty() : tensor<1x3x2x2xf32>
  %a = tensor.map ins(%y2 : tensor<1x3x2x2xf32>) outs(%e2 : tensor<1x3x2x2xf32>) -> tensor<1x3x2x2xf32> {
  ^bb0(%v: f32):
    %c1 = arith.constant 1.0 : f32
    %m = arith.addf %v, %c1 : f32
    tensor.yield %m : f32
  }
  %y3 = tensor.conv2d ins(%x, %w : tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>) outs(%z : tensor<1x3x2x2xf32>) -> tensor<1x3x2x2xf32>
  %e3 = tensor.empty() : tensor<1x3x2x2xf32>
  %r3 = tensor.map ins(%y3 : tensor<1x3x2x2xf32>) outs(%e3 : tensor<1x3x2x2xf32>) -> tensor<1x3x2x2xf32> {
  ^bb0(%v: f32):
    %c0 = arith.constant 0.0 : f32
    %m = arith.maximumf %v, %c0 : f32
    tensor.yield %m : f32
  }
  return %r, %a, %r3, %y3 : tensor<1x3x2x2xf32>, tensor<1x3x2x2xf32>, tensor<1x3x2x2xf32>, tensor<1x3x2x2xf32>
}

// CHECK-LABEL: func.func @biased(
// CHECK-NOT: loop.parallel
// CHECK: %[[OUT:.*]] = loop.alloc() : memref<1x3x3x3xf32>
// CHECK: hw.intrinsic "acc_sconv2d_bias"(%arg0, %arg1, %arg2, %[[OUT]],
// CHECK-SAME: (memref<1x2x3x3xf32>, memref<3x2x3x3xf32>, memref<3xf32>, memref<1x3x3x3xf32>,
// CHECK: %[[DW:.*]] = loop.alloc() : memref<1x3x3x3xf32>
// CHECK: hw.intrinsic "acc_sdwconv2d_bias"(%[[OUT]], %arg3, %arg2, %[[DW]],
// CHECK-NEXT: return %[[DW]]
func.func @biased(%x: tensor<1x2x3x3xf32>, %w: tensor<3x2x3x3xf32>, %b: tensor<3xf32>, %dw: tensor<3x1x3x3xf32>) -> tensor<1x3x3x3xf32> {
  %xp = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    %zero = arith.constant 0.0 : f32
    tensor.yield %zero : f32
  } : tensor<1x2x3x3xf32> to tensor<1x2x5x5xf32>
  %e = tensor.empty() : tensor<1x3x3x3xf32>
  %init = tensor.broadcast ins(%b : tensor<3xf32>) outs(%e : tensor<1x3x3x3xf32>) dimensions = [0, 2, 3] -> tensor<1x3x3x3xf32>
  %y = tensor.conv2d ins(%xp, %w : tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) outs(%init : tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xf32>
  %yp = tensor.pad %y low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    %zero = arith.constant 0.0 : f32
    tensor.yield %zero : f32
  } : tensor<1x3x3x3xf32> to tensor<1x3x5x5xf32>
  %e2 = tensor.empty() : tensor<1x3x3x3xf32>
  %init2 = tensor.broadcast ins(%b : tensor<3xf32>) outs(%e2 : tensor<1x3x3x3xf32>) dimensions = [0, 2, 3] -> tensor<1x3x3x3xf32>
  %z = tensor.conv2d {groups = 3 : i64} ins(%yp, %dw : tensor<1x3x5x5xf32>, tensor<3x1x3x3xf32>) outs(%init2 : tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xf32>
  return %z : tensor<1x3x3x3xf32>
}

// A broadcast along other dimensions, or with another user, is still a fill.
// CHECK-LABEL: func.func @bias_kept(
// CHECK: loop.parallel
// CHECK: hw.intrinsic "acc_sconv2d"(
func.func @bias_kept(%x: tensor<1x2x3x3xf32>, %w: tensor<3x2x1x1xf32>, %b: tensor<3xf32>) -> (tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>) {
  %e = tensor.empty() : tensor<1x3x3x3xf32>
  %init = tensor.broadcast ins(%b : tensor<3xf32>) outs(%e : tensor<1x3x3x3xf32>) dimensions = [0, 2, 3] -> tensor<1x3x3x3xf32>
  %y = tensor.conv2d ins(%x, %w : tensor<1x2x3x3xf32>, tensor<3x2x1x1xf32>) outs(%init : tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xf32>
  return %y, %init : tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>
}

// Other grouped convolutions (two channels per group) stay loops; products still
// call the GEMM.
// CHECK-LABEL: func.func @grouped(
// CHECK-NOT: hw.intrinsic
// CHECK: loop.parallel
// CHECK-LABEL: func.func @dense(
// CHECK: hw.intrinsic "acc_sgemm"
func.func @grouped(%x: tensor<1x4x4x4xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<1x2x2x2xf32> {
  %z = arith.constant dense<0.0> : tensor<1x2x2x2xf32>
  %y = tensor.conv2d {groups = 2 : i64} ins(%x, %w : tensor<1x4x4x4xf32>, tensor<2x2x3x3xf32>) outs(%z : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}
func.func @dense(%x: tensor<4x8xf32>, %w: tensor<8x5xf32>) -> tensor<4x5xf32> {
  %z = arith.constant dense<0.5> : tensor<4x5xf32>
  %y = tensor.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x5xf32>) outs(%z : tensor<4x5xf32>) -> tensor<4x5xf32>
  return %y : tensor<4x5xf32>
}
