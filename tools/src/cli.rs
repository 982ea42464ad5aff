//! Command-line words for the small tools (`acc-run`, `acc-translate`): `--flag=value`
//! or `--flag value`, and bare words.

/// The words of a command line, read one at a time.
pub(crate) struct Words<'a> {
    it: std::slice::Iter<'a, String>,
}

impl<'a> Words<'a> {
    pub(crate) fn new(args: &'a [String]) -> Words<'a> {
        Words { it: args.iter() }
    }

    /// The next word, split as `--flag=value` into the flag and its inline value.
    pub(crate) fn next_word(&mut self) -> Option<(&'a str, Option<&'a str>)> {
        let w = self.it.next()?;
        Some(match w.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v)),
            _ => (w.as_str(), None),
        })
    }

    /// The value of `flag`: its inline value, else the next word.
    pub(crate) fn value(&mut self, flag: &str, inline: Option<&str>) -> Result<String, String> {
        match inline {
            Some(v) => Ok(v.to_string()),
            None => self
                .it
                .next()
                .cloned()
                .ok_or(format!("{flag} needs a value")),
        }
    }
}
