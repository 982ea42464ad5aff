#!/usr/bin/env bash
# Installs what the CI needs beyond the Rust toolchain: mlir-opt, FileCheck and not
# from Debian's llvm-22-tools and mlir-22-tools, Graphviz's dot (Debian's graphviz, to
# render `view-graph` output), a RISC-V cross compiler and qemu-user (Debian's
# gcc-riscv64-linux-gnu and qemu-user, to run the emitted C on the example
# microcontroller's architecture), and LLVM's lit from PyPI. Idempotent.
set -euo pipefail
if [ ! -x /usr/lib/llvm-22/bin/mlir-opt ] || [ ! -x /usr/lib/llvm-22/bin/FileCheck ] \
  || ! command -v dot >/dev/null 2>&1 || ! command -v riscv64-linux-gnu-gcc >/dev/null 2>&1 \
  || ! command -v qemu-riscv64 >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq mlir-22-tools llvm-22-tools graphviz gcc-riscv64-linux-gnu qemu-user >/dev/null
fi
if ! command -v lit >/dev/null 2>&1; then
  python3 -m pip install --quiet lit
fi
/usr/lib/llvm-22/bin/mlir-opt --version | head -2
