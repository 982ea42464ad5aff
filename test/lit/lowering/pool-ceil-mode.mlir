// Pools in ceil_mode (torchvision's SqueezeNet, ONNX ceil_mode = 1): the last window,
// which starts inside the input and runs past it, is a floor-mode window over end
// padding that never counts (-inf for max, left out of an average without
// count_include_pad). Checked against the interpreter by --check-semantics, through
// graph-to-tensor and the host pipeline.
// RUN: acc-opt --check-semantics --pass graph-to-tensor %s | FileCheck %s
// RUN: acc-opt --check-semantics --pass canonicalize,graph-to-tensor,layout,bufferize,fuse-parallel,unroll,collapse-parallel,vectorize,buffer-deallocation,memory-plan %s | FileCheck %s --check-prefix=LOOPS

// A 3x3 window at stride 2 over 8 positions: 4 windows in ceil mode (3 in floor
// mode), the last reaching one position past the input.
// CHECK-LABEL: func.func @max_ceil(
// CHECK: tensor.pool
// CHECK-SAME: pads = array<i64: 0, 0, 1, 1>
// LOOPS-LABEL: func.func @max_ceil(
// LOOPS: return
func.func @max_ceil(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32> {
  %0 = graph.max_pool %x {ceil_mode = true, kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// The same in an average: the extra position is not counted.
// CHECK-LABEL: func.func @avg_ceil(
// CHECK: tensor.pool
// CHECK-SAME: pads = array<i64: 0, 0, 1, 1>
// LOOPS-LABEL: func.func @avg_ceil(
// LOOPS: return
func.func @avg_ceil(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32> {
  %0 = graph.avg_pool %x {ceil_mode = true, kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// An average that counts padding counts the given padding but not the overhang past
// it: the input is padded with zeros explicitly, and the overhang is the pool's own
// uncounted padding.
// CHECK-LABEL: func.func @avg_ceil_counting(
// CHECK: tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: tensor.pool
// CHECK-SAME: pads = array<i64: 0, 0, 1, 1>
// CHECK-NOT: count_include_pad
// CHECK-SAME: -> tensor<1x2x5x5xf32>
func.func @avg_ceil_counting(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x5x5xf32> {
  %0 = graph.avg_pool %x {ceil_mode = true, count_include_pad = true, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x5x5xf32>
  return %0 : tensor<1x2x5x5xf32>
}
