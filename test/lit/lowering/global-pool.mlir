// Global pools over more than 64 positions are reductions over the spatial axes (a
// pool's window is unrolled where it lowers: EfficientNet's 112x112 squeeze-excite
// pools made 400k ops and 46 s of code generation); small ones stay pools. Checked
// against the interpreter by --check-semantics, through the host pipeline too.
// RUN: acc-opt --check-semantics --pass graph-to-tensor %s | FileCheck %s
// RUN: acc-opt --check-semantics --pass canonicalize,graph-to-tensor,layout,bufferize,fuse-parallel,unroll,collapse-parallel,vectorize,buffer-deallocation,memory-plan %s | FileCheck %s --check-prefix=LOOPS

// CHECK-LABEL: func.func @large_avg(
// CHECK-NOT: tensor.pool
// CHECK: tensor.reduce
// CHECK-SAME: dimensions = [3]
// CHECK: tensor.reduce
// CHECK-SAME: dimensions = [2]
// CHECK: arith.divf %{{.*}}, %{{.*}} : f32
// CHECK: tensor.expand_shape
// LOOPS-LABEL: func.func @large_avg(
// LOOPS: return
func.func @large_avg(%x: tensor<1x3x12x12xf32>) -> tensor<1x3x1x1xf32> {
  %0 = graph.global_avg_pool %x : (tensor<1x3x12x12xf32>) -> tensor<1x3x1x1xf32>
  return %0 : tensor<1x3x1x1xf32>
}

// CHECK-LABEL: func.func @large_max(
// CHECK: tensor.reduce
// CHECK: arith.maximumf
// CHECK-NOT: arith.divf
// CHECK: tensor.expand_shape
func.func @large_max(%x: tensor<1x3x9x9xf32>) -> tensor<1x3x1x1xf32> {
  %0 = graph.global_max_pool %x : (tensor<1x3x9x9xf32>) -> tensor<1x3x1x1xf32>
  return %0 : tensor<1x3x1x1xf32>
}

// CHECK-LABEL: func.func @small_avg(
// CHECK: tensor.pool
func.func @small_avg(%x: tensor<1x3x7x7xf32>) -> tensor<1x3x1x1xf32> {
  %0 = graph.global_avg_pool %x : (tensor<1x3x7x7xf32>) -> tensor<1x3x1x1xf32>
  return %0 : tensor<1x3x1x1xf32>
}
