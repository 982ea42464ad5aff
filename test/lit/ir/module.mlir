// builtin.module: explicit, named, with attributes, nested; top-level ops without a
// module get an implicit one, as in MLIR.
// RUN: acc-opt --split-input-file %s | FileCheck %s

// CHECK: module @outer attributes {acc.target = "host"} {
// CHECK-NEXT: module @inner {
// CHECK-NEXT: func.func private @f()
// CHECK-NEXT: }
// CHECK-NEXT: module {
// CHECK-NEXT: }
// CHECK-NEXT: }
module @outer attributes {acc.target = "host"} {
  module @inner {
    func.func private @f()
  }
  module {
  }
}

// -----

// CHECK: module {
// CHECK-NEXT: func.func private @g()
// CHECK-NEXT: func.func private @h()
// CHECK-NEXT: }
func.func private @g()
func.func private @h()

// -----

// An empty file is an empty module.
// CHECK: module {
// CHECK-NEXT: }
