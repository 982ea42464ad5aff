// bufferize turns an op partition placed on the accelerator into the call of its
// intrinsic, with the arguments the target file lists (buffers, i32 shapes and
// attributes, a table of requantization multipliers computed at compile time), and
// keeps the op, computing with the table passed, as the call's semantics: the
// interpreter runs it, and
// --check-semantics compares every pass with the graph. The op the accelerator
// refuses (dilated) becomes host loops.
// RUN: acc-opt --check-semantics --target %S/../../../examples/targets/tinynpu.acc --pass partition,graph-to-tensor,bufferize,buffer-deallocation,memory-plan %s | FileCheck %s
// The lowered IR parses back (the semantics region prints and parses).
// RUN: acc-opt --target %S/../../../examples/targets/tinynpu.acc --pass partition,graph-to-tensor,bufferize %s | acc-opt --verify-each | FileCheck %s --check-prefix=ROUND

// CHECK-LABEL: func.func @conv(
// tinynpu's intrinsics read its local memory: every buffer of the call is copied
// there by DMA first, the table of multipliers too, and the result back after it.
// CHECK: %[[TABLE:.*]] = loop.constant dense<[6.6666666e-4, 1.3333333e-3, 2.000000e-03]> : tensor<3xf32> to memref<3xf32>
// CHECK: %[[LOCAL:.*]] = loop.alloc() {offset = {{[0-9]+}} : i64} : memref<3xf32, "npu_local">
// CHECK-NEXT: %[[COPY:.*]] = hw.dma_start %[[TABLE]], %[[LOCAL]] {call = "npu_dma"} : memref<3xf32> to memref<3xf32, "npu_local">
// CHECK-NEXT: hw.dma_wait %{{.*}}, %{{.*}}, %{{.*}}, %[[COPY]] {call = "npu_dma_wait"}
// CHECK-NEXT: hw.intrinsic "npu_conv2d_s8"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[OUT:[0-9]+]], {{.*}}, %[[LOCAL]]) {inputs = array<i64: 0, 1, 2>, outputs = array<i64: 3>} : (memref<1x2x5x5x!quant.uniform<i8:f32, 1.000000e-02:-2>, "npu_local">, memref<3x2x3x3x!quant.uniform<i8:f32:0, {2.000000e-02,4.000000e-02,6.000000e-02}>, "npu_local">, memref<3xi32, "npu_local">, memref<1x3x5x5x!quant.uniform<i8:f32, 3.000000e-01:3>, "npu_local">, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, memref<3xf32, "npu_local">) -> () semantics {
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<1x2x5x5x!quant.uniform<i8:f32, 1.000000e-02:-2>>, %[[W:.*]]: tensor<3x2x3x3x{{.*}}>, %[[B:.*]]: tensor<3xi32>):
// The copy computes with the table passed (its `scales`).
// CHECK-NEXT: %[[Y:.*]] = graph.qconv2d %[[X]], %[[W]], %[[B]] {pads = array<i64: 1, 1, 1, 1>, params = {scales = array<f32: 6.6666666e-4, 1.3333333e-3, 2.000000e-03>}}
// CHECK-NEXT: hw.yield %[[Y]] : tensor<1x3x5x5x!quant.uniform<i8:f32, 3.000000e-01:3>>
// CHECK-NEXT: }
// CHECK: %[[BACK:.*]] = hw.dma_start %[[OUT]], %{{.*}} {call = "npu_dma"} : memref<1x3x5x5x!quant.uniform<i8:f32, 3.000000e-01:3>, "npu_local"> to memref<1x3x5x5x!quant.uniform<i8:f32, 3.000000e-01:3>>
// CHECK: hw.dma_wait %[[BACK]] {call = "npu_dma_wait"}
// The dilated convolution: host loops, no call.
// CHECK-NOT: hw.intrinsic
// CHECK: loop.parallel
// CHECK: return
// ROUND-LABEL: func.func @conv(
// ROUND: hw.intrinsic "npu_conv2d_s8"({{.*}}) semantics {
// ROUND: graph.qconv2d
// ROUND: hw.yield
func.func @conv(%x: tensor<1x2x5x5xf32>) -> (tensor<1x3x5x5xf32>, tensor<1x3x5x5xf32>) {
  %wi = graph.constant dense<[[[[1, -2, 3], [-4, 5, -6], [7, -8, 9]], [[-10, 11, -12], [13, -14, 15], [-16, 17, -18]]], [[[19, -20, 21], [-22, 23, -24], [25, -26, 27]], [[-28, 29, -30], [31, -32, 33], [-34, 35, -36]]], [[[37, -38, 39], [-40, 41, -42], [43, -44, 45]], [[-46, 47, -48], [49, -50, 51], [-52, 53, -54]]]]> : tensor<3x2x3x3xi8>
  %w = graph.storage_cast %wi : tensor<3x2x3x3xi8> to tensor<3x2x3x3x!quant.uniform<i8:f32:0, {2.000000e-02,4.000000e-02,6.000000e-02}>>
  %b = graph.constant dense<[120, -340, 75]> : tensor<3xi32>
  %q = graph.quantize %x : tensor<1x2x5x5xf32> to tensor<1x2x5x5x!quant.uniform<i8:f32, 1.000000e-02:-2>>
  %c = graph.qconv2d %q, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x5x5x!quant.uniform<i8:f32, 1.000000e-02:-2>>, tensor<3x2x3x3x!quant.uniform<i8:f32:0, {2.000000e-02,4.000000e-02,6.000000e-02}>>, tensor<3xi32>) -> tensor<1x3x5x5x!quant.uniform<i8:f32, 3.000000e-01:3>>
  %d = graph.qconv2d %q, %w, %b {pads = array<i64: 2, 2, 2, 2>, dilations = array<i64: 2, 2>} : (tensor<1x2x5x5x!quant.uniform<i8:f32, 1.000000e-02:-2>>, tensor<3x2x3x3x!quant.uniform<i8:f32:0, {2.000000e-02,4.000000e-02,6.000000e-02}>>, tensor<3xi32>) -> tensor<1x3x5x5x!quant.uniform<i8:f32, 3.000000e-01:3>>
  %f = graph.dequantize %c : tensor<1x3x5x5x!quant.uniform<i8:f32, 3.000000e-01:3>> to tensor<1x3x5x5xf32>
  %g = graph.dequantize %d : tensor<1x3x5x5x!quant.uniform<i8:f32, 3.000000e-01:3>> to tensor<1x3x5x5xf32>
  return %f, %g : tensor<1x3x5x5xf32>, tensor<1x3x5x5xf32>
}
