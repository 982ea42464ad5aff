// Named pipelines: declared once (acc_tools::registry), listed with their expansion
// by --list-pipelines, run by --pipeline NAME, by --pass NAME, as a flag, and inside
// MLIR's pipeline syntax; --dump-pass-pipeline prints what they expand to. A target
// file names the pipeline it wants (--pipeline target).
// RUN: acc-opt --list-pipelines | FileCheck %s --check-prefix=LIST
// RUN: acc-opt --pipeline 'host-pipeline{assume-finite=true}' --dump-pass-pipeline %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=HOST
// RUN: acc-opt --pass 'host-pipeline{assume-finite=true}' --dump-pass-pipeline %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=HOST
// RUN: acc-opt --host-pipeline=assume-finite=true --dump-pass-pipeline %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=HOST
// RUN: acc-opt --pass-pipeline='builtin.module(host-pipeline{assume-finite=true})' --dump-pass-pipeline %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=HOST
// The host pipeline lowers the function to loops over one arena.
// RUN: acc-opt --target %S/../../../lowering/runtime/host.acc --pipeline host-pipeline %s | FileCheck %s --check-prefix=LOOPS
// A target file's pipeline, with its options forwarded to the passes that consult a target.
// RUN: acc-opt --target %S/../../../examples/targets/tinynpu.acc --pipeline target --dump-pass-pipeline %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not acc-opt --pipeline 'accel-pipeline{target=tinynpu samples=s.npy bits=4}' --dump-pass-pipeline %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=OPTIONS
// A target's intrinsics may match ops of a dialect file, loaded first.
// RUN: acc-opt --dialect %S/Inputs/vendor-ops.acc --target %S/Inputs/vendor-target.acc --pipeline target --dump-pass-pipeline %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=VENDOR
// Mistakes.
// RUN: not acc-opt --pipeline target %s 2>&1 | FileCheck %s --check-prefix=NOTARGET
// RUN: not acc-opt --target %S/../../../examples/targets/tinynpu.acc --target %S/../../../examples/targets/tinynpu.acc --pass canonicalize %s 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not acc-opt --target %S/Inputs/bad-pipeline.acc --pass canonicalize %s 2>&1 | FileCheck %s --check-prefix=BADTARGET
// RUN: not acc-opt --pipeline 'host-pipeline{bogus=1}' %s 2>&1 | FileCheck %s --check-prefix=BADOPTION

// LIST: Pipelines:
// LIST-NEXT: accel-pipeline
// LIST: = quantize-pipeline{requant=float},partition,tensorize,weight-prep,graph-to-tensor,bufferize,fuse-parallel,emulate-narrow-floats,math-approximation,buffer-deallocation,memory-plan
// LIST: host-pipeline
// LIST: assume-finite
// LIST: = canonicalize,graph-to-tensor,layout{assume-finite=false},bufferize,fuse-parallel,emulate-narrow-floats,math-approximation,unroll,collapse-parallel,vectorize,buffer-deallocation,memory-plan
// LIST: quantize-pipeline
// LIST: = canonicalize,quantize{requant=float}

// HOST: Pass Manager with 12 passes:
// HOST-NEXT: builtin.module(func.func(canonicalize{{.*}},graph-to-tensor,layout{table=host assume-finite=true}),bufferize{target="" {{.*}}},func.func(fuse-parallel,emulate-narrow-floats,math-approximation,unroll{{.*}},collapse-parallel,vectorize{host=true},buffer-deallocation,memory-plan{target=""}))

// TARGET: Pass Manager with 12 passes:
// TARGET-NEXT: builtin.module(func.func(canonicalize{{.*}},quantize{requant=float},partition{target="" placement=schedule},tensorize{target=""},weight-prep,graph-to-tensor),bufferize{{.*}},func.func(fuse-parallel,emulate-narrow-floats,math-approximation,buffer-deallocation,memory-plan{target=""}))

// OPTIONS: Pass Manager with 13 passes:
// OPTIONS-NEXT: builtin.module(func.func(canonicalize{{.*}}),calibrate{samples=s.npy bits=4},func.func(quantize{requant=float},partition{target=tinynpu placement=schedule},tensorize{target=tinynpu},weight-prep,graph-to-tensor),bufferize{target=tinynpu {{.*}}},func.func(fuse-parallel,emulate-narrow-floats,math-approximation,buffer-deallocation,memory-plan{target=tinynpu}))
// OPTIONS: calibrate: cannot read 's.npy'

// VENDOR: Pass Manager with 2 passes:
// VENDOR-NEXT: builtin.module(func.func(canonicalize{{.*}},partition{target="" placement=schedule}))

// NOTARGET: acc-opt: --pipeline target needs a target file (--target FILE)
// TWICE: error: target 'tinynpu' is given twice
// BADTARGET: error: target 'badpipe' names a pipeline acc cannot build: pipeline 'host-pipeline': option 'assume-finite': expected true or false, found 'maybe'
// BADTARGET-NEXT: bad-pipeline.acc:4:3
// BADOPTION: error: pipeline 'host-pipeline': unknown option 'bogus': expected one of assume-finite, target

// LOOPS-LABEL: func.func @relu
// LOOPS-SAME: (%arg0: memref<4xf32>) -> memref<4xf32>
// LOOPS: loop.parallel
// LOOPS-NOT: graph.
func.func @relu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.relu %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
