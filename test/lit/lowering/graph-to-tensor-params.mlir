// An op carrying a library's numbers (`params`, which only an accelerator call's
// semantics region holds) is not lowered to loops: the loops would compute what the
// types say instead. The error names the op, at its line, and nothing is written.
// RUN: not acc-opt --pass graph-to-tensor %s -o %t.mlir 2>&1 | FileCheck %s
// RUN: not test -e %t.mlir

// CHECK: error: cannot lower 'graph.qadd': its 'params' (the numbers a library call is given) are not lowered to loops; only an accelerator call's semantics holds them
// CHECK-NEXT: graph-to-tensor-params.mlir:10:8
func.func @add(%a: tensor<4x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<4x!quant.uniform<i8:f32, 1.0>> {
  %y = graph.qadd %a, %a {requant = #graph.requantization<fixed_point>, params = {output_offset = 2 : i64}} : (tensor<4x!quant.uniform<i8:f32, 0.5:1>>, tensor<4x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<4x!quant.uniform<i8:f32, 1.0>>
  return %y : tensor<4x!quant.uniform<i8:f32, 1.0>>
}
