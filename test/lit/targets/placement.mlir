// partition searches for the placement whose schedule, transfers between the
// devices' memories included, is shortest (placement=schedule, the default);
// placement=op-by-op puts each op on its cheapest device. The DLA works in its SRAM
// (16 bytes a cycle to and from the DDR); the DSP reads the DDR in place.
// RUN: acc-opt --target %S/Inputs/placement.acc --remarks --pass partition %s 2>&1 | FileCheck %s
// RUN: acc-opt --target %S/Inputs/placement.acc --pass 'partition{placement=op-by-op}' %s | FileCheck %s --check-prefix=OPS
// RUN: acc-opt --target %S/Inputs/placement.acc --check-semantics --pass partition,graph-to-tensor,bufferize,buffer-deallocation,memory-plan,schedule-devices %s | FileCheck %s --check-prefix=LAUNCH
// RUN: not acc-opt --target %S/Inputs/placement.acc --pass 'partition{placement=best}' %s 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: acc-opt --target %S/Inputs/placement.acc --pass 'partition,view-graph{file=%t.dot}' %s -o %t.mlir
// RUN: FileCheck %s --input-file %t.dot --check-prefix=DOT

// Between two DLA-only ops, a ReLU slightly cheaper on the DSP stays on the DLA:
// going to the DSP would copy 4096 bytes out of the SRAM and back in.
// CHECK: help: 'graph.relu' goes to dla rather than dsp, where it alone costs less (4096 cycles, not 4152): with transfers priced, the schedule takes 10920 cycles instead of 11408
// Beside a long DLA-only tanh, the absolute value runs on the DSP at the same time.
// CHECK: help: 'graph.abs' goes to dsp rather than dla, where it alone costs less (104 cycles, not 3072): with transfers priced, the schedule takes 3656 cycles instead of 3928
// CHECK-LABEL: func.func @chain
// CHECK: graph.tanh {{.*}}hw.device = "dla"
// CHECK-NEXT: graph.relu {{.*}}hw.device = "dla", hw.intrinsic = "dla_relu"
// CHECK-NEXT: graph.tanh {{.*}}hw.device = "dla"
// CHECK-LABEL: func.func @branches
// CHECK: graph.tanh {{.*}}hw.device = "dla"
// CHECK-NEXT: graph.abs {{.*}}{hw.device = "dsp"}

// OPS-LABEL: func.func @chain
// OPS: graph.relu {{.*}}{hw.device = "dsp"}
// OPS-LABEL: func.func @branches
// OPS: graph.abs {{.*}}hw.device = "dla", hw.intrinsic = "dla_abs"

// The DSP's absolute value starts with the DLA's tanh; the host waits for both.
// LAUNCH-LABEL: func.func @branches
// LAUNCH: %[[DLA:[0-9]+]] = hw.launch @dla(
// LAUNCH: hw.intrinsic "dla_tanh"
// LAUNCH: %[[DSP:[0-9]+]] = hw.launch @dsp(
// LAUNCH: math.absf
// LAUNCH: hw.wait %[[DLA]], %[[DSP]]

// BAD: 'best'

// The DOT view: a box per region, transfers bold with their bytes.
// DOT-LABEL: digraph "chain"
// DOT: label="region 1 on dla";
// DOT-NEXT: op0
// DOT-NEXT: op1
// DOT-NEXT: op2
// DOT: op0 -> op1;
// DOT-LABEL: digraph "branches"
// DOT: label="region 1 on dla";
// DOT: label="region 2 on dsp";
// DOT-NEXT: op1 [label="graph.abs\ncode on dsp\ntensor<1024xf32>"
// DOT: arg1 -> op1 [color="#d00000", penwidth=2, label="4096 B"];

func.func @chain(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %a = graph.tanh %x : tensor<1024xf32>
  %b = graph.relu %a : tensor<1024xf32>
  %c = graph.tanh %b : tensor<1024xf32>
  return %c : tensor<1024xf32>
}

func.func @branches(%x: tensor<1024xf32>, %y: tensor<1024xf32>) -> (tensor<1024xf32>, tensor<1024xf32>) {
  %a = graph.tanh %x : tensor<1024xf32>
  %b = graph.abs %y : tensor<1024xf32>
  return %a, %b : tensor<1024xf32>, tensor<1024xf32>
}
