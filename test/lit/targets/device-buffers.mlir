// device-buffers: buffers only the DSP's own loops use move into its TCM; the DLA's
// result, which bufferize copied out to the DDR for those loops, is copied from the
// DLA's SRAM into the TCM by the engine between them (the DDR buffer and its copy
// go); a buffer the host also reads (the last DSP result, which the host's add
// reads) stays in the DDR. --check-semantics runs every step.
// RUN: acc-opt --target %S/Inputs/two-devices.acc --check-semantics --pass partition,graph-to-tensor,bufferize,buffer-deallocation,forward-transfers,device-buffers %s | FileCheck %s

// CHECK-LABEL: func.func @post(
// CHECK: %[[IN:[0-9]+]] = loop.alloc() : memref<1x4x8x8x!quant.uniform<i8:f32, 1.000000e-01:1>, "dsp_tcm">
// CHECK: hw.intrinsic "dla_lut"(%{{[0-9]+}}, %{{[0-9]+}}, %[[LUT:[0-9]+]],
// CHECK: %[[T:[0-9]+]] = hw.dma_start %[[LUT]], %[[IN]] {call = "dla_to_dsp"
// CHECK-NEXT: hw.dma_wait %[[T]] {call = "dla_to_dsp_wait"
// CHECK-NOT: dla_dma
// CHECK: loop.reshape %[[IN]] {{.*}} to memref<1x4x8x8xi8, "dsp_tcm">
// CHECK: loop.alloc() : memref<1x4x8x8xf32, "dsp_tcm">
// CHECK: } {hw.device = "dsp"}
// CHECK: loop.alloc() : memref<1x4x8x8xf32, "dsp_tcm">
// CHECK: } {hw.device = "dsp"}
// CHECK: loop.alloc() : memref<1x4x8x8xf32, "dsp_tcm">
// CHECK: } {hw.device = "dsp"}
// CHECK: loop.alloc() : memref<1x4x8x8xf32>{{$}}
// CHECK: } {hw.device = "dsp"}
// CHECK: %[[OUT:[0-9]+]] = loop.alloc() : memref<1x4x8x8xf32>{{$}}
// CHECK: arith.addf
// CHECK: return %[[OUT]]

!q0 = !quant.uniform<i8:f32, 1.000000e-01>
!q1 = !quant.uniform<i8:f32, 1.000000e-01:1>
func.func @post(%x: tensor<1x4x8x8x!q0>, %s: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %t = graph.constant dense<[-128, -121, -114, -107, -100, -93, -86, -79, -72, -65, -58, -51, -44, -37, -30, -23, -16, -9, -2, 5, 12, 19, 26, 33, 40, 47, 54, 61, 68, 75, 82, 89, 96, 103, 110, 117, 124, -125, -118, -111, -104, -97, -90, -83, -76, -69, -62, -55, -48, -41, -34, -27, -20, -13, -6, 1, 8, 15, 22, 29, 36, 43, 50, 57, 64, 71, 78, 85, 92, 99, 106, 113, 120, 127, -122, -115, -108, -101, -94, -87, -80, -73, -66, -59, -52, -45, -38, -31, -24, -17, -10, -3, 4, 11, 18, 25, 32, 39, 46, 53, 60, 67, 74, 81, 88, 95, 102, 109, 116, 123, -126, -119, -112, -105, -98, -91, -84, -77, -70, -63, -56, -49, -42, -35, -28, -21, -14, -7, 0, 7, 14, 21, 28, 35, 42, 49, 56, 63, 70, 77, 84, 91, 98, 105, 112, 119, 126, -123, -116, -109, -102, -95, -88, -81, -74, -67, -60, -53, -46, -39, -32, -25, -18, -11, -4, 3, 10, 17, 24, 31, 38, 45, 52, 59, 66, 73, 80, 87, 94, 101, 108, 115, 122, -127, -120, -113, -106, -99, -92, -85, -78, -71, -64, -57, -50, -43, -36, -29, -22, -15, -8, -1, 6, 13, 20, 27, 34, 41, 48, 55, 62, 69, 76, 83, 90, 97, 104, 111, 118, 125, -124, -117, -110, -103, -96, -89, -82, -75, -68, -61, -54, -47, -40, -33, -26, -19, -12, -5, 2, 9, 16, 23, 30, 37, 44, 51, 58, 65, 72, 79, 86, 93, 100, 107, 114, 121]> : tensor<256xi8>
  %a = graph.lookup %x, %t : (tensor<1x4x8x8x!q0>, tensor<256xi8>) -> tensor<1x4x8x8x!q1>
  %f = graph.dequantize %a : tensor<1x4x8x8x!q1> to tensor<1x4x8x8xf32>
  %g = graph.sigmoid %f : tensor<1x4x8x8xf32>
  %h = graph.mul %g, %s : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %k = graph.add %h, %s : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %k : tensor<1x4x8x8xf32>
}

