// Tiles of an elementwise op (tensorize): an add whose three buffers (3 x 2048
// bytes) overflow the 4 KiB local memory of Inputs/pool-npu.acc goes in slices of
// channels, each input sliced alike: a slice's three buffers take 1536 bytes, two
// slices' (the next one's copied in during the current call) 3072. Every tile's
// call computes with the numbers passed for it (--check-semantics).
// RUN: acc-opt --target %S/Inputs/pool-npu.acc --check-semantics --remarks --pass partition,tensorize %s 2>&1 | FileCheck %s
// RUN: acc-opt --target %S/Inputs/pool-npu.acc --check-semantics --pass partition,tensorize,weight-prep,graph-to-tensor,bufferize,buffer-deallocation,memory-plan %s | FileCheck %s --check-prefix=LOOPS
// CHECK: tensorize: 'add_s8' computes this in 4 tiles of 2 channels (its buffers take 6144 bytes, more than memory 'local' holds, 4096; a tile's take 1536)
// CHECK-LABEL: func.func @add(
// CHECK-COUNT-4: graph.qadd {{.*}} -> tensor<1x2x16x16x!quant.uniform<i8:f32, 1.000000e+00:4>>
// CHECK-NEXT: graph.concat {{.*}} {axis = 1 : i64}
// LOOPS-LABEL: func.func @add(
// LOOPS-COUNT-4: hw.intrinsic "add_s8"
// LOOPS-NOT: hw.intrinsic
func.func @add(%a: tensor<1x8x16x16x!quant.uniform<i8:f32, 0.5:3>>, %b: tensor<1x8x16x16x!quant.uniform<i8:f32, 0.25:-1>>) -> tensor<1x8x16x16x!quant.uniform<i8:f32, 1.0:4>> {
  %y = graph.qadd %a, %b {requant = #graph.requantization<fixed_point>} : (tensor<1x8x16x16x!quant.uniform<i8:f32, 0.5:3>>, tensor<1x8x16x16x!quant.uniform<i8:f32, 0.25:-1>>) -> tensor<1x8x16x16x!quant.uniform<i8:f32, 1.0:4>>
  return %y : tensor<1x8x16x16x!quant.uniform<i8:f32, 1.0:4>>
}
