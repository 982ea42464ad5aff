// The two ways of writing a pipeline. `--pass a,b{opt=1}` nests each pass by what it
// runs on (function passes in func.func(...), module passes at the top); that gives
// the same IR as the same pipeline written in MLIR's syntax with --pass-pipeline, as
// mlir-opt-style pass flags, and as repeated --pass options.
// RUN: acc-opt --pass canonicalize,cse %s -o %t.list
// RUN: acc-opt --pass-pipeline='builtin.module(func.func(canonicalize,cse))' %s -o %t.pipeline
// RUN: acc-opt --canonicalize --cse %s -o %t.flags
// RUN: acc-opt --pass canonicalize --pass cse %s -o %t.repeated
// RUN: diff %t.list %t.pipeline
// RUN: diff %t.list %t.flags
// RUN: diff %t.list %t.repeated
// RUN: FileCheck %s --input-file %t.list
// Order matters: cse first leaves what canonicalize makes equal unmerged.
// RUN: acc-opt --pass cse,canonicalize %s | FileCheck %s --check-prefix=CSE-FIRST
//
// --dump-pass-pipeline prints (on standard error) the nested pipeline with every option.
// RUN: acc-opt --pass 'inline,canonicalize{max-iterations=3},cse,symbol-dce,dce' --dump-pass-pipeline %s -o %t.ir1 2>&1 | FileCheck %s --check-prefix=DUMP
// DUMP: Pass Manager with 5 passes:
// DUMP-NEXT: {{^}}builtin.module(inline{max-rounds=8},func.func(canonicalize{max-iterations=3 max-num-rewrites=-1 test-convergence=false},cse),symbol-dce,func.func(dce)){{$}}
// DUMP-NOT: {{.}}
//
// Round trip: the printed pipeline, fed back through --pass-pipeline, prints
// identically and transforms the IR identically.
// RUN: acc-opt --pass 'inline,canonicalize{max-iterations=3},cse,symbol-dce,dce' --dump-pass-pipeline %s -o %t.ir1 2>&1 | tail -n 1 > %t.printed1
// RUN: xargs -d '\n' -I PIPELINE acc-opt --pass-pipeline=PIPELINE --dump-pass-pipeline %s -o %t.ir2 < %t.printed1 2>&1 | tail -n 1 > %t.printed2
// RUN: diff %t.printed1 %t.printed2
// RUN: diff %t.ir1 %t.ir2
// RUN: FileCheck %s --check-prefix=DUMP-LINE --input-file %t.printed2
// DUMP-LINE: {{^}}builtin.module(inline{max-rounds=8},func.func(canonicalize{max-iterations=3 max-num-rewrites=-1 test-convergence=false},cse),symbol-dce,func.func(dce)){{$}}
//
// Spaces, quoted option values and flags without a value are accepted; printing
// normalises them.
// RUN: acc-opt --pass-pipeline=' builtin.module( func.func( canonicalize{ max-iterations="4"  test-convergence } , cse ) ) ' --dump-pass-pipeline %s -o %t.ir3 2>&1 | FileCheck %s --check-prefix=SPACES
// SPACES: {{^}}builtin.module(func.func(canonicalize{max-iterations=4 max-num-rewrites=-1 test-convergence=true},cse)){{$}}
// RUN: acc-opt --canonicalize='max-iterations=4 test-convergence=true' --cse --dump-pass-pipeline %s -o %t.ir3 2>&1 | FileCheck %s --check-prefix=SPACES
// Explicit nesting is kept as written, a module pass between two function pipelines.
// RUN: acc-opt --pass-pipeline='builtin.module(func.func(cse),symbol-dce,func.func(dce))' --dump-pass-pipeline %s -o %t.ir3 2>&1 | FileCheck %s --check-prefix=NESTED
// NESTED: Pass Manager with 3 passes:
// NESTED-NEXT: {{^}}builtin.module(func.func(cse),symbol-dce,func.func(dce)){{$}}
// An empty pipeline runs nothing: the IR prints as parsed.
// RUN: acc-opt --pass-pipeline='builtin.module()' %s | FileCheck %s --check-prefix=EMPTY
// EMPTY-LABEL: func.func @f(
// EMPTY-NEXT: arith.constant 1 : i32
//
// Errors: a diagnostic pointing into the pipeline text, exit status 1, and no output
// file.
// RUN: rm -f %t.err
// RUN: not acc-opt --pass-pipeline='builtin.module(func.func(canonicalize,cse)' %s -o %t.err 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: not test -e %t.err
// SYNTAX: error: invalid pass pipeline
// SYNTAX-NEXT: <pass pipeline>:1:42
// RUN: not acc-opt --pass-pipeline='builtin.module(func.func(canonicalize,bogus))' %s -o %t.err 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not test -e %t.err
// UNKNOWN: error: unknown pass 'bogus' (see --list-passes)
// UNKNOWN-NEXT: <pass pipeline>:1:39
// UNKNOWN: builtin.module(func.func(canonicalize,bogus))
// UNKNOWN-NEXT: {{^ *│ *\^{5}$}}
// RUN: not acc-opt --pass bogus %s -o %t.err 2>&1 | FileCheck %s --check-prefix=UNKNOWN-LIST
// RUN: not test -e %t.err
// UNKNOWN-LIST: error: unknown pass 'bogus' (see --list-passes)
// RUN: not acc-opt --pass-pipeline='builtin.module(func.func(canonicalize{max-iterations=abc}))' %s -o %t.err 2>&1 | FileCheck %s --check-prefix=BADVALUE
// RUN: not test -e %t.err
// BADVALUE: error: pass 'canonicalize': option 'max-iterations': expected an integer, found 'abc'
// RUN: not acc-opt --pass 'canonicalize{test-convergence=maybe}' %s -o %t.err 2>&1 | FileCheck %s --check-prefix=BADBOOL
// RUN: not test -e %t.err
// BADBOOL: error: pass 'canonicalize': option 'test-convergence': expected true or false, found 'maybe'
// RUN: not acc-opt --pass 'canonicalize{nope=1}' %s -o %t.err 2>&1 | FileCheck %s --check-prefix=BADOPTION
// RUN: not test -e %t.err
// BADOPTION: error: pass 'canonicalize': unknown option 'nope': expected one of max-iterations, max-num-rewrites, test-convergence
// RUN: not acc-opt --cse='x=1' %s -o %t.err 2>&1 | FileCheck %s --check-prefix=NOOPTIONS
// RUN: not test -e %t.err
// NOOPTIONS: error: pass 'cse': unknown option 'x': the pass takes no options
// RUN: not acc-opt --pass 'cse,,dce' %s -o %t.err 2>&1 | FileCheck %s --check-prefix=LISTSYNTAX
// RUN: not test -e %t.err
// LISTSYNTAX: error: invalid pass pipeline
// LISTSYNTAX-NEXT: <pass pipeline>:1:5
// RUN: not acc-opt --pass cse --pass-pipeline='builtin.module(func.func(cse))' %s -o %t.err 2>&1 | FileCheck %s --check-prefix=BOTH
// RUN: not test -e %t.err
// BOTH: --pass-pipeline cannot be combined with --pass or pass flags
// A pipeline anchored on another op than the input's top-level one.
// RUN: not acc-opt --pass-pipeline='func.func(cse)' %s -o %t.err 2>&1 | FileCheck %s --check-prefix=ROOT
// RUN: not test -e %t.err
// ROOT: error: {{.*}}can't run 'func.func' pass manager on 'builtin.module' op

// CHECK-LABEL: func.func @f(
// CHECK-NEXT: %[[C3:.*]] = arith.constant 3 : i32
// CHECK-NEXT: %[[A:.*]] = arith.addi %arg0, %[[C3]] : i32
// CHECK-NEXT: %[[R:.*]] = arith.muli %[[A]], %[[A]] : i32
// CHECK-NEXT: return %[[R]] : i32
// CSE-FIRST-LABEL: func.func @f(
// CSE-FIRST-NEXT: %[[C3:.*]] = arith.constant 3 : i32
// CSE-FIRST-NEXT: %[[A:.*]] = arith.addi %arg0, %[[C3]] : i32
// CSE-FIRST-NEXT: %[[B:.*]] = arith.addi %arg0, %[[C3]] : i32
// CSE-FIRST-NEXT: %[[R:.*]] = arith.muli %[[A]], %[[B]] : i32
// CSE-FIRST-NEXT: return %[[R]] : i32
func.func @f(%x: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  // 1 + 2 folds to 3: only then is x + (1 + 2) the same as x + 3
  %s = arith.addi %c1, %c2 : i32
  %a = arith.addi %x, %s : i32
  %b = arith.addi %x, %c3 : i32
  %r = arith.muli %a, %b : i32
  return %r : i32
}

// CHECK-LABEL: func.func @g(
// CHECK-NEXT: return %arg0 : i32
func.func @g(%x: i32) -> i32 {
  %unused = arith.addi %x, %x : i32
  return %x : i32
}
