//! LLVM FileCheck's whitespace rules, applied before litcheck sees the text.
//!
//! litcheck 0.5 only turns tabs in patterns into spaces; LLVM FileCheck (unless
//! `--strict-whitespace`) collapses every run of spaces and tabs, in the check
//! file and in the input alike, into one space, and (unless both
//! `--strict-whitespace` and `--match-full-lines`) ignores whitespace at the end
//! of a pattern. Without this, `CHECK: a b` fails on `a  b`, and a stray trailing
//! space in a CHECK line fails every input.
//!
//! litcheck 0.5 also trims spaces at both ends of a `{{regex}}`, where LLVM keeps
//! them (`a{{ +}}b`); [`protect_regex_edge_spaces`] writes those spaces as `\x20`.
//!
//! Invariant: line breaks are never added, removed or moved, so line numbers in
//! diagnostics still point into the original files.

/// Collapses each run of spaces and tabs into one space.
pub fn collapse_horizontal(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_run = false;
    for c in text.chars() {
        let blank = c == ' ' || c == '\t';
        if !(blank && in_run) {
            out.push(if blank { ' ' } else { c });
        }
        in_run = blank;
    }
    out
}

/// Removes spaces and tabs at the end of every line.
pub fn trim_line_ends(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let (body, newline) = match line.strip_suffix('\n') {
            Some(body) => match body.strip_suffix('\r') {
                Some(body) => (body, "\r\n"),
                None => (body, "\n"),
            },
            None => (line, ""),
        };
        out.push_str(body.trim_end_matches([' ', '\t']));
        out.push_str(newline);
    }
    out
}

/// Rewrites spaces at either end of each `{{regex}}` (outside `[[...]]`) as
/// `\x20`, so that litcheck does not trim them. A space escaped with `\` is left.
pub fn protect_regex_edge_spaces(checks: &str) -> String {
    let mut out = String::with_capacity(checks.len());
    let mut rest = checks;
    loop {
        let (regex, var) = (rest.find("{{"), rest.find("[["));
        if let Some(v) = var.filter(|v| regex.is_none_or(|r| *v < r)) {
            // Copy a `[[...]]` block unchanged.
            let end = rest[v + 2..]
                .find("]]")
                .map_or(rest.len(), |e| v + 2 + e + 2);
            out.push_str(&rest[..end]);
            rest = &rest[end..];
            continue;
        }
        let Some(r) = regex else { break };
        let body_start = r + 2;
        out.push_str(&rest[..body_start]);
        rest = &rest[body_start..];
        let Some(len) = rest.find("}}") else { break };
        let body = &rest[..len];
        if body.contains('\n') {
            continue; // unterminated on its line: not a regex
        }
        out.push_str(&escape_edge_spaces(body));
        out.push_str("}}");
        rest = &rest[len + 2..];
    }
    out.push_str(rest);
    out
}

/// `body` with its leading and trailing (unescaped) spaces written as `\x20`.
fn escape_edge_spaces(body: &str) -> String {
    let inner = body.trim_start_matches(' ');
    let leading = body.len() - inner.len();
    let mut core = inner.trim_end_matches(' ');
    let mut trailing = inner.len() - core.len();
    let backslashes = core.len() - core.trim_end_matches('\\').len();
    if trailing > 0 && backslashes % 2 == 1 {
        // `\ ` escapes its space; keep that one as written.
        core = &inner[..core.len() + 1];
        trailing -= 1;
    }
    let mut out = "\\x20".repeat(leading);
    out.push_str(core);
    out.push_str(&"\\x20".repeat(trailing));
    out
}

/// The check file and input as LLVM FileCheck would match them.
pub fn canonicalize(
    checks: String,
    input: String,
    strict_whitespace: bool,
    match_full_lines: bool,
) -> (String, String) {
    let checks = if strict_whitespace && match_full_lines {
        checks
    } else {
        trim_line_ends(&checks)
    };
    if strict_whitespace {
        (protect_regex_edge_spaces(&checks), input)
    } else {
        let checks = collapse_horizontal(&checks);
        (
            protect_regex_edge_spaces(&checks),
            collapse_horizontal(&input),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collapses_runs_of_blanks() {
        assert_eq!(collapse_horizontal("a  \t b\t\tc\n  d"), "a b c\n d");
        assert_eq!(collapse_horizontal("é  ü"), "é ü");
    }

    #[test]
    fn trims_line_ends_keeping_line_breaks() {
        assert_eq!(trim_line_ends("a \nb\t\r\nc  "), "a\nb\r\nc");
        assert_eq!(trim_line_ends("\n \n"), "\n\n");
    }

    #[test]
    fn regex_edge_spaces_become_escapes() {
        assert_eq!(
            protect_regex_edge_spaces("a{{ +}}b {{x }}"),
            r"a{{\x20+}}b {{x\x20}}"
        );
        assert_eq!(
            protect_regex_edge_spaces("{{ }} {{a b}}"),
            r"{{\x20}} {{a b}}"
        );
        assert_eq!(protect_regex_edge_spaces(r"{{a\ }}"), r"{{a\ }}");
        assert_eq!(protect_regex_edge_spaces(r"{{a\\ }}"), r"{{a\\\x20}}");
        assert_eq!(
            protect_regex_edge_spaces("[[X: {{ }}]] {{"),
            "[[X: {{ }}]] {{"
        );
        assert_eq!(protect_regex_edge_spaces("{{ a\n}}"), "{{ a\n}}");
    }

    #[test]
    fn strict_modes_keep_what_llvm_keeps() {
        let c = || "CHECK: a  b \n".to_owned();
        let i = || "a  b \n".to_owned();
        assert_eq!(
            canonicalize(c(), i(), false, false),
            ("CHECK: a b\n".into(), "a b \n".into())
        );
        assert_eq!(
            canonicalize(c(), i(), true, false),
            ("CHECK: a  b\n".into(), i())
        );
        assert_eq!(canonicalize(c(), i(), true, true), (c(), i()));
    }
}
