//! Interoperability with MLIR: every lit input that acc accepts (but the negative
//! tests, chunks with `expected-error`), printed by acc in
//! generic form, must be accepted by `mlir-opt --allow-unregistered-dialect`, and
//! MLIR's generic output of it must parse in acc to the same IR (compared by printing
//! both with acc), with and without locations.
//!
//! acc's `tensor` dialect extends MLIR's: its compute ops (`tensor.matmul`, ...) and
//! `#tensor.*` attributes are acc's own, which mlir-opt (knowing the `tensor` dialect)
//! rejects even with `--allow-unregistered-dialect`. Inputs using them are skipped here
//! ([`uses_acc_only_tensor_ops`]); the tensor ops MLIR has are checked like any other.
//!
//! Needs `mlir-opt` 22 (Debian `mlir-22-tools`, which `.ci/run` installs): taken from
//! `ACC_MLIR_OPT`, else `/usr/lib/llvm-22/bin/mlir-opt`, else the `PATH`. Without it the
//! test reports that it was skipped, except under CI (`CI=true`), where it fails.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use acc_ir::parser::parse_file;
use acc_ir::printer::{PrintOptions, print_ir};
use acc_ir::{SourceMap, verifier};

fn mlir_opt() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("ACC_MLIR_OPT") {
        return Some(PathBuf::from(p));
    }
    let debian = Path::new("/usr/lib/llvm-22/bin/mlir-opt");
    if debian.exists() {
        return Some(debian.to_path_buf());
    }
    let found = Command::new("mlir-opt").arg("--version").output().ok()?;
    found.status.success().then(|| PathBuf::from("mlir-opt"))
}

/// Parses and verifies `text` with acc; `None` when acc rejects it (error tests).
fn acc_print(text: &str, opts: &PrintOptions) -> Option<String> {
    let mut ctx = acc_dialects::new_context();
    ctx.allow_unregistered = true;
    let mut sources = SourceMap::new();
    let file = sources.add("input.mlir", text.to_string());
    let ir = parse_file(&mut ctx, &sources, file).ok()?;
    verifier::verify(&ctx, &ir).ok()?;
    Some(print_ir(&ctx, &ir, opts))
}

fn run_mlir_opt(tool: &Path, input: &str, debuginfo: bool) -> Result<String, String> {
    let mut cmd = Command::new(tool);
    cmd.args(["--allow-unregistered-dialect", "--mlir-print-op-generic"]);
    if debuginfo {
        cmd.arg("--mlir-print-debuginfo");
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    child
        .stdin
        .take()
        .ok_or("no stdin")?
        .write_all(input.as_bytes())
        .map_err(|e| e.to_string())?;
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The ops of MLIR's `tensor` dialect that acc defines with MLIR's syntax and semantics,
/// and MLIR's ops that acc keeps opaque under --allow-unregistered-dialect (`dim`,
/// `splat`).
const MLIR_TENSOR_OPS: [&str; 11] = [
    "dim",
    "splat",
    "empty",
    "extract_slice",
    "insert_slice",
    "pad",
    "collapse_shape",
    "expand_shape",
    "extract",
    "insert",
    "yield",
];

/// True when acc's generic output uses a `tensor` op or attribute MLIR does not have.
fn uses_acc_only_tensor_ops(generic: &str) -> bool {
    generic.contains("#tensor.")
        || generic.split("\"tensor.").skip(1).any(|rest| {
            let name = rest.split('"').next().unwrap_or("");
            !MLIR_TENSOR_OPS.contains(&name)
        })
}

fn lit_inputs() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/lit");
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "mlir") {
                let text = std::fs::read_to_string(&p).unwrap_or_default();
                let name = p.strip_prefix(&root).unwrap_or(&p).display().to_string();
                for (i, chunk) in text.split("\n// -----\n").enumerate() {
                    out.push((format!("{name}#{i}"), chunk.to_string()));
                }
            }
        }
    }
    out.sort();
    out
}

#[test]
fn mlir_opt_accepts_acc_output_and_acc_reads_mlir_output() {
    let Some(tool) = mlir_opt() else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "mlir-opt is required under CI (see tools/ci/install-llvm-tools.sh)"
        );
        eprintln!("skipped: mlir-opt not found (set ACC_MLIR_OPT or install mlir-22-tools)");
        return;
    };
    let mut checked = 0;
    let mut failures = Vec::new();
    for (name, chunk) in lit_inputs() {
        // Negative tests: their inputs are meant to be refused (by acc, and by MLIR).
        if chunk.contains("expected-error") {
            continue;
        }
        for debuginfo in [false, true] {
            let opts = PrintOptions {
                generic: true,
                debuginfo,
                ..Default::default()
            };
            let Some(ours) = acc_print(&chunk, &opts) else {
                continue;
            };
            if uses_acc_only_tensor_ops(&ours) {
                continue;
            }
            match run_mlir_opt(&tool, &ours, debuginfo) {
                Err(e) => failures.push(format!("{name} (debuginfo={debuginfo}): mlir-opt rejected acc's output:\n{e}\n{ours}")),
                Ok(theirs) => match acc_print(&theirs, &opts) {
                    None => failures.push(format!("{name}: acc rejected mlir-opt's output:\n{theirs}")),
                    Some(back) if back != ours => {
                        failures.push(format!("{name} (debuginfo={debuginfo}): different IR after mlir-opt:\n--- acc ---\n{ours}\n--- via mlir-opt ---\n{back}"))
                    }
                    Some(_) => checked += 1,
                },
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert!(checked >= 40, "only {checked} inputs were checked");
    eprintln!("{checked} inputs round-tripped through mlir-opt");
}
