//! `acc-onnx-conformance DIR [PREFIX ...]`: runs ONNX backend node tests materialized
//! by `tools/onnx/materialize_node_tests.py` (DIR/cases.tsv lists case, op type, rtol,
//! atol) through the importer and the interpreter, and prints pass / folded / fail /
//! unsupported counts per op type, then the totals ("folded": it passed with every
//! input fixed at import, so the importer computed it). With `--verbose`, each failing
//! case and why. Exit status 1 when any case fails (unsupported ones do not count).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

use acc_onnx::conformance::{Outcome, run_case};

/// Counts of one op type: passed, passed only with every input fixed at import
/// (computed by the importer), failed, unsupported.
#[derive(Default)]
struct Counts {
    pass: usize,
    folded: usize,
    fail: usize,
    unsupported: usize,
}

/// Runs with `args`.
pub fn main_with_args(args: &[String]) -> ExitCode {
    let verbose = args.iter().any(|a| a == "--verbose");
    let rest: Vec<&String> = args.iter().filter(|a| *a != "--verbose").collect();
    let Some(dir) = rest.first() else {
        eprintln!("usage: acc-onnx-conformance DIR [CASE_PREFIX ...] [--verbose]");
        return ExitCode::from(2);
    };
    let prefixes = &rest[1..];
    let dir = Path::new(dir.as_str());
    let manifest = match std::fs::read_to_string(dir.join("cases.tsv")) {
        Ok(m) => m,
        Err(e) => {
            eprintln!(
                "acc-onnx-conformance: cannot read {}: {e}",
                dir.join("cases.tsv").display()
            );
            return ExitCode::FAILURE;
        }
    };
    let mut by_op: BTreeMap<String, Counts> = BTreeMap::new();
    for line in manifest.lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        let [case, op, rtol, atol] = fields[..] else {
            eprintln!("acc-onnx-conformance: malformed line in cases.tsv: {line}");
            return ExitCode::FAILURE;
        };
        if !prefixes.is_empty() && !prefixes.iter().any(|p| case.starts_with(p.as_str())) {
            continue;
        }
        let (rtol, atol) = (rtol.parse().unwrap_or(1e-3), atol.parse().unwrap_or(1e-7));
        let case_dir = dir.join(case);
        // A panic is a bug in acc: counted as a failure, the run goes on.
        let outcome = std::panic::catch_unwind(|| run_case(&case_dir, rtol, atol))
            .unwrap_or_else(|_| Outcome::Fail("panicked".into()));
        let counts = by_op.entry(op.to_string()).or_default();
        match outcome {
            Outcome::Pass => counts.pass += 1,
            Outcome::Folded => counts.folded += 1,
            Outcome::Unsupported(why) => {
                counts.unsupported += 1;
                if verbose {
                    println!("unsupported {case}: {why}");
                }
            }
            Outcome::Fail(why) => {
                counts.fail += 1;
                if verbose {
                    println!("FAIL {case}: {why}");
                }
            }
        }
    }
    println!(
        "{:<28} {:>5} {:>7} {:>5} {:>12}",
        "op", "pass", "folded", "fail", "unsupported"
    );
    let mut total = Counts::default();
    for (op, c) in &by_op {
        println!(
            "{op:<28} {:>5} {:>7} {:>5} {:>12}",
            c.pass, c.folded, c.fail, c.unsupported
        );
        total.pass += c.pass;
        total.folded += c.folded;
        total.fail += c.fail;
        total.unsupported += c.unsupported;
    }
    println!(
        "{:<28} {:>5} {:>7} {:>5} {:>12}",
        "total", total.pass, total.folded, total.fail, total.unsupported
    );
    if total.fail > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
