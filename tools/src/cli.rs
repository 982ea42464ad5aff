//! Command lines: the words of the small tools (`acc-run`, `acc-translate`):
//! `--flag=value` or `--flag value`, and bare words; the options every tool takes
//! (`--version`, `--diagnostics-format`); "did you mean" for unknown options.

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

/// The line `--version` prints: the tool and acc's version.
pub fn version_line(tool: &str) -> String {
    format!("{tool} (acc) {}", env!("CARGO_PKG_VERSION"))
}

/// What a tool's `main` starts with: the process's arguments (without the program
/// name) less the options every tool takes ([`common_options`]), or the exit code when
/// the run is over (`--version`, an invalid option, an argument that is not UTF-8).
pub fn tool_args(tool: &str) -> Result<Vec<String>, std::process::ExitCode> {
    common_options(tool, &args(tool)?)
}

/// The process's arguments (without the program name), or, when one is not UTF-8, an
/// error saying which (exit status 2).
pub fn args(tool: &str) -> Result<Vec<String>, std::process::ExitCode> {
    std::env::args_os()
        .skip(1)
        .map(|a| {
            a.into_string().map_err(|bad| {
                eprintln!("{tool}: the argument {bad:?} is not UTF-8");
                std::process::ExitCode::from(2)
            })
        })
        .collect()
}

/// What every tool accepts besides its own options, described for its usage text.
pub const COMMON_USAGE: &str = "\
  --diagnostics-format=FORMAT    'codespan' (default: the source line and a caret) or
                                 'gnu' (one 'file:line:col: severity: message' line each)
  --max-memory=SIZE              the most one value (a tensor, a buffer, a constant a
                                 pass expands) may take, as 512M or 8G; a bigger one is
                                 an error at its op (default: a quarter of the memory
                                 the process may use)
  --version                      print the version and exit
";

/// Takes the options every tool accepts out of `args`: `--version` (the version is
/// printed: `Err(success)`), `--diagnostics-format=codespan|gnu` and
/// `--max-memory=SIZE` (applied to the process); an invalid value is reported
/// (`Err(2)`). The rest is returned in order.
pub fn common_options(tool: &str, args: &[String]) -> Result<Vec<String>, std::process::ExitCode> {
    let mut rest = Vec::with_capacity(args.len());
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        // `-version` is `--version`, as in LLVM's tools.
        let long = format!("--{}", arg.trim_start_matches('-'));
        let (flag, inline) = match long.split_once('=') {
            Some((f, v)) => (f, Some(v.to_string())),
            None => (long.as_str(), None),
        };
        match flag {
            _ if !arg.starts_with('-') => rest.push(arg.clone()),
            "--version" => {
                println!("{}", version_line(tool));
                return Err(std::process::ExitCode::SUCCESS);
            }
            "--diagnostics-format" => {
                let value = inline.or_else(|| it.next().cloned()).unwrap_or_default();
                match acc_ir::DiagnosticsFormat::from_name(&value) {
                    Some(format) => format.set(),
                    None => {
                        eprintln!(
                            "{tool}: invalid --diagnostics-format '{value}': expected 'codespan' or 'gnu'"
                        );
                        return Err(std::process::ExitCode::from(2));
                    }
                }
            }
            "--max-memory" => {
                let value = inline.or_else(|| it.next().cloned()).unwrap_or_default();
                match acc_ir::budget::parse_size(&value) {
                    Ok(bytes) => acc_ir::budget::set_max_bytes(bytes),
                    Err(e) => {
                        eprintln!("{tool}: --max-memory: {e}");
                        return Err(std::process::ExitCode::from(2));
                    }
                }
            }
            _ => rest.push(arg.clone()),
        }
    }
    Ok(rest)
}

/// The options a usage text names (`--flag` and `-o` words), for "did you mean".
pub fn usage_flags(usage: &str) -> Vec<&str> {
    let mut flags: Vec<&str> = usage
        .split(|c: char| {
            c.is_whitespace() || matches!(c, '[' | ']' | '=' | ',' | '(' | ')' | '|' | '\'')
        })
        .filter(|w| {
            w.starts_with("--")
                && w.len() > 2
                && w[2..]
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-')
        })
        .collect();
    flags.extend(["--version", "--diagnostics-format", "--max-memory"]);
    flags.sort_unstable();
    flags.dedup();
    flags
}

/// `unknown option 'X'`, with the closest option the usage text names.
pub fn unknown_option(given: &str, usage: &str) -> String {
    let flag = given.split_once('=').map_or(given, |(f, _)| f);
    format!(
        "unknown option '{given}'{}",
        acc_ir::suggest::did_you_mean(flag, usage_flags(usage))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn common_options_are_taken_out_and_the_rest_kept() {
        let rest = common_options("t", &args(&["a.mlir", "-o", "x"]))
            .ok()
            .unwrap();
        assert_eq!(rest, args(&["a.mlir", "-o", "x"]));
        assert!(common_options("t", &args(&["--diagnostics-format=bogus"])).is_err());
        assert!(common_options("t", &args(&["-version"])).is_err());
    }

    #[test]
    fn unknown_options_name_the_closest_one() {
        let usage = "  --print-generic   print\n  --emit-c IN.mlir -o DIR\n";
        assert_eq!(
            unknown_option("--print-generc", usage),
            "unknown option '--print-generc'; did you mean '--print-generic'?"
        );
        assert_eq!(
            unknown_option("--emit-c=x", usage),
            "unknown option '--emit-c=x'"
        );
        assert_eq!(
            unknown_option("--zzzzzzzzzz", usage),
            "unknown option '--zzzzzzzzzz'"
        );
    }
}
