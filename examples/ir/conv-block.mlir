// A small residual convolution block in the graph dialect (ONNX-level ops), with its
// weights in the resource section.
//
//   cargo run --release --bin acc-opt -- --pass canonicalize,cse examples/ir/conv-block.mlir
//
// parses, verifies (shapes are inferred and checked), folds the batch normalization
// into the convolution (new weights computed at compile time) and prints the result;
// without --pass it prints the block back as it is; add --print-generic for MLIR's
// generic form.

module @conv_block attributes {acc.target = "host"} {
  func.func @forward(%input: tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32> {
    %w = graph.constant dense_resource<conv_w> : tensor<8x8x1x1xf32>
    %b = graph.constant dense<0.5> : tensor<8xf32>
    %scale = graph.constant dense<[1.0, 2.0, 0.5, 1.0, 1.5, 1.0, 2.0, 0.25]> : tensor<8xf32>
    %shift = graph.constant dense<0.125> : tensor<8xf32>
    %mean = graph.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]> : tensor<8xf32>
    %var = graph.constant dense<[1.0, 4.0, 0.25, 1.0, 1.0, 16.0, 1.0, 4.0]> : tensor<8xf32>
    %conv = graph.conv2d %input, %w, %b : (tensor<1x8x16x16xf32>, tensor<8x8x1x1xf32>, tensor<8xf32>) -> tensor<1x8x16x16xf32> loc("conv1")
    %bn = graph.batch_norm %conv, %scale, %shift, %mean, %var {epsilon = 0.0 : f32} : (tensor<1x8x16x16xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x16x16xf32> loc("bn1")
    %relu = graph.relu %bn : tensor<1x8x16x16xf32> loc("relu1")
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
