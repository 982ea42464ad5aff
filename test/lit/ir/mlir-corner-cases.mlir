// MLIR's own text that acc reads and prints back unchanged: i0, integer attributes
// of any width (2^128 - 1 : i128 prints as -1, as in MLIR; past 128 bits, in scalars
// and dense elements, the values are kept as bytes: acc/wide_int.rs), and distinct
// attributes
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

// Wider than 128 bits: signless values print signed (a hex bit pattern of all ones is
// -1), unsigned ones unsigned; dense elements of 100 and 200 bits.
// CHECK-LABEL: func.func @wider(
// CHECK-SAME: %arg0: i256) -> (i256, i1000, tensor<2xi200>, tensor<3xi100>, tensor<1xi128>, i129)
// CHECK-SAME: attributes {s = -340282366920938463463374607431768211456 : si129, u = 1361129467683753853853498429727072845823 : ui130}
// CHECK: arith.constant 340282366920938463463374607431768211457 : i256
// CHECK: arith.constant -5 : i1000
// CHECK: arith.constant dense<[1, -340282366920938463463374607431768211457]> : tensor<2xi200>
// CHECK: arith.constant dense<[7, -8, 633825300114114700748351602687]> : tensor<3xi100>
// CHECK: arith.constant dense<-1> : tensor<1xi128>
// CHECK: arith.constant -1 : i129
func.func @wider(%a: i256) -> (i256, i1000, tensor<2xi200>, tensor<3xi100>, tensor<1xi128>, i129) attributes {u = 1361129467683753853853498429727072845823 : ui130, s = -340282366920938463463374607431768211456 : si129} {
  %c = arith.constant 340282366920938463463374607431768211457 : i256
  %s = arith.addi %a, %c : i256
  %m = arith.constant -5 : i1000
  %d = arith.constant dense<[1, -340282366920938463463374607431768211457]> : tensor<2xi200>
  %e = arith.constant dense<[7, -8, 633825300114114700748351602687]> : tensor<3xi100>
  %h = arith.constant dense<"0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF"> : tensor<1xi128>
  %x = arith.constant 0x1ffffffffffffffffffffffffffffffff : i129
  return %s, %m, %d, %e, %h, %x : i256, i1000, tensor<2xi200>, tensor<3xi100>, tensor<1xi128>, i129
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
