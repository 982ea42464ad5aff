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

// A storage range equal to the full range of the storage type is the same type as no
// range (MLIR drops it): returning one as the other verifies.
// CHECK-LABEL: func.func @full_range
// CHECK-SAME: (%arg0: !quant.uniform<i4:f32, 5.000000e-01>) -> !quant.uniform<i4:f32, 5.000000e-01>
func.func @full_range(%a: !quant.uniform<i4<-8:7>:f32, 0.5>) -> !quant.uniform<i4:f32, 0.5> {
  return %a : !quant.uniform<i4<-8:7>:f32, 0.5>
}

// CHECK-LABEL: func.func private @full_ranges
// CHECK-SAME: !quant.uniform<i8:f32, 5.000000e-01>, !quant.uniform<u4:f32, 5.000000e-01>, !quant.uniform<u8:f32:1, {5.000000e-01,2.500000e-01}>, !quant.uniform<i16:f32, 5.000000e-01>, !quant.uniform<i8<-127:127>:f32, 5.000000e-01>, !quant.uniform<u4<1:15>:f32, 5.000000e-01:1>
func.func private @full_ranges(!quant.uniform<i8<-128:127>:f32, 0.5>, !quant.uniform<u4<0:15>:f32, 0.5>, !quant.uniform<u8<0:255>:f32:1, {0.5, 0.25}>, !quant.uniform<i16<-32768:32767>:f32, 0.5>, !quant.uniform<i8<-127:127>:f32, 0.5>, !quant.uniform<u4<1:15>:f32, 0.5:1>)

// Sub-channel (blockwise) quantization: block sizes per dimension, then the scales
// nested one brace level per dimension, printed as MLIR prints them.
// CHECK-LABEL: func.func private @sub_channel
// CHECK-SAME: tensor<2x4x!quant.uniform<u8:f32:{0:1, 1:2}, {{\{}}{2.000000e+00:120, 3.000000e+00:127}, {4.000000e+00, 5.000000e+00}}>>
// CHECK-SAME: !quant.uniform<u8:f32:{}, {{\{}}{2.000000e+00:120, 3.000000e+00:127}, {4.000000e+00, 5.000000e+00}}>
// CHECK-SAME: tensor<8x!quant.uniform<i4<-7:7>:f16:{0:4}, {5.000000e-01, 2.500000e-01:-1}>>
// As in MLIR, the block sizes need not match the scales' rank at the type (ops that
// use it check that), scales are values of the expressed type (0.1 in f16 is
// 0.0999755859375) and zero points wrap to the storage width, read signed.
// CHECK-SAME: !quant.uniform<i8:f16:{0:1}, {9.997559e-02, 2.000000e+00}>
// CHECK-SAME: !quant.uniform<u8:f32:{0:1}, {2.000000e+00:-56, 3.000000e+00}>
// CHECK-SAME: !quant.uniform<i8:f32:{0:1, 0:2, 3:1}, {{\{\{}}{1.000000e+00}}}>
func.func private @sub_channel(tensor<2x4x!quant.uniform<u8:f32:{0:1, 1:2}, {{2.0:120,3.0:127}, {4.0,5.0}}>>, !quant.uniform<u8:f32:{}, {{2.0:120,3.0:127}, {4.0,5.0}}>, tensor<8x!quant.uniform<i4<-7:7>:f16:{0:4}, {0.5, 0.25:-1}>>, !quant.uniform<i8:f16:{0:1}, {0.1, 2.0}>, !quant.uniform<u8:f32:{0:1}, {2.0:200, 3.0:256}>, !quant.uniform<i8:f32:{0:1, 0:2, 3:1}, {{{1.0}}}>)
