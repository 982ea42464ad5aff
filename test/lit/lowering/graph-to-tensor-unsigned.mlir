// graph-to-tensor on unsigned integers (ONNX's uint8..uint64): the arith and tensor
// levels are signless, as in MLIR, so the lowered code computes on signless integers
// with the unsigned ops (divui, maxui, minui, extui, uitofp), sees the function's
// unsigned arguments and results through tensor.bitcast, and keeps constants' bits.
// tensor.pool and tensor.sort compare as signed: unsigned max pools and sorts run on
// values with their sign bits flipped. Checked against the interpreter by
// --check-semantics on seeded inputs (which reach the values where signed and unsigned
// differ); then the whole host pipeline, checked the same way after every pass.
// RUN: acc-opt --check-semantics --pass graph-to-tensor %s | FileCheck %s
// RUN: acc-opt --check-semantics --pass canonicalize,graph-to-tensor,layout,bufferize,fuse-parallel,unroll,collapse-parallel,vectorize,buffer-deallocation,memory-plan %s | FileCheck %s --check-prefix=LOOPS

// CHECK-LABEL: func.func @divide(%arg0: tensor<2x4xui8>, %arg1: tensor<2x4xui8>) -> tensor<2x4xui8>
// CHECK: %[[A:.*]] = tensor.bitcast %arg0 : tensor<2x4xui8> to tensor<2x4xi8>
// CHECK: %[[B:.*]] = tensor.bitcast %arg1 : tensor<2x4xui8> to tensor<2x4xi8>
// CHECK: tensor.map ins(%[[A]] : tensor<2x4xi8>)
// CHECK: %[[K:.*]] = arith.constant -56 : i8
// CHECK: arith.maxui %{{.*}}, %[[K]] : i8
// CHECK: tensor.map ins(%{{.*}}, %[[B]] : tensor<2x4xi8>, tensor<2x4xi8>)
// CHECK: arith.divui %{{.*}}, %{{.*}} : i8
// CHECK: %[[R:.*]] = tensor.bitcast %{{.*}} : tensor<2x4xi8> to tensor<2x4xui8>
// CHECK: return %[[R]] : tensor<2x4xui8>
// LOOPS-LABEL: func.func @divide(%arg0: memref<2x4xui8>, %arg1: memref<2x4xui8>) -> memref<2x4xui8>
// LOOPS: loop.reshape %arg0 : memref<2x4xui8> to memref<2x4xi8>
// LOOPS: arith.maxui
// LOOPS: arith.divui
// LOOPS: loop.reshape %{{.*}} : memref<2x4xi8> to memref<2x4xui8>
func.func @divide(%a: tensor<2x4xui8>, %b: tensor<2x4xui8>) -> tensor<2x4xui8> {
  %k = graph.constant dense<200> : tensor<2x4xui8>
  %m = graph.max %a, %k : (tensor<2x4xui8>, tensor<2x4xui8>) -> tensor<2x4xui8>
  %q = graph.div %m, %b : (tensor<2x4xui8>, tensor<2x4xui8>) -> tensor<2x4xui8>
  return %q : tensor<2x4xui8>
}

// CHECK-LABEL: func.func @pool_and_sort(
// CHECK: arith.constant -32768 : i16
// CHECK-NEXT: arith.xori
// CHECK: tensor.pool {kind = #tensor.pool_kind<max>, {{.*}}} ins(%{{.*}} : tensor<1x2x4x4xi16>)
// CHECK: arith.xori
// CHECK: tensor.sort ins(%{{.*}} : tensor<1x2x2x2xi16>)
// CHECK: arith.xori
// CHECK: return %{{.*}}, %{{.*}}, %{{.*}} : tensor<1x2x2x2xui16>, tensor<1x2x2x2xui16>, tensor<1x2x2x2xi64>
// LOOPS-LABEL: func.func @pool_and_sort(
func.func @pool_and_sort(%x: tensor<1x2x4x4xui16>) -> (tensor<1x2x2x2xui16>, tensor<1x2x2x2xui16>, tensor<1x2x2x2xi64>) {
  %p = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xui16>) -> tensor<1x2x2x2xui16>
  %s:2 = graph.sort %p {axis = 2 : i64, descending = true} : (tensor<1x2x2x2xui16>) -> (tensor<1x2x2x2xui16>, tensor<1x2x2x2xi64>)
  return %p, %s#0, %s#1 : tensor<1x2x2x2xui16>, tensor<1x2x2x2xui16>, tensor<1x2x2x2xi64>
}

// Reductions start from the unsigned bounds (the minimum from all ones, -1 as i32);
// a mean adds up zero-extended values.
// CHECK-LABEL: func.func @reduce(
// CHECK: arith.constant dense<-1> : tensor<3xi32>
// CHECK: arith.minui %{{.*}}, %{{.*}} : i32
// CHECK: arith.extui %{{.*}} : i32 to i64
// CHECK: arith.divui %{{.*}}, %{{.*}} : i64
// CHECK: arith.uitofp %{{.*}} : i32 to f32
// LOOPS-LABEL: func.func @reduce(
// LOOPS: arith.minui
// LOOPS: arith.uitofp
func.func @reduce(%x: tensor<3x5xui32>) -> (tensor<3xui32>, tensor<3xui32>, tensor<5xf32>) {
  %lo = graph.reduce_min %x {axes = array<i64: 1>, keepdims = false} : (tensor<3x5xui32>) -> tensor<3xui32>
  %mean = graph.reduce_mean %x {axes = array<i64: 1>, keepdims = false} : (tensor<3x5xui32>) -> tensor<3xui32>
  %f = graph.cast %x : tensor<3x5xui32> to tensor<3x5xf32>
  %c = graph.reduce_sum %f {axes = array<i64: 0>, keepdims = false} : (tensor<3x5xf32>) -> tensor<5xf32>
  return %lo, %mean, %c : tensor<3xui32>, tensor<3xui32>, tensor<5xf32>
}
