// Every tool prints its version; an unknown option or pass names the closest known
// one instead of printing the whole usage.
// RUN: acc-opt --version | FileCheck %s --check-prefix=VERSION
// RUN: acc-translate --version | FileCheck %s --check-prefix=VERSION
// RUN: acc-run --version | FileCheck %s --check-prefix=VERSION
// RUN: acc-repl --version | FileCheck %s --check-prefix=VERSION
// VERSION: (acc) {{[0-9]+\.[0-9]+\.[0-9]+}}

// RUN: not acc-opt %s --prnt-generic 2>&1 | FileCheck %s --check-prefix=OPTION
// OPTION: acc-opt: unknown option '--prnt-generic'; did you mean '--print-generic'?
// OPTION-NEXT: (acc-opt --help lists the options, --list-passes the passes)
// OPTION-NOT: usage:

// A misspelt pass flag, and a misspelt pass in a list.
// RUN: not acc-opt %s --canonicalise 2>&1 | FileCheck %s --check-prefix=PASSFLAG
// PASSFLAG: unknown option '--canonicalise'; did you mean '--canonicalize'?
// RUN: not acc-opt %s --pass cse,canonicalise 2>&1 | FileCheck %s --check-prefix=PASS
// PASS: unknown pass 'canonicalise'; did you mean 'canonicalize'? (see --list-passes)
// RUN: not acc-opt %s --pass "canonicalize{max-iteration=2}" 2>&1 | FileCheck %s --check-prefix=PASSOPT
// PASSOPT: unknown option 'max-iteration'; did you mean 'max-iterations'?

// RUN: not acc-translate --emit-c %s -o %t --heder x.h 2>&1 | FileCheck %s --check-prefix=TRANSLATE
// TRANSLATE: acc-translate: unknown option '--heder'; did you mean '--header'?
// RUN: not acc-run %s --inptu 0=x.npy 2>&1 | FileCheck %s --check-prefix=RUNOPT
// RUNOPT: acc-run: unknown option '--inptu'; did you mean '--input'?

// An absurd memory budget is refused.
// RUN: not acc-opt %s --max-memory=lots 2>&1 | FileCheck %s --check-prefix=MEMORY
// MEMORY: acc-opt: --max-memory: invalid size 'lots'

// Options the chosen translation or mode does not use are warned about, not
// silently dropped.
// RUN: acc-translate --import-onnx %S/../../../examples/onnx/mlp.onnx -o %t.mlp.mlir --header x.h --target x86_64 2>&1 | FileCheck %s --check-prefix=IGNORED
// IGNORED: acc-translate: warning: --header applies to --emit-object only; it is ignored
// IGNORED: acc-translate: warning: --target applies to --emit-object only; it is ignored
// RUN: acc-run %s --entry g --threads 2 --perf-map 2>&1 | FileCheck %s --check-prefix=RUNIGNORED
// RUNIGNORED: acc-run: warning: --threads applies to --mode jit only; it is ignored
// RUNIGNORED: acc-run: warning: --perf-map applies to --mode jit only; it is ignored
// RUNIGNORED: result 0: i32 [7]

// An input is read only up to the memory budget: a device that never ends is an
// error, not a read until the machine's memory is gone.
// RUN: not acc-opt /dev/zero --max-memory=1M 2>&1 | FileCheck %s --check-prefix=ENDLESS
// ENDLESS: cannot read '/dev/zero': it is larger than the 64.0 MiB acc reads from one input (four times the memory budget; --max-memory raises it)

func.func private @f()

func.func @g() -> i32 {
  %c = arith.constant 7 : i32
  return %c : i32
}
