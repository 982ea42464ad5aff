//! The REPL's commands: the table that `:help` prints and completion offers, and the
//! parser that turns a `:`-line into a [`Command`].
//!
//! A command may be abbreviated to any prefix naming it alone (`:q`, `:u`, `:sug`); an
//! exact name always wins (`:pass` over `:passes`).

/// A command's name, argument synopsis and one-line help.
#[derive(Clone, Copy, Debug)]
pub struct CommandInfo {
    /// Its name, without the colon.
    pub name: &'static str,
    /// Its arguments, for `:help` (empty when it takes none).
    pub args: &'static str,
    /// What it does.
    pub help: &'static str,
}

/// Every command, in `:help` order.
pub const COMMANDS: &[CommandInfo] = &[
    CommandInfo {
        name: "load",
        args: "FILE",
        help: "parse and verify FILE; it becomes the current module",
    },
    CommandInfo {
        name: "print",
        args: "",
        help: "print the current module (custom forms)",
    },
    CommandInfo {
        name: "generic",
        args: "",
        help: "print the current module in generic form",
    },
    CommandInfo {
        name: "pass",
        args: "LIST",
        help: "run passes as acc-opt --pass: canonicalize,cse{...}",
    },
    CommandInfo {
        name: "pipeline",
        args: "PIPELINE",
        help: "run a pipeline in MLIR's syntax: 'builtin.module(func.func(cse))'",
    },
    CommandInfo {
        name: "undo",
        args: "",
        help: "go back to the module before the last change",
    },
    CommandInfo {
        name: "redo",
        args: "",
        help: "reapply the change undone last",
    },
    CommandInfo {
        name: "diff",
        args: "",
        help: "unified diff of the change that made the current module",
    },
    CommandInfo {
        name: "verify",
        args: "",
        help: "run the verifier on the current module",
    },
    CommandInfo {
        name: "passes",
        args: "",
        help: "list the passes, their options and what they run on",
    },
    CommandInfo {
        name: "ops",
        args: "[DIALECT|PREFIX]",
        help: "list the registered ops (of one dialect, or whose name starts so)",
    },
    CommandInfo {
        name: "suggest",
        args: "",
        help: "list the passes that would change the current module",
    },
    CommandInfo {
        name: "help",
        args: "",
        help: "show this help",
    },
    CommandInfo {
        name: "quit",
        args: "",
        help: "leave (also Ctrl-D)",
    },
];

/// A parsed command; arguments borrow the input line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command<'a> {
    /// `:load FILE`.
    Load(&'a str),
    /// `:print` (`generic: false`) or `:generic`.
    Print {
        /// Print every op in generic form.
        generic: bool,
    },
    /// `:pass LIST`.
    Pass(&'a str),
    /// `:pipeline PIPELINE`.
    Pipeline(&'a str),
    /// `:undo`.
    Undo,
    /// `:redo`.
    Redo,
    /// `:diff`.
    Diff,
    /// `:verify`.
    Verify,
    /// `:passes`.
    Passes,
    /// `:ops [FILTER]`.
    Ops(Option<&'a str>),
    /// `:suggest`.
    Suggest,
    /// `:help`.
    Help,
    /// `:quit`.
    Quit,
}

/// The command a name or abbreviation stands for.
pub fn lookup(name: &str) -> Result<&'static CommandInfo, String> {
    if let Some(c) = COMMANDS.iter().find(|c| c.name == name) {
        return Ok(c);
    }
    let matches: Vec<&CommandInfo> = COMMANDS
        .iter()
        .filter(|c| !name.is_empty() && c.name.starts_with(name))
        .collect();
    match matches.as_slice() {
        [one] => Ok(one),
        [] => Err(format!("unknown command ':{name}' (see :help)")),
        many => {
            let names: Vec<String> = many.iter().map(|c| format!(":{}", c.name)).collect();
            Err(format!("ambiguous command ':{name}': {}", names.join(", ")))
        }
    }
}

/// Removes one pair of matching quotes around `s`, if any.
fn unquote(s: &str) -> &str {
    for q in ['\'', '"'] {
        if let Some(inner) = s.strip_prefix(q).and_then(|r| r.strip_suffix(q)) {
            return inner;
        }
    }
    s
}

/// Parses a line starting with `:`.
pub fn parse(line: &str) -> Result<Command<'_>, String> {
    let line = line.trim();
    let body = line.strip_prefix(':').unwrap_or(line);
    let (name, rest) = match body.find(char::is_whitespace) {
        Some(i) => (&body[..i], body[i..].trim()),
        None => (body, ""),
    };
    let info = lookup(name)?;
    let needs = |what: &str| -> Result<&str, String> {
        if rest.is_empty() {
            Err(format!(":{} needs {what}", info.name))
        } else {
            Ok(unquote(rest))
        }
    };
    let command = match info.name {
        "load" => Command::Load(needs("a file name")?),
        "pass" => Command::Pass(needs("a pass list, such as canonicalize,cse")?),
        "pipeline" => Command::Pipeline(needs("a pipeline, such as 'builtin.module(cse)'")?),
        "ops" => Command::Ops((!rest.is_empty()).then_some(rest)),
        _ if !rest.is_empty() => return Err(format!(":{} takes no argument", info.name)),
        "print" => Command::Print { generic: false },
        "generic" => Command::Print { generic: true },
        "undo" => Command::Undo,
        "redo" => Command::Redo,
        "diff" => Command::Diff,
        "verify" => Command::Verify,
        "passes" => Command::Passes,
        "suggest" => Command::Suggest,
        "help" => Command::Help,
        _ => Command::Quit,
    };
    Ok(command)
}

/// The `:help` text.
pub fn help() -> String {
    let mut out = String::from("commands (any unambiguous prefix works, e.g. :q):\n");
    for c in COMMANDS {
        let synopsis = if c.args.is_empty() {
            format!(":{}", c.name)
        } else {
            format!(":{} {}", c.name, c.args)
        };
        out.push_str(&format!("  {synopsis:<28} {}\n", c.help));
    }
    out.push_str(
        "anything else is IR: it replaces the current module (input goes on while brackets \
         are open)\n",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_commands_and_arguments() {
        assert_eq!(parse(":load  a.mlir "), Ok(Command::Load("a.mlir")));
        assert_eq!(parse(":print"), Ok(Command::Print { generic: false }));
        assert_eq!(parse(":generic"), Ok(Command::Print { generic: true }));
        assert_eq!(
            parse(":pass canonicalize{max-iterations=3 test-convergence},cse"),
            Ok(Command::Pass(
                "canonicalize{max-iterations=3 test-convergence},cse"
            ))
        );
        assert_eq!(
            parse(":pipeline 'builtin.module(cse)'"),
            Ok(Command::Pipeline("builtin.module(cse)"))
        );
        assert_eq!(parse(":ops arith"), Ok(Command::Ops(Some("arith"))));
        assert_eq!(parse(":ops"), Ok(Command::Ops(None)));
    }

    #[test]
    fn abbreviations_must_be_unambiguous() {
        assert_eq!(parse(":q"), Ok(Command::Quit));
        assert_eq!(parse(":u"), Ok(Command::Undo));
        assert_eq!(parse(":pass cse"), Ok(Command::Pass("cse")));
        assert_eq!(parse(":passes"), Ok(Command::Passes));
        assert!(parse(":p").unwrap_err().contains("ambiguous"));
        assert!(parse(":bogus").unwrap_err().contains("unknown command"));
    }

    #[test]
    fn argument_mistakes_are_errors() {
        assert!(parse(":load").unwrap_err().contains("needs a file name"));
        assert!(parse(":undo 3").unwrap_err().contains("takes no argument"));
    }
}
