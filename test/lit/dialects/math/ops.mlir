// The math dialect's ops in their custom form, printed back identically and through
// the generic form; the interpreter's values for a few of them.
// RUN: acc-opt %s | FileCheck %s
// RUN: acc-opt --print-generic %s | acc-opt | FileCheck %s
// RUN: acc-opt --print-generic %s | FileCheck %s --check-prefix=GENERIC
// GENERIC: "math.exp"(%arg0) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32

// CHECK-LABEL: func.func @functions(
func.func @functions(%arg0: f32, %arg1: vector<4xf64>) -> f32 {
  // CHECK-NEXT: %0 = math.exp %arg0 : f32
  %0 = math.exp %arg0 : f32
  // CHECK-NEXT: %1 = math.log %0 fastmath<fast> : f32
  %1 = math.log %0 fastmath<fast> : f32
  // CHECK-NEXT: %2 = math.tanh %1 : f32
  %2 = math.tanh %1 : f32
  // CHECK-NEXT: %3 = math.erf %2 : f32
  %3 = math.erf %2 : f32
  // CHECK-NEXT: %4 = math.sqrt %arg1 : vector<4xf64>
  %4 = math.sqrt %arg1 : vector<4xf64>
  // CHECK-NEXT: %5 = math.rsqrt %4 : vector<4xf64>
  %5 = math.rsqrt %4 : vector<4xf64>
  // CHECK-NEXT: %6 = math.absf %3 : f32
  %6 = math.absf %3 : f32
  // CHECK-NEXT: %7 = math.powf %6, %arg0 : f32
  %7 = math.powf %6, %arg0 : f32
  // CHECK-NEXT: return %7 : f32
  return %7 : f32
}
