// An op a lowering does not handle is an error at that op, and nothing is written.
// RUN: acc-opt --pass graph-to-tensor --verify-diagnostics %s

func.func @top(%x: tensor<6xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{cannot lower 'graph.topk': graph.topk has no lowering to the tensor dialect yet}}
  %v, %i = graph.topk %x {k = 3 : i64} : (tensor<6xf32>) -> (tensor<3xf32>, tensor<3xi64>)
  return %v : tensor<3xf32>
}
