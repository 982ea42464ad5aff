//! How many threads the runtime's kernels use, and the team they run on.
//!
//! One thread by default. [`set_threads`] (`acc_set_threads` from C, `acc-run
//! --threads N`) starts a team of N - 1 helper threads; the matrix products,
//! blocked convolutions, pools and blocked depthwise convolutions then split their
//! outputs among the calling thread and the helpers ([`split`]), and so do the
//! large loop nests of JIT-compiled code ([`acc_parallel_for`]). Every output is
//! summed in the same order on any number of threads, so results do not depend on
//! it.
//!
//! The helpers busy-wait for work while a run is under way ([`call_on_pool`]) and
//! for a short while after each split, and sleep otherwise. A model's run is a
//! chain of short parallel steps (often tens of microseconds each) with serial
//! work between them; waking a sleeping thread for each step costs as much as the
//! step on a virtual machine, and a thread woken on the busy core runs after its
//! partner instead of beside it. onnxruntime's pool spins the same way.
//!
//! A split cuts its range into [`SLICES`] contiguous parts per thread; each thread
//! runs its own parts first, then any part no thread has claimed yet: a helper that
//! starts late (woken from sleep, or off its core on a busy virtual machine) leaves
//! its parts to the others instead of making them wait for it.
//!
//! Invariant: at most one split uses the team at a time (the `busy` flag); any
//! other split, and any split made inside a part, runs whole on its own thread.
//! A job is shared (`Arc`) with the helpers; the splitting thread returns only once
//! every part is claimed and finished, so the part function (on its stack) is
//! called only while it is alive: a helper that sees the job afterwards finds
//! nothing left to claim.

use std::cell::Cell;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, RwLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

static TEAM: RwLock<Option<Arc<Team>>> = RwLock::new(None);

/// Uses `n` threads from now on (1 or 0: the caller's thread only). An error when
/// the threads cannot be started.
pub fn set_threads(n: usize) -> Result<(), String> {
    let team = if n > 1 {
        Some(Arc::new(
            Team::start(n - 1).map_err(|e| format!("cannot start {n} threads: {e}"))?,
        ))
    } else {
        None
    };
    let old = std::mem::replace(&mut *TEAM.write().unwrap_or_else(|e| e.into_inner()), team);
    // The old team stops when its last split (holding a reference) ends.
    drop(old);
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

/// The team, when more than one thread is to be used.
fn team() -> Option<Arc<Team>> {
    if !sees_team() {
        return None;
    }
    TEAM.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// How many threads a split uses (1 without a team).
pub(crate) fn threads() -> usize {
    team().map_or(1, |team| team.helpers.len() + 1)
}

/// Whether this thread's splits may use the team: always, except in this crate's
/// unit tests, where only a thread inside [`with_threads`] (or [`enrolled`]) does,
/// so that a kernel test running beside a thread-count test keeps to its own
/// thread and leaves the team to the test that set it.
#[cfg(not(test))]
fn sees_team() -> bool {
    true
}

#[cfg(test)]
fn sees_team() -> bool {
    ENROLLED.with(Cell::get)
}

#[cfg(test)]
thread_local! {
    /// Set on a test thread inside [`with_threads`] or [`enrolled`].
    static ENROLLED: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with this thread's splits using the team set by [`with_threads`] (for
/// threads a thread-count test spawns).
#[cfg(test)]
pub(crate) fn enrolled<R>(f: impl FnOnce() -> R) -> R {
    let before = ENROLLED.with(|e| e.replace(true));
    let r = f();
    ENROLLED.with(|e| e.set(before));
    r
}

/// From this many multiply-adds on, a kernel call is split among the threads.
pub(crate) const PARALLEL_WORK: usize = 1 << 17;

/// From this many operations (an estimate: iterations times the ops of the body), a
/// generated loop nest is split among the threads ([`acc_parallel_for`]).
pub const PARALLEL_LOOP_WORK: usize = 1 << 13;

/// Runs `part` on `0..count` cut into contiguous parts, [`SLICES`] per thread when
/// there are enough indices (each thread runs its own, then any not yet taken; the
/// calling thread waits until all are done), or on the whole range on the calling
/// thread when there is no team, one unit, fewer than [`PARALLEL_WORK`]
/// multiply-adds in all, the team is busy with another split, or the call is
/// inside a part or inside [`call_alone`]. The parts must touch disjoint outputs.
pub(crate) fn split(count: usize, work: usize, part: &(dyn Fn(Range<usize>) + Sync)) {
    split_from(count, work, PARALLEL_WORK, part);
}

/// [`split`] with `least` units of work as the threshold.
pub(crate) fn split_from(
    count: usize,
    work: usize,
    least: usize,
    part: &(dyn Fn(Range<usize>) + Sync),
) {
    let worth_it = count >= 2 && work >= least && !SERIAL.with(Cell::get);
    match worth_it.then(team).flatten() {
        Some(team) => team.run(count, part),
        None => part(0..count),
    }
}

thread_local! {
    /// Set during [`call_alone`], on helpers, and while a thread runs its own part
    /// of a split: nothing more is split among the threads.
    static SERIAL: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with [`SERIAL`] set, restoring it afterwards.
fn serially<R>(f: impl FnOnce() -> R) -> R {
    let before = SERIAL.with(|s| s.replace(true));
    let r = f();
    SERIAL.with(|s| s.set(before));
    r
}

/// Calls `f(arg)` (a generated function's packed wrapper) on the calling thread with
/// all of its work there: for runs too short to repay the helpers.
///
/// # Safety
/// `f` must be safe to call with `arg`.
pub unsafe fn call_alone(f: unsafe extern "C" fn(*mut *mut u8), arg: *mut *mut u8) {
    // SAFETY: the caller's contract.
    serially(|| unsafe { f(arg) });
}

/// Calls `f(arg)` (a generated function's packed wrapper) on the calling thread,
/// the helpers busy-waiting for its splits until it returns, so each split starts
/// on all threads at once. With no team, just calls it.
///
/// # Safety
/// `f` must be safe to call with `arg`.
pub unsafe fn call_on_pool(f: unsafe extern "C" fn(*mut *mut u8), arg: *mut *mut u8) {
    let team = team();
    let _run = team.as_deref().map(Team::begin_run);
    // SAFETY: the caller's contract.
    unsafe { f(arg) };
}

/// The body of a generated loop nest split among threads: called with the nest's
/// environment (the values its body reads, stored by the caller) and a range of
/// iterations of the dimension it is split on, `first..end`.
pub type LoopBody = unsafe extern "C" fn(env: *const u8, first: i64, end: i64);

/// Runs the iterations `0..count` of a generated `loop.parallel` nest: on the
/// threads in contiguous parts ([`split`]) when there is a team and about `work`
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
    let part = |r: Range<usize>| {
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

/// How long helpers keep busy-waiting after a job when no run is under way.
const LINGER: Duration = Duration::from_micros(100);

/// The helper threads and what they share with the splitting thread.
struct Team {
    shared: Arc<Shared>,
    helpers: Vec<JoinHandle<()>>,
}

/// Parts per thread in a split: the share a thread that starts late can lose to
/// the others.
const SLICES: usize = 4;

/// One split's description, shared with the helpers.
struct Job {
    /// The splitting thread's part function: called only for a claimed part, and
    /// every claimed part finishes before the splitting thread returns.
    part: *const (dyn Fn(Range<usize>) + Sync + 'static),
    count: usize,
    /// Parts (at most 64) of `per_part` indices; thread t's own parts are
    /// `t * slices..(t + 1) * slices`.
    parts: usize,
    per_part: usize,
    slices: usize,
    /// Bit p set once part p is taken by a thread.
    claimed: AtomicU64,
    /// Parts run to their end (or panicked).
    finished: AtomicUsize,
    /// Set when a helper's part panicked.
    panicked: AtomicBool,
}

// SAFETY: `part` is a `Sync` function called only as the invariant above allows;
// the other fields are atomics or read-only.
unsafe impl Send for Job {}
// SAFETY: as above.
unsafe impl Sync for Job {}

impl Job {
    /// Runs thread `thread`'s own parts, then every part not yet claimed. A panic
    /// of a part is caught and recorded (`panicked`, before the part counts as
    /// finished); the first payload is returned.
    fn work(&self, thread: usize) -> Option<Box<dyn std::any::Any + Send>> {
        let own = thread * self.slices..((thread + 1) * self.slices).min(self.parts);
        let mut payload = None;
        for p in own.chain(0..self.parts) {
            let bit = 1u64 << p;
            if self.claimed.fetch_or(bit, Ordering::AcqRel) & bit != 0 {
                continue;
            }
            let range =
                (p * self.per_part).min(self.count)..((p + 1) * self.per_part).min(self.count);
            if !range.is_empty() {
                // SAFETY: part p is claimed and not finished, so the splitting
                // thread is still waiting in `Team::run`, and `part` alive.
                let part = unsafe { &*self.part };
                if let Err(e) =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| part(range)))
                {
                    self.panicked.store(true, Ordering::Relaxed);
                    payload.get_or_insert(e);
                }
            }
            self.finished.fetch_add(1, Ordering::Release);
        }
        payload
    }
}

/// The state the helpers watch.
struct Shared {
    /// Bumped for each job (a helper runs a job when it sees a new value).
    epoch: AtomicU64,
    /// The current job.
    job: Mutex<Option<Arc<Job>>>,
    /// Set (once) when the helpers are to exit.
    stop: AtomicBool,
    /// Runs under way ([`call_on_pool`]): while above 0, helpers do not sleep.
    runs: AtomicUsize,
    /// Held by the split using the team.
    busy: AtomicBool,
    /// Helpers asleep, and the lock and signal they sleep on.
    sleepers: AtomicUsize,
    lock: Mutex<()>,
    wake: Condvar,
}

impl Team {
    /// Starts `helpers` threads.
    fn start(helpers: usize) -> std::io::Result<Team> {
        let shared = Arc::new(Shared {
            epoch: AtomicU64::new(0),
            job: Mutex::new(None),
            stop: AtomicBool::new(false),
            runs: AtomicUsize::new(0),
            busy: AtomicBool::new(false),
            sleepers: AtomicUsize::new(0),
            lock: Mutex::new(()),
            wake: Condvar::new(),
        });
        let mut team = Team {
            shared: shared.clone(),
            helpers: Vec::with_capacity(helpers),
        };
        for index in 1..=helpers {
            let shared = shared.clone();
            let handle = std::thread::Builder::new()
                .name(format!("acc-runtime-{index}"))
                .spawn(move || shared.serve(index))?;
            // On an error, dropping `team` stops the helpers started so far.
            team.helpers.push(handle);
        }
        Ok(team)
    }

    /// Keeps the helpers awake until the returned guard drops.
    fn begin_run(&self) -> RunGuard<'_> {
        self.shared.runs.fetch_add(1, Ordering::SeqCst);
        self.shared.wake_sleepers();
        RunGuard(&self.shared)
    }

    /// Runs `part` over `0..count` split among the calling thread and the helpers
    /// (whole on the calling thread when another split holds the team).
    fn run(&self, count: usize, part: &(dyn Fn(Range<usize>) + Sync)) {
        let shared = &*self.shared;
        if shared
            .busy
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            return serially(|| part(0..count));
        }
        let threads = self.helpers.len() + 1;
        // SLICES parts per thread when there are enough indices, else one.
        let slices = if count >= threads * SLICES && threads * SLICES <= 64 {
            SLICES
        } else {
            1
        };
        let parts = count.min(threads * slices).min(64);
        // SAFETY (lifetime): the function is called only for claimed parts, and
        // this function returns only once every part is claimed and finished.
        let part: *const (dyn Fn(Range<usize>) + Sync + '_) = part;
        let part = unsafe {
            std::mem::transmute::<
                *const (dyn Fn(Range<usize>) + Sync + '_),
                *const (dyn Fn(Range<usize>) + Sync + 'static),
            >(part)
        };
        let job = Arc::new(Job {
            part,
            count,
            parts,
            per_part: count.div_ceil(parts),
            slices,
            claimed: AtomicU64::new(0),
            finished: AtomicUsize::new(0),
            panicked: AtomicBool::new(false),
        });
        *shared.job.lock().unwrap_or_else(|e| e.into_inner()) = Some(job.clone());
        shared.epoch.fetch_add(1, Ordering::SeqCst);
        shared.wake_sleepers();
        let mine = serially(|| job.work(0));
        wait_until(|| job.finished.load(Ordering::Acquire) == parts);
        *shared.job.lock().unwrap_or_else(|e| e.into_inner()) = None;
        shared.busy.store(false, Ordering::Release);
        if let Some(payload) = mine {
            std::panic::resume_unwind(payload);
        }
        assert!(
            !job.panicked.load(Ordering::Relaxed),
            "a part of a split kernel panicked on a helper thread"
        );
    }
}

impl Drop for Team {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        self.shared.wake_sleepers();
        for handle in self.helpers.drain(..) {
            let _ = handle.join();
        }
    }
}

/// Ends a run of [`Team::begin_run`].
struct RunGuard<'a>(&'a Shared);

impl Drop for RunGuard<'_> {
    fn drop(&mut self) {
        self.0.runs.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Shared {
    /// A helper's loop: runs the part `index` of each new job until told to stop.
    fn serve(&self, index: usize) {
        SERIAL.with(|s| s.set(true));
        let mut seen = 0;
        let mut last_job = Instant::now();
        loop {
            let epoch = self.epoch.load(Ordering::Acquire);
            if epoch != seen {
                seen = epoch;
                self.run_part(index);
                last_job = Instant::now();
                continue;
            }
            if self.stop.load(Ordering::Acquire) {
                return;
            }
            if self.runs.load(Ordering::Acquire) > 0 || last_job.elapsed() < LINGER {
                // Watch the epoch closely for a while before the next look at
                // the clock.
                for _ in 0..1024 {
                    if self.epoch.load(Ordering::Relaxed) != seen {
                        break;
                    }
                    std::hint::spin_loop();
                }
                continue;
            }
            self.sleep_unless_woken(seen);
            last_job = Instant::now();
        }
    }

    /// Runs this helper's parts of the current job, and any left unclaimed (none
    /// when the job is over).
    fn run_part(&self, index: usize) {
        // A new epoch is published after its job (SeqCst); a job already over
        // (replaced or gone) has every part claimed.
        let job = self.job.lock().unwrap_or_else(|e| e.into_inner()).clone();
        if let Some(job) = job {
            // A panic is recorded in the job for the splitting thread.
            let _ = job.work(index);
        }
    }

    /// Sleeps until a new job (an epoch other than `seen`), a run or a stop.
    fn sleep_unless_woken(&self, seen: u64) {
        let mut guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.sleepers.fetch_add(1, Ordering::SeqCst);
        while self.epoch.load(Ordering::SeqCst) == seen
            && self.runs.load(Ordering::SeqCst) == 0
            && !self.stop.load(Ordering::SeqCst)
        {
            guard = self.wake.wait(guard).unwrap_or_else(|e| e.into_inner());
        }
        self.sleepers.fetch_sub(1, Ordering::SeqCst);
    }

    /// Wakes sleeping helpers (after a change they wait for, made SeqCst).
    fn wake_sleepers(&self) {
        if self.sleepers.load(Ordering::SeqCst) > 0 {
            let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
            self.wake.notify_all();
        }
    }
}

/// Busy-waits until `done()`, yielding the core now and then (a helper may be off
/// its core when there are more threads than cores).
fn wait_until(done: impl Fn() -> bool) {
    let mut spins = 0u32;
    while !done() {
        if spins < 4096 {
            std::hint::spin_loop();
            spins += 1;
        } else {
            std::thread::yield_now();
        }
    }
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
/// thread count takes (the count is global to the process); only `f`'s thread
/// (and threads it runs [`enrolled`]) splits on them.
#[cfg(test)]
pub(crate) fn with_threads<R>(threads: usize, f: impl FnOnce() -> R) -> R {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    set_threads(threads).expect("threads");
    let r = enrolled(|| {
        assert_eq!(team().is_some(), threads > 1);
        f()
    });
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// Splits `0..count` with plenty of work: how often each index ran, and the
    /// threads that ran parts; each part first sleeps `nap`.
    fn run_split_napping(
        count: usize,
        nap: std::time::Duration,
    ) -> (Vec<usize>, HashSet<std::thread::ThreadId>) {
        let seen: Vec<AtomicUsize> = (0..count).map(|_| AtomicUsize::new(0)).collect();
        let threads = Mutex::new(HashSet::new());
        split(count, usize::MAX, &|r: Range<usize>| {
            std::thread::sleep(nap);
            threads.lock().unwrap().insert(std::thread::current().id());
            for i in r {
                seen[i].fetch_add(1, Ordering::Relaxed);
            }
        });
        let seen = seen.into_iter().map(AtomicUsize::into_inner).collect();
        (seen, threads.into_inner().unwrap())
    }

    fn run_split(count: usize) -> (Vec<usize>, HashSet<std::thread::ThreadId>) {
        run_split_napping(count, std::time::Duration::ZERO)
    }

    /// A split of `count` parts long enough (each naps 20 ms) for every helper to
    /// wake and take its own parts, until it runs on `threads` threads (at most 50
    /// tries, each checking that every index ran once): a helper that starts late
    /// (under qemu, or on a loaded machine) leaves its parts to the caller.
    fn run_split_on(count: usize, threads: usize) {
        for _ in 0..50 {
            let (seen, ran) = run_split_napping(count, std::time::Duration::from_millis(20));
            assert!(seen.iter().all(|n| *n == 1), "{count}");
            if ran.len() == threads {
                return;
            }
        }
        panic!("{count} indices never ran on {threads} threads");
    }

    #[test]
    fn every_index_runs_once_on_at_most_the_team() {
        for threads in [1, 2, 3, 5] {
            with_threads(threads, || {
                for count in [0usize, 1, 2, 3, 7, 100, 129] {
                    let (seen, ran) = run_split(count);
                    assert!(seen.iter().all(|n| *n == 1), "{count} on {threads}");
                    assert!(ran.len() <= threads.max(1));
                }
            });
        }
    }

    #[test]
    fn every_thread_takes_its_parts_of_long_work() {
        for threads in [2, 3] {
            with_threads(threads, || {
                run_split_on(threads, threads);
                run_split_on(2 * threads + 1, threads);
            });
        }
    }

    /// A job whose helpers never come: the splitting thread runs every part, each
    /// once, in the parts' ranges.
    #[test]
    fn parts_no_helper_claims_run_on_the_splitting_thread() {
        let seen: Vec<AtomicUsize> = (0..10).map(|_| AtomicUsize::new(0)).collect();
        let part = |r: Range<usize>| {
            for i in r {
                seen[i].fetch_add(1, Ordering::Relaxed);
            }
        };
        let part: &(dyn Fn(Range<usize>) + Sync) = &part;
        // SAFETY: the job is run here, while `part` is alive.
        let part = unsafe {
            std::mem::transmute::<
                *const (dyn Fn(Range<usize>) + Sync + '_),
                *const (dyn Fn(Range<usize>) + Sync + 'static),
            >(part)
        };
        let job = Job {
            part,
            count: 10,
            parts: 6,
            per_part: 2,
            slices: 2,
            claimed: AtomicU64::new(0),
            finished: AtomicUsize::new(0),
            panicked: AtomicBool::new(false),
        };
        assert!(job.work(1).is_none());
        assert_eq!(job.finished.load(Ordering::Relaxed), 6);
        assert!(seen.iter().all(|n| n.load(Ordering::Relaxed) == 1));
        // Nothing is left for a helper that comes afterwards.
        assert!(job.work(0).is_none());
        assert!(seen.iter().all(|n| n.load(Ordering::Relaxed) == 1));
    }

    #[test]
    fn a_split_inside_a_part_runs_on_its_thread() {
        with_threads(2, || {
            let inner = Mutex::new(Vec::new());
            split(2, usize::MAX, &|_| {
                let (seen, ran) = run_split(10);
                inner
                    .lock()
                    .unwrap()
                    .push((seen, ran, std::thread::current().id()));
            });
            for (seen, ran, outer) in inner.into_inner().unwrap() {
                assert!(seen.iter().all(|n| *n == 1));
                assert_eq!(ran, HashSet::from([outer]));
            }
        });
    }

    #[test]
    fn splits_from_several_threads_at_once_all_finish() {
        with_threads(2, || {
            std::thread::scope(|s| {
                for _ in 0..4 {
                    s.spawn(|| {
                        enrolled(|| {
                            for count in 0..200 {
                                let (seen, _) = run_split(count);
                                assert!(seen.iter().all(|n| *n == 1));
                            }
                        })
                    });
                }
            });
        });
    }

    #[test]
    fn a_panic_in_a_helpers_part_reaches_the_caller_and_the_team_goes_on() {
        with_threads(2, || {
            let result = std::panic::catch_unwind(|| {
                split(4, usize::MAX, &|r: Range<usize>| {
                    assert!(!r.contains(&3), "part with 3");
                });
            });
            assert!(result.is_err());
            run_split_on(8, 2);
        });
    }

    #[test]
    fn runs_keep_the_helpers_awake_and_end() {
        with_threads(3, || {
            let team = team().expect("a team");
            {
                let _run = team.begin_run();
                assert_eq!(team.shared.runs.load(Ordering::SeqCst), 1);
                run_split_on(9, 3);
            }
            assert_eq!(team.shared.runs.load(Ordering::SeqCst), 0);
        });
    }
}
