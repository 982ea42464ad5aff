// The example at the top of docs/dialect-language.md, exactly as the page shows it.
// RUN: acc-opt --dialect %S/Inputs/doc-example.acc %s | FileCheck %s
// RUN: acc-opt --dialect %S/Inputs/doc-example.acc --print-generic %s | FileCheck %s --check-prefix=GENERIC

// CHECK: %0 = dsp.mac %arg0, %arg1, %arg2 shift 3 round <even> : tensor<16xi32>, tensor<16xi8>, tensor<16xi4>
// CHECK: %1 = dsp.mac %0, %arg1, %arg2 : tensor<16xi32>, tensor<16xi8>, tensor<16xi4>
// GENERIC: %0 = "dsp.mac"(%arg0, %arg1, %arg2) <{round = #dsp.rounding<even>, shift = 3 : i64}> : (tensor<16xi32>, tensor<16xi8>, tensor<16xi4>) -> tensor<16xi32>
// GENERIC: %1 = "dsp.mac"(%0, %arg1, %arg2) <{shift = 0 : i64}> : (tensor<16xi32>, tensor<16xi8>, tensor<16xi4>) -> tensor<16xi32>
func.func @k(%acc: tensor<16xi32>, %a: tensor<16xi8>, %b: tensor<16xi4>) -> tensor<16xi32> {
  %0 = dsp.mac %acc, %a, %b shift 3 round <even> : tensor<16xi32>, tensor<16xi8>, tensor<16xi4>
  %1 = dsp.mac %0, %a, %b : tensor<16xi32>, tensor<16xi8>, tensor<16xi4>
  return %1 : tensor<16xi32>
}
