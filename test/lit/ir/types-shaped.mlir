// Vector (with scalable dims), tensor (ranked, unranked, encoded) and memref (affine
// map and strided layouts, memory spaces) types.
// RUN: acc-opt --allow-unregistered-dialect %s | FileCheck %s
// RUN: acc-opt --allow-unregistered-dialect --print-generic %s | acc-opt --allow-unregistered-dialect | FileCheck %s

// CHECK: "t.vectors"() {a = vector<4xf32>, b = vector<2x[4]xi8>, c = vector<[8]xf16>, d = vector<f32>}
"t.vectors"() {a = vector<4xf32>, b = vector<2x[4]xi8>, c = vector<[8]xf16>, d = vector<f32>} : () -> ()

// CHECK: "t.tensors"() {a = tensor<2x3xf32>, b = tensor<?x?xi8>, c = tensor<*xf32>, d = tensor<f64>, e = tensor<0x4xi4>, f = tensor<4xi8, "nchw16c">, g = tensor<1x16x16x8xi2, {layout = "NHWC"}>}
"t.tensors"() {a = tensor<2x3xf32>, b = tensor<?x?xi8>, c = tensor<*xf32>, d = tensor<f64>, e = tensor<0x4xi4>, f = tensor<4xi8, "nchw16c">, g = tensor<1x16x16x8xi2, {layout = "NHWC"}>} : () -> ()

// CHECK: "t.memrefs"() {a = memref<4x4xf32>, b = memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>>, c = memref<?x8xi8, strided<[8, 1], offset: ?>>, d = memref<16xf32, 1>, e = memref<16xf32, strided<[1]>, 2>, f = memref<*xf32>, g = memref<*xi8, 3>, h = memref<8xi8, "sram">}
"t.memrefs"() {a = memref<4x4xf32>, b = memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>>, c = memref<?x8xi8, strided<[8, 1], offset: ?>>, d = memref<16xf32, 1>, e = memref<16xf32, strided<[1], offset: 0>, 2>, f = memref<*xf32>, g = memref<*xi8, 3>, h = memref<8xi8, "sram">} : () -> ()
