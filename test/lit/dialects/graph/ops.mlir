// Every graph op in its custom form, with inferred result types: printed back
// identically, and unchanged through the generic form.
// RUN: acc-opt %s | FileCheck %s
// RUN: acc-opt --print-generic %s | acc-opt | FileCheck %s
// RUN: acc-opt --print-generic %s | FileCheck %s --check-prefix=GENERIC
// Defaults are materialized as properties in generic form, elided in custom form.
// GENERIC: "graph.gelu"(%arg0) <{approximate = #graph.gelu_approximation<none>}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC: "graph.conv2d"(%arg0, %arg1) <{dilations = array<i64: 2, 2>, groups = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}>

// CHECK-LABEL: func.func @elementwise(
func.func @elementwise(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>, %arg2: tensor<4xi8>) {
  // CHECK-NEXT: %0 = graph.add %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %0 = graph.add %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %1 = graph.sub %arg1, %arg0 : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = graph.sub %arg1, %arg0 : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %2 = graph.mul %arg0, %arg0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = graph.mul %arg0, %arg0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %3 = graph.div %arg2, %arg2 : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  %3 = graph.div %arg2, %arg2 : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  // CHECK-NEXT: %4 = graph.pow %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %4 = graph.pow %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %5 = graph.max %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %5 = graph.max %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %6 = graph.min %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %6 = graph.min %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %7 = graph.relu %arg2 : tensor<4xi8>
  %7 = graph.relu %arg2 : tensor<4xi8>
  // CHECK-NEXT: %8 = graph.sigmoid %arg0 : tensor<2x3xf32>
  %8 = graph.sigmoid %arg0 : tensor<2x3xf32>
  // CHECK-NEXT: %9 = graph.tanh %arg0 : tensor<2x3xf32>
  %9 = graph.tanh %arg0 : tensor<2x3xf32>
  // CHECK-NEXT: %10 = graph.erf %arg0 : tensor<2x3xf32>
  %10 = graph.erf %arg0 : tensor<2x3xf32>
  // CHECK-NEXT: %11 = graph.exp %arg0 : tensor<2x3xf32>
  %11 = graph.exp %arg0 : tensor<2x3xf32>
  // CHECK-NEXT: %12 = graph.log %arg0 : tensor<2x3xf32>
  %12 = graph.log %arg0 : tensor<2x3xf32>
  // CHECK-NEXT: %13 = graph.sqrt %arg0 : tensor<2x3xf32>
  %13 = graph.sqrt %arg0 : tensor<2x3xf32>
  // CHECK-NEXT: %14 = graph.neg %arg2 : tensor<4xi8>
  %14 = graph.neg %arg2 : tensor<4xi8>
  // CHECK-NEXT: %15 = graph.abs %arg0 : tensor<2x3xf32>
  %15 = graph.abs %arg0 : tensor<2x3xf32>
  // CHECK-NEXT: %16 = graph.gelu %arg0 : tensor<2x3xf32>
  %16 = graph.gelu %arg0 : tensor<2x3xf32>
  // CHECK-NEXT: %17 = graph.gelu %arg0 {approximate = #graph.gelu_approximation<tanh>} : tensor<2x3xf32>
  %17 = graph.gelu %arg0 {approximate = #graph.gelu_approximation<tanh>} : tensor<2x3xf32>
  // CHECK-NEXT: %18 = graph.clip %arg0 {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32} : tensor<2x3xf32>
  %18 = graph.clip %arg0 {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32} : tensor<2x3xf32>
  // CHECK-NEXT: %19 = graph.cast %arg0 : tensor<2x3xf32> to tensor<2x3xi32>
  %19 = graph.cast %arg0 : tensor<2x3xf32> to tensor<2x3xi32>
  // CHECK-NEXT: %{{.*}} = graph.cast %arg0 {wrap = true} : tensor<2x3xf32> to tensor<2x3xi4>
  %c4 = graph.cast %arg0 {wrap = true} : tensor<2x3xf32> to tensor<2x3xi4>
  // CHECK-NEXT: return
  return
}

// CHECK-LABEL: func.func @products(
func.func @products(%arg0: tensor<1x8x16x16xf16>, %arg1: tensor<4x8x3x3xf16>, %arg2: tensor<5x2x3xf32>, %arg3: tensor<3x7xf32>, %arg4: tensor<3xf32>) {
  // CHECK-NEXT: %0 = graph.conv2d %arg0, %arg1 {dilations = array<i64: 2, 2>} : (tensor<1x8x16x16xf16>, tensor<4x8x3x3xf16>) -> tensor<1x4x12x12xf16>
  %0 = graph.conv2d %arg0, %arg1 {dilations = array<i64: 2, 2>} : (tensor<1x8x16x16xf16>, tensor<4x8x3x3xf16>) -> tensor<1x4x12x12xf16>
  // CHECK-NEXT: %1 = graph.matmul %arg2, %arg3 : (tensor<5x2x3xf32>, tensor<3x7xf32>) -> tensor<5x2x7xf32>
  %1 = graph.matmul %arg2, %arg3 : (tensor<5x2x3xf32>, tensor<3x7xf32>) -> tensor<5x2x7xf32>
  // CHECK-NEXT: %2 = graph.matmul %arg4, %arg3 : (tensor<3xf32>, tensor<3x7xf32>) -> tensor<7xf32>
  %2 = graph.matmul %arg4, %arg3 : (tensor<3xf32>, tensor<3x7xf32>) -> tensor<7xf32>
  // CHECK-NEXT: %3 = graph.gemm %arg3, %arg3 {alpha = 2.000000e+00 : f32, transA = true} : (tensor<3x7xf32>, tensor<3x7xf32>) -> tensor<7x7xf32>
  %3 = graph.gemm %arg3, %arg3 {alpha = 2.000000e+00 : f32, transA = true} : (tensor<3x7xf32>, tensor<3x7xf32>) -> tensor<7x7xf32>
  // CHECK-NEXT: return
  return
}

// CHECK-LABEL: func.func @normalization(
func.func @normalization(%arg0: tensor<2x4x5x5xf32>, %arg1: tensor<4xf32>, %arg2: tensor<2x10x8xf32>, %arg3: tensor<8xf32>) {
  // CHECK-NEXT: %0 = graph.batch_norm %arg0, %arg1, %arg1, %arg1, %arg1 : (tensor<2x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x5x5xf32>
  %0 = graph.batch_norm %arg0, %arg1, %arg1, %arg1, %arg1 : (tensor<2x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x5x5xf32>
  // CHECK-NEXT: %1 = graph.layer_norm %arg2, %arg3, %arg3 {epsilon = 1.000000e-06 : f32} : (tensor<2x10x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x10x8xf32>
  %1 = graph.layer_norm %arg2, %arg3, %arg3 {epsilon = 1.000000e-06 : f32} : (tensor<2x10x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x10x8xf32>
  // CHECK-NEXT: %2 = graph.layer_norm %arg2, %arg3 : (tensor<2x10x8xf32>, tensor<8xf32>) -> tensor<2x10x8xf32>
  %2 = graph.layer_norm %arg2, %arg3 : (tensor<2x10x8xf32>, tensor<8xf32>) -> tensor<2x10x8xf32>
  // CHECK-NEXT: %3 = graph.softmax %arg2 : tensor<2x10x8xf32>
  %3 = graph.softmax %arg2 : tensor<2x10x8xf32>
  // CHECK-NEXT: return
  return
}

// CHECK-LABEL: func.func @pooling(
func.func @pooling(%arg0: tensor<1x3x7x7xf32>) {
  // CHECK-NEXT: %0 = graph.max_pool %arg0 {ceil_mode = true, kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x3x7x7xf32>) -> tensor<1x3x3x3xf32>
  %0 = graph.max_pool %arg0 {ceil_mode = true, kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x3x7x7xf32>) -> tensor<1x3x3x3xf32>
  // CHECK-NEXT: %1 = graph.avg_pool %arg0 {count_include_pad = true, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x7x7xf32>) -> tensor<1x3x7x7xf32>
  %1 = graph.avg_pool %arg0 {count_include_pad = true, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x7x7xf32>) -> tensor<1x3x7x7xf32>
  // CHECK-NEXT: %2 = graph.global_avg_pool %arg0 : (tensor<1x3x7x7xf32>) -> tensor<1x3x1x1xf32>
  %2 = graph.global_avg_pool %arg0 : (tensor<1x3x7x7xf32>) -> tensor<1x3x1x1xf32>
  // CHECK-NEXT: %3 = graph.global_max_pool %arg0 : (tensor<1x3x7x7xf32>) -> tensor<1x3x1x1xf32>
  %3 = graph.global_max_pool %arg0 : (tensor<1x3x7x7xf32>) -> tensor<1x3x1x1xf32>
  // CHECK-NEXT: return
  return
}

// CHECK-LABEL: func.func @shapes(
func.func @shapes(%arg0: tensor<2x3x4xf32>, %arg1: tensor<2x5x4xf32>) {
  // CHECK-NEXT: %0 = graph.reshape %arg0 {shape = array<i64: 0, -1>} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  %0 = graph.reshape %arg0 {shape = array<i64: 0, -1>} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  // CHECK-NEXT: %1 = graph.transpose %arg0 {perm = array<i64: 0, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  %1 = graph.transpose %arg0 {perm = array<i64: 0, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  // CHECK-NEXT: %2 = graph.transpose %arg0 : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  %2 = graph.transpose %arg0 : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  // CHECK-NEXT: %3 = graph.concat %arg0, %arg1, %arg0 {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x5x4xf32>, tensor<2x3x4xf32>) -> tensor<2x11x4xf32>
  %3 = graph.concat %arg0, %arg1, %arg0 {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x5x4xf32>, tensor<2x3x4xf32>) -> tensor<2x11x4xf32>
  // CHECK-NEXT: %4 = graph.slice %arg0 {axes = array<i64: 0, 2>, ends = array<i64: 2, -100>, starts = array<i64: 0, -1>, steps = array<i64: 1, -2>} : (tensor<2x3x4xf32>) -> tensor<2x3x2xf32>
  %4 = graph.slice %arg0 {axes = array<i64: 0, 2>, ends = array<i64: 2, -100>, starts = array<i64: 0, -1>, steps = array<i64: 1, -2>} : (tensor<2x3x4xf32>) -> tensor<2x3x2xf32>
  // CHECK-NEXT: %5 = graph.flatten %arg0 {axis = 2 : i64} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %5 = graph.flatten %arg0 {axis = 2 : i64} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  // CHECK-NEXT: %6 = graph.pad %arg0 {pads = array<i64: 0, 1, 2, 0, 1, -1>} : (tensor<2x3x4xf32>) -> tensor<2x5x5xf32>
  %6 = graph.pad %arg0 {pads = array<i64: 0, 1, 2, 0, 1, -1>} : (tensor<2x3x4xf32>) -> tensor<2x5x5xf32>
  // CHECK-NEXT: %7 = graph.pad %arg0 {mode = #graph.pad_mode<reflect>, pads = array<i64: 0, 0, 1, 0, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<2x3x6xf32>
  %7 = graph.pad %arg0 {mode = #graph.pad_mode<reflect>, pads = array<i64: 0, 0, 1, 0, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<2x3x6xf32>
  // CHECK-NEXT: %8 = graph.unsqueeze %arg0 {axes = array<i64: 0, -1>} : (tensor<2x3x4xf32>) -> tensor<1x2x3x4x1xf32>
  %8 = graph.unsqueeze %arg0 {axes = array<i64: 0, -1>} : (tensor<2x3x4xf32>) -> tensor<1x2x3x4x1xf32>
  // CHECK-NEXT: %9 = graph.squeeze %8 : (tensor<1x2x3x4x1xf32>) -> tensor<2x3x4xf32>
  %9 = graph.squeeze %8 : (tensor<1x2x3x4x1xf32>) -> tensor<2x3x4xf32>
  // CHECK-NEXT: %10 = graph.squeeze %8 {axes = array<i64: 4>} : (tensor<1x2x3x4x1xf32>) -> tensor<1x2x3x4xf32>
  %10 = graph.squeeze %8 {axes = array<i64: 4>} : (tensor<1x2x3x4x1xf32>) -> tensor<1x2x3x4xf32>
  // CHECK-NEXT: return
  return
}

// CHECK-LABEL: func.func @reductions(
func.func @reductions(%arg0: tensor<2x3x4xf32>) {
  // CHECK-NEXT: %0 = graph.reduce_sum %arg0 {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %0 = graph.reduce_sum %arg0 {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  // CHECK-NEXT: %1 = graph.reduce_mean %arg0 {axes = array<i64: -1>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  %1 = graph.reduce_mean %arg0 {axes = array<i64: -1>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %2 = graph.reduce_max %arg0 : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
  %2 = graph.reduce_max %arg0 : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
  // CHECK-NEXT: %3 = graph.reduce_min %arg0 {keepdims = false} : (tensor<2x3x4xf32>) -> tensor<f32>
  %3 = graph.reduce_min %arg0 {keepdims = false} : (tensor<2x3x4xf32>) -> tensor<f32>
  // CHECK-NEXT: %4 = graph.reduce_prod %arg0 {axes = array<i64: 0, 2>} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  %4 = graph.reduce_prod %arg0 {axes = array<i64: 0, 2>} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  // CHECK-NEXT: return
  return
}

// CHECK-LABEL: func.func @quantized(
func.func @quantized(%arg0: tensor<1x3x8x8xf32>, %arg1: tensor<1x3x8x8x!quant.uniform<i8:f32, 5.000000e-02:-3>>, %arg2: tensor<4x3x3x3x!quant.uniform<i4:f32:0, {1.000000e-01,2.000000e-01,3.000000e-01,4.000000e-01}>>, %arg3: tensor<4xi32>, %arg4: tensor<2x3x!quant.uniform<i2:f32, 5.000000e-01>>, %arg5: tensor<3x3x!quant.uniform<i2:f32, 5.000000e-01>>, %arg6: tensor<3xi32>, %arg7: tensor<4xi8>) {
  // CHECK-NEXT: %0 = graph.quantize %arg0 : tensor<1x3x8x8xf32> to tensor<1x3x8x8x!quant.uniform<i8:f32, 5.000000e-02:-3>>
  %0 = graph.quantize %arg0 : tensor<1x3x8x8xf32> to tensor<1x3x8x8x!quant.uniform<i8:f32, 5.000000e-02:-3>>
  // CHECK-NEXT: %1 = graph.dequantize %arg1 : tensor<1x3x8x8x!quant.uniform<i8:f32, 5.000000e-02:-3>> to tensor<1x3x8x8xf32>
  %1 = graph.dequantize %arg1 : tensor<1x3x8x8x!quant.uniform<i8:f32, 5.000000e-02:-3>> to tensor<1x3x8x8xf32>
  // CHECK-NEXT: %2 = graph.qconv2d %arg1, %arg2, %arg3 : (tensor<1x3x8x8x!quant.uniform<i8:f32, 5.000000e-02:-3>>, tensor<4x3x3x3x!quant.uniform<i4:f32:0, {1.000000e-01,2.000000e-01,3.000000e-01,4.000000e-01}>>, tensor<4xi32>) -> tensor<1x4x6x6x!quant.uniform<i8:f32, 1.000000e-01>>
  %2 = graph.qconv2d %arg1, %arg2, %arg3 : (tensor<1x3x8x8x!quant.uniform<i8:f32, 5.000000e-02:-3>>, tensor<4x3x3x3x!quant.uniform<i4:f32:0, {1.000000e-01,2.000000e-01,3.000000e-01,4.000000e-01}>>, tensor<4xi32>) -> tensor<1x4x6x6x!quant.uniform<i8:f32, 1.000000e-01>>
  // CHECK-NEXT: %3 = graph.qmatmul %arg4, %arg5 : (tensor<2x3x!quant.uniform<i2:f32, 5.000000e-01>>, tensor<3x3x!quant.uniform<i2:f32, 5.000000e-01>>) -> tensor<2x3x!quant.uniform<i8:f32, 2.500000e-01>>
  %3 = graph.qmatmul %arg4, %arg5 : (tensor<2x3x!quant.uniform<i2:f32, 5.000000e-01>>, tensor<3x3x!quant.uniform<i2:f32, 5.000000e-01>>) -> tensor<2x3x!quant.uniform<i8:f32, 2.500000e-01>>
  // CHECK-NEXT: %4 = graph.storage_cast %2 : tensor<1x4x6x6x!quant.uniform<i8:f32, 1.000000e-01>> to tensor<1x4x6x6xi8>
  %4 = graph.storage_cast %2 : tensor<1x4x6x6x!quant.uniform<i8:f32, 1.000000e-01>> to tensor<1x4x6x6xi8>
  // CHECK-NEXT: %5 = graph.storage_cast %4 : tensor<1x4x6x6xi8> to tensor<1x4x6x6x!quant.uniform<i8:f32, 1.000000e-01>>
  %5 = graph.storage_cast %4 : tensor<1x4x6x6xi8> to tensor<1x4x6x6x!quant.uniform<i8:f32, 1.000000e-01>>
  // CHECK-NEXT: %6 = graph.qmatmul %arg4, %arg5, %arg6 : (tensor<2x3x!quant.uniform<i2:f32, 5.000000e-01>>, tensor<3x3x!quant.uniform<i2:f32, 5.000000e-01>>, tensor<3xi32>) -> tensor<2x3x!quant.uniform<i8:f32, 2.500000e-01>>
  %6 = graph.qmatmul %arg4, %arg5, %arg6 : (tensor<2x3x!quant.uniform<i2:f32, 5.000000e-01>>, tensor<3x3x!quant.uniform<i2:f32, 5.000000e-01>>, tensor<3xi32>) -> tensor<2x3x!quant.uniform<i8:f32, 2.500000e-01>>
  // CHECK-NEXT: %7 = graph.lookup %arg4, %arg7 : (tensor<2x3x!quant.uniform<i2:f32, 5.000000e-01>>, tensor<4xi8>) -> tensor<2x3x!quant.uniform<i8:f32, 2.500000e-01>>
  %7 = graph.lookup %arg4, %arg7 : (tensor<2x3x!quant.uniform<i2:f32, 5.000000e-01>>, tensor<4xi8>) -> tensor<2x3x!quant.uniform<i8:f32, 2.500000e-01>>
  // CHECK-NEXT: return
  return
}

// CHECK-LABEL: func.func @detection(
func.func @detection(%arg0: tensor<1x3x4x4xf32>, %arg1: tensor<1x10x4xf32>, %arg2: tensor<1x2x10xf32>, %arg3: tensor<6xf32>) {
  // CHECK-NEXT: %0 = graph.resize %arg0 {scales = array<f32: 1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
  %0 = graph.resize %arg0 {scales = array<f32: 1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
  // CHECK-NEXT: %1 = graph.resize %arg0 {coordinate_transformation_mode = #graph.coordinate_mode<align_corners>, mode = #graph.resize_mode<linear>, sizes = array<i64: 1, 3, 6, 6>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x6x6xf32>
  %1 = graph.resize %arg0 {coordinate_transformation_mode = #graph.coordinate_mode<align_corners>, mode = #graph.resize_mode<linear>, sizes = array<i64: 1, 3, 6, 6>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x6x6xf32>
  // CHECK-NEXT: %2:2 = graph.topk %arg3 {k = 3 : i64} : (tensor<6xf32>) -> (tensor<3xf32>, tensor<3xi64>)
  %2:2 = graph.topk %arg3 {k = 3 : i64} : (tensor<6xf32>) -> (tensor<3xf32>, tensor<3xi64>)
  // CHECK-NEXT: %3:2 = graph.sort %arg3 {descending = true} : (tensor<6xf32>) -> (tensor<6xf32>, tensor<6xi64>)
  %3:2 = graph.sort %arg3 {descending = true} : (tensor<6xf32>) -> (tensor<6xf32>, tensor<6xi64>)
  // CHECK-NEXT: %4 = graph.non_max_suppression %arg1, %arg2 {iou_threshold = 5.000000e-01 : f32, max_output_boxes_per_class = 3 : i64} : (tensor<1x10x4xf32>, tensor<1x2x10xf32>) -> tensor<?x3xi64>
  %4 = graph.non_max_suppression %arg1, %arg2 {iou_threshold = 5.000000e-01 : f32, max_output_boxes_per_class = 3 : i64} : (tensor<1x10x4xf32>, tensor<1x2x10xf32>) -> tensor<?x3xi64>
  // CHECK-NEXT: %{{.*}} = graph.resize %arg0 {antialias = true, coordinate_transformation_mode = #graph.coordinate_mode<tf_crop_and_resize>, cubic_coeff_a = -5.000000e-01 : f32, exclude_outside = true, extrapolation_value = 1.000000e+01 : f32, mode = #graph.resize_mode<cubic>, roi = array<f32: 0.000000e+00, 0.000000e+00, 2.500000e-01, 2.500000e-01, 1.000000e+00, 1.000000e+00, 7.500000e-01, 7.500000e-01>, scales = array<f32: 1.000000e+00, 1.000000e+00, 7.500000e-01, 7.500000e-01>, sizes = array<i64: 1, 3, 3, 3>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x3x3xf32>
  %r = graph.resize %arg0 {antialias = true, coordinate_transformation_mode = #graph.coordinate_mode<tf_crop_and_resize>, cubic_coeff_a = -5.000000e-01 : f32, exclude_outside = true, extrapolation_value = 1.000000e+01 : f32, mode = #graph.resize_mode<cubic>, roi = array<f32: 0.000000e+00, 0.000000e+00, 2.500000e-01, 2.500000e-01, 1.000000e+00, 1.000000e+00, 7.500000e-01, 7.500000e-01>, scales = array<f32: 1.000000e+00, 1.000000e+00, 7.500000e-01, 7.500000e-01>, sizes = array<i64: 1, 3, 3, 3>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x3x3xf32>
  // CHECK-NEXT: return
  return
}
