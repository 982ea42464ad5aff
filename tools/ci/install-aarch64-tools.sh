#!/usr/bin/env bash
# Installs what the runtime's AArch64 tests need beyond the host toolchain: Rust's
# aarch64-unknown-linux-gnu standard library (rustup), Debian's gcc-aarch64-linux-gnu
# (the linker and C library) and qemu-user (qemu-aarch64, to run the tests). Idempotent.
set -euo pipefail
if ! rustup target list --installed | grep -qx aarch64-unknown-linux-gnu; then
  rustup target add aarch64-unknown-linux-gnu
fi
if ! command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || ! command -v qemu-aarch64 >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user >/dev/null
fi
qemu-aarch64 --version | head -1
