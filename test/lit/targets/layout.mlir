// Activation layouts from the target file: tinynpu's int4 convolutions read and
// write NHWC (`layout %x (0, 2, 3, 1), %y (0, 2, 3, 1)`), its activation unit any
// layout (`layout %y like %x`). In a chain conv -> table -> conv the value passes
// between the three calls as it is, in the accelerator's local memory; it is
// transposed once where it enters from the host and once where it leaves.
// RUN: acc-opt --check-semantics --target %S/../../../examples/targets/tinynpu.acc --pass partition,tensorize,graph-to-tensor,bufferize,buffer-deallocation,memory-plan %s 2>/dev/null | FileCheck %s
// A layout that does not fit the value refuses the op, and the remark says so.
// RUN: acc-opt --target %S/Inputs/layout-npu.acc --pass partition --verify-diagnostics %s
// Mistakes in layouts are errors at their line and column.
// RUN: not acc-opt --target %S/Inputs/bad-layout.acc %s 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: layout [0, 0, 1] is not a permutation of dimensions 0 to 2
// BAD-NEXT: bad-layout.acc:8:12
// BAD: error: '%z' is not defined
// BAD-NEXT: bad-layout.acc:8:34
// BAD: error: layout "NC16cHW": acc's buffers hold at most one block, innermost (as "NCHW16c")
// BAD-NEXT: bad-layout.acc:21:12
// BAD: error: layout "NCH16c" must store each dimension of "NCHW" once
// BAD-NEXT: bad-layout.acc:21:36
// BAD: error: layout "NC16c" names the value's dimensions: it has no blocks
// BAD-NEXT: bad-layout.acc:28:12
// BAD: error: layout "NCHW8h16c": acc's buffers hold at most one block, innermost (as "NCHW16c")
// BAD-NEXT: bad-layout.acc:28:34

!x = !quant.uniform<i4:f32, 2.500000e-01:1>
!w = !quant.uniform<i4:f32, 5.000000e-01>
!y = !quant.uniform<i4:f32, 5.000000e-01:-1>
!z = !quant.uniform<i4:f32, 2.500000e-01>

// The input enters NHWC through one transposing copy.
// CHECK-LABEL: func.func @chain(
// CHECK: %[[NHWC:[a-z0-9]+]] = loop.alloc() {offset = {{[0-9]+}} : i64} : memref<1x4x4x2x!quant.uniform<i4:f32, 2.500000e-01:1>>
// CHECK: loop.parallel (%[[N:[a-z0-9]+]], %[[H:[a-z0-9]+]], %[[W:[a-z0-9]+]], %[[C:[a-z0-9]+]]) =
// CHECK-NEXT: loop.load %arg0[%[[N]], %[[C]], %[[H]], %[[W]]]
// CHECK-NEXT: loop.store %{{[0-9]+}}, %[[NHWC]][%[[N]], %[[H]], %[[W]], %[[C]]]
// CHECK: hw.dma_start %[[NHWC]], %[[XL:[0-9]+]] {call = "npu_dma"}
// CHECK: hw.intrinsic "npu_conv2d_s4"(%[[XL]], %{{[0-9]+}}, %{{[0-9]+}}, %[[Y1:[0-9]+]],
// CHECK-SAME: memref<1x4x4x2x!quant.uniform<i4:f32, 5.000000e-01:-1>, "npu_local">
// Nothing is reformatted or copied back between the calls.
// CHECK-NOT: loop.parallel
// CHECK-NOT: hw.dma_start %[[Y1]]
// CHECK: hw.intrinsic "npu_lut_s4"(%[[Y1]], %{{[0-9]+}}, %[[Y2:[0-9]+]],
// CHECK-SAME: (memref<1x4x4x2x!quant.uniform<i4:f32, 5.000000e-01:-1>, "npu_local">, memref<16xi4, "npu_local">, memref<1x4x4x2x!quant.uniform<i4:f32, 2.500000e-01:1>, "npu_local">, i32) -> () semantics {
// CHECK-NEXT: ^bb0(%[[A:[a-z0-9]+]]: tensor<1x4x4x2x{{[^>]*}}>>, %{{[a-z0-9]+}}: tensor<16xi4>):
// CHECK-NEXT: %[[BACK:[a-z0-9]+]] = graph.transpose %[[A]] {hw.layout, perm = array<i64: 0, 3, 1, 2>}
// CHECK-NEXT: %[[L:[a-z0-9]+]] = graph.lookup %[[BACK]], %{{[a-z0-9]+}}
// CHECK-NEXT: %[[OUT:[a-z0-9]+]] = graph.transpose %[[L]] {hw.layout, perm = array<i64: 0, 2, 3, 1>}
// CHECK-NEXT: hw.yield %[[OUT]]
// CHECK-NOT: loop.parallel
// CHECK-NOT: hw.dma_start %[[Y2]]
// CHECK: hw.intrinsic "npu_conv2d_s4"(%[[Y2]],
// The result leaves through one copy back and one transposing copy.
// CHECK: hw.dma_start %{{[0-9]+}}, %[[HOME:[0-9]+]] {call = "npu_dma"}
// CHECK: %[[NCHW:[a-z0-9]+]] = loop.alloc() {offset = {{[0-9]+}} : i64} : memref<1x2x4x4x!quant.uniform<i4:f32, 2.500000e-01>>
// CHECK: loop.parallel (%[[N2:[a-z0-9]+]], %[[C2:[a-z0-9]+]], %[[H2:[a-z0-9]+]], %[[W2:[a-z0-9]+]]) =
// CHECK-NEXT: loop.load %[[HOME]][%[[N2]], %[[H2]], %[[W2]], %[[C2]]]
func.func @chain(%x: tensor<1x2x4x4x!x>) -> tensor<1x2x4x4xf32> {
  %wi = graph.constant dense<[[[[1]], [[-2]]], [[[3]], [[-4]]]]> : tensor<2x2x1x1xi4>
  // expected-remark @+1 {{'graph.storage_cast' stays on cpu}}
  %w = graph.storage_cast %wi : tensor<2x2x1x1xi4> to tensor<2x2x1x1x!w>
  %b = graph.constant dense<[3, -1]> : tensor<2xi32>
  // expected-remark @+1 {{'graph.qconv2d' stays on cpu: no intrinsic of target 'layoutnpu' computes 'graph.qconv2d'}}
  %c1 = graph.qconv2d %x, %w, %b : (tensor<1x2x4x4x!x>, tensor<2x2x1x1x!w>, tensor<2xi32>) -> tensor<1x2x4x4x!y>
  %t = graph.constant dense<[-8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7]> : tensor<16xi4>
  %l = graph.lookup %c1, %t : (tensor<1x2x4x4x!y>, tensor<16xi4>) -> tensor<1x2x4x4x!x>
  // expected-remark @+1 {{'graph.qconv2d' stays on cpu: no intrinsic of target 'layoutnpu' computes 'graph.qconv2d'}}
  %c2 = graph.qconv2d %l, %w, %b : (tensor<1x2x4x4x!x>, tensor<2x2x1x1x!w>, tensor<2xi32>) -> tensor<1x2x4x4x!z>
  // expected-remark @+1 {{'graph.dequantize' stays on cpu}}
  %r = graph.dequantize %c2 : tensor<1x2x4x4x!z> to tensor<1x2x4x4xf32>
  return %r : tensor<1x2x4x4xf32>
}

// A table lookup on a matrix: lut_nhwc's layout needs four dimensions.
func.func @matrix(%x: tensor<2x3x!quant.uniform<i8:f32, 1.000000e-01>>) -> tensor<2x3x!quant.uniform<i8:f32, 1.000000e-01>> {
  %t = graph.constant dense<1> : tensor<256xi8>
  // expected-remark @+1 {{'graph.lookup' stays on cpu: 'lut_nhwc' refuses it: layout [0, 2, 3, 1] has 4 dimensions, its value has 2; 'lut_any' refuses it: 'storage_bits(%x) == 4' does not hold (8 == 4)}}
  %y = graph.lookup %x, %t : (tensor<2x3x!quant.uniform<i8:f32, 1.000000e-01>>, tensor<256xi8>) -> tensor<2x3x!quant.uniform<i8:f32, 1.000000e-01>>
  return %y : tensor<2x3x!quant.uniform<i8:f32, 1.000000e-01>>
}
