// Values in an intrinsic's layout through views (examples/targets/mcunpu.acc, whose
// pools read and write NHWC): the host's quantization of the input writes NHWC
// itself (no transposing copy after it); the bitcast between a quantized value and
// its stored integers keeps the layout (none before the max pool); and the
// pool's 1 x 1 plane is NCHW as it is (a view, no copy, before the flatten).
// Only the quantization and the dequantization are loop nests, and with scales
// that are f32s (as ONNX's are) they compute in f32 alone: the same bits as f64,
// and no double-precision routines on a host without them.
// RUN: acc-opt --check-semantics --target %S/../../../examples/targets/mcunpu.acc --pass partition,graph-to-tensor,bufferize %s | FileCheck %s

!q = !quant.uniform<i8:f32, 6.250000e-02:1>

// CHECK-LABEL: func.func @views(
// CHECK: %[[NHWC:[0-9]+]] = loop.alloc() : memref<1x4x4x2xi8>
// CHECK: loop.parallel (%[[N:[a-z0-9]+]], %[[H:[a-z0-9]+]], %[[W:[a-z0-9]+]], %[[C:[a-z0-9]+]]) =
// CHECK-NEXT: loop.load %arg0[%[[N]], %[[C]], %[[H]], %[[W]]]
// CHECK-NOT: f64
// CHECK: arith.divf {{.*}} : f32
// CHECK-NOT: f64
// CHECK: loop.store %{{[0-9]+}}, %[[NHWC]][%[[N]], %[[H]], %[[W]], %[[C]]]
// CHECK: %[[XQ:[0-9]+]] = loop.reshape %[[NHWC]] : memref<1x4x4x2xi8> to memref<1x4x4x2x!quant.uniform<i8:f32, 6.250000e-02:1>>
// CHECK-NOT: loop.parallel
// CHECK: hw.intrinsic "mcunpu_avgpool_s8"(%[[XQ]], %[[A:[0-9]+]],
// CHECK-NOT: loop.parallel
// CHECK: %[[AI:[0-9]+]] = loop.reshape %[[A]] : memref<1x2x2x2x!quant.uniform<i8:f32, 6.250000e-02:1>> to memref<1x2x2x2xi8>
// CHECK-NOT: loop.parallel
// CHECK: hw.intrinsic "mcunpu_max_pool_s8"(%[[AI]], %[[M:[0-9]+]],
// CHECK-NOT: loop.parallel
// CHECK: loop.reshape %[[M]] : memref<1x1x1x2xi8> to memref<1x2x1x1xi8>
// CHECK: loop.parallel
// CHECK-NOT: f64
// CHECK: arith.mulf {{.*}} : f32
// CHECK-NOT: loop.parallel
// CHECK: return
func.func @views(%x: tensor<1x2x4x4xf32>) -> tensor<1x2xf32> {
  %q = graph.quantize %x : tensor<1x2x4x4xf32> to tensor<1x2x4x4x!q>
  %a = graph.qavg_pool %q {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, requant = #graph.requantization<fixed_point>} : (tensor<1x2x4x4x!q>) -> tensor<1x2x2x2x!q>
  %ai = graph.storage_cast %a : tensor<1x2x2x2x!q> to tensor<1x2x2x2xi8>
  %m = graph.max_pool %ai {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x2x2xi8>) -> tensor<1x2x1x1xi8>
  %f = graph.flatten %m : (tensor<1x2x1x1xi8>) -> tensor<1x2xi8>
  %fq = graph.storage_cast %f : tensor<1x2xi8> to tensor<1x2x!q>
  %y = graph.dequantize %fq : tensor<1x2x!q> to tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}
