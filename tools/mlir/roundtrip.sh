#!/usr/bin/env bash
# Measures how much of a set of MLIR test files acc reads and prints back as the same
# IR. Every DIR/*.mlir is split at `// -----` lines into chunks (chunks holding only
# comments and blank lines are not counted); each chunk goes through
#
#     mlir-opt --allow-unregistered-dialect --mlir-print-op-generic    -> G1
#     acc-opt  --allow-unregistered-dialect --mlir-print-op-generic G1 -> A
#     mlir-opt --allow-unregistered-dialect --mlir-print-op-generic A  -> G2
#
# and is counted as 'mlir rejects' (mlir-opt fails on the chunk: an invalid-input
# test, or syntax newer than this mlir-opt), 'acc rejects' (acc-opt fails on G1),
# 'same' (G2 = G1 as text) or 'differs' (G2 != G1, or mlir-opt fails on A). Prints one
# line per file and the totals:
#
#     tools/mlir/roundtrip.sh [-v] [-k KEEP] DIR [ACC_OPT]
#
#   -v        print each failing chunk's reason: acc's first error line, the first lines
#             of the diff between G1 and G2, or mlir-opt's first error line
#   -k KEEP   keep each failing chunk in KEEP/ (FILE.N.mlir: the chunk, .g1: mlir's
#             generic text, .acc: acc's output and errors, .diff: G1 against G2)
#
# ACC_OPT defaults to target/release/acc-opt (`cargo build --release`); MLIR_OPT to
# /usr/bin/mlir-opt-22 (tools/ci/install-llvm-tools.sh installs it); TIMEOUT (seconds
# per tool run, default 20). A chunk whose run times out counts as rejected by that
# tool, with reason 'timeout'.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)

verbose=0 keep=""
while getopts "vk:" opt; do
    case $opt in
        v) verbose=1 ;;
        k) keep=$OPTARG ;;
        *) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
if [ $# -lt 1 ] || [ ! -d "$1" ]; then
    echo "usage: $0 [-v] [-k KEEP] DIR [ACC_OPT]" >&2
    exit 2
fi
dir=$1
acc_opt=${2:-$root/target/release/acc-opt}
mlir_opt=${MLIR_OPT:-/usr/bin/mlir-opt-22}
limit=${TIMEOUT:-20}
flags=(--allow-unregistered-dialect --mlir-print-op-generic)
[ -x "$acc_opt" ] || { echo "no acc-opt at $acc_opt" >&2; exit 2; }
[ -x "$mlir_opt" ] || { echo "no mlir-opt at $mlir_opt (set MLIR_OPT)" >&2; exit 2; }
[ -z "$keep" ] || mkdir -p "$keep"

work=$(mktemp -d "${TMPDIR:-/tmp}/acc-roundtrip.XXXXXX")
trap 'rm -rf "$work"' EXIT

# run OUT ERR TOOL ARGS...: runs TOOL under the time limit; returns its status (124
# on timeout).
run() {
    local out=$1 err=$2
    shift 2
    timeout -k 2 "$limit" "$@" >"$out" 2>"$err" </dev/null
}

# first_error ERRFILE STATUS: one line saying why a tool failed.
first_error() {
    if [ "$2" -eq 124 ] || [ "$2" -eq 137 ]; then
        echo "timeout (${limit}s)"
    elif [ "$2" -gt 128 ]; then
        echo "crash (signal $(($2 - 128))): $(grep -m1 -v '^\s*$' "$1" || true)"
    else
        grep -m1 -E '^(error|.*: error):' "$1" || grep -m1 -v '^\s*$' "$1" || echo "status $2, no message"
    fi
}

printf '%-40s %6s %6s %7s %11s %12s\n' file chunks same differs "acc rejects" "mlir rejects"
t_chunks=0 t_same=0 t_differs=0 t_acc=0 t_mlir=0
shopt -s nullglob
for file in "$dir"/*.mlir; do
    name=$(basename "$file" .mlir)
    rm -f "$work"/chunk.*
    # Split at `// -----` lines, as mlir-opt --split-input-file does.
    awk -v out="$work/chunk." '
        BEGIN { n = 0; f = sprintf("%s%04d", out, n); printf "" > f }
        /^[ \t]*\/\/ -----[ \t]*$/ { close(f); n++; f = sprintf("%s%04d", out, n); printf "" > f; next }
        { print > f }' "$file"
    chunks=0 same=0 differs=0 acc=0 mlir=0
    reasons=()
    for chunk in "$work"/chunk.*; do
        # Skip chunks with nothing but comments and blank lines.
        grep -qvE '^[[:space:]]*(//.*)?$' "$chunk" || continue
        idx=$((10#${chunk##*.}))
        chunks=$((chunks + 1))
        g1=$work/g1 g1e=$work/g1.err a=$work/acc ae=$work/acc.err g2=$work/g2 g2e=$work/g2.err
        status=0
        run "$g1" "$g1e" "$mlir_opt" "${flags[@]}" "$chunk" || status=$?
        if [ "$status" -ne 0 ]; then
            mlir=$((mlir + 1))
            reasons+=("  $name#$idx mlir rejects: $(first_error "$g1e" "$status" | sed "s|^$chunk:|line |")")
            continue
        fi
        status=0
        run "$a" "$ae" "$acc_opt" "${flags[@]}" "$g1" || status=$?
        reason=""
        if [ "$status" -ne 0 ]; then
            acc=$((acc + 1))
            reason="acc rejects: $(first_error "$ae" "$status")"
        else
            status=0
            run "$g2" "$g2e" "$mlir_opt" "${flags[@]}" "$a" || status=$?
            if [ "$status" -ne 0 ]; then
                differs=$((differs + 1))
                reason="differs: mlir-opt rejects acc's output: $(first_error "$g2e" "$status" | sed "s|^$a:|line |")"
                printf '%s\n' "$reason" >"$work/diff"
            elif diff -u --label mlir --label acc "$g1" "$g2" >"$work/diff"; then
                same=$((same + 1))
            else
                differs=$((differs + 1))
                reason="differs:"$'\n'"$(grep -E '^[-+][^-+]' "$work/diff" | head -6 | cut -c1-200)"
            fi
        fi
        [ -n "$reason" ] || continue
        reasons+=("  $name#$idx ${reason//$'\n'/$'\n'      }")
        if [ -n "$keep" ]; then
            cp "$chunk" "$keep/$name.$idx.mlir"
            cp "$g1" "$keep/$name.$idx.g1"
            cat "$a" "$ae" >"$keep/$name.$idx.acc"
            [ ! -f "$work/diff" ] || [[ $reason != differs* ]] || cp "$work/diff" "$keep/$name.$idx.diff"
        fi
        rm -f "$work/diff"
    done
    printf '%-40s %6d %6d %7d %11d %12d\n' "$name" "$chunks" "$same" "$differs" "$acc" "$mlir"
    if [ "$verbose" -eq 1 ] && [ ${#reasons[@]} -gt 0 ]; then
        printf '%s\n' "${reasons[@]}"
    fi
    t_chunks=$((t_chunks + chunks)) t_same=$((t_same + same)) t_differs=$((t_differs + differs))
    t_acc=$((t_acc + acc)) t_mlir=$((t_mlir + mlir))
done
printf '%-40s %6d %6d %7d %11d %12d\n' TOTAL "$t_chunks" "$t_same" "$t_differs" "$t_acc" "$t_mlir"
