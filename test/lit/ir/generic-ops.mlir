// The generic op form: result groups, operands (%v#N), successors, properties,
// regions with blocks and block arguments, forward references, graph regions.
// RUN: acc-opt --allow-unregistered-dialect %s | FileCheck %s
// RUN: acc-opt --allow-unregistered-dialect --print-generic %s | acc-opt --allow-unregistered-dialect | FileCheck %s
// Printing is a fixed point from the second round on.
// RUN: acc-opt --allow-unregistered-dialect --print-generic %s > %t.1
// RUN: acc-opt --allow-unregistered-dialect --print-generic %t.1 > %t.2
// RUN: diff %t.1 %t.2

// CHECK-LABEL: func.func @cfg
func.func @cfg(%cond: i1, %x: i32) -> i32 {
  // CHECK: %[[P:.*]]:2 = "t.pair"(%arg1) <{mode = 1 : i64}> {tag} : (i32) -> (i32, f32)
  %p:2 = "t.pair"(%x) <{mode = 1}> {tag} : (i32) -> (i32, f32)
  // CHECK: "t.cond_br"(%arg0, %[[P]]#0) [^bb1, ^bb2] : (i1, i32) -> ()
  "t.cond_br"(%cond, %p#0) [^then, ^else] : (i1, i32) -> ()
// CHECK: ^bb1:
^then:
  // CHECK-NEXT: "t.br"(%[[P]]#0) [^bb3] : (i32) -> ()
  "t.br"(%p#0) [^exit] : (i32) -> ()
// CHECK: ^bb2:
^else:
  %c = "t.const"() {value = 0 : i32} : () -> i32
  "t.br"(%c) [^exit] : (i32) -> ()
// CHECK: ^bb3(%[[A:.*]]: i32):
^exit(%r: i32):
  // CHECK-NEXT: return %[[A]] : i32
  func.return %r : i32
}

// Nested regions: values from enclosing regions are visible; block arguments of entry
// blocks are %argN.
// CHECK-LABEL: func.func @nested
func.func @nested(%a: f32) {
  // CHECK: "t.loop"() ({
  // CHECK-NEXT: ^bb0(%arg1: index):
  // CHECK-NEXT: "t.use"(%arg0, %arg1) : (f32, index) -> ()
  // CHECK-NEXT: }, {
  // CHECK-NEXT: }) : () -> ()
  "t.loop"() ({
  ^bb0(%i: index):
    "t.use"(%a, %i) : (f32, index) -> ()
  }, {
  }) : () -> ()
  // An empty entry block keeps its label so it is not confused with an empty region.
  // CHECK: "t.empty_block"() ({
  // CHECK-NEXT: ^bb0:
  // CHECK-NEXT: }) : () -> ()
  "t.empty_block"() ({
  ^bb0:
  }) : () -> ()
  return
}

// Graph regions (the module's body, unregistered ops' regions) accept uses before
// definitions.
// CHECK-LABEL: "t.graph"
// CHECK-NEXT: "t.consume"(%[[L:.*]]) : (i64) -> ()
// CHECK-NEXT: %[[L]] = "t.produce"() : () -> i64
"t.graph"() ({
  "t.consume"(%late) : (i64) -> ()
  %late = "t.produce"() : () -> i64
}) : () -> ()
