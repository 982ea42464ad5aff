"""Per-inference latency of detection post-processing, acc (JIT, one thread) against
onnxruntime (one thread), with the selected boxes compared:

    cargo build --release -p acc-tools
    /tmp/onnx-env/bin/python tools/bench/nms.py [BOXES] [CLASSES]

The model is a sigmoid over class logits (mostly low: a standard normal minus 2),
then NonMaxSuppression (at most 100 boxes per class, IoU above 0.5 suppresses,
scores not above 0.5 dropped) of BOXES random boxes (default 1000) in CLASSES
classes (default 20). Needs onnx and onnxruntime (examples/onnx/make_examples.py).
Exit status 1 when acc selects other boxes than onnxruntime.
"""

import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnxruntime
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PIPELINE = "host-pipeline{assume-finite=true}"
RUNS = 200


def model(boxes, classes):
    graph = helper.make_graph(
        [helper.make_node("Sigmoid", ["logits"], ["scores"]),
         helper.make_node("NonMaxSuppression", ["boxes", "scores", "max", "iou", "threshold"], ["selected"])],
        "nms",
        [helper.make_tensor_value_info("boxes", TensorProto.FLOAT, [1, boxes, 4]),
         helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, classes, boxes])],
        [helper.make_tensor_value_info("selected", TensorProto.INT64, ["selected", 3])],
        [numpy_helper.from_array(np.array([100], np.int64), "max"),
         numpy_helper.from_array(np.array([0.5], np.float32), "iou"),
         numpy_helper.from_array(np.array([0.5], np.float32), "threshold")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    classes = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    rng = np.random.default_rng(5)
    corners = rng.uniform(0, 1, (1, n, 2)).astype(np.float32)
    sizes = rng.uniform(0.02, 0.2, (1, n, 2)).astype(np.float32)
    boxes = np.concatenate([corners, corners + sizes], axis=2)
    logits = (rng.standard_normal((1, classes, n)) - 2).astype(np.float32)
    m = model(n, classes)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    session = onnxruntime.InferenceSession(m.SerializeToString(), options, providers=["CPUExecutionProvider"])
    feeds = {"boxes": boxes, "logits": logits}
    want = session.run(None, feeds)[0]
    for _ in range(20):
        session.run(None, feeds)
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        session.run(None, feeds)
        times.append(time.perf_counter() - start)
    print(f"boxes={n} classes={classes} selected={want.shape[0]}")
    print(f"onnxruntime 1 thread: latency_ms median={np.median(times) * 1e3:.4f} min={min(times) * 1e3:.4f}")
    with tempfile.TemporaryDirectory() as tmp:
        path = lambda name: os.path.join(tmp, name)
        with open(path("nms.onnx"), "wb") as f:
            f.write(m.SerializeToString())
        np.save(path("boxes.npy"), boxes)
        np.save(path("logits.npy"), logits)
        run = subprocess.run(
            [os.path.join(ROOT, "target", "release", "acc-run"), path("nms.onnx"),
             "--target", os.path.join(ROOT, "lowering/runtime/host.acc"), "--pipeline", PIPELINE,
             "--mode", "jit", "--input", "0=" + path("boxes.npy"), "--input", "1=" + path("logits.npy"),
             "-o", path("got.npy"), "--repeat", str(RUNS)],
            capture_output=True, text=True, check=True)
        print("acc 1 thread: " + " ".join(run.stdout.split()))
        got = np.load(path("got.npy"))
    same = got.shape == want.shape and (got == want).all()
    print("same boxes as onnxruntime:", same)
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
