//! A tool stopped by a signal while it works leaves neither its output nor the
//! temporary file it was writing (`tools/src/output.rs`, `remove_outputs_on_signal`).

#![cfg(unix)]

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A function the interpreter takes seconds over (60 million ops, under its limit of
/// 100 million), which `--check-semantics` runs before the pipeline.
const SLOW: &str = r#"
func.func @slow() -> f32 {
  %f = arith.constant 1.0 : f32
  %lb = arith.constant 0 : index
  %ub = arith.constant 30000000 : index
  %step = arith.constant 1 : index
  %r = loop.for %k = %lb to %ub step %step iter_args(%a = %f) -> (f32) {
    %b = arith.addf %a, %a : f32
    loop.yield %b : f32
  }
  return %r : f32
}
"#;

/// The names in `dir`.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("the directory")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}

#[test]
fn sigint_during_the_work_leaves_no_output_and_no_temporary_file() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let input = dir.path().join("slow.mlir");
    std::fs::write(&input, SLOW).expect("the input");
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).expect("the output directory");
    let mut child = Command::new(env!("CARGO_BIN_EXE_acc-opt"))
        .arg(&input)
        .args(["--pass", "cse", "--check-semantics", "-o"])
        .arg(out_dir.join("slow.out.mlir"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("acc-opt runs");
    // The destination is reserved (its temporary file created) once the input is read,
    // before the interpreter starts.
    let start = Instant::now();
    let staged = loop {
        let found = names(&out_dir);
        if found.iter().any(|n| n.starts_with(".acc-out-")) {
            break found;
        }
        if let Some(status) = child.try_wait().expect("the child's state") {
            panic!("acc-opt ended ({status}) before its output was staged: {found:?}");
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no temporary file appeared in {}",
            out_dir.display()
        );
        std::thread::sleep(Duration::from_millis(5));
    };
    assert_eq!(staged.len(), 1, "{staged:?}");
    let pid = child.id().to_string();
    let killed = Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let status = child.wait().expect("acc-opt ends");
    assert_eq!(
        status.signal(),
        Some(2),
        "acc-opt should end by SIGINT, as without the handler: {status}"
    );
    assert_eq!(names(&out_dir), Vec::<String>::new());
}
