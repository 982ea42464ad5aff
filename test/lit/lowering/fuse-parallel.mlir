// fuse-parallel moves a nest that writes a buffer elementwise into the later nest that
// reads it at the same indices; a buffer nothing else uses then disappears. Nests in
// between are stepped over when they neither touch that buffer nor write what the
// moved nest reads. The interpreter checks each result.
// RUN: acc-opt --check-semantics --pass fuse-parallel %s | FileCheck %s

// broadcast, add, relu: one nest, no intermediate buffers.
// CHECK-LABEL: func.func @chain(
// CHECK: %[[OUT:.*]] = loop.alloc() : memref<2x8xf32>
// CHECK-NOT: loop.alloc
// CHECK: loop.parallel
// CHECK: %[[B:.*]] = loop.load %arg1[%{{.*}}] : memref<8xf32>
// CHECK: %[[X:.*]] = loop.load %arg0[%{{.*}}, %{{.*}}] : memref<2x8xf32>
// CHECK: %[[S:.*]] = arith.addf %[[X]], %[[B]] : f32
// CHECK: %[[R:.*]] = arith.maximumf %[[S]], %{{.*}} : f32
// CHECK: loop.store %[[R]], %[[OUT]]
// CHECK-NOT: loop.parallel
// CHECK: return %[[OUT]]
func.func @chain(%x: memref<2x8xf32>, %bias: memref<8xf32>) -> memref<2x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %b = loop.alloc() : memref<2x8xf32>
  loop.parallel (%i, %j) = (%c0, %c0) to (%c2, %c8) step (%c1, %c1) {
    %v = loop.load %bias[%j] : memref<8xf32>
    loop.store %v, %b[%i, %j] : memref<2x8xf32>
    loop.yield
  }
  %s = loop.alloc() : memref<2x8xf32>
  loop.parallel (%i, %j) = (%c0, %c0) to (%c2, %c8) step (%c1, %c1) {
    %u = loop.load %x[%i, %j] : memref<2x8xf32>
    %v = loop.load %b[%i, %j] : memref<2x8xf32>
    %w = arith.addf %u, %v : f32
    loop.store %w, %s[%i, %j] : memref<2x8xf32>
    loop.yield
  }
  %r = loop.alloc() : memref<2x8xf32>
  loop.parallel (%i, %j) = (%c0, %c0) to (%c2, %c8) step (%c1, %c1) {
    %u = loop.load %s[%i, %j] : memref<2x8xf32>
    %z = arith.constant 0.0 : f32
    %w = arith.maximumf %u, %z : f32
    loop.store %w, %r[%i, %j] : memref<2x8xf32>
    loop.yield
  }
  return %r : memref<2x8xf32>
}

// A relu, the padding fill, then the copy into the padded buffer: the relu moves past
// the fill (which does not touch its buffer) into the copy.
// CHECK-LABEL: func.func @relu_then_pad(
// CHECK: loop.parallel
// CHECK: arith.constant 0.000000e+00
// CHECK: loop.store
// CHECK: loop.parallel
// CHECK: loop.load %arg0
// CHECK: arith.maximumf
// CHECK: loop.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<6xf32>
// CHECK-NOT: loop.parallel
func.func @relu_then_pad(%x: memref<4xf32>) -> memref<6xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %r = loop.alloc() : memref<4xf32>
  loop.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %u = loop.load %x[%i] : memref<4xf32>
    %z = arith.constant 0.0 : f32
    %w = arith.maximumf %u, %z : f32
    loop.store %w, %r[%i] : memref<4xf32>
    loop.yield
  }
  %p = loop.alloc() : memref<6xf32>
  loop.parallel (%i) = (%c0) to (%c6) step (%c1) {
    %z = arith.constant 0.0 : f32
    loop.store %z, %p[%i] : memref<6xf32>
    loop.yield
  }
  loop.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %u = loop.load %r[%i] : memref<4xf32>
    %k = arith.addi %i, %c1 : index
    loop.store %u, %p[%k] : memref<6xf32>
    loop.yield
  }
  return %p : memref<6xf32>
}

// Not fused: the second nest reads the first one's buffer at other indices (a
// transpose), and the third writes what the fourth's producer would read.
// CHECK-LABEL: func.func @kept(
// CHECK-COUNT-2: loop.parallel
func.func @kept(%x: memref<4x4xf32>) -> memref<4x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = loop.alloc() : memref<4x4xf32>
  loop.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4) step (%c1, %c1) {
    %u = loop.load %x[%i, %j] : memref<4x4xf32>
    %w = arith.addf %u, %u : f32
    loop.store %w, %a[%i, %j] : memref<4x4xf32>
    loop.yield
  }
  %t = loop.alloc() : memref<4x4xf32>
  loop.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4) step (%c1, %c1) {
    %u = loop.load %a[%j, %i] : memref<4x4xf32>
    loop.store %u, %t[%i, %j] : memref<4x4xf32>
    loop.yield
  }
  return %t : memref<4x4xf32>
}
