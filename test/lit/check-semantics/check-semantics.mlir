// --check-semantics runs every function in the reference interpreter on seeded random
// inputs before the pipeline and after each pass, and names the first pass that
// changes results. Correct passes go through; a deliberately wrong rewrite, loaded at
// run time, is caught and named, and nothing is written.
// RUN: acc-opt --check-semantics --pass canonicalize,cse %s | FileCheck %s --check-prefix=OK
// RUN: acc-opt --check-semantics --check-semantics-seed=7 --pass-pipeline='builtin.module(func.func(canonicalize),func.func(cse))' %s | FileCheck %s --check-prefix=OK
// RUN: not acc-opt --dialect %S/Inputs/wrong.acc --check-semantics --pass cse,canonicalize %s -o %t 2>&1 | FileCheck %s --check-prefix=WRONG
// RUN: not test -e %t
// Without the check, the wrong rewrite goes unnoticed.
// RUN: acc-opt --dialect %S/Inputs/wrong.acc --pass cse,canonicalize %s | FileCheck %s --check-prefix=UNCHECKED

// OK-LABEL: func.func @block
// OK: graph.relu
// WRONG: error: pass 'canonicalize' changed the results of '@block' (inputs of seed 0): result 0, element
// WRONG-NOT: pass 'cse'
// UNCHECKED-LABEL: func.func @block
// UNCHECKED-NOT: graph.relu
func.func @block(%x: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %s = graph.add %x, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %s2 = graph.add %x, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %m = graph.mul %s, %s2 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %m2 = graph.sub %m, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = graph.relu %m2 : tensor<2x3xf32>
  %n = graph.neg %r : tensor<2x3xf32>
  return %n : tensor<2x3xf32>
}

// OK-LABEL: func.func @arith
func.func @arith(%x: i32, %y: i32) -> (i32, i1) {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %a = arith.addi %c1, %x : i32
  %b = arith.addi %a, %c2 : i32
  %c = arith.subi %b, %y : i32
  %d = arith.cmpi slt, %c2, %c : i32
  return %c, %d : i32, i1
}
