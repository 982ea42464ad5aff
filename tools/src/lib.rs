//! # acc-tools
//!
//! The command-line drivers behind acc's binaries. Each binary in `src/bin/` is a thin
//! wrapper around a function here, so the logic is testable as a library.

#![deny(missing_docs)]

// The printing macros of this crate, in place of std's: std's panic when standard
// error or output cannot be written (a closed pipe, `2>/dev/full`), and a panic here
// aborts the tool. A message that cannot be written is lost instead; the exit status
// still tells. Defined before the modules, so they see these (textual scope wins over
// the prelude's).
macro_rules! eprintln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($t)*);
    }};
}
macro_rules! eprint {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr(), $($t)*);
    }};
}
macro_rules! println {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($t)*);
    }};
}
macro_rules! print {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stdout(), $($t)*);
    }};
}

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
        output::remove_pending();
        std::process::abort();
    }));
}

/// Makes SIGINT, SIGTERM and SIGHUP remove the temporary outputs not yet renamed into
/// place ([`output::remove_pending`]) before the tool ends as the signal would have
/// ended it: Ctrl-C during `acc-opt -o F` leaves neither F nor a `.acc-out-*` file.
/// A signal ignored when the tool starts (SIGINT in a shell's background job, SIGHUP
/// under `nohup`) stays ignored. (SIGKILL cannot be caught: its temporary files stay.)
pub fn remove_outputs_on_signal() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let caught: Vec<i32> = [SIGINT, SIGTERM, SIGHUP]
        .into_iter()
        .filter(|s| !ignored(*s))
        .collect();
    let Ok(mut signals) = signal_hook::iterator::Signals::new(&caught) else {
        return;
    };
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            output::remove_pending();
            let _ = signal_hook::low_level::emulate_default_handler(signal);
            std::process::exit(128 + signal);
        }
    });
}

/// Whether `signal`'s disposition is to be ignored.
fn ignored(signal: i32) -> bool {
    // SAFETY: with a null new action, sigaction only writes the current one into
    // `old`, a plain struct it owns for the call.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(signal, std::ptr::null(), &mut old) == 0
            && old.sa_sigaction == libc::SIG_IGN
    }
}
