// schedule-devices on a function whose transfers the host's own work splits: what
// cannot be launched stays with the host, with a remark saying why.
// RUN: acc-opt --remarks --target %S/Inputs/two-devices.acc --check-semantics --pass schedule-devices %s 2>&1 | FileCheck %s

// A transfer whose wait comes after the host's own work stays with the host (the
// run that starts it and the one that waits for it cannot be launched apart).
// CHECK: the work of @dla here stays with the host: a value it makes is used by 'hw.dma_wait' outside it
// CHECK: the work of @dla here stays with the host: its 'hw.dma_wait' waits for a transfer started outside it
// CHECK-LABEL: func.func @split_transfer(
// CHECK-NOT: hw.launch
// CHECK: return
func.func @split_transfer(%a: memref<4xi8>, %b: memref<4xi8>) -> memref<4xi8> {
  %l = loop.alloc() : memref<4xi8, "dla_sram">
  %t = hw.dma_start %a, %l {call = "dla_dma"} : memref<4xi8> to memref<4xi8, "dla_sram">
  %i = arith.constant 0 : index
  %v = loop.load %b[%i] : memref<4xi8>
  hw.dma_wait %t {call = "dla_dma_wait"}
  %r = loop.alloc() : memref<4xi8>
  %u = hw.dma_start %l, %r {call = "dla_dma"} : memref<4xi8, "dla_sram"> to memref<4xi8>
  hw.dma_wait %u {call = "dla_dma_wait"}
  loop.dealloc %l : memref<4xi8, "dla_sram">
  return %r : memref<4xi8>
}
