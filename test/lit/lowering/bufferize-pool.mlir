// bufferize: a pool's loop nests test whether a window position lies in the
// padding only where one can: the output rows and columns whose whole window lies
// inside the input (the interior) get a nest without tests, the rows above and
// below it and the columns beside it nests with them; empty ones are left out.
// Checked against the interpreter by --check-semantics.
// RUN: acc-opt --check-semantics --pass bufferize %s | FileCheck %s
// RUN: acc-opt --check-semantics --pass 'bufferize{blocked-pool=acc_spool2d_nchw16c}' %s | FileCheck %s --check-prefix=LIB

// A 3x3 window at stride 2, padding 1, over 8 positions: output row and column 0
// read the padding, rows and columns 1 to 3 do not (none reads the end padding).
// CHECK-LABEL: func.func @max_padded(
// CHECK: loop.parallel
// CHECK: arith.select
// CHECK: loop.parallel
// CHECK: arith.select
// CHECK: loop.parallel
// CHECK-NOT: arith.select
// CHECK: return
func.func @max_padded(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32> {
  %e = tensor.empty() : tensor<1x2x4x4xf32>
  %p = tensor.pool {kind = #tensor.pool_kind<max>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, window = array<i64: 3, 3>} ins(%x : tensor<1x2x8x8xf32>) outs(%e : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %p : tensor<1x2x4x4xf32>
}

// An average over a 3x3 window, stride 1, padding 1: the four borders count the
// positions inside the input, the interior divides by 9 counted the same way.
// CHECK-LABEL: func.func @avg_padded(
// CHECK-COUNT-4: arith.divf
// CHECK: loop.parallel
// CHECK-NOT: arith.select
// CHECK: arith.divf
// CHECK-NOT: loop.parallel
// CHECK: return
func.func @avg_padded(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x5x5xf32> {
  %e = tensor.empty() : tensor<1x1x5x5xf32>
  %p = tensor.pool {kind = #tensor.pool_kind<avg>, pads = array<i64: 1, 1, 1, 1>, window = array<i64: 3, 3>} ins(%x : tensor<1x1x5x5xf32>) outs(%e : tensor<1x1x5x5xf32>) -> tensor<1x1x5x5xf32>
  return %p : tensor<1x1x5x5xf32>
}

// Without padding every window lies inside: one nest, no tests.
// CHECK-LABEL: func.func @unpadded(
// CHECK: loop.parallel
// CHECK-NOT: arith.select
// CHECK: return
func.func @unpadded(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32> {
  %e = tensor.empty() : tensor<1x2x4x4xf32>
  %p = tensor.pool {kind = #tensor.pool_kind<max>, strides = array<i64: 2, 2>, window = array<i64: 2, 2>} ins(%x : tensor<1x2x8x8xf32>) outs(%e : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %p : tensor<1x2x4x4xf32>
}

// With the host library's blocked pool (bufferize{blocked-pool=NAME}), an f32 pool
// in NCHW16c is one call: blocks, H, W, OH, OW, the window, strides, dilations, the
// top and left padding, then average and count_include_pad; the interpreter runs
// the call by its definition (--check-semantics). NCHW pools stay loops.
// CHECK-LABEL: func.func @blocked(
// CHECK: loop.parallel
// LIB-LABEL: func.func @max_padded(
// LIB: loop.parallel
// LIB-LABEL: func.func @blocked(
// LIB-NOT: loop.parallel
// LIB: %[[B:.*]] = arith.constant 2 : index
// LIB-NEXT: %[[H:.*]] = arith.constant 7 : index
// LIB-NEXT: %[[W:.*]] = arith.constant 7 : index
// LIB-NEXT: %[[OH:.*]] = arith.constant 4 : index
// LIB-NEXT: %[[OW:.*]] = arith.constant 4 : index
// LIB: hw.intrinsic "acc_spool2d_nchw16c"(%arg0, %{{[0-9]+}}, %[[B]], %[[H]], %[[W]], %[[OH]], %[[OW]],
// LIB-NOT: loop.parallel
// LIB: return
func.func @blocked(%x: tensor<1x2x7x7x16xf32>) -> tensor<1x2x4x4x16xf32> {
  %e = tensor.empty() : tensor<1x2x4x4x16xf32>
  %p = tensor.pool {kind = #tensor.pool_kind<avg>, layout = #tensor.layout<"NCHW16c">, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, window = array<i64: 3, 3>} ins(%x : tensor<1x2x7x7x16xf32>) outs(%e : tensor<1x2x4x4x16xf32>) -> tensor<1x2x4x4x16xf32>
  return %p : tensor<1x2x4x4x16xf32>
}
