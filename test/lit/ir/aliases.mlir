// Type aliases (!name = type) and attribute aliases (#name = attr) are expanded.
// RUN: acc-opt --allow-unregistered-dialect %s | FileCheck %s

!act = tensor<1x16x16x8xi8>
!pair = tuple<!act, i32>
#perm = array<i64: 0, 2, 3, 1>
#dict = {layout = "NHWC", perm = #perm}

// CHECK: "t.use"() {a = tensor<1x16x16x8xi8>, b = tuple<tensor<1x16x16x8xi8>, i32>, c = array<i64: 0, 2, 3, 1>, d = {layout = "NHWC", perm = array<i64: 0, 2, 3, 1>}} : () -> ()
"t.use"() {a = !act, b = !pair, c = #perm, d = #dict} : () -> ()
// CHECK: %{{.*}} = "t.value"() : () -> tensor<1x16x16x8xi8>
%0 = "t.value"() : () -> !act
