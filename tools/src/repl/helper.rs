//! The rustyline helper of an interactive session: tab completion from a
//! [`Vocabulary`], and multi-line input: Enter inserts a newline instead of ending the
//! entry while IR has open brackets (commands always end at Enter).

use std::borrow::Cow;

use rustyline::completion::{Completer, FilenameCompleter, Pair};
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{Context, Helper};

use super::brackets::{Balance, balance};
use super::complete::{Completion, Vocabulary, complete};

/// Completion and validation for the line editor.
pub struct ReplHelper {
    vocab: Vocabulary,
    files: FilenameCompleter,
}

impl ReplHelper {
    /// A helper completing from `vocab`.
    pub fn new(vocab: Vocabulary) -> ReplHelper {
        ReplHelper {
            vocab,
            files: FilenameCompleter::new(),
        }
    }
}

/// True when `entry` needs more lines: IR (not a command) with open brackets.
pub fn needs_more(entry: &str) -> bool {
    !entry.trim_start().starts_with(':') && balance(entry) == Balance::Open
}

impl Completer for ReplHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        match complete(&self.vocab, line, pos) {
            Completion::Words { start, candidates } => Ok((
                start,
                candidates
                    .into_iter()
                    .map(|c| Pair {
                        display: c.clone(),
                        replacement: c,
                    })
                    .collect(),
            )),
            Completion::Path => self.files.complete(line, pos, ctx),
            Completion::Nothing => Ok((pos, Vec::new())),
        }
    }
}

impl Validator for ReplHelper {
    fn validate(&self, ctx: &mut ValidationContext<'_>) -> rustyline::Result<ValidationResult> {
        Ok(if needs_more(ctx.input()) {
            ValidationResult::Incomplete
        } else {
            ValidationResult::Valid(None)
        })
    }
}

impl Hinter for ReplHelper {
    type Hint = String;
}

impl Highlighter for ReplHelper {
    fn highlight<'l>(&self, line: &'l str, _pos: usize) -> Cow<'l, str> {
        Cow::Borrowed(line)
    }
}

impl Helper for ReplHelper {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ir_with_open_brackets_needs_more_lines() {
        assert!(needs_more("func.func @f() {"));
        assert!(!needs_more("func.func @f() {\n  return\n}"));
        assert!(!needs_more(":pipeline 'builtin.module(cse"));
        assert!(!needs_more("}"));
    }

    #[test]
    fn completes_through_rustyline() {
        let vocab = Vocabulary {
            passes: vec!["canonicalize".into(), "cse".into()],
            ..Vocabulary::default()
        };
        let helper = ReplHelper::new(vocab);
        let history = rustyline::history::DefaultHistory::new();
        let ctx = Context::new(&history);
        let (start, pairs) = helper.complete(":pass cs", 8, &ctx).expect("completes");
        assert_eq!(start, 6);
        let words: Vec<&str> = pairs.iter().map(|p| p.replacement.as_str()).collect();
        assert_eq!(words, ["cse"]);

        // File names after :load.
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("input.mlir"), "").expect("write");
        let line = format!(":load {}/inp", dir.path().display());
        let (start, pairs) = helper.complete(&line, line.len(), &ctx).expect("completes");
        let words: Vec<String> = pairs.iter().map(|p| p.replacement.clone()).collect();
        assert_eq!(start, 6);
        assert_eq!(words, [format!("{}/input.mlir", dir.path().display())]);
    }
}
