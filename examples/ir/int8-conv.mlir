// An int8 convolution between quantize and dequantize, then a softmax: the example
// of docs/tutorial-new-target.md (the convolution runs on examples/targets/tinynpu.acc).
func.func @net(%x: tensor<1x2x5x5xf32>) -> tensor<1x5xf32> {
  %wi = graph.constant dense<[1, -2, 3, -4, 5, -6, 7, -8, 9, -10, 11, -12, 13, -14, 15, -16, 17, -18, 19, -20, 21, -22, 23, -24, 25, -26, 27, -28, 29, -30, 31, -32, 33, -34, 35, -36, 37, -38, 39, -40, 41, -42, 43, -44, 45, -46, 47, -48, 49, -50, 51, -52, 53, -54]> : tensor<54xi8>
  %wr = graph.reshape %wi {shape = array<i64: 3, 2, 3, 3>} : (tensor<54xi8>) -> tensor<3x2x3x3xi8>
  %w = graph.storage_cast %wr : tensor<3x2x3x3xi8> to tensor<3x2x3x3x!quant.uniform<i8:f32, 2.000000e-02>>
  %b = graph.constant dense<[120, -340, 75]> : tensor<3xi32>
  %q = graph.quantize %x : tensor<1x2x5x5xf32> to tensor<1x2x5x5x!quant.uniform<i8:f32, 1.000000e-02:-2>>
  %c = graph.qconv2d %q, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x5x5x!quant.uniform<i8:f32, 1.000000e-02:-2>>, tensor<3x2x3x3x!quant.uniform<i8:f32, 2.000000e-02>>, tensor<3xi32>) -> tensor<1x3x5x5x!quant.uniform<i8:f32, 2.000000e-02:3>>
  %f = graph.dequantize %c : tensor<1x3x5x5x!quant.uniform<i8:f32, 2.000000e-02:3>> to tensor<1x3x5x5xf32>
  %g = graph.reshape %f {shape = array<i64: 1, 75>} : (tensor<1x3x5x5xf32>) -> tensor<1x75xf32>
  %h = graph.slice %g {starts = array<i64: 0>, ends = array<i64: 5>, axes = array<i64: 1>} : (tensor<1x75xf32>) -> tensor<1x5xf32>
  %s = graph.softmax %h {axis = 1 : i64} : tensor<1x5xf32>
  return %s : tensor<1x5xf32>
}
