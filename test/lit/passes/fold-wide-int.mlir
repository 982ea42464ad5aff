// canonicalize folds arithmetic on integers wider than 128 bits as mlir-opt does:
// two constants give the result wrapped to the width (the largest i130 plus one is
// the least), and adding 0 or multiplying by 1 gives the operand itself.
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
