// bufferize{conv=NAME}: f32 batch-1 ungrouped convolutions become calls to the host's
// convolution (out += conv(x, w) on the padded NCHW input, no patches buffer), with
// the sizes c, h, w, m, kh, kw, oh, ow, sh, sw, dh, dw; checked against the
// interpreter, which runs acc_sconv2d's semantics. Matrix products still use gemm.
// RUN: acc-opt --check-semantics --pass 'bufferize{gemm=acc_sgemm conv=acc_sconv2d}' %s | FileCheck %s

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
// CHECK-NEXT: hw.intrinsic "acc_sconv2d"(%arg0, %arg1, %[[OUT]], %[[S0]], %[[S1]], %[[S2]], %[[S3]], %[[S4]], %[[S5]], %[[S6]], %[[S7]], %[[S8]], %[[S9]], %[[S10]], %[[S11]]) : (memref<1x2x5x5xf32>, memref<3x2x3x3xf32>, memref<1x3x2x2xf32>, index, index, index, index, index, index, index, index, index, index, index, index) -> ()
func.func @strided(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x2x2xf32> {
  %z = arith.constant dense<0.25> : tensor<1x3x2x2xf32>
  %y = tensor.conv2d {strides = array<i64: 2, 2>} ins(%x, %w : tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) outs(%z : tensor<1x3x2x2xf32>) -> tensor<1x3x2x2xf32>
  return %y : tensor<1x3x2x2xf32>
}

// Dilations reach the intrinsic as its last two sizes.
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
// CHECK-NEXT: hw.intrinsic "acc_sconv2d"(
// CHECK-SAME: memref<1x1x7x7xf32>, memref<2x1x3x3xf32>, memref<1x2x3x3xf32>
func.func @dilated(%x: tensor<1x1x7x7xf32>, %w: tensor<2x1x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %z = arith.constant dense<0.0> : tensor<1x2x3x3xf32>
  %y = tensor.conv2d {dilations = array<i64: 2, 2>} ins(%x, %w : tensor<1x1x7x7xf32>, tensor<2x1x3x3xf32>) outs(%z : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}

// Grouped convolutions stay loops; products still call the GEMM.
// CHECK-LABEL: func.func @grouped(
// CHECK-NOT: hw.intrinsic
// CHECK: loop.parallel
// CHECK-LABEL: func.func @dense(
// CHECK: hw.intrinsic "acc_sgemm"
func.func @grouped(%x: tensor<1x2x4x4xf32>, %w: tensor<2x1x3x3xf32>) -> tensor<1x2x2x2xf32> {
  %z = arith.constant dense<0.0> : tensor<1x2x2x2xf32>
  %y = tensor.conv2d {groups = 2 : i64} ins(%x, %w : tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32>) outs(%z : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}
func.func @dense(%x: tensor<4x8xf32>, %w: tensor<8x5xf32>) -> tensor<4x5xf32> {
  %z = arith.constant dense<0.5> : tensor<4x5xf32>
  %y = tensor.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x5xf32>) outs(%z : tensor<4x5xf32>) -> tensor<4x5xf32>
  return %y : tensor<4x5xf32>
}
