//! `FileCheck`: LLVM's pattern checker, as a command over `litcheck-filecheck`.
//!
//! `FileCheck CHECKFILE [options]` reads the input to verify from standard input
//! (or `--input-file F`) and checks it against the directives in `CHECKFILE`.
//! Options follow LLVM's spelling, with one or two dashes (see [`crate::args`]).
//!
//! Whitespace and where directives may start follow LLVM's rules, not
//! litcheck's (see [`crate::whitespace`] and [`crate::directive_start`]).
//!
//! Exit codes, as LLVM's FileCheck:
//! - 0: every check passed (or help was printed);
//! - 1: a check failed; the diagnostic is on stderr;
//! - 2: usage error, invalid check file (no directives, bad regex, ...), a file
//!   that could not be read, or empty input without `--allow-empty`.
//!
//! Invariant: no input (arguments, check file, verified text) makes this panic; a
//! panic inside the checking library is caught and reported as exit code 2.

use std::ffi::OsString;
use std::fmt;
use std::io::Read;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Arg, ArgAction, ColorChoice, Command, FromArgMatches, value_parser};
use litcheck_filecheck::litcheck::Symbol;
use litcheck_filecheck::litcheck::diagnostics::{
    FileName, Report, SourceFile, SourceLanguage, SourceManager,
};
use litcheck_filecheck::litcheck::reporting::{GraphicalReportHandler, GraphicalTheme};
use litcheck_filecheck::{Config, Dump, Options, Test, TestFailed};

use crate::args::normalize_llvm_args;
use crate::directive_start::separate_directives;
use crate::whitespace::canonicalize;

/// Exit code for a failed check.
const CHECK_FAILED: u8 = 1;
/// Exit code for a usage or I/O error.
const USAGE: u8 = 2;

/// Runs FileCheck with `args` (the words after the program name).
///
/// Meant for a process's `main`: it replaces the panic hook, so that a panic in
/// the checking library reads as FileCheck's internal error.
pub fn main_with_args(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        eprintln!("FileCheck: internal error in litcheck-filecheck, {info}");
    }));
    ExitCode::from(run(args))
}

/// Runs FileCheck with `args`, returning the process exit code.
pub fn run(args: impl IntoIterator<Item = OsString>) -> u8 {
    let matches = match command().try_get_matches_from(normalize_llvm_args(args)) {
        Ok(matches) => matches,
        Err(err) => {
            let _ = err.print();
            return if err.use_stderr() { USAGE } else { 0 };
        }
    };
    let options = match Options::from_arg_matches(&matches) {
        Ok(options) => options,
        Err(err) => {
            let _ = err.print();
            return USAGE;
        }
    };
    if options.dump_input == Dump::Help {
        println!("{}", Dump::HELP);
        return 0;
    }
    if let Err(message) = validate_prefixes(&options) {
        eprintln!("FileCheck: error: {message}");
        return USAGE;
    }
    let (Some(check_path), Some(input_path)) = (
        matches.get_one::<PathBuf>("check_file"),
        matches.get_one::<PathBuf>("input_file"),
    ) else {
        eprintln!(
            "FileCheck: error: missing CHECKFILE argument (usage: FileCheck CHECKFILE [options])"
        );
        return USAGE;
    };
    let Some(checks) = read(check_path, "check file") else {
        return USAGE;
    };
    let Some(input) = read(input_path, "input file") else {
        return USAGE;
    };
    if input.is_empty() && !options.allow_empty {
        eprintln!("FileCheck error: '{}' is empty.", input_path.display());
        return USAGE;
    }
    let prefixes: Vec<String> = options
        .check_prefixes()
        .iter()
        .chain(&options.comment_prefixes)
        .map(ToString::to_string)
        .collect();
    let checks = separate_directives(&checks, &prefixes);
    let (checks, mut input) = canonicalize(
        checks,
        input,
        options.strict_whitespace,
        options.match_full_lines,
    );
    if input.ends_with(|c: char| !c.is_ascii()) {
        // litcheck 0.5 panics ("invalid source span") on input ending in a
        // multi-byte character; a final newline changes no verdict.
        input.push('\n');
    }
    let color = options.color;
    let config = Config {
        options,
        ..Config::default()
    };
    let check_file = load(&config, check_path, checks);
    let input_file = load(&config, input_path, input);
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        Test::new(check_file, &config)
            .verify(input_file)
            .map(|_| ())
    }));
    match outcome {
        Ok(Ok(())) => 0,
        Ok(Err(report)) => {
            let failed_check = report.downcast_ref::<TestFailed>().is_some();
            eprintln!("{}", Rendered::new(&report, color));
            if failed_check { CHECK_FAILED } else { USAGE }
        }
        Err(_) => {
            eprintln!("FileCheck: internal error: the checker panicked");
            USAGE
        }
    }
}

/// The command line: a check file, `--input-file`, and litcheck's [`Options`].
fn command() -> Command {
    let cmd = Command::new("FileCheck")
        .no_binary_name(true)
        .disable_version_flag(true)
        .about("Checks the input (stdin by default) against the patterns in CHECKFILE")
        .arg(
            Arg::new("check_file")
                .value_name("CHECKFILE")
                .help("File holding the CHECK directives (required)")
                .value_parser(value_parser!(PathBuf)),
        )
        .arg(
            Arg::new("input_file")
                .long("input-file")
                .value_name("FILE")
                .default_value("-")
                .value_parser(value_parser!(PathBuf))
                .help("File to check; `-` (the default) is standard input"),
        )
        .arg(
            Arg::new("dump_input_context")
                .long("dump-input-context")
                .value_name("N")
                .action(ArgAction::Append)
                .hide(true)
                .help("Accepted for LLVM compatibility; ignored"),
        )
        .arg(
            Arg::new("allow_deprecated_dag_overlap")
                .long("allow-deprecated-dag-overlap")
                .action(ArgAction::SetTrue)
                .hide(true)
                .help("Accepted for LLVM compatibility; ignored"),
        );
    <Options as clap::Args>::augment_args(cmd)
}

/// Rejects prefixes used twice, among check and comment prefixes, as LLVM does.
fn validate_prefixes(options: &Options) -> Result<(), String> {
    options.validate().map_err(|err| err.to_string())?;
    let mut seen: Vec<Symbol> = Vec::new();
    for (kind, prefix) in options
        .check_prefixes()
        .iter()
        .map(|p| ("check", p))
        .chain(options.comment_prefixes.iter().map(|p| ("comment", p)))
    {
        if seen.contains(prefix) {
            return Err(format!(
                "supplied {kind} prefix must be unique among check and comment prefixes: '{prefix}'"
            ));
        }
        seen.push(*prefix);
    }
    Ok(())
}

/// Reads `path` (`-` is stdin) as text, or reports why it cannot.
fn read(path: &Path, what: &str) -> Option<String> {
    let mut bytes = Vec::new();
    let result = if path.as_os_str() == "-" {
        std::io::stdin().read_to_end(&mut bytes).map(|_| ())
    } else {
        std::fs::read(path).map(|b| bytes = b)
    };
    match result {
        Ok(()) => Some(String::from_utf8_lossy(&bytes).into_owned()),
        Err(err) => {
            eprintln!(
                "FileCheck: error: could not read {what} '{}': {err}",
                path.display()
            );
            None
        }
    }
}

/// Registers `text`, read from `path`, with the config's source manager.
fn load(config: &Config, path: &Path, text: String) -> Arc<SourceFile> {
    let name = if path.as_os_str() == "-" {
        FileName::Stdin
    } else {
        FileName::from(path.to_path_buf())
    };
    config
        .source_manager
        .load(SourceLanguage::Unknown, name, text)
}

/// A diagnostic rendered for a log: no hyperlink escapes, colour per `--color`.
struct Rendered<'a> {
    handler: GraphicalReportHandler,
    report: &'a Report,
}

impl<'a> Rendered<'a> {
    fn new(report: &'a Report, color: ColorChoice) -> Self {
        let theme = match color {
            ColorChoice::Never => GraphicalTheme::none(),
            ColorChoice::Always => GraphicalTheme::unicode(),
            ColorChoice::Auto => GraphicalTheme::default(),
        };
        let handler = GraphicalReportHandler::new_themed(theme).with_links(false);
        Rendered { handler, report }
    }
}

impl fmt::Display for Rendered<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.handler.render_report(f, self.report.as_ref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(args: &[&str]) -> u8 {
        run(args.iter().map(OsString::from))
    }

    #[test]
    fn the_command_definition_is_consistent() {
        command().debug_assert();
    }

    // Errors found by clap print outside the test's captured output, so they are
    // covered by `tests/filecheck.rs`, which runs the binary.
    #[test]
    fn unreadable_files_and_bad_prefixes_exit_with_2() {
        assert_eq!(
            code(&["/nonexistent/check/file", "--input-file=/dev/null"]),
            USAGE
        );
        assert_eq!(
            code(&["/dev/null", "--input-file=/nonexistent/input"]),
            USAGE
        );
        assert_eq!(code(&["/dev/null", "--check-prefixes=A,A"]), USAGE);
    }

    #[test]
    fn checks_a_file_against_an_input_file() {
        let dir = tempfile::tempdir().unwrap();
        let check = dir.path().join("check.txt");
        let input = dir.path().join("input.txt");
        std::fs::write(&check, "CHECK: hello\nCHECK-NEXT: world\n").unwrap();
        std::fs::write(&input, "hello\nworld\n").unwrap();
        let check = check.to_str().unwrap();
        let input_arg = format!("-input-file={}", input.display());
        assert_eq!(code(&[check, &input_arg]), 0);
        std::fs::write(&input, "hello\n\nworld\n").unwrap();
        assert_eq!(code(&[check, &input_arg, "--color=never"]), CHECK_FAILED);
    }
}
