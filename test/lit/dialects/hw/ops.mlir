// Every hw op in its custom form: printed back identically, and unchanged through the
// generic form.
// RUN: acc-opt %s | FileCheck %s
// RUN: acc-opt --print-generic %s | acc-opt | FileCheck %s
// RUN: acc-opt --print-generic %s | FileCheck %s --check-prefix=GENERIC
// acc's isolated ops (hw.launch) continue their parent's value numbers, as MLIR reads them.
// GENERIC: "hw.memory"() <{alignment = 1 : i64, size = 1048576 : i64, sym_name = "dram"}> : () -> ()
// GENERIC: "hw.dma_start"(%arg0, %0) : (memref<1x3x8x8xi8>, memref<1x3x8x8xi8, "sram">) -> !hw.token
// GENERIC: "hw.launch"(%0, %2, %1) <{device = @dla, operandSegmentSizes = array<i32: 0, 3>}> ({
// GENERIC: "hw.launch"(%4, %1) <{device = @dla, operandSegmentSizes = array<i32: 1, 1>}> ({

// CHECK-LABEL: module {
module {
  // CHECK-NEXT: hw.device @host kind "host"
  hw.device @host kind "host"
  // CHECK-NEXT: hw.device @dla kind "accelerator" {lanes = 16 : i64}
  hw.device @dla kind "accelerator" {lanes = 16 : i64}
  // CHECK-NEXT: hw.memory @dram size 1048576
  hw.memory @dram size 1048576
  // CHECK-NEXT: hw.memory @sram size 65536 {alignment = 64 : i64, devices = [@dla, @host]}
  hw.memory @sram size 65536 {alignment = 64 : i64, devices = [@dla, @host]}
  // CHECK: func.func @run(%arg0: memref<1x3x8x8xi8>) {
  func.func @run(%arg0: memref<1x3x8x8xi8>) {
  // CHECK-NEXT: %0 = hw.buffer @sram[0] : memref<1x3x8x8xi8, "sram">
    %0 = hw.buffer @sram[0] : memref<1x3x8x8xi8, "sram">
  // CHECK-NEXT: %1 = hw.buffer @sram[256] : memref<1x8x6x6xi8, "sram">
    %1 = hw.buffer @sram[256] : memref<1x8x6x6xi8, "sram">
  // CHECK-NEXT: %2 = hw.buffer @sram[576] : memref<8x3x3x3xi4, "sram">
    %2 = hw.buffer @sram[576] : memref<8x3x3x3xi4, "sram">
  // CHECK-NEXT: %3 = hw.dma_start %arg0, %0 : memref<1x3x8x8xi8> to memref<1x3x8x8xi8, "sram">
    %3 = hw.dma_start %arg0, %0 : memref<1x3x8x8xi8> to memref<1x3x8x8xi8, "sram">
  // CHECK-NEXT: hw.dma_wait %3
    hw.dma_wait %3
  // CHECK-NEXT: %4 = hw.launch @dla(%0, %2, %1 : memref<1x3x8x8xi8, "sram">, memref<8x3x3x3xi4, "sram">, memref<1x8x6x6xi8, "sram">) attributes {priority = 1 : i64} {
    %4 = hw.launch @dla(%0, %2, %1 : memref<1x3x8x8xi8, "sram">, memref<8x3x3x3xi4, "sram">, memref<1x8x6x6xi8, "sram">) attributes {priority = 1 : i64} {
  // CHECK-NEXT: ^bb0(%arg1: memref<1x3x8x8xi8, "sram">, %arg2: memref<8x3x3x3xi4, "sram">, %arg3: memref<1x8x6x6xi8, "sram">):
    ^bb0(%arg1: memref<1x3x8x8xi8, "sram">, %arg2: memref<8x3x3x3xi4, "sram">, %arg3: memref<1x8x6x6xi8, "sram">):
  // CHECK-NEXT: hw.intrinsic "conv_tile"(%arg1, %arg2, %arg3) {k = 3 : i64} : (memref<1x3x8x8xi8, "sram">, memref<8x3x3x3xi4, "sram">, memref<1x8x6x6xi8, "sram">) -> ()
      hw.intrinsic "conv_tile"(%arg1, %arg2, %arg3) {k = 3 : i64} : (memref<1x3x8x8xi8, "sram">, memref<8x3x3x3xi4, "sram">, memref<1x8x6x6xi8, "sram">) -> ()
  // CHECK-NEXT: hw.yield
      hw.yield
  // CHECK-NEXT: }
    }
  // A launch after another's token: the device waits for it, not the host.
  // CHECK-NEXT: %5 = hw.launch @dla after(%4) (%1 : memref<1x8x6x6xi8, "sram">) {
    %5 = hw.launch @dla after(%4) (%1 : memref<1x8x6x6xi8, "sram">) {
  // CHECK-NEXT: ^bb0(%arg1: memref<1x8x6x6xi8, "sram">):
    ^bb0(%arg1: memref<1x8x6x6xi8, "sram">):
  // CHECK-NEXT: hw.yield
      hw.yield
  // CHECK-NEXT: }
    }
  // CHECK-NEXT: hw.wait %5
    hw.wait %5
  // CHECK-NEXT: hw.barrier
    hw.barrier
  // CHECK-NEXT: %6 = hw.intrinsic "status"() : () -> i32
    %6 = hw.intrinsic "status"() : () -> i32
  // CHECK-NEXT: return
    return
  }
}
