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
// A transpose reads across rows: the lane index is in an earlier dimension than
// the last, whose index is uniform. The buffer is seen with those dimensions as one
// and read with a stride of their product: y[i, j..j+3] = x[j..j+3, i], and the
// NCHW16c -> NCHW unpack, out[c, h, w..] = in[c / 16, h, w.., c % 16].
// CHECK-LABEL: func.func @transpose_gather(
// CHECK: loop.parallel (%[[I:[a-z0-9]+]], %[[J:[a-z0-9]+]])
// CHECK: %[[V:.*]] = loop.reshape %arg0 : memref<8x8xf32> to memref<64xf32>
// CHECK: %[[AT:.*]] = arith.muli %[[J]], %{{[0-9]+}} : index
// CHECK: loop.vload %[[V]][%{{[0-9]+}}] {stride = 8 : i64} : memref<64xf32>, vector<4xf32>
// CHECK: loop.vstore %{{[0-9]+}}, %arg1[%[[I]], %[[J]]]
// CHECK: loop.parallel (%[[C:[a-z0-9]+]], %[[H:[a-z0-9]+]], %[[W:[a-z0-9]+]])
// CHECK: %[[B:.*]] = loop.reshape %arg2 : memref<2x3x8x16xf32> to memref<2x3x128xf32>
// CHECK: loop.vload %[[B]][%{{[0-9]+}}, %[[H]], %{{[0-9]+}}] {stride = 16 : i64} : memref<2x3x128xf32>, vector<4xf32>
// CHECK: loop.vstore %{{[0-9]+}}, %arg3[%[[C]], %[[H]], %[[W]]] : memref<20x3x8xf32>, vector<4xf32>
func.func @transpose_gather(%x: memref<8x8xf32>, %y: memref<8x8xf32>, %b: memref<2x3x8x16xf32>, %u: memref<20x3x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c20 = arith.constant 20 : index
  loop.parallel (%i, %j) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
    %a = loop.load %x[%j, %i] : memref<8x8xf32>
    loop.store %a, %y[%i, %j] : memref<8x8xf32>
    loop.yield
  }
  loop.parallel (%c, %h, %w) = (%c0, %c0, %c0) to (%c20, %c3, %c8) step (%c1, %c1, %c1) {
    %blk = arith.divui %c, %c16 : index
    %lane = arith.remui %c, %c16 : index
    %a = loop.load %b[%blk, %h, %w, %lane] : memref<2x3x8x16xf32>
    loop.store %a, %u[%c, %h, %w] : memref<20x3x8xf32>
    loop.yield
  }
  return
}

// CHECK-LABEL: func.func @left_alone(
// CHECK-NOT: vector
// CHECK: return
func.func @left_alone(%x: memref<8x8xf32>, %y: memref<8x8xf32>, %z: memref<3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
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

// A nest whose last dimension is not the one read consecutively stays scalar, but a
// loop.for reducing along the row (here a max and a sum of squares over 37 elements)
// runs on four vector accumulators per value over the first 32 elements; the chains
// are combined, their lanes reduced, the loop's start folded in, and the original
// loop runs the last 5 elements from there.
// CHECK-LABEL: func.func @row_reductions(
// CHECK: %[[IDM:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT: %{{[0-9]+}} = loop.splat %[[IDM]] : vector<4xf32>
// CHECK-NEXT: %[[IDS:.*]] = arith.constant -0.000000e+00 : f32
// CHECK: %[[C32:.*]] = arith.constant 32 : index
// CHECK-NEXT: %[[C16:.*]] = arith.constant 16 : index
// CHECK-NEXT: %[[V:.*]]:8 = loop.for %[[J:[a-z0-9]+]] = %{{[0-9]+}} to %[[C32]] step %[[C16]] iter_args({{.*}}) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
// CHECK: loop.vload %arg0[%{{[a-z0-9]+}}, %{{[0-9]+}}] : memref<4x37xf32>, vector<4xf32>
// CHECK: arith.maximumf %{{[0-9]+}}, %{{[a-z0-9]+}} : vector<4xf32>
// CHECK: loop.yield
// CHECK: %[[M:.*]] = loop.vreduce <max>, %{{[0-9]+}} : vector<4xf32>
// CHECK-NEXT: %[[M0:.*]] = arith.maximumf %{{[0-9]+}}, %[[M]] : f32
// CHECK: %[[S:.*]] = loop.vreduce <add>, %{{[0-9]+}} : vector<4xf32>
// CHECK-NEXT: %[[S0:.*]] = arith.addf %{{[0-9]+}}, %[[S]] : f32
// CHECK-NEXT: loop.for %{{[a-z0-9]+}} = %[[C32]] to %{{[0-9]+}} step %{{[0-9]+}} iter_args(%{{[a-z0-9]+}} = %[[M0]], %{{[a-z0-9]+}} = %[[S0]]) -> (f32, f32)
func.func @row_reductions(%x: memref<4x37xf32>, %m: memref<4xf32>, %s: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c37 = arith.constant 37 : index
  loop.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %init = loop.load %m[%i] : memref<4xf32>
    %sinit = loop.load %s[%i] : memref<4xf32>
    %r:2 = loop.for %j = %c0 to %c37 step %c1 iter_args(%a = %init, %b = %sinit) -> (f32, f32) {
      %v = loop.load %x[%i, %j] : memref<4x37xf32>
      %mx = arith.maximumf %v, %a : f32
      %sq = arith.mulf %v, %v : f32
      %sm = arith.addf %b, %sq : f32
      loop.yield %mx, %sm : f32, f32
    }
    loop.store %r#0, %m[%i] : memref<4xf32>
    loop.store %r#1, %s[%i] : memref<4xf32>
    loop.yield
  }
  return
}

// Not vectorized: a reduction whose carried value is used twice, and one along a
// strided dimension.
// CHECK-LABEL: func.func @not_reductions(
// CHECK-NOT: vector<
// CHECK: return
func.func @not_reductions(%x: memref<4x74xf32>, %m: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c37 = arith.constant 37 : index
  loop.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %init = loop.load %m[%i] : memref<4xf32>
    %r = loop.for %j = %c0 to %c37 step %c1 iter_args(%a = %init) -> (f32) {
      %c2 = arith.constant 2 : index
      %j2 = arith.muli %j, %c2 : index
      %v = loop.load %x[%i, %j2] : memref<4x74xf32>
      %mx = arith.maximumf %v, %a : f32
      loop.yield %mx : f32
    }
    %r2 = loop.for %j = %c0 to %c37 step %c1 iter_args(%a = %r) -> (f32) {
      %v = loop.load %x[%i, %j] : memref<4x74xf32>
      %d = arith.mulf %a, %v : f32
      %e = arith.addf %d, %a : f32
      loop.yield %e : f32
    }
    loop.store %r2, %m[%i] : memref<4xf32>
    loop.yield
  }
  return
}
