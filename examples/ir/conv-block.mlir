// A small residual convolution block in the graph dialect (ONNX-level ops), with its
// weights in the resource section.
//
//   cargo run --release --bin acc-opt -- examples/ir/conv-block.mlir
//
// parses, verifies (shapes are inferred and checked) and prints it back; add
// --print-generic for MLIR's generic form.

module @conv_block attributes {acc.target = "host"} {
  func.func @forward(%input: tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32> {
    %w = graph.constant dense_resource<conv_w> : tensor<8x8x1x1xf32>
    %b = graph.constant dense<0.5> : tensor<8xf32>
    %conv = graph.conv2d %input, %w, %b : (tensor<1x8x16x16xf32>, tensor<8x8x1x1xf32>, tensor<8xf32>) -> tensor<1x8x16x16xf32> loc("conv1")
    %relu = graph.relu %conv : tensor<1x8x16x16xf32> loc("relu1")
    %sum = graph.add %relu, %input : (tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
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
