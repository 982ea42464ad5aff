//! Scratch buffers kernels reuse from call to call: a convolution's zero-bordered
//! copy of its input. A fresh allocation of megabytes is fresh pages from the
//! kernel on every call (a page fault and a zeroed page per 4 KiB, serially, before
//! the threads start); a kept one is already mapped and in the caches.
//!
//! A buffer is taken for the length of one kernel call and given back when the
//! [`Scratch`] drops. Its contents are whatever an earlier call left: the taker
//! writes every element it reads.

use std::sync::Mutex;

/// Buffers given back, for the next calls (at most [`KEPT`]).
static FREE: Mutex<Vec<Vec<f32>>> = Mutex::new(Vec::new());

/// How many buffers are kept: one per kernel call in flight at once is enough (the
/// threads of one call share its buffer).
const KEPT: usize = 4;

/// A buffer of at least `len` floats, for the length of a call.
pub(crate) struct Scratch {
    buffer: Vec<f32>,
    len: usize,
    /// Where the buffer goes back.
    free: &'static Mutex<Vec<Vec<f32>>>,
}

impl Scratch {
    /// A buffer of `len` floats: a kept one, grown if it is short, or a new one.
    pub(crate) fn take(len: usize) -> Scratch {
        Scratch::take_from(&FREE, len)
    }

    /// [`Scratch::take`] from the buffers kept in `free`.
    fn take_from(free: &'static Mutex<Vec<Vec<f32>>>, len: usize) -> Scratch {
        let kept = {
            let mut kept = free.lock().unwrap_or_else(|e| e.into_inner());
            // The smallest that is long enough, else the longest (to grow).
            let fit = (0..kept.len())
                .filter(|&i| kept[i].len() >= len)
                .min_by_key(|&i| kept[i].len())
                .or_else(|| (0..kept.len()).max_by_key(|&i| kept[i].len()));
            fit.map(|i| kept.swap_remove(i))
        };
        let mut buffer = kept.unwrap_or_default();
        if buffer.len() < len {
            buffer.resize(len, 0.0);
        }
        Scratch { buffer, len, free }
    }

    /// The buffer's `len` floats (contents unspecified).
    pub(crate) fn as_mut_slice(&mut self) -> &mut [f32] {
        &mut self.buffer[..self.len]
    }

    pub(crate) fn as_ptr(&self) -> *const f32 {
        self.buffer.as_ptr()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let buffer = std::mem::take(&mut self.buffer);
        let mut kept = self.free.lock().unwrap_or_else(|e| e.into_inner());
        kept.push(buffer);
        if kept.len() > KEPT {
            // Drop the shortest.
            if let Some(i) = (0..kept.len()).min_by_key(|&i| kept[i].len()) {
                kept.swap_remove(i);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pool of this test's own (the kernels' tests share the global one).
    static POOL: Mutex<Vec<Vec<f32>>> = Mutex::new(Vec::new());

    fn kept_lengths() -> Vec<usize> {
        let mut lengths: Vec<usize> = POOL.lock().unwrap().iter().map(Vec::len).collect();
        lengths.sort();
        lengths
    }

    #[test]
    fn buffers_are_reused_grown_and_kept_up_to_a_bound() {
        let first = {
            let mut s = Scratch::take_from(&POOL, 1000);
            assert_eq!(s.as_mut_slice().len(), 1000);
            s.as_mut_slice().fill(7.0);
            s.as_ptr()
        };
        assert_eq!(kept_lengths(), [1000]);
        // A shorter request reuses the kept buffer, contents and all.
        {
            let mut s = Scratch::take_from(&POOL, 500);
            assert_eq!(s.as_ptr(), first);
            assert_eq!(s.as_mut_slice().len(), 500);
            assert!(s.as_mut_slice().iter().all(|v| *v == 7.0));
            // A second one at the same time is new.
            let t = Scratch::take_from(&POOL, 10);
            assert_ne!(t.as_ptr(), first);
        }
        assert_eq!(kept_lengths(), [10, 1000]);
        // A longer one grows the longest kept buffer.
        drop(Scratch::take_from(&POOL, 5000));
        assert_eq!(kept_lengths(), [10, 5000]);
        // At most KEPT are kept: the shortest go. (The request for 100 takes the
        // 5000-float buffer, the only one long enough; the one for 200 grows the
        // 10-float one.)
        let held: Vec<Scratch> = [1, 2, 3, 4, 5, 6]
            .map(|n| Scratch::take_from(&POOL, n * 100))
            .into();
        drop(held);
        assert_eq!(kept_lengths(), [400, 500, 600, 5000]);
    }
}
