// The interpreter runs a transfer as an engine that finishes late: hw.dma_start
// reads its source at once, and the target is written only at the hw.dma_wait of its
// token. So IR that reads a copy before waiting for it is an error at the read.
// RUN: acc-run %s --entry good | FileCheck %s --check-prefix=GOOD
// RUN: not acc-run %s --entry early 2>&1 | FileCheck %s --check-prefix=EARLY

// GOOD: result 0: memref<4xi32> [1, 2, 3, 4]
// EARLY: error: 'hw.dma_start': reads cell 0 of a buffer before it is written
// EARLY: dma-interp.mlir:25:8
func.func @good() -> memref<4xi32> {
  %c = loop.constant dense<[1, 2, 3, 4]> : tensor<4xi32> to memref<4xi32>
  %l = loop.alloc() : memref<4xi32, "local">
  %t = hw.dma_start %c, %l : memref<4xi32> to memref<4xi32, "local">
  hw.dma_wait %t
  %r = loop.alloc() : memref<4xi32>
  %u = hw.dma_start %l, %r : memref<4xi32, "local"> to memref<4xi32>
  hw.dma_wait %u
  return %r : memref<4xi32>
}
func.func @early() -> memref<4xi32> {
  %c = loop.constant dense<[1, 2, 3, 4]> : tensor<4xi32> to memref<4xi32>
  %l = loop.alloc() : memref<4xi32, "local">
  %t = hw.dma_start %c, %l : memref<4xi32> to memref<4xi32, "local">
  %r = loop.alloc() : memref<4xi32>
  %u = hw.dma_start %l, %r : memref<4xi32, "local"> to memref<4xi32>
  hw.dma_wait %t, %u
  return %r : memref<4xi32>
}
