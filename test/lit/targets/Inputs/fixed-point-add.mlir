// A quantized add for fixed-point-npu.acc (partition-fixed-point.mlir): its
// call passes the zero points and the clamp.

// CALL-LABEL: func.func @add(
// CALL: arith.constant 6 : i32
// CALL-NEXT: arith.constant 3 : i32
// CALL-NEXT: arith.constant -1 : i32
// CALL-NEXT: arith.constant 4 : i32
// CALL-NEXT: arith.constant -20 : i32
// CALL-NEXT: arith.constant 100 : i32
// CALL-NEXT: hw.intrinsic "npu_add_s8"
func.func @add(%a: tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01:3>>, %b: tensor<2x3x!quant.uniform<i8:f32, 2.500000e-01:-1>>) -> tensor<2x3x!quant.uniform<i8:f32, 1.000000e+00:4>> {
  %y = graph.qadd %a, %b {requant = #graph.requantization<fixed_point>, act_min = -20 : i64, act_max = 100 : i64} : (tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01:3>>, tensor<2x3x!quant.uniform<i8:f32, 2.500000e-01:-1>>) -> tensor<2x3x!quant.uniform<i8:f32, 1.000000e+00:4>>
  return %y : tensor<2x3x!quant.uniform<i8:f32, 1.000000e+00:4>>
}
