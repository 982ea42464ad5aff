// An f32 sigmoid is two maps, exp(-x) then 1 / (1 + t): on the host the first is
// finished by the library exponential (16 lanes on AVX-512), and the second fuses
// with SiLU's product into one loop nest. Checked against the interpreter by
// --check-semantics after every pass.
// RUN: acc-opt --check-semantics --pass graph-to-tensor %s | FileCheck %s
// RUN: acc-opt --check-semantics --target %S/../../../lowering/runtime/host.acc --pipeline host-pipeline %s | FileCheck %s --check-prefix=HOST

// CHECK-LABEL: func.func @silu(
// CHECK: %[[T:.*]] = tensor.map ins(%arg0 : tensor<1x32x8x8xf32>)
// CHECK: arith.negf
// CHECK-NEXT: math.exp
// CHECK: %[[S:.*]] = tensor.map ins(%[[T]] : tensor<1x32x8x8xf32>)
// CHECK: arith.addf
// CHECK-NEXT: arith.divf
// CHECK: tensor.map ins(%arg0, %[[S]] :
// CHECK: arith.mulf
// HOST-LABEL: func.func @silu(
// HOST: hw.intrinsic "acc_vexp"
// HOST: loop.parallel
// HOST: arith.divf
// HOST: arith.mulf
// HOST-NOT: loop.parallel
// HOST: return
func.func @silu(%x: tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32> {
  %s = graph.sigmoid %x : tensor<1x32x8x8xf32>
  %y = graph.mul %x, %s : (tensor<1x32x8x8xf32>, tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  return %y : tensor<1x32x8x8xf32>
}
