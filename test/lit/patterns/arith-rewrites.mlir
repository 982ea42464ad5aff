// The arith canonicalization patterns acc ships (dialects/defs/arith-rewrites.acc),
// which match MLIR's: constants move to the right of commutative ops and comparisons,
// and chains of additions and subtractions of constants collapse to one constant.
// RUN: acc-opt --pass canonicalize %s | FileCheck %s

// CHECK-LABEL: func.func @chains
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : i32
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : i32
// CHECK-DAG: %[[CM1:.*]] = arith.constant -1 : i32
// CHECK-DAG: %[[A:.*]] = arith.addi %arg0, %[[C3]] : i32
// CHECK-DAG: %[[B:.*]] = arith.subi %[[C8]], %arg0 : i32
// CHECK-DAG: %[[D:.*]] = arith.addi %arg0, %[[CM1]] : i32
// CHECK: return %[[A]], %[[B]], %[[D]]
func.func @chains(%x: i32) -> (i32, i32, i32) {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c5 = arith.constant 5 : i32
  // 1 + x + 2 = x + 3
  %a0 = arith.addi %c1, %x : i32
  %a = arith.addi %a0, %c2 : i32
  // 5 - (x - 1) - ... : c2 - (x - c1) = (c1 + c2) - x, then + 2
  %b0 = arith.subi %x, %c1 : i32
  %b1 = arith.subi %c5, %b0 : i32
  %b = arith.addi %b1, %c2 : i32
  // (x + 1) - 2 = x - 1
  %d0 = arith.addi %x, %c1 : i32
  %d = arith.subi %d0, %c2 : i32
  return %a, %b, %d : i32, i32, i32
}

// CHECK-LABEL: func.func @compare
// CHECK: %[[C:.*]] = arith.constant 7 : i64
// CHECK: arith.cmpi sgt, %arg0, %[[C]] : i64
// CHECK: arith.cmpi uge, %arg0, %[[C]] : i64
// CHECK: arith.cmpi eq, %arg0, %[[C]] : i64
func.func @compare(%x: i64) -> (i1, i1, i1) {
  %c = arith.constant 7 : i64
  %0 = arith.cmpi slt, %c, %x : i64
  %1 = arith.cmpi ule, %c, %x : i64
  %2 = arith.cmpi eq, %c, %x : i64
  return %0, %1, %2 : i1, i1, i1
}
