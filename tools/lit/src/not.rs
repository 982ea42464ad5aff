//! `not`: inverts a command's exit status, as LLVM's `not`.
//!
//! - `not CMD ARGS...` exits 0 iff `CMD` exited with a non-zero code. A command
//!   killed by a signal (a crash, an abort) makes `not` exit 1: a crash is never
//!   the expected failure.
//! - `not --crash CMD ARGS...` exits 0 iff `CMD` was killed by a signal.
//!
//! Every other outcome, including a command that cannot be started, exits 1.
//! Note: a Rust panic exits with code 101, which is an ordinary non-zero exit,
//! so `not` accepts it; a tool that must not panic should abort on panic if its
//! tests are to catch that.

use std::ffi::OsString;
use std::process::{Command, ExitCode, ExitStatus};

/// How the child process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// It exited with this code.
    Exited(i32),
    /// It was killed by a signal (Unix) or ended without an exit code.
    Crashed,
}

impl From<ExitStatus> for Ending {
    fn from(status: ExitStatus) -> Self {
        match status.code() {
            Some(code) => Ending::Exited(code),
            None => Ending::Crashed,
        }
    }
}

/// Is `ending` what `not` (or `not --crash` when `crash`) expects?
pub fn is_expected(ending: Ending, crash: bool) -> bool {
    match ending {
        Ending::Exited(code) => !crash && code != 0,
        Ending::Crashed => crash,
    }
}

/// Runs `not` with `args` (the words after the program name).
pub fn main_with_args(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    ExitCode::from(run(args))
}

/// Runs `not` with `args`, returning the process exit code (0 or 1).
pub fn run(args: impl IntoIterator<Item = OsString>) -> u8 {
    let mut args = args.into_iter().peekable();
    let crash = args.next_if(|a| a == "--crash").is_some();
    let Some(program) = args.next() else {
        eprintln!("usage: not [--crash] COMMAND [ARGS...]");
        return 1;
    };
    let mut command = Command::new(&program);
    command.args(args);
    if crash {
        // Keep crash reporters from slowing down or cluttering an expected crash.
        command.env("RUST_BACKTRACE", "0");
    }
    match command.status() {
        Ok(status) => u8::from(!is_expected(status.into(), crash)),
        Err(err) => {
            eprintln!(
                "not: error: cannot run '{}': {err}",
                program.to_string_lossy()
            );
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(args: &[&str]) -> u8 {
        run(args.iter().map(OsString::from))
    }

    #[test]
    fn expectations() {
        assert!(is_expected(Ending::Exited(1), false));
        assert!(!is_expected(Ending::Exited(0), false));
        assert!(!is_expected(Ending::Crashed, false));
        assert!(is_expected(Ending::Crashed, true));
        assert!(!is_expected(Ending::Exited(1), true));
        assert!(!is_expected(Ending::Exited(0), true));
    }

    #[cfg(unix)]
    #[test]
    fn runs_commands() {
        assert_eq!(code(&["false"]), 0);
        assert_eq!(code(&["true"]), 1);
        assert_eq!(code(&["sh", "-c", "exit 3"]), 0);
        assert_eq!(code(&["sh", "-c", "kill -TERM $$"]), 1);
        assert_eq!(code(&["--crash", "sh", "-c", "kill -KILL $$"]), 0);
        assert_eq!(code(&["--crash", "false"]), 1);
        assert_eq!(code(&["/nonexistent/program"]), 1);
        assert_eq!(code(&[]), 1);
    }
}
