// graph-to-tensor on quantized ops with `requant = fixed_point` (TFLite's and
// CMSIS-NN's arithmetic, ir/src/requant.rs): per channel a Q31 multiplier and a shift
// computed at compile time, then integer ops only (no float op in the requantization).
// Checked against the interpreter by --check-semantics, at the tensor level and
// through the whole host pipeline.
// RUN: acc-opt --check-semantics --pass graph-to-tensor %s | FileCheck %s
// RUN: acc-opt --check-semantics --pass canonicalize,graph-to-tensor,layout,bufferize,fuse-parallel,unroll,collapse-parallel,vectorize,buffer-deallocation,memory-plan %s | FileCheck %s --check-prefix=LOOPS
// RUN: acc-opt --print-generic %s | acc-opt | FileCheck %s --check-prefix=ROUND

// Per output channel: s_in * s_w / s_out = 1.25 (0.625 * 2^1: a left shift) and
// 0.015 (a right shift by 6). Multipliers 0.625 * 2^31 = 1342177280 and
// round(0.96 * 2^31) = 2061584302; factors 2^1 and 2^0; right shifts 0 and 6 (masks
// 0 and 63); the doubling high product as (x * m + 2^30) >> 31 in i64.
// ROUND-LABEL: func.func @conv(
// ROUND: graph.qconv2d {{.*}}requant = #graph.requantization<fixed_point>
// CHECK-LABEL: func.func @conv(
// CHECK-DAG: arith.constant dense<[1342177280, 2061584302]> : tensor<2xi64>
// CHECK-DAG: arith.constant dense<[2, 1]> : tensor<2xi32>
// CHECK-DAG: arith.constant dense<[0, 6]> : tensor<2xi32>
// CHECK-DAG: arith.constant dense<[0, 63]> : tensor<2xi32>
// CHECK: tensor.generate {
// CHECK: arith.muli %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.extsi %{{.*}} : i32 to i64
// CHECK: arith.muli %{{.*}}, %{{.*}} : i64
// CHECK: arith.addi
// CHECK: arith.shrsi %{{.*}}, %{{.*}} : i64
// CHECK-NEXT: arith.trunci %{{.*}} : i64 to i32
// CHECK: arith.andi
// CHECK: arith.cmpi slt
// CHECK: arith.shrsi %{{.*}}, %{{.*}} : i32
// CHECK: arith.cmpi sgt
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: arith.trunci %{{.*}} : i64 to i8
// CHECK-NOT: arith.mulf
// CHECK: return
// LOOPS-LABEL: func.func @conv(
// LOOPS-NOT: mulf
// LOOPS: return
func.func @conv(%x: tensor<1x3x7x7x!quant.uniform<i8:f32, 0.5:-3>>, %w: tensor<2x3x3x3x!quant.uniform<i8:f32:0, {0.25, 0.003}>>, %b: tensor<2xi32>) -> tensor<1x2x4x4x!quant.uniform<i8:f32, 0.1:5>> {
  %r = graph.qconv2d %x, %w, %b {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, requant = #graph.requantization<fixed_point>} : (tensor<1x3x7x7x!quant.uniform<i8:f32, 0.5:-3>>, tensor<2x3x3x3x!quant.uniform<i8:f32:0, {0.25, 0.003}>>, tensor<2xi32>) -> tensor<1x2x4x4x!quant.uniform<i8:f32, 0.1:5>>
  return %r : tensor<1x2x4x4x!quant.uniform<i8:f32, 0.1:5>>
}

// Per column of an unsigned left-hand side: 0.02 * 0.5 / 0.01 = 1 and
// 0.02 * 7 / 0.01 = 14 (0.875 * 2^4).
// CHECK-LABEL: func.func @matmul(
// CHECK-DAG: arith.constant dense<[1073741824, 1879048192]> : tensor<2xi64>
// CHECK-DAG: arith.constant dense<[2, 16]> : tensor<2xi32>
// CHECK: arith.trunci %{{.*}} : i64 to i8
func.func @matmul(%a: tensor<3x5x!quant.uniform<u8:f32, 0.02:128>>, %b: tensor<5x2x!quant.uniform<i8:f32:1, {0.5, 7.0}>>) -> tensor<3x2x!quant.uniform<i8:f32, 0.01:-1>> {
  %r = graph.qmatmul %a, %b {requant = #graph.requantization<fixed_point>} : (tensor<3x5x!quant.uniform<u8:f32, 0.02:128>>, tensor<5x2x!quant.uniform<i8:f32:1, {0.5, 7.0}>>) -> tensor<3x2x!quant.uniform<i8:f32, 0.01:-1>>
  return %r : tensor<3x2x!quant.uniform<i8:f32, 0.01:-1>>
}
