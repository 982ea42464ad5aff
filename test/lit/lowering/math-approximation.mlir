// math-approximation expands f32 math.exp and math.erf into inline arithmetic
// (Cody-Waite range reduction and a polynomial for exp, a rational function for erf),
// which vectorize can then run on vectors; f64 stays a library call. The interpreter
// checks the results on seeded inputs (within --check-semantics' tolerance).
// RUN: acc-opt --check-semantics --pass math-approximation %s | FileCheck %s

// CHECK-LABEL: func.func @gelu(
// CHECK-NOT: math.erf
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK: arith.minimumf %{{.*}}, %{{.*}} : f32
// CHECK: arith.divf
// CHECK: return
func.func @gelu(%x: f32) -> f32 {
  %c = arith.constant 0.70710678 : f32
  %h = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %s = arith.mulf %x, %c : f32
  %e = math.erf %s : f32
  %p = arith.addf %e, %one : f32
  %q = arith.mulf %x, %p : f32
  %r = arith.mulf %q, %h : f32
  return %r : f32
}

// 2^n from exponent bits: fptosi, + 127, * 2^23, bitcast; twice.
// CHECK-LABEL: func.func @softmax_term(
// CHECK-NOT: math.exp
// CHECK: arith.fptosi %{{.*}} : f32 to i32
// CHECK: arith.bitcast %{{.*}} : i32 to f32
// CHECK: arith.fptosi %{{.*}} : f32 to i32
// CHECK: arith.bitcast %{{.*}} : i32 to f32
// CHECK: return
func.func @softmax_term(%x: f32, %m: f32) -> f32 {
  %d = arith.subf %x, %m : f32
  %e = math.exp %d : f32
  return %e : f32
}

// CHECK-LABEL: func.func @double(
// CHECK: math.exp %{{.*}} : f64
func.func @double(%x: f64) -> f64 {
  %e = math.exp %x : f64
  return %e : f64
}
