// --timing (MLIR's --mlir-timing) reports on standard error, after the run, a tree of
// wall times shaped like the pipeline: Parser, the root pipeline with its passes and
// nested pipelines (indented two spaces per level, functions' times added up),
// Output, Rest (what none of those measured), and Total at 100%. Only the layout is
// checked, never the times.
// RUN: acc-opt --pass inline,canonicalize,cse,symbol-dce --timing %s -o %t 2>&1 | FileCheck %s --strict-whitespace
// RUN: acc-opt --pass inline,canonicalize,cse,symbol-dce --mlir-timing %s -o %t 2>&1 | FileCheck %s --strict-whitespace
// Threads do not change the tree.
// RUN: acc-opt --pass inline,canonicalize,cse,symbol-dce --timing --threads 2 %s -o %t 2>&1 | FileCheck %s --strict-whitespace
// The IR is unaffected.
// RUN: FileCheck %s --check-prefix=IR --input-file %t
//
// CHECK: {{^}}===-------------------------------------------------------------------------==={{$}}
// CHECK-NEXT: {{^ +}}... Execution time report ...{{$}}
// CHECK-NEXT: {{^}}===-------------------------------------------------------------------------==={{$}}
// CHECK-NEXT: {{^}}  Total Execution Time: {{[0-9]+\.[0-9]+}} seconds{{$}}
// CHECK-EMPTY:
// CHECK-NEXT: {{^}}  ----Wall Time----  ----Name----{{$}}
// CHECK-NEXT: {{^ +[0-9]+\.[0-9]+ \( *[0-9]+\.[0-9]%\)}}  Parser{{$}}
// CHECK-NEXT: {{^ +[0-9]+\.[0-9]+ \( *[0-9]+\.[0-9]%\)}}  'builtin.module' Pipeline{{$}}
// CHECK-NEXT: {{^ +[0-9]+\.[0-9]+ \( *[0-9]+\.[0-9]%\)}}    Inliner{{$}}
// CHECK-NEXT: {{^ +[0-9]+\.[0-9]+ \( *[0-9]+\.[0-9]%\)}}    'func.func' Pipeline{{$}}
// CHECK-NEXT: {{^ +[0-9]+\.[0-9]+ \( *[0-9]+\.[0-9]%\)}}      Canonicalizer{{$}}
// CHECK-NEXT: {{^ +[0-9]+\.[0-9]+ \( *[0-9]+\.[0-9]%\)}}      CSE{{$}}
// CHECK-NEXT: {{^ +[0-9]+\.[0-9]+ \( *[0-9]+\.[0-9]%\)}}    SymbolDCE{{$}}
// CHECK-NEXT: {{^ +[0-9]+\.[0-9]+ \( *[0-9]+\.[0-9]%\)}}  Output{{$}}
// CHECK-NEXT: {{^ +[0-9]+\.[0-9]+ \( *[0-9]+\.[0-9]%\)}}  Rest{{$}}
// CHECK-NEXT: {{^ +[0-9]+\.[0-9]+ \(100\.0%\)}}  Total{{$}}
// CHECK-NOT: {{.}}
//
// A pipeline written with --pass-pipeline gives its own shape: two func.func
// pipelines side by side.
// RUN: acc-opt --pass-pipeline='builtin.module(func.func(cse),func.func(dce))' --timing %s -o %t 2>&1 | FileCheck %s --strict-whitespace --check-prefix=SHAPE
// SHAPE: {{^ +[0-9]+\.[0-9]+ \( *[0-9]+\.[0-9]%\)}}  Parser{{$}}
// SHAPE-NEXT: {{^ +[0-9]+\.[0-9]+ \( *[0-9]+\.[0-9]%\)}}  'builtin.module' Pipeline{{$}}
// SHAPE-NEXT: {{^ +[0-9]+\.[0-9]+ \( *[0-9]+\.[0-9]%\)}}    'func.func' Pipeline{{$}}
// SHAPE-NEXT: {{^ +[0-9]+\.[0-9]+ \( *[0-9]+\.[0-9]%\)}}      CSE{{$}}
// SHAPE-NEXT: {{^ +[0-9]+\.[0-9]+ \( *[0-9]+\.[0-9]%\)}}    'func.func' Pipeline{{$}}
// SHAPE-NEXT: {{^ +[0-9]+\.[0-9]+ \( *[0-9]+\.[0-9]%\)}}      DCE{{$}}
// SHAPE-NEXT: {{^ +[0-9]+\.[0-9]+ \( *[0-9]+\.[0-9]%\)}}  Output{{$}}
// SHAPE-NEXT: {{^ +[0-9]+\.[0-9]+ \( *[0-9]+\.[0-9]%\)}}  Rest{{$}}
//
// Without passes: parsing and printing only.
// RUN: acc-opt --timing %s -o %t 2>&1 | FileCheck %s --strict-whitespace --check-prefix=NOPASS
// NOPASS: {{^ +[0-9]+\.[0-9]+ \( *[0-9]+\.[0-9]%\)}}  Parser{{$}}
// NOPASS-NEXT: {{^ +[0-9]+\.[0-9]+ \( *[0-9]+\.[0-9]%\)}}  Output{{$}}
// NOPASS-NEXT: {{^ +[0-9]+\.[0-9]+ \( *[0-9]+\.[0-9]%\)}}  Rest{{$}}
// NOPASS-NEXT: {{^ +[0-9]+\.[0-9]+ \(100\.0%\)}}  Total{{$}}
//
// No report without the flag.
// RUN: acc-opt --pass cse %s -o %t 2>&1 | FileCheck %s --allow-empty --check-prefix=QUIET
// QUIET-NOT: {{.}}

// IR-LABEL: func.func @f(
// IR-NEXT: %[[A:.*]] = arith.addi %arg0, %arg0 : i32
// IR-NEXT: return %[[A]], %[[A]] : i32, i32
func.func @f(%x: i32) -> (i32, i32) {
  %r:2 = func.call @g(%x) : (i32) -> (i32, i32)
  return %r#0, %r#1 : i32, i32
}
func.func private @g(%x: i32) -> (i32, i32) {
  %a = arith.addi %x, %x : i32
  %b = arith.addi %x, %x : i32
  return %a, %b : i32, i32
}
