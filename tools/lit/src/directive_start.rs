//! Where a FileCheck directive may start: LLVM's rule, applied for litcheck.
//!
//! LLVM FileCheck recognises a prefix (`CHECK`, or any `--check-prefix` or
//! comment prefix) anywhere on a line unless it is glued to a word: the character
//! before it must not be a letter, digit, `-` or `_`. So `//CHECK: x`, `;CHECK:`
//! and `#CHECK:` are directives. litcheck 0.5 only sees a directive after
//! whitespace or at the start of a line, and silently ignores the others, which
//! would make such checks vanish. [`separate_directives`] inserts one space
//! before the first directive of each line when it is glued to punctuation.
//!
//! Invariants: only the first directive of a line is touched (what follows it is
//! its pattern, kept as written), and no line break is added or removed.

/// Directive kinds after a prefix, up to (not including) `:` or `{LITERAL}:`.
const KINDS: &[&str] = &["", "-NEXT", "-SAME", "-NOT", "-DAG", "-LABEL", "-EMPTY"];

/// Inserts a space before each line's first directive when the character before
/// it is neither whitespace nor part of a word.
pub fn separate_directives(checks: &str, prefixes: &[String]) -> String {
    let mut out = String::with_capacity(checks.len() + 16);
    for line in checks.split_inclusive('\n') {
        match first_directive(line, prefixes) {
            Some(pos) if pos > 0 && !line[..pos].ends_with(char::is_whitespace) => {
                out.push_str(&line[..pos]);
                out.push(' ');
                out.push_str(&line[pos..]);
            }
            _ => out.push_str(line),
        }
    }
    out
}

/// The byte offset of the first directive on `line`, if any.
fn first_directive(line: &str, prefixes: &[String]) -> Option<usize> {
    (0..line.len())
        .filter(|&pos| line.is_char_boundary(pos))
        .filter(|&pos| !line[..pos].ends_with(is_word_char))
        .find(|&pos| {
            prefixes
                .iter()
                .filter(|p| !p.is_empty())
                .filter_map(|p| line[pos..].strip_prefix(p.as_str()))
                .any(is_directive_suffix)
        })
}

/// LLVM's `IsPartOfWord`.
fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

/// Does `rest` (the text after a prefix) start with a directive kind and colon?
fn is_directive_suffix(rest: &str) -> bool {
    KINDS
        .iter()
        .filter_map(|kind| rest.strip_prefix(kind))
        .chain(count_kind(rest))
        .map(|r| r.strip_prefix("{LITERAL}").unwrap_or(r))
        .any(|r| r.starts_with(':'))
}

/// The text after `-COUNT-<n>`, if `rest` starts with it.
fn count_kind(rest: &str) -> Option<&str> {
    let digits = rest.strip_prefix("-COUNT-")?;
    let end = digits.len()
        - digits
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .len();
    (end > 0).then(|| &digits[end..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sep(text: &str) -> String {
        let prefixes = ["CHECK", "COM", "RUN"].map(String::from);
        separate_directives(text, &prefixes)
    }

    #[test]
    fn glued_directives_get_a_space() {
        assert_eq!(
            sep("//CHECK: a\n;CHECK-NEXT: b\n#CHECK-COUNT-2: c"),
            "// CHECK: a\n; CHECK-NEXT: b\n# CHECK-COUNT-2: c"
        );
        assert_eq!(sep("éCHECK{LITERAL}: [[x]]\n"), "é CHECK{LITERAL}: [[x]]\n");
    }

    #[test]
    fn separated_words_and_non_directives_are_kept() {
        for text in [
            "// CHECK: a(CHECK: b)",
            "CHECK: a",
            "xCHECK: a",
            "-CHECK: a",
            "//CHECKS: a",
            "//CHECK-FOO: a",
            "//CHECK-COUNT-: a",
        ] {
            assert_eq!(sep(text), text);
        }
    }

    #[test]
    fn only_the_first_directive_of_a_line_is_separated() {
        assert_eq!(
            sep("//RUN: x --check-prefix=(CHECK: y)\n"),
            "// RUN: x --check-prefix=(CHECK: y)\n"
        );
        assert_eq!(sep("// CHECK: f(CHECK: g)"), "// CHECK: f(CHECK: g)");
    }
}
