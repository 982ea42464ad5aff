"""A zoo of real architectures, built with onnx.helper and numpy (no torch), seeded
weights, and their reference outputs from onnxruntime:

    /tmp/onnx-env/bin/pip install onnx==1.23.2 onnxruntime==1.32.0 rapidocr-onnxruntime
    /tmp/onnx-env/bin/python tools/zoo/make_zoo.py /tmp/zoo                  # full size
    /tmp/onnx-env/bin/python tools/zoo/make_zoo.py /tmp/zoo-tiny --tiny      # for CI
    /tmp/onnx-env/bin/python tools/zoo/make_zoo.py /tmp/zoo --only deit_tiny,unet

For each model NAME it writes OUT_DIR/NAME.onnx (opset 17, default domain, static
shapes, batch 1, float32), NAME.input.npy (seeded) and NAME.output.npy (onnxruntime's
output, CPUExecutionProvider), and prints one line per model (input shape, parameters,
size). `--tiny` writes reduced variants NAME_tiny.* (smaller width, depth and input,
each under 200 KB) of most families instead. tools/zoo/run_zoo.py runs them in acc.

The layer configurations follow the reference implementations (torchvision for the
ImageNet CNNs and SSDLite, timm for DeiT, Apple's ml-cvnets for MobileViT, Ultralytics
YOLOv5 v6 for yolo_head, HF BERT for bert_encoder); the graphs are written the way
torch.onnx.export (opset 17, eval mode) writes them where that is typical: HardSwish /
HardSigmoid ops, SiLU as x * Sigmoid(x), GELU as its Erf expansion (Gelu is an opset-20
op), ReLU6 as Clip, flatten as Shape -> Gather -> Unsqueeze -> Concat -> Reshape, the
attention's head split as Reshape / Transpose and timm's q, k, v as Gather(0, 1, 2),
ViT's class token by Expand + Concat and read back by Gather(index 0), LayerNormalization
ops, small integer tensors as Constant nodes.

Weights: numpy default_rng(0) per model, He-style scales (std sqrt(2 / fan_in) for
convolutions, sqrt(1 / fan_in) for linear layers). BatchNormalization stays as
BatchNormalization nodes (as torch exports with do_constant_folding=False; acc's
canonicalize folds them into the convolutions), with random scales and shifts, and
running statistics *calibrated*: level by level (onnxruntime runs per depth of batch
norms), each one's running mean and variance are set to the statistics of what it
receives over 8 seeded inputs other than the reference one (plus noise), as a trained
network's are, so activations stay near unit scale through any depth.

Where a model differs from its reference, the docstring of its builder says so:
convnext_tiny has depths (1, 1, 1, 1) instead of (3, 3, 9, 3) (34 MB instead of
114 MB); bert_encoder takes float embeddings (acc cannot yet run a Gather at run-time
indices) with an additive attention mask computed in the graph from a constant
(Equal + Where); ssdlite_head and yolo_head have one output each (boxes and scores
concatenated on the last axis) and no NMS.

ppocr_det, ppocr_cls and ppocr_rec are the PP-OCR models shipped in the
rapidocr-onnxruntime wheel (their own opsets 11 and 12), with the dynamic input
dimensions fixed (det 1x3x640x640, cls 1x3x48x192, rec 1x3x48x320) and stale value
infos dropped, so that every shape is static.
"""

import argparse
import math
import os
import sys
import time

import numpy as np
import onnx
import onnxruntime
from onnx import TensorProto, helper, numpy_helper

OPSET = 17


# ----------------------------------------------------------------------------------
# The builder: nodes, initializers and the static shape of every value.
# ----------------------------------------------------------------------------------

def make_divisible(v, divisor=8, min_value=None):
    """torchvision's _make_divisible."""
    min_value = min_value or divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


def conv_out(size, k, s, p0, p1, d=1, ceil=False):
    span = size + p0 + p1 - d * (k - 1) - 1
    return (-(-span // s) if ceil else span // s) + 1


class Builder:
    """A graph being built: fresh names, initializers, Constant nodes, and the static
    shape of every value (self.shape[name]), which the layer helpers compute."""

    def __init__(self, seed=0):
        self.rng = np.random.default_rng(seed)
        self.nodes = []
        self.inits = {}
        self.shape = {}
        self.dtype = {}
        self.count = 0
        self.bns = []  # (input of a BatchNormalization, its mean, its variance)
        self.inputs = []

    # -- names, values and nodes --
    def fresh(self, base):
        self.count += 1
        return f"{base}_{self.count}"

    def input(self, name, shape, dtype=np.float32):
        self.inputs.append((name, list(shape), dtype))
        self.shape[name] = tuple(shape)
        self.dtype[name] = dtype
        return name

    def param(self, array, base="w"):
        name = self.fresh(base)
        array = np.asarray(array, dtype=np.float32)
        self.inits[name] = array
        self.shape[name] = array.shape
        self.dtype[name] = np.float32
        return name

    def const(self, values, dtype=np.int64):
        """A Constant node, as torch writes for shapes, axes, indices and scalars."""
        array = np.asarray(values, dtype=dtype)
        name = self.fresh("const")
        self.nodes.append(helper.make_node("Constant", [], [name], name=name,
                                           value=numpy_helper.from_array(array, name)))
        self.shape[name] = array.shape
        self.dtype[name] = dtype
        return name

    def scalar(self, value):
        return self.const(value, np.float32)

    def op(self, op, inputs, shape, outputs=1, dtype=np.float32, **attrs):
        names = [self.fresh(op.lower()) for _ in range(outputs)]
        self.nodes.append(helper.make_node(op, inputs, names, name=names[0], **attrs))
        shapes = shape if outputs > 1 else [shape]
        for n, s in zip(names, shapes):
            self.shape[n] = tuple(s)
            self.dtype[n] = dtype
        return names if outputs > 1 else names[0]

    def same(self, op, x, **attrs):
        return self.op(op, [x], self.shape[x], **attrs)

    def binop(self, op, a, b):
        return self.op(op, [a, b], np.broadcast_shapes(self.shape[a], self.shape[b]))

    def add(self, a, b):
        return self.binop("Add", a, b)

    def mul(self, a, b):
        return self.binop("Mul", a, b)

    # -- activations --
    def act(self, x, kind):
        if kind is None:
            return x
        if kind == "relu":
            return self.same("Relu", x)
        if kind == "relu6":
            return self.op("Clip", [x, self.scalar(0.0), self.scalar(6.0)], self.shape[x])
        if kind == "hswish":
            return self.same("HardSwish", x)
        if kind == "hsigmoid":
            return self.same("HardSigmoid", x, alpha=1.0 / 6, beta=0.5)
        if kind == "sigmoid":
            return self.same("Sigmoid", x)
        if kind == "silu":
            return self.mul(x, self.same("Sigmoid", x))
        if kind == "gelu":  # torch's export of nn.GELU() at opset 17
            e = self.same("Erf", self.binop("Div", x, self.scalar(math.sqrt(2.0))))
            return self.mul(self.mul(x, self.add(e, self.scalar(1.0))), self.scalar(0.5))
        if kind == "tanh":
            return self.same("Tanh", x)
        raise ValueError(kind)

    # -- convolutions and normalizations --
    def conv(self, x, cout, k, s=1, p=None, groups=1, bias=False, d=1):
        n, cin, h, w = self.shape[x]
        kh, kw = (k, k) if isinstance(k, int) else k
        if p is None:
            p = ((kh - 1) // 2 * d, (kw - 1) // 2 * d)
        ph, pw = (p, p) if isinstance(p, int) else p
        fan_in = cin // groups * kh * kw
        weight = self.param(self.rng.standard_normal((cout, cin // groups, kh, kw)) * math.sqrt(2.0 / fan_in))
        inputs = [x, weight]
        if bias:
            bound = 1.0 / math.sqrt(fan_in)
            inputs.append(self.param(self.rng.uniform(-bound, bound, cout), "b"))
        shape = (n, cout, conv_out(h, kh, s, ph, ph, d), conv_out(w, kw, s, pw, pw, d))
        return self.op("Conv", inputs, shape, kernel_shape=[kh, kw], strides=[s, s],
                       pads=[ph, pw, ph, pw], dilations=[d, d], group=groups)

    def bn(self, x, eps=1e-5, gamma=(0.5, 1.5)):
        c = self.shape[x][1]
        scale = self.param(self.rng.uniform(*gamma, c), "bn_scale")
        shift = self.param(self.rng.standard_normal(c) * 0.1, "bn_bias")
        mean = self.param(np.zeros(c), "bn_mean")
        var = self.param(np.ones(c), "bn_var")
        self.bns.append((x, mean, var))
        return self.op("BatchNormalization", [x, scale, shift, mean, var], self.shape[x], epsilon=eps)

    def cba(self, x, cout, k, s=1, groups=1, act="relu", eps=1e-5, p=None, d=1):
        """Conv (no bias) + BatchNormalization + activation: torchvision's Conv2dNormActivation."""
        return self.act(self.bn(self.conv(x, cout, k, s, p=p, groups=groups, d=d), eps), act)

    def layernorm(self, x, eps=1e-5, axis=-1):
        c = self.shape[x][-1]
        scale = self.param(self.rng.uniform(0.8, 1.2, c), "ln_scale")
        shift = self.param(self.rng.standard_normal(c) * 0.02, "ln_bias")
        return self.op("LayerNormalization", [x, scale, shift], self.shape[x], axis=axis, epsilon=eps)

    def layernorm2d(self, x, eps=1e-6):
        """torchvision's LayerNorm2d: the channels last, LayerNormalization, back."""
        y = self.layernorm(self.transpose(x, [0, 2, 3, 1]), eps)
        return self.transpose(y, [0, 3, 1, 2])

    # -- pooling and shapes --
    def maxpool(self, x, k, s, p=0, ceil=False):
        n, c, h, w = self.shape[x]
        return self.op("MaxPool", [x], (n, c, conv_out(h, k, s, p, p, ceil=ceil), conv_out(w, k, s, p, p, ceil=ceil)),
                       kernel_shape=[k, k], strides=[s, s], pads=[p] * 4, ceil_mode=int(ceil))

    def gap(self, x):
        n, c = self.shape[x][:2]
        return self.op("GlobalAveragePool", [x], (n, c, 1, 1))

    def reshape(self, x, shape):
        total = int(np.prod(self.shape[x]))
        known = [d for d in shape if d != -1]
        out = [total // int(np.prod(known)) if d == -1 else d for d in shape]
        return self.op("Reshape", [x, self.const(shape)], out)

    def transpose(self, x, perm):
        return self.op("Transpose", [x], [self.shape[x][i] for i in perm], perm=perm)

    def concat(self, xs, axis):
        shape = list(self.shape[xs[0]])
        shape[axis] = sum(self.shape[x][axis] for x in xs)
        return self.op("Concat", xs, shape, axis=axis)

    def split(self, x, sizes, axis):
        shapes = []
        for s in sizes:
            shape = list(self.shape[x])
            shape[axis] = s
            shapes.append(shape)
        return self.op("Split", [x, self.const(sizes)], shapes, outputs=len(sizes), axis=axis)

    def gather(self, x, index, axis):
        shape = list(self.shape[x])
        del shape[axis]
        return self.op("Gather", [x, self.const(index)], shape, axis=axis)

    def flatten(self, x):
        """x.view(x.size(0), -1) as torch exports it: Shape -> Gather -> Unsqueeze ->
        Concat -> Reshape."""
        shape = self.op("Shape", [x], [len(self.shape[x])], dtype=np.int64)
        batch = self.op("Gather", [shape, self.const(0)], [], dtype=np.int64, axis=0)
        batch = self.op("Unsqueeze", [batch, self.const([0])], [1], dtype=np.int64)
        target = self.op("Concat", [batch, self.const([-1])], [2], dtype=np.int64, axis=0)
        n = self.shape[x][0]
        return self.op("Reshape", [x, target], (n, int(np.prod(self.shape[x])) // n))

    def resize2x(self, x):
        """nn.Upsample(scale_factor=2, mode='nearest') as torch exports it."""
        n, c, h, w = self.shape[x]
        scales = self.const([1.0, 1.0, 2.0, 2.0], np.float32)
        return self.op("Resize", [x, "", scales], (n, c, 2 * h, 2 * w), mode="nearest",
                       coordinate_transformation_mode="asymmetric", nearest_mode="floor")

    # -- dense layers and attention --
    def fc(self, x, cout, bias=True):
        """nn.Linear on a 2-D input: Gemm with transB=1."""
        cin = self.shape[x][-1]
        w = self.param(self.rng.standard_normal((cout, cin)) * math.sqrt(1.0 / cin))
        inputs = [x, w]
        if bias:
            inputs.append(self.param(self.rng.uniform(-1, 1, cout) / math.sqrt(cin), "b"))
        return self.op("Gemm", inputs, (self.shape[x][0], cout), transB=1)

    def dense(self, x, cout, bias=True, gain=1.0):
        """nn.Linear on a 3-D or 4-D input: MatMul by the transposed weight, then Add."""
        cin = self.shape[x][-1]
        w = self.param(self.rng.standard_normal((cin, cout)) * math.sqrt(gain / cin))
        y = self.op("MatMul", [x, w], self.shape[x][:-1] + (cout,))
        if bias:
            y = self.add(y, self.param(self.rng.standard_normal(cout) * 0.02, "b"))
        return y

    def matmul(self, a, b):
        sa, sb = self.shape[a], self.shape[b]
        batch = np.broadcast_shapes(sa[:-2], sb[:-2])
        return self.op("MatMul", [a, b], tuple(batch) + (sa[-2], sb[-1]))

    def attention(self, x, heads, mask=None):
        """timm's Attention: one qkv projection, heads split by Reshape / Transpose,
        q, k, v as Gather(0, 1, 2), softmax(q k^T * scale) v, heads merged, projection."""
        b, n, c = self.shape[x]
        d = c // heads
        qkv = self.reshape(self.dense(x, 3 * c), [b, n, 3, heads, d])
        qkv = self.transpose(qkv, [2, 0, 3, 1, 4])
        q, k, v = (self.gather(qkv, i, 0) for i in range(3))
        scores = self.mul(self.matmul(q, self.transpose(k, [0, 1, 3, 2])), self.scalar(d ** -0.5))
        if mask is not None:
            scores = self.add(scores, mask)
        probs = self.op("Softmax", [scores], self.shape[scores], axis=-1)
        y = self.reshape(self.transpose(self.matmul(probs, v), [0, 2, 1, 3]), [b, n, c])
        return self.dense(y, c)

    def mlp(self, x, hidden, act="gelu"):
        c = self.shape[x][-1]
        return self.dense(self.act(self.dense(x, hidden, gain=2.0), act), c)

    def vit_block(self, x, heads, hidden, act="gelu", eps=1e-6):
        """Pre-norm transformer block (timm's Block, ml-cvnets' TransformerEncoder)."""
        x = self.add(x, self.attention(self.layernorm(x, eps), heads))
        return self.add(x, self.mlp(self.layernorm(x, eps), hidden, act))

    # -- the model --
    def model(self, name, outputs):
        graph = helper.make_graph(
            self.nodes, name,
            [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(np.dtype(t)), s)
             for n, s, t in self.inputs],
            [helper.make_tensor_value_info(o, TensorProto.FLOAT, self.shape[o]) for o in outputs],
            [numpy_helper.from_array(a, n) for n, a in self.inits.items()])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                                  producer_name="acc-zoo")
        model.ir_version = 8
        return model


# ----------------------------------------------------------------------------------
# Blocks
# ----------------------------------------------------------------------------------

def squeeze_excite(g, x, squeeze, act="relu", gate="hsigmoid"):
    """torchvision's SqueezeExcitation: pool, 1x1 conv, act, 1x1 conv, gate, scale."""
    c = g.shape[x][1]
    s = g.act(g.conv(g.gap(x), squeeze, 1, bias=True), act)
    s = g.act(g.conv(s, c, 1, bias=True), gate)
    return g.mul(s, x)


def mbv3_block(g, x, k, exp, out, se, act, stride, eps=1e-3, tap=False):
    """torchvision's MobileNetV3 InvertedResidual; `tap` also returns the expansion's
    output (SSDLite's C4 feature)."""
    cin = g.shape[x][1]
    h = x
    if exp != cin:
        h = g.cba(h, exp, 1, act=act, eps=eps)
    expanded = h
    h = g.cba(h, exp, k, stride, groups=exp, act=act, eps=eps)
    if se:
        h = squeeze_excite(g, h, make_divisible(exp // 4, 8))
    h = g.bn(g.conv(h, out, 1), eps)
    if stride == 1 and cin == out:
        h = g.add(h, x)
    return (h, expanded) if tap else h


def mbv2_block(g, x, out, stride, expand, act="relu6", eps=1e-5):
    """MobileNetV2's inverted residual (also MobileViT's MV2 block, with SiLU)."""
    cin = g.shape[x][1]
    hidden = int(round(cin * expand))
    h = x
    if expand != 1:
        h = g.cba(h, hidden, 1, act=act, eps=eps)
    h = g.cba(h, hidden, 3, stride, groups=hidden, act=act, eps=eps)
    h = g.bn(g.conv(h, out, 1), eps)
    return g.add(x, h) if stride == 1 and cin == out else h


def classifier_head(g, x, classes, hidden=None, act=None, flatten="torch"):
    """Global average pool, flatten (torch.flatten's Flatten op, or with flatten="torch"
    the Shape -> ... -> Reshape of x.view(x.size(0), -1): efficientnet_b0,
    regnetx_400mf and mobilenet_v2 use that one), optional hidden layer, Linear."""
    y = g.gap(x)
    y = g.flatten(y) if flatten == "torch" else g.op("Flatten", [y], (1, g.shape[y][1]), axis=1)
    if hidden:
        y = g.act(g.fc(y, hidden), act)
    return g.fc(y, classes)


# ----------------------------------------------------------------------------------
# Models. Each takes (g, tiny) and returns the output value's name; it declares its input.
# ----------------------------------------------------------------------------------

MBV3_SMALL = [  # kernel, expanded, out, SE, activation, stride (torchvision, input 16)
    (3, 16, 16, True, "relu", 2), (3, 72, 24, False, "relu", 2), (3, 88, 24, False, "relu", 1),
    (5, 96, 40, True, "hswish", 2), (5, 240, 40, True, "hswish", 1), (5, 240, 40, True, "hswish", 1),
    (5, 120, 48, True, "hswish", 1), (5, 144, 48, True, "hswish", 1), (5, 288, 96, True, "hswish", 2),
    (5, 576, 96, True, "hswish", 1), (5, 576, 96, True, "hswish", 1),
]


def mobilenet_v3_small(g, tiny):
    """torchvision mobilenet_v3_small (width 1.0, 224x224, 1000 classes); tiny: width
    0.125, classifier 64, 64x64, 10 classes."""
    width, size, classes = (0.125, 64, 10) if tiny else (1.0, 224, 1000)
    ch = lambda c: make_divisible(c * width, 8)
    x = g.input("input", [1, 3, size, size])
    y = g.cba(x, ch(16), 3, 2, act="hswish", eps=1e-3)
    for k, exp, out, se, act, s in MBV3_SMALL:
        y = mbv3_block(g, y, k, ch(exp), ch(out), se, act, s)
    y = g.cba(y, 6 * ch(96), 1, act="hswish", eps=1e-3)
    return classifier_head(g, y, classes, hidden=64 if tiny else 1024, act="hswish", flatten="onnx")


def efficientnet_b0(g, tiny):
    """torchvision efficientnet_b0 (224x224): MBConv with SiLU, squeeze-excite with a
    sigmoid gate, stochastic depth as identity; tiny: width 0.125, one block per stage, 64x64."""
    cfg = [(1, 3, 1, 16, 1), (6, 3, 2, 24, 2), (6, 5, 2, 40, 2), (6, 3, 2, 80, 3),
           (6, 5, 1, 112, 3), (6, 5, 2, 192, 4), (6, 3, 1, 320, 1)]  # expand, k, stride, out, layers
    width, size, classes = (0.125, 64, 10) if tiny else (1.0, 224, 1000)
    ch = lambda c: make_divisible(c * width, 8)
    x = g.input("input", [1, 3, size, size])
    y = g.cba(x, ch(32), 3, 2, act="silu")
    for expand, k, stride, out, layers in cfg:
        for i in range(1 if tiny else layers):
            cin = g.shape[y][1]
            s = stride if i == 0 else 1
            h = y
            if expand != 1:
                h = g.cba(h, cin * expand, 1, act="silu")
            h = g.cba(h, g.shape[h][1], k, s, groups=g.shape[h][1], act="silu")
            h = squeeze_excite(g, h, max(1, cin // 4), act="silu", gate="sigmoid")
            h = g.bn(g.conv(h, ch(out), 1))
            y = g.add(h, y) if s == 1 and cin == ch(out) else h
    y = g.cba(y, 4 * ch(320), 1, act="silu")
    return classifier_head(g, y, classes, flatten="torch")


def shufflenet_v2_x1_0(g, tiny):
    """torchvision shufflenet_v2_x1_0 (224x224): chunk as Split, channel shuffle as
    Reshape / Transpose / Reshape, mean over H, W as ReduceMean; tiny: stages
    (24, 48, 96), one repeat each, 64x64."""
    repeats, outs = ([1, 1, 1], [16, 24, 48, 96, 128]) if tiny else ([4, 8, 4], [24, 116, 232, 464, 1024])
    size, classes = (64, 10) if tiny else (224, 1000)
    x = g.input("input", [1, 3, size, size])
    y = g.maxpool(g.cba(x, outs[0], 3, 2), 3, 2, 1)

    def shuffle(t):
        n, c, h, w = g.shape[t]
        t = g.transpose(g.reshape(t, [n, 2, c // 2, h, w]), [0, 2, 1, 3, 4])
        return g.reshape(t, [n, -1, h, w])

    for reps, out in zip(repeats, outs[1:4]):
        for i in range(reps):
            bf = out // 2
            if i == 0:
                b1 = g.bn(g.conv(y, g.shape[y][1], 3, 2, groups=g.shape[y][1]))
                b1 = g.cba(b1, bf, 1)
                b2 = y
            else:
                b1, b2 = g.split(y, [bf, bf], 1)
            b2 = g.cba(b2, bf, 1)
            b2 = g.bn(g.conv(b2, bf, 3, 2 if i == 0 else 1, groups=bf))
            b2 = g.cba(b2, bf, 1)
            y = shuffle(g.concat([b1, b2], 1))
    y = g.cba(y, outs[4], 1)
    y = g.op("ReduceMean", [y], g.shape[y][:2], axes=[2, 3], keepdims=0)
    return g.fc(y, classes)


def regnet_widths(depth, w_0, w_a, w_m, group_width, quant=8):
    """torchvision's BlockParams.from_init_params: stage widths, depths and groups."""
    widths_cont = np.arange(depth) * w_a + w_0
    capacity = np.round(np.log(widths_cont / w_0) / np.log(w_m))
    widths = (np.round(np.divide(w_0 * np.power(w_m, capacity), quant)) * quant).astype(int).tolist()
    stage_widths, stage_depths = [], []
    for w in widths:
        if stage_widths and stage_widths[-1] == w:
            stage_depths[-1] += 1
        else:
            stage_widths.append(w)
            stage_depths.append(1)
    groups = [min(group_width, w) for w in stage_widths]
    stage_widths = [make_divisible(w, g) for w, g in zip(stage_widths, groups)]
    return stage_widths, stage_depths, groups


def regnetx_400mf(g, tiny):
    """torchvision regnet_x_400mf (224x224): widths (32, 64, 160, 400), depths
    (1, 2, 7, 12), group width 16; tiny: widths (16, 32, 48, 64), depths (1, 1, 2, 1),
    group width 8, 64x64."""
    if tiny:
        widths, depths, gws, size, classes = [16, 32, 48, 64], [1, 1, 2, 1], [8] * 4, 64, 10
    else:
        (widths, depths, gws), size, classes = regnet_widths(22, 24, 24.48, 2.54, 16), 224, 1000
    x = g.input("input", [1, 3, size, size])
    y = g.cba(x, 32 if not tiny else 16, 3, 2)
    for w, d, gw in zip(widths, depths, gws):
        for i in range(d):
            s = 2 if i == 0 else 1
            h = g.cba(y, w, 1)
            h = g.cba(h, w, 3, s, groups=w // gw)
            h = g.bn(g.conv(h, w, 1))
            short = y if (s == 1 and g.shape[y][1] == w) else g.bn(g.conv(y, w, 1, s))
            y = g.act(g.add(short, h), "relu")
    return classifier_head(g, y, classes, flatten="torch")


def squeezenet1_1(g, tiny):
    """torchvision squeezenet1_1 (224x224): Fire modules, MaxPool with ceil_mode=1,
    a 1x1 conv classifier; tiny: every width / 4, 64x64."""
    div, size, classes = (4, 64, 10) if tiny else (1, 224, 1000)
    x = g.input("input", [1, 3, size, size])

    def fire(t, squeeze, e1, e3):
        s = g.act(g.conv(t, squeeze // div, 1, bias=True), "relu")
        a = g.act(g.conv(s, e1 // div, 1, bias=True), "relu")
        b = g.act(g.conv(s, e3 // div, 3, bias=True), "relu")
        return g.concat([a, b], 1)

    y = g.act(g.conv(x, 64 // div, 3, 2, p=0, bias=True), "relu")
    y = g.maxpool(y, 3, 2, ceil=True)
    y = fire(fire(y, 16, 64, 64), 16, 64, 64)
    y = g.maxpool(y, 3, 2, ceil=True)
    y = fire(fire(y, 32, 128, 128), 32, 128, 128)
    y = g.maxpool(y, 3, 2, ceil=True)
    y = fire(fire(y, 48, 192, 192), 48, 192, 192)
    y = fire(fire(y, 64, 256, 256), 64, 256, 256)
    y = g.act(g.conv(y, classes, 1, bias=True), "relu")
    return g.op("Flatten", [g.gap(y)], (1, classes), axis=1)


def convnext_tiny(g, tiny):
    """torchvision convnext_tiny (224x224, dims (96, 192, 384, 768)) with depths
    (1, 1, 1, 1) instead of (3, 3, 9, 3), to stay near 30 MB: 4x4 stride-4 stem,
    LayerNorm2d (Transpose, LayerNormalization, Transpose), blocks of depthwise 7x7,
    LayerNorm, Linear 4x, GELU, Linear, layer scale, residual; tiny: dims
    (8, 16, 32, 48), 64x64."""
    dims, depths, size, classes = ([8, 16, 32, 48], [1, 1, 1, 1], 64, 10) if tiny else \
        ([96, 192, 384, 768], [1, 1, 1, 1], 224, 1000)
    x = g.input("input", [1, 3, size, size])
    y = g.layernorm2d(g.conv(x, dims[0], 4, 4, p=0, bias=True))
    for stage, (dim, depth) in enumerate(zip(dims, depths)):
        if stage > 0:
            y = g.conv(g.layernorm2d(y), dim, 2, 2, p=0, bias=True)
        for _ in range(depth):
            h = g.conv(y, dim, 7, groups=dim, bias=True)
            h = g.transpose(h, [0, 2, 3, 1])
            h = g.dense(g.act(g.dense(g.layernorm(h, 1e-6), 4 * dim, gain=2.0), "gelu"), dim)
            h = g.transpose(h, [0, 3, 1, 2])
            h = g.mul(h, g.param(g.rng.uniform(0.1, 0.5, (dim, 1, 1)), "layer_scale"))
            y = g.add(h, y)
    y = g.layernorm2d(g.gap(y))
    return g.fc(g.op("Flatten", [y], (1, dims[-1]), axis=1), classes)


def deit_tiny(g, tiny):
    """timm deit_tiny_patch16_224: patch 16, width 192, 12 blocks, 3 heads, MLP 768,
    class token, LayerNorm eps 1e-6; tiny: patch 8, 32x32, width 32, 2 blocks, 2 heads."""
    patch, size, dim, depth, heads, classes = (8, 32, 32, 2, 2, 10) if tiny else (16, 224, 192, 12, 3, 1000)
    x = g.input("input", [1, 3, size, size])
    n = (size // patch) ** 2
    y = g.conv(x, dim, patch, patch, p=0, bias=True)
    y = g.transpose(g.reshape(y, [1, dim, n]), [0, 2, 1])  # flatten(2).transpose(1, 2)
    cls = g.param(g.rng.standard_normal((1, 1, dim)) * 0.02, "cls_token")
    cls = g.op("Expand", [cls, g.const([1, 1, dim])], (1, 1, dim))  # expand(B, -1, -1)
    y = g.concat([cls, y], 1)
    y = g.add(y, g.param(g.rng.standard_normal((1, n + 1, dim)) * 0.02, "pos_embed"))
    for _ in range(depth):
        y = g.vit_block(y, heads, 4 * dim)
    y = g.gather(g.layernorm(y, 1e-6), 0, 1)  # x[:, 0]
    return g.fc(y, classes)


def mobilevit_xs(g, tiny):
    """ml-cvnets MobileViT-XS (256x256): MV2 blocks (expansion 4, SiLU); MobileViT
    blocks with 2x2 patches unfolded and folded by Reshape / Transpose, transformer
    widths (96, 120, 144), depths (2, 4, 3), 4 heads, FFN 2x; 1x1 conv to 384;
    tiny: widths / 4 to / 8, depths (1, 1, 1), 2 heads, 64x64."""
    if tiny:
        chans, dims, depths, heads, size, classes = [4, 8, 8, 8, 12, 16, 48], [16, 16, 24], [1, 1, 1], 2, 64, 10
    else:
        chans, dims, depths, heads, size, classes = [16, 32, 48, 64, 80, 96, 384], [96, 120, 144], [2, 4, 3], 4, 256, 1000
    x = g.input("input", [1, 3, size, size])
    y = g.cba(x, chans[0], 3, 2, act="silu")
    y = mbv2_block(g, y, chans[1], 1, 4, act="silu")
    y = mbv2_block(g, y, chans[2], 2, 4, act="silu")
    y = mbv2_block(g, y, chans[2], 1, 4, act="silu")
    y = mbv2_block(g, y, chans[2], 1, 4, act="silu")

    def mvit_block(t, dim, depth):
        b, c, h, w = g.shape[t]
        z = g.cba(t, c, 3, act="silu")
        z = g.conv(z, dim, 1)
        # unfold: [B, d, H, W] -> [B * 4, N, d] (2x2 patches, N = H W / 4)
        nh, nw = h // 2, w // 2
        z = g.reshape(z, [b * dim * nh, 2, nw, 2])
        z = g.transpose(z, [0, 2, 1, 3])
        z = g.reshape(z, [b, dim, nh * nw, 4])
        z = g.transpose(z, [0, 3, 2, 1])
        z = g.reshape(z, [b * 4, nh * nw, dim])
        for _ in range(depth):
            z = g.vit_block(z, heads, 2 * dim, act="silu", eps=1e-5)
        z = g.layernorm(z)
        # fold: back to [B, d, H, W]
        z = g.reshape(z, [b, 4, nh * nw, dim])
        z = g.transpose(z, [0, 3, 2, 1])
        z = g.reshape(z, [b * dim * nh, nw, 2, 2])
        z = g.transpose(z, [0, 2, 1, 3])
        z = g.reshape(z, [b, dim, h, w])
        z = g.cba(z, c, 1, act="silu")
        return g.cba(g.concat([t, z], 1), c, 3, act="silu")

    for i in range(3):
        y = mbv2_block(g, y, chans[3 + i], 2, 4, act="silu")
        y = mvit_block(y, dims[i], depths[i])
    y = g.cba(y, chans[6], 1, act="silu")
    return classifier_head(g, y, classes, flatten="onnx")


def unet(g, tiny):
    """A small U-Net (1x3x128x128, widths (16, 32, 64, 128), bottleneck 256, two
    classes): double 3x3 conv + BN + ReLU, MaxPool 2, ConvTranspose 2x2 stride 2
    upsampling, Concat skips, 1x1 conv head; tiny: widths (8, 16), bottleneck 24, 32x32."""
    widths, size = ([8, 16], 32) if tiny else ([16, 32, 64, 128], 128)
    x = g.input("input", [1, 3, size, size])

    def double(t, c):
        return g.cba(g.cba(t, c, 3), c, 3)

    skips, y = [], x
    for w in widths:
        y = double(y, w)
        skips.append(y)
        y = g.maxpool(y, 2, 2)
    y = double(y, 24 if tiny else 2 * widths[-1])
    for w, skip in zip(reversed(widths), reversed(skips)):
        n, cin, h, wd = g.shape[y]
        weight = g.param(g.rng.standard_normal((cin, w, 2, 2)) * math.sqrt(2.0 / cin))
        bias = g.param(g.rng.standard_normal(w) * 0.02, "b")
        y = g.op("ConvTranspose", [y, weight, bias], (n, w, 2 * h, 2 * wd), kernel_shape=[2, 2], strides=[2, 2])
        y = double(g.concat([skip, y], 1), w)
    return g.conv(y, 2, 1, bias=True)


MBV3_LARGE = [  # torchvision mobilenet_v3_large, reduced_tail=True (as SSDLite uses it)
    (3, 16, 16, False, "relu", 1), (3, 64, 24, False, "relu", 2), (3, 72, 24, False, "relu", 1),
    (5, 72, 40, True, "relu", 2), (5, 120, 40, True, "relu", 1), (5, 120, 40, True, "relu", 1),
    (3, 240, 80, False, "hswish", 2), (3, 200, 80, False, "hswish", 1), (3, 184, 80, False, "hswish", 1),
    (3, 184, 80, False, "hswish", 1), (3, 480, 112, True, "hswish", 1), (3, 672, 112, True, "hswish", 1),
    (5, 672, 80, True, "hswish", 2), (5, 480, 80, True, "hswish", 1), (5, 480, 80, True, "hswish", 1),
]


def ssdlite_head(g, tiny):
    """torchvision ssdlite320_mobilenet_v3_large without post-processing (320x320, 91
    classes, 6 anchors per cell): MobileNetV3-Large backbone with the reduced tail, the
    C4 feature from the last strided block's expansion (672 x 20 x 20), 480 x 10 x 10,
    four extra blocks (512, 256, 256, 128), SSDLite heads (depthwise 3x3 + BN + ReLU6,
    1x1 conv), each reshaped to [1, cells * anchors, K] and concatenated; the output
    is [1, 3234, 4 + 91]: box regressions and softmax scores. tiny: width 0.08,
    two extra blocks (24, 16), 5 classes, 64x64."""
    width, size, classes, extras = (0.08, 64, 5, [24, 16]) if tiny else (1.0, 320, 91, [512, 256, 256, 128])
    ch = lambda c: make_divisible(c * width, 8)
    anchors = 6
    x = g.input("input", [1, 3, size, size])
    y = g.cba(x, ch(16), 3, 2, act="hswish", eps=1e-3)
    c4_block = len(MBV3_LARGE) - 3
    features = []
    for i, (k, exp, out, se, act, s) in enumerate(MBV3_LARGE):
        if i == c4_block:
            y, expanded = mbv3_block(g, y, k, ch(exp), ch(out), se, act, s, tap=True)
            features.append(expanded)
        else:
            y = mbv3_block(g, y, k, ch(exp), ch(out), se, act, s)
    y = g.cba(y, 6 * ch(80), 1, act="hswish", eps=1e-3)
    features.append(y)
    for out in extras:
        y = g.cba(y, out // 2, 1, act="relu6", eps=1e-3)
        y = g.cba(y, out // 2, 3, 2, groups=out // 2, act="relu6", eps=1e-3)
        y = g.cba(y, out, 1, act="relu6", eps=1e-3)
        features.append(y)

    def head(k):
        parts = []
        for f in features:
            c, h, w = g.shape[f][1:]
            t = g.cba(f, c, 3, groups=c, act="relu6", eps=1e-3)
            t = g.conv(t, anchors * k, 1, bias=True)
            t = g.transpose(g.reshape(t, [1, -1, k, h, w]), [0, 3, 4, 1, 2])
            parts.append(g.reshape(t, [1, -1, k]))
        return g.concat(parts, 1)

    boxes = head(4)
    logits = head(classes)
    scores = g.op("Softmax", [logits], g.shape[logits], axis=-1)
    return g.concat([boxes, scores], 2)


def yolo_head(g, tiny):
    """Ultralytics YOLOv5n v6 (640x640, 80 classes): Conv = conv + BN + SiLU, C3 blocks,
    SPPF, PANet neck with Resize (nearest, 2x) and Concat, three Detect heads decoded
    as YOLOv5's export does (sigmoid, Split, grid and anchors) and concatenated:
    [1, 25200, 85], no NMS; tiny: widths / 8, 4 classes, 64x64."""
    div, size, nc = (8, 64, 4) if tiny else (1, 640, 80)
    x = g.input("input", [1, 3, size, size])
    conv = lambda t, c, k=1, s=1, p=None: g.cba(t, c, k, s, act="silu", eps=1e-3, p=p)

    def c3(t, c2, n, shortcut=True):
        c_ = c2 // 2
        a = conv(t, c_)
        for _ in range(n):
            b = conv(conv(a, c_), c_, 3)
            a = g.add(a, b) if shortcut else b
        return conv(g.concat([a, conv(t, c_)], 1), c2)

    def sppf(t, c2):
        c_ = g.shape[t][1] // 2
        a = conv(t, c_)
        p1 = g.maxpool(a, 5, 1, 2)
        p2 = g.maxpool(p1, 5, 1, 2)
        p3 = g.maxpool(p2, 5, 1, 2)
        return conv(g.concat([a, p1, p2, p3], 1), c2)

    w = lambda c: c // div
    y = conv(x, w(16), 6, 2, p=2)
    y = c3(conv(y, w(32), 3, 2), w(32), 1)
    p3 = c3(conv(y, w(64), 3, 2), w(64), 2)
    p4 = c3(conv(p3, w(128), 3, 2), w(128), 3)
    p5 = sppf(c3(conv(p4, w(256), 3, 2), w(256), 1), w(256))
    h10 = conv(p5, w(128))
    h13 = c3(g.concat([g.resize2x(h10), p4], 1), w(128), 1, False)
    h14 = conv(h13, w(64))
    out3 = c3(g.concat([g.resize2x(h14), p3], 1), w(64), 1, False)
    out4 = c3(g.concat([conv(out3, w(64), 3, 2), h14], 1), w(128), 1, False)
    out5 = c3(g.concat([conv(out4, w(128), 3, 2), h10], 1), w(256), 1, False)

    anchors = [[10, 13, 16, 30, 33, 23], [30, 61, 62, 45, 59, 119], [116, 90, 156, 198, 373, 326]]
    no = nc + 5
    parts = []
    for t, stride, anc in zip([out3, out4, out5], [8, 16, 32], anchors):
        ny, nx = g.shape[t][2:]
        p = g.conv(t, 3 * no, 1, bias=True)
        p = g.transpose(g.reshape(p, [1, 3, no, ny, nx]), [0, 1, 3, 4, 2])
        p = g.same("Sigmoid", p)
        xy, wh, conf = g.split(p, [2, 2, nc + 1], 4)
        yv, xv = np.meshgrid(np.arange(ny), np.arange(nx), indexing="ij")
        grid = np.broadcast_to(np.stack([xv, yv], -1)[None, None] - 0.5, (1, 3, ny, nx, 2))
        xy = g.mul(g.add(g.mul(xy, g.scalar(2.0)), g.param(grid, "grid")), g.scalar(float(stride)))
        anchor_grid = np.array(anc, np.float32).reshape(1, 3, 1, 1, 2)
        wh = g.mul(g.binop("Pow", g.mul(wh, g.scalar(2.0)), g.scalar(2.0)), g.param(anchor_grid, "anchor_grid"))
        parts.append(g.reshape(g.concat([xy, wh, conf], 4), [1, -1, no]))
    return g.concat(parts, 1)


def bert_encoder(g, tiny):
    """A BERT-style encoder (HF BertModel without the token embedding lookup): input
    float embeddings [1, 128, 256] (acc does not yet run Gather at run-time indices),
    plus position and token-type embeddings, LayerNorm (eps 1e-12); 4 post-norm layers,
    hidden 256, 4 heads, FFN 1024, GELU; an additive attention mask computed in the
    graph from a constant padding mask (the last 16 tokens padded) by Equal + Where;
    output: last hidden state. tiny: 1 layer, hidden 32, 2 heads, sequence 16."""
    seq, hid, heads, layers, ffn = (16, 32, 2, 1, 64) if tiny else (128, 256, 4, 4, 1024)
    d = hid // heads
    x = g.input("inputs_embeds", [1, seq, hid])
    pad = np.ones((1, seq), np.int64)
    pad[:, seq - seq // 8:] = 0
    mask = g.op("Equal", [g.const(pad), g.const(0)], (1, seq), dtype=bool)
    mask = g.op("Where", [mask, g.scalar(float(np.finfo(np.float32).min)), g.scalar(0.0)], (1, seq))
    mask = g.reshape(mask, [1, 1, 1, seq])
    y = g.add(x, g.param(g.rng.standard_normal((1, seq, hid)) * 0.02, "position_embeddings"))
    y = g.add(y, g.param(g.rng.standard_normal(hid) * 0.02, "token_type_embeddings"))
    y = g.layernorm(y, 1e-12)

    def heads_of(t, perm):
        return g.transpose(g.reshape(t, [1, seq, heads, d]), perm)

    for _ in range(layers):
        q = heads_of(g.dense(y, hid), [0, 2, 1, 3])
        k = heads_of(g.dense(y, hid), [0, 2, 3, 1])
        v = heads_of(g.dense(y, hid), [0, 2, 1, 3])
        scores = g.add(g.binop("Div", g.matmul(q, k), g.scalar(math.sqrt(d))), mask)
        probs = g.op("Softmax", [scores], g.shape[scores], axis=-1)
        ctx = g.reshape(g.transpose(g.matmul(probs, v), [0, 2, 1, 3]), [1, seq, hid])
        y = g.layernorm(g.add(g.dense(ctx, hid), y), 1e-12)
        f = g.dense(g.act(g.dense(y, ffn, gain=2.0), "gelu"), hid)
        y = g.layernorm(g.add(f, y), 1e-12)
    return y


def recurrent(g, tiny, kind):
    """Two stacked ONNX LSTM / GRU ops as torch exports nn.LSTM / nn.GRU (sequence
    first, zero initial states, the direction axis squeezed between layers; GRU with
    linear_before_reset=1): sequence 32, batch 1, input 64, hidden 128; tiny:
    sequence 8, input 8, hidden 16."""
    seq, features, hidden = (8, 8, 16) if tiny else (32, 64, 128)
    gates = 4 if kind == "LSTM" else 3
    x = g.input("input", [seq, 1, features])
    y = x
    bound = 1.0 / math.sqrt(hidden)
    for _ in range(2):
        cin = g.shape[y][-1]
        w = g.param(g.rng.uniform(-bound, bound, (1, gates * hidden, cin)), "W")
        r = g.param(g.rng.uniform(-bound, bound, (1, gates * hidden, hidden)), "R")
        b = g.param(g.rng.uniform(-bound, bound, (1, 2 * gates * hidden)), "B")
        h0 = g.param(np.zeros((1, 1, hidden)), "h0")
        inputs = [y, w, r, b, "", h0]
        attrs = {"hidden_size": hidden}
        if kind == "LSTM":
            inputs.append(g.param(np.zeros((1, 1, hidden)), "c0"))
            outs = g.op("LSTM", inputs, [(seq, 1, 1, hidden), (1, 1, hidden), (1, 1, hidden)], outputs=3, **attrs)
        else:
            outs = g.op("GRU", inputs, [(seq, 1, 1, hidden), (1, 1, hidden)], outputs=2,
                        linear_before_reset=1, **attrs)
        y = g.op("Squeeze", [outs[0], g.const([1])], (seq, 1, hidden))
    return y


def lenet5(g, tiny):
    """LeNet-5 (1x1x28x28, padding 2 on the first conv, ReLU, max pooling, 120-84-10),
    flattened as x.view(x.size(0), -1)."""
    x = g.input("input", [1, 1, 28, 28])
    y = g.maxpool(g.act(g.conv(x, 6, 5, p=2, bias=True), "relu"), 2, 2)
    y = g.maxpool(g.act(g.conv(y, 16, 5, p=0, bias=True), "relu"), 2, 2)
    y = g.act(g.fc(g.flatten(y), 120), "relu")
    return g.fc(g.act(g.fc(y, 84), "relu"), 10)


def resnet18(g, tiny):
    """torchvision resnet18 (224x224); tiny: widths / 16, 64x64."""
    div, size, classes = (16, 64, 10) if tiny else (1, 224, 1000)
    x = g.input("input", [1, 3, size, size])
    y = g.maxpool(g.cba(x, 64 // div, 7, 2), 3, 2, 1)
    for cout, stride in [(64, 1), (128, 2), (256, 2), (512, 2)]:
        for block in range(2):
            s = stride if block == 0 else 1
            h = g.bn(g.conv(g.cba(y, cout // div, 3, s), cout // div, 3))
            short = y if (s == 1 and g.shape[y][1] == cout // div) else g.bn(g.conv(y, cout // div, 1, s))
            y = g.act(g.add(h, short), "relu")
    return classifier_head(g, y, classes, flatten="onnx")


def mobilenet_v2(g, tiny):
    """torchvision mobilenet_v2 (224x224, width 1.0); tiny: width 0.08, last conv 96, 64x64."""
    width, size, classes = (0.08, 64, 10) if tiny else (1.0, 224, 1000)
    ch = lambda c: make_divisible(c * width, 8)
    x = g.input("input", [1, 3, size, size])
    y = g.cba(x, ch(32), 3, 2, act="relu6")
    for t, c, n, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                       (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]:
        for i in range(n):
            y = mbv2_block(g, y, ch(c), s if i == 0 else 1, t)
    y = g.cba(y, 1280 if not tiny else 96, 1, act="relu6")
    return classifier_head(g, y, classes, flatten="torch")


MODELS = {
    "mobilenet_v3_small": mobilenet_v3_small,
    "efficientnet_b0": efficientnet_b0,
    "shufflenet_v2_x1_0": shufflenet_v2_x1_0,
    "regnetx_400mf": regnetx_400mf,
    "squeezenet1_1": squeezenet1_1,
    "convnext_tiny": convnext_tiny,
    "deit_tiny": deit_tiny,
    "mobilevit_xs": mobilevit_xs,
    "unet": unet,
    "ssdlite_head": ssdlite_head,
    "yolo_head": yolo_head,
    "bert_encoder": bert_encoder,
    "lstm": lambda g, tiny: recurrent(g, tiny, "LSTM"),
    "gru": lambda g, tiny: recurrent(g, tiny, "GRU"),
    "lenet5": lenet5,
    "resnet18": resnet18,
    "mobilenet_v2": mobilenet_v2,
}
TINY = [m for m in MODELS if m != "lenet5"]  # lenet5 is small already (examples/onnx)

# The PP-OCR models of the rapidocr-onnxruntime wheel: (file, fixed input shape).
PPOCR = {
    "ppocr_det": ("ch_PP-OCRv4_det_infer.onnx", [1, 3, 640, 640]),
    "ppocr_cls": ("ch_ppocr_mobile_v2.0_cls_infer.onnx", [1, 3, 48, 192]),
    "ppocr_rec": ("ch_PP-OCRv4_rec_infer.onnx", [1, 3, 48, 320]),
}


# ----------------------------------------------------------------------------------
# Calibration, checking and saving
# ----------------------------------------------------------------------------------

def session(model, threads=1):
    opts = onnxruntime.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    return onnxruntime.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])


def bn_levels(model, bns):
    """Groups the batch norms by depth: a batch norm's level is the number of batch
    norms on the longest path from the input to it."""
    level = {}
    bn_inputs = {x for x, _, _ in bns}
    for node in model.graph.node:  # nodes are in topological order
        depth = max((level.get(i, 0) for i in node.input), default=0)
        for o in node.output:
            level[o] = depth + 1 if node.op_type == "BatchNormalization" else depth
    groups = {}
    for x, mean, var in bns:
        groups.setdefault(level.get(x, 0), []).append((x, mean, var))
    return [groups[k] for k in sorted(groups)]


def calibrate(g, model, shape, samples=8):
    """Sets every batch norm's running statistics to those of what it receives over
    `samples` seeded inputs other than the reference one (the mean shifted by 0.1 std,
    the variance scaled by U(0.8, 1.25), each channel's variance at least 5% of the
    layer's mean variance), as in a trained network. Level by level, so that each
    level sees the earlier ones calibrated. Several inputs, so that the statistics of
    small maps (1x1 at the end of a detector) are not those of one value: that would
    make the reference output the rounding noise of x - mean."""
    if not g.bns:
        return model
    rng = np.random.default_rng(1)
    name = g.inputs[0][0]
    feeds = [{name: rng.standard_normal(shape).astype(np.float32)} for _ in range(samples)]
    opts = onnxruntime.SessionOptions()
    opts.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    for group in bn_levels(model, g.bns):
        probe = onnx.ModelProto()
        probe.CopyFrom(model)
        del probe.graph.output[:]
        names = [x for x, _, _ in group]
        for x in names:
            probe.graph.output.append(helper.make_tensor_value_info(x, TensorProto.FLOAT, None))
        sess = onnxruntime.InferenceSession(probe.SerializeToString(), opts, providers=["CPUExecutionProvider"])
        runs = [sess.run(names, feed) for feed in feeds]
        for i, (x, mean, var) in enumerate(group):
            v = np.concatenate([r[i] for r in runs]).astype(np.float64)
            m = v.mean(axis=(0, 2, 3))
            s = v.var(axis=(0, 2, 3))
            s = np.maximum(s, 0.05 * s.mean() + 1e-6)
            g.inits[mean] = (m + rng.standard_normal(len(m)) * 0.1 * np.sqrt(s)).astype(np.float32)
            g.inits[var] = (s * rng.uniform(0.8, 1.25, len(s))).astype(np.float32)
        model = g.model(model.graph.name, [o.name for o in model.graph.output])
    return model


def save(out_dir, name, model, feed, note=""):
    onnx.checker.check_model(model, full_check=True)
    outputs = session(model).run(None, feed)
    (x,) = feed.values()
    (y,) = outputs
    assert np.isfinite(y).all(), f"{name}: non-finite output"
    onnx.save(model, os.path.join(out_dir, name + ".onnx"))
    np.save(os.path.join(out_dir, name + ".input.npy"), x)
    np.save(os.path.join(out_dir, name + ".output.npy"), y)
    params = sum(int(np.prod(t.dims)) for t in model.graph.initializer)
    params += sum(int(np.prod(a.t.dims)) for n in model.graph.node if n.op_type == "Constant"
                  for a in n.attribute if a.name == "value" and len(a.t.dims) and np.prod(a.t.dims) > 64)
    size = os.path.getsize(os.path.join(out_dir, name + ".onnx"))
    print(f"{name:24} input {'x'.join(map(str, x.shape)):>12} {x.dtype}  output {'x'.join(map(str, y.shape)):>12}  "
          f"params {params:>10,}  {size / 1e6:7.2f} MB  nodes {len(model.graph.node):5}  "
          f"|y| max {np.abs(y).max():.3g} std {y.std():.3g}{note}", flush=True)
    return size


def build(name, tiny, out_dir):
    g = Builder(seed=0)
    y = MODELS[name](g, tiny)
    full = name + ("_tiny" if tiny else "")
    model = g.model(full, [y])
    (inp, shape, dtype) = g.inputs[0]
    feed = {inp: np.random.default_rng(0).standard_normal(shape).astype(dtype)}
    model = calibrate(g, model, shape)
    size = save(out_dir, full, model, feed)
    if tiny and size > 200_000:
        print(f"warning: {full} is {size} bytes, over 200 KB", file=sys.stderr)


def ppocr(name, out_dir):
    """Copies a PP-OCR model out of the rapidocr-onnxruntime wheel with static shapes."""
    import rapidocr_onnxruntime
    file, shape = PPOCR[name]
    path = os.path.join(os.path.dirname(rapidocr_onnxruntime.__file__), "models", file)
    model = onnx.load(path)
    inp = model.graph.input[0]
    dims = inp.type.tensor_type.shape.dim
    for d, v in zip(dims, shape):
        d.Clear()
        d.dim_value = v
    del model.graph.value_info[:]
    feed = {inp.name: np.random.default_rng(0).uniform(-1, 1, shape).astype(np.float32)}
    (y,) = session(model).run(None, feed)
    out = model.graph.output[0].type.tensor_type.shape.dim
    for d, v in zip(out, y.shape):
        d.Clear()
        d.dim_value = v
    opset = model.opset_import[0].version
    save(out_dir, name, model, feed, note=f"  (opset {opset}, {file})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("--tiny", action="store_true", help="write the small variants NAME_tiny.*")
    parser.add_argument("--only", help="comma-separated model names")
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    names = list(TINY) if args.tiny else list(MODELS) + list(PPOCR)
    if args.only:
        wanted = [n.strip().removesuffix("_tiny") for n in args.only.split(",") if n.strip()]
        unknown = [n for n in wanted if n not in names]
        if unknown:
            parser.error(f"unknown model(s) {', '.join(unknown)}; known: {', '.join(names)}")
        names = wanted
    failed = []
    for name in names:
        start = time.time()
        try:
            if name in PPOCR:
                ppocr(name, args.out_dir)
            else:
                build(name, args.tiny, args.out_dir)
        except Exception as e:  # one broken model must not stop the others
            failed.append(name)
            print(f"{name}: FAILED: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}", file=sys.stderr)
        if time.time() - start > 30:
            print(f"  ({name} took {time.time() - start:.0f} s)", file=sys.stderr)
    if failed:
        sys.exit(f"failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
