// loop verifier errors: at least one per op, each naming the op and the problem.
// RUN: acc-opt --split-input-file --verify-diagnostics %s

func.func @alloc(%m: memref<8x8xf32>, %v: memref<64xf32>, %i: index, %f: f32, %vec: vector<4xf32>) {
  // expected-error @+1 {{'loop.alloc' op has 0 size operands for 1 dynamic dimensions}}
  %0 = loop.alloc() : memref<4x?xf32>
  return
}

// -----

func.func @dealloc(%m: memref<8x8xf32>, %v: memref<64xf32>, %i: index, %f: f32, %vec: vector<4xf32>) {
  // expected-error @+1 {{'loop.dealloc' op operand #0 ('memref') must be Memref (any memref), but got index}}
  loop.dealloc %i : index
  return
}

// -----

func.func @subview(%m: memref<8x8xf32>, %v: memref<64xf32>, %i: index, %f: f32, %vec: vector<4xf32>) {
  // expected-error @+1 {{'loop.subview' op the result's layout must be strided<[8, 1], offset: 0>}}
  %0 = loop.subview %m[0, 0] [4, 4] [1, 1] : memref<8x8xf32> to memref<4x4xf32>
  return
}

// -----

func.func @copy(%m: memref<8x8xf32>, %v: memref<64xf32>, %i: index, %f: f32, %vec: vector<4xf32>) {
  // expected-error @+1 {{'loop.copy' op requires the same shape for 'source' and 'target' (AllShapesMatch), but found memref<8x8xf32> and memref<64xf32>}}
  loop.copy %m, %v : memref<8x8xf32> to memref<64xf32>
  return
}

// -----

func.func @load(%m: memref<8x8xf32>, %v: memref<64xf32>, %i: index, %f: f32, %vec: vector<4xf32>) {
  // expected-error @+1 {{'loop.load' op needs 2 indices, one per dimension, but has 1}}
  %0 = loop.load %m[%i] : memref<8x8xf32>
  return
}

// -----

func.func @store(%m: memref<8x8xf32>, %v: memref<64xf32>, %i: index, %f: f32, %vec: vector<4xf32>) {
  // expected-error @+1 {{'loop.store' op requires 'value' to have the element type of 'memref' (ElementTypeOf), but found memref<8x8xf32> and index}}
  "loop.store"(%i, %m, %i, %i) : (index, memref<8x8xf32>, index, index) -> ()
  return
}

// -----

func.func @for(%m: memref<8x8xf32>, %v: memref<64xf32>, %i: index, %f: f32, %vec: vector<4xf32>) {
  // expected-error @+1 {{'loop.for' op body yields (index), but carries (f32)}}
  %0 = loop.for %k = %i to %i step %i iter_args(%a = %f) -> (f32) {
    loop.yield %k : index
  }
  return
}

// -----

func.func @parallel(%m: memref<8x8xf32>, %v: memref<64xf32>, %i: index, %f: f32, %vec: vector<4xf32>) {
  // expected-error @+1 {{'loop.parallel' op body must yield nothing}}
  "loop.parallel"(%i, %i, %i) <{operandSegmentSizes = array<i32: 1, 1, 1>}> ({
  ^bb0(%k: index):
    loop.yield %k : index
  }) : (index, index, index) -> ()
  return
}

// -----

func.func @yield(%m: memref<8x8xf32>, %v: memref<64xf32>, %i: index, %f: f32, %vec: vector<4xf32>) {
  // expected-error @+2 {{'loop.yield' op expects 0 results, but found 1}}
  %0 = loop.for %k = %i to %i step %i iter_args(%a = %f) -> (f32) {
    %r = "loop.yield"(%a) : (f32) -> f32
  }
  return
}

// -----

func.func @vload(%m: memref<8x8xf32>, %v: memref<64xf32>, %i: index, %f: f32, %vec: vector<4xf32>) {
  // expected-error @+1 {{'loop.vload' op requires the same element type for 'memref' and 'result' (AllElementTypesMatch), but found memref<64xf32> and vector<4xf16>}}
  %0 = loop.vload %v[%i] : memref<64xf32>, vector<4xf16>
  return
}

// -----

func.func @vstore(%m: memref<8x8xf32>, %v: memref<64xf32>, %i: index, %f: f32, %vec: vector<4xf32>) {
  // expected-error @+1 {{'loop.vstore' op needs 1 indices, one per dimension, but has 2}}
  loop.vstore %vec, %v[%i, %i] : memref<64xf32>, vector<4xf32>
  return
}

// -----

func.func @fma(%m: memref<8x8xf32>, %v: memref<64xf32>, %i: index, %f: f32, %vec: vector<4xf32>) {
  // expected-error @+1 {{'loop.fma' op operand #0 ('lhs') must be any float | FloatVector (vector of any float), but got index}}
  %0 = "loop.fma"(%i, %i, %i) : (index, index, index) -> index
  return
}

// -----

func.func @splat(%m: memref<8x8xf32>, %v: memref<64xf32>, %i: index, %f: f32, %vec: vector<4xf32>) {
  // expected-error @+1 {{'loop.splat' op requires 'input' to have the element type of 'result' (ElementTypeOf), but found vector<4xf32> and index}}
  %0 = "loop.splat"(%i) : (index) -> vector<4xf32>
  return
}

// -----

func.func @vreduce(%m: memref<8x8xf32>, %v: memref<64xf32>, %i: index, %f: f32, %vec: vector<4xf32>) {
  // expected-error @+1 {{'#loop.reduction' expects <...> with one of: add, mul, max, min}}
  %0 = loop.vreduce <sum>, %vec : vector<4xf32>
  return
}

// -----

func.func @constant_shape() {
  // expected-error @+1 {{'loop.constant' op the value's type tensor<2xf32> does not match memref<3xf32>}}
  %0 = loop.constant dense<1.0> : tensor<2xf32> to memref<3xf32>
  return
}

// -----

func.func @reshape_count(%m: memref<2x3xf32>) {
  // expected-error @+1 {{'loop.reshape' op changes the number of elements}}
  %0 = loop.reshape %m : memref<2x3xf32> to memref<7xf32>
  return
}

// -----

// A constant step must be positive, as MLIR's scf.for requires: zero would loop forever.
func.func @zero_step(%i: index, %f: f32) -> f32 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'loop.for' op constant step operand must be positive, not 0}}
  %0 = loop.for %k = %i to %i step %c0 iter_args(%a = %f) -> (f32) {
    loop.yield %a : f32
  }
  return %0 : f32
}

// -----

func.func @negative_parallel_step(%i: index) {
  %c = arith.constant -2 : index
  // expected-error @+1 {{'loop.parallel' op constant step operand must be positive, not -2}}
  "loop.parallel"(%i, %i, %c) <{operandSegmentSizes = array<i32: 1, 1, 1>}> ({
  ^bb0(%k: index):
    loop.yield
  }) : (index, index, index) -> ()
  return
}
