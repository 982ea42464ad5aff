//! Rust names the ops acc ships only through the items generated from their
//! definitions (`acc_dialects::ops`), so that renaming an op in a definition file
//! fails the build instead of a pass at run time: no string literal spelling a
//! shipped op's full name (`"graph.conv2d"`) may appear in the code of passes,
//! lowerings, back ends, tools or dialect hooks. Exempt: tests, and the crates under
//! `ir/` (the core, the pass manager, the target model), which the dialects crate
//! depends on and so cannot use its items (the core knows `builtin.module` and
//! `func.func` as MLIR's core knows its module and function ops).

use std::path::{Path, PathBuf};

/// The folders whose Rust sources are checked, from the repository root.
const CHECKED: &[&str] = &["dialects/src", "passes", "lowering", "tools/src"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            // Integration tests and test inputs are exempt.
            if p.file_name().is_some_and(|n| n == "tests" || n == "target") {
                continue;
            }
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The source without its unit tests (from the first `#[cfg(test)]` or
/// `#![cfg(test)]` line on).
fn without_tests(text: &str) -> &str {
    match text.find("cfg(test)]") {
        Some(at) => &text[..at],
        None => text,
    }
}

#[test]
fn no_op_is_named_by_a_string_literal() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let names: Vec<&str> = acc_dialects::ops::SIGNATURES
        .iter()
        .map(|s| s.name)
        .collect();
    assert!(
        names.contains(&"graph.conv2d"),
        "the generated list is complete"
    );
    let mut files = Vec::new();
    for dir in CHECKED {
        rust_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 50, "the sources were found: {}", files.len());
    let mut found = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("a source file");
        for (i, line) in without_tests(&text).lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for name in &names {
                if line.contains(&format!("\"{name}\"")) {
                    found.push(format!(
                        "{}:{}: \"{name}\"",
                        f.strip_prefix(&root).unwrap_or(f).display(),
                        i + 1
                    ));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "name these ops through acc_dialects::ops (NAME, Op::of, the views and builders):\n{}",
        found.join("\n")
    );
}
