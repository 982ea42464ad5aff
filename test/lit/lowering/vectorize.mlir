// vectorize runs the innermost dimension of loop.parallel nests four f32 lanes at a
// time: loads and stores along it become vload / vstore, uniform values are splat
// once, loop.for loops inside carry vectors, and a copy of the nest runs the
// iterations that do not fill a vector. The interpreter checks each result.
// RUN: acc-opt --check-semantics --pass vectorize %s | FileCheck %s

// CHECK-LABEL: func.func @bias_relu(
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK: loop.parallel (%[[I:[a-z0-9]+]], %[[J:[a-z0-9]+]]) = (%{{[0-9]+}}, %{{[0-9]+}}) to (%{{[0-9]+}}, %[[C8]]) step (%{{[0-9]+}}, %[[C4]]) {
// CHECK: %[[X:.*]] = loop.vload %arg0[%[[I]], %[[J]]] : memref<2x10xf32>, vector<4xf32>
// CHECK: %[[B:.*]] = loop.load %arg1[%[[I]]] : memref<2xf32>
// CHECK: %[[BV:.*]] = loop.splat %[[B]] : vector<4xf32>
// CHECK: %[[S:.*]] = arith.addf %[[X]], %[[BV]] : vector<4xf32>
// CHECK: arith.maximumf %[[S]], %{{.*}} : vector<4xf32>
// CHECK: loop.vstore %{{.*}}, %arg2[%[[I]], %[[J]]] : memref<2x10xf32>, vector<4xf32>
// The two remaining columns, as before:
// CHECK: loop.parallel (%{{.*}}) = (%{{[0-9]+}}, %[[C8]]) to (%{{[0-9]+}}, %{{[0-9]+}}) step (%{{[0-9]+}}, %{{[0-9]+}}) {
// CHECK: loop.load %arg0
// CHECK: loop.store
func.func @bias_relu(%x: memref<2x10xf32>, %b: memref<2xf32>, %y: memref<2x10xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c10 = arith.constant 10 : index
  loop.parallel (%i, %j) = (%c0, %c0) to (%c2, %c10) step (%c1, %c1) {
    %a = loop.load %x[%i, %j] : memref<2x10xf32>
    %c = loop.load %b[%i] : memref<2xf32>
    %s = arith.addf %a, %c : f32
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %s, %z : f32
    loop.store %r, %y[%i, %j] : memref<2x10xf32>
    loop.yield
  }
  return
}

// A convolution row with stride 2: the accumulator is carried as a vector through
// the window loop, the input is gathered two elements apart, the weight splat.
// CHECK-LABEL: func.func @strided_window(
// CHECK: loop.parallel (%[[O:[a-z0-9]+]]) = (%{{[0-9]+}}) to (%{{[0-9]+}}) step (%{{[0-9]+}}) {
// CHECK: %[[INIT:.*]] = loop.vload %arg2[%[[O]]] : memref<8xf32>, vector<4xf32>
// CHECK: loop.for %{{.*}} iter_args(%{{[a-z0-9]+}} = %[[INIT]]) -> (vector<4xf32>) {
// CHECK: loop.vload %arg0[%{{.*}}] {stride = 2 : i64} : memref<18xf32>, vector<4xf32>
// CHECK: loop.splat
// CHECK: arith.mulf {{.*}} : vector<4xf32>
// CHECK: loop.yield %{{.*}} : vector<4xf32>
// CHECK: loop.vstore
// CHECK-NOT: loop.parallel
func.func @strided_window(%x: memref<18xf32>, %w: memref<3xf32>, %y: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  loop.parallel (%o) = (%c0) to (%c8) step (%c1) {
    %init = loop.load %y[%o] : memref<8xf32>
    %base = arith.muli %o, %c2 : index
    %sum = loop.for %k = %c0 to %c3 step %c1 iter_args(%acc = %init) -> (f32) {
      %at = arith.addi %base, %k : index
      %xv = loop.load %x[%at] : memref<18xf32>
      %wv = loop.load %w[%k] : memref<3xf32>
      %p = arith.mulf %xv, %wv : f32
      %n = arith.addf %acc, %p : f32
      loop.yield %n : f32
    }
    loop.store %sum, %y[%o] : memref<8xf32>
    loop.yield
  }
  return
}

// Left alone: a transposed read (not along the last index), a read of the buffer
// being written elsewhere than the element written, and a nest of fewer iterations
// than lanes.
// CHECK-LABEL: func.func @left_alone(
// CHECK-NOT: vector
// CHECK: return
func.func @left_alone(%x: memref<8x8xf32>, %y: memref<8x8xf32>, %z: memref<3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  loop.parallel (%i, %j) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
    %a = loop.load %x[%j, %i] : memref<8x8xf32>
    loop.store %a, %y[%i, %j] : memref<8x8xf32>
    loop.yield
  }
  loop.parallel (%i, %j) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
    %a = loop.load %y[%i, %c0] : memref<8x8xf32>
    loop.store %a, %y[%i, %j] : memref<8x8xf32>
    loop.yield
  }
  loop.parallel (%i) = (%c0) to (%c3) step (%c1) {
    %a = loop.load %z[%i] : memref<3xf32>
    %b = arith.addf %a, %a : f32
    loop.store %b, %z[%i] : memref<3xf32>
    loop.yield
  }
  return
}
