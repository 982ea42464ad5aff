// Shaped and complex types are checked when parsed, as MLIR checks them: element
// types, and memref layouts against the rank. The errors point at the type.
// RUN: acc-opt --split-input-file --verify-diagnostics --allow-unregistered-dialect %s
// RUN: not acc-opt --split-input-file --allow-unregistered-dialect %s 2>&1 | FileCheck %s

// CHECK: error: expected the number of strides to match the rank
// CHECK-NEXT: invalid-types.mlir:[[# @LINE + 2]]:14
// expected-error @+1 {{expected the number of strides to match the rank}}
"t.a"() {a = memref<4x4xf32, strided<[1]>>} : () -> ()

// -----

// expected-error @+1 {{memref layout mismatch between rank and affine map: 1 != 2}}
"t.a"() {a = memref<4xf32, affine_map<(d0, d1) -> (d0)>>} : () -> ()

// -----

// expected-error @+1 {{cannot have affine map for unranked memref type}}
"t.a"() {a = memref<*xf32, strided<[1]>>} : () -> ()

// -----

// CHECK: error: invalid element type for complex
// CHECK-NEXT: invalid-types.mlir:[[# @LINE + 2]]:22
// expected-error @+1 {{invalid element type for complex}}
"t.a"() {a = complex<tensor<i32>>} : () -> ()

// -----

// expected-error @+1 {{invalid element type for complex}}
"t.a"() {a = complex<index>} : () -> ()

// -----

// CHECK: error: invalid vector element type
// CHECK-NEXT: invalid-types.mlir:[[# @LINE + 2]]:14
// expected-error @+1 {{invalid vector element type: expected an integer, index or float type}}
"t.a"() {a = vector<4xtensor<i32>>} : () -> ()

// -----

// expected-error @+1 {{invalid vector element type}}
"t.a"() {a = vector<4xcomplex<f32>>} : () -> ()

// -----

// CHECK: error: invalid memref element type
// CHECK-NEXT: invalid-types.mlir:[[# @LINE + 2]]:23
// expected-error @+1 {{invalid memref element type}}
"t.a"() {a = memref<4xtensor<i32>>} : () -> ()

// -----

// expected-error @+1 {{invalid memref element type}}
"t.a"() {a = memref<4x!t.opaque>} : () -> ()

// -----

// expected-error @+1 {{invalid memref element type}}
"t.a"() {a = memref<*xnone>} : () -> ()

// -----

// CHECK: error: invalid tensor element type
// CHECK-NEXT: invalid-types.mlir:[[# @LINE + 2]]:23
// expected-error @+1 {{invalid tensor element type}}
"t.a"() {a = tensor<4xtensor<i32>>} : () -> ()

// -----

// expected-error @+1 {{invalid tensor element type}}
"t.a"() {a = tensor<*xmemref<f32>>} : () -> ()

// -----

// expected-error @+1 {{invalid tensor element type}}
"t.a"() {a = tensor<4xtuple<i32>>} : () -> ()

// -----

// What MLIR allows stays allowed.
"t.ok"() {a = complex<i32>, b = vector<4xindex>, c = memref<4xvector<4xf32>>, d = memref<4xcomplex<f32>>, e = memref<4xmemref<*xf32>>, f = tensor<4xvector<4xf32>>, g = tensor<4x!t.opaque>, h = tensor<4x!quant.uniform<i8:f32, 0.5>>, i = memref<4x4xf32, strided<[4, 1]>>, j = memref<4xf32, affine_map<(d0)[s0] -> (d0 + s0)>>, k = memref<*xf32, 1>} : () -> ()
