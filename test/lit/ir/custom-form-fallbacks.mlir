// Custom forms print only what they can say; anything else keeps the generic form or
// the attribute dictionary, so printing never loses information.
// RUN: acc-opt --allow-unregistered-dialect %s | FileCheck %s
// RUN: acc-opt --allow-unregistered-dialect %s | acc-opt --allow-unregistered-dialect | FileCheck %s
// RUN: acc-opt --allow-unregistered-dialect --print-generic %s | acc-opt --allow-unregistered-dialect --print-generic | FileCheck %s --check-prefix=GENERIC

func.func private @callee()

// MLIR's format for return: `return {attrs} %a : T`.
// CHECK-LABEL: func.func @attrs_on_return(%arg0: i32) -> i32 {
// CHECK-NEXT: return {note = "kept"} %arg0 : i32
func.func @attrs_on_return(%a: i32) -> i32 {
  "func.return"(%a) {note = "kept"} : (i32) -> ()
}

// A property given both ways keeps its property value, as in MLIR.
// CHECK-LABEL: func.func @same_name
// CHECK-NEXT: call @callee() {no_inline} : () -> ()
func.func @same_name() {
  "func.call"() <{callee = @callee, no_inline}> {no_inline = 3} : () -> ()
  return
}

// Inherent attributes written in the attribute dictionary stay properties.
// CHECK-LABEL: func.func @no_inline_call
// CHECK-NEXT: call @callee() {no_inline} : () -> ()
// GENERIC: "func.call"() <{callee = @callee, no_inline}> : () -> ()
func.func @no_inline_call() {
  func.call @callee() {no_inline} : () -> ()
  return
}

// Booleans: only signless i1 prints as true/false; `1 : i1` is `true`.
// CHECK: func.func private @flags() attributes {a = true, b = 1 : ui1, c = true, d = dense<[false, true]> : tensor<2xi1>, e = dense<true> : tensor<3xi1>}
"func.func"() <{function_type = () -> (), sym_name = "flags", sym_visibility = "private"}> ({
}) {a = 1 : i1, b = 1 : ui1, c = -1 : i1, d = dense<"0x0001"> : tensor<2xi1>, e = dense<[true, true, true]> : tensor<3xi1>} : () -> ()

// Op names are escaped in generic form.
// CHECK: "t.a\22b"() : () -> ()
"t.a\"b"() : () -> ()
