//! ONNX's own backend node tests, the committed subset (test/onnx-node: up to two
//! passing cases per op, materialized by tools/onnx/materialize_node_tests.py): every
//! case must import, run in the interpreter and match ONNX's expected outputs (some
//! only as folded at import: Shape, Gather, Where, ... whose inputs the runner fixes).

use std::process::Command;

#[test]
fn committed_node_tests_pass() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../test/onnx-node");
    let cases = std::fs::read_to_string(format!("{dir}/cases.tsv")).expect("the manifest");
    let n = cases.lines().count();
    assert!(n >= 60, "the subset has {n} cases");
    let out = Command::new(env!("CARGO_BIN_EXE_acc-onnx-conformance"))
        .arg(dir)
        .arg("--verbose")
        .output()
        .expect("the runner runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let total = stdout
        .lines()
        .find(|l| l.starts_with("total"))
        .expect("a total line");
    let counts: Vec<usize> = total
        .split_whitespace()
        .skip(1)
        .filter_map(|c| c.parse().ok())
        .collect();
    // pass, folded (computed at import from inputs fixed there), fail, unsupported.
    assert_eq!(counts.len(), 4, "{stdout}");
    assert_eq!(counts[0] + counts[1], n, "{stdout}");
    assert_eq!(&counts[2..], &[0, 0], "{stdout}");
    // The cases that only the importer computes are the shape-arithmetic ones.
    assert!(counts[1] <= 4, "{stdout}");
}
