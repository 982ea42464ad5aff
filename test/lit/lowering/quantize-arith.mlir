// quantize on the QDQ groups of additions, products, average pools and
// concatenations, and on activations after integer ops, in both requantization
// schemes. Under `float` each fold computes what its QDQ group computes
// (--check-semantics compares them exactly); under `fixed_point` the integer ops
// carry TFLite's arithmetic, which the lowering then computes exactly.
// RUN: acc-opt --check-semantics --pass quantize %s | FileCheck %s
// RUN: acc-opt --check-semantics --pass 'quantize{requant=fixed_point}' %s | FileCheck %s --check-prefix=FIXED
// RUN: acc-opt --check-semantics --pass 'quantize{requant=fixed_point},graph-to-tensor' %s | FileCheck %s --check-prefix=TENSOR
// RUN: acc-opt --check-semantics --pass 'quantize,graph-to-tensor' %s | FileCheck %s --check-prefix=TENSOR

!qa = !quant.uniform<i8:f32, 2.000000e-02:-5>
!qb = !quant.uniform<i8:f32, 5.000000e-02:7>
!qs = !quant.uniform<i8:f32, 6.000000e-02:-2>
!qr = !quant.uniform<i8:f32, 5.000000e-02>
!q6 = !quant.uniform<i8:f32, 4.000000e-02>

// A residual add of operands of different scales, then a ReLU6 (Clip 0..6) before
// the quantize: one qadd clamped at the stored values of 0 and 6 (-2 + 0 / 0.06 and
// -2 + 6 / 0.06 = 98).
// CHECK-LABEL: func.func @add_relu6(
// CHECK-NOT: graph.add
// CHECK-NOT: graph.clip
// CHECK: graph.qadd %{{.*}}, %{{.*}} {act_max = 98 : i64, act_min = -2 : i64} : (tensor<1x4x3x3x!quant.uniform<i8:f32, 2.000000e-02:-5>>, tensor<1x4x3x3x!quant.uniform<i8:f32, 5.000000e-02:7>>) -> tensor<1x4x3x3x!quant.uniform<i8:f32, 6.000000e-02:-2>>
// FIXED-LABEL: func.func @add_relu6(
// FIXED: graph.qadd {{.*}}requant = #graph.requantization<fixed_point>
// TENSOR-LABEL: func.func @add_relu6(
// TENSOR-NOT: graph.
// TENSOR: return
func.func @add_relu6(%x: tensor<1x4x3x3xf32>, %y: tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32> {
  %xq = graph.quantize %x : tensor<1x4x3x3xf32> to tensor<1x4x3x3x!qa>
  %xd = graph.dequantize %xq : tensor<1x4x3x3x!qa> to tensor<1x4x3x3xf32>
  %yq = graph.quantize %y : tensor<1x4x3x3xf32> to tensor<1x4x3x3x!qb>
  %yd = graph.dequantize %yq : tensor<1x4x3x3x!qb> to tensor<1x4x3x3xf32>
  %s = graph.add %xd, %yd : (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  %c = graph.clip %s {min = 0.0 : f32, max = 6.0 : f32} : tensor<1x4x3x3xf32>
  %sq = graph.quantize %c : tensor<1x4x3x3xf32> to tensor<1x4x3x3x!qs>
  %sd = graph.dequantize %sq : tensor<1x4x3x3x!qs> to tensor<1x4x3x3xf32>
  return %sd : tensor<1x4x3x3xf32>
}

// CHECK-LABEL: func.func @mul(
// CHECK: graph.qmul
// CHECK-NOT: graph.mul
func.func @mul(%x: tensor<2x6xf32>, %y: tensor<2x6xf32>) -> tensor<2x6xf32> {
  %xq = graph.quantize %x : tensor<2x6xf32> to tensor<2x6x!qa>
  %xd = graph.dequantize %xq : tensor<2x6x!qa> to tensor<2x6xf32>
  %yq = graph.quantize %y : tensor<2x6xf32> to tensor<2x6x!qb>
  %yd = graph.dequantize %yq : tensor<2x6x!qb> to tensor<2x6xf32>
  %p = graph.mul %xd, %yd : (tensor<2x6xf32>, tensor<2x6xf32>) -> tensor<2x6xf32>
  %pq = graph.quantize %p : tensor<2x6xf32> to tensor<2x6x!qa>
  %pd = graph.dequantize %pq : tensor<2x6x!qa> to tensor<2x6xf32>
  return %pd : tensor<2x6xf32>
}

// An average pool keeping the input's quantization (as onnxruntime writes it) and
// a global one into its own scale: qavg_pool both, the global one's window the
// whole 5 x 5 plane.
// CHECK-LABEL: func.func @pools(
// CHECK: graph.qavg_pool %{{.*}} {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}
// CHECK: graph.qavg_pool %{{.*}} {kernel_shape = array<i64: 3, 3>} : (tensor<1x3x3x3x!quant.uniform<i8:f32, 2.000000e-02:-5>>) -> tensor<1x3x1x1x!quant.uniform<i8:f32, 5.000000e-02>>
// CHECK-NOT: graph.avg_pool
// CHECK-NOT: graph.global_avg_pool
// FIXED-LABEL: func.func @pools(
// FIXED: graph.qavg_pool {{.*}}requant = #graph.requantization<fixed_point>
// FIXED: graph.qavg_pool {{.*}}requant = #graph.requantization<fixed_point>
func.func @pools(%x: tensor<1x3x5x5xf32>) -> tensor<1x3x1x1xf32> {
  %xq = graph.quantize %x : tensor<1x3x5x5xf32> to tensor<1x3x5x5x!qa>
  %xd = graph.dequantize %xq : tensor<1x3x5x5x!qa> to tensor<1x3x5x5xf32>
  %p = graph.avg_pool %xd {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x5x5xf32>) -> tensor<1x3x3x3xf32>
  %pq = graph.quantize %p : tensor<1x3x3x3xf32> to tensor<1x3x3x3x!qa>
  %pd = graph.dequantize %pq : tensor<1x3x3x3x!qa> to tensor<1x3x3x3xf32>
  %g = graph.global_avg_pool %pd : (tensor<1x3x3x3xf32>) -> tensor<1x3x1x1xf32>
  %gq = graph.quantize %g : tensor<1x3x1x1xf32> to tensor<1x3x1x1x!qr>
  %gd = graph.dequantize %gq : tensor<1x3x1x1x!qr> to tensor<1x3x1x1xf32>
  return %gd : tensor<1x3x1x1xf32>
}

// Inputs of two scales joined: the one quantized otherwise is requantized to the
// result's type, then the stored integers are concatenated.
// CHECK-LABEL: func.func @concat(
// CHECK: %[[R:.*]] = graph.requantize %{{.*}} : (tensor<1x2x3x3x!quant.uniform<i8:f32, 5.000000e-02:7>>) -> tensor<1x2x3x3x!quant.uniform<i8:f32, 2.000000e-02:-5>>
// CHECK: graph.storage_cast %[[R]]
// CHECK: graph.concat %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<1x4x3x3xi8>, tensor<1x2x3x3xi8>) -> tensor<1x6x3x3xi8>
func.func @concat(%x: tensor<1x4x3x3xf32>, %y: tensor<1x2x3x3xf32>) -> tensor<1x6x3x3xf32> {
  %xq = graph.quantize %x : tensor<1x4x3x3xf32> to tensor<1x4x3x3x!qa>
  %xd = graph.dequantize %xq : tensor<1x4x3x3x!qa> to tensor<1x4x3x3xf32>
  %yq = graph.quantize %y : tensor<1x2x3x3xf32> to tensor<1x2x3x3x!qb>
  %yd = graph.dequantize %yq : tensor<1x2x3x3x!qb> to tensor<1x2x3x3xf32>
  %c = graph.concat %xd, %yd {axis = 1 : i64} : (tensor<1x4x3x3xf32>, tensor<1x2x3x3xf32>) -> tensor<1x6x3x3xf32>
  %cq = graph.quantize %c : tensor<1x6x3x3xf32> to tensor<1x6x3x3x!qa>
  %cd = graph.dequantize %cq : tensor<1x6x3x3x!qa> to tensor<1x6x3x3xf32>
  return %cd : tensor<1x6x3x3xf32>
}

// Symmetric activations: onnxruntime keeps a ReLU between two quantize pairs. Of
// the same scale, it narrows the convolution's clamp (exact, both schemes).
// CHECK-LABEL: func.func @conv_then_relu(
// CHECK: graph.qconv2d {{.*}}{act_min = 0 : i64}
// CHECK-NOT: graph.relu
// CHECK-NOT: graph.lookup
// FIXED-LABEL: func.func @conv_then_relu(
// FIXED: graph.qconv2d {{.*}}act_min = 0 : i64
// FIXED-NOT: graph.relu
func.func @conv_then_relu(%x: tensor<1x2x5x5xf32>) -> tensor<1x3x3x3xf32> {
  %wi = graph.constant dense<[[[[1, -2, 3], [4, 5, -6], [7, 8, 9]], [[-1, 2, 3], [4, -5, 6], [7, 8, -9]]], [[[2, 0, 1], [0, 3, 0], [1, 0, 2]], [[0, 1, 0], [1, -4, 1], [0, 1, 0]]], [[[5, 5, 5], [5, 5, 5], [5, 5, 5]], [[-5, -5, -5], [-5, -5, -5], [-5, -5, -5]]]]> : tensor<3x2x3x3xi8>
  %wq = graph.storage_cast %wi : tensor<3x2x3x3xi8> to tensor<3x2x3x3x!quant.uniform<i8:f32:0, {1.000000e-02,2.000000e-02,3.000000e-02}>>
  %w = graph.dequantize %wq : tensor<3x2x3x3x!quant.uniform<i8:f32:0, {1.000000e-02,2.000000e-02,3.000000e-02}>> to tensor<3x2x3x3xf32>
  %xq = graph.quantize %x : tensor<1x2x5x5xf32> to tensor<1x2x5x5x!qb>
  %xd = graph.dequantize %xq : tensor<1x2x5x5x!qb> to tensor<1x2x5x5xf32>
  %c = graph.conv2d %xd, %w : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x3x3xf32>
  %cq = graph.quantize %c : tensor<1x3x3x3xf32> to tensor<1x3x3x3x!qr>
  %cd = graph.dequantize %cq : tensor<1x3x3x3x!qr> to tensor<1x3x3x3xf32>
  %r = graph.relu %cd : tensor<1x3x3x3xf32>
  %rq = graph.quantize %r : tensor<1x3x3x3xf32> to tensor<1x3x3x3x!qr>
  %rd = graph.dequantize %rq : tensor<1x3x3x3x!qr> to tensor<1x3x3x3xf32>
  return %rd : tensor<1x3x3x3xf32>
}

// A ReLU6 into another scale (6 / 0.04 = 150 clamps at 127). Under `float` it is a
// lookup table of the QDQ pair's exact results; under `fixed_point` the convolution
// takes the ReLU6's type and clamp, as TFLite's converter fuses it.
// CHECK-LABEL: func.func @conv_then_relu6(
// CHECK: graph.qconv2d
// CHECK-NOT: act_min
// CHECK: graph.lookup
// CHECK-NOT: graph.clip
// FIXED-LABEL: func.func @conv_then_relu6(
// FIXED: graph.qconv2d {{.*}}act_min = 0 : i64{{.*}} -> tensor<1x3x3x3x!quant.uniform<i8:f32, 4.000000e-02>>
// FIXED-NOT: graph.lookup
// FIXED-NOT: graph.clip
// FIXED: return
func.func @conv_then_relu6(%x: tensor<1x2x5x5xf32>) -> tensor<1x3x3x3xf32> {
  %wi = graph.constant dense<[[[[1, -2, 3], [4, 5, -6], [7, 8, 9]], [[-1, 2, 3], [4, -5, 6], [7, 8, -9]]], [[[2, 0, 1], [0, 3, 0], [1, 0, 2]], [[0, 1, 0], [1, -4, 1], [0, 1, 0]]], [[[5, 5, 5], [5, 5, 5], [5, 5, 5]], [[-5, -5, -5], [-5, -5, -5], [-5, -5, -5]]]]> : tensor<3x2x3x3xi8>
  %wq = graph.storage_cast %wi : tensor<3x2x3x3xi8> to tensor<3x2x3x3x!quant.uniform<i8:f32:0, {1.000000e-02,2.000000e-02,3.000000e-02}>>
  %w = graph.dequantize %wq : tensor<3x2x3x3x!quant.uniform<i8:f32:0, {1.000000e-02,2.000000e-02,3.000000e-02}>> to tensor<3x2x3x3xf32>
  %xq = graph.quantize %x : tensor<1x2x5x5xf32> to tensor<1x2x5x5x!qb>
  %xd = graph.dequantize %xq : tensor<1x2x5x5x!qb> to tensor<1x2x5x5xf32>
  %c = graph.conv2d %xd, %w : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x3x3xf32>
  %cq = graph.quantize %c : tensor<1x3x3x3xf32> to tensor<1x3x3x3x!qr>
  %cd = graph.dequantize %cq : tensor<1x3x3x3x!qr> to tensor<1x3x3x3xf32>
  %r = graph.clip %cd {min = 0.0 : f32, max = 6.0 : f32} : tensor<1x3x3x3xf32>
  %rq = graph.quantize %r : tensor<1x3x3x3xf32> to tensor<1x3x3x3x!q6>
  %rd = graph.dequantize %rq : tensor<1x3x3x3x!q6> to tensor<1x3x3x3xf32>
  return %rd : tensor<1x3x3x3xf32>
}
