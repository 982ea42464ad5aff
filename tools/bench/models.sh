#!/usr/bin/env bash
# Per-inference latency of the issue-6 benchmark models compiled by acc (JIT) against
# onnxruntime, with the outputs compared:
#
#   tools/bench/models.sh [OUT_DIR] [REPEAT]
#
# Needs a Python with onnx 1.23.2, onnxruntime and numpy (PYTHON, default
# /tmp/onnx-env/bin/python; see examples/onnx/make_examples.py). Builds the models
# with seeded weights (tools/bench/make_bench_models.py), imports them, lowers them
# for the host target with the named pipeline host-pipeline (lowering/runtime/host.acc:
# canonicalize folds batch norms into convolutions; graph-to-tensor; bufferize calls the
# runtime's kernels the target file names (matrix products, convolutions, exp and erf
# over arrays); other math functions as polynomials; small loops unrolled;
# vectorized; buffers in a static arena; `acc-opt --list-pipelines` shows its passes),
# runs each from its ONNX file in one process (`acc-run MODEL.onnx --pipeline PIPELINE
# --mode jit --repeat REPEAT`, whose compile_ms is the time from model to native code),
# then its lowered text with --threads 2, and onnxruntime on 1 and 2 threads, and
# prints one line per model and engine.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-/tmp/acc-bench-models}
repeat=${2:-5}
python=${PYTHON:-/tmp/onnx-env/bin/python}
cargo build --release -q -p acc-tools
"$python" tools/bench/make_bench_models.py "$out" > /dev/null
bin=target/release
pipeline='host-pipeline{assume-finite=true}'
for m in transformer mobilenetv2 resnet18; do
    # The lowered IR as text, for reading and for the 2-thread run; its time includes
    # printing and parsing the weights as hex.
    start=$(date +%s%N)
    "$bin/acc-translate" --import-onnx "$out/$m.onnx" -o "$out/$m.mlir"
    "$bin/acc-opt" --target lowering/runtime/host.acc --pipeline "$pipeline" "$out/$m.mlir" -o "$out/$m.loops.mlir"
    lower=$(( ($(date +%s%N) - start) / 1000000 ))
    # From the ONNX file to native code in one process: compile_ms is the compile time.
    timing=$("$bin/acc-run" "$out/$m.onnx" --target lowering/runtime/host.acc --pipeline "$pipeline" \
        --mode jit --input "0=$out/$m.input0.npy" -o "$out/$m.acc.npy" --repeat "$repeat" | tr '\n' ' ')
    timing2=$("$bin/acc-run" "$out/$m.loops.mlir" --mode jit --input "0=$out/$m.input0.npy" \
        --threads 2 --repeat "$repeat" | grep latency_ms)
    "$python" - "$out" "$m" "$lower" "$timing" "$repeat" "$timing2" <<'PY'
import sys, time
import numpy as np, onnxruntime
out, m, lower, timing, repeat = sys.argv[1], sys.argv[2], float(sys.argv[3]) / 1e3, sys.argv[4], int(sys.argv[5])
got, want = np.load(f"{out}/{m}.acc.npy"), np.load(f"{out}/{m}.output0.npy")
rel = float((np.abs(got - want) / (1 + np.abs(want))).max())
print(f"{m:12} acc: import+lower as text {lower:.2f} s; in one process: {timing.strip()}, max rel diff {rel:.2g}")
print(f"{m:12} acc 2 threads (library kernels): {sys.argv[6].strip()}")
x = np.load(f"{out}/{m}.input0.npy")
for threads in (1, 2):
    o = onnxruntime.SessionOptions()
    o.intra_op_num_threads = threads
    o.inter_op_num_threads = 1
    s = onnxruntime.InferenceSession(f"{out}/{m}.onnx", o, providers=["CPUExecutionProvider"])
    s.run(None, {"input": x})
    times = []
    for _ in range(max(repeat, 20)):
        t = time.perf_counter()
        s.run(None, {"input": x})
        times.append((time.perf_counter() - t) * 1e3)
    times.sort()
    print(f"{m:12} onnxruntime {threads} thread(s): latency_ms median={times[len(times) // 2]:.3f} min={times[0]:.3f}")
PY
done
