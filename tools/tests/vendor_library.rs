//! A library written as vendors write them: examples/targets/mcunpu.acc describes an
//! int8 accelerator whose C library (examples/hwlib/mcunpu.h, reference
//! implementation mcunpu.c) follows Arm CMSIS-NN's conventions (NHWC, OHWI filters,
//! per-channel Q31 multipliers and shifts, act_min/act_max, fixed-point
//! arithmetic). On a MobileNet-style block quantized by onnxruntime
//! (examples/onnx/make_mobilenet.py, asymmetric and symmetric activations), every
//! convolution, add, pool and fully connected layer runs as a library call, the C
//! builds against the vendor's header with strict warnings and computes what the
//! interpreter computes on the placed IR, bit for bit; the interpreter on the QDQ
//! graph computes what onnxruntime computes, exactly, and the fixed-point graph
//! stays within one quantization step of it.

use std::path::{Path, PathBuf};
use std::process::Command;

mod support;
use support::{bits, compile_and_run, driver, examples, floats, run, run_stderr, write_input};

/// Seeded inputs (mobilenet.inputs.npy), each 1 x 3 x 16 x 16, and 10 outputs each.
const INPUTS: usize = 64;
const INPUT_SIZE: usize = 3 * 16 * 16;
const OUTPUT_SIZE: usize = 10;

fn acc(tool: &str) -> Command {
    Command::new(match tool {
        "opt" => env!("CARGO_BIN_EXE_acc-opt"),
        "run" => env!("CARGO_BIN_EXE_acc-run"),
        _ => env!("CARGO_BIN_EXE_acc-translate"),
    })
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The interpreter's output for `ir` (with `extra` arguments) on the input of
/// `x.npy` in `d`.
fn interpret(d: &Path, ir: &str, extra: &[&str]) -> Vec<f32> {
    run(acc("run")
        .current_dir(d)
        .arg(ir)
        .args(extra)
        .args(["--input", "0=x.npy", "--output", "y.npy"]));
    floats(&d.join("y.npy"))
}

/// The scale of the quantized value the last `graph.dequantize` of `ir` reads (its
/// zero point, when not 0, after a colon): one step of the model's output.
fn output_step(ir: &str) -> f32 {
    let line = ir
        .lines()
        .rfind(|l| l.contains("graph.dequantize"))
        .expect("a dequantize");
    let params = line
        .split("quant.uniform<i8:f32, ")
        .nth(1)
        .expect("a quantized type");
    params
        .split([':', '>'])
        .next()
        .and_then(|s| s.parse().ok())
        .expect("a scale")
}

/// Reads `inputs.bin` (INPUTS x INPUT_SIZE floats), runs the entry on each and
/// writes `output.bin`.
fn batch_driver() -> String {
    format!(
        r#"#include <stdio.h>
#include "model.h"
static float x[{INPUTS}][{INPUT_SIZE}], y[{INPUTS}][{OUTPUT_SIZE}];
int main(void) {{
    FILE *f = fopen("inputs.bin", "rb");
    if (!f || fread(x, sizeof(float), {INPUTS} * {INPUT_SIZE}, f) != {INPUTS} * {INPUT_SIZE}) return 2;
    fclose(f);
    for (int i = 0; i < {INPUTS}; i++) acc_main(x[i], y[i]);
    FILE *g = fopen("output.bin", "wb");
    if (!g || fwrite(y, sizeof(float), {INPUTS} * {OUTPUT_SIZE}, g) != {INPUTS} * {OUTPUT_SIZE}) return 3;
    fclose(g);
    return 0;
}}
"#
    )
}

/// What one quantized model gives: outputs of the fixed-point graph that differ
/// from onnxruntime's, and the remarks of lowering it for the target.
fn check_model(model: &str) -> (usize, String) {
    let dir = tempfile::tempdir().expect("a directory");
    let d = dir.path();
    let target = root().join("examples/targets/mcunpu.acc");
    let hwlib = root().join("examples/hwlib");
    run(acc("translate")
        .current_dir(d)
        .arg("--import-onnx")
        .arg(examples().join(format!("{model}.onnx")))
        .args(["-o", "qdq.mlir"]));
    // The graph quantized as the library computes (the target's pipeline's front).
    run(acc("opt").current_dir(d).args([
        "--pipeline",
        "quantize-pipeline{requant=fixed_point}",
        "qdq.mlir",
        "-o",
        "fixed.mlir",
    ]));
    let remarks = run_stderr(
        acc("opt")
            .current_dir(d)
            .arg("--target")
            .arg(&target)
            .args(["--remarks", "--check-semantics", "--pipeline", "target"])
            .args(["qdq.mlir", "-o", "loops.mlir"]),
    );
    let loops = std::fs::read_to_string(d.join("loops.mlir")).expect("loops.mlir");
    for (call, n) in [
        ("mcunpu_convolve_s8", 2),
        ("mcunpu_depthwise_conv_s8", 1),
        ("mcunpu_elementwise_add_s8", 1),
        ("mcunpu_max_pool_s8", 1),
        ("mcunpu_mean_s8", 1),
        ("mcunpu_fully_connected_s8", 1),
    ] {
        let found = loops.matches(&format!("hw.intrinsic \"{call}\"")).count();
        assert_eq!(found, n, "{model}: {call}: {remarks}");
    }
    // The host quantizes the input (straight into the NHWC the first convolution
    // reads) and dequantizes the output; nothing else is a loop nest.
    assert_eq!(
        loops.matches("loop.parallel").count(),
        2,
        "{model}: {loops}"
    );
    run(acc("translate")
        .current_dir(d)
        .args(["--emit-c", "loops.mlir", "-o", "c"]));
    let c = std::fs::read_to_string(d.join("c/model.c")).expect("model.c");
    assert!(c.contains("#include \"mcunpu.h\""), "{c}");
    assert!(c.contains("section(\".npu_sram\")"), "{c}");
    // The host code converts in float only (no double-precision routines on a
    // soft-float core): the entry uses no double (the prelude's unused helpers
    // compile to nothing).
    let entry = c.split("void acc_main(").nth(1).expect("the entry");
    assert!(!entry.contains("double"), "{entry}");

    let inputs = floats(&examples().join("mobilenet.inputs.npy"));
    let expected = floats(&examples().join(format!("{model}.outputs.npy")));
    assert_eq!(inputs.len(), INPUTS * INPUT_SIZE);
    assert_eq!(expected.len(), INPUTS * OUTPUT_SIZE);
    let step = output_step(&std::fs::read_to_string(d.join("fixed.mlir")).expect("fixed"));
    let target_arg = target.to_string_lossy().to_string();
    let mut placed = Vec::new();
    let mut differing = 0;
    for (x, want) in inputs.chunks(INPUT_SIZE).zip(expected.chunks(OUTPUT_SIZE)) {
        write_input(d, &[1, 3, 16, 16], x);
        let graph = interpret(d, "qdq.mlir", &[]);
        assert_eq!(
            bits(&graph),
            bits(want),
            "{model}: the QDQ graph and onnxruntime"
        );
        let fixed = interpret(d, "fixed.mlir", &[]);
        for (f, w) in fixed.iter().zip(want) {
            assert!(
                (f - w).abs() <= step * 1.0001,
                "{model}: fixed point {f}, onnxruntime {w}, one step {step}"
            );
            differing += usize::from(f != w);
        }
        placed.extend(interpret(d, "loops.mlir", &["--target", &target_arg]));
    }
    let all: Vec<u8> = inputs.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(d.join("inputs.bin"), all).expect("inputs");
    let got = compile_and_run(
        d,
        &batch_driver(),
        &[
            "-I",
            &hwlib.to_string_lossy(),
            &hwlib.join("mcunpu.c").to_string_lossy(),
        ],
    );
    assert_eq!(got, bits(&placed), "{model}: the C and the interpreter");
    let distinct: std::collections::BTreeSet<u32> = got.iter().copied().collect();
    assert!(distinct.len() > 50, "{model}: {placed:?}");
    (differing, remarks)
}

#[test]
fn a_mobilenet_block_on_a_cmsis_nn_style_library_computes_what_onnxruntime_does() {
    for model in ["mobilenet.qdq", "mobilenet.qdq-sym"] {
        let (differing, remarks) = check_model(model);
        // Each model's fixed-point result rounds differently from onnxruntime's
        // float arithmetic somewhere (else the comparison would show nothing).
        assert!(differing > 0, "{model}: {remarks}");
        eprintln!(
            "{model}: fixed point differs from onnxruntime (by one step) at {differing} of {} outputs",
            INPUTS * OUTPUT_SIZE
        );
    }
}

/// The fenced blocks of section 9 of docs/tutorial-new-target.md, in order, each
/// with its info string (`c` or empty).
fn tutorial_blocks() -> Vec<(String, String)> {
    let text =
        std::fs::read_to_string(root().join("docs/tutorial-new-target.md")).expect("the tutorial");
    let start = text.find("## 9. A fixed-point library").expect("section 9");
    let section = &text[start..];
    let end = section[3..].find("\n## ").map_or(section.len(), |e| e + 3);
    let mut blocks = Vec::new();
    let mut lines = section[..end].lines();
    while let Some(line) = lines.next() {
        if let Some(info) = line.strip_prefix("```") {
            let body: Vec<&str> = lines.by_ref().take_while(|l| *l != "```").collect();
            blocks.push((info.to_string(), body.join("\n")));
        }
    }
    blocks
}

/// A block of commands as the tutorial writes them (`cargo run -q --bin TOOL --`,
/// paths under /tmp), with the built tools and `tmp` in their place, each of which
/// must succeed: what the last one prints, and what they all print on stderr.
fn run_commands(block: &str, tmp: &Path) -> (String, String) {
    let joined = block.replace("\\\n", " ");
    let (mut stdout, mut stderr) = (String::new(), String::new());
    for line in joined.lines().filter(|l| !l.trim().is_empty()) {
        let mut command = line.replace("/tmp/", &format!("{}/", tmp.display()));
        for (tool, path) in [
            ("acc-opt", env!("CARGO_BIN_EXE_acc-opt")),
            ("acc-run", env!("CARGO_BIN_EXE_acc-run")),
            ("acc-translate", env!("CARGO_BIN_EXE_acc-translate")),
        ] {
            command = command.replace(&format!("cargo run -q --bin {tool} --"), path);
        }
        let out = Command::new("sh")
            .current_dir(root())
            .args(["-c", &command])
            .output()
            .expect("a shell");
        stderr.push_str(&String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "{command}: {stderr}");
        stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    }
    (stdout, stderr)
}

/// Section 9 of the tutorial, followed literally: its commands run as written, its
/// driver saved where it says, and what it says they print is what they print.
#[test]
fn the_tutorial_on_a_fixed_point_library_runs_as_written() {
    let dir = tempfile::tempdir().expect("a directory");
    let tmp = dir.path();
    let blocks = tutorial_blocks();
    let commands: Vec<&(String, String)> = blocks
        .iter()
        .filter(|(_, b)| b.contains("cargo run") || b.starts_with("gcc"))
        .collect();
    assert_eq!(commands.len(), 3, "{blocks:?}");
    let (_, driver) = blocks
        .iter()
        .find(|(info, _)| info == "c")
        .expect("the driver");
    let printed_after = |command: &str| -> &str {
        let at = blocks
            .iter()
            .position(|(_, b)| b == command)
            .expect("a command block");
        &blocks[at + 1].1
    };

    // Down to C; the remark the tutorial quotes is among acc-opt's.
    let (_, remarks) = run_commands(&commands[0].1, tmp);
    let quoted = blocks
        .iter()
        .find(|(_, b)| b.starts_with("help: memory-plan"))
        .expect("the quoted remark");
    assert!(remarks.contains(&quoted.1), "{remarks}");

    std::fs::write(tmp.join("mobilenet-c/driver.c"), driver).expect("the driver");
    let (printed, _) = run_commands(&commands[1].1, tmp);
    assert_eq!(printed.trim_end(), printed_after(&commands[1].1).trim_end());

    let (sim, _) = run_commands(&commands[2].1, tmp);
    for line in printed_after(&commands[2].1).lines() {
        assert!(sim.contains(line), "{line} not in {sim}");
    }
}

/// Pools with padding through the library (`mcunpu_avgpool_s8`, CMSIS-NN's rounded
/// average over the window's positions inside the plane, and `mcunpu_max_pool_s8`):
/// the C gives what the interpreter gives, bit for bit.
#[test]
fn padded_pools_in_the_library_match_the_interpreter_bit_for_bit() {
    let model = r#"func.func @main(%x: tensor<1x4x6x6xf32>) -> tensor<1x4x3x3xf32> {
  %q = graph.quantize %x : tensor<1x4x6x6xf32> to tensor<1x4x6x6x!quant.uniform<i8:f32, 3.125000e-02:-3>>
  %a = graph.qavg_pool %q {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, requant = #graph.requantization<fixed_point>} : (tensor<1x4x6x6x!quant.uniform<i8:f32, 3.125000e-02:-3>>) -> tensor<1x4x3x3x!quant.uniform<i8:f32, 3.125000e-02:-3>>
  %i = graph.storage_cast %a : tensor<1x4x3x3x!quant.uniform<i8:f32, 3.125000e-02:-3>> to tensor<1x4x3x3xi8>
  %m = graph.max_pool %i {kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 0, 0>} : (tensor<1x4x3x3xi8>) -> tensor<1x4x3x3xi8>
  %r = graph.storage_cast %m : tensor<1x4x3x3xi8> to tensor<1x4x3x3x!quant.uniform<i8:f32, 3.125000e-02:-3>>
  %y = graph.dequantize %r : tensor<1x4x3x3x!quant.uniform<i8:f32, 3.125000e-02:-3>> to tensor<1x4x3x3xf32>
  return %y : tensor<1x4x3x3xf32>
}
"#;
    let dir = tempfile::tempdir().expect("a directory");
    let d = dir.path();
    let target = root().join("examples/targets/mcunpu.acc");
    let hwlib = root().join("examples/hwlib");
    std::fs::write(d.join("q.mlir"), model).expect("written");
    run(acc("opt")
        .current_dir(d)
        .arg("--target")
        .arg(&target)
        .args([
            "--check-semantics",
            "--pipeline",
            "target",
            "q.mlir",
            "-o",
            "loops.mlir",
        ]));
    let loops = std::fs::read_to_string(d.join("loops.mlir")).expect("loops.mlir");
    for call in ["mcunpu_avgpool_s8", "mcunpu_max_pool_s8"] {
        assert!(
            loops.contains(&format!("hw.intrinsic \"{call}\"")),
            "{loops}"
        );
    }
    run(acc("translate")
        .current_dir(d)
        .args(["--emit-c", "loops.mlir", "-o", "c"]));
    for seed in 0..4 {
        let x: Vec<f32> = (0..144)
            .map(|i| ((i * 7 + seed * 13) as f32 * 0.61).sin() * 4.2)
            .collect();
        write_input(d, &[1, 4, 6, 6], &x);
        let want = interpret(d, "q.mlir", &[]);
        let got = compile_and_run(
            d,
            &driver(144, 36),
            &[
                "-I",
                &hwlib.to_string_lossy(),
                &hwlib.join("mcunpu.c").to_string_lossy(),
            ],
        );
        assert_eq!(got, bits(&want), "seed {seed}");
        let distinct: std::collections::BTreeSet<u32> = got.iter().copied().collect();
        assert!(distinct.len() > 10, "{want:?}");
    }
}
