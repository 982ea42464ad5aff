// One compilation, two targets: the host's kernels (lowering/runtime/host.acc) and the
// example accelerator (examples/targets/tinynpu.acc). partition places on the one its
// option names; bufferize calls the kernels of its target (the first, by default) and
// finds each placed op's intrinsic in whichever target declares it.
// RUN: acc-opt --target %S/../../../lowering/runtime/host.acc --target %S/../../../examples/targets/tinynpu.acc --pass 'partition{target=tinynpu},graph-to-tensor,bufferize' %s | FileCheck %s
// Results are the same as the graph's.
// RUN: acc-opt --target %S/../../../lowering/runtime/host.acc --target %S/../../../examples/targets/tinynpu.acc --pass 'partition{target=tinynpu},graph-to-tensor,bufferize' --check-semantics %s -o /dev/null
// partition on the host target places nothing: it declares no intrinsic.
// RUN: acc-opt --target %S/../../../lowering/runtime/host.acc --target %S/../../../examples/targets/tinynpu.acc --pass partition %s | FileCheck %s --check-prefix=HOSTONLY
// A target that is not in the compilation.
// RUN: not acc-opt --target %S/../../../lowering/runtime/host.acc --pass 'partition{target=tinynpu}' %s 2>&1 | FileCheck %s --check-prefix=MISSING

// CHECK-LABEL: func.func @net
// CHECK: hw.intrinsic "npu_conv2d_s8"
// CHECK: hw.intrinsic "acc_sgemm_strided"

// HOSTONLY-NOT: hw.device

// MISSING: error: partition: no target named 'tinynpu' (the compilation has host)

func.func @net(%x: tensor<1x2x5x5x!quant.uniform<i8:f32, 1.000000e-02:-2>>, %m: tensor<75x4xf32>) -> tensor<1x4xf32> {
  %wi = graph.constant dense<[1, -2, 3, -4, 5, -6, 7, -8, 9, -10, 11, -12, 13, -14, 15, -16, 17, -18, 19, -20, 21, -22, 23, -24, 25, -26, 27, -28, 29, -30, 31, -32, 33, -34, 35, -36, 37, -38, 39, -40, 41, -42, 43, -44, 45, -46, 47, -48, 49, -50, 51, -52, 53, -54]> : tensor<54xi8>
  %wr = graph.reshape %wi {shape = array<i64: 3, 2, 3, 3>} : (tensor<54xi8>) -> tensor<3x2x3x3xi8>
  %w = graph.storage_cast %wr : tensor<3x2x3x3xi8> to tensor<3x2x3x3x!quant.uniform<i8:f32, 2.000000e-02>>
  %b = graph.constant dense<[120, -340, 75]> : tensor<3xi32>
  %c = graph.qconv2d %x, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x5x5x!quant.uniform<i8:f32, 1.000000e-02:-2>>, tensor<3x2x3x3x!quant.uniform<i8:f32, 2.000000e-02>>, tensor<3xi32>) -> tensor<1x3x5x5x!quant.uniform<i8:f32, 2.000000e-02:3>>
  %f = graph.dequantize %c : tensor<1x3x5x5x!quant.uniform<i8:f32, 2.000000e-02:3>> to tensor<1x3x5x5xf32>
  %g = graph.reshape %f {shape = array<i64: 1, 75>} : (tensor<1x3x5x5xf32>) -> tensor<1x75xf32>
  %p = graph.matmul %g, %m : (tensor<1x75xf32>, tensor<75x4xf32>) -> tensor<1x4xf32>
  return %p : tensor<1x4xf32>
}
