//! `acc-filecheck` against small check files, passing and failing, one case per
//! directive kind; and, when LLVM's FileCheck is installed, a cross-check that it
//! passes and fails on the same cases.
//!
//! Every case states LLVM's verdict; `litcheck_differs` marks a case where
//! `acc-filecheck` (litcheck 0.5) is known to decide otherwise, and why.
//! Not a case here because it would hang: litcheck 0.5 loops forever on
//! `CHECK-DAG: [[@LINE]]{{[0-9]+}}` against the input `1` (the lit runner's
//! per-RUN-line timeout stops it).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Where Debian's llvm-22-tools installs FileCheck.
const LLVM_FILECHECK: &str = "/usr/lib/llvm-22/bin/FileCheck";

/// One FileCheck invocation and LLVM's verdict on it.
struct Case {
    name: &'static str,
    checks: &'static str,
    input: &'static str,
    args: &'static [&'static str],
    passes: bool,
    /// Why `acc-filecheck` (litcheck) decides differently from LLVM, if it does.
    litcheck_differs: Option<&'static str>,
}

const fn case(
    name: &'static str,
    checks: &'static str,
    input: &'static str,
    args: &'static [&'static str],
    passes: bool,
) -> Case {
    Case {
        name,
        checks,
        input,
        args,
        passes,
        litcheck_differs: None,
    }
}

/// A case on which litcheck is known to disagree with LLVM.
const fn differs(mut case: Case, why: &'static str) -> Case {
    case.litcheck_differs = Some(why);
    case
}

const CASES: &[Case] = &[
    case("check", "// CHECK: foo\n", "a foo b\n", &[], true),
    case("check-missing", "// CHECK: foo\n", "bar\n", &[], false),
    case(
        "check-order",
        "// CHECK: b\n// CHECK: a\n",
        "a\nb\n",
        &[],
        false,
    ),
    case(
        "next",
        "// CHECK: a\n// CHECK-NEXT: b\n",
        "a\nb\n",
        &[],
        true,
    ),
    case(
        "next-gap",
        "// CHECK: a\n// CHECK-NEXT: b\n",
        "a\nx\nb\n",
        &[],
        false,
    ),
    case(
        "same",
        "// CHECK: a\n// CHECK-SAME: b\n",
        "a b\n",
        &[],
        true,
    ),
    case(
        "same-other-line",
        "// CHECK: a\n// CHECK-SAME: b\n",
        "a\nb\n",
        &[],
        false,
    ),
    case(
        "label",
        "// CHECK-LABEL: @f1\n// CHECK: x\n// CHECK-LABEL: @f2\n// CHECK: y\n",
        "@f1\nx\n@f2\ny\n",
        &[],
        true,
    ),
    case(
        "label-wrong-block",
        "// CHECK-LABEL: @f1\n// CHECK: x\n// CHECK-LABEL: @f2\n// CHECK: y\n",
        "@f1\n@f2\nx\ny\n",
        &[],
        false,
    ),
    case(
        "dag",
        "// CHECK-DAG: b\n// CHECK-DAG: a\n// CHECK: c\n",
        "a\nb\nc\n",
        &[],
        true,
    ),
    case(
        "dag-after-next",
        "// CHECK-DAG: a\n// CHECK-DAG: b\n// CHECK: c\n",
        "a\nc\nb\n",
        &[],
        false,
    ),
    case(
        "not",
        "// CHECK: first\n// CHECK-NOT: bad\n// CHECK: last\n",
        "first\nok\nlast\n",
        &[],
        true,
    ),
    case(
        "not-present",
        "// CHECK: first\n// CHECK-NOT: bad\n// CHECK: last\n",
        "first\nbad\nlast\n",
        &[],
        false,
    ),
    // `b` matches inside `bad`, so the CHECK-NOT range before it is empty.
    case(
        "not-range-ends-at-match",
        "// CHECK: a\n// CHECK-NOT: bad\n// CHECK: b\n",
        "a\nbad\nb\n",
        &[],
        true,
    ),
    case(
        "not-at-end",
        "// CHECK: a\n// CHECK-NOT: b\n",
        "a\nb\n",
        &[],
        false,
    ),
    case(
        "empty",
        "// CHECK: a\n// CHECK-EMPTY:\n// CHECK-NEXT: b\n",
        "a\n\nb\n",
        &[],
        true,
    ),
    case(
        "empty-not-empty",
        "// CHECK: a\n// CHECK-EMPTY:\n// CHECK-NEXT: b\n",
        "a\nx\nb\n",
        &[],
        false,
    ),
    case(
        "count",
        "// CHECK-COUNT-2: x\n// CHECK-NOT: x\n",
        "x\nx\n",
        &[],
        true,
    ),
    case("count-short", "// CHECK-COUNT-2: x\n", "x\ny\n", &[], false),
    case(
        "count-too-many",
        "// CHECK-COUNT-2: x\n// CHECK-NOT: x\n",
        "x\nx\nx\n",
        &[],
        false,
    ),
    case(
        "variable",
        "// CHECK: [[V:%[0-9]+]] = arith.constant\n// CHECK: return [[V]]\n",
        "%3 = arith.constant 1 : i32\nreturn %3 : i32\n",
        &[],
        true,
    ),
    case(
        "variable-mismatch",
        "// CHECK: [[V:%[0-9]+]] = arith.constant\n// CHECK: return [[V]]\n",
        "%3 = arith.constant 1 : i32\nreturn %4 : i32\n",
        &[],
        false,
    ),
    case(
        "variable-same-line",
        "// CHECK: [[A:%[a-z]+]] = op\n// CHECK-SAME: [[A]]\n",
        "%x = op %x\n",
        &[],
        true,
    ),
    case(
        "regex",
        "// CHECK: value {{[0-9]+}}\n",
        "value 42\n",
        &[],
        true,
    ),
    case(
        "regex-mismatch",
        "// CHECK: value {{[0-9]+}}\n",
        "value x\n",
        &[],
        false,
    ),
    case(
        "literal-metachars",
        "// CHECK: a[0] = (b.c)*\n",
        "a[0] = (b.c)*\n",
        &[],
        true,
    ),
    case("literal-dot", "// CHECK: a.c\n", "abc\n", &[], false),
    case(
        "regex-anchors",
        "// CHECK: {{^}}foo{{$}}\n",
        "foo\n",
        &[],
        true,
    ),
    case(
        "regex-anchors-mismatch",
        "// CHECK: {{^}}foo{{$}}\n",
        " foo bar\n",
        &[],
        false,
    ),
    case(
        "prefixes",
        "// A: one\n// B: two\n// CHECK: not-checked\n",
        "one\ntwo\n",
        &["--check-prefixes=A,B"],
        true,
    ),
    case(
        "prefixes-mismatch",
        "// A: one\n// B: three\n",
        "one two\n",
        &["--check-prefixes=A,B"],
        false,
    ),
    case(
        "prefix-llvm-spelling",
        "// FOO: x\n",
        "x\n",
        &["-check-prefix=FOO"],
        true,
    ),
    case(
        "prefix-separate-value",
        "// FOO: y\n",
        "x\n",
        &["-check-prefix", "FOO"],
        false,
    ),
    case(
        "prefix-unused",
        "// A: x\n",
        "x\n",
        &["--check-prefixes=A,B"],
        false,
    ),
    case(
        "prefix-unused-allowed",
        "// A: x\n",
        "x\n",
        &["--check-prefixes=A,B", "--allow-unused-prefixes"],
        true,
    ),
    case(
        "implicit-check-not",
        "// CHECK: ok\n",
        "ok\n",
        &["--implicit-check-not=error"],
        true,
    ),
    case(
        "implicit-check-not-found",
        "// CHECK: ok\n",
        "error: x\nok\n",
        &["--implicit-check-not", "error"],
        false,
    ),
    case(
        "implicit-check-not-llvm-spelling",
        "// CHECK: ok\n",
        "ok\nwarning: y\n",
        &["-implicit-check-not=warning:"],
        false,
    ),
    case("empty-input", "// CHECK-NOT: x\n", "", &[], false),
    case(
        "empty-input-allowed",
        "// CHECK-NOT: x\n",
        "",
        &["--allow-empty"],
        true,
    ),
    case(
        "full-lines",
        "// CHECK: foo\n",
        "foo\n",
        &["--match-full-lines"],
        true,
    ),
    case(
        "full-lines-partial",
        "// CHECK: foo\n",
        "foo bar\n",
        &["--match-full-lines"],
        false,
    ),
    case(
        "whitespace-canonical",
        "// CHECK: a  b\n",
        "a\tb\n",
        &[],
        true,
    ),
    case("whitespace-runs", "// CHECK: a b\n", "a  b\n", &[], true),
    case(
        "whitespace-runs-in-pattern",
        "// CHECK: a  b\n",
        "a b\n",
        &[],
        true,
    ),
    case("whitespace-trailing", "// CHECK: a \n", "a\n", &[], true),
    case(
        "whitespace-regex",
        "// CHECK: a {{b}}\n",
        "a \t b\n",
        &[],
        true,
    ),
    case(
        "whitespace-strict",
        "// CHECK: a  b\n",
        "a b\n",
        &["--strict-whitespace"],
        false,
    ),
    case(
        "whitespace-strict-same",
        "// CHECK: a  b\n",
        "a  b\n",
        &["--strict-whitespace"],
        true,
    ),
    case(
        "whitespace-strict-full-lines",
        "// CHECK: a \n",
        "a\n",
        &["--strict-whitespace", "--match-full-lines"],
        false,
    ),
    case(
        "full-lines-blanks",
        "// CHECK: a b\n",
        "  a  b \n",
        &["--match-full-lines"],
        true,
    ),
    case(
        "regex-edge-spaces",
        "// CHECK: a{{ +}}b{{ }}c\n",
        "a  b c\n",
        &[],
        true,
    ),
    case(
        "regex-edge-spaces-needed",
        "// CHECK: a{{ b}}\n",
        "ab\n",
        &[],
        false,
    ),
    case(
        "prefix-duplicate",
        "// CHECK: a\n",
        "a\n",
        &["--check-prefixes=CHECK,CHECK"],
        false,
    ),
    case(
        "prefix-is-comment",
        "// CHECK: a\n",
        "a\n",
        &["--comment-prefixes=CHECK"],
        false,
    ),
    differs(
        case(
            "dag-overlap",
            "// CHECK-DAG: a\n// CHECK-DAG: a\n",
            "a\n",
            &[],
            false,
        ),
        "litcheck lets two CHECK-DAG patterns match the same text",
    ),
    differs(
        case(
            "regex-perl-class",
            "// CHECK: a{{\\s}}b\n",
            "a b\n",
            &[],
            false,
        ),
        "litcheck uses Rust regex syntax, LLVM POSIX ERE (no \\s, \\d, \\w)",
    ),
    differs(
        case(
            "variable-redefined-same-line",
            "// CHECK: [[X:a]] [[X:b]]\n",
            "a b\n",
            &[],
            true,
        ),
        "litcheck rejects two definitions of one variable on a line",
    ),
    differs(
        case(
            "empty-at-end-of-input",
            "// CHECK: a\n// CHECK-EMPTY:\n",
            "a\n",
            &[],
            true,
        ),
        "LLVM sees an empty line after the final newline; litcheck does not",
    ),
    case(
        "not-empty-pattern",
        "// CHECK: a\n// CHECK-NOT:\n",
        "a\n",
        &[],
        false,
    ),
    differs(
        case(
            "check-after-dag-same-line",
            "// CHECK-DAG: i32\n// CHECK: {{.*}} {{.*}}\n",
            "i32 @g i32\n",
            &[],
            true,
        ),
        "litcheck places a CHECK after a DAG group differently when both fit one line",
    ),
    case(
        "define",
        "// CHECK: [[X]]\n",
        "hello\n",
        &["-DX=hello"],
        true,
    ),
    case(
        "define-separate",
        "// CHECK: [[X]]\n",
        "bye\n",
        &["-D", "X=hello"],
        false,
    ),
    case(
        "numeric",
        "// CHECK: [[#N:]]\n// CHECK-NEXT: [[#N+1]]\n",
        "5\n6\n",
        &[],
        true,
    ),
    case(
        "numeric-mismatch",
        "// CHECK: [[#N:]]\n// CHECK-NEXT: [[#N+1]]\n",
        "5\n7\n",
        &[],
        false,
    ),
    case("glued-to-comment", "//CHECK: zzz\n", "y\n", &[], false),
    case(
        "glued-to-semicolon",
        ";CHECK-NEXT: y\n;CHECK: x\n",
        "x\ny\n",
        &[],
        false,
    ),
    case(
        "glued-to-word",
        "xCHECK: zzz\n// CHECK: y\n",
        "y\n",
        &[],
        true,
    ),
    case(
        "directive-in-pattern",
        "// CHECK: f(CHECK: g)\n",
        "f(CHECK: g)\n",
        &[],
        true,
    ),
    case("unicode-at-end", "// CHECK-NOT: x\n", "é", &[], true),
    case("unicode-at-end-missing", "// CHECK: x\n", "aé", &[], false),
    case(
        "comment",
        "// COM: CHECK: missing\n// CHECK: a\n",
        "a\n",
        &[],
        true,
    ),
    case(
        "run-is-comment",
        "// RUN: FileCheck %s\n// CHECK: a\n",
        "a\n",
        &[],
        true,
    ),
    case("no-directives", "nothing to check\n", "a\n", &[], false),
    case("next-first", "// CHECK-NEXT: a\n", "a\n", &[], false),
    case("bad-regex", "// CHECK: {{(}}\n", "(\n", &[], false),
    case(
        "undefined-variable",
        "// CHECK: [[NOPE]]\n",
        "x\n",
        &[],
        false,
    ),
    case(
        "mlir-function",
        "// CHECK-LABEL: func.func @add\n// CHECK-SAME: (%[[A:.*]]: i32)\n\
         // CHECK: %[[R:.*]] = arith.addi %[[A]], %[[A]] : i32\n// CHECK-NEXT: return %[[R]]\n",
        "func.func @add(%arg0: i32) -> i32 {\n  %0 = arith.addi %arg0, %arg0 : i32\n  return %0 : i32\n}\n",
        &[],
        true,
    ),
];

/// The exit code of `filecheck` on `case`, with its stderr for diagnostics.
fn run(filecheck: &Path, dir: &Path, case: &Case) -> (Option<i32>, String) {
    let check_file = dir.join(format!("{}.check", case.name));
    std::fs::write(&check_file, case.checks).expect("write check file");
    let mut child = Command::new(filecheck)
        .arg(&check_file)
        .args(case.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start FileCheck");
    if let Some(mut stdin) = child.stdin.take() {
        // FileCheck may exit before reading its input (invalid check file).
        let _ = stdin.write_all(case.input.as_bytes());
    }
    let output = child.wait_with_output().expect("wait for FileCheck");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Runs every case with `filecheck`; returns one line per case whose verdict is
/// not `expected(case)`.
fn disagreements(filecheck: &Path, expected: impl Fn(&Case) -> bool) -> Vec<String> {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut wrong = Vec::new();
    for case in CASES {
        let (code, stderr) = run(filecheck, dir.path(), case);
        if code.is_none_or(|c| c > 2) {
            wrong.push(format!(
                "{}: crashed or odd exit {code:?}\n{stderr}",
                case.name
            ));
        } else if (code == Some(0)) != expected(case) {
            wrong.push(format!(
                "{}: exit {code:?}, expected {}\n{stderr}",
                case.name,
                if expected(case) { "pass" } else { "fail" }
            ));
        }
    }
    wrong
}

#[test]
fn acc_filecheck_verdicts() {
    let ours = PathBuf::from(env!("CARGO_BIN_EXE_acc-filecheck"));
    let wrong = disagreements(&ours, |c| c.passes != c.litcheck_differs.is_some());
    assert!(
        wrong.is_empty(),
        "acc-filecheck verdicts:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn llvm_filecheck_verdicts() {
    let llvm = Path::new(LLVM_FILECHECK);
    if !llvm.is_file() {
        println!("note: {LLVM_FILECHECK} is absent; skipping the cross-check with LLVM");
        return;
    }
    let wrong = disagreements(llvm, |c| c.passes);
    assert!(
        wrong.is_empty(),
        "LLVM FileCheck verdicts:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn exit_codes() {
    let ours = env!("CARGO_BIN_EXE_acc-filecheck");
    let code = |args: &[&str]| {
        Command::new(ours)
            .args(args)
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .stdout(Stdio::null())
            .status()
            .expect("run acc-filecheck")
            .code()
    };
    assert_eq!(code(&[]), Some(2), "missing check file argument");
    assert_eq!(
        code(&["/nonexistent.check"]),
        Some(2),
        "unreadable check file"
    );
    assert_eq!(code(&["x", "--bogus"]), Some(2), "unknown option");
    assert_eq!(code(&["--help"]), Some(0));
    assert_eq!(code(&["--dump-input=help"]), Some(0));
}
