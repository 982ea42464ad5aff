// cse: an op without side effects, regions or successors that computes what a
// dominating op already computes (same name, operands, attributes and result types;
// commutative operands in any order) is replaced by it. Scopes follow dominance:
// blocks see the blocks that dominate them, a region sees what its op sees, but
// nothing leaks out of a region or into a sibling block. Ops with side effects or
// regions are never merged. As in MLIR, unused pure ops are erased too.
// RUN: acc-opt --pass cse %s | FileCheck %s
// RUN: acc-opt --cse %s | FileCheck %s
// RUN: acc-opt --pass-pipeline='builtin.module(cse)' %s | FileCheck %s
// RUN: acc-opt --pass cse %s | acc-opt --pass cse | FileCheck %s
// RUN: acc-opt --print-generic %s | acc-opt --pass cse | FileCheck %s

// CHECK-LABEL: func.func @same_ops(
// CHECK-NEXT: %[[A:.*]] = arith.addi %arg0, %arg1 : i32
// CHECK-NEXT: %[[S:.*]] = arith.subi %arg0, %arg1 : i32
// CHECK-NEXT: %[[T:.*]] = arith.subi %arg1, %arg0 : i32
// CHECK-NEXT: return %[[A]], %[[A]], %[[A]], %[[S]], %[[T]], %[[S]] :
func.func @same_ops(%x: i32, %y: i32) -> (i32, i32, i32, i32, i32, i32) {
  %a = arith.addi %x, %y : i32
  %b = arith.addi %x, %y : i32
  // commutative: swapped operands compute the same
  %c = arith.addi %y, %x : i32
  %d = arith.subi %x, %y : i32
  // not commutative: swapped operands differ
  %e = arith.subi %y, %x : i32
  %f = arith.subi %x, %y : i32
  return %a, %b, %c, %d, %e, %f : i32, i32, i32, i32, i32, i32
}

// Attributes and result types are part of what an op computes.
// CHECK-LABEL: func.func @attrs_and_types(
// CHECK-NEXT: %[[LT:.*]] = arith.cmpi slt, %arg0, %arg1 : i32
// CHECK-NEXT: %[[GT:.*]] = arith.cmpi sgt, %arg0, %arg1 : i32
// CHECK-NEXT: %[[NSW:.*]] = arith.addi %arg0, %arg1 overflow<nsw> : i32
// CHECK-NEXT: %[[PLAIN:.*]] = arith.addi %arg0, %arg1 : i32
// CHECK-NEXT: %[[E64:.*]] = arith.extsi %arg0 : i32 to i64
// CHECK-NEXT: %[[E48:.*]] = arith.extsi %arg0 : i32 to i48
// CHECK-NEXT: return %[[LT]], %[[GT]], %[[LT]], %[[NSW]], %[[PLAIN]], %[[NSW]], %[[E64]], %[[E48]], %[[E64]] :
func.func @attrs_and_types(%x: i32, %y: i32) -> (i1, i1, i1, i32, i32, i32, i64, i48, i64) {
  %a = arith.cmpi slt, %x, %y : i32
  %b = arith.cmpi sgt, %x, %y : i32
  %c = arith.cmpi slt, %x, %y : i32
  %d = arith.addi %x, %y overflow<nsw> : i32
  %e = arith.addi %x, %y : i32
  %f = arith.addi %y, %x overflow<nsw> : i32
  %g = arith.extsi %x : i32 to i64
  %h = arith.extsi %x : i32 to i48
  %i = arith.extsi %x : i32 to i64
  return %a, %b, %c, %d, %e, %f, %g, %h, %i : i1, i1, i1, i32, i32, i32, i64, i48, i64
}

// Merging one op makes its users equal: chains collapse. Equal constants merge,
// constants of other types or values do not. Unused ops go.
// CHECK-LABEL: func.func @chains(
// CHECK-NEXT: %[[C5:.*]] = arith.constant 5 : i32
// CHECK-NEXT: %[[C5I64:.*]] = arith.constant 5 : i64
// CHECK-NEXT: %[[C6:.*]] = arith.constant 6 : i32
// CHECK-NEXT: %[[M:.*]] = arith.muli %arg0, %[[C5]] : i32
// CHECK-NEXT: %[[A:.*]] = arith.addi %[[M]], %arg0 : i32
// CHECK-NEXT: %[[M6:.*]] = arith.muli %arg0, %[[C6]] : i32
// CHECK-NEXT: return %[[A]], %[[A]], %[[M6]], %[[C5I64]] : i32, i32, i32, i64
func.func @chains(%x: i32) -> (i32, i32, i32, i64) {
  %c = arith.constant 5 : i32
  %c2 = arith.constant 5 : i32
  %c64 = arith.constant 5 : i64
  %c6 = arith.constant 6 : i32
  %a = arith.muli %x, %c : i32
  %b = arith.muli %x, %c2 : i32
  %a2 = arith.addi %a, %x : i32
  %b2 = arith.addi %b, %x : i32
  %m6 = arith.muli %x, %c6 : i32
  %unused = arith.muli %a2, %b2 : i32
  return %a2, %b2, %m6, %c64 : i32, i32, i32, i64
}

// Across blocks, an op is replaced only by one in a dominating block: ^bb1 reuses
// the entry block's addi, but ^bb3 cannot reuse the muli of ^bb2 (a predecessor that
// does not dominate it), nor ^bb2 the one of its sibling ^bb1.
// CHECK-LABEL: func.func @blocks(
// CHECK-NEXT: %[[A:.*]] = arith.addi %arg0, %arg0 : i32
// CHECK-NEXT: cf.cond_br %arg1, ^bb1, ^bb2
// CHECK-NEXT: ^bb1:
// CHECK-NEXT: %[[M1:.*]] = arith.muli %[[A]], %arg0 : i32
// CHECK-NEXT: cf.br ^bb3(%[[M1]] : i32)
// CHECK-NEXT: ^bb2:
// CHECK-NEXT: %[[M2:.*]] = arith.muli %[[A]], %arg0 : i32
// CHECK-NEXT: cf.br ^bb3(%[[M2]] : i32)
// CHECK-NEXT: ^bb3(%[[R:.*]]: i32):
// CHECK-NEXT: %[[M3:.*]] = arith.muli %[[A]], %arg0 : i32
// CHECK-NEXT: %[[S:.*]] = arith.addi %[[R]], %[[M3]] : i32
// CHECK-NEXT: %[[T:.*]] = arith.addi %[[S]], %[[A]] : i32
// CHECK-NEXT: return %[[T]] : i32
func.func @blocks(%x: i32, %cond: i1) -> i32 {
  %a = arith.addi %x, %x : i32
  cf.cond_br %cond, ^bb1, ^bb2
^bb1:
  %b = arith.addi %x, %x : i32
  %m = arith.muli %b, %x : i32
  cf.br ^bb3(%m : i32)
^bb2:
  %m2 = arith.muli %a, %x : i32
  cf.br ^bb3(%m2 : i32)
^bb3(%r: i32):
  %m3 = arith.muli %a, %x : i32
  %s = arith.addi %r, %m3 : i32
  %again = arith.addi %x, %x : i32
  %t = arith.addi %s, %again : i32
  return %t : i32
}

// A region sees the ops before its op: the loop body reuses the outer muli and
// merges its own commutative addis; the addi after the loop cannot reuse the one
// inside it.
// CHECK-LABEL: func.func @nested(
// CHECK: %[[OUT:.*]] = arith.muli %arg2, %arg2 : i32
// CHECK-NEXT: loop.for
// CHECK-NEXT: %[[IN:.*]] = arith.addi %[[OUT]], %arg2 : i32
// CHECK-NEXT: %[[S:.*]] = arith.addi %[[IN]], %[[IN]] : i32
// CHECK-NEXT: loop.store %[[S]], %arg0[%{{.*}}] : memref<8xi32>
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[AFTER:.*]] = arith.addi %[[OUT]], %arg2 : i32
// CHECK-NEXT: %[[R:.*]] = arith.addi %[[AFTER]], %[[AFTER]] : i32
// CHECK-NEXT: return %[[R]] : i32
func.func @nested(%m: memref<8xi32>, %n: index, %x: i32) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %outer = arith.muli %x, %x : i32
  loop.for %i = %c0 to %n step %c1 {
    %inner = arith.muli %x, %x : i32
    %only = arith.addi %inner, %x : i32
    %again = arith.addi %x, %inner : i32
    %s = arith.addi %only, %again : i32
    loop.store %s, %m[%i] : memref<8xi32>
    loop.yield
  }
  %after = arith.addi %outer, %x : i32
  %r = arith.addi %after, %after : i32
  return %r : i32
}

// Ops with side effects are not merged (two loads may read different values, two
// allocations are two buffers), and neither are ops with regions.
// CHECK-LABEL: func.func @not_merged(
// CHECK-NEXT: %[[L1:.*]] = loop.load %arg0[%arg1] : memref<8xi32>
// CHECK-NEXT: %[[L2:.*]] = loop.load %arg0[%arg1] : memref<8xi32>
// CHECK-NEXT: %[[B1:.*]] = loop.alloc() : memref<8xi32>
// CHECK-NEXT: %[[B2:.*]] = loop.alloc() : memref<8xi32>
// CHECK-NEXT: %[[T1:.*]] = tensor.map
// CHECK: %[[T2:.*]] = tensor.map
// CHECK: return %[[L1]], %[[L2]], %[[B1]], %[[B2]], %[[T1]], %[[T2]] :
func.func @not_merged(%m: memref<8xi32>, %i: index, %t: tensor<4xf32>) -> (i32, i32, memref<8xi32>, memref<8xi32>, tensor<4xf32>, tensor<4xf32>) {
  %a = loop.load %m[%i] : memref<8xi32>
  %b = loop.load %m[%i] : memref<8xi32>
  %p = loop.alloc() : memref<8xi32>
  %q = loop.alloc() : memref<8xi32>
  %x = tensor.map ins(%t : tensor<4xf32>) outs(%t : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%e: f32):
    %n = arith.negf %e : f32
    tensor.yield %n : f32
  }
  %y = tensor.map ins(%t : tensor<4xf32>) outs(%t : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%e: f32):
    %n = arith.negf %e : f32
    tensor.yield %n : f32
  }
  return %a, %b, %p, %q, %x, %y : i32, i32, memref<8xi32>, memref<8xi32>, tensor<4xf32>, tensor<4xf32>
}
