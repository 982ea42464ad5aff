#!/usr/bin/env python3
"""Drives acc-repl at a pseudo-terminal: starts a long command (`:suggest` on a large
module), presses Ctrl-C, and
checks that the session comes back to the prompt with its module and undo stack, and
that the history file already holds every entry (it is saved as it grows).

    python3 test/repl/interrupt.py path/to/acc-repl

Exit status 0 when every check holds; otherwise the transcript is printed.
"""

import os
import pty
import select
import sys
import tempfile
import time

# A module of this many functions makes `:suggest` (which runs every pass on a copy of
# the module) take tens of seconds: the long command Ctrl-C stops.
FUNCTIONS = 3000

PROMPT = "acc> "


def module_text():
    """A module of many small functions, so that each pass takes a moment."""
    out = []
    for f in range(FUNCTIONS):
        out.append(f"func.func @f{f}(%a: i32, %b: i32) -> i32 {{")
        out.append("  %c0 = arith.addi %a, %b : i32")
        for i in range(1, 20):
            out.append(f"  %c{i} = arith.addi %c{i - 1}, %a : i32")
        out.append("  %z = arith.constant 0 : i32")
        out.append("  %r = arith.addi %c19, %z : i32")
        out.append("  return %r : i32")
        out.append("}")
    return "\n".join(out) + "\n"


class Terminal:
    """acc-repl on a pseudo-terminal, with everything it printed kept."""

    def __init__(self, argv, env):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execve(argv[0], argv, env)
        self.transcript = b""
        self.cursor = 0

    def read_until(self, needle, timeout):
        """Reads until `needle` appears after the last one found; False on timeout."""
        deadline = time.monotonic() + timeout
        while needle.encode() not in self.transcript[self.cursor:]:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:
                    return False
                if not chunk:
                    return False
                self.transcript += chunk
        found = self.transcript.index(needle.encode(), self.cursor)
        self.cursor = found + len(needle)
        return True

    def drain(self, timeout):
        """Reads what is there for `timeout` seconds, looking for nothing."""
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if ready:
            try:
                self.transcript += os.read(self.fd, 65536)
            except OSError:
                pass

    def send(self, text):
        os.write(self.fd, text.encode())

    def wait(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return os.waitstatus_to_exitcode(status)
            self.drain(0.1)
        return None


def main():
    repl = os.path.abspath(sys.argv[1])
    work = tempfile.mkdtemp(prefix="acc-repl-interrupt-")
    module = os.path.join(work, "many.mlir")
    with open(module, "w") as f:
        f.write(module_text())
    history = os.path.join(work, "history")
    env = dict(os.environ, ACC_REPL_HISTORY=history, TERM="xterm")
    term = Terminal([repl], env)
    problems = []

    def expect(needle, timeout, what):
        if not term.read_until(needle, timeout):
            problems.append(f"{what}: no {needle!r} within {timeout} s")
            return False
        return True

    expect(PROMPT, 20, "the first prompt")
    term.send(f":load {module}\r")
    expect(f"loaded {module}", 20, ":load")
    term.send(":pass canonicalize\r")
    expect("changed the module", 60, "a first pass")
    term.send(":suggest\r")
    # Let it run, then press Ctrl-C.
    time.sleep(1.5)
    started = time.monotonic()
    term.send("\x03")
    if expect("interrupted", 30, "Ctrl-C during :suggest"):
        stopped_after = time.monotonic() - started
        if stopped_after > 10:
            problems.append(f"the command took {stopped_after:.1f} s to stop")
    expect("the module is unchanged", 10, "the failed command's reply")
    expect(PROMPT, 10, "the prompt after Ctrl-C")
    # The history is on disk before the session ends.
    try:
        with open(history) as f:
            saved = f.read()
    except OSError as e:
        saved = ""
        problems.append(f"no history file while the session runs: {e}")
    for entry in (f":load {module}", ":pass canonicalize", ":suggest"):
        if entry not in saved:
            problems.append(f"the history file lacks {entry!r} while the session runs")
    # The module and the undo stack are intact.
    term.send(":undo\r")
    expect("undid", 20, ":undo after the interrupt")
    term.send(":redo\r")
    expect("redid", 20, ":redo after the interrupt")
    term.send(":quit\r")
    code = term.wait(30)
    if code != 0:
        problems.append(f"acc-repl ended with {code} (expected 0)")
    if problems:
        print("acc-repl at a terminal:")
        for p in problems:
            print("  -", p)
        text = term.transcript.decode(errors="replace")
        print("transcript (last 3000 characters):")
        print(text[-3000:])
        return 1
    print(f"acc-repl: Ctrl-C stopped the command in {stopped_after:.2f} s; module, undo stack and history intact")
    return 0


if __name__ == "__main__":
    sys.exit(main())
