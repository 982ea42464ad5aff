// An op an intrinsic refuses whole because a condition bounds a dimension the
// tiles split (here at most 8 output columns a call) is split by tensorize into
// tiles the intrinsic accepts, the largest it takes, each placed on it.
// RUN: acc-opt --target %S/Inputs/limited-npu.acc --pass partition,tensorize --verify-diagnostics %s
// RUN: acc-opt --check-semantics --target %S/Inputs/limited-npu.acc --pass partition,tensorize,graph-to-tensor,bufferize %s 2>/dev/null | FileCheck %s

// CHECK-LABEL: func.func @fc(
// CHECK-COUNT-3: hw.intrinsic "fc_s8"(%arg0, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, {{[^)]*}}) {inputs = array<i64: 0, 1, 2>, outputs = array<i64: 3>} : (memref<1x40x!quant.uniform<i8:f32, 1.000000e-02:3>>, memref<40x8x
// CHECK-NOT: hw.intrinsic
// CHECK: return
func.func @fc(%a: tensor<1x40x!quant.uniform<i8:f32, 1.000000e-02:3>>) -> tensor<1x24x!quant.uniform<i8:f32, 5.000000e-02:-1>> {
  %wi = graph.constant dense<3> : tensor<40x24xi8>
  // expected-remark @+1 {{'graph.storage_cast' stays on cpu}}
  %w = graph.storage_cast %wi : tensor<40x24xi8> to tensor<40x24x!quant.uniform<i8:f32:1, {1.0e-2,2.0e-2,3.0e-2,4.0e-2,5.0e-2,6.0e-2,7.0e-2,8.0e-2,1.0e-2,2.0e-2,3.0e-2,4.0e-2,5.0e-2,6.0e-2,7.0e-2,8.0e-2,1.0e-2,2.0e-2,3.0e-2,4.0e-2,5.0e-2,6.0e-2,7.0e-2,8.0e-2}>>
  %c = graph.constant dense<[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24]> : tensor<24xi32>
  // expected-remark @+2 {{'graph.qmatmul' stays on cpu: 'fc_s8' refuses it: 'dim(%b, 1) <= 8' does not hold (24 <= 8)}}
  // expected-remark @+1 {{tensorize: 'fc_s8' computes this in 3 tiles of 8 channels (it refuses the whole op)}}
  %y = graph.qmatmul %a, %w, %c : (tensor<1x40x!quant.uniform<i8:f32, 1.000000e-02:3>>, tensor<40x24x!quant.uniform<i8:f32:1, {1.0e-2,2.0e-2,3.0e-2,4.0e-2,5.0e-2,6.0e-2,7.0e-2,8.0e-2,1.0e-2,2.0e-2,3.0e-2,4.0e-2,5.0e-2,6.0e-2,7.0e-2,8.0e-2,1.0e-2,2.0e-2,3.0e-2,4.0e-2,5.0e-2,6.0e-2,7.0e-2,8.0e-2}>>, tensor<24xi32>) -> tensor<1x24x!quant.uniform<i8:f32, 5.000000e-02:-1>>
  return %y : tensor<1x24x!quant.uniform<i8:f32, 5.000000e-02:-1>>
}

// A refusal no tile can lift (a 4-bit operand) leaves the op on the host.
// CHECK-LABEL: func.func @wrong_type(
// CHECK-NOT: hw.intrinsic
// CHECK: return
func.func @wrong_type(%a: tensor<1x4x!quant.uniform<i4:f32, 1.000000e-02>>) -> tensor<1x16x!quant.uniform<i8:f32, 5.000000e-02>> {
  %wi = graph.constant dense<1> : tensor<4x16xi8>
  // expected-remark @+1 {{'graph.storage_cast' stays on cpu}}
  %w = graph.storage_cast %wi : tensor<4x16xi8> to tensor<4x16x!quant.uniform<i8:f32, 1.000000e-02>>
  %c = graph.constant dense<0> : tensor<16xi32>
  // expected-remark @+1 {{'graph.qmatmul' stays on cpu: 'fc_s8' refuses it: 'storage_bits(%a) == 8' does not hold (4 == 8)}}
  %y = graph.qmatmul %a, %w, %c : (tensor<1x4x!quant.uniform<i4:f32, 1.000000e-02>>, tensor<4x16x!quant.uniform<i8:f32, 1.000000e-02>>, tensor<16xi32>) -> tensor<1x16x!quant.uniform<i8:f32, 5.000000e-02>>
  return %y : tensor<1x16x!quant.uniform<i8:f32, 5.000000e-02>>
}
