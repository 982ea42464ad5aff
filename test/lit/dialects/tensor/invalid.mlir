// tensor verifier errors: at least one per op, each naming the op and the problem.
// RUN: acc-opt --split-input-file --verify-diagnostics %s

func.func @empty(%t: tensor<2x3x4xf32>, %m: tensor<4x8xf32>, %i: index, %p: f32, %x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'tensor.empty' op has 0 size operands for 1 dynamic dimensions}}
  %0 = tensor.empty() : tensor<4x?xf32>
  return
}

// -----

func.func @extract_slice(%t: tensor<2x3x4xf32>, %m: tensor<4x8xf32>, %i: index, %p: f32, %x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'tensor.extract_slice' op dimension 2: the slice runs past the end (2 + (3 - 1) * 1 >= 4)}}
  %0 = tensor.extract_slice %t[0, 0, 2] [2, 3, 3] [1, 1, 1] : tensor<2x3x4xf32> to tensor<2x3x3xf32>
  return
}

// -----

func.func @extract_slice_shape(%t: tensor<2x3x4xf32>, %m: tensor<4x8xf32>, %i: index, %p: f32, %x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'tensor.extract_slice' op the slice has shape [2, 4], which is not the sizes [2, 3, 4] (with unit dimensions dropped)}}
  %0 = tensor.extract_slice %t[0, 0, 0] [2, 3, 4] [1, 1, 1] : tensor<2x3x4xf32> to tensor<2x4xf32>
  return
}

// -----

func.func @insert_slice(%t: tensor<2x3x4xf32>, %m: tensor<4x8xf32>, %i: index, %p: f32, %x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'tensor.insert_slice' op 'static_offsets' has 2 values for rank 3}}
  %0 = tensor.insert_slice %m into %t[0, 0] [4, 8] [1, 1] : tensor<4x8xf32> into tensor<2x3x4xf32>
  return
}

// -----

func.func @pad(%t: tensor<2x3x4xf32>, %m: tensor<4x8xf32>, %i: index, %p: f32, %x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'tensor.pad' op dimension 2: 4 + 0 + 1 is not the result's 6}}
  %0 = tensor.pad %t low[0, 0, 0] high[0, 0, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index):
    tensor.yield %p : f32
  } : tensor<2x3x4xf32> to tensor<2x3x6xf32>
  return
}

// -----

func.func @pad_region(%t: tensor<2x3x4xf32>, %m: tensor<4x8xf32>, %i: index, %p: f32, %x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'tensor.pad' op region arguments must be (index, index, index), but are (index)}}
  %0 = tensor.pad %t low[0, 0, 0] high[0, 0, 1] {
  ^bb0(%i0: index):
    tensor.yield %p : f32
  } : tensor<2x3x4xf32> to tensor<2x3x5xf32>
  return
}

// -----

func.func @collapse_shape(%t: tensor<2x3x4xf32>, %m: tensor<4x8xf32>, %i: index, %p: f32, %x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'tensor.collapse_shape' op dimensions [0] of [2, 3, 4] do not make dimension 0 (6) of [6, 4]}}
  %0 = tensor.collapse_shape %t [[0], [1, 2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
  return
}

// -----

func.func @expand_shape(%t: tensor<2x3x4xf32>, %m: tensor<4x8xf32>, %i: index, %p: f32, %x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'tensor.expand_shape' op dimensions [2] of [2, 2, 9] do not make dimension 1 (8) of [4, 8]}}
  %0 = tensor.expand_shape %m [[0, 1], [2]] output_shape [2, 2, 8] : tensor<4x8xf32> into tensor<2x2x9xf32>
  return
}

// -----

func.func @collapse_shape_to_rank_zero(%t: tensor<1x2xf32>) {
  // expected-error @+1 {{'tensor.collapse_shape' op 'reassociation' [] needs every dimension of [1, 2] to be 1}}
  %0 = tensor.collapse_shape %t [] : tensor<1x2xf32> into tensor<f32>
  return
}

// -----

func.func @expand_shape_from_rank_zero(%t: tensor<f32>) {
  // expected-error @+1 {{'tensor.expand_shape' op 'reassociation' must group the 2 dimensions of [1, 1] into the 0 of []}}
  %0 = tensor.expand_shape %t [[0, 1]] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
  return
}

// -----

func.func @extract(%t: tensor<2x3x4xf32>, %m: tensor<4x8xf32>, %i: index, %p: f32, %x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'tensor.extract' op needs 3 indices, one per dimension, but has 1}}
  %0 = tensor.extract %t[%i] : tensor<2x3x4xf32>
  return
}

// -----

func.func @insert(%t: tensor<2x3x4xf32>, %m: tensor<4x8xf32>, %i: index, %p: f32, %x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'tensor.insert' op requires 'scalar' to have the element type of 'dest' (ElementTypeOf), but found tensor<2x3x4xf32> and index}}
  %0 = "tensor.insert"(%i, %t, %i, %i, %i) : (index, tensor<2x3x4xf32>, index, index, index) -> tensor<2x3x4xf32>
  return
}

// -----

func.func @yield(%t: tensor<2x3x4xf32>, %m: tensor<4x8xf32>, %i: index, %p: f32, %x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+3 {{'tensor.yield' op expects 0 results, but found 1}}
  %0 = tensor.map ins(%m : tensor<4x8xf32>) outs(%m : tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: f32):
    %r = "tensor.yield"(%a) : (f32) -> f32
  }
  return
}

// -----

func.func @matmul(%t: tensor<2x3x4xf32>, %m: tensor<4x8xf32>, %i: index, %p: f32, %x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'tensor.matmul' op shapes [4, 8] x [4, 8] do not multiply into [4, 8]}}
  %0 = tensor.matmul ins(%m, %m : tensor<4x8xf32>, tensor<4x8xf32>) outs(%m : tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @batch_matmul(%t: tensor<2x3x4xf32>, %m: tensor<4x8xf32>, %i: index, %p: f32, %x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'tensor.batch_matmul' op operands must have rank 3}}
  %0 = tensor.batch_matmul ins(%m, %m : tensor<4x8xf32>, tensor<4x8xf32>) outs(%m : tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @conv2d(%t: tensor<2x3x4xf32>, %m: tensor<4x8xf32>, %i: index, %p: f32, %x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'tensor.conv2d' op the output (N, C, H, W) is [1, 3, 8, 8], but the input and filter give [1, 4, 6, 6]}}
  %0 = tensor.conv2d ins(%x, %w : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) outs(%x : tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @conv2d_layout(%t: tensor<2x3x4xf32>, %m: tensor<4x8xf32>, %i: index, %p: f32, %x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'tensor.conv2d' op input: a tensor of rank 4 does not have a layout of 5 dimensions}}
  %0 = tensor.conv2d {input_layout = #tensor.layout<"NCHW16c">} ins(%x, %w : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) outs(%x : tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @layout_string(%t: tensor<2x3x4xf32>, %m: tensor<4x8xf32>, %i: index, %p: f32, %x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'tensor.conv2d' op layout "NCHW16": a block size must be positive and followed by a lower-case letter}}
  %0 = tensor.conv2d {input_layout = #tensor.layout<"NCHW16">} ins(%x, %w : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) outs(%x : tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @pool(%t: tensor<2x3x4xf32>, %m: tensor<4x8xf32>, %i: index, %p: f32, %x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'tensor.pool' op the output (N, C, H, W) is [1, 3, 8, 8], but the input gives [1, 3, 7, 7]}}
  %0 = tensor.pool {kind = #tensor.pool_kind<max>, window = array<i64: 2, 2>} ins(%x : tensor<1x3x8x8xf32>) outs(%x : tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @map(%t: tensor<2x3x4xf32>, %m: tensor<4x8xf32>, %i: index, %p: f32, %x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'tensor.map' op region must yield one f32}}
  %0 = tensor.map ins(%m : tensor<4x8xf32>) outs(%m : tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: f32):
    tensor.yield %i : index
  }
  return
}

// -----

func.func @reduce(%t: tensor<2x3x4xf32>, %m: tensor<4x8xf32>, %i: index, %p: f32, %x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'tensor.reduce' op the init must have shape [4], the input without [1]}}
  %0 = tensor.reduce ins(%m : tensor<4x8xf32>) outs(%m : tensor<4x8xf32>) dimensions = [1] -> tensor<4x8xf32> {
  ^bb0(%a: f32, %b: f32):
    tensor.yield %a : f32
  }
  return
}

// -----

func.func @broadcast(%t: tensor<2x3x4xf32>, %m: tensor<4x8xf32>, %i: index, %p: f32, %x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'tensor.broadcast' op the init [2, 3, 4] without dimensions [0] must be the input [4, 8]}}
  %0 = tensor.broadcast ins(%m : tensor<4x8xf32>) outs(%t : tensor<2x3x4xf32>) dimensions = [0] -> tensor<2x3x4xf32>
  return
}

// -----

func.func @transpose(%t: tensor<2x3x4xf32>, %m: tensor<4x8xf32>, %i: index, %p: f32, %x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'tensor.transpose' op the init must have shape [8, 4]}}
  %0 = tensor.transpose ins(%m : tensor<4x8xf32>) outs(%m : tensor<4x8xf32>) permutation = [1, 0] -> tensor<4x8xf32>
  return
}

// -----

func.func @pack(%t: tensor<2x3x4xf32>, %m: tensor<4x8xf32>, %i: index, %p: f32, %x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'tensor.pack' op the blocked tensor must have shape [4, 3, 3], but has [2, 3, 4]}}
  %0 = tensor.pack %m inner_dims_pos = [1] inner_tiles = [3] into %t : tensor<4x8xf32> -> tensor<2x3x4xf32>
  return
}

// -----

func.func @unpack(%t: tensor<2x3x4xf32>, %m: tensor<4x8xf32>, %i: index, %p: f32, %x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'tensor.unpack' op inner dimensions must be distinct and tiles positive}}
  %0 = tensor.unpack %t inner_dims_pos = [0, 0] inner_tiles = [1, 1] into %m : tensor<2x3x4xf32> -> tensor<4x8xf32>
  return
}
