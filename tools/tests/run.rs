//! `acc-run` end to end: .npy inputs (written here byte by byte, as numpy does), the
//! interpreter, .npy outputs read back, the summary, and clear errors for bad input.

use std::path::{Path, PathBuf};
use std::process::Command;

const IR: &str = r#"
func.func @block(%x: tensor<2x3xf32>, %b: tensor<3xf32>) -> (tensor<3x2xf32>, i32) {
  %s = graph.add %x, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %r = graph.relu %s : tensor<2x3xf32>
  %t = graph.transpose %r : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %c = arith.constant 42 : i32
  return %t, %c : tensor<3x2xf32>, i32
}
"#;

/// An .npy file (format 1.0, C order) of little-endian `f32`s.
fn npy_f32(path: &Path, shape: &[usize], values: &[f32]) {
    let data: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    npy(path, "<f4", shape, &data);
}

/// An .npy file of `data` (little-endian elements of NumPy type `descr`).
fn npy(path: &Path, descr: &str, shape: &[usize], data: &[u8]) {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let shape_text = if shape.len() == 1 {
        format!("{},", dims[0])
    } else {
        dims.join(", ")
    };
    let mut header =
        format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': ({shape_text}), }}");
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    bytes.extend_from_slice(data);
    std::fs::write(path, bytes).expect("write input");
}

struct Setup {
    dir: tempfile::TempDir,
}

impl Setup {
    fn new() -> Setup {
        let dir = tempfile::tempdir().expect("a temporary directory");
        std::fs::write(dir.path().join("f.mlir"), IR).expect("write IR");
        npy_f32(
            &dir.path().join("x.npy"),
            &[2, 3],
            &[1.0, -2.0, 3.0, -4.0, 5.0, -6.0],
        );
        npy_f32(&dir.path().join("b.npy"), &[3], &[0.5, 1.0, -1.0]);
        Setup { dir }
    }
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
    fn run(&self, args: &[&str]) -> (i32, String, String) {
        let out = Command::new(env!("CARGO_BIN_EXE_acc-run"))
            .current_dir(self.dir.path())
            .args(args)
            .output()
            .expect("acc-run runs");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

#[test]
fn runs_and_summarises() {
    let s = Setup::new();
    let (code, out, err) = s.run(&["f.mlir", "--input", "0=x.npy", "--input=%arg1=b.npy"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "result 0: tensor<3x2xf32> [1.5, 0, 0, 6, 2, 0]\nresult 1: i32 [42]\n"
    );
}

/// An ONNX model whose Tile repeats are a graph input (ONNX's node test
/// `test_tile_precomputed`): inputs are named as in the model, and `--bind` fixes the
/// repeats at import, where the compiler needs them.
#[test]
fn onnx_inputs_by_name_and_bound_at_import() {
    let s = Setup::new();
    let model = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../test/onnx-node/test_tile_precomputed/model.onnx"
    );
    npy_f32(&s.path("tx.npy"), &[2, 2], &[1.0, 2.0, 3.0, 4.0]);
    let repeats: Vec<u8> = [2i64, 2].iter().flat_map(|v| v.to_le_bytes()).collect();
    npy(&s.path("r.npy"), "<i8", &[2], &repeats);
    // Without the repeats the import names the input to bind.
    let (code, _, err) = s.run(&[model, "--input", "x=tx.npy"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("'y'") && err.contains("must be a constant"),
        "{err}"
    );
    let want = vec![
        1.0, 2.0, 1.0, 2.0, 3.0, 4.0, 3.0, 4.0, 1.0, 2.0, 1.0, 2.0, 3.0, 4.0, 3.0, 4.0,
    ];
    for mode in [
        &["--mode", "interp"][..],
        &["--mode", "jit", "--pipeline", "host-pipeline"],
    ] {
        let mut args = vec![
            model, "--bind", "y=r.npy", "--input", "x=tx.npy", "-o", "t.npy",
        ];
        args.extend_from_slice(mode);
        let (code, _, err) = s.run(&args);
        assert_eq!(code, 0, "{mode:?}: {err}");
        let bytes = std::fs::read(s.path("t.npy")).expect("t.npy");
        let t = npyz::NpyFile::new(&bytes[..]).expect("valid npy");
        assert_eq!(t.shape(), &[4, 4]);
        assert_eq!(t.into_vec::<f32>().expect("f32 data"), want, "{mode:?}");
    }
    // A name the model does not have is an error that lists the names it has.
    let (code, _, err) = s.run(&[model, "--bind", "y=r.npy", "--input", "z=tx.npy"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("'z'") && err.contains("x"), "{err}");
    let (code, _, err) = s.run(&[model, "--bind", "w=r.npy", "--input", "x=tx.npy"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("no input 'w'"), "{err}");
}

#[test]
fn writes_npy_outputs() {
    let s = Setup::new();
    let (code, _, err) = s.run(&[
        "f.mlir",
        "--entry",
        "block",
        "--input",
        "arg0=x.npy",
        "--input",
        "1=b.npy",
        "--output",
        "t.npy",
        "-o",
        "c.npy",
    ]);
    assert_eq!(code, 0, "{err}");
    let t_bytes = std::fs::read(s.path("t.npy")).expect("t.npy");
    let t = npyz::NpyFile::new(&t_bytes[..]).expect("valid npy");
    assert_eq!(t.shape(), &[3, 2]);
    assert_eq!(
        t.into_vec::<f32>().expect("f32 data"),
        vec![1.5, 0.0, 0.0, 6.0, 2.0, 0.0]
    );
    let c_bytes = std::fs::read(s.path("c.npy")).expect("c.npy");
    let c = npyz::NpyFile::new(&c_bytes[..]).expect("valid npy");
    assert_eq!(c.shape(), &[] as &[u64]);
    assert_eq!(c.into_vec::<i32>().expect("i32 data"), vec![42]);
}

#[test]
fn bad_inputs_are_clear_errors_and_write_nothing() {
    let s = Setup::new();
    std::fs::write(s.path("junk.npy"), "not numpy").expect("write junk");
    npy_f32(&s.path("short.npy"), &[2], &[1.0, 2.0]);
    let cases: [(&[&str], &str); 6] = [
        (
            &[
                "f.mlir",
                "--input",
                "0=junk.npy",
                "--input",
                "1=b.npy",
                "-o",
                "t.npy",
                "-o",
                "c.npy",
            ],
            "'junk.npy' is not a valid .npy file",
        ),
        (
            &[
                "f.mlir",
                "--input",
                "0=x.npy",
                "--input",
                "1=short.npy",
                "-o",
                "t.npy",
                "-o",
                "c.npy",
            ],
            "'short.npy' has shape [2], but the argument is tensor<3xf32>",
        ),
        (
            &["f.mlir", "--input", "0=x.npy", "-o", "t.npy", "-o", "c.npy"],
            "argument 1 of '@block' has no --input",
        ),
        (
            &[
                "f.mlir", "--input", "0=x.npy", "--input", "1=b.npy", "-o", "t.npy",
            ],
            "'@block' has 2 results but 1 --output files were given",
        ),
        (
            &["f.mlir", "--entry", "nope", "--input", "0=x.npy"],
            "no function '@nope' with a body in the module",
        ),
        (&["missing.mlir"], "cannot read 'missing.mlir'"),
    ];
    for (args, message) in cases {
        let (code, _, err) = s.run(args);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(err.contains(message), "{args:?}: {err}");
        assert!(!s.path("t.npy").exists(), "{args:?} wrote an output");
    }
    // Graph-level IR must be lowered before it can be compiled: a located error.
    let (code, _, err) = s.run(&[
        "f.mlir", "--mode", "jit", "--input", "0=x.npy", "--input", "1=b.npy",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("f.mlir:"), "{err}");
    assert!(err.contains("has no machine type"), "{err}");
    assert!(err.contains("lowered to buffers first"), "{err}");
    let (code, _, err) = s.run(&["f.mlir", "--threads", "0"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--threads expects a positive count"), "{err}");
}

const LOOPS: &str = r#"
func.func @scale(%x: memref<2x3xf32>, %k: memref<3xf32>) -> memref<2x3xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %out = loop.alloc() : memref<2x3xf32>
  loop.parallel (%i, %j) = (%c0, %c0) to (%c2, %c3) step (%c1, %c1) {
    %a = loop.load %x[%i, %j] : memref<2x3xf32>
    %b = loop.load %k[%j] : memref<3xf32>
    %p = arith.mulf %a, %b : f32
    loop.store %p, %out[%i, %j] : memref<2x3xf32>
    loop.yield
  }
  return %out : memref<2x3xf32>
}
"#;

#[test]
fn jit_mode_runs_native_code_and_times_it() {
    let s = Setup::new();
    std::fs::write(s.path("loops.mlir"), LOOPS).expect("write IR");
    let args = ["loops.mlir", "--input", "0=x.npy", "--input", "1=b.npy"];
    let (code, interp, err) = s.run(&args);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        interp,
        "result 0: memref<2x3xf32> [0.5, -2, -3, -2, 5, 6]\n"
    );
    let mut jit_args = args.to_vec();
    jit_args.extend(["--mode", "jit", "--repeat", "5", "--threads", "1"]);
    let (code, out, err) = s.run(&jit_args);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], interp.trim_end());
    assert!(lines[1].starts_with("compile_ms="), "{out}");
    assert!(lines[2].starts_with("latency_ms median="), "{out}");
    assert!(lines[2].ends_with("runs=5"), "{out}");
    // Two threads for the library kernels: the same results.
    let mut two = args.to_vec();
    two.extend(["--mode", "jit", "--threads", "2"]);
    let (code, out, err) = s.run(&two);
    assert_eq!((code, out.as_str()), (0, interp.as_str()), "{err}");
}

/// A depthwise convolution (stride 2) with a ReLU6 and a full one, both reading zero
/// padding in place, lowered to the host library's intrinsics (the ReLU6 becomes the
/// first call's clamp, the second starts from the broadcast bias).
const CONVOLUTIONS: &str = r#"
func.func @convs(%x: tensor<1x4x9x9xf32>, %dw: tensor<4x1x3x3xf32>, %w: tensor<5x4x3x3xf32>, %b: tensor<5xf32>) -> tensor<1x5x5x5xf32> {
  %xp = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    %zero = arith.constant 0.0 : f32
    tensor.yield %zero : f32
  } : tensor<1x4x9x9xf32> to tensor<1x4x11x11xf32>
  %z4 = arith.constant dense<0.25> : tensor<1x4x5x5xf32>
  %c = tensor.conv2d {groups = 4 : i64, strides = array<i64: 2, 2>} ins(%xp, %dw : tensor<1x4x11x11xf32>, tensor<4x1x3x3xf32>) outs(%z4 : tensor<1x4x5x5xf32>) -> tensor<1x4x5x5xf32>
  %e = tensor.empty() : tensor<1x4x5x5xf32>
  %d = tensor.map ins(%c : tensor<1x4x5x5xf32>) outs(%e : tensor<1x4x5x5xf32>) -> tensor<1x4x5x5xf32> {
  ^bb0(%v: f32):
    %c0 = arith.constant 0.0 : f32
    %m = arith.maximumf %v, %c0 : f32
    %c6 = arith.constant 0.5 : f32
    %n = arith.minimumf %m, %c6 : f32
    tensor.yield %n : f32
  }
  %dp = tensor.pad %d low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    %zero = arith.constant 0.0 : f32
    tensor.yield %zero : f32
  } : tensor<1x4x5x5xf32> to tensor<1x4x7x7xf32>
  %e5 = tensor.empty() : tensor<1x5x5x5xf32>
  %z5 = tensor.broadcast ins(%b : tensor<5xf32>) outs(%e5 : tensor<1x5x5x5xf32>) dimensions = [0, 2, 3] -> tensor<1x5x5x5xf32>
  %y = tensor.conv2d ins(%dp, %w : tensor<1x4x7x7xf32>, tensor<5x4x3x3xf32>) outs(%z5 : tensor<1x5x5x5xf32>) -> tensor<1x5x5x5xf32>
  return %y : tensor<1x5x5x5xf32>
}
"#;

/// Two convolutions the layout pass blocks (NCHW16c): 20 input channels (a partial
/// block), a padded 3x3 one with a bias and a ReLU, a depthwise 3x3 one, then a
/// strided 1x1 one into 24 channels; two filters are arguments, so they are packed at
/// run time.
const BLOCKED: &str = r#"
func.func @blocked(%x: tensor<1x20x9x9xf32>, %w: tensor<32x20x3x3xf32>, %b: tensor<32xf32>, %w2: tensor<24x32x1x1xf32>) -> tensor<1x24x5x5xf32> {
  %xp = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    %zero = arith.constant 0.0 : f32
    tensor.yield %zero : f32
  } : tensor<1x20x9x9xf32> to tensor<1x20x11x11xf32>
  %e = tensor.empty() : tensor<1x32x9x9xf32>
  %bb = tensor.broadcast ins(%b : tensor<32xf32>) outs(%e : tensor<1x32x9x9xf32>) dimensions = [0, 2, 3] -> tensor<1x32x9x9xf32>
  %c = tensor.conv2d ins(%xp, %w : tensor<1x20x11x11xf32>, tensor<32x20x3x3xf32>) outs(%bb : tensor<1x32x9x9xf32>) -> tensor<1x32x9x9xf32>
  %e2 = tensor.empty() : tensor<1x32x9x9xf32>
  %r = tensor.map ins(%c : tensor<1x32x9x9xf32>) outs(%e2 : tensor<1x32x9x9xf32>) -> tensor<1x32x9x9xf32> {
  ^bb0(%v: f32):
    %c0 = arith.constant 0.0 : f32
    %m = arith.maximumf %v, %c0 : f32
    tensor.yield %m : f32
  }
  %rp = tensor.pad %r low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    %zero = arith.constant 0.0 : f32
    tensor.yield %zero : f32
  } : tensor<1x32x9x9xf32> to tensor<1x32x11x11xf32>
  %dw = arith.constant dense<[[0.5, -0.25, 0.125], [1.0, 0.0, -1.0], [0.75, 0.5, 0.25]]> : tensor<3x3xf32>
  %dwe = tensor.empty() : tensor<32x1x3x3xf32>
  %dw32 = tensor.broadcast ins(%dw : tensor<3x3xf32>) outs(%dwe : tensor<32x1x3x3xf32>) dimensions = [0, 1] -> tensor<32x1x3x3xf32>
  %zd = arith.constant dense<-0.5> : tensor<1x32x9x9xf32>
  %d = tensor.conv2d {groups = 32 : i64} ins(%rp, %dw32 : tensor<1x32x11x11xf32>, tensor<32x1x3x3xf32>) outs(%zd : tensor<1x32x9x9xf32>) -> tensor<1x32x9x9xf32>
  %z = arith.constant dense<0.25> : tensor<1x24x5x5xf32>
  %y = tensor.conv2d {strides = array<i64: 2, 2>} ins(%d, %w2 : tensor<1x32x9x9xf32>, tensor<24x32x1x1xf32>) outs(%z : tensor<1x24x5x5xf32>) -> tensor<1x24x5x5xf32>
  return %y : tensor<1x24x5x5xf32>
}
"#;

#[test]
fn blocked_convolutions_agree_between_native_code_and_the_interpreter() {
    let s = Setup::new();
    std::fs::write(s.path("blocked.mlir"), BLOCKED).expect("write IR");
    npy_f32(&s.path("x.npy"), &[1, 20, 9, 9], &wave(20 * 81, 0.37));
    npy_f32(&s.path("w.npy"), &[32, 20, 3, 3], &wave(32 * 180, 0.71));
    npy_f32(&s.path("b.npy"), &[32], &wave(32, 1.9));
    npy_f32(&s.path("w2.npy"), &[24, 32, 1, 1], &wave(24 * 32, 0.53));
    let text = lower(
        &s,
        "layout,bufferize{blocked=acc_sconv2d_nchw16c blocked-depthwise=acc_sdwconv2d_nchw16c}",
        "blocked.mlir",
    );
    assert!(
        text.contains("\"acc_sconv2d_nchw16c_bias\"")
            && text.contains("\"acc_sconv2d_nchw16c\"")
            && text.contains("\"acc_sdwconv2d_nchw16c\""),
        "{text}"
    );
    let args = [
        "loops.mlir",
        "--input",
        "0=x.npy",
        "--input",
        "1=w.npy",
        "--input",
        "2=b.npy",
        "--input",
        "3=w2.npy",
    ];
    native_code_agrees_with_the_interpreter(&s, &args, 600, 1e-4);
}

/// Activations the blocked convolutions apply as they store (their gates): a stem
/// from 3 channels with SiLU (`graph.sigmoid` times its input), a 1x1 convolution
/// with HardSwish as the ONNX importer expands it (x * clip(x / 6 + 1/2, 0, 1)), a
/// depthwise one with SiLU.
const GATED: &str = r#"
func.func @gated(%x: tensor<1x3x10x10xf32>, %w1: tensor<32x3x3x3xf32>, %w2: tensor<32x32x1x1xf32>, %b2: tensor<32xf32>, %w3: tensor<32x1x3x3xf32>) -> tensor<1x32x10x10xf32> {
  %c1 = graph.conv2d %x, %w1 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x10x10xf32>, tensor<32x3x3x3xf32>) -> tensor<1x32x10x10xf32>
  %s1 = graph.sigmoid %c1 : tensor<1x32x10x10xf32>
  %y1 = graph.mul %c1, %s1 : (tensor<1x32x10x10xf32>, tensor<1x32x10x10xf32>) -> tensor<1x32x10x10xf32>
  %c2 = graph.conv2d %y1, %w2, %b2 : (tensor<1x32x10x10xf32>, tensor<32x32x1x1xf32>, tensor<32xf32>) -> tensor<1x32x10x10xf32>
  %sixth = graph.constant dense<0.166666672> : tensor<f32>
  %half = graph.constant dense<0.5> : tensor<f32>
  %t = graph.mul %c2, %sixth : (tensor<1x32x10x10xf32>, tensor<f32>) -> tensor<1x32x10x10xf32>
  %u = graph.add %t, %half : (tensor<1x32x10x10xf32>, tensor<f32>) -> tensor<1x32x10x10xf32>
  %g = graph.clip %u {max = 1.000000e+00 : f32, min = 0.000000e+00 : f32} : tensor<1x32x10x10xf32>
  %y2 = graph.mul %c2, %g : (tensor<1x32x10x10xf32>, tensor<1x32x10x10xf32>) -> tensor<1x32x10x10xf32>
  %c3 = graph.conv2d %y2, %w3 {pads = array<i64: 1, 1, 1, 1>, groups = 32} : (tensor<1x32x10x10xf32>, tensor<32x1x3x3xf32>) -> tensor<1x32x10x10xf32>
  %s3 = graph.sigmoid %c3 : tensor<1x32x10x10xf32>
  %y3 = graph.mul %s3, %c3 : (tensor<1x32x10x10xf32>, tensor<1x32x10x10xf32>) -> tensor<1x32x10x10xf32>
  return %y3 : tensor<1x32x10x10xf32>
}
"#;

#[test]
fn gated_convolutions_agree_between_native_code_and_the_interpreter() {
    let s = Setup::new();
    std::fs::write(s.path("gated.mlir"), GATED).expect("write IR");
    npy_f32(&s.path("x.npy"), &[1, 3, 10, 10], &wave(300, 0.37));
    npy_f32(&s.path("w1.npy"), &[32, 3, 3, 3], &wave(32 * 27, 0.71));
    npy_f32(&s.path("w2.npy"), &[32, 32, 1, 1], &wave(32 * 32, 0.53));
    npy_f32(&s.path("b2.npy"), &[32], &wave(32, 1.9));
    npy_f32(&s.path("w3.npy"), &[32, 1, 3, 3], &wave(32 * 9, 1.3));
    let text = lower(
        &s,
        "graph-to-tensor,layout,bufferize{blocked=acc_sconv2d_nchw16c blocked-depthwise=acc_sdwconv2d_nchw16c blocked-nchw-input=acc_sconv2d_nchw_nchw16c}",
        "gated.mlir",
    );
    // Each call ends with its gate: code 2 (SiLU) or 1 (HardSwish, with its 1/6 and
    // 1/2); no map of the activations is left.
    let gates: Vec<(String, Vec<String>)> = text
        .lines()
        .filter(|l| l.contains("hw.intrinsic \"acc_s"))
        .map(|l| {
            let callee = l.split('"').nth(1).expect("a callee").to_string();
            let operands = l.split_once("(").expect("operands").1;
            let operands = operands.split_once(")").expect("operands").0;
            let names: Vec<&str> = operands.split(", ").collect();
            let tail = names[names.len() - 3..]
                .iter()
                .map(|n| constant_value(&text, n))
                .collect();
            (callee, tail)
        })
        .collect();
    let expected = [
        (
            "acc_sconv2d_nchw_nchw16c",
            ["2", "0.000000e+00", "0.000000e+00"],
        ),
        (
            "acc_sconv2d_nchw16c_bias",
            ["1", "1.6666667e-1", "5.000000e-01"],
        ),
        (
            "acc_sdwconv2d_nchw16c",
            ["2", "0.000000e+00", "0.000000e+00"],
        ),
    ];
    assert_eq!(gates.len(), expected.len(), "{text}");
    for ((callee, tail), (want_callee, want_tail)) in gates.iter().zip(expected) {
        assert_eq!(callee, want_callee, "{text}");
        assert_eq!(tail, &want_tail, "{callee}: {text}");
    }
    for absorbed in ["math.exp", "arith.minimumf", "arith.divf", "arith.mulf"] {
        assert!(!text.contains(absorbed), "{absorbed} left: {text}");
    }
    let args = [
        "loops.mlir",
        "--input",
        "0=x.npy",
        "--input",
        "1=w1.npy",
        "--input",
        "2=w2.npy",
        "--input",
        "3=b2.npy",
        "--input",
        "4=w3.npy",
    ];
    native_code_agrees_with_the_interpreter(&s, &args, 3200, 1e-4);
}

/// A max pool (3x3, stride 2, padding 1) then an average pool (3x3, padding 1, the
/// padding not counted) in NCHW16c, both calls of the host library's blocked pool.
const BLOCKED_POOLS: &str = r#"
func.func @pools(%x: tensor<1x2x9x9x16xf32>) -> tensor<1x2x5x5x16xf32> {
  %e = tensor.empty() : tensor<1x2x5x5x16xf32>
  %m = tensor.pool {kind = #tensor.pool_kind<max>, layout = #tensor.layout<"NCHW16c">, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, window = array<i64: 3, 3>} ins(%x : tensor<1x2x9x9x16xf32>) outs(%e : tensor<1x2x5x5x16xf32>) -> tensor<1x2x5x5x16xf32>
  %e2 = tensor.empty() : tensor<1x2x5x5x16xf32>
  %a = tensor.pool {kind = #tensor.pool_kind<avg>, layout = #tensor.layout<"NCHW16c">, pads = array<i64: 1, 1, 1, 1>, window = array<i64: 3, 3>} ins(%m : tensor<1x2x5x5x16xf32>) outs(%e2 : tensor<1x2x5x5x16xf32>) -> tensor<1x2x5x5x16xf32>
  return %a : tensor<1x2x5x5x16xf32>
}
"#;

#[test]
fn blocked_pools_agree_exactly_between_native_code_and_the_interpreter() {
    let s = Setup::new();
    std::fs::write(s.path("pools.mlir"), BLOCKED_POOLS).expect("write IR");
    npy_f32(
        &s.path("x.npy"),
        &[1, 2, 9, 9, 16],
        &wave(2 * 81 * 16, 0.37),
    );
    let text = lower(
        &s,
        "bufferize{blocked-pool=acc_spool2d_nchw16c}",
        "pools.mlir",
    );
    assert_eq!(text.matches("\"acc_spool2d_nchw16c\"").count(), 2, "{text}");
    assert!(!text.contains("loop.parallel"), "{text}");
    native_code_agrees_with_the_interpreter(&s, &["loops.mlir", "--input", "0=x.npy"], 800, 0.0);
}

/// Runs `args` in the interpreter and as native code and compares the `len` f32
/// results within the relative tolerance `tolerance`.
fn native_code_agrees_with_the_interpreter(s: &Setup, args: &[&str], len: usize, tolerance: f32) {
    let mut interp_args = args.to_vec();
    interp_args.extend(["-o", "interp.npy"]);
    let (code, _, err) = s.run(&interp_args);
    assert_eq!(code, 0, "{err}");
    let mut jit_args = args.to_vec();
    jit_args.extend(["--mode", "jit", "-o", "jit.npy"]);
    let (code, _, err) = s.run(&jit_args);
    assert_eq!(code, 0, "{err}");
    let (want, got) = (
        read_f32s(&s.path("interp.npy")),
        read_f32s(&s.path("jit.npy")),
    );
    assert_eq!((want.len(), got.len()), (len, len));
    for (i, (w, g)) in want.iter().zip(&got).enumerate() {
        assert!(
            (w - g).abs() <= tolerance * (1.0 + w.abs()),
            "element {i}: interpreter {w}, native code {g}"
        );
    }
}

/// The value of `name`'s `arith.constant` in `text` (its first line defining it).
fn constant_value(text: &str, name: &str) -> String {
    let prefix = format!("{name} = arith.constant ");
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("{name} is no constant"));
    let value = &line[prefix.len()..];
    value.split(" : ").next().expect("a value").to_string()
}

/// `n` values of sin(i k): deterministic inputs spread over [-1, 1].
fn wave(n: usize, k: f32) -> Vec<f32> {
    (0..n).map(|i| ((i as f32) * k).sin()).collect()
}

/// Lowers `input` (in the setup's directory) with `acc-opt --pass passes` into
/// loops.mlir; its text.
fn lower(s: &Setup, passes: &str, input: &str) -> String {
    let lowered = Command::new(env!("CARGO_BIN_EXE_acc-opt"))
        .current_dir(s.path(""))
        .args(["--pass", passes, input, "-o", "loops.mlir"])
        .output()
        .expect("acc-opt runs");
    assert!(
        lowered.status.success(),
        "{}",
        String::from_utf8_lossy(&lowered.stderr)
    );
    std::fs::read_to_string(s.path("loops.mlir")).expect("the lowered IR")
}

/// The f32 values of an .npy file.
fn read_f32s(path: &Path) -> Vec<f32> {
    let bytes = std::fs::read(path).expect("an .npy output");
    let file = npyz::NpyFile::new(&bytes[..]).expect("valid npy");
    file.into_vec::<f32>().expect("f32 data")
}

#[test]
fn library_convolutions_agree_between_native_code_and_the_interpreter() {
    let s = Setup::new();
    std::fs::write(s.path("convs.mlir"), CONVOLUTIONS).expect("write IR");
    npy_f32(&s.path("x.npy"), &[1, 4, 9, 9], &wave(4 * 81, 0.37));
    npy_f32(&s.path("dw.npy"), &[4, 1, 3, 3], &wave(36, 1.3));
    npy_f32(&s.path("w.npy"), &[5, 4, 3, 3], &wave(180, 0.71));
    npy_f32(&s.path("b.npy"), &[5], &[-0.5, 0.25, 1.0, -2.0, 3.0]);
    let text = lower(
        &s,
        "bufferize{conv=acc_sconv2d depthwise=acc_sdwconv2d}",
        "convs.mlir",
    );
    assert!(
        text.contains("\"acc_sdwconv2d\"") && text.contains("\"acc_sconv2d_bias\""),
        "{text}"
    );
    assert!(
        !text.contains("loop.parallel"),
        "the pads read in place, the clamp and the bias applied by the calls: {text}"
    );
    assert!(text.contains("arith.constant 5.000000e-01 : f32"), "{text}");
    let args = [
        "loops.mlir",
        "--input",
        "0=x.npy",
        "--input",
        "1=dw.npy",
        "--input",
        "2=w.npy",
        "--input",
        "3=b.npy",
    ];
    native_code_agrees_with_the_interpreter(&s, &args, 125, 1e-5);
    // Not a trivial result.
    let want = read_f32s(&s.path("interp.npy"));
    assert!(want.iter().any(|v| v.abs() > 0.1));
}

/// A dense layer with constant weights (7 x 50: two panels, the second partial)
/// and a bias, then erf of its result and e^(erf(y) - y) (a map ending in exp).
fn dense_then_functions(weights: &[f32]) -> String {
    let rows: Vec<String> = weights
        .chunks(50)
        .map(|r| {
            let v: Vec<String> = r.iter().map(|x| format!("{x:.8e}")).collect();
            format!("[{}]", v.join(", "))
        })
        .collect();
    format!(
        r#"
func.func @dense(%x: tensor<5x7xf32>, %bias: tensor<50xf32>) -> tensor<5x50xf32> {{
  %w = arith.constant dense<[{}]> : tensor<7x50xf32>
  %e0 = tensor.empty() : tensor<5x50xf32>
  %z = tensor.broadcast ins(%bias : tensor<50xf32>) outs(%e0 : tensor<5x50xf32>) dimensions = [0] -> tensor<5x50xf32>
  %y = tensor.matmul ins(%x, %w : tensor<5x7xf32>, tensor<7x50xf32>) outs(%z : tensor<5x50xf32>) -> tensor<5x50xf32>
  %e = tensor.empty() : tensor<5x50xf32>
  %g = tensor.map ins(%y : tensor<5x50xf32>) outs(%e : tensor<5x50xf32>) -> tensor<5x50xf32> {{
  ^bb0(%a: f32):
    %r = math.erf %a : f32
    tensor.yield %r : f32
  }}
  %e2 = tensor.empty() : tensor<5x50xf32>
  %s = tensor.map ins(%g, %y : tensor<5x50xf32>, tensor<5x50xf32>) outs(%e2 : tensor<5x50xf32>) -> tensor<5x50xf32> {{
  ^bb0(%a: f32, %b: f32):
    %d = arith.subf %a, %b : f32
    %r = math.exp %d : f32
    tensor.yield %r : f32
  }}
  return %s : tensor<5x50xf32>
}}
"#,
        rows.join(", ")
    )
}

#[test]
fn packed_weights_and_library_functions_agree_between_native_code_and_the_interpreter() {
    let s = Setup::new();
    std::fs::write(s.path("dense.mlir"), dense_then_functions(&wave(350, 0.61))).expect("write");
    npy_f32(&s.path("x.npy"), &[5, 7], &wave(35, 0.37));
    npy_f32(&s.path("b.npy"), &[50], &wave(50, 2.3));
    let text = lower(
        &s,
        "bufferize{packed-gemm=acc_sgemm_nk48n exp=acc_vexp erf=acc_verf},vectorize",
        "dense.mlir",
    );
    for call in ["\"acc_sgemm_nk48n_bias\"", "\"acc_verf\"", "\"acc_vexp\""] {
        assert!(text.contains(call), "{call}: {text}");
    }
    assert!(!text.contains("math."), "{text}");
    let args = ["loops.mlir", "--input", "0=x.npy", "--input", "1=b.npy"];
    native_code_agrees_with_the_interpreter(&s, &args, 250, 1e-5);
    // Not a trivial result: the exponentials spread over several orders.
    let want = read_f32s(&s.path("interp.npy"));
    assert!(want.iter().any(|v| *v > 2.0) && want.iter().any(|v| *v < 0.5));
}

/// Attention's two products on heads read in place (`strided-gemm`): Q x K^T with
/// K's heads as a column-major B, then P x V written straight into the merged
/// heads, both overwriting zero inits; 40 rows, enough for the library kernel to
/// copy B's panels.
const ATTENTION: &str = r#"
func.func @attention(%q: tensor<40x3x20xf32>, %k: tensor<40x3x20xf32>) -> tensor<40x3x20xf32> {
  %e1 = tensor.empty() : tensor<3x40x20xf32>
  %qt = tensor.transpose ins(%q : tensor<40x3x20xf32>) outs(%e1 : tensor<3x40x20xf32>) permutation = [1, 0, 2] -> tensor<3x40x20xf32>
  %e2 = tensor.empty() : tensor<3x20x40xf32>
  %kt = tensor.transpose ins(%k : tensor<40x3x20xf32>) outs(%e2 : tensor<3x20x40xf32>) permutation = [1, 2, 0] -> tensor<3x20x40xf32>
  %z1 = arith.constant dense<0.000000e+00> : tensor<3x40x40xf32>
  %s = tensor.batch_matmul ins(%qt, %kt : tensor<3x40x20xf32>, tensor<3x20x40xf32>) outs(%z1 : tensor<3x40x40xf32>) -> tensor<3x40x40xf32>
  %e3 = tensor.empty() : tensor<3x40x20xf32>
  %vt = tensor.transpose ins(%k : tensor<40x3x20xf32>) outs(%e3 : tensor<3x40x20xf32>) permutation = [1, 0, 2] -> tensor<3x40x20xf32>
  %z2 = arith.constant dense<0.000000e+00> : tensor<3x40x20xf32>
  %o = tensor.batch_matmul ins(%s, %vt : tensor<3x40x40xf32>, tensor<3x40x20xf32>) outs(%z2 : tensor<3x40x20xf32>) -> tensor<3x40x20xf32>
  %e4 = tensor.empty() : tensor<40x3x20xf32>
  %merged = tensor.transpose ins(%o : tensor<3x40x20xf32>) outs(%e4 : tensor<40x3x20xf32>) permutation = [1, 0, 2] -> tensor<40x3x20xf32>
  return %merged : tensor<40x3x20xf32>
}
"#;

#[test]
fn products_on_heads_read_in_place_agree_between_native_code_and_the_interpreter() {
    let s = Setup::new();
    std::fs::write(s.path("attention.mlir"), ATTENTION).expect("write");
    npy_f32(&s.path("q.npy"), &[40, 3, 20], &wave(2400, 0.37));
    npy_f32(&s.path("k.npy"), &[40, 3, 20], &wave(2400, 0.53));
    let text = lower(
        &s,
        "bufferize{strided-gemm=acc_sgemm_strided},vectorize",
        "attention.mlir",
    );
    assert_eq!(text.matches("\"acc_sgemm_strided\"").count(), 6, "{text}");
    assert!(
        !text.contains("loop.parallel"),
        "transposes were materialized: {text}"
    );
    let args = ["loops.mlir", "--input", "0=q.npy", "--input", "1=k.npy"];
    native_code_agrees_with_the_interpreter(&s, &args, 2400, 1e-5);
}

/// Loop nests whose invariant loads move out of inner loops and whose addresses
/// advance per iteration (lowering/cranelift/src/translate/hoist.rs): a row
/// broadcast, an update in place (its load must not move), a transposed read (the
/// induction variable in a middle dimension), a diagonal (the variable twice: no
/// stream) and a loop whose inner extent is zero (nothing moves: its load, out of
/// bounds, must never run).
const NESTS: &str = r#"
func.func @nests(%x: memref<4x8xf32>, %r: memref<4xf32>) -> (memref<4x8xf32>, memref<8x4xf32>, memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %sum = loop.alloc() : memref<4x8xf32>
  loop.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    %a = loop.load %x[%i, %j] : memref<4x8xf32>
    %b = loop.load %r[%i] : memref<4xf32>
    %s = arith.addf %a, %b : f32
    loop.store %s, %sum[%i, %j] : memref<4x8xf32>
    loop.yield
  }
  loop.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    %a = loop.load %sum[%i, %j] : memref<4x8xf32>
    %b = loop.load %sum[%i, %c0] : memref<4x8xf32>
    %s = arith.mulf %a, %b : f32
    loop.store %s, %sum[%i, %j] : memref<4x8xf32>
    loop.yield
  }
  %t = loop.alloc() : memref<8x4xf32>
  loop.parallel (%j, %i) = (%c0, %c0) to (%c8, %c4) step (%c1, %c1) {
    %a = loop.load %x[%i, %j] : memref<4x8xf32>
    loop.store %a, %t[%j, %i] : memref<8x4xf32>
    loop.yield
  }
  %d = loop.alloc() : memref<4xf32>
  loop.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %z = arith.constant 0.0 : f32
    loop.store %z, %d[%i] : memref<4xf32>
    loop.yield
  }
  loop.parallel (%i, %k) = (%c0, %c0) to (%c4, %c4) step (%c1, %c1) {
    %a = loop.load %x[%k, %k] : memref<4x8xf32>
    %b = loop.load %d[%i] : memref<4xf32>
    %s = arith.addf %a, %b : f32
    loop.store %s, %d[%i] : memref<4xf32>
    loop.yield
  }
  loop.parallel (%i, %k) = (%c0, %c4) to (%c4, %c4) step (%c1, %c1) {
    %a = loop.load %x[%c8, %c0] : memref<4x8xf32>
    loop.store %a, %d[%i] : memref<4xf32>
    loop.yield
  }
  return %sum, %t, %d : memref<4x8xf32>, memref<8x4xf32>, memref<4xf32>
}
"#;

#[test]
fn hoisted_loads_and_advancing_addresses_agree_with_the_interpreter() {
    let s = Setup::new();
    std::fs::write(s.path("nests.mlir"), NESTS).expect("write IR");
    npy_f32(&s.path("x.npy"), &[4, 8], &wave(32, 0.37));
    npy_f32(&s.path("r.npy"), &[4], &wave(4, 1.1));
    for mode in ["interp", "jit"] {
        let outputs: Vec<String> = (0..3).map(|i| format!("{mode}{i}.npy")).collect();
        let mut args = vec!["nests.mlir", "--input", "0=x.npy", "--input", "1=r.npy"];
        args.extend(["--mode", mode]);
        for o in &outputs {
            args.extend(["--output", o.as_str()]);
        }
        let (code, _, err) = s.run(&args);
        assert_eq!(code, 0, "{err}");
    }
    for i in 0..3 {
        let want = read_f32s(&s.path(&format!("interp{i}.npy")));
        let got = read_f32s(&s.path(&format!("jit{i}.npy")));
        assert_eq!(want, got, "result {i}");
    }
    // The diagonal sums: x[0,0] + x[1,1] + x[2,2] + x[3,3] in every element.
    let diagonal = read_f32s(&s.path("jit2.npy"));
    let x = wave(32, 0.37);
    let want = x[0] + x[9] + x[18] + x[27];
    assert!(
        diagonal.iter().all(|v| (v - want).abs() < 1e-5),
        "{diagonal:?}"
    );
}

/// Graph ops that move, convert and combine elements (docs/lowering.md), through
/// the benchmark pipeline: a reflected pad read backwards by a slice, a row maximum,
/// topk's values and indices, a sort of integers with ties and a concat of all of
/// them. Results are flattened into one f32 vector (indices and integers cast).
const DATA_MOVEMENT: &str = r#"
func.func @data(%x: tensor<4x6xf32>) -> tensor<54xf32> {
  %p = graph.pad %x {pads = array<i64: 1, 2, 1, 1>, mode = #graph.pad_mode<reflect>} : (tensor<4x6xf32>) -> tensor<6x9xf32>
  %s = graph.slice %p {starts = array<i64: -1>, ends = array<i64: 0>, axes = array<i64: 1>, steps = array<i64: -2>} : (tensor<6x9xf32>) -> tensor<6x4xf32>
  %m = graph.reduce_max %s {axes = array<i64: 1>, keepdims = false} : (tensor<6x4xf32>) -> tensor<6xf32>
  %v, %i = graph.topk %x {k = 3} : (tensor<4x6xf32>) -> (tensor<4x3xf32>, tensor<4x3xi64>)
  %fi = graph.cast %i : tensor<4x3xi64> to tensor<4x3xf32>
  %ten = graph.constant dense<3.0> : tensor<f32>
  %xs = graph.mul %x, %ten : (tensor<4x6xf32>, tensor<f32>) -> tensor<4x6xf32>
  %q = graph.cast %xs : tensor<4x6xf32> to tensor<4x6xi32>
  %sv, %si = graph.sort %q {axis = 1} : (tensor<4x6xi32>) -> (tensor<4x6xi32>, tensor<4x6xi64>)
  %fs = graph.cast %si : tensor<4x6xi64> to tensor<4x6xf32>
  %v1 = graph.reshape %v {shape = array<i64: 12>} : (tensor<4x3xf32>) -> tensor<12xf32>
  %i1 = graph.reshape %fi {shape = array<i64: 12>} : (tensor<4x3xf32>) -> tensor<12xf32>
  %s1 = graph.reshape %fs {shape = array<i64: 24>} : (tensor<4x6xf32>) -> tensor<24xf32>
  %all = graph.concat %m, %v1, %i1, %s1 {axis = 0} : (tensor<6xf32>, tensor<12xf32>, tensor<12xf32>, tensor<24xf32>) -> tensor<54xf32>
  return %all : tensor<54xf32>
}
"#;

#[test]
fn data_movement_lowerings_agree_between_native_code_and_the_interpreter() {
    let s = Setup::new();
    std::fs::write(s.path("data.mlir"), DATA_MOVEMENT).expect("write IR");
    npy_f32(&s.path("x.npy"), &[4, 6], &wave(24, 0.77));
    let pipeline = "host-pipeline{assume-finite=true}";
    let text = lower(&s, pipeline, "data.mlir");
    assert!(!text.contains("tensor."), "{text}");
    // The graph itself in the interpreter, and its native code.
    let args = ["data.mlir", "--input", "0=x.npy", "-o", "graph.npy"];
    let (code, _, err) = s.run(&args);
    assert_eq!(code, 0, "{err}");
    native_code_agrees_with_the_interpreter(&s, &["loops.mlir", "--input", "0=x.npy"], 54, 1e-6);
    let (graph, native) = (
        read_f32s(&s.path("graph.npy")),
        read_f32s(&s.path("jit.npy")),
    );
    assert_eq!(graph, native);
}

/// A quantized chain as QDQ models give it (docs/lowering.md): the input quantized,
/// a per-channel qconv2d with an i32 bias, a qmatmul, dequantized back to floats.
const QUANTIZED: &str = r#"
func.func @quantized(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3x!quant.uniform<i8:f32:0, {0.02, 0.03, 0.05}>>, %b: tensor<3xi32>, %m: tensor<5x4x!quant.uniform<i8:f32, 0.04:1>>) -> tensor<1x3x5x4xf32> {
  %q = graph.quantize %x : tensor<1x2x5x5xf32> to tensor<1x2x5x5x!quant.uniform<i8:f32, 0.01:-2>>
  %c = graph.qconv2d %q, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x5x5x!quant.uniform<i8:f32, 0.01:-2>>, tensor<3x2x3x3x!quant.uniform<i8:f32:0, {0.02, 0.03, 0.05}>>, tensor<3xi32>) -> tensor<1x3x5x5x!quant.uniform<i8:f32, 0.3:3>>
  %p = graph.qmatmul %c, %m : (tensor<1x3x5x5x!quant.uniform<i8:f32, 0.3:3>>, tensor<5x4x!quant.uniform<i8:f32, 0.04:1>>) -> tensor<1x3x5x4x!quant.uniform<i8:f32, 2.0:0>>
  %y = graph.dequantize %p : tensor<1x3x5x4x!quant.uniform<i8:f32, 2.0:0>> to tensor<1x3x5x4xf32>
  return %y : tensor<1x3x5x4xf32>
}
"#;

#[test]
fn quantized_lowerings_agree_exactly_between_native_code_and_the_interpreter() {
    let s = Setup::new();
    std::fs::write(s.path("quantized.mlir"), QUANTIZED).expect("write IR");
    npy_f32(&s.path("x.npy"), &[1, 2, 5, 5], &wave(50, 0.61));
    let w: Vec<i8> = (0..54).map(|i| ((i * 37) % 255 - 127) as i8).collect();
    npy(
        &s.path("w.npy"),
        "|i1",
        &[3, 2, 3, 3],
        &w.iter().map(|v| *v as u8).collect::<Vec<_>>(),
    );
    let b: Vec<u8> = [120i32, -340, 75]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    npy(&s.path("b.npy"), "<i4", &[3], &b);
    let m: Vec<i8> = (0..20).map(|i| ((i * 53) % 200 - 100) as i8).collect();
    npy(
        &s.path("m.npy"),
        "|i1",
        &[5, 4],
        &m.iter().map(|v| *v as u8).collect::<Vec<_>>(),
    );
    let pipeline = "host-pipeline{assume-finite=true}";
    let text = lower(&s, pipeline, "quantized.mlir");
    assert!(
        !text.contains("tensor.") && !text.contains("graph."),
        "{text}"
    );
    let inputs = [
        "--input", "0=x.npy", "--input", "1=w.npy", "--input", "2=b.npy", "--input", "3=m.npy",
    ];
    let graph_args = [&["quantized.mlir"][..], &inputs, &["-o", "graph.npy"]].concat();
    let (code, _, err) = s.run(&graph_args);
    assert_eq!(code, 0, "{err}");
    let jit_args = [
        &["loops.mlir"][..],
        &inputs,
        &["--mode", "jit", "-o", "jit.npy"],
    ]
    .concat();
    let (code, _, err) = s.run(&jit_args);
    assert_eq!(code, 0, "{err}");
    let (graph, native) = (
        read_f32s(&s.path("graph.npy")),
        read_f32s(&s.path("jit.npy")),
    );
    assert_eq!(graph.len(), 60);
    // Not all saturated or zero: the chain computes something.
    let distinct: std::collections::BTreeSet<u32> = graph.iter().map(|v| v.to_bits()).collect();
    assert!(distinct.len() > 10, "{graph:?}");
    assert_eq!(graph, native);
}

/// The optimizing host pipeline of tools/bench/models.sh.
const HOST_PIPELINE: &str = "host-pipeline{assume-finite=true}";

/// The milliseconds `key=X` of a `compile_ms=...` line.
fn millis(line: &str, key: &str) -> f64 {
    line.split_whitespace()
        .find_map(|w| w.strip_prefix(key)?.strip_prefix('='))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no {key}= in '{line}'"))
}

#[test]
fn onnx_models_compile_and_run_in_one_process() {
    let s = Setup::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let onnx = root.join("examples/onnx");
    let target = root.join("lowering/runtime/host.acc");
    for model in ["lenet5", "mlp"] {
        let file = onnx.join(format!("{model}.onnx"));
        let input = format!("0={}", onnx.join(format!("{model}.input0.npy")).display());
        // The interpreter on the imported graph, with no passes.
        let (code, _, err) = s.run(&[file.to_str().unwrap(), "--input", &input, "-o", "ref.npy"]);
        assert_eq!(code, 0, "{model}: {err}");
        // Import, lowering and native code in one process.
        let (code, out, err) = s.run(&[
            file.to_str().unwrap(),
            "--target",
            target.to_str().unwrap(),
            "--pass",
            HOST_PIPELINE,
            "--mode",
            "jit",
            "--input",
            &input,
            "-o",
            "jit.npy",
            "--repeat",
            "2",
        ]);
        assert_eq!(code, 0, "{model}: {err}");
        let compile = out
            .lines()
            .find(|l| l.starts_with("compile_ms="))
            .expect(&out);
        let parts =
            millis(compile, "read") + millis(compile, "passes") + millis(compile, "codegen");
        assert!(
            (millis(compile, "compile_ms") - parts).abs() < 0.01,
            "{compile}"
        );
        assert!(millis(compile, "passes") > 0.0, "{compile}");
        let (want, got) = (read_f32s(&s.path("ref.npy")), read_f32s(&s.path("jit.npy")));
        let onnxruntime = read_f32s(&onnx.join(format!("{model}.output0.npy")));
        assert_eq!(
            (want.len(), got.len()),
            (onnxruntime.len(), onnxruntime.len())
        );
        for (i, ((w, g), o)) in want.iter().zip(&got).zip(&onnxruntime).enumerate() {
            assert!(
                (w - g).abs() <= 1e-4 * (1.0 + w.abs()),
                "{model} {i}: {w} vs {g}"
            );
            assert!(
                (o - g).abs() <= 1e-4 * (1.0 + o.abs()),
                "{model} {i}: {o} vs {g}"
            );
        }
    }
}

fn read_i64s(path: &Path) -> (Vec<u64>, Vec<i64>) {
    let bytes = std::fs::read(path).expect("an .npy output");
    let file = npyz::NpyFile::new(&bytes[..]).expect("valid npy");
    let shape = file.shape().to_vec();
    (shape, file.into_vec::<i64>().expect("i64 data"))
}

/// Detection post-processing (examples/onnx/detect.onnx: a sigmoid, then
/// non-maximum suppression, whose result has a dynamic number of rows): the native
/// code returns the bounded buffer and the count, acc-run gives the rows selected,
/// the same as the interpreter on the graph and as onnxruntime.
#[test]
fn non_max_suppression_runs_natively_and_matches_onnxruntime() {
    let s = Setup::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let onnx = root.join("examples/onnx");
    let model = onnx.join("detect.onnx");
    let target = root.join("lowering/runtime/host.acc");
    let inputs: Vec<String> = (0..2)
        .map(|i| {
            format!(
                "{i}={}",
                onnx.join(format!("detect.input{i}.npy")).display()
            )
        })
        .collect();
    let graph = [
        model.to_str().unwrap(),
        "--input",
        &inputs[0],
        "--input",
        &inputs[1],
    ];
    let (code, _, err) = s.run(&[&graph[..], &["-o", "ref.npy"]].concat());
    assert_eq!(code, 0, "{err}");
    let jit = [
        "--target",
        target.to_str().unwrap(),
        "--pass",
        HOST_PIPELINE,
        "--mode",
        "jit",
        "-o",
        "jit.npy",
    ];
    let (code, _, err) = s.run(&[&graph[..], &jit[..]].concat());
    assert_eq!(code, 0, "{err}");
    let onnxruntime = read_i64s(&onnx.join("detect.output0.npy"));
    // Every class fills its 8 rows: the bound is reached exactly.
    assert_eq!(onnxruntime.0, [24, 3]);
    assert_eq!(read_i64s(&s.path("ref.npy")), onnxruntime);
    assert_eq!(read_i64s(&s.path("jit.npy")), onnxruntime);
    // Without -o, the result is listed with its size.
    let (code, out, err) = s.run(&[&graph[..], &jit[..6]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("result 0: memref<?x3xi64> [0, 0, 38,"),
        "{out}"
    );
    assert!(!out.contains("result 1"), "{out}");
}

#[test]
fn a_bad_pipeline_or_model_is_an_error_before_any_output() {
    let s = Setup::new();
    let (code, _, err) = s.run(&[
        "f.mlir",
        "--pass",
        "canonicalize,no-such-pass",
        "--input",
        "0=x.npy",
        "--input",
        "1=b.npy",
        "-o",
        "y.npy",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("no-such-pass"), "{err}");
    assert!(!s.path("y.npy").exists());
    std::fs::write(s.path("broken.onnx"), b"not a protobuf").expect("write model");
    let (code, _, err) = s.run(&["broken.onnx", "--input", "0=x.npy", "-o", "y.npy"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.starts_with("broken.onnx: error:"), "{err}");
    assert!(!s.path("y.npy").exists());
    // A pass that fails after the import: its error, and no run.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/onnx");
    let model = root.join("mlp.onnx");
    let input = format!("0={}", root.join("mlp.input0.npy").display());
    let (code, out, err) = s.run(&[
        model.to_str().unwrap(),
        "--pass",
        "canonicalize,partition",
        "--input",
        &input,
    ]);
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert!(err.contains("error: partition: no target"), "{err}");
}
