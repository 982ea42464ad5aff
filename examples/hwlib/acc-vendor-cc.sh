#!/bin/sh
# acc-vendor-cc: a stand-in for a vendor's compiler, for acc's hand-off of a region to
# an external compiler (a device's `external "COMMAND"` in its target file;
# docs/codegen.md, "External compilers"). It receives what such a compiler receives
# and writes what it must write, the function built by acc itself:
#
#   acc-vendor-cc.sh IR CONSTANTS FUNCTION OUTPUT
#
# IR is the region as MLIR text (`func.func @FUNCTION` on tensors); CONSTANTS the
# directory of its constants as .npy files, each named by its op (`acc.file`);
# OUTPUT the file to write, defining `void FUNCTION(const T *in..., T *out...)`: C
# source, or, when its name ends in .o (the target's command names {object}), an
# object file built by $CC (cc when unset) with CFLAGS (-O2 when unset). acc-opt and
# acc-translate come from the directory ACC_BIN (with its trailing slash) when set,
# else from PATH.
set -eu
ir=$1 constants=$2 function=$3 output=$4
bin=${ACC_BIN:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A vendor's compiler would pack the weights from the files; this one reads them
# from the text, and checks that every file named is there.
for file in $(sed -n 's/.*acc\.file = "\([^"]*\)".*/\1/p' "$ir"); do
  test -s "$constants/$file" || { echo "acc-vendor-cc: no constant file $file" >&2; exit 1; }
done
"${bin}acc-opt" --pass canonicalize,graph-to-tensor,bufferize,fuse-parallel,buffer-deallocation,memory-plan "$ir" -o "$work/low.mlir"
"${bin}acc-translate" --emit-c "$work/low.mlir" -o "$work/c"
# One C file: the declarations, the constants, then the function.
{
  cat "$work/c/model.h" "$work/c/weights.h"
  grep -v '^#include "\(model\|weights\)\.h"' "$work/c/model.c"
} > "$work/function.c"
test "$(grep -c "^void $function(" "$work/function.c")" -ge 1 || { echo "acc-vendor-cc: no function $function" >&2; exit 1; }
case $output in
  *.o) ${CC:-cc} ${CFLAGS:--O2} -ffp-contract=off -fno-strict-aliasing -c "$work/function.c" -o "$output" ;;
  *) cp "$work/function.c" "$output" ;;
esac
