"""A YOLO-style detector for the SoC example (examples/targets/soc.acc, the tutorial's
"Three devices" section): a conv / batch-norm / ReLU backbone that onnxruntime's static
quantizer turns into int8 QDQ, a 1x1 detection head, then the float post-processing a
detector runs after its network: sigmoid of the offsets plus the cell's grid position,
times the stride, for box centers; exp of the sizes times the anchor; sigmoid of the
class logits for scores; non-maximum suppression of the boxes.

    /tmp/onnx-env/bin/pip install onnx==1.23.2 onnxruntime==1.32.0
    /tmp/onnx-env/bin/python examples/onnx/make_detector.py

Writes `detector.onnx` (float, seeded weights), `detector.qdq.onnx` (quantized on
eight seeded calibration images), the input `detector.input0.npy` and the quantized
model's outputs from onnxruntime: `detector.qdq.output0.npy` (boxes, 1 x 64 x 4,
center and size in pixels), `.output1.npy` (scores, 1 x 3 x 64) and `.output2.npy`
(the selected [batch, class, box] triples). The files are committed; tests use them
without Python (tools/tests/soc.rs).
"""

import os
import tempfile

import numpy as np
import onnx
import onnxruntime
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
from onnxruntime.quantization.shape_inference import quant_pre_process

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(27)
SIZE, CLASSES, GRID, STRIDE = 32, 3, 8, 4.0
CELLS = GRID * GRID
ANCHOR = (6.0, 9.0)  # width, height in pixels

nodes, inits = [], []


def const(name, array):
    inits.append(numpy_helper.from_array(np.asarray(array), name))
    return name


def conv_bn_relu(x, name, cin, cout, stride):
    w = rng.standard_normal((cout, cin, 3, 3)).astype(np.float32) * np.float32(np.sqrt(2.0 / (cin * 9)))
    nodes.append(helper.make_node(
        "Conv", [x, const(name + ".w", w)], [name + ".conv"],
        kernel_shape=[3, 3], strides=[stride, stride], pads=[1, 1, 1, 1]))
    nodes.append(helper.make_node(
        "BatchNormalization",
        [name + ".conv",
         const(name + ".gamma", rng.uniform(0.5, 1.5, cout).astype(np.float32)),
         const(name + ".beta", rng.uniform(-0.2, 0.2, cout).astype(np.float32)),
         const(name + ".mean", rng.uniform(-0.1, 0.1, cout).astype(np.float32)),
         const(name + ".var", rng.uniform(0.5, 1.5, cout).astype(np.float32))],
        [name + ".bn"]))
    nodes.append(helper.make_node("Relu", [name + ".bn"], [name]))
    return name


x = conv_bn_relu("x", "c1", 3, 8, 2)       # 16 x 16
x = conv_bn_relu(x, "c2", 8, 16, 2)        # 8 x 8
x = conv_bn_relu(x, "c3", 16, 16, 1)       # 8 x 8
head_w = rng.standard_normal((4 + CLASSES, 16, 1, 1)).astype(np.float32) * np.float32(0.25)
nodes.append(helper.make_node(
    "Conv", [x, const("head.w", head_w), const("head.b", np.zeros(4 + CLASSES, np.float32))],
    ["head"]))
nodes.append(helper.make_node("Reshape", ["head", const("flat", np.array([1, 4 + CLASSES, CELLS], np.int64))], ["raw"]))
nodes.append(helper.make_node(
    "Split", ["raw", const("parts", np.array([2, 2, CLASSES], np.int64))], ["txy", "twh", "logits"], axis=1))
gy, gx = np.meshgrid(np.arange(GRID, dtype=np.float32), np.arange(GRID, dtype=np.float32), indexing="ij")
grid = np.stack([gx.reshape(-1), gy.reshape(-1)])[None]  # 1 x 2 x cells
nodes += [
    helper.make_node("Sigmoid", ["txy"], ["sxy"]),
    helper.make_node("Add", ["sxy", const("grid", grid)], ["cell_xy"]),
    helper.make_node("Mul", ["cell_xy", const("stride", np.array(STRIDE, np.float32))], ["xy"]),
    helper.make_node("Exp", ["twh"], ["ewh"]),
    helper.make_node("Mul", ["ewh", const("anchor", np.array(ANCHOR, np.float32).reshape(1, 2, 1))], ["wh"]),
    helper.make_node("Concat", ["xy", "wh"], ["xywh"], axis=1),
    helper.make_node("Transpose", ["xywh"], ["boxes"], perm=[0, 2, 1]),
    helper.make_node("Sigmoid", ["logits"], ["scores"]),
    helper.make_node(
        "NonMaxSuppression",
        ["boxes", "scores", const("max", np.array([4], np.int64)),
         const("iou", np.array([0.45], np.float32)), const("threshold", np.array([0.25], np.float32))],
        ["selected"], center_point_box=1),
]
graph = helper.make_graph(
    nodes, "detector",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, SIZE, SIZE])],
    [helper.make_tensor_value_info("boxes", TensorProto.FLOAT, [1, CELLS, 4]),
     helper.make_tensor_value_info("scores", TensorProto.FLOAT, [1, CLASSES, CELLS]),
     helper.make_tensor_value_info("selected", TensorProto.INT64, ["selected", 3])],
    inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="acc-examples")
onnx.checker.check_model(model)
onnx.save(model, os.path.join(HERE, "detector.onnx"))
image = rng.uniform(-1.0, 1.0, (1, 3, SIZE, SIZE)).astype(np.float32)
np.save(os.path.join(HERE, "detector.input0.npy"), image)


class Calibration(CalibrationDataReader):
    """Eight seeded images."""

    def __init__(self):
        r = np.random.default_rng(1)
        self.inputs = [{"x": r.uniform(-1.0, 1.0, (1, 3, SIZE, SIZE)).astype(np.float32)} for _ in range(8)]

    def get_next(self):
        return self.inputs.pop(0) if self.inputs else None


with tempfile.TemporaryDirectory() as tmp:
    pre = os.path.join(tmp, "pre.onnx")
    quant_pre_process(os.path.join(HERE, "detector.onnx"), pre, skip_symbolic_shape=True)
    out = os.path.join(HERE, "detector.qdq.onnx")
    quantize_static(pre, out, Calibration(), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QInt8, weight_type=QuantType.QInt8,
                    op_types_to_quantize=["Conv", "Relu"])
onnx.checker.check_model(onnx.load(out))
session = onnxruntime.InferenceSession(out, providers=["CPUExecutionProvider"])
for i, result in enumerate(session.run(None, {"x": image})):
    np.save(os.path.join(HERE, f"detector.qdq.output{i}.npy"), result)
    print(f"output{i}", result.shape, result.dtype)
print(session.run(None, {"x": image})[2])
