// Complex, tuple, function and none types, and opaque types of unregistered dialects.
// RUN: acc-opt --allow-unregistered-dialect %s | FileCheck %s
// RUN: acc-opt --allow-unregistered-dialect --print-generic %s | acc-opt --allow-unregistered-dialect | FileCheck %s

// CHECK: "t.misc"() {a = complex<f32>, b = tuple<i32, tensor<2xf32>>, c = tuple<>, d = (i32, f32) -> i64, e = () -> (), f = () -> ((i32) -> i32), g = (i1) -> (i8, i16), h = none}
"t.misc"() {a = complex<f32>, b = tuple<i32, tensor<2xf32>>, c = tuple<>, d = (i32, f32) -> (i64), e = () -> (), f = () -> ((i32) -> i32), g = (i1) -> (i8, i16), h = none} : () -> ()

// Opaque dialect types keep their body text exactly.
// CHECK: "t.opaque"() {a = !llvm.ptr, b = !foo.bar<"x", [1, 2], <nested>>, c = !foo<"opaque body">, d = !foo.fn<(i32) -> i32>}
"t.opaque"() {a = !llvm.ptr, b = !foo.bar<"x", [1, 2], <nested>>, c = !foo<"opaque body">, d = !foo.fn<(i32) -> i32>} : () -> ()
