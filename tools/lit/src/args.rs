//! LLVM-style command-line spelling, rewritten for clap.
//!
//! LLVM tools accept long options with one dash (`-check-prefix=X`,
//! `-input-file F`); clap only accepts `--check-prefix`. [`normalize_llvm_args`]
//! turns every single-dash word longer than one letter into its double-dash form.
//!
//! Invariants:
//! - Single-letter short options keep their spelling: `-v`, `-vv` (a repeated
//!   flag), and `-D` with an attached value (`-DVAR=VAL`, `-D#N=3`).
//! - A lone `-` (standard input) and everything after `--` are left untouched.
//! - The word following an option that takes a separate value (for example
//!   `-implicit-check-not -warning`) is a value, never rewritten.

use std::ffi::OsString;

/// Long options whose value may be given as the following word.
const TAKES_VALUE: &[&str] = &[
    "check-prefix",
    "check-prefixes",
    "comment-prefix",
    "comment-prefixes",
    "implicit-check-not",
    "input-file",
    "dump-input",
    "dump-input-filter",
    "dump-input-context",
    "define",
];

/// Rewrites LLVM single-dash long options to clap's double-dash form.
///
/// Non-UTF-8 words are passed through unchanged.
pub fn normalize_llvm_args(args: impl IntoIterator<Item = OsString>) -> Vec<OsString> {
    let mut out = Vec::new();
    let mut value_next = false;
    let mut rest_verbatim = false;
    for arg in args {
        if rest_verbatim || value_next {
            value_next = false;
            out.push(arg);
            continue;
        }
        let Some(text) = arg.to_str() else {
            out.push(arg);
            continue;
        };
        if text == "--" {
            rest_verbatim = true;
            out.push(arg);
            continue;
        }
        if text == "-D" {
            value_next = true;
            out.push(arg);
            continue;
        }
        let long = if let Some(name) = text.strip_prefix("--") {
            Some(name.to_owned())
        } else if is_single_dash_long(text) {
            Some(text[1..].to_owned())
        } else {
            None
        };
        match long {
            Some(name) => {
                value_next = !name.contains('=') && TAKES_VALUE.contains(&name.as_str());
                out.push(OsString::from(format!("--{name}")));
            }
            None => out.push(arg),
        }
    }
    out
}

/// Is `text` a one-dash spelling of a long option (`-foo`, `-foo=bar`)?
fn is_single_dash_long(text: &str) -> bool {
    let Some(body) = text.strip_prefix('-') else {
        return false;
    };
    if body.starts_with('-') || body.starts_with('D') {
        return false;
    }
    let name = body.split('=').next().unwrap_or("");
    let all_v = !name.is_empty() && name.bytes().all(|b| b == b'v');
    name.len() > 1 && !all_v && name.starts_with(|c: char| c.is_ascii_alphabetic())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(args: &[&str]) -> Vec<String> {
        normalize_llvm_args(args.iter().map(OsString::from))
            .into_iter()
            .map(|a| a.into_string().unwrap())
            .collect()
    }

    #[test]
    fn single_dash_long_options_gain_a_dash() {
        assert_eq!(
            norm(&["-check-prefix=A", "-input-file", "f", "x.mlir"]),
            ["--check-prefix=A", "--input-file", "f", "x.mlir"]
        );
        assert_eq!(norm(&["--match-full-lines"]), ["--match-full-lines"]);
    }

    #[test]
    fn short_options_and_stdin_are_kept() {
        assert_eq!(
            norm(&["-v", "-vv", "-DX=1", "-D", "Y=2", "-"]),
            ["-v", "-vv", "-DX=1", "-D", "Y=2", "-"]
        );
    }

    #[test]
    fn option_values_and_words_after_double_dash_are_kept() {
        assert_eq!(
            norm(&["-implicit-check-not", "-warning", "--", "-foo"]),
            ["--implicit-check-not", "-warning", "--", "-foo"]
        );
        assert_eq!(
            norm(&["-implicit-check-not=x", "-allow-empty"]),
            ["--implicit-check-not=x", "--allow-empty"]
        );
    }
}
