"""Builds small real models with seeded random weights (an MLP, LeNet-5, a CNN with
batch norm and a residual add, a transformer encoder block) and their reference
outputs computed by onnxruntime (checked against onnx's reference evaluator):

    python3 -m venv /tmp/onnx-env
    /tmp/onnx-env/bin/pip install onnx==1.23.2 onnxruntime==1.32.0
    /tmp/onnx-env/bin/python examples/onnx/make_examples.py

The files are committed; tests use them without Python (tools/tests/translate.rs).
"""

import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
import onnxruntime
from onnx.reference import ReferenceEvaluator

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(2026)


def weight(name, *shape):
    return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32) * 0.5, name)


def save(name, graph, inputs):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(HERE, name + ".onnx"))
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    outputs = session.run(None, inputs)
    for got, want in zip(ReferenceEvaluator(model).run(None, inputs), outputs):
        assert np.allclose(got, want, rtol=1e-4, atol=1e-5), name
    for i, (k, v) in enumerate(inputs.items()):
        np.save(os.path.join(HERE, f"{name}.input{i}.npy"), v)
    for i, v in enumerate(outputs):
        np.save(os.path.join(HERE, f"{name}.output{i}.npy"), v)


# An MLP: 16 -> 32 -> relu -> 10 -> softmax.
mlp = helper.make_graph(
    [
        helper.make_node("Gemm", ["x", "w1", "b1"], ["h"], transB=1),
        helper.make_node("Relu", ["h"], ["r"]),
        helper.make_node("MatMul", ["r", "w2"], ["m"]),
        helper.make_node("Add", ["m", "b2"], ["a"]),
        helper.make_node("Softmax", ["a"], ["y"], axis=-1),
    ],
    "mlp",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 16])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 10])],
    [weight("w1", 32, 16), weight("b1", 32), weight("w2", 32, 10), weight("b2", 10)],
)
save("mlp", mlp, {"x": rng.standard_normal((2, 16)).astype(np.float32)})

# A small CNN: conv + batch norm + relu, a residual add, pooling, a classifier.
cnn = helper.make_graph(
    [
        helper.make_node("Conv", ["x", "cw", "cb"], ["c"], pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
        helper.make_node("BatchNormalization", ["c", "s", "b", "m", "v"], ["n"], epsilon=1e-5),
        helper.make_node("Relu", ["n"], ["r"]),
        helper.make_node("Conv", ["r", "cw2"], ["c2"], pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
        helper.make_node("Add", ["c2", "r"], ["res"]),
        helper.make_node("MaxPool", ["res"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("GlobalAveragePool", ["p"], ["g"]),
        helper.make_node("Flatten", ["g"], ["f"], axis=1),
        helper.make_node("Gemm", ["f", "fw", "fb"], ["y"]),
    ],
    "cnn",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5])],
    [
        weight("cw", 4, 3, 3, 3),
        weight("cb", 4),
        numpy_helper.from_array(rng.uniform(0.5, 1.5, 4).astype(np.float32), "s"),
        weight("b", 4),
        weight("m", 4),
        numpy_helper.from_array(rng.uniform(0.5, 2.0, 4).astype(np.float32), "v"),
        weight("cw2", 4, 4, 3, 3),
        weight("fw", 4, 5),
        weight("fb", 5),
    ],
)
save("cnn", cnn, {"x": rng.standard_normal((1, 3, 8, 8)).astype(np.float32)})


# LeNet-5: two conv + average-pool stages, then three fully connected layers.
def fc(x, w, b, out):
    return helper.make_node("Gemm", [x, w, b], [out], transB=1)


lenet = helper.make_graph(
    [
        helper.make_node("Conv", ["x", "c1w", "c1b"], ["c1"], kernel_shape=[5, 5], pads=[2, 2, 2, 2]),
        helper.make_node("Tanh", ["c1"], ["t1"]),
        helper.make_node("AveragePool", ["t1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "c2w", "c2b"], ["c2"], kernel_shape=[5, 5]),
        helper.make_node("Tanh", ["c2"], ["t2"]),
        helper.make_node("AveragePool", ["t2"], ["p2"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["p2"], ["f"], axis=1),
        fc("f", "f1w", "f1b", "h1"),
        helper.make_node("Tanh", ["h1"], ["a1"]),
        fc("a1", "f2w", "f2b", "h2"),
        helper.make_node("Tanh", ["h2"], ["a2"]),
        fc("a2", "f3w", "f3b", "y"),
    ],
    "lenet5",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 28, 28])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])],
    [
        weight("c1w", 6, 1, 5, 5), weight("c1b", 6),
        weight("c2w", 16, 6, 5, 5), weight("c2b", 16),
        weight("f1w", 120, 400), weight("f1b", 120),
        weight("f2w", 84, 120), weight("f2b", 84),
        weight("f3w", 10, 84), weight("f3b", 10),
    ],
)
save("lenet5", lenet, {"x": rng.standard_normal((1, 1, 28, 28)).astype(np.float32)})

# A transformer encoder block: single-head self-attention with a residual and layer
# norm, then a GELU feed-forward with a residual and layer norm. Sequence 8, width 16.
S, D, F = 8, 16, 32
scale = numpy_helper.from_array(np.array(1.0 / np.sqrt(D), dtype=np.float32), "scale")
encoder = helper.make_graph(
    [
        helper.make_node("MatMul", ["x", "wq"], ["q"]),
        helper.make_node("MatMul", ["x", "wk"], ["k"]),
        helper.make_node("MatMul", ["x", "wv"], ["v"]),
        helper.make_node("Transpose", ["k"], ["kt"], perm=[1, 0]),
        helper.make_node("MatMul", ["q", "kt"], ["s"]),
        helper.make_node("Mul", ["s", "scale"], ["ss"]),
        helper.make_node("Softmax", ["ss"], ["a"], axis=-1),
        helper.make_node("MatMul", ["a", "v"], ["ctx"]),
        helper.make_node("MatMul", ["ctx", "wo"], ["o"]),
        helper.make_node("Add", ["o", "x"], ["r1"]),
        helper.make_node("LayerNormalization", ["r1", "g1", "b1"], ["n1"], axis=-1, epsilon=1e-5),
        helper.make_node("MatMul", ["n1", "w1"], ["h"]),
        helper.make_node("Add", ["h", "bf1"], ["hb"]),
        helper.make_node("Gelu", ["hb"], ["g"]),
        helper.make_node("MatMul", ["g", "w2"], ["f"]),
        helper.make_node("Add", ["f", "bf2"], ["fb"]),
        helper.make_node("Add", ["fb", "n1"], ["r2"]),
        helper.make_node("LayerNormalization", ["r2", "g2", "b2"], ["y"], axis=-1, epsilon=1e-5),
    ],
    "encoder",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [S, D])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [S, D])],
    [
        weight("wq", D, D), weight("wk", D, D), weight("wv", D, D), weight("wo", D, D), scale,
        numpy_helper.from_array(np.ones(D, np.float32), "g1"), weight("b1", D),
        weight("w1", D, F), weight("bf1", F), weight("w2", F, D), weight("bf2", D),
        numpy_helper.from_array(np.ones(D, np.float32), "g2"), weight("b2", D),
    ],
)
model = helper.make_model(encoder, opset_imports=[helper.make_opsetid("", 20)])
model.ir_version = 9
onnx.checker.check_model(model)
onnx.save(model, os.path.join(HERE, "encoder.onnx"))
inputs = {"x": rng.standard_normal((S, D)).astype(np.float32)}
session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
np.save(os.path.join(HERE, "encoder.input0.npy"), inputs["x"])
np.save(os.path.join(HERE, "encoder.output0.npy"), session.run(None, inputs)[0])

# Detection post-processing: class logits through a sigmoid, then non-maximum
# suppression of 64 boxes in 3 classes (at most 8 per class, IoU above 0.4
# suppresses, scores not above 0.3 dropped). The result has a dynamic first
# dimension: [batch, class, box] triples.
BOXES, CLASSES = 64, 3
corners = rng.uniform(0.0, 1.0, (1, BOXES, 2)).astype(np.float32)
sizes = rng.uniform(0.05, 0.3, (1, BOXES, 2)).astype(np.float32)
detect = helper.make_graph(
    [
        helper.make_node("Sigmoid", ["logits"], ["scores"]),
        helper.make_node("NonMaxSuppression", ["boxes", "scores", "max", "iou", "threshold"], ["selected"]),
    ],
    "detect",
    [
        helper.make_tensor_value_info("boxes", TensorProto.FLOAT, [1, BOXES, 4]),
        helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, CLASSES, BOXES]),
    ],
    [helper.make_tensor_value_info("selected", TensorProto.INT64, ["selected", 3])],
    [
        numpy_helper.from_array(np.array([8], np.int64), "max"),
        numpy_helper.from_array(np.array([0.4], np.float32), "iou"),
        numpy_helper.from_array(np.array([0.3], np.float32), "threshold"),
    ],
)
save("detect", detect, {
    "boxes": np.concatenate([corners, corners + sizes], axis=2),
    "logits": rng.standard_normal((1, CLASSES, BOXES)).astype(np.float32),
})
