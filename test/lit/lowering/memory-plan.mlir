// memory-plan places the buffers a function allocates and frees at offsets of one
// static arena (loop.arena_size on the function): buffers alive at the same time never
// share bytes, others reuse them. Returned buffers stay with the allocator. The
// interpreter (which rejects use after free) and code generation check the result.
// RUN: acc-opt --check-semantics --pass memory-plan %s | FileCheck %s
// RUN: acc-opt --pass memory-plan --verify-diagnostics %s
// A planned function is not planned again.
// RUN: acc-opt --pass memory-plan,memory-plan %s 2>/dev/null | FileCheck %s

// a (256 B) -> b (512 B) -> c (256 B) -> result: a and c do not overlap in time and
// share offset 0 (b, the largest, goes first, at 0, then a and c after it at 512).
// CHECK-LABEL: func.func @chain(
// CHECK-SAME: attributes {loop.arena_size = 768 : i64}
// CHECK: %[[A:.*]] = loop.alloc() {offset = 512 : i64} : memref<64xf32>
// CHECK: %[[B:.*]] = loop.alloc() {offset = 0 : i64} : memref<128xf32>
// CHECK: loop.dealloc %[[A]]
// CHECK: %[[C:.*]] = loop.alloc() {offset = 512 : i64} : memref<64xf32>
// CHECK: loop.dealloc %[[B]]
// CHECK: %[[R:.*]] = loop.alloc() : memref<64xf32>
// CHECK: loop.dealloc %[[C]]
// CHECK: return %[[R]]
// expected-remark @+1 {{memory-plan: 3 buffers in an arena of 768 bytes (the most alive at once: 768 bytes)}}
func.func @chain(%x: memref<64xf32>) -> memref<64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %a = loop.alloc() : memref<64xf32>
  loop.copy %x, %a : memref<64xf32> to memref<64xf32>
  %b = loop.alloc() : memref<128xf32>
  loop.parallel (%i) = (%c0) to (%c128) step (%c1) {
    %j = arith.remui %i, %c64 : index
    %v = loop.load %a[%j] : memref<64xf32>
    loop.store %v, %b[%i] : memref<128xf32>
    loop.yield
  }
  loop.dealloc %a : memref<64xf32>
  %c = loop.alloc() : memref<64xf32>
  loop.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %k = arith.addi %i, %c64 : index
    %u = loop.load %b[%i] : memref<128xf32>
    %w = loop.load %b[%k] : memref<128xf32>
    %s = arith.addf %u, %w : f32
    loop.store %s, %c[%i] : memref<64xf32>
    loop.yield
  }
  loop.dealloc %b : memref<128xf32>
  %r = loop.alloc() : memref<64xf32>
  loop.copy %c, %r : memref<64xf32> to memref<64xf32>
  loop.dealloc %c : memref<64xf32>
  return %r : memref<64xf32>
}
