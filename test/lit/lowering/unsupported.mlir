// An op a lowering does not handle is an error at that op, and nothing is written.
// RUN: acc-opt --split-input-file --pass graph-to-tensor --verify-diagnostics %s

func.func @edge(%x: tensor<0x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{cannot lower 'graph.pad': edge padding cannot extend an empty dimension}}
  %r = graph.pad %x {pads = array<i64: 1, 0, 1, 0>, mode = #graph.pad_mode<edge>} : (tensor<0x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// Products of 16-bit stored integers could overflow the i32 accumulator.
func.func @wide(%a: tensor<2x3x!quant.uniform<i16:f32, 0.5>>, %b: tensor<3x2x!quant.uniform<i16:f32, 0.5>>) -> tensor<2x2x!quant.uniform<i16:f32, 1.0>> {
  // expected-error @+1 {{cannot lower 'graph.qmatmul': products of storage wider than 8 bits could overflow the i32 accumulator; not lowered yet}}
  %r = graph.qmatmul %a, %b : (tensor<2x3x!quant.uniform<i16:f32, 0.5>>, tensor<3x2x!quant.uniform<i16:f32, 0.5>>) -> tensor<2x2x!quant.uniform<i16:f32, 1.0>>
  return %r : tensor<2x2x!quant.uniform<i16:f32, 1.0>>
}
