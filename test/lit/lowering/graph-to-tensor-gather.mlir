// graph-to-tensor on the ops that read at computed positions (ONNX Gather,
// GatherElements, GatherND, ArgMax, ArgMin, CumSum), checked against the interpreter
// by --check-semantics on seeded inputs (random indices: negative ones wrap, the
// others are clamped); then the whole host pipeline, checked the same way after every
// pass (a loop.for inside a generate reads its tensors as loads).
// RUN: acc-opt --check-semantics --pass graph-to-tensor %s | FileCheck %s
// RUN: acc-opt --check-semantics --pass canonicalize,graph-to-tensor,layout,bufferize,fuse-parallel,unroll,collapse-parallel,vectorize,buffer-deallocation,memory-plan %s | FileCheck %s --check-prefix=LOOPS

// An index is read, wrapped when negative, clamped, then the input read there.
// CHECK-LABEL: func.func @gather(
// CHECK: tensor.generate {
// CHECK-NEXT: ^bb0(%[[A:.*]]: index, %[[B:.*]]: index, %[[C:.*]]: index):
// CHECK-NEXT: %[[I:.*]] = tensor.extract %arg1[%[[A]], %[[B]]] : tensor<2x3xi64>
// CHECK-NEXT: %[[J:.*]] = arith.index_cast %[[I]] : i64 to index
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[J]], %{{.*}} : index
// CHECK: %[[W:.*]] = arith.select %[[NEG]], %{{.*}}, %[[J]] : index
// CHECK: %[[LO:.*]] = arith.maxsi %[[W]], %{{.*}} : index
// CHECK: %[[K:.*]] = arith.minsi %[[LO]], %{{.*}} : index
// CHECK: tensor.extract %arg0[%[[K]], %[[C]]] : tensor<5x4xf32>
// CHECK: } : tensor<2x3x4xf32>
// LOOPS-LABEL: func.func @gather(
// LOOPS: loop.parallel
// LOOPS: loop.load %arg1
// LOOPS: arith.minsi
func.func @gather(%x: tensor<5x4xf32>, %i: tensor<2x3xi64>) -> tensor<2x3x4xf32> {
  %r = graph.gather %x, %i {axis = 0 : i64} : (tensor<5x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  return %r : tensor<2x3x4xf32>
}

// CHECK-LABEL: func.func @gather_elements(
// CHECK: tensor.extract %arg1[%[[A:.*]], %[[B:.*]]] : tensor<3x2xi32>
// CHECK: arith.index_cast %{{.*}} : i32 to index
// CHECK: tensor.extract %arg0[%[[A]], %{{.*}}] : tensor<3x4xf32>
func.func @gather_elements(%x: tensor<3x4xf32>, %i: tensor<3x2xi32>) -> tensor<3x2xf32> {
  %r = graph.gather_elements %x, %i {axis = 1 : i64} : (tensor<3x4xf32>, tensor<3x2xi32>) -> tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}

// One batch dimension, tuples of one index: input[b, indices[b, i, 0], c].
// CHECK-LABEL: func.func @gather_nd(
// CHECK: ^bb0(%[[B:.*]]: index, %[[I:.*]]: index, %[[C:.*]]: index):
// CHECK: tensor.extract %arg1[%[[B]], %[[I]], %{{.*}}] : tensor<2x5x1xi64>
// CHECK: tensor.extract %arg0[%[[B]], %{{.*}}, %[[C]]] : tensor<2x3x4xi32>
func.func @gather_nd(%x: tensor<2x3x4xi32>, %i: tensor<2x5x1xi64>) -> tensor<2x5x4xi32> {
  %r = graph.gather_nd %x, %i {batch_dims = 1 : i64} : (tensor<2x3x4xi32>, tensor<2x5x1xi64>) -> tensor<2x5x4xi32>
  return %r : tensor<2x5x4xi32>
}

// A loop along the line carries the best value and its position; a NaN wins.
// CHECK-LABEL: func.func @arg_max(
// CHECK: %[[R:.*]]:2 = loop.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[V:.*]] = %{{.*}}, %[[P:.*]] = %{{.*}}) -> (f32, index) {
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf uno
// CHECK: loop.yield
// CHECK: arith.index_cast %[[R]]#1 : index to i64
// LOOPS-LABEL: func.func @arg_max(
// LOOPS: loop.for
// LOOPS: loop.load %arg0
func.func @arg_max(%x: tensor<3x7xf32>) -> tensor<3xi64> {
  %r = graph.arg_max %x {axis = 1 : i64, keepdims = false} : (tensor<3x7xf32>) -> tensor<3xi64>
  return %r : tensor<3xi64>
}

// The last of equal minima: less than or equal replaces.
// CHECK-LABEL: func.func @arg_min_last(
// CHECK: arith.cmpi sle, %{{.*}}, %{{.*}} : i8
func.func @arg_min_last(%x: tensor<4x3xi8>) -> tensor<1x3xi64> {
  %r = graph.arg_min %x {axis = 0 : i64, select_last_index = true} : (tensor<4x3xi8>) -> tensor<1x3xi64>
  return %r : tensor<1x3xi64>
}

// Element j adds the line's elements 0 to j to zero, in order.
// CHECK-LABEL: func.func @cumsum(
// CHECK: ^bb0(%{{.*}}: index, %[[J:.*]]: index):
// CHECK: %[[N:.*]] = arith.addi %[[J]], %{{.*}} : index
// CHECK: loop.for %{{.*}} = %{{.*}} to %[[N]] step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f32) {
// CHECK: arith.addf
func.func @cumsum(%x: tensor<2x9xf32>) -> tensor<2x9xf32> {
  %r = graph.cumsum %x {axis = 1 : i64} : tensor<2x9xf32>
  return %r : tensor<2x9xf32>
}

// Reverse and exclusive: from the end, without the element itself.
// CHECK-LABEL: func.func @cumsum_reverse_exclusive(
// CHECK: arith.subi
// CHECK: loop.for
// CHECK: arith.subi
// CHECK: arith.addi %{{.*}}, %{{.*}} : i32
func.func @cumsum_reverse_exclusive(%x: tensor<6x2xi32>) -> tensor<6x2xi32> {
  %r = graph.cumsum %x {axis = -2 : i64, exclusive = true, reverse = true} : tensor<6x2xi32>
  return %r : tensor<6x2xi32>
}
