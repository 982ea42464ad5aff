"""Runs random ONNX NonMaxSuppression models through acc (imported, lowered for the
host and run as native code by `acc-run --mode jit`) and through onnxruntime, and
counts the cases whose selected [batch, class, box] triples differ:

    cargo build --release -p acc-tools
    /tmp/onnx-env/bin/python tools/onnx/check_nms.py [CASES] [SEED]

Batches, classes, boxes, max_output_boxes_per_class (0 included), IoU and score
thresholds and center_point_box are drawn at random; coordinates are often rounded
to quarters and scores to eighths, so exact overlaps and tied scores are common.
Needs onnx and onnxruntime (see examples/onnx/make_examples.py). Exit status 1 when
a case differs or fails.
"""

import os
import subprocess
import sys
import tempfile

import numpy as np
import onnxruntime
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ACC_RUN = os.path.join(ROOT, "target", "release", "acc-run")
PIPELINE = "host-pipeline{assume-finite=true}"


def model(batches, classes, boxes, max_out, iou, threshold, center):
    inits = [numpy_helper.from_array(np.array([max_out], np.int64), "max"),
             numpy_helper.from_array(np.array([iou], np.float32), "iou")]
    inputs = ["boxes", "scores", "max", "iou"]
    if threshold is not None:
        inits.append(numpy_helper.from_array(np.array([threshold], np.float32), "threshold"))
        inputs.append("threshold")
    graph = helper.make_graph(
        [helper.make_node("NonMaxSuppression", inputs, ["selected"], center_point_box=center)],
        "nms",
        [helper.make_tensor_value_info("boxes", TensorProto.FLOAT, [batches, boxes, 4]),
         helper.make_tensor_value_info("scores", TensorProto.FLOAT, [batches, classes, boxes])],
        [helper.make_tensor_value_info("selected", TensorProto.INT64, ["selected", 3])],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def main():
    cases = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    rng = np.random.default_rng(int(sys.argv[2]) if len(sys.argv) > 2 else 0)
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        path = lambda name: os.path.join(tmp, name)
        for case in range(cases):
            b, c, n = int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(1, 30))
            params = dict(max_out=int(rng.choice([0, 1, 2, 5, 100])),
                          iou=float(rng.choice([0.0, 0.3, 0.5, 0.9])),
                          threshold=rng.choice([None, 0.2, 0.5]),
                          center=int(rng.integers(0, 2)))
            boxes = rng.uniform(0, 1, (b, n, 4)).astype(np.float32)
            if rng.integers(0, 2):
                boxes = np.round(boxes * 4) / 4
            scores = (np.round(rng.uniform(0, 1, (b, c, n)) * 8) / 8).astype(np.float32)
            m = model(b, c, n, **params)
            with open(path("m.onnx"), "wb") as f:
                f.write(m.SerializeToString())
            np.save(path("boxes.npy"), boxes)
            np.save(path("scores.npy"), scores)
            want = onnxruntime.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]) \
                .run(None, {"boxes": boxes, "scores": scores})[0]
            run = subprocess.run(
                [ACC_RUN, path("m.onnx"), "--target", os.path.join(ROOT, "lowering/runtime/host.acc"),
                 "--pipeline", PIPELINE, "--mode", "jit", "--input", "0=" + path("boxes.npy"),
                 "--input", "1=" + path("scores.npy"), "-o", path("got.npy")],
                capture_output=True, text=True)
            if run.returncode != 0:
                failed += 1
                print(f"case {case}: acc-run failed: {run.stderr.strip()}")
                continue
            got = np.load(path("got.npy"))
            if got.shape != want.shape or not (got == want).all():
                failed += 1
                print(f"case {case} {dict(batches=b, classes=c, boxes=n, **params)}: "
                      f"onnxruntime {want.tolist()}, acc {got.tolist()}")
    print(f"{cases - failed}/{cases} cases match onnxruntime")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
