// tensorize splits an op placed on an intrinsic that reads a 1 KiB local memory
// (Inputs/staged-npu.acc) into output-channel tiles whose buffers fit twice (the next
// tile's are copied in while the current one computes); bufferize then stages every
// call's buffers into that memory by DMA, and memory-plan gives the memory its own
// arena. --check-semantics runs each pass against the interpreter.
// RUN: acc-opt --target %S/Inputs/staged-npu.acc --pass partition,tensorize --verify-diagnostics %s
// RUN: acc-opt --check-semantics --target %S/Inputs/staged-npu.acc --pass partition,tensorize %s 2>/dev/null | FileCheck %s
// RUN: acc-opt --check-semantics --target %S/Inputs/staged-npu.acc --pass partition,tensorize,graph-to-tensor,bufferize,buffer-deallocation,memory-plan %s 2>/dev/null | FileCheck %s --check-prefix=STAGE
// weight-prep before tensorize: the tiles do not inherit the whole op's prepared
// arguments (bufferize computes each tile's), and the calls are the same.
// RUN: acc-opt --check-semantics --target %S/Inputs/staged-npu.acc --pass partition,weight-prep,tensorize,graph-to-tensor,bufferize,buffer-deallocation,memory-plan %s 2>/dev/null | FileCheck %s --check-prefix=STAGE
// The staged IR prints and parses back.
// RUN: acc-opt --target %S/Inputs/staged-npu.acc --pass partition,tensorize,graph-to-tensor,bufferize,buffer-deallocation,memory-plan %s 2>/dev/null | acc-opt --verify-each | FileCheck %s --check-prefix=STAGE

// 24 columns of 40 int8 weights: 1344 bytes of buffers. Four tiles of 6 columns, the
// per-column scales and the bias sliced with them at compile time; every tile's
// operands come first, then the tiles one after another.
// CHECK-LABEL: func.func @fc(
// CHECK-NOT: tensor<40x24xi8>
// CHECK: %[[W0:.*]] = graph.constant dense<3> : tensor<40x6xi8>
// CHECK-NEXT: %[[Q0:.*]] = graph.storage_cast %[[W0]] : tensor<40x6xi8> to tensor<40x6x!quant.uniform<i8:f32:1, {1.000000e-02,2.000000e-02,3.000000e-02,4.000000e-02,5.000000e-02,6.000000e-02}>>
// CHECK-NEXT: %[[B0:.*]] = graph.constant dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi32>
// CHECK-NEXT: graph.constant dense<3> : tensor<40x6xi8>
// CHECK-NEXT: graph.storage_cast %{{.*}} : tensor<40x6xi8> to tensor<40x6x!quant.uniform<i8:f32:1, {7.000000e-02,8.000000e-02,1.000000e-02,2.000000e-02,3.000000e-02,4.000000e-02}>>
// CHECK-NEXT: graph.constant dense<[7, 8, 9, 10, 11, 12]> : tensor<6xi32>
// CHECK: graph.constant dense<[19, 20, 21, 22, 23, 24]> : tensor<6xi32>
// CHECK-NEXT: %[[T0:.*]] = graph.qmatmul %arg0, %[[Q0]], %[[B0]] {hw.device = "npu", hw.intrinsic = "fc_s8"} : ({{[^)]*}}) -> tensor<1x6x!quant.uniform<i8:f32, 5.000000e-02:-1>>
// CHECK-NEXT: graph.qmatmul %arg0,
// CHECK-NEXT: graph.qmatmul %arg0,
// CHECK-NEXT: %[[T3:.*]] = graph.qmatmul %arg0, %{{.*}}, %{{.*}} {hw.device = "npu", hw.intrinsic = "fc_s8"}
// CHECK-NEXT: %[[Y:.*]] = graph.concat %[[T0]], %{{.*}}, %{{.*}}, %[[T3]] {axis = 1 : i64} : ({{[^)]*}}) -> tensor<1x24x!quant.uniform<i8:f32, 5.000000e-02:-1>>
// CHECK-NEXT: return %[[Y]]

// In the loops: the first tile's buffers are copied in and waited for; the second
// tile's weights start copying before the first tile's call; the call reads only
// the local memory; its result is copied back to the SRAM.
// STAGE-LABEL: func.func @fc(
// STAGE-SAME: loop.arena_sizes = {local = {{[0-9]+}} : i64}
// STAGE: %[[XL:.*]] = loop.alloc() {offset = {{[0-9]+}} : i64} : memref<1x40x!quant.uniform<i8:f32, 1.000000e-02:3>, "local">
// STAGE-NEXT: %[[XT:.*]] = hw.dma_start %arg0, %[[XL]] {call = "npu_dma"}
// STAGE: hw.dma_wait %[[XT]], %{{.*}}, %{{.*}}, %{{.*}} {call = "npu_dma_wait"}
// STAGE: %[[W1:.*]] = loop.alloc() {offset = {{[0-9]+}} : i64} : memref<40x6x!quant.uniform<i8:f32:1, {7.000000e-02,{{[^}]*}}}>, "local">
// STAGE-NEXT: %[[W1T:.*]] = hw.dma_start %{{.*}}, %[[W1]] {call = "npu_dma"}
// STAGE: hw.intrinsic "fc_s8"(%[[XL]], {{.*}}) {inputs = array<i64: 0, 1, 2>, outputs = array<i64: 3>} : (memref<1x40x!quant.uniform<i8:f32, 1.000000e-02:3>, "local">, memref<40x6x{{[^>]*}}>, "local">, memref<6xi32, "local">, memref<1x6x!quant.uniform<i8:f32, 5.000000e-02:-1>, "local">, i32, i32, i32, i32, i32, memref<6xf32, "local">) -> () semantics {
// STAGE: %[[OUT:.*]] = hw.dma_start %{{.*}}, %{{.*}} {call = "npu_dma"} : memref<1x6x!quant.uniform<i8:f32, 5.000000e-02:-1>, "local"> to memref<1x6x!quant.uniform<i8:f32, 5.000000e-02:-1>>
// STAGE-NEXT: hw.dma_wait %[[OUT]] {call = "npu_dma_wait"}
// STAGE-NEXT: loop.dealloc
// The second tile waits for its prefetched weights and reuses the staged input.
// STAGE: hw.dma_wait %[[W1T]]
// STAGE: hw.intrinsic "fc_s8"(%[[XL]], %[[W1]],
func.func @fc(%a: tensor<1x40x!quant.uniform<i8:f32, 1.000000e-02:3>>) -> tensor<1x24x!quant.uniform<i8:f32, 5.000000e-02:-1>> {
  %wi = graph.constant dense<3> : tensor<40x24xi8>
  // expected-remark @+1 {{'graph.storage_cast' stays on cpu}}
  %w = graph.storage_cast %wi : tensor<40x24xi8> to tensor<40x24x!quant.uniform<i8:f32:1, {1.0e-2,2.0e-2,3.0e-2,4.0e-2,5.0e-2,6.0e-2,7.0e-2,8.0e-2,1.0e-2,2.0e-2,3.0e-2,4.0e-2,5.0e-2,6.0e-2,7.0e-2,8.0e-2,1.0e-2,2.0e-2,3.0e-2,4.0e-2,5.0e-2,6.0e-2,7.0e-2,8.0e-2}>>
  %c = graph.constant dense<[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24]> : tensor<24xi32>
  // expected-remark @+1 {{tensorize: 'fc_s8' computes this in 4 tiles of 6 channels (its buffers take 1344 bytes, more than memory 'local' holds, 1024; a tile's take 512)}}
  %y = graph.qmatmul %a, %w, %c : (tensor<1x40x!quant.uniform<i8:f32, 1.000000e-02:3>>, tensor<40x24x!quant.uniform<i8:f32:1, {1.0e-2,2.0e-2,3.0e-2,4.0e-2,5.0e-2,6.0e-2,7.0e-2,8.0e-2,1.0e-2,2.0e-2,3.0e-2,4.0e-2,5.0e-2,6.0e-2,7.0e-2,8.0e-2,1.0e-2,2.0e-2,3.0e-2,4.0e-2,5.0e-2,6.0e-2,7.0e-2,8.0e-2}>>, tensor<24xi32>) -> tensor<1x24x!quant.uniform<i8:f32, 5.000000e-02:-1>>
  return %y : tensor<1x24x!quant.uniform<i8:f32, 5.000000e-02:-1>>
}

// A depthwise convolution splits its input channels too: each tile reads a
// graph.slice of the input and has groups = its channels.
// CHECK-LABEL: func.func @depthwise(
// CHECK: %[[X0:.*]] = graph.slice %arg0 {axes = array<i64: 1>, ends = array<i64: 2>, starts = array<i64: 0>} : (tensor<1x8x8x8x{{[^)]*}}) -> tensor<1x2x8x8x!quant.uniform<i8:f32, 1.000000e-02:3>>
// CHECK: graph.constant dense<{{\[\[\[\[}}1, -2, 3], [-4, 5, -6], [7, -8, 9]]], {{\[\[\[}}2, -2, 3], [-4, 5, -6], [7, -8, 9]]]]> : tensor<2x1x3x3xi8>
// CHECK: graph.slice %arg0 {axes = array<i64: 1>, ends = array<i64: 8>, starts = array<i64: 6>}
// CHECK: graph.qconv2d %[[X0]], %{{.*}}, %{{.*}} {groups = 2 : i64, hw.device = "npu", hw.intrinsic = "dwconv_s8", pads = array<i64: 1, 1, 1, 1>}
// CHECK: graph.concat {{.*}} {axis = 1 : i64}
func.func @depthwise(%x: tensor<1x8x8x8x!quant.uniform<i8:f32, 1.000000e-02:3>>) -> tensor<1x8x8x8x!quant.uniform<i8:f32, 5.000000e-02:-1>> {
  %wi = graph.constant dense<[[[[1, -2, 3], [-4, 5, -6], [7, -8, 9]]], [[[2, -2, 3], [-4, 5, -6], [7, -8, 9]]], [[[3, -2, 3], [-4, 5, -6], [7, -8, 9]]], [[[4, -2, 3], [-4, 5, -6], [7, -8, 9]]], [[[5, -2, 3], [-4, 5, -6], [7, -8, 9]]], [[[6, -2, 3], [-4, 5, -6], [7, -8, 9]]], [[[7, -2, 3], [-4, 5, -6], [7, -8, 9]]], [[[8, -2, 3], [-4, 5, -6], [7, -8, 9]]]]> : tensor<8x1x3x3xi8>
  // expected-remark @+1 {{'graph.storage_cast' stays on cpu}}
  %w = graph.storage_cast %wi : tensor<8x1x3x3xi8> to tensor<8x1x3x3x!quant.uniform<i8:f32, 2.000000e-02>>
  %b = graph.constant dense<[10, 20, 30, 40, 50, 60, 70, 80]> : tensor<8xi32>
  // expected-remark @+1 {{tensorize: 'dwconv_s8' computes this in 4 tiles of 2 channels (its buffers take 1280 bytes, more than memory 'local' holds, 1024; a tile's take 448)}}
  %y = graph.qconv2d %x, %w, %b {pads = array<i64: 1, 1, 1, 1>, groups = 8 : i64} : (tensor<1x8x8x8x!quant.uniform<i8:f32, 1.000000e-02:3>>, tensor<8x1x3x3x!quant.uniform<i8:f32, 2.000000e-02>>, tensor<8xi32>) -> tensor<1x8x8x8x!quant.uniform<i8:f32, 5.000000e-02:-1>>
  return %y : tensor<1x8x8x8x!quant.uniform<i8:f32, 5.000000e-02:-1>>
}

// A shared input of 2000 bytes leaves no room for even one column: the op leaves
// the accelerator and says why. One that fits stays whole.
// CHECK-LABEL: func.func @too_big(
// CHECK: %[[BIG:.*]] = graph.qmatmul %arg0, %{{.*}}, %{{.*}} : (
// CHECK-NOT: hw.device
// CHECK: graph.qmatmul %arg1, %{{.*}}, %{{.*}} {hw.device = "npu", hw.intrinsic = "fc_s8"}
func.func @too_big(%a: tensor<1x2000x!quant.uniform<i8:f32, 1.000000e-02:3>>, %s: tensor<1x8x!quant.uniform<i8:f32, 1.000000e-02:3>>) -> (tensor<1x2x!quant.uniform<i8:f32, 5.000000e-02:-1>>, tensor<1x2x!quant.uniform<i8:f32, 5.000000e-02:-1>>) {
  %wi = graph.constant dense<1> : tensor<2000x2xi8>
  // expected-remark @+1 {{'graph.storage_cast' stays on cpu}}
  %w = graph.storage_cast %wi : tensor<2000x2xi8> to tensor<2000x2x!quant.uniform<i8:f32, 1.000000e-02>>
  %c = graph.constant dense<[1, 2]> : tensor<2xi32>
  // expected-remark @+1 {{'graph.qmatmul' stays on cpu: its buffers take 6272 bytes, more than memory 'local' holds (1024), even one channel a tile}}
  %y = graph.qmatmul %a, %w, %c : (tensor<1x2000x!quant.uniform<i8:f32, 1.000000e-02:3>>, tensor<2000x2x!quant.uniform<i8:f32, 1.000000e-02>>, tensor<2xi32>) -> tensor<1x2x!quant.uniform<i8:f32, 5.000000e-02:-1>>
  %vi = graph.constant dense<1> : tensor<8x2xi8>
  // expected-remark @+1 {{'graph.storage_cast' stays on cpu}}
  %v = graph.storage_cast %vi : tensor<8x2xi8> to tensor<8x2x!quant.uniform<i8:f32, 1.000000e-02>>
  %z = graph.qmatmul %s, %v, %c : (tensor<1x8x!quant.uniform<i8:f32, 1.000000e-02:3>>, tensor<8x2x!quant.uniform<i8:f32, 1.000000e-02>>, tensor<2xi32>) -> tensor<1x2x!quant.uniform<i8:f32, 5.000000e-02:-1>>
  return %y, %z : tensor<1x2x!quant.uniform<i8:f32, 5.000000e-02:-1>>, tensor<1x2x!quant.uniform<i8:f32, 5.000000e-02:-1>>
}
