// An unused op without side effects that has a region (tensor.map is Pure) is dead:
// dce, fold and canonicalize erase it with its region, and keep the used one.
//
// RUN: acc-opt --pass dce %s | FileCheck %s
// RUN: acc-opt --pass fold %s | FileCheck %s
// RUN: acc-opt --pass canonicalize %s | FileCheck %s

// CHECK-LABEL: func.func @dead_map(
// CHECK-NEXT: %[[USED:.*]] = tensor.map
// CHECK-NEXT: ^bb0(%{{.*}}: f32):
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: tensor.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[USED]] : tensor<4xf32>
func.func @dead_map(%t: tensor<4xf32>) -> tensor<4xf32> {
  %unused = tensor.map ins(%t : tensor<4xf32>) outs(%t : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%e: f32):
    %n = arith.negf %e : f32
    tensor.yield %n : f32
  }
  %used = tensor.map ins(%t : tensor<4xf32>) outs(%t : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%e: f32):
    %n = arith.mulf %e, %e : f32
    tensor.yield %n : f32
  }
  return %used : tensor<4xf32>
}
