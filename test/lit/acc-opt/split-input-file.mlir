// --split-input-file handles each '// -----' chunk on its own, joins the outputs with
// the same marker, and keeps the original line numbers in diagnostics.
// RUN: acc-opt --split-input-file --allow-unregistered-dialect %s | FileCheck %s
// RUN: not acc-opt --split-input-file %s 2>&1 | FileCheck %s --check-prefix=ERR

// CHECK: "t.first"
// CHECK: // -----
// CHECK: "t.second"
// ERR: split-input-file.mlir:[[# @LINE + 1]]:1
"t.first"() : () -> ()

// -----

// ERR: split-input-file.mlir:[[# @LINE + 1]]:1
"t.second"() : () -> ()
