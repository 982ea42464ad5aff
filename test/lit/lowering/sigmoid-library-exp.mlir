// An f32 sigmoid is two maps, exp(-x) then 1 / (1 + t): on the host the first is
// the library's e^-x read straight from the input (16 lanes on AVX-512, no loop
// negating the input first), and the second fuses with SiLU's product into one
// loop nest. Without the library's e^-x (exp-neg), a loop stores -x and the
// library exponential finishes it in place. Checked against the interpreter by
// --check-semantics after every pass.
// RUN: acc-opt --check-semantics --pass graph-to-tensor %s | FileCheck %s
// RUN: acc-opt --check-semantics --target %S/../../../lowering/runtime/host.acc --pipeline host-pipeline %s | FileCheck %s --check-prefix=HOST
// RUN: acc-opt --check-semantics --pass 'graph-to-tensor,bufferize{exp=acc_vexp}' %s | FileCheck %s --check-prefix=PLAIN

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
// HOST-NOT: loop.parallel
// HOST: hw.intrinsic "acc_vexpneg"(%arg0,
// HOST: loop.parallel
// HOST: arith.divf
// HOST: arith.mulf
// HOST-NOT: loop.parallel
// HOST: return
// PLAIN-LABEL: func.func @silu(
// PLAIN: %[[T:.*]] = loop.alloc()
// PLAIN: loop.parallel
// PLAIN: arith.negf
// PLAIN: hw.intrinsic "acc_vexp"(%[[T]], %[[T]],
func.func @silu(%x: tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32> {
  %s = graph.sigmoid %x : tensor<1x32x8x8xf32>
  %y = graph.mul %x, %s : (tensor<1x32x8x8xf32>, tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  return %y : tensor<1x32x8x8xf32>
}
