//! The blocked convolution on AArch64 NEON: tiles of up to [`PIXELS`] output pixels
//! along a row of one 16-channel output block, each pixel's block four 4-lane
//! accumulators (24 in all, with the block's four filter vectors and a broadcast
//! input: 29 of the 32 q registers). Each step of the sums loads the filter row of
//! one input channel once for all of the tile's pixels and multiply-adds it into
//! them. Every output's sum runs over the input blocks, taps and channels in the
//! portable kernel's order with fused multiply-adds (`fmla`), as the x86 kernels'
//! do: the same bits as theirs (but for the sign of a zero sum clamped at 0: x86's
//! `max` keeps -0, `fmax` gives +0).

use super::{BLOCK, Blocked, Kernel, Tile};
use crate::{Fused, Gate};
use std::arch::aarch64::*;

/// Output pixels per tile.
const PIXELS: usize = 6;

/// Lanes per vector, and vectors per 16-channel block.
const LANES: usize = 4;
const QUARTERS: usize = BLOCK / LANES;

/// The column stride parameter of [`tile`] that stands for `g.stride[1]` read at run
/// time (1 and 2, the common ones, are constants).
const ANY_STRIDE: usize = 0;

/// The output rows in `rows` of the output blocks in `blocks`, by tiles of up to
/// [`PIXELS`] pixels.
///
/// # Safety
/// The source covers every tap; the blocks and rows lie inside the output (every
/// AArch64 CPU has NEON).
pub(super) unsafe fn run_rows(
    source: *const f32,
    filter: *const f32,
    output: *mut f32,
    g: &Blocked,
    fused: Fused,
    blocks: std::ops::Range<usize>,
    rows: std::ops::Range<usize>,
) {
    let shape = [PIXELS, 1];
    // SAFETY: the caller's contract.
    unsafe {
        super::by_tiles(
            source, filter, output, g, fused, blocks, rows, shape, kernel,
        )
    }
}

/// The tile kernel for `pixels` (of one output block), a column stride and an input
/// block of 16 or 1 channels.
fn kernel(pixels: usize, _blocks: usize, stride: usize, in_block: usize) -> Kernel {
    match (stride, in_block) {
        (1, 1) => by_pixels::<1, 1>(pixels),
        (2, 1) => by_pixels::<2, 1>(pixels),
        (_, 1) => by_pixels::<ANY_STRIDE, 1>(pixels),
        (1, _) => by_pixels::<1, BLOCK>(pixels),
        (2, _) => by_pixels::<2, BLOCK>(pixels),
        _ => by_pixels::<ANY_STRIDE, BLOCK>(pixels),
    }
}

fn by_pixels<const S: usize, const IB: usize>(pixels: usize) -> Kernel {
    match pixels {
        1 => tile::<1, S, IB>,
        2 => tile::<2, S, IB>,
        3 => tile::<3, S, IB>,
        4 => tile::<4, S, IB>,
        5 => tile::<5, S, IB>,
        _ => tile::<6, S, IB>,
    }
}

/// One tile of P pixels (S source columns apart, or the column stride of `g` when S
/// is [`ANY_STRIDE`]) of one output block, the input in blocks of IB channels: each
/// pixel starts from the bias (else the output's contents), adds input times filter
/// over every input channel and tap, and is activated as it is stored.
///
/// # Safety
/// The tile lies inside the buffers of `g`.
unsafe fn tile<const P: usize, const S: usize, const IB: usize>(
    t: &Tile,
    g: &Blocked,
    fused: Fused,
) {
    let [kh, kw] = g.kernel;
    let stride = if S == ANY_STRIDE { g.stride[1] } else { S };
    // SAFETY (block): the tile's outputs, bias, taps and filter lie inside the
    // buffers (the caller's contract).
    unsafe {
        let mut acc: [[float32x4_t; QUARTERS]; P] = std::array::from_fn(|p| {
            std::array::from_fn(|l| match t.bias {
                Some(b) => vld1q_f32(b.add(l * LANES)),
                None => vld1q_f32(t.output.add(p * BLOCK + l * LANES)),
            })
        });
        for c in 0..g.in_blocks {
            for i in 0..kh {
                let row = t
                    .source
                    .add(c * g.source_plane() + i * g.dilation[0] * g.source[1] * IB);
                for j in 0..kw {
                    let x = row.add(j * g.dilation[1] * IB);
                    let w = t.filter.add(((c * kh + i) * kw + j) * IB * BLOCK);
                    for ic in 0..IB {
                        let wv: [float32x4_t; QUARTERS] =
                            std::array::from_fn(|l| vld1q_f32(w.add(ic * BLOCK + l * LANES)));
                        for (p, a) in acc.iter_mut().enumerate() {
                            let b = vld1q_dup_f32(x.add(p * stride * IB + ic));
                            for (a, w) in a.iter_mut().zip(&wv) {
                                *a = vfmaq_f32(*a, b, *w);
                            }
                        }
                    }
                }
            }
        }
        // The clamp alone is applied to the vectors (fmax/fmin return a NaN operand:
        // the sum stays NaN, as `Bounds::apply_scalar` keeps it); a gate to the
        // stored values.
        let bounds = fused.bounds_as_stored();
        let (lo, hi) = (vdupq_n_f32(bounds.lo), vdupq_n_f32(bounds.hi));
        for (p, a) in acc.iter().enumerate() {
            for (l, v) in a.iter().enumerate() {
                let v = vminq_f32(hi, vmaxq_f32(lo, *v));
                vst1q_f32(t.output.add(p * BLOCK + l * LANES), v);
            }
        }
        if fused.gate != Gate::None {
            let stored = std::slice::from_raw_parts_mut(t.output, P * BLOCK);
            crate::epilogue::activate_all_neon(fused, stored);
        }
    }
}
