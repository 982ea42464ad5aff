//! A request to stop the running work (Ctrl-C in `acc-repl`): set by a signal handler,
//! checked where long work can stop cleanly — between passes, between the functions
//! of a nested pipeline, between rewrite iterations, between the interpreter's ops —
//! which then fail with [`MESSAGE`], leaving the caller's IR as it was before the
//! work (the REPL works on a copy).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock};

/// What interrupted work reports.
pub const MESSAGE: &str = "interrupted";

static FLAG: LazyLock<Arc<AtomicBool>> = LazyLock::new(|| Arc::new(AtomicBool::new(false)));

/// The flag a signal handler sets (`signal_hook::flag::register(SIGINT, flag())`).
pub fn flag() -> Arc<AtomicBool> {
    Arc::clone(&FLAG)
}

/// Whether a stop was requested.
pub fn requested() -> bool {
    FLAG.load(Ordering::Relaxed)
}

/// Forgets a request (before the next command starts).
pub fn clear() {
    FLAG.store(false, Ordering::Relaxed);
}

/// Requests a stop (what the signal handler does; also for tests).
pub fn request() {
    FLAG.store(true, Ordering::Relaxed);
}
