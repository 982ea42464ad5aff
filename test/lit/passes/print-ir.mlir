// Printing the IR around passes, on standard error, with MLIR's headers
// "// -----// IR Dump Before|After <title> (<name>) //----- //" followed by the op the
// pass ran on (each function for function passes, the module for module passes).
// The transformed IR still goes to standard output (or -o).
//
// Before one pass: canonicalize has run (3 is folded), cse has not (two addis).
// RUN: acc-opt --pass canonicalize,cse,symbol-dce --print-ir-before=cse %s -o %t 2>&1 | FileCheck %s --check-prefix=BEFORE --implicit-check-not='IR Dump'
// RUN: FileCheck %s --input-file %t
// BEFORE:      // -----// IR Dump Before CSE (cse) //----- //
// BEFORE-NEXT: func.func @f(%arg0: i32) -> i32 {
// BEFORE-NEXT:   %0 = arith.constant 3 : i32
// BEFORE-NEXT:   %1 = arith.addi %arg0, %0 : i32
// BEFORE-NEXT:   %2 = arith.addi %arg0, %0 : i32
// BEFORE-NEXT:   %3 = arith.muli %1, %2 : i32
// BEFORE-NEXT:   return %3 : i32
// BEFORE-NEXT: }
// BEFORE-NEXT: // -----// IR Dump Before CSE (cse) //----- //
// BEFORE-NEXT: func.func @g(%arg0: i32) -> i32 {
// BEFORE:      // -----// IR Dump Before CSE (cse) //----- //
// BEFORE-NEXT: func.func private @unused() {
//
// After one pass (MLIR's spelling of the flag too).
// RUN: acc-opt --pass canonicalize,cse,symbol-dce --print-ir-after=canonicalize %s -o %t 2>&1 | FileCheck %s --check-prefix=AFTER --implicit-check-not='IR Dump'
// RUN: acc-opt --pass canonicalize,cse,symbol-dce --mlir-print-ir-after=canonicalize %s -o %t 2>&1 | FileCheck %s --check-prefix=AFTER --implicit-check-not='IR Dump'
// AFTER:      // -----// IR Dump After Canonicalizer (canonicalize) //----- //
// AFTER-NEXT: func.func @f(%arg0: i32) -> i32 {
// AFTER-NEXT:   %0 = arith.constant 3 : i32
// AFTER-NEXT:   %1 = arith.addi %arg0, %0 : i32
// AFTER-NEXT:   %2 = arith.addi %arg0, %0 : i32
// AFTER:      // -----// IR Dump After Canonicalizer (canonicalize) //----- //
// AFTER-NEXT: func.func @g(
// AFTER:      // -----// IR Dump After Canonicalizer (canonicalize) //----- //
// AFTER-NEXT: func.func private @unused() {
//
// Both flags repeat.
// RUN: acc-opt --pass canonicalize,cse,symbol-dce --print-ir-after=cse --print-ir-after=symbol-dce --print-ir-before=symbol-dce %s -o %t 2>&1 | FileCheck %s --check-prefix=REPEAT --implicit-check-not='IR Dump'
// REPEAT:      // -----// IR Dump After CSE (cse) //----- //
// REPEAT-NEXT: func.func @f(
// REPEAT:      // -----// IR Dump After CSE (cse) //----- //
// REPEAT-NEXT: func.func @g(
// REPEAT:      // -----// IR Dump After CSE (cse) //----- //
// REPEAT-NEXT: func.func private @unused() {
// REPEAT:      // -----// IR Dump Before SymbolDCE (symbol-dce) //----- //
// REPEAT-NEXT: module {
// REPEAT:      func.func private @unused() {
// REPEAT:      // -----// IR Dump After SymbolDCE (symbol-dce) //----- //
// REPEAT-NEXT: module {
// REPEAT-NOT:  @unused
// REPEAT:      {{^}}}{{$}}
//
// After every pass, in the order the passes ran: each function through its pipeline,
// then the module pass.
// RUN: acc-opt --pass canonicalize,cse,symbol-dce --print-ir-after-all %s -o %t 2>&1 | FileCheck %s --check-prefix=ALL --implicit-check-not='IR Dump'
// ALL:      // -----// IR Dump After Canonicalizer (canonicalize) //----- //
// ALL-NEXT: func.func @f(
// ALL:      // -----// IR Dump After CSE (cse) //----- //
// ALL-NEXT: func.func @f(%arg0: i32) -> i32 {
// ALL-NEXT:   %0 = arith.constant 3 : i32
// ALL-NEXT:   %1 = arith.addi %arg0, %0 : i32
// ALL-NEXT:   %2 = arith.muli %1, %1 : i32
// ALL-NEXT:   return %2 : i32
// ALL-NEXT: }
// ALL-NEXT: // -----// IR Dump After Canonicalizer (canonicalize) //----- //
// ALL-NEXT: func.func @g(
// ALL:      // -----// IR Dump After CSE (cse) //----- //
// ALL-NEXT: func.func @g(
// ALL:      // -----// IR Dump After Canonicalizer (canonicalize) //----- //
// ALL-NEXT: func.func private @unused() {
// ALL:      // -----// IR Dump After CSE (cse) //----- //
// ALL-NEXT: func.func private @unused() {
// ALL:      // -----// IR Dump After SymbolDCE (symbol-dce) //----- //
// ALL-NEXT: module {
// ALL-NEXT:   func.func @f(
// ALL:        func.func @g(
// ALL-NOT:    @unused
// ALL:      {{^}}}{{$}}
//
// Before every pass.
// RUN: acc-opt --pass canonicalize,cse,symbol-dce --print-ir-before-all %s -o %t 2>&1 | FileCheck %s --check-prefix=BEFORE-ALL --implicit-check-not='IR Dump'
// BEFORE-ALL:      // -----// IR Dump Before Canonicalizer (canonicalize) //----- //
// BEFORE-ALL-NEXT: func.func @f(%arg0: i32) -> i32 {
// BEFORE-ALL-NEXT:   %0 = arith.constant 1 : i32
// BEFORE-ALL:      // -----// IR Dump Before CSE (cse) //----- //
// BEFORE-ALL-NEXT: func.func @f(
// BEFORE-ALL:      // -----// IR Dump Before Canonicalizer (canonicalize) //----- //
// BEFORE-ALL-NEXT: func.func @g(
// BEFORE-ALL:      // -----// IR Dump Before CSE (cse) //----- //
// BEFORE-ALL-NEXT: func.func @g(
// BEFORE-ALL:      // -----// IR Dump Before Canonicalizer (canonicalize) //----- //
// BEFORE-ALL-NEXT: func.func private @unused() {
// BEFORE-ALL:      // -----// IR Dump Before CSE (cse) //----- //
// BEFORE-ALL-NEXT: func.func private @unused() {
// BEFORE-ALL:      // -----// IR Dump Before SymbolDCE (symbol-dce) //----- //
// BEFORE-ALL-NEXT: module {
//
// Only after the passes that changed the op they ran on: canonicalize and cse on @f,
// and symbol-dce (it erased @unused); not the passes on @g and @unused, which
// changed nothing.
// RUN: acc-opt --pass canonicalize,cse,symbol-dce --print-ir-after-change %s -o %t 2>&1 | FileCheck %s --check-prefix=CHANGE --implicit-check-not='IR Dump'
// RUN: acc-opt --pass canonicalize,cse,symbol-dce --print-ir-after-change --print-ir-after-all %s -o %t 2>&1 | FileCheck %s --check-prefix=CHANGE --implicit-check-not='IR Dump'
// CHANGE:      // -----// IR Dump After Canonicalizer (canonicalize) //----- //
// CHANGE-NEXT: func.func @f(
// CHANGE:      // -----// IR Dump After CSE (cse) //----- //
// CHANGE-NEXT: func.func @f(
// CHANGE:      // -----// IR Dump After SymbolDCE (symbol-dce) //----- //
// CHANGE-NEXT: module {
// With --print-ir-after it narrows those dumps to the ones that changed.
// RUN: acc-opt --pass canonicalize,cse,symbol-dce --print-ir-after-change --print-ir-after=cse %s -o %t 2>&1 | FileCheck %s --check-prefix=CHANGE-CSE --implicit-check-not='IR Dump'
// CHANGE-CSE:      // -----// IR Dump After CSE (cse) //----- //
// CHANGE-CSE-NEXT: func.func @f(
//
// Dumps follow the printing options: in generic form with --print-generic.
// RUN: acc-opt --pass cse --print-ir-after=cse --print-generic %s -o %t 2>&1 | FileCheck %s --check-prefix=GENERIC
// GENERIC:      // -----// IR Dump After CSE (cse) //----- //
// GENERIC-NEXT: "func.func"() <{function_type = (i32) -> i32, sym_name = "f"}> ({
// GENERIC:      "arith.muli"(%[[A:.*]], %[[A]])
//
// Nothing is dumped on standard output, and nothing at all without a pipeline.
// RUN: acc-opt --pass canonicalize,cse,symbol-dce --print-ir-after-all --print-ir-before-all %s 2>/dev/null | FileCheck %s --implicit-check-not='IR Dump'
// RUN: acc-opt --print-ir-after-all %s 2>&1 | FileCheck %s --check-prefix=NOPASS --implicit-check-not='IR Dump'
// NOPASS: func.func private @unused() {

// The final IR.
// CHECK-LABEL: func.func @f(
// CHECK-NEXT: %[[C3:.*]] = arith.constant 3 : i32
// CHECK-NEXT: %[[A:.*]] = arith.addi %arg0, %[[C3]] : i32
// CHECK-NEXT: %[[R:.*]] = arith.muli %[[A]], %[[A]] : i32
// CHECK-NEXT: return %[[R]] : i32
// CHECK-LABEL: func.func @g(
// CHECK-NEXT: return %arg0 : i32
// CHECK-NOT: @unused
func.func @f(%x: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %s = arith.addi %c1, %c2 : i32
  %a = arith.addi %x, %s : i32
  %b = arith.addi %x, %s : i32
  %r = arith.muli %a, %b : i32
  return %r : i32
}
func.func @g(%x: i32) -> i32 {
  return %x : i32
}
func.func private @unused() {
  return
}
