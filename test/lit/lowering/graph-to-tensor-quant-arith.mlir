// graph-to-tensor on the quantized additions, products, rescales and average pools
// (`quantize` folds them from QDQ groups), under both requantization schemes and
// with fused activation bounds. `float` is the QDQ group's f32 arithmetic; `fixed_point`
// TFLite's and CMSIS-NN's integer arithmetic (ir/src/requant.rs). Checked against
// the interpreter by --check-semantics, at the tensor level and through the whole
// host pipeline.
// RUN: acc-opt --check-semantics --pass graph-to-tensor %s | FileCheck %s
// RUN: acc-opt --check-semantics --pass canonicalize,graph-to-tensor,layout,bufferize,fuse-parallel,unroll,collapse-parallel,vectorize,buffer-deallocation,memory-plan %s | FileCheck %s --check-prefix=LOOPS
// RUN: acc-opt --print-generic %s | acc-opt | FileCheck %s --check-prefix=ROUND

// The float scheme: both inputs dequantized to f32, added in f32, quantized, then
// clamped to [act_min, act_max] = [-128, 100] (a fused ReLU6's upper bound, say).
// ROUND-LABEL: func.func @add_float(
// ROUND: graph.qadd {{.*}}act_max = 100 : i64
// CHECK-LABEL: func.func @add_float(
// CHECK: tensor.generate {
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK: math.roundeven
// CHECK: arith.constant 1.000000e+02 : f64
// CHECK: return
func.func @add_float(%a: tensor<1x4x3x3x!quant.uniform<i8:f32, 0.02:-5>>, %b: tensor<1x4x3x3x!quant.uniform<i8:f32, 0.05:7>>) -> tensor<1x4x3x3x!quant.uniform<i8:f32, 0.06:-2>> {
  %r = graph.qadd %a, %b {act_max = 100 : i64} : (tensor<1x4x3x3x!quant.uniform<i8:f32, 0.02:-5>>, tensor<1x4x3x3x!quant.uniform<i8:f32, 0.05:7>>) -> tensor<1x4x3x3x!quant.uniform<i8:f32, 0.06:-2>>
  return %r : tensor<1x4x3x3x!quant.uniform<i8:f32, 0.06:-2>>
}

// The fixed-point scheme: 0.5 and 0.25 into 1.0. Twice the larger input scale is
// 1.0: the inputs' multipliers are 0.5 (2^30, shift 0) and 0.25 (2^30, shift -1),
// each after a left shift by 20 (x 1048576); the sum's is 2^-20 (2^30, shift -19).
// CHECK-LABEL: func.func @add_fixed(
// CHECK: tensor.generate {
// CHECK: arith.constant 1048576 : i32
// CHECK: arith.constant 1073741824 : i64
// CHECK: arith.constant 19 : i32
// CHECK-NOT: arith.addf
// CHECK: return
// LOOPS-LABEL: func.func @add_fixed(
// LOOPS-NOT: addf
// LOOPS: return
func.func @add_fixed(%a: tensor<2x5x!quant.uniform<i8:f32, 0.5:3>>, %b: tensor<2x5x!quant.uniform<i8:f32, 0.25:-1>>) -> tensor<2x5x!quant.uniform<i8:f32, 1.0:4>> {
  %r = graph.qadd %a, %b {requant = #graph.requantization<fixed_point>, act_min = -20 : i64} : (tensor<2x5x!quant.uniform<i8:f32, 0.5:3>>, tensor<2x5x!quant.uniform<i8:f32, 0.25:-1>>) -> tensor<2x5x!quant.uniform<i8:f32, 1.0:4>>
  return %r : tensor<2x5x!quant.uniform<i8:f32, 1.0:4>>
}

// CHECK-LABEL: func.func @mul_float(
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
func.func @mul_float(%a: tensor<6x!quant.uniform<i8:f32, 0.03:2>>, %b: tensor<6x!quant.uniform<u8:f32, 0.01:128>>) -> tensor<6x!quant.uniform<i8:f32, 0.002:0>> {
  %r = graph.qmul %a, %b : (tensor<6x!quant.uniform<i8:f32, 0.03:2>>, tensor<6x!quant.uniform<u8:f32, 0.01:128>>) -> tensor<6x!quant.uniform<i8:f32, 0.002:0>>
  return %r : tensor<6x!quant.uniform<i8:f32, 0.002:0>>
}

// The product of the centered integers times 0.5 * 0.25 / 0.5 = 0.25.
// CHECK-LABEL: func.func @mul_fixed(
// CHECK: arith.muli %{{.*}}, %{{.*}} : i32
// CHECK-NOT: arith.mulf
// CHECK: return
func.func @mul_fixed(%a: tensor<6x!quant.uniform<i8:f32, 0.5:2>>, %b: tensor<6x!quant.uniform<i8:f32, 0.25:0>>) -> tensor<6x!quant.uniform<i8:f32, 0.5:-3>> {
  %r = graph.qmul %a, %b {requant = #graph.requantization<fixed_point>} : (tensor<6x!quant.uniform<i8:f32, 0.5:2>>, tensor<6x!quant.uniform<i8:f32, 0.25:0>>) -> tensor<6x!quant.uniform<i8:f32, 0.5:-3>>
  return %r : tensor<6x!quant.uniform<i8:f32, 0.5:-3>>
}

// CHECK-LABEL: func.func @requantize(
// CHECK: math.roundeven
// CHECK-LABEL: func.func @requantize_fixed(
// CHECK-NOT: arith.mulf
// CHECK: return
func.func @requantize(%x: tensor<3x4x!quant.uniform<i8:f32, 0.07:1>>) -> tensor<3x4x!quant.uniform<i8:f32, 0.03:-9>> {
  %r = graph.requantize %x {act_min = -9 : i64} : (tensor<3x4x!quant.uniform<i8:f32, 0.07:1>>) -> tensor<3x4x!quant.uniform<i8:f32, 0.03:-9>>
  return %r : tensor<3x4x!quant.uniform<i8:f32, 0.03:-9>>
}
func.func @requantize_fixed(%x: tensor<3x4x!quant.uniform<i8:f32, 0.07:1>>) -> tensor<3x4x!quant.uniform<i8:f32, 0.03:-9>> {
  %r = graph.requantize %x {requant = #graph.requantization<fixed_point>} : (tensor<3x4x!quant.uniform<i8:f32, 0.07:1>>) -> tensor<3x4x!quant.uniform<i8:f32, 0.03:-9>>
  return %r : tensor<3x4x!quant.uniform<i8:f32, 0.03:-9>>
}

// The input's scale and zero point on the result: CMSIS-NN's rounded average of the
// stored integers, over the elements inside the input (counted by a pool of ones).
// CHECK-LABEL: func.func @avg_pool_same(
// CHECK: tensor.pool {{.*}}kind = #tensor.pool_kind<sum>
// CHECK: arith.divsi
// CHECK-NOT: arith.divf
// CHECK: return
func.func @avg_pool_same(%x: tensor<1x3x7x7x!quant.uniform<i8:f32, 0.1:-4>>) -> tensor<1x3x4x4x!quant.uniform<i8:f32, 0.1:-4>> {
  %r = graph.qavg_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, requant = #graph.requantization<fixed_point>} : (tensor<1x3x7x7x!quant.uniform<i8:f32, 0.1:-4>>) -> tensor<1x3x4x4x!quant.uniform<i8:f32, 0.1:-4>>
  return %r : tensor<1x3x4x4x!quant.uniform<i8:f32, 0.1:-4>>
}

// The padding counted: the count is the window's 9.
func.func @avg_pool_same_counting_pads(%x: tensor<1x2x5x5x!quant.uniform<i8:f32, 0.1:6>>) -> tensor<1x2x5x5x!quant.uniform<i8:f32, 0.1:6>> {
  %r = graph.qavg_pool %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, count_include_pad = true, requant = #graph.requantization<fixed_point>, act_max = 60 : i64} : (tensor<1x2x5x5x!quant.uniform<i8:f32, 0.1:6>>) -> tensor<1x2x5x5x!quant.uniform<i8:f32, 0.1:6>>
  return %r : tensor<1x2x5x5x!quant.uniform<i8:f32, 0.1:6>>
}

// Another scale: TFLite's mean, a multiplier per count (1 to 9) from a table.
// CHECK-LABEL: func.func @avg_pool_rescale(
// CHECK: tensor.pool {{.*}}kind = #tensor.pool_kind<sum>
// CHECK: arith.constant dense<[0, {{.*}}]> : tensor<10xi64>
// CHECK: arith.index_cast
// CHECK-NOT: arith.divf
// CHECK: return
func.func @avg_pool_rescale(%x: tensor<1x3x7x7x!quant.uniform<i8:f32, 0.1:-4>>) -> tensor<1x3x4x4x!quant.uniform<i8:f32, 0.07:2>> {
  %r = graph.qavg_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, requant = #graph.requantization<fixed_point>} : (tensor<1x3x7x7x!quant.uniform<i8:f32, 0.1:-4>>) -> tensor<1x3x4x4x!quant.uniform<i8:f32, 0.07:2>>
  return %r : tensor<1x3x4x4x!quant.uniform<i8:f32, 0.07:2>>
}

// A global average pool (the window of the whole plane) to a narrower scale, and
// one over more than 64 positions (summed by reductions).
// CHECK-LABEL: func.func @global_avg_pool(
// CHECK-LABEL: func.func @large_global_avg_pool(
// CHECK: tensor.reduce
// CHECK: arith.addi
func.func @global_avg_pool(%x: tensor<1x8x4x4x!quant.uniform<i8:f32, 0.2:10>>) -> tensor<1x8x1x1x!quant.uniform<i8:f32, 0.03:-20>> {
  %r = graph.qavg_pool %x {kernel_shape = array<i64: 4, 4>, requant = #graph.requantization<fixed_point>} : (tensor<1x8x4x4x!quant.uniform<i8:f32, 0.2:10>>) -> tensor<1x8x1x1x!quant.uniform<i8:f32, 0.03:-20>>
  return %r : tensor<1x8x1x1x!quant.uniform<i8:f32, 0.03:-20>>
}
func.func @large_global_avg_pool(%x: tensor<1x2x10x10x!quant.uniform<i8:f32, 0.2:10>>) -> tensor<1x2x1x1x!quant.uniform<i8:f32, 0.03:-20>> {
  %r = graph.qavg_pool %x {kernel_shape = array<i64: 10, 10>, requant = #graph.requantization<fixed_point>} : (tensor<1x2x10x10x!quant.uniform<i8:f32, 0.2:10>>) -> tensor<1x2x1x1x!quant.uniform<i8:f32, 0.03:-20>>
  return %r : tensor<1x2x1x1x!quant.uniform<i8:f32, 0.03:-20>>
}

// The float scheme: avg_pool's lowering on the dequantized f32 values.
// CHECK-LABEL: func.func @avg_pool_float(
// CHECK: tensor.pool {{.*}}kind = #tensor.pool_kind<avg>
// CHECK: math.roundeven
func.func @avg_pool_float(%x: tensor<1x3x7x7x!quant.uniform<i8:f32, 0.1:-4>>) -> tensor<1x3x3x3x!quant.uniform<i8:f32, 0.05:0>> {
  %r = graph.qavg_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x3x7x7x!quant.uniform<i8:f32, 0.1:-4>>) -> tensor<1x3x3x3x!quant.uniform<i8:f32, 0.05:0>>
  return %r : tensor<1x3x3x3x!quant.uniform<i8:f32, 0.05:0>>
}

// A convolution with a fused ReLU6: its result clamped to [zero, zero + 6 / scale].
// CHECK-LABEL: func.func @conv_relu6(
// CHECK: arith.constant 55 : i64
func.func @conv_relu6(%x: tensor<1x3x5x5x!quant.uniform<i8:f32, 0.5:-3>>, %w: tensor<2x3x3x3x!quant.uniform<i8:f32:0, {0.25, 0.003}>>, %b: tensor<2xi32>) -> tensor<1x2x3x3x!quant.uniform<i8:f32, 0.1:-5>> {
  %r = graph.qconv2d %x, %w, %b {requant = #graph.requantization<fixed_point>, act_min = -5 : i64, act_max = 55 : i64} : (tensor<1x3x5x5x!quant.uniform<i8:f32, 0.5:-3>>, tensor<2x3x3x3x!quant.uniform<i8:f32:0, {0.25, 0.003}>>, tensor<2xi32>) -> tensor<1x2x3x3x!quant.uniform<i8:f32, 0.1:-5>>
  return %r : tensor<1x2x3x3x!quant.uniform<i8:f32, 0.1:-5>>
}

// A convolution's i32 accumulators, rescaled by explicit per-channel tables (what an
// accelerator call's semantics compute with the tables passed to the library).
// CHECK-LABEL: func.func @rescale(
// CHECK: arith.shli
// CHECK: arith.shrsi
// CHECK-NOT: arith.mulf
// CHECK: return
func.func @rescale(%x: tensor<1x3x5x5x!quant.uniform<i8:f32, 0.5:-3>>, %w: tensor<2x3x3x3x!quant.uniform<i8:f32:0, {0.25, 0.003}>>, %b: tensor<2xi32>) -> tensor<1x2x3x3x!quant.uniform<i8:f32, 0.1:-5>> {
  %acc = graph.qconv2d %x, %w, %b : (tensor<1x3x5x5x!quant.uniform<i8:f32, 0.5:-3>>, tensor<2x3x3x3x!quant.uniform<i8:f32:0, {0.25, 0.003}>>, tensor<2xi32>) -> tensor<1x2x3x3xi32>
  %m = graph.constant dense<[1342177280, 2061584302]> : tensor<2xi32>
  %s = graph.constant dense<[1, -6]> : tensor<2xi32>
  %r = graph.rescale %acc, %m, %s {axis = 1 : i64, act_max = 90 : i64} : (tensor<1x2x3x3xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<1x2x3x3x!quant.uniform<i8:f32, 0.1:-5>>
  return %r : tensor<1x2x3x3x!quant.uniform<i8:f32, 0.1:-5>>
}
