//! `%` substitutions in RUN lines, as LLVM lit defines them.
//!
//! | text   | replaced by                                   |
//! |--------|-----------------------------------------------|
//! | `%s`   | the test file's path                          |
//! | `%S`   | the test file's directory                     |
//! | `%p`   | the test file's directory (same as `%S`)      |
//! | `%t`   | a temporary path unique to the test           |
//! | `%T`   | the directory of `%t`                         |
//! | `%/s` ... `%/T` | the same, with `/` as separator      |
//! | `%%`   | a literal `%`                                 |
//!
//! The text is scanned once from left to right, so a substituted value is never
//! substituted again and `%%s` is the literal `%s`. Any other `%` sequence is kept
//! as written. Paths are inserted as they are, unquoted, as lit does.

use std::path::{Path, PathBuf};

/// The values of the substitutions for one test.
#[derive(Debug, Clone)]
pub struct Substitutions {
    /// `%s`: the test file.
    pub source: PathBuf,
    /// `%t`: the test's temporary path (its parent, `%T`, exists; it does not).
    pub temp: PathBuf,
}

impl Substitutions {
    /// The value of `%c` (or `%/c` when `slashes`), if `c` names a substitution.
    fn value(&self, c: char, slashes: bool) -> Option<String> {
        let path: &Path = match c {
            's' => &self.source,
            'S' | 'p' => self.source.parent().unwrap_or(Path::new(".")),
            't' => &self.temp,
            'T' => self.temp.parent().unwrap_or(Path::new(".")),
            _ => return None,
        };
        let text = path.to_string_lossy().into_owned();
        Some(if slashes {
            text.replace('\\', "/")
        } else {
            text
        })
    }

    /// Applies the substitutions to a RUN line.
    pub fn apply(&self, command: &str) -> String {
        let mut out = String::with_capacity(command.len());
        let mut rest = command;
        while let Some(pos) = rest.find('%') {
            out.push_str(&rest[..pos]);
            let after = &rest[pos + 1..];
            let mut chars = after.chars();
            let (replacement, used) = match chars.next() {
                Some('%') => (Some("%".to_owned()), 1),
                Some('/') => match chars.next() {
                    Some(c) => (self.value(c, true), 1 + c.len_utf8()),
                    None => (None, 0),
                },
                Some(c) => (self.value(c, false), c.len_utf8()),
                None => (None, 0),
            };
            match replacement {
                Some(text) => {
                    out.push_str(&text);
                    rest = &after[used..];
                }
                None => {
                    out.push('%');
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subs() -> Substitutions {
        Substitutions {
            source: PathBuf::from("/suite/dir/a.mlir"),
            temp: PathBuf::from("/tmp/x/dir/a.mlir.tmp"),
        }
    }

    #[test]
    fn substitutes_paths() {
        assert_eq!(
            subs().apply("acc-opt %s -o %t && FileCheck %s < %t; ls %S %p %T"),
            "acc-opt /suite/dir/a.mlir -o /tmp/x/dir/a.mlir.tmp && FileCheck /suite/dir/a.mlir \
             < /tmp/x/dir/a.mlir.tmp; ls /suite/dir /suite/dir /tmp/x/dir"
        );
        assert_eq!(subs().apply("%/s %/T"), "/suite/dir/a.mlir /tmp/x/dir");
    }

    #[test]
    fn suffixes_after_a_substitution_are_kept() {
        assert_eq!(
            subs().apply("%t.out %t2"),
            "/tmp/x/dir/a.mlir.tmp.out /tmp/x/dir/a.mlir.tmp2"
        );
    }

    #[test]
    fn percent_escapes_and_unknown_sequences() {
        assert_eq!(
            subs().apply("printf '%%s' 100%% %%%s"),
            "printf '%s' 100% %/suite/dir/a.mlir"
        );
        assert_eq!(subs().apply("%d %{x} %/q %/ %"), "%d %{x} %/q %/ %");
        assert_eq!(subs().apply("é%é"), "é%é");
    }
}
