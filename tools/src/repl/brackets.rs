//! The bracket counter that decides when pasted IR is complete: input goes on while an
//! `(`, `[`, `{` or `<` is open.
//!
//! Brackets inside string literals (`"a{b"`, with `\"` escapes) and `//` comments do
//! not count, and neither does the `>` of `->` (function types, affine maps) or of `>=`
//! (integer sets). The same counter serves the interactive validator and piped input, so
//! both split entries the same way.

/// How the brackets of a text stand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Balance {
    /// Every bracket is closed by its partner.
    Balanced,
    /// Some brackets are still open, none closed wrongly: more input is needed.
    Open,
    /// A bracket closes one of another kind, or one that was never opened: more input
    /// cannot help, so the text is complete (the parser reports the mistake).
    Mismatched,
}

/// Counts the brackets of `text`.
pub fn balance(text: &str) -> Balance {
    let mut stack: Vec<char> = Vec::new();
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            match c {
                '\\' => {
                    chars.next();
                }
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '/' if chars.peek() == Some(&'/') => {
                // A comment runs to the end of the line.
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '-' if chars.peek() == Some(&'>') => {
                chars.next();
            }
            '>' if chars.peek() == Some(&'=') => {
                chars.next();
            }
            '(' | '[' | '{' | '<' => stack.push(c),
            ')' | ']' | '}' | '>' => {
                let opener = match c {
                    ')' => '(',
                    ']' => '[',
                    '}' => '{',
                    _ => '<',
                };
                if stack.pop() != Some(opener) {
                    return Balance::Mismatched;
                }
            }
            _ => {}
        }
    }
    if stack.is_empty() {
        Balance::Balanced
    } else {
        Balance::Open
    }
}

/// True when `text` is nothing but blank lines and `//` comments (script comments,
/// which are not IR to parse).
pub fn is_blank_or_comment(text: &str) -> bool {
    text.lines().all(|l| {
        let l = l.trim();
        l.is_empty() || l.starts_with("//")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_every_kind_of_bracket() {
        assert_eq!(balance(""), Balance::Balanced);
        assert_eq!(balance("func.func @f() {"), Balance::Open);
        assert_eq!(balance("func.func @f() {\n  return\n}"), Balance::Balanced);
        assert_eq!(balance("%0 = \"t.op\"() : () -> tensor<2x"), Balance::Open);
        assert_eq!(balance("[1, [2"), Balance::Open);
        assert_eq!(balance("(]"), Balance::Mismatched);
        assert_eq!(balance("}"), Balance::Mismatched);
    }

    #[test]
    fn arrows_and_comparisons_are_not_brackets() {
        assert_eq!(balance("func.func @f(%a: i32) -> i32 {"), Balance::Open);
        assert_eq!(
            balance("#m = affine_map<(d0) -> (d0 + 1)>"),
            Balance::Balanced
        );
        assert_eq!(
            balance("#s = affine_set<(d0) : (d0 - 10 >= 0)>"),
            Balance::Balanced
        );
    }

    #[test]
    fn strings_and_comments_are_skipped() {
        assert_eq!(
            balance("%0 = \"t.op\"() {s = \"{(\"} : () -> i32"),
            Balance::Balanced
        );
        assert_eq!(balance(r#"{s = "a\"{"}"#), Balance::Balanced);
        assert_eq!(balance("module { // }\n"), Balance::Open);
        assert_eq!(balance("module { // {\n}"), Balance::Balanced);
    }

    #[test]
    fn recognises_comment_only_text() {
        assert!(is_blank_or_comment("  // a note\n\n"));
        assert!(!is_blank_or_comment("// a note\nmodule {}"));
    }
}
