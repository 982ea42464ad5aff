// Device-side signals are what the target declares (`signal FROM -> TO`): here the
// DLA can start the DSP, but not the DSP the DLA, so the host waits for the DSP's
// launch and then starts the DLA's; the DSP still starts on the DLA's result by
// itself. (The two chains of schedule-devices.mlir: a and d on the DLA, b, c and e
// on the DSP; d reads b's result.) --check-semantics runs the launches and waits
// in the interpreter (tools/tests/schedule.rs runs both forms in the simulator and
// as C).
// RUN: sed '/signal dsp -> dla/d' %S/Inputs/two-devices.acc > %t.acc
// RUN: acc-opt --target %t.acc --check-semantics --pass partition,graph-to-tensor,bufferize,buffer-deallocation,memory-plan,schedule-devices %s 2>&1 | FileCheck %s
// With both signals declared, d comes after b on the devices and the host waits
// only at the end.
// RUN: acc-opt --target %S/Inputs/two-devices.acc --pass partition,graph-to-tensor,bufferize,buffer-deallocation,memory-plan,schedule-devices %s | FileCheck %s --check-prefix=BOTH
// A signal must name devices started by `submit`, declared before it.
// RUN: sed 's/^  signal dsp -> dla$/  signal dsp -> arm, dla, npu/' %S/Inputs/two-devices.acc > %t.bad.acc
// RUN: not acc-opt --target %t.bad.acc %s 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK-LABEL: func.func @crossing(
// CHECK: %[[A:[0-9]+]] = hw.launch @dla(
// CHECK: %[[B:[0-9]+]] = hw.launch @dsp(
// CHECK: %[[C:[0-9]+]] = hw.launch @dsp after(%[[A]]) (
// CHECK: hw.wait %[[B]]
// CHECK-NOT: hw.launch
// CHECK: %[[D:[0-9]+]] = hw.launch @dla(
// CHECK: %[[E:[0-9]+]] = hw.launch @dsp after(%[[D]]) (
// CHECK: hw.wait %[[E]]
// CHECK: return

// BOTH: %[[B:[0-9]+]] = hw.launch @dsp(
// BOTH: hw.launch @dla after(%[[B]]) (
// BOTH-NOT: hw.wait
// BOTH: hw.wait
// BOTH-NOT: hw.wait
// BOTH: return

// BAD: error: signal: names device 'arm', which is not started by `submit` (the host runs its work where it is issued, or is the host)
// BAD: error: signal: names an undeclared device 'npu'

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
