// An intrinsic may take a constant operand in the layout its device reads:
// tinynpu's int4 convolution takes its weights packed two per byte (`packed(%w)` in
// the target file), computed at compile time; the call's semantics region rebuilds
// the constant it no longer receives, so --check-semantics still compares the call
// with the convolution. An operand that is not a constant cannot be packed: the
// intrinsic refuses the op, and the remark says why.
// RUN: acc-opt --target %S/../../../examples/targets/tinynpu.acc --pass partition --verify-diagnostics %s
// RUN: acc-opt --check-semantics --target %S/../../../examples/targets/tinynpu.acc --pass partition,graph-to-tensor,bufferize,buffer-deallocation,memory-plan %s | FileCheck %s
// The lowered IR parses back.
// RUN: acc-opt --target %S/../../../examples/targets/tinynpu.acc --pass partition,graph-to-tensor,bufferize %s | acc-opt --verify-each | FileCheck %s --check-prefix=ROUND
// ROUND: hw.intrinsic "npu_conv2d_s4"

!x = !quant.uniform<i4:f32, 2.500000e-01:1>
!w = !quant.uniform<i4:f32:0, {5.000000e-01,2.500000e-01}>
!y = !quant.uniform<i4:f32, 5.000000e-01:-1>

// The weights 1, -2, 7, -8 (one input channel: OHWI is OIHW's order) packed low
// nibble first: 0xE1 and 0x87.
// CHECK-LABEL: func.func @packed(
// The call reads the packed bytes from the accelerator's local memory.
// CHECK-DAG: %[[PACKED:.*]] = loop.constant dense<[-31, -121]> : tensor<2xi8> to memref<2xi8>
// CHECK-DAG: hw.dma_start %{{[0-9]+}}, %[[X:[0-9]+]] {call = "npu_dma"} : memref<1x3x3x1x!quant.uniform<i4:f32, 2.500000e-01:1>> to
// CHECK-DAG: hw.dma_start %[[PACKED]], %[[LOCAL:[0-9]+]] {call = "npu_dma"} : memref<2xi8> to memref<2xi8, "npu_local">
// CHECK: hw.intrinsic "npu_conv2d_s4"(%[[X]], %[[LOCAL]], %{{[0-9]+}}, %{{[0-9]+}}, {{.*}}) {inputs = array<i64: 0, 2>, outputs = array<i64: 3>}
// CHECK: semantics {
// The call reads the input NHWC (the target's `layout`), so the region transposes
// it back before the convolution and the result after it.
// CHECK-NEXT: ^bb0(%[[ARG:.*]]: tensor<1x3x3x1x!quant.uniform<i4:f32, 2.500000e-01:1>>, %{{.*}}: tensor<2xi32>):
// CHECK-NEXT: graph.transpose %[[ARG]] {hw.layout, perm = array<i64: 0, 3, 1, 2>}
// CHECK-NEXT: arith.constant dense<{{\[}}[{{\[}}[1, -2]]], {{\[}}[{{\[}}7, -8]]]]> : tensor<2x1x1x2xi4>
// CHECK-NEXT: tensor.bitcast
// CHECK-NEXT: %[[CONV:.*]] = graph.qconv2d
// CHECK-NEXT: graph.transpose %[[CONV]] {hw.layout, perm = array<i64: 0, 2, 3, 1>}
func.func @packed(%x: tensor<1x1x3x3x!x>) -> tensor<1x2x3x2x!y> {
  %wi = graph.constant dense<[[[[1, -2]]], [[[7, -8]]]]> : tensor<2x1x1x2xi4>
  // expected-remark @+1 {{'graph.storage_cast' stays on cpu: no intrinsic of target 'tinynpu' computes 'graph.storage_cast'}}
  %w = graph.storage_cast %wi : tensor<2x1x1x2xi4> to tensor<2x1x1x2x!w>
  %b = graph.constant dense<[3, -1]> : tensor<2xi32>
  %y = graph.qconv2d %x, %w, %b : (tensor<1x1x3x3x!x>, tensor<2x1x1x2x!w>, tensor<2xi32>) -> tensor<1x2x3x2x!y>
  return %y : tensor<1x2x3x2x!y>
}

// Weights with two input channels: OHWI puts each position's channels together,
// 1, 3 then 2, 4, packed to 0x31 and 0x42.
// CHECK-LABEL: func.func @reordered(
// CHECK: loop.constant dense<[49, 66]> : tensor<2xi8> to memref<2xi8>
// CHECK: hw.intrinsic "npu_conv2d_s4"
func.func @reordered(%x: tensor<1x2x3x3x!x>) -> tensor<1x1x3x2x!y> {
  %wi = graph.constant dense<[[[[1, 2]], [[3, 4]]]]> : tensor<1x2x1x2xi4>
  // expected-remark @+1 {{'graph.storage_cast' stays on cpu}}
  %w = graph.storage_cast %wi : tensor<1x2x1x2xi4> to tensor<1x2x1x2x!quant.uniform<i4:f32, 5.000000e-01>>
  %b = graph.constant dense<[2]> : tensor<1xi32>
  %y = graph.qconv2d %x, %w, %b : (tensor<1x2x3x3x!x>, tensor<1x2x1x2x!quant.uniform<i4:f32, 5.000000e-01>>, tensor<1xi32>) -> tensor<1x1x3x2x!y>
  return %y : tensor<1x1x3x2x!y>
}

func.func @not_constant(%x: tensor<1x1x3x3x!x>, %w: tensor<2x1x1x2x!w>) -> tensor<1x2x3x2x!y> {
  %b = graph.constant dense<[3, -1]> : tensor<2xi32>
  // expected-remark @+1 {{'graph.qconv2d' stays on cpu: 'npu_conv2d_s8' refuses it: 'storage_bits(%x) == 8' does not hold (4 == 8); 'npu_conv2d_s4' refuses it: packed: the value is not a constant; 'npu_dwconv2d_s8' refuses it: 'storage_bits(%x) == 8' does not hold (4 == 8)}}
  %y = graph.qconv2d %x, %w, %b : (tensor<1x1x3x3x!x>, tensor<2x1x1x2x!w>, tensor<2xi32>) -> tensor<1x2x3x2x!y>
  return %y : tensor<1x2x3x2x!y>
}
