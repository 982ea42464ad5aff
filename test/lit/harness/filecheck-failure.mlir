// Tests of the lit runner itself: a failing FileCheck exits non-zero and
// names the failed directive's location on stderr.
// RUN: echo foo | not FileCheck %s --check-prefix=MISSING 2>&1 | FileCheck %s --check-prefix=DIAG
// MISSING: bar
// DIAG: filecheck-failure.mlir:4:
