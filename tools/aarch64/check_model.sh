#!/usr/bin/env bash
# Checks acc's AArch64 code for correctness under qemu: an ONNX model goes through the
# documented host pipeline on this machine, Cranelift writes an AArch64 object, which
# is linked statically with acc's runtime built for aarch64-unknown-linux-gnu and a
# small C driver, run under qemu-aarch64 on the model's input, and compared with the
# expected output (onnxruntime's, from tools/zoo/make_zoo.py).
#
#   tools/aarch64/check_model.sh MODEL.onnx INPUT.npy EXPECTED.npy
#
# Needs: rustup target aarch64-unknown-linux-gnu, gcc-aarch64-linux-gnu,
# qemu-user (qemu-aarch64) and python3 with numpy; prints the maximum relative error
# and exits 1 when it is above 1e-4. Uses the release binaries (build them first with
# `cargo build --release -p acc-tools`).
set -euo pipefail
model=$1 input=$2 expected=$3
root="$(cd "$(dirname "$0")/../.." && pwd)"
python=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$root/target/release/acc-translate" --import-onnx "$model" --function model -o "$work/model.mlir"
"$root/target/release/acc-opt" --target "$root/lowering/runtime/host.acc" \
  --pipeline host-pipeline "$work/model.mlir" -o "$work/loops.mlir"
"$root/target/release/acc-translate" --emit-object "$work/loops.mlir" --target aarch64 \
  -o "$work/model.o" --header "$work/model.h"

# (The build's and the static link's warnings go to a log, shown when a step fails.)
CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc \
  cargo build -q --release --manifest-path "$root/Cargo.toml" -p acc-runtime --lib \
  --target aarch64-unknown-linux-gnu --target-dir "$root/target/runtime-aarch64" \
  2> "$work/build.log" || { cat "$work/build.log"; exit 1; }
runtime="$root/target/runtime-aarch64/aarch64-unknown-linux-gnu/release/libacc_runtime.a"

# The input and the expected output as raw little-endian f32.
"$python" - "$input" "$expected" "$work" <<'PY'
import sys, numpy as np
x = np.load(sys.argv[1]).astype(np.float32); y = np.load(sys.argv[2]).astype(np.float32)
x.tofile(sys.argv[3] + "/input.bin"); open(sys.argv[3] + "/sizes", "w").write(f"{x.size} {y.size}\n")
PY
read -r n_in n_out < "$work/sizes"
cat > "$work/driver.c" <<C
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <stdlib.h>
#include "model.h"
/* The allocator the object's heap buffers come from (the embedder's, as the JIT's). */
void *acc_alloc(int64_t bytes, int64_t alignment) {
    void *p = 0;
    size_t a = alignment < (int64_t)sizeof(void *) ? sizeof(void *) : (size_t)alignment;
    return posix_memalign(&p, a, bytes > 0 ? (size_t)bytes : 1) ? 0 : p;
}
void acc_free(void *pointer) { free(pointer); }
static float x[$n_in], y[$n_out];
int main(void) {
    FILE *f = fopen("input.bin", "rb");
    if (!f || fread(x, sizeof(float), $n_in, f) != $n_in) return 2;
    fclose(f);
    model(x, y);
    FILE *g = fopen("output.bin", "wb");
    if (!g || fwrite(y, sizeof(float), $n_out, g) != $n_out) return 3;
    fclose(g);
    return 0;
}
C
aarch64-linux-gnu-gcc -std=c99 -O2 -static -I"$work" -o "$work/driver" "$work/driver.c" \
  "$work/model.o" "$runtime" -lpthread -ldl -lm 2> "$work/link.log" || { cat "$work/link.log"; exit 1; }
(cd "$work" && qemu-aarch64 ./driver)
"$python" - "$work/output.bin" "$expected" <<'PY'
import sys, numpy as np
got = np.fromfile(sys.argv[1], dtype=np.float32); want = np.load(sys.argv[2]).astype(np.float32).ravel()
err = float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-30))
print(f"aarch64 under qemu: max |acc - expected| / max |expected| = {err:.2e}")
sys.exit(0 if err <= 1e-4 else 1)
PY
