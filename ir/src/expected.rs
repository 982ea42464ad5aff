//! `--verify-diagnostics`: checks the diagnostics of a run against the
//! `// expected-error {{...}}` comments of the input, as `mlir-opt` does.
//!
//! A comment `expected-<severity>[@<where>] {{<text>}}` expects a diagnostic of that
//! severity (`error`, `warning`, `note`, `remark`) whose message contains `<text>`, on
//! the comment's own line, or at `@+N` / `@-N` lines from it, `@above` / `@below` (the
//! nearest line in that direction that holds no expectation), or `@unknown` (a
//! diagnostic without a location). Every expectation must be met by a diagnostic and
//! every diagnostic (notes included) must meet an expectation.
//!
//! `expected-<severity>-re` takes a pattern instead of plain text: inside it, each
//! `{{regex}}` is a regular expression (the `regex` crate's syntax) and the rest is
//! literal, as in `expected-error-re {{must be the {{[a-z]+}} operation}}`; the message
//! must contain a match.

use crate::context::Context;
use crate::diag::{DiagLoc, Diagnostic, FileId, Severity, SourceMap};

/// One expectation parsed from the source.
#[derive(Clone, Debug)]
pub struct Expectation {
    /// Expected severity.
    pub severity: Severity,
    /// Expected 1-based line, `None` for `@unknown`.
    pub line: Option<u32>,
    /// Text the message must contain (the pattern as written, for `-re`).
    pub text: String,
    /// For `expected-<severity>-re`: the compiled pattern the message must match.
    pub regex: Option<regex::Regex>,
    /// Byte range of the comment (for reporting).
    pub span: std::ops::Range<usize>,
    matched: bool,
}

/// Parses the expectations in `text[start..end]` of `file`. Malformed expectation
/// comments are returned as errors.
pub fn parse_expectations(
    sources: &SourceMap,
    file: FileId,
    start: usize,
    end: usize,
) -> (Vec<Expectation>, Vec<Diagnostic>) {
    let text = sources.text(file);
    let mut out = Vec::new();
    let mut errors = Vec::new();
    let first_line = sources.line_col(file, start).line;
    let chunk = &text[start..end];
    let lines: Vec<(usize, &str)> = chunk
        .split_inclusive('\n')
        .scan(start, |off, l| {
            let o = *off;
            *off += l.len();
            Some((o, l))
        })
        .collect();
    let is_designator = |l: &str| l.contains("expected-");
    for (i, &(offset, line)) in lines.iter().enumerate() {
        let mut rest = line;
        let mut col = 0;
        while let Some(pos) = rest.find("expected-") {
            let abs = offset + col + pos;
            let after = &rest[pos + "expected-".len()..];
            let Some((severity, after)) = [
                (Severity::Error, "error"),
                (Severity::Warning, "warning"),
                (Severity::Note, "note"),
                (Severity::Remark, "remark"),
            ]
            .iter()
            .find_map(|(s, w)| after.strip_prefix(w).map(|a| (*s, a))) else {
                col += pos + 1;
                rest = &rest[pos + 1..];
                continue;
            };
            let (is_regex, after) = match after.strip_prefix("-re") {
                Some(a) => (true, a),
                None => (false, after),
            };
            let this_line = first_line + i as u32;
            let after = after.trim_start();
            let (target, after) = if let Some(d) = after.strip_prefix('@') {
                let end = d
                    .find(|c: char| c.is_whitespace() || c == '{')
                    .unwrap_or(d.len());
                let designator = &d[..end];
                let target = match designator {
                    "above" => (0..i)
                        .rev()
                        .find(|&j| !is_designator(lines[j].1))
                        .map(|j| Some(first_line + j as u32)),
                    "below" => (i + 1..lines.len())
                        .find(|&j| !is_designator(lines[j].1))
                        .map(|j| Some(first_line + j as u32)),
                    "unknown" => Some(None),
                    _ => designator
                        .strip_prefix('+')
                        .and_then(|n| n.parse::<u32>().ok())
                        .and_then(|n| this_line.checked_add(n))
                        .map(Some)
                        .or_else(|| {
                            designator
                                .strip_prefix('-')
                                .and_then(|n| n.parse::<u32>().ok())
                                .and_then(|n| this_line.checked_sub(n))
                                .map(Some)
                        }),
                };
                match target {
                    Some(t) => (t, d[end..].trim_start()),
                    None => {
                        errors.push(Diagnostic::error(
                            DiagLoc::Span(file, abs..abs + "expected-".len()),
                            format!("invalid line designator '@{designator}'"),
                        ));
                        break;
                    }
                }
            } else {
                (Some(this_line), after)
            };
            // Like mlir-opt, text that does not continue with `{{` is prose, not a directive.
            let Some(body) = after.strip_prefix("{{") else {
                col += pos + 1;
                rest = &line[col.min(line.len())..];
                continue;
            };
            let Some(close) = body.rfind("}}") else {
                errors.push(Diagnostic::error(
                    DiagLoc::Span(file, abs..abs + 9),
                    "expected '}}' to end the expected diagnostic",
                ));
                break;
            };
            let span = abs..offset + line.trim_end().len().max(abs - offset);
            let text = &body[..close];
            let regex = if is_regex {
                match pattern_regex(text) {
                    Ok(r) => Some(r),
                    Err(message) => {
                        errors.push(Diagnostic::error(DiagLoc::Span(file, span), message));
                        break;
                    }
                }
            } else {
                None
            };
            out.push(Expectation {
                severity,
                line: target,
                text: text.to_string(),
                regex,
                span,
                matched: false,
            });
            let consumed = line.len() - body[close..].len() + 2 - col;
            col += consumed.min(rest.len());
            rest = &line[col.min(line.len())..];
        }
    }
    (out, errors)
}

/// Compiles the pattern of an `expected-*-re` comment: `{{...}}` groups are regular
/// expressions, everything else is literal.
fn pattern_regex(pattern: &str) -> Result<regex::Regex, String> {
    let mut out = String::new();
    let mut rest = pattern;
    while let Some(open) = rest.find("{{") {
        out.push_str(&regex::escape(&rest[..open]));
        let after = &rest[open + 2..];
        let Some(close) = after.find("}}") else {
            return Err("found start of regex with no end '}}'".to_string());
        };
        let group = &after[..close];
        if let Err(e) = regex::Regex::new(group) {
            return Err(format!("invalid regex '{group}': {e}"));
        }
        out.push('(');
        out.push_str(group);
        out.push(')');
        rest = &after[close + 2..];
    }
    out.push_str(&regex::escape(rest));
    regex::Regex::new(&out).map_err(|e| format!("invalid regex: {e}"))
}

impl Expectation {
    /// True when `message` meets this expectation's text or pattern.
    fn matches(&self, message: &str) -> bool {
        match &self.regex {
            Some(r) => r.is_match(message),
            None => message.contains(&self.text),
        }
    }
}

/// Matches `diags` (and their notes) against `expected`; returns the mismatches as
/// errors: unexpected diagnostics, and expectations nothing produced.
pub fn check(
    ctx: &Context,
    sources: &SourceMap,
    file: FileId,
    diags: &[Diagnostic],
    mut expected: Vec<Expectation>,
) -> Vec<Diagnostic> {
    let mut problems = Vec::new();
    let file_name = sources.name(file).to_string();
    let mut all = Vec::new();
    for d in diags {
        all.push(d);
        all.extend(d.notes.iter());
    }
    for d in all {
        let pos = sources.resolve(ctx, &d.loc);
        let line = match &pos {
            Some(lc) if lc.file == file_name => Some(lc.line),
            Some(_) => None,
            None => None,
        };
        let found = expected.iter_mut().find(|e| {
            !e.matched && e.severity == d.severity && e.line == line && e.matches(&d.message)
        });
        match found {
            Some(e) => e.matched = true,
            None => {
                let mut u = Diagnostic::error(
                    d.loc.clone(),
                    format!("unexpected {}: {}", d.severity.word(), d.message),
                );
                if !matches!(d.loc, DiagLoc::Span(..)) && pos.is_none() {
                    u.loc = DiagLoc::Unknown;
                }
                problems.push(u);
            }
        }
    }
    for e in expected.into_iter().filter(|e| !e.matched) {
        problems.push(Diagnostic::error(
            DiagLoc::Span(file, e.span.clone()),
            format!(
                "expected {} \"{}\" was not produced",
                e.severity.word(),
                e.text
            ),
        ));
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_designators() {
        let mut sm = SourceMap::new();
        let text = "a\n// expected-error @+1 {{foo}}\nb\n// expected-note@-2 {{x {{y}} z}}\nc // expected-warning {{w}}\n// expected-remark @above {{r}}\n// expected-error@below {{bb}}\n// expected-error@unknown {{u}}\nd\n";
        let f = sm.add("t.mlir", text.to_string());
        let (e, errs) = parse_expectations(&sm, f, 0, text.len());
        assert!(errs.is_empty(), "{errs:?}");
        let got: Vec<(Severity, Option<u32>, &str)> = e
            .iter()
            .map(|e| (e.severity, e.line, e.text.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                (Severity::Error, Some(3), "foo"),
                (Severity::Note, Some(2), "x {{y}} z"),
                (Severity::Warning, Some(5), "w"),
                (Severity::Remark, Some(3), "r"),
                (Severity::Error, Some(9), "bb"),
                (Severity::Error, None, "u"),
            ]
        );
    }

    #[test]
    fn regex_expectations() {
        let mut sm = SourceMap::new();
        let text = "// expected-error-re @+1 {{must be the {{[a-z]+}} op (x)}}\nx // expected-note-re {{{{^a.c$}}}}\n// expected-remark-re@-1 {{{{[0-9]+}} items}}\n// expected-warning-re {{plain}}\n";
        let f = sm.add("t.mlir", text.to_string());
        let (e, errs) = parse_expectations(&sm, f, 0, text.len());
        assert!(errs.is_empty(), "{errs:?}");
        let sev: Vec<Severity> = e.iter().map(|e| e.severity).collect();
        assert_eq!(
            sev,
            [
                Severity::Error,
                Severity::Note,
                Severity::Remark,
                Severity::Warning
            ]
        );
        assert!(e.iter().all(|e| e.regex.is_some()));
        // Outside `{{...}}` the text is literal: `(x)` and `.` are not regex syntax.
        assert!(e[0].matches("'t.a' op must be the last op (x) here"));
        assert!(!e[0].matches("must be the Last op (x)"));
        assert!(!e[0].matches("must be the last op x"));
        // Inside them it is a regex, anchored here.
        assert!(e[1].matches("abc"));
        assert!(!e[1].matches("xabc"));
        assert!(e[2].matches("found 12 items"));
        assert!(!e[2].matches("found x items"));
        assert!(e[3].matches("a plain warning"));
    }

    #[test]
    fn bad_regex_is_an_error() {
        let mut sm = SourceMap::new();
        let text = "// expected-error-re {{a {{[z}} b}}\n// expected-error-re {{a {{b c}}\n";
        let f = sm.add("t.mlir", text.to_string());
        let (e, errs) = parse_expectations(&sm, f, 0, text.len());
        assert!(e.is_empty());
        assert_eq!(errs.len(), 2, "{errs:?}");
        assert!(errs[0].message.starts_with("invalid regex '[z'"));
        assert_eq!(errs[1].message, "found start of regex with no end '}}'");
    }

    #[test]
    fn malformed_expectation_is_an_error() {
        let mut sm = SourceMap::new();
        let text = "// expected-error @bogus {{x}}\n// expected-error {{unterminated\n// prose about expected-error/-note\n";
        let f = sm.add("t.mlir", text.to_string());
        let (e, errs) = parse_expectations(&sm, f, 0, text.len());
        assert_eq!(errs.len(), 2);
        assert!(e.is_empty());
    }
}
