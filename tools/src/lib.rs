//! # acc-tools
//!
//! The command-line drivers behind acc's binaries. Each binary in `src/bin/` is a thin
//! wrapper around a function here, so the logic is testable as a library.

#![deny(missing_docs)]

pub mod bench_ir;
mod check_semantics;
pub mod cli;
pub mod conformance;
pub mod docgen;
pub mod opt;
pub mod output;
pub mod registry;
pub use registry::registry;
pub mod repl;
pub mod run;
mod run_input;
mod target_file;
pub mod translate;

/// Makes any panic abort the process after printing its message, so that a panic is a
/// crash (which `not` in lit tests does not accept) rather than an ordinary failure.
pub fn abort_on_panic() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        default(info);
        std::process::abort();
    }));
}
