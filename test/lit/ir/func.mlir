// func.func, func.return and func.call in their custom forms, and the generic forms
// MLIR 22 prints for them (properties), which acc reads back.
// RUN: acc-opt %s | FileCheck %s
// RUN: acc-opt --print-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: acc-opt --print-generic %s | acc-opt | FileCheck %s

// CHECK-LABEL: func.func @add(%arg0: i32, %arg1: i32) -> i32 {
// CHECK-NEXT: %0 = call @id(%arg0) : (i32) -> i32
// CHECK-NEXT: return %0 : i32
// CHECK-NEXT: }
// GENERIC: "func.func"() <{function_type = (i32, i32) -> i32, sym_name = "add"}> ({
// GENERIC-NEXT: ^bb0(%arg0: i32, %arg1: i32):
// GENERIC-NEXT: %0 = "func.call"(%arg0) <{callee = @id}> : (i32) -> i32
// GENERIC-NEXT: "func.return"(%0) : (i32) -> ()
func.func @add(%a: i32, %b: i32) -> i32 {
  %0 = func.call @id(%a) : (i32) -> i32
  return %0 : i32
}

// CHECK-LABEL: func.func @id(%arg0: i32 {acc.tag = "in"}) -> (i32 {acc.tag = "out"}) attributes {acc.kernel} {
// GENERIC: "func.func"() <{arg_attrs = [{acc.tag = "in"}], function_type = (i32) -> i32, res_attrs = [{acc.tag = "out"}], sym_name = "id"}> ({
func.func @id(%x: i32 {acc.tag = "in"}) -> (i32 {acc.tag = "out"}) attributes {acc.kernel} {
  return %x : i32
}

// CHECK-LABEL: func.func private @decl(tensor<4xf32>, i8) -> (f32, f64)
// GENERIC: "func.func"() <{function_type = (tensor<4xf32>, i8) -> (f32, f64), sym_name = "decl", sym_visibility = "private"}> ({
// GENERIC-NEXT: }) : () -> ()
func.func private @decl(tensor<4xf32>, i8) -> (f32, f64)

// CHECK-LABEL: func.func @no_results() {
// CHECK-NEXT: return
func.func @no_results() {
  return
}

// MLIR's generic output, with inherent attributes in the attribute dictionary, is read
// too: they move to the properties.
// CHECK-LABEL: func.func @from_attr_dict(%arg0: f32) -> f32 {
"func.func"() ({
^bb0(%arg0: f32):
  "func.return"(%arg0) : (f32) -> ()
}) {function_type = (f32) -> f32, sym_name = "from_attr_dict"} : () -> ()
