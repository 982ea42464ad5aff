//! Finding the tests of a suite.
//!
//! A test is a file under the suite root (recursively) whose name ends in one of
//! [`TEST_SUFFIXES`], that is not inside a directory named `Inputs` (nor a hidden
//! directory), and that contains a `RUN:` line. `lit.cfg.py` is never a test.
//! Symbolic links to directories are not followed (no cycles).
//!
//! Invariants of the result: names are the paths relative to the root with `/`
//! separators, unique, and sorted; paths are absolute when the root is.

use std::io;
use std::path::{Path, PathBuf};

use crate::directives::has_run_line;

/// File name suffixes of test files.
pub const TEST_SUFFIXES: &[&str] = &[".mlir", ".ir"];

/// Directory names whose contents are never tests.
const EXCLUDED_DIRS: &[&str] = &["Inputs"];

/// One test file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct TestFile {
    /// Its path relative to the suite root, `/`-separated: the test's name.
    pub name: String,
    /// Its full path.
    pub path: PathBuf,
}

/// Every test file under `root`, sorted by name.
pub fn discover(root: &Path) -> io::Result<Vec<TestFile>> {
    let mut tests = Vec::new();
    walk(root, root, &mut tests)?;
    tests.sort();
    Ok(tests)
}

/// Adds the tests under `dir` to `tests`.
fn walk(root: &Path, dir: &Path, tests: &mut Vec<TestFile>) -> io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if entry.file_type()?.is_dir() {
            if !name.starts_with('.') && !EXCLUDED_DIRS.contains(&name.as_ref()) {
                walk(root, &path, tests)?;
            }
            continue;
        }
        if name == "lit.cfg.py" || !TEST_SUFFIXES.iter().any(|s| name.ends_with(s)) {
            continue;
        }
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        if !has_run_line(&String::from_utf8_lossy(&bytes)) {
            continue;
        }
        let relative = path.strip_prefix(root).unwrap_or(&path);
        let name = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        tests.push(TestFile { name, path });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_run_files_by_suffix_outside_inputs() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let write = |rel: &str, text: &str| {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write("a.mlir", "// RUN: true\n");
        write("sub/b.ir", "# RUN: true\n");
        write("sub/c.mlir", "no run line\n");
        write("sub/Inputs/d.mlir", "// RUN: true\n");
        write("e.txt", "// RUN: true\n");
        write("lit.cfg.py", "# RUN: nothing\n");
        write(".hidden/f.mlir", "// RUN: true\n");
        let tests = discover(root).unwrap();
        let names: Vec<_> = tests.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["a.mlir", "sub/b.ir"]);
        assert_eq!(tests[1].path, root.join("sub/b.ir"));
    }
}
