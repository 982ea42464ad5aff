// Every loop op in its custom form: printed back identically, and unchanged through
// the generic form.
// RUN: acc-opt %s | FileCheck %s
// RUN: acc-opt --print-generic %s | acc-opt | FileCheck %s
// RUN: acc-opt --print-generic %s | FileCheck %s --check-prefix=GENERIC
// GENERIC: "loop.subview"(%1, %arg1) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: 4, -9223372036854775808>, static_sizes = array<i64: 8, 8>, static_strides = array<i64: 1, 2>}>
// GENERIC: "loop.for"(%0, %arg1, %1, %3) ({
// GENERIC-NEXT: ^bb0(%arg2: index, %arg3: vector<4xf32>):
// GENERIC: "loop.parallel"(%0, %0, %arg1, %arg1, %1, %1) <{operandSegmentSizes = array<i32: 2, 2, 2>}> ({

// CHECK-LABEL: func.func @buffers(
func.func @buffers(%arg0: index, %arg1: index, %arg2: f32) {
  // CHECK-NEXT: %0 = loop.alloc(%arg0) {alignment = 64 : i64} : memref<4x?xf32>
  %0 = loop.alloc(%arg0) {alignment = 64 : i64} : memref<4x?xf32>
  // CHECK-NEXT: %1 = loop.alloc() : memref<16x16xf32, 1>
  %1 = loop.alloc() : memref<16x16xf32, 1>
  // CHECK-NEXT: %2 = loop.load %1[%arg1, %arg1] : memref<16x16xf32, 1>
  %2 = loop.load %1[%arg1, %arg1] : memref<16x16xf32, 1>
  // CHECK-NEXT: loop.store %arg2, %1[%arg1, %arg1] : memref<16x16xf32, 1>
  loop.store %arg2, %1[%arg1, %arg1] : memref<16x16xf32, 1>
  // CHECK-NEXT: %3 = loop.subview %1[4, %arg1] [8, 8] [1, 2] : memref<16x16xf32, 1> to memref<8x8xf32, strided<[16, 2], offset: ?>, 1>
  %3 = loop.subview %1[4, %arg1] [8, 8] [1, 2] : memref<16x16xf32, 1> to memref<8x8xf32, strided<[16, 2], offset: ?>, 1>
  // CHECK-NEXT: %4 = loop.alloc() : memref<8x8xf32>
  %4 = loop.alloc() : memref<8x8xf32>
  // CHECK-NEXT: %5 = loop.subview %4[2, 0] [4, 8] [1, 1] : memref<8x8xf32> to memref<4x8xf32, strided<[8, 1], offset: 16>>
  %5 = loop.subview %4[2, 0] [4, 8] [1, 1] : memref<8x8xf32> to memref<4x8xf32, strided<[8, 1], offset: 16>>
  // CHECK-NEXT: loop.copy %5, %5 : memref<4x8xf32, strided<[8, 1], offset: 16>> to memref<4x8xf32, strided<[8, 1], offset: 16>>
  loop.copy %5, %5 : memref<4x8xf32, strided<[8, 1], offset: 16>> to memref<4x8xf32, strided<[8, 1], offset: 16>>
  // CHECK-NEXT: loop.dealloc %0 : memref<4x?xf32>
  loop.dealloc %0 : memref<4x?xf32>
  // CHECK-NEXT: return
  return
}

// CHECK-LABEL: func.func @loops(
func.func @loops(%arg0: memref<64xf32>, %arg1: index) -> f32 {
  // CHECK-NEXT: %0 = arith.constant 0 : index
  %0 = arith.constant 0 : index
  // CHECK-NEXT: %1 = arith.constant 4 : index
  %1 = arith.constant 4 : index
  // CHECK-NEXT: %2 = arith.constant 0.000000e+00 : f32
  %2 = arith.constant 0.000000e+00 : f32
  // CHECK-NEXT: %3 = loop.splat %2 : vector<4xf32>
  %3 = loop.splat %2 : vector<4xf32>
  // CHECK-NEXT: %4 = loop.for %arg2 = %0 to %arg1 step %1 iter_args(%arg3 = %3) -> (vector<4xf32>) {
  %4 = loop.for %arg2 = %0 to %arg1 step %1 iter_args(%arg3 = %3) -> (vector<4xf32>) {
  // CHECK-NEXT: %7 = loop.vload %arg0[%arg2] : memref<64xf32>, vector<4xf32>
    %7 = loop.vload %arg0[%arg2] : memref<64xf32>, vector<4xf32>
  // CHECK-NEXT: %8 = loop.fma %7, %7, %arg3 : vector<4xf32>
    %8 = loop.fma %7, %7, %arg3 : vector<4xf32>
  // CHECK-NEXT: loop.yield %8 : vector<4xf32>
    loop.yield %8 : vector<4xf32>
  // CHECK-NEXT: }
  }
  // CHECK-NEXT: %5 = loop.vreduce <add>, %4 : vector<4xf32>
  %5 = loop.vreduce <add>, %4 : vector<4xf32>
  // CHECK-NEXT: loop.for %arg2 = %0 to %arg1 step %1 {
  loop.for %arg2 = %0 to %arg1 step %1 {
  // CHECK-NEXT: loop.vstore %4, %arg0[%arg2] : memref<64xf32>, vector<4xf32>
    loop.vstore %4, %arg0[%arg2] : memref<64xf32>, vector<4xf32>
  // CHECK-NEXT: loop.yield
    loop.yield
  // CHECK-NEXT: }
  }
  // CHECK-NEXT: loop.parallel (%arg2, %arg3) = (%0, %0) to (%arg1, %arg1) step (%1, %1) {
  loop.parallel (%arg2, %arg3) = (%0, %0) to (%arg1, %arg1) step (%1, %1) {
  // CHECK-NEXT: %7 = loop.load %arg0[%arg2] : memref<64xf32>
    %7 = loop.load %arg0[%arg2] : memref<64xf32>
  // CHECK-NEXT: loop.yield
    loop.yield
  // CHECK-NEXT: }
  }
  // CHECK-NEXT: %6 = loop.vreduce <max>, %4 : vector<4xf32>
  %6 = loop.vreduce <max>, %4 : vector<4xf32>
  // CHECK-NEXT: return %5 : f32
  return %5 : f32
}

// CHECK-LABEL: func.func @constants(
func.func @constants() -> memref<2x3xf32> {
  // CHECK-NEXT: %0 = loop.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00]> : tensor<6xf32> to memref<6xf32>
  %0 = loop.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]> : tensor<6xf32> to memref<6xf32>
  // CHECK-NEXT: %1 = loop.reshape %0 : memref<6xf32> to memref<2x3xf32>
  %1 = loop.reshape %0 : memref<6xf32> to memref<2x3xf32>
  // CHECK-NEXT: return %1 : memref<2x3xf32>
  return %1 : memref<2x3xf32>
}
