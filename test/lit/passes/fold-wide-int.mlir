// canonicalize folds arithmetic on integers wider than 64 bits as mlir-opt does:
// two constants give the result wrapped to the width (the largest i130 plus one is
// the least), and adding 0 or multiplying by 1 gives the operand itself. Every value
// below is mlir-opt 22's.
// RUN: acc-opt --pass canonicalize %s | FileCheck %s

// CHECK-LABEL: func.func @constants(
// CHECK-DAG: %[[SUM:.*]] = arith.constant 680564733841876926926749214863536422914 : i256
// CHECK-DAG: %[[WRAP:.*]] = arith.constant -680564733841876926926749214863536422912 : i130
// CHECK-DAG: %[[PROD:.*]] = arith.constant -2 : i130
// CHECK-DAG: %[[AND:.*]] = arith.constant 4 : i256
// CHECK-DAG: %[[MAX:.*]] = arith.constant 5 : i256
// CHECK: return %[[SUM]], %[[WRAP]], %[[PROD]], %[[AND]], %[[MAX]] :
func.func @constants() -> (i256, i130, i130, i256, i256) {
  %a = arith.constant 340282366920938463463374607431768211457 : i256
  %sum = arith.addi %a, %a : i256
  %max = arith.constant 680564733841876926926749214863536422911 : i130
  %one = arith.constant 1 : i130
  %wrap = arith.addi %max, %one : i130
  %two = arith.constant 2 : i130
  %prod = arith.muli %max, %two : i130
  %five = arith.constant 5 : i256
  %six = arith.constant 6 : i256
  %and = arith.andi %five, %six : i256
  %m = arith.constant -7 : i256
  %big = arith.maxsi %m, %five : i256
  return %sum, %wrap, %prod, %and, %big : i256, i130, i130, i256, i256
}

// CHECK-LABEL: func.func @identities(
// CHECK-SAME: %[[X:.*]]: i256
// CHECK-NOT: arith.addi
// CHECK-NOT: arith.muli
// CHECK: return %[[X]], %[[X]] :
func.func @identities(%x: i256) -> (i256, i256) {
  %zero = arith.constant 0 : i256
  %one = arith.constant 1 : i256
  %s = arith.addi %x, %zero : i256
  %p = arith.muli %x, %one : i256
  return %s, %p : i256, i256
}

// 65 to 128 bits, and shifts, divisions, unsigned ops and comparisons at any width.
// CHECK-LABEL: func.func @mid(
// CHECK-DAG: %[[S:.*]] = arith.constant -633825300114114700748351602686 : i100
// CHECK-DAG: %[[P:.*]] = arith.constant 633825300114114700748351602685 : i100
// CHECK-DAG: %[[W:.*]] = arith.constant -170141183460469231731687303715884105728 : i128
// CHECK-DAG: %[[D:.*]] = arith.constant 211275100038038233582783867562 : i100
// CHECK-DAG: %[[T:.*]] = arith.constant true
// CHECK-DAG: %[[F:.*]] = arith.constant false
// CHECK-DAG: %[[SH:.*]] = arith.constant 24 : i100
// CHECK: return %[[S]], %[[P]], %[[W]], %[[D]], %[[T]], %[[F]], %[[SH]] :
func.func @mid() -> (i100, i100, i128, i100, i1, i1, i100) {
  %a = arith.constant 633825300114114700748351602687 : i100
  %b = arith.constant 3 : i100
  %s = arith.addi %a, %b : i100
  %p = arith.muli %a, %b : i100
  %c = arith.constant 170141183460469231731687303715884105727 : i128
  %one = arith.constant 1 : i128
  %w = arith.addi %c, %one : i128
  %d = arith.divsi %a, %b : i100
  %lt = arith.cmpi slt, %s, %a : i100
  %ult = arith.cmpi ult, %s, %a : i100
  %sh = arith.shli %b, %b : i100
  return %s, %p, %w, %d, %lt, %ult, %sh : i100, i100, i128, i100, i1, i1, i100
}

// CHECK-LABEL: func.func @wide(
// CHECK-DAG: %[[A:.*]] = arith.constant -1000000000000000000000000000000000000000000 : i256
// CHECK-DAG: %[[D:.*]] = arith.constant -142857142857142857142857142857142857142857 : i256
// CHECK-DAG: %[[R:.*]] = arith.constant -1 : i256
// CHECK-DAG: %[[U:.*]] = arith.constant 16541727033902313631938712144098272407609997809377223434208226286844732805705 : i256
// CHECK-DAG: %[[L:.*]] = arith.constant 896 : i256
// CHECK-DAG: %[[H:.*]] = arith.constant -7812500000000000000000000000000000000000 : i256
// CHECK-DAG: %[[T:.*]] = arith.constant true
// CHECK-DAG: %[[F:.*]] = arith.constant false
// CHECK: return %[[D]], %[[R]], %[[U]], %[[L]], %[[H]], %[[T]], %[[F]], %[[A]] :
func.func @wide() -> (i256, i256, i256, i256, i256, i1, i1, i256) {
  %a = arith.constant -1000000000000000000000000000000000000000000 : i256
  %b = arith.constant 7 : i256
  %d = arith.divsi %a, %b : i256
  %r = arith.remsi %a, %b : i256
  %u = arith.divui %a, %b : i256
  %l = arith.shli %b, %b : i256
  %h = arith.shrsi %a, %b : i256
  %lt = arith.cmpi slt, %a, %b : i256
  %ult = arith.cmpi ult, %a, %b : i256
  %m = arith.maxui %a, %b : i256
  return %d, %r, %u, %l, %h, %lt, %ult, %m : i256, i256, i256, i256, i256, i1, i1, i256
}

// Left as mlir-opt leaves them: a division by zero and a shift by the width.
// CHECK-LABEL: func.func @undefined(
// CHECK: arith.divsi
// CHECK: arith.shli
func.func @undefined() -> (i100, i100) {
  %a = arith.constant 5 : i100
  %z = arith.constant 0 : i100
  %n = arith.constant 100 : i100
  %d = arith.divsi %a, %z : i100
  %s = arith.shli %a, %n : i100
  return %d, %s : i100, i100
}
