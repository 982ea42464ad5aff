// `--pass cse` (and mlir-opt's spelling `--cse`) should reach every function, also
// those in a module nested in the top-level one, as `mlir-opt --cse` does and as the
// explicit pipelines builtin.module(cse) and
// builtin.module(builtin.module(func.func(cse))) do.
//
// RUN: acc-opt --pass cse %s | FileCheck %s
// RUN: acc-opt --cse %s | FileCheck %s
// RUN: acc-opt --pass canonicalize,cse %s | FileCheck %s

// CHECK-LABEL: func.func @in_nested_module(
// CHECK-NEXT: %[[A:.*]] = arith.addi %arg0, %arg0 : i32
// CHECK-NEXT: return %[[A]], %[[A]] : i32, i32
// CHECK-LABEL: func.func @at_top_level(
// CHECK-NEXT: %[[A:.*]] = arith.addi %arg0, %arg0 : i32
// CHECK-NEXT: return %[[A]], %[[A]] : i32, i32
module {
  module @inner {
    func.func @in_nested_module(%x: i32) -> (i32, i32) {
      %a = arith.addi %x, %x : i32
      %b = arith.addi %x, %x : i32
      return %a, %b : i32, i32
    }
  }
  func.func @at_top_level(%x: i32) -> (i32, i32) {
    %a = arith.addi %x, %x : i32
    %b = arith.addi %x, %x : i32
    return %a, %b : i32, i32
  }
}
