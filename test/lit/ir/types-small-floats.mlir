// The small float types (f8, f6, f4): decimal constants round to the nearest value of
// the type and print in decimal as mlir-opt prints them; NaN patterns print in hex.
// RUN: acc-opt %s | FileCheck %s
// RUN: acc-opt --print-generic %s | acc-opt | FileCheck %s
// RUN: acc-opt --pass canonicalize %s | FileCheck %s --check-prefix=FOLD

// CHECK-LABEL: func.func @constants
// CHECK: arith.constant 4.480000e+02 : f8E4M3FN
// CHECK: arith.constant -5.734400e+04 : f8E5M2
// CHECK: arith.constant 6.250000e-02 : f8E4M3
// CHECK: arith.constant 1.550000e+01 : f8E3M4
// CHECK: arith.constant 1.500000e+00 : f8E5M2FNUZ
// CHECK: arith.constant 2.400000e+02 : f8E4M3FNUZ
// CHECK: arith.constant 1.953125e-03 : f8E4M3B11FNUZ
// CHECK: arith.constant 2.500000e-01 : f8E8M0FNU
// CHECK: arith.constant 7.500000e+00 : f6E2M3FN
// CHECK: arith.constant -2.800000e+01 : f6E3M2FN
// CHECK: arith.constant 5.000000e-01 : f4E2M1FN
// 1.1 is not an f8E4M3FN: the nearest is 1.125.
// CHECK: arith.constant 1.125000e+00 : f8E4M3FN
// CHECK: arith.constant dense<[1.000000e+00, 5.000000e-01, -4.480000e+02, 0x7F]> : tensor<4xf8E4M3FN>
// CHECK: arith.constant dense<[3.000000e+00, 1.500000e+00]> : tensor<2xf4E2M1FN>
func.func @constants() -> (f8E4M3FN, f8E5M2, f8E4M3, f8E3M4, f8E5M2FNUZ, f8E4M3FNUZ, f8E4M3B11FNUZ, f8E8M0FNU, f6E2M3FN, f6E3M2FN, f4E2M1FN, f8E4M3FN, tensor<4xf8E4M3FN>, tensor<2xf4E2M1FN>) {
  %a = arith.constant 448.0 : f8E4M3FN
  %b = arith.constant -57344.0 : f8E5M2
  %c = arith.constant 0.0625 : f8E4M3
  %d = arith.constant 15.5 : f8E3M4
  %e = arith.constant 1.5 : f8E5M2FNUZ
  %f = arith.constant 240.0 : f8E4M3FNUZ
  %g = arith.constant 0.001953125 : f8E4M3B11FNUZ
  %h = arith.constant 0.25 : f8E8M0FNU
  %i = arith.constant 7.5 : f6E2M3FN
  %j = arith.constant -28.0 : f6E3M2FN
  %k = arith.constant 0.5 : f4E2M1FN
  %l = arith.constant 1.1 : f8E4M3FN
  %m = arith.constant dense<[1.0, 0.5, -448.0, 0x7F]> : tensor<4xf8E4M3FN>
  %n = arith.constant dense<[3.0, 1.5]> : tensor<2xf4E2M1FN>
  return %a, %b, %c, %d, %e, %f, %g, %h, %i, %j, %k, %l, %m, %n : f8E4M3FN, f8E5M2, f8E4M3, f8E3M4, f8E5M2FNUZ, f8E4M3FNUZ, f8E4M3B11FNUZ, f8E8M0FNU, f6E2M3FN, f6E3M2FN, f4E2M1FN, f8E4M3FN, tensor<4xf8E4M3FN>, tensor<2xf4E2M1FN>
}

// Casts of constants fold to the rounded value, overflow to the format's infinity
// (f8E5M2), and widening is exact.
// FOLD-LABEL: func.func @casts
// FOLD-DAG: arith.constant 1.125000e+00 : f8E4M3FN
// FOLD-DAG: arith.constant 0x7C : f8E5M2
// FOLD-DAG: arith.constant 1.953125e-03 : f32
// FOLD-DAG: arith.constant 4.000000e+00 : f4E2M1FN
// FOLD-NOT: arith.truncf
// FOLD-NOT: arith.extf
func.func @casts() -> (f8E4M3FN, f8E5M2, f32, f4E2M1FN) {
  %a = arith.constant 1.1 : f32
  %b = arith.truncf %a : f32 to f8E4M3FN
  %c = arith.constant 70000.0 : f32
  %d = arith.truncf %c : f32 to f8E5M2
  %e = arith.constant 0.001953125 : f8E4M3B11FNUZ
  %f = arith.extf %e : f8E4M3B11FNUZ to f32
  %g = arith.constant 5.0 : f32
  %h = arith.truncf %g : f32 to f4E2M1FN
  return %b, %d, %f, %h : f8E4M3FN, f8E5M2, f32, f4E2M1FN
}
