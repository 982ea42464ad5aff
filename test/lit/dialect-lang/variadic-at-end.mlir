// A format may end with a variadic operand group (hw.wait's "$tokens attr-dict"): the
// parser stops before the next op's result names, so an empty group re-parses.
// RUN: acc-opt --allow-unregistered-dialect %s | acc-opt --allow-unregistered-dialect | FileCheck %s

// CHECK-LABEL: func.func @f
// CHECK-NEXT: hw.dma_wait{{$}}
// CHECK-NEXT: %0 = arith.constant 1 : i32
// CHECK-NEXT: hw.wait{{$}}
// CHECK-NEXT: %1:2 = arith.addui_extended %0, %0 : i32, i1
// CHECK-NEXT: hw.wait{{$}}
// CHECK-NEXT: %2:2 = "test.pair"
func.func @f() {
  "hw.dma_wait"() : () -> ()
  %c = arith.constant 1 : i32
  "hw.wait"() : () -> ()
  %d:2 = arith.addui_extended %c, %c : i32, i1
  "hw.wait"() : () -> ()
  %e, %f = "test.pair"() : () -> (i32, i32)
  return
}
