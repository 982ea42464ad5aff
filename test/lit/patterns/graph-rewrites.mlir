// The graph canonicalization patterns acc ships (dialects/defs/graph-rewrites.acc):
// relu(relu(x)), inverse transposes, matmul + bias as gemm, division by powers of two as
// multiplication, batch_norm and a one-element scale and shift (a learnable affine
// block) folded into conv2d with the new weights computed at compile time by
// constant folding.
// RUN: acc-opt --pass canonicalize %s | FileCheck %s

// CHECK-LABEL: func.func @relu_relu
// CHECK-NEXT: %[[R:.*]] = graph.relu %arg0
// CHECK-NEXT: return %[[R]]
func.func @relu_relu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = graph.relu %x : tensor<2x3xf32>
  %1 = graph.relu %0 : tensor<2x3xf32>
  %2 = graph.relu %1 : tensor<2x3xf32>
  return %2 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @inverse_transposes
// CHECK-NEXT: return %arg0
func.func @inverse_transposes(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = graph.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %1 = graph.transpose %0 {perm = array<i64: 1, 2, 0>} : (tensor<4x2x3xf32>) -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// A dequantize then requantize through the stored integers: the casts cancel.
// CHECK-LABEL: func.func @storage_cast_round_trip
// CHECK-NEXT: %[[D:.*]] = graph.dequantize %arg0
// CHECK-NEXT: return %[[D]]
func.func @storage_cast_round_trip(%q: tensor<4x!quant.uniform<i8:f32, 5.000000e-01>>) -> tensor<4xf32> {
  %0 = graph.storage_cast %q : tensor<4x!quant.uniform<i8:f32, 5.000000e-01>> to tensor<4xi8>
  %1 = graph.storage_cast %0 : tensor<4xi8> to tensor<4x!quant.uniform<i8:f32, 5.000000e-01>>
  %2 = graph.dequantize %1 : tensor<4x!quant.uniform<i8:f32, 5.000000e-01>> to tensor<4xf32>
  return %2 : tensor<4xf32>
}

// Reinterpreted as a different quantized type: both casts stay.
// CHECK-LABEL: func.func @storage_cast_retype
// CHECK-NEXT: graph.storage_cast %arg0
// CHECK-NEXT: graph.storage_cast
func.func @storage_cast_retype(%q: tensor<4x!quant.uniform<i8:f32, 5.000000e-01>>) -> tensor<4x!quant.uniform<i8:f32, 2.500000e-01>> {
  %0 = graph.storage_cast %q : tensor<4x!quant.uniform<i8:f32, 5.000000e-01>> to tensor<4xi8>
  %1 = graph.storage_cast %0 : tensor<4xi8> to tensor<4x!quant.uniform<i8:f32, 2.500000e-01>>
  return %1 : tensor<4x!quant.uniform<i8:f32, 2.500000e-01>>
}

// Not inverse: both stay.
// CHECK-LABEL: func.func @other_transposes
// CHECK-NEXT: graph.transpose %arg0 {perm = array<i64: 2, 0, 1>}
// CHECK-NEXT: graph.transpose %{{.*}} {perm = array<i64: 2, 0, 1>}
func.func @other_transposes(%x: tensor<2x3x4xf32>) -> tensor<3x4x2xf32> {
  %0 = graph.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %1 = graph.transpose %0 {perm = array<i64: 2, 0, 1>} : (tensor<4x2x3xf32>) -> tensor<3x4x2xf32>
  return %1 : tensor<3x4x2xf32>
}

// k = scale / sqrt(var + eps) = [2/2, 3/1] = [1, 3]; w' = w * k per output channel;
// b' = (b - mean) * k + shift = [-0.25, -9].
// CHECK-LABEL: func.func @conv_bn(
// CHECK-DAG: %[[W:.*]] = graph.constant dense<{{\[\[\[\[}}1.000000e+00]], {{\[\[}}2.000000e+00]]], {{\[\[\[}}9.000000e+00]], {{\[\[}}1.200000e+01]]]]> : tensor<2x2x1x1xf32>
// CHECK-DAG: %[[B:.*]] = graph.constant dense<[-2.500000e-01, -9.000000e+00]> : tensor<2xf32>
// CHECK: %[[C:.*]] = graph.conv2d %arg0, %[[W]], %[[B]] :
// CHECK-NOT: graph.batch_norm
// CHECK: return %[[C]]
func.func @conv_bn(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = graph.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %b = graph.constant dense<[0.5, -1.0]> : tensor<2xf32>
  %scale = graph.constant dense<[2.0, 3.0]> : tensor<2xf32>
  %shift = graph.constant dense<[0.25, 0.0]> : tensor<2xf32>
  %mean = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %var = graph.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %c = graph.conv2d %x, %w, %b : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %y = graph.batch_norm %c, %scale, %shift, %mean, %var {epsilon = 1.0 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// Without a bias: b' = shift - mean * k = [-1, -6].
// CHECK-LABEL: func.func @conv_bn_no_bias
// CHECK-DAG: graph.constant dense<[-1.000000e+00, -6.000000e+00]> : tensor<2xf32>
// CHECK: graph.conv2d %arg0, %{{.*}}, %{{.*}} :
// CHECK-NOT: graph.batch_norm
func.func @conv_bn_no_bias(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = graph.constant dense<1.0> : tensor<2x2x1x1xf32>
  %scale = graph.constant dense<[2.0, 3.0]> : tensor<2xf32>
  %shift = graph.constant dense<0.0> : tensor<2xf32>
  %mean = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %var = graph.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %c = graph.conv2d %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %y = graph.batch_norm %c, %scale, %shift, %mean, %var {epsilon = 1.0 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// conv * k + c with one-element constants: w' = w * 0.5, b' = b * 0.5 + 2.
// CHECK-LABEL: func.func @conv_affine(
// CHECK-DAG: %[[W:.*]] = graph.constant dense<{{\[\[\[\[}}5.000000e-01]], {{\[\[}}1.000000e+00]]], {{\[\[\[}}1.500000e+00]], {{\[\[}}2.000000e+00]]]]> : tensor<2x2x1x1xf32>
// CHECK-DAG: %[[B:.*]] = graph.constant dense<[2.250000e+00, 1.500000e+00]> : tensor<2xf32>
// CHECK: %[[C:.*]] = graph.conv2d %arg0, %[[W]], %[[B]] :
// CHECK-NEXT: return %[[C]]
func.func @conv_affine(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = graph.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %b = graph.constant dense<[0.5, -1.0]> : tensor<2xf32>
  %k = graph.constant dense<[0.5]> : tensor<1xf32>
  %c = graph.constant dense<2.0> : tensor<f32>
  %0 = graph.conv2d %x, %w, %b : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %1 = graph.mul %0, %k : (tensor<1x2x4x4xf32>, tensor<1xf32>) -> tensor<1x2x4x4xf32>
  %2 = graph.add %1, %c : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  return %2 : tensor<1x2x4x4xf32>
}

// Without a bias the scale folds into the filter; the shift, with no bias to go
// to, stays. A scale per channel, or one the convolution's result also feeds
// elsewhere, stays too.
// CHECK-LABEL: func.func @conv_affine_kept(
// CHECK: %[[C:.*]] = graph.conv2d %arg0, %{{.*}} :
// CHECK-NEXT: graph.add %[[C]]
// CHECK: %[[D:.*]] = graph.conv2d %arg0, %{{.*}}, %{{.*}} :
// CHECK-NEXT: graph.mul %[[D]]
// CHECK: %[[E:.*]] = graph.conv2d %arg0, %{{.*}}, %{{.*}} :
// CHECK-NEXT: graph.mul %[[E]]
func.func @conv_affine_kept(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = graph.constant dense<1.0> : tensor<2x2x1x1xf32>
  %b = graph.constant dense<[0.5, -1.0]> : tensor<2xf32>
  %k = graph.constant dense<[0.5]> : tensor<1xf32>
  %kc = graph.constant dense<[[[0.5]], [[2.0]]]> : tensor<2x1x1xf32>
  %c = graph.constant dense<[2.0]> : tensor<1xf32>
  %0 = graph.conv2d %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = graph.mul %0, %k : (tensor<1x2x4x4xf32>, tensor<1xf32>) -> tensor<1x2x4x4xf32>
  %2 = graph.add %1, %c : (tensor<1x2x4x4xf32>, tensor<1xf32>) -> tensor<1x2x4x4xf32>
  %3 = graph.conv2d %x, %w, %b : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %4 = graph.mul %3, %kc : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %5 = graph.conv2d %x, %w, %b : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %6 = graph.mul %5, %k : (tensor<1x2x4x4xf32>, tensor<1xf32>) -> tensor<1x2x4x4xf32>
  return %2, %4, %6, %5 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// Weights that are function arguments are not constants: nothing folds.
// CHECK-LABEL: func.func @conv_bn_runtime_weights
// CHECK: graph.conv2d
// CHECK: graph.batch_norm
func.func @conv_bn_runtime_weights(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32> {
  %scale = graph.constant dense<[2.0, 3.0]> : tensor<2xf32>
  %shift = graph.constant dense<0.0> : tensor<2xf32>
  %c = graph.conv2d %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %y = graph.batch_norm %c, %scale, %shift, %shift, %scale : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// A matrix product plus a constant bias (either side) becomes a gemm with C; a
// batched product, a bias that widens the result and a runtime bias stay as they are.
// CHECK-LABEL: func.func @matmul_bias
// CHECK: %[[B:.*]] = graph.constant
// CHECK-NEXT: %[[G:.*]] = graph.gemm %arg0, %arg1, %[[B]] : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: %[[H:.*]] = graph.gemm %arg0, %arg1, %[[B]] :
// CHECK-NEXT: return %[[G]], %[[H]]
func.func @matmul_bias(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %bias = graph.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %m = graph.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %y = graph.add %m, %bias : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %n = graph.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %z = graph.add %bias, %n : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %y, %z : tensor<2x4xf32>, tensor<2x4xf32>
}

// CHECK-LABEL: func.func @matmul_bias_kept
// CHECK-NOT: graph.gemm
// CHECK: return
func.func @matmul_bias_kept(%a: tensor<5x2x3xf32>, %b: tensor<5x3x4xf32>, %c: tensor<2x4xf32>, %d: tensor<3x4xf32>) -> (tensor<5x2x4xf32>, tensor<3x2x4xf32>, tensor<2x4xf32>) {
  %bias = graph.constant dense<1.0> : tensor<4xf32>
  %m = graph.matmul %a, %b : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
  %y = graph.add %m, %bias : (tensor<5x2x4xf32>, tensor<4xf32>) -> tensor<5x2x4xf32>
  %wide = graph.constant dense<1.0> : tensor<3x1x4xf32>
  %a2 = graph.constant dense<0.5> : tensor<2x3xf32>
  %n = graph.matmul %a2, %d : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %z = graph.add %n, %wide : (tensor<2x4xf32>, tensor<3x1x4xf32>) -> tensor<3x2x4xf32>
  %p = graph.matmul %a2, %d : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %r = graph.add %p, %c : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %y, %z, %r : tensor<5x2x4xf32>, tensor<3x2x4xf32>, tensor<2x4xf32>
}

// Division by constant powers of two is multiplication by their exact reciprocals
// (same results); any other divisor stays a division.
// CHECK-LABEL: func.func @div_by_power_of_two
// CHECK-DAG: %[[R:.*]] = graph.constant dense<1.250000e-01> : tensor<f32>
// CHECK-DAG: %[[RS:.*]] = graph.constant dense<[2.000000e+00, -2.500000e-01, 4.000000e+00]> : tensor<3xf32>
// CHECK-DAG: %[[D:.*]] = graph.constant dense<[5.000000e-01, 3.000000e+00, 2.500000e-01]> : tensor<3xf32>
// CHECK-DAG: %[[Y:.*]] = graph.mul %arg0, %[[R]]
// CHECK-DAG: %[[Z:.*]] = graph.mul %arg0, %[[RS]]
// CHECK-DAG: %[[W:.*]] = graph.div %arg0, %[[D]]
// CHECK: return %[[Y]], %[[Z]], %[[W]]
func.func @div_by_power_of_two(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %c = graph.constant dense<8.0> : tensor<f32>
  %y = graph.div %x, %c : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %d = graph.constant dense<[0.5, -4.0, 0.25]> : tensor<3xf32>
  %z = graph.div %x, %d : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %e = graph.constant dense<[0.5, 3.0, 0.25]> : tensor<3xf32>
  %w = graph.div %x, %e : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %y, %z, %w : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}
