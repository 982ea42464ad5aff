// Tests of the lit runner itself: files under Inputs/ are not tests (that one
// has a failing RUN line) but can be used by tests.
// RUN: FileCheck %s --input-file %S/Inputs/data.mlir
// CHECK: value = 42
