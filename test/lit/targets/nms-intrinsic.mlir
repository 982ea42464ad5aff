// An intrinsic whose result has a dynamic number of rows (a device library's
// non-maximum suppression): the call writes the selected triples into the first rows
// of a buffer of the most it can select (B x C x min(N, max_output_boxes_per_class)
// = 1 x 2 x 2 rows) and their number into a one-element buffer (`count(%y)`), which
// the function reads where it returns them. The semantics region pads the op's
// result to the bound and yields its count; `--check-semantics` runs every step,
// and acc-run gives the rows the library selects (3 of the 4 it has room for).
// RUN: acc-opt --check-semantics --target %S/Inputs/nms-lib.acc --pass partition,graph-to-tensor,bufferize %s -o %t.mlir
// RUN: FileCheck %s --input-file %t.mlir
// RUN: acc-run %t.mlir | FileCheck %s --check-prefix=OUT
// Mistakes: count() of an operand, a dynamic result without count(), refused with
// a remark each; count() of two values and real() where an integer goes, errors
// where the target file says them.
// RUN: acc-opt --target %S/Inputs/bad-count.acc --pass partition --verify-diagnostics %s
// RUN: not acc-opt --target %S/Inputs/bad-count-syntax.acc %s 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK-LABEL: func.func @detect() -> (memref<4x3xi64>, index) attributes {loop.result_sizes = array<i64: 0, 0, 1>}
// CHECK: %[[ROWS:[0-9]+]] = loop.alloc() : memref<4x3xi64>
// CHECK: %[[COUNT:[0-9]+]] = loop.alloc() : memref<1xi32>
// The thresholds as floats, center_point_box as an integer.
// CHECK: %[[IOU:[0-9]+]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[SCORE:[0-9]+]] = arith.constant 1.000000e-01 : f32
// CHECK: hw.intrinsic "nms_f32"(%{{[0-9]+}}, %{{[0-9]+}}, %[[ROWS]], %[[COUNT]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[IOU]], %[[SCORE]], %{{[0-9]+}}) {inputs = array<i64: 0, 1>, outputs = array<i64: 2, 3>}
// CHECK: %[[Y:[0-9]+]] = graph.non_max_suppression
// CHECK: %[[N:[0-9]+]] = tensor.dim {hw.layout} %[[Y]], %{{[0-9]+}} : tensor<?x3xi64>
// CHECK: %[[PADDED:[0-9]+]] = tensor.insert_slice %[[Y]] into %{{[0-9]+}}[0, 0] [%[[N]], 3] [1, 1] {hw.layout} : tensor<?x3xi64> into tensor<4x3xi64>
// CHECK: %[[N32:[0-9]+]] = arith.index_cast %[[N]] : index to i32
// CHECK: %[[C:[0-9]+]] = tensor.insert %[[N32]] into
// CHECK: hw.yield %[[PADDED]], %[[C]] : tensor<4x3xi64>, tensor<1xi32>
// CHECK: %[[LOADED:[0-9]+]] = loop.load %[[COUNT]][%{{[0-9]+}}] : memref<1xi32>
// CHECK: %[[SIZE:[0-9]+]] = arith.index_cast %[[LOADED]] : i32 to index
// CHECK: return %[[ROWS]], %[[SIZE]] : memref<4x3xi64>, index

// Boxes 0 and 1 overlap (IoU 0.81), box 2 stands apart; class 1 scores only box 2
// above the threshold.
// OUT: result 0: memref<?x3xi64> [0, 0, 0, 0, 0, 2, 0, 1, ... (9 elements)]

// BAD: error: 'count' takes one value (%name): a result of dynamic shape
// BAD-NEXT: bad-count-syntax.acc:9:31
// BAD: error: a real number where an integer is computed
// BAD-NEXT: bad-count-syntax.acc:9:50

func.func @detect() -> tensor<?x3xi64> {
  %boxes = graph.constant dense<[[[0.0, 0.0, 1.0, 1.0], [0.0, 0.05, 1.0, 1.05], [2.0, 2.0, 3.0, 3.0]]]> : tensor<1x3x4xf32>
  %scores = graph.constant dense<[[[0.9, 0.8, 0.7], [0.05, 0.02, 0.6]]]> : tensor<1x2x3xf32>
  // expected-remark @+1 {{'graph.non_max_suppression' stays on cpu: 'nms_operand_count' refuses it: count(...) names a value that is not a result of dynamic shape; 'nms_no_count' refuses it: its result has a dynamic shape: the call must pass count(...) of it}}
  %0 = graph.non_max_suppression %boxes, %scores {iou_threshold = 5.000000e-01 : f32, max_output_boxes_per_class = 2 : i64, score_threshold = 1.000000e-01 : f32} : (tensor<1x3x4xf32>, tensor<1x2x3xf32>) -> tensor<?x3xi64>
  return %0 : tensor<?x3xi64>
}
