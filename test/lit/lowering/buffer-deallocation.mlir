// buffer-deallocation frees each buffer after the last op using it or a view of it
// (uses inside loops count at the loop); returned buffers are the caller's. The
// interpreter, which rejects use after free, checks the result.
// RUN: acc-opt --check-semantics --pass buffer-deallocation %s | FileCheck %s

// CHECK-LABEL: func.func @chain(
// CHECK: %[[T:.*]] = loop.alloc() : memref<4xf32>
// CHECK: %[[V:.*]] = loop.reshape %[[T]] : memref<4xf32> to memref<2x2xf32>
// CHECK: %[[R:.*]] = loop.alloc() : memref<2x2xf32>
// CHECK: loop.parallel
// CHECK: loop.load %[[V]]
// CHECK: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: loop.dealloc %[[T]] : memref<4xf32>
// CHECK-NEXT: return %[[R]]
// CHECK-NOT: loop.dealloc %[[R]]
func.func @chain(%x: memref<4xf32>) -> memref<2x2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %t = loop.alloc() : memref<4xf32>
  loop.copy %x, %t : memref<4xf32> to memref<4xf32>
  %v = loop.reshape %t : memref<4xf32> to memref<2x2xf32>
  %r = loop.alloc() : memref<2x2xf32>
  loop.parallel (%i, %j) = (%c0, %c0) to (%c2, %c2) step (%c1, %c1) {
    %a = loop.load %v[%i, %j] : memref<2x2xf32>
    %b = arith.addf %a, %a : f32
    loop.store %b, %r[%i, %j] : memref<2x2xf32>
    loop.yield
  }
  return %r : memref<2x2xf32>
}
