#!/usr/bin/env bash
# Times acc-opt and mlir-opt running canonicalize, cse, and both, on one generated
# file of func + arith ops (the same work for both tools), and prints the best of N
# runs of each, with peak memory:
#
#     tools/bench/passes.sh [OPS] [RUNS]      (defaults: 1000000 ops, 3 runs)
#
# Needs `cargo build --release` and mlir-opt 22 (MLIR_OPT, default
# /usr/lib/llvm-22/bin/mlir-opt; tools/ci/install-llvm-tools.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/../.."
ops=${1:-1000000}
runs=${2:-3}
mlir_opt=${MLIR_OPT:-/usr/lib/llvm-22/bin/mlir-opt}
acc_opt=./target/release/acc-opt
file=${TMPDIR:-/tmp}/acc-bench-passes-$ops.mlir
[ -f "$file" ] || ./target/release/acc-bench-ir gen --ops "$ops" --no-regions -o "$file"

times=$(mktemp)
trap 'rm -f "$times"' EXIT

# best TOOL ARGS...: the lowest wall time of $runs runs, and its peak memory.
best() {
    local best_s="" best_kib=""
    for _ in $(seq "$runs"); do
        local line
        /usr/bin/time -o "$times" -f "%e %M" "$@" "$file" -o /dev/null >/dev/null 2>&1
        line=$(tail -1 "$times")
        local s=${line% *} kib=${line#* }
        if [ -z "$best_s" ] || awk "BEGIN{exit !($s < $best_s)}"; then
            best_s=$s best_kib=$kib
        fi
    done
    echo "$best_s $best_kib"
}

printf '%-18s %18s %18s %7s\n' "passes ($ops ops)" "acc-opt" "mlir-opt" "ratio"
for passes in canonicalize cse canonicalize,cse; do
    mlir_flags=$(echo "--$passes" | sed 's/,/ --/g')
    read -r a a_kib <<<"$(best "$acc_opt" --pass "$passes")"
    # shellcheck disable=SC2086
    read -r m m_kib <<<"$(best "$mlir_opt" $mlir_flags)"
    ratio=$(awk "BEGIN{printf \"%.2f\", $m / $a}")
    printf '%-18s %7s s %4d MiB %7s s %4d MiB %6sx\n' "$passes" "$a" $((a_kib / 1024)) "$m" $((m_kib / 1024)) "$ratio"
done
# MLIR running the same passes per function, on its threads (2 here):
read -r m m_kib <<<"$(best "$mlir_opt" --pass-pipeline='builtin.module(func.func(canonicalize,cse))')"
read -r a a_kib <<<"$(best "$acc_opt" --pass-pipeline='builtin.module(func.func(canonicalize,cse))')"
printf '%-18s %7s s %4d MiB %7s s %4d MiB %6sx\n' "func.func(c,cse)" "$a" $((a_kib / 1024)) "$m" $((m_kib / 1024)) "$(awk "BEGIN{printf \"%.2f\", $m / $a}")"
