// fold: folds ops whose operands are constants (scalars, and whole constant tensors
// such as weights, with numpy broadcasting), applies folding identities, puts constants
// on the right of commutative ops, hoists and deduplicates constants and erases dead
// ops. Unlike canonicalize it applies no rewrite patterns.
// RUN: acc-opt --pass fold %s | FileCheck %s
// RUN: acc-opt --fold %s | FileCheck %s
// RUN: acc-opt --pass-pipeline='builtin.module(fold)' %s | FileCheck %s
// RUN: acc-opt --pass fold %s | acc-opt --pass fold | FileCheck %s
// RUN: acc-opt --print-generic %s | acc-opt --pass fold | FileCheck %s
// canonicalize does this and more: the patterns fold(x + 1 + 2) leaves alone.
// RUN: acc-opt --pass canonicalize %s | FileCheck %s --check-prefix=CANON

// CHECK-LABEL: func.func @scalars(
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[FALSE:.*]] = arith.constant false
// CHECK-DAG: %[[F3:.*]] = arith.constant 3.000000e+00 : f32
// CHECK: %[[A0:.*]] = arith.addi %arg0, %[[C1]] : i32
// CHECK-NEXT: %[[A:.*]] = arith.addi %[[A0]], %[[C2]] : i32
// CHECK-NEXT: %[[M:.*]] = arith.muli %arg0, %[[C2]] : i32
// CHECK-NEXT: return %[[A]], %arg0, %[[FALSE]], %[[F3]], %[[M]] : i32, i32, i1, f32, i32
// CANON-LABEL: func.func @scalars(
// CANON-DAG: %[[C3:.*]] = arith.constant 3 : i32
// CANON-DAG: %[[C2:.*]] = arith.constant 2 : i32
// CANON: %[[A:.*]] = arith.addi %arg0, %[[C3]] : i32
// CANON-NEXT: %[[M:.*]] = arith.muli %arg0, %[[C2]] : i32
// CANON-NEXT: return %[[A]], %arg0, %{{.*}}, %{{.*}}, %[[M]] :
func.func @scalars(%x: i32) -> (i32, i32, i1, f32, i32) {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  // (x + 1) + 2: a pattern's job, not folding's
  %a0 = arith.addi %x, %c1 : i32
  %a = arith.addi %a0, %c2 : i32
  // x * 1 = x
  %b = arith.muli %x, %c1 : i32
  // 2 <u 1 is false
  %t = arith.cmpi ult, %c2, %c1 : i32
  %f1 = arith.constant 1.5 : f32
  %f2 = arith.constant 2.0 : f32
  %f = arith.mulf %f1, %f2 : f32
  // the constant moves right
  %m = arith.muli %c2, %x : i32
  %dead = arith.subi %x, %c1 : i32
  return %a, %b, %t, %f, %m : i32, i32, i1, f32, i32
}

// Weights: relu([[1, -2], [3, -4]]) + [10, 20] (broadcast over rows) is computed at
// compile time, and so is its reshape; an op with a non-constant operand is not.
// CHECK-LABEL: func.func @weights(
// CHECK-DAG: %[[B:.*]] = graph.constant dense<[1.000000e+01, 2.000000e+01]> : tensor<2xf32>
// CHECK-DAG: %[[S:.*]] = graph.constant dense<{{\[\[}}1.100000e+01, 2.000000e+01], [1.300000e+01, 2.000000e+01]]> : tensor<2x2xf32>
// CHECK-DAG: %[[F:.*]] = graph.constant dense<[1.100000e+01, 2.000000e+01, 1.300000e+01, 2.000000e+01]> : tensor<4xf32>
// CHECK: %[[Y:.*]] = graph.mul %arg0, %[[B]] : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
// CHECK-NEXT: return %[[S]], %[[F]], %[[Y]] :
func.func @weights(%x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<4xf32>, tensor<2x2xf32>) {
  %w = graph.constant dense<[[1.0, -2.0], [3.0, -4.0]]> : tensor<2x2xf32>
  %b = graph.constant dense<[10.0, 20.0]> : tensor<2xf32>
  %r = graph.relu %w : tensor<2x2xf32>
  %s = graph.add %r, %b : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %f = graph.reshape %s {shape = array<i64: 4>} : (tensor<2x2xf32>) -> tensor<4xf32>
  %y = graph.mul %b, %x : (tensor<2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %s, %f, %y : tensor<2x2xf32>, tensor<4xf32>, tensor<2x2xf32>
}

// Integer tensors: division truncates toward zero; a division by zero anywhere in the
// tensor is left unfolded.
// CHECK-LABEL: func.func @int_tensors(
// CHECK-DAG: %[[A:.*]] = graph.constant dense<[7, -7, 9]> : tensor<3xi32>
// CHECK-DAG: %[[Z:.*]] = graph.constant dense<[2, 2, 0]> : tensor<3xi32>
// CHECK-DAG: %[[Q:.*]] = graph.constant dense<[3, -3, 3]> : tensor<3xi32>
// CHECK: %[[D:.*]] = graph.div %[[A]], %[[Z]] :
// CHECK-NEXT: return %[[D]], %[[Q]] :
func.func @int_tensors() -> (tensor<3xi32>, tensor<3xi32>) {
  %a = graph.constant dense<[7, -7, 9]> : tensor<3xi32>
  %b = graph.constant dense<[2, 2, 0]> : tensor<3xi32>
  %c = graph.constant dense<[2, 2, 3]> : tensor<3xi32>
  %d = graph.div %a, %b : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %e = graph.div %a, %c : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  return %d, %e : tensor<3xi32>, tensor<3xi32>
}

// Transposes of constants are constants (weights laid out at compile time); an
// identity permutation is the input itself; a splat stays a splat.
// CHECK-LABEL: func.func @transposes(
// CHECK-DAG: %[[A:.*]] = graph.constant dense<{{\[\[\[}}0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]], {{\[\[}}12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]]]> : tensor<2x3x4xi32>
// CHECK-DAG: %[[T:.*]] = graph.constant dense<{{\[\[\[}}0, 4, 8], [12, 16, 20]], {{\[\[}}1, 5, 9], [13, 17, 21]], {{\[\[}}2, 6, 10], [14, 18, 22]], {{\[\[}}3, 7, 11], [15, 19, 23]]]> : tensor<4x2x3xi32>
// CHECK-DAG: %[[S:.*]] = graph.constant dense<1.500000e+00> : tensor<3x2xf32>
// CHECK: return %[[T]], %[[A]], %[[S]] :
func.func @transposes() -> (tensor<4x2x3xi32>, tensor<2x3x4xi32>, tensor<3x2xf32>) {
  %a = graph.constant dense<[[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]], [[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]]]> : tensor<2x3x4xi32>
  %t = graph.transpose %a {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xi32>) -> tensor<4x2x3xi32>
  %i = graph.transpose %a {perm = array<i64: 0, 1, 2>} : (tensor<2x3x4xi32>) -> tensor<2x3x4xi32>
  %s = graph.constant dense<1.5> : tensor<2x3xf32>
  %u = graph.transpose %s : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %t, %i, %u : tensor<4x2x3xi32>, tensor<2x3x4xi32>, tensor<3x2xf32>
}

// Signed ops see an i1 true as -1, as mlir-opt folds them: maxsi is "and", minsi is
// "or", true < false.
// CHECK-LABEL: func.func @signed_booleans(
// CHECK-DAG: %[[T:.*]] = arith.constant true
// CHECK-DAG: %[[F:.*]] = arith.constant false
// CHECK: return %[[F]], %[[T]], %[[T]], %[[F]] : i1, i1, i1, i1
func.func @signed_booleans() -> (i1, i1, i1, i1) {
  %t = arith.constant true
  %f = arith.constant false
  %a = arith.maxsi %t, %f : i1
  %b = arith.minsi %t, %f : i1
  %c = arith.cmpi slt, %t, %f : i1
  %d = arith.cmpi sgt, %t, %f : i1
  return %a, %b, %c, %d : i1, i1, i1, i1
}
