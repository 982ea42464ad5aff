//! `acc-translate --import-onnx` on real models (an MLP, a CNN with batch norm and a
//! residual add, LeNet-5, a transformer encoder block) made by the onnx package with
//! reference outputs from onnxruntime
//! (examples/onnx/make_examples.py): imported, read back by acc-opt, run by acc-run,
//! and compared with the reference outputs (1e-5 relative); lowered to loops
//! (`graph-to-tensor,bufferize`, each pass checked against the interpreter), compiled
//! by the JIT and compared again; bad models give errors and no output.

use std::path::{Path, PathBuf};
use std::process::Command;

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/onnx")
}

fn tool(name: &str) -> Command {
    let path = match name {
        "acc-translate" => env!("CARGO_BIN_EXE_acc-translate"),
        "acc-run" => env!("CARGO_BIN_EXE_acc-run"),
        _ => env!("CARGO_BIN_EXE_acc-opt"),
    };
    Command::new(path)
}

fn floats(path: &Path) -> Vec<f32> {
    let bytes = std::fs::read(path).expect("an .npy file");
    npyz::NpyFile::new(&bytes[..])
        .expect("valid npy")
        .into_vec::<f32>()
        .expect("f32 data")
}

/// Imports `model` into `dir`; the IR file.
fn import(dir: &Path, model: &str) -> PathBuf {
    let ir = dir.join(format!("{model}.mlir"));
    let out = tool("acc-translate")
        .arg("--import-onnx")
        .arg(examples().join(format!("{model}.onnx")))
        .arg("-o")
        .arg(&ir)
        .output()
        .expect("acc-translate runs");
    assert!(
        out.status.success(),
        "{model}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    ir
}

/// Runs `ir` on the model's reference input with `extra` options and compares the
/// result with the reference output.
fn run_and_compare(dir: &Path, model: &str, ir: &Path, extra: &[&str]) {
    let result = dir.join(format!("{model}.out.npy"));
    let run = tool("acc-run")
        .arg(ir)
        .args(extra)
        .arg("--input")
        .arg(format!(
            "0={}",
            examples().join(format!("{model}.input0.npy")).display()
        ))
        .arg("-o")
        .arg(&result)
        .output()
        .expect("acc-run runs");
    assert!(
        run.status.success(),
        "{model}: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let (got, want) = (
        floats(&result),
        floats(&examples().join(format!("{model}.output0.npy"))),
    );
    assert_eq!(got.len(), want.len(), "{model}");
    for (g, w) in got.iter().zip(&want) {
        assert!(
            (g - w).abs() <= 1e-5 * (1.0 + w.abs()),
            "{model}: {g} vs {w}"
        );
    }
}

#[test]
fn real_models_match_the_onnx_reference() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for model in ["mlp", "cnn", "lenet5", "encoder"] {
        let ir = import(dir.path(), model);
        // The text reads back (weights in the resource section round-trip).
        let reread = tool("acc-opt").arg(&ir).output().expect("acc-opt runs");
        assert!(
            reread.status.success(),
            "{model}: {}",
            String::from_utf8_lossy(&reread.stderr)
        );
        run_and_compare(dir.path(), model, &ir, &[]);
    }
}

// One test per model, so that the test harness runs them on several threads.
#[test]
fn the_mlp_compiled_to_native_code_matches_the_onnx_reference() {
    native_code_matches_the_onnx_reference("mlp");
}

#[test]
fn the_cnn_compiled_to_native_code_matches_the_onnx_reference() {
    native_code_matches_the_onnx_reference("cnn");
}

#[test]
fn lenet5_compiled_to_native_code_matches_the_onnx_reference() {
    native_code_matches_the_onnx_reference("lenet5");
}

#[test]
fn the_encoder_compiled_to_native_code_matches_the_onnx_reference() {
    native_code_matches_the_onnx_reference("encoder");
}

/// `model` lowered by three pipelines (checked pass by pass against the interpreter),
/// compiled to native code and run against onnxruntime's outputs.
fn native_code_matches_the_onnx_reference(model: &str) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    // Loops everywhere; matrix products and convolutions as calls to the host's GEMM;
    // and the whole optimizing pipeline (the benchmarks').
    let pipelines = [
        "graph-to-tensor,bufferize",
        "graph-to-tensor,bufferize{gemm=acc_sgemm},buffer-deallocation",
        OPTIMIZED,
    ];
    for pipeline in pipelines {
        let ir = import(dir.path(), model);
        let loops = dir.path().join(format!("{model}.loops.mlir"));
        // The optimizing pipeline takes its kernels from the host's target file.
        let target: &[&str] = if pipeline == OPTIMIZED {
            &["--target", HOST_TARGET]
        } else {
            &[]
        };
        let lowered = tool("acc-opt")
            .args(target)
            .args(["--pass", pipeline, "--check-semantics"])
            .arg(&ir)
            .arg("-o")
            .arg(&loops)
            .output()
            .expect("acc-opt runs");
        assert!(
            lowered.status.success(),
            "{model}: {}",
            String::from_utf8_lossy(&lowered.stderr)
        );
        let text = std::fs::read_to_string(&loops).expect("the lowered IR");
        assert!(
            !text.contains("graph.") && !text.contains("tensor."),
            "{model}: not fully lowered"
        );
        assert_eq!(
            text.contains("hw.intrinsic \"acc_sgemm"),
            pipeline.contains("gemm") || pipeline == OPTIMIZED,
            "{model} with {pipeline}"
        );
        if pipeline == OPTIMIZED {
            // Their first convolutions (1 or 3 input channels) read NCHW into NCHW16c.
            assert_eq!(
                text.contains("hw.intrinsic \"acc_sconv2d_nchw_nchw16c_bias\""),
                ["cnn", "lenet5"].contains(&model),
                "{model}: convolutions call the host's blocked convolution, from their bias"
            );
            assert!(text.contains("loop.vstore"), "{model}: nothing vectorized");
            assert!(text.contains("loop.arena_size"), "{model}: no memory plan");
            assert!(!text.contains("math.exp"), "{model}: exp not expanded");
            // Every model has dense layers: their weights are packed at compile time.
            assert!(
                text.contains("hw.intrinsic \"acc_sgemm_nk48n"),
                "{model}: packed weights"
            );
            // The encoder's attention reads its heads in place: no transposes.
            assert_eq!(
                text.contains("hw.intrinsic \"acc_sgemm_strided\""),
                model == "encoder",
                "{model}: products on strided heads"
            );
            // Softmax exponentials (the MLP's and the encoder's) run in the library.
            assert_eq!(
                text.contains("hw.intrinsic \"acc_vexp\""),
                ["mlp", "encoder"].contains(&model),
                "{model}: library exp"
            );
        }
        run_and_compare(dir.path(), model, &loops, &["--mode", "jit"]);
    }
}

/// The pipeline of the benchmarks (tools/bench/models.sh).
const OPTIMIZED: &str = "host-pipeline{assume-finite=true}";

/// The host's target file (its runtime kernels), for the optimizing pipeline.
const HOST_TARGET: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../lowering/runtime/host.acc");

#[test]
fn bad_models_give_errors_and_no_output() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let junk = dir.path().join("junk.onnx");
    std::fs::write(&junk, b"\x0a\xff\xff\xff\xff this is not protobuf").expect("write");
    let out_path = dir.path().join("out.mlir");
    let out = tool("acc-translate")
        .arg("--import-onnx")
        .arg(&junk)
        .arg("-o")
        .arg(&out_path)
        .output()
        .expect("acc-translate runs");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("junk.onnx: error: not a valid ONNX model"),
        "{err}"
    );
    assert!(!out_path.exists());
    let out = tool("acc-translate")
        .arg("model.onnx")
        .output()
        .expect("acc-translate runs");
    assert_eq!(out.status.code(), Some(2));
}
