// unroll replaces loop.for loops with constant bounds and few iterations by copies of
// their body, the carried values threaded through the copies; inner loops first, so a
// small nest becomes straight-line code. Loops over more than max-trip iterations stay.
// RUN: acc-opt --check-semantics --pass unroll %s | FileCheck %s
// RUN: acc-opt --pass 'unroll{max-trip=2}' %s | FileCheck %s --check-prefix=SMALL

// CHECK-LABEL: func.func @window(
// CHECK-NOT: loop.for
// CHECK-COUNT-6: arith.mulf
// CHECK-NOT: arith.mulf
// CHECK: loop.store
// SMALL-LABEL: func.func @window(
// SMALL: loop.for
// SMALL-NOT: loop.for
// SMALL-COUNT-2: arith.mulf
// SMALL: loop.yield
func.func @window(%x: memref<2x3xf32>, %w: memref<2x3xf32>, %y: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %init = loop.load %y[%c0] : memref<1xf32>
  %s = loop.for %i = %c0 to %c3 step %c1 iter_args(%a = %init) -> (f32) {
    %t = loop.for %r = %c0 to %c2 step %c1 iter_args(%b = %a) -> (f32) {
      %xv = loop.load %x[%r, %i] : memref<2x3xf32>
      %wv = loop.load %w[%r, %i] : memref<2x3xf32>
      %p = arith.mulf %xv, %wv : f32
      %n = arith.addf %b, %p : f32
      loop.yield %n : f32
    }
    loop.yield %t : f32
  }
  loop.store %s, %y[%c0] : memref<1xf32>
  return
}

// A loop that runs zero times gives its initial values.
// CHECK-LABEL: func.func @empty(
// CHECK-NOT: loop.for
// CHECK: return %arg0 : f32
func.func @empty(%a: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = loop.for %i = %c1 to %c0 step %c1 iter_args(%x = %a) -> (f32) {
    %y = arith.addf %x, %x : f32
    loop.yield %y : f32
  }
  return %r : f32
}
