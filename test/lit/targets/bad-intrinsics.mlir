// Mistakes in a target file's intrinsics are errors at their line and column, and
// nothing runs.
// RUN: not acc-opt --target %S/Inputs/bad-intrinsics.acc %s 2>&1 | FileCheck %s
// RUN: not acc-opt --target %S/Inputs/bad-intrinsic-devices.acc %s 2>&1 | FileCheck %s --check-prefix=DEVICES

// CHECK: error: unknown function 'size': acc provides dim, rank, elements, storage_bits, is_signed, storage_min, storage_max, act_min, act_max, zero_point, scale, same_quantization, weight_sum, element, q31_multiplier, q31_shift, at, int, real, min, max
// CHECK-NEXT: bad-intrinsics.acc:7:11
// CHECK: error: '%z' is not defined
// CHECK-NEXT: bad-intrinsics.acc:12:14
// CHECK: error: 'dim' takes 2 arguments, not 1
// CHECK-NEXT: bad-intrinsics.acc:16:10
// CHECK: error: this argument of 'dim' must be a value (%name)
// CHECK-NEXT: bad-intrinsics.acc:21:15
// CHECK: error: unknown op 'graph.frobnicate' in a pattern
// CHECK-NEXT: bad-intrinsics.acc:25:18
// CHECK: error: unknown requantization scheme 'tflite': acc provides float, fixed_point
// CHECK-NEXT: bad-intrinsics.acc:30:13
// CHECK: error: 'scales' is a parameter of the float requantization scheme, not of fixed_point
// CHECK-NEXT: bad-intrinsics.acc:36:22
// CHECK: error: an intrinsic's match is one op, not 2: a library function computing several ops is not lowered as one call yet (a ReLU, ReLU6 or Clip after a quantized op reaches its call as act_min(%y) and act_max(%y))
// CHECK-NEXT: bad-intrinsics.acc:40:12
// CHECK: error: 'multipliers' is a parameter of the fixed_point requantization scheme, not of float
// CHECK-NEXT: bad-intrinsics.acc:47:22
// CHECK: error: 'shifts' is a parameter of the fixed_point requantization scheme, not of float
// CHECK-NEXT: bad-intrinsics.acc:48:10
// CHECK: error: 'multipliers' and 'shifts' are given together or not at all
// CHECK-NEXT: bad-intrinsics.acc:50:13
// CHECK: error: weight_sum(...) and element(...) give a number per channel: use them in a table (i32_table, q31_multipliers, ...)
// CHECK-NEXT: bad-intrinsics.acc:58:22
// CHECK: error: weight_sum(...) and element(...) give a number per channel: use them in a table (i32_table, q31_multipliers, ...)
// CHECK-NEXT: bad-intrinsics.acc:58:45
// CHECK: error: 'input_offset' is not a parameter of 'graph.qadd': it takes input1_offset, input1_multiplier, input1_shift, input2_offset, input2_multiplier, input2_shift, left_shift, output_multiplier, output_shift, output_offset
// CHECK-NEXT: bad-intrinsics.acc:63:22
// CHECK: error: 'bias' must be an int32 table: added to each output channel's accumulator (the bias operand)
// CHECK-NEXT: bad-intrinsics.acc:68:22
// CHECK: error: 'weights': no parameter of an op's semantics is a buffer, packed bytes, an int16 table or a float scalar
// CHECK-NEXT: bad-intrinsics.acc:68:44
// CHECK: error: 'output_offset' is given twice
// CHECK-NEXT: bad-intrinsics.acc:75:41
// CHECK: error: 'kernel_sum' already holds the bias and the input offset: not with 'bias' or 'input_offset'
// CHECK-NEXT: bad-intrinsics.acc:70:13
// CHECK: error: a real number where an integer is computed: reals go in tables, f32(...), q31_multiplier(...) and q31_shift(...)
// CHECK-NEXT: bad-intrinsics.acc:79:10
// CHECK: error: i32_table: a table of 0 entries (1 to 65536)
// CHECK-NEXT: bad-intrinsics.acc:84:32
// CHECK: error: requant_scales: a table of 70000 entries (1 to 65536)
// CHECK-NEXT: bad-intrinsics.acc:84:66
// DEVICES: error: intrinsic 'relu' runs on an undeclared device 'dsp'
// DEVICES-NEXT: bad-intrinsic-devices.acc:5:21
// DEVICES: error: intrinsic 'twice' is declared twice
// DEVICES-NEXT: bad-intrinsic-devices.acc:13:13
func.func @f() {
  return
}
