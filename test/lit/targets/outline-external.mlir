// outline-external: the ops placed on a device with an external compiler become
// regions (hw.intrinsic with the command), the constants they read cloned in; the C
// back end hands each region to the command as a function, with its constants as
// .npy files, and writes what it returns as model.CALLEE.c. The command of
// Inputs/external.acc copies what it receives into a C comment.
// RUN: acc-opt --target %S/Inputs/external.acc --check-semantics --pass partition,outline-external %s | FileCheck %s
// RUN: acc-opt --target %S/Inputs/external.acc --check-semantics --pass partition,outline-external,graph-to-tensor,bufferize,buffer-deallocation,memory-plan %s -o %t.mlir
// RUN: FileCheck %s --check-prefix=LOOPS --input-file %t.mlir
// RUN: acc-translate --emit-c %t.mlir -o %t.c
// RUN: FileCheck %s --check-prefix=GIVEN --input-file %t.c/model.main_npu_ext0.c
// RUN: FileCheck %s --check-prefix=HOST --input-file %t.c/model.c

// The add and relu, connected, are one region with the weights they read (which the
// function no longer holds); the host's neg comes after it; the mul is a region of
// its own.
// CHECK-LABEL: func.func @main
// CHECK-NEXT: %[[R:.*]] = hw.intrinsic "main_npu_ext0"(%arg0) {compiler = "{{.*}}", hw.device = "npu", inputs = array<i64: 0>, outputs = array<i64>} : (tensor<2x4xf32>) -> tensor<2x4xf32> semantics {
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<2x4xf32>):
// CHECK-NEXT: %[[W:.*]] = graph.constant dense<{{.*}}> : tensor<2x4xf32>
// CHECK-NEXT: %[[S:.*]] = graph.add %[[A]], %[[W]]
// CHECK-NEXT: %[[Y:.*]] = graph.relu %[[S]] : tensor<2x4xf32>
// CHECK-NEXT: hw.yield %[[Y]] : tensor<2x4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[N:.*]] = graph.neg %[[R]]
// CHECK-NEXT: %[[M:.*]] = hw.intrinsic "main_npu_ext1"(%[[N]], %arg0)
// CHECK: graph.mul
// CHECK: return %[[M]]

// Two ops of one device that an op of the host's comes between (it uses the first,
// the second uses it) go one by one.
// CHECK-LABEL: func.func @interleaved
// CHECK: %[[A:.*]] = hw.intrinsic "interleaved_npu_ext0"(%arg0)
// CHECK: graph.add
// CHECK: %[[N:.*]] = graph.neg %[[A]]
// CHECK-NEXT: hw.intrinsic "interleaved_npu_ext1"(%[[A]], %[[N]])
// CHECK: graph.mul

// On buffers: the operands' buffers, then the results' (inputs, then outputs).
// LOOPS-LABEL: func.func @main
// LOOPS: %[[OUT:.*]] = loop.alloc() {{.*}}: memref<2x4xf32>
// LOOPS-NEXT: hw.intrinsic "main_npu_ext0"(%arg0, %[[OUT]]) {compiler = "{{.*}}", hw.device = "npu", inputs = array<i64: 0>, outputs = array<i64: 1>} : (memref<2x4xf32>, memref<2x4xf32>) -> () semantics {
// LOOPS-NEXT: ^bb0(%{{.*}}: tensor<2x4xf32>):
// LOOPS: graph.relu

// What the command received: the region as a function, each constant naming its
// file, and the files.
// GIVEN: func.func @main_npu_ext0(%arg0: tensor<2x4xf32>) -> tensor<2x4xf32> {
// GIVEN-NEXT: %0 = graph.constant {acc.file = "0.npy"} dense<{{.*}}> : tensor<2x4xf32>
// GIVEN-NEXT: %1 = graph.add %arg0, %0
// GIVEN-NEXT: %2 = graph.relu %1 : tensor<2x4xf32>
// GIVEN-NEXT: return %2 : tensor<2x4xf32>
// GIVEN-NEXT: }
// GIVEN: 0.npy
// GIVEN: void main_npu_ext0(void) {}

// model.c calls the region's function: inputs, then outputs.
// HOST: void main_npu_ext0(const float *, float *);
// HOST: main_npu_ext0(((float *)acc_arg0), acc_m{{[0-9]+}});

func.func @main(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %w = graph.constant dense<[[1.0, -2.0, 3.0, -4.0], [0.5, -0.5, 1.5, -1.5]]> : tensor<2x4xf32>
  %a = graph.add %x, %w : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %r = graph.relu %a : tensor<2x4xf32>
  %n = graph.neg %r : tensor<2x4xf32>
  %m = graph.mul %n, %x : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %m : tensor<2x4xf32>
}

func.func @interleaved(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %n = graph.neg %a : tensor<4xf32>
  %m = graph.mul %a, %n : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %m : tensor<4xf32>
}

// A constant the host reads too stays outside as well; a region nothing reads is
// erased; callees are unique in the module.
// CHECK-LABEL: func.func @shared
// CHECK-NEXT: %[[C:.*]] = graph.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK-NEXT: hw.intrinsic "shared_npu_ext0"(%arg0)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: graph.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK-NEXT: graph.add
// CHECK-NEXT: hw.yield
// CHECK-NEXT: }
// CHECK-NEXT: graph.sub %{{.*}}, %[[C]]
// CHECK-NOT: graph.relu
// CHECK: return
func.func @shared(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = graph.constant dense<2.0> : tensor<4xf32>
  %a = graph.add %x, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %unused = graph.relu %x : tensor<4xf32>
  %s = graph.sub %a, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}
