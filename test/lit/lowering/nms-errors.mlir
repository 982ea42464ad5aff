// What non_max_suppression's lowering does not take is an error at the op, and
// nothing is written: a graph op on its result of dynamic size, a static result
// type, a slice of dynamic size read by anything but the function's return or not
// the leading elements of its source. The verifiers check the bound and the type of
// the tensor op's init and the triples of loop.result_sizes.
// RUN: acc-opt --split-input-file --pass graph-to-tensor,bufferize --verify-diagnostics %s

func.func @cast_after(%b: tensor<1x10x4xf32>, %s: tensor<1x2x10xf32>) -> tensor<?x3xf32> {
  %0 = graph.non_max_suppression %b, %s {max_output_boxes_per_class = 3 : i64} : (tensor<1x10x4xf32>, tensor<1x2x10xf32>) -> tensor<?x3xi64>
  // expected-error @+1 {{cannot lower 'graph.cast': tensor<?x3xf32> has a dynamic shape}}
  %1 = graph.cast %0 : tensor<?x3xi64> to tensor<?x3xf32>
  return %1 : tensor<?x3xf32>
}

// -----

func.func @read_inside(%t: tensor<6x3xi64>, %n: index) -> i64 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{cannot bufferize 'tensor.extract_slice': a slice of dynamic size is bufferized only as a result of its function}}
  %s = tensor.extract_slice %t[0, 0] [%n, 3] [1, 1] : tensor<6x3xi64> to tensor<?x3xi64>
  %e = tensor.extract %s[%c0, %c0] : tensor<?x3xi64>
  return %e : i64
}

// -----

func.func @small_init(%b: tensor<1x10x4xf32>, %s: tensor<1x2x10xf32>, %i: tensor<5x3xi64>) -> index {
  // expected-error @+1 {{'tensor.non_max_suppression' op needs an init of at least 6 x 3 (B x C x min(N, max_output_boxes_per_class)), got [5, 3]}}
  %r:2 = tensor.non_max_suppression ins(%b, %s : tensor<1x10x4xf32>, tensor<1x2x10xf32>) outs(%i : tensor<5x3xi64>) {max_output_boxes_per_class = 3 : i64} -> tensor<5x3xi64>, index
  return %r#1 : index
}

// -----

// expected-error @+1 {{'func.func' op 'loop.result_sizes': the size of result 0 must be another result, of type index}}
func.func @bad_sizes(%m: memref<4x3xi64>, %n: index) -> (memref<4x3xi64>, i64) attributes {loop.result_sizes = array<i64: 0, 0, 1>} {
  %c = arith.index_cast %n : index to i64
  return %m, %c : memref<4x3xi64>, i64
}

// -----

// expected-error @+1 {{'func.func' op 'loop.result_sizes' names result 0 or 5 of a function with 2}}
func.func @missing_size(%m: memref<4x3xi64>, %n: index) -> (memref<4x3xi64>, index) attributes {loop.result_sizes = array<i64: 0, 0, 5>} {
  return %m, %n : memref<4x3xi64>, index
}

// -----

func.func @static_result(%b: tensor<1x10x4xf32>, %s: tensor<1x2x10xf32>) -> tensor<6x3xi64> {
  // expected-error @+1 {{cannot lower 'graph.non_max_suppression': its result must be tensor<?x3xi64> (as many rows as it selects), got tensor<6x3xi64>}}
  %0 = graph.non_max_suppression %b, %s {max_output_boxes_per_class = 3 : i64} : (tensor<1x10x4xf32>, tensor<1x2x10xf32>) -> tensor<6x3xi64>
  return %0 : tensor<6x3xi64>
}

// -----

func.func @other_type(%b: tensor<1x10x4xf32>, %s: tensor<1x2x10xf32>, %i: tensor<6x3xi64>) -> index {
  // expected-error @+1 {{'tensor.non_max_suppression' op requires the same type for 'init' and 'selected' (AllTypesMatch), but found tensor<6x3xi64> and tensor<10x3xi64>}}
  %r:2 = tensor.non_max_suppression ins(%b, %s : tensor<1x10x4xf32>, tensor<1x2x10xf32>) outs(%i : tensor<6x3xi64>) {max_output_boxes_per_class = 3 : i64} -> tensor<10x3xi64>, index
  return %r#1 : index
}

// -----

// Fewer columns than the source has: not the leading rows of a buffer.
func.func @narrower(%t: tensor<6x3xi64>, %n: index) -> tensor<?x2xi64> {
  // expected-error @+1 {{cannot bufferize 'tensor.extract_slice': a slice of dynamic size is bufferized only as the leading elements of its source (zero offsets, unit strides, static sizes the source's, no dropped dimension)}}
  %s = tensor.extract_slice %t[0, 0] [%n, 2] [1, 1] : tensor<6x3xi64> to tensor<?x2xi64>
  return %s : tensor<?x2xi64>
}

// -----

func.func @dropped(%t: tensor<1x10xf32>, %n: index) -> tensor<?xf32> {
  // expected-error @+1 {{cannot bufferize 'tensor.extract_slice': a slice of dynamic size is bufferized only as the leading elements of its source (zero offsets, unit strides, static sizes the source's, no dropped dimension)}}
  %s = tensor.extract_slice %t[0, 0] [1, %n] [1, 1] : tensor<1x10xf32> to tensor<?xf32>
  return %s : tensor<?xf32>
}
