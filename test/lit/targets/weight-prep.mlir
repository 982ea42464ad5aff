// weight-prep computes the arguments a call receives in a form made at compile time
// (the target's `packed(%w, ...)` and `requant_scales(...)`), stores them on the
// placed op as `hw.prepared`, in call order, and bufferize passes them to the call as
// they are. A prepared argument that does not fit the call is an error at the op.
// RUN: acc-opt --target %S/../../../examples/targets/tinynpu.acc --pass partition,weight-prep %s --split-input-file | FileCheck %s --check-prefix=PREP
// RUN: acc-opt --remarks --target %S/../../../examples/targets/tinynpu.acc --pass partition,weight-prep %s --split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// REMARK: weight-prep: the call of 'npu_conv2d_s4' gets 2 packed weight bytes and 2 f32 table entries prepared at compile time
// RUN: acc-opt --check-semantics --target %S/../../../examples/targets/tinynpu.acc --pass partition,weight-prep,graph-to-tensor,bufferize %s --split-input-file | FileCheck %s
// RUN: acc-opt --target %S/../../../examples/targets/tinynpu.acc --pass graph-to-tensor,bufferize %s --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=GIVEN
// The prepared IR prints and parses back.
// RUN: acc-opt --target %S/../../../examples/targets/tinynpu.acc --pass partition,weight-prep %s --split-input-file | acc-opt --verify-each --split-input-file | FileCheck %s --check-prefix=PREP

!x = !quant.uniform<i4:f32, 2.500000e-01:1>
!w = !quant.uniform<i4:f32:0, {5.000000e-01,2.500000e-01}>
!y = !quant.uniform<i4:f32, 5.000000e-01:-1>

// The int4 weights 1, -2, 7, -8 packed two to a byte (0xE1, 0x87), then the
// per-channel multipliers 0.25 * 0.5 / 0.5 and 0.25 * 0.25 / 0.5.
// PREP-LABEL: func.func @packed(
// PREP: graph.qconv2d {{.*}}hw.intrinsic = "npu_conv2d_s4", hw.prepared = [dense<[-31, -121]> : tensor<2xi8>, dense<[2.500000e-01, 1.250000e-01]> : tensor<2xf32>]}
// CHECK-LABEL: func.func @packed(
// CHECK-DAG: loop.constant dense<[-31, -121]> : tensor<2xi8> to memref<2xi8>
// CHECK-DAG: loop.constant dense<[2.500000e-01, 1.250000e-01]> : tensor<2xf32> to memref<2xf32>
// The semantics region's copy of the op is not placed, and has no prepared arguments.
// CHECK-NOT: hw.prepared
// CHECK: hw.intrinsic "npu_conv2d_s4"
// CHECK-NOT: hw.prepared
// CHECK: return
func.func @packed(%x: tensor<1x1x3x3x!x>) -> tensor<1x2x3x2x!y> {
  %wi = graph.constant dense<[[[[1, -2]]], [[[7, -8]]]]> : tensor<2x1x1x2xi4>
  %w = graph.storage_cast %wi : tensor<2x1x1x2xi4> to tensor<2x1x1x2x!w>
  %b = graph.constant dense<[3, -1]> : tensor<2xi32>
  %y = graph.qconv2d %x, %w, %b : (tensor<1x1x3x3x!x>, tensor<2x1x1x2x!w>, tensor<2xi32>) -> tensor<1x2x3x2x!y>
  return %y : tensor<1x2x3x2x!y>
}

// -----

!x = !quant.uniform<i4:f32, 2.500000e-01:1>
!w = !quant.uniform<i4:f32:0, {5.000000e-01,2.500000e-01}>
!y = !quant.uniform<i4:f32, 5.000000e-01:-1>

// Given prepared arguments are what the call receives: bufferize does not compute
// them again (these bytes are not the weights' packing).
// GIVEN-LABEL: func.func @given(
// GIVEN-DAG: loop.constant dense<[5, 6]> : tensor<2xi8> to memref<2xi8>
// GIVEN-DAG: loop.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32> to memref<2xf32>
// GIVEN: hw.intrinsic "npu_conv2d_s4"
func.func @given(%x: tensor<1x1x3x3x!x>) -> tensor<1x2x3x2x!y> {
  %wi = graph.constant dense<[[[[1, -2]]], [[[7, -8]]]]> : tensor<2x1x1x2xi4>
  %w = graph.storage_cast %wi : tensor<2x1x1x2xi4> to tensor<2x1x1x2x!w>
  %b = graph.constant dense<[3, -1]> : tensor<2xi32>
  %y = graph.qconv2d %x, %w, %b {hw.device = "npu", hw.intrinsic = "npu_conv2d_s4", hw.prepared = [dense<[5, 6]> : tensor<2xi8>, dense<[1.0, 2.0]> : tensor<2xf32>]} : (tensor<1x1x3x3x!x>, tensor<2x1x1x2x!w>, tensor<2xi32>) -> tensor<1x2x3x2x!y>
  return %y : tensor<1x2x3x2x!y>
}

// -----

!x = !quant.uniform<i4:f32, 2.500000e-01:1>
!w = !quant.uniform<i4:f32:0, {5.000000e-01,2.500000e-01}>
!y = !quant.uniform<i4:f32, 5.000000e-01:-1>

func.func @too_few_bytes(%x: tensor<1x1x3x3x!x>) -> tensor<1x2x3x2x!y> {
  %wi = graph.constant dense<[[[[1, -2]]], [[[7, -8]]]]> : tensor<2x1x1x2xi4>
  %w = graph.storage_cast %wi : tensor<2x1x1x2xi4> to tensor<2x1x1x2x!w>
  %b = graph.constant dense<[3, -1]> : tensor<2xi32>
  // expected-error @+1 {{intrinsic 'npu_conv2d_s4' no longer applies: its prepared packed bytes are not as many as the value packs into}}
  %y = graph.qconv2d %x, %w, %b {hw.device = "npu", hw.intrinsic = "npu_conv2d_s4", hw.prepared = [dense<[5]> : tensor<1xi8>, dense<[1.0, 2.0]> : tensor<2xf32>]} : (tensor<1x1x3x3x!x>, tensor<2x1x1x2x!w>, tensor<2xi32>) -> tensor<1x2x3x2x!y>
  return %y : tensor<1x2x3x2x!y>
}

// -----

!x = !quant.uniform<i4:f32, 2.500000e-01:1>
!w = !quant.uniform<i4:f32:0, {5.000000e-01,2.500000e-01}>
!y = !quant.uniform<i4:f32, 5.000000e-01:-1>

func.func @table_missing(%x: tensor<1x1x3x3x!x>) -> tensor<1x2x3x2x!y> {
  %wi = graph.constant dense<[[[[1, -2]]], [[[7, -8]]]]> : tensor<2x1x1x2xi4>
  %w = graph.storage_cast %wi : tensor<2x1x1x2xi4> to tensor<2x1x1x2x!w>
  %b = graph.constant dense<[3, -1]> : tensor<2xi32>
  // expected-error @+1 {{intrinsic 'npu_conv2d_s4' no longer applies: it has no prepared argument for requant_scales(...)}}
  %y = graph.qconv2d %x, %w, %b {hw.device = "npu", hw.intrinsic = "npu_conv2d_s4", hw.prepared = [dense<[5, 6]> : tensor<2xi8>]} : (tensor<1x1x3x3x!x>, tensor<2x1x1x2x!w>, tensor<2xi32>) -> tensor<1x2x3x2x!y>
  return %y : tensor<1x2x3x2x!y>
}

// -----

!x = !quant.uniform<i4:f32, 2.500000e-01:1>
!w = !quant.uniform<i4:f32:0, {5.000000e-01,2.500000e-01}>
!y = !quant.uniform<i4:f32, 5.000000e-01:-1>

func.func @not_dense(%x: tensor<1x1x3x3x!x>) -> tensor<1x2x3x2x!y> {
  %wi = graph.constant dense<[[[[1, -2]]], [[[7, -8]]]]> : tensor<2x1x1x2xi4>
  %w = graph.storage_cast %wi : tensor<2x1x1x2xi4> to tensor<2x1x1x2x!w>
  %b = graph.constant dense<[3, -1]> : tensor<2xi32>
  // expected-error @+1 {{'hw.prepared' holds something other than f32, i32 and i16 tables and i8 bytes}}
  %y = graph.qconv2d %x, %w, %b {hw.device = "npu", hw.intrinsic = "npu_conv2d_s4", hw.prepared = [dense<[5, 6]> : tensor<2xi64>]} : (tensor<1x1x3x3x!x>, tensor<2x1x1x2x!w>, tensor<2xi32>) -> tensor<1x2x3x2x!y>
  return %y : tensor<1x2x3x2x!y>
}

// -----

!x = !quant.uniform<i4:f32, 2.500000e-01:1>
!w = !quant.uniform<i4:f32:0, {5.000000e-01,2.500000e-01}>
!y = !quant.uniform<i4:f32, 5.000000e-01:-1>

func.func @kinds_swapped(%x: tensor<1x1x3x3x!x>) -> tensor<1x2x3x2x!y> {
  %wi = graph.constant dense<[[[[1, -2]]], [[[7, -8]]]]> : tensor<2x1x1x2xi4>
  %w = graph.storage_cast %wi : tensor<2x1x1x2xi4> to tensor<2x1x1x2x!w>
  %b = graph.constant dense<[3, -1]> : tensor<2xi32>
  // expected-error @+1 {{intrinsic 'npu_conv2d_s4' no longer applies: its prepared argument for packed(...) is of another kind}}
  %y = graph.qconv2d %x, %w, %b {hw.device = "npu", hw.intrinsic = "npu_conv2d_s4", hw.prepared = [dense<[1.0, 2.0]> : tensor<2xf32>, dense<[5, 6]> : tensor<2xi8>]} : (tensor<1x1x3x3x!x>, tensor<2x1x1x2x!w>, tensor<2xi32>) -> tensor<1x2x3x2x!y>
  return %y : tensor<1x2x3x2x!y>
}

// -----

!x = !quant.uniform<i4:f32, 2.500000e-01:1>
!w = !quant.uniform<i4:f32:0, {5.000000e-01,2.500000e-01}>
!y = !quant.uniform<i4:f32, 5.000000e-01:-1>

func.func @short_table(%x: tensor<1x1x3x3x!x>) -> tensor<1x2x3x2x!y> {
  %wi = graph.constant dense<[[[[1, -2]]], [[[7, -8]]]]> : tensor<2x1x1x2xi4>
  %w = graph.storage_cast %wi : tensor<2x1x1x2xi4> to tensor<2x1x1x2x!w>
  %b = graph.constant dense<[3, -1]> : tensor<2xi32>
  // expected-error @+1 {{intrinsic 'npu_conv2d_s4' no longer applies: its prepared requantization table does not have 2 entries}}
  %y = graph.qconv2d %x, %w, %b {hw.device = "npu", hw.intrinsic = "npu_conv2d_s4", hw.prepared = [dense<[5, 6]> : tensor<2xi8>, dense<[1.0]> : tensor<1xf32>]} : (tensor<1x1x3x3x!x>, tensor<2x1x1x2x!w>, tensor<2xi32>) -> tensor<1x2x3x2x!y>
  return %y : tensor<1x2x3x2x!y>
}

// -----

!x = !quant.uniform<i4:f32, 2.500000e-01:1>
!w = !quant.uniform<i4:f32:0, {5.000000e-01,2.500000e-01}>
!y = !quant.uniform<i4:f32, 5.000000e-01:-1>

func.func @one_too_many(%x: tensor<1x1x3x3x!x>) -> tensor<1x2x3x2x!y> {
  %wi = graph.constant dense<[[[[1, -2]]], [[[7, -8]]]]> : tensor<2x1x1x2xi4>
  %w = graph.storage_cast %wi : tensor<2x1x1x2xi4> to tensor<2x1x1x2x!w>
  %b = graph.constant dense<[3, -1]> : tensor<2xi32>
  // expected-error @+1 {{intrinsic 'npu_conv2d_s4' no longer applies: it has more prepared arguments than its call computes}}
  %y = graph.qconv2d %x, %w, %b {hw.device = "npu", hw.intrinsic = "npu_conv2d_s4", hw.prepared = [dense<[5, 6]> : tensor<2xi8>, dense<[1.0, 2.0]> : tensor<2xf32>, dense<[7]> : tensor<1xi8>]} : (tensor<1x1x3x3x!x>, tensor<2x1x1x2x!w>, tensor<2xi32>) -> tensor<1x2x3x2x!y>
  return %y : tensor<1x2x3x2x!y>
}

// -----

!x = !quant.uniform<i4:f32, 2.500000e-01:1>
!w = !quant.uniform<i4:f32:0, {5.000000e-01,2.500000e-01}>
!y = !quant.uniform<i4:f32, 5.000000e-01:-1>

func.func @not_an_array(%x: tensor<1x1x3x3x!x>) -> tensor<1x2x3x2x!y> {
  %wi = graph.constant dense<[[[[1, -2]]], [[[7, -8]]]]> : tensor<2x1x1x2xi4>
  %w = graph.storage_cast %wi : tensor<2x1x1x2xi4> to tensor<2x1x1x2x!w>
  %b = graph.constant dense<[3, -1]> : tensor<2xi32>
  // expected-error @+1 {{'hw.prepared' must be an array of dense constants}}
  %y = graph.qconv2d %x, %w, %b {hw.device = "npu", hw.intrinsic = "npu_conv2d_s4", hw.prepared = dense<[5, 6]> : tensor<2xi8>} : (tensor<1x1x3x3x!x>, tensor<2x1x1x2x!w>, tensor<2xi32>) -> tensor<1x2x3x2x!y>
  return %y : tensor<1x2x3x2x!y>
}

// -----

!x = !quant.uniform<i4:f32, 2.500000e-01:1>
!w = !quant.uniform<i4:f32:0, {5.000000e-01,2.500000e-01}>
!y = !quant.uniform<i4:f32, 5.000000e-01:-1>

func.func @huge_splat(%x: tensor<1x1x3x3x!x>) -> tensor<1x2x3x2x!y> {
  %wi = graph.constant dense<[[[[1, -2]]], [[[7, -8]]]]> : tensor<2x1x1x2xi4>
  %w = graph.storage_cast %wi : tensor<2x1x1x2xi4> to tensor<2x1x1x2x!w>
  %b = graph.constant dense<[3, -1]> : tensor<2xi32>
  // expected-error @+1 {{'hw.prepared' holds a table of 4611686018427387904 elements, more than a call can take}}
  %y = graph.qconv2d %x, %w, %b {hw.device = "npu", hw.intrinsic = "npu_conv2d_s4", hw.prepared = [dense<0> : tensor<4611686018427387904xi8>]} : (tensor<1x1x3x3x!x>, tensor<2x1x1x2x!w>, tensor<2xi32>) -> tensor<1x2x3x2x!y>
  return %y : tensor<1x2x3x2x!y>
}
