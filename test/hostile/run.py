#!/usr/bin/env python3
"""Hostile-input harness for acc's tools (acc-opt, acc-run, acc-translate, acc-repl).

Generates bad input -- mutated IR, absurd pass options, broken target and dialect
files, corrupted .npy and .onnx files, pathological generated IR, hostile output
destinations, REPL scripts and option soup -- runs one tool command per case in a
fresh directory under a memory limit and a timeout, and checks that the tool either
succeeds or fails cleanly: no panic, no abort, no hang, no output left behind by a
failed run, no failure without a message.

    python3 test/hostile/run.py [--cases N] [--seed S] [--timeout SECONDS]
                                [--bin DIR] [--jobs J] [--keep DIR]
                                [--family NAME ...]

Case i of a campaign belongs to family i mod (number of families selected) and
draws everything from random.Random(seed + i): a campaign is reproducible from its
seed and its --family selection, and `--first N --cases 1` reruns case N alone
(see README.md).

Standard library only. (ONNX models are written with a small protobuf encoder of
its own; the `onnx` package is not needed.)

Exit status: 0 when every case was `ok` or `error`, 1 when any was `panic`,
`abort`, `hang`, `partial`, `silent` or `odd` (or the harness itself failed on a
case: `harness`), 2 on bad usage.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import glob
import hashlib
import math
import multiprocessing
import os
import random
import re
import resource
import shlex
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import time
import traceback

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOLS = ("acc-opt", "acc-run", "acc-translate", "acc-repl")
MEMORY_LIMIT = 8 << 30  # RLIMIT_AS of each tool process
FILE_LIMIT = 1 << 30  # RLIMIT_FSIZE: a runaway writer gets EFBIG, not the disk

CLASSES = ("ok", "error", "panic", "abort", "hang", "partial", "silent", "odd", "harness")
BAD = {"panic", "abort", "hang", "partial", "silent", "odd", "harness"}
ABORT_MARKERS = ("memory allocation of", "capacity overflow", "stack overflow")

# Numbers that break arithmetic on sizes and counts.
HUGE = [
    "100000",
    "1000000",
    str(2**31),
    str(2**32),
    str(2**40),
    str(2**62),
    str(2**63 - 1),
    str(2**63),
    str(2**64),
    str(2**64 + 1),
    "99999999999999999999999999",
    "-1",
    "0",
    "-9223372036854775808",
]

# ---------------------------------------------------------------------------
# Shared state, computed once before the workers fork.
# ---------------------------------------------------------------------------


class Env:
    """What every generator may use: the repository's seeds and the tools' passes."""

    root = ""  # the campaign's scratch directory
    bins: dict = {}  # tool -> executable (a snapshot of --bin)
    bin_dir = ""  # --bin as given, for commands shown to people
    timeout = 20.0
    seed = 0
    keep = None
    families: list = []
    lit_files: list = []
    recipes: list = []  # dicts: tool, args (raw tokens), file, negated
    valid_opt: list = []  # (file, extra flags) that acc-opt accepts as they are
    target_files: list = []
    dialect_files: list = []
    target_recipes: dict = {}  # target file -> recipes using it
    dialect_recipes: dict = {}
    passes: dict = {}  # pass -> [(option, type)]
    anchors: dict = {}  # pass -> the op it runs on (func.func, builtin.module, any)
    pipelines: dict = {}
    onnx_models: list = []
    onnx_inputs: dict = {}  # model path -> [input .npy paths]
    euid = 0


ENV = Env()


def rel(path: str) -> str:
    return os.path.relpath(path, REPO)


# ---------------------------------------------------------------------------
# Seeds from the repository.
# ---------------------------------------------------------------------------


def read_runs(path: str) -> list:
    """The RUN lines of a lit file, continuation lines joined."""
    runs, cur = [], ""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return []
    for line in text.splitlines():
        m = re.search(r"RUN:\s?(.*)$", line)
        if not m:
            continue
        s = m.group(1).rstrip()
        if s.endswith("\\"):
            cur += s[:-1] + " "
            continue
        runs.append(cur + s)
        cur = ""
    return runs


def parse_recipes(path: str) -> list:
    """The tool commands of a lit file's RUN lines (the first command of each
    pipeline), with `%s`, `%S` resolved and `%t` left for the case to fill."""
    out = []
    d = os.path.dirname(path)
    for run in read_runs(path):
        first = run.split(" | ")[0]
        try:
            toks = shlex.split(first)
        except ValueError:
            continue
        negated = False
        if toks and toks[0] == "not":
            negated = True
            toks = toks[1:]
        if not toks or toks[0] not in TOOLS:
            continue
        args = []
        skip = False
        for t in toks[1:]:
            if skip:
                skip = False
                continue
            if t in (">", "2>", ">>", "2>>", "<"):
                skip = True
                continue
            if re.fullmatch(r"\d?(>>?|<)\S+", t):
                continue
            t = t.replace("%s", path).replace("%S", d)
            args.append(t)
        out.append({"tool": toks[0], "args": args, "file": path, "negated": negated})
    return out


def resolve_flag_paths(args: list, flag: str) -> list:
    out = []
    for i, a in enumerate(args):
        if a == flag and i + 1 < len(args):
            out.append(os.path.normpath(args[i + 1]))
        elif a.startswith(flag + "="):
            out.append(os.path.normpath(a.split("=", 1)[1]))
    return out


def strip_output(args: list) -> list:
    """`args` without `-o VALUE` (the case chooses its own destination)."""
    out, i = [], 0
    while i < len(args):
        if args[i] in ("-o", "--output") and i + 1 < len(args):
            i += 2
            continue
        out.append(args[i])
        i += 1
    return out


def fill_t(args: list, workdir: str) -> list:
    return [a.replace("%t", "t") for a in args]


def parse_list_passes(text: str):
    passes, pipelines, section, last = {}, {}, None, None
    anchors = ENV.anchors
    for line in text.splitlines():
        if line.startswith("Passes:"):
            section = passes
            continue
        if line.startswith("Pipelines:"):
            section = pipelines
            continue
        if section is None:
            continue
        m = re.match(r"^  ([A-Za-z][\w.-]*)(\s{2,}|$)", line)
        if m:
            last = m.group(1)
            section[last] = []
            a = re.search(r"\(runs on ([\w.]+)\)\s*$", line)
            anchors[last] = a.group(1) if a else ""
            continue
        m = re.match(r"^      ([A-Za-z][\w-]*)\s{2,}.*\(([^(),]+), default ([^()]*)\)\s*$", line)
        if m and last is not None:
            section[last].append((m.group(1), m.group(2).strip()))
    return passes, pipelines


FALLBACK_PASSES = {
    "canonicalize": [("max-iterations", "int"), ("max-num-rewrites", "int"), ("test-convergence", "bool")],
    "cse": [],
    "dce": [],
    "fold": [],
    "inline": [("max-rounds", "int")],
    "symbol-dce": [],
    "unroll": [("max-trip", "int"), ("max-ops", "int")],
    "graph-to-tensor": [],
    "bufferize": [("target", "string"), ("gemm", "string")],
    "partition": [("target", "string"), ("placement", "schedule|op-by-op")],
    "pipeline-frames": [("frames", "int")],
    "view-graph": [("file", "string")],
}


def setup_env(args) -> None:
    e = ENV
    e.bin_dir = os.path.abspath(args.bin)
    e.timeout = args.timeout
    e.seed = args.seed
    e.keep = os.path.abspath(args.keep) if args.keep else None
    e.root = tempfile.mkdtemp(prefix="acc-hostile-")
    e.euid = os.geteuid()
    # A snapshot of the binaries (hard links, else copies): a rebuild during the
    # campaign does not change the tools under it.
    snap = os.path.join(e.root, "bin")
    os.mkdir(snap)
    for t in TOOLS:
        src = os.path.join(e.bin_dir, t)
        if not os.access(src, os.X_OK):
            sys.exit(f"run.py: no executable {src} (build the tools, or give --bin DIR)")
        dst = os.path.join(snap, t)
        src = os.path.realpath(src)
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)
        e.bins[t] = dst
    os.mkdir(os.path.join(e.root, "cases"))

    e.lit_files = sorted(glob.glob(os.path.join(REPO, "test/lit/**/*.mlir"), recursive=True))
    for f in e.lit_files:
        e.recipes.extend(parse_recipes(f))
    acc_files = sorted(
        set(glob.glob(os.path.join(REPO, "examples/targets/*.acc")))
        | set(glob.glob(os.path.join(REPO, "test/lit/**/Inputs/*.acc"), recursive=True))
        | set(glob.glob(os.path.join(REPO, "lowering/runtime/*.acc")))
        | set(glob.glob(os.path.join(REPO, "test/c/**/*.acc"), recursive=True))
        | set(glob.glob(os.path.join(REPO, "dialects/defs/*.acc")))
    )
    for f in acc_files:
        try:
            text = open(f, encoding="utf-8", errors="replace").read()
        except OSError:
            continue
        if re.search(r"^\s*target\s+[\w.-]+\s*\{", text, re.M):
            e.target_files.append(f)
        else:  # dialects, rewrite patterns: what --dialect loads
            e.dialect_files.append(f)
    for r in e.recipes:
        if r["tool"] != "acc-opt":
            continue
        for t in resolve_flag_paths(r["args"], "--target"):
            e.target_recipes.setdefault(t, []).append(r)
        for d in resolve_flag_paths(r["args"], "--dialect"):
            e.dialect_recipes.setdefault(d, []).append(r)
    seen = set()
    for r in e.recipes:
        a = r["args"]
        if (
            r["tool"] == "acc-opt"
            and not r["negated"]
            and r["file"] in a
            and not any(x in a for x in ("--verify-diagnostics", "--split-input-file", "-"))
            and not any("%" in x for x in a)
            and r["file"] not in seen
        ):
            flags = []
            for flag in ("--dialect", "--target"):
                for p in resolve_flag_paths(a, flag):
                    flags += [flag, p]
            if "--allow-unregistered-dialect" in a:
                flags.append("--allow-unregistered-dialect")
            seen.add(r["file"])
            e.valid_opt.append((r["file"], flags))
    e.valid_opt.sort()
    e.onnx_models = sorted(glob.glob(os.path.join(REPO, "examples/onnx/*.onnx")))
    for m in e.onnx_models:
        stem = os.path.basename(m).split(".")[0]
        e.onnx_inputs[m] = sorted(glob.glob(os.path.join(REPO, f"examples/onnx/{stem}.input*.npy")))
    # The passes and their options, from the tool itself.
    try:
        out = subprocess.run(
            [e.bins["acc-opt"], "--list-passes"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=60,
            preexec_fn=limit_child,
        )
        e.passes, e.pipelines = parse_list_passes(out.stdout.decode("utf-8", "replace"))
    except (OSError, subprocess.SubprocessError):
        pass
    if not e.passes:
        print("run.py: warning: could not read acc-opt --list-passes; using a built-in list", file=sys.stderr)
        e.passes = dict(FALLBACK_PASSES)
        e.pipelines = {"host-pipeline": []}


# ---------------------------------------------------------------------------
# Running one command.
# ---------------------------------------------------------------------------


def limit_child() -> None:
    os.setsid()
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


def snapshot(path: str, depth: int = 0):
    """The state of `path` (type, mode, contents; a link's target and what it points
    to; a directory's entries), to tell whether a failed run changed it."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as err:
        return ("unreadable", err.errno)
    if stat.S_ISLNK(st.st_mode):
        try:
            target = os.readlink(path)
        except OSError:
            target = None
        try:
            follow = os.stat(path)
            pointed = ("exists", follow.st_mode, follow.st_size, digest(path) if stat.S_ISREG(follow.st_mode) else None)
        except OSError:
            pointed = None
        return ("link", target, pointed)
    if stat.S_ISDIR(st.st_mode):
        if depth > 4:
            return ("dir", st.st_mode)
        try:
            names = sorted(os.listdir(path))
        except OSError:
            names = None
        return ("dir", st.st_mode, tuple((n, snapshot(os.path.join(path, n), depth + 1)) for n in names or ()))
    if stat.S_ISREG(st.st_mode):
        return ("file", st.st_mode, st.st_size, digest(path))
    return ("other", stat.S_IFMT(st.st_mode))


def digest(path: str):
    try:
        h = hashlib.sha1()
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        return h.hexdigest()
    except OSError:
        return None


def tree(workdir: str) -> set:
    """Every path under `workdir` (relative), links not followed."""
    out = set()
    for dirpath, dirnames, filenames in os.walk(workdir):
        for n in dirnames + filenames:
            out.add(os.path.relpath(os.path.join(dirpath, n), workdir))
    return out


class Case:
    def __init__(self, argv, outputs=(), stdin=None, watch=(), stdout=None, strict=True, note="", env=None):
        self.argv = list(argv)
        self.outputs = list(outputs)  # must exist after success, unchanged after failure
        self.stdin = stdin
        self.watch = list(watch)  # unchanged after failure
        self.stdout = stdout  # a path for standard output (default /dev/null)
        self.strict = strict  # a failed run may not create anything in the directory
        self.note = note
        self.env = env or {}


def as_case(spec) -> Case:
    if isinstance(spec, Case):
        return spec
    spec = tuple(spec)
    argv = spec[0]
    outputs = spec[1] if len(spec) > 1 and spec[1] else ()
    stdin = spec[2] if len(spec) > 2 else None
    extra = spec[3] if len(spec) > 3 and spec[3] else {}
    return Case(argv, outputs, stdin, **extra)


def show_arg(a) -> str:
    if isinstance(a, bytes):
        return "$'" + "".join(chr(c) if 32 <= c < 127 and c not in (39, 92) else f"\\x{c:02x}" for c in a) + "'"
    if len(a) > 200:
        return shlex.quote(a[:80]) + f"...<{len(a)} chars>"
    return shlex.quote(a)


def show_cmd(argv) -> str:
    return " ".join(show_arg(a) for a in argv)


def full_cmd(argv, bin_dir) -> str:
    """The command as a shell line (whole arguments), for cmd.txt."""
    parts = []
    for i, a in enumerate(argv):
        if i == 0:
            a = os.path.join(bin_dir, a)
        if isinstance(a, bytes):
            parts.append(show_arg(a))
        else:
            parts.append(shlex.quote(a))
    return " ".join(parts)


def run_case(idx: int) -> dict:
    e = ENV
    fam = e.families[idx % len(e.families)]
    rng = random.Random(e.seed + idx)
    workdir = os.path.join(e.root, "cases", f"{idx:05d}-{fam}")
    os.mkdir(workdir)
    case = None
    result = {"idx": idx, "family": fam, "cmd": "", "class": "harness", "stderr": "", "note": "", "time": 0.0, "rc": None, "why": ""}
    try:
        case = as_case(GENERATORS[fam](rng, workdir))
        result["cmd"] = show_cmd(case.argv)
        result["note"] = case.note
        result["tool"] = case.argv[0]
        run_and_classify(case, workdir, result)
    except Exception:  # a bug of the harness, reported as such
        result["class"] = "harness"
        result["stderr"] = traceback.format_exc()
    if result["class"] in BAD and e.keep:
        keep_case(workdir, result, case)
    cleanup(workdir)
    return result


def run_and_classify(case: Case, workdir: str, result: dict) -> None:
    e = ENV
    argv = [e.bins.get(case.argv[0], case.argv[0])] + case.argv[1:]
    before_tree = tree(workdir)
    watched = {p: snapshot(os.path.join(workdir, p)) for p in case.outputs + case.watch}
    stdin_path = None
    if case.stdin is not None:
        stdin_path = os.path.join(e.root, "cases", os.path.basename(workdir) + ".stdin")
        with open(stdin_path, "wb") as f:
            f.write(case.stdin)
    err_path = os.path.join(e.root, "cases", os.path.basename(workdir) + ".stderr")
    env = dict(os.environ)
    env.update({"RUST_BACKTRACE": "0", "ACC_REPL_HISTORY": os.path.join(e.root, "repl-history")})
    env.update(case.env)
    stdin_f = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    stdout_f = open(case.stdout, "wb") if case.stdout else subprocess.DEVNULL
    err_f = open(err_path, "wb")
    start = time.monotonic()
    timed_out = False
    try:
        proc = subprocess.Popen(
            argv, cwd=workdir, stdin=stdin_f, stdout=stdout_f, stderr=err_f, env=env, preexec_fn=limit_child
        )
        try:
            rc = proc.wait(timeout=e.timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            rc = proc.wait()
        # Whatever the tool started (an external compiler) goes with it.
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    finally:
        for f in (stdin_f, stdout_f, err_f):
            if hasattr(f, "close"):
                f.close()
    result["time"] = time.monotonic() - start
    result["rc"] = rc
    with open(err_path, "rb") as f:
        raw = f.read(1 << 20)
    os.unlink(err_path)
    if stdin_path:
        result["stdin"] = case.stdin if len(case.stdin) < (8 << 20) else None
        os.unlink(stdin_path)
    stderr = raw.decode("utf-8", "replace")
    result["stderr"] = stderr
    result["class"], result["why"] = classify(case, workdir, rc, timed_out, stderr, before_tree, watched)


def classify(case, workdir, rc, timed_out, stderr, before_tree, watched):
    if timed_out:
        return "hang", f"no exit after {ENV.timeout:g} s"
    if "panicked at" in stderr:
        # A panic, whether it unwound (exit 101) or aborted the process.
        return "panic", f"exit {rc}" if rc >= 0 else f"then killed by {signal_name(-rc)}"
    if rc < 0:
        return "abort", f"killed by {signal_name(-rc)}"
    if rc not in (0, 1, 2) and any(m in stderr for m in ABORT_MARKERS):
        return "abort", "exit %d after '%s'" % (rc, next(m for m in ABORT_MARKERS if m in stderr))
    if rc == 101:
        return "panic", f"exit {rc}"
    after_tree = tree(workdir)
    leftovers = sorted(p for p in after_tree if os.path.basename(p).startswith(".acc-out-"))
    if leftovers:
        return "partial", "left " + ", ".join(leftovers[:3])
    if rc == 0:
        missing = [p for p in case.outputs if not os.path.exists(os.path.join(workdir, p))]
        if missing:
            return "partial", "exit 0 without " + ", ".join(missing)
    else:
        changed = [p for p, s in watched.items() if snapshot(os.path.join(workdir, p)) != s]
        if changed:
            return "partial", f"exit {rc} but changed " + ", ".join(changed)
        if case.strict:
            new = sorted(after_tree - before_tree)
            if new:
                return "partial", f"exit {rc} but created " + ", ".join(new[:3])
    if rc != 0 and not stderr.strip():
        return "silent", f"exit {rc}, nothing on stderr"
    if rc == 0:
        return "ok", ""
    if rc in (1, 2):
        return "error", ""
    return "odd", f"exit {rc}"


def signal_name(n: int) -> str:
    try:
        return signal.Signals(n).name
    except ValueError:
        return f"signal {n}"


def make_writable(path: str) -> None:
    for dirpath, dirnames, _ in os.walk(path):
        for d in dirnames:
            p = os.path.join(dirpath, d)
            try:
                if not os.path.islink(p):
                    os.chmod(p, 0o755)
            except OSError:
                pass
    try:
        os.chmod(path, 0o755)
    except OSError:
        pass


def cleanup(workdir: str) -> None:
    make_writable(workdir)
    shutil.rmtree(workdir, ignore_errors=True)


def keep_case(workdir: str, result: dict, case) -> None:
    e = ENV
    dest = os.path.join(e.keep, os.path.basename(workdir))
    try:
        make_writable(workdir)
        if os.path.exists(dest):
            shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(workdir, dest, symlinks=True)
        with open(os.path.join(dest, "cmd.txt"), "w") as f:
            f.write(f"# {result['family']} case {result['idx']} (seed {e.seed}): {result['class']} {result['why']}\n")
            if result.get("note"):
                f.write(f"# {result['note']}\n")
            line = full_cmd(case.argv, e.bin_dir) if case else result["cmd"]
            if case is not None and case.stdin is not None:
                with open(os.path.join(dest, "stdin.bin"), "wb") as s:
                    s.write(case.stdin)
                line += " < stdin.bin"
            f.write(f"cd {shlex.quote(dest)} && {line}\n")
        with open(os.path.join(dest, "stderr.txt"), "w") as f:
            f.write(result["stderr"])
    except OSError as err:
        print(f"run.py: cannot keep {workdir}: {err}", file=sys.stderr)


# ---------------------------------------------------------------------------
# Mutations.
# ---------------------------------------------------------------------------


def byte_flips(rng, data: bytes, n=None) -> bytes:
    if not data:
        return bytes([rng.randrange(256)])
    b = bytearray(data)
    for _ in range(n or rng.randint(1, 8)):
        i = rng.randrange(len(b))
        r = rng.random()
        if r < 0.5:
            b[i] ^= 1 << rng.randrange(8)
        elif r < 0.8:
            b[i] = rng.randrange(256)
        else:
            b[i] = rng.choice(b"{}()[]<>%@^#:=,\"'\\\x00\xff-0123456789")
    return bytes(b)


def line_ops(rng, data: bytes) -> bytes:
    lines = data.split(b"\n")
    if len(lines) < 2:
        return data
    i = rng.randrange(len(lines))
    j = min(len(lines), i + rng.randint(1, 12))
    r = rng.random()
    if r < 0.4:
        del lines[i:j]
    elif r < 0.75:
        lines[j:j] = lines[i:j] * rng.randint(1, 4)
    else:
        k = rng.randrange(len(lines))
        lines[i], lines[k] = lines[k], lines[i]
    return b"\n".join(lines)


def truncate(rng, data: bytes) -> bytes:
    return data[: rng.randrange(len(data) + 1)] if data else data


def replace_numbers(rng, data: bytes, pattern: bytes, values, everywhere=False) -> bytes:
    """Replaces one match of `pattern` (or every match of the same text) by a value."""
    matches = list(re.finditer(pattern, data))
    if not matches:
        return data
    m = rng.choice(matches)
    v = rng.choice(values).encode()
    if everywhere:
        old = m.group(0)
        return re.sub(pattern, lambda x: v if x.group(0) == old else x.group(0), data)
    return data[: m.start()] + v + data[m.end() :]


SHAPE_DIM = rb"(?<=[<x])\d+(?=x)"


def deep_text(rng, n: int) -> bytes:
    """A deeply nested construct, well formed or not."""
    kind = rng.randrange(12)
    if kind == 0:
        return b"(" * n
    if kind == 1:
        return b"{" * n
    if kind == 2:
        return b"[" * n + b"1" + b"]" * n
    if kind == 3:
        return b"<" * n
    if kind == 4:
        return b'"test.deep"() {a = ' + b"[" * n + b"1" + b"]" * n + b"} : () -> ()"
    if kind == 5:
        return b'"test.r"() ({\n' * n + b'"test.leaf"() : () -> ()\n' + b"}) : () -> ()\n" * n
    if kind == 6:
        return b'"test.t"() : () -> !test.t' + b"<" * n + b"i32" + b">" * n
    if kind == 7:
        return b'"test.a"() {m = affine_map<(d0) -> (' + b"(" * n + b"d0" + b")" * n + b")>} : () -> ()"
    if kind == 8:
        return b'"test.l"() : () -> () loc(' + b"fused[" * n + b'"x"' + b"]" * n + b")"
    if kind == 9:
        return b'"test.a"() {m = affine_map<(d0) -> (' + b"- " * n + b"d0)>} : () -> ()"
    if kind == 10:
        return b'"test.c"() {v = dense<' + b"[" * n + b"1.0" + b"]" * n + b"> : tensor<" + b"1x" * min(n, 64) + b"f32>} : () -> ()"
    return b'"test.ty"() : () -> ' + b"tuple<" * n + b"i32" + b">" * n


def insert_op_line(rng, data: bytes, text: bytes) -> bytes:
    """`text` as a line before an op of some function (else at the end)."""
    lines = data.split(b"\n")
    spots = [i for i, l in enumerate(lines) if re.match(rb"\s+(%|return|loop\.yield|func\.return)", l)]
    if spots:
        i = rng.choice(spots)
    else:
        i = len(lines)
    lines.insert(i, text)
    return b"\n".join(lines)


def mutate_ir(rng, data: bytes) -> tuple:
    names = []
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        r = rng.randrange(100)
        if r < 18:
            data, n = byte_flips(rng, data), "flip"
        elif r < 32:
            data, n = line_ops(rng, data), "lines"
        elif r < 40:
            data, n = truncate(rng, data), "truncate"
        elif r < 58:
            data = replace_numbers(rng, data, SHAPE_DIM, HUGE + ["?", "00", "1e3"], everywhere=rng.random() < 0.6)
            n = "shape"
        elif r < 66:
            data, n = replace_numbers(rng, data, rb"(?<![\w.%#^])-?\d+(?![\w.])", HUGE + ["1e309", "0x", "-0"]), "number"
        elif r < 84:
            depth = rng.choice((64, 500, 5000, 5000, 20000, 100000))
            data = insert_op_line(rng, data, deep_text(rng, depth))
            n = f"deep{depth}"
        elif r < 90:
            junk = bytes(rng.randrange(256) for _ in range(rng.randint(1, 40)))
            i = rng.randrange(len(data) + 1)
            data, n = data[:i] + junk + data[i:], "junk"
        elif r < 95:
            other = open(rng.choice(ENV.lit_files), "rb").read().split(b"\n")
            i = rng.randrange(len(other))
            piece = b"\n".join(other[i : i + rng.randint(1, 30)])
            data, n = insert_op_line(rng, data, piece), "splice"
        else:
            data, n = data + b"\n" + b"}" * rng.randint(1, 5000), "closers"
        names.append(n)
    return data, "+".join(names)


# ---------------------------------------------------------------------------
# Pass lists.
# ---------------------------------------------------------------------------

GARBAGE_VALUES = [
    "",
    "{",
    "}",
    "}}",
    "{{",
    "a}b",
    "a b",
    "'",
    '"',
    "=",
    ",",
    "x" * 5000,
    "\u00e9\u00e8",
    "nan",
    "inf",
    "-",
    "1e999",
    "0x10",
    "true false",
]


def option_value(rng, typ: str, workdir: str, name: str) -> str:
    r = rng.random()
    if name == "file":
        return rng.choice(["-", "vg.dot", "missing/dir/vg.dot", "", ".", "/dev/full"])
    if name == "samples":
        return rng.choice(["/dev/null", ".", "missing.npy", "bad.npy", "", "/etc/passwd"])
    if r < 0.12:
        return rng.choice(GARBAGE_VALUES)
    if "int" in typ or "uint" in typ:
        return rng.choice(HUGE + ["1", "2", "64", "-2", "1.5", "abc", "1e9", "+5", " 3"])
    if typ == "bool":
        return rng.choice(["true", "false", "1", "0", "yes", "TRUE", "tru", ""])
    if "|" in typ:
        return rng.choice(typ.split("|") + ["bogus", typ])
    return rng.choice(["host", "tinynpu", "soc", "acc_sgemm", "../../etc/passwd", "x" * 300, "%", "\\"])


def pass_item(rng, workdir: str, pipelines=False, anchors=False) -> str:
    """A pass (or named pipeline) with options, as --pass takes it: absurd values of the
    right type mostly, a syntax error now and then."""
    e = ENV
    pool = e.passes if not (pipelines or rng.random() < 0.15) or not e.pipelines else e.pipelines
    name = rng.choice(sorted(pool))
    opts = pool[name]
    anchor = e.anchors.get(name, "")
    r = rng.random()
    if r < 0.03:
        name = name[:-1] or "x"  # a misspelling
    elif r < 0.04:
        name = name.upper()
    text = name
    if opts and rng.random() < 0.6:
        chosen = rng.sample(opts, rng.randint(1, len(opts)))
        parts = []
        for o, typ in chosen:
            if rng.random() < 0.03:
                parts.append(o)  # no value
            else:
                parts.append(f"{o}={option_value(rng, typ, workdir, o)}")
        if rng.random() < 0.03:
            parts.append("bogus-option=1")
        text += "{" + " ".join(parts) + "}"
    elif rng.random() < 0.04:
        text += rng.choice(["{", "}", "{}", "{=}", "{a=1", "{{}}", "(", "{" * 200])
    if anchors and anchor == "func.func" and rng.random() < 0.9:
        text = f"func.func({text})"
    elif anchors and anchor == "any" and rng.random() < 0.5:
        text = f"func.func({text})"
    return text


def pass_list(rng, workdir: str, max_items=6, anchors=False) -> str:
    items = [pass_item(rng, workdir, anchors=anchors) for _ in range(rng.randint(1, max_items))]
    r = rng.random()
    if r < 0.03:
        items.append("")
    elif r < 0.06:
        # Many copies, within what one argument may hold (128 KiB).
        items = [items[0]] * min(rng.choice((100, 1000)), 100000 // (len(items[0]) + 1) + 1)
    elif r < 0.07:
        items.insert(0, "")
    return ",".join(items)


def broken_pipeline(rng) -> str:
    names = sorted(ENV.passes) or ["cse"]
    p = rng.choice(names)
    return rng.choice(
        [
            f"builtin.module(func.func({p})",
            "builtin.module(",
            f"builtin.module({p}))",
            "))(((",
            f"builtin.module(func.func(builtin.module({p})))",
            f"builtin.module({p}{{max-iterations=}})",
            "builtin.module(" * 5000 + p + ")" * 5000,
            "builtin.module(" * 5000,
            f"func.func({p})",
            f"builtin.module(,,{p},)",
            f"builtin.module({p}{{{{}}}})",
            "",
            "builtin.module()",
            f"builtin.module(func.func({p}), {p}{{a=1 b}})",
            "builtin.module(" + ",".join([p] * 2000) + ")",
            f"builtin.module(\"{p}\")",
            f"builtin.module({p} {p})",
            f"builtin.module(func.func({p}{{file=x}}))",
        ]
    )


def write_bad_npy(rng, workdir: str, name="bad.npy") -> None:
    with open(os.path.join(workdir, name), "wb") as f:
        f.write(npy_case(rng, "f32", (4,))[0])


# ---------------------------------------------------------------------------
# Families.
# ---------------------------------------------------------------------------


def gen_ir(rng, workdir):
    e = ENV
    src = rng.choice(e.lit_files)
    data, how = mutate_ir(rng, open(src, "rb").read())
    with open(os.path.join(workdir, "in.mlir"), "wb") as f:
        f.write(data)
    argv = ["acc-opt", "in.mlir", "--allow-unregistered-dialect"]
    flags = [r for r in e.recipes if r["file"] == src and r["tool"] == "acc-opt"]
    if flags and rng.random() < 0.4:
        r = rng.choice(flags)
        for flag in ("--dialect", "--target"):
            for p in resolve_flag_paths(r["args"], flag):
                argv += [flag, p]
    if b"// -----" in data and rng.random() < 0.5:
        argv.append("--split-input-file")
    r = rng.random()
    if r < 0.45:
        argv += ["--pass", pass_list(rng, workdir, 3)]
    elif r < 0.55:
        argv += ["--check-semantics", "--pass", rng.choice(["canonicalize", "fold", "cse", "inline", "unroll"])]
    elif r < 0.6:
        argv += ["--print-generic"]
    argv += ["-o", "out.mlir"]
    return argv, ["out.mlir"], None, {"note": f"{rel(src)} {how}"}


def gen_pipeline(rng, workdir):
    e = ENV
    src, flags = rng.choice(e.valid_opt)
    argv = ["acc-opt", src] + flags
    write_bad_npy(rng, workdir)
    r = rng.random()
    if r < 0.6:
        argv += ["--pass", pass_list(rng, workdir, 4)]
        note = "pass"
    elif r < 0.68:
        argv += [f"--pass-pipeline=builtin.module({pass_list(rng, workdir, 4, anchors=True)})"]
        note = "pass-pipeline"
    elif r < 0.74:
        argv += [f"--pass-pipeline={broken_pipeline(rng)}"]
        note = "broken pass-pipeline"
    elif r < 0.82:
        if rng.random() < 0.2:
            argv += ["--pipeline", rng.choice(["target", "bogus", "target{bits=3}", "", "{", "host-pipeline{"])]
        else:
            argv += ["--pipeline", pass_item(rng, workdir, pipelines=True)]
        note = "pipeline"
    else:
        for _ in range(rng.randint(1, 3)):
            argv.append("--" + (pass_item(rng, workdir) if rng.random() < 0.2 else rng.choice(sorted(e.passes))))
        note = "--NAME"
    for flag, p in (
        ("--check-semantics", 0.15),
        ("--dump-pass-pipeline", 0.1),
        ("--print-ir-after-all", 0.05),
        ("--print-ir-after-failure", 0.05),
        ("--timing", 0.05),
        ("--remarks", 0.05),
        ("--no-verify", 0.05),
        ("--verify-each", 0.05),
    ):
        if rng.random() < p:
            argv.append(flag)
    if rng.random() < 0.1:
        argv += ["--threads", rng.choice(["1", "2", "0", "-1", "64", "1000000", str(2**64)])]
    if rng.random() < 0.05:
        argv.append(f"--check-semantics-seed={rng.choice(HUGE)}")
    argv += ["-o", "out.mlir"]
    return argv, ["out.mlir"], None, {"note": f"{rel(src)} {note}"}


def mutate_acc(rng, data: bytes) -> tuple:
    names = []
    for _ in range(rng.choice((1, 1, 2, 3))):
        r = rng.randrange(100)
        if r < 30:
            data = replace_numbers(
                rng,
                data,
                rb"(?<![\w.%$])\d+(\.\d+)?(?![\w.])",
                ["-1", "0", str(2**63), str(2**63 - 1), str(2**64), "1e30", "1e309", "99999999999999999999", "-9223372036854775808", "0.5", "4294967296"],
                everywhere=rng.random() < 0.3,
            )
            n = "number"
        elif r < 40:
            data, n = line_ops(rng, data), "lines"
        elif r < 50:
            lines = data.split(b"\n")
            decl = [i for i, l in enumerate(lines) if re.match(rb"\s*(device|memory|dma|signal|pipeline|header)\b", l)]
            if decl:
                i = rng.choice(decl)
                lines[i:i] = [lines[i]] * rng.randint(1, 3)
            data, n = b"\n".join(lines), "dup-decl"
        elif r < 58:
            # Empty strings; never a different command for an external compiler.
            data, n = re.sub(rb'"[^"\n]*"', lambda m: b'""' if rng.random() < 0.5 else m.group(0), data), "empty-strings"
        elif r < 66:
            data, n = byte_flips(rng, data), "flip"
        elif r < 70:
            data, n = truncate(rng, data), "truncate"
        elif r < 78:
            # Arithmetic of cost/where/call expressions: division by zero, overflow.
            ops = [b" / 0", b" % 0", b" * 9223372036854775807", b" - 9223372036854775807 - 9223372036854775807", b" / (1 - 1)", b" << 64"]
            m = list(re.finditer(rb"(cost|macs) [^\n]*", data))
            if m:
                x = rng.choice(m)
                data = data[: x.end()] + rng.choice(ops) + data[x.end() :]
            n = "arith"
        elif r < 84:
            depth = rng.choice((100, 5000, 50000))
            m = list(re.finditer(rb"(cost|macs) ", data))
            nested = b"(" * depth + b"1" + b")" * depth
            if m:
                x = rng.choice(m)
                data = data[: x.end()] + nested + b" + " + data[x.end() :]
            else:
                data += b"\n" + nested
            n = f"deep{depth}"
        elif r < 90:
            data = replace_numbers(rng, data, rb"(?<=dim\(%\w, )\d+|(?<=at\(\$\w, )\d+", ["-1", "99", str(2**63), "4294967296"])
            n = "index"
        elif r < 95:
            m = list(re.finditer(rb"(cost|macs) ", data))
            chain = b" + ".join([b"1"] * rng.choice((1000, 50000)))
            if m:
                x = rng.choice(m)
                data = data[: x.end()] + chain + b" + " + data[x.end() :]
            n = "long-expr"
        else:
            data, n = data.replace(b"{", b"{" * rng.randint(2, 100), 1), "braces"
        names.append(n)
    return data, "+".join(names)


def gen_target(rng, workdir):
    e = ENV
    if rng.random() < 0.7 or not e.dialect_files:
        src = rng.choice(e.target_files)
        data, how = mutate_acc(rng, open(src, "rb").read())
        with open(os.path.join(workdir, "t.acc"), "wb") as f:
            f.write(data)
        recipes = e.target_recipes.get(os.path.normpath(src), [])
        if recipes and rng.random() < 0.75:
            r = rng.choice(recipes)
            args = []
            skip = False
            a = strip_output(r["args"])
            for i, x in enumerate(a):
                if skip:
                    skip = False
                    continue
                if x == "--target" and i + 1 < len(a) and os.path.normpath(a[i + 1]) == os.path.normpath(src):
                    args += ["--target", "t.acc"]
                    skip = True
                    continue
                args.append(x)
            args = fill_t(args, workdir)
            argv = ["acc-opt"] + args + ["-o", "out.mlir"]
            note = f"{rel(src)} {how} as {rel(r['file'])}"
        else:
            ir = rng.choice(sorted(glob.glob(os.path.join(REPO, "examples/ir/*.mlir"))) + [r["file"] for r in recipes])
            argv = ["acc-opt", "--target", "t.acc", ir, "--pipeline", rng.choice(["target", "target", "accel-pipeline", "host-pipeline"])]
            if rng.random() < 0.3:
                argv.append("--check-semantics")
            argv += ["-o", "out.mlir"]
            note = f"{rel(src)} {how} pipeline on {rel(ir)}"
        return argv, ["out.mlir"], None, {"note": note}
    src = rng.choice(e.dialect_files)
    data = open(src, "rb").read()
    if os.path.dirname(src) == os.path.join(REPO, "dialects", "defs"):
        # acc's own dialects and patterns are loaded already: renamed, they load again.
        data = re.sub(rb"(?m)^(\s*)dialect (\w+)", rb"\1dialect h\2", data)
        data = re.sub(rb"(?m)^(\s*pattern\s+)(\w+)", rb"\1h_\2", data)
    data, how = mutate_acc(rng, data)
    with open(os.path.join(workdir, "d.acc"), "wb") as f:
        f.write(data)
    recipes = e.dialect_recipes.get(os.path.normpath(src), [])
    if recipes:
        ir = rng.choice(recipes)["file"]
    else:
        ir = rng.choice(e.valid_opt)[0]
    argv = ["acc-opt", "--dialect", "d.acc", ir]
    if rng.random() < 0.4:
        argv += ["--pass", rng.choice(["canonicalize", "cse", "fold", "canonicalize,cse"])]
    argv += ["-o", "out.mlir"]
    return argv, ["out.mlir"], None, {"note": f"{rel(src)} {how} on {rel(ir)}"}


# --- .npy ------------------------------------------------------------------

NPY_TYPES = {
    # IR element type -> (descr, struct code, size)
    "f32": ("<f4", "<f", 4),
    "f64": ("<f8", "<d", 8),
    "f16": ("<f2", "<e", 2),
    "i8": ("|i1", "<b", 1),
    "i32": ("<i4", "<i", 4),
    "i64": ("<i8", "<q", 8),
    "i1": ("|b1", "<?", 1),
}


def npy_header(fields: str, version=(1, 0), pad=True, length=None) -> bytes:
    h = fields.encode("utf-8", "surrogateescape")
    if pad:
        pre = 10 if version[0] == 1 else 12
        while (pre + len(h) + 1) % 64:
            h += b" "
        h += b"\n"
    n = len(h) if length is None else length
    if version[0] == 1:
        lenb = struct.pack("<H", n & 0xFFFF)
    else:
        lenb = struct.pack("<I", n & 0xFFFFFFFF)
    return b"\x93NUMPY" + bytes(version) + lenb + h


def shape_text(shape) -> str:
    if isinstance(shape, str):
        return shape
    if len(shape) == 1:
        return f"({shape[0]},)"
    return "(" + ", ".join(str(d) for d in shape) + ")"


def npy_values(rng, ety: str, n: int, wild: bool) -> bytes:
    desc, code, size = NPY_TYPES[ety]
    out = []
    for _ in range(n):
        if ety in ("f32", "f64", "f16"):
            v = rng.choice([0.0, 1.5, -2.0, float("nan"), float("inf"), -float("inf"), 1e-45, 65504.0]) if wild else rng.uniform(-4, 4)
        elif ety == "i1":
            v = rng.random() < 0.5
        else:
            bits = size * 8
            v = rng.choice([0, 1, -1, -(2 ** (bits - 1)), 2 ** (bits - 1) - 1]) if wild else rng.randint(-5, 5)
        out.append(v)
    return struct.pack(code[0] + code[1] * n, *out) if n else b""


def npy_case(rng, ety: str, shape: tuple):
    """A .npy file for an argument of element type `ety` and `shape`, corrupted in
    one or two ways; the bytes and what was done."""
    n = math.prod(shape)
    desc = NPY_TYPES[ety][0]
    dshape = shape
    fortran = "False"
    data = npy_values(rng, ety, n, rng.random() < 0.3)
    version = (1, 0)
    extra_fields = ""
    header_override = None
    length = None
    pad = True
    kinds = rng.sample(
        [
            "dtype", "huge-shape", "overflow-shape", "neg-shape", "garbage-shape", "many-dims", "fortran",
            "garbage-header", "header-length", "version", "magic", "truncate", "extra", "wide-values",
            "utf8", "nul", "empty", "valid", "shape-mismatch", "long-header",
        ],
        rng.choice((1, 1, 2)),
    )
    for k in kinds:
        if k == "dtype":
            desc = rng.choice(["<f8", ">f4", "<f2", "<i4", "<i8", "|i1", "|u1", "|b1", "<c8", "<U4", "|O", "<M8[s]", "V4", "<f16", "<u8", "bogus", "", "<f4<f4", "f4"])
        elif k == "huge-shape":
            dshape = rng.choice([(100000, 100000), (2**31,), (2**40,), (1, 1, 100000, 100000), (2**62 // 4,)])
        elif k == "overflow-shape":
            dshape = rng.choice([(2**32, 2**32, 16), (2**63 - 1, 2), (2**64,), (2**63,), (10**30,), (2**21, 2**21, 2**21, 2**21)])
        elif k == "neg-shape":
            dshape = rng.choice([(-1,), (4, -4), (-(2**63),), (-4,)])
        elif k == "garbage-shape":
            dshape = rng.choice(["(4", "[4]", "(4.0,)", "('a',)", "((4,),)", "True", "None", "(4,,)", "()", "(" + "4," * 50000 + ")", "(0x4,)", "(4 4)", "(1_0,)", "(+4,)"])
        elif k == "many-dims":
            dshape = (1,) * rng.choice((8, 64, 1000, 20000)) + tuple(shape)
        elif k == "fortran":
            fortran = rng.choice(["True", "1", "'yes'", "None"])
        elif k == "garbage-header":
            header_override = rng.choice(
                [
                    "{}",
                    "[]",
                    "{'descr': '<f4'}",
                    "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), 'descr': '<f8', }",
                    "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), 'extra': 1, }",
                    "{'descr: '<f4', 'fortran_order': False, 'shape': (4,), }",
                    "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), ",
                    "{'descr': __import__('os'), 'fortran_order': False, 'shape': (4,), }",
                    "{" * 10000 + "}" * 10000,
                    "{'descr': {'a': 1}, 'fortran_order': False, 'shape': (4,), }",
                    "{\"descr\": \"<f4\", \"fortran_order\": false, \"shape\": [4]}",
                    "".join(chr(rng.randrange(32, 127)) for _ in range(rng.randint(1, 200))),
                ]
            )
        elif k == "header-length":
            length = rng.choice([0, 1, 65535, 63, 200])
        elif k == "version":
            version = rng.choice([(2, 0), (3, 0), (0, 0), (255, 255), (1, 9)])
            if version[0] in (2, 3) and rng.random() < 0.5:
                length = rng.choice([0xFFFFFFFF, 0x7FFFFFFF, 1 << 30])
        elif k == "magic":
            return rng.choice([b"\x93NUMP", b"NUMPY\x01\x00", b"\x93NUMPY", b"\x93NUMPY\x01", b"PK\x03\x04" + data, b"\x00" * 100]), "magic"
        elif k == "truncate":
            data = data[: rng.randrange(len(data) + 1)] if data else b""
            if rng.random() < 0.3:
                return npy_header(f"{{'descr': '{desc}', 'fortran_order': False, 'shape': {shape_text(dshape)}, }}")[: rng.randint(1, 40)], "truncate-header"
        elif k == "extra":
            data += bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))
        elif k == "wide-values":
            # f64 data (1e300, nan) for a f32 argument, i64 extremes for i32.
            if ety.startswith("f"):
                desc = "<f8"
                data = struct.pack("<%dd" % n, *[rng.choice([1e300, -1e300, float("nan"), 5e-324, float("inf")]) for _ in range(n)])
            else:
                desc = "<i8"
                data = struct.pack("<%dq" % n, *[rng.choice([2**63 - 1, -(2**63), 2**40]) for _ in range(n)])
        elif k == "utf8":
            extra_fields = "'\udcff\udcfe': 1, "
        elif k == "nul":
            extra_fields = "'a\x00b': 1, "
        elif k == "empty":
            return b"", "empty"
        elif k == "shape-mismatch":
            dshape = tuple(d + 1 for d in shape) if shape else (2,)
        elif k == "long-header":
            extra_fields = "'pad': '" + "x" * rng.choice((60000, 70000)) + "', "
    fields = header_override or f"{{'descr': '{desc}', 'fortran_order': {fortran}, 'shape': {shape_text(dshape)}, {extra_fields}}}"
    try:
        head = npy_header(fields, version, pad, length)
    except struct.error:
        head = npy_header(fields, (1, 0), pad, None)
    return head + data, "+".join(kinds)


NPY_FUNCS = [
    # (element type, shape, IR of @f)
    ("f32", (4,), "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n  %y = graph.relu %x : tensor<4xf32>\n  return %y : tensor<4xf32>\n}\n"),
    ("f32", (2, 3), "func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {\n  %y = graph.add %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>\n  return %y : tensor<2x3xf32>\n}\n"),
    ("f32", (4,), "func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {\n  %y = graph.relu %x : tensor<?xf32>\n  return %y : tensor<?xf32>\n}\n"),
    ("f64", (4,), "func.func @f(%x: tensor<4xf64>) -> tensor<4xf64> {\n  return %x : tensor<4xf64>\n}\n"),
    ("f16", (4,), "func.func @f(%x: tensor<4xf16>) -> tensor<4xf16> {\n  return %x : tensor<4xf16>\n}\n"),
    ("i8", (4,), "func.func @f(%x: tensor<4xi8>) -> tensor<4xi8> {\n  return %x : tensor<4xi8>\n}\n"),
    ("i32", (), "func.func @f(%x: i32) -> i32 {\n  %y = arith.addi %x, %x : i32\n  return %y : i32\n}\n"),
    ("i64", (3,), "func.func @f(%x: tensor<3xi64>) -> tensor<3xi64> {\n  return %x : tensor<3xi64>\n}\n"),
    ("i1", (4,), "func.func @f(%x: tensor<4xi1>) -> tensor<4xi1> {\n  return %x : tensor<4xi1>\n}\n"),
    ("f32", (1, 2, 4, 4), "func.func @f(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {\n  %y = graph.sigmoid %x : tensor<1x2x4x4xf32>\n  return %y : tensor<1x2x4x4xf32>\n}\n"),
]


def gen_npy(rng, workdir):
    ety, shape, ir = rng.choice(NPY_FUNCS)
    with open(os.path.join(workdir, "f.mlir"), "w") as f:
        f.write(ir)
    data, how = npy_case(rng, ety, shape)
    with open(os.path.join(workdir, "x.npy"), "wb") as f:
        f.write(data)
    src = "x.npy"
    r = rng.random()
    if r < 0.04:
        src = rng.choice(["/dev/null", ".", "missing.npy", "", "/dev/full"])
        how = "file " + (src or "''")
    name = "0"
    if rng.random() < 0.12:
        name = rng.choice(["arg0", "%arg0", "1", "-1", "18446744073709551616", "x", "", "0x0", " 0", "arg", "%", "00"])
    argv = ["acc-run", "f.mlir", "--input", f"{name}={src}"]
    if rng.random() < 0.05:
        argv += ["--input", rng.choice(["0=x.npy", "=x.npy", "0=", "0", "="])]
    mode = rng.random()
    if mode < 0.3:
        argv += ["--mode", "jit", "--pipeline", "host-pipeline"]
    elif mode < 0.35:
        argv += ["--pass", "graph-to-tensor,bufferize"]
    outs = ["out.npy"]
    if rng.random() < 0.1:
        outs.append("out2.npy")  # more outputs than results: an error, nothing written
    for o in outs:
        argv += ["--output", o]
    if rng.random() < 0.1:
        argv.append(f"--max-memory={rng.choice(['1K', '64', '1G', '0', '16E', '8E'])}")
    return argv, outs, None, {"note": how}


# --- ONNX ------------------------------------------------------------------


def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def pb_int(field, v):
    return _varint(field << 3) + _varint(v)


def pb_bytes(field, b):
    if isinstance(b, str):
        b = b.encode()
    return _varint(field << 3 | 2) + _varint(len(b)) + b


def pb_float(field, f):
    return _varint(field << 3 | 5) + struct.pack("<f", f)


FLOAT, UINT8, INT8, INT32, INT64, BOOL, DOUBLE = 1, 2, 3, 6, 7, 9, 11


def onnx_tensor(name, dims, dtype=FLOAT, values=None, raw=None, extra=b""):
    b = b"".join(pb_int(1, d) for d in dims) + pb_int(2, dtype) + pb_bytes(8, name)
    if raw is None:
        code = {FLOAT: "f", INT64: "q", INT32: "i", DOUBLE: "d", INT8: "b", UINT8: "B", BOOL: "?"}.get(dtype, "f")
        vals = values if values is not None else [0] * max(0, math.prod(dims) if dims else 1)
        raw = struct.pack("<%d%s" % (len(vals), code), *vals)
    return b + pb_bytes(9, raw) + extra


def onnx_attr(name, v):
    b = pb_bytes(1, name)
    if isinstance(v, bool) or isinstance(v, int):
        return b + pb_int(3, int(v)) + pb_int(20, 2)
    if isinstance(v, float):
        return b + pb_float(2, v) + pb_int(20, 1)
    if isinstance(v, (str, bytes)):
        return b + pb_bytes(4, v) + pb_int(20, 3)
    if isinstance(v, tuple) and v and v[0] == "tensor":
        return b + pb_bytes(5, v[1]) + pb_int(20, 4)
    if isinstance(v, list) and v and all(isinstance(x, float) for x in v):
        return b + b"".join(pb_float(7, x) for x in v) + pb_int(20, 6)
    if isinstance(v, list):
        return b + b"".join(pb_int(8, x) for x in v) + pb_int(20, 7)
    raise ValueError(v)


def onnx_value_info(name, dtype=FLOAT, dims=None):
    tt = pb_int(1, dtype)
    if dims is not None:
        shape = b"".join(pb_bytes(1, pb_int(1, d) if isinstance(d, int) else pb_bytes(2, d)) for d in dims)
        tt += pb_bytes(2, shape)
    return pb_bytes(1, name) + pb_bytes(2, pb_bytes(1, tt))


def onnx_node(op, inputs, outputs, attrs=None, domain=None):
    b = b"".join(pb_bytes(1, i) for i in inputs) + b"".join(pb_bytes(2, o) for o in outputs)
    b += pb_bytes(3, f"{op}_0") + pb_bytes(4, op)
    for k, v in (attrs or {}).items():
        b += pb_bytes(5, onnx_attr(k, v))
    if domain is not None:
        b += pb_bytes(7, domain)
    return b


def onnx_model(nodes, inits=(), inputs=(), outputs=(("y", FLOAT, None),), opset=13, ir=8, domain=""):
    g = b"".join(pb_bytes(1, n) for n in nodes) + pb_bytes(2, "g")
    g += b"".join(pb_bytes(5, t) for t in inits)
    g += b"".join(pb_bytes(11, onnx_value_info(*i)) for i in inputs)
    g += b"".join(pb_bytes(12, onnx_value_info(*o)) for o in outputs)
    opset_b = (pb_bytes(1, domain) if domain else b"") + pb_int(2, opset)
    return pb_int(1, ir) + pb_bytes(2, "acc-hostile") + pb_bytes(7, g) + pb_bytes(8, opset_b)


def i64(name, vals):
    return onnx_tensor(name, [len(vals)], INT64, vals)


def f32(name, dims, vals=None):
    return onnx_tensor(name, dims, FLOAT, vals)


def absurd_model(rng):
    """A tiny ONNX model with an absurd attribute or shape; (bytes, description,
    whether it has graph inputs)."""
    big = rng.choice([2**40, 2**31, 10**9, -(2**40), 2**63 - 1, 100000, -1, 0])
    k = rng.randrange(30)
    if k == 0:
        m = onnx_model([onnx_node("Pad", ["x", "pads"], ["y"], {"mode": rng.choice(["constant", "reflect", "edge"])})], [f32("x", [1, 4]), i64("pads", [0, big, 0, big])])
        return m, f"Pad pads={big}", False
    if k == 1:
        s = rng.choice([1e9, 1e30, float("inf"), float("nan"), -1.0, 0.0, 1e-30])
        m = onnx_model([onnx_node("Resize", ["x", "", "scales"], ["y"], {"mode": rng.choice(["nearest", "linear", "cubic"])})], [f32("x", [1, 1, 2, 2]), f32("scales", [4], [1.0, 1.0, s, s])])
        return m, f"Resize scales={s}", False
    if k == 2:
        shape = rng.choice([[100000, 100000, 100000], [2**31] * 3, [-1], [0, 5], [2**62, 4], [10**18]])
        m = onnx_model([onnx_node("ConstantOfShape", ["shape"], ["y"], {"value": ("tensor", f32("v", [1], [1.0]))})], [i64("shape", shape)])
        return m, f"ConstantOfShape {shape}", False
    if k == 3:
        n = rng.choice([100000, 2**20, 46341])
        nodes = [
            onnx_node("ConstantOfShape", ["shape"], ["x"], {"value": ("tensor", f32("v", [1], [1.0]))}),
            onnx_node("Conv", ["x", "w"], ["y"], {"kernel_shape": [3, 3]}),
        ]
        m = onnx_model(nodes, [i64("shape", [1, 1, n, n]), f32("w", [1, 1, 3, 3])])
        return m, f"Conv on 1x1x{n}x{n}", False
    if k == 4:
        m = onnx_model([onnx_node("Conv", ["x", "w"], ["y"], {"kernel_shape": [3, 3]})], [f32("w", [1, 1, 3, 3])], inputs=[("x", FLOAT, [1, 1, 100000, 100000])])
        return m, "Conv input 1x1x100000x100000", True
    if k == 5:
        m = onnx_model([onnx_node("Expand", ["x", "shape"], ["y"])], [f32("x", [1]), i64("shape", [big, big])])
        return m, f"Expand to [{big}, {big}]", False
    if k == 6:
        shape = rng.choice([[-1, -1], [0, 2**40], [3], [-2], [2**62, 2**62], [0]])
        m = onnx_model([onnx_node("Reshape", ["x", "shape"], ["y"], {"allowzero": rng.randrange(2)})], [f32("x", [4]), i64("shape", shape)])
        return m, f"Reshape {shape}", False
    if k == 7:
        m = onnx_model([onnx_node("Tile", ["x", "r"], ["y"])], [f32("x", [2]), i64("r", [big])])
        return m, f"Tile repeats={big}", False
    if k == 8:
        lim, delta = rng.choice([(1e18, 1.0), (1e9, 1e-9), (10.0, 0.0), (float("inf"), 1.0), (float("nan"), 1.0), (-1e18, 1.0)])
        m = onnx_model([onnx_node("Range", ["s", "l", "d"], ["y"])], [f32("s", [], [0.0]), f32("l", [], [lim]), f32("d", [], [delta])])
        return m, f"Range limit={lim} delta={delta}", False
    if k == 9:
        m = onnx_model([onnx_node("OneHot", ["i", "depth", "v"], ["y"])], [i64("i", [1]), i64("depth", [big]), f32("v", [2], [0.0, 1.0])], opset=11)
        return m, f"OneHot depth={big}", False
    if k == 10:
        idx = rng.choice([100, -100, 2**62, -(2**63)])
        m = onnx_model([onnx_node(rng.choice(["Gather", "GatherElements"]), ["x", "i"], ["y"], {"axis": rng.choice([0, 5, -5])})], [f32("x", [4]), i64("i", [idx])])
        return m, f"Gather index={idx}", False
    if k == 11:
        step = rng.choice([0, 2**63 - 1, -(2**63)])
        axis = rng.choice([0, 99, -99])
        m = onnx_model([onnx_node("Slice", ["x", "s", "e", "a", "st"], ["y"])], [f32("x", [10]), i64("s", [0]), i64("e", [big]), i64("a", [axis]), i64("st", [step])])
        return m, f"Slice step={step} axis={axis}", False
    if k == 12:
        m = onnx_model([onnx_node("Split", ["x", "sp"], ["y", "z"], {"axis": 0})], [f32("x", [4]), i64("sp", [big, -big])], outputs=[("y", FLOAT, None), ("z", FLOAT, None)])
        return m, f"Split sizes={big},{-big}", False
    if k == 13:
        m = onnx_model([onnx_node("TopK", ["x", "k"], ["y", "i"])], [f32("x", [4]), i64("k", [big])], outputs=[("y", FLOAT, None), ("i", INT64, None)])
        return m, f"TopK k={big}", False
    if k == 14:
        ks = rng.choice([[100000, 100000], [0, 0], [-1, -1], [2**40, 1]])
        attrs = {"kernel_shape": ks}
        if rng.random() < 0.5:
            attrs["strides"] = rng.choice([[0, 0], [-1, 1], [2**40, 1]])
        if rng.random() < 0.3:
            attrs["pads"] = [big, big, big, big]
        if rng.random() < 0.3:
            attrs["dilations"] = rng.choice([[0, 0], [2**40, 1]])
        op = rng.choice(["MaxPool", "AveragePool", "LpPool"])
        m = onnx_model([onnx_node(op, ["x"], ["y"], attrs)], [f32("x", [1, 1, 4, 4])])
        return m, f"{op} {attrs}", False
    if k == 15:
        attrs = rng.choice([{"strides": [0, 0]}, {"group": 0}, {"group": -1}, {"dilations": [0, 0]}, {"pads": [big] * 4}, {"kernel_shape": [5, 5]}, {"auto_pad": "bogus"}])
        m = onnx_model([onnx_node("Conv", ["x", "w"], ["y"], attrs)], [f32("x", [1, 1, 4, 4]), f32("w", [1, 1, 3, 3])])
        return m, f"Conv {attrs}", False
    if k == 16:
        perm = rng.choice([[5, 5], [0, 0], [-1, 0], [1], [0, 1, 2]])
        m = onnx_model([onnx_node("Transpose", ["x"], ["y"], {"perm": perm})], [f32("x", [2, 3])])
        return m, f"Transpose perm={perm}", False
    if k == 17:
        axis = rng.choice([100, -100, 2**62])
        m = onnx_model([onnx_node(rng.choice(["Concat", "Softmax", "Flatten", "CumSum", "ArgMax", "LogSoftmax"]), ["x", "x"], ["y"], {"axis": axis})], [f32("x", [2, 3])])
        return m, f"axis={axis}", False
    if k == 18:
        to = rng.choice([999, 0, -1, 8, 16, 2**40])
        m = onnx_model([onnx_node("Cast", ["x"], ["y"], {"to": to})], [f32("x", [2])])
        return m, f"Cast to={to}", False
    if k == 19:
        m = onnx_model([onnx_node("Add", ["y", "x"], ["y"])], [f32("x", [2])])
        return m, "cycle", False
    if k == 20:
        m = onnx_model([onnx_node("Relu", ["nowhere"], ["y"])], [])
        return m, "undefined input", False
    if k == 21:
        dims, dtype = rng.choice([([100000, 100000], FLOAT), ([-1], FLOAT), ([4], 999), ([4], 8), ([2**62, 4], FLOAT), ([4], 0)])
        t = onnx_tensor("x", dims, dtype, raw=b"\x00\x00\x80\x3f")
        m = onnx_model([onnx_node("Relu", ["x"], ["y"])], [t])
        return m, f"initializer dims={dims} type={dtype}", False
    if k == 22:
        loc = rng.choice(["/etc/passwd", "../../../../etc/passwd", "missing.bin", "", "/dev/zero"])
        ext = pb_bytes(13, pb_bytes(1, "location") + pb_bytes(2, loc)) + pb_int(14, 1)
        t = onnx_tensor("x", [4], FLOAT, raw=b"", extra=ext)
        m = onnx_model([onnx_node("Relu", ["x"], ["y"])], [t])
        return m, f"external data {loc}", False
    if k == 23:
        opset, dom = rng.choice([(1, ""), (100000, ""), (2**63 - 1, ""), (13, "com.evil"), (-1, "")])
        m = onnx_model([onnx_node("Relu", ["x"], ["y"])], [f32("x", [2])], opset=opset, domain=dom, ir=rng.choice([8, 0, 2**40]))
        return m, f"opset {opset} {dom}", False
    if k == 24:
        n = rng.choice([1000, 10000])
        m = onnx_model([onnx_node("Sum", ["x"] * n, ["y"])], [f32("x", [2])])
        return m, f"Sum of {n} inputs", False
    if k == 25:
        n = rng.choice([5000, 20000])
        nodes = [onnx_node("Relu", [f"v{i}" if i else "x"], [f"v{i + 1}" if i + 1 < n else "y"]) for i in range(n)]
        m = onnx_model(nodes, [f32("x", [2])])
        return m, f"{n} Relu nodes", False
    if k == 26:
        eq = rng.choice(["ab,bc->", "a->aa", "...,...->...", "ab" * 500 + "->", "a,b->c", "", "->", "aa->a"])
        m = onnx_model([onnx_node("Einsum", ["x", "x"], ["y"], {"equation": eq})], [f32("x", [2, 2])], opset=12)
        return m, f"Einsum '{eq[:20]}'", False
    if k == 27:
        hs = rng.choice([2**40, 0, -1, 100000])
        m = onnx_model([onnx_node("LSTM", ["x", "w", "r"], ["y"], {"hidden_size": hs})], [f32("x", [1, 1, 2]), f32("w", [1, 8, 2]), f32("r", [1, 8, 2])])
        return m, f"LSTM hidden_size={hs}", False
    if k == 28:
        bs = rng.choice([0, -1, 2**40, 3])
        m = onnx_model([onnx_node(rng.choice(["DepthToSpace", "SpaceToDepth"]), ["x"], ["y"], {"blocksize": bs})], [f32("x", [1, 4, 2, 2])])
        return m, f"blocksize={bs}", False
    # Attributes of the wrong type.
    attrs = rng.choice([{"kernel_shape": 3.5}, {"kernel_shape": "3"}, {"pads": [1.0, 2.0]}, {"strides": 2}])
    m = onnx_model([onnx_node("MaxPool", ["x"], ["y"], attrs)], [f32("x", [1, 1, 4, 4])])
    return m, f"MaxPool {attrs}", False


def pb_read_varint(b: bytes, i: int):
    shift = n = 0
    while True:
        if i >= len(b) or shift > 63:
            raise ValueError("bad varint")
        c = b[i]
        i += 1
        n |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            return n, i


def pb_parse(b: bytes) -> list:
    """The fields of a protobuf message: [field, wire type, value (int or bytes)]."""
    out, i = [], 0
    while i < len(b):
        key, i = pb_read_varint(b, i)
        f, wt = key >> 3, key & 7
        if wt == 0:
            v, i = pb_read_varint(b, i)
        elif wt == 1:
            v, i = b[i : i + 8], i + 8
        elif wt == 2:
            n, i = pb_read_varint(b, i)
            v, i = b[i : i + n], i + n
        elif wt == 5:
            v, i = b[i : i + 4], i + 4
        else:
            raise ValueError("bad wire type")
        if i > len(b) or f == 0:
            raise ValueError("truncated")
        out.append([f, wt, v])
    return out


def pb_encode(fields: list) -> bytes:
    out = bytearray()
    for f, wt, v in fields:
        out += _varint(f << 3 | wt)
        if wt == 0:
            out += _varint(v)
        elif wt == 2:
            out += _varint(len(v)) + v
        else:
            out += v
    return bytes(out)


# Where the numbers of an ONNX model are (field numbers of onnx.proto).
_DIM = {1: "int"}
_SHAPE = {1: _DIM}
_TTENSOR = {1: "int", 2: _SHAPE}
_TYPE = {1: _TTENSOR}
_VALUEINFO = {2: _TYPE}
_TENSOR = {1: "int", 2: "int", 9: "raw"}
_ATTR = {2: "float", 3: "int", 7: "float", 8: "int", 5: _TENSOR, 20: "int"}
_NODE = {5: _ATTR}
_GRAPH = {1: _NODE, 5: _TENSOR, 11: _VALUEINFO, 12: _VALUEINFO, 13: _VALUEINFO}
_OPSET = {2: "int"}
_MODEL = {7: _GRAPH, 8: _OPSET, 1: "int"}


def _sites(fields, schema, path, out, depth=0):
    for k, (f, wt, v) in enumerate(fields):
        kind = schema.get(f)
        if kind is None:
            continue
        if isinstance(kind, dict):
            if wt == 2 and depth < 8:
                try:
                    sub = pb_parse(v)
                except ValueError:
                    continue
                _sites(sub, kind, path + [k], out, depth + 1)
        elif kind == "int" and wt in (0, 2):
            out.append((path + [k], "int"))
        elif kind == "float" and wt in (5, 2):
            out.append((path + [k], "float"))
        elif kind == "raw" and wt == 2:
            out.append((path + [k], "raw"))


def mutate_onnx_numbers(rng, data: bytes):
    """The model with one of its numbers (a dimension, an attribute, a data type, the
    opset) made absurd, the protobuf still well formed; None when it does not parse."""
    try:
        top = pb_parse(data)
    except ValueError:
        return None
    sites = []
    _sites(top, _MODEL, [], sites)
    if not sites:
        return None
    path, kind = rng.choice(sites)

    def rewrite(fields, path):
        k = path[0]
        f, wt, v = fields[k]
        if len(path) > 1:
            sub = pb_parse(v)
            fields[k] = [f, wt, pb_encode(rewrite(sub, path[1:]))]
            return fields
        if kind == "int":
            new = rng.choice([-1, 0, 1, 2**31, 2**32, 2**40, 2**62, 2**63 - 1, -(2**63), 100000, 999])
            if wt == 0:
                fields[k] = [f, 0, new]
            else:  # packed: one element changed
                vals, i = [], 0
                while i < len(v):
                    x, i = pb_read_varint(v, i)
                    vals.append(x)
                if vals:
                    vals[rng.randrange(len(vals))] = new
                fields[k] = [f, 2, b"".join(_varint(x) for x in vals)]
        elif kind == "float":
            new = struct.pack("<f", rng.choice([1e30, -1e30, float("nan"), float("inf"), 0.0, -1.0, 1e-45]))
            if wt == 5:
                fields[k] = [f, 5, new]
            elif len(v) >= 4:
                j = rng.randrange(len(v) // 4) * 4
                fields[k] = [f, 2, v[:j] + new + v[j + 4 :]]
        else:  # raw data: shorter, longer or empty
            fields[k] = [f, 2, rng.choice([b"", v[: len(v) // 2], v + v, v[:1]])]
        return fields

    return pb_encode(rewrite(top, path)), f"{kind} at {'/'.join(map(str, path))}"


def mutate_onnx(rng, data: bytes) -> tuple:
    if rng.random() < 0.5:
        m = mutate_onnx_numbers(rng, data)
        if m:
            return m
    r = rng.randrange(6)
    if r == 0:
        return byte_flips(rng, data, rng.randint(1, 20)), "flip"
    if r == 1:
        return truncate(rng, data), "truncate"
    if r == 2:
        b = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(b))
            b[i : i + 5] = b"\xff\xff\xff\xff\x0f"  # a huge varint (a length, a dim)
        return bytes(b), "varint"
    if r == 3:
        i = rng.randrange(len(data))
        j = min(len(data), i + rng.randint(1, 200))
        return data[:j] + data[i:j] * rng.randint(1, 5) + data[j:], "dup"
    if r == 4:
        i = rng.randrange(len(data))
        return data[:i] + bytes(rng.randrange(256) for _ in range(rng.randint(1, 30))) + data[i:], "insert"
    b = bytearray(data)
    i = rng.randrange(len(b))
    for j in range(i, min(len(b), i + rng.randint(1, 64))):
        b[j] = 0
    return bytes(b), "zeros"


def gen_onnx(rng, workdir):
    e = ENV
    if rng.random() < 0.55 and e.onnx_models:
        # Prefer the small models: the interpreter runs some.
        models = [m for m in e.onnx_models if os.path.getsize(m) < 20000] or e.onnx_models
        src = rng.choice(models if rng.random() < 0.85 else e.onnx_models)
        data, how = mutate_onnx(rng, open(src, "rb").read())
        with open(os.path.join(workdir, "model.onnx"), "wb") as f:
            f.write(data)
        note = f"{rel(src)} {how}"
        inputs = e.onnx_inputs.get(src, [])
        if rng.random() < 0.3 and inputs and os.path.getsize(src) < 20000:
            argv = ["acc-run", "model.onnx"]
            for i, p in enumerate(inputs):
                argv += ["--input", f"{i}={p}"]
            argv += ["--output", "out.npy"]
            return argv, [], None, {"note": note}
        argv = ["acc-translate", "--import-onnx", "model.onnx", "-o", "out.mlir"]
        return argv, ["out.mlir"], None, {"note": note}
    data, how, has_inputs = absurd_model(rng)
    with open(os.path.join(workdir, "model.onnx"), "wb") as f:
        f.write(data)
    if has_inputs or rng.random() < 0.35:
        argv = ["acc-translate", "--import-onnx", "model.onnx", "-o", "out.mlir"]
        return argv, ["out.mlir"], None, {"note": how}
    argv = ["acc-run", "model.onnx"]
    if rng.random() < 0.3:
        argv += ["--mode", "jit", "--pipeline", "host-pipeline"]
    elif rng.random() < 0.2:
        argv += ["--pipeline", "host-pipeline"]
    return argv, [], None, {"note": how}


# --- Generated IR ----------------------------------------------------------


def ir_deep_loops(depth: int, trip: int) -> str:
    out = [
        "func.func @main() -> f32 {",
        " %c0 = arith.constant 0 : index",
        f" %ct = arith.constant {trip} : index",
        " %c1 = arith.constant 1 : index",
        " %f = arith.constant 1.0 : f32",
    ]
    prev = "%f"
    for i in range(depth):
        out.append(f"%r{i} = loop.for %k{i} = %c0 to %ct step %c1 iter_args(%a{i} = {prev}) -> (f32) {{")
        prev = f"%a{i}"
    out.append(f"%s = arith.addf {prev}, {prev} : f32")
    out.append("loop.yield %s : f32")
    for i in reversed(range(depth)):
        out.append("}")
        if i > 0:
            out.append(f"loop.yield %r{i} : f32")
    out.append(" return %r0 : f32")
    out.append("}")
    return "\n".join(out) + "\n"


def ir_deep_regions(depth: int) -> str:
    out = ["func.func @main() {", " %c0 = arith.constant 0 : index", " %c1 = arith.constant 1 : index"]
    out += [f"loop.for %k{i} = %c0 to %c1 step %c1 {{" for i in range(depth)]
    out += ["loop.yield", "}"] * depth
    out += [" return", "}"]
    return "\n".join(out) + "\n"


def ir_br_chain(rng, n: int) -> str:
    blocks = []
    for i in range(1, n + 1):
        if i < n:
            if rng.random() < 0.2 and i > 2:
                back = rng.randrange(1, i)
                # %c is false: the back edge is never taken.
                term = f"cf.cond_br %c, ^bb{back}(%v{i} : i32), ^bb{i + 1}(%v{i} : i32)"
            else:
                term = f"cf.br ^bb{i + 1}(%v{i} : i32)"
        else:
            term = f"return %v{i} : i32"
        blocks.append(f"^bb{i}(%v{i}: i32):\n  {term}")
    if rng.random() < 0.5:
        rng.shuffle(blocks)
    return "func.func @main() -> i32 {\n  %x = arith.constant 1 : i32\n  %c = arith.constant false\n  cf.br ^bb1(%x : i32)\n" + "\n".join(blocks) + "\n}\n"


def ir_many_args(n: int, call: bool) -> str:
    params = ", ".join(f"%a{i}: i32" for i in range(n))
    callee = f"func.func @wide({params}) -> i32 {{\n  return %a{n - 1} : i32\n}}\n"
    if not call:
        return callee
    operands = ", ".join(["%x"] * n)
    types = ", ".join(["i32"] * n)
    return f"func.func @main() -> i32 {{\n  %x = arith.constant 3 : i32\n  %r = func.call @wide({operands}) : ({types}) -> i32\n  return %r : i32\n}}\n" + callee


def ir_call_chain(n: int, recursive: bool) -> str:
    if recursive:
        return (
            "func.func @main() -> i32 {\n  %x = arith.constant 1 : i32\n  %r = func.call @f(%x) : (i32) -> i32\n  return %r : i32\n}\n"
            "func.func @f(%x: i32) -> i32 {\n  %y = arith.addi %x, %x : i32\n  %r = func.call @f(%y) : (i32) -> i32\n  return %r : i32\n}\n"
        )
    out = ["func.func @main() -> i32 {\n  %x = arith.constant 1 : i32\n  %r = func.call @f0(%x) : (i32) -> i32\n  return %r : i32\n}"]
    for i in range(n):
        if i + 1 < n:
            out.append(f"func.func @f{i}(%x: i32) -> i32 {{\n  %y = arith.addi %x, %x : i32\n  %r = func.call @f{i + 1}(%y) : (i32) -> i32\n  return %r : i32\n}}")
        else:
            out.append(f"func.func @f{i}(%x: i32) -> i32 {{\n  return %x : i32\n}}")
    return "\n".join(out) + "\n"


def ir_loop_bounds(lb, ub, st) -> str:
    return (
        "func.func @main() -> f32 {\n"
        "  %f = arith.constant 1.0 : f32\n"
        f"  %lb = arith.constant {lb} : index\n"
        f"  %ub = arith.constant {ub} : index\n"
        f"  %st = arith.constant {st} : index\n"
        "  %r = loop.for %k = %lb to %ub step %st iter_args(%a = %f) -> (f32) {\n"
        "    %b = arith.addf %a, %a : f32\n"
        "    loop.yield %b : f32\n"
        "  }\n"
        "  return %r : f32\n"
        "}\n"
    )


def ir_parallel_bounds(lb, ub, st) -> str:
    return (
        "func.func @main() {\n"
        "  %f = arith.constant 1.0 : f32\n"
        f"  %lb = arith.constant {lb} : index\n"
        f"  %ub = arith.constant {ub} : index\n"
        f"  %st = arith.constant {st} : index\n"
        "  loop.parallel (%k) = (%lb) to (%ub) step (%st) {\n"
        "    %b = arith.addf %f, %f : f32\n"
        "    loop.yield\n"
        "  }\n"
        "  return\n"
        "}\n"
    )


def ir_high_rank(rank: int) -> str:
    t = "tensor<" + "x".join(["2"] * min(rank, 3) + ["1"] * max(rank - 3, 0)) + "xf32>"
    axes = ", ".join(str(i) for i in range(rank))
    return (
        f"func.func @main(%x: {t}) -> tensor<f32> {{\n"
        f"  %s = graph.reduce_sum %x {{axes = array<i64: {axes}>, keepdims = false}} : ({t}) -> tensor<f32>\n"
        "  return %s : tensor<f32>\n"
        "}\n"
    )


def ir_big_tensor(shape: str, op: str) -> str:
    t = f"tensor<{shape}xf32>"
    body = f"  %c = arith.constant dense<1.0> : {t}\n"
    if op == "add":
        body += f"  %d = graph.add %c, %c : ({t}, {t}) -> {t}\n"
    elif op == "relu":
        body += f"  %d = graph.relu %c : {t}\n"
    else:
        body += f"  %d = graph.sigmoid %c : {t}\n"
    return f"func.func @main() -> {t} {{\n{body}  return %d : {t}\n}}\n"


def ir_long_chain(n: int) -> str:
    out = ["func.func @main() -> i32 {", "  %v0 = arith.constant 1 : i32"]
    for i in range(1, n + 1):
        out.append(f"  %v{i} = arith.addi %v{i - 1}, %v0 : i32")
    out += [f"  return %v{n} : i32", "}"]
    return "\n".join(out) + "\n"


def ir_big_literal(n: int) -> str:
    vals = ", ".join("1.5" for _ in range(n))
    return f"func.func @main() -> tensor<{n}xf32> {{\n  %c = arith.constant dense<[{vals}]> : tensor<{n}xf32>\n  %d = graph.relu %c : tensor<{n}xf32>\n  return %d : tensor<{n}xf32>\n}}\n"


def stress_command(rng, modes=("interp", "jit", "opt"), lowered=False):
    m = rng.choice(modes)
    if m == "interp":
        return ["acc-run", "s.mlir"], "interp"
    if m == "jit":
        argv = ["acc-run", "s.mlir", "--mode", "jit"]
        if not lowered:
            argv += ["--pipeline", "host-pipeline"]
        return argv, "jit"
    if m == "opt":
        return ["acc-opt", "s.mlir", "--check-semantics", "--pass", "canonicalize", "-o", "out.mlir"], "opt"
    if m == "print":
        return ["acc-opt", "s.mlir", rng.choice(["--print-generic", "--verify-each", "--print-debuginfo"]), "-o", "out.mlir"], "print"
    if m == "passes":
        return ["acc-opt", "s.mlir", "--pass", rng.choice(["cse", "inline", "canonicalize,cse", "unroll", "symbol-dce", "dce", "fold"]), "-o", "out.mlir"], "passes"
    if m == "emit-c":
        return ["acc-translate", "--emit-c", "s.mlir", "-o", "c"], "emit-c"
    return ["acc-translate", "--emit-object", "s.mlir", "--target", "x86_64", "-o", "s.o"], "emit-object"


def gen_stress(rng, workdir):
    k = rng.randrange(11)
    if k == 0:
        depth = rng.choice((50, 200, 1000, 5000))
        argv, m = stress_command(rng, ("interp", "jit", "opt", "print", "passes", "emit-c"), lowered=True)
        # Two iterations a level is 2^depth in all: the interpreter must refuse it;
        # native code would run it (so jit gets one or none).
        trip = rng.choice((0, 1)) if m == "jit" else rng.choice((0, 1, 2, 2))
        text = ir_deep_loops(depth, trip)
        note = f"nested loop.for depth={depth} trip={trip}"
    elif k == 1:
        depth = rng.choice((50, 1000, 5000, 20000))
        text = ir_deep_regions(depth)
        argv, m = stress_command(rng, ("interp", "opt", "print", "passes", "jit"), lowered=True)
        note = f"nested empty loop.for depth={depth}"
    elif k == 2:
        n = rng.choice((20000, 35000, 50000))
        text = ir_br_chain(rng, n)
        argv, m = stress_command(rng, ("interp", "jit", "opt", "print", "passes", "emit-object"), lowered=True)
        note = f"cf.br chain of {n} blocks"
    elif k == 3:
        n = rng.choice((10000, 100000))
        call = rng.random() < 0.6
        text = ir_many_args(n, call)
        argv, m = stress_command(rng, ("interp", "jit", "opt", "print", "passes", "emit-object"), lowered=True)
        note = f"function of {n} arguments" + (" called" if call else "")
    elif k == 4:
        recursive = rng.random() < 0.3
        n = rng.choice((3000, 3000, 10000))
        text = ir_call_chain(n, recursive)
        # Native code runs what it is given: a self-recursive function overflows its
        # stack as a C program would (the interpreter bounds the depth); not a case.
        modes = ("interp", "opt", "passes") if recursive else ("interp", "jit", "opt", "passes")
        argv, m = stress_command(rng, modes, lowered=True)
        if m == "passes" and rng.random() < 0.5:
            argv[3] = f"inline{{max-rounds={rng.choice(['8', '100', '100000', str(2**63)])}}}"
        note = "self-recursive call" if recursive else f"call chain {n} deep"
    elif k in (5, 9):
        lb, ub, st = rng.choice(
            [
                (0, 10, 0),
                (0, 10, -1),
                (10, 0, -1),
                (0, 2**62, 1),
                (0, 2**63 - 1, 1),
                (-(2**63), 2**63 - 1, 1),
                (0, 10, 2**63 - 1),
                (2**63 - 8, 2**63 - 1, 5),
                (0, 1000000000000000, 1),
                (-(2**63), 0, 2**62),
                (5, 5, 0),
            ]
        )
        text = ir_loop_bounds(lb, ub, st) if k == 5 else ir_parallel_bounds(lb, ub, st)
        # Native code runs a loop of 10^15 trips as a C program would: only loops of a
        # bounded trip count (or none) go to the JIT.
        long_run = st > 0 and ub > lb and (ub - lb) // st > 10**7
        modes = ("interp", "interp", "opt", "passes", "emit-c") if long_run else ("interp", "interp", "jit", "opt", "passes", "emit-c")
        argv, m = stress_command(rng, modes, lowered=True)
        if m == "passes":
            argv[3] = rng.choice(["unroll", "canonicalize", f"unroll{{max-trip={rng.choice(HUGE)} max-ops={rng.choice(HUGE)}}}"])
        note = f"{'loop.for' if k == 5 else 'loop.parallel'} {lb} to {ub} step {st}"
    elif k == 10:
        rank = rng.choice((64, 65, 3000, 20000, 60000))
        text = ir_high_rank(rank)
        argv, m = stress_command(rng, ("interp", "opt", "print", "passes"))
        if m == "passes":
            argv[3] = rng.choice(["graph-to-tensor,bufferize", "host-pipeline", "canonicalize"])
        note = f"a reduction over {rank} dimensions"
    elif k == 6:
        shape = rng.choice(["100000x100000", "1x1x100000x100000", f"{2**31}x{2**31}", f"{2**32}x{2**32}x16", f"{2**63 - 1}", "65536x65536", "46341x46341"])
        text = ir_big_tensor(shape, rng.choice(["add", "relu", "sigmoid"]))
        argv, m = stress_command(rng, ("interp", "jit", "opt", "print", "passes"))
        if m == "passes":
            argv[3] = rng.choice(["fold", "graph-to-tensor,bufferize", "host-pipeline", "canonicalize"])
        note = f"splat tensor<{shape}xf32>"
        if rng.random() < 0.2:
            argv.append(f"--max-memory={rng.choice(['1K', '16E', '0', '100G'])}")
    elif k == 7:
        n = rng.choice((20000, 50000, 100000))
        text = ir_long_chain(n)
        argv, m = stress_command(rng, ("interp", "jit", "opt", "passes", "print", "emit-object"), lowered=True)
        note = f"straight line of {n} dependent ops"
    else:
        n = rng.choice((100000, 300000))
        text = ir_big_literal(n)
        argv, m = stress_command(rng, ("interp", "opt", "passes", "print"))
        note = f"dense literal of {n} elements"
    with open(os.path.join(workdir, "s.mlir"), "w") as f:
        f.write(text)
    outs = []
    if "-o" in argv:
        outs.append(argv[argv.index("-o") + 1])
    return argv, outs, None, {"note": f"{note} [{m}]"}


# --- Hostile destinations --------------------------------------------------

VALID_IR = NPY_FUNCS[0][2]
LOOP_IR = """func.func @f(%x: memref<4xf32>, %y: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  loop.for %i = %c0 to %c4 step %c1 {
    %v = loop.load %x[%i] : memref<4xf32>
    %w = arith.addf %v, %v : f32
    loop.store %w, %y[%i] : memref<4xf32>
    loop.yield
  }
  return
}
"""


def hostile_destination(rng, workdir, kind_pool):
    """Prepares a destination in `workdir`; (path, description, extra paths to watch)."""
    kind = rng.choice(kind_pool)
    w = lambda *p: os.path.join(workdir, *p)  # noqa: E731
    if kind == "missing-dir":
        return "missing/dir/out", kind, ["missing"]
    if kind == "existing-dir":
        os.mkdir(w("d"))
        open(w("d", "keep.txt"), "w").write("keep\n")
        return "d", kind, []
    if kind == "readonly-file":
        open(w("ro"), "w").write("old contents\n")
        os.chmod(w("ro"), 0o444)
        return "ro", kind, []
    if kind == "readonly-dir":
        os.mkdir(w("rodir"))
        os.chmod(w("rodir"), 0o555)
        return "rodir/out", kind, ["rodir"]
    if kind == "dangling-link":
        os.symlink("target-file", w("link"))
        return "link", kind, ["target-file"]
    if kind == "link-into-missing":
        os.symlink("nowhere/target", w("link"))
        return "link", kind, ["nowhere"]
    if kind == "link-loop":
        os.symlink("b", w("a"))
        os.symlink("a", w("b"))
        return "a", kind, ["b"]
    if kind == "link-to-dir":
        os.mkdir(w("real"))
        os.symlink("real", w("link"))
        return "link", kind, ["real"]
    if kind == "file-as-dir":
        open(w("plain"), "w").write("x\n")
        return "plain/out", kind, ["plain"]
    if kind == "dev-full":
        return "/dev/full", kind, []
    if kind == "empty":
        return "", kind, []
    if kind == "trailing-slash":
        return "out/", kind, ["out"]
    if kind == "long-name":
        return "x" * 300, kind, []
    if kind == "existing-file":
        open(w("old"), "w").write("old contents\n")
        os.chmod(w("old"), 0o640)
        return "old", kind, []
    if kind == "same-as-input":
        return "in.mlir", kind, []
    if kind == "dot":
        return ".", kind, []
    return "out", "plain", []


DEST_KINDS = [
    "missing-dir", "existing-dir", "readonly-file", "readonly-dir", "dangling-link", "link-into-missing",
    "link-loop", "link-to-dir", "file-as-dir", "dev-full", "empty", "trailing-slash", "long-name",
    "existing-file", "same-as-input", "dot", "plain",
]


def gen_outputs(rng, workdir):
    kinds = [k for k in DEST_KINDS if not (ENV.euid == 0 and k.startswith("readonly"))]
    with open(os.path.join(workdir, "in.mlir"), "w") as f:
        f.write(VALID_IR)
    with open(os.path.join(workdir, "loops.mlir"), "w") as f:
        f.write(LOOP_IR)
    with open(os.path.join(workdir, "x.npy"), "wb") as f:
        f.write(npy_header("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }") + struct.pack("<4f", 1, -2, 3, -4))
    dest, kind, watch = hostile_destination(rng, workdir, kinds)
    # What the run must leave alone when it fails, and produce when it succeeds.
    local = dest and not dest.startswith("/") and dest != "."
    outs = [dest] if local and kind not in ("dot",) else []
    r = rng.randrange(8)
    if r == 0:
        argv = ["acc-opt", "in.mlir", "-o", dest]
        what = "acc-opt -o"
    elif r == 1:
        argv = ["acc-translate", "--emit-c", "loops.mlir", "-o", dest]
        what = "emit-c -o"
    elif r == 2:
        # The object goes to a plain path; the header to the hostile one.
        argv = ["acc-translate", "--emit-object", "loops.mlir", "--target", rng.choice(["x86_64", "aarch64", "riscv64"]), "-o", "k.o", "--header", dest]
        outs = outs + ["k.o"]
        what = "emit-object --header"
    elif r == 3:
        argv = ["acc-translate", "--emit-object", "loops.mlir", "--target", "x86_64", "-o", dest]
        what = "emit-object -o"
    elif r == 4:
        argv = ["acc-run", "in.mlir", "--input", "0=x.npy", "--output", dest]
        what = "acc-run --output"
    elif r == 5:
        # Two outputs, one hostile: all or nothing.
        first = rng.random() < 0.5
        pair = ["good.npy", dest] if first else [dest, "good.npy"]
        argv = ["acc-run", "f2.mlir", "--input", "0=x.npy", "--output", pair[0], "--output", pair[1]]
        with open(os.path.join(workdir, "f2.mlir"), "w") as f:
            f.write(
                "func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {\n"
                "  %y = graph.relu %x : tensor<4xf32>\n  return %y, %x : tensor<4xf32>, tensor<4xf32>\n}\n"
            )
        outs = outs + ["good.npy"]
        what = "acc-run two --output"
    elif r == 6:
        argv = ["acc-opt", "in.mlir", f"--view-graph={dest}", "-o", "out.mlir"]
        outs = ["out.mlir"]
        watch = watch + ([dest] if local else [])
        what = "acc-opt --view-graph=FILE"
    else:
        argv = ["acc-translate", "--import-onnx", os.path.join(REPO, "examples/onnx/mlp.onnx"), "-o", dest]
        what = "import-onnx -o"
    extra = {"note": f"{what} {kind}", "watch": watch}
    if rng.random() < 0.08:
        # Standard output that cannot be written.
        extra["stdout"] = "/dev/full"
        if argv[0] == "acc-opt":
            argv = [a for a in argv]
            i = argv.index("-o")
            argv[i : i + 2] = []
            outs = [o for o in outs if o != dest]
        extra["note"] += " stdout=/dev/full"
    return argv, outs, None, extra


# --- REPL ------------------------------------------------------------------


def repl_line(rng, workdir) -> str:
    r = rng.randrange(100)
    if r < 14:
        return ":load " + rng.choice(["in.mlir", "bad.mlir", "missing.mlir", ".", "/dev/null", "", rng.choice(ENV.lit_files), "in.mlir in.mlir"])
    if r < 34:
        return ":pass " + (pass_list(rng, workdir, 3) if rng.random() < 0.85 else rng.choice(["", "{", "}", "cse{", ",,,"]))
    if r < 39:
        return ":pipeline " + broken_pipeline(rng)
    if r < 50:
        return rng.choice([":undo", ":undo", ":u", ":redo", ":red"])
    if r < 56:
        return ":diff"
    if r < 62:
        return rng.choice([":print", ":generic", ":p", ":g"])
    if r < 66:
        return ":verify"
    if r < 70:
        return ":ops " + rng.choice(["", "graph", "loop.", "zzz", "%", "(", "a" * 1000])
    if r < 74:
        return ":suggest"
    if r < 76:
        return rng.choice([":passes", ":help", ":h", ":", ":: ", ":quit extra", ":load", ":pass"])
    if r < 82:
        return rng.choice(["garbage", ":bogus", "}}}", "{{{", "((((", "%x = ", "\t", "'", '"', "\\", ":" * 100, "x" * 100000])
    if r < 86:
        return rng.choice(["{", "func.func @g() {", "(", "[", "<", "module {"])  # unbalanced: a continuation
    if r < 94:
        return rng.choice(
            [
                "func.func @g(%a: i32) -> i32 {\n  %b = arith.addi %a, %a : i32\n  return %b : i32\n}",
                "%x = arith.constant 1 : i32",
                "return",
                "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> { return %x : tensor<4xf32> }",
                "module {}",
                '"test.op"() : () -> ()',
            ]
        )
    if r < 97:
        return bytes(rng.randrange(256) for _ in range(rng.randint(1, 30))).decode("latin-1")
    return ":quit"


def gen_repl(rng, workdir):
    with open(os.path.join(workdir, "in.mlir"), "w") as f:
        f.write(VALID_IR if rng.random() < 0.5 else open(rng.choice(ENV.lit_files), encoding="utf-8", errors="replace").read())
    with open(os.path.join(workdir, "bad.mlir"), "wb") as f:
        f.write(mutate_ir(rng, open(rng.choice(ENV.lit_files), "rb").read())[0])
    write_bad_npy(rng, workdir)
    lines = [":load in.mlir"] if rng.random() < 0.7 else []
    lines += [repl_line(rng, workdir) for _ in range(rng.randint(1, 25))]
    script = "\n".join(lines) + ("\n" if rng.random() < 0.8 else "")
    # Raw bytes (not always UTF-8) half the time.
    data = script.encode("latin-1", "replace") if rng.random() < 0.5 else script.encode("utf-8", "replace")
    argv = ["acc-repl"]
    if rng.random() < 0.3:
        argv.append("--echo")
    if rng.random() < 0.1:
        argv.append("--allow-unregistered-dialect")
    if rng.random() < 0.1:
        argv.append("in.mlir")
    stdin = None
    if rng.random() < 0.75:
        with open(os.path.join(workdir, "script.txt"), "wb") as f:
            f.write(data)
        argv += ["--script", "script.txt"]
    else:
        stdin = data
    return argv, [], stdin, {"strict": False, "note": f"{len(lines)} entries"}


# --- Option soup -----------------------------------------------------------

TOOL_FLAGS = {
    "acc-opt": [
        "-o", "--print-generic", "--print-debuginfo", "--elide-elementsattrs-if-larger", "--split-input-file",
        "--verify-diagnostics", "--allow-unregistered-dialect", "--no-verify", "--dialect", "--target", "--pass",
        "--pipeline", "--pass-pipeline", "--list-passes", "--list-pipelines", "--dump-pass-pipeline",
        "--print-ir-before", "--print-ir-after", "--print-ir-before-all", "--print-ir-after-all",
        "--print-ir-after-change", "--print-ir-after-failure", "--timing", "--remarks", "--view-graph",
        "--check-semantics", "--check-semantics-seed", "--threads", "--mlir-disable-threading", "--verify-each",
        "--help", "-h", "--cse", "--canonicalize", "--inline", "--mlir-print-local-scope",
    ],
    "acc-run": [
        "--pass", "--pipeline", "--entry", "--input", "--bind", "--output", "-o", "--mode", "--target", "--trace",
        "--repeat", "--threads", "--dialect", "--help",
    ],
    "acc-translate": [
        "--import-onnx", "--emit-object", "--emit-c", "--target", "--header", "-o", "--output", "--function",
        "--bind", "--print-generic", "--help",
    ],
    "acc-repl": ["--script", "--dialect", "--target", "--echo", "--allow-unregistered-dialect", "--help", "-h"],
}

SOUP_VALUES = [
    "", "-", "--", "0", "-1", "1", str(2**64), "x", "in.mlir", "missing.mlir", ".", "/dev/null", "in.npy",
    "0=in.npy", "=", "0=", "jit", "sim", "interp", "bogus", "x86_64", "host-pipeline", "cse", "{", "s.txt",
]


def soup_token(rng, tool, workdir):
    r = rng.randrange(100)
    flags = TOOL_FLAGS[tool]
    if r < 40:
        f = rng.choice(flags)
        s = rng.random()
        if s < 0.4:
            return [f, rng.choice(SOUP_VALUES)]
        if s < 0.6 and f.startswith("--"):
            return [f + "=" + rng.choice(SOUP_VALUES)]
        return [f]
    if r < 50:
        return ["--max-memory=" + rng.choice(["", "-1", "0", "1K", "1k", "1.5G", "abc", "99999999999999999999G", "16E", "17E", "18446744073709551615", "1e9", " 5M", "5MB", "0x10", "\uff11G", "1T", "1P", "8E", "9223372036854775807", "1 G", "G"])]
    if r < 56:
        return ["--diagnostics-format=" + rng.choice(["", "gnu", "GNU", "codespan", "json", "x" * 1000, "gnu,codespan"])]
    if r < 59:
        return rng.choice([["--max-memory"], ["--diagnostics-format"], ["--version"], ["-version"], ["--max-memory", "1K"]])
    if r < 68:
        return [rng.choice(["--bogus", "-", "--", "---", "-x", "--=", "=", "-o=", "--o", "-oout", "--pass=", "--PASS", "--help=maybe", "--list-passes=maybe", "-" * 1000, "--inptu", "--emit-cc"])]
    if r < 75:
        return [rng.choice(["", " ", "\t", "\n"])]
    if r < 80:
        return [rng.choice(["--" + "a" * 100000, "x" * 100000, "--pass=" + "cse," * 20000, "-o" + "y" * 5000, "--pass=" + "{" * 10000])]
    if r < 85:
        return [rng.choice([b"--\xff\xfe", b"\xc3\x28", b"in\xff.mlir", b"--pass=cse\xff", b"-o\x80"])]
    return [rng.choice(["in.mlir", "in.mlir", "missing.mlir", ".", "/dev/null", "-", "in.npy", "m.onnx", "s.txt"])]


def gen_cli(rng, workdir):
    tool = rng.choice(TOOLS)
    with open(os.path.join(workdir, "in.mlir"), "w") as f:
        f.write(VALID_IR)
    with open(os.path.join(workdir, "in.npy"), "wb") as f:
        f.write(npy_header("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }") + struct.pack("<4f", 1, 2, 3, 4))
    shutil.copy(os.path.join(REPO, "examples/onnx/mlp.onnx"), os.path.join(workdir, "m.onnx"))
    with open(os.path.join(workdir, "s.txt"), "w") as f:
        f.write(":load in.mlir\n:pass cse\n:print\n")
    argv = [tool]
    for _ in range(rng.randint(1, 7)):
        argv += soup_token(rng, tool, workdir)
    stdin = None
    if rng.random() < 0.5:
        stdin = rng.choice([VALID_IR.encode(), b"", b"\xff\xfe\x00garbage", b"func.func @f( {", b":print\n:quit\n"])
    watch = [a for i, a in enumerate(argv[1:]) if isinstance(a, str) and argv[i] in ("-o", "--output") and a and not a.startswith("/")]
    watch = [w for w in watch if not w.startswith("-") and len(w) < 255]
    return argv, [], stdin, {"watch": watch, "note": tool}


GENERATORS = {
    "ir": gen_ir,
    "pipeline": gen_pipeline,
    "target": gen_target,
    "npy": gen_npy,
    "onnx": gen_onnx,
    "stress": gen_stress,
    "outputs": gen_outputs,
    "repl": gen_repl,
    "cli": gen_cli,
}


# ---------------------------------------------------------------------------
# Reporting.
# ---------------------------------------------------------------------------


def first_lines(text: str, n=3) -> list:
    return [l[:200] for l in text.strip().splitlines()[:n]]


def signature(res: dict) -> str:
    """What tells one bad outcome from another: the class, the tool, and the panic
    location or the first line of the message, numbers and paths normalized."""
    cls, err = res["class"], res["stderr"]
    tool = res.get("tool", "?")
    if cls == "panic":
        m = re.search(r"panicked at ([^\n]*?):(\d+):\d+:?\s*\n?([^\n]*)", err)
        if m:
            msg = re.sub(r"\d+", "N", re.sub(r"\"[^\"]*\"|'[^']*'|`[^`]*`", "_", m.group(3)))[:80]
            return f"panic {tool} at {m.group(1)}:{m.group(2)}: {msg}"
        return f"panic {tool}: " + re.sub(r"\d+", "N", (err.strip().splitlines() or [""])[0])[:100]
    if cls == "abort":
        line = ""
        for l in err.splitlines():
            if any(m in l for m in ABORT_MARKERS) or "overflowed its stack" in l:
                line = l
                break
        line = re.sub(r"\d+", "N", line)[:100]
        return f"abort {tool} ({res['why']}) {line}".rstrip()
    if cls == "hang":
        return f"hang {tool} [{res['family']}] {re.sub(r'[0-9]+', 'N', res.get('note', ''))[:80]}"
    if cls == "partial":
        return f"partial {tool} [{res['family']}] {re.sub(r'[0-9]+', 'N', res['why'])[:100]}"
    if cls == "silent":
        return f"silent {tool} [{res['family']}] {res['why']}"
    if cls == "harness":
        last = [l for l in err.strip().splitlines() if l.strip()]
        return "harness " + (last[-1] if last else "")
    return f"{cls} {tool} {res['why']}"


def print_bad(res: dict, out) -> None:
    print(f"BAD {res['family']} #{res['idx']} {res['class']}: {res['why']}", file=out)
    print(f"    $ {res['cmd']}", file=out)
    if res.get("note"):
        print(f"    ({res['note']})", file=out)
    for l in first_lines(res["stderr"]):
        print(f"    | {l}", file=out)


def summary(results: list, families: list, elapsed: float, out) -> None:
    cols = [c for c in CLASSES if c != "harness" or any(r["class"] == "harness" for r in results)]
    width = max(8, max(len(f) for f in families))
    print(file=out)
    print("summary (cases by class):", file=out)
    head = f"{'family':<{width}} " + " ".join(f"{c:>7}" for c in cols) + f" {'total':>7} {'time s':>8}"
    print(head, file=out)
    print("-" * len(head), file=out)
    totals = {c: 0 for c in cols}
    for fam in families:
        rs = [r for r in results if r["family"] == fam]
        if not rs:
            continue
        counts = {c: sum(1 for r in rs if r["class"] == c) for c in cols}
        for c in cols:
            totals[c] += counts[c]
        t = sum(r["time"] for r in rs)
        print(f"{fam:<{width}} " + " ".join(f"{counts[c]:>7}" for c in cols) + f" {len(rs):>7} {t:>8.1f}", file=out)
    print("-" * len(head), file=out)
    print(f"{'all':<{width}} " + " ".join(f"{totals[c]:>7}" for c in cols) + f" {len(results):>7} {elapsed:>8.1f}", file=out)


def distinct(results: list, out) -> None:
    groups = {}
    for r in results:
        if r["class"] in BAD:
            groups.setdefault(signature(r), []).append(r)
    if not groups:
        return
    print(f"\ndistinct bad outcomes ({len(groups)}):", file=out)
    for sig, rs in sorted(groups.items(), key=lambda kv: (kv[0].split()[0], -len(kv[1]))):
        best = min(rs, key=lambda r: (len(r["cmd"]), r["idx"]))
        fams = sorted({r["family"] for r in rs})
        print(f"* {sig}", file=out)
        print(f"    {len(rs)} case(s) in {', '.join(fams)}; shortest: {best['family']} #{best['idx']}", file=out)
        print(f"    $ {best['cmd']}", file=out)
        if best.get("note"):
            print(f"    ({best['note']})", file=out)
        for l in first_lines(best["stderr"]):
            print(f"    | {l}", file=out)


# ---------------------------------------------------------------------------


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description="Hostile-input harness for acc's tools (see test/hostile/README.md).")
    p.add_argument("--cases", type=int, default=3000, help="number of cases (default 3000)")
    p.add_argument("--seed", type=int, default=0, help="case i draws from random.Random(seed + i) (default 0)")
    p.add_argument("--timeout", type=float, default=20.0, help="seconds before a case is a hang (default 20)")
    p.add_argument("--bin", default=os.path.join(REPO, "target", "release"), help="directory of acc-opt, acc-run, acc-translate, acc-repl (default target/release)")
    p.add_argument("--jobs", type=int, default=2, help="cases run at once (default 2)")
    p.add_argument("--keep", metavar="DIR", help="copy each bad case's directory here, with cmd.txt")
    p.add_argument("--family", nargs="+", choices=sorted(GENERATORS), metavar="NAME", help="only these families: " + ", ".join(GENERATORS))
    p.add_argument("--first", type=int, default=0, help="start at case index N (to rerun one case: --first N --cases 1)")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    args = p.parse_args(argv)
    if args.cases < 0 or args.jobs < 1 or args.timeout <= 0:
        p.error("--cases must be >= 0, --jobs >= 1 and --timeout > 0")
    ENV.families = list(args.family) if args.family else list(GENERATORS)
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    setup_env(args)
    out = sys.stdout
    print(
        f"run.py: {args.cases} cases from #{args.first}, seed {args.seed}, families {' '.join(ENV.families)}, "
        f"timeout {args.timeout:g} s, {args.jobs} jobs, tools from {ENV.bin_dir}",
        file=out,
        flush=True,
    )
    results = []
    start = time.monotonic()
    last = start
    ctx = multiprocessing.get_context("fork")
    try:
        with concurrent.futures.ProcessPoolExecutor(max_workers=args.jobs, mp_context=ctx) as ex:
            indices = range(args.first, args.first + args.cases)
            for res in ex.map(run_case, indices, chunksize=1):
                results.append(res)
                if res["class"] in BAD:
                    print_bad(res, out)
                    out.flush()
                now = time.monotonic()
                if not args.quiet and (now - last > 30 or len(results) == args.cases):
                    bad = sum(1 for r in results if r["class"] in BAD)
                    print(f"run.py: {len(results)}/{args.cases} cases, {bad} bad, {now - start:.0f} s", file=sys.stderr, flush=True)
                    last = now
    except KeyboardInterrupt:
        print("run.py: interrupted", file=sys.stderr)
    finally:
        elapsed = time.monotonic() - start
        shutil.rmtree(ENV.root, ignore_errors=True)
    summary(results, ENV.families, elapsed, out)
    distinct(results, out)
    bad = [r for r in results if r["class"] in BAD]
    print(f"\n{len(bad)} bad case(s) of {len(results)}" + (f"; kept in {ENV.keep}" if bad and ENV.keep else ""), file=out)
    out.flush()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
