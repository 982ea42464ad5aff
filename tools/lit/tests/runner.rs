//! The lit runner on a throw-away suite: outcomes of passing, failing, XFAIL,
//! unsupported and timed-out tests, failure messages, `%t`, and tool links.
//!
//! `FileCheck` and `not` are the `acc-filecheck` and `acc-not` binaries here
//! (configured as tools); the multi-call path is covered by `tests/harness.rs`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use acc_lit::{LitConfig, Outcome, Suite};

/// A suite directory holding `files` (relative path, contents).
fn suite_dir(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write test");
    }
    dir
}

/// A configuration for `root` using this package's FileCheck and not.
fn config(root: &Path) -> LitConfig {
    LitConfig::new(root)
        .tool("FileCheck", env!("CARGO_BIN_EXE_acc-filecheck"))
        .tool("not", env!("CARGO_BIN_EXE_acc-not"))
}

fn prepare(config: &LitConfig) -> Suite {
    let any_executable = PathBuf::from(env!("CARGO_BIN_EXE_acc-not"));
    Suite::prepare(config, &any_executable).expect("prepare suite")
}

/// The outcome of each test, by name.
fn outcomes(suite: &Suite) -> Vec<(String, Outcome)> {
    suite
        .tests()
        .iter()
        .map(|t| (t.name.clone(), suite.run_test(t)))
        .collect()
}

fn outcome_of<'a>(all: &'a [(String, Outcome)], name: &str) -> &'a Outcome {
    &all.iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no test {name}"))
        .1
}

#[test]
fn outcomes_of_each_kind_of_test() {
    let dir = suite_dir(&[
        ("pass.mlir", "// RUN: true\n"),
        ("xfail.mlir", "// XFAIL: *\n// RUN: false\n"),
        ("xpass.mlir", "// XFAIL: *\n// RUN: true\n"),
        ("requires.mlir", "// REQUIRES: foo\n// RUN: false\n"),
        ("unsupported.mlir", "// UNSUPPORTED: foo\n// RUN: false\n"),
        ("xfail-foo.ir", "# XFAIL: foo\n# RUN: false\n"),
        ("unterminated.mlir", "// RUN: true \\\n"),
        (
            "tool.mlir",
            "// RUN: my-echo hello | FileCheck %s\n// CHECK: hello\n",
        ),
        ("not.mlir", "// RUN: not my-echo\n"),
        ("Inputs/skipped.mlir", "// RUN: false\n"),
        ("no-run.mlir", "// CHECK: nothing\n"),
    ]);
    let echo = which("echo");
    let without = config(dir.path()).tool("my-echo", &echo);
    let with_foo = without.clone().feature("foo");

    let all = outcomes(&prepare(&without));
    let names: Vec<_> = all.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "not.mlir",
            "pass.mlir",
            "requires.mlir",
            "tool.mlir",
            "unsupported.mlir",
            "unterminated.mlir",
            "xfail-foo.ir",
            "xfail.mlir",
            "xpass.mlir"
        ]
    );
    assert_eq!(outcome_of(&all, "pass.mlir"), &Outcome::Passed);
    assert_eq!(outcome_of(&all, "tool.mlir"), &Outcome::Passed);
    assert!(matches!(outcome_of(&all, "not.mlir"), Outcome::Failed(_)));
    assert_eq!(outcome_of(&all, "xfail.mlir"), &Outcome::ExpectedFailure);
    assert_eq!(outcome_of(&all, "xpass.mlir"), &Outcome::UnexpectedPass);
    assert!(matches!(
        outcome_of(&all, "requires.mlir"),
        Outcome::Unsupported(_)
    ));
    assert!(matches!(
        outcome_of(&all, "unsupported.mlir"),
        Outcome::Failed(_)
    ));
    assert!(matches!(
        outcome_of(&all, "xfail-foo.ir"),
        Outcome::Failed(_)
    ));
    match outcome_of(&all, "unterminated.mlir") {
        Outcome::Failed(message) => assert!(message.contains("unterminated"), "{message}"),
        other => panic!("unterminated.mlir: {other:?}"),
    }

    let all = outcomes(&prepare(&with_foo));
    assert!(matches!(
        outcome_of(&all, "requires.mlir"),
        Outcome::Failed(_)
    ));
    assert!(matches!(
        outcome_of(&all, "unsupported.mlir"),
        Outcome::Unsupported(_)
    ));
    assert_eq!(outcome_of(&all, "xfail-foo.ir"), &Outcome::ExpectedFailure);
}

#[test]
fn a_failure_names_the_run_line_and_shows_its_output() {
    let dir = suite_dir(&[(
        "sub/fail.mlir",
        "// RUN: true\n// RUN: echo out; echo err >&2; echo %s; exit 3\n// RUN: touch never-run\n",
    )]);
    let suite = prepare(&config(dir.path()));
    let Outcome::Failed(message) = suite.run_test(&suite.tests()[0]) else {
        panic!("sub/fail.mlir should fail");
    };
    let path = dir.path().canonicalize().unwrap().join("sub/fail.mlir");
    let path = path.display().to_string();
    assert!(
        message.contains(&format!("{path}:2: RUN line exited with code 3")),
        "{message}"
    );
    assert!(
        message.contains(&format!("echo out; echo err >&2; echo {path}; exit 3")),
        "{message}"
    );
    assert!(message.contains("--- stdout ---\nout\n"), "{message}");
    assert!(message.contains("--- stderr ---\nerr\n"), "{message}");
    assert!(
        !dir.path().join("sub/never-run").exists(),
        "RUN lines after a failure must not run"
    );
}

#[test]
fn temp_paths_are_per_test_and_their_directory_exists() {
    let dir = suite_dir(&[
        (
            "a.mlir",
            "// RUN: test -d %T && echo a > %t && test \"$(cat %t)\" = a\n",
        ),
        (
            "b/a.mlir",
            "// RUN: test ! -e %t && echo b > %t.x && test -f %T/a.mlir.tmp.x\n",
        ),
    ]);
    let suite = prepare(&config(dir.path()));
    for (name, outcome) in outcomes(&suite) {
        assert_eq!(outcome, Outcome::Passed, "{name}");
    }
    assert!(suite.temp_dir().join("a.mlir.tmp").is_file());
    assert!(suite.temp_dir().join("b/a.mlir.tmp.x").is_file());
}

#[test]
fn a_hanging_run_line_times_out() {
    let dir = suite_dir(&[("hang.mlir", "// RUN: sleep 60 | cat\n")]);
    let suite = prepare(&config(dir.path()).timeout(Some(Duration::from_millis(300))));
    let start = std::time::Instant::now();
    let Outcome::Failed(message) = suite.run_test(&suite.tests()[0]) else {
        panic!("hang.mlir should fail");
    };
    assert!(message.contains("timed out"), "{message}");
    assert!(start.elapsed() < Duration::from_secs(30));
}

#[test]
fn missing_tools_are_reported_with_a_hint() {
    let dir = suite_dir(&[("a.mlir", "// RUN: true\n")]);
    let config = config(dir.path()).tool("acc-opt", "/nonexistent/target/debug/acc-opt");
    let any_executable = PathBuf::from(env!("CARGO_BIN_EXE_acc-not"));
    let err = Suite::prepare(&config, &any_executable).unwrap_err();
    assert!(err.contains("/nonexistent/target/debug/acc-opt"), "{err}");
    assert!(err.contains("cargo build --workspace"), "{err}");
    let err = Suite::prepare(&LitConfig::new("/nonexistent/suite"), &any_executable).unwrap_err();
    assert!(err.contains("/nonexistent/suite"), "{err}");
}

/// The full path of a program found on `PATH`.
fn which(program: &str) -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("{program} not on PATH"))
}
