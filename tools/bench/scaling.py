#!/usr/bin/env python3
"""Scaling of acc's tools with input size: finds superlinear (e.g. quadratic) work.

    cargo build --release
    python3 tools/bench/scaling.py                      # every case, 4 doubling sizes
    python3 tools/bench/scaling.py --quick              # small sizes: a smoke run
    python3 tools/bench/scaling.py --case cse-blocks --case check-calls
    python3 tools/bench/scaling.py --case fuse-parallel --sizes 250,500,1000,2000
    python3 tools/bench/scaling.py --keep /tmp/scaling  # keep the generated inputs

For each case it generates inputs at 4 doubling sizes, runs the command (best of
--runs, default 2), and prints `case size wall-seconds cpu-seconds ratio
exponent`, where the exponent of a row is log2(seconds / previous seconds), of CPU
time (user + system, which a loaded machine disturbs less; --wall for wall-clock
time): about 1 for linear work, 2 for quadratic. A case is flagged SUPERLINEAR when the exponent of its last
doubling is above 1.3 (the smallest sizes are dominated by start-up, so only the
last doubling decides). The fitted exponent is the least-squares slope of
log(seconds) against log(size) over all sizes. Exit status 1 when a case is
superlinear, 2 when a command failed or timed out at its first size. Python 3 standard library only.

Cases (tools/bench/README-scaling.md has more):
  cse-blocks      acc-opt --pass cse, one function of N blocks chained by cf.br
  sum-lower       acc-opt --pass graph-to-tensor,bufferize, a sum of N tensors
                  (ONNX Sum imports as a chain of graph.add)
  fuse-parallel   acc-opt --pass fuse-parallel on that sum already lowered to loops
                  (the lowering is done untimed when the inputs are generated)
  check-funcs     acc-opt --check-semantics --pass cse, a module of N functions
  check-calls     acc-opt --check-semantics --pass cse, a call chain N deep
  emit-object     acc-translate --emit-object --target x86_64, a function of N args
  interp-loops    acc-run, a loop nest of N x 1000 iterations (one addf each)
"""

import argparse
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
THRESHOLD = 1.3


# ---------------------------------------------------------------------------
# Input generators: each writes the IR of size n to `path`.


def gen_cse_blocks(n, path):
    """One function of n blocks in a cf.br chain; each block recomputes the same
    constant and a duplicated add (work for cse within and across blocks)."""
    with open(path, "w") as f:
        w = f.write
        w("func.func @chain(%x: i32) -> i32 {\n")
        w("  cf.br ^bb1(%x : i32)\n")
        for i in range(1, n + 1):
            w(f"^bb{i}(%a{i}: i32):\n")
            w(f"  %c{i} = arith.constant 1 : i32\n")
            w(f"  %u{i} = arith.addi %a{i}, %c{i} : i32\n")
            w(f"  %v{i} = arith.addi %a{i}, %c{i} : i32\n")
            w(f"  %s{i} = arith.muli %u{i}, %v{i} : i32\n")
            if i < n:
                w(f"  cf.br ^bb{i + 1}(%s{i} : i32)\n")
            else:
                w(f"  return %s{i} : i32\n")
        w("}\n")


SUM_TYPE = "tensor<4x8xf32>"


def gen_sum(n, path):
    """A sum of n tensors as the ONNX importer writes Sum: a chain of graph.add."""
    t = SUM_TYPE
    with open(path, "w") as f:
        w = f.write
        args = ", ".join(f"%x{i}: {t}" for i in range(n))
        w(f"func.func @sum({args}) -> {t} {{\n")
        prev = "%x0"
        for i in range(1, n):
            w(f"  %s{i} = graph.add {prev}, %x{i} : ({t}, {t}) -> {t}\n")
            prev = f"%s{i}"
        w(f"  return {prev} : {t}\n}}\n")


def gen_check_funcs(n, path):
    """A module of n small independent functions."""
    with open(path, "w") as f:
        w = f.write
        for i in range(n):
            w(f"func.func @f{i}(%x: i32, %y: i32) -> i32 {{\n")
            w("  %c = arith.constant 3 : i32\n")
            w("  %a = arith.addi %x, %c : i32\n")
            w("  %b = arith.addi %x, %c : i32\n")
            w("  %m = arith.muli %a, %b : i32\n")
            w("  %r = arith.subi %m, %y : i32\n")
            w("  return %r : i32\n}\n")


def gen_check_calls(n, path):
    """A call chain n deep: @f0 calls @f1 ... calls @f{n-1}, which returns."""
    with open(path, "w") as f:
        w = f.write
        for i in range(n - 1):
            w(f"func.func @f{i}(%x: i32) -> i32 {{\n")
            w("  %c = arith.constant 1 : i32\n")
            w(f"  %y = func.call @f{i + 1}(%x) : (i32) -> i32\n")
            w("  %r = arith.addi %y, %c : i32\n")
            w("  return %r : i32\n}\n")
        w(f"func.func @f{n - 1}(%x: i32) -> i32 {{\n  return %x : i32\n}}\n")


def gen_emit_object(n, path):
    """A function of n i32 arguments returning the sum of the first and the last."""
    with open(path, "w") as f:
        w = f.write
        args = ", ".join(f"%a{i}: i32" for i in range(n))
        w(f"func.func @wide({args}) -> i32 {{\n")
        w(f"  %r = arith.addi %a0, %a{n - 1} : i32\n")
        w("  return %r : i32\n}\n")


INNER = 1000


def gen_interp_loops(n, path):
    """A loop nest of n x INNER iterations carrying one f32 (one addf each)."""
    with open(path, "w") as f:
        f.write(f"""func.func @nest() -> f32 {{
  %one = arith.constant 1.0 : f32
  %lb = arith.constant 0 : index
  %n = arith.constant {n} : index
  %m = arith.constant {INNER} : index
  %step = arith.constant 1 : index
  %r = loop.for %i = %lb to %n step %step iter_args(%a = %one) -> (f32) {{
    %s = loop.for %j = %lb to %m step %step iter_args(%b = %a) -> (f32) {{
      %c = arith.addf %b, %one : f32
      loop.yield %c : f32
    }}
    loop.yield %s : f32
  }}
  return %r : f32
}}
""")


# ---------------------------------------------------------------------------
# Cases: generator, command (and an untimed preparation step), sizes.


def opt(bindir, *args):
    return [os.path.join(bindir, "acc-opt"), *args]


class Case:
    def __init__(self, name, gen, command, sizes, quick, prepare=None, what=""):
        self.name = name
        self.gen = gen
        self.command = command  # (bindir, input, workdir) -> argv
        self.sizes = sizes
        self.quick = quick
        self.prepare = prepare  # (bindir, generated, workdir) -> input of command
        self.what = what


def prepare_lowered(bindir, src, workdir):
    out = src.replace(".mlir", ".loops.mlir")
    run_checked(opt(bindir, "--pass", "graph-to-tensor,bufferize", src, "-o", out))
    return out


CASES = [
    Case("cse-blocks", gen_cse_blocks,
         lambda b, f, d: opt(b, "--pass", "cse", f, "-o", os.devnull),
         [6250, 12500, 25000, 50000], [500, 1000, 2000, 4000],
         what="acc-opt --pass cse, N blocks in a cf.br chain"),
    Case("sum-lower", gen_sum,
         lambda b, f, d: opt(b, "--pass", "graph-to-tensor,bufferize", f, "-o", os.devnull),
         [1250, 2500, 5000, 10000], [100, 200, 400, 800],
         what="acc-opt --pass graph-to-tensor,bufferize, sum of N tensors"),
    Case("fuse-parallel", gen_sum,
         lambda b, f, d: opt(b, "--pass", "fuse-parallel", f, "-o", os.devnull),
         [2000, 4000, 8000, 16000], [50, 100, 200, 400],
         prepare=prepare_lowered,
         what="acc-opt --pass fuse-parallel, sum of N tensors lowered to loops"),
    Case("check-funcs", gen_check_funcs,
         lambda b, f, d: opt(b, "--check-semantics", "--pass", "cse", f, "-o", os.devnull),
         [2500, 5000, 10000, 20000], [200, 400, 800, 1600],
         what="acc-opt --check-semantics --pass cse, N functions"),
    Case("check-calls", gen_check_calls,
         lambda b, f, d: opt(b, "--check-semantics", "--pass", "cse", f, "-o", os.devnull),
         [2500, 5000, 10000, 20000], [25, 50, 100, 200],
         what="acc-opt --check-semantics --pass cse, call chain N deep"),
    Case("emit-object", gen_emit_object,
         lambda b, f, d: [os.path.join(b, "acc-translate"), "--emit-object", f,
                          "--target", "x86_64", "-o", os.path.join(d, "out.o")],
         [8000, 16000, 32000, 64000], [500, 1000, 2000, 4000],
         what="acc-translate --emit-object --target x86_64, N arguments"),
    Case("interp-loops", gen_interp_loops,
         lambda b, f, d: [os.path.join(b, "acc-run"), f],
         [1500, 3000, 6000, 12000], [25, 50, 100, 200],
         what=f"acc-run (interpreter), loop nest N x {INNER}"),
]
BY_NAME = {c.name: c for c in CASES}


# ---------------------------------------------------------------------------


class Failed(Exception):
    pass


def run_checked(argv, timeout=None):
    """Runs argv; its CPU time (user + system, all threads) in seconds."""
    with tempfile.TemporaryFile() as err:
        p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err)
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if deadline is not None and time.monotonic() > deadline:
                p.kill()
                os.wait4(p.pid, 0)
                raise subprocess.TimeoutExpired(argv, timeout)
            time.sleep(0.005)
        code = os.waitstatus_to_exitcode(status)
        p.returncode = code
        if code != 0:
            err.seek(0)
            lines = err.read().decode(errors="replace").strip().splitlines()
            raise Failed(f"exit {code}: {' '.join(argv)}\n    " + "\n    ".join(lines[:8]))
    return usage.ru_utime + usage.ru_stime


def timed(argv, runs, timeout):
    """The best wall-clock and the best CPU seconds of `runs` runs."""
    wall, cpu = math.inf, math.inf
    for _ in range(runs):
        t0 = time.perf_counter()
        c = run_checked(argv, timeout)
        wall = min(wall, time.perf_counter() - t0)
        cpu = min(cpu, c)
    return wall, cpu


def fitted(points):
    """Least-squares slope of log(t) on log(n)."""
    pts = [(math.log(n), math.log(t)) for n, t in points if t > 0]
    if len(pts) < 2:
        return float("nan")
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / sxx


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release"),
                    help="directory of acc-opt, acc-translate, acc-run (default: target/release)")
    ap.add_argument("--case", action="append", choices=[c.name for c in CASES],
                    help="run only this case (repeatable)")
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    ap.add_argument("--sizes", help="comma-separated sizes overriding the cases' own")
    ap.add_argument("--runs", type=int, default=2, help="runs per size, the best kept (2)")
    ap.add_argument("--timeout", type=float, default=300,
                    help="seconds before a run is abandoned, with the larger sizes (300)")
    ap.add_argument("--keep", metavar="DIR", help="write the inputs to DIR and keep them")
    ap.add_argument("--wall", action="store_true",
                    help="fit wall-clock time instead of CPU time (user + system)")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    a = ap.parse_args()

    if a.list:
        for c in CASES:
            print(f"{c.name:14} {c.what}; sizes {c.sizes}, quick {c.quick}")
        return 0
    for tool in ("acc-opt", "acc-translate", "acc-run"):
        if not os.access(os.path.join(a.bin, tool), os.X_OK):
            sys.exit(f"{tool} not found in {a.bin} (cargo build --release, or --bin DIR)")
    cases = [BY_NAME[n] for n in a.case] if a.case else CASES
    if a.keep:
        os.makedirs(a.keep, exist_ok=True)
        workroot = a.keep
    else:
        workroot = tempfile.mkdtemp(prefix="acc-scaling-")

    status = 0
    summary = []
    basis = "wall" if a.wall else "cpu"
    print(f"{'case':14} {'size':>8} {'wall s':>9} {'cpu s':>9} {'ratio':>7} {'exponent':>8}"
          f"   (ratio and exponent of {basis} time)")
    try:
        for c in cases:
            sizes = ([int(s) for s in a.sizes.split(",")] if a.sizes
                     else (c.quick if a.quick else c.sizes))
            workdir = os.path.join(workroot, c.name)
            os.makedirs(workdir, exist_ok=True)
            points, prev, last_exp = [], None, None
            for n in sizes:
                src = os.path.join(workdir, f"{c.name}-{n}.mlir")
                c.gen(n, src)
                try:
                    inp = c.prepare(a.bin, src, workdir) if c.prepare else src
                    wall, cpu = timed(c.command(a.bin, inp, workdir), a.runs, a.timeout)
                    t = wall if a.wall else cpu
                except subprocess.TimeoutExpired:
                    print(f"{c.name:14} {n:>8} {'>' + str(int(a.timeout)):>9}  (timed out; larger sizes skipped)")
                    # Past the time the last doubling would take at linear cost.
                    last_exp = math.inf if points and a.timeout > 2 * prev else None
                    if last_exp is None:
                        status = 2
                    break
                except Failed as e:
                    print(f"{c.name:14} {n:>8}    FAILED {e}")
                    status = 2
                    break
                if prev:
                    ratio = t / max(prev, 1e-9)
                    # log2 of the ratio per doubling of the size.
                    last_exp = math.log(max(ratio, 1e-9)) / math.log(n / points[-1][0])
                    print(f"{c.name:14} {n:>8} {wall:>9.3f} {cpu:>9.3f} {ratio:>7.2f} {last_exp:>8.2f}")
                else:
                    print(f"{c.name:14} {n:>8} {wall:>9.3f} {cpu:>9.3f} {'-':>7} {'-':>8}")
                sys.stdout.flush()
                points.append((n, t))
                prev = t
            fit = fitted(points)
            superlinear = last_exp is not None and last_exp > THRESHOLD
            if superlinear and status == 0:
                status = 1
            verdict = "SUPERLINEAR" if superlinear else "linear" if last_exp is not None else "?"
            last = "inf" if last_exp == math.inf else f"{last_exp:.2f}" if last_exp is not None else "-"
            summary.append(f"{c.name:14} fitted exponent {fit:5.2f}, last doubling {last:>5}: {verdict}")
            print(f"{c.name:14} fitted exponent {fit:.2f}, last doubling {last}: {verdict}\n")
            sys.stdout.flush()
    finally:
        if not a.keep:
            shutil.rmtree(workroot, ignore_errors=True)
    print("summary (superlinear: exponent of the last doubling above %.1f)" % THRESHOLD)
    for s in summary:
        print("  " + s)
    return status


if __name__ == "__main__":
    sys.exit(main())
