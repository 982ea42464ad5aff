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
}

impl Scratch {
    /// A buffer of `len` floats: a kept one, grown if it is short, or a new one.
    pub(crate) fn take(len: usize) -> Scratch {
        let kept = {
            let mut free = FREE.lock().unwrap_or_else(|e| e.into_inner());
            // The smallest that is long enough, else the longest (to grow).
            let fit = (0..free.len())
                .filter(|&i| free[i].len() >= len)
                .min_by_key(|&i| free[i].len())
                .or_else(|| (0..free.len()).max_by_key(|&i| free[i].len()));
            fit.map(|i| free.swap_remove(i))
        };
        let mut buffer = kept.unwrap_or_default();
        if buffer.len() < len {
            buffer.resize(len, 0.0);
        }
        Scratch { buffer, len }
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
        let mut free = FREE.lock().unwrap_or_else(|e| e.into_inner());
        free.push(buffer);
        if free.len() > KEPT {
            // Drop the shortest.
            if let Some(i) = (0..free.len()).min_by_key(|&i| free[i].len()) {
                free.swap_remove(i);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_reused_and_long_enough() {
        let first = {
            let mut s = Scratch::take(1000);
            assert_eq!(s.as_mut_slice().len(), 1000);
            s.as_mut_slice().fill(7.0);
            s.as_ptr()
        };
        // Another test may take the kept buffer in between: then a new one is fine.
        let mut s = Scratch::take(500);
        assert_eq!(s.as_mut_slice().len(), 500);
        let mut longer = Scratch::take(5000);
        assert_eq!(longer.as_mut_slice().len(), 5000);
        let _ = first;
    }
}
