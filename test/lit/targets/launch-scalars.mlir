// A scalar a device's work makes for the host (the count of boxes a non-maximum
// suppression on the DSP keeps, a result of the function) comes back through memory
// (an NMS without a score threshold, which soc's DSP computes with its own loops
// rather than its library's `dsp_nms_f32`),
// since a launch returns only its token: the DSP stores it into a one-element buffer
// of the DDR, given 64 more bytes of the host's arena after memory-plan, and the host
// loads it after waiting for the launch. So the whole post-processing is one DSP
// launch; the host only waits and returns. --check-semantics runs every step.
// RUN: acc-opt --target %S/../../../examples/targets/soc.acc --check-semantics --remarks --pass partition,graph-to-tensor,bufferize,fuse-parallel,buffer-deallocation,device-buffers,memory-plan,schedule-devices %s 2>&1 | FileCheck %s

// CHECK-NOT: stays with the host
// CHECK-LABEL: func.func @detect({{.*}}) -> (memref<24x3xi64>, index) attributes {loop.arena_size = 64 : i64,
// CHECK: %[[CELL:[0-9]+]] = loop.alloc() {offset = 0 : i64} : memref<1xindex>
// CHECK: %[[L:[0-9]+]] = hw.launch @dsp(
// CHECK: math.exp
// CHECK: %[[COUNT:[0-9]+]] = loop.for
// CHECK: loop.store %[[COUNT]], %{{.*}} {hw.device = "dsp"} : memref<1xindex>
// CHECK-NEXT: hw.yield
// CHECK: hw.wait %[[L]]
// CHECK-NEXT: %[[N:[0-9]+]] = loop.load %[[CELL]][%{{[0-9]+}}] : memref<1xindex>
// CHECK-NEXT: loop.dealloc %[[CELL]]
// CHECK: return %{{[0-9]+}}, %[[N]]

func.func @detect(%boxes: tensor<1x64x4xf32>, %logits: tensor<1x3x64xf32>) -> tensor<?x3xi64> {
  %s = graph.sigmoid %logits : tensor<1x3x64xf32>
  %k = graph.non_max_suppression %boxes, %s {iou_threshold = 4.000000e-01 : f32, max_output_boxes_per_class = 8 : i64} : (tensor<1x64x4xf32>, tensor<1x3x64xf32>) -> tensor<?x3xi64>
  return %k : tensor<?x3xi64>
}
