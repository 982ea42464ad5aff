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

func.func private @f()
