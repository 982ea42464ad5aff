//! A tool stopped by a signal while it works leaves neither its output nor the
//! temporary file it was writing (`tools/src/output.rs`, `remove_outputs_on_signal`);
//! one started ignoring a signal (`nohup`) keeps ignoring it.

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

/// Starts `acc-opt` (through `wrapper`, if any) on [`SLOW`] with `-o` into a new
/// directory; returns the child and that directory once its temporary file exists.
fn start(dir: &Path, wrapper: Option<&str>) -> (std::process::Child, std::path::PathBuf) {
    let input = dir.join("slow.mlir");
    std::fs::write(&input, SLOW).expect("the input");
    let out_dir = dir.join("out");
    std::fs::create_dir(&out_dir).expect("the output directory");
    let tool = env!("CARGO_BIN_EXE_acc-opt");
    let mut command = match wrapper {
        Some(w) => {
            let mut c = Command::new(w);
            c.arg(tool);
            c
        }
        None => Command::new(tool),
    };
    let mut child = command
        .arg(&input)
        .args(["--pass", "cse", "--check-semantics", "-o"])
        .arg(out_dir.join("slow.out.mlir"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("acc-opt runs");
    // The destination is reserved (its temporary file created) once the input is read,
    // before the interpreter starts.
    let start = Instant::now();
    loop {
        let found = names(&out_dir);
        if found.iter().any(|n| n.starts_with(".acc-out-")) {
            assert_eq!(found.len(), 1, "{found:?}");
            return (child, out_dir);
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
    }
}

/// Sends `signal` (`TERM`, `HUP`) to `child`.
fn send(child: &std::process::Child, signal: &str) {
    let sent = Command::new("kill")
        .args([format!("-{signal}"), child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
}

#[test]
fn a_signal_during_the_work_leaves_no_output_and_no_temporary_file() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (mut child, out_dir) = start(dir.path(), None);
    // SIGTERM: SIGINT may be ignored where the tests run (a shell's background job),
    // and a tool keeps ignoring what it was started ignoring.
    send(&child, "TERM");
    let status = child.wait().expect("acc-opt ends");
    assert_eq!(
        status.signal(),
        Some(15),
        "acc-opt should end by SIGTERM, as without the handler: {status}"
    );
    assert_eq!(names(&out_dir), Vec::<String>::new());
}

/// Under `nohup` (SIGHUP ignored from the start) a hangup leaves the tool working.
#[test]
fn a_signal_ignored_from_the_start_stays_ignored() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (mut child, out_dir) = start(dir.path(), Some("nohup"));
    send(&child, "HUP");
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        child.try_wait().expect("the child's state").is_none(),
        "acc-opt under nohup ended on SIGHUP"
    );
    send(&child, "TERM");
    let status = child.wait().expect("acc-opt ends");
    assert_eq!(status.signal(), Some(15), "{status}");
    assert_eq!(names(&out_dir), Vec::<String>::new());
}
