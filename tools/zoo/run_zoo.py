"""Runs the model zoo (tools/zoo/make_zoo.py) through acc and onnxruntime and prints a
table: import, interpreter and native errors, compile time, latency against
onnxruntime per thread count:

    /tmp/onnx-env/bin/python tools/zoo/make_zoo.py /tmp/zoo
    /tmp/onnx-env/bin/python tools/zoo/run_zoo.py /tmp/zoo [--threads 1,2] [--repeat 20]
        [--only NAME,...] [--no-interp] [--timeout 300] [--pipeline 'host-pipeline{assume-finite=true}']
        [--json results.json]

Uses the release binaries as they are (target/release: build them first with
`cargo build --release -p acc-tools`). For each ZOO_DIR/NAME.onnx with NAME.input.npy
and NAME.output.npy:

  import   acc-translate --import-onnx NAME.onnx -o TMP/NAME.mlir
  interp   acc-run NAME.onnx --input 0=NAME.input.npy -o TMP/out.npy (the graph-level
           reference interpreter, no pipeline; --no-interp skips it)
  native   acc-run NAME.onnx --mode jit --pipeline PIPELINE --target
           lowering/runtime/host.acc --input 0=... -o ... --repeat K --threads T,
           whose `compile_ms=` and `latency_ms median=` lines are parsed
  ort      onnxruntime (CPUExecutionProvider, intra_op_num_threads=T,
           inter_op_num_threads=1): median of K runs after two warm-up runs

Errors are max |acc - onnxruntime| / max |onnxruntime|. Every command has a timeout
(--timeout seconds, default 300; native runs get twice that), and a model that fails
anywhere does not stop the run: its first error line is listed after the table. The
summary gives the geometric mean of the acc / onnxruntime latency ratios over the
models that ran natively, per thread count.
"""

import argparse
import glob
import json
import math
import os
import platform
import re
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnxruntime

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.join(ROOT, "target", "release")
TARGET = "lowering/runtime/host.acc"


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def first_error(text):
    """The first line that says error (else the first non-empty line), shortened, and
    the line naming the pass after which the IR was invalid, if any."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    errors = [l for l in lines if "error" in l.lower() or "panicked" in l]
    if not errors:
        return lines[0][:400] if lines else "(no output)"
    passes = [l for l in errors[1:] if "after pass" in l]
    return " / ".join([errors[0]] + passes[:1])[:400]


def run(cmd, timeout):
    """Runs cmd from the repository root: (ok, stdout, error line, seconds)."""
    start = time.time()
    try:
        p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, "", f"timed out after {timeout} s", time.time() - start
    elapsed = time.time() - start
    if p.returncode != 0:
        return False, p.stdout, f"exit {p.returncode}: " + first_error(p.stderr + "\n" + p.stdout), elapsed
    return True, p.stdout, "", elapsed


def rel_err(got_path, ref):
    got = np.load(got_path)
    if got.shape != ref.shape:
        return None, f"shape {got.shape} != onnxruntime's {ref.shape}"
    err = float(np.abs(got.astype(np.float64) - ref).max()) / max(float(np.abs(ref).max()), 1e-30)
    return err, ""


def ort_latency(path, feed_value, threads, repeat):
    opts = onnxruntime.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    s = onnxruntime.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
    feed = {s.get_inputs()[0].name: feed_value}
    for _ in range(2):
        s.run(None, feed)
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        s.run(None, feed)
        times.append((time.perf_counter() - t) * 1e3)
    return float(np.median(times))


def run_model(name, zoo, args, tmp):
    onnx_path = os.path.join(zoo, name + ".onnx")
    in_path = os.path.join(zoo, name + ".input.npy")
    ref = np.load(os.path.join(zoo, name + ".output.npy")).astype(np.float64)
    x = np.load(in_path)
    r = {"model": name, "input": list(x.shape), "errors": {}, "native": {}, "ort": {}}

    ok, _, err, secs = run([os.path.join(BIN, "acc-translate"), "--import-onnx", onnx_path,
                            "-o", os.path.join(tmp, name + ".mlir")], args.timeout)
    r["import"] = ok
    r["import_s"] = secs
    if not ok:
        r["errors"]["import"] = err

    if ok and not args.no_interp:
        out = os.path.join(tmp, name + ".interp.npy")
        ok_i, _, err, secs = run([os.path.join(BIN, "acc-run"), onnx_path, "--input", f"0={in_path}", "-o", out],
                                 args.timeout)
        r["interp_s"] = secs
        if ok_i:
            r["interp_err"], msg = rel_err(out, ref)
            if msg:
                r["errors"]["interp"] = msg
        else:
            r["interp_err"] = None
            r["errors"]["interp"] = err

    native_ok = ok
    for t in args.threads:
        # Rounds alternate the two tools, so that a slow spell of a shared machine
        # falls on both; each tool's figure is the median of its round medians.
        acc_ms, ort_ms = [], []
        for _ in range(args.rounds):
            if native_ok:
                native_ok = run_native(name, onnx_path, in_path, ref, t, args, tmp, r)
                if native_ok and r["native"][t].get("ms") is not None:
                    acc_ms.append(r["native"][t]["ms"])
            try:
                ort_ms.append(ort_latency(onnx_path, x, t, args.repeat))
            except Exception as e:
                r["errors"][f"onnxruntime t{t}"] = first_error(str(e))
                break
        if acc_ms:
            r["native"][t]["ms"] = float(np.median(acc_ms))
        if ort_ms:
            r["ort"][t] = float(np.median(ort_ms))
    return r


def run_native(name, onnx_path, in_path, ref, t, args, tmp, r):
    """One native run on `t` threads into r["native"][t] (its compile time, median
    latency and error); False when it fails (at any thread count alike)."""
    out = os.path.join(tmp, f"{name}.native{t}.npy")
    ok_n, stdout, err, _ = run(
        [os.path.join(BIN, "acc-run"), onnx_path, "--mode", "jit", "--pipeline", args.pipeline,
         "--target", TARGET, "--input", f"0={in_path}", "-o", out,
         "--repeat", str(args.repeat), "--threads", str(t)], 2 * args.timeout)
    if not ok_n:
        r["errors"][f"native t{t}"] = err
        return False
    n = {}
    m = re.search(r"compile_ms=([0-9.]+)", stdout)
    n["compile_ms"] = float(m.group(1)) if m else None
    m = re.search(r"latency_ms median=([0-9.]+)", stdout)
    n["ms"] = float(m.group(1)) if m else None
    n["err"], msg = rel_err(out, ref)
    if msg:
        r["errors"][f"native t{t}"] = msg
    r["native"][t] = n
    return True


def fmt_err(e):
    return "-" if e is None else f"{e:.1e}"


def fmt_ms(v):
    if v is None:
        return "-"
    return f"{v:.3f}" if v < 10 else f"{v:.1f}" if v < 1000 else f"{v:.0f}"


def table(results, threads, zoo):
    head = ["model", "input", "import", "interp err", "native err", "compile ms"]
    for t in threads:
        head += [f"acc ms t{t}", f"ort ms t{t}", f"ratio t{t}"]
    rows = []
    for r in results:
        native_errs = [n["err"] for n in r["native"].values() if n.get("err") is not None]
        compile_ms = next((n["compile_ms"] for n in r["native"].values() if n.get("compile_ms")), None)
        interp = r.get("interp_err")
        row = [r["model"], "x".join(map(str, r["input"])), "ok" if r["import"] else "FAIL",
               fmt_err(interp) if "interp_err" in r else ("skip" if r["import"] else "-"),
               fmt_err(max(native_errs)) if native_errs else ("FAIL" if r["import"] and threads else "-"),
               fmt_ms(compile_ms)]
        for t in threads:
            acc = r["native"].get(t, {}).get("ms")
            ort = r["ort"].get(t)
            row += [fmt_ms(acc), fmt_ms(ort), f"{acc / ort:.2f}" if acc and ort else "-"]
        rows.append(row)
    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    line = lambda cells: "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"
    print(line(head))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in rows:
        print(line(row))
    print()
    for t in threads:
        ratios = [r["native"][t]["ms"] / r["ort"][t] for r in results
                  if r["native"].get(t, {}).get("ms") and r["ort"].get(t)]
        if ratios:
            gm = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
            print(f"threads {t}: geometric mean of acc / onnxruntime = {gm:.2f} over {len(ratios)} models")
        else:
            print(f"threads {t}: no model ran natively")
    imported = sum(r["import"] for r in results)
    print(f"imported {imported} of {len(results)}; CPU: {cpu_model()} ({os.cpu_count()} cores); "
          f"onnxruntime {onnxruntime.__version__}; zoo {zoo}")
    failures = [(r["model"], stage, msg) for r in results for stage, msg in r["errors"].items()]
    if failures:
        print("\nfailures (first error line):")
        for model, stage, msg in failures:
            print(f"  {model} [{stage}]: {msg}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("zoo_dir")
    parser.add_argument("--threads", default="1,2", help="comma-separated thread counts (default 1,2)")
    parser.add_argument("--repeat", type=int, default=20, help="timed runs per measurement (default 20)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="measurements per tool and thread count, alternating acc and onnxruntime; "
                             "the median of their medians is reported (default 1)")
    parser.add_argument("--only", help="comma-separated model names")
    parser.add_argument("--no-interp", action="store_true", help="skip the reference interpreter")
    parser.add_argument("--timeout", type=int, default=300, help="seconds per command (native: twice)")
    parser.add_argument("--pipeline", default="host-pipeline{assume-finite=true}",
                        help="acc-run --pipeline (default host-pipeline{assume-finite=true}, as tools/bench/models.sh)")
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    args.threads = [int(t) for t in args.threads.split(",") if t]

    for tool in ("acc-translate", "acc-run"):
        if not os.access(os.path.join(BIN, tool), os.X_OK):
            sys.exit(f"{os.path.join(BIN, tool)} is missing: cargo build --release -p acc-tools")
    zoo = os.path.abspath(args.zoo_dir)
    names = sorted(os.path.basename(p)[:-5] for p in glob.glob(os.path.join(zoo, "*.onnx"))
                   if os.path.exists(p[:-5] + ".input.npy") and os.path.exists(p[:-5] + ".output.npy"))
    if args.only:
        wanted = [n.strip() for n in args.only.split(",") if n.strip()]
        missing = [n for n in wanted if n not in names]
        if missing:
            sys.exit(f"not in {zoo}: {', '.join(missing)}")
        names = wanted
    if not names:
        sys.exit(f"no NAME.onnx with NAME.input.npy and NAME.output.npy in {zoo}")

    results = []
    with tempfile.TemporaryDirectory(prefix="acc-zoo-") as tmp:
        for name in names:
            start = time.time()
            try:
                r = run_model(name, zoo, args, tmp)
            except Exception as e:  # never let one model stop the run
                r = {"model": name, "input": [], "import": False, "native": {}, "ort": {},
                     "errors": {"runner": f"{type(e).__name__}: {e}"}}
            results.append(r)
            status = ", ".join(f"{k}: {v}" for k, v in r["errors"].items()) or "ok"
            print(f"[{time.time() - start:6.1f} s] {name}: {status[:300]}", file=sys.stderr, flush=True)
    print()
    table(results, args.threads, zoo)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1, default=str)


if __name__ == "__main__":
    main()
