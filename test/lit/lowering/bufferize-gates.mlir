// A blocked library convolution applies the activation that follows it as it stores
// its results (its gate): HardSwish as the ONNX importer expands it (x * clip(x / 6
// + 1/2, 0, 1)) is gate 1 with the scale and shift read from the maps, SiLU
// (sigmoid times the input) gate 2, HardSwish as PaddlePaddle writes it (x *
// clip(x + 3, 0, 6), then / 6) gate 1 with scale 1, shift 3 and bounds [0, 6], the
// division left to a loop; the maps are gone. Where the convolution's
// result has another user, the maps stay and the call stores the sums alone
// (gate 0). Checked against the interpreter after every pass.
// RUN: acc-opt --check-semantics --target %S/../../../lowering/runtime/host.acc --pipeline host-pipeline %s | FileCheck %s

// CHECK-LABEL: func.func @gates(
// The clamp [0, 1], then HardSwish's gate, scale and shift.
// CHECK: arith.constant 0.000000e+00 : f32
// CHECK-NEXT: arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[HS:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[SCALE:.*]] = arith.constant 1.6666667e-1 : f32
// CHECK-NEXT: %[[SHIFT:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT: hw.intrinsic "acc_sconv2d_nchw16c_bias"(
// CHECK-SAME: , %[[HS]], %[[SCALE]], %[[SHIFT]])
// CHECK-NOT: loop.parallel
// No clamp, SiLU's gate.
// CHECK: arith.constant 0xFF800000 : f32
// CHECK-NEXT: arith.constant 0x7F800000 : f32
// CHECK-NEXT: %[[SILU:.*]] = arith.constant 2 : index
// CHECK-NEXT: arith.constant 0.000000e+00 : f32
// CHECK-NEXT: arith.constant 0.000000e+00 : f32
// CHECK-NEXT: hw.intrinsic "acc_sdwconv2d_nchw16c_bias"(
// CHECK-SAME: , %[[SILU]], %{{[0-9]+}}, %{{[0-9]+}})
// The unpack to NCHW, and nothing else.
// CHECK: %[[Y:.*]] = loop.alloc() : memref<1x32x8x8xf32>
// CHECK: loop.parallel
// CHECK-NOT: loop.parallel
// CHECK: return %[[Y]]
func.func @gates(%x: tensor<1x16x8x8xf32>) -> tensor<1x32x8x8xf32> {
  %w = graph.constant dense<0.0625> : tensor<32x16x3x3xf32>
  %b = graph.constant dense<[1.0, -2.0, 3.0, -4.0, 5.0, -6.0, 7.0, -8.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.5, -3.5, 0.25, -0.25, 4.0, -1.0, 0.0, 2.0, -3.0, 6.0, -0.75, 0.75, -5.0, 5.5, -7.0, 8.0, 0.125, -0.125]> : tensor<32xf32>
  %c = graph.conv2d %x, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x8x8xf32>, tensor<32x16x3x3xf32>, tensor<32xf32>) -> tensor<1x32x8x8xf32>
  %sixth = graph.constant dense<0.166666672> : tensor<f32>
  %half = graph.constant dense<0.5> : tensor<f32>
  %t = graph.mul %c, %sixth : (tensor<1x32x8x8xf32>, tensor<f32>) -> tensor<1x32x8x8xf32>
  %u = graph.add %t, %half : (tensor<1x32x8x8xf32>, tensor<f32>) -> tensor<1x32x8x8xf32>
  %g = graph.clip %u {max = 1.000000e+00 : f32, min = 0.000000e+00 : f32} : tensor<1x32x8x8xf32>
  %h = graph.mul %c, %g : (tensor<1x32x8x8xf32>, tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  %dw = graph.constant dense<0.25> : tensor<32x1x3x3xf32>
  %db = graph.constant dense<-0.5> : tensor<32xf32>
  %d = graph.conv2d %h, %dw, %db {pads = array<i64: 1, 1, 1, 1>, groups = 32} : (tensor<1x32x8x8xf32>, tensor<32x1x3x3xf32>, tensor<32xf32>) -> tensor<1x32x8x8xf32>
  %s = graph.sigmoid %d : tensor<1x32x8x8xf32>
  %y = graph.mul %d, %s : (tensor<1x32x8x8xf32>, tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  return %y : tensor<1x32x8x8xf32>
}

// CHECK-LABEL: func.func @paddle(
// CHECK: arith.constant 0.000000e+00 : f32
// CHECK-NEXT: arith.constant 6.000000e+00 : f32
// CHECK-NEXT: %[[HS:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[SCALE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[SHIFT:.*]] = arith.constant 3.000000e+00 : f32
// CHECK-NEXT: hw.intrinsic "acc_sconv2d_nchw16c_bias"(
// CHECK-SAME: , %[[HS]], %[[SCALE]], %[[SHIFT]])
// CHECK: loop.parallel
// CHECK-NOT: arith.maximumf
// CHECK: arith.divf
// CHECK-NOT: arith.maximumf
// CHECK: return
func.func @paddle(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %w = graph.constant dense<0.125> : tensor<16x16x1x1xf32>
  %b = graph.constant dense<0.5> : tensor<16xf32>
  %c = graph.conv2d %x, %w, %b : (tensor<1x16x8x8xf32>, tensor<16x16x1x1xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>
  %three = graph.constant dense<3.0> : tensor<f32>
  %six = graph.constant dense<6.0> : tensor<f32>
  %t = graph.add %c, %three : (tensor<1x16x8x8xf32>, tensor<f32>) -> tensor<1x16x8x8xf32>
  %g = graph.clip %t {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32} : tensor<1x16x8x8xf32>
  %h = graph.mul %c, %g : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %y = graph.div %h, %six : (tensor<1x16x8x8xf32>, tensor<f32>) -> tensor<1x16x8x8xf32>
  return %y : tensor<1x16x8x8xf32>
}

// CHECK-LABEL: func.func @shared(
// CHECK: arith.constant 0x7F800000 : f32
// CHECK-NEXT: %[[NONE:.*]] = arith.constant 0 : index
// CHECK-NEXT: arith.constant 0.000000e+00 : f32
// CHECK-NEXT: arith.constant 0.000000e+00 : f32
// CHECK-NEXT: hw.intrinsic "acc_sconv2d_nchw16c_bias"(
// CHECK-SAME: , %[[NONE]], %{{[0-9]+}}, %{{[0-9]+}})
// CHECK: hw.intrinsic "acc_vexpneg"
// CHECK: arith.divf
// CHECK: return
func.func @shared(%x: tensor<1x16x8x8xf32>) -> (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) {
  %w = graph.constant dense<0.125> : tensor<16x16x1x1xf32>
  %b = graph.constant dense<0.5> : tensor<16xf32>
  %c = graph.conv2d %x, %w, %b : (tensor<1x16x8x8xf32>, tensor<16x16x1x1xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>
  %s = graph.sigmoid %c : tensor<1x16x8x8xf32>
  %y = graph.mul %c, %s : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  return %y, %c : tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>
}
