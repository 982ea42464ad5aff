// A small convolution block as acc sees it before any dialect is loaded: ops of the
// graph dialect in generic form (the graph dialect itself arrives with the dialect
// language), with weights in the resource section.
//
//   cargo run --release --bin acc-opt -- --allow-unregistered-dialect examples/ir/conv-block.mlir
//
// prints it back in custom form; add --print-generic for MLIR's generic form, which
// `mlir-opt --allow-unregistered-dialect` accepts.

#nhwc = affine_map<(n, c, h, w) -> (n, h, w, c)>

module @conv_block attributes {acc.target = "host"} {
  func.func @forward(%input: tensor<1x8x16x16xf32> {acc.layout = #nhwc}) -> tensor<1x8x16x16xf32> {
    %w = "graph.constant"() {value = dense_resource<conv_w> : tensor<8x8x1x1xf32>} : () -> tensor<8x8x1x1xf32>
    %b = "graph.constant"() {value = dense<0.5> : tensor<8xf32>} : () -> tensor<8xf32>
    %conv = "graph.conv2d"(%input, %w, %b) <{strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64}> : (tensor<1x8x16x16xf32>, tensor<8x8x1x1xf32>, tensor<8xf32>) -> tensor<1x8x16x16xf32> loc("conv1")
    %relu = "graph.relu"(%conv) : (tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32> loc("relu1")
    %sum = "graph.add"(%relu, %input) : (tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
    return %sum : tensor<1x8x16x16xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      conv_w: "0x040000000000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F"
    }
  }
#-}
