// Errors that say what to run instead.
// bufferize on graph ops: run graph-to-tensor first.
// RUN: not acc-opt %s --pass bufferize 2>&1 | FileCheck %s --check-prefix=BUFFERIZE
// BUFFERIZE: cannot bufferize 'graph.relu': it is a graph op: run graph-to-tensor before bufferize
// C from graph or tensor IR: lower the network first.
// RUN: not acc-translate --emit-c %s -o %t.c-dir 2>&1 | FileCheck %s --check-prefix=EMITC
// EMITC: tensor<4xf32> has no C type: C is emitted from loop-level IR, where tensors are buffers; lower the network first (acc-opt --pipeline host-pipeline
// RUN: not test -e %t.c-dir
// RUN: acc-opt %s --pass graph-to-tensor -o %t.tensor.mlir
// RUN: not acc-translate --emit-c %t.tensor.mlir -o %t.c-dir 2>&1 | FileCheck %s --check-prefix=TENSOR
// TENSOR: tensor<4xf32> has no C type: {{.*}} lower the network first
// An ONNX model given to acc-opt: import it first.
// RUN: not acc-opt %S/../../../examples/onnx/cnn.onnx 2>&1 | FileCheck %s --check-prefix=ONNX
// ONNX: is an ONNX model, not IR: import it first with 'acc-translate --import-onnx

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.relu %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
