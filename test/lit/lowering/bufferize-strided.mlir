// bufferize{strided-gemm=NAME}: a transpose read only as A or B of f32 matrix
// products is not materialized: each product reads a window of the transpose's
// source with the source's strides permuted (a row and a column stride per
// operand). A zero constant init is not copied: the call overwrites its result
// (accumulate 0), and a transpose that alone reads such a product is written by
// it through permuted strides. Checked against the interpreter, which reads the operands
// through the strides the call passes.
// RUN: acc-opt --check-semantics --pass 'bufferize{strided-gemm=acc_sgemm_strided gemm=acc_sgemm}' %s | FileCheck %s

// Attention's Q x K^T on 2 heads of 4: Q's head h at offset 4h with rows 8 apart,
// K^T's at offset 4h with rows 1 apart and columns 8 apart.
// CHECK-LABEL: func.func @attention(
// CHECK-NOT: loop.parallel
// CHECK-NOT: loop.constant
// CHECK: %[[OUT:.*]] = loop.alloc() : memref<2x3x3xf32>
// CHECK-NEXT: %[[Q0:.*]] = loop.subview %arg0[0, 0, 0] [3, 1, 4] [1, 1, 1] : memref<3x2x4xf32> to memref<3x1x4xf32, strided<[8, 4, 1]>>
// CHECK-NEXT: %[[K0:.*]] = loop.subview %arg1[0, 0, 0] [3, 1, 4] [1, 1, 1]
// CHECK-NEXT: %[[C0:.*]] = loop.subview %[[OUT]][0, 0, 0] [1, 3, 3] [1, 1, 1]
// CHECK-NEXT: %[[M:.*]] = arith.constant 3 : index
// CHECK-NEXT: %[[N:.*]] = arith.constant 3 : index
// CHECK-NEXT: %[[K:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[ARS:.*]] = arith.constant 8 : index
// CHECK-NEXT: %[[ACS:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[BRS:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[BCS:.*]] = arith.constant 8 : index
// CHECK-NEXT: %[[CRS:.*]] = arith.constant 3 : index
// CHECK-NEXT: %[[CCS:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[ACC:.*]] = arith.constant 0 : index
// CHECK-NEXT: hw.intrinsic "acc_sgemm_strided"(%[[Q0]], %[[K0]], %[[C0]], %[[M]], %[[N]], %[[K]], %[[ARS]], %[[ACS]], %[[BRS]], %[[BCS]], %[[CRS]], %[[CCS]], %[[ACC]])
// CHECK-NEXT: loop.subview %arg0[0, 1, 0] [3, 1, 4] [1, 1, 1] : memref<3x2x4xf32> to memref<3x1x4xf32, strided<[8, 4, 1], offset: 4>>
// CHECK-NEXT: loop.subview %arg1[0, 1, 0] [3, 1, 4] [1, 1, 1]
// CHECK-NEXT: loop.subview %[[OUT]][1, 0, 0] [1, 3, 3] [1, 1, 1] : memref<2x3x3xf32> to memref<1x3x3xf32, strided<[9, 3, 1], offset: 9>>
// CHECK: hw.intrinsic "acc_sgemm_strided"
// CHECK-NEXT: return %[[OUT]]
func.func @attention(%q: tensor<3x2x4xf32>, %k: tensor<3x2x4xf32>) -> tensor<2x3x3xf32> {
  %e1 = tensor.empty() : tensor<2x3x4xf32>
  %qt = tensor.transpose ins(%q : tensor<3x2x4xf32>) outs(%e1 : tensor<2x3x4xf32>) permutation = [1, 0, 2] -> tensor<2x3x4xf32>
  %e2 = tensor.empty() : tensor<2x4x3xf32>
  %kt = tensor.transpose ins(%k : tensor<3x2x4xf32>) outs(%e2 : tensor<2x4x3xf32>) permutation = [1, 2, 0] -> tensor<2x4x3xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<2x3x3xf32>
  %s = tensor.batch_matmul ins(%qt, %kt : tensor<2x3x4xf32>, tensor<2x4x3xf32>) outs(%zero : tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  return %s : tensor<2x3x3xf32>
}

// x W^T added into an argument: the init is copied, the call accumulates (1), and
// W is read by columns (row stride 1, column stride 3).
// CHECK-LABEL: func.func @accumulating(
// CHECK-NEXT: %[[OUT:.*]] = loop.alloc() : memref<2x5xf32>
// CHECK-NEXT: loop.copy %arg2, %[[OUT]]
// CHECK-COUNT-3: arith.constant
// CHECK-NEXT: arith.constant 3 : index
// CHECK-NEXT: arith.constant 1 : index
// CHECK-NEXT: arith.constant 1 : index
// CHECK-NEXT: arith.constant 3 : index
// CHECK-NEXT: arith.constant 5 : index
// CHECK-NEXT: arith.constant 1 : index
// CHECK-NEXT: %[[ACC:.*]] = arith.constant 1 : index
// CHECK-NEXT: hw.intrinsic "acc_sgemm_strided"(%arg0, %arg1, %[[OUT]],
// CHECK-SAME: %[[ACC]])
func.func @accumulating(%x: tensor<2x3xf32>, %w: tensor<5x3xf32>, %c: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %e = tensor.empty() : tensor<3x5xf32>
  %wt = tensor.transpose ins(%w : tensor<5x3xf32>) outs(%e : tensor<3x5xf32>) permutation = [1, 0] -> tensor<3x5xf32>
  %y = tensor.matmul ins(%x, %wt : tensor<2x3xf32>, tensor<3x5xf32>) outs(%c : tensor<2x5xf32>) -> tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

// A transpose also returned is materialized (a loop), and the product reads its
// buffer as a plain row-major B; the zero init is still not copied.
// CHECK-LABEL: func.func @also_read(
// CHECK: %[[T:.*]] = loop.alloc() : memref<3x5xf32>
// CHECK: loop.parallel
// CHECK: %[[OUT:.*]] = loop.alloc() : memref<2x5xf32>
// CHECK-NOT: loop.copy
// CHECK: hw.intrinsic "acc_sgemm_strided"(%arg0, %[[T]], %[[OUT]],
// CHECK: return %[[OUT]], %[[T]]
func.func @also_read(%x: tensor<2x3xf32>, %w: tensor<5x3xf32>) -> (tensor<2x5xf32>, tensor<3x5xf32>) {
  %e = tensor.empty() : tensor<3x5xf32>
  %wt = tensor.transpose ins(%w : tensor<5x3xf32>) outs(%e : tensor<3x5xf32>) permutation = [1, 0] -> tensor<3x5xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<2x5xf32>
  %y = tensor.matmul ins(%x, %wt : tensor<2x3xf32>, tensor<3x5xf32>) outs(%zero : tensor<2x5xf32>) -> tensor<2x5xf32>
  return %y, %wt : tensor<2x5xf32>, tensor<3x5xf32>
}

// P x V, then the heads merged back (a transpose, the product's only reader): the
// product writes the merged buffer, head h at offset 4h with rows 8 apart.
// CHECK-LABEL: func.func @merge_heads(
// CHECK-NOT: loop.parallel
// CHECK: %[[OUT:.*]] = loop.alloc() : memref<3x2x4xf32>
// CHECK-NEXT: %[[P0:.*]] = loop.subview %arg0[0, 0, 0]
// CHECK-NEXT: %[[V0:.*]] = loop.subview %arg1[0, 0, 0]
// CHECK-NEXT: %[[C0:.*]] = loop.subview %[[OUT]][0, 0, 0] [3, 1, 4] [1, 1, 1] : memref<3x2x4xf32> to memref<3x1x4xf32, strided<[8, 4, 1]>>
// CHECK-COUNT-7: arith.constant
// CHECK-NEXT: %[[CRS:.*]] = arith.constant 8 : index
// CHECK-NEXT: %[[CCS:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[ACC:.*]] = arith.constant 0 : index
// CHECK-NEXT: hw.intrinsic "acc_sgemm_strided"(%[[P0]], %[[V0]], %[[C0]],
// CHECK-SAME: %[[CRS]], %[[CCS]], %[[ACC]])
// CHECK: loop.subview %[[OUT]][0, 1, 0] [3, 1, 4] [1, 1, 1] : memref<3x2x4xf32> to memref<3x1x4xf32, strided<[8, 4, 1], offset: 4>>
// CHECK: hw.intrinsic "acc_sgemm_strided"
// CHECK-NEXT: return %[[OUT]]
func.func @merge_heads(%p: tensor<2x3x3xf32>, %v: tensor<2x3x4xf32>) -> tensor<3x2x4xf32> {
  %zero = arith.constant dense<0.000000e+00> : tensor<2x3x4xf32>
  %o = tensor.batch_matmul ins(%p, %v : tensor<2x3x3xf32>, tensor<2x3x4xf32>) outs(%zero : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %e = tensor.empty() : tensor<3x2x4xf32>
  %m = tensor.transpose ins(%o : tensor<2x3x4xf32>) outs(%e : tensor<3x2x4xf32>) permutation = [1, 0, 2] -> tensor<3x2x4xf32>
  return %m : tensor<3x2x4xf32>
}

// A transpose that moves the last dimension is still a loop: the product writes
// rows it can store contiguously.
// CHECK-LABEL: func.func @last_dim_moved(
// CHECK: hw.intrinsic "acc_sgemm_strided"
// CHECK: loop.parallel
// CHECK: return
func.func @last_dim_moved(%p: tensor<2x3x3xf32>, %v: tensor<2x3x4xf32>) -> tensor<2x4x3xf32> {
  %zero = arith.constant dense<0.000000e+00> : tensor<2x3x4xf32>
  %o = tensor.batch_matmul ins(%p, %v : tensor<2x3x3xf32>, tensor<2x3x4xf32>) outs(%zero : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %e = tensor.empty() : tensor<2x4x3xf32>
  %m = tensor.transpose ins(%o : tensor<2x3x4xf32>) outs(%e : tensor<2x4x3xf32>) permutation = [0, 2, 1] -> tensor<2x4x3xf32>
  return %m : tensor<2x4x3xf32>
}
