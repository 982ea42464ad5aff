//! `acc-lit`: runs acc's `test/lit` suite under `cargo test`, without LLVM.
//!
//! The suite is written for LLVM's `lit`: each test file carries `RUN:` lines such
//! as `// RUN: acc-opt %s | FileCheck %s`. This crate provides
//! - [`run_lit_suite`]: a lit runner in which every test file is one
//!   `libtest-mimic` trial (so `cargo test -- name` filters, and tests run in
//!   parallel), named by its path relative to the suite root;
//! - [`filecheck`] and [`not`]: LLVM's `FileCheck` (over `litcheck-filecheck`) and
//!   `not`, also built as the binaries `acc-filecheck` and `acc-not`. Where
//!   litcheck 0.5 departs from LLVM, [`whitespace`] and [`directive_start`]
//!   rewrite the text first; the remaining known differences are listed in
//!   `tests/filecheck.rs`.
//!
//! The same suite runs under LLVM's own `lit` with `test/lit/lit.cfg.py`.
//!
//! Invariant: test files, check files and command lines are user input; nothing
//! here panics on them. Failures are reported as failed tests or exit codes.

#![deny(missing_docs)]

pub mod args;
pub mod directive_start;
pub mod directives;
pub mod discover;
pub mod filecheck;
pub mod not;
pub mod shell;
pub mod subst;
pub mod suite;
pub mod toolbin;
pub mod whitespace;

use std::process::ExitCode;
use std::sync::Arc;

use libtest_mimic::{Arguments, Failed, Trial};

pub use suite::{LitConfig, Outcome, Suite};
pub use toolbin::dispatch_multicall;

/// Runs a lit suite as a libtest-style test program; call it from `main` of a
/// `harness = false` test target and return its result.
///
/// The process acts as `FileCheck` and `not` for its RUN lines (it links those
/// names to itself), so before anything else it checks whether it was started
/// under one of those names and, if so, runs that tool instead.
///
/// The environment variables [`suite::LLVM_BIN_DIR_VAR`] (use LLVM's FileCheck
/// and not from that directory) and [`suite::TIMEOUT_VAR`] (seconds per RUN line)
/// adjust `config`. Temporary files are kept, and their place printed, when a
/// test fails.
pub fn run_lit_suite(config: LitConfig) -> ExitCode {
    if let Some(code) = dispatch_multicall() {
        return code;
    }
    let args = Arguments::from_args();
    let suite = match prepare(config) {
        Ok(suite) => Arc::new(suite),
        Err(message) => {
            eprintln!("acc-lit: error: {message}");
            return ExitCode::FAILURE;
        }
    };
    let trials = trials(&suite);
    let conclusion = libtest_mimic::run(&args, trials);
    if conclusion.has_failed()
        && let Ok(suite) = Arc::try_unwrap(suite)
    {
        let kept = suite.keep_temp_dir();
        eprintln!("acc-lit: temporary files (%t) kept in {}", kept.display());
    }
    conclusion.exit_code()
}

/// Applies the environment overrides and prepares the suite.
fn prepare(config: LitConfig) -> Result<Suite, String> {
    let config = config.with_env_overrides()?;
    let this = std::env::current_exe()
        .map_err(|err| format!("cannot locate the running executable: {err}"))?;
    Suite::prepare(&config, &this)
}

/// One trial per test; unsupported tests are marked ignored.
fn trials(suite: &Arc<Suite>) -> Vec<Trial> {
    suite
        .tests()
        .iter()
        .map(|test| {
            let unsupported = suite
                .directives(test)
                .ok()
                .and_then(|d| suite.unsupported_reason(&d));
            let suite = Arc::clone(suite);
            let file = test.clone();
            Trial::test(test.name.clone(), move || match suite.run_test(&file) {
                Outcome::Failed(message) => Err(Failed::from(message)),
                Outcome::UnexpectedPass => {
                    Err(Failed::from("XPASS: the test is marked XFAIL but passed"))
                }
                Outcome::Passed | Outcome::ExpectedFailure | Outcome::Unsupported(_) => Ok(()),
            })
            .with_ignored_flag(unsupported.is_some())
        })
        .collect()
}
