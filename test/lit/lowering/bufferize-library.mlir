// bufferize{exp=NAME erf=NAME tanh=NAME}: a map whose region ends in f32 math.exp /
// math.erf / math.tanh
// stores the function's argument and the library function is applied to the whole
// buffer in place (a map of the function alone is only the call).
// bufferize{packed-gemm=NAME}: a matrix product whose B is a constant used by such
// products only takes B packed at compile time into 48-column panels (NK48n).
// Checked against the interpreter, which runs the calls' semantics.
// RUN: acc-opt --check-semantics --pass 'bufferize{exp=acc_vexp erf=acc_verf tanh=acc_vtanh packed-gemm=acc_sgemm_nk48n gemm=acc_sgemm}' %s | FileCheck %s
// RUN: acc-opt --pass 'bufferize' %s | FileCheck %s --check-prefix=LOOPS

// CHECK-LABEL: func.func @alone(
// CHECK-NEXT: %[[OUT:.*]] = loop.alloc() : memref<3x5xf32>
// CHECK-NEXT: %[[N:.*]] = arith.constant 15 : index
// CHECK-NEXT: hw.intrinsic "acc_verf"(%arg0, %[[OUT]], %[[N]]) : (memref<3x5xf32>, memref<3x5xf32>, index) -> ()
// CHECK-NEXT: return %[[OUT]]
// LOOPS-LABEL: func.func @alone(
// LOOPS: math.erf
// LOOPS-NOT: hw.intrinsic
func.func @alone(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %e = tensor.empty() : tensor<3x5xf32>
  %y = tensor.map ins(%x : tensor<3x5xf32>) outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32> {
  ^bb0(%a: f32):
    %r = math.erf %a : f32
    tensor.yield %r : f32
  }
  return %y : tensor<3x5xf32>
}

// A recurrent cell's tanh of a sum: the sum in the loop, tanh in the call, in place.
// CHECK-LABEL: func.func @cell(
// CHECK: %[[OUT:.*]] = loop.alloc() : memref<1x128xf32>
// CHECK: loop.parallel
// CHECK: %[[S:.*]] = arith.addf
// CHECK-NOT: math.tanh
// CHECK: loop.store %[[S]], %[[OUT]]
// CHECK: %[[N:.*]] = arith.constant 128 : index
// CHECK-NEXT: hw.intrinsic "acc_vtanh"(%[[OUT]], %[[OUT]], %[[N]])
// LOOPS-LABEL: func.func @cell(
// LOOPS: math.tanh
// LOOPS-NOT: hw.intrinsic
func.func @cell(%x: tensor<1x128xf32>, %h: tensor<1x128xf32>) -> tensor<1x128xf32> {
  %e = tensor.empty() : tensor<1x128xf32>
  %y = tensor.map ins(%x, %h : tensor<1x128xf32>, tensor<1x128xf32>) outs(%e : tensor<1x128xf32>) -> tensor<1x128xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    %t = math.tanh %s : f32
    tensor.yield %t : f32
  }
  return %y : tensor<1x128xf32>
}

// The subtraction runs in the loop, the exponential in the call, in place.
// CHECK-LABEL: func.func @shifted(
// CHECK: %[[OUT:.*]] = loop.alloc() : memref<2x7xf32>
// CHECK: loop.parallel
// CHECK: %[[D:.*]] = arith.subf
// CHECK-NOT: math.exp
// CHECK: loop.store %[[D]], %[[OUT]]
// CHECK: %[[N:.*]] = arith.constant 14 : index
// CHECK-NEXT: hw.intrinsic "acc_vexp"(%[[OUT]], %[[OUT]], %[[N]])
func.func @shifted(%x: tensor<2x7xf32>, %m: tensor<2x7xf32>) -> tensor<2x7xf32> {
  %e = tensor.empty() : tensor<2x7xf32>
  %y = tensor.map ins(%x, %m : tensor<2x7xf32>, tensor<2x7xf32>) outs(%e : tensor<2x7xf32>) -> tensor<2x7xf32> {
  ^bb0(%a: f32, %b: f32):
    %d = arith.subf %a, %b : f32
    %r = math.exp %d : f32
    tensor.yield %r : f32
  }
  return %y : tensor<2x7xf32>
}

// The exponential is used again in the region: it stays in the loop.
// CHECK-LABEL: func.func @reused(
// CHECK: math.exp
// CHECK-NOT: hw.intrinsic
// CHECK: return
func.func @reused(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %y = tensor.map ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: f32):
    %r = math.exp %a : f32
    %s = arith.mulf %r, %r : f32
    tensor.yield %s : f32
  }
  return %y : tensor<4xf32>
}

// B is a 3x50 constant: two panels of 3 rows x 48 columns, the second holding
// columns 48 and 49 and then zeros. Its element (t, j) sits at
// ((j / 48) * 3 + t) * 48 + j % 48.
// The packed constant starts with row 0's columns 0, 1, 2 (0.0, 1.0, 2.0).
// The init, a splat constant, becomes a bias of 50 values the call starts from:
// the result is neither filled nor read first.
// CHECK-LABEL: func.func @weights(
// CHECK: %[[W:[0-9]+]] = loop.constant dense<"0x000000000000803F00000040
// CHECK-SAME: : tensor<2x3x48xf32> to memref<2x3x48xf32>
// CHECK-NEXT: %[[B:[0-9]+]] = loop.constant dense<5.000000e-01> : tensor<50xf32> to memref<50xf32>
// CHECK-NEXT: %[[C:[0-9]+]] = loop.alloc() : memref<2x50xf32>
// CHECK-NOT: loop.copy
// CHECK: hw.intrinsic "acc_sgemm_nk48n_bias"(%arg0, %[[W]], %[[B]], %[[C]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) : (memref<2x3xf32>, memref<2x3x48xf32>, memref<50xf32>, memref<2x50xf32>, index, index, index) -> ()
// CHECK-NOT: tensor<3x50xf32>
// CHECK: return
func.func @weights(%x: tensor<2x3xf32>) -> tensor<2x50xf32> {
  %w = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0], [1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 2.0, -2.0], [0.5, 0.25, 0.125, 0.5, 0.25, 0.125, 0.5, 0.25, 0.125, 0.5, 0.25, 0.125, 0.5, 0.25, 0.125, 0.5, 0.25, 0.125, 0.5, 0.25, 0.125, 0.5, 0.25, 0.125, 0.5, 0.25, 0.125, 0.5, 0.25, 0.125, 0.5, 0.25, 0.125, 0.5, 0.25, 0.125, 0.5, 0.25, 0.125, 0.5, 0.25, 0.125, 0.5, 0.25, 0.125, 0.5, 0.25, 0.125, 3.0, 4.0]]> : tensor<3x50xf32>
  %z = arith.constant dense<0.5> : tensor<2x50xf32>
  %y = tensor.matmul ins(%x, %w : tensor<2x3xf32>, tensor<3x50xf32>) outs(%z : tensor<2x50xf32>) -> tensor<2x50xf32>
  return %y : tensor<2x50xf32>
}

// An init that is not a constant: the call accumulates onto a copy of it.
// CHECK-LABEL: func.func @accumulates(
// CHECK: %[[C:[0-9]+]] = loop.alloc() : memref<2x50xf32>
// CHECK-NEXT: loop.copy %arg1, %[[C]]
// CHECK: hw.intrinsic "acc_sgemm_nk48n"(%arg0, %{{[0-9]+}}, %[[C]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) : (memref<2x3xf32>, memref<2x3x48xf32>, memref<2x50xf32>, index, index, index) -> ()
// CHECK-NEXT: return
func.func @accumulates(%x: tensor<2x3xf32>, %z: tensor<2x50xf32>) -> tensor<2x50xf32> {
  %w = arith.constant dense<0.25> : tensor<3x50xf32>
  %y = tensor.matmul ins(%x, %w : tensor<2x3xf32>, tensor<3x50xf32>) outs(%z : tensor<2x50xf32>) -> tensor<2x50xf32>
  return %y : tensor<2x50xf32>
}

// A bias broadcast into the init: the call starts each column from it, and the
// broadcast is never materialized (no loop copies it).
// The splat weights are packed too: 0.5 (0x3F000000) in the first 50 columns.
// CHECK-LABEL: func.func @biased(
// CHECK-NEXT: %[[C:[0-9]+]] = loop.alloc() : memref<2x50xf32>
// CHECK-NEXT: %[[W:[0-9]+]] = loop.constant dense<"0x0000003F0000003F
// CHECK-SAME: : tensor<2x3x48xf32> to memref<2x3x48xf32>
// CHECK-NOT: loop.parallel
// CHECK: hw.intrinsic "acc_sgemm_nk48n_bias"(%arg0, %[[W]], %arg1, %[[C]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) : (memref<2x3xf32>, memref<2x3x48xf32>, memref<50xf32>, memref<2x50xf32>, index, index, index) -> ()
// CHECK-NEXT: return
func.func @biased(%x: tensor<2x3xf32>, %b: tensor<50xf32>) -> tensor<2x50xf32> {
  %w = arith.constant dense<0.5> : tensor<3x50xf32>
  %e = tensor.empty() : tensor<2x50xf32>
  %bb = tensor.broadcast ins(%b : tensor<50xf32>) outs(%e : tensor<2x50xf32>) dimensions = [0] -> tensor<2x50xf32>
  %y = tensor.matmul ins(%x, %w : tensor<2x3xf32>, tensor<3x50xf32>) outs(%bb : tensor<2x50xf32>) -> tensor<2x50xf32>
  return %y : tensor<2x50xf32>
}

// A constant B also read elsewhere, and a B that is an argument: the plain GEMM.
// CHECK-LABEL: func.func @shared(
// CHECK: %[[W:[0-9]+]] = loop.constant dense<{{\[\[}}1.000000e+00
// CHECK-SAME: : tensor<3x2xf32> to memref<3x2xf32>
// CHECK: hw.intrinsic "acc_sgemm"(%arg0, %[[W]],
// CHECK: hw.intrinsic "acc_sgemm"(%arg0, %arg1,
// CHECK-NOT: acc_sgemm_nk48n
// CHECK: return
func.func @shared(%x: tensor<2x3xf32>, %v: tensor<3x2xf32>) -> (tensor<2x2xf32>, tensor<3x2xf32>, tensor<2x2xf32>) {
  %w = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %z = arith.constant dense<0.0> : tensor<2x2xf32>
  %y = tensor.matmul ins(%x, %w : tensor<2x3xf32>, tensor<3x2xf32>) outs(%z : tensor<2x2xf32>) -> tensor<2x2xf32>
  %u = tensor.matmul ins(%x, %v : tensor<2x3xf32>, tensor<3x2xf32>) outs(%z : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %y, %w, %u : tensor<2x2xf32>, tensor<3x2xf32>, tensor<2x2xf32>
}
