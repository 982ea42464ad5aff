// partition places ops on the example accelerator (examples/targets/tinynpu.acc) from
// its intrinsics' matches and conditions, and says why every other op stays on the
// host; view-graph draws the placement.
// RUN: acc-opt --target %S/../../../examples/targets/tinynpu.acc --pass partition --verify-diagnostics %s
// RUN: acc-opt --target %S/../../../examples/targets/tinynpu.acc --pass partition %s | FileCheck %s
// RUN: acc-opt --target %S/../../../examples/targets/tinynpu.acc --pass 'partition,view-graph{file=%t.dot}' %s -o %t.mlir
// RUN: FileCheck %s --input-file %t.dot --check-prefix=DOT
// The flag form draws to standard error.
// RUN: acc-opt --target %S/../../../examples/targets/tinynpu.acc --partition --view-graph %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=DOT
// Without a target there is nothing to place on.
// RUN: not acc-opt --pass partition %s 2>&1 | FileCheck %s --check-prefix=NOTARGET

// NOTARGET: error: partition: no target (give one with --target FILE)

// CHECK-LABEL: func.func @net(
func.func @net(%x: tensor<1x2x5x5x!quant.uniform<i8:f32, 1.000000e-02:-2>>,
               %w: tensor<3x2x3x3x!quant.uniform<i8:f32, 2.000000e-02>>,
               %big: tensor<3x2x9x9x!quant.uniform<i8:f32, 2.000000e-02>>,
               %wz: tensor<3x2x3x3x!quant.uniform<i8:f32, 2.000000e-02:5>>,
               %dw: tensor<2x1x3x3x!quant.uniform<i8:f32, 2.000000e-02>>,
               %b: tensor<3xi32>, %b2: tensor<2xi32>,
               %a: tensor<4x8x!quant.uniform<i8:f32, 1.000000e-01>>,
               %m: tensor<8x6x!quant.uniform<i8:f32:1, {1.0e-02, 2.0e-02, 3.0e-02, 4.0e-02, 5.0e-02, 6.0e-02}>>)
    -> (tensor<1x3x5x5x!quant.uniform<i8:f32, 3.000000e-01:3>>, tensor<1x3x1x1x!quant.uniform<i8:f32, 3.000000e-01:3>>,
        tensor<1x3x5x5x!quant.uniform<i8:f32, 3.000000e-01:3>>, tensor<1x2x1x1x!quant.uniform<i8:f32, 3.000000e-01>>,
        tensor<4x6x!quant.uniform<i8:f32, 5.000000e-01:-1>>, tensor<4x6xf32>) {
  // CHECK: graph.qconv2d {{.*}}{hw.device = "npu", hw.intrinsic = "npu_conv2d_s8", pads = array<i64: 1, 1, 1, 1>}
  %c = graph.qconv2d %x, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x5x5x!quant.uniform<i8:f32, 1.000000e-02:-2>>, tensor<3x2x3x3x!quant.uniform<i8:f32, 2.000000e-02>>, tensor<3xi32>) -> tensor<1x3x5x5x!quant.uniform<i8:f32, 3.000000e-01:3>>
  // expected-remark @+1 {{'graph.qconv2d' stays on cpu: 'npu_conv2d_s8' refuses it: 'dim(%w, 2) <= 7' does not hold (9 <= 7); 'npu_conv2d_s4' refuses it: 'storage_bits(%x) == 4' does not hold (8 == 4); 'npu_dwconv2d_s8' refuses it: 'int($g) == dim(%x, 1)' does not hold (1 == 2)}}
  %k = graph.qconv2d %x, %big, %b {pads = array<i64: 2, 2, 2, 2>} : (tensor<1x2x5x5x!quant.uniform<i8:f32, 1.000000e-02:-2>>, tensor<3x2x9x9x!quant.uniform<i8:f32, 2.000000e-02>>, tensor<3xi32>) -> tensor<1x3x1x1x!quant.uniform<i8:f32, 3.000000e-01:3>>
  // expected-remark @+1 {{'npu_conv2d_s8' refuses it: 'zero_point(%w) == 0' does not hold (5 == 0)}}
  %z = graph.qconv2d %x, %wz, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x5x5x!quant.uniform<i8:f32, 1.000000e-02:-2>>, tensor<3x2x3x3x!quant.uniform<i8:f32, 2.000000e-02:5>>, tensor<3xi32>) -> tensor<1x3x5x5x!quant.uniform<i8:f32, 3.000000e-01:3>>
  // CHECK: graph.qconv2d {{.*}}{groups = 2 : i64, hw.device = "npu", hw.intrinsic = "npu_dwconv2d_s8", strides = array<i64: 2, 2>}
  %d = graph.qconv2d %x, %dw, %b2 {groups = 2 : i64, strides = array<i64: 2, 2>} : (tensor<1x2x5x5x!quant.uniform<i8:f32, 1.000000e-02:-2>>, tensor<2x1x3x3x!quant.uniform<i8:f32, 2.000000e-02>>, tensor<2xi32>) -> tensor<1x2x2x2x!quant.uniform<i8:f32, 3.000000e-01>>
  // CHECK: graph.qmatmul {{.*}}{hw.device = "npu", hw.intrinsic = "npu_matmul_s8"}
  %p = graph.qmatmul %a, %m : (tensor<4x8x!quant.uniform<i8:f32, 1.000000e-01>>, tensor<8x6x!quant.uniform<i8:f32:1, {1.0e-02, 2.0e-02, 3.0e-02, 4.0e-02, 5.0e-02, 6.0e-02}>>) -> tensor<4x6x!quant.uniform<i8:f32, 5.000000e-01:-1>>
  // expected-remark @+1 {{'graph.dequantize' stays on cpu: no intrinsic of target 'tinynpu' computes 'graph.dequantize'}}
  %f = graph.dequantize %p : tensor<4x6x!quant.uniform<i8:f32, 5.000000e-01:-1>> to tensor<4x6xf32>
  // expected-remark @+1 {{'graph.qconv2d' stays on cpu: 'npu_conv2d_s8' refuses it: its 'groups' is 2 : i64, the match needs 1 : i64; 'npu_conv2d_s4' refuses it: its 'groups' is 2 : i64, the match needs 1 : i64; 'npu_dwconv2d_s8' refuses it: 'at($s, 0) <= 4' does not hold (8 <= 4)}}
  %e = graph.qconv2d %x, %dw, %b2 {groups = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 8, 8>} : (tensor<1x2x5x5x!quant.uniform<i8:f32, 1.000000e-02:-2>>, tensor<2x1x3x3x!quant.uniform<i8:f32, 2.000000e-02>>, tensor<2xi32>) -> tensor<1x2x1x1x!quant.uniform<i8:f32, 3.000000e-01>>
  return %c, %k, %z, %e, %p, %f : tensor<1x3x5x5x!quant.uniform<i8:f32, 3.000000e-01:3>>, tensor<1x3x1x1x!quant.uniform<i8:f32, 3.000000e-01:3>>, tensor<1x3x5x5x!quant.uniform<i8:f32, 3.000000e-01:3>>, tensor<1x2x1x1x!quant.uniform<i8:f32, 3.000000e-01>>, tensor<4x6x!quant.uniform<i8:f32, 5.000000e-01:-1>>, tensor<4x6xf32>
}

// Host ops first, then each region of the accelerator in a box of its own; a value
// crossing between the host and the accelerator is a transfer (bold, its bytes).
// DOT: digraph "net" {
// DOT: arg0 [shape=ellipse, label="%arg0\ntensor<1x2x5x5x!quant.uniform<i8:f32, 1.000000e-02:-2>>"];
// DOT: op1 [label="graph.qconv2d\n{{.*}}", fillcolor="white"];
// DOT: subgraph cluster_0 {
// DOT-NEXT: label="region 1 on npu";
// DOT-NEXT: op0 [label="graph.qconv2d\nnpu_conv2d_s8 on npu\n{{.*}}", fillcolor="#8ecae6"];
// DOT: arg0 -> op0 [color="#d00000", penwidth=2, label="50 B"];
