// An intrinsic names how its library requantizes (`requant`, float when absent): an
// op requantizing otherwise stays on the host, with a remark. An op whose result is
// clamped (a fused ReLU, ReLU6 or Clip) goes only to an intrinsic whose call passes
// `act_min(...)` and `act_max(...)` of it, the clamp computed when placing.
// RUN: acc-opt --target %S/../../../examples/targets/tinynpu.acc --pass partition --verify-diagnostics %s
// RUN: acc-opt --target %S/../../../examples/targets/tinynpu.acc --pass partition %s | FileCheck %s
// RUN: acc-opt --target %S/Inputs/fixed-point-npu.acc --pass partition --verify-diagnostics %S/Inputs/fixed-point-ops.mlir
// RUN: acc-opt --target %S/Inputs/fixed-point-npu.acc --check-semantics --pass partition,bufferize %S/Inputs/fixed-point-add.mlir | FileCheck %S/Inputs/fixed-point-add.mlir --check-prefix=CALL

// CHECK-LABEL: func.func @net(
func.func @net(%x: tensor<1x2x5x5x!quant.uniform<i8:f32, 1.000000e-02:-2>>,
               %w: tensor<3x2x3x3x!quant.uniform<i8:f32, 2.000000e-02>>, %b: tensor<3xi32>)
    -> (tensor<1x3x5x5x!quant.uniform<i8:f32, 3.000000e-01:3>>, tensor<1x3x5x5x!quant.uniform<i8:f32, 3.000000e-01:3>>, tensor<1x3x5x5x!quant.uniform<i8:f32, 3.000000e-01:3>>) {
  // CHECK: graph.qconv2d {{.*}}{hw.device = "npu", hw.intrinsic = "npu_conv2d_s8", pads = array<i64: 1, 1, 1, 1>}
  %c = graph.qconv2d %x, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x5x5x!quant.uniform<i8:f32, 1.000000e-02:-2>>, tensor<3x2x3x3x!quant.uniform<i8:f32, 2.000000e-02>>, tensor<3xi32>) -> tensor<1x3x5x5x!quant.uniform<i8:f32, 3.000000e-01:3>>
  // expected-remark @+2 {{'graph.qconv2d' stays on cpu: 'npu_conv2d_s8' refuses it: the library requantizes in float and this op in fixed_point (its `requant`)}}
  // CHECK: graph.qconv2d {{.*}}{pads = array<i64: 1, 1, 1, 1>, requant = #graph.requantization<fixed_point>}
  %f = graph.qconv2d %x, %w, %b {pads = array<i64: 1, 1, 1, 1>, requant = #graph.requantization<fixed_point>} : (tensor<1x2x5x5x!quant.uniform<i8:f32, 1.000000e-02:-2>>, tensor<3x2x3x3x!quant.uniform<i8:f32, 2.000000e-02>>, tensor<3xi32>) -> tensor<1x3x5x5x!quant.uniform<i8:f32, 3.000000e-01:3>>
  // tinynpu's convolution takes no activation bounds.
  // expected-remark @+2 {{'graph.qconv2d' stays on cpu: 'npu_conv2d_s8' refuses it: the op clamps its result to [3, 23] (a fused activation) and the call passes no act_min(...) and act_max(...) of it}}
  // CHECK: graph.qconv2d {{.*}}{act_max = 23 : i64, act_min = 3 : i64, pads = array<i64: 1, 1, 1, 1>}
  %r = graph.qconv2d %x, %w, %b {pads = array<i64: 1, 1, 1, 1>, act_min = 3 : i64, act_max = 23 : i64} : (tensor<1x2x5x5x!quant.uniform<i8:f32, 1.000000e-02:-2>>, tensor<3x2x3x3x!quant.uniform<i8:f32, 2.000000e-02>>, tensor<3xi32>) -> tensor<1x3x5x5x!quant.uniform<i8:f32, 3.000000e-01:3>>
  return %c, %f, %r : tensor<1x3x5x5x!quant.uniform<i8:f32, 3.000000e-01:3>>, tensor<1x3x5x5x!quant.uniform<i8:f32, 3.000000e-01:3>>, tensor<1x3x5x5x!quant.uniform<i8:f32, 3.000000e-01:3>>
}
