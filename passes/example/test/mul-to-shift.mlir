// The example pass rewrites multiplications by constant powers of two (on either
// side) into shifts, honours its max-shift option, and leaves other constants alone.
// RUN: acc-opt-example --pass mul-to-shift %s | FileCheck %s
// RUN: acc-opt-example --pass 'mul-to-shift{max-shift=2}' %s | FileCheck %s --check-prefix=MAX2
// RUN: acc-opt-example --list-passes | FileCheck %s --check-prefix=LIST

// CHECK-LABEL: func.func @f
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : i32
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[C6:.*]] = arith.constant 6 : i32
// CHECK-DAG: %[[A:.*]] = arith.shli %arg0, %[[C3]] : i32
// CHECK-DAG: %[[B:.*]] = arith.shli %arg0, %[[C2]] : i32
// CHECK-DAG: %[[D:.*]] = arith.muli %arg0, %[[C6]] : i32
// CHECK: return %[[A]], %[[B]], %[[D]]

// MAX2-LABEL: func.func @f
// MAX2: arith.muli %arg0, %{{.*}} : i32
// MAX2: arith.shli %arg0, %{{.*}} : i32
// MAX2: arith.muli %arg0, %{{.*}} : i32

// LIST: mul-to-shift
// LIST-SAME: Rewrite multiplications by a constant power of two into left shifts
// LIST: max-shift
func.func @f(%x: i32) -> (i32, i32, i32) {
  %c8 = arith.constant 8 : i32
  %c4 = arith.constant 4 : i32
  %c6 = arith.constant 6 : i32
  %a = arith.muli %x, %c8 : i32
  %b = arith.muli %c4, %x : i32
  %d = arith.muli %x, %c6 : i32
  return %a, %b, %d : i32, i32, i32
}
