// bufferize{gemm=NAME}: f32 matrix products and batch-1 ungrouped convolutions become
// calls to the host's GEMM (C += A x B, row-major), checked against the interpreter,
// which runs acc_sgemm's semantics.
// RUN: acc-opt --check-semantics --pass 'bufferize{gemm=acc_sgemm}' %s | FileCheck %s

// CHECK-LABEL: func.func @dense(
// CHECK: %[[C:.*]] = loop.alloc() : memref<4x5xf32>
// CHECK-NEXT: loop.copy
// CHECK-NEXT: %[[M:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[N:.*]] = arith.constant 5 : index
// CHECK-NEXT: %[[K:.*]] = arith.constant 8 : index
// CHECK-NEXT: hw.intrinsic "acc_sgemm"(%arg0, %arg1, %[[C]], %[[M]], %[[N]], %[[K]]) : (memref<4x8xf32>, memref<8x5xf32>, memref<4x5xf32>, index, index, index) -> ()
func.func @dense(%x: tensor<4x8xf32>, %w: tensor<8x5xf32>) -> tensor<4x5xf32> {
  %z = arith.constant dense<0.5> : tensor<4x5xf32>
  %y = tensor.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x5xf32>) outs(%z : tensor<4x5xf32>) -> tensor<4x5xf32>
  return %y : tensor<4x5xf32>
}

// A 1x1 convolution multiplies the filter by the input itself; a 3x3 one by the
// patches gathered into a buffer of C x kh x kw x OH x OW.
// CHECK-LABEL: func.func @pointwise(
// CHECK-DAG: %[[F:.*]] = loop.reshape %arg1 : memref<4x3x1x1xf32> to memref<4x3xf32>
// CHECK-DAG: %[[X:.*]] = loop.reshape %arg0 : memref<1x3x5x5xf32> to memref<3x25xf32>
// CHECK: hw.intrinsic "acc_sgemm"(%[[F]], %[[X]],
func.func @pointwise(%x: tensor<1x3x5x5xf32>, %w: tensor<4x3x1x1xf32>) -> tensor<1x4x5x5xf32> {
  %z = arith.constant dense<0.0> : tensor<1x4x5x5xf32>
  %y = tensor.conv2d ins(%x, %w : tensor<1x3x5x5xf32>, tensor<4x3x1x1xf32>) outs(%z : tensor<1x4x5x5xf32>) -> tensor<1x4x5x5xf32>
  return %y : tensor<1x4x5x5xf32>
}

// CHECK-LABEL: func.func @patches(
// CHECK: %[[P:.*]] = loop.alloc() : memref<2x3x3x2x2xf32>
// CHECK: loop.parallel
// CHECK: %[[PM:.*]] = loop.reshape %[[P]] : memref<2x3x3x2x2xf32> to memref<18x4xf32>
// CHECK: hw.intrinsic "acc_sgemm"(
// CHECK-SAME: , %[[PM]],
// CHECK-SAME: : (memref<3x18xf32>, memref<18x4xf32>, memref<3x4xf32>, index, index, index) -> ()
func.func @patches(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x2x2xf32> {
  %z = arith.constant dense<0.0> : tensor<1x3x2x2xf32>
  %y = tensor.conv2d {strides = array<i64: 2, 2>} ins(%x, %w : tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) outs(%z : tensor<1x3x2x2xf32>) -> tensor<1x3x2x2xf32>
  return %y : tensor<1x3x2x2xf32>
}

// A batch of products: one call per matrix, on 1 x M x K windows of the buffers.
// CHECK-LABEL: func.func @batched(
// CHECK: %[[A1:.*]] = loop.subview %arg0[1, 0, 0] [1, 3, 4] [1, 1, 1] : memref<2x3x4xf32> to memref<1x3x4xf32, strided<[12, 4, 1], offset: 12>>
// CHECK: hw.intrinsic "acc_sgemm"(%[[A1]],
func.func @batched(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %z = arith.constant dense<0.0> : tensor<2x3x5xf32>
  %y = tensor.batch_matmul ins(%a, %b : tensor<2x3x4xf32>, tensor<2x4x5xf32>) outs(%z : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  return %y : tensor<2x3x5xf32>
}
