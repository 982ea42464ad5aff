// Staged copies are shared between consecutive calls only when that is safe; each
// case here runs against the interpreter (--check-semantics), which rejects reading
// a buffer before it is written.
// RUN: acc-opt --target %S/Inputs/two-memories.acc --check-semantics --pass partition,graph-to-tensor,bufferize,buffer-deallocation,memory-plan %s 2>/dev/null | FileCheck %s

// A view of a result between two calls: the second call's input is copied in after
// the first call's result is back in the SRAM, not prefetched before it.
// CHECK-LABEL: func.func @view(
// CHECK: hw.intrinsic "lut_a"
// CHECK: %[[BACK:[0-9]+]] = hw.dma_start %{{[0-9]+}}, %[[HOME:[0-9]+]] {call = "dma_a"}
// CHECK-NEXT: hw.dma_wait %[[BACK]] {call = "dma_a_wait"}
// CHECK: %[[VIEW:[0-9]+]] = loop.reshape %{{[0-9]+}} : memref<1x2x3x4xi8> to memref<1x2x3x4x!quant.uniform<i8:f32, 1.000000e-01>>
// CHECK: hw.dma_start %[[VIEW]], %{{[0-9]+}} {call = "dma_a"}
// CHECK: hw.intrinsic "lut_a"

// The next call reads the result in another layout: it is copied back, transposed
// on the host, and copied in again.
// CHECK-LABEL: func.func @relayout(
// CHECK: hw.intrinsic "lut_a"(%{{[0-9]+}}, %{{[0-9]+}}, %[[OUT:[0-9]+]],
// CHECK: hw.dma_start %[[OUT]], %{{[0-9]+}} {call = "dma_a"}
// CHECK: loop.parallel
// CHECK: hw.intrinsic "lut_nhwc"

// The next call reads another memory: its inputs go there by its own engine.
// CHECK-LABEL: func.func @two_memories(
// CHECK: hw.intrinsic "lut_a"
// CHECK: hw.dma_start %{{[0-9]+}}, %{{[0-9]+}} {call = "dma_a"} : memref<1x2x3x4x!quant.uniform<i8:f32, 1.000000e-01:2>, "local_a">
// CHECK: hw.dma_start %{{[0-9]+}}, %{{[0-9]+}} {call = "dma_b"} : memref<1x2x3x4x!quant.uniform<i8:f32, 1.000000e-01:2>> to
// CHECK-NEXT: %{{[0-9]+}} = loop.alloc() {offset = {{[0-9]+}} : i64} : memref<256xi8, "local_b">
// CHECK-NEXT: hw.dma_start %{{[0-9]+}}, %{{[0-9]+}} {call = "dma_b"} : memref<256xi8> to memref<256xi8, "local_b">
// CHECK: hw.intrinsic "lut_b"

// A call into another memory between a result and its reader: the result cannot
// wait in local_a (the other call's staging starts afresh), so it is copied back.
// CHECK-LABEL: func.func @interleaved(
// CHECK: hw.intrinsic "lut_a"(%{{[0-9]+}}, %{{[0-9]+}}, %[[A:[0-9]+]],
// CHECK: hw.dma_start %[[A]], %{{[0-9]+}} {call = "dma_a"}
// CHECK: hw.intrinsic "lut_b"
// CHECK: hw.intrinsic "lut_a"

!q0 = !quant.uniform<i8:f32, 1.000000e-01>
!q1 = !quant.uniform<i8:f32, 1.000000e-01:1>
!q2 = !quant.uniform<i8:f32, 1.000000e-01:2>
func.func @view(%x: tensor<1x2x3x4x!q0>) -> tensor<1x2x3x4x!q0> {
  %t = graph.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, -128, -127, -126, -125, -124, -123, -122, -121, -120, -119, -118, -117, -116, -115, -114, -113, -112, -111, -110, -109, -108, -107, -106, -105, -104, -103, -102, -101, -100, -99, -98, -97, -96, -95, -94, -93, -92, -91, -90, -89, -88, -87, -86, -85, -84, -83, -82, -81, -80, -79, -78, -77, -76, -75, -74, -73, -72, -71, -70, -69, -68, -67, -66, -65, -64, -63, -62, -61, -60, -59, -58, -57, -56, -55, -54, -53, -52, -51, -50, -49, -48, -47, -46, -45, -44, -43, -42, -41, -40, -39, -38, -37, -36, -35, -34, -33, -32, -31, -30, -29, -28, -27, -26, -25, -24, -23, -22, -21, -20, -19, -18, -17, -16, -15, -14, -13, -12, -11, -10, -9, -8, -7, -6, -5, -4, -3, -2, -1]> : tensor<256xi8>
  %a = graph.lookup %x, %t : (tensor<1x2x3x4x!q0>, tensor<256xi8>) -> tensor<1x2x3x4x!q0>
  %s = graph.storage_cast %a : tensor<1x2x3x4x!q0> to tensor<1x2x3x4xi8>
  %r = graph.storage_cast %s : tensor<1x2x3x4xi8> to tensor<1x2x3x4x!q0>
  %b = graph.lookup %r, %t : (tensor<1x2x3x4x!q0>, tensor<256xi8>) -> tensor<1x2x3x4x!q0>
  return %b : tensor<1x2x3x4x!q0>
}
func.func @relayout(%x: tensor<1x2x3x4x!q0>) -> tensor<1x2x3x4x!q0> {
  %t = graph.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, -128, -127, -126, -125, -124, -123, -122, -121, -120, -119, -118, -117, -116, -115, -114, -113, -112, -111, -110, -109, -108, -107, -106, -105, -104, -103, -102, -101, -100, -99, -98, -97, -96, -95, -94, -93, -92, -91, -90, -89, -88, -87, -86, -85, -84, -83, -82, -81, -80, -79, -78, -77, -76, -75, -74, -73, -72, -71, -70, -69, -68, -67, -66, -65, -64, -63, -62, -61, -60, -59, -58, -57, -56, -55, -54, -53, -52, -51, -50, -49, -48, -47, -46, -45, -44, -43, -42, -41, -40, -39, -38, -37, -36, -35, -34, -33, -32, -31, -30, -29, -28, -27, -26, -25, -24, -23, -22, -21, -20, -19, -18, -17, -16, -15, -14, -13, -12, -11, -10, -9, -8, -7, -6, -5, -4, -3, -2, -1]> : tensor<256xi8>
  %a = graph.lookup %x, %t : (tensor<1x2x3x4x!q0>, tensor<256xi8>) -> tensor<1x2x3x4x!q1>
  %b = graph.lookup %a, %t : (tensor<1x2x3x4x!q1>, tensor<256xi8>) -> tensor<1x2x3x4x!q0>
  return %b : tensor<1x2x3x4x!q0>
}
func.func @two_memories(%x: tensor<1x2x3x4x!q0>) -> tensor<1x2x3x4x!q0> {
  %t = graph.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, -128, -127, -126, -125, -124, -123, -122, -121, -120, -119, -118, -117, -116, -115, -114, -113, -112, -111, -110, -109, -108, -107, -106, -105, -104, -103, -102, -101, -100, -99, -98, -97, -96, -95, -94, -93, -92, -91, -90, -89, -88, -87, -86, -85, -84, -83, -82, -81, -80, -79, -78, -77, -76, -75, -74, -73, -72, -71, -70, -69, -68, -67, -66, -65, -64, -63, -62, -61, -60, -59, -58, -57, -56, -55, -54, -53, -52, -51, -50, -49, -48, -47, -46, -45, -44, -43, -42, -41, -40, -39, -38, -37, -36, -35, -34, -33, -32, -31, -30, -29, -28, -27, -26, -25, -24, -23, -22, -21, -20, -19, -18, -17, -16, -15, -14, -13, -12, -11, -10, -9, -8, -7, -6, -5, -4, -3, -2, -1]> : tensor<256xi8>
  %a = graph.lookup %x, %t : (tensor<1x2x3x4x!q0>, tensor<256xi8>) -> tensor<1x2x3x4x!q2>
  %b = graph.lookup %a, %t : (tensor<1x2x3x4x!q2>, tensor<256xi8>) -> tensor<1x2x3x4x!q0>
  return %b : tensor<1x2x3x4x!q0>
}
func.func @interleaved(%x: tensor<1x2x3x4x!q0>, %z: tensor<1x2x3x4x!q2>) -> (tensor<1x2x3x4x!q0>, tensor<1x2x3x4x!q0>) {
  %t = graph.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, -128, -127, -126, -125, -124, -123, -122, -121, -120, -119, -118, -117, -116, -115, -114, -113, -112, -111, -110, -109, -108, -107, -106, -105, -104, -103, -102, -101, -100, -99, -98, -97, -96, -95, -94, -93, -92, -91, -90, -89, -88, -87, -86, -85, -84, -83, -82, -81, -80, -79, -78, -77, -76, -75, -74, -73, -72, -71, -70, -69, -68, -67, -66, -65, -64, -63, -62, -61, -60, -59, -58, -57, -56, -55, -54, -53, -52, -51, -50, -49, -48, -47, -46, -45, -44, -43, -42, -41, -40, -39, -38, -37, -36, -35, -34, -33, -32, -31, -30, -29, -28, -27, -26, -25, -24, -23, -22, -21, -20, -19, -18, -17, -16, -15, -14, -13, -12, -11, -10, -9, -8, -7, -6, -5, -4, -3, -2, -1]> : tensor<256xi8>
  %a = graph.lookup %x, %t : (tensor<1x2x3x4x!q0>, tensor<256xi8>) -> tensor<1x2x3x4x!q0>
  %c = graph.lookup %z, %t : (tensor<1x2x3x4x!q2>, tensor<256xi8>) -> tensor<1x2x3x4x!q0>
  %b = graph.lookup %a, %t : (tensor<1x2x3x4x!q0>, tensor<256xi8>) -> tensor<1x2x3x4x!q0>
  return %b, %c : tensor<1x2x3x4x!q0>, tensor<1x2x3x4x!q0>
}
