//! How many threads the runtime's kernels use, and the pool they run on.
//!
//! One thread by default. [`set_threads`] (`acc_set_threads` from C, `acc-run
//! --threads N`) builds a pool of N threads; the matrix products then split their
//! column tiles among them. Every element of C is summed in the same order on any
//! number of threads, so results do not depend on it.

use std::sync::{Arc, RwLock};

static POOL: RwLock<Option<Arc<rayon::ThreadPool>>> = RwLock::new(None);

/// Uses `n` threads from now on (1 or 0: the caller's thread only). An error when
/// the threads cannot be started.
pub fn set_threads(n: usize) -> Result<(), String> {
    let pool = if n > 1 {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .thread_name(|i| format!("acc-runtime-{i}"))
            .build()
            .map_err(|e| format!("cannot start {n} threads: {e}"))?;
        Some(Arc::new(pool))
    } else {
        None
    };
    *POOL.write().unwrap_or_else(|e| e.into_inner()) = pool;
    Ok(())
}

/// The C entry point of [`set_threads`]: 0 on success, -1 when the threads cannot
/// be started (the previous setting stays).
pub extern "C" fn acc_set_threads(n: i64) -> i32 {
    match set_threads(n.max(0) as usize) {
        Ok(()) => 0,
        Err(_) => -1,
    }
}

/// The pool, when more than one thread is to be used.
pub(crate) fn pool() -> Option<Arc<rayon::ThreadPool>> {
    POOL.read().unwrap_or_else(|e| e.into_inner()).clone()
}
