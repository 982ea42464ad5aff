"""Builds the benchmark models of issue 6 with seeded random weights, and their
reference outputs from onnxruntime:

    resnet18      ResNet-18 (ImageNet layout, 1x3x224x224 input, 1000 classes)
    mobilenetv2   MobileNetV2 (width 1.0, 1x3x224x224 input, 1000 classes)
    transformer   one transformer encoder layer (sequence 128, hidden 256, 4 heads,
                  feed-forward 1024, GELU, post-norm)

    /tmp/onnx-env/bin/python tools/bench/make_bench_models.py OUT_DIR

writes OUT_DIR/NAME.onnx, NAME.input0.npy and NAME.output0.npy. The models are too
large to commit (ResNet-18 holds 47 MB of weights); tools/bench/models.sh builds
them on demand.
"""

import os
import sys

import numpy as np
import onnx
import onnxruntime
from onnx import TensorProto, helper, numpy_helper


class Graph:
    """Nodes and initializers of a model being built, with fresh names."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes = []
        self.inits = []
        self.count = 0

    def name(self, base):
        self.count += 1
        return f"{base}{self.count}"

    def const(self, array, base="w"):
        n = self.name(base)
        self.inits.append(numpy_helper.from_array(np.asarray(array, dtype=np.float32), n))
        return n

    def node(self, op, inputs, **attrs):
        out = self.name(op.lower())
        self.nodes.append(helper.make_node(op, inputs, [out], **attrs))
        return out

    def conv(self, x, cin, cout, k, stride=1, pad=0, groups=1):
        fan_in = cin // groups * k * k
        w = self.rng.standard_normal((cout, cin // groups, k, k)) * np.sqrt(2.0 / fan_in)
        return self.node("Conv", [x, self.const(w)], kernel_shape=[k, k], strides=[stride, stride],
                         pads=[pad] * 4, group=groups)

    def bn(self, x, c):
        scale = self.rng.uniform(0.5, 1.5, c)
        shift = self.rng.standard_normal(c) * 0.1
        mean = self.rng.standard_normal(c) * 0.1
        var = self.rng.uniform(0.5, 1.5, c)
        return self.node("BatchNormalization",
                         [x, self.const(scale), self.const(shift), self.const(mean), self.const(var)],
                         epsilon=1e-5)

    def relu6(self, x):
        return self.node("Clip", [x, self.const(np.float32(0.0), "lo"), self.const(np.float32(6.0), "hi")])

    def fc(self, x, cin, cout):
        w = self.rng.standard_normal((cout, cin)) * np.sqrt(1.0 / cin)
        return self.node("Gemm", [x, self.const(w), self.const(np.zeros(cout))], transB=1)

    def linear(self, x, cin, cout):
        w = self.rng.standard_normal((cin, cout)) * np.sqrt(1.0 / cin)
        m = self.node("MatMul", [x, self.const(w)])
        return self.node("Add", [m, self.const(self.rng.standard_normal(cout) * 0.02)])


def resnet18(g):
    x = "input"
    y = g.node("Relu", [g.bn(g.conv(x, 3, 64, 7, 2, 3), 64)])
    y = g.node("MaxPool", [y], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = 64
    for cout, stride in [(64, 1), (128, 2), (256, 2), (512, 2)]:
        for block in range(2):
            s = stride if block == 0 else 1
            h = g.node("Relu", [g.bn(g.conv(y, cin, cout, 3, s, 1), cout)])
            h = g.bn(g.conv(h, cout, cout, 3, 1, 1), cout)
            short = y if (s == 1 and cin == cout) else g.bn(g.conv(y, cin, cout, 1, s, 0), cout)
            y = g.node("Relu", [g.node("Add", [h, short])])
            cin = cout
    y = g.node("Flatten", [g.node("GlobalAveragePool", [y])], axis=1)
    return g.fc(y, 512, 1000), [1, 3, 224, 224], [1, 1000]


def mobilenetv2(g):
    y = g.relu6(g.bn(g.conv("input", 3, 32, 3, 2, 1), 32))
    cin = 32
    for t, c, n, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                       (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]:
        for i in range(n):
            stride = s if i == 0 else 1
            hidden = cin * t
            h = y
            if t != 1:
                h = g.relu6(g.bn(g.conv(h, cin, hidden, 1), hidden))
            h = g.relu6(g.bn(g.conv(h, hidden, hidden, 3, stride, 1, groups=hidden), hidden))
            h = g.bn(g.conv(h, hidden, c, 1), c)
            y = g.node("Add", [y, h]) if (stride == 1 and cin == c) else h
            cin = c
    y = g.relu6(g.bn(g.conv(y, cin, 1280, 1), 1280))
    y = g.node("Flatten", [g.node("GlobalAveragePool", [y])], axis=1)
    return g.fc(y, 1280, 1000), [1, 3, 224, 224], [1, 1000]


def transformer(g, seq=128, hidden=256, heads=4, ffn=1024):
    d = hidden // heads
    x = "input"

    def split_heads(t):
        r = g.node("Reshape", [t, g_int(g, [seq, heads, d])])
        return g.node("Transpose", [r], perm=[1, 0, 2])

    q = split_heads(g.linear(x, hidden, hidden))
    k = g.node("Transpose", [g.node("Reshape", [g.linear(x, hidden, hidden), g_int(g, [seq, heads, d])])],
               perm=[1, 2, 0])
    v = split_heads(g.linear(x, hidden, hidden))
    scores = g.node("Div", [g.node("MatMul", [q, k]), g.const(np.float32(np.sqrt(d)), "scale")])
    attn = g.node("MatMul", [g.node("Softmax", [scores], axis=-1), v])
    merged = g.node("Reshape", [g.node("Transpose", [attn], perm=[1, 0, 2]), g_int(g, [seq, hidden])])
    h = g.node("Add", [x, g.linear(merged, hidden, hidden)])
    h = g.node("LayerNormalization", [h, g.const(np.ones(hidden)), g.const(np.zeros(hidden))], axis=-1)
    f = g.linear(h, hidden, ffn)
    # GELU as erf: 0.5 x (1 + erf(x / sqrt(2)))
    e = g.node("Erf", [g.node("Div", [f, g.const(np.float32(np.sqrt(2.0)), "r2")])])
    f = g.node("Mul", [g.node("Mul", [f, g.const(np.float32(0.5), "half")]),
                       g.node("Add", [e, g.const(np.float32(1.0), "one")])])
    y = g.node("Add", [h, g.linear(f, ffn, hidden)])
    y = g.node("LayerNormalization", [y, g.const(np.ones(hidden)), g.const(np.zeros(hidden))], axis=-1)
    return y, [seq, hidden], [seq, hidden]


def g_int(g, values):
    n = g.name("shape")
    g.inits.append(numpy_helper.from_array(np.asarray(values, dtype=np.int64), n))
    return n


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, build, seed in [("resnet18", resnet18, 18), ("mobilenetv2", mobilenetv2, 2),
                              ("transformer", transformer, 256)]:
        g = Graph(seed)
        y, in_shape, out_shape = build(g)
        graph = helper.make_graph(
            g.nodes, name,
            [helper.make_tensor_value_info("input", TensorProto.FLOAT, in_shape)],
            [helper.make_tensor_value_info(y, TensorProto.FLOAT, out_shape)],
            g.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        model.ir_version = 8
        onnx.checker.check_model(model)
        path = os.path.join(out, name + ".onnx")
        onnx.save(model, path)
        x = np.random.default_rng(seed + 1).standard_normal(in_shape).astype(np.float32)
        session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
        (ref,) = session.run(None, {"input": x})
        np.save(os.path.join(out, name + ".input0.npy"), x)
        np.save(os.path.join(out, name + ".output0.npy"), ref)
        print(f"{name}: {len(g.nodes)} nodes, {sum(np.prod(t.dims) for t in g.inits)} weights")


if __name__ == "__main__":
    main()
