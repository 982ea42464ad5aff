//! Test-file directives: `RUN:`, `XFAIL:`, `REQUIRES:` and `UNSUPPORTED:`.
//!
//! A directive is a keyword anywhere on a line (normally after a comment leader
//! such as `//` or `#`) that is not preceded by a letter, digit, `_` or `-`; so
//! `CHECK-RUN:` or `XRUN:` are not `RUN:` lines. The directive's text is the rest
//! of the line, trimmed.
//!
//! A `RUN:` text ending in `\` continues on the next `RUN:` line: the backslash is
//! dropped and the texts are concatenated, as LLVM lit does (lines without a
//! directive in between are skipped). Invariants of a
//! parsed [`Directives`]: every [`RunLine`] is non-empty and has no continuation
//! left in it; a trailing `\` on the last `RUN:` line is a [`DirectiveError`].
//! As in lit, `%(line)`, `%(line+N)` and `%(line-N)` in a RUN line are replaced
//! by that physical line's number before lines are joined.

use std::fmt;

/// One shell command from `RUN:` lines, before substitution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunLine {
    /// The 1-based line number of its first `RUN:` line.
    pub line: usize,
    /// The command text, continuations joined.
    pub command: String,
}

/// The directives of one test file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Directives {
    /// The commands to run, in order.
    pub run: Vec<RunLine>,
    /// `XFAIL:` items (comma-separated, trimmed); `*` means always.
    pub xfail: Vec<String>,
    /// `REQUIRES:` items: features that must all be available.
    pub requires: Vec<String>,
    /// `UNSUPPORTED:` items: features any of which disables the test.
    pub unsupported: Vec<String>,
}

/// A malformed directive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectiveError {
    /// The 1-based line it is on.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for DirectiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for DirectiveError {}

/// Does `text` contain a `RUN:` directive? (Used to skip files that are not tests.)
pub fn has_run_line(text: &str) -> bool {
    text.lines()
        .any(|line| find_keyword(line, "RUN:").is_some())
}

/// Parses all directives of a test file.
pub fn parse(text: &str) -> Result<Directives, DirectiveError> {
    let mut directives = Directives::default();
    let mut continuing: Option<usize> = None;
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        if let Some(rest) = find_keyword(line, "RUN:") {
            let rest = substitute_line_numbers(rest.trim_end(), number);
            let rest = rest.as_str();
            match continuing {
                Some(_) => {
                    if let Some(last) = directives.run.last_mut() {
                        last.command.push_str(rest);
                    }
                }
                None => directives.run.push(RunLine {
                    line: number,
                    command: rest.to_owned(),
                }),
            }
            continuing = None;
            if let Some(last) = directives.run.last_mut()
                && last.command.ends_with('\\')
            {
                last.command.pop();
                continuing = Some(last.line);
            }
            continue;
        }
        for (keyword, list) in [
            ("XFAIL:", &mut directives.xfail),
            ("REQUIRES:", &mut directives.requires),
            ("UNSUPPORTED:", &mut directives.unsupported),
        ] {
            if let Some(rest) = find_keyword(line, keyword) {
                list.extend(
                    rest.split(',')
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .map(str::to_owned),
                );
            }
        }
    }
    if let Some(first) = continuing {
        return Err(DirectiveError {
            line: first,
            message: "unterminated RUN line: the last RUN line ends with '\\'".to_owned(),
        });
    }
    directives.run.retain_mut(|run| {
        run.command = run.command.trim().to_owned();
        !run.command.is_empty()
    });
    Ok(directives)
}

/// Replaces `%(line)`, `%(line+N)` and `%(line-N)` by the line number `number`
/// (plus or minus `N`), as lit does on each physical RUN line.
fn substitute_line_numbers(text: &str, number: usize) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(pos) = rest.find("%(line") {
        out.push_str(&rest[..pos]);
        let after = &rest[pos + "%(line".len()..];
        match line_expression(after, number) {
            Some((value, used)) => {
                out.push_str(&value.to_string());
                rest = &after[used..];
            }
            None => {
                out.push_str("%(line");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Parses ` [+-] N)` or `)` after `%(line`: the value and the bytes used.
fn line_expression(after: &str, number: usize) -> Option<(i64, usize)> {
    let base = i64::try_from(number).ok()?;
    if after.starts_with(')') {
        return Some((base, 1));
    }
    let trimmed = after.trim_start_matches(' ');
    let sign = match trimmed.chars().next()? {
        '+' => 1,
        '-' => -1,
        _ => return None,
    };
    let digits_part = trimmed[1..].trim_start_matches(' ');
    let digits = digits_part.len()
        - digits_part
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .len();
    let offset: i64 = digits_part[..digits].parse().ok()?;
    let tail = digits_part[digits..].trim_start_matches(' ');
    tail.starts_with(')').then_some(())?;
    let used = after.len() - tail.len() + 1;
    Some((base.checked_add(sign * offset)?, used))
}

/// The text after the first whole-word occurrence of `keyword` in `line`.
fn find_keyword<'a>(line: &'a str, keyword: &str) -> Option<&'a str> {
    let mut from = 0;
    while let Some(pos) = line[from..].find(keyword) {
        let start = from + pos;
        let preceded_by_word = line[..start]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-');
        if !preceded_by_word {
            return Some(&line[start + keyword.len()..]);
        }
        from = start + keyword.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commands(text: &str) -> Vec<(usize, String)> {
        parse(text)
            .unwrap()
            .run
            .into_iter()
            .map(|r| (r.line, r.command))
            .collect()
    }

    #[test]
    fn collects_run_lines_after_any_comment_leader() {
        let text = "// RUN: acc-opt %s | FileCheck %s\n\
                    func.func @f()\n\
                    # RUN:   not acc-opt %s 2>&1   \n\
                    ;RUN: echo\n";
        assert_eq!(
            commands(text),
            [
                (1, "acc-opt %s | FileCheck %s".to_owned()),
                (3, "not acc-opt %s 2>&1".to_owned()),
                (4, "echo".to_owned()),
            ]
        );
    }

    #[test]
    fn ignores_keywords_inside_words() {
        assert!(commands("// CHECK-RUN: x\n// XRUN: y\n// MY_RUN: z\n").is_empty());
        assert!(!has_run_line("// CHECK-RUN: x\n"));
        assert!(has_run_line("x\n//RUN: y\n"));
    }

    #[test]
    fn joins_continuation_lines() {
        let text =
            "// RUN: acc-opt %s \\\n// RUN:   --pass=x \\\n// RUN: | FileCheck %s\n// RUN: true\n";
        assert_eq!(
            commands(text),
            [
                (1, "acc-opt %s    --pass=x  | FileCheck %s".to_owned()),
                (4, "true".to_owned()),
            ]
        );
    }

    #[test]
    fn substitutes_line_numbers() {
        let text = "\n// RUN: echo %(line) %(line+1) %(line - 2) %(line \\\n// RUN: %(line)\n";
        assert_eq!(commands(text), [(2, "echo 2 3 0 %(line  3".to_owned())]);
        assert_eq!(
            substitute_line_numbers("%(line+x) %(line", 5),
            "%(line+x) %(line"
        );
    }

    #[test]
    fn rejects_unterminated_continuations() {
        let err = parse("// RUN: a \\\n").unwrap_err();
        assert_eq!(err.line, 1);
        // As in LLVM lit, lines without a directive do not end a continuation.
        assert_eq!(
            commands("// RUN: a \\\nfoo\n// RUN: b\n"),
            [(1, "a  b".to_owned())]
        );
    }

    #[test]
    fn drops_empty_run_lines() {
        assert!(commands("// RUN:\n// RUN:   \n").is_empty());
    }

    #[test]
    fn collects_feature_lists() {
        let d = parse("// XFAIL: *\n// REQUIRES: a, b\n// UNSUPPORTED: c\n").unwrap();
        assert_eq!(d.xfail, ["*"]);
        assert_eq!(d.requires, ["a", "b"]);
        assert_eq!(d.unsupported, ["c"]);
    }
}
