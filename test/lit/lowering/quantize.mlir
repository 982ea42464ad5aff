// quantize folds the dequantize/op/quantize groups of a QDQ model into integer ops,
// and leaves in floats what it cannot fold; --check-semantics runs each function in
// the interpreter before and after.
// RUN: acc-opt --check-semantics --pass quantize %s | FileCheck %s
// With requant=fixed_point the integer ops carry TFLite's arithmetic (within one step
// of the float graph, so the pass approximates); the lowering computes it exactly.
// RUN: acc-opt --check-semantics --pass 'quantize{requant=fixed_point}' %s | FileCheck %s --check-prefix=FIXED
// RUN: acc-opt --check-semantics --pass 'quantize{requant=fixed_point},graph-to-tensor' %s | FileCheck %s --check-prefix=FIXED-TENSOR
// FIXED-LABEL: func.func @conv_bias_relu(
// FIXED: graph.qconv2d {{.*}}requant = #graph.requantization<fixed_point>
// FIXED-LABEL: func.func @gemm_transposed(
// FIXED: graph.qmatmul {{.*}}{requant = #graph.requantization<fixed_point>}
// FIXED-TENSOR-LABEL: func.func @conv_bias_relu(
// FIXED-TENSOR-NOT: graph.qconv2d
// FIXED-TENSOR: arith.shrsi

!qx = !quant.uniform<i8:f32, 5.000000e-02:-3>
!qw = !quant.uniform<i8:f32:0, {1.000000e-02,2.000000e-02,3.000000e-02}>
!qb = !quant.uniform<i32:f32:0, {5.000000e-04,1.000000e-03,1.500000e-03}>
!qy = !quant.uniform<i8:f32, 1.000000e-01:-128>
!qz = !quant.uniform<i8:f32, 1.000000e-01>

// A convolution with an i32 bias of scale s_x * s_w, and a relu the quantize makes
// redundant (its zero point is the least stored value): one qconv2d with the bias's
// integers.
// CHECK-LABEL: func.func @conv_bias_relu(
// CHECK-NOT: graph.conv2d
// CHECK-NOT: graph.relu
// CHECK: %[[B:.*]] = graph.constant dense<[100, -20, 7]> : tensor<3xi32>
// CHECK: %[[W:.*]] = graph.storage_cast %{{.*}} : tensor<3x2x3x3xi8> to tensor<3x2x3x3x!quant.uniform<i8:f32:0, {1.000000e-02,2.000000e-02,3.000000e-02}>>
// CHECK: %[[X:.*]] = graph.quantize %arg0
// CHECK-NEXT: %[[Y:.*]] = graph.qconv2d %[[X]], %[[W]], %[[B]] {pads = array<i64: 1, 1, 1, 1>} : ({{[^)]*}}) -> tensor<1x3x5x5x!quant.uniform<i8:f32, 1.000000e-01:-128>>
// CHECK-NEXT: graph.dequantize %[[Y]]
// CHECK-NEXT: return
func.func @conv_bias_relu(%arg0: tensor<1x2x5x5xf32>) -> tensor<1x3x5x5xf32> {
  %bi = graph.constant dense<[100, -20, 7]> : tensor<3xi32>
  %bq = graph.storage_cast %bi : tensor<3xi32> to tensor<3x!qb>
  %b = graph.dequantize %bq : tensor<3x!qb> to tensor<3xf32>
  %wi = graph.constant dense<[[[[1, -2, 3], [4, 5, -6], [7, 8, 9]], [[-1, 2, 3], [4, -5, 6], [7, 8, -9]]], [[[2, 0, 1], [0, 3, 0], [1, 0, 2]], [[0, 1, 0], [1, -4, 1], [0, 1, 0]]], [[[5, 5, 5], [5, 5, 5], [5, 5, 5]], [[-5, -5, -5], [-5, -5, -5], [-5, -5, -5]]]]> : tensor<3x2x3x3xi8>
  %wq = graph.storage_cast %wi : tensor<3x2x3x3xi8> to tensor<3x2x3x3x!qw>
  %w = graph.dequantize %wq : tensor<3x2x3x3x!qw> to tensor<3x2x3x3xf32>
  %xq = graph.quantize %arg0 : tensor<1x2x5x5xf32> to tensor<1x2x5x5x!qx>
  %x = graph.dequantize %xq : tensor<1x2x5x5x!qx> to tensor<1x2x5x5xf32>
  %c = graph.conv2d %x, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x3x5x5xf32>
  %r = graph.relu %c : tensor<1x3x5x5xf32>
  %yq = graph.quantize %r : tensor<1x3x5x5xf32> to tensor<1x3x5x5x!qy>
  %y = graph.dequantize %yq : tensor<1x3x5x5x!qy> to tensor<1x3x5x5xf32>
  return %y : tensor<1x3x5x5xf32>
}

// With a zero point inside the range the relu matters: it becomes the
// convolution's clamp from the zero point up. A convolution without a bias gets
// zeros.
// CHECK-LABEL: func.func @relu_clamps(
// CHECK-NOT: graph.relu
// CHECK: graph.qconv2d {{.*}} {act_min = 0 : i64}
// CHECK-NOT: graph.relu
// CHECK-LABEL: func.func @no_bias(
// CHECK: %[[ZERO:.*]] = graph.constant dense<0> : tensor<3xi32>
// CHECK: graph.qconv2d %{{[0-9]+}}, %{{[0-9]+}}, %[[ZERO]] :
func.func @relu_clamps(%arg0: tensor<1x2x5x5xf32>) -> tensor<1x3x5x5xf32> {
  %wi = graph.constant dense<1> : tensor<3x2x3x3xi8>
  %wq = graph.storage_cast %wi : tensor<3x2x3x3xi8> to tensor<3x2x3x3x!qw>
  %w = graph.dequantize %wq : tensor<3x2x3x3x!qw> to tensor<3x2x3x3xf32>
  %xq = graph.quantize %arg0 : tensor<1x2x5x5xf32> to tensor<1x2x5x5x!qx>
  %x = graph.dequantize %xq : tensor<1x2x5x5x!qx> to tensor<1x2x5x5xf32>
  %c = graph.conv2d %x, %w : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x3x3xf32>
  %r = graph.relu %c : tensor<1x3x3x3xf32>
  %yq = graph.quantize %r : tensor<1x3x3x3xf32> to tensor<1x3x3x3x!qz>
  %y = graph.dequantize %yq : tensor<1x3x3x3x!qz> to tensor<1x3x3x3xf32>
  %p = graph.pad %y {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : (tensor<1x3x3x3xf32>) -> tensor<1x3x5x5xf32>
  return %p : tensor<1x3x5x5xf32>
}
func.func @no_bias(%arg0: tensor<1x2x5x5xf32>) -> tensor<1x3x3x3xf32> {
  %wi = graph.constant dense<1> : tensor<3x2x3x3xi8>
  %wq = graph.storage_cast %wi : tensor<3x2x3x3xi8> to tensor<3x2x3x3x!qw>
  %w = graph.dequantize %wq : tensor<3x2x3x3x!qw> to tensor<3x2x3x3xf32>
  %xq = graph.quantize %arg0 : tensor<1x2x5x5xf32> to tensor<1x2x5x5x!qx>
  %x = graph.dequantize %xq : tensor<1x2x5x5x!qx> to tensor<1x2x5x5xf32>
  %c = graph.conv2d %x, %w : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x3x3xf32>
  %yq = graph.quantize %c : tensor<1x3x3x3xf32> to tensor<1x3x3x3x!qz>
  %y = graph.dequantize %yq : tensor<1x3x3x3x!qz> to tensor<1x3x3x3xf32>
  return %y : tensor<1x3x3x3xf32>
}

// Gemm with a transposed weight: the constant is transposed at compile time (its
// per-row scales become per-column), and the float bias is quantized to
// s_x * s_w[c] = 0.125, 0.25, 0.5.
// CHECK-LABEL: func.func @gemm_transposed(
// CHECK-NOT: graph.gemm
// CHECK-DAG: %[[WT:.*]] = graph.constant dense<{{\[}}[1, 5, 9], [2, 6, 10], [3, 7, 11], [4, 8, 12]]> : tensor<4x3xi8>
// CHECK-DAG: %[[WQ:.*]] = graph.storage_cast %[[WT]] : tensor<4x3xi8> to tensor<4x3x!quant.uniform<i8:f32:1, {2.500000e-01,5.000000e-01,1.000000e+00}>>
// CHECK-DAG: %[[BI:.*]] = graph.constant dense<[8, -2, 4]> : tensor<3xi32>
// CHECK: graph.qmatmul %{{[0-9]+}}, %[[WQ]], %[[BI]] : ({{[^)]*}}) -> tensor<1x3x!quant.uniform<i8:f32, 1.000000e-01>>
// CHECK-NEXT: graph.dequantize
// CHECK-NEXT: return
func.func @gemm_transposed(%arg0: tensor<1x4xf32>) -> tensor<1x3xf32> {
  %b = graph.constant dense<[1.0, -0.5, 2.2]> : tensor<3xf32>
  %wi = graph.constant dense<[[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]> : tensor<3x4xi8>
  %wq = graph.storage_cast %wi : tensor<3x4xi8> to tensor<3x4x!quant.uniform<i8:f32:0, {0.25,0.5,1.0}>>
  %w = graph.dequantize %wq : tensor<3x4x!quant.uniform<i8:f32:0, {0.25,0.5,1.0}>> to tensor<3x4xf32>
  %xq = graph.quantize %arg0 : tensor<1x4xf32> to tensor<1x4x!quant.uniform<i8:f32, 0.5>>
  %x = graph.dequantize %xq : tensor<1x4x!quant.uniform<i8:f32, 0.5>> to tensor<1x4xf32>
  %g = graph.gemm %x, %w, %b {transB = true} : (tensor<1x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<1x3xf32>
  %yq = graph.quantize %g : tensor<1x3xf32> to tensor<1x3x!qz>
  %y = graph.dequantize %yq : tensor<1x3x!qz> to tensor<1x3xf32>
  return %y : tensor<1x3xf32>
}

// Max pooling and flattening between tensors quantized alike run on the stored
// integers; an elementwise function becomes a table of its 256 results; an add of
// two dequantized tensors becomes a qadd.
// CHECK-LABEL: func.func @storage_and_tables(
// CHECK: %[[XQ:.*]] = graph.quantize %arg0
// CHECK-NEXT: %[[I:.*]] = graph.storage_cast %[[XQ]] : tensor<1x1x4x4x!quant.uniform<i8:f32, 5.000000e-02:-3>> to tensor<1x1x4x4xi8>
// CHECK-NEXT: %[[P:.*]] = graph.max_pool %[[I]] {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xi8>) -> tensor<1x1x2x2xi8>
// CHECK-NEXT: %[[PQ:.*]] = graph.storage_cast %[[P]] : tensor<1x1x2x2xi8> to tensor<1x1x2x2x!quant.uniform<i8:f32, 5.000000e-02:-3>>
// CHECK: %[[T:.*]] = graph.constant dense<"0x80808080{{[0-9A-F]*}}7F7F7F7F"> : tensor<256xi8>
// CHECK-NEXT: graph.lookup %[[PQ]], %[[T]] : (tensor<1x1x2x2x!quant.uniform<i8:f32, 5.000000e-02:-3>>, tensor<256xi8>) -> tensor<1x1x2x2x!quant.uniform<i8:f32, 7.812500e-03>>
// CHECK-NOT: graph.tanh
// CHECK: graph.qadd
func.func @storage_and_tables(%arg0: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  %xq = graph.quantize %arg0 : tensor<1x1x4x4xf32> to tensor<1x1x4x4x!qx>
  %x = graph.dequantize %xq : tensor<1x1x4x4x!qx> to tensor<1x1x4x4xf32>
  %p = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  %pq = graph.quantize %p : tensor<1x1x2x2xf32> to tensor<1x1x2x2x!qx>
  %pd = graph.dequantize %pq : tensor<1x1x2x2x!qx> to tensor<1x1x2x2xf32>
  %t = graph.tanh %pd : tensor<1x1x2x2xf32>
  %tq = graph.quantize %t : tensor<1x1x2x2xf32> to tensor<1x1x2x2x!quant.uniform<i8:f32, 0.0078125>>
  %td = graph.dequantize %tq : tensor<1x1x2x2x!quant.uniform<i8:f32, 0.0078125>> to tensor<1x1x2x2xf32>
  %s = graph.add %td, %pd : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %sq = graph.quantize %s : tensor<1x1x2x2xf32> to tensor<1x1x2x2x!qz>
  %sd = graph.dequantize %sq : tensor<1x1x2x2x!qz> to tensor<1x1x2x2xf32>
  return %sd : tensor<1x1x2x2xf32>
}

// A matrix product of dequantized operands, the right-hand side per column.
// CHECK-LABEL: func.func @matmul(
// CHECK-NOT: graph.matmul
// CHECK: graph.qmatmul %{{[0-9]+}}, %arg1 : (tensor<2x3x!quant.uniform<i8:f32, 5.000000e-02>>, tensor<3x2x!quant.uniform<i8:f32:1, {1.000000e-01,2.000000e-01}>>) -> tensor<2x2x!quant.uniform<i8:f32, 1.000000e-01>>
func.func @matmul(%arg0: tensor<2x3xf32>, %w: tensor<3x2x!quant.uniform<i8:f32:1, {0.1,0.2}>>) -> tensor<2x2xf32> {
  %aq = graph.quantize %arg0 : tensor<2x3xf32> to tensor<2x3x!quant.uniform<i8:f32, 0.05>>
  %a = graph.dequantize %aq : tensor<2x3x!quant.uniform<i8:f32, 0.05>> to tensor<2x3xf32>
  %b = graph.dequantize %w : tensor<3x2x!quant.uniform<i8:f32:1, {0.1,0.2}>> to tensor<3x2xf32>
  %m = graph.matmul %a, %b : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %yq = graph.quantize %m : tensor<2x2xf32> to tensor<2x2x!qz>
  %y = graph.dequantize %yq : tensor<2x2x!qz> to tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// Left in floats: a maximum of unsigned storage (the stored integers compare as
// signed), and a right-hand side vector quantized along the dimension the product
// sums over.
// CHECK-LABEL: func.func @not_folded(
// CHECK: graph.max_pool %{{[0-9]+}} {{.*}}(tensor<1x1x4x4xf32>)
// CHECK: graph.matmul
// CHECK-NOT: graph.qmatmul
func.func @not_folded(%arg0: tensor<1x1x4x4xf32>, %arg1: tensor<2x3xf32>, %v: tensor<3x!quant.uniform<i8:f32:0, {0.1,0.2,0.3}>>) -> (tensor<1x1x2x2xf32>, tensor<2xf32>) {
  %xq = graph.quantize %arg0 : tensor<1x1x4x4xf32> to tensor<1x1x4x4x!quant.uniform<u8:f32, 0.05:100>>
  %x = graph.dequantize %xq : tensor<1x1x4x4x!quant.uniform<u8:f32, 0.05:100>> to tensor<1x1x4x4xf32>
  %p = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  %pq = graph.quantize %p : tensor<1x1x2x2xf32> to tensor<1x1x2x2x!quant.uniform<u8:f32, 0.05:100>>
  %pd = graph.dequantize %pq : tensor<1x1x2x2x!quant.uniform<u8:f32, 0.05:100>> to tensor<1x1x2x2xf32>
  %aq = graph.quantize %arg1 : tensor<2x3xf32> to tensor<2x3x!quant.uniform<i8:f32, 0.05>>
  %a = graph.dequantize %aq : tensor<2x3x!quant.uniform<i8:f32, 0.05>> to tensor<2x3xf32>
  %b = graph.dequantize %v : tensor<3x!quant.uniform<i8:f32:0, {0.1,0.2,0.3}>> to tensor<3xf32>
  %m = graph.matmul %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
  %mq = graph.quantize %m : tensor<2xf32> to tensor<2x!qz>
  %md = graph.dequantize %mq : tensor<2x!qz> to tensor<2xf32>
  return %pd, %md : tensor<1x1x2x2xf32>, tensor<2xf32>
}
