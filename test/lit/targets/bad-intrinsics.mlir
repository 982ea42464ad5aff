// Mistakes in a target file's intrinsics are errors at their line and column, and
// nothing runs.
// RUN: not acc-opt --target %S/Inputs/bad-intrinsics.acc %s 2>&1 | FileCheck %s
// RUN: not acc-opt --target %S/Inputs/bad-intrinsic-devices.acc %s 2>&1 | FileCheck %s --check-prefix=DEVICES

// CHECK: error: unknown function 'size': acc provides dim, rank, elements, storage_bits, is_signed, storage_min, storage_max, zero_point, at, int, min, max
// CHECK-NEXT: bad-intrinsics.acc:7:11
// CHECK: error: '%z' is not defined
// CHECK-NEXT: bad-intrinsics.acc:12:14
// CHECK: error: 'dim' takes 2 arguments, not 1
// CHECK-NEXT: bad-intrinsics.acc:16:10
// CHECK: error: this argument of 'dim' must be a value (%name)
// CHECK-NEXT: bad-intrinsics.acc:21:15
// CHECK: error: unknown op 'graph.frobnicate' in a pattern
// CHECK-NEXT: bad-intrinsics.acc:25:18
// DEVICES: error: intrinsic 'relu' runs on an undeclared device 'dsp'
// DEVICES-NEXT: bad-intrinsic-devices.acc:5:21
// DEVICES: error: intrinsic 'twice' is declared twice
// DEVICES-NEXT: bad-intrinsic-devices.acc:13:13
func.func @f() {
  return
}
