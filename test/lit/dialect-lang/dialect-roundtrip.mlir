// A dialect defined only in a text file (Inputs/dsp.acc) loads with --dialect, parses
// and prints in its custom format, and round-trips through the generic form.
// RUN: acc-opt --dialect %S/Inputs/dsp.acc %s | FileCheck %s
// RUN: acc-opt --dialect %S/Inputs/dsp.acc --print-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: acc-opt --dialect %S/Inputs/dsp.acc --print-generic %s | acc-opt --dialect %S/Inputs/dsp.acc | FileCheck %s

// CHECK-LABEL: func.func @kernel
func.func @kernel(%acc: tensor<16xi32>, %a: tensor<16xi8>, %b: tensor<16xi4>, %n: index,
                  %v: vector<4xf32>, %w: vector<4xf32>) -> tensor<16xi32> {
  // CHECK: %0 = dsp.mac %arg0, %arg1, %arg2 shift 3 {mode = "sat"} : tensor<16xi32>, tensor<16xi8>, tensor<16xi4> -> tensor<16xi32>
  // GENERIC: %0 = "dsp.mac"(%arg0, %arg1, %arg2) <{mode = "sat", shift = 3 : i64}> : (tensor<16xi32>, tensor<16xi8>, tensor<16xi4>) -> tensor<16xi32>
  %0 = dsp.mac %acc, %a, %b shift 3 {mode = "sat"} : tensor<16xi32>, tensor<16xi8>, tensor<16xi4> -> tensor<16xi32>
  // CHECK: %1 = dsp.add %0, %0 : tensor<16xi32>
  %1 = dsp.add %0, %0 : tensor<16xi32>
  // CHECK: %2 = dsp.concat(%arg4, %arg5) : vector<4xf32>, vector<4xf32> -> vector<8xf32>
  %2 = dsp.concat(%v, %w) : vector<4xf32>, vector<4xf32> -> vector<8xf32>
  // CHECK: %3 = dsp.concat() : -> vector<1xf32>
  %3 = dsp.concat() : -> vector<1xf32>
  // Optional groups appear only when their anchor is present.
  // CHECK: %4 = dsp.scale %0 by 2 : tensor<16xi32> -> tensor<16xi32>
  %4 = dsp.scale %0 by 2 : tensor<16xi32> -> tensor<16xi32>
  // CHECK: %5 = dsp.scale %0 by 2 bias %arg0 : tensor<16xi32> round <even> : tensor<16xi32> -> tensor<16xi32>
  // GENERIC: %5 = "dsp.scale"(%0, %arg0) <{factor = 2 : i64, round = #dsp.rounding<even>}> : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
  %5 = dsp.scale %0 by 2 bias %acc : tensor<16xi32> round #dsp.rounding<even> : tensor<16xi32> -> tensor<16xi32>
  // Dialect enum attributes are checked and normalised; flags combine.
  // CHECK: %6 = dsp.scale %0 by -1 round <up> {note, opts = #dsp.options<sat,relu>} : tensor<16xi32> -> tensor<16xi32>
  %6 = dsp.scale %0 by -1 round #dsp.rounding<up> {note, opts = #dsp.options<sat, relu>} : tensor<16xi32> -> tensor<16xi32>
  // CHECK: dsp.loop %arg3 {
  // CHECK-NEXT: dsp.yield
  // CHECK-NEXT: }
  dsp.loop %n {
    dsp.yield
  }
  return %1 : tensor<16xi32>
}
