//! A device whose regions an external (vendor) compiler builds
//! (examples/targets/vendor-npu.acc, examples/hwlib/acc-vendor-cc.sh standing in for
//! the vendor's compiler): LeNet-5's convolution, activation and pooling regions are
//! handed over with their weights, the compiler's C functions are linked with acc's
//! own, and the program computes what the interpreter computes (bit for bit when the
//! regions compute on integers) and what onnxruntime computes.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use support::{bits, compile_and_run, driver, examples, floats, run, write_input};

/// The repository's root, where the example target's command runs.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// acc-translate run from the root, finding acc's tools for the stand-in compiler.
fn translate() -> Command {
    let tools = Path::new(env!("CARGO_BIN_EXE_acc-opt"))
        .parent()
        .expect("the tools' directory")
        .to_path_buf();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_acc-translate"));
    cmd.current_dir(root())
        .env("ACC_BIN", format!("{}/", tools.display()));
    cmd
}

/// `model` (an example's ONNX file) compiled for `target` (relative to the root) and
/// built with the regions' C: the directory, the C output's bits, and the
/// interpreter's output on the same loops.
fn build(model: &str, target: &Path) -> (tempfile::TempDir, Vec<u32>, Vec<f32>) {
    let dir = tempfile::tempdir().expect("a directory");
    let d = dir.path();
    let (ir, loops) = (d.join("model.mlir"), d.join("loops.mlir"));
    run(Command::new(env!("CARGO_BIN_EXE_acc-translate"))
        .arg("--import-onnx")
        .arg(examples().join(format!("{model}.onnx")))
        .arg("-o")
        .arg(&ir));
    run(Command::new(env!("CARGO_BIN_EXE_acc-opt"))
        .current_dir(root())
        .arg("--target")
        .arg(target)
        .args(["--check-semantics", "--pipeline", "target"])
        .arg(&ir)
        .arg("-o")
        .arg(&loops));
    run(translate()
        .arg("--emit-c")
        .arg(&loops)
        .arg("-o")
        .arg(d.join("c")));
    let input = examples().join("lenet5.input0.npy");
    let interp = d.join("interp.npy");
    run(Command::new(env!("CARGO_BIN_EXE_acc-run"))
        .arg(&loops)
        .arg("--input")
        .arg(format!("0={}", input.display()))
        .arg("-o")
        .arg(&interp));
    let (x, want) = (floats(&input), floats(&interp));
    write_input(d, &[x.len()], &x);
    let mut extra: Vec<String> = regions(d).iter().map(|f| format!("c/{f}")).collect();
    extra.push("-lm".into());
    let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
    let got = compile_and_run(d, &driver(x.len(), want.len()), &extra);
    (dir, got, want)
}

/// The C files of the regions in `dir/c`, in order.
fn regions(dir: &Path) -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(dir.join("c"))
        .expect("the C")
        .map(|e| {
            e.expect("a file")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|n| n.starts_with("model.main_npu_ext"))
        .collect();
    files.sort();
    files
}

/// Whether `got` is within float rounding of `want`.
fn close(got: &[f32], want: &[f32]) -> bool {
    got.len() == want.len()
        && got
            .iter()
            .zip(want)
            .all(|(g, w)| (g - w).abs() <= 1e-5 * (1.0 + w.abs()))
}

#[test]
fn float_regions_an_external_compiler_built_compute_the_model() {
    let (dir, got, want) = build("lenet5", Path::new("examples/targets/vendor-npu.acc"));
    let d = dir.path();
    // Three regions: the convolutions with their activations and pools, and the
    // activation after each of the first two dense layers (the host's gemms).
    let files = regions(d);
    assert_eq!(
        files,
        [
            "model.main_npu_ext0.c",
            "model.main_npu_ext1.c",
            "model.main_npu_ext2.c"
        ]
    );
    let host = std::fs::read_to_string(d.join("c/model.c")).expect("model.c");
    for (k, file) in files.iter().enumerate() {
        let text = std::fs::read_to_string(d.join("c").join(file)).expect("a region's C");
        assert!(text.contains(&format!("void main_npu_ext{k}(")), "{file}");
        assert!(
            host.contains(&format!("main_npu_ext{k}(")),
            "model.c calls {file}"
        );
    }
    // The first region carries the convolutions' weights (6x1x5x5 and 16x6x5x5
    // floats): the host has none of them.
    let weights = std::fs::read_to_string(d.join("c/weights.h")).expect("weights.h");
    assert!(!weights.contains("[150]") && !weights.contains("[2400]"));
    let region = std::fs::read_to_string(d.join("c/model.main_npu_ext0.c")).expect("C");
    assert!(region.contains("[150]") && region.contains("[2400]"));
    // The vendor's float code sums in its own order: within rounding of the
    // interpreter (which runs the regions' graph ops) and of onnxruntime.
    let got: Vec<f32> = got.into_iter().map(f32::from_bits).collect();
    assert!(close(&got, &want), "{got:?} vs {want:?}");
    let reference = floats(&examples().join("lenet5.output0.npy"));
    assert!(close(&got, &reference), "{got:?} vs {reference:?}");
}

/// The example target's rules on integers only (the int8 convolutions and the
/// tables of the int8 activations), in `dir`; with `object`, its compiler writes
/// object files (`{object}`) instead of C.
fn int8_target(dir: &Path, object: bool) -> PathBuf {
    let example = std::fs::read_to_string(root().join("examples/targets/vendor-npu.acc"))
        .expect("the example target");
    let cut = example.find("  code npu_relu").expect("the float rules");
    let mut text = format!("{}}}\n", &example[..cut]);
    if object {
        assert!(text.contains("{output}\""));
        text = text.replace("{output}\"", "{object}\"");
    }
    let target = dir.join("int8-npu.acc");
    std::fs::write(&target, text).expect("the target");
    target
}

#[test]
fn int8_regions_an_external_compiler_built_match_the_interpreter_bit_for_bit() {
    let dir = tempfile::tempdir().expect("a directory");
    let (dir, got, want) = build("lenet5.qdq", &int8_target(dir.path(), false));
    let files = regions(dir.path());
    assert_eq!(files.len(), 4, "{files:?}");
    assert_eq!(got, bits(&want), "C and the interpreter differ");
    // onnxruntime runs its own integer kernels: as for acc's own (quantized.rs), at
    // most one output differs, by one step of the output's scale (the last logit).
    let reference = floats(&examples().join("lenet5.qdq.output0.npy"));
    let differing: Vec<(f32, f32)> = got
        .into_iter()
        .map(f32::from_bits)
        .zip(reference)
        .filter(|(a, b)| a != b)
        .collect();
    assert!(
        differing.len() <= 1 && differing.iter().all(|(a, b)| (a - b).abs() < 0.1),
        "{differing:?}"
    );
}

#[test]
fn object_files_an_external_compiler_built_link_and_match_the_interpreter() {
    // The vendor's compiler writes object files: they go out as model.CALLEE.o (no C
    // of theirs), model.c declares and calls their functions, and the program
    // linked from model.c and the objects computes what the interpreter computes.
    let dir = tempfile::tempdir().expect("a directory");
    let (dir, got, want) = build("lenet5.qdq", &int8_target(dir.path(), true));
    let files = regions(dir.path());
    assert_eq!(
        files,
        (0..4)
            .map(|k| format!("model.main_npu_ext{k}.o"))
            .collect::<Vec<_>>()
    );
    let host = std::fs::read_to_string(dir.path().join("c/model.c")).expect("model.c");
    for (k, file) in files.iter().enumerate() {
        let bytes = std::fs::read(dir.path().join("c").join(file)).expect("an object");
        assert_eq!(&bytes[..4], b"\x7fELF", "{file} is an object file");
        assert!(
            host.contains(&format!("main_npu_ext{k}(")),
            "model.c calls {file}"
        );
    }
    assert_eq!(got, bits(&want), "C and the interpreter differ");
}

/// `command` as the external compiler of a device computing a relu, run on a
/// function of one: acc-translate's stderr, after checking that it failed and wrote
/// no model.c.
fn emit_with_failing_compiler(command: &str) -> String {
    let dir = tempfile::tempdir().expect("a directory");
    let d = dir.path();
    let target = d.join("broken.acc");
    std::fs::write(
        &target,
        format!(
            r#"target broken {{
  device cpu kind "host" cycles_per_op 1
  device npu kind "accelerator" external "{command}"
  code npu_relu on npu {{
    match {{
      %y = graph.relu(%x)
    }}
    cost 1
  }}
}}
"#
        ),
    )
    .expect("the target");
    let model = d.join("model.mlir");
    std::fs::write(
        &model,
        "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n  %y = graph.relu %x : tensor<4xf32>\n  return %y : tensor<4xf32>\n}\n",
    )
    .expect("the model");
    let loops = d.join("loops.mlir");
    run(Command::new(env!("CARGO_BIN_EXE_acc-opt"))
        .arg("--target")
        .arg(&target)
        .args(["--check-semantics", "--pass"])
        .arg("partition,outline-external,graph-to-tensor,bufferize,memory-plan")
        .arg(&model)
        .arg("-o")
        .arg(&loops));
    let out = translate()
        .arg("--emit-c")
        .arg(&loops)
        .arg("-o")
        .arg(d.join("c"))
        .output()
        .expect("acc-translate runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains("loops.mlir:"), "{stderr}");
    assert!(!d.join("c/model.c").exists());
    stderr
}

#[test]
fn a_failing_external_compiler_is_an_error_and_nothing_is_written() {
    let stderr = emit_with_failing_compiler(
        "echo 'vendor-cc: cannot map {function}' >&2; exit 3; touch {output}",
    );
    assert!(
        stderr.contains("vendor-cc: cannot map f_npu_ext0"),
        "{stderr}"
    );
    // An object file that is empty is no function.
    let stderr = emit_with_failing_compiler(": > {object}");
    assert!(stderr.contains("wrote an empty object file"), "{stderr}");
}
