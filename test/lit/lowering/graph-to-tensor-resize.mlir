// graph-to-tensor on resize: one tensor.generate per resampled dimension, in f64,
// reading each output point's taps (input index, weight) from constant tables
// computed at compile time; checked against the interpreter by --check-semantics,
// then through the whole host pipeline.
// RUN: acc-opt --check-semantics --pass graph-to-tensor %s | FileCheck %s
// RUN: acc-opt --check-semantics --pass canonicalize,graph-to-tensor,layout,bufferize,fuse-parallel,unroll,collapse-parallel,vectorize,buffer-deallocation,memory-plan %s | FileCheck %s --check-prefix=LOOPS

// Nearest: each point copies one input element (no weights, no conversion to f64);
// the unscaled dimensions are left alone.
// CHECK-LABEL: func.func @nearest(
// CHECK-NOT: arith.extf
// CHECK: %[[H:.*]] = arith.constant dense<[0, 0, 1, 1, 2, 2]> : tensor<6xi64>
// CHECK: tensor.generate {
// CHECK: tensor.extract %[[H]][%{{.*}}] : tensor<6xi64>
// CHECK-NOT: arith.mulf
// CHECK: } : tensor<1x2x6x3xf32>
// CHECK: tensor.generate {
// CHECK: } : tensor<1x2x6x6xf32>
// CHECK-NOT: arith.truncf
// CHECK-LABEL: func.func @linear(
// LOOPS-LABEL: func.func @nearest(
// LOOPS: loop.constant dense<[0, 0, 1, 1, 2, 2]> : tensor<6xi64> to memref<6xi64>
func.func @nearest(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x6x6xf32> {
  %r = graph.resize %x {scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : (tensor<1x2x3x3xf32>) -> tensor<1x2x6x6xf32>
  return %r : tensor<1x2x6x6xf32>
}

// Linear, align_corners, by sizes: two taps per point, weights from a table.
// CHECK: arith.extf
// CHECK: arith.constant dense<{{.*}}> : tensor<12xi64>
// CHECK: arith.constant dense<{{.*}}> : tensor<12xf64>
// CHECK: tensor.generate
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @linear(%x: tensor<1x1x4x5xf32>) -> tensor<1x1x6x5xf32> {
  %r = graph.resize %x {mode = #graph.resize_mode<linear>, coordinate_transformation_mode = #graph.coordinate_mode<align_corners>, sizes = array<i64: 1, 1, 6, 5>} : (tensor<1x1x4x5xf32>) -> tensor<1x1x6x5xf32>
  return %r : tensor<1x1x6x5xf32>
}

// Cubic with antialiasing, downsampling: wider filters (more taps per point).
// CHECK-LABEL: func.func @cubic_antialias(
// CHECK: tensor.generate
func.func @cubic_antialias(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x3x5xf32> {
  %r = graph.resize %x {mode = #graph.resize_mode<cubic>, antialias = true, sizes = array<i64: 1, 1, 3, 5>} : (tensor<1x1x8x8xf32>) -> tensor<1x1x3x5xf32>
  return %r : tensor<1x1x3x5xf32>
}

// tf_crop_and_resize: points outside the region take the extrapolation value.
// CHECK-LABEL: func.func @crop(
// CHECK: arith.constant dense<{{.*}}> : tensor<3xi8>
// CHECK: arith.cmpi ne
// CHECK: arith.constant 1.000000e+01 : f64
// CHECK: arith.select
func.func @crop(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x3x3xf32> {
  %r = graph.resize %x {antialias = true, coordinate_transformation_mode = #graph.coordinate_mode<tf_crop_and_resize>, cubic_coeff_a = -5.000000e-01 : f32, exclude_outside = true, extrapolation_value = 1.000000e+01 : f32, mode = #graph.resize_mode<cubic>, roi = array<f32: 0.000000e+00, 0.000000e+00, -2.500000e-01, 2.500000e-01, 1.000000e+00, 1.000000e+00, 1.25, 7.500000e-01>, scales = array<f32: 1.000000e+00, 1.000000e+00, 7.500000e-01, 7.500000e-01>, sizes = array<i64: 1, 3, 3, 3>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x3x3xf32>
  return %r : tensor<1x3x3x3xf32>
}
