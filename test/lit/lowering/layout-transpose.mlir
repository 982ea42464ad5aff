// A transpose next to a layout change is one copy: ConvNeXt's NCHW16c convolution
// output read channels-last, and a channels-last value packed for a convolution.
// Each pair becomes one transpose of the blocked tensor (the 16 channels of a block
// stay innermost) and a reshape joining or splitting the last dimension. Checked
// against the interpreter.
// RUN: acc-opt --check-semantics --pass layout %s | FileCheck %s

// CHECK-LABEL: func.func @to_channels_last(
// CHECK: %[[C:.*]] = tensor.conv2d {{.*}} -> tensor<1x2x4x4x16xf32>
// CHECK-NOT: tensor.unpack
// CHECK: %[[T:.*]] = tensor.transpose ins(%[[C]] : tensor<1x2x4x4x16xf32>) outs(%{{.*}} : tensor<1x4x4x2x16xf32>) permutation = [0, 2, 3, 1, 4]
// CHECK: %[[J:.*]] = tensor.collapse_shape %[[T]] {{\[\[}}0], [1], [2], [3, 4]] : tensor<1x4x4x2x16xf32> into tensor<1x4x4x32xf32>
// CHECK: return %[[J]]
func.func @to_channels_last(%x: tensor<1x32x4x4xf32>) -> tensor<1x4x4x32xf32> {
  %w = arith.constant dense<0.125> : tensor<32x32x1x1xf32>
  %z = arith.constant dense<0.5> : tensor<1x32x4x4xf32>
  %c = tensor.conv2d ins(%x, %w : tensor<1x32x4x4xf32>, tensor<32x32x1x1xf32>) outs(%z : tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32>
  %e = tensor.empty() : tensor<1x4x4x32xf32>
  %t = tensor.transpose ins(%c : tensor<1x32x4x4xf32>) outs(%e : tensor<1x4x4x32xf32>) permutation = [0, 2, 3, 1] -> tensor<1x4x4x32xf32>
  return %t : tensor<1x4x4x32xf32>
}

// CHECK-LABEL: func.func @from_channels_last(
// CHECK-SAME: %[[Y:[a-z0-9]+]]: tensor<1x4x4x32xf32>
// CHECK: %[[S:.*]] = tensor.expand_shape %[[Y]] {{\[\[}}0], [1], [2], [3, 4]] output_shape [1, 4, 4, 2, 16] : tensor<1x4x4x32xf32> into tensor<1x4x4x2x16xf32>
// CHECK: %[[T:.*]] = tensor.transpose ins(%[[S]] : tensor<1x4x4x2x16xf32>) outs(%{{.*}} : tensor<1x2x4x4x16xf32>) permutation = [0, 3, 1, 2, 4]
// CHECK-NOT: tensor.pack %
// CHECK: tensor.conv2d {{.*}} ins(%[[T]], %{{.*}} : tensor<1x2x4x4x16xf32>
func.func @from_channels_last(%y: tensor<1x4x4x32xf32>) -> tensor<1x32x4x4xf32> {
  %e = tensor.empty() : tensor<1x32x4x4xf32>
  %t = tensor.transpose ins(%y : tensor<1x4x4x32xf32>) outs(%e : tensor<1x32x4x4xf32>) permutation = [0, 3, 1, 2] -> tensor<1x32x4x4xf32>
  %w = arith.constant dense<0.125> : tensor<32x32x1x1xf32>
  %z = arith.constant dense<0.5> : tensor<1x32x4x4xf32>
  %c = tensor.conv2d ins(%t, %w : tensor<1x32x4x4xf32>, tensor<32x32x1x1xf32>) outs(%z : tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32>
  return %c : tensor<1x32x4x4xf32>
}

// 24 channels (a partial block): the pair stays.
// CHECK-LABEL: func.func @partial_block(
// CHECK: tensor.unpack
// CHECK: tensor.transpose ins(%{{.*}} : tensor<1x24x4x4xf32>)
func.func @partial_block(%x: tensor<1x24x4x4xf32>) -> tensor<1x4x4x24xf32> {
  %w = arith.constant dense<0.125> : tensor<24x24x1x1xf32>
  %z = arith.constant dense<0.5> : tensor<1x24x4x4xf32>
  %c = tensor.conv2d ins(%x, %w : tensor<1x24x4x4xf32>, tensor<24x24x1x1xf32>) outs(%z : tensor<1x24x4x4xf32>) -> tensor<1x24x4x4xf32>
  %e = tensor.empty() : tensor<1x4x4x24xf32>
  %t = tensor.transpose ins(%c : tensor<1x24x4x4xf32>) outs(%e : tensor<1x4x4x24xf32>) permutation = [0, 2, 3, 1] -> tensor<1x4x4x24xf32>
  return %t : tensor<1x4x4x24xf32>
}
