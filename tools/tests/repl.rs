//! `acc-repl` driven by scripts: the built binary reads entries from a script file or
//! from a pipe, with `--echo`, and its transcript (standard output and error, in order,
//! in one file) is split into the output of each entry and checked.

use std::path::Path;
use std::process::{Command, Stdio};

/// A function with redundant arith ops: `canonicalize` folds `x + 0`, `cse` merges the
/// two multiplications.
const REDUNDANT: &str = "\
func.func @f(%a: i32, %b: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %x = arith.addi %a, %c0 : i32
  %y = arith.muli %x, %b : i32
  %z = arith.muli %x, %b : i32
  %r = arith.addi %y, %z : i32
  return %r : i32
}
";

/// `REDUNDANT` as acc prints it.
const REDUNDANT_PRINTED: &str = "\
module {
  func.func @f(%arg0: i32, %arg1: i32) -> i32 {
    %0 = arith.constant 0 : i32
    %1 = arith.addi %arg0, %0 : i32
    %2 = arith.muli %1, %arg1 : i32
    %3 = arith.muli %1, %arg1 : i32
    %4 = arith.addi %2, %3 : i32
    return %4 : i32
  }
}
";

/// `REDUNDANT` after `canonicalize`.
const CANONICALIZED: &str = "\
module {
  func.func @f(%arg0: i32, %arg1: i32) -> i32 {
    %0 = arith.muli %arg0, %arg1 : i32
    %1 = arith.muli %arg0, %arg1 : i32
    %2 = arith.addi %0, %1 : i32
    return %2 : i32
  }
}
";

/// `REDUNDANT` after `canonicalize` and `cse`: nothing left to simplify.
const CLEAN: &str = "\
module {
  func.func @f(%arg0: i32, %arg1: i32) -> i32 {
    %0 = arith.muli %arg0, %arg1 : i32
    %1 = arith.addi %0, %0 : i32
    return %1 : i32
  }
}
";

/// One entry of a transcript: its first line (without the prompt) and its output.
#[derive(Debug)]
struct Turn {
    entry: String,
    output: String,
}

/// A finished run.
struct Run {
    success: bool,
    transcript: String,
    turns: Vec<Turn>,
}

impl Run {
    /// The output of the `n`th entry (from 0) that is `entry`.
    fn output(&self, entry: &str, n: usize) -> &str {
        match self.turns.iter().filter(|t| t.entry == entry).nth(n) {
            Some(t) => &t.output,
            None => panic!(
                "no entry #{n} '{entry}' in the transcript:\n{}",
                self.transcript
            ),
        }
    }
}

/// Splits a `--echo` transcript at its prompts; continuation lines belong to the entry.
fn split(transcript: &str) -> Vec<Turn> {
    let mut turns: Vec<Turn> = Vec::new();
    for line in transcript.split_inclusive('\n') {
        if let Some(entry) = line.strip_prefix("acc> ") {
            turns.push(Turn {
                entry: entry.trim_end().to_string(),
                output: String::new(),
            });
        } else if line.starts_with("...> ") {
            continue;
        } else if let Some(t) = turns.last_mut() {
            t.output.push_str(line);
        }
    }
    turns
}

/// Runs acc-repl in `dir` with `args`, feeding `stdin`; standard output and error go to
/// one file so that they interleave in order.
fn run(dir: &Path, args: &[&str], stdin: &str) -> Run {
    let out_path = dir.join("transcript.txt");
    let out = std::fs::File::create(&out_path).expect("create transcript");
    let err = out.try_clone().expect("clone transcript handle");
    let mut child = Command::new(env!("CARGO_BIN_EXE_acc-repl"))
        .args(args)
        .arg("--echo")
        .current_dir(dir)
        .env("RUST_BACKTRACE", "0")
        .env("ACC_REPL_HISTORY", dir.join("history"))
        .stdin(Stdio::piped())
        .stdout(out)
        .stderr(err)
        .spawn()
        .expect("start acc-repl");
    {
        use std::io::Write;
        let mut input = child.stdin.take().expect("stdin");
        input.write_all(stdin.as_bytes()).expect("write stdin");
    }
    let status = child.wait().expect("wait for acc-repl");
    let transcript = std::fs::read_to_string(&out_path).expect("read transcript");
    Run {
        success: status.success(),
        turns: split(&transcript),
        transcript,
    }
}

fn workdir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("redundant.mlir"), REDUNDANT).expect("write input");
    dir
}

#[test]
fn passes_undo_redo_diff_and_suggest() {
    let dir = workdir();
    let script = "\
// A script: comments and blank lines are skipped.
:load redundant.mlir

:print
:suggest
:pass canonicalize
:print
:pass cse
:print
:diff
:suggest
:undo
:undo
:print
:redo
:diff
:redo
:print
:verify
:quit
:print
";
    std::fs::write(dir.path().join("session.repl"), script).expect("write script");
    let r = run(dir.path(), &["--script", "session.repl"], "");
    assert!(r.success, "the script failed:\n{}", r.transcript);
    assert_eq!(
        r.output(":load redundant.mlir", 0),
        "loaded redundant.mlir\n"
    );
    assert_eq!(r.output(":print", 0), REDUNDANT_PRINTED);

    let suggested = r.output(":suggest", 0);
    assert!(
        suggested.starts_with("passes that change the module:\n"),
        "{suggested}"
    );
    for pass in ["canonicalize", "cse"] {
        assert!(
            suggested.lines().any(|l| l.trim_start().starts_with(pass)),
            "{pass} not suggested:\n{suggested}"
        );
    }
    assert!(
        !suggested.contains("symbol-dce"),
        "symbol-dce changes nothing here:\n{suggested}"
    );

    assert!(
        r.output(":pass canonicalize", 0)
            .contains("changed the module (-6 +4 lines)")
    );
    assert_eq!(r.output(":print", 1), CANONICALIZED);
    assert_eq!(r.output(":print", 2), CLEAN);

    // The diff of the last pass, cse: two lines go, one comes.
    let diff = r.output(":diff", 0);
    assert!(
        diff.starts_with("--- before cse\n+++ after cse\n@@ "),
        "{diff}"
    );
    let changed: Vec<&str> = diff
        .lines()
        .skip(2)
        .filter(|l| l.starts_with('-') || l.starts_with('+'))
        .collect();
    assert_eq!(
        changed,
        [
            "-    %1 = arith.muli %arg0, %arg1 : i32",
            "-    %2 = arith.addi %0, %1 : i32",
            "-    return %2 : i32",
            "+    %1 = arith.addi %0, %0 : i32",
            "+    return %1 : i32",
        ],
        "{diff}"
    );
    assert_eq!(r.output(":suggest", 1), "no pass changes the module\n");

    // Undo twice restores the loaded module exactly; redo reapplies both passes.
    assert_eq!(r.output(":undo", 0), "undid 'cse'\n");
    assert_eq!(r.output(":undo", 1), "undid 'canonicalize'\n");
    assert_eq!(r.output(":print", 3), REDUNDANT_PRINTED);
    assert_eq!(r.output(":redo", 0), "redid 'canonicalize'\n");
    assert!(
        r.output(":diff", 1)
            .starts_with("--- before canonicalize\n")
    );
    assert_eq!(r.output(":redo", 1), "redid 'cse'\n");
    assert_eq!(r.output(":print", 4), CLEAN);
    assert_eq!(r.output(":verify", 0), "the module verifies\n");
    // Nothing runs after :quit.
    assert_eq!(r.turns.last().map(|t| t.entry.as_str()), Some(":quit"));
}

#[test]
fn clean_ir_gets_no_suggestion() {
    let dir = workdir();
    std::fs::write(dir.path().join("clean.mlir"), CLEAN).expect("write input");
    let r = run(dir.path(), &["clean.mlir"], ":suggest\n:diff\n");
    assert!(r.success, "{}", r.transcript);
    assert_eq!(r.output(":load clean.mlir", 0), "loaded clean.mlir\n");
    assert_eq!(r.output(":suggest", 0), "no pass changes the module\n");
    assert_eq!(
        r.output(":diff", 0),
        "no pass has changed the module since clean.mlir was loaded\n"
    );
}

#[test]
fn pasted_ir_spans_lines_and_errors_leave_the_module_alone() {
    let dir = workdir();
    let input = "\
func.func @twice(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  %1 = arith.addi %a, %a : i32
  %2 = arith.muli %0, %1 : i32
  return %2 : i32
}
:print
func.func @bad(%a: i32) -> i32 {
  %0 = arith.addi %a, %nope : i32
  return %0 : i32
}
:print
:pass nosuchpass
:load redundant.mlir
:pass canonicalize{max-iterations=1 test-convergence}
:print
:bogus
:pass cse
:print
:generic
";
    let r = run(dir.path(), &[], input);
    assert!(
        !r.success,
        "failed entries must fail a script:\n{}",
        r.transcript
    );
    assert_eq!(
        r.output("func.func @twice(%a: i32) -> i32 {", 0),
        "loaded <input-1>\n"
    );
    let twice = r.output(":print", 0);
    assert!(
        twice.contains("func.func @twice(%arg0: i32) -> i32 {"),
        "{twice}"
    );

    // Bad IR: a diagnostic with file, line and column, and the module stays.
    let bad = r.output("func.func @bad(%a: i32) -> i32 {", 0);
    assert!(
        bad.contains("error: use of undeclared SSA value name '%nope'"),
        "{bad}"
    );
    assert!(bad.contains("<input-2>:2:23"), "{bad}");
    assert!(bad.contains("the current module is unchanged"), "{bad}");
    assert_eq!(r.output(":print", 1), twice);

    let unknown = r.output(":pass nosuchpass", 0);
    assert!(
        unknown.contains("unknown pass 'nosuchpass' (see :passes)"),
        "{unknown}"
    );

    // A pass that fails midway does not leave its partial rewrite behind.
    let failed = r.output(":pass canonicalize{max-iterations=1 test-convergence}", 0);
    assert!(failed.contains("did not converge"), "{failed}");
    assert!(failed.contains("the module is unchanged"), "{failed}");
    assert_eq!(r.output(":print", 2), REDUNDANT_PRINTED);

    assert!(r.output(":bogus", 0).contains("unknown command ':bogus'"));

    // The session went on: cse still runs.
    assert!(r.output(":pass cse", 0).contains("changed the module"));
    let after = r.output(":print", 3);
    assert_eq!(after.matches("arith.muli").count(), 1, "{after}");
    assert!(r.output(":generic", 0).contains("\"arith.addi\"(%2, %2)"));
}

#[test]
fn lists_passes_and_ops_and_helps() {
    let dir = workdir();
    let r = run(
        dir.path(),
        &[],
        ":passes\n:ops arith\n:ops func.re\n:ops nosuch\n:help\n:q\n",
    );
    assert!(!r.success, "':ops nosuch' fails:\n{}", r.transcript);
    let passes = r.output(":passes", 0);
    for name in ["canonicalize", "cse", "dce", "inline", "max-iterations"] {
        assert!(passes.contains(name), "{name} missing:\n{passes}");
    }
    let arith = r.output(":ops arith", 0);
    assert!(
        arith
            .lines()
            .any(|l| l.trim_start().starts_with("arith.addi "))
    );
    assert!(arith.lines().all(|l| l.trim_start().starts_with("arith.")));
    assert!(
        r.output(":ops func.re", 0)
            .trim_start()
            .starts_with("func.return ")
    );
    assert!(
        r.output(":ops nosuch", 0)
            .contains("no registered op matches")
    );
    let help = r.output(":help", 0);
    for c in [
        ":load",
        ":pass",
        ":pipeline",
        ":undo",
        ":redo",
        ":diff",
        ":suggest",
    ] {
        assert!(help.contains(c), "{c} missing from :help:\n{help}");
    }
}

#[test]
fn pipelines_in_mlir_syntax() {
    let dir = workdir();
    let r = run(
        dir.path(),
        &["redundant.mlir"],
        ":pipeline 'builtin.module(func.func(canonicalize,cse))'\n:print\n\
         :pipeline 'func.func(cse)'\n",
    );
    assert_eq!(r.output(":print", 0), CLEAN);
    let wrong = r.output(":pipeline 'func.func(cse)'", 0);
    assert!(
        wrong.contains("can't run 'func.func' pass manager"),
        "{wrong}"
    );
    assert!(!r.success);
}

#[test]
fn a_script_that_succeeds_exits_zero_and_usage_is_printed() {
    let dir = workdir();
    let r = run(dir.path(), &[], ":load redundant.mlir\n:verify\n");
    assert!(r.success, "{}", r.transcript);
    let help = Command::new(env!("CARGO_BIN_EXE_acc-repl"))
        .arg("--help")
        .output()
        .expect("run acc-repl --help");
    assert!(help.status.success());
    assert!(String::from_utf8_lossy(&help.stdout).contains("--script FILE"));
    let bad = Command::new(env!("CARGO_BIN_EXE_acc-repl"))
        .arg("--bogus")
        .stdin(Stdio::null())
        .output()
        .expect("run acc-repl --bogus");
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn targets_and_named_pipelines() {
    let dir = workdir();
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let target = examples.join("targets/tinynpu.acc");
    let model = examples.join("ir/int8-conv.mlir");
    let r = run(
        dir.path(),
        &["--target", target.to_str().expect("UTF-8 path")],
        &format!(
            ":load {}\n:passes\n:pass quantize-pipeline,partition\n:print\n",
            model.display()
        ),
    );
    assert!(r.success, "{}", r.transcript);
    let passes = r.output(":passes", 0);
    for name in ["Pipelines:", "host-pipeline", "accel-pipeline", "partition"] {
        assert!(passes.contains(name), "{name} missing:\n{passes}");
    }
    let placed = r.output(":print", 0);
    assert!(
        placed.contains("hw.intrinsic = \"npu_conv2d_s8\""),
        "partition placed nothing:\n{placed}"
    );
}

/// At a pseudo-terminal (`test/repl/interrupt.py`): Ctrl-C while `:suggest` runs on a
/// large module stops it, the prompt comes back with the module and the undo stack as
/// they were, and the history file holds every entry while the session still runs.
#[test]
fn ctrl_c_stops_a_running_command_and_the_session_survives() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/repl/interrupt.py");
    let out = Command::new("python3")
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_acc-repl"))
        .output()
        .expect("python3 runs test/repl/interrupt.py (CI installs Python 3)");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    assert!(text.contains("Ctrl-C stopped the command"), "{text}");
}
