// An average in ceil_mode that counts padding, whose last window passes the padding,
// has no lowering (the extra positions would be counted).
// RUN: acc-opt --verify-diagnostics --pass graph-to-tensor %s

func.func @avg_ceil_counting(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32> {
  // expected-error @+1 {{ceil_mode with count_include_pad, where the last window passes the padding, has no lowering yet}}
  %0 = graph.avg_pool %x {ceil_mode = true, count_include_pad = true, kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}
