//! The SoC example end to end (examples/targets/soc.acc, docs/tutorial-soc.md): the
//! YOLO-style detector onnxruntime quantized (examples/onnx/detector.qdq.onnx),
//! compiled by the target's pipeline under `--check-semantics`:
//! - the interpreter gives onnxruntime's selected boxes exactly, and its boxes and
//!   scores within float rounding;
//! - the DLA runs the backbone, the DSP the quantization of the input and the whole
//!   post-processing, in its own C file; the DLA's result reaches the DSP's TCM by
//!   the engine between them (no DDR engine copies for the DSP), and the host only
//!   starts the first launch and waits for the last;
//! - with a pipelined entry (`pipeline-frames{frames=2}`), the simulated makespan is
//!   below the devices' busy sum;
//! - the C (a program per device, a thread per device) gives the interpreter's
//!   results bit for bit, under ThreadSanitizer too.

use std::path::Path;

mod support;
use support::{examples, figure, npy_data, tool};

const TARGET: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/targets/soc.acc");

/// The target's pipeline (its `pipeline "..."` line), with `pipeline-frames` after
/// `partition` when `frames` > 1.
fn pipeline(frames: usize) -> String {
    let target = std::fs::read_to_string(TARGET).expect("the target");
    let line = target
        .lines()
        .find_map(|l| l.trim().strip_prefix("pipeline \""))
        .and_then(|l| l.strip_suffix('"'))
        .expect("the target's pipeline");
    let framed = if frames > 1 {
        format!("partition,pipeline-frames{{frames={frames}}},")
    } else {
        "partition,".to_string()
    };
    assert!(line.contains("partition,"), "{line}");
    line.replacen("partition,", &framed, 1)
}

/// Imports the detector and compiles it for the SoC (`frames` frames a call) into
/// `d/OUT`.
fn compile(d: &Path, frames: usize, out: &str) {
    let model = examples().join("detector.qdq.onnx");
    if !d.join("detector.mlir").exists() {
        tool(
            "translate",
            d,
            &[
                "--import-onnx",
                model.to_str().expect("a UTF-8 path"),
                "-o",
                "detector.mlir",
            ],
        );
    }
    tool(
        "opt",
        d,
        &[
            "--target",
            TARGET,
            "--check-semantics",
            "--pass",
            &pipeline(frames),
            "detector.mlir",
            "-o",
            out,
        ],
    );
}

fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn the_detector_runs_on_the_dla_and_the_dsp_as_onnxruntime_computes() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let d = dir.path();
    compile(d, 1, "soc.mlir");
    let image = examples().join("detector.input0.npy");
    let input = format!("0={}", image.display());
    let got = outputs(d, "soc.mlir", &[&image], "one");
    // onnxruntime's selected triples exactly; boxes and scores within rounding.
    assert_eq!(
        got[2],
        npy_data(&examples().join("detector.qdq.output2.npy"))
    );
    for (k, theirs, tolerance) in [
        (0, "detector.qdq.output0.npy", 1e-4),
        (1, "detector.qdq.output1.npy", 1e-6),
    ] {
        let (a, b) = (f32s(&got[k]), f32s(&npy_data(&examples().join(theirs))));
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(&b) {
            assert!(
                (x - y).abs() <= tolerance * y.abs().max(1.0),
                "output {k}: {x} vs {y}"
            );
        }
    }

    // The program: the DSP's launches (quantizing the input, then post-processing),
    // the DLA's (the backbone); the host waits once.
    let ir = std::fs::read_to_string(d.join("soc.mlir")).expect("the program");
    assert_eq!(ir.matches("hw.launch @dsp").count(), 2, "{ir}");
    assert_eq!(ir.matches("hw.launch @dla").count(), 1, "{ir}");
    assert_eq!(ir.matches("hw.wait").count(), 1, "{ir}");
    // The first convolution reads the planar image, the others the DLA's blocked
    // feature format, in which every result stays between them: only the DSP's code
    // unblocks (the head's 7 channels, one zero-padded block of 16).
    assert_eq!(
        ir.matches("hw.intrinsic \"dla_image_conv2d_s8\"").count(),
        1,
        "{ir}"
    );
    assert_eq!(
        ir.matches("hw.intrinsic \"dla_conv2d_s8\"").count(),
        3,
        "{ir}"
    );
    // The NMS is the DSP library's, called in the DSP's post-processing launch: the
    // selected triples go to a buffer of the most it can select (12 rows), their
    // number to a one-element buffer the host reads where it returns them.
    assert_eq!(
        ir.matches("hw.intrinsic \"dsp_nms_f32\"").count(),
        1,
        "{ir}"
    );
    assert!(
        ir.contains("memref<12x3xi64>, memref<1xi32>, i32"),
        "the NMS call's bounded result and count: {ir}"
    );
    for blocked in ["(memref<1x1x16x16x16x", "(memref<1x1x8x8x16x"] {
        assert!(ir.contains(blocked), "no call reads {blocked}: {ir}");
    }
    // Each launch's line: its device, the buffers it takes and their types.
    let launches: Vec<&str> = ir
        .split("hw.launch @")
        .skip(1)
        .filter_map(|l| l.lines().next())
        .collect();
    let unblocking: Vec<&&str> = launches
        .iter()
        .filter(|l| l.starts_with("dsp") && l.contains("memref<1x1x8x8x16x"))
        .collect();
    assert!(
        unblocking.len() == 1 && unblocking[0].contains("memref<1x7x8x8x"),
        "one DSP launch takes the head's blocks and unblocks them: {ir}"
    );

    let sim = tool(
        "run",
        d,
        &[
            "soc.mlir", "--input", &input, "--mode", "sim", "--target", TARGET, "--trace", "t.json",
        ],
    );
    assert_eq!(figure(&sim, "launches"), 3, "{sim}");
    // Between the DLA and the DSP, only the engine joining their memories copies.
    assert!(sim.contains("sim: dma=dla_dsp_dma transfers=2"), "{sim}");
    assert!(!sim.contains("dma=dsp_dma"), "{sim}");
    // The host's own work is a few ops (starting, loading the count).
    let host_ops = sim
        .lines()
        .find_map(|l| l.strip_prefix("sim: host ops="))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|v| v.parse::<i64>().ok())
        .unwrap_or_else(|| panic!("no host line: {sim}"));
    assert!(host_ops < 500, "{sim}");
    // The DSP quantizes the 3072 input elements 16 at a time, on its 512-bit vectors:
    // under 2 cycles an element (its scalar loop takes about 15 ops an element).
    let quantize = sim
        .lines()
        .find_map(|l| l.strip_prefix("sim: critical_path="))
        .and_then(|p| p.split(" -> ").find(|s| s.starts_with("launch @dsp")))
        .and_then(|s| s.split_once('[')?.1.split_once(')'))
        .and_then(|(span, _)| span.split_once(", "))
        .and_then(|(a, b)| Some(b.parse::<i64>().ok()? - a.parse::<i64>().ok()?))
        .unwrap_or_else(|| panic!("no DSP launch on the critical path: {sim}"));
    assert!(quantize < 2 * 3072, "{sim}");
    let trace: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("t.json")).expect("the trace")).expect("JSON");
    assert!(
        trace["traceEvents"]
            .as_array()
            .is_some_and(|e| e.len() > 10)
    );
}

/// The detector's outputs (boxes, scores, selected) from `program` on `inputs`, named
/// `PREFIX.K.npy`.
fn outputs(d: &Path, program: &str, inputs: &[&Path], prefix: &str) -> Vec<Vec<u8>> {
    let mut args = vec![program.to_string()];
    for (i, x) in inputs.iter().enumerate() {
        args.extend(["--input".into(), format!("{i}={}", x.display())]);
    }
    let n = 3 * inputs.len();
    for k in 0..n {
        args.extend(["--output".into(), format!("{prefix}.{k}.npy")]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    tool("run", d, &args);
    (0..n)
        .map(|k| npy_data(&d.join(format!("{prefix}.{k}.npy"))))
        .collect()
}

#[test]
fn a_pipelined_entry_overlaps_the_dla_and_the_dsp() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let d = dir.path();
    compile(d, 1, "soc.mlir");
    compile(d, 2, "piped.mlir");
    // A second image: the first's values in reverse order.
    let first = examples().join("detector.input0.npy");
    let bytes = std::fs::read(&first).expect("the input");
    let data = 10 + u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    let mut second_bytes = bytes[..data].to_vec();
    second_bytes.extend(bytes[data..].chunks_exact(4).rev().flatten());
    let second = d.join("second.npy");
    std::fs::write(&second, second_bytes).expect("the second input");

    // Each frame gives what the one-frame program gives on its image.
    let mut expected = outputs(d, "soc.mlir", &[&first], "one");
    expected.extend(outputs(d, "soc.mlir", &[&second], "two"));
    assert_ne!(
        expected[2], expected[5],
        "the two images select the same boxes"
    );
    assert_eq!(
        outputs(d, "piped.mlir", &[&first, &second], "piped"),
        expected
    );

    let (a, b) = (
        format!("0={}", first.display()),
        format!("1={}", second.display()),
    );
    let sim = tool(
        "run",
        d,
        &[
            "piped.mlir",
            "--input",
            &a,
            "--input",
            &b,
            "--mode",
            "sim",
            "--target",
            TARGET,
        ],
    );
    // Frame 1's backbone runs while the DSP works on frame 0.
    assert!(
        figure(&sim, "makespan") < figure(&sim, "devices_busy_sum"),
        "{sim}"
    );
    let ir = std::fs::read_to_string(d.join("piped.mlir")).expect("the program");
    assert_eq!(ir.matches("hw.launch @dla").count(), 2, "{ir}");
}

#[test]
fn the_c_of_each_device_gives_the_interpreters_results() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let d = dir.path();
    compile(d, 1, "soc.mlir");
    let input = examples().join("detector.input0.npy");
    let expected: Vec<u8> = outputs(d, "soc.mlir", &[&input], "one").concat();

    std::fs::create_dir_all(d.join("out")).expect("a directory");
    tool("translate", d, &["--emit-c", "soc.mlir", "-o", "out"]);
    let dsp = std::fs::read_to_string(d.join("out/model.dsp.c")).expect("the DSP's program");
    assert!(dsp.contains("Build with: cc -O2 -std=c99"), "{dsp}");
    // The DSP's loops use its vector types; the host's stay scalar C.
    assert!(dsp.contains("__attribute__((vector_size(64)))"), "{dsp}");
    let host = std::fs::read_to_string(d.join("out/model.c")).expect("the host's program");
    assert!(!host.contains("vector_size"), "{host}");
    // The DSP's program calls its library's NMS; the host does not.
    assert!(dsp.contains("dsp_nms_f32("), "{dsp}");
    assert!(!host.contains("dsp_nms_f32("), "{host}");
    std::fs::write(d.join("input.bin"), npy_data(&input)).expect("the input");
    std::fs::write(
        d.join("driver.c"),
        r#"#include <stdint.h>
#include <stdio.h>
#include "model.h"
int main(void) {
    static float x[3 * 32 * 32], boxes[64 * 4], scores[3 * 64];
    static int64_t selected[12 * 3];
    int64_t count = 0;
    FILE *in = fopen("input.bin", "rb");
    if (!in || fread(x, sizeof x[0], 3 * 32 * 32, in) != 3 * 32 * 32) return 1;
    fclose(in);
    for (int round = 0; round < 5; round++) acc_main(x, boxes, scores, selected, &count);
    fwrite(boxes, 1, sizeof boxes, stdout);
    fwrite(scores, 1, sizeof scores, stdout);
    fwrite(selected, sizeof selected[0], (size_t)count * 3, stdout);
    return 0;
}
"#,
    )
    .expect("write the driver");
    let hwlib = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/hwlib");
    let library = ["soc.c", "tinynpu.c"].map(|f| hwlib.join(f));
    support::build_and_run_on_threads(d, &library, &[], &expected);
}
