// Mistakes in a target file's DMA engines and intrinsic memories are errors at their
// line and column, and nothing runs.
// RUN: not acc-opt --target %S/Inputs/bad-dma.acc %s 2>&1 | FileCheck %s

// CHECK: error: dma 'copy' names an undeclared memory 'tcm'
// CHECK-NEXT: bad-dma.acc:7:41
// CHECK: error: a DMA moves from 1 to 1099511627776 bytes a cycle
// CHECK-NEXT: bad-dma.acc:7:70
// CHECK: error: intrinsic 'relu_a' reads memory 'local', but no dma (declared before it) copies between 'sram' and 'local'
// CHECK-NEXT: bad-dma.acc:12:12
// CHECK: error: intrinsic 'relu_b' runs on 'npu', which memory 'other' does not list
// CHECK-NEXT: bad-dma.acc:19:12
// CHECK: error: intrinsic 'relu_b' reads memory 'other', but no dma (declared before it) copies between 'sram' and 'other'
// CHECK: error: intrinsic 'relu_c' names an undeclared memory 'nowhere'
// CHECK-NEXT: bad-dma.acc:26:12
func.func @f() {
  return
}
