// inline counts the ops it copies against the memory budget (256 bytes an op): a
// chain of calls inlined round after round doubles each round, and past the budget
// the pass fails at the call instead of growing until the machine runs out.
// RUN: not acc-opt %s --max-memory=64K --pass 'inline{max-rounds=30}' 2>&1 | FileCheck %s
// CHECK: error: inlining made the module grow by more than 256 ops, more than the memory budget of 64.0 KiB allows (--max-memory raises it; a smaller max-rounds inlines less)
// Under a budget it fits, the whole chain is inlined into @f0.
// RUN: acc-opt %s --pass 'inline{max-rounds=30}' | FileCheck %s --check-prefix=FITS
// FITS-LABEL: func.func @f0(
// FITS-NOT: func.call
// FITS: return

func.func @f0(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f1(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f1(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f2(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f2(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f3(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f3(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f4(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f4(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f5(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f5(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f6(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f6(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f7(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f7(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f8(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f8(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f9(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f9(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f10(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f10(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f11(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f11(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f12(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f12(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f13(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f13(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f14(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f14(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f15(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f15(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f16(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f16(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f17(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f17(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f18(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f18(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f19(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f19(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f20(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f20(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f21(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f21(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f22(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f22(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f23(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f23(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f24(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f24(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f25(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f25(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f26(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f26(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f27(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f27(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f28(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f28(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f29(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f29(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f30(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f30(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f31(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f31(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f32(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f32(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f33(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f33(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f34(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f34(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f35(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f35(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f36(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f36(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f37(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f37(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f38(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f38(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %y = func.call @f39(%x) : (i32) -> i32
  %r = arith.addi %y, %c : i32
  return %r : i32
}
func.func @f39(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %r = arith.addi %x, %c : i32
  return %r : i32
}
