// canonicalize: folds ops (constants and identities), erases dead ops, hoists
// constants to the entry block and deduplicates them, moves constants to the right
// of commutative ops, and works inside ops with regions; its options limit the work
// and can make it fail when it does not converge.
// RUN: acc-opt --pass canonicalize %s | FileCheck %s
// The flag spelling, a module-level run and a run asked to converge do the same.
// RUN: acc-opt --canonicalize %s | FileCheck %s
// RUN: acc-opt --pass-pipeline='builtin.module(canonicalize)' %s | FileCheck %s
// RUN: acc-opt --pass 'canonicalize{test-convergence=true}' %s | FileCheck %s
// The result is stable: canonicalizing again changes nothing.
// RUN: acc-opt --pass canonicalize %s | acc-opt --pass canonicalize | FileCheck %s
// The generic form of the input gives the same result.
// RUN: acc-opt --print-generic %s | acc-opt --pass canonicalize | FileCheck %s
//
// One sweep cannot confirm a fixed point (that takes a sweep changing nothing): with
// test-convergence the pass fails, on the first function, and the run stops there.
// RUN: not acc-opt --pass 'canonicalize{max-iterations=1 test-convergence=true}' %s 2>&1 | FileCheck %s --check-prefix=NOCONV
// NOCONV: error: canonicalization did not converge after 1 iterations
//
// Without test-convergence, stopping early is not an error.
// RUN: acc-opt --pass 'canonicalize{max-iterations=1}' %s -o %t
// max-num-rewrites=1: one rewrite (fold or pattern) per function, then it stops
// (LIMIT checks @limited).
// RUN: acc-opt --pass 'canonicalize{max-num-rewrites=1}' %s | FileCheck %s --check-prefix=LIMIT
// max-num-rewrites=1 is a limit too: with test-convergence it fails.
// RUN: not acc-opt --pass 'canonicalize{max-num-rewrites=1 test-convergence=true}' %s 2>&1 | FileCheck %s --check-prefix=NOCONV
// max-iterations must be at least 1.
// RUN: not acc-opt --pass 'canonicalize{max-iterations=0}' %s 2>&1 | FileCheck %s --check-prefix=BADOPT
// BADOPT: error: pass 'canonicalize': max-iterations must be at least 1

// Constant operands fold, identities fold to their operand, dead ops go.
// CHECK-LABEL: func.func @fold_arith(
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[C6:.*]] = arith.constant 6 : i32
// CHECK-DAG: %[[TRUE:.*]] = arith.constant true
// CHECK: %[[M:.*]] = arith.muli %arg0, %[[C2]] : i32
// CHECK-NEXT: %[[A:.*]] = arith.addi %[[M]], %[[C2]] : i32
// CHECK-NEXT: return %[[C6]], %arg0, %arg0, %[[A]], %[[TRUE]] : i32, i32, i32, i32, i1
// CHECK-NEXT: }
// NOCONV: canonicalize.mlir:[[# @LINE + 2]]:1
// NOCONV-NOT: error:
func.func @fold_arith(%x: i32) -> (i32, i32, i32, i32, i1) {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c0 = arith.constant 0 : i32
  // (1 + 2) * 2 = 6
  %a = arith.addi %c1, %c2 : i32
  %b = arith.muli %a, %c2 : i32
  // x + 0 = x, x * 1 = x
  %d = arith.addi %x, %c0 : i32
  %e = arith.muli %x, %c1 : i32
  // unused: erased
  %dead = arith.subi %x, %c1 : i32
  %dead2 = arith.muli %dead, %dead : i32
  %cmp = arith.cmpi slt, %c1, %c2 : i32
  // a second constant 2, after other ops: merged into the first, at the top
  %c2b = arith.constant 2 : i32
  %m = arith.muli %c2b, %x : i32
  %f = arith.addi %m, %c2 : i32
  return %b, %d, %e, %f, %cmp : i32, i32, i32, i32, i1
}

// LIMIT-LABEL: func.func @limited(
// LIMIT-NEXT: %[[ONE:.*]] = arith.constant 1 : i32
// LIMIT-NEXT: %[[TWO:.*]] = arith.constant 2 : i32
// LIMIT-NEXT: %[[A:.*]] = arith.addi %[[TWO]], %[[TWO]] : i32
// LIMIT-NEXT: %[[B:.*]] = arith.addi %[[A]], %[[A]] : i32
// LIMIT-NEXT: return %[[B]] : i32
// CHECK-LABEL: func.func @limited(
// CHECK-NEXT: %[[C8:.*]] = arith.constant 8 : i32
// CHECK-NEXT: return %[[C8]] : i32
func.func @limited() -> i32 {
  %c1 = arith.constant 1 : i32
  %a = arith.addi %c1, %c1 : i32
  %b = arith.addi %a, %a : i32
  %c = arith.addi %b, %b : i32
  return %c : i32
}

// Rewrite patterns apply too (folding alone would not do these): constants of
// chained additions combine, and comparisons put the constant on the right.
// CHECK-LABEL: func.func @patterns(
// CHECK-NEXT: %[[C3:.*]] = arith.constant 3 : i32
// CHECK-NEXT: %[[A:.*]] = arith.addi %arg0, %[[C3]] : i32
// CHECK-NEXT: %[[P:.*]] = arith.cmpi sgt, %arg0, %[[C3]] : i32
// CHECK-NEXT: return %[[A]], %[[P]] : i32, i1
func.func @patterns(%x: i32) -> (i32, i1) {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %a0 = arith.addi %x, %c1 : i32
  %a = arith.addi %a0, %c2 : i32
  %p = arith.cmpi slt, %c3, %x : i32
  return %a, %p : i32, i1
}

// Equal constants anywhere in the function become one, at the top of the entry
// block, even from other blocks; an op folding to an existing constant reuses it.
// CHECK-LABEL: func.func @dedup_and_hoist(
// CHECK-NEXT: %[[C9:.*]] = arith.constant 9 : i32
// CHECK-NEXT: cf.cond_br %arg0, ^bb1, ^bb2
// CHECK-NEXT: ^bb1:
// CHECK-NEXT: %[[R1:.*]] = arith.addi %arg1, %[[C9]] : i32
// CHECK-NEXT: cf.br ^bb3(%[[R1]] : i32)
// CHECK-NEXT: ^bb2:
// CHECK-NEXT: %[[R2:.*]] = arith.muli %arg1, %[[C9]] : i32
// CHECK-NEXT: cf.br ^bb3(%[[R2]] : i32)
// CHECK-NEXT: ^bb3(%[[R:.*]]: i32):
// CHECK-NEXT: return %[[R]], %[[C9]], %[[C9]] : i32, i32, i32
func.func @dedup_and_hoist(%c: i1, %x: i32) -> (i32, i32, i32) {
  %n9 = arith.constant 9 : i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %c4 = arith.constant 4 : i32
  %c5 = arith.constant 5 : i32
  %s = arith.addi %c4, %c5 : i32
  %r1 = arith.addi %x, %s : i32
  cf.br ^bb3(%r1 : i32)
^bb2:
  %c9 = arith.constant 9 : i32
  %r2 = arith.muli %x, %c9 : i32
  cf.br ^bb3(%r2 : i32)
^bb3(%r: i32):
  %again = arith.constant 9 : i32
  return %r, %n9, %again : i32, i32, i32
}

// Constants go to the right of commutative ops, and stay where they are in the others.
// CHECK-LABEL: func.func @commutative(
// CHECK-NEXT: %[[C7:.*]] = arith.constant 7 : i32
// CHECK-NEXT: %[[A:.*]] = arith.addi %arg0, %[[C7]] : i32
// CHECK-NEXT: %[[M:.*]] = arith.muli %arg0, %[[C7]] : i32
// CHECK-NEXT: %[[N:.*]] = arith.andi %arg0, %[[C7]] : i32
// CHECK-NEXT: %[[X:.*]] = arith.maxsi %arg0, %[[C7]] : i32
// CHECK-NEXT: %[[S:.*]] = arith.subi %[[C7]], %arg0 : i32
// CHECK-NEXT: %[[D:.*]] = arith.divsi %[[C7]], %arg0 : i32
// CHECK-NEXT: return %[[A]], %[[M]], %[[N]], %[[X]], %[[S]], %[[D]]
func.func @commutative(%x: i32) -> (i32, i32, i32, i32, i32, i32) {
  %c7 = arith.constant 7 : i32
  %a = arith.addi %c7, %x : i32
  %m = arith.muli %c7, %x : i32
  %n = arith.andi %c7, %x : i32
  %mx = arith.maxsi %c7, %x : i32
  %s = arith.subi %c7, %x : i32
  %d = arith.divsi %c7, %x : i32
  return %a, %m, %n, %mx, %s, %d : i32, i32, i32, i32, i32, i32
}

// What must not fold: division by zero, signed overflow of a division, shifts by the
// bit width or more, x + 0.0 (wrong for x = -0.0), x * 0.0; x + -0.0 does fold.
// Wrapping arithmetic folds with wrapping.
// CHECK-LABEL: func.func @no_fold(
// CHECK-DAG: %[[Z:.*]] = arith.constant 0 : i8
// CHECK-DAG: %[[MIN:.*]] = arith.constant -128 : i8
// CHECK-DAG: %[[M1:.*]] = arith.constant -1 : i8
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : i8
// CHECK-DAG: %[[ZF:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[D0:.*]] = arith.divsi %arg0, %[[Z]] : i8
// CHECK-NEXT: %[[DO:.*]] = arith.divsi %[[MIN]], %[[M1]] : i8
// CHECK-NEXT: %[[SH:.*]] = arith.shli %arg0, %[[C8]] : i8
// CHECK-NEXT: %[[AF:.*]] = arith.addf %arg1, %[[ZF]] : f32
// CHECK-NEXT: %[[MF:.*]] = arith.mulf %arg1, %[[ZF]] : f32
// CHECK-NEXT: return %[[D0]], %[[DO]], %[[SH]], %[[MIN]], %[[AF]], %arg1, %[[MF]] : i8, i8, i8, i8, f32, f32, f32
func.func @no_fold(%x: i8, %f: f32) -> (i8, i8, i8, i8, f32, f32, f32) {
  %z = arith.constant 0 : i8
  %min = arith.constant -128 : i8
  %m1 = arith.constant -1 : i8
  %c8 = arith.constant 8 : i8
  %max = arith.constant 127 : i8
  %one = arith.constant 1 : i8
  %d0 = arith.divsi %x, %z : i8
  %dov = arith.divsi %min, %m1 : i8
  %sh = arith.shli %x, %c8 : i8
  // 127 + 1 wraps to -128 (and reuses the constant -128)
  %wrap = arith.addi %max, %one : i8
  %zf = arith.constant 0.0 : f32
  %nzf = arith.constant -0.0 : f32
  %af = arith.addf %f, %zf : f32
  %anf = arith.addf %f, %nzf : f32
  %mf = arith.mulf %f, %zf : f32
  return %d0, %dov, %sh, %wrap, %af, %anf, %mf : i8, i8, i8, i8, f32, f32, f32
}

// Side effects keep an op alive even when its results are unused; pure ops go.
// CHECK-LABEL: func.func @side_effects(
// CHECK-NEXT: %{{.*}} = loop.load %arg0[%arg1] : memref<8xi32>
// CHECK-NEXT: %{{.*}} = loop.alloc() : memref<8xi32>
// CHECK-NEXT: loop.store %arg2, %arg0[%arg1] : memref<8xi32>
// CHECK-NEXT: return
func.func @side_effects(%m: memref<8xi32>, %i: index, %x: i32) {
  %l = loop.load %m[%i] : memref<8xi32>
  %p = arith.addi %l, %x : i32
  %b = loop.alloc() : memref<8xi32>
  loop.store %x, %m[%i] : memref<8xi32>
  %q = arith.muli %x, %x : i32
  return
}

// Inside a region: ops fold, constants are hoisted out of the loop to the function's
// entry block, dead ops in the body go, and the loop itself (with effects) stays.
// CHECK-LABEL: func.func @in_region(
// CHECK-DAG: %[[LB:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[ST:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[Z:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[C7:.*]] = arith.constant 7 : i32
// CHECK: %[[R:[^ ]+]] = loop.for %[[I:[^ ]+]] = %[[LB]] to %arg1 step %[[ST]] iter_args(%[[ACC:[^ ]+]] = %[[Z]]) -> (i32) {
// CHECK-NEXT: %[[V:.*]] = loop.load %arg0[%[[I]]] : memref<64xi32>
// CHECK-NEXT: %[[T:.*]] = arith.addi %[[V]], %[[C7]] : i32
// CHECK-NEXT: %[[N:.*]] = arith.addi %[[ACC]], %[[T]] : i32
// CHECK-NEXT: loop.yield %[[N]] : i32
// CHECK-NEXT: }
// CHECK-NEXT: loop.for %{{.*}} = %[[LB]] to %arg1 step %[[ST]] {
// CHECK-NEXT: loop.store %[[C7]], %arg0[%{{.*}}] : memref<64xi32>
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]] : i32
func.func @in_region(%m: memref<64xi32>, %n: index) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0 : i32
  %r = loop.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (i32) {
    %c3 = arith.constant 3 : i32
    %c4 = arith.constant 4 : i32
    %s = arith.addi %c3, %c4 : i32
    %v = loop.load %m[%i] : memref<64xi32>
    %unused = arith.muli %v, %v : i32
    %t = arith.addi %s, %v : i32
    %u = arith.addi %t, %z : i32
    %next = arith.addi %acc, %u : i32
    loop.yield %next : i32
  }
  loop.for %j = %c0 to %n step %c1 {
    %c7 = arith.constant 7 : i32
    loop.store %c7, %m[%j] : memref<64xi32>
    loop.yield
  }
  return %r : i32
}
