// cf.br and cf.cond_br: custom forms, the generic form mlir-opt 22 prints
// (operandSegmentSizes on cond_br), and block arguments fed by branches.
// RUN: acc-opt %s | FileCheck %s
// RUN: acc-opt --print-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: acc-opt --print-generic %s | acc-opt | FileCheck %s

// CHECK-LABEL: func.func @select(%arg0: i1, %arg1: i32, %arg2: f32) -> i32 {
// CHECK-NEXT: cf.cond_br %arg0, ^bb1(%arg1 : i32), ^bb2
// CHECK-NEXT: ^bb1(%0: i32):
// CHECK-NEXT: cf.br ^bb3(%0, %arg2 : i32, f32)
// CHECK-NEXT: ^bb2:
// CHECK-NEXT: cf.br ^bb3(%arg1, %arg2 : i32, f32) {hint = "cold"}
// CHECK-NEXT: ^bb3(%1: i32, %2: f32):
// CHECK-NEXT: return %1 : i32
// GENERIC: "cf.cond_br"(%arg0, %arg1) [^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (i1, i32) -> ()
// GENERIC: "cf.br"(%0, %arg2) [^bb3] : (i32, f32) -> ()
// GENERIC: "cf.br"(%arg1, %arg2) [^bb3] {hint = "cold"} : (i32, f32) -> ()
func.func @select(%c: i1, %x: i32, %y: f32) -> i32 {
  cf.cond_br %c, ^then(%x : i32), ^else
^then(%t: i32):
  cf.br ^join(%t, %y : i32, f32)
^else:
  cf.br ^join(%x, %y : i32, f32) {hint = "cold"}
^join(%r: i32, %f: f32):
  return %r : i32
}

// A loop: a block may branch to itself and its arguments carry the loop state.
// CHECK-LABEL: func.func @loop
// CHECK: ^bb1(%0: i32):
// CHECK-NEXT: cf.cond_br %arg0, ^bb1(%0 : i32), ^bb2
func.func @loop(%c: i1, %init: i32) -> i32 {
  cf.br ^head(%init : i32)
^head(%i: i32):
  cf.cond_br %c, ^head(%i : i32), ^exit
^exit:
  return %i : i32
}
