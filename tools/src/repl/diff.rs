//! Differences between two printings of a module: the unified diff `:diff` shows and
//! the line counts that `:pass` and `:suggest` report.

use similar::{ChangeTag, TextDiff};

/// Lines removed and added.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LineCounts {
    /// Lines only in the old text.
    pub removed: usize,
    /// Lines only in the new text.
    pub added: usize,
}

impl std::fmt::Display for LineCounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "-{} +{} lines", self.removed, self.added)
    }
}

/// Counts the lines removed and added from `old` to `new`.
pub fn line_counts(old: &str, new: &str) -> LineCounts {
    let mut counts = LineCounts::default();
    for change in TextDiff::from_lines(old, new).iter_all_changes() {
        match change.tag() {
            ChangeTag::Delete => counts.removed += 1,
            ChangeTag::Insert => counts.added += 1,
            ChangeTag::Equal => {}
        }
    }
    counts
}

/// A unified diff (3 lines of context) from `old` to `new`, with `---`/`+++` headers
/// naming them; empty when the texts are equal.
pub fn unified(old: &str, new: &str, old_name: &str, new_name: &str) -> String {
    if old == new {
        return String::new();
    }
    TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(old_name, new_name)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diffs_lines() {
        let old = "a\nb\nc\n";
        let new = "a\nc\nd\n";
        assert_eq!(
            line_counts(old, new),
            LineCounts {
                removed: 1,
                added: 1
            }
        );
        let d = unified(old, new, "before", "after");
        assert!(d.starts_with("--- before\n+++ after\n@@ "), "{d}");
        assert!(d.contains("\n-b\n") && d.contains("\n+d\n"), "{d}");
        assert_eq!(unified(old, old, "x", "y"), "");
    }
}
