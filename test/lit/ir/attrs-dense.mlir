// Dense elements (splat, nested, hex, bool, complex, string, empty, sub-byte) and
// sparse elements.
// RUN: acc-opt --allow-unregistered-dialect %s | FileCheck %s
// RUN: acc-opt --allow-unregistered-dialect --print-generic %s | acc-opt --allow-unregistered-dialect | FileCheck %s

// CHECK-LABEL: "t.dense"
// CHECK-SAME: a = dense<1.000000e+00> : tensor<4xf32>
// CHECK-SAME: b = dense<{{\[\[}}1, 2], [3, 4]]> : tensor<2x2xi32>
// CHECK-SAME: c = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-SAME: d = dense<[true, false, true]> : tensor<3xi1>
// CHECK-SAME: e = dense<(1.000000e+00, -2.000000e+00)> : tensor<complex<f32>>
// CHECK-SAME: f = dense<["a", "bc"]> : tensor<2x!t.str>
// CHECK-SAME: g = dense<> : tensor<0xi32>
// CHECK-SAME: h = dense<[7, -8, -1]> : tensor<3xi4>
// CHECK-SAME: i = dense<[1, -2, 1, 0]> : vector<4xi2>
// CHECK-SAME: j = dense<5> : tensor<2x3xi8>
// CHECK-SAME: k = dense<1.000000e+00> : tensor<2xf32>
"t.dense"() {
  a = dense<1.0> : tensor<4xf32>,
  b = dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>,
  c = dense<"0x0000803F00000040"> : tensor<2xf32>,
  d = dense<[true, false, true]> : tensor<3xi1>,
  e = dense<(1.0, -2.0)> : tensor<complex<f32>>,
  f = dense<["a", "bc"]> : tensor<2x!t.str>,
  g = dense<> : tensor<0xi32>,
  h = dense<[7, -8, 15]> : tensor<3xi4>,
  i = dense<[1, -2, 1, 0]> : vector<4xi2>,
  j = dense<5> : tensor<2x3xi8>,
  k = dense<"0x0000803F"> : tensor<2xf32>
} : () -> ()

// Large dense data prints as hex.
// CHECK: "t.big"() {a = dense<"0x000102030405
"t.big"() {a = dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100]> : tensor<101xi8>} : () -> ()

// CHECK: "t.sparse"() {a = sparse<{{\[\[}}0, 0], [1, 2]], [1, 5]> : tensor<3x4xi32>}
"t.sparse"() {a = sparse<[[0, 0], [1, 2]], [1, 5]> : tensor<3x4xi32>} : () -> ()

// No stored elements: `sparse<>`, also when written `sparse<[], []>` (as mlir-opt).
// CHECK: "t.sparse_empty"() {a = sparse<> : tensor<4xi32>, b = sparse<> : tensor<2x3xf32>, c = sparse<> : tensor<4xi32>, d = sparse<> : tensor<i32>}
"t.sparse_empty"() {a = sparse<> : tensor<4xi32>, b = sparse<> : tensor<2x3xf32>, c = sparse<[], []> : tensor<4xi32>, d = sparse<> : tensor<i32>} : () -> ()
