//! Loop generation: each tensor op that no kernel ([`crate::library`]) and no
//! intrinsic ([`crate::accel`]) computes becomes loop nests over buffers.
//!
//! - `compute`: maps, broadcasts, transposes, packs, matrix products, convolutions,
//!   pools, reductions and pads;
//! - `data`: slices, generates and sorts;
//! - `nms`: `non_max_suppression` into a static bound and a count;
//! - `build`: the loop-building helpers they share (ranges, nests, positions,
//!   conversions).

pub(crate) mod blocks;
pub(crate) mod build;
mod compute;
mod data;
mod nms;
