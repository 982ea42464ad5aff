// A convolution that requantizes in fixed point (`requant = fixed_point`) is not
// placed on an intrinsic whose call passes `requant_scales(...)`, the float scheme's
// multipliers: the library would compute another result than the op's semantics.
// RUN: acc-opt --target %S/../../../examples/targets/tinynpu.acc --pass partition --verify-diagnostics %s
// RUN: acc-opt --target %S/../../../examples/targets/tinynpu.acc --pass partition %s | FileCheck %s

// CHECK-LABEL: func.func @net(
func.func @net(%x: tensor<1x2x5x5x!quant.uniform<i8:f32, 1.000000e-02:-2>>,
               %w: tensor<3x2x3x3x!quant.uniform<i8:f32, 2.000000e-02>>, %b: tensor<3xi32>)
    -> (tensor<1x3x5x5x!quant.uniform<i8:f32, 3.000000e-01:3>>, tensor<1x3x5x5x!quant.uniform<i8:f32, 3.000000e-01:3>>) {
  // CHECK: graph.qconv2d {{.*}}{hw.device = "npu", hw.intrinsic = "npu_conv2d_s8", pads = array<i64: 1, 1, 1, 1>}
  %c = graph.qconv2d %x, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x5x5x!quant.uniform<i8:f32, 1.000000e-02:-2>>, tensor<3x2x3x3x!quant.uniform<i8:f32, 2.000000e-02>>, tensor<3xi32>) -> tensor<1x3x5x5x!quant.uniform<i8:f32, 3.000000e-01:3>>
  // expected-remark @+2 {{'graph.qconv2d' stays on cpu: 'npu_conv2d_s8' refuses it: requant_scales(...) passes the float scheme's multipliers, and this op requantizes in fixed point (its `requant`)}}
  // CHECK: graph.qconv2d {{.*}}{pads = array<i64: 1, 1, 1, 1>, requant = #graph.requantization<fixed_point>}
  %f = graph.qconv2d %x, %w, %b {pads = array<i64: 1, 1, 1, 1>, requant = #graph.requantization<fixed_point>} : (tensor<1x2x5x5x!quant.uniform<i8:f32, 1.000000e-02:-2>>, tensor<3x2x3x3x!quant.uniform<i8:f32, 2.000000e-02>>, tensor<3xi32>) -> tensor<1x3x5x5x!quant.uniform<i8:f32, 3.000000e-01:3>>
  return %c, %f : tensor<1x3x5x5x!quant.uniform<i8:f32, 3.000000e-01:3>>, tensor<1x3x5x5x!quant.uniform<i8:f32, 3.000000e-01:3>>
}
