// bufferize: tensors become buffers, tensor ops loop nests (checked against the
// interpreter by --check-semantics).
// RUN: acc-opt --check-semantics --pass bufferize %s | FileCheck %s

// The signature takes and returns memrefs; a map is a parallel loop storing into the
// buffer of its empty init; a matrix product accumulates into a copy of its constant
// init (constants are read-only) with a carried sum.
// CHECK-LABEL: func.func @scale_sum(%arg0: memref<2x3xf32>, %arg1: memref<3x4xf32>) -> memref<2x4xf32>
// CHECK-NEXT: %[[K:.*]] = loop.constant dense<2.000000e+00> : tensor<2x3xf32> to memref<2x3xf32>
// CHECK-NEXT: %[[S:.*]] = loop.alloc() : memref<2x3xf32>
// CHECK: loop.parallel (%[[I:.*]], %[[J:.*]]) =
// CHECK-NEXT: %[[A:.*]] = loop.load %arg0[%[[I]], %[[J]]] : memref<2x3xf32>
// CHECK-NEXT: %[[B:.*]] = loop.load %[[K]][%[[I]], %[[J]]] : memref<2x3xf32>
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT: loop.store %[[M]], %[[S]][%[[I]], %[[J]]] : memref<2x3xf32>
// CHECK: %[[Z:.*]] = loop.constant dense<0.000000e+00> : tensor<2x4xf32> to memref<2x4xf32>
// CHECK-NEXT: %[[C:.*]] = loop.alloc() : memref<2x4xf32>
// CHECK-NEXT: loop.copy %[[Z]], %[[C]]
// CHECK: loop.parallel
// CHECK: %[[SUM:.*]] = loop.for %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f32) {
// CHECK: arith.mulf
// CHECK-NEXT: arith.addf
// CHECK: loop.store %[[SUM]], %[[C]]
// CHECK: return %[[C]] : memref<2x4xf32>
// CHECK-NOT: tensor.
func.func @scale_sum(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %k = arith.constant dense<2.0> : tensor<2x3xf32>
  %e = tensor.empty() : tensor<2x3xf32>
  %s = tensor.map ins(%x, %k : tensor<2x3xf32>, tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32> {
  ^bb0(%a: f32, %b: f32):
    %m = arith.mulf %a, %b : f32
    tensor.yield %m : f32
  }
  %z = arith.constant dense<0.0> : tensor<2x4xf32>
  %y = tensor.matmul ins(%s, %w : tensor<2x3xf32>, tensor<3x4xf32>) outs(%z : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// A reshaped buffer whose source tensor is read again is not written into: the
// product accumulates into a copy.
// CHECK-LABEL: func.func @shared_view(
// CHECK: %[[V:.*]] = loop.reshape
// CHECK: %[[C:.*]] = loop.alloc() : memref<2x2xf32>
// CHECK-NEXT: loop.copy %[[V]], %[[C]]
func.func @shared_view(%x: tensor<4xf32>, %a: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %t = tensor.map ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%v: f32):
    tensor.yield %v : f32
  }
  %r = tensor.expand_shape %t [[0, 1]] output_shape [2, 2] : tensor<4xf32> into tensor<2x2xf32>
  %y = tensor.matmul ins(%a, %a : tensor<2x2xf32>, tensor<2x2xf32>) outs(%r : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %y, %t : tensor<2x2xf32>, tensor<4xf32>
}

// A reduction: a parallel nest over the kept dimensions, a loop.for over each reduced
// one carrying the accumulator (loaded from the init once, stored once).
// CHECK-LABEL: func.func @sum_middle(
// CHECK: loop.parallel (%[[I:[a-z0-9]+]], %[[K:[a-z0-9]+]]) =
// CHECK: %[[INIT:.*]] = loop.load %{{.*}}[%[[I]], %[[K]]] : memref<2x4xf32>
// CHECK: %[[SUM:.*]] = loop.for %[[J:[a-z0-9]+]] = {{.*}} iter_args(%[[ACC:[a-z0-9]+]] = %[[INIT]]) -> (f32) {
// CHECK: %[[X:.*]] = loop.load %arg0[%[[I]], %[[J]], %[[K]]] : memref<2x3x4xf32>
// CHECK: %[[N:.*]] = arith.addf %[[X]], %[[ACC]] : f32
// CHECK: loop.yield %[[N]] : f32
// CHECK: loop.store %[[SUM]], %{{.*}}[%[[I]], %[[K]]] : memref<2x4xf32>
func.func @sum_middle(%x: tensor<2x3x4xf32>, %init: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %r = tensor.reduce ins(%x : tensor<2x3x4xf32>) outs(%init : tensor<2x4xf32>) dimensions = [1] -> tensor<2x4xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tensor.yield %s : f32
  }
  return %r : tensor<2x4xf32>
}
