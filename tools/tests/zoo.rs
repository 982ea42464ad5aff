//! The committed subset of the model zoo (`test/zoo`: small variants of real
//! architectures written by `tools/zoo/make_zoo.py --tiny`, with seeded inputs and
//! onnxruntime's outputs): every model imports, and its output matches onnxruntime's
//! in the reference interpreter and as native code from the host pipeline.

use std::path::{Path, PathBuf};
use std::process::Command;

fn zoo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/zoo")
}

fn read_f32s(path: &Path) -> (Vec<u64>, Vec<f32>) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let npy = npyz::NpyFile::new(&bytes[..]).expect("valid npy");
    let shape = npy.shape().to_vec();
    (shape, npy.into_vec::<f32>().expect("f32 data"))
}

/// max |got - want| / max |want|.
fn relative_error(got: &[f32], want: &[f32]) -> f64 {
    let scale = want.iter().fold(0f64, |m, w| m.max(f64::from(w.abs())));
    let diff = got
        .iter()
        .zip(want)
        .fold(0f64, |m, (g, w)| m.max(f64::from((g - w).abs())));
    diff / scale.max(f64::MIN_POSITIVE)
}

#[test]
fn zoo_models_match_onnxruntime_in_the_interpreter_and_as_native_code() {
    let dir = zoo();
    let mut models: Vec<String> = std::fs::read_dir(&dir)
        .expect("test/zoo")
        .filter_map(|e| {
            let name = e.ok()?.file_name().to_string_lossy().into_owned();
            name.strip_suffix(".onnx").map(str::to_string)
        })
        .collect();
    models.sort();
    assert!(
        models.len() >= 6,
        "the zoo subset has {} models",
        models.len()
    );
    let host = concat!(env!("CARGO_MANIFEST_DIR"), "/../lowering/runtime/host.acc");
    let out_dir = tempfile::tempdir().expect("a temporary directory");
    let mut failures = Vec::new();
    for m in &models {
        let input = dir.join(format!("{m}.input.npy"));
        let (want_shape, want) = read_f32s(&dir.join(format!("{m}.output.npy")));
        let native: &[&str] = &[
            "--mode",
            "jit",
            "--pipeline",
            "host-pipeline",
            "--target",
            host,
        ];
        for (mode, extra) in [("interp", &[][..]), ("native", native)] {
            let out = out_dir.path().join(format!("{m}.{mode}.npy"));
            let run = Command::new(env!("CARGO_BIN_EXE_acc-run"))
                .arg(dir.join(format!("{m}.onnx")))
                .arg("--input")
                .arg(format!("0={}", input.display()))
                .args(extra)
                .arg("-o")
                .arg(&out)
                .output()
                .expect("acc-run runs");
            if !run.status.success() {
                failures.push(format!(
                    "{m} ({mode}): {}",
                    String::from_utf8_lossy(&run.stderr)
                ));
                continue;
            }
            let (shape, got) = read_f32s(&out);
            let err = relative_error(&got, &want);
            if shape != want_shape || err > 1e-4 {
                failures.push(format!(
                    "{m} ({mode}): shape {shape:?} (want {want_shape:?}), relative error {err:.2e}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
