// Results that are infinite before and after a pass are the same result: the
// relative tolerance alone took inf against inf for a change (inf - inf is NaN).
// Found by a loop doubling 1.0 past the f32 range under --check-semantics.
// RUN: acc-opt --check-semantics --pass cse,canonicalize %s | FileCheck %s

// CHECK-LABEL: func.func @overflows
func.func @overflows(%x: f32) -> (f32, f32) {
  %big = arith.constant 3.0e38 : f32
  %a = arith.addf %big, %big : f32
  %b = arith.addf %big, %big : f32
  %n = arith.negf %b : f32
  %y = arith.addf %x, %a : f32
  return %y, %n : f32, f32
}
