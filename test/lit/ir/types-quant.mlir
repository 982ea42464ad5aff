// !quant.uniform: per-tensor and per-axis, i8/u8/i4/i2 storage, storage ranges.
// RUN: acc-opt %s | FileCheck %s
// RUN: acc-opt --print-generic %s | acc-opt | FileCheck %s

// CHECK-LABEL: func.func private @per_tensor
// CHECK-SAME: tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>
// CHECK-SAME: tensor<4x!quant.uniform<u8:f32, 1.000000e-01>>
// CHECK-SAME: tensor<4x!quant.uniform<i4<-7:7>:f32, 2.500000e-01>>
// CHECK-SAME: tensor<4x!quant.uniform<i2:f16, 1.000000e+00:1>>
func.func private @per_tensor(tensor<4x!quant.uniform<i8:f32, 0.5:-3>>, tensor<4x!quant.uniform<u8:f32, 0.1>>, tensor<4x!quant.uniform<i4<-7:7>:f32, 0.25>>, tensor<4x!quant.uniform<i2:f16, 1.0:1>>)

// CHECK-LABEL: func.func private @per_axis
// CHECK-SAME: tensor<2x3x!quant.uniform<i8<-127:127>:f32:0, {1.000000e-01,2.000000e-01:4}>>
func.func private @per_axis(tensor<2x3x!quant.uniform<i8<-127:127>:f32:0, {0.1:0, 0.2:4}>>)
