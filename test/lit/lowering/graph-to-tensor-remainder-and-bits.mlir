// graph-to-tensor on ONNX's Mod, BitShift, Bitwise* and integer Pow, and on a matmul
// whose batch dimensions broadcast. numpy.mod (`graph.mod`) is C's remainder moved by
// the divisor when the signs differ (a zero float remainder takes the divisor's
// sign); a signed remainder divides by 1 where the divisor is -1, which arith.remsi
// leaves undefined for the smallest integer. Shift amounts are clamped below the width
// (where MLIR defines shli/shrui) and a select gives 0 beyond it; a signed right shift
// by width - 1 already fills with the sign. An integer power squares and multiplies
// over every bit of the exponent. Checked against the interpreter by --check-semantics
// on seeded inputs (shift amounts from -8 to 8 reach the out-of-range cases), at
// graph-to-tensor and after every pass down to the planned loops.
// RUN: acc-opt --check-semantics --pass graph-to-tensor %s | FileCheck %s
// RUN: acc-opt --check-semantics --pass canonicalize,graph-to-tensor,layout,bufferize,fuse-parallel,unroll,collapse-parallel,vectorize,buffer-deallocation,memory-plan %s | FileCheck %s --check-prefix=LOOPS

// CHECK-LABEL: func.func @remainders(
// CHECK: ^bb0(%[[A:.*]]: i32, %[[D:.*]]: i32):
// CHECK: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK: %[[M1:.*]] = arith.constant -1 : i32
// CHECK: %[[BY:.*]] = arith.cmpi eq, %[[D]], %[[M1]] : i32
// CHECK: %[[DIV:.*]] = arith.select %[[BY]], %[[ONE]], %[[D]] : i32
// CHECK: %[[R:.*]] = arith.remsi %[[A]], %[[DIV]] : i32
// CHECK: %[[NZ:.*]] = arith.cmpi ne, %[[R]]
// CHECK: %[[RN:.*]] = arith.cmpi slt, %[[R]]
// CHECK: %[[DN:.*]] = arith.cmpi slt, %[[D]]
// CHECK: %[[DIFF:.*]] = arith.xori %[[RN]], %[[DN]] : i1
// CHECK: %[[FIX:.*]] = arith.andi %[[NZ]], %[[DIFF]] : i1
// CHECK: %[[MOVED:.*]] = arith.addi %[[R]], %[[D]] : i32
// CHECK: arith.select %[[FIX]], %[[MOVED]], %[[R]] : i32
// CHECK: arith.remsi
// CHECK-NEXT: tensor.yield
// CHECK: %[[RF:.*]] = arith.remf %{{.*}}, %{{.*}} : f32
// CHECK: arith.cmpf une, %[[RF]]
// CHECK: arith.cmpf oeq, %[[RF]]
// CHECK: arith.constant -0.000000e+00 : f32
// CHECK: arith.remf
// CHECK-NEXT: tensor.yield
// LOOPS-LABEL: func.func @remainders(
// LOOPS: arith.remsi
// LOOPS: arith.remf
func.func @remainders(%a: tensor<8xi32>, %x: tensor<8xf32>, %y: tensor<8xf32>) -> (tensor<8xi32>, tensor<8xi32>, tensor<8xf32>, tensor<8xf32>) {
  %d = graph.constant dense<[3, -3, 5, -5, 7, -7, 2, -1]> : tensor<8xi32>
  %m = graph.mod %a, %d : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  %f = graph.fmod %a, %d : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  %mf = graph.mod %x, %y : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %ff = graph.fmod %x, %y : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %m, %f, %mf, %ff : tensor<8xi32>, tensor<8xi32>, tensor<8xf32>, tensor<8xf32>
}

// CHECK-LABEL: func.func @bits(
// CHECK: ^bb0(%[[X:.*]]: i8, %[[S:.*]]: i8):
// CHECK: %[[LAST:.*]] = arith.constant 7 : i8
// CHECK: %[[N:.*]] = arith.minui %[[S]], %[[LAST]] : i8
// CHECK: %[[L:.*]] = arith.shli %[[X]], %[[N]] : i8
// CHECK: %[[OUT:.*]] = arith.cmpi ugt, %[[S]], %[[LAST]] : i8
// CHECK: %[[Z:.*]] = arith.constant 0 : i8
// CHECK: arith.select %[[OUT]], %[[Z]], %[[L]] : i8
// CHECK: arith.minui
// CHECK-NEXT: arith.shrsi
// CHECK-NEXT: tensor.yield
// CHECK: arith.minui
// CHECK-NEXT: arith.shrui
// CHECK: arith.xori
// CHECK: arith.constant -1 : i8
// CHECK-NEXT: arith.xori
// LOOPS-LABEL: func.func @bits(
// LOOPS: arith.shli
// LOOPS: arith.shrsi
// LOOPS: arith.shrui
func.func @bits(%a: tensor<8xi8>, %b: tensor<8xi8>, %u: tensor<8xui8>, %v: tensor<8xui8>) -> (tensor<8xi8>, tensor<8xi8>, tensor<8xui8>, tensor<8xui8>, tensor<8xi8>) {
  %l = graph.shift_left %a, %b : (tensor<8xi8>, tensor<8xi8>) -> tensor<8xi8>
  %r = graph.shift_right %a, %b : (tensor<8xi8>, tensor<8xi8>) -> tensor<8xi8>
  %ur = graph.shift_right %u, %v : (tensor<8xui8>, tensor<8xui8>) -> tensor<8xui8>
  %x = graph.bitwise_xor %u, %v : (tensor<8xui8>, tensor<8xui8>) -> tensor<8xui8>
  %n = graph.bitwise_not %a : tensor<8xi8>
  return %l, %r, %ur, %x, %n : tensor<8xi8>, tensor<8xi8>, tensor<8xui8>, tensor<8xui8>, tensor<8xi8>
}

// CHECK-LABEL: func.func @power(
// CHECK-COUNT-32: arith.select %{{.*}}, %{{.*}}, %{{.*}} : i32
// CHECK-NOT: arith.muli
// CHECK: tensor.yield
// LOOPS-LABEL: func.func @power(
// LOOPS: arith.muli
func.func @power(%a: tensor<8xi32>) -> tensor<8xi32> {
  %e = graph.constant dense<[0, 1, 2, 3, 5, 7, 9, 2]> : tensor<8xi32>
  %p = graph.pow %a, %e : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  return %p : tensor<8xi32>
}

// CHECK-LABEL: func.func @batched(
// CHECK: tensor.broadcast ins(%{{.*}} : tensor<3x2x4xf32>) outs(%{{.*}} : tensor<3x2x2x4xf32>) dimensions = [1]
// CHECK: tensor.broadcast ins(%{{.*}} : tensor<2x4x2xf32>) outs(%{{.*}} : tensor<3x2x4x2xf32>) dimensions = [0]
// CHECK: tensor.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<6x2x4xf32>, tensor<6x4x2xf32>)
// LOOPS-LABEL: func.func @batched(
func.func @batched(%a: tensor<3x1x2x4xf32>, %b: tensor<2x4x2xf32>) -> tensor<3x2x2x2xf32> {
  %p = graph.matmul %a, %b : (tensor<3x1x2x4xf32>, tensor<2x4x2xf32>) -> tensor<3x2x2x2xf32>
  return %p : tensor<3x2x2x2xf32>
}
