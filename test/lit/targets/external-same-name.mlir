// Two different regions of one name are an error at the second call (the C back end
// builds each name once), and nothing is written.
// RUN: not acc-translate --emit-c %s -o %t 2>&1 | FileCheck %s
// RUN: not test -e %t/model.c

// CHECK: error: {{.*}}two different regions are named 'f_npu_ext0'
func.func @f(%a: memref<4xf32>, %b: memref<4xf32>, %c: memref<4xf32>) {
  hw.intrinsic "f_npu_ext0"(%a, %b) {compiler = "echo 'void {function}(const float *a, float *b) { (void)a; (void)b; }' > {output}", inputs = array<i64: 0>, outputs = array<i64: 1>} : (memref<4xf32>, memref<4xf32>) -> () semantics {
  ^bb0(%x: tensor<4xf32>):
    %y = graph.relu %x : tensor<4xf32>
    hw.yield %y : tensor<4xf32>
  }
  hw.intrinsic "f_npu_ext0"(%a, %c) {compiler = "echo 'void {function}(const float *a, float *b) { (void)a; (void)b; }' > {output}", inputs = array<i64: 0>, outputs = array<i64: 1>} : (memref<4xf32>, memref<4xf32>) -> () semantics {
  ^bb0(%x: tensor<4xf32>):
    %y = graph.neg %x : tensor<4xf32>
    hw.yield %y : tensor<4xf32>
  }
  return
}
