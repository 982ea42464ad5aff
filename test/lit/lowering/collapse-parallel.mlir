// collapse-parallel merges the trailing dimensions of a loop.parallel nest that every
// access walks as one contiguous run: the buffers are seen with those dimensions as
// one (loop.reshape), the merged index runs in the last dimension, the replaced
// dimensions keep one iteration. The interpreter checks each result.
// RUN: acc-opt --check-semantics --pass collapse-parallel %s | FileCheck %s
// RUN: acc-opt --check-semantics --pass collapse-parallel,vectorize %s | FileCheck %s --check-prefix=VEC

// The second half of a channel concatenation: the store is at channel c + 3, so the
// channel, row and column of both buffers are one run, offset by 3 * 4 * 5.
// CHECK-LABEL: func.func @concat_half(
// The bounds: 0 and 1 for the replaced dimensions, 0..60 for the run.
// CHECK: arith.constant 5 : index
// CHECK-NEXT: %[[Z:[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: %[[ONE:[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT: %[[LO:[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: %[[HI:[0-9]+]] = arith.constant 60 : index
// CHECK-DAG: %[[X:.*]] = loop.reshape %arg0 : memref<2x3x4x5xf32> to memref<2x60xf32>
// CHECK-DAG: %[[Y:.*]] = loop.reshape %arg1 : memref<2x6x4x5xf32> to memref<2x120xf32>
// CHECK: loop.parallel (%[[N:[a-z0-9]+]], %{{[a-z0-9]+}}, %{{[a-z0-9]+}}, %[[M:[a-z0-9]+]]) = (%{{[0-9]+}}, %[[Z]], %[[Z]], %[[LO]]) to (%{{[0-9]+}}, %[[ONE]], %[[ONE]], %[[HI]])
// CHECK: %[[V:.*]] = loop.load %[[X]][%[[N]], %[[M]]] : memref<2x60xf32>
// CHECK: %[[SHIFT:.*]] = arith.constant 60 : index
// CHECK: %[[AT:.*]] = arith.addi %[[M]], %[[SHIFT]] : index
// CHECK: loop.store %[[V]], %[[Y]][%[[N]], %[[AT]]] : memref<2x120xf32>
// VEC-LABEL: func.func @concat_half(
// VEC: loop.vload %{{.*}} : memref<2x60xf32>, vector<4xf32>
// VEC: loop.vstore %{{.*}} : memref<2x120xf32>, vector<4xf32>
// VEC-NOT: loop.parallel
func.func @concat_half(%x: memref<2x3x4x5xf32>, %y: memref<2x6x4x5xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  loop.parallel (%n, %c, %h, %w) = (%c0, %c0, %c0, %c0) to (%c2, %c3, %c4, %c5) step (%c1, %c1, %c1, %c1) {
    %v = loop.load %x[%n, %c, %h, %w] : memref<2x3x4x5xf32>
    %at = arith.addi %c, %c3 : index
    loop.store %v, %y[%n, %at, %h, %w] : memref<2x6x4x5xf32>
    loop.yield
  }
  return
}

// A transpose of the two leading dimensions keeps its rows: only the last two
// dimensions merge, and the range of the first merged one (1..3) scales by 5.
// VEC-LABEL: func.func @swap_leading(
// CHECK-LABEL: func.func @swap_leading(
// CHECK: arith.constant 5 : index
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: arith.constant 1 : index
// CHECK-NEXT: %[[LO:[0-9]+]] = arith.constant 5 : index
// CHECK-NEXT: %[[HI:[0-9]+]] = arith.constant 15 : index
// CHECK-DAG: %[[X:.*]] = loop.reshape %arg0 : memref<3x2x4x5xf32> to memref<3x2x20xf32>
// CHECK-DAG: %[[Y:.*]] = loop.reshape %arg1 : memref<2x3x4x5xf32> to memref<2x3x20xf32>
// CHECK: loop.parallel (%[[A:[a-z0-9]+]], %[[B:[a-z0-9]+]], %{{[a-z0-9]+}}, %[[M:[a-z0-9]+]]) = (%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[LO]]) to (%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[HI]])
// CHECK: %[[V:.*]] = loop.load %[[X]][%[[B]], %[[A]], %[[M]]] : memref<3x2x20xf32>
// CHECK: loop.store %[[V]], %[[Y]][%[[A]], %[[B]], %[[M]]] : memref<2x3x20xf32>
func.func @swap_leading(%x: memref<3x2x4x5xf32>, %y: memref<2x3x4x5xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  loop.parallel (%a, %b, %h, %w) = (%c0, %c0, %c1, %c0) to (%c2, %c3, %c3, %c5) step (%c1, %c1, %c1, %c1) {
    %v = loop.load %x[%b, %a, %h, %w] : memref<3x2x4x5xf32>
    loop.store %v, %y[%a, %b, %h, %w] : memref<2x3x4x5xf32>
    loop.yield
  }
  return
}

// Left as they are: a nest that covers only part of a row (columns 0..4 of 5), one
// whose inner index is computed (a strided read), and one reading a buffer it
// defines itself.
// CHECK-LABEL: func.func @partial_row(
// CHECK-NOT: loop.reshape
// CHECK: loop.load %arg0[%{{.*}}, %{{.*}}] : memref<3x5xf32>
// CHECK-LABEL: func.func @strided(
// CHECK-NOT: loop.reshape
// CHECK: loop.load %arg0[%{{.*}}, %{{.*}}] : memref<3x10xf32>
// CHECK-LABEL: func.func @inner_buffer(
// CHECK-NOT: loop.reshape
// CHECK: return
func.func @partial_row(%x: memref<3x5xf32>, %y: memref<3x5xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  loop.parallel (%i, %j) = (%c0, %c0) to (%c3, %c4) step (%c1, %c1) {
    %v = loop.load %x[%i, %j] : memref<3x5xf32>
    loop.store %v, %y[%i, %j] : memref<3x5xf32>
    loop.yield
  }
  return
}

func.func @strided(%x: memref<3x10xf32>, %y: memref<3x5xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  loop.parallel (%i, %j) = (%c0, %c0) to (%c3, %c5) step (%c1, %c1) {
    %at = arith.muli %j, %c2 : index
    %v = loop.load %x[%i, %at] : memref<3x10xf32>
    loop.store %v, %y[%i, %j] : memref<3x5xf32>
    loop.yield
  }
  return
}

func.func @inner_buffer(%x: memref<3x5xf32>, %y: memref<3x5xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  loop.parallel (%i, %j) = (%c0, %c0) to (%c3, %c5) step (%c1, %c1) {
    %t = loop.alloc() : memref<3x5xf32>
    %v = loop.load %x[%i, %j] : memref<3x5xf32>
    loop.store %v, %t[%i, %j] : memref<3x5xf32>
    %u = loop.load %t[%i, %j] : memref<3x5xf32>
    loop.store %u, %y[%i, %j] : memref<3x5xf32>
    loop.dealloc %t : memref<3x5xf32>
    loop.yield
  }
  return
}
