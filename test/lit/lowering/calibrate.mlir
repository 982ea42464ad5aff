// calibrate runs the function on sample inputs (Inputs/calibration-samples.npy: two
// 1x1x4x4 inputs ranging over [-1, 3]) and inserts quantize/dequantize pairs as a
// static quantizer does: the input per tensor, asymmetric (scale 4/255, zero point
// -64); the weights per output channel, symmetric (channel 0's largest magnitude 2
// onto 127); the bias in i32 at s_x * s_w[c]; the relu's output, whose zero point
// is then -128. quantize folds the result into one qconv2d.
// RUN: acc-opt --pass 'calibrate{samples=%S/Inputs/calibration-samples.npy}' %s | FileCheck %s
// RUN: acc-opt --check-semantics --pass 'calibrate{samples=%S/Inputs/calibration-samples.npy},quantize' %s | FileCheck %s --check-prefix=FOLDED
// RUN: acc-opt --pass 'calibrate{samples=%S/Inputs/calibration-samples.npy bits=4}' %s | FileCheck %s --check-prefix=FOUR
// RUN: not acc-opt --pass 'calibrate{bits=8}' %s 2>&1 | FileCheck %s --check-prefix=NOSAMPLES
// RUN: not acc-opt --pass 'calibrate{samples=x.npy bits=3}' %s 2>&1 | FileCheck %s --check-prefix=BITS

// CHECK-LABEL: func.func @net(
// CHECK: %[[XQ:.*]] = graph.quantize %arg0 : tensor<1x1x4x4xf32> to tensor<1x1x4x4x!quant.uniform<i8:f32, 1.5686275{{[0-9]*}}e-2:-64>>
// CHECK-NEXT: %[[X:.*]] = graph.dequantize %[[XQ]]
// CHECK: graph.constant dense<{{\[}}[{{\[}}[64, -127], [32, 16]]], {{\[}}[{{\[}}32, 64], [95, -127]]]]> : tensor<2x1x2x2xi8>
// CHECK-NEXT: graph.storage_cast %{{[0-9]+}} : tensor<2x1x2x2xi8> to tensor<2x1x2x2x!quant.uniform<i8:f32:0, {1.5748031{{[0-9]*}}e-2,3.1496062{{[0-9]*}}e-3}>>
// CHECK: graph.storage_cast %{{[0-9]+}} : tensor<2xi32> to tensor<2x!quant.uniform<i32:f32:0,
// CHECK: graph.conv2d %[[X]]
// CHECK-NEXT: %[[R:.*]] = graph.relu
// CHECK-NEXT: %[[RQ:.*]] = graph.quantize %[[R]] : tensor<1x2x3x3xf32> to tensor<1x2x3x3x!quant.uniform<i8:f32, {{[0-9.e-]+}}:-128>>
// CHECK-NEXT: graph.dequantize %[[RQ]]

// FOLDED-LABEL: func.func @net(
// FOLDED-NOT: graph.conv2d
// FOLDED-NOT: graph.relu
// FOLDED: graph.qconv2d
// FOLDED-NEXT: graph.dequantize
// FOLDED-NEXT: return

// FOUR: !quant.uniform<i4:f32, 2.6666{{[0-9]*}}e-1:-4>
// FOUR: tensor<2x1x2x2xi4>

// NOSAMPLES: calibrate: give the sample inputs with samples=FILE.npy
// BITS: calibrate: 'bits' must be 8, 4 or 2, not 3
func.func @net(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x3x3xf32> {
  %w = graph.constant dense<[[[[1.0, -2.0], [0.5, 0.25]]], [[[0.1, 0.2], [0.3, -0.4]]]]> : tensor<2x1x2x2xf32>
  %b = graph.constant dense<[0.5, -0.25]> : tensor<2xf32>
  %c = graph.conv2d %x, %w, %b : (tensor<1x1x4x4xf32>, tensor<2x1x2x2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  %r = graph.relu %c : tensor<1x2x3x3xf32>
  return %r : tensor<1x2x3x3xf32>
}
