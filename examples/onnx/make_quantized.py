"""Quantizes LeNet-5 and the small CNN of make_examples.py into QDQ models with
onnxruntime's static quantizer, as a user would: calibration on seeded random inputs,
per-channel weights, int8 activations and weights (`*.qdq.onnx`, opset 17), and int4
activations and weights (`*.qdq4.onnx`, opset 21, where QuantizeLinear takes int4).
Their outputs from onnxruntime on the models' example inputs are saved beside them:

    /tmp/onnx-env/bin/pip install onnx==1.23.2 onnxruntime==1.32.0
    /tmp/onnx-env/bin/python examples/onnx/make_quantized.py

The files are committed; tests use them without Python (tools/tests/quantized.rs).
"""

import os
import tempfile

import numpy as np
import onnx
import onnxruntime
from onnx import version_converter
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
from onnxruntime.quantization.shape_inference import quant_pre_process

HERE = os.path.dirname(os.path.abspath(__file__))
SHAPES = {"lenet5": (1, 1, 28, 28), "cnn": (1, 3, 8, 8)}


class Calibration(CalibrationDataReader):
    """Eight seeded standard-normal inputs."""

    def __init__(self, shape):
        rng = np.random.default_rng(1)
        self.inputs = [{"x": rng.standard_normal(shape).astype(np.float32)} for _ in range(8)]

    def get_next(self):
        return self.inputs.pop(0) if self.inputs else None


def quantize(name, suffix, opset, quant_type, op_types=None):
    with tempfile.TemporaryDirectory() as tmp:
        pre = os.path.join(tmp, "pre.onnx")
        quant_pre_process(os.path.join(HERE, name + ".onnx"), pre, skip_symbolic_shape=True)
        if opset != 17:
            onnx.save(version_converter.convert_version(onnx.load(pre), opset), pre)
        out = os.path.join(HERE, f"{name}.{suffix}.onnx")
        quantize_static(
            pre,
            out,
            Calibration(SHAPES[name]),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            activation_type=quant_type,
            weight_type=quant_type,
            op_types_to_quantize=op_types,
        )
    onnx.checker.check_model(onnx.load(out))
    x = np.load(os.path.join(HERE, f"{name}.input0.npy"))
    session = onnxruntime.InferenceSession(out, providers=["CPUExecutionProvider"])
    np.save(os.path.join(HERE, f"{name}.{suffix}.output0.npy"), session.run(None, {"x": x})[0])


for model in SHAPES:
    quantize(model, "qdq", 17, QuantType.QInt8)
# onnxruntime's quantizer leaves an int4 MaxPool without its dequantize (an invalid
# model), so the CNN's pooling stays in floats at int4.
quantize("lenet5", "qdq4", 21, QuantType.QInt4)
quantize("cnn", "qdq4", 21, QuantType.QInt4, ["Conv", "Gemm", "Add", "GlobalAveragePool", "Flatten"])
