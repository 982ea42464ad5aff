// Tables and scalars a target file computes at compile time from the scales of what
// matched (test/lit/targets/Inputs/fixed-point-npu.acc): per output channel the Q31
// multipliers and shifts of s_x * s_w[c] / s_y (`q31_multipliers`, `q31_shifts`),
// per-tensor ones as integers (`q31_multiplier`, `q31_shift`), a float (`f32`).
// The call's semantics (its copy of the op) compute with the tables passed, which
// it holds as `params`, so a target computing them wrong fails --check-semantics
// (the last RUN line).
// RUN: acc-opt --target %S/Inputs/fixed-point-npu.acc --check-semantics --pass partition,weight-prep,graph-to-tensor,bufferize %s | FileCheck %s
// RUN: acc-opt --target %S/Inputs/fixed-point-npu.acc --pass partition,weight-prep --remarks %s 2>&1 | FileCheck %s --check-prefix=PREP
// RUN: acc-opt --target %S/Inputs/fixed-point-miscounted.acc --pass partition --remarks %s 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: not acc-opt --target %S/Inputs/fixed-point-npu-swapped.acc --check-semantics --pass partition,weight-prep,graph-to-tensor,bufferize %s 2>&1 | FileCheck %s --check-prefix=SWAPPED

// Per channel: 0.5 * 0.25 / 0.1 = 1.25 (0.625 * 2^1) and 0.5 * 0.003 / 0.1 = 0.015
// (0.96 * 2^-6).
// PREP: weight-prep: the call of 'npu_conv_s8' gets 4 int32 table entries prepared at compile time
// CHECK-LABEL: func.func @conv(
// CHECK: %[[M:[0-9]+]] = loop.constant dense<[1342177280, 2061584302]> : tensor<2xi32> to memref<2xi32>
// CHECK-NEXT: %[[S:[0-9]+]] = loop.constant dense<[1, -6]> : tensor<2xi32> to memref<2xi32>
// CHECK: hw.intrinsic "npu_conv_s8"
// CHECK-SAME: %[[M]], %[[S]], %{{[0-9]+}}, %{{[0-9]+}}) {inputs = array<i64: 0, 1, 2>, outputs = array<i64: 3>}
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: graph.qconv2d {{.*}} {act_max = 127 : i64, act_min = 5 : i64, pads = array<i64: 1, 1, 1, 1>, params = {multipliers = array<i32: 1342177280, 2061584302>, shifts = array<i32: 1, -6>}, requant = #graph.requantization<fixed_point>, strides = array<i64: 2, 2>}
// SWAPPED: error: pass 'bufferize' changed the results of '@conv'
// COUNT: 'graph.qconv2d' stays on cpu: 'npu_conv_s8' refuses it: q31_multipliers: entry 2 of a table, and the value has 2 channels
// COUNT: 'graph.qmatmul' stays on cpu: 'npu_fc_s8' refuses it: i16_table: entry 0 is 300000, not an integer in [-32768, 32767]
func.func @conv(%x: tensor<1x3x7x7x!quant.uniform<i8:f32, 0.5:-3>>, %b: tensor<2xi32>) -> tensor<1x2x4x4x!quant.uniform<i8:f32, 0.1:5>> {
  %wi = graph.constant dense<[[[[1, -2, 3], [4, 5, -6], [7, 8, 9]], [[-1, 2, 3], [4, -5, 6], [7, 8, -9]], [[2, 0, 1], [0, 3, 0], [1, 0, 2]]], [[[0, 1, 0], [1, -4, 1], [0, 1, 0]], [[5, 5, 5], [5, 5, 5], [5, 5, 5]], [[-5, -5, -5], [-5, -5, -5], [-5, -5, -5]]]]> : tensor<2x3x3x3xi8>
  %w = graph.storage_cast %wi : tensor<2x3x3x3xi8> to tensor<2x3x3x3x!quant.uniform<i8:f32:0, {0.25, 0.003}>>
  %r = graph.qconv2d %x, %w, %b {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, requant = #graph.requantization<fixed_point>, act_min = 5 : i64} : (tensor<1x3x7x7x!quant.uniform<i8:f32, 0.5:-3>>, tensor<2x3x3x3x!quant.uniform<i8:f32:0, {0.25, 0.003}>>, tensor<2xi32>) -> tensor<1x2x4x4x!quant.uniform<i8:f32, 0.1:5>>
  return %r : tensor<1x2x4x4x!quant.uniform<i8:f32, 0.1:5>>
}

// Per tensor: 0.02 * 0.1 / 0.05 = 0.04 = 0.64 * 2^-4; the float 0.05 * 3.
// CHECK-LABEL: func.func @fc(
// CHECK: arith.constant 1374389535 : i32
// CHECK-NEXT: arith.constant -4 : i32
// CHECK-NEXT: arith.constant 1.500000e-01 : f32
// CHECK: hw.intrinsic "npu_fc_s8"
func.func @fc(%a: tensor<2x5x!quant.uniform<i8:f32, 0.02:3>>, %c: tensor<4xi32>) -> tensor<2x4x!quant.uniform<i8:f32, 0.05:-1>> {
  %bi = graph.constant dense<[[1, -2, 3, 4], [5, -6, 7, 8], [9, 10, -11, 12], [13, 14, 15, -16], [-17, 18, 19, 20]]> : tensor<5x4xi8>
  %b = graph.storage_cast %bi : tensor<5x4xi8> to tensor<5x4x!quant.uniform<i8:f32, 0.1>>
  %y = graph.qmatmul %a, %b, %c {requant = #graph.requantization<fixed_point>} : (tensor<2x5x!quant.uniform<i8:f32, 0.02:3>>, tensor<5x4x!quant.uniform<i8:f32, 0.1>>, tensor<4xi32>) -> tensor<2x4x!quant.uniform<i8:f32, 0.05:-1>>
  return %y : tensor<2x4x!quant.uniform<i8:f32, 0.05:-1>>
}
