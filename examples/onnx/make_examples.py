"""Builds the small ONNX models of examples/onnx with seeded random weights, and their
reference inputs and outputs computed with numpy (onnx's reference evaluator):

    python3 -m venv /tmp/onnx-env && /tmp/onnx-env/bin/pip install onnx==1.23.2
    /tmp/onnx-env/bin/python examples/onnx/make_examples.py

The files are committed; tests use them without Python (tools/tests/translate.rs).
"""

import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
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
    outputs = ReferenceEvaluator(model).run(None, inputs)
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
