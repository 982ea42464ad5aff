//! What tab completion offers, as a pure function of the line and the cursor: command
//! names after `:`, pass names in `:pass` and `:pipeline` lists (op names too, as
//! pipeline anchors), dialects and op names after `:ops`, op names in IR, and file
//! names after `:load` (left to rustyline's file-name completer).

use super::command::{COMMANDS, lookup};

/// The words completion draws from.
#[derive(Clone, Debug, Default)]
pub struct Vocabulary {
    /// Pass names.
    pub passes: Vec<String>,
    /// Registered op names, sorted.
    pub ops: Vec<String>,
    /// Dialects of the registered ops, sorted.
    pub dialects: Vec<String>,
}

impl Vocabulary {
    /// The vocabulary of a context and a pass registry.
    pub fn new(ctx: &acc_ir::Context, passes: &acc_pass::PassRegistry) -> Vocabulary {
        let mut ops: Vec<String> = ctx.registered_ops().map(|d| d.name.clone()).collect();
        ops.sort();
        let mut dialects: Vec<String> = ctx
            .registered_ops()
            .map(|d| d.dialect().to_string())
            .collect();
        dialects.sort();
        dialects.dedup();
        let mut pass_names: Vec<String> = passes
            .iter()
            .map(|p| p.name.to_string())
            .chain(passes.pipelines().map(|p| p.name.to_string()))
            .collect();
        pass_names.sort();
        Vocabulary {
            passes: pass_names,
            ops,
            dialects,
        }
    }
}

/// What to offer at the cursor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Completion {
    /// Replace the text from byte `start` to the cursor with one of `candidates`.
    Words {
        /// Where the word being completed starts.
        start: usize,
        /// The words that can replace it, sorted.
        candidates: Vec<String>,
    },
    /// Complete a file name (`:load`).
    Path,
    /// Nothing to offer.
    Nothing,
}

/// Candidates from `words` that start with `prefix`.
fn matching<'a>(words: impl IntoIterator<Item = &'a String>, prefix: &str) -> Vec<String> {
    let mut out: Vec<String> = words
        .into_iter()
        .filter(|w| w.starts_with(prefix))
        .cloned()
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Where the word ending at `pos` starts: after the last byte for which `breaks` holds.
fn word_start(line: &str, pos: usize, breaks: impl Fn(char) -> bool) -> usize {
    line[..pos]
        .char_indices()
        .rev()
        .find(|&(_, c)| breaks(c))
        .map_or(0, |(i, c)| i + c.len_utf8())
}

/// What to offer in `line` with the cursor at byte `pos`.
pub fn complete(vocab: &Vocabulary, line: &str, pos: usize) -> Completion {
    let pos = pos.min(line.len());
    if !line.is_char_boundary(pos) {
        return Completion::Nothing;
    }
    let lead = line.len() - line.trim_start().len();
    if line[lead..].starts_with(':') {
        complete_command(vocab, line, lead, pos)
    } else {
        complete_ir(vocab, line, pos)
    }
}

fn complete_command(vocab: &Vocabulary, line: &str, colon: usize, pos: usize) -> Completion {
    let name_end = line[colon..]
        .find(char::is_whitespace)
        .map_or(line.len(), |i| colon + i);
    if pos <= name_end {
        let typed = &line[colon + 1..pos];
        let names: Vec<String> = COMMANDS.iter().map(|c| format!(":{}", c.name)).collect();
        return Completion::Words {
            start: colon,
            candidates: matching(&names, &format!(":{typed}")),
        };
    }
    let Ok(info) = lookup(&line[colon + 1..name_end]) else {
        return Completion::Nothing;
    };
    let args = &line[name_end..pos];
    match info.name {
        "load" => Completion::Path,
        "pass" | "pipeline" => {
            // No completion inside a pass's `{options}`.
            let depth = args.chars().fold(0i32, |d, c| match c {
                '{' => d + 1,
                '}' => d - 1,
                _ => d,
            });
            if depth > 0 {
                return Completion::Nothing;
            }
            let start = word_start(line, pos, |c| {
                c.is_whitespace() || matches!(c, ',' | '(' | '}' | '\'' | '"')
            });
            let typed = &line[start..pos];
            let mut words: Vec<&String> = vocab.passes.iter().collect();
            if info.name == "pipeline" {
                words.extend(&vocab.ops);
            }
            Completion::Words {
                start,
                candidates: matching(words, typed),
            }
        }
        "ops" => {
            let start = word_start(line, pos, char::is_whitespace);
            let typed = &line[start..pos];
            Completion::Words {
                start,
                candidates: matching(vocab.dialects.iter().chain(&vocab.ops), typed),
            }
        }
        _ => Completion::Nothing,
    }
}

/// Op names for the word at the cursor, in custom (`arith.addi`) or generic
/// (`"arith.addi"`) form; nothing for values, blocks, symbols, attributes and types.
fn complete_ir(vocab: &Vocabulary, line: &str, pos: usize) -> Completion {
    let is_word = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$');
    let start = word_start(line, pos, |c| !is_word(c));
    let typed = &line[start..pos];
    let sigil = line[..start].chars().next_back();
    if typed.is_empty()
        || typed.starts_with(|c: char| c.is_ascii_digit())
        || matches!(sigil, Some('%' | '^' | '@' | '#' | '!'))
    {
        return Completion::Nothing;
    }
    Completion::Words {
        start,
        candidates: matching(&vocab.ops, typed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocab() -> Vocabulary {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect();
        Vocabulary {
            passes: s(&["canonicalize", "cse", "dce", "inline"]),
            ops: s(&["arith.addf", "arith.addi", "arith.muli", "func.func"]),
            dialects: s(&["arith", "func"]),
        }
    }

    fn words(line: &str) -> (usize, Vec<String>) {
        match complete(&vocab(), line, line.len()) {
            Completion::Words { start, candidates } => (start, candidates),
            other => panic!("expected words for {line:?}, got {other:?}"),
        }
    }

    #[test]
    fn completes_command_names() {
        assert_eq!(words(":pa"), (0, vec![":pass".into(), ":passes".into()]));
        assert_eq!(words("  :su"), (2, vec![":suggest".into()]));
        assert_eq!(words(":").1.len(), COMMANDS.len());
    }

    #[test]
    fn completes_pass_names_in_lists_and_pipelines() {
        assert_eq!(
            words(":pass c"),
            (6, vec!["canonicalize".into(), "cse".into()])
        );
        assert_eq!(words(":pass canonicalize,d"), (19, vec!["dce".into()]));
        assert_eq!(
            words(":pass canonicalize{max-iterations=3},i"),
            (37, vec!["inline".into()])
        );
        assert_eq!(
            complete(&vocab(), ":pass canonicalize{max", 22),
            Completion::Nothing
        );
        assert_eq!(
            words(":pipeline 'builtin.module(fu"),
            (26, vec!["func.func".into()])
        );
        assert_eq!(words(":pipe 'func.func(cs"), (17, vec!["cse".into()]));
    }

    #[test]
    fn completes_dialects_and_ops() {
        assert_eq!(
            words(":ops ar"),
            (
                5,
                vec![
                    "arith".into(),
                    "arith.addf".into(),
                    "arith.addi".into(),
                    "arith.muli".into()
                ]
            )
        );
        assert_eq!(words(":ops arith.add").1, vec!["arith.addf", "arith.addi"]);
    }

    #[test]
    fn completes_op_names_in_ir() {
        assert_eq!(
            words("  %0 = arith.ad"),
            (7, vec!["arith.addf".into(), "arith.addi".into()])
        );
        assert_eq!(words("%0 = \"arith.mu"), (6, vec!["arith.muli".into()]));
        let multi = "func.func @f() {\n  %0 = arith.mu";
        assert_eq!(words(multi).1, vec!["arith.muli"]);
        // Values, symbols and empty words get nothing.
        assert_eq!(complete(&vocab(), "%ar", 3), Completion::Nothing);
        assert_eq!(complete(&vocab(), "@ar", 3), Completion::Nothing);
        assert_eq!(complete(&vocab(), "%0 = ", 5), Completion::Nothing);
    }

    #[test]
    fn load_completes_paths_and_other_commands_nothing() {
        assert_eq!(complete(&vocab(), ":load ex", 8), Completion::Path);
        assert_eq!(complete(&vocab(), ":undo ", 6), Completion::Nothing);
        assert_eq!(complete(&vocab(), ":bogus x", 8), Completion::Nothing);
    }
}
