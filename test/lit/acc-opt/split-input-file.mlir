// --split-input-file handles each '// -----' chunk on its own, joins the outputs with
// the same marker, and keeps the original line numbers in diagnostics.
// RUN: acc-opt --split-input-file --allow-unregistered-dialect %s | FileCheck %s
// RUN: not acc-opt --split-input-file %s 2>&1 | FileCheck %s --check-prefix=ERR
// The implicit module of a chunk is located as mlir-opt locates it: the first at 0:0,
// the others at the end of the '// -----' marker before them.
// RUN: acc-opt --split-input-file --allow-unregistered-dialect --print-debuginfo %s | FileCheck %s --check-prefix=LOC

// CHECK: "t.first"
// CHECK: // -----
// CHECK: "t.second"
// ERR: split-input-file.mlir:[[# @LINE + 1]]:1
"t.first"() : () -> ()
// LOC: } loc("{{.*}}split-input-file.mlir":0:0)
// LOC: } loc("{{.*}}split-input-file.mlir":[[# @LINE + 2]]:9)

// -----

// ERR: split-input-file.mlir:[[# @LINE + 1]]:1
"t.second"() : () -> ()
