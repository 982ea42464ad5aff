// MLIR's own text that acc reads and prints back unchanged: i0, integer attributes
// wider than 64 bits (up to 128: their value is an i128; 2^128 - 1 : i128 prints as -1,
// as in MLIR), and distinct attributes
// (a unit one printed `distinct[N]<>`, as MLIR does), quantized types MLIR accepts.
// tools/tests/mlir_interop.rs
// also feeds this file to mlir-opt and reads its output back.
// RUN: acc-opt %s | FileCheck %s
// RUN: acc-opt %s | acc-opt | FileCheck %s
// RUN: acc-opt --mlir-print-op-generic %s | acc-opt | FileCheck %s

// CHECK-LABEL: func.func @wide(
// CHECK-SAME: %arg0: i128, %arg1: i67, %arg2: i0) -> i128
// CHECK: arith.constant 170141183460469231731687303715884105727 : i128
// CHECK: arith.constant -170141183460469231731687303715884105728 : i128
// CHECK: arith.constant 73786976294838206463 : i67
// CHECK: arith.constant 0 : i0
// CHECK: arith.constant -1 : i128
func.func @wide(%a: i128, %b: i67, %z: i0) -> i128 {
  %max = arith.constant 170141183460469231731687303715884105727 : i128
  %min = arith.constant -170141183460469231731687303715884105728 : i128
  %big = arith.constant 73786976294838206463 : i67
  %zero = arith.constant 0 : i0
  %all = arith.constant 340282366920938463463374607431768211455 : i128
  %s = arith.addi %a, %max : i128
  return %s : i128
}

// CHECK-LABEL: func.func @distinct(
// CHECK-SAME: attributes {a = distinct[0]<"foo">, b = distinct[1]<>, c = distinct[0]<"foo">}
func.func @distinct() attributes {a = distinct[0]<"foo">, b = distinct[1]<>, c = distinct[0]<"foo">} {
  return
}

// Quantized types as MLIR accepts them: a zero point outside the storage range, a
// scale written as its f64 bit pattern.
// CHECK-LABEL: func.func private @quant(
// CHECK-SAME: tensor<4x!quant.uniform<u4:f32, 5.000000e-01:16>>
// CHECK-SAME: tensor<4x!quant.uniform<i8<-8:7>:f32, 9.987200e-01:127>>
// CHECK-SAME: tensor<4x!quant.uniform<u8:f32, 1.000000e+00:128>>
func.func private @quant(tensor<4x!quant.uniform<u4:f32, 0.5:16>>, tensor<4x!quant.uniform<i8<-8:7>:f32, 0.99872:127>>, tensor<4x!quant.uniform<u8:f32, 0x3FF0000000000000:128>>)
