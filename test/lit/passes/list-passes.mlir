// --list-passes prints every registered pass, what it runs on and its summary, with
// its options (indented under it: name, description, type and default), then the
// named pipelines with their options and expansions, and exits without reading any
// input.
// RUN: acc-opt --list-passes | FileCheck %s --strict-whitespace
// RUN: acc-opt -list-passes %s | FileCheck %s --strict-whitespace
// RUN: acc-opt --list-passes /nonexistent/input.mlir | FileCheck %s --strict-whitespace
// --help describes the pass manager's flags.
// RUN: acc-opt --help | FileCheck %s --check-prefix=HELP

// CHECK: {{^}}Passes:{{$}}
// CHECK-NEXT: {{^}}  buffer-deallocation{{ +}}Free each buffer a function allocates after its last use (views included) (runs on func.func){{$}}
// CHECK-NEXT: {{^}}  bufferize{{ +}}Turn tensors into buffers and tensor ops into loop nests (function signatures included) (runs on builtin.module){{$}}
// CHECK-NEXT: {{^}}      target{{ +}}the target to consult, by name (empty: the compilation's first, from the first --target FILE) (string, default ){{$}}
// CHECK-NEXT: {{^}}      gemm{{ +}}a library f32 matrix product (C += A x B, row-major: a, b, c, m, n, k) for matmuls and convolutions, e.g. acc_sgemm; empty: loops (string, default ){{$}}
// CHECK-NEXT: {{^}}      conv{{ +}}a library f32 convolution (out += conv(x, w), batch 1, NCHW, ungrouped: x, w, out, c, h, w, m, kh, kw, oh, ow, sh, sw, dh, dw, pad top, pad left, clamp lo, clamp hi; zero padding read in place, a following ReLU/Clip applied as it stores; NAME_bias takes a per-channel bias after w and starts from it), e.g. acc_sconv2d; empty: gemm or loops (string, default ){{$}}
// CHECK-NEXT: {{^}}      blocked{{ +}}a library f32 convolution in blocked layouts (x and out NCHW16c, w OIHW16i16o; arguments as for conv, channel counts in whole blocks, then a gate: code 0 none, 1 x * clamp(x * scale + shift) as HardSwish, 2 x * clamp(sigmoid(x)) as SiLU, then scale and shift), e.g. acc_sconv2d_nchw16c; empty: blocked convolutions are refused (string, default ){{$}}
// CHECK-NEXT: {{^}}      blocked-depthwise{{ +}}a library f32 depthwise convolution in blocked layouts (x and out NCHW16c, w OIHW16o; arguments as for depthwise, the channel count in whole blocks, then a gate as for blocked), e.g. acc_sdwconv2d_nchw16c; empty: blocked depthwise convolutions are refused (string, default ){{$}}
// CHECK-NEXT: {{^}}      blocked-grouped{{ +}}a library f32 grouped convolution in blocked layouts, each group whole blocks of input and output channels (w OIHW16i16o over a group's input channels; arguments as for blocked with the groups after the padding), e.g. acc_sgconv2d_nchw16c; empty: such convolutions are refused (string, default ){{$}}
// CHECK-NEXT: {{^}}      blocked-nchw-input{{ +}}a library f32 convolution from a plain NCHW input into NCHW16c (w OIHW16o; arguments as for blocked), e.g. acc_sconv2d_nchw_nchw16c; empty: such convolutions are refused (string, default ){{$}}
// CHECK-NEXT: {{^}}      packed-gemm{{ +}}a library f32 matrix product whose B, a constant, is packed at compile time into 48-column panels (layout NK48n: ceil(n/48) panels of k rows of 48 floats, zero-padded; arguments as for gemm; NAME_bias takes a per-column bias after b and starts from it, NAME_bias_act then the clamp bounds and gate of the blocked convolutions), e.g. acc_sgemm_nk48n; empty: gemm (string, default ){{$}}
// CHECK-NEXT: {{^}}      strided-gemm{{ +}}a library f32 matrix product on strided operands (a, b, c, m, n, k, then a row and a column stride for each of a, b and c, then accumulate: C += A x B, or C = A x B when 0) that reads transposes feeding matmuls in place and overwrites zero inits, e.g. acc_sgemm_strided; empty: transposes are materialized (string, default ){{$}}
// CHECK-NEXT: {{^}}      blocked-pool{{ +}}a library f32 max or average pool in NCHW16c, batch 1 (x, out, blocks, h, w, oh, ow, kh, kw, sh, sw, dh, dw, pad top, pad left, average, count_include_pad; max as arith.maximumf, an average summed in window order), e.g. acc_spool2d_nchw16c; empty: loops (string, default ){{$}}
// CHECK-NEXT: {{^}}      exp{{ +}}a library f32 exponential over an array (out[i] = e^x[i]: x, out, n; in place allowed) that finishes maps yielding math.exp, e.g. acc_vexp; empty: loops (string, default ){{$}}
// CHECK-NEXT: {{^}}      exp-neg{{ +}}a library f32 exponential of the negation over an array (out[i] = e^-x[i]: x, out, n) that computes maps of exactly exp(-x) of an input (a sigmoid's first half) from the input, e.g. acc_vexpneg; empty: exp (string, default ){{$}}
// CHECK-NEXT: {{^}}      erf{{ +}}a library f32 error function over an array (out[i] = erf(x[i]): x, out, n; in place allowed) that finishes maps yielding math.erf, e.g. acc_verf; empty: loops (string, default ){{$}}
// CHECK-NEXT: {{^}}      tanh{{ +}}a library f32 hyperbolic tangent over an array (out[i] = tanh(x[i]): x, out, n; in place allowed) that finishes maps yielding math.tanh, e.g. acc_vtanh; empty: loops (string, default ){{$}}
// CHECK-NEXT: {{^}}      depthwise{{ +}}a library f32 depthwise convolution (out += conv(x, w), groups = channels, batch 1, NCHW: x, w, out, c, h, w, kh, kw, oh, ow, sh, sw, dh, dw, pad top, pad left, clamp lo, clamp hi; NAME_bias as for conv), e.g. acc_sdwconv2d; empty: loops (string, default ){{$}}
// CHECK-NEXT: {{^}}  calibrate{{ +}}Make a float model a QDQ model from the ranges its values take on sample inputs (then `quantize` folds it) (runs on builtin.module){{$}}
// CHECK-NEXT: {{^}}      samples{{ +}}a .npy file of inputs of the module's first function (one, or several stacked on a leading dimension) (string, default ){{$}}
// CHECK-NEXT: {{^}}      bits{{ +}}storage bits of activations and weights: 8, 4 or 2 (int, default 8){{$}}
// CHECK-NEXT: {{^}}  canonicalize{{ +}}Fold, erase dead ops and apply rewrite patterns to a fixed point (runs on any op){{$}}
// CHECK-NEXT: {{^}}      max-iterations{{ +}}sweeps over the IR before giving up (int, default 10){{$}}
// CHECK-NEXT: {{^}}      max-num-rewrites{{ +}}rewrites before giving up (-1: no limit) (int, default -1){{$}}
// CHECK-NEXT: {{^}}      test-convergence{{ +}}fail when the limits stop it before a fixed point (bool, default false){{$}}
// CHECK-NEXT: {{^}}  collapse-parallel{{ +}}Merge the trailing dimensions of loop.parallel nests that every access walks contiguously (runs on func.func){{$}}
// CHECK-NEXT: {{^}}  cse{{ +}}Eliminate common subexpressions (runs on any op){{$}}
// CHECK-NEXT: {{^}}  dce{{ +}}Erase ops without side effects whose results are unused (runs on any op){{$}}
// CHECK-NEXT: {{^}}  device-buffers{{ +}}Move buffers only one programmable device's loops use into its local memory, copies into them by an engine from the other device's memory (runs on func.func){{$}}
// CHECK-NEXT: {{^}}      target{{ +}}the target to consult, by name (empty: the compilation's first, from the first --target FILE) (string, default ){{$}}
// CHECK-NEXT: {{^}}  emulate-narrow-floats{{ +}}Compute arith and math ops on f16, bf16 and the f8/f6/f4 floats in f32, between extf and truncf (runs on func.func){{$}}
// CHECK-NEXT: {{^}}  fold{{ +}}Fold ops with constant operands (whole constant tensors included) and erase dead ops (runs on any op){{$}}
// CHECK-NEXT: {{^}}  forward-transfers{{ +}}Copy a device's result straight into another device's memory by an engine between them, not through the host's memory (runs on func.func){{$}}
// CHECK-NEXT: {{^}}      target{{ +}}the target to consult, by name (empty: the compilation's first, from the first --target FILE) (string, default ){{$}}
// CHECK-NEXT: {{^}}  fuse-parallel{{ +}}Fuse a loop.parallel nest into the next one that reads its result elementwise (runs on func.func){{$}}
// CHECK-NEXT: {{^}}  graph-to-tensor{{ +}}Lower graph ops to the tensor dialect's destination-passing ops (runs on func.func){{$}}
// CHECK-NEXT: {{^}}  inline{{ +}}Inline calls to functions of the module (runs on builtin.module){{$}}
// CHECK-NEXT: {{^}}      max-rounds{{ +}}times calls in inlined bodies are inlined in turn (int, default 8){{$}}
// CHECK-NEXT: {{^}}  layout{{ +}}Assign blocked layouts from a preference table, propagate them, fold weight layouts at compile time (runs on func.func){{$}}
// CHECK-NEXT: {{^}}      table{{ +}}the preference table: host (blocked NCHW16c convolutions) or none (leave layouts alone) (string, default host){{$}}
// CHECK-NEXT: {{^}}      assume-finite{{ +}}assume no infinity or NaN reaches a convolution, so that the padding channels of its blocked result are zeros and partial blocks need no repacking (bool, default false){{$}}
// CHECK-NEXT: {{^}}  math-approximation{{ +}}Expand f32 math.exp, math.erf and math.tanh into polynomial arithmetic (runs on func.func){{$}}
// CHECK-NEXT: {{^}}  memory-plan{{ +}}Place the buffers a function allocates in one static arena per memory, reusing memory by liveness (runs on func.func){{$}}
// CHECK-NEXT: {{^}}      target{{ +}}the target to consult, by name (empty: the compilation's first, from the first --target FILE) (string, default ){{$}}
// CHECK-NEXT: {{^}}  outline-external{{ +}}Make the ops placed on a device with an external compiler regions (hw.intrinsic with the command) that compiler builds (runs on func.func){{$}}
// CHECK-NEXT: {{^}}  partition{{ +}}Place ops on the target's devices by its intrinsics' and code rules' matches, conditions and costs, searching for the shortest schedule with transfers priced; remark why each other op stays on the host (runs on func.func){{$}}
// CHECK-NEXT: {{^}}      target{{ +}}the target to consult, by name (empty: the compilation's first, from the first --target FILE) (string, default ){{$}}
// CHECK-NEXT: {{^}}      placement{{ +}}schedule: the placement whose schedule, transfers included, is shortest; op-by-op: each op on its cheapest device (schedule|op-by-op, default schedule){{$}}
// CHECK-NEXT: {{^}}  pipeline-frames{{ +}}Make each function take several frames, its placed ops ordered as a software pipeline over the devices (frame n+1's first stage beside frame n's next) (runs on func.func){{$}}
// CHECK-NEXT: {{^}}      frames{{ +}}the frames each call takes (1 to 64) (int, default 2){{$}}
// CHECK-NEXT: {{^}}  quantize{{ +}}Fold a QDQ model's dequantize/op/quantize groups into integer ops (qconv2d, qmatmul, qadd, qmul, qavg_pool, lookup tables, ops on stored integers), activations into their clamps (runs on func.func){{$}}
// CHECK-NEXT: {{^}}      requant{{ +}}how the integer ops requantize: float (onnxruntime's arithmetic) or fixed_point (TFLite's and CMSIS-NN's Q31 multipliers and shifts) (float|fixed_point, default float){{$}}
// CHECK-NEXT: {{^}}  schedule-devices{{ +}}Launch each device's runs of calls and transfers asynchronously, ordered by tokens; the host waits only where it must (runs on builtin.module){{$}}
// CHECK-NEXT: {{^}}  symbol-dce{{ +}}Erase private symbols that nothing references (runs on builtin.module){{$}}
// CHECK-NEXT: {{^}}  tensorize{{ +}}Split ops into tiles of output channels (or of output rows, with their halos) that an intrinsic accepts and whose buffers fit its memory, two tiles at a time (runs on func.func){{$}}
// CHECK-NEXT: {{^}}      target{{ +}}the target to consult, by name (empty: the compilation's first, from the first --target FILE) (string, default ){{$}}
// CHECK-NEXT: {{^}}  unroll{{ +}}Fully unroll loop.for loops with few iterations (runs on func.func){{$}}
// CHECK-NEXT: {{^}}      max-trip{{ +}}unroll loops of at most this many iterations (int, default 8){{$}}
// CHECK-NEXT: {{^}}      max-ops{{ +}}and whose unrolled body has at most this many ops (int, default 512){{$}}
// CHECK-NEXT: {{^}}  vectorize{{ +}}Run the innermost dimension of loop.parallel nests on vectors: the host's 128-bit ones, a device's as its hw.device declares (runs on func.func){{$}}
// CHECK-NEXT: {{^}}      host{{ +}}vectorize the host's loops too (false: only those of launches on devices declaring vector_bits) (bool, default true){{$}}
// CHECK-NEXT: {{^}}  view-graph{{ +}}Write each function's data flow as Graphviz DOT, ops coloured by the device they are placed on (runs on builtin.module){{$}}
// CHECK-NEXT: {{^}}      file{{ +}}where to write the graph ('-': standard error); required (string, default ){{$}}
// CHECK-NEXT: {{^}}  weight-prep{{ +}}Compute the compile-time arguments of accelerator calls (packed weights, requantization tables) and store them on the placed ops (runs on func.func){{$}}
// CHECK-NEXT: {{^}}Pipelines:{{$}}
// CHECK-NEXT: {{^}}  accel-pipeline{{ +}}A model to loops and accelerator calls over static arenas, for a target's devices: quantized, placed, tiled, its call arguments computed at compile time; what acc-translate --emit-c emits{{$}}
// CHECK-NEXT: {{^}}      samples{{ +}}a .npy file of sample inputs to calibrate a float model on (empty: quantize a QDQ model as it is) (string, default ){{$}}
// CHECK-NEXT: {{^}}      bits{{ +}}storage bits when calibrating: 8, 4 or 2 (int, default 8){{$}}
// CHECK-NEXT: {{^}}      requant{{ +}}how the quantized ops requantize: float (onnxruntime's arithmetic) or fixed_point (TFLite's and CMSIS-NN's); the scheme the target's intrinsics declare (float|fixed_point, default float){{$}}
// CHECK-NEXT: {{^}}      target{{ +}}the target its passes consult, by name (empty: the compilation's first) (string, default ){{$}}
// CHECK-NEXT: {{^}}      = quantize-pipeline{requant=float},partition,tensorize,weight-prep,graph-to-tensor,bufferize,fuse-parallel,emulate-narrow-floats,math-approximation,buffer-deallocation,memory-plan{{$}}
// CHECK-NEXT: {{^}}  host-pipeline{{ +}}A graph-level network to vectorized loops for the host CPU, calling the host target's kernels: what acc-run --mode jit and acc-translate --emit-object compile{{$}}
// CHECK-NEXT: {{^}}      assume-finite{{ +}}assume no infinity or NaN reaches a convolution (layout's option: blocked results keep zero padding channels) (bool, default false){{$}}
// CHECK-NEXT: {{^}}      target{{ +}}the target its passes consult, by name (empty: the compilation's first) (string, default ){{$}}
// CHECK-NEXT: {{^}}      = canonicalize,graph-to-tensor,layout{assume-finite=false},bufferize,fuse-parallel,emulate-narrow-floats,math-approximation,unroll,collapse-parallel,vectorize,buffer-deallocation,memory-plan{{$}}
// CHECK-NEXT: {{^}}  quantize-pipeline{{ +}}Quantize a model: a QDQ model's groups folded into integer ops, or a float model calibrated on sample inputs first{{$}}
// CHECK-NEXT: {{^}}      samples{{ +}}a .npy file of sample inputs: calibrate the float model on them first (empty: the model is a QDQ model already) (string, default ){{$}}
// CHECK-NEXT: {{^}}      bits{{ +}}storage bits of activations and weights when calibrating: 8, 4 or 2 (int, default 8){{$}}
// CHECK-NEXT: {{^}}      requant{{ +}}how the quantized ops requantize: float (onnxruntime's arithmetic) or fixed_point (TFLite's and CMSIS-NN's); the scheme the target's intrinsics declare (float|fixed_point, default float){{$}}
// CHECK-NEXT: {{^}}      = canonicalize,quantize{requant=float}{{$}}

// HELP: --pass LIST
// HELP: --pipeline NAME
// HELP: --pass-pipeline=PIPELINE
// HELP: --list-passes
// HELP: --list-pipelines
// HELP: --dump-pass-pipeline
// HELP: --print-ir-before=NAME
// HELP: --print-ir-after=NAME
// HELP: --print-ir-before-all
// HELP: --print-ir-after-all
// HELP: --print-ir-after-change
// HELP: --timing
// HELP: --threads N
// HELP: --no-verify
