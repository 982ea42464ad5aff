// non_max_suppression, whose result has a dynamic number of rows: graph-to-tensor
// selects into a static init of as many rows as it can select (B x C x min(N, max))
// and slices the rows it selected; bufferize returns that buffer and the count, and
// says so in loop.result_sizes. Checked against the interpreter by
// --check-semantics on seeded inputs (many tied scores) after every pass.
// RUN: acc-opt --check-semantics --pass graph-to-tensor %s | FileCheck %s
// RUN: acc-opt --check-semantics --pass canonicalize,graph-to-tensor,layout,bufferize,fuse-parallel,unroll,collapse-parallel,vectorize,buffer-deallocation,memory-plan %s | FileCheck %s --check-prefix=LOOPS

// CHECK-LABEL: func.func @nms(
// CHECK: %[[E:.*]] = tensor.empty() : tensor<6x3xi64>
// CHECK-NEXT: %[[S:.*]]:2 = tensor.non_max_suppression ins(%arg0, %arg1 : tensor<1x10x4xf32>, tensor<1x2x10xf32>) outs(%[[E]] : tensor<6x3xi64>) {iou_threshold = 2.500000e-01 : f32, max_output_boxes_per_class = 3 : i64} -> tensor<6x3xi64>, index
// CHECK-NEXT: %[[R:.*]] = tensor.extract_slice %[[S]]#0[0, 0] [%[[S]]#1, 3] [1, 1] : tensor<6x3xi64> to tensor<?x3xi64>
// CHECK-NEXT: return %[[R]] : tensor<?x3xi64>
// The buffer is the bound; the count, an index, is the last result.
// LOOPS-LABEL: func.func @nms(
// LOOPS-SAME: -> (memref<6x3xi64>, index) attributes {loop.arena_size = {{[0-9]+}} : i64, loop.result_sizes = array<i64: 0, 0, 1>}
// LOOPS: %[[OUT:.*]] = loop.alloc() : memref<6x3xi64>
// Scratch: the candidates' keys, their boxes (and a spare slot), their order, and
// the extents of the rows kept (and a spare row).
// LOOPS: %[[KEYS:.*]] = loop.alloc() {offset = {{[0-9]+}} : i64} : memref<10xi64>
// LOOPS: %[[IDS:.*]] = loop.alloc() {offset = {{[0-9]+}} : i64} : memref<11xi64>
// LOOPS: %[[ORDER:.*]] = loop.alloc() {offset = {{[0-9]+}} : i64} : memref<10xi64>
// LOOPS: %[[EXTENTS:.*]] = loop.alloc() {offset = {{[0-9]+}} : i64} : memref<7x4xf64>
// Without a score threshold every box is a candidate.
// LOOPS: %[[CANDIDATES:.*]] = loop.for
// LOOPS: loop.store %{{[0-9]+}}, %[[IDS]][%{{[a-z0-9]+}}] : memref<11xi64>
// Their keys: the scores in f64, ordered as IEEE's total order.
// LOOPS: loop.for %{{[a-z0-9]+}} = %{{[0-9]+}} to %[[CANDIDATES]]
// LOOPS: arith.extf %{{.*}} : f32 to f64
// LOOPS: arith.bitcast %{{.*}} : f64 to i64
// LOOPS: loop.store %{{[0-9]+}}, %[[KEYS]][%{{[a-z0-9]+}}] : memref<10xi64>
// Each one's rank: the ones before it with a key not below, after it with one above.
// LOOPS: arith.cmpi sge
// LOOPS: arith.cmpi sgt
// LOOPS: loop.store %{{[0-9]+}}, %[[ORDER]][%{{[0-9]+}}] : memref<10xi64>
// Then, in rank order, a box is compared with the rows this class kept.
// LOOPS: %{{.*}}:2 = loop.for %{{[a-z0-9]+}} = %{{[0-9]+}} to %[[CANDIDATES]] step %{{[0-9]+}} iter_args(%[[COUNT:[a-z0-9]+]] = %{{[0-9]+}}, %{{[a-z0-9]+}} = %{{[0-9]+}}) -> (index, i64)
// LOOPS: %[[END:.*]] = arith.select %{{[0-9]+}}, %[[COUNT]], %{{[0-9]+}} : index
// LOOPS: loop.for %{{[a-z0-9]+}} = %{{[0-9]+}} to %[[END]] step %{{[0-9]+}} iter_args(%{{[a-z0-9]+}} = %{{[a-z0-9]+}}) -> (i1)
// LOOPS: loop.load %[[EXTENTS]]
// LOOPS: arith.divf %{{.*}}, %{{.*}} : f64
// LOOPS: arith.cmpf ogt
// LOOPS: loop.store %{{[0-9]+}}, %[[EXTENTS]]
// LOOPS: %[[ROW:.*]] = arith.minsi %[[COUNT]], %{{[0-9]+}} : index
// LOOPS: loop.store %{{[0-9]+}}, %[[OUT]][%[[ROW]], %{{[0-9]+}}] : memref<6x3xi64>
// LOOPS: return %[[OUT]], %{{.*}} : memref<6x3xi64>, index
func.func @nms(%b: tensor<1x10x4xf32>, %s: tensor<1x2x10xf32>) -> tensor<?x3xi64> {
  %0 = graph.non_max_suppression %b, %s {max_output_boxes_per_class = 3 : i64, iou_threshold = 0.25 : f32} : (tensor<1x10x4xf32>, tensor<1x2x10xf32>) -> tensor<?x3xi64>
  return %0 : tensor<?x3xi64>
}

// Centered boxes, a score threshold, two batches; more boxes allowed than there
// are: the bound is B x C x N.
// CHECK-LABEL: func.func @center(
// CHECK: tensor.empty() : tensor<24x3xi64>
// LOOPS-LABEL: func.func @center(
// LOOPS-SAME: -> (memref<24x3xi64>, index)
// A box is a candidate when its score is above the threshold; else it goes to the
// spare slot.
// LOOPS: arith.cmpf ogt
// LOOPS: arith.select %{{[0-9]+}}, %{{[a-z0-9]+}}, %{{[0-9]+}} : index
// Centered boxes: the corners are the center minus and plus half the size.
// LOOPS: arith.divf %{{.*}}, %{{.*}} : f64
func.func @center(%b: tensor<2x4x4xf32>, %s: tensor<2x3x4xf32>) -> tensor<?x3xi64> {
  %0 = graph.non_max_suppression %b, %s {max_output_boxes_per_class = 100 : i64, iou_threshold = 0.1 : f32, score_threshold = 0.0 : f32, center_point_box = true} : (tensor<2x4x4xf32>, tensor<2x3x4xf32>) -> tensor<?x3xi64>
  return %0 : tensor<?x3xi64>
}

// Nothing can be selected: no rows, a count of zero, no loops.
// LOOPS-LABEL: func.func @none(
// LOOPS-SAME: -> (memref<0x3xi64>, index)
// LOOPS-NOT: loop.for
// LOOPS: %[[Z:.*]] = arith.constant 0 : index
// LOOPS: return %{{.*}}, %[[Z]] : memref<0x3xi64>, index
func.func @none(%b: tensor<1x5x4xf32>, %s: tensor<1x1x5xf32>) -> tensor<?x3xi64> {
  %0 = graph.non_max_suppression %b, %s : (tensor<1x5x4xf32>, tensor<1x1x5xf32>) -> tensor<?x3xi64>
  return %0 : tensor<?x3xi64>
}

// Other results keep their places; the sizes come after all of them.
// LOOPS-LABEL: func.func @scores_too(
// LOOPS-SAME: -> (memref<1x2x6xf32>, memref<4x3xi64>, index) attributes
// LOOPS-SAME: loop.result_sizes = array<i64: 1, 0, 2>}
func.func @scores_too(%b: tensor<1x6x4xf32>, %l: tensor<1x2x6xf32>) -> (tensor<1x2x6xf32>, tensor<?x3xi64>) {
  %s = graph.sigmoid %l : tensor<1x2x6xf32>
  %0 = graph.non_max_suppression %b, %s {max_output_boxes_per_class = 2 : i64, iou_threshold = 0.5 : f32} : (tensor<1x6x4xf32>, tensor<1x2x6xf32>) -> tensor<?x3xi64>
  return %s, %0 : tensor<1x2x6xf32>, tensor<?x3xi64>
}

// Result attributes stay with their results; the size has none.
// LOOPS-LABEL: func.func @named(
// LOOPS-SAME: -> (memref<4x3xi64> {onnx.name = "selected"}, index)
func.func @named(%b: tensor<1x4x4xf32>, %s: tensor<1x1x4xf32>) -> (tensor<?x3xi64> {onnx.name = "selected"}) {
  %0 = graph.non_max_suppression %b, %s {max_output_boxes_per_class = 4 : i64, iou_threshold = 0.5 : f32} : (tensor<1x4x4xf32>, tensor<1x1x4xf32>) -> tensor<?x3xi64>
  return %0 : tensor<?x3xi64>
}
