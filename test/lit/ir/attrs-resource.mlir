// dense_resource attributes and the {-# dialect_resources #-} section that holds
// their data (where large weights belong).
// RUN: acc-opt %s | FileCheck %s
// RUN: acc-opt --print-generic %s | acc-opt | FileCheck %s

// CHECK-LABEL: func.func private @weights
// CHECK-SAME: {w = dense_resource<conv1_weight> : tensor<3xi32>}
func.func private @weights() attributes {w = dense_resource<conv1_weight> : tensor<3xi32>}

// Only referenced resources are printed.
// CHECK: {-#
// CHECK-NEXT: dialect_resources: {
// CHECK-NEXT: builtin: {
// CHECK-NEXT: conv1_weight: "0x04000000010000000200000003000000"
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: #-}
// CHECK-NOT: unused_blob

{-#
  dialect_resources: {
    builtin: {
      conv1_weight: "0x04000000010000000200000003000000",
      unused_blob: "0x0400000001"
    }
  }
#-}
