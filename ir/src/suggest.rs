//! "Did you mean": the known word closest to a misspelt one, for the messages about
//! unknown options, passes and names.

/// The candidate closest to `word` by edit distance, when it is close enough to be a
/// likely misspelling (at most a quarter of the word's length, and at least 2, edits
/// away; ties go to the first candidate).
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (word.chars().count() / 4).max(2);
    candidates
        .into_iter()
        .filter(|c| *c != word)
        .map(|c| (strsim::damerau_levenshtein(word, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// `"; did you mean 'X'?"` for the closest candidate, or nothing: to append to a
/// message about an unknown `word`.
pub fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    closest(word, candidates)
        .map(|c| format!("; did you mean '{c}'?"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_a_near_word_and_nothing_for_a_far_one() {
        let passes = ["canonicalize", "cse", "dce", "inline"];
        assert_eq!(closest("canonicalise", passes), Some("canonicalize"));
        assert_eq!(closest("csee", passes), Some("cse"));
        assert_eq!(closest("vectorize", passes), None);
        assert_eq!(
            did_you_mean("--prnt-generic", ["--print-generic", "--help"]),
            "; did you mean '--print-generic'?"
        );
        assert_eq!(did_you_mean("zzzzzzzz", ["--help"]), "");
    }
}
