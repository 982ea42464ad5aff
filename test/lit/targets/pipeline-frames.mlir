// pipeline-frames: a pipelined entry. The function takes two frames (its arguments
// twice, its results twice), and its ops are ordered as a software pipeline: frame
// 1's DLA lookup comes right after frame 0's DLA work, before the host's add of frame
// 0, so the DLA runs frame 1 while the DSP post-processes frame 0. --check-semantics
// compares each frame with what the function computed before on that frame's inputs.
// RUN: acc-opt --target %S/Inputs/two-devices.acc --check-semantics --pass 'partition,pipeline-frames{frames=2}' %s | FileCheck %s --check-prefix=PIPED
// RUN: acc-opt --target %S/Inputs/two-devices.acc --check-semantics --pass 'partition,pipeline-frames{frames=2},graph-to-tensor,bufferize,fuse-parallel,buffer-deallocation,forward-transfers,device-buffers,memory-plan,schedule-devices' %s | FileCheck %s --check-prefix=LAUNCHED
// RUN: not acc-opt --pass 'pipeline-frames{frames=0}' %s 2>&1 | FileCheck %s --check-prefix=BAD

// PIPED-LABEL: func.func @post(%arg0: tensor<1x4x8x8x!q{{.*}}, %arg1: tensor<1x4x8x8xf32>, %arg2: tensor<1x4x8x8x!q{{.*}}, %arg3: tensor<1x4x8x8xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>)
// PIPED: %[[L0:[0-9]+]] = graph.lookup %arg0
// PIPED-NEXT: graph.dequantize %[[L0]] {hw.device = "dsp"}
// PIPED-NEXT: graph.sigmoid
// PIPED-NEXT: %[[M0:[0-9]+]] = graph.mul {{.*}}, %arg1 {hw.device = "dsp"}
// PIPED-NEXT: %[[L1:[0-9]+]] = graph.lookup %arg2
// PIPED-NEXT: %[[A0:[0-9]+]] = graph.add %[[M0]], %arg1
// PIPED-NEXT: graph.dequantize %[[L1]] {hw.device = "dsp"}
// PIPED-NEXT: graph.sigmoid
// PIPED-NEXT: %[[M1:[0-9]+]] = graph.mul {{.*}}, %arg3 {hw.device = "dsp"}
// PIPED-NEXT: %[[A1:[0-9]+]] = graph.add %[[M1]], %arg3
// PIPED-NEXT: return %[[A0]], %[[A1]]

// Frame 1's DLA launch waits for nothing: it runs while the DSP works on frame 0
// (memory-plan gives it no bytes the DSP still reads).
// LAUNCHED: %[[D0:[0-9]+]] = hw.launch @dla(%arg0,
// LAUNCHED: hw.launch @dsp after(%[[D0]])
// LAUNCHED: %[[D1:[0-9]+]] = hw.launch @dla(%arg2,
// LAUNCHED: hw.launch @dsp after(%[[D1]])

// BAD: pass 'pipeline-frames': frames must be from 1 to 64, not 0

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

