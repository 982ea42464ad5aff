// emulate-narrow-floats: arithmetic on f16 and bf16 computed in f32 between extf and
// truncf (MLIR's arith-emulate-unsupported-floats), so that machines that only load
// and store them (Cranelift, C) can run it; loads, stores, select and the
// conversions stay. Integers convert through f64 (one rounding). Checked against the
// interpreter by --check-semantics on seeded inputs; then the whole host pipeline
// (graph-to-tensor computes f16 convolutions and matmuls in f32), the same way, and
// natively.
// RUN: acc-opt --check-semantics --pass emulate-narrow-floats %s | FileCheck %s
// RUN: acc-opt --check-semantics --target %S/../../../lowering/runtime/host.acc --pipeline host-pipeline %s | FileCheck %s --check-prefix=HOST

// CHECK-LABEL: func.func @scale
// CHECK: %[[X:.*]] = loop.load %arg0[%{{.*}}] : memref<16xf16>
// CHECK-NEXT: %[[XW:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: %[[KW:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[XW]], %[[KW]] : f32
// CHECK-NEXT: %[[MN:.*]] = arith.truncf %[[M]] : f32 to f16
// CHECK: %[[MW:.*]] = arith.extf %[[MN]] : f16 to f32
// CHECK: %[[C:.*]] = arith.cmpf ogt, %[[MW]], %{{.*}} : f32
// CHECK: arith.select %[[C]], %[[MN]], %{{.*}} : f16
// CHECK: %[[I:.*]] = arith.sitofp %{{.*}} : i32 to f64
// CHECK-NEXT: arith.truncf %[[I]] : f64 to bf16
func.func @scale(%x: memref<16xf16>, %n: memref<16xi32>) -> (memref<16xf16>, memref<16xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %k = arith.constant 1.5 : f16
  %zero = arith.constant 0.0 : f16
  %y = loop.alloc() : memref<16xf16>
  %z = loop.alloc() : memref<16xbf16>
  loop.for %i = %c0 to %c16 step %c1 {
    %v = loop.load %x[%i] : memref<16xf16>
    %m = arith.mulf %v, %k : f16
    %pos = arith.cmpf ogt, %m, %zero : f16
    %r = arith.select %pos, %m, %zero : f16
    loop.store %r, %y[%i] : memref<16xf16>
    %j = loop.load %n[%i] : memref<16xi32>
    %f = arith.sitofp %j : i32 to bf16
    loop.store %f, %z[%i] : memref<16xbf16>
    loop.yield
  }
  return %y, %z : memref<16xf16>, memref<16xbf16>
}

// HOST-LABEL: func.func @conv_silu(
// HOST: memref<1x4x6x6xf16>
// HOST-NOT: arith.addf {{.*}} : f16
// HOST-NOT: arith.mulf {{.*}} : f16
// HOST: return
func.func @conv_silu(%x: tensor<1x4x6x6xf16>, %w: tensor<8x4x3x3xf16>) -> tensor<1x8x4x4xf16> {
  %c = graph.conv2d %x, %w : (tensor<1x4x6x6xf16>, tensor<8x4x3x3xf16>) -> tensor<1x8x4x4xf16>
  %s = graph.sigmoid %c : tensor<1x8x4x4xf16>
  %y = graph.mul %c, %s : (tensor<1x8x4x4xf16>, tensor<1x8x4x4xf16>) -> tensor<1x8x4x4xf16>
  return %y : tensor<1x8x4x4xf16>
}
