//! `acc-repl`: an interactive session on one module at a time.
//!
//! Load a file (`:load`) or paste IR, print it (`:print`, `:generic`), run passes
//! (`:pass`, `:pipeline`), step back and forth (`:undo`, `:redo`), see what the last
//! change did (`:diff`), verify, list passes and ops, and ask which passes would change
//! the module (`:suggest`). The user guide is `docs/acc-repl.md`.
//!
//! The parts: [`session`] runs entries against the state, [`command`] reads `:` lines,
//! [`timeline`] keeps the modules for undo, [`apply`] runs passes on clones, [`diff`]
//! compares printings, [`listing`] lays out `:ops` and `:suggest`, [`brackets`] decides
//! when pasted IR is complete, [`input`] reads entries from a terminal or a pipe,
//! [`complete`] and [`helper`] serve the line editor.
//!
//! On a terminal entries are read with prompts, completion and a history file; from a
//! pipe or `--script FILE` they are read without prompts, and the exit status is 1 when
//! any entry failed, so a script can drive the REPL as a test.

pub mod apply;
pub mod brackets;
pub mod command;
pub mod complete;
pub mod diff;
pub mod helper;
pub mod input;
pub mod listing;
pub mod session;
pub mod timeline;

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use acc_pass::PassRegistry;

use input::{Entries, Interactive, Piped, history_path};
use session::{Reply, Session};

/// Parsed command line.
#[derive(Debug, Default, Clone)]
pub struct ReplOptions {
    /// A file to load first.
    pub input: Option<PathBuf>,
    /// Read entries from this file instead of standard input.
    pub script: Option<PathBuf>,
    /// Print each entry after a prompt before its output, as a transcript.
    pub echo: bool,
    /// Keep ops, types and attributes of unregistered dialects.
    pub allow_unregistered_dialect: bool,
    /// Dialect definition files to load (`--dialect FILE`, repeatable).
    pub dialects: Vec<PathBuf>,
    /// Target description files to load (`--target FILE`, repeatable).
    pub targets: Vec<PathBuf>,
}

/// Usage text.
pub const USAGE: &str = "\
usage: acc-repl [FILE] [options]

An interactive session on acc IR: load or paste IR, run passes, undo, diff, verify.
Type :help in the session for its commands.

options:
  --script FILE                  read entries from FILE, without prompts
  --echo                         print each entry after a prompt (a transcript)
  --allow-unregistered-dialect   keep unknown ops, types and attributes opaque
  --dialect FILE                 load dialects defined in FILE (repeatable)
  --target FILE                  lower for the target FILE declares (repeatable)
  -h, --help                     show this help

Standard input that is not a terminal is read like a script. Without a terminal, the
exit status is 1 when any entry failed. The history is kept in $ACC_REPL_HISTORY, or
else in $HOME/.acc_repl_history.
";

/// Parses arguments (without the program name). `Err("")` asks for the usage text.
pub fn parse_args(args: &[String]) -> Result<ReplOptions, String> {
    let mut o = ReplOptions::default();
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        i += 1;
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
            _ => (arg, None),
        };
        let mut value = || -> Result<PathBuf, String> {
            match inline.clone() {
                Some(v) => Ok(PathBuf::from(v)),
                None => {
                    let v = args
                        .get(i)
                        .ok_or(format!("option '{name}' needs a file name"))?;
                    i += 1;
                    Ok(PathBuf::from(v))
                }
            }
        };
        match name {
            "-h" | "--help" => return Err(String::new()),
            "--script" => o.script = Some(value()?),
            "--dialect" => o.dialects.push(value()?),
            "--target" => o.targets.push(value()?),
            "--echo" => o.echo = true,
            "--allow-unregistered-dialect" => o.allow_unregistered_dialect = true,
            _ if name.starts_with('-') => return Err(crate::cli::unknown_option(arg, USAGE)),
            _ if o.input.is_some() => return Err(format!("unexpected extra input '{arg}'")),
            _ => o.input = Some(PathBuf::from(arg)),
        }
    }
    Ok(o)
}

/// Runs `acc-repl` with `args` (without the program name).
pub fn main_with_args(args: &[String]) -> ExitCode {
    main_with_registry(args, crate::opt::registry())
}

/// Runs `acc-repl` with `args` and the passes of `passes` (for tools adding their own).
pub fn main_with_registry(args: &[String], passes: PassRegistry) -> ExitCode {
    let opts = match parse_args(args) {
        Ok(o) => o,
        Err(e) if e.is_empty() => {
            print!("{USAGE}\ncommon options:\n{}", crate::cli::COMMON_USAGE);
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("acc-repl: {e}\n(acc-repl --help lists the options)");
            return ExitCode::from(2);
        }
    };
    let mut ctx = acc_dialects::new_context();
    ctx.allow_unregistered = opts.allow_unregistered_dialect;
    let mut session = Session::new(ctx, passes);
    for d in &opts.dialects {
        if let Err(e) = session.load_dialect(d) {
            eprint!("{e}");
            return ExitCode::FAILURE;
        }
    }
    for t in &opts.targets {
        if let Err(e) = session.load_target(t) {
            eprint!("{e}");
            return ExitCode::FAILURE;
        }
    }
    let interactive = opts.script.is_none() && std::io::stdin().is_terminal();
    let mut failed = false;
    if let Some(p) = &opts.input {
        let entry = format!(":load {}", p.display());
        failed |= show(
            &session.execute(&entry),
            opts.echo.then_some(entry.as_str()),
        );
    }
    let ok = if let Some(script) = &opts.script {
        match std::fs::File::open(script) {
            Ok(f) => run(
                &mut session,
                &mut Piped::new(std::io::BufReader::new(f)),
                opts.echo,
            ),
            Err(e) => {
                eprintln!("acc-repl: cannot read '{}': {e}", script.display());
                return ExitCode::FAILURE;
            }
        }
    } else if interactive {
        return run_interactive(&mut session);
    } else {
        run(
            &mut session,
            &mut Piped::new(std::io::stdin().lock()),
            opts.echo,
        )
    };
    if ok && !failed {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Reads and runs entries until the input ends or `:quit`; false when any failed.
pub fn run(session: &mut Session, entries: &mut dyn Entries, echo: bool) -> bool {
    let mut failed = false;
    loop {
        let entry = match entries.next_entry() {
            Ok(Some(e)) => e,
            Ok(None) => return !failed,
            Err(e) => {
                eprintln!("acc-repl: {e}");
                return false;
            }
        };
        // A Ctrl-C typed between commands is not for the next one.
        acc_ir::interrupt::clear();
        let reply = session.execute(&entry);
        acc_ir::interrupt::clear();
        failed |= show(&reply, echo.then_some(entry.as_str()));
        if reply.quit {
            return !failed;
        }
    }
}

/// The terminal session: a banner, the line editor, the history saved as it grows, and
/// Ctrl-C stopping the running command.
fn run_interactive(session: &mut Session) -> ExitCode {
    let vocab = complete::Vocabulary::new(session.context(), session.passes());
    let history = history_path(
        std::env::var_os("ACC_REPL_HISTORY"),
        std::env::var_os("HOME"),
    );
    let mut editor = match Interactive::new(helper::ReplHelper::new(vocab), history) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("acc-repl: cannot start the line editor: {e}");
            return ExitCode::FAILURE;
        }
    };
    // Ctrl-C while a command runs stops it (at its next pass or interpreted op) and
    // comes back to the prompt; at the prompt the line editor reads it as a key.
    if let Err(e) =
        signal_hook::flag::register(signal_hook::consts::SIGINT, acc_ir::interrupt::flag())
    {
        eprintln!("acc-repl: warning: Ctrl-C will end the session: {e}");
    }
    println!(
        "acc-repl: :help lists the commands, :quit (or Ctrl-D) leaves; Ctrl-C stops a running command"
    );
    // At a terminal, failed entries were seen as they happened: leaving is a success.
    run(session, &mut editor, false);
    if let Err(e) = editor.save_history() {
        eprintln!("acc-repl: warning: {e}");
    }
    ExitCode::SUCCESS
}

/// Prints a reply (after the entry, when echoing); true when it failed.
fn show(reply: &Reply, echo: Option<&str>) -> bool {
    let mut out = std::io::stdout().lock();
    if let Some(entry) = echo {
        for (i, line) in entry.lines().enumerate() {
            let prompt = if i == 0 {
                input::PROMPT
            } else {
                input::CONTINUATION
            };
            let _ = writeln!(out, "{prompt}{line}");
        }
    }
    let _ = out.write_all(reply.out.as_bytes());
    // Standard output first, so that the two interleave in order on one terminal.
    let _ = out.flush();
    drop(out);
    if !reply.err.is_empty() {
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(reply.err.as_bytes());
        let _ = err.flush();
    }
    reply.failed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn parses_the_command_line() {
        let o = parse_args(&args(&["a.mlir", "--script", "s.acc", "--echo"])).unwrap();
        assert_eq!(o.input, Some("a.mlir".into()));
        assert_eq!(o.script, Some("s.acc".into()));
        assert!(o.echo && !o.allow_unregistered_dialect);
        let o = parse_args(&args(&["--dialect=d.acc", "--allow-unregistered-dialect"])).unwrap();
        assert_eq!(o.dialects, vec![PathBuf::from("d.acc")]);
        assert!(o.allow_unregistered_dialect);
        assert_eq!(parse_args(&args(&["-h"])).unwrap_err(), "");
        assert!(parse_args(&args(&["--bogus"])).is_err());
        assert!(parse_args(&args(&["--script"])).is_err());
        assert!(parse_args(&args(&["a", "b"])).is_err());
    }
}
