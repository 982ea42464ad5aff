// schedule-devices: each device's runs of calls and transfers become launches
// ordered by tokens, the host waiting only before returning; --check-semantics runs
// the launches in the interpreter, which refuses any access the tokens leave
// unordered.
// (After memory-plan: buffers at overlapping offsets of one arena order the work as
// one buffer; memory-plan does not give bytes one device last used to a buffer
// another device uses first, so no such order comes from reuse.)
// RUN: acc-opt --split-input-file --target %S/Inputs/two-devices.acc --check-semantics --pass partition,graph-to-tensor,bufferize,buffer-deallocation,memory-plan,schedule-devices %s 2>&1 | FileCheck %s

// Two chains crossing between the devices: a (DLA) and b (DSP) start at once; c
// (DSP) reads a's result, so it comes after a's launch (on the devices, not the
// host); d (DLA) after b's, its copy back with it (its bytes are not c's input's:
// d need not wait for c); e (DSP) after d. The DSP's prefetch of c's input moves
// down to the launch that waits for it, so b does not wait with c.
// CHECK-LABEL: hw.device @dla kind "accelerator"
// CHECK: hw.device @dsp kind "dsp"
// CHECK-LABEL: func.func @crossing(
// CHECK: %[[A:[0-9]+]] = hw.launch @dla(
// CHECK: hw.intrinsic "dla_lut"
// CHECK: hw.yield
// CHECK: %[[B:[0-9]+]] = hw.launch @dsp(
// CHECK: hw.intrinsic "dsp_lut"
// CHECK: %[[C:[0-9]+]] = hw.launch @dsp after(%[[A]]) (
// CHECK: hw.intrinsic "dsp_lut"
// CHECK: %[[D:[0-9]+]] = hw.launch @dla after(%[[B]]) (
// CHECK: hw.intrinsic "dla_lut"
// CHECK: hw.dma_start
// CHECK: %[[E:[0-9]+]] = hw.launch @dsp after(%[[D]]) (
// CHECK: hw.intrinsic "dsp_lut"
// The last DSP launch comes after every other: one wait, then the host's buffers go.
// CHECK-NOT: hw.wait
// CHECK: hw.wait %[[E]]
// CHECK-NOT: hw.wait
// CHECK: loop.dealloc
// CHECK: return

!q0 = !quant.uniform<i8:f32, 1.000000e-01>
!q1 = !quant.uniform<i8:f32, 1.000000e-01:1>
func.func @crossing(%x: tensor<1x4x8x8x!q0>, %y: tensor<1x4x8x8x!q1>) -> (tensor<1x4x8x8x!q0>, tensor<1x4x8x8x!q0>) {
  %t = graph.constant dense<[-128, -121, -114, -107, -100, -93, -86, -79, -72, -65, -58, -51, -44, -37, -30, -23, -16, -9, -2, 5, 12, 19, 26, 33, 40, 47, 54, 61, 68, 75, 82, 89, 96, 103, 110, 117, 124, -125, -118, -111, -104, -97, -90, -83, -76, -69, -62, -55, -48, -41, -34, -27, -20, -13, -6, 1, 8, 15, 22, 29, 36, 43, 50, 57, 64, 71, 78, 85, 92, 99, 106, 113, 120, 127, -122, -115, -108, -101, -94, -87, -80, -73, -66, -59, -52, -45, -38, -31, -24, -17, -10, -3, 4, 11, 18, 25, 32, 39, 46, 53, 60, 67, 74, 81, 88, 95, 102, 109, 116, 123, -126, -119, -112, -105, -98, -91, -84, -77, -70, -63, -56, -49, -42, -35, -28, -21, -14, -7, 0, 7, 14, 21, 28, 35, 42, 49, 56, 63, 70, 77, 84, 91, 98, 105, 112, 119, 126, -123, -116, -109, -102, -95, -88, -81, -74, -67, -60, -53, -46, -39, -32, -25, -18, -11, -4, 3, 10, 17, 24, 31, 38, 45, 52, 59, 66, 73, 80, 87, 94, 101, 108, 115, 122, -127, -120, -113, -106, -99, -92, -85, -78, -71, -64, -57, -50, -43, -36, -29, -22, -15, -8, -1, 6, 13, 20, 27, 34, 41, 48, 55, 62, 69, 76, 83, 90, 97, 104, 111, 118, 125, -124, -117, -110, -103, -96, -89, -82, -75, -68, -61, -54, -47, -40, -33, -26, -19, -12, -5, 2, 9, 16, 23, 30, 37, 44, 51, 58, 65, 72, 79, 86, 93, 100, 107, 114, 121]> : tensor<256xi8>
  %a = graph.lookup %x, %t : (tensor<1x4x8x8x!q0>, tensor<256xi8>) -> tensor<1x4x8x8x!q1>
  %b = graph.lookup %y, %t : (tensor<1x4x8x8x!q1>, tensor<256xi8>) -> tensor<1x4x8x8x!q0>
  %c = graph.lookup %a, %t : (tensor<1x4x8x8x!q1>, tensor<256xi8>) -> tensor<1x4x8x8x!q0>
  %d = graph.lookup %b, %t : (tensor<1x4x8x8x!q0>, tensor<256xi8>) -> tensor<1x4x8x8x!q1>
  %e = graph.lookup %d, %t : (tensor<1x4x8x8x!q1>, tensor<256xi8>) -> tensor<1x4x8x8x!q0>
  return %c, %e : tensor<1x4x8x8x!q0>, tensor<1x4x8x8x!q0>
}

// -----

// The host's own op between two DLA calls reads the first one's result: the host
// waits for that launch just before it, and not for the DSP's, which runs on.
// CHECK-LABEL: func.func @host_between(
// CHECK: %[[A:[0-9]+]] = hw.launch @dla(
// CHECK: %[[B:[0-9]+]] = hw.launch @dsp(
// CHECK: hw.wait %[[A]]
// CHECK-NEXT: loop.parallel
// CHECK: %[[C:[0-9]+]] = hw.launch @dla(
// CHECK: hw.wait %[[B]], %[[C]]
// CHECK: return

!q0 = !quant.uniform<i8:f32, 1.000000e-01>
!q1 = !quant.uniform<i8:f32, 1.000000e-01:1>
func.func @host_between(%x: tensor<1x4x8x8x!q0>, %y: tensor<1x4x8x8x!q1>) -> (tensor<1x4x8x8x!q1>, tensor<1x4x8x8x!q0>) {
  %t = graph.constant dense<[-128, -121, -114, -107, -100, -93, -86, -79, -72, -65, -58, -51, -44, -37, -30, -23, -16, -9, -2, 5, 12, 19, 26, 33, 40, 47, 54, 61, 68, 75, 82, 89, 96, 103, 110, 117, 124, -125, -118, -111, -104, -97, -90, -83, -76, -69, -62, -55, -48, -41, -34, -27, -20, -13, -6, 1, 8, 15, 22, 29, 36, 43, 50, 57, 64, 71, 78, 85, 92, 99, 106, 113, 120, 127, -122, -115, -108, -101, -94, -87, -80, -73, -66, -59, -52, -45, -38, -31, -24, -17, -10, -3, 4, 11, 18, 25, 32, 39, 46, 53, 60, 67, 74, 81, 88, 95, 102, 109, 116, 123, -126, -119, -112, -105, -98, -91, -84, -77, -70, -63, -56, -49, -42, -35, -28, -21, -14, -7, 0, 7, 14, 21, 28, 35, 42, 49, 56, 63, 70, 77, 84, 91, 98, 105, 112, 119, 126, -123, -116, -109, -102, -95, -88, -81, -74, -67, -60, -53, -46, -39, -32, -25, -18, -11, -4, 3, 10, 17, 24, 31, 38, 45, 52, 59, 66, 73, 80, 87, 94, 101, 108, 115, 122, -127, -120, -113, -106, -99, -92, -85, -78, -71, -64, -57, -50, -43, -36, -29, -22, -15, -8, -1, 6, 13, 20, 27, 34, 41, 48, 55, 62, 69, 76, 83, 90, 97, 104, 111, 118, 125, -124, -117, -110, -103, -96, -89, -82, -75, -68, -61, -54, -47, -40, -33, -26, -19, -12, -5, 2, 9, 16, 23, 30, 37, 44, 51, 58, 65, 72, 79, 86, 93, 100, 107, 114, 121]> : tensor<256xi8>
  %a = graph.lookup %x, %t : (tensor<1x4x8x8x!q0>, tensor<256xi8>) -> tensor<1x4x8x8x!q0>
  %b = graph.lookup %y, %t : (tensor<1x4x8x8x!q1>, tensor<256xi8>) -> tensor<1x4x8x8x!q0>
  %s = graph.storage_cast %a : tensor<1x4x8x8x!q0> to tensor<1x4x8x8xi8>
  %m = graph.neg %s : tensor<1x4x8x8xi8>
  %n = graph.storage_cast %m : tensor<1x4x8x8xi8> to tensor<1x4x8x8x!q0>
  %c = graph.lookup %n, %t : (tensor<1x4x8x8x!q0>, tensor<256xi8>) -> tensor<1x4x8x8x!q1>
  return %c, %b : tensor<1x4x8x8x!q1>, tensor<1x4x8x8x!q0>
}
