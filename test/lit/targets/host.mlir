// A target file names the host's kernels; bufferize calls them where an op fits and
// generates loops elsewhere: the kernel choice comes from the description, not from
// the pipeline. Results are checked against the interpreter by --check-semantics.
// RUN: acc-opt --check-semantics --target %S/../../../lowering/runtime/host.acc --pass graph-to-tensor,bufferize %s | FileCheck %s
// RUN: acc-opt --target %S/Inputs/small-host.acc --pass graph-to-tensor,bufferize %s | FileCheck %s --check-prefix=SMALL
// Options still name kernels explicitly, over the target's.
// RUN: acc-opt --target %S/Inputs/small-host.acc --pass "graph-to-tensor,bufferize{gemm=acc_sgemm}" %s | FileCheck %s --check-prefix=OPTION
// Without a target and options: loops only.
// RUN: acc-opt --pass graph-to-tensor,bufferize %s | FileCheck %s --check-prefix=LOOPS

// CHECK-LABEL: func.func @block(
// CHECK: hw.intrinsic "acc_sconv2d_bias"
// CHECK: hw.intrinsic "acc_vexp"
// CHECK: hw.intrinsic "acc_sgemm_strided"
// SMALL-LABEL: func.func @block(
// SMALL-NOT: acc_sconv2d
// SMALL: hw.intrinsic "my_sgemm"
// SMALL-NOT: acc_vexp
// SMALL: hw.intrinsic "my_sgemm"
// OPTION: hw.intrinsic "acc_sgemm"
// LOOPS-NOT: hw.intrinsic
func.func @block(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>, %m: tensor<6x5xf32>) -> tensor<1x4x6x5xf32> {
  %c = graph.conv2d %x, %w, %b : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  %e = graph.exp %c : tensor<1x4x6x6xf32>
  %p = graph.matmul %e, %m : (tensor<1x4x6x6xf32>, tensor<6x5xf32>) -> tensor<1x4x6x5xf32>
  return %p : tensor<1x4x6x5xf32>
}
