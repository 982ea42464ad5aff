//! The hostile-input harness (test/hostile/run.py) on its CI sample: 300 cases of bad
//! input for this build's acc-opt, acc-run, acc-translate and acc-repl, none of which
//! may panic, abort, hang, leave a partial output or fail without a message (in a
//! debug build, the families but `stress`). The
//! harness prints each bad case and a summary; test/hostile/README.md explains them
//! and how to run a longer campaign.

use std::path::Path;
use std::process::Command;

#[test]
fn the_tools_survive_hostile_input() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    // The tools' directory, as the other tests find it: beside this package's binaries.
    let bin = Path::new(env!("CARGO_BIN_EXE_acc-opt"))
        .parent()
        .expect("the tools' directory");
    for tool in [
        env!("CARGO_BIN_EXE_acc-run"),
        env!("CARGO_BIN_EXE_acc-translate"),
        env!("CARGO_BIN_EXE_acc-repl"),
    ] {
        assert_eq!(
            Path::new(tool).parent(),
            Some(bin),
            "{tool} is not beside acc-opt: the harness takes one directory"
        );
    }
    let script = root.join("test/hostile/run.py");
    let mut cmd = Command::new("python3");
    cmd.arg(&script)
        .args(["--cases", "300", "--seed", "1", "--quiet", "--bin"])
        .arg(bin);
    // Unoptimized tools are many times slower: each case gets longer before it counts
    // as a hang, and the `stress` family (inputs of tens of thousands of ops, each a
    // few seconds in a release build) runs only in the release sample
    // (`cargo test --release -p acc-tools --test hostile`).
    if cfg!(debug_assertions) {
        cmd.args(["--timeout", "120", "--family"]);
        cmd.args([
            "ir", "pipeline", "target", "npy", "onnx", "outputs", "repl", "cli",
        ]);
    }
    let out = cmd.output().unwrap_or_else(|e| {
        panic!(
            "cannot run python3 ({e}): the hostile-input harness {} needs Python 3.11 or \
             later on PATH; install it (e.g. apt-get install python3) rather than skipping this test",
            script.display()
        )
    });
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "python3 {} --cases 300 --seed 1 failed ({}): bad outcomes on hostile input\n\
         --- standard output ---\n{stdout}\n--- standard error ---\n{stderr}",
        script.display(),
        out.status
    );
    // A harness that ran nothing would pass vacuously.
    assert!(
        stdout.lines().any(|l| l == "0 bad case(s) of 300"),
        "the harness did not run its 300 cases:\n{stdout}\n{stderr}"
    );
}
