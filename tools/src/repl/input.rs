//! Where entries come from: a line editor on a terminal (prompts, completion, history),
//! or lines read from a pipe or script file (no prompts). Both end an IR entry only once
//! its brackets are closed ([`needs_more`]), so a script splits exactly as typing does.
//!
//! An entry is one command line, or IR spanning as many lines as its brackets need.

use std::io::BufRead;
use std::path::PathBuf;

use rustyline::Editor;
use rustyline::config::{CompletionType, Config};
use rustyline::error::ReadlineError;
use rustyline::history::FileHistory;

use super::helper::{ReplHelper, needs_more};

/// The prompt of the first line of an entry.
pub const PROMPT: &str = "acc> ";

/// What `--echo` prints before the further lines of an entry.
pub const CONTINUATION: &str = "...> ";

/// A source of entries.
pub trait Entries {
    /// The next entry; `None` at the end of input. The error is a message to print.
    fn next_entry(&mut self) -> Result<Option<String>, String>;
}

/// Entries from lines of text (standard input that is not a terminal, or a script).
pub struct Piped<R> {
    reader: R,
}

impl<R: BufRead> Piped<R> {
    /// Reads entries from `reader`.
    pub fn new(reader: R) -> Piped<R> {
        Piped { reader }
    }
}

impl<R: BufRead> Entries for Piped<R> {
    fn next_entry(&mut self) -> Result<Option<String>, String> {
        let mut entry = String::new();
        let mut line = Vec::new();
        loop {
            line.clear();
            let n = self
                .reader
                .read_until(b'\n', &mut line)
                .map_err(|e| format!("cannot read input: {e}"))?;
            if n == 0 {
                // End of input: an unfinished entry goes to the parser, which says why.
                return Ok((!entry.is_empty()).then_some(entry));
            }
            let text = String::from_utf8_lossy(&line);
            if entry.is_empty() && text.trim().is_empty() {
                continue;
            }
            entry.push_str(&text);
            if !needs_more(&entry) {
                let trimmed = entry.trim_end_matches(['\n', '\r']).len();
                entry.truncate(trimmed);
                return Ok(Some(entry));
            }
        }
    }
}

/// Entries typed at a terminal, with the history kept in a file.
pub struct Interactive {
    editor: Editor<ReplHelper, FileHistory>,
    history: Option<PathBuf>,
}

/// The history file: `$ACC_REPL_HISTORY`, else `.acc_repl_history` in `$HOME`, given
/// the values of those variables.
pub fn history_path(
    acc_repl_history: Option<std::ffi::OsString>,
    home: Option<std::ffi::OsString>,
) -> Option<PathBuf> {
    match (acc_repl_history, home) {
        (Some(p), _) if !p.is_empty() => Some(PathBuf::from(p)),
        (_, Some(h)) if !h.is_empty() => Some(PathBuf::from(h).join(".acc_repl_history")),
        _ => None,
    }
}

impl Interactive {
    /// A line editor with `helper`, its history loaded from `history` (a missing or
    /// unreadable file gives an empty history).
    pub fn new(helper: ReplHelper, history: Option<PathBuf>) -> Result<Interactive, String> {
        let config = Config::builder()
            .completion_type(CompletionType::List)
            .auto_add_history(false)
            .build();
        let mut editor = Editor::with_config(config).map_err(|e| e.to_string())?;
        editor.set_helper(Some(helper));
        if let Some(p) = &history {
            // A first session has no history file yet.
            let _ = editor.load_history(p);
        }
        Ok(Interactive { editor, history })
    }

    /// Writes the history file; the error is a warning to print (the session goes on
    /// without a saved history).
    pub fn save_history(&mut self) -> Result<(), String> {
        let Some(p) = &self.history else {
            return Ok(());
        };
        self.editor
            .save_history(p)
            .map_err(|e| format!("cannot save the history to '{}': {e}", p.display()))
    }
}

impl Entries for Interactive {
    fn next_entry(&mut self) -> Result<Option<String>, String> {
        loop {
            match self.editor.readline(PROMPT) {
                Ok(entry) => {
                    if !entry.trim().is_empty() {
                        let _ = self.editor.add_history_entry(entry.as_str());
                        // Saved as it grows: a session that ends abruptly keeps it.
                        if let Some(p) = &self.history {
                            let _ = self.editor.append_history(p);
                        }
                    }
                    return Ok(Some(entry));
                }
                // Ctrl-C drops the entry being typed, as in a shell.
                Err(ReadlineError::Interrupted) => continue,
                Err(ReadlineError::Eof) => return Ok(None),
                Err(e) => return Err(e.to_string()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(text: &str) -> Vec<String> {
        let mut p = Piped::new(text.as_bytes());
        let mut out = Vec::new();
        while let Some(e) = p.next_entry().expect("reads") {
            out.push(e);
        }
        out
    }

    #[test]
    fn ir_entries_span_lines_until_brackets_close() {
        let script = ":load a.mlir\n\nfunc.func @f() {\n  return\n}\n:print\n";
        assert_eq!(
            entries(script),
            vec![":load a.mlir", "func.func @f() {\n  return\n}", ":print"]
        );
    }

    #[test]
    fn commands_end_at_the_line_and_input_ends_unfinished_entries() {
        assert_eq!(entries(":pass cse{\n:print"), vec![":pass cse{", ":print"]);
        assert_eq!(entries("module {\n"), vec!["module {\n"]);
    }

    #[test]
    fn history_file_location() {
        let os = |s: &str| Some(std::ffi::OsString::from(s));
        assert_eq!(history_path(os("/h/x"), os("/home/u")), Some("/h/x".into()));
        assert_eq!(
            history_path(None, os("/home/u")),
            Some("/home/u/.acc_repl_history".into())
        );
        assert_eq!(history_path(os(""), None), None);
    }
}
