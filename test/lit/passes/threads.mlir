// Passes on functions run in parallel, each thread on its own group of functions;
// the result must be the same as a serial run: same IR, same dumps in the same
// order, same errors. --threads 1 and --mlir-disable-threading are serial; 2 and 3
// split the 16 functions into groups of 8 and 6.
// RUN: acc-opt --pass inline,canonicalize,cse,symbol-dce --threads 1 %s -o %t.1
// RUN: acc-opt --pass inline,canonicalize,cse,symbol-dce --threads 2 %s -o %t.2
// RUN: acc-opt --pass inline,canonicalize,cse,symbol-dce --threads 3 %s -o %t.3
// RUN: acc-opt --pass inline,canonicalize,cse,symbol-dce --mlir-disable-threading %s -o %t.serial
// RUN: acc-opt --pass inline,canonicalize,cse,symbol-dce %s -o %t.default
// RUN: diff %t.1 %t.2
// RUN: diff %t.1 %t.3
// RUN: diff %t.1 %t.serial
// RUN: diff %t.1 %t.default
// RUN: FileCheck %s --input-file %t.2 --implicit-check-not=@helper
//
// IR dumps come in the functions' order whatever thread ran them.
// RUN: acc-opt --pass canonicalize,cse --print-ir-after-all --print-ir-before=cse --threads 1 %s -o %t.d1 2> %t.dumps1
// RUN: acc-opt --pass canonicalize,cse --print-ir-after-all --print-ir-before=cse --threads 2 %s -o %t.d2 2> %t.dumps2
// RUN: acc-opt --pass canonicalize,cse --print-ir-after-all --print-ir-before=cse --threads 3 %s -o %t.d3 2> %t.dumps3
// RUN: diff %t.dumps1 %t.dumps2
// RUN: diff %t.dumps1 %t.dumps3
// RUN: FileCheck %s --check-prefix=DUMPS --input-file %t.dumps2
//
// A failure is reported as in a serial run: only the first function that fails
// (@f5: @f0 to @f4 are already canonical), though other threads fail too.
// RUN: not acc-opt --pass 'canonicalize{max-iterations=1 test-convergence=true}' --threads 1 %s -o %t.e 2> %t.err1
// RUN: not acc-opt --pass 'canonicalize{max-iterations=1 test-convergence=true}' --threads 2 %s -o %t.e 2> %t.err2
// RUN: not acc-opt --pass 'canonicalize{max-iterations=1 test-convergence=true}' --threads 3 %s -o %t.e 2> %t.err3
// RUN: diff %t.err1 %t.err2
// RUN: diff %t.err1 %t.err3
// RUN: FileCheck %s --check-prefix=ERR --input-file %t.err2
// ERR: error: canonicalization did not converge after 1 iterations
// (the location of @f5 is checked next to it)
//
// Thread counts must be positive integers (a usage error, exit status 2).
// RUN: not acc-opt --threads 0 %s 2>&1 | FileCheck %s --check-prefix=BADTHREADS
// RUN: not acc-opt --threads=two %s 2>&1 | FileCheck %s --check-prefix=BADTHREADS
// BADTHREADS: acc-opt: invalid thread count

// CHECK-LABEL: func.func @f0(
// CHECK-NEXT: %[[A0:.*]] = arith.muli %arg0, %arg0 : i32
// CHECK-NEXT: return %[[A0]] : i32
func.func @f0(%x: i32) -> i32 {
  %a = arith.muli %x, %x : i32
  return %a : i32
}

// CHECK-LABEL: func.func @f1(
// CHECK-NEXT: %[[A1:.*]] = arith.muli %arg0, %arg0 : i32
// CHECK-NEXT: return %[[A1]] : i32
func.func @f1(%x: i32) -> i32 {
  %a = arith.muli %x, %x : i32
  return %a : i32
}

// CHECK-LABEL: func.func @f2(
// CHECK-NEXT: %[[A2:.*]] = arith.muli %arg0, %arg0 : i32
// CHECK-NEXT: return %[[A2]] : i32
func.func @f2(%x: i32) -> i32 {
  %a = arith.muli %x, %x : i32
  return %a : i32
}

// CHECK-LABEL: func.func @f3(
// CHECK-NEXT: %[[A3:.*]] = arith.muli %arg0, %arg0 : i32
// CHECK-NEXT: return %[[A3]] : i32
func.func @f3(%x: i32) -> i32 {
  %a = arith.muli %x, %x : i32
  return %a : i32
}

// CHECK-LABEL: func.func @f4(
// CHECK-NEXT: %[[A4:.*]] = arith.muli %arg0, %arg0 : i32
// CHECK-NEXT: return %[[A4]] : i32
func.func @f4(%x: i32) -> i32 {
  %a = arith.muli %x, %x : i32
  return %a : i32
}

// CHECK-LABEL: func.func @f5(
// CHECK-NEXT: %[[C5:.*]] = arith.constant 106 : i32
// CHECK-NEXT: %[[A5:.*]] = arith.addi %arg0, %[[C5]] : i32
// CHECK-NEXT: %[[M5:.*]] = arith.muli %[[A5]], %[[A5]] : i32
// CHECK-NEXT: return %[[M5]] : i32
// DUMPS: IR Dump After Canonicalizer (canonicalize)
// DUMPS: func.func @f5(
// DUMPS: IR Dump Before CSE (cse)
// DUMPS-NEXT: func.func @f5(
// DUMPS: IR Dump After CSE (cse)
// DUMPS-NEXT: func.func @f5(
// DUMPS-NEXT: arith.constant 106 : i32
// ERR-NEXT: threads.mlir:[[# @LINE + 2]]:1
// ERR-NOT: error
func.func @f5(%x: i32) -> i32 {
  %k = arith.constant 105 : i32
  %one = arith.constant 1 : i32
  %s = arith.addi %k, %one : i32
  %a = arith.addi %x, %s : i32
  %b = func.call @helper5(%x, %s) : (i32, i32) -> i32
  %r = arith.muli %a, %b : i32
  %dead = arith.subi %x, %one : i32
  return %r : i32
}
func.func private @helper5(%x: i32, %y: i32) -> i32 {
  %r = arith.addi %y, %x : i32
  return %r : i32
}

// CHECK-LABEL: func.func @f6(
// CHECK-NEXT: %[[C6:.*]] = arith.constant 107 : i32
// CHECK-NEXT: %[[A6:.*]] = arith.addi %arg0, %[[C6]] : i32
// CHECK-NEXT: %[[M6:.*]] = arith.muli %[[A6]], %[[A6]] : i32
// CHECK-NEXT: return %[[M6]] : i32
// DUMPS: IR Dump After Canonicalizer (canonicalize)
// DUMPS: func.func @f6(
// DUMPS: IR Dump Before CSE (cse)
// DUMPS-NEXT: func.func @f6(
// DUMPS: IR Dump After CSE (cse)
// DUMPS-NEXT: func.func @f6(
// DUMPS-NEXT: arith.constant 107 : i32
func.func @f6(%x: i32) -> i32 {
  %k = arith.constant 106 : i32
  %one = arith.constant 1 : i32
  %s = arith.addi %k, %one : i32
  %a = arith.addi %x, %s : i32
  %b = func.call @helper6(%x, %s) : (i32, i32) -> i32
  %r = arith.muli %a, %b : i32
  %dead = arith.subi %x, %one : i32
  return %r : i32
}
func.func private @helper6(%x: i32, %y: i32) -> i32 {
  %r = arith.addi %y, %x : i32
  return %r : i32
}

// CHECK-LABEL: func.func @f7(
// CHECK-NEXT: %[[C7:.*]] = arith.constant 108 : i32
// CHECK-NEXT: %[[A7:.*]] = arith.addi %arg0, %[[C7]] : i32
// CHECK-NEXT: %[[M7:.*]] = arith.muli %[[A7]], %[[A7]] : i32
// CHECK-NEXT: return %[[M7]] : i32
// DUMPS: IR Dump After Canonicalizer (canonicalize)
// DUMPS: func.func @f7(
// DUMPS: IR Dump Before CSE (cse)
// DUMPS-NEXT: func.func @f7(
// DUMPS: IR Dump After CSE (cse)
// DUMPS-NEXT: func.func @f7(
// DUMPS-NEXT: arith.constant 108 : i32
func.func @f7(%x: i32) -> i32 {
  %k = arith.constant 107 : i32
  %one = arith.constant 1 : i32
  %s = arith.addi %k, %one : i32
  %a = arith.addi %x, %s : i32
  %b = func.call @helper7(%x, %s) : (i32, i32) -> i32
  %r = arith.muli %a, %b : i32
  %dead = arith.subi %x, %one : i32
  return %r : i32
}
func.func private @helper7(%x: i32, %y: i32) -> i32 {
  %r = arith.addi %y, %x : i32
  return %r : i32
}

// CHECK-LABEL: func.func @f8(
// CHECK-NEXT: %[[C8:.*]] = arith.constant 109 : i32
// CHECK-NEXT: %[[A8:.*]] = arith.addi %arg0, %[[C8]] : i32
// CHECK-NEXT: %[[M8:.*]] = arith.muli %[[A8]], %[[A8]] : i32
// CHECK-NEXT: return %[[M8]] : i32
// DUMPS: IR Dump After Canonicalizer (canonicalize)
// DUMPS: func.func @f8(
// DUMPS: IR Dump Before CSE (cse)
// DUMPS-NEXT: func.func @f8(
// DUMPS: IR Dump After CSE (cse)
// DUMPS-NEXT: func.func @f8(
// DUMPS-NEXT: arith.constant 109 : i32
func.func @f8(%x: i32) -> i32 {
  %k = arith.constant 108 : i32
  %one = arith.constant 1 : i32
  %s = arith.addi %k, %one : i32
  %a = arith.addi %x, %s : i32
  %b = func.call @helper8(%x, %s) : (i32, i32) -> i32
  %r = arith.muli %a, %b : i32
  %dead = arith.subi %x, %one : i32
  return %r : i32
}
func.func private @helper8(%x: i32, %y: i32) -> i32 {
  %r = arith.addi %y, %x : i32
  return %r : i32
}

// CHECK-LABEL: func.func @f9(
// CHECK-NEXT: %[[C9:.*]] = arith.constant 110 : i32
// CHECK-NEXT: %[[A9:.*]] = arith.addi %arg0, %[[C9]] : i32
// CHECK-NEXT: %[[M9:.*]] = arith.muli %[[A9]], %[[A9]] : i32
// CHECK-NEXT: return %[[M9]] : i32
// DUMPS: IR Dump After Canonicalizer (canonicalize)
// DUMPS: func.func @f9(
// DUMPS: IR Dump Before CSE (cse)
// DUMPS-NEXT: func.func @f9(
// DUMPS: IR Dump After CSE (cse)
// DUMPS-NEXT: func.func @f9(
// DUMPS-NEXT: arith.constant 110 : i32
func.func @f9(%x: i32) -> i32 {
  %k = arith.constant 109 : i32
  %one = arith.constant 1 : i32
  %s = arith.addi %k, %one : i32
  %a = arith.addi %x, %s : i32
  %b = func.call @helper9(%x, %s) : (i32, i32) -> i32
  %r = arith.muli %a, %b : i32
  %dead = arith.subi %x, %one : i32
  return %r : i32
}
func.func private @helper9(%x: i32, %y: i32) -> i32 {
  %r = arith.addi %y, %x : i32
  return %r : i32
}

// CHECK-LABEL: func.func @f10(
// CHECK-NEXT: %[[C10:.*]] = arith.constant 111 : i32
// CHECK-NEXT: %[[A10:.*]] = arith.addi %arg0, %[[C10]] : i32
// CHECK-NEXT: %[[M10:.*]] = arith.muli %[[A10]], %[[A10]] : i32
// CHECK-NEXT: return %[[M10]] : i32
// DUMPS: IR Dump After Canonicalizer (canonicalize)
// DUMPS: func.func @f10(
// DUMPS: IR Dump Before CSE (cse)
// DUMPS-NEXT: func.func @f10(
// DUMPS: IR Dump After CSE (cse)
// DUMPS-NEXT: func.func @f10(
// DUMPS-NEXT: arith.constant 111 : i32
func.func @f10(%x: i32) -> i32 {
  %k = arith.constant 110 : i32
  %one = arith.constant 1 : i32
  %s = arith.addi %k, %one : i32
  %a = arith.addi %x, %s : i32
  %b = func.call @helper10(%x, %s) : (i32, i32) -> i32
  %r = arith.muli %a, %b : i32
  %dead = arith.subi %x, %one : i32
  return %r : i32
}
func.func private @helper10(%x: i32, %y: i32) -> i32 {
  %r = arith.addi %y, %x : i32
  return %r : i32
}

// CHECK-LABEL: func.func @f11(
// CHECK-NEXT: %[[C11:.*]] = arith.constant 112 : i32
// CHECK-NEXT: %[[A11:.*]] = arith.addi %arg0, %[[C11]] : i32
// CHECK-NEXT: %[[M11:.*]] = arith.muli %[[A11]], %[[A11]] : i32
// CHECK-NEXT: return %[[M11]] : i32
// DUMPS: IR Dump After Canonicalizer (canonicalize)
// DUMPS: func.func @f11(
// DUMPS: IR Dump Before CSE (cse)
// DUMPS-NEXT: func.func @f11(
// DUMPS: IR Dump After CSE (cse)
// DUMPS-NEXT: func.func @f11(
// DUMPS-NEXT: arith.constant 112 : i32
func.func @f11(%x: i32) -> i32 {
  %k = arith.constant 111 : i32
  %one = arith.constant 1 : i32
  %s = arith.addi %k, %one : i32
  %a = arith.addi %x, %s : i32
  %b = func.call @helper11(%x, %s) : (i32, i32) -> i32
  %r = arith.muli %a, %b : i32
  %dead = arith.subi %x, %one : i32
  return %r : i32
}
func.func private @helper11(%x: i32, %y: i32) -> i32 {
  %r = arith.addi %y, %x : i32
  return %r : i32
}

// CHECK-LABEL: func.func @f12(
// CHECK-NEXT: %[[C12:.*]] = arith.constant 113 : i32
// CHECK-NEXT: %[[A12:.*]] = arith.addi %arg0, %[[C12]] : i32
// CHECK-NEXT: %[[M12:.*]] = arith.muli %[[A12]], %[[A12]] : i32
// CHECK-NEXT: return %[[M12]] : i32
// DUMPS: IR Dump After Canonicalizer (canonicalize)
// DUMPS: func.func @f12(
// DUMPS: IR Dump Before CSE (cse)
// DUMPS-NEXT: func.func @f12(
// DUMPS: IR Dump After CSE (cse)
// DUMPS-NEXT: func.func @f12(
// DUMPS-NEXT: arith.constant 113 : i32
func.func @f12(%x: i32) -> i32 {
  %k = arith.constant 112 : i32
  %one = arith.constant 1 : i32
  %s = arith.addi %k, %one : i32
  %a = arith.addi %x, %s : i32
  %b = func.call @helper12(%x, %s) : (i32, i32) -> i32
  %r = arith.muli %a, %b : i32
  %dead = arith.subi %x, %one : i32
  return %r : i32
}
func.func private @helper12(%x: i32, %y: i32) -> i32 {
  %r = arith.addi %y, %x : i32
  return %r : i32
}

// CHECK-LABEL: func.func @f13(
// CHECK-NEXT: %[[C13:.*]] = arith.constant 114 : i32
// CHECK-NEXT: %[[A13:.*]] = arith.addi %arg0, %[[C13]] : i32
// CHECK-NEXT: %[[M13:.*]] = arith.muli %[[A13]], %[[A13]] : i32
// CHECK-NEXT: return %[[M13]] : i32
// DUMPS: IR Dump After Canonicalizer (canonicalize)
// DUMPS: func.func @f13(
// DUMPS: IR Dump Before CSE (cse)
// DUMPS-NEXT: func.func @f13(
// DUMPS: IR Dump After CSE (cse)
// DUMPS-NEXT: func.func @f13(
// DUMPS-NEXT: arith.constant 114 : i32
func.func @f13(%x: i32) -> i32 {
  %k = arith.constant 113 : i32
  %one = arith.constant 1 : i32
  %s = arith.addi %k, %one : i32
  %a = arith.addi %x, %s : i32
  %b = func.call @helper13(%x, %s) : (i32, i32) -> i32
  %r = arith.muli %a, %b : i32
  %dead = arith.subi %x, %one : i32
  return %r : i32
}
func.func private @helper13(%x: i32, %y: i32) -> i32 {
  %r = arith.addi %y, %x : i32
  return %r : i32
}

// CHECK-LABEL: func.func @f14(
// CHECK-NEXT: %[[C14:.*]] = arith.constant 115 : i32
// CHECK-NEXT: %[[A14:.*]] = arith.addi %arg0, %[[C14]] : i32
// CHECK-NEXT: %[[M14:.*]] = arith.muli %[[A14]], %[[A14]] : i32
// CHECK-NEXT: return %[[M14]] : i32
// DUMPS: IR Dump After Canonicalizer (canonicalize)
// DUMPS: func.func @f14(
// DUMPS: IR Dump Before CSE (cse)
// DUMPS-NEXT: func.func @f14(
// DUMPS: IR Dump After CSE (cse)
// DUMPS-NEXT: func.func @f14(
// DUMPS-NEXT: arith.constant 115 : i32
func.func @f14(%x: i32) -> i32 {
  %k = arith.constant 114 : i32
  %one = arith.constant 1 : i32
  %s = arith.addi %k, %one : i32
  %a = arith.addi %x, %s : i32
  %b = func.call @helper14(%x, %s) : (i32, i32) -> i32
  %r = arith.muli %a, %b : i32
  %dead = arith.subi %x, %one : i32
  return %r : i32
}
func.func private @helper14(%x: i32, %y: i32) -> i32 {
  %r = arith.addi %y, %x : i32
  return %r : i32
}

// CHECK-LABEL: func.func @f15(
// CHECK-NEXT: %[[C15:.*]] = arith.constant 116 : i32
// CHECK-NEXT: %[[A15:.*]] = arith.addi %arg0, %[[C15]] : i32
// CHECK-NEXT: %[[M15:.*]] = arith.muli %[[A15]], %[[A15]] : i32
// CHECK-NEXT: return %[[M15]] : i32
// DUMPS: IR Dump After Canonicalizer (canonicalize)
// DUMPS: func.func @f15(
// DUMPS: IR Dump Before CSE (cse)
// DUMPS-NEXT: func.func @f15(
// DUMPS: IR Dump After CSE (cse)
// DUMPS-NEXT: func.func @f15(
// DUMPS-NEXT: arith.constant 116 : i32
func.func @f15(%x: i32) -> i32 {
  %k = arith.constant 115 : i32
  %one = arith.constant 1 : i32
  %s = arith.addi %k, %one : i32
  %a = arith.addi %x, %s : i32
  %b = func.call @helper15(%x, %s) : (i32, i32) -> i32
  %r = arith.muli %a, %b : i32
  %dead = arith.subi %x, %one : i32
  return %r : i32
}
func.func private @helper15(%x: i32, %y: i32) -> i32 {
  %r = arith.addi %y, %x : i32
  return %r : i32
}
