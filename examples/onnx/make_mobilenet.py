"""A MobileNet-style block for the CMSIS-NN-style example target (examples/targets/
mcunpu.acc): a stride-2 stem convolution with ReLU6, a depthwise convolution with
ReLU, a pointwise convolution, a residual add, a max pool, a global average pool and
a fully connected layer, with seeded weights (`mobilenet.onnx`). onnxruntime's static
quantizer makes it a QDQ model (per-channel int8 weights, int8 activations) twice:
asymmetric activations (`mobilenet.qdq.onnx`, onnxruntime's default) and symmetric
ones (`mobilenet.qdq-sym.onnx`). 64 seeded inputs (`mobilenet.inputs.npy`, 64 x 1 x 3
x 16 x 16; the first alone as `mobilenet.input0.npy`) and onnxruntime's outputs for each, graph optimizations disabled
(`mobilenet.qdq.outputs.npy`, `mobilenet.qdq-sym.outputs.npy`, 64 x 1 x 10), are
saved beside them:

    /tmp/onnx-env/bin/pip install onnx==1.23.2 onnxruntime==1.32.0
    /tmp/onnx-env/bin/python examples/onnx/make_mobilenet.py

The files are committed; tools/tests/vendor_library.rs uses them without Python.
"""

import os

import numpy as np
import onnx
import onnxruntime
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

HERE = os.path.dirname(os.path.abspath(__file__))
SHAPE = (1, 3, 16, 16)


def build():
    rng = np.random.default_rng(0)

    def weight(name, shape, s=0.3):
        return numpy_helper.from_array((rng.standard_normal(shape) * s).astype(np.float32), name)

    initializers = [
        weight("stem_w", [8, 3, 3, 3]),
        weight("stem_b", [8], 0.1),
        weight("dw_w", [8, 1, 3, 3]),
        weight("dw_b", [8], 0.1),
        weight("pw_w", [8, 8, 1, 1]),
        weight("pw_b", [8], 0.1),
        weight("fc_w", [10, 8]),
        weight("fc_b", [10], 0.1),
        numpy_helper.from_array(np.array(0, np.float32), "zero"),
        numpy_helper.from_array(np.array(6, np.float32), "six"),
    ]
    nodes = [
        helper.make_node("Conv", ["x", "stem_w", "stem_b"], ["stem"], strides=[2, 2], pads=[1, 1, 1, 1]),
        helper.make_node("Clip", ["stem", "zero", "six"], ["stem6"]),
        helper.make_node("Conv", ["stem6", "dw_w", "dw_b"], ["dw"], group=8, pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["dw"], ["dw_relu"]),
        helper.make_node("Conv", ["dw_relu", "pw_w", "pw_b"], ["pw"]),
        helper.make_node("Add", ["pw", "stem6"], ["residual"]),
        helper.make_node("MaxPool", ["residual"], ["pooled"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("GlobalAveragePool", ["pooled"], ["gap"]),
        helper.make_node("Flatten", ["gap"], ["features"]),
        helper.make_node("Gemm", ["features", "fc_w", "fc_b"], ["y"], transB=1),
    ]
    graph = helper.make_graph(
        nodes,
        "mobilenet",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(SHAPE))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])],
        initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


class Calibration(CalibrationDataReader):
    """Sixteen seeded standard-normal inputs."""

    def __init__(self):
        rng = np.random.default_rng(2)
        self.inputs = [{"x": rng.standard_normal(SHAPE).astype(np.float32)} for _ in range(16)]

    def get_next(self):
        return self.inputs.pop(0) if self.inputs else None


def main():
    float_model = os.path.join(HERE, "mobilenet.onnx")
    onnx.save(build(), float_model)
    inputs = np.random.default_rng(1).standard_normal((64,) + SHAPE).astype(np.float32)
    np.save(os.path.join(HERE, "mobilenet.inputs.npy"), inputs)
    np.save(os.path.join(HERE, "mobilenet.input0.npy"), inputs[0])
    for suffix, symmetric in [("qdq", False), ("qdq-sym", True)]:
        out = os.path.join(HERE, f"mobilenet.{suffix}.onnx")
        quantize_static(
            float_model,
            out,
            Calibration(),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            activation_type=QuantType.QInt8,
            weight_type=QuantType.QInt8,
            extra_options={"ActivationSymmetric": symmetric},
        )
        onnx.checker.check_model(onnx.load(out))
        options = onnxruntime.SessionOptions()
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
        options.intra_op_num_threads = 1
        session = onnxruntime.InferenceSession(out, options, providers=["CPUExecutionProvider"])
        outputs = np.stack([session.run(None, {"x": x})[0] for x in inputs])
        np.save(os.path.join(HERE, f"mobilenet.{suffix}.outputs.npy"), outputs)


main()
