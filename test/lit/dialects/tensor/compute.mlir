// acc's structured tensor ops (destination-passing style, explicit layouts) in their
// custom form: printed back identically, and unchanged through the generic form.
// RUN: acc-opt %s | FileCheck %s
// RUN: acc-opt --print-generic %s | acc-opt | FileCheck %s
// RUN: acc-opt --print-generic %s | FileCheck %s --check-prefix=GENERIC
// GENERIC: "tensor.matmul"(%arg0, %arg1, %arg2) : (tensor<4x8xi8>, tensor<8x16xi8>, tensor<4x16xi32>) -> tensor<4x16xi32>
// GENERIC: "tensor.conv2d"(%arg0, %arg1, %arg2) <{dilations = array<i64: 1, 1>, filter_layout = #tensor.layout<"OIHW">, groups = 1 : i64, input_layout = #tensor.layout<"NCHW">, output_layout = #tensor.layout<"NCHW">, strides = array<i64: 2, 2>}>

// CHECK-LABEL: func.func @compute(
func.func @compute(%arg0: tensor<4x8xi8>, %arg1: tensor<8x16xi8>, %arg2: tensor<4x16xi32>, %arg3: tensor<2x4x8xf32>, %arg4: tensor<2x8x5xf32>, %arg5: tensor<2x4x5xf32>) {
  // CHECK-NEXT: %0 = tensor.matmul ins(%arg0, %arg1 : tensor<4x8xi8>, tensor<8x16xi8>) outs(%arg2 : tensor<4x16xi32>) -> tensor<4x16xi32>
  %0 = tensor.matmul ins(%arg0, %arg1 : tensor<4x8xi8>, tensor<8x16xi8>) outs(%arg2 : tensor<4x16xi32>) -> tensor<4x16xi32>
  // CHECK-NEXT: %1 = tensor.batch_matmul ins(%arg3, %arg4 : tensor<2x4x8xf32>, tensor<2x8x5xf32>) outs(%arg5 : tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
  %1 = tensor.batch_matmul ins(%arg3, %arg4 : tensor<2x4x8xf32>, tensor<2x8x5xf32>) outs(%arg5 : tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
  // CHECK-NEXT: return
  return
}

// CHECK-LABEL: func.func @conv(
func.func @conv(%arg0: tensor<1x3x10x10xf32>, %arg1: tensor<8x3x3x3xf32>, %arg2: tensor<1x8x4x4xf32>, %arg3: tensor<1x2x8x8x16xf32>, %arg4: tensor<2x2x3x3x16x16xf32>, %arg5: tensor<1x2x6x6x16xf32>, %arg6: tensor<1x8x8x32xf32>, %arg7: tensor<1x4x4x32xf32>) {
  // CHECK-NEXT: %0 = tensor.conv2d {strides = array<i64: 2, 2>} ins(%arg0, %arg1 : tensor<1x3x10x10xf32>, tensor<8x3x3x3xf32>) outs(%arg2 : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %0 = tensor.conv2d {strides = array<i64: 2, 2>} ins(%arg0, %arg1 : tensor<1x3x10x10xf32>, tensor<8x3x3x3xf32>) outs(%arg2 : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  // CHECK-NEXT: %1 = tensor.conv2d {filter_layout = #tensor.layout<"OIHW16i16o">, input_layout = #tensor.layout<"NCHW16c">, output_layout = #tensor.layout<"NCHW16c">} ins(%arg3, %arg4 : tensor<1x2x8x8x16xf32>, tensor<2x2x3x3x16x16xf32>) outs(%arg5 : tensor<1x2x6x6x16xf32>) -> tensor<1x2x6x6x16xf32>
  %1 = tensor.conv2d {filter_layout = #tensor.layout<"OIHW16i16o">, input_layout = #tensor.layout<"NCHW16c">, output_layout = #tensor.layout<"NCHW16c">} ins(%arg3, %arg4 : tensor<1x2x8x8x16xf32>, tensor<2x2x3x3x16x16xf32>) outs(%arg5 : tensor<1x2x6x6x16xf32>) -> tensor<1x2x6x6x16xf32>
  // CHECK-NEXT: %2 = tensor.pool {kind = #tensor.pool_kind<max>, layout = #tensor.layout<"NHWC">, strides = array<i64: 2, 2>, window = array<i64: 2, 2>} ins(%arg6 : tensor<1x8x8x32xf32>) outs(%arg7 : tensor<1x4x4x32xf32>) -> tensor<1x4x4x32xf32>
  %2 = tensor.pool {kind = #tensor.pool_kind<max>, layout = #tensor.layout<"NHWC">, strides = array<i64: 2, 2>, window = array<i64: 2, 2>} ins(%arg6 : tensor<1x8x8x32xf32>) outs(%arg7 : tensor<1x4x4x32xf32>) -> tensor<1x4x4x32xf32>
  // CHECK-NEXT: %3 = tensor.pool {count_include_pad = true, kind = #tensor.pool_kind<avg>, layout = #tensor.layout<"NHWC">, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, window = array<i64: 3, 3>} ins(%arg6 : tensor<1x8x8x32xf32>) outs(%arg7 : tensor<1x4x4x32xf32>) -> tensor<1x4x4x32xf32>
  %3 = tensor.pool {count_include_pad = true, kind = #tensor.pool_kind<avg>, layout = #tensor.layout<"NHWC">, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, window = array<i64: 3, 3>} ins(%arg6 : tensor<1x8x8x32xf32>) outs(%arg7 : tensor<1x4x4x32xf32>) -> tensor<1x4x4x32xf32>
  // CHECK-NEXT: return
  return
}

// CHECK-LABEL: func.func @generic(
func.func @generic(%arg0: tensor<4x8xf32>, %arg1: tensor<4x8xf32>, %arg2: tensor<4xf32>, %arg3: tensor<8x4xf32>, %arg4: tensor<2x4x8xf32>, %arg5: tensor<4x8x!quant.uniform<i8:f32, 1.000000e-01>>) {
  // CHECK-NEXT: %0 = tensor.map ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<4x8xf32>) outs(%arg0 : tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tensor.map ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<4x8xf32>) outs(%arg0 : tensor<4x8xf32>) -> tensor<4x8xf32> {
  // CHECK-NEXT: ^bb0(%arg6: f32, %arg7: f32):
  ^bb0(%arg6: f32, %arg7: f32):
  // CHECK-NEXT: %5 = arith.addf %arg6, %arg7 : f32
    %5 = arith.addf %arg6, %arg7 : f32
  // CHECK-NEXT: tensor.yield %5 : f32
    tensor.yield %5 : f32
  // CHECK-NEXT: }
  }
  // CHECK-NEXT: %1 = tensor.reduce ins(%arg0 : tensor<4x8xf32>) outs(%arg2 : tensor<4xf32>) dimensions = [1] -> tensor<4xf32> {
  %1 = tensor.reduce ins(%arg0 : tensor<4x8xf32>) outs(%arg2 : tensor<4xf32>) dimensions = [1] -> tensor<4xf32> {
  // CHECK-NEXT: ^bb0(%arg6: f32, %arg7: f32):
  ^bb0(%arg6: f32, %arg7: f32):
  // CHECK-NEXT: %5 = arith.maximumf %arg6, %arg7 : f32
    %5 = arith.maximumf %arg6, %arg7 : f32
  // CHECK-NEXT: tensor.yield %5 : f32
    tensor.yield %5 : f32
  // CHECK-NEXT: }
  }
  // CHECK-NEXT: %2 = tensor.broadcast ins(%arg0 : tensor<4x8xf32>) outs(%arg4 : tensor<2x4x8xf32>) dimensions = [0] -> tensor<2x4x8xf32>
  %2 = tensor.broadcast ins(%arg0 : tensor<4x8xf32>) outs(%arg4 : tensor<2x4x8xf32>) dimensions = [0] -> tensor<2x4x8xf32>
  // CHECK-NEXT: %3 = tensor.transpose ins(%arg0 : tensor<4x8xf32>) outs(%arg3 : tensor<8x4xf32>) permutation = [1, 0] -> tensor<8x4xf32>
  %3 = tensor.transpose ins(%arg0 : tensor<4x8xf32>) outs(%arg3 : tensor<8x4xf32>) permutation = [1, 0] -> tensor<8x4xf32>
  // CHECK-NEXT: %4 = tensor.map ins(%arg5 : tensor<4x8x!quant.uniform<i8:f32, 1.000000e-01>>) outs(%arg0 : tensor<4x8xf32>) -> tensor<4x8xf32> attributes {note = "dequantize"} {
  %4 = tensor.map ins(%arg5 : tensor<4x8x!quant.uniform<i8:f32, 1.000000e-01>>) outs(%arg0 : tensor<4x8xf32>) -> tensor<4x8xf32> attributes {note = "dequantize"} {
  // CHECK-NEXT: ^bb0(%arg6: !quant.uniform<i8:f32, 1.000000e-01>):
  ^bb0(%arg6: !quant.uniform<i8:f32, 1.000000e-01>):
  // CHECK-NEXT: %5 = arith.constant 0.000000e+00 : f32
    %5 = arith.constant 0.000000e+00 : f32
  // CHECK-NEXT: tensor.yield %5 : f32
    tensor.yield %5 : f32
  // CHECK-NEXT: }
  }
  // CHECK-NEXT: return
  return
}

// CHECK-LABEL: func.func @layouts(
func.func @layouts(%arg0: tensor<1x40x8x8xf32>, %arg1: tensor<1x3x8x8x16xf32>, %arg2: f32, %arg3: tensor<32x8xf32>, %arg4: tensor<8x4x8x1xf32>) {
  // CHECK-NEXT: %0 = tensor.pack %arg0 padding_value(%arg2 : f32) inner_dims_pos = [1] inner_tiles = [16] into %arg1 : tensor<1x40x8x8xf32> -> tensor<1x3x8x8x16xf32>
  %0 = tensor.pack %arg0 padding_value(%arg2 : f32) inner_dims_pos = [1] inner_tiles = [16] into %arg1 : tensor<1x40x8x8xf32> -> tensor<1x3x8x8x16xf32>
  // CHECK-NEXT: %1 = tensor.unpack %arg1 inner_dims_pos = [1] inner_tiles = [16] into %arg0 : tensor<1x3x8x8x16xf32> -> tensor<1x40x8x8xf32>
  %1 = tensor.unpack %arg1 inner_dims_pos = [1] inner_tiles = [16] into %arg0 : tensor<1x3x8x8x16xf32> -> tensor<1x40x8x8xf32>
  // CHECK-NEXT: %2 = tensor.pack %arg3 outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [8, 1] into %arg4 : tensor<32x8xf32> -> tensor<8x4x8x1xf32>
  %2 = tensor.pack %arg3 outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [8, 1] into %arg4 : tensor<32x8xf32> -> tensor<8x4x8x1xf32>
  // CHECK-NEXT: return
  return
}
