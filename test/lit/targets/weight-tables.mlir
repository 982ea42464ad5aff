// Tables a target file computes from constant weights (Inputs/weight-tables.acc):
// `element(%c) - zero_point(%a) * weight_sum(%b, 1)` per output column, the bias
// with the input's offset folded in. Columns sum to 1 + 3 + 5 = 9 and 2 + 4 - 6 = 0,
// so with zero point 4 the entries are 10 - 36 = -26 and -20. The bias reaches the
// library only through the table: the call does not pass its buffer.
// RUN: acc-opt --target %S/Inputs/weight-tables.acc --check-semantics --pass partition,weight-prep,graph-to-tensor,bufferize %s | FileCheck %s
// RUN: acc-opt --target %S/Inputs/weight-tables.acc --pass partition --remarks %s 2>&1 | FileCheck %s --check-prefix=REMARK

// CHECK-LABEL: func.func @fc(
// CHECK-DAG: loop.constant dense<[-26, -20]> : tensor<2xi32> to memref<2xi32>
// CHECK-DAG: loop.constant dense<[1, 3, 5, 2, 4, -6]> : tensor<6xi8> to memref<6xi8>
// Along the rows: 1 + 2, 3 + 4, 5 - 6.
// CHECK-DAG: loop.constant dense<[3, 7, -1]> : tensor<3xi32> to memref<3xi32>
// Real literals: 0.25 * 0.5 as a float, 1.5e1 * 2 in a table.
// CHECK-DAG: arith.constant 1.250000e-01 : f32
// CHECK-DAG: loop.constant dense<30> : tensor<2xi32> to memref<2xi32>
// CHECK: hw.intrinsic "fc_kernel_sum"
func.func @fc(%a: tensor<1x3x!quant.uniform<i8:f32, 0.5:4>>) -> tensor<1x2x!quant.uniform<i8:f32, 0.25:-1>> {
  %bi = graph.constant dense<[[1, 2], [3, 4], [5, -6]]> : tensor<3x2xi8>
  %b = graph.storage_cast %bi : tensor<3x2xi8> to tensor<3x2x!quant.uniform<i8:f32, 0.25>>
  %c = graph.constant dense<[10, -20]> : tensor<2xi32>
  %y = graph.qmatmul %a, %b, %c {requant = #graph.requantization<fixed_point>} : (tensor<1x3x!quant.uniform<i8:f32, 0.5:4>>, tensor<3x2x!quant.uniform<i8:f32, 0.25>>, tensor<2xi32>) -> tensor<1x2x!quant.uniform<i8:f32, 0.25:-1>>
  return %y : tensor<1x2x!quant.uniform<i8:f32, 0.25:-1>>
}

// A bias that is not a constant has no elements to read at compile time; a sum
// along a dimension the weights lack is refused.
// REMARK: 'graph.qmatmul' stays on cpu: 'fc_kernel_sum' refuses it: i32_table: element: the value is not a constant; 'fc_bad_axis' refuses it: i32_table: weight_sum: no dimension 5 in a shape of rank 2
func.func @fc_dynamic_bias(%a: tensor<1x3x!quant.uniform<i8:f32, 0.5:4>>, %c: tensor<2xi32>) -> tensor<1x2x!quant.uniform<i8:f32, 0.25:-1>> {
  %bi = graph.constant dense<[[1, 2], [3, 4], [5, -6]]> : tensor<3x2xi8>
  %b = graph.storage_cast %bi : tensor<3x2xi8> to tensor<3x2x!quant.uniform<i8:f32, 0.25>>
  %y = graph.qmatmul %a, %b, %c {requant = #graph.requantization<fixed_point>} : (tensor<1x3x!quant.uniform<i8:f32, 0.5:4>>, tensor<3x2x!quant.uniform<i8:f32, 0.25>>, tensor<2xi32>) -> tensor<1x2x!quant.uniform<i8:f32, 0.25:-1>>
  return %y : tensor<1x2x!quant.uniform<i8:f32, 0.25:-1>>
}

// An average pool keeping its input's quantization is the library's; one into
// another scale is not.
// REMARK: 'graph.qavg_pool' {{.*}} 'avg_same' refuses it: 'same_quantization(%x, %y) == 1' does not hold (0 == 1)
// CHECK-LABEL: func.func @pools(
// CHECK: hw.intrinsic "avg_same"
func.func @pools(%x: tensor<1x2x4x4x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<1x2x1x1x!quant.uniform<i8:f32, 0.2:0>> {
  %p = graph.qavg_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, requant = #graph.requantization<fixed_point>} : (tensor<1x2x4x4x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<1x2x2x2x!quant.uniform<i8:f32, 0.5:1>>
  %g = graph.qavg_pool %p {kernel_shape = array<i64: 2, 2>, requant = #graph.requantization<fixed_point>} : (tensor<1x2x2x2x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<1x2x1x1x!quant.uniform<i8:f32, 0.2:0>>
  return %g : tensor<1x2x1x1x!quant.uniform<i8:f32, 0.2:0>>
}
