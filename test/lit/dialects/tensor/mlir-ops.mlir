// The ops acc's tensor dialect shares with MLIR's, in their custom form: printed back
// identically, unchanged through the generic form, which is MLIR's (segment sizes,
// static lists with i64::MIN for dynamic entries); the interop test runs it through mlir-opt.
// RUN: acc-opt %s | FileCheck %s
// RUN: acc-opt --print-generic %s | acc-opt | FileCheck %s
// RUN: acc-opt --print-generic %s | FileCheck %s --check-prefix=GENERIC
// GENERIC: "tensor.extract_slice"(%arg0, %arg1) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: 0, -9223372036854775808, 1>, static_sizes = array<i64: 2, 1, 3>, static_strides = array<i64: 1, 1, 1>}> : (tensor<2x3x4xf32>, index) -> tensor<2x3xf32>
// GENERIC: "tensor.collapse_shape"(%arg0) <{reassociation = {{\[\[}}0, 1], [2]]}> : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// GENERIC: "tensor.dim"(%0, %arg1) : (tensor<4x?xf32>, index) -> index

// CHECK-LABEL: func.func @mlir_ops(
func.func @mlir_ops(%arg0: tensor<2x3x4xf32>, %arg1: index, %arg2: f32) {
  // CHECK-NEXT: %0 = tensor.empty(%arg1) : tensor<4x?xf32>
  %0 = tensor.empty(%arg1) : tensor<4x?xf32>
  // CHECK-NEXT: %1 = tensor.extract_slice %arg0[0, %arg1, 1] [2, 1, 3] [1, 1, 1] : tensor<2x3x4xf32> to tensor<2x3xf32>
  %1 = tensor.extract_slice %arg0[0, %arg1, 1] [2, 1, 3] [1, 1, 1] : tensor<2x3x4xf32> to tensor<2x3xf32>
  // CHECK-NEXT: %2 = tensor.insert_slice %1 into %arg0[0, 0, 0] [2, 1, 3] [1, 1, 1] : tensor<2x3xf32> into tensor<2x3x4xf32>
  %2 = tensor.insert_slice %1 into %arg0[0, 0, 0] [2, 1, 3] [1, 1, 1] : tensor<2x3xf32> into tensor<2x3x4xf32>
  // CHECK-NEXT: %3 = tensor.pad %arg0 low[0, 1, 0] high[0, %arg1, 2] {
  %3 = tensor.pad %arg0 low[0, 1, 0] high[0, %arg1, 2] {
  // CHECK-NEXT: ^bb0(%arg3: index, %arg4: index, %arg5: index):
  ^bb0(%arg3: index, %arg4: index, %arg5: index):
  // CHECK-NEXT: tensor.yield %arg2 : f32
    tensor.yield %arg2 : f32
  // CHECK-NEXT: } : tensor<2x3x4xf32> to tensor<2x?x6xf32>
  } : tensor<2x3x4xf32> to tensor<2x?x6xf32>
  // CHECK-NEXT: %4 = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
  %4 = tensor.collapse_shape %arg0 [[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
  // CHECK-NEXT: %5 = tensor.expand_shape %4 {{\[\[}}0, 1], [2]] output_shape [2, 3, 4] : tensor<6x4xf32> into tensor<2x3x4xf32>
  %5 = tensor.expand_shape %4 [[0, 1], [2]] output_shape [2, 3, 4] : tensor<6x4xf32> into tensor<2x3x4xf32>
  // CHECK-NEXT: %6 = tensor.extract %arg0[%arg1, %arg1, %arg1] : tensor<2x3x4xf32>
  %6 = tensor.extract %arg0[%arg1, %arg1, %arg1] : tensor<2x3x4xf32>
  // CHECK-NEXT: %7 = tensor.insert %arg2 into %arg0[%arg1, %arg1, %arg1] : tensor<2x3x4xf32>
  %7 = tensor.insert %arg2 into %arg0[%arg1, %arg1, %arg1] : tensor<2x3x4xf32>
  // CHECK-NEXT: %8 = tensor.dim %0, %arg1 : tensor<4x?xf32>
  %8 = tensor.dim %0, %arg1 : tensor<4x?xf32>
  // CHECK-NEXT: return
  return
}

// A rank-0 side takes the empty reassociation; the other side's dimensions are all 1.
// CHECK-LABEL: func.func @rank_zero(
func.func @rank_zero(%arg0: tensor<1x1xf32>) {
  // CHECK-NEXT: %0 = tensor.collapse_shape %arg0 [] : tensor<1x1xf32> into tensor<f32>
  %0 = tensor.collapse_shape %arg0 [] : tensor<1x1xf32> into tensor<f32>
  // CHECK-NEXT: %1 = tensor.expand_shape %0 [] output_shape [1] : tensor<f32> into tensor<1xf32>
  %1 = tensor.expand_shape %0 [] output_shape [1] : tensor<f32> into tensor<1xf32>
  // CHECK-NEXT: return
  return
}
