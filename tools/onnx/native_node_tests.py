"""Runs ONNX backend node tests as native code and compares with ONNX's outputs.

acc-onnx-conformance runs each case in the interpreter; this runs the same cases
through the documented host pipeline in JIT mode (acc-run --mode jit), so every
level below the graph dialect is checked on ONNX's own data. Inputs the importer
needs at compile time (an axis, a shape) are bound with --bind, as the error naming
them asks. Usage:

    cargo build --release -p acc-tools
    /tmp/onnx-env/bin/python tools/onnx/native_node_tests.py /tmp/node-tests [CASE_PREFIX ...]

Prints one line per case that differs or fails, then the counts; a case acc cannot
import is counted as unsupported (the interpreter run says why). Exit status 1 when
any case differs or fails.
"""

import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ACC_RUN = os.path.join(ROOT, "target", "release", "acc-run")
HOST = os.path.join(ROOT, "lowering", "runtime", "host.acc")
NEEDS_CONSTANT = re.compile(r"'([^']+)'\)? must be a constant")


def tensor(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def run_case(case_dir, tmp, rtol, atol):
    """'match', 'differ: ...', 'fail: ...' or 'unsupported: ...'."""
    data = os.path.join(case_dir, "test_data_set_0")
    model = onnx.load(os.path.join(case_dir, "model.onnx"))
    initialized = {i.name for i in model.graph.initializer}
    names = [i.name for i in model.graph.input if i.name not in initialized]
    files = {}
    for k, name in enumerate(names):
        path = os.path.join(tmp, f"in{k}.npy")
        np.save(path, tensor(os.path.join(data, f"input_{k}.pb")))
        files[name] = path
    expected = sorted(f for f in os.listdir(data) if f.startswith("output_"))
    outputs = [os.path.join(tmp, f"out{k}.npy") for k in range(len(expected))]
    bound = []
    while True:
        command = [ACC_RUN, os.path.join(case_dir, "model.onnx"), "--target", HOST,
                   "--pipeline", "host-pipeline", "--mode", "jit"]
        for name, path in files.items():
            command += ["--bind" if name in bound else "--input", f"{name}={path}"]
        for path in outputs:
            command += ["-o", path]
        r = subprocess.run(command, capture_output=True, text=True)
        if r.returncode == 0:
            break
        m = NEEDS_CONSTANT.search(r.stderr)
        if m and m.group(1) in files and m.group(1) not in bound:
            bound.append(m.group(1))
            continue
        why = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "no message"
        if "not supported" in r.stderr:
            return "unsupported: " + why
        return "fail: " + why
    for k, name in enumerate(expected):
        want = tensor(os.path.join(data, name))
        got = np.load(outputs[k])
        if got.shape != want.shape:
            return f"differ: output {k} has shape {got.shape}, not {want.shape}"
        if want.dtype.kind in "biu":
            same = np.array_equal(got.astype(np.int64), want.astype(np.int64))
        else:
            same = np.allclose(got.astype(np.float64), want.astype(np.float64),
                               rtol=rtol, atol=atol, equal_nan=True)
        if not same:
            return f"differ: output {k}: {got.ravel()[:4]} vs {want.ravel()[:4]}"
    return "match"


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    root, prefixes = sys.argv[1], sys.argv[2:]
    counts = {"match": 0, "differ": 0, "fail": 0, "unsupported": 0}
    with open(os.path.join(root, "cases.tsv")) as manifest:
        cases = [line.rstrip("\n").split("\t") for line in manifest]
    for case, _op, rtol, atol in cases:
        if prefixes and not any(case.startswith(p) for p in prefixes):
            continue
        with tempfile.TemporaryDirectory() as tmp:
            outcome = run_case(os.path.join(root, case), tmp, float(rtol), float(atol))
        kind = outcome.split(":")[0]
        counts[kind] += 1
        if kind in ("differ", "fail"):
            print(f"{kind.upper()} {case}: {outcome}")
    print(" ".join(f"{k} {v}" for k, v in counts.items()))
    sys.exit(1 if counts["differ"] or counts["fail"] else 0)


if __name__ == "__main__":
    main()
