// graph-to-tensor on comparisons, logical ops and where (ONNX Equal, Less, And, Not,
// Where, ...), checked against the interpreter by --check-semantics on seeded inputs;
// then the whole host pipeline, checked the same way after every pass.
// RUN: acc-opt --check-semantics --pass graph-to-tensor %s | FileCheck %s
// RUN: acc-opt --check-semantics --pass canonicalize,graph-to-tensor,layout,bufferize,fuse-parallel,unroll,collapse-parallel,vectorize,buffer-deallocation,memory-plan %s | FileCheck %s --check-prefix=LOOPS

// Floats compare ordered (a NaN is never less); the smaller operand is broadcast.
// CHECK-LABEL: func.func @less(
// CHECK: tensor.broadcast ins(%arg1 : tensor<8xf32>)
// CHECK: tensor.map ins(%arg0, %{{.*}} : tensor<2x8xf32>, tensor<2x8xf32>) outs(%{{.*}} : tensor<2x8xi1>)
// CHECK: arith.cmpf olt, %{{.*}}, %{{.*}} : f32
// LOOPS-LABEL: func.func @less(
// LOOPS: arith.cmpf olt
func.func @less(%x: tensor<2x8xf32>, %y: tensor<8xf32>) -> tensor<2x8xi1> {
  %c = graph.less %x, %y : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xi1>
  return %c : tensor<2x8xi1>
}

// Integers compare signed, unsigned ones unsigned.
// CHECK-LABEL: func.func @integers(
// CHECK: arith.cmpi sge, %{{.*}}, %{{.*}} : i32
// CHECK: arith.cmpi eq, %{{.*}}, %{{.*}} : i32
func.func @integers(%a: tensor<6xi32>, %b: tensor<6xi32>) -> (tensor<6xi1>, tensor<6xi1>) {
  %ge = graph.greater_equal %a, %b : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
  %eq = graph.equal %a, %b : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
  return %ge, %eq : tensor<6xi1>, tensor<6xi1>
}

// not is xor with true; and, or, xor are the i1 bitwise ops.
// CHECK-LABEL: func.func @logic(
// CHECK: arith.cmpf ogt
// CHECK: %[[T:.*]] = arith.constant true
// CHECK: arith.xori %{{.*}}, %[[T]] : i1
// CHECK: arith.andi
// CHECK: arith.ori
// CHECK: arith.xori
func.func @logic(%x: tensor<4x4xf32>, %y: tensor<4x4xf32>) -> tensor<4x4xi1> {
  %g = graph.greater %x, %y : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xi1>
  %n = graph.not %g : tensor<4x4xi1>
  %a = graph.and %g, %n : (tensor<4x4xi1>, tensor<4x4xi1>) -> tensor<4x4xi1>
  %o = graph.or %a, %g : (tensor<4x4xi1>, tensor<4x4xi1>) -> tensor<4x4xi1>
  %r = graph.xor %o, %n : (tensor<4x4xi1>, tensor<4x4xi1>) -> tensor<4x4xi1>
  return %r : tensor<4x4xi1>
}

// where selects after broadcasting all three operands (an attention mask's shape).
// CHECK-LABEL: func.func @where(
// CHECK: tensor.broadcast ins(%{{.*}} : tensor<8xi1>) outs(%{{.*}} : tensor<4x8xi1>)
// CHECK: tensor.broadcast ins(%arg2 : tensor<f32>)
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// LOOPS-LABEL: func.func @where(
// LOOPS: arith.select
func.func @where(%mask: tensor<1x8xi1>, %x: tensor<4x8xf32>, %fill: tensor<f32>) -> tensor<4x8xf32> {
  %r = graph.where %mask, %x, %fill : (tensor<1x8xi1>, tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
