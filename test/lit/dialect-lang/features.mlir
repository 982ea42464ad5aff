// A dialect loaded with --dialect that uses every feature of the language: types and
// attributes with parameters, enums stored as integers, flag separators, classes,
// hooks (shape inference), segment sizes, successor operands, relations, regions.
// RUN: acc-opt --dialect %S/Inputs/features.acc %s | FileCheck %s
// RUN: acc-opt --dialect %S/Inputs/features.acc --print-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: acc-opt --dialect %S/Inputs/features.acc --print-generic %s | acc-opt --dialect %S/Inputs/features.acc | FileCheck %s

// CHECK-LABEL: func.func @f
func.func @f(%x: tensor<2x3xf32>, %y: tensor<3xf32>, %v: tensor<4xi8>, %i: index, %c: i1) {
  // Result types come from the `broadcast` inference hook.
  // CHECK-NEXT: %0 = feat.add %arg0, %arg1 : tensor<2x3xf32>, tensor<3xf32>
  // GENERIC: "feat.add"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %0 = feat.add %x, %y : tensor<2x3xf32>, tensor<3xf32>
  // The class's default, left out of the custom form.
  // CHECK-NEXT: %1 = feat.scaled_add %arg0, %arg0 : tensor<2x3xf32>, tensor<2x3xf32>
  // GENERIC: "feat.scaled_add"(%arg0, %arg0) <{scale = 1.000000e+00 : f32}>
  %1 = feat.scaled_add %x, %x : tensor<2x3xf32>, tensor<2x3xf32>
  // CHECK-NEXT: %2 = feat.scaled_add %arg0, %arg0 scale 5.000000e-01 : tensor<2x3xf32>, tensor<2x3xf32>
  %2 = feat.scaled_add %x, %x scale 0.5 : tensor<2x3xf32>, tensor<2x3xf32>
  // CHECK-NEXT: %3 = feat.open !feat.buffer<"sram", 1024> <4, 8> exact opts <a, c> {note}
  // GENERIC: "feat.open"() <{buf = !feat.buffer<"sram", 1024>, mode = 7 : i32, opts = #feat.opts<a, c>, tile = #feat.tile<4, 8>}> {note} : () -> !feat.handle
  %3 = feat.open !feat.buffer<"sram", 1024> <4, 8> exact opts <c, a> {note}
  // CHECK-NEXT: %4 = feat.gather(%arg3, %arg3) at(%arg3){{$}}
  // GENERIC: "feat.gather"(%arg3, %arg3, %arg3) <{operandSegmentSizes = array<i32: 2, 1>}> : (index, index, index) -> index
  %4 = feat.gather(%i, %i) at(%i)
  // CHECK-NEXT: %5 = feat.pick %arg2[%arg3] : tensor<4xi8>
  // GENERIC: "feat.pick"(%arg2, %arg3) : (tensor<4xi8>, index) -> i8
  %5 = feat.pick %v[%i] : tensor<4xi8>
  // CHECK-NEXT: feat.repeat %arg3 {
  // CHECK-NEXT: ^bb0(%arg5: index):
  // CHECK-NEXT: feat.end
  // CHECK-NEXT: }
  feat.repeat %i {
  ^bb0(%k: index):
    feat.end
  }
  // CHECK-NEXT: feat.choose %arg4, ^bb1(%5 : i8), ^bb2
  // GENERIC: "feat.choose"(%arg4, %5) [^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (i1, i8) -> ()
  feat.choose %c, ^a(%5 : i8), ^b
^a(%e: i8):
  return
^b:
  return
}
