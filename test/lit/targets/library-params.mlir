// The arguments of a call that carry a parameter of the op (labelled in the target
// file, `kernel_sum: ...`) are set on the copy of the op in the call's semantics,
// which computes with them: with examples/targets/mcunpu.acc's (right) numbers
// --check-semantics passes and the region holds them; with Inputs/wrong-params.acc,
// where each intrinsic computes one argument wrong, it fails at bufferize.
// RUN: acc-opt --split-input-file --target %S/../../../examples/targets/mcunpu.acc --check-semantics --pass partition,weight-prep,graph-to-tensor,bufferize %s | FileCheck %s
// RUN: not acc-opt --split-input-file --target %S/Inputs/wrong-params.acc --check-semantics --pass partition,weight-prep,graph-to-tensor,bufferize %s 2>&1 | FileCheck %s --check-prefix=WRONG

// Kernel sums: columns sum to 9 and 0, the input's zero point is 4: 10 - 36 = -26
// and -20 - 0 = -20.
// CHECK-LABEL: func.func @fc(
// CHECK: hw.intrinsic "mcunpu_fully_connected_s8"
// CHECK: graph.qmatmul {{.*}}params = {kernel_sum = array<i32: -26, -20>, multipliers = array<i32: 1073741824, 1073741824>, output_offset = -1 : i64, shifts = array<i32: 0, 0>}
// WRONG: error: pass 'bufferize' changed the results of '@fc'
func.func @fc(%a: tensor<1x3x!quant.uniform<i8:f32, 0.5:4>>) -> tensor<1x2x!quant.uniform<i8:f32, 0.25:-1>> {
  %bi = graph.constant dense<[[1, 2], [3, 4], [5, -6]]> : tensor<3x2xi8>
  %b = graph.storage_cast %bi : tensor<3x2xi8> to tensor<3x2x!quant.uniform<i8:f32, 0.25>>
  %c = graph.constant dense<[10, -20]> : tensor<2xi32>
  %y = graph.qmatmul %a, %b, %c {requant = #graph.requantization<fixed_point>} : (tensor<1x3x!quant.uniform<i8:f32, 0.5:4>>, tensor<3x2x!quant.uniform<i8:f32, 0.25>>, tensor<2xi32>) -> tensor<1x2x!quant.uniform<i8:f32, 0.25:-1>>
  return %y : tensor<1x2x!quant.uniform<i8:f32, 0.25:-1>>
}

// -----

// CHECK-LABEL: func.func @add(
// CHECK: hw.intrinsic "mcunpu_elementwise_add_s8"
// CHECK: graph.qadd {{.*}}params = {input1_multiplier = 1073741824 : i64, input1_offset = -3 : i64, input1_shift = 0 : i64, input2_multiplier = 1073741824 : i64, input2_offset = 1 : i64, input2_shift = -1 : i64, left_shift = 20 : i64, output_multiplier = 1073741824 : i64, output_offset = 4 : i64, output_shift = -19 : i64}
// WRONG: error: pass 'bufferize' changed the results of '@add'
func.func @add(%a: tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01:3>>, %b: tensor<2x3x!quant.uniform<i8:f32, 2.500000e-01:-1>>) -> tensor<2x3x!quant.uniform<i8:f32, 1.000000e+00:4>> {
  %y = graph.qadd %a, %b {requant = #graph.requantization<fixed_point>, act_min = -20 : i64, act_max = 100 : i64} : (tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01:3>>, tensor<2x3x!quant.uniform<i8:f32, 2.500000e-01:-1>>) -> tensor<2x3x!quant.uniform<i8:f32, 1.000000e+00:4>>
  return %y : tensor<2x3x!quant.uniform<i8:f32, 1.000000e+00:4>>
}

// -----

// CHECK-LABEL: func.func @mean(
// CHECK: hw.intrinsic "mcunpu_mean_s8"
// CHECK: graph.qavg_pool {{.*}}params = {input_offset = -1 : i64, multiplier = 1342177280 : i64, output_offset = 0 : i64, shift = -2 : i64}
// WRONG: error: pass 'bufferize' changed the results of '@mean'
func.func @mean(%x: tensor<1x2x4x4x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<1x2x1x1x!quant.uniform<i8:f32, 0.2:0>> {
  %g = graph.qavg_pool %x {kernel_shape = array<i64: 4, 4>, requant = #graph.requantization<fixed_point>} : (tensor<1x2x4x4x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<1x2x1x1x!quant.uniform<i8:f32, 0.2:0>>
  return %g : tensor<1x2x1x1x!quant.uniform<i8:f32, 0.2:0>>
}

// -----

// tinynpu's scheme: a table of float multipliers (`requant_scales`), computed with
// the input's and output's scales swapped. mcunpu takes no float-scheme convolution.
// CHECK-LABEL: func.func @conv(
// CHECK-NOT: hw.intrinsic
// WRONG: error: pass 'bufferize' changed the results of '@conv'
func.func @conv(%x: tensor<1x2x5x5x!quant.uniform<i8:f32, 0.01:-2>>) -> tensor<1x3x5x5x!quant.uniform<i8:f32, 0.3:3>> {
  %wi = graph.constant dense<1> : tensor<3x2x3x3xi8>
  %w = graph.storage_cast %wi : tensor<3x2x3x3xi8> to tensor<3x2x3x3x!quant.uniform<i8:f32:0, {0.02, 0.04, 0.06}>>
  %b = graph.constant dense<[5, -9, 40]> : tensor<3xi32>
  %y = graph.qconv2d %x, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x5x5x!quant.uniform<i8:f32, 0.01:-2>>, tensor<3x2x3x3x!quant.uniform<i8:f32:0, {0.02, 0.04, 0.06}>>, tensor<3xi32>) -> tensor<1x3x5x5x!quant.uniform<i8:f32, 0.3:3>>
  return %y : tensor<1x3x5x5x!quant.uniform<i8:f32, 0.3:3>>
}
