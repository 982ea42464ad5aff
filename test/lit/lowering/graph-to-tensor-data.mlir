// graph-to-tensor on the ops that move, convert and combine elements (cast, concat,
// slice, pad, reductions, sort, topk), checked against the interpreter by
// --check-semantics on seeded inputs; then the whole host pipeline, checked the same
// way after every pass.
// RUN: acc-opt --check-semantics --pass graph-to-tensor %s | FileCheck %s
// RUN: acc-opt --threads 2 --check-semantics --pass canonicalize,graph-to-tensor,layout,bufferize,fuse-parallel,unroll,collapse-parallel,vectorize,buffer-deallocation,memory-plan %s | FileCheck %s --check-prefix=LOOPS

// CHECK-LABEL: func.func @cast(
// CHECK: tensor.map ins(%arg0 : tensor<2x3xf32>)
// CHECK: arith.fptosi %{{.*}} : f32 to i32
// CHECK-LABEL: func.func @cast_back(
// CHECK: arith.sitofp %{{.*}} : i64 to f32
func.func @cast(%x: tensor<2x3xf32>) -> tensor<2x3xi32> {
  %r = graph.cast %x : tensor<2x3xf32> to tensor<2x3xi32>
  return %r : tensor<2x3xi32>
}
func.func @cast_back(%x: tensor<5xi64>) -> tensor<5xf32> {
  %r = graph.cast %x : tensor<5xi64> to tensor<5xf32>
  return %r : tensor<5xf32>
}

// A saturating cast to a float8 type clamps to its largest finite value (448), then
// rounds; without saturation a value past it becomes NaN.
// CHECK-LABEL: func.func @cast_float8(
// CHECK: arith.constant 4.480000e+02 : f32
// CHECK: arith.constant -4.480000e+02 : f32
// CHECK: arith.minimumf
// CHECK: arith.maximumf
// CHECK: arith.truncf %{{.*}} : f32 to f8E4M3FN
// CHECK-LABEL: func.func @cast_float8_back(
// CHECK: arith.extf %{{.*}} : f8E5M2 to f32
func.func @cast_float8(%x: tensor<2x3xf32>) -> (tensor<2x3xf8E4M3FN>, tensor<2x3xf8E4M3FN>) {
  %s = graph.cast %x {saturate = true} : tensor<2x3xf32> to tensor<2x3xf8E4M3FN>
  %n = graph.cast %x : tensor<2x3xf32> to tensor<2x3xf8E4M3FN>
  return %s, %n : tensor<2x3xf8E4M3FN>, tensor<2x3xf8E4M3FN>
}
func.func @cast_float8_back(%x: tensor<4xf8E5M2>) -> tensor<4xf32> {
  %r = graph.cast %x : tensor<4xf8E5M2> to tensor<4xf32>
  return %r : tensor<4xf32>
}

// ONNX Round: halves to even.
// CHECK-LABEL: func.func @round(
// CHECK: math.roundeven %{{.*}} : f32
func.func @round(%x: tensor<7xf32>) -> tensor<7xf32> {
  %r = graph.round %x : tensor<7xf32>
  return %r : tensor<7xf32>
}

// Each input inserted at its offset along the axis.
// CHECK-LABEL: func.func @concat(
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x5xf32>
// CHECK-NEXT: %[[A:.*]] = tensor.insert_slice %arg0 into %[[E]][0, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<2x5xf32>
// CHECK-NEXT: tensor.insert_slice %arg1 into %[[A]][0, 3] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x5xf32>
// LOOPS-LABEL: func.func @concat(
// LOOPS-COUNT-2: loop.parallel
// LOOPS: return
func.func @concat(%x: tensor<2x3xf32>, %y: tensor<2x2xf32>) -> tensor<2x5xf32> {
  %r = graph.concat %x, %y {axis = -1} : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x5xf32>
  return %r : tensor<2x5xf32>
}

// Positive steps: an extract_slice; a negative step: a generate reading backwards.
// CHECK-LABEL: func.func @slice(
// CHECK: tensor.extract_slice %arg0[1, 0] [2, 3] [1, 2] : tensor<4x6xf32> to tensor<2x3xf32>
// CHECK-LABEL: func.func @slice_back(
// CHECK: tensor.generate {
// CHECK-NEXT: ^bb0(%[[I:.*]]: index, %[[J:.*]]: index):
// CHECK-NEXT: %[[M:.*]] = arith.constant -2 : index
// CHECK-NEXT: %[[S:.*]] = arith.muli %[[J]], %[[M]] : index
// CHECK-NEXT: %[[L:.*]] = arith.constant 5 : index
// CHECK-NEXT: %[[P:.*]] = arith.addi %[[S]], %[[L]] : index
// CHECK-NEXT: %[[V:.*]] = tensor.extract %arg0[%[[I]], %[[P]]] : tensor<4x6xf32>
// CHECK-NEXT: tensor.yield %[[V]] : f32
// CHECK-NEXT: } : tensor<4x3xf32>
func.func @slice(%x: tensor<4x6xf32>) -> tensor<2x3xf32> {
  %r = graph.slice %x {starts = array<i64: 1, 0>, ends = array<i64: 3, 6>, steps = array<i64: 1, 2>} : (tensor<4x6xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
func.func @slice_back(%x: tensor<4x6xf32>) -> tensor<4x3xf32> {
  %r = graph.slice %x {starts = array<i64: -1>, ends = array<i64: -100>, axes = array<i64: 1>, steps = array<i64: -2>} : (tensor<4x6xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// Constant padding with a negative amount: crop, then pad with the value.
// CHECK-LABEL: func.func @pad_constant(
// CHECK: %[[C:.*]] = tensor.extract_slice %arg0[0, 1] [2, 2] [1, 1] : tensor<2x3xf32> to tensor<2x2xf32>
// CHECK-NEXT: tensor.pad %[[C]] low[1, 0] high[0, 2] {
// CHECK: arith.constant 1.500000e+00 : f32
// CHECK: } : tensor<2x2xf32> to tensor<3x4xf32>
func.func @pad_constant(%x: tensor<2x3xf32>) -> tensor<3x4xf32> {
  %r = graph.pad %x {pads = array<i64: 1, -1, 0, 2>, value = 1.5} : (tensor<2x3xf32>) -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

// Reflect, edge and wrap: a generate reading at the mirrored, clamped or wrapped index.
// CHECK-LABEL: func.func @pad_reflect(
// CHECK: tensor.generate
// CHECK: arith.remsi
// CHECK: tensor.extract %arg0
// CHECK-LABEL: func.func @pad_edge(
// CHECK: tensor.generate
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK-LABEL: func.func @pad_wrap(
// CHECK: tensor.generate
// LOOPS-LABEL: func.func @pad_reflect(
// LOOPS: loop.parallel
// LOOPS: arith.remsi
// LOOPS: loop.load %arg0
// LOOPS: loop.store
func.func @pad_reflect(%x: tensor<2x3xf32>) -> tensor<6x9xf32> {
  %r = graph.pad %x {pads = array<i64: 2, 2, 2, 4>, mode = #graph.pad_mode<reflect>} : (tensor<2x3xf32>) -> tensor<6x9xf32>
  return %r : tensor<6x9xf32>
}
func.func @pad_edge(%x: tensor<2x3xf32>) -> tensor<4x4xf32> {
  %r = graph.pad %x {pads = array<i64: 1, 0, 1, 1>, mode = #graph.pad_mode<edge>} : (tensor<2x3xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
func.func @pad_wrap(%x: tensor<2x3xi32>) -> tensor<2x8xi32> {
  %r = graph.pad %x {pads = array<i64: 0, 4, 0, 1>, mode = #graph.pad_mode<wrap>} : (tensor<2x3xi32>) -> tensor<2x8xi32>
  return %r : tensor<2x8xi32>
}

// (On two threads, a function keeps the arena size memory-plan sets on it.)
// LOOPS-LABEL: func.func @mean(
// LOOPS-SAME: attributes {loop.arena_size = 64 : i64}

// Reductions over several axes at once, the mean divided by the count, keepdims by
// a reshape; max and min skip NaN (maxnumf), integer ones start from the type's bound.
// CHECK-LABEL: func.func @mean(
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<2xf32>
// CHECK-NEXT: tensor.reduce ins(%arg0 : tensor<2x3x4xf32>) outs(%[[Z]] : tensor<2xf32>) dimensions = [1, 2]
// CHECK: arith.constant 1.200000e+01 : f32
// CHECK-NEXT: arith.divf
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1, 2]] output_shape [2, 1, 1]
// CHECK-LABEL: func.func @max(
// CHECK: arith.constant dense<-2147483648> : tensor<3xi32>
// CHECK: arith.maxsi
// CHECK-LABEL: func.func @min(
// CHECK: arith.minnumf
// CHECK-LABEL: func.func @prod(
// CHECK: arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK: arith.mulf
func.func @mean(%x: tensor<2x3x4xf32>) -> tensor<2x1x1xf32> {
  %r = graph.reduce_mean %x {axes = array<i64: -1, 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
  return %r : tensor<2x1x1xf32>
}
func.func @max(%x: tensor<2x3xi32>) -> tensor<3xi32> {
  %r = graph.reduce_max %x {axes = array<i64: 0>, keepdims = false} : (tensor<2x3xi32>) -> tensor<3xi32>
  return %r : tensor<3xi32>
}
func.func @min(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %r = graph.reduce_min %x {axes = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return %r : tensor<2x1xf32>
}
func.func @prod(%x: tensor<2x3xf32>) -> tensor<f32> {
  %r = graph.reduce_prod %x {keepdims = false} : (tensor<2x3xf32>) -> tensor<f32>
  return %r : tensor<f32>
}

// Sort along the axis into two inits; topk keeps the first k of a descending sort.
// Bufferized, each element is stored at its rank, counted over its line: the
// elements before it that are not after it, then those after it that are before it.
// CHECK-LABEL: func.func @sort(
// CHECK: %[[V:.*]] = tensor.empty() : tensor<40x3xf32>
// CHECK-NEXT: %[[I:.*]] = tensor.empty() : tensor<40x3xi64>
// CHECK-NEXT: tensor.sort ins(%arg0 : tensor<40x3xf32>) outs(%[[V]], %[[I]] : tensor<40x3xf32>, tensor<40x3xi64>) dimension = 0 -> tensor<40x3xf32>, tensor<40x3xi64>
// CHECK-LABEL: func.func @topk(
// CHECK: %[[S:.*]]:2 = tensor.sort ins(%arg0 : tensor<3x5xf32>) {{.*}} dimension = 1 {descending = true}
// CHECK-NEXT: tensor.extract_slice %[[S]]#0[0, 0] [3, 2] [1, 1] : tensor<3x5xf32> to tensor<3x2xf32>
// CHECK-NEXT: tensor.extract_slice %[[S]]#1[0, 0] [3, 2] [1, 1] : tensor<3x5xi64> to tensor<3x2xi64>
// LOOPS-LABEL: func.func @sort(
// LOOPS: loop.parallel
// LOOPS: %[[X:.*]] = loop.load %arg0
// LOOPS: %[[R1:.*]] = loop.for %{{[a-z0-9]+}} = %{{[0-9]+}} to %arg1
// LOOPS: arith.cmpf olt
// LOOPS: arith.cmpf uno
// LOOPS: arith.xori
// LOOPS: arith.select
// LOOPS: %[[R:.*]] = loop.for {{.*}} iter_args(%{{[a-z0-9]+}} = %[[R1]])
// LOOPS: arith.cmpf olt
// LOOPS: arith.select
// LOOPS: loop.store %[[X]], %{{[0-9]+}}[%[[R]],
// LOOPS: arith.index_cast
func.func @sort(%x: tensor<40x3xf32>) -> (tensor<40x3xf32>, tensor<40x3xi64>) {
  %v, %i = graph.sort %x {axis = 0} : (tensor<40x3xf32>) -> (tensor<40x3xf32>, tensor<40x3xi64>)
  return %v, %i : tensor<40x3xf32>, tensor<40x3xi64>
}
func.func @topk(%x: tensor<3x5xf32>) -> (tensor<3x2xf32>, tensor<3x2xi64>) {
  %v, %i = graph.topk %x {k = 2} : (tensor<3x5xf32>) -> (tensor<3x2xf32>, tensor<3x2xi64>)
  return %v, %i : tensor<3x2xf32>, tensor<3x2xi64>
}

// Integers with ties: equal elements keep their order (the indices say so).
// CHECK-LABEL: func.func @sort_ties(
// CHECK: tensor.sort ins(%arg0 : tensor<12xi32>)
func.func @sort_ties(%x: tensor<12xi32>) -> (tensor<12xi32>, tensor<12xi64>) {
  %v, %i = graph.sort %x {descending = true} : (tensor<12xi32>) -> (tensor<12xi32>, tensor<12xi64>)
  return %v, %i : tensor<12xi32>, tensor<12xi64>
}

// Integer bounds as integers (i64's maximum is not a float), and an integer mean
// summed in i64 (the sum of i8s overflows i8), divided, then truncated.
// CHECK-LABEL: func.func @min_i64(
// CHECK: arith.constant dense<9223372036854775807> : tensor<2xi64>
// CHECK-LABEL: func.func @mean_i8(
// CHECK: arith.extsi %{{.*}} : i8 to i64
// CHECK: arith.divsi
// CHECK-NEXT: arith.trunci %{{.*}} : i64 to i8
func.func @min_i64(%x: tensor<2x5xi64>) -> tensor<2xi64> {
  %r = graph.reduce_min %x {axes = array<i64: 1>, keepdims = false} : (tensor<2x5xi64>) -> tensor<2xi64>
  return %r : tensor<2xi64>
}
func.func @mean_i8(%x: tensor<2x16xi8>) -> tensor<2x1xi8> {
  %r = graph.reduce_mean %x {axes = array<i64: 1>} : (tensor<2x16xi8>) -> tensor<2x1xi8>
  return %r : tensor<2x1xi8>
}
