// inline: replaces calls to functions of the module whose body is one block by a copy
// of that block (arguments replaced by the call's operands, the call's results by the
// returned values), repeatedly, so that calls in inlined bodies are inlined too.
// Recursive calls, calls marked no_inline, declarations and callees with several
// blocks are left alone; callees stay (symbol-dce erases the private ones).
// RUN: acc-opt --pass inline %s | FileCheck %s
// RUN: acc-opt --inline %s | FileCheck %s
// RUN: acc-opt --pass-pipeline='builtin.module(inline)' %s | FileCheck %s
// RUN: acc-opt --print-generic %s | acc-opt --pass inline | FileCheck %s
// max-rounds=1: the call in @twice's body is not inlined again after @twice is.
// RUN: acc-opt --pass 'inline{max-rounds=1}' %s | FileCheck %s --check-prefix=ONE
// max-rounds below 1 is refused, and nothing is written.
// RUN: not acc-opt --pass 'inline{max-rounds=0}' %s -o %t.zero 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not test -e %t.zero
// ZERO: error: pass 'inline': max-rounds must be at least 1
// Then symbol-dce erases the private callees no call uses any more.
// RUN: acc-opt --pass inline,symbol-dce %s | FileCheck %s --check-prefix=DCE --implicit-check-not=@twice --implicit-check-not=@pair --implicit-check-not=@fill
// It runs on the module, not on functions.
// RUN: not acc-opt --pass-pipeline='builtin.module(func.func(inline))' %s 2>&1 | FileCheck %s --check-prefix=ANCHOR
// ANCHOR: error: pass 'inline' runs on 'builtin.module', but is nested under 'func.func'

// CHECK-LABEL: func.func @caller(
// CHECK-NEXT: %[[K:.*]] = arith.constant 3 : i32
// CHECK-NEXT: %[[S:.*]] = arith.addi %arg0, %arg1 : i32
// CHECK-NEXT: %[[M:.*]] = arith.muli %[[S]], %[[K]] : i32
// CHECK-NEXT: %[[K2:.*]] = arith.constant 3 : i32
// CHECK-NEXT: %[[S2:.*]] = arith.addi %[[M]], %[[M]] : i32
// CHECK-NEXT: %[[M2:.*]] = arith.muli %[[S2]], %[[K2]] : i32
// CHECK-NEXT: return %[[M2]] : i32
// ONE-LABEL: func.func @caller(
// ONE-NEXT: %[[K:.*]] = arith.constant 3 : i32
// ONE-NEXT: %[[S:.*]] = arith.addi %arg0, %arg1 : i32
// ONE-NEXT: %[[M:.*]] = arith.muli %[[S]], %[[K]] : i32
// ONE-NEXT: %[[R:.*]] = call @add_mul(%[[M]], %[[M]]) : (i32, i32) -> i32
// ONE-NEXT: return %[[R]] : i32
// DCE-LABEL: func.func @caller(
// DCE-NOT: call
// DCE: return
func.func @caller(%a: i32, %b: i32) -> i32 {
  %r = func.call @add_mul(%a, %b) : (i32, i32) -> i32
  %s = func.call @twice(%r) : (i32) -> i32
  return %s : i32
}

// The callee itself is unchanged.
// CHECK-LABEL: func.func private @add_mul(
// CHECK-NEXT: arith.constant 3 : i32
// CHECK-NEXT: arith.addi %arg0, %arg1 : i32
// CHECK-NEXT: arith.muli
// CHECK-NEXT: return
// DCE-LABEL: func.func private @add_mul(
func.func private @add_mul(%x: i32, %y: i32) -> i32 {
  %c3 = arith.constant 3 : i32
  %s = arith.addi %x, %y : i32
  %m = arith.muli %s, %c3 : i32
  return %m : i32
}

// CHECK-LABEL: func.func private @twice(
// CHECK-NOT: call
// CHECK: return
func.func private @twice(%x: i32) -> i32 {
  %r = func.call @add_mul(%x, %x) : (i32, i32) -> i32
  return %r : i32
}

// Several results, returned in another order, and an argument returned as is.
// CHECK-LABEL: func.func @multi_result(
// CHECK-NEXT: %[[N:.*]] = arith.addi %arg0, %arg0 : i32
// CHECK-NEXT: return %[[N]], %arg0 : i32, i32
func.func @multi_result(%x: i32) -> (i32, i32) {
  %r:2 = func.call @pair(%x) : (i32) -> (i32, i32)
  return %r#1, %r#0 : i32, i32
}
func.func private @pair(%x: i32) -> (i32, i32) {
  %n = arith.addi %x, %x : i32
  return %x, %n : i32, i32
}

// A callee with a loop: the region is copied with the arguments replaced inside it;
// a call in another block than the entry block is inlined there. (A call inside a
// loop.for is not tested here: mlir-opt, which the interop test runs on every lit
// input, rejects calls nested in ops it does not know.)
// CHECK-LABEL: func.func @loops(
// CHECK-NEXT: cf.cond_br %arg3, ^bb1, ^bb2
// CHECK-NEXT: ^bb1:
// CHECK-NEXT: %[[LB:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[ST:.*]] = arith.constant 1 : index
// CHECK-NEXT: loop.for %[[J:[^ ]+]] = %[[LB]] to %arg1 step %[[ST]] {
// CHECK-NEXT: loop.store %arg2, %arg0[%[[J]]] : memref<8xi32>
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: cf.br ^bb2
// CHECK-NEXT: ^bb2:
// CHECK-NEXT: return
func.func @loops(%m: memref<8xi32>, %n: index, %v: i32, %c: i1) {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  func.call @fill(%m, %n, %v) : (memref<8xi32>, index, i32) -> ()
  cf.br ^bb2
^bb2:
  return
}
func.func private @fill(%buf: memref<8xi32>, %k: index, %val: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  loop.for %j = %c0 to %k step %c1 {
    loop.store %val, %buf[%j] : memref<8xi32>
    loop.yield
  }
  return
}

// Not inlined: a recursive call, a call marked no_inline, a call to a declaration, and
// a call to a function of several blocks.
// CHECK-LABEL: func.func @rec(
// CHECK-NEXT: %[[R:.*]] = call @rec(%arg0) : (i32) -> i32
// CHECK-NEXT: return %[[R]] : i32
func.func @rec(%x: i32) -> i32 {
  %r = func.call @rec(%x) : (i32) -> i32
  return %r : i32
}
// A call to a function that calls itself is not inlined either: each copy would
// bring the recursive call along, one more per round.
// CHECK-LABEL: func.func @calls_rec(
// CHECK-NEXT: %[[R:.*]] = call @rec(%arg0) : (i32) -> i32
// CHECK-NEXT: return %[[R]] : i32
func.func @calls_rec(%x: i32) -> i32 {
  %r = func.call @rec(%x) : (i32) -> i32
  return %r : i32
}
// CHECK-LABEL: func.func @not_inlined(
// CHECK-NEXT: call @add_mul(%arg1, %arg1) {no_inline} : (i32, i32) -> i32
// CHECK-NEXT: call @decl(%arg1) : (i32) -> i32
// CHECK-NEXT: call @multi_block(%arg0, %arg1) : (i1, i32) -> i32
// CHECK-NEXT: return
func.func @not_inlined(%c: i1, %x: i32) -> (i32, i32, i32) {
  %a = func.call @add_mul(%x, %x) {no_inline} : (i32, i32) -> i32
  %b = func.call @decl(%x) : (i32) -> i32
  %d = func.call @multi_block(%c, %x) : (i1, i32) -> i32
  return %a, %b, %d : i32, i32, i32
}
func.func private @decl(i32) -> i32
func.func @multi_block(%c: i1, %x: i32) -> i32 {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  return %x : i32
^bb2:
  %n = arith.addi %x, %x : i32
  return %n : i32
}

// Mutual recursion: inlining stops (after max-rounds at most) and a call remains in
// each function, since the recursion cannot be inlined away.
// CHECK-LABEL: func.func @ping(
// CHECK-NEXT: call @p{{ing|ong}}(%arg0)
// CHECK-NEXT: return
// CHECK-LABEL: func.func @pong(
// CHECK-NEXT: call @p{{ing|ong}}(%arg0)
// CHECK-NEXT: return
func.func @ping(%x: i32) -> i32 {
  %r = func.call @pong(%x) : (i32) -> i32
  return %r : i32
}
func.func @pong(%x: i32) -> i32 {
  %r = func.call @ping(%x) : (i32) -> i32
  return %r : i32
}
