// A linear layer's activation (GELU as exporters write it, SiLU, ReLU) is applied by
// the host's packed product as it stores each tile, acc_sgemm_nk48n_bias_act with
// the blocked convolutions' clamp bounds and gate (gate 3: x * (erf(x / p) + 1) * q),
// instead of passes over the product's result, also when the result is reshaped
// back to the network's shape first. Checked against the interpreter.
// RUN: acc-opt --check-semantics --target %S/../../../lowering/runtime/host.acc --pipeline host-pipeline %s | FileCheck %s

// GELU: / sqrt 2, erf, + 1, times x, times 1/2; rows of a 3-D input, so the product's
// 2-D result is reshaped back before the maps.
// CHECK-LABEL: func.func @gelu(
// CHECK-NOT: acc_verf
// CHECK: hw.intrinsic "acc_sgemm_nk48n_bias_act"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[LO:.*]], %[[HI:.*]], %[[G:.*]], %[[P:.*]], %[[Q:.*]]) : (memref<6x8xf32>, memref<1x8x48xf32>, memref<20xf32>, memref<6x20xf32>, index, index, index, f32, f32, index, f32, f32) -> ()
// CHECK-NOT: loop.parallel
// CHECK-NOT: acc_verf
// CHECK: return
func.func @gelu(%x: tensor<1x6x8xf32>) -> tensor<1x6x20xf32> {
  %w = graph.constant dense<[[0.5, -0.25, 0.75, 1.0, -1.5, 0.125, 2.0, -0.5, 0.25, 0.5, -1.0, 1.25, 0.0, -0.75, 0.5, 1.5, -2.0, 0.25, 0.625, -0.125], [0.25, 0.5, -0.75, 0.125, 1.0, -0.5, 0.25, 1.5, -1.25, 0.75, 0.5, -0.25, 1.0, 0.5, -0.5, 0.25, 0.75, -1.0, 0.5, 0.25], [-0.5, 0.25, 0.5, -0.125, 0.75, 1.0, -0.25, 0.5, 0.5, -1.5, 0.25, 0.75, -0.5, 1.25, 0.25, -0.75, 0.5, 0.125, -0.25, 1.0], [1.0, -0.5, 0.25, 0.5, -0.25, 0.75, 0.5, -1.0, 0.125, 0.25, -0.5, 0.5, 1.5, -0.25, 0.75, 0.5, -0.125, 0.25, 1.0, -0.75], [0.125, 0.75, -0.5, 1.0, 0.25, -0.25, 0.5, 0.5, -0.75, 1.0, 0.25, -0.5, 0.5, 0.75, -1.25, 0.25, 0.5, -0.5, 0.25, 0.5], [-0.25, 0.5, 1.0, -0.75, 0.5, 0.25, -0.5, 0.75, 0.5, -0.125, 1.0, 0.25, -0.25, 0.5, 0.5, -1.0, 0.25, 0.75, -0.5, 0.125], [0.75, -1.0, 0.25, 0.5, -0.5, 1.25, 0.25, -0.25, 0.5, 0.5, -0.75, 1.0, 0.125, -0.5, 0.25, 0.75, -0.25, 0.5, 1.0, -0.5], [0.5, 0.25, -0.25, 0.75, 1.0, -0.5, 0.125, 0.5, -1.0, 0.25, 0.5, -0.75, 0.25, 1.0, -0.5, 0.5, 0.75, -0.25, 0.125, 0.5]]> : tensor<8x20xf32>
  %b = graph.constant dense<[0.1, -0.2, 0.3, -0.4, 0.5, -0.6, 0.7, -0.8, 0.9, -1.0, 1.1, -1.2, 1.3, -1.4, 1.5, -1.6, 1.7, -1.8, 1.9, -2.0]> : tensor<20xf32>
  %m = graph.matmul %x, %w : (tensor<1x6x8xf32>, tensor<8x20xf32>) -> tensor<1x6x20xf32>
  %y = graph.add %m, %b : (tensor<1x6x20xf32>, tensor<20xf32>) -> tensor<1x6x20xf32>
  %s = graph.constant dense<1.4142135> : tensor<f32>
  %d = graph.div %y, %s : (tensor<1x6x20xf32>, tensor<f32>) -> tensor<1x6x20xf32>
  %e = graph.erf %d : tensor<1x6x20xf32>
  %one = graph.constant dense<1.0> : tensor<f32>
  %g = graph.add %e, %one : (tensor<1x6x20xf32>, tensor<f32>) -> tensor<1x6x20xf32>
  %p = graph.mul %y, %g : (tensor<1x6x20xf32>, tensor<1x6x20xf32>) -> tensor<1x6x20xf32>
  %half = graph.constant dense<0.5> : tensor<f32>
  %z = graph.mul %p, %half : (tensor<1x6x20xf32>, tensor<f32>) -> tensor<1x6x20xf32>
  return %z : tensor<1x6x20xf32>
}

// SiLU of a product from zero (no bias in the graph: the call starts from a zero
// bias).
// CHECK-LABEL: func.func @silu(
// CHECK: hw.intrinsic "acc_sgemm_nk48n_bias_act"
// CHECK-SAME: (memref<5x8xf32>, memref<2x8x48xf32>, memref<60xf32>, memref<5x60xf32>, index, index, index, f32, f32, index, f32, f32) -> ()
// CHECK-NOT: loop.parallel
// CHECK: return
func.func @silu(%x: tensor<5x8xf32>) -> tensor<5x60xf32> {
  %w = graph.constant dense<0.375> : tensor<8x60xf32>
  %m = graph.matmul %x, %w : (tensor<5x8xf32>, tensor<8x60xf32>) -> tensor<5x60xf32>
  %s = graph.sigmoid %m : tensor<5x60xf32>
  %y = graph.mul %m, %s : (tensor<5x60xf32>, tensor<5x60xf32>) -> tensor<5x60xf32>
  return %y : tensor<5x60xf32>
}

// ReLU: the clamp alone (gate 0).
// CHECK-LABEL: func.func @relu(
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INF:.*]] = arith.constant 0x7F800000 : f32
// CHECK: %[[CODE:.*]] = arith.constant 0 : index
// CHECK: hw.intrinsic "acc_sgemm_nk48n_bias_act"
// CHECK-SAME: %[[ZERO]], %[[INF]], %[[CODE]],
// CHECK-NOT: loop.parallel
// CHECK: return
func.func @relu(%x: tensor<4x8xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %w = graph.constant dense<-0.5> : tensor<8x16xf32>
  %m = graph.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %y = graph.add %m, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %r = graph.relu %y : tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// The pre-activation is returned too: nothing is absorbed.
// CHECK-LABEL: func.func @used_twice(
// CHECK: hw.intrinsic "acc_sgemm_nk48n_bias"(
// CHECK-NOT: acc_sgemm_nk48n_bias_act
// CHECK: acc_verf
// CHECK: return
func.func @used_twice(%x: tensor<4x8xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %w = graph.constant dense<0.5> : tensor<8x16xf32>
  %m = graph.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %s = graph.constant dense<1.4142135> : tensor<f32>
  %d = graph.div %m, %s : (tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
  %e = graph.erf %d : tensor<4x16xf32>
  %one = graph.constant dense<1.0> : tensor<f32>
  %g = graph.add %e, %one : (tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
  %p = graph.mul %m, %g : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  return %p, %m : tensor<4x16xf32>, tensor<4x16xf32>
}
