// math-approximation expands f32 math.exp, math.erf and math.tanh into inline
// arithmetic (Cody-Waite range reduction and a polynomial for exp, rational functions
// for erf and tanh),
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

// tanh: clamped, a rational function of x^2, and x itself near zero.
// CHECK-LABEL: func.func @tanh(
// CHECK-NOT: math.tanh
// CHECK: arith.maximumf
// CHECK: arith.minimumf
// CHECK: arith.divf
// CHECK: math.absf
// CHECK: arith.cmpf olt
// CHECK: arith.select
func.func @tanh(%x: f32) -> f32 {
  %t = math.tanh %x : f32
  return %t : f32
}

// CHECK-LABEL: func.func @double(
// CHECK: math.exp %{{.*}} : f64
func.func @double(%x: f64) -> f64 {
  %e = math.exp %x : f64
  return %e : f64
}
