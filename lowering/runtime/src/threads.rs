//! How many threads the runtime's kernels use, and the pool they run on.
//!
//! One thread by default. [`set_threads`] (`acc_set_threads` from C, `acc-run
//! --threads N`) builds a pool of N threads; the matrix products, blocked
//! convolutions and blocked depthwise convolutions then split their outputs among
//! them ([`split`]), and so do the large loop nests of JIT-compiled code
//! ([`acc_parallel_for`]). Every output is summed in the same order on any number
//! of threads, so results do not depend on it. Generated code runs best as one of
//! the pool's threads ([`call_on_pool`]), or, for short runs, alone
//! ([`call_alone`]).

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
#[unsafe(no_mangle)]
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

/// From this many multiply-adds on, a kernel call is split among the pool's threads.
pub(crate) const PARALLEL_WORK: usize = 1 << 20;

/// From this many operations (an estimate: iterations times the ops of the body), a
/// generated loop nest is split among the pool's threads ([`acc_parallel_for`]).
pub const PARALLEL_LOOP_WORK: usize = 1 << 15;

/// Runs `part` on `0..count` cut into one contiguous range per thread of the pool
/// (the first on the calling thread when that is one of the pool's, else the
/// calling thread waits), or on the whole range on the calling thread when there is
/// no pool, one unit, fewer than [`PARALLEL_WORK`] multiply-adds in all, or the
/// call is inside [`call_alone`]. The parts must touch disjoint outputs.
pub(crate) fn split(count: usize, work: usize, part: &(dyn Fn(std::ops::Range<usize>) + Sync)) {
    split_from(count, work, PARALLEL_WORK, part);
}

/// [`split`] with `least` units of work as the threshold.
fn split_from(
    count: usize,
    work: usize,
    least: usize,
    part: &(dyn Fn(std::ops::Range<usize>) + Sync),
) {
    let worth_it = count >= 2 && work >= least && !ALONE.with(std::cell::Cell::get);
    let Some(pool) = worth_it.then(pool).flatten() else {
        part(0..count);
        return;
    };
    let per_part = count.div_ceil(pool.current_num_threads().min(count));
    let run = || {
        rayon::scope(|scope| {
            // The first part runs here, the others on the pool's other threads.
            for first in (per_part..count).step_by(per_part) {
                scope.spawn(move |_| part(first..(first + per_part).min(count)));
            }
            part(0..per_part);
        })
    };
    if pool.current_thread_index().is_some() {
        // Already on the pool (see `call_on_pool`).
        run();
    } else {
        pool.install(run);
    }
}

thread_local! {
    /// Set during [`call_alone`]: nothing is split among the threads.
    static ALONE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Calls `f(arg)` (a generated function's packed wrapper) on the calling thread with
/// all of its work there: for runs too short to repay waking the pool's threads.
///
/// # Safety
/// `f` must be safe to call with `arg`.
pub unsafe fn call_alone(f: unsafe extern "C" fn(*mut *mut u8), arg: *mut *mut u8) {
    let before = ALONE.with(|a| a.replace(true));
    // SAFETY: the caller's contract.
    unsafe { f(arg) };
    ALONE.with(|a| a.set(before));
}

/// Calls `f(arg)` (a generated function's packed wrapper) on one of the pool's
/// threads while the calling thread waits, or on the calling thread when there is
/// no pool. The generated code then is one of the pool's N threads: the work it
/// splits goes to itself and N - 1 others, and no other thread spins waiting for
/// work beside it while it computes alone (on a machine with N cores, such a thread
/// would take a core from it).
///
/// # Safety
/// `f` must be safe to call with `arg` from another thread.
pub unsafe fn call_on_pool(f: unsafe extern "C" fn(*mut *mut u8), arg: *mut *mut u8) {
    let arg = Unshared(arg);
    match pool() {
        // SAFETY: the caller's contract.
        Some(pool) => pool.install(move || unsafe { f(arg.get()) }),
        // SAFETY: as above.
        None => unsafe { f(arg.get()) },
    }
}

/// The body of a generated loop nest split among threads: called with the nest's
/// environment (the values its body reads, stored by the caller) and a range of
/// iterations of the dimension it is split on, `first..end`.
pub type LoopBody = unsafe extern "C" fn(env: *const u8, first: i64, end: i64);

/// Runs the iterations `0..count` of a generated `loop.parallel` nest: on the pool's
/// threads in one contiguous part each when there is a pool and about `work`
/// operations in all are worth it ([`PARALLEL_LOOP_WORK`]), else at once on the
/// calling thread. The iterations of a `loop.parallel` write disjoint elements (its
/// contract), so the results do not depend on the split.
///
/// # Safety
/// `body` must be safe to call with `env` and any subrange of `0..count`, from any
/// thread, at the same time as on other subranges.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn acc_parallel_for(body: LoopBody, env: *const u8, count: i64, work: i64) {
    let Ok(count) = usize::try_from(count) else {
        return;
    };
    let env = Unshared(env);
    let part = |r: std::ops::Range<usize>| {
        if !r.is_empty() {
            // SAFETY: the caller's contract.
            unsafe { body(env.get(), r.start as i64, r.end as i64) }
        }
    };
    split_from(
        count,
        usize::try_from(work).unwrap_or(0),
        PARALLEL_LOOP_WORK,
        &part,
    );
}

/// Raw pointers (or anything else) shared by the threads of one kernel call, which
/// read its inputs and write disjoint parts of its output.
pub(crate) struct Unshared<T>(pub T);

impl<T: Copy> Unshared<T> {
    /// The shared value (a closure calling this captures the whole wrapper, not
    /// its unshareable fields).
    pub(crate) fn get(&self) -> T {
        self.0
    }
}
// SAFETY: see the type's documentation; the call outlives its threads (a scope).
unsafe impl<T> Send for Unshared<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for Unshared<T> {}

/// Runs `f` with `threads` threads, holding the lock every test that changes the
/// thread count takes (the count is global to the process).
#[cfg(test)]
pub(crate) fn with_threads<R>(threads: usize, f: impl FnOnce() -> R) -> R {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    set_threads(threads).expect("threads");
    assert_eq!(pool().is_some(), threads > 1);
    let r = f();
    set_threads(1).expect("threads");
    r
}

/// Asserts that `run` (a kernel call's output) gives the same bits on one thread
/// and on three, and is not all zeros.
#[cfg(test)]
pub(crate) fn assert_same_bits_on_threads(run: impl Fn() -> Vec<f32>) {
    let one = with_threads(1, &run);
    let three = with_threads(3, &run);
    assert_eq!(one.len(), three.len());
    assert!(
        one.iter()
            .zip(&three)
            .all(|(p, q)| p.to_bits() == q.to_bits())
    );
    assert!(one.iter().any(|v| *v != 0.0));
}
