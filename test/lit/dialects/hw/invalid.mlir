// hw verifier errors: at least one per op, each naming the op and the problem.
// RUN: acc-opt --split-input-file --verify-diagnostics %s

hw.device @dla kind "accelerator"
hw.memory @sram size 1024 {alignment = 64 : i64}
// expected-error @+1 {{'hw.device' op needs a non-empty 'kind' ("host", "accelerator", "dsp", ...)}}
hw.device @bad kind ""

// -----

hw.device @dla kind "accelerator"
hw.memory @sram size 1024 {alignment = 64 : i64}
// expected-error @+1 {{'hw.memory' op alignment must be a power of two, but is 3}}
hw.memory @m size 100 {alignment = 3 : i64}

// -----

hw.device @dla kind "accelerator"
hw.memory @sram size 1024 {alignment = 64 : i64}
// expected-error @+1 {{'hw.memory' op refers to @sram, which is not a 'hw.device'}}
hw.memory @m size 100 {devices = [@sram]}

// -----

hw.device @dla kind "accelerator"
hw.memory @sram size 1024 {alignment = 64 : i64}
func.func @buffer(%a: memref<16xi8>, %b: memref<8xi8>, %i: index) {
  // expected-error @+1 {{'hw.buffer' op 128 bytes at offset 960 do not fit in the memory's 1024 bytes}}
  %0 = hw.buffer @sram[960] : memref<128xi8, "sram">
  return
}

// -----

hw.device @dla kind "accelerator"
hw.memory @sram size 1024 {alignment = 64 : i64}
func.func @buffer_space(%a: memref<16xi8>, %b: memref<8xi8>, %i: index) {
  // expected-error @+1 {{'hw.buffer' op the buffer's type must have its memory's name "sram" as memory space}}
  %0 = hw.buffer @sram[0] : memref<128xi8>
  return
}

// -----

hw.device @dla kind "accelerator"
hw.memory @sram size 1024 {alignment = 64 : i64}
func.func @buffer_align(%a: memref<16xi8>, %b: memref<8xi8>, %i: index) {
  // expected-error @+1 {{'hw.buffer' op offset 8 is not a multiple of the memory's alignment 64}}
  %0 = hw.buffer @sram[8] : memref<8xi8, "sram">
  return
}

// -----

hw.device @dla kind "accelerator"
hw.memory @sram size 1024 {alignment = 64 : i64}
func.func @dma_start(%a: memref<16xi8>, %b: memref<8xi8>, %i: index) {
  // expected-error @+1 {{'hw.dma_start' op requires the same shape for 'source' and 'target' (AllShapesMatch), but found memref<16xi8> and memref<8xi8>}}
  %0 = hw.dma_start %a, %b : memref<16xi8> to memref<8xi8>
  return
}

// -----

hw.device @dla kind "accelerator"
hw.memory @sram size 1024 {alignment = 64 : i64}
// expected-note @+1 {{prior use here}}
func.func @dma_wait(%a: memref<16xi8>, %b: memref<8xi8>, %i: index) {
  // expected-error @+1 {{use of value '%i' expects different type than prior uses: '!hw.token' vs 'index'}}
  hw.dma_wait %i
  return
}

// -----

hw.device @dla kind "accelerator"
hw.memory @sram size 1024 {alignment = 64 : i64}
func.func @launch(%a: memref<16xi8>, %b: memref<8xi8>, %i: index) {
  // expected-error @+1 {{'hw.launch' op refers to @sram, which is not a 'hw.device'}}
  %0 = hw.launch @sram(%a : memref<16xi8>) {
  ^bb0(%x: memref<16xi8>):
    hw.yield
  }
  return
}

// -----

hw.device @dla kind "accelerator"
hw.memory @sram size 1024 {alignment = 64 : i64}
func.func @launch_args(%a: memref<16xi8>, %b: memref<8xi8>, %i: index) {
  // expected-error @+1 {{'hw.launch' op the body's arguments must have the types of the values passed}}
  %0 = hw.launch @dla(%a : memref<16xi8>) {
  ^bb0(%x: memref<8xi8>):
    hw.yield
  }
  return
}

// -----

hw.device @dla kind "accelerator"
hw.memory @sram size 1024 {alignment = 64 : i64}
func.func @wait(%a: memref<16xi8>, %b: memref<8xi8>, %i: index) {
  // expected-error @+1 {{'hw.wait' op operand #0 ('tokens') must be !hw.token, but got index}}
  "hw.wait"(%i) : (index) -> ()
  return
}

// -----

hw.device @dla kind "accelerator"
hw.memory @sram size 1024 {alignment = 64 : i64}
func.func @yield(%a: memref<16xi8>, %b: memref<8xi8>, %i: index) {
  // expected-error @+1 {{'hw.launch' op the body's hw.yield gives no values}}
  %0 = hw.launch @dla(%a : memref<16xi8>) {
  ^bb0(%x: memref<16xi8>):
    "hw.yield"(%x) : (memref<16xi8>) -> ()
  }
  return
}

// -----

hw.device @dla kind "accelerator"
hw.memory @sram size 1024 {alignment = 64 : i64}
func.func @barrier(%a: memref<16xi8>, %b: memref<8xi8>, %i: index) {
  // expected-error @+1 {{'hw.barrier' op expects 0 operands, but found 1}}
  "hw.barrier"(%i) : (index) -> ()
  return
}

// -----

hw.device @dla kind "accelerator"
hw.memory @sram size 1024 {alignment = 64 : i64}
func.func @intrinsic(%a: memref<16xi8>, %b: memref<8xi8>, %i: index) {
  // expected-error @+1 {{'hw.intrinsic' op requires attribute 'callee'}}
  "hw.intrinsic"(%i) : (index) -> ()
  return
}

// -----

// On tensors (an external compiler's region before bufferize), the semantics region
// yields the results.
func.func @intrinsic_results(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'hw.intrinsic' op semantics result 0 differs from the op's result in type}}
  %0 = hw.intrinsic "f_npu_ext0"(%a) {inputs = array<i64: 0>, outputs = array<i64>} : (tensor<4xf32>) -> tensor<4xf32> semantics {
  ^bb0(%x: tensor<4xf32>):
    %y = graph.constant dense<1> : tensor<4xi32>
    hw.yield %y : tensor<4xi32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @intrinsic_outputs(%a: tensor<4xf32>, %b: memref<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'hw.intrinsic' op with results, yields them: its 'outputs' are empty}}
  %0 = hw.intrinsic "f_npu_ext0"(%a, %b) {inputs = array<i64: 0>, outputs = array<i64: 1>} : (tensor<4xf32>, memref<4xf32>) -> tensor<4xf32> semantics {
  ^bb0(%x: tensor<4xf32>):
    hw.yield %x : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}
