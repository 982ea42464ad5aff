// The IR is verified after every pass, by default: a pass that leaves invalid IR (here
// canonicalize applying a broken rewrite pattern loaded from Inputs/) makes acc-opt
// fail with the verifier's error, name the pass, run no further pass and write no
// output. --verify-each=false and --no-verify turn that off.
// RUN: rm -f %t
// RUN: not acc-opt --dialect %S/Inputs/invalid-rewrite.acc --pass canonicalize,cse --print-ir-before=cse %s -o %t 2>&1 | FileCheck %s --check-prefix=INVALID
// RUN: not test -e %t
// RUN: not acc-opt --dialect %S/Inputs/invalid-rewrite.acc --pass canonicalize --verify-each %s 2>&1 | FileCheck %s --check-prefix=INVALID
// RUN: not acc-opt --dialect %S/Inputs/invalid-rewrite.acc --pass canonicalize --verify-each=true --threads 2 %s 2>&1 | FileCheck %s --check-prefix=INVALID
// INVALID: error: 'vtest.wrap' op attribute 'n' must be of kind 'i64', but got 1.500000e+00 : f32
// INVALID: error: the IR is invalid after pass 'canonicalize'
// INVALID-NOT: IR Dump Before CSE
//
// Not verified: the invalid op is printed (in generic form, as its custom form
// cannot be trusted).
// RUN: acc-opt --dialect %S/Inputs/invalid-rewrite.acc --pass canonicalize --verify-each=false %s | FileCheck %s --check-prefix=UNVERIFIED
// RUN: acc-opt --dialect %S/Inputs/invalid-rewrite.acc --pass canonicalize --no-verify %s | FileCheck %s --check-prefix=UNVERIFIED
// UNVERIFIED-LABEL: func.func @rewritten(
// UNVERIFIED-NEXT: %[[W:.*]] = "vtest.wrap"(%arg0) <{n = 1.500000e+00 : f32}> : (i32) -> i32
// UNVERIFIED-NEXT: return %[[W]] : i32
//
// Valid IR passes verification after each pass.
// RUN: acc-opt --pass canonicalize,cse --verify-each %s | FileCheck %s
// CHECK-LABEL: func.func @rewritten(
// CHECK-NEXT: %[[M:.*]] = arith.maxui %arg0, %arg1 : i32
// CHECK-NEXT: return %[[M]] : i32
//
// The input itself is verified before any pass runs.
// RUN: not acc-opt --pass cse %S/Inputs/invalid-input.mlir 2>&1 | FileCheck %s --check-prefix=INPUT
// INPUT: error: 'func.return' op type of return operand 0 (i32) doesn't match function result type (i64) in function @f
// INPUT-NOT: IR Dump
func.func @rewritten(%x: i32, %y: i32) -> i32 {
  %r = arith.maxui %x, %y : i32
  return %r : i32
}
