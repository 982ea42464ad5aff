// graph verifier errors: at least one per op, each naming the op and the problem.
// RUN: acc-opt --split-input-file --verify-diagnostics %s

func.func @constant(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.constant' op result #0 has type tensor<3xf32>, but its operands and attributes give tensor<2xf32>}}
  %0 = "graph.constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<3xf32>
  return
}

// -----

func.func @relu(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.relu' op requires the same type for all operands and results}}
  %0 = "graph.relu"(%f) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @sigmoid(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.sigmoid' op operand #0 ('input') must be FloatTensor}}
  %0 = graph.sigmoid %i : tensor<4xi8>
  return
}

// -----

func.func @tanh(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.tanh' op operand #0 ('input') must be FloatTensor}}
  %0 = graph.tanh %i : tensor<4xi8>
  return
}

// -----

func.func @erf(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.erf' op operand #0 ('input') must be FloatTensor}}
  %0 = graph.erf %i : tensor<4xi8>
  return
}

// -----

func.func @exp(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.exp' op operand #0 ('input') must be FloatTensor}}
  %0 = graph.exp %i : tensor<4xi8>
  return
}

// -----

func.func @log(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.log' op operand #0 ('input') must be FloatTensor}}
  %0 = graph.log %i : tensor<4xi8>
  return
}

// -----

func.func @sqrt(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.sqrt' op operand #0 ('input') must be FloatTensor}}
  %0 = graph.sqrt %i : tensor<4xi8>
  return
}

// -----

func.func @neg(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.neg' op requires the same type for all operands and results}}
  %0 = "graph.neg"(%f) : (tensor<2x3xf32>) -> tensor<2x3xf16>
  return
}

// -----

func.func @abs(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.abs' op expects 1 operand, but found 2}}
  %0 = "graph.abs"(%f, %f) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @gelu(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.gelu' op attribute 'approximate' must be of kind 'gelu_approximation'}}
  %0 = "graph.gelu"(%f) <{approximate = #graph.pad_mode<edge>}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @clip(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.clip' op attribute 'min' must be of kind 'f32'}}
  %0 = "graph.clip"(%f) <{min = 1 : i64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @cast(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.cast' op requires the same shape for 'input' and 'output' (AllShapesMatch)}}
  %0 = graph.cast %f : tensor<2x3xf32> to tensor<6xi32>
  return
}

// -----

func.func @add(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.add' op operand shapes [2, 3] and [4] do not broadcast (dimension 1: 3 vs 4)}}
  %0 = graph.add %f, %g : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @sub(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.sub' op requires the same element type for 'lhs' and 'output' (AllElementTypesMatch)}}
  %0 = graph.sub %f, %f : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf16>
  return
}

// -----

func.func @mul(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.mul' op result #0 has type tensor<1x3xf32>, but its operands and attributes give tensor<2x3xf32>}}
  %0 = graph.mul %f, %f : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<1x3xf32>
  return
}

// -----

func.func @div(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.div' op requires the same element type for 'lhs' and 'rhs' (AllElementTypesMatch)}}
  %0 = graph.div %f, %i : (tensor<2x3xf32>, tensor<4xi8>) -> tensor<2x3xf32>
  return
}

// -----

func.func @pow(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.pow' op requires the same element type for 'lhs' and 'rhs' (AllElementTypesMatch)}}
  %0 = graph.pow %f, %i : (tensor<2x3xf32>, tensor<4xi8>) -> tensor<4xi8>
  return
}

// -----

func.func @max(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.max' op operand shapes [2, 3] and [4] do not broadcast}}
  %0 = graph.max %f, %g : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @min(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.min' op operand shapes [2, 3] and [4] do not broadcast}}
  %0 = graph.min %f, %g : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @conv2d(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.conv2d' op input has 3 channels, but the weight expects 2 x 1 groups}}
  %0 = graph.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv2d_rank(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.conv2d' op operand #0 ('input') must be ranked_tensor of Float (f16 | bf16 | f32 | f64) of rank 4, but got tensor<2x3xf32>}}
  %0 = "graph.conv2d"(%f, %f) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @matmul(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.matmul' op contracting dimensions differ: 3 vs 2}}
  %0 = graph.matmul %f, %f : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @gemm(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.gemm' op attribute 'alpha' must be of kind 'f32'}}
  %0 = graph.gemm %f, %f {transB = true, alpha = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @batch_norm(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.batch_norm' op scale, bias, mean and var must have 3 values, one per channel, but have 4}}
  %0 = graph.batch_norm %x, %g, %g, %g, %g : (tensor<1x3x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @layer_norm(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.layer_norm' op scale of shape [4] does not broadcast to the normalized dimensions [3]}}
  %0 = graph.layer_norm %f, %g : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @softmax(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.softmax' op axis 2 is out of range for rank 2}}
  %0 = graph.softmax %f {axis = 2 : i64} : tensor<2x3xf32>
  return
}

// -----

func.func @max_pool(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.max_pool' op attribute 'kernel_shape' must have 2 positive values}}
  %0 = graph.max_pool %x {kernel_shape = array<i64: 3>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x6x6xf32>
  return
}

// -----

func.func @avg_pool(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.avg_pool' op a window of 9 does not fit in 8 elements padded by 0}}
  %0 = graph.avg_pool %x {kernel_shape = array<i64: 9, 9>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x1x1xf32>
  return
}

// -----

func.func @global_avg_pool(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.global_avg_pool' op result #0 ('output') must be ranked_tensor of Number}}
  %0 = graph.global_avg_pool %x : (tensor<1x3x8x8xf32>) -> tensor<1x3xf32>
  return
}

// -----

func.func @global_max_pool(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.global_max_pool' op result #0 has type tensor<1x3x2x2xf32>, but its operands and attributes give tensor<1x3x1x1xf32>}}
  %0 = graph.global_max_pool %x : (tensor<1x3x8x8xf32>) -> tensor<1x3x2x2xf32>
  return
}

// -----

func.func @reshape(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.reshape' op cannot reshape [2, 3] (6 elements) to [4, -1]}}
  %0 = graph.reshape %f {shape = array<i64: 4, -1>} : (tensor<2x3xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @transpose(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.transpose' op perm [0, 0] is not a permutation of 2 dimensions}}
  %0 = graph.transpose %f {perm = array<i64: 0, 0>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @concat(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.concat' op operand #1 of shape [4] does not match [2, 3] outside axis 0}}
  %0 = graph.concat %f, %g {axis = 0 : i64} : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<6x3xf32>
  return
}

// -----

func.func @slice(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.slice' op 'starts' and 'ends' must have the same length}}
  %0 = graph.slice %f {starts = array<i64: 0>, ends = array<i64: 1, 2>} : (tensor<2x3xf32>) -> tensor<1x3xf32>
  return
}

// -----

func.func @flatten(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.flatten' op axis 3 is out of range for rank 2}}
  %0 = graph.flatten %f {axis = 3 : i64} : (tensor<2x3xf32>) -> tensor<6x1xf32>
  return
}

// -----

func.func @pad(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.pad' op attribute 'pads' must have 4 values, but has 2}}
  %0 = graph.pad %f {pads = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @squeeze(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.squeeze' op cannot squeeze dimension 0 of size 2}}
  %0 = graph.squeeze %f {axes = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @unsqueeze(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.unsqueeze' op axis 0 is given twice}}
  %0 = graph.unsqueeze %f {axes = array<i64: 0, 0>} : (tensor<2x3xf32>) -> tensor<1x1x2x3xf32>
  return
}

// -----

func.func @reduce_sum(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.reduce_sum' op axis 5 is out of range for rank 2}}
  %0 = graph.reduce_sum %f {axes = array<i64: 5>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @reduce_mean(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.reduce_mean' op result #0 has type tensor<1x1xf32>, but its operands and attributes give tensor<f32>}}
  %0 = graph.reduce_mean %f {keepdims = false} : (tensor<2x3xf32>) -> tensor<1x1xf32>
  return
}

// -----

func.func @reduce_max(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.reduce_max' op attribute 'keepdims' must be of kind 'bool'}}
  %0 = graph.reduce_max %f {keepdims = 1 : i64} : (tensor<2x3xf32>) -> tensor<1x1xf32>
  return
}

// -----

func.func @reduce_min(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.reduce_min' op attribute 'axes' must be of kind 'i64_array'}}
  %0 = graph.reduce_min %f {axes = [0]} : (tensor<2x3xf32>) -> tensor<1x3xf32>
  return
}

// -----

func.func @reduce_prod(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.reduce_prod' op requires the same element type for 'input' and 'output' (AllElementTypesMatch)}}
  %0 = graph.reduce_prod %f : (tensor<2x3xf32>) -> tensor<2x3xi32>
  return
}

// -----

func.func @quantize(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.quantize' op the quantized type expresses f16, but the float side is f32}}
  %0 = graph.quantize %f : tensor<2x3xf32> to tensor<2x3x!quant.uniform<i8:f16, 1.0>>
  return
}

// -----

func.func @dequantize(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.dequantize' op the quantized tensor has 2 quantization parameters for 3 channels on axis 1}}
  %0 = graph.dequantize %q : tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>> to tensor<2x3xf32>
  return
}

// -----

func.func @qconv2d(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.qconv2d' op result shape [1, 4, 8, 8] does not match the inferred [1, 4, 6, 6]}}
  %0 = graph.qconv2d %qx, %qw : (tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>) -> tensor<1x4x8x8x!quant.uniform<i8:f32, 1.0>>
  return
}

// -----

func.func @qmatmul(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.qmatmul' op operand #0 ('lhs') must be QuantTensor}}
  %0 = graph.qmatmul %f, %f : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @qmatmul_bias(%a: tensor<2x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<3x4x!quant.uniform<i8:f32, 1.0>>, %c: tensor<3xi32>) {
  // expected-error @+1 {{'graph.qmatmul' op the bias must have one element per column (4), not shape [3]}}
  %0 = graph.qmatmul %a, %b, %c : (tensor<2x3x!quant.uniform<i8:f32, 1.0>>, tensor<3x4x!quant.uniform<i8:f32, 1.0>>, tensor<3xi32>) -> tensor<2x4x!quant.uniform<i8:f32, 1.0>>
  return
}

// -----

func.func @lookup_entries(%x: tensor<4x!quant.uniform<i4:f32, 1.0>>, %t: tensor<256xi8>) {
  // expected-error @+1 {{'graph.lookup' op the table must have 16 entries (one per stored value of the input), not 256}}
  %0 = graph.lookup %x, %t : (tensor<4x!quant.uniform<i4:f32, 1.0>>, tensor<256xi8>) -> tensor<4x!quant.uniform<i8:f32, 1.0>>
  return
}

// -----

func.func @lookup_width(%x: tensor<4x!quant.uniform<i4:f32, 1.0>>, %t: tensor<16xi8>) {
  // expected-error @+1 {{'graph.lookup' op the table's elements must be 4-bit integers (the output's storage)}}
  %0 = graph.lookup %x, %t : (tensor<4x!quant.uniform<i4:f32, 1.0>>, tensor<16xi8>) -> tensor<4x!quant.uniform<i4:f32, 1.0>>
  return
}

// -----

func.func @resize(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.resize' op requires one of 'scales' or 'sizes', with 4 values}}
  %0 = graph.resize %x : (tensor<1x3x8x8xf32>) -> tensor<1x3x16x16xf32>
  return
}

// -----

func.func @topk(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.topk' op k = 5 is out of range for a dimension of 4}}
  %0:2 = graph.topk %g {k = 5 : i64} : (tensor<4xf32>) -> (tensor<5xf32>, tensor<5xi64>)
  return
}

// -----

func.func @sort(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.sort' op result #1 ('indices') must be IndexTensor}}
  %0:2 = graph.sort %g : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi32>)
  return
}

// -----

func.func @non_max_suppression(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.non_max_suppression' op scores [1, 10, 4] must be B x C x N for boxes [1, 10, 4]}}
  %0 = graph.non_max_suppression %b, %b : (tensor<1x10x4xf32>, tensor<1x10x4xf32>) -> tensor<?x3xi64>
  return
}

// -----

func.func @storage_cast_width(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.storage_cast' op the integer side must have 8-bit integer elements, not i4}}
  %0 = graph.storage_cast %qx : tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>> to tensor<1x3x8x8xi4>
  return
}

// -----

func.func @storage_cast_two_floats(%f: tensor<2x3xf32>, %g: tensor<4xf32>, %i: tensor<4xi8>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %q: tensor<2x3x!quant.uniform<i4:f32:1, {1.0, 2.0}>>, %qx: tensor<1x3x8x8x!quant.uniform<i8:f32, 1.0>>, %qw: tensor<4x3x3x3x!quant.uniform<i8:f32, 1.0>>, %b: tensor<1x10x4xf32>) {
  // expected-error @+1 {{'graph.storage_cast' op exactly one side must be quantized}}
  %0 = graph.storage_cast %f : tensor<2x3xf32> to tensor<2x3xf32>
  return
}

// -----

func.func @qmatmul_vector_axis(%a: tensor<2x3x!quant.uniform<i8:f32, 1.0>>, %v: tensor<3x!quant.uniform<i8:f32:0, {1.0, 2.0, 3.0}>>) {
  // expected-error @+1 {{'graph.qmatmul' op the right-hand side must be quantized per tensor or per column (the last dimension of a matrix)}}
  %0 = graph.qmatmul %a, %v : (tensor<2x3x!quant.uniform<i8:f32, 1.0>>, tensor<3x!quant.uniform<i8:f32:0, {1.0, 2.0, 3.0}>>) -> tensor<2x!quant.uniform<i8:f32, 1.0>>
  return
}

// -----

func.func @qconv2d_weight_axis(%x: tensor<1x2x4x4x!quant.uniform<i8:f32, 1.0>>, %w: tensor<3x2x1x1x!quant.uniform<i8:f32:1, {1.0, 2.0}>>) {
  // expected-error @+1 {{'graph.qconv2d' op the weight must be quantized per tensor or per output channel (dimension 0)}}
  %0 = graph.qconv2d %x, %w : (tensor<1x2x4x4x!quant.uniform<i8:f32, 1.0>>, tensor<3x2x1x1x!quant.uniform<i8:f32:1, {1.0, 2.0}>>) -> tensor<1x3x4x4x!quant.uniform<i8:f32, 1.0>>
  return
}

// -----

// Under fixed_point requantization each channel's s_in * s_w / s_out needs a Q31 form.
func.func @qconv2d_fixed_point_multiplier(%x: tensor<1x2x4x4x!quant.uniform<i8:f32, 1000.0>>, %w: tensor<3x2x1x1x!quant.uniform<i8:f32:0, {1.0, 2.0, 1000.0}>>) {
  // expected-error @+1 {{'graph.qconv2d' op channel 2's multiplier 1e10 (s_in * s_w / s_out) has no Q31 form for `fixed_point` requantization (it must be below 2^30)}}
  %0 = graph.qconv2d %x, %w {requant = #graph.requantization<fixed_point>} : (tensor<1x2x4x4x!quant.uniform<i8:f32, 1000.0>>, tensor<3x2x1x1x!quant.uniform<i8:f32:0, {1.0, 2.0, 1000.0}>>) -> tensor<1x3x4x4x!quant.uniform<i8:f32, 1.0e-4>>
  return
}

// -----

// A clamp outside the result's storage range, or crossing.
func.func @act_bounds(%x: tensor<2x3x!quant.uniform<i8:f32, 0.5>>, %y: tensor<2x3x!quant.uniform<i8:f32, 0.25:1>>) {
  // expected-error @+1 {{'graph.qadd' op 'act_max' 200 lies outside the result's storage range [-128, 127]}}
  %0 = graph.qadd %x, %y {act_max = 200 : i64} : (tensor<2x3x!quant.uniform<i8:f32, 0.5>>, tensor<2x3x!quant.uniform<i8:f32, 0.25:1>>) -> tensor<2x3x!quant.uniform<i8:f32, 1.0>>
  // expected-error @+1 {{'graph.requantize' op 'act_min' 10 is above 'act_max' 5}}
  %1 = graph.requantize %x {act_min = 10 : i64, act_max = 5 : i64} : (tensor<2x3x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x3x!quant.uniform<i8:f32, 1.0>>
  return
}

// -----

// The quantized elementwise ops take per-tensor operands of one shape.
func.func @qadd_shapes(%x: tensor<2x3x!quant.uniform<i8:f32, 0.5>>, %y: tensor<3x2x!quant.uniform<i8:f32, 0.25:1>>, %c: tensor<2x3x!quant.uniform<i8:f32:1, {1.0, 2.0, 3.0}>>) {
  // expected-error @+1 {{'graph.qadd' op}}
  %0 = graph.qadd %x, %y : (tensor<2x3x!quant.uniform<i8:f32, 0.5>>, tensor<3x2x!quant.uniform<i8:f32, 0.25:1>>) -> tensor<2x3x!quant.uniform<i8:f32, 1.0>>
  // expected-error @+1 {{'graph.qmul' op the right-hand side must be quantized per tensor}}
  %1 = graph.qmul %x, %c : (tensor<2x3x!quant.uniform<i8:f32, 0.5>>, tensor<2x3x!quant.uniform<i8:f32:1, {1.0, 2.0, 3.0}>>) -> tensor<2x3x!quant.uniform<i8:f32, 1.0>>
  return
}

// -----

// Under fixed_point a rescale needs a Q31 multiplier; a pool's result has the
// pool's shape.
func.func @qavg_pool(%x: tensor<1x2x4x4x!quant.uniform<i8:f32, 1000.0>>) {
  // expected-error @+1 {{'graph.qavg_pool' op the multiplier 1e10 (s_in / s_out) has no Q31 form for `fixed_point` requantization (it must be below 2^30)}}
  %0 = graph.qavg_pool %x {kernel_shape = array<i64: 2, 2>, requant = #graph.requantization<fixed_point>} : (tensor<1x2x4x4x!quant.uniform<i8:f32, 1000.0>>) -> tensor<1x2x3x3x!quant.uniform<i8:f32, 1.0e-7>>
  // expected-error @+1 {{'graph.qavg_pool' op result shape [1, 2, 2, 2] does not match the inferred [1, 2, 3, 3]}}
  %1 = graph.qavg_pool %x {kernel_shape = array<i64: 2, 2>} : (tensor<1x2x4x4x!quant.uniform<i8:f32, 1000.0>>) -> tensor<1x2x2x2x!quant.uniform<i8:f32, 1.0>>
  // expected-error @+1 {{'graph.requantize' op the scales give a multiplier without a Q31 form for `fixed_point` requantization (it must be below 2^30)}}
  %2 = graph.requantize %x {requant = #graph.requantization<fixed_point>} : (tensor<1x2x4x4x!quant.uniform<i8:f32, 1000.0>>) -> tensor<1x2x4x4x!quant.uniform<i8:f32, 1.0e-7>>
  return
}

// -----

// A rescale takes one multiplier and one shift per channel along its axis; an i32
// accumulator result is not clamped.
func.func @rescale(%acc: tensor<1x2x3x3xi32>, %m: tensor<3xi32>, %s: tensor<2xi32>, %x: tensor<1x3x5x5x!quant.uniform<i8:f32, 0.5:-3>>, %w: tensor<2x3x3x3x!quant.uniform<i8:f32, 0.25>>) {
  // expected-error @+1 {{'graph.rescale' op the multiplier table has 3 entries for 2 channels}}
  %0 = graph.rescale %acc, %m, %s {axis = 1 : i64} : (tensor<1x2x3x3xi32>, tensor<3xi32>, tensor<2xi32>) -> tensor<1x2x3x3x!quant.uniform<i8:f32, 0.1>>
  // expected-error @+1 {{'graph.qconv2d' op an i32 result (the accumulators) is not clamped: 'act_min' and 'act_max' belong to a quantized result}}
  %1 = graph.qconv2d %x, %w {act_min = 0 : i64} : (tensor<1x3x5x5x!quant.uniform<i8:f32, 0.5:-3>>, tensor<2x3x3x3x!quant.uniform<i8:f32, 0.25>>) -> tensor<1x2x3x3xi32>
  return
}

// -----

// `params` (a library's numbers, dialects/src/hooks/params.rs): only those the op
// takes, of its scheme and kind, each multiplier with its shift.
func.func @params(%x: tensor<1x3x5x5x!quant.uniform<i8:f32, 0.5:-3>>, %w: tensor<2x3x3x3x!quant.uniform<i8:f32, 0.25>>, %a: tensor<4x!quant.uniform<i8:f32, 0.5:1>>) {
  // expected-error @+1 {{'graph.qconv2d' op 'input1_offset' is not a parameter of 'graph.qconv2d': it takes input_offset, bias, kernel_sum, multipliers, shifts, scales, output_offset}}
  %0 = graph.qconv2d %x, %w {params = {input1_offset = 3 : i64}} : (tensor<1x3x5x5x!quant.uniform<i8:f32, 0.5:-3>>, tensor<2x3x3x3x!quant.uniform<i8:f32, 0.25>>) -> tensor<1x2x3x3x!quant.uniform<i8:f32, 0.1>>
  // expected-error @+1 {{'graph.qconv2d' op 'multipliers' is a parameter of the fixed_point requantization scheme, not of float}}
  %1 = graph.qconv2d %x, %w {params = {multipliers = array<i32: 1, 2>, shifts = array<i32: 0, 0>}} : (tensor<1x3x5x5x!quant.uniform<i8:f32, 0.5:-3>>, tensor<2x3x3x3x!quant.uniform<i8:f32, 0.25>>) -> tensor<1x2x3x3x!quant.uniform<i8:f32, 0.1>>
  // expected-error @+1 {{'graph.qadd' op 'output_multiplier' and 'output_shift' are given together or not at all}}
  %2 = graph.qadd %a, %a {requant = #graph.requantization<fixed_point>, params = {output_multiplier = 1073741824 : i64}} : (tensor<4x!quant.uniform<i8:f32, 0.5:1>>, tensor<4x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<4x!quant.uniform<i8:f32, 1.0>>
  // expected-error @+1 {{'graph.qconv2d' op 'bias' must be an int32 table: added to each output channel's accumulator (the bias operand)}}
  %3 = graph.qconv2d %x, %w {params = {bias = 7 : i64}} : (tensor<1x3x5x5x!quant.uniform<i8:f32, 0.5:-3>>, tensor<2x3x3x3x!quant.uniform<i8:f32, 0.25>>) -> tensor<1x2x3x3x!quant.uniform<i8:f32, 0.1>>
  return
}
