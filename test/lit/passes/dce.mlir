// dce: erases ops without side effects whose results are unused, transitively (an op
// whose only users are dead goes too), in every block and region. It does nothing
// else: no folding, no merging, and ops with side effects stay.
// RUN: acc-opt --pass dce %s | FileCheck %s
// RUN: acc-opt --dce %s | FileCheck %s
// RUN: acc-opt --pass-pipeline='builtin.module(dce)' %s | FileCheck %s
// RUN: acc-opt --pass dce %s | acc-opt --pass dce | FileCheck %s
// RUN: acc-opt --print-generic %s | acc-opt --pass dce | FileCheck %s

// CHECK-LABEL: func.func @dead(
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT: %[[A:.*]] = arith.addi %[[C1]], %[[C2]] : i32
// CHECK-NEXT: %[[B:.*]] = arith.addi %[[C1]], %[[C2]] : i32
// CHECK-NEXT: %{{.*}} = loop.load %arg1[%arg2] : memref<8xi32>
// CHECK-NEXT: %{{.*}} = loop.alloc() : memref<8xi32>
// CHECK-NEXT: loop.store %arg0, %arg1[%arg2] : memref<8xi32>
// CHECK-NEXT: %{{.*}} = call @effect(%arg0) : (i32) -> i32
// CHECK-NEXT: return %[[A]], %[[B]] : i32, i32
// CHECK-NEXT: }
func.func @dead(%x: i32, %m: memref<8xi32>, %i: index) -> (i32, i32) {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %unused = arith.constant 7 : i32
  // used: kept, not folded, and the duplicate is not merged
  %a = arith.addi %c1, %c2 : i32
  %b = arith.addi %c1, %c2 : i32
  // a dead chain: %d2 is unused, then %d1 is
  %d1 = arith.muli %x, %x : i32
  %d2 = arith.addi %d1, %x : i32
  %d3 = arith.cmpi slt, %d2, %d1 : i32
  // side effects: kept though unused
  %ld = loop.load %m[%i] : memref<8xi32>
  %buf = loop.alloc() : memref<8xi32>
  loop.store %x, %m[%i] : memref<8xi32>
  %r = func.call @effect(%x) : (i32) -> i32
  return %a, %b : i32, i32
}

func.func private @effect(i32) -> i32

// Dead ops in other blocks and in a loop body go; the loop (with effects) stays, and
// so do the block arguments.
// CHECK-LABEL: func.func @blocks_and_regions(
// CHECK-NEXT: %[[LB:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[ST:.*]] = arith.constant 1 : index
// CHECK-NEXT: cf.cond_br %arg0, ^bb1, ^bb2(%arg1 : i32)
// CHECK-NEXT: ^bb1:
// CHECK-NEXT: loop.for %[[I:[^ ]+]] = %[[LB]] to %arg3 step %[[ST]] {
// CHECK-NEXT: loop.store %arg1, %arg2[%[[I]]] : memref<8xi32>
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: cf.br ^bb2(%arg1 : i32)
// CHECK-NEXT: ^bb2(%[[ARG:.*]]: i32):
// CHECK-NEXT: return
func.func @blocks_and_regions(%c: i1, %x: i32, %m: memref<8xi32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %dead_entry = arith.addi %x, %x : i32
  cf.cond_br %c, ^bb1, ^bb2(%x : i32)
^bb1:
  %dead_bb1 = arith.muli %x, %x : i32
  loop.for %i = %c0 to %n step %c1 {
    %dead_in_loop = arith.subi %x, %x : i32
    %dead_too = arith.addi %dead_in_loop, %x : i32
    loop.store %x, %m[%i] : memref<8xi32>
    loop.yield
  }
  cf.br ^bb2(%x : i32)
^bb2(%unused_arg: i32):
  %dead_bb2 = arith.addi %unused_arg, %x : i32
  return
}
