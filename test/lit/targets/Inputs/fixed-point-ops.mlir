// Ops fixed-point-npu.acc refuses (partition-fixed-point.mlir).
// The float scheme's add stays on the host; a clamped pool on an intrinsic without
// act_min/act_max too.
func.func @refused(%a: tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01:3>>, %x: tensor<1x2x4x4x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> (tensor<2x3x!quant.uniform<i8:f32, 1.000000e+00:4>>, tensor<1x2x2x2x!quant.uniform<i8:f32, 5.000000e-01:3>>) {
  // expected-remark @+1 {{'graph.qadd' stays on cpu: 'npu_add_s8' refuses it: the library requantizes in fixed_point and this op in float (its `requant`)}}
  %y = graph.qadd %a, %a : (tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01:3>>, tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<2x3x!quant.uniform<i8:f32, 1.000000e+00:4>>
  // expected-remark @+1 {{'graph.qavg_pool' stays on cpu: 'npu_avgpool_s8' refuses it: the op clamps its result to [3, 127] (a fused activation) and the call passes no act_min(...) and act_max(...) of it}}
  %p = graph.qavg_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, requant = #graph.requantization<fixed_point>, act_min = 3 : i64} : (tensor<1x2x4x4x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<1x2x2x2x!quant.uniform<i8:f32, 5.000000e-01:3>>
  return %y, %p : tensor<2x3x!quant.uniform<i8:f32, 1.000000e+00:4>>, tensor<1x2x2x2x!quant.uniform<i8:f32, 5.000000e-01:3>>
}
