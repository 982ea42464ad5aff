//! Launched work (`hw.launch`) and its tokens: what a run of the asynchronous device
//! program may and may not do while a device works.
//!
//! The interpreter runs a launch's region when the launch is issued (one order the
//! devices could take), then treats the cells it read and wrote as in flight: until
//! its token is waited for (`hw.wait`), the host may not write them, nor read those
//! it wrote, and neither may another launch unless it comes after it (through its
//! `after` tokens, or by being issued later on the same device: a device runs its
//! launches in order). Each such access is an error at the op that makes it, so a
//! program whose run succeeds computes the same on every timing of its devices.
//! Freeing such a buffer is an error too, unless it is in a device's own memory and
//! only that device's launches use it: its bytes then go to that device's later
//! launches, which run after them.
//!
//! Invariant: `after` of a launch in flight holds itself and, transitively, every
//! launch it comes after that was in flight when it was issued; waiting for its
//! token completes all of them.

use std::collections::HashSet;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::value::{Buffer, Touched};

/// One launch whose token nothing has waited for yet.
struct InFlightLaunch {
    /// The launches it comes after, itself included.
    after: HashSet<u32>,
    /// The buffers it claims cells of.
    buffers: Vec<Buffer>,
}

/// The launches of a run.
#[derive(Default)]
pub(crate) struct Launches {
    next: u32,
    in_flight: FxHashMap<u32, InFlightLaunch>,
    /// The last launch issued on each device.
    last_on: FxHashMap<String, u32>,
}

impl Launches {
    /// Forgets every launch (a new run).
    pub(crate) fn reset(&mut self) {
        *self = Launches::default();
    }

    /// Issues a launch on `device` after the launches of `deps` (token numbers): its
    /// number and the launches its region may touch the cells of.
    pub(crate) fn issue(&mut self, device: &str, deps: &[u32]) -> (u32, HashSet<u32>) {
        let id = self.next;
        self.next += 1;
        let mut after = HashSet::from([id]);
        let previous = self.last_on.get(device).copied();
        for d in deps.iter().copied().chain(previous) {
            if let Some(l) = self.in_flight.get(&d) {
                after.extend(l.after.iter().copied());
            }
        }
        self.last_on.insert(device.to_string(), id);
        (id, after)
    }

    /// Puts the cells launch `id` (on `device`) touched in flight, under the name
    /// `what`.
    pub(crate) fn claim(
        &mut self,
        id: u32,
        after: HashSet<u32>,
        (what, device): (&Arc<str>, &Arc<str>),
        touched: Touched,
    ) {
        let mut buffers = Vec::new();
        for (buffer, reads, writes) in touched.buffers {
            // A cell both read and written is claimed as written.
            let reads: Vec<usize> = reads.difference(&writes).copied().collect();
            buffer.mark_in_flight(id, (what, device), reads, writes.into_iter().collect());
            buffers.push(buffer);
        }
        self.in_flight.insert(id, InFlightLaunch { after, buffers });
    }

    /// The host waited for launch `id`: it is done, and so is every launch it
    /// came after.
    pub(crate) fn complete(&mut self, id: u32) {
        let Some(done) = self.in_flight.get(&id).map(|l| l.after.clone()) else {
            return;
        };
        for d in done {
            if let Some(l) = self.in_flight.remove(&d) {
                for b in &l.buffers {
                    b.complete(d);
                }
            }
        }
    }

    /// How many launches nothing has waited for.
    pub(crate) fn pending(&self) -> usize {
        self.in_flight.len()
    }
}
