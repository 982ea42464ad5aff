// An op a lowering does not handle (here: a dynamic result shape) is an error at that
// op, and nothing is written.
// RUN: acc-opt --pass graph-to-tensor --verify-diagnostics %s

func.func @nms(%b: tensor<1x10x4xf32>, %s: tensor<1x2x10xf32>) -> tensor<?x3xi64> {
  // expected-error @+1 {{cannot lower 'graph.non_max_suppression': tensor<?x3xi64> has a dynamic shape}}
  %0 = graph.non_max_suppression %b, %s : (tensor<1x10x4xf32>, tensor<1x2x10xf32>) -> tensor<?x3xi64>
  return %0 : tensor<?x3xi64>
}
