// Under --allow-unregistered-dialect an op of a dialect acc registers but lacks is
// kept opaque and printed back: acc's builtin, func, tensor, ... are subsets of MLIR's
// dialects of those names, whose tools register these ops and read the output.
// RUN: acc-opt --allow-unregistered-dialect %s | FileCheck %s
// RUN: acc-opt --allow-unregistered-dialect %s | acc-opt --allow-unregistered-dialect | FileCheck %s

// CHECK-LABEL: func.func @opaque(
// CHECK: %[[S:.*]] = "tensor.splat"(%arg0) : (f32) -> tensor<4xf32>
// CHECK: %[[D:.*]] = "tensor.rank"(%[[S]]) : (tensor<4xf32>) -> index
// CHECK: "builtin.unrealized_conversion_cast"(%[[D]]) : (index) -> i64
// CHECK: "func.constant"() <{value = @opaque}> : () -> ((f32) -> i64)
func.func @opaque(%x: f32) -> i64 {
  %s = "tensor.splat"(%x) : (f32) -> tensor<4xf32>
  %d = "tensor.rank"(%s) : (tensor<4xf32>) -> index
  %i = "builtin.unrealized_conversion_cast"(%d) : (index) -> i64
  %f = "func.constant"() <{value = @opaque}> : () -> ((f32) -> i64)
  return %i : i64
}
