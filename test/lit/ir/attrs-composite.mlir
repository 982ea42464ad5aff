// Array, dense array, dictionary, type and symbol-reference attributes.
// RUN: acc-opt --allow-unregistered-dialect %s | FileCheck %s
// RUN: acc-opt --allow-unregistered-dialect --print-generic %s | acc-opt --allow-unregistered-dialect | FileCheck %s

// CHECK: "t.arrays"() {a = [1, "x", [true, []]], b = []}
"t.arrays"() {a = [1, "x", [true, []]], b = []} : () -> ()

// CHECK: "t.dense_arrays"() {a = array<i64: 1, -2, 3>, b = array<f32: 1.000000e+00, 2.500000e+00>, c = array<i1: true, false>, d = array<i32>, e = array<i8: -128, 127>}
"t.dense_arrays"() {a = array<i64: 1, -2, 3>, b = array<f32: 1.0, 2.5>, c = array<i1: true, false>, d = array<i32>, e = array<i8: -128, 127>} : () -> ()

// CHECK: "t.dicts"() {a = {}, b = {x = 1 : i64, y = {z}}}
"t.dicts"() {a = {}, b = {y = {z}, x = 1}} : () -> ()

// CHECK: "t.types"() {a = tensor<4xf32>, b = (i32) -> (), c = !foo.t}
"t.types"() {a = tensor<4xf32>, b = (i32) -> (), c = !foo.t} : () -> ()

// CHECK: "t.symbols"() {a = @foo, b = @foo::@bar::@baz, c = @"quoted name", d = @outer::@"inner sym"}
"t.symbols"() {a = @foo, b = @foo::@bar::@baz, c = @"quoted name", d = @outer::@"inner sym"} : () -> ()
