//! `acc_sconv2d_nchw16c`: a batch-1 f32 convolution in blocked layouts, the host's
//! convolution for the `layout` pass's NCHW16c preference (onnxruntime's and
//! oneDNN's NCHWc scheme): channels in the lanes of a 16-float vector. Ungrouped, or
//! (`acc_sgconv2d_nchw16c`) grouped with whole blocks per group (RegNet's groups of
//! 16 channels).
//!
//! Layouts (`B` = [`BLOCK`] = 16; `C`, `M` the channel counts rounded up to whole
//! blocks, `G` the groups, 1 when ungrouped):
//! - input NCHW16c: `[C/B][H][W][B]`;
//! - filter OIHW16i16o: `[M/B][C/G/B][KH][KW][B input channels][B output channels]`:
//!   output block `m` reads the `C/G/B` input blocks of its group, `m / (M/G/B)`;
//! - output NCHW16c: `[M/B][OH][OW][B]`; a bias holds `M` floats.
//!
//! A direct convolution: no patches are gathered. Each output tile (up to 14 pixels
//! of one output row by two blocks of output channels, 28 vector accumulators) runs
//! through every input channel and filter tap: one element of the input, broadcast,
//! times one vector of the filter (16 output channels) per accumulator. Zero padding
//! is a zero-bordered copy of the input (made only when the convolution pads).

use crate::Fused;
use crate::conv::Conv2d;
use crate::scratch::Scratch;
use crate::threads::Unshared;
use std::ops::Range;

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "aarch64")]
mod neon;

/// Channels per block: the vector width of the blocked layouts.
pub const BLOCK: usize = 16;

/// The blocked geometry of a convolution: whole channel blocks, and the input as the
/// kernel reads it (bordered with the padding, so every tap is inside it).
#[derive(Clone, Copy, Debug)]
struct Blocked {
    /// Channels per input block: [`BLOCK`], or 1 for a plain NCHW input.
    in_block: usize,
    /// Input channel blocks each output block reads: those of its group (all of
    /// them when ungrouped).
    in_blocks: usize,
    /// Output channel blocks, in all groups and in each.
    out_blocks: usize,
    group_out_blocks: usize,
    /// The groups (1: ungrouped); each has `in_blocks` input blocks and
    /// `group_out_blocks` output blocks.
    groups: usize,
    kernel: [usize; 2],
    output: [usize; 2],
    stride: [usize; 2],
    dilation: [usize; 2],
    /// Rows and columns of the (bordered) input.
    source: [usize; 2],
}

impl Blocked {
    /// The geometry of `shape` in `groups` groups, each a whole number of input and
    /// output blocks (the caller's contract; 1 group always is).
    fn new(shape: Conv2d, in_block: usize, groups: usize) -> Self {
        let [_, kh, kw] = shape.filter;
        let rows_needed = |o: usize, k: usize, s: usize, d: usize| {
            if o == 0 || k == 0 {
                0
            } else {
                (o - 1) * s + (k - 1) * d + 1
            }
        };
        let [h, w] = [shape.input[1], shape.input[2]];
        let [pt, pl] = shape.padding;
        let groups = groups.max(1);
        let out_blocks = shape.filter[0].div_ceil(BLOCK);
        Blocked {
            in_block,
            in_blocks: (shape.input[0] / groups).div_ceil(in_block),
            out_blocks,
            group_out_blocks: (out_blocks / groups).max(1),
            groups,
            kernel: [kh, kw],
            output: shape.output,
            stride: shape.stride,
            dilation: shape.dilation,
            source: [
                rows_needed(shape.output[0], kh, shape.stride[0], shape.dilation[0]).max(h + pt),
                rows_needed(shape.output[1], kw, shape.stride[1], shape.dilation[1]).max(w + pl),
            ],
        }
    }

    /// Floats in one input block of the source.
    fn source_plane(&self) -> usize {
        self.source[0] * self.source[1] * self.in_block
    }

    /// Floats in one output block of the filter (all its input blocks and taps).
    fn filter_block(&self) -> usize {
        self.in_blocks * self.kernel[0] * self.kernel[1] * self.in_block * BLOCK
    }

    /// Floats in one output block of the output.
    #[cfg(target_arch = "x86_64")]
    fn output_plane(&self) -> usize {
        self.output[0] * self.output[1] * BLOCK
    }

    /// Where the input blocks of output block `m`'s group start in the source.
    fn group_source(&self, m: usize) -> usize {
        (m / self.group_out_blocks) * self.in_blocks * self.source_plane()
    }

    /// The output block after the last of `m`'s group (the vector kernels' tiles
    /// never span two groups).
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    fn group_end(&self, m: usize) -> usize {
        (m / self.group_out_blocks + 1) * self.group_out_blocks
    }
}

/// The input with its zero border, when the convolution pads (or reads past the
/// input's end): `[C/B][rows][cols][B]`, in a reused buffer ([`Scratch`]) whose
/// every element is written (the border zeros, the rest the input), the blocks
/// split among the threads.
///
/// # Safety
/// `input` holds the blocked input of `shape`.
unsafe fn bordered(input: *const f32, shape: Conv2d, g: &Blocked) -> Option<Scratch> {
    let [_, h, w] = shape.input;
    let [pt, pl] = shape.padding;
    if [pt, pl] == [0, 0] && g.source == [h, w] {
        return None;
    }
    let (b, plane) = (g.in_block, g.source_plane());
    let blocks = g.groups * g.in_blocks;
    let mut scratch = Scratch::take(blocks * plane);
    let shared = Unshared((input, scratch.as_mut_slice().as_mut_ptr()));
    let [rows, cols] = g.source;
    let part = |range: Range<usize>| {
        let (input, out) = shared.get();
        for c in range {
            // SAFETY: block c of the bordered copy is `plane` floats inside the
            // scratch buffer; parts write disjoint blocks.
            let block = unsafe { std::slice::from_raw_parts_mut(out.add(c * plane), plane) };
            let (top, rest) = block.split_at_mut(pt * cols * b);
            top.fill(0.0);
            let (middle, bottom) = rest.split_at_mut(h * cols * b);
            bottom.fill(0.0);
            for (y, line) in middle.chunks_exact_mut(cols * b).enumerate() {
                let (left, rest) = line.split_at_mut(pl * b);
                let (inner, right) = rest.split_at_mut(w * b);
                left.fill(0.0);
                right.fill(0.0);
                // SAFETY: row y of block c of the input holds w * b floats.
                inner.copy_from_slice(unsafe {
                    std::slice::from_raw_parts(input.add((c * h + y) * w * b), w * b)
                });
            }
            debug_assert!(rows >= h + pt && cols >= w + pl);
        }
    };
    crate::threads::split(blocks, blocks * plane, &part);
    Some(scratch)
}

/// out = clamp(out + conv(input, filter)), or with a bias clamp(bias[channel] +
/// conv(input, filter)) (out's contents unread), in the blocked layouts of this
/// module; `shape` has the plain channel counts (rounded up to blocks here).
///
/// # Safety
/// The buffers hold the blocked sizes of `shape` (a bias the rounded-up M floats);
/// the output overlaps none of the others.
pub unsafe fn sconv2d_nchw16c(
    input: *const f32,
    filter: *const f32,
    output: *mut f32,
    shape: Conv2d,
    fused: Fused,
) {
    // SAFETY: the caller's contract.
    unsafe { blocked_output(input, filter, output, shape, 1, fused, BLOCK, Kernels::Best) }
}

/// out = clamp(out + conv(input, filter)) or from a bias, as [`sconv2d_nchw16c`], in
/// `groups` groups: output channel `o` reads the input channels of group `o / (M/G)`
/// only, the filter `[M/B][C/G/B][KH][KW][B][B]`.
///
/// # Safety
/// As [`sconv2d_nchw16c`]; `groups` divides both channel counts into whole blocks
/// ([`grouping_fits`]).
pub unsafe fn sgconv2d_nchw16c(
    input: *const f32,
    filter: *const f32,
    output: *mut f32,
    shape: Conv2d,
    groups: usize,
    fused: Fused,
) {
    // SAFETY: the caller's contract.
    unsafe {
        blocked_output(
            input,
            filter,
            output,
            shape,
            groups,
            fused,
            BLOCK,
            Kernels::Best,
        )
    }
}

/// Whether `groups` groups divide the channels of `shape` into whole blocks each
/// (what [`sgconv2d_nchw16c`] takes).
pub fn grouping_fits(shape: &Conv2d, groups: usize) -> bool {
    let whole = |channels: usize| groups > 0 && channels.is_multiple_of(groups * BLOCK);
    groups == 1 || (whole(shape.input[0]) && whole(shape.filter[0]))
}

/// out = clamp(out + conv(input, filter)) or from a bias, as [`sconv2d_nchw16c`],
/// the input plain NCHW (`C` channels, any count) and the filter OIHW16o, `[M/B][C]
/// [KH][KW][B]`: the first convolution of a network, whose few input channels
/// would fill blocks with padding.
///
/// # Safety
/// The input holds C*H*W floats, the filter and output their blocked sizes (a bias
/// the rounded-up M floats); the output overlaps none of the others.
pub unsafe fn sconv2d_nchw_nchw16c(
    input: *const f32,
    filter: *const f32,
    output: *mut f32,
    shape: Conv2d,
    fused: Fused,
) {
    // SAFETY: the caller's contract.
    unsafe { blocked_output(input, filter, output, shape, 1, fused, 1, Kernels::Best) }
}

/// [`sconv2d_nchw_nchw16c`] on any CPU: the portable sums, in tiles of four pixels.
///
/// # Safety
/// As [`sconv2d_nchw_nchw16c`].
pub unsafe fn sconv2d_nchw_nchw16c_portable(
    input: *const f32,
    filter: *const f32,
    output: *mut f32,
    shape: Conv2d,
    fused: Fused,
) {
    // SAFETY: the caller's contract.
    unsafe { blocked_output(input, filter, output, shape, 1, fused, 1, Kernels::Portable) }
}

/// Which kernels a blocked convolution may use.
#[derive(Clone, Copy, PartialEq)]
enum Kernels {
    /// The fastest this CPU has: AVX-512, else AVX2, else NEON, else portable.
    Best,
    /// The best short of AVX-512: AVX2 (with FMA) or NEON when the CPU has it, else
    /// portable (tests compare it with the others).
    #[cfg(test)]
    NoAvx512,
    /// The portable kernel.
    Portable,
}

/// The blocked-output convolution in `groups` groups with `in_block` channels per
/// input block, by the kernels `kernels` allows.
///
/// # Safety
/// As [`sconv2d_nchw16c`] (`in_block` 16), [`sgconv2d_nchw16c`] (16, groups) or
/// [`sconv2d_nchw_nchw16c`] (1, one group).
#[allow(clippy::too_many_arguments)]
unsafe fn blocked_output(
    input: *const f32,
    filter: *const f32,
    output: *mut f32,
    shape: Conv2d,
    groups: usize,
    fused: Fused,
    in_block: usize,
    kernels: Kernels,
) {
    let g = Blocked::new(shape, in_block, groups);
    if g.out_blocks * g.output[0] * g.output[1] == 0 {
        return;
    }
    // SAFETY: the caller vouches for the input.
    let border = unsafe { bordered(input, shape, &g) };
    let source = border.as_ref().map_or(input, |b| b.as_ptr());
    let rows = rows_kernel(kernels);
    // SAFETY: the CPU has the chosen kernel's instructions; the source covers every
    // tap; the caller vouches for the rest.
    unsafe { split_rows(source, filter, output, &g, fused, rows) };
}

/// The kernel `kernels` allows on this CPU.
fn rows_kernel(kernels: Kernels) -> RowsKernel {
    #[cfg(target_arch = "x86_64")]
    {
        if kernels == Kernels::Best && crate::avx512() {
            return avx512::run_rows;
        }
        if kernels != Kernels::Portable && crate::avx2_fma() {
            return avx2::run_rows;
        }
    }
    #[cfg(target_arch = "aarch64")]
    if kernels != Kernels::Portable {
        return neon::run_rows;
    }
    // Other architectures have no kernels to choose from.
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    let _ = kernels;
    portable_rows
}

/// A kernel computing the output rows in a range of the output blocks in a range
/// (the source covering every tap).
type RowsKernel =
    unsafe fn(*const f32, *const f32, *mut f32, &Blocked, Fused, Range<usize>, Range<usize>);

/// Output blocks per unit of the split among threads (the AVX-512 kernel's tiles
/// span two blocks).
const SPLIT_BLOCKS: usize = 2;

/// Runs `rows` over every output row: with a thread pool ([`crate::threads`]) and
/// enough work, contiguous ranges of rows among the threads (each output the same
/// sum).
///
/// # Safety
/// The CPU can run `rows`; the source covers every tap; the buffers hold the sizes
/// of `g`.
unsafe fn split_rows(
    source: *const f32,
    filter: *const f32,
    output: *mut f32,
    g: &Blocked,
    fused: Fused,
    rows: RowsKernel,
) {
    let [oh, ow] = g.output;
    let shared = crate::threads::Unshared((source, filter, output, *g, fused));
    // Unit u is row u % oh of the output blocks of pair u / oh.
    let part = |units: Range<usize>| {
        let (source, filter, output, g, fused) = shared.get();
        let mut u = units.start;
        while u < units.end {
            let pair = u / oh;
            let end = units.end.min((pair + 1) * oh);
            let blocks = pair * SPLIT_BLOCKS..((pair + 1) * SPLIT_BLOCKS).min(g.out_blocks);
            // SAFETY: the caller's contract; parts write disjoint output rows and only
            // read the source and the filter.
            unsafe {
                rows(
                    source,
                    filter,
                    output,
                    &g,
                    fused,
                    blocks,
                    u - pair * oh..end - pair * oh,
                )
            };
            u = end;
        }
    };
    let [kh, kw] = g.kernel;
    let work = g.out_blocks * BLOCK * oh * ow * g.in_blocks * g.in_block * kh * kw;
    crate::threads::split(g.out_blocks.div_ceil(SPLIT_BLOCKS) * oh, work, &part);
}

/// Output pixels per tile of the portable sums: 4 pixels of a 16-channel block are,
/// compiled for AVX2, 8 256-bit accumulators, each filter vector read once for all
/// of them.
const TILE_PIXELS: usize = 4;

/// The portable kernel: [`tiled_rows`] on any CPU.
///
/// # Safety
/// As [`split_rows`]; the rows lie inside the output.
unsafe fn portable_rows(
    source: *const f32,
    filter: *const f32,
    output: *mut f32,
    g: &Blocked,
    fused: Fused,
    blocks: Range<usize>,
    rows: Range<usize>,
) {
    // SAFETY: the caller's contract.
    unsafe { tiled_rows(source, filter, output, g, fused, blocks, rows) }
}

/// The output rows in `rows`, by tiles of [`TILE_PIXELS`] pixels of one block (then
/// single pixels at the end of a row).
///
/// # Safety
/// As [`portable_rows`].
#[inline(always)]
unsafe fn tiled_rows(
    source: *const f32,
    filter: *const f32,
    output: *mut f32,
    g: &Blocked,
    fused: Fused,
    blocks: Range<usize>,
    rows: Range<usize>,
) {
    let ow = g.output[1];
    for m in blocks {
        // SAFETY: the group's input blocks lie inside the source.
        let source = unsafe { source.add(g.group_source(m)) };
        for y in rows.clone() {
            let mut x = 0;
            while x + TILE_PIXELS <= ow {
                // SAFETY: pixels x.. x + TILE_PIXELS of row y are in the output.
                unsafe { tile::<TILE_PIXELS>(source, filter, output, g, fused, [m, y, x]) };
                x += TILE_PIXELS;
            }
            for x in x..ow {
                // SAFETY: as above.
                unsafe { tile::<1>(source, filter, output, g, fused, [m, y, x]) };
            }
        }
    }
}

/// `P` output pixels of block `m` from pixel (y, x), `source` at its group's first
/// input block: each starts from the bias (else the output's contents), adds input
/// times filter over every input channel of the group and tap in order, and is
/// clamped as it is stored.
///
/// # Safety
/// As [`portable_rows`]; the pixels lie inside the output.
#[inline(always)]
unsafe fn tile<const P: usize>(
    source: *const f32,
    filter: *const f32,
    output: *mut f32,
    g: &Blocked,
    fused: Fused,
    [m, y, x]: [usize; 3],
) {
    let [kh, kw] = g.kernel;
    let [oh, ow] = g.output;
    let b = g.in_block;
    // SAFETY (block): the offsets stay inside the buffers of `g`.
    unsafe {
        let out = output.add(((m * oh + y) * ow + x) * BLOCK);
        let mut acc = [[0f32; BLOCK]; P];
        for (p, a) in acc.iter_mut().enumerate() {
            let start = match fused.bias {
                Some(bias) => bias.add(m * BLOCK),
                None => out.add(p * BLOCK),
            };
            a.copy_from_slice(std::slice::from_raw_parts(start, BLOCK));
        }
        let pixel_step = g.stride[1] * b;
        for c in 0..g.in_blocks {
            for i in 0..kh {
                for j in 0..kw {
                    let row = y * g.stride[0] + i * g.dilation[0];
                    let column = x * g.stride[1] + j * g.dilation[1];
                    let xs = source.add(c * g.source_plane() + (row * g.source[1] + column) * b);
                    let ws = filter.add(m * g.filter_block() + ((c * kh + i) * kw + j) * b * BLOCK);
                    for ic in 0..b {
                        let w = &*(ws.add(ic * BLOCK) as *const [f32; BLOCK]);
                        for (p, a) in acc.iter_mut().enumerate() {
                            let v = *xs.add(p * pixel_step + ic);
                            for o in 0..BLOCK {
                                a[o] += v * w[o];
                            }
                        }
                    }
                }
            }
        }
        for (p, a) in acc.iter().enumerate() {
            for (o, v) in a.iter().enumerate() {
                *out.add(p * BLOCK + o) = fused.activate(*v);
            }
        }
    }
}

/// [`sconv2d_nchw16c`] on any CPU: the portable sums, in tiles of four pixels.
///
/// # Safety
/// As [`sconv2d_nchw16c`].
pub unsafe fn sconv2d_nchw16c_portable(
    input: *const f32,
    filter: *const f32,
    output: *mut f32,
    shape: Conv2d,
    fused: Fused,
) {
    // SAFETY: the caller's contract.
    unsafe {
        blocked_output(
            input,
            filter,
            output,
            shape,
            1,
            fused,
            BLOCK,
            Kernels::Portable,
        )
    }
}

/// Where a tile of a vector kernel reads and writes.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
struct Tile {
    /// The source at the tile's first tap of input block 0.
    source: *const f32,
    /// The filter at the tile's first output block, input block 0, tap (0, 0).
    filter: *const f32,
    /// The output at the tile's first pixel of its first block.
    output: *mut f32,
    /// The bias of the tile's first block, if any.
    bias: Option<*const f32>,
}

/// A vector kernel's tile function.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
type Kernel = unsafe fn(&Tile, &Blocked, Fused);

/// The output rows in `rows` of the blocks in `blocks`, by tiles of up to
/// `[pixels, blocks]` pixels of a row by output blocks, each run by the kernel
/// `kernel(pixels, blocks, column stride, input block)` chooses.
///
/// # Safety
/// The CPU can run the chosen kernels; the source covers every tap; the blocks and
/// rows lie inside the output.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn by_tiles(
    source: *const f32,
    filter: *const f32,
    output: *mut f32,
    g: &Blocked,
    fused: Fused,
    blocks: Range<usize>,
    rows: Range<usize>,
    [tile_pixels, tile_blocks]: [usize; 2],
    kernel: fn(usize, usize, usize, usize) -> Kernel,
) {
    let [oh, ow] = g.output;
    let mut m = blocks.start;
    while m < blocks.end {
        // A tile's blocks share their input blocks: one group's.
        let count = tile_blocks.min(blocks.end - m).min(g.group_end(m) - m);
        // SAFETY: the group's input blocks lie inside the source.
        let source = unsafe { source.add(g.group_source(m)) };
        // A row's pixels in tiles of near-equal widths (7: 4 + 3, not 6 + 1): a
        // narrow tile has too few accumulators to hide the multiply-adds' latency.
        let tiles = ow.div_ceil(tile_pixels);
        for y in rows.clone() {
            for t in 0..tiles {
                let x = t * ow / tiles;
                let pixels = (t + 1) * ow / tiles - x;
                // SAFETY: the offsets stay inside the buffers of `g`.
                let tile = unsafe {
                    Tile {
                        source: source
                            .add((y * g.stride[0] * g.source[1] + x * g.stride[1]) * g.in_block),
                        filter: filter.add(m * g.filter_block()),
                        output: output.add(((m * oh + y) * ow + x) * BLOCK),
                        bias: fused.bias.map(|b| b.add(m * BLOCK)),
                    }
                };
                let run = kernel(pixels, count, g.stride[1], g.in_block);
                // SAFETY: the CPU can run the kernel; the tile is inside the buffers.
                unsafe { run(&tile, g, fused) };
            }
        }
        m += count;
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::{BLOCK, Blocked, Kernel, Tile};
    use crate::{Bounds, Fused, Gate};
    use std::arch::x86_64::*;

    /// Output pixels per tile (along a row) and output channel blocks per tile.
    const PIXELS: usize = 14;
    const BLOCKS: usize = 2;

    /// The output rows in `rows`, by tiles of up to [`PIXELS`] pixels by [`BLOCKS`]
    /// output blocks.
    ///
    /// # Safety
    /// The CPU has AVX-512F; the source covers every tap; the rows lie inside the
    /// output.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn run_rows(
        source: *const f32,
        filter: *const f32,
        output: *mut f32,
        g: &Blocked,
        fused: Fused,
        blocks: std::ops::Range<usize>,
        rows: std::ops::Range<usize>,
    ) {
        let shape = [PIXELS, BLOCKS];
        // SAFETY: the caller's contract; the kernels need AVX-512F, which it has.
        unsafe {
            super::by_tiles(
                source, filter, output, g, fused, blocks, rows, shape, kernel,
            )
        }
    }

    /// The column stride parameter of [`tile`] that stands for `g.stride[1]` read at
    /// run time (1 and 2, the common ones, are constants).
    const ANY_STRIDE: usize = 0;

    /// The tile kernel for `pixels` x `blocks`, a column stride and an input block
    /// of 16 or 1 channels.
    fn kernel(pixels: usize, blocks: usize, stride: usize, in_block: usize) -> Kernel {
        match (blocks, stride, in_block) {
            (1, 1, 1) => by_pixels::<1, 1, 1>(pixels),
            (1, 2, 1) => by_pixels::<1, 2, 1>(pixels),
            (1, _, 1) => by_pixels::<1, ANY_STRIDE, 1>(pixels),
            (_, 1, 1) => by_pixels::<2, 1, 1>(pixels),
            (_, 2, 1) => by_pixels::<2, 2, 1>(pixels),
            (_, _, 1) => by_pixels::<2, ANY_STRIDE, 1>(pixels),
            (1, 1, _) => by_pixels::<1, 1, BLOCK>(pixels),
            (1, 2, _) => by_pixels::<1, 2, BLOCK>(pixels),
            (1, _, _) => by_pixels::<1, ANY_STRIDE, BLOCK>(pixels),
            (_, 1, _) => by_pixels::<2, 1, BLOCK>(pixels),
            (_, 2, _) => by_pixels::<2, 2, BLOCK>(pixels),
            _ => by_pixels::<2, ANY_STRIDE, BLOCK>(pixels),
        }
    }

    fn by_pixels<const Q: usize, const S: usize, const IB: usize>(pixels: usize) -> Kernel {
        match pixels {
            1 => tile::<1, Q, S, IB>,
            2 => tile::<2, Q, S, IB>,
            3 => tile::<3, Q, S, IB>,
            4 => tile::<4, Q, S, IB>,
            5 => tile::<5, Q, S, IB>,
            6 => tile::<6, Q, S, IB>,
            7 => tile::<7, Q, S, IB>,
            8 => tile::<8, Q, S, IB>,
            9 => tile::<9, Q, S, IB>,
            10 => tile::<10, Q, S, IB>,
            11 => tile::<11, Q, S, IB>,
            12 => tile::<12, Q, S, IB>,
            13 => tile::<13, Q, S, IB>,
            _ => tile::<14, Q, S, IB>,
        }
    }

    /// One tile of P pixels (S source columns apart, or the column stride of `g`
    /// when S is [`ANY_STRIDE`]) by Q output blocks, the input in blocks of IB
    /// channels.
    ///
    /// # Safety
    /// The CPU has AVX-512F; the tile lies inside the buffers of `g`.
    #[target_feature(enable = "avx512f")]
    unsafe fn tile<const P: usize, const Q: usize, const S: usize, const IB: usize>(
        t: &Tile,
        g: &Blocked,
        fused: Fused,
    ) {
        let [kh, kw] = g.kernel;
        let stride = if S == ANY_STRIDE { g.stride[1] } else { S };
        let out_plane = g.output_plane();
        let filter_block = g.filter_block();
        let mut acc = [[_mm512_setzero_ps(); Q]; P];
        // SAFETY (block): the tile's outputs, bias, taps and filter lie inside the
        // buffers (the caller's contract).
        unsafe {
            for (p, row) in acc.iter_mut().enumerate() {
                for (q, a) in row.iter_mut().enumerate() {
                    *a = match t.bias {
                        Some(b) => _mm512_loadu_ps(b.add(q * BLOCK)),
                        None => _mm512_loadu_ps(t.output.add(q * out_plane + p * BLOCK)),
                    };
                }
            }
            for c in 0..g.in_blocks {
                for i in 0..kh {
                    let row = t
                        .source
                        .add(c * g.source_plane() + i * g.dilation[0] * g.source[1] * IB);
                    for j in 0..kw {
                        let x = row.add(j * g.dilation[1] * IB);
                        let w = t.filter.add(((c * kh + i) * kw + j) * IB * BLOCK);
                        for ic in 0..IB {
                            let wv: [__m512; Q] = std::array::from_fn(|q| {
                                _mm512_loadu_ps(w.add(q * filter_block + ic * BLOCK))
                            });
                            for (p, row) in acc.iter_mut().enumerate() {
                                let b = _mm512_set1_ps(*x.add(p * stride * IB + ic));
                                for (a, w) in row.iter_mut().zip(&wv) {
                                    *a = _mm512_fmadd_ps(b, *w, *a);
                                }
                            }
                        }
                    }
                }
            }
            let bounds = fused.bounds_as_stored();
            let (lo, hi) = (_mm512_set1_ps(bounds.lo), _mm512_set1_ps(bounds.hi));
            for (p, row) in acc.iter().enumerate() {
                for (q, a) in row.iter().enumerate() {
                    let v = if bounds == Bounds::NONE {
                        *a
                    } else {
                        bounds.apply(lo, hi, *a)
                    };
                    _mm512_storeu_ps(t.output.add(q * out_plane + p * BLOCK), v);
                }
            }
            if fused.gate != Gate::None {
                for q in 0..Q {
                    crate::epilogue::gate_vectors(t.output.add(q * out_plane), P, fused);
                }
            }
        }
    }
}

/// The C entry point: out = activation(out + conv(input, filter)) by
/// [`sconv2d_nchw16c`], with the sizes of [`crate::conv::acc_sconv2d`] (channel
/// counts rounded up to whole blocks), then the clamp bounds `lo`, `hi` and a gate
/// (its code and parameters: [`crate::Gate::of_call`]). With gate 0 the activation
/// is clamp(x, lo, hi); else x * clamp(g(x), lo, hi) ([`crate::Fused::activate`]).
///
/// # Safety
/// As [`sconv2d_nchw16c`].
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn acc_sconv2d_nchw16c(
    input: *const f32,
    filter: *const f32,
    output: *mut f32,
    channels: i64,
    height: i64,
    width: i64,
    out_channels: i64,
    kernel_h: i64,
    kernel_w: i64,
    out_h: i64,
    out_w: i64,
    stride_h: i64,
    stride_w: i64,
    dilation_h: i64,
    dilation_w: i64,
    pad_top: i64,
    pad_left: i64,
    lo: f32,
    hi: f32,
    gate: i64,
    gate_scale: f32,
    gate_shift: f32,
) {
    // SAFETY: the caller vouches for the buffers; no bias.
    unsafe {
        acc_sconv2d_nchw16c_bias(
            input,
            filter,
            std::ptr::null(),
            output,
            channels,
            height,
            width,
            out_channels,
            kernel_h,
            kernel_w,
            out_h,
            out_w,
            stride_h,
            stride_w,
            dilation_h,
            dilation_w,
            pad_top,
            pad_left,
            lo,
            hi,
            gate,
            gate_scale,
            gate_shift,
        )
    }
}

/// [`acc_sconv2d_nchw16c`] with each output channel starting from its bias (M floats,
/// rounded up to whole blocks) instead of the output's contents; a null bias is none.
///
/// # Safety
/// As [`sconv2d_nchw16c`].
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn acc_sconv2d_nchw16c_bias(
    input: *const f32,
    filter: *const f32,
    bias: *const f32,
    output: *mut f32,
    channels: i64,
    height: i64,
    width: i64,
    out_channels: i64,
    kernel_h: i64,
    kernel_w: i64,
    out_h: i64,
    out_w: i64,
    stride_h: i64,
    stride_w: i64,
    dilation_h: i64,
    dilation_w: i64,
    pad_top: i64,
    pad_left: i64,
    lo: f32,
    hi: f32,
    gate: i64,
    gate_scale: f32,
    gate_shift: f32,
) {
    let shape = Conv2d::from_sizes(
        [channels, height, width],
        [out_channels, kernel_h, kernel_w],
        [out_h, out_w],
        [stride_h, stride_w],
        [dilation_h, dilation_w],
        [pad_top, pad_left],
    );
    let fused = Fused::of_gated_call(bias, lo, hi, gate, gate_scale, gate_shift);
    // SAFETY: the caller vouches for the buffers.
    unsafe { sconv2d_nchw16c(input, filter, output, shape, fused) }
}

/// The C entry point of [`sgconv2d_nchw16c`]: the operands of
/// [`acc_sconv2d_nchw16c_bias`] (a null bias is none) with the groups after
/// `pad_left`. Groups that do not divide both channel counts into whole blocks are
/// refused: the process aborts with a message (the caller broke the contract).
///
/// # Safety
/// As [`sgconv2d_nchw16c`].
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn acc_sgconv2d_nchw16c_bias(
    input: *const f32,
    filter: *const f32,
    bias: *const f32,
    output: *mut f32,
    channels: i64,
    height: i64,
    width: i64,
    out_channels: i64,
    kernel_h: i64,
    kernel_w: i64,
    out_h: i64,
    out_w: i64,
    stride_h: i64,
    stride_w: i64,
    dilation_h: i64,
    dilation_w: i64,
    pad_top: i64,
    pad_left: i64,
    groups: i64,
    lo: f32,
    hi: f32,
    gate: i64,
    gate_scale: f32,
    gate_shift: f32,
) {
    let shape = Conv2d::from_sizes(
        [channels, height, width],
        [out_channels, kernel_h, kernel_w],
        [out_h, out_w],
        [stride_h, stride_w],
        [dilation_h, dilation_w],
        [pad_top, pad_left],
    );
    let groups = usize::try_from(groups).unwrap_or(0);
    if !grouping_fits(&shape, groups) {
        eprintln!(
            "acc_sgconv2d_nchw16c: {groups} groups do not divide {channels} input and {out_channels} output channels into whole blocks of {BLOCK}"
        );
        std::process::abort();
    }
    let fused = Fused::of_gated_call(bias, lo, hi, gate, gate_scale, gate_shift);
    // SAFETY: the caller vouches for the buffers; the groups fit.
    unsafe { sgconv2d_nchw16c(input, filter, output, shape, groups, fused) }
}

/// [`acc_sgconv2d_nchw16c_bias`] without a bias: the output accumulated onto.
///
/// # Safety
/// As [`sgconv2d_nchw16c`].
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn acc_sgconv2d_nchw16c(
    input: *const f32,
    filter: *const f32,
    output: *mut f32,
    channels: i64,
    height: i64,
    width: i64,
    out_channels: i64,
    kernel_h: i64,
    kernel_w: i64,
    out_h: i64,
    out_w: i64,
    stride_h: i64,
    stride_w: i64,
    dilation_h: i64,
    dilation_w: i64,
    pad_top: i64,
    pad_left: i64,
    groups: i64,
    lo: f32,
    hi: f32,
    gate: i64,
    gate_scale: f32,
    gate_shift: f32,
) {
    // SAFETY: the caller vouches for the buffers; no bias.
    unsafe {
        acc_sgconv2d_nchw16c_bias(
            input,
            filter,
            std::ptr::null(),
            output,
            channels,
            height,
            width,
            out_channels,
            kernel_h,
            kernel_w,
            out_h,
            out_w,
            stride_h,
            stride_w,
            dilation_h,
            dilation_w,
            pad_top,
            pad_left,
            groups,
            lo,
            hi,
            gate,
            gate_scale,
            gate_shift,
        )
    }
}

/// The C entry point of [`sconv2d_nchw_nchw16c`]: the operands of
/// [`acc_sconv2d_nchw16c_bias`] (a null bias is none), the input NCHW with any
/// channel count and the filter OIHW16o.
///
/// # Safety
/// As [`sconv2d_nchw_nchw16c`].
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn acc_sconv2d_nchw_nchw16c_bias(
    input: *const f32,
    filter: *const f32,
    bias: *const f32,
    output: *mut f32,
    channels: i64,
    height: i64,
    width: i64,
    out_channels: i64,
    kernel_h: i64,
    kernel_w: i64,
    out_h: i64,
    out_w: i64,
    stride_h: i64,
    stride_w: i64,
    dilation_h: i64,
    dilation_w: i64,
    pad_top: i64,
    pad_left: i64,
    lo: f32,
    hi: f32,
    gate: i64,
    gate_scale: f32,
    gate_shift: f32,
) {
    let shape = Conv2d::from_sizes(
        [channels, height, width],
        [out_channels, kernel_h, kernel_w],
        [out_h, out_w],
        [stride_h, stride_w],
        [dilation_h, dilation_w],
        [pad_top, pad_left],
    );
    let fused = Fused::of_gated_call(bias, lo, hi, gate, gate_scale, gate_shift);
    // SAFETY: the caller vouches for the buffers.
    unsafe { sconv2d_nchw_nchw16c(input, filter, output, shape, fused) }
}

/// [`acc_sconv2d_nchw_nchw16c_bias`] without a bias: the output accumulated onto.
///
/// # Safety
/// As [`sconv2d_nchw_nchw16c`].
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn acc_sconv2d_nchw_nchw16c(
    input: *const f32,
    filter: *const f32,
    output: *mut f32,
    channels: i64,
    height: i64,
    width: i64,
    out_channels: i64,
    kernel_h: i64,
    kernel_w: i64,
    out_h: i64,
    out_w: i64,
    stride_h: i64,
    stride_w: i64,
    dilation_h: i64,
    dilation_w: i64,
    pad_top: i64,
    pad_left: i64,
    lo: f32,
    hi: f32,
    gate: i64,
    gate_scale: f32,
    gate_shift: f32,
) {
    // SAFETY: the caller vouches for the buffers; no bias.
    unsafe {
        acc_sconv2d_nchw_nchw16c_bias(
            input,
            filter,
            std::ptr::null(),
            output,
            channels,
            height,
            width,
            out_channels,
            kernel_h,
            kernel_w,
            out_h,
            out_w,
            stride_h,
            stride_w,
            dilation_h,
            dilation_w,
            pad_top,
            pad_left,
            lo,
            hi,
            gate,
            gate_scale,
            gate_shift,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_data::{random, reference_conv, same_bits, starting_values};
    use crate::{Bounds, Gate};

    /// A plain NCHW tensor of `c` channels in NCHW16c (padded channels zero).
    fn block_input(x: &[f32], c: usize, plane: usize) -> Vec<f32> {
        let blocks = c.div_ceil(BLOCK);
        let mut out = vec![0f32; blocks * plane * BLOCK];
        for ch in 0..c {
            for p in 0..plane {
                out[((ch / BLOCK) * plane + p) * BLOCK + ch % BLOCK] = x[ch * plane + p];
            }
        }
        out
    }

    /// An OIHW filter in OIHW16i16o.
    fn block_filter(f: &[f32], m: usize, c: usize, taps: usize) -> Vec<f32> {
        let (mb, cb) = (m.div_ceil(BLOCK), c.div_ceil(BLOCK));
        let mut out = vec![0f32; mb * cb * taps * BLOCK * BLOCK];
        for o in 0..m {
            for i in 0..c {
                for t in 0..taps {
                    let at = (((o / BLOCK) * cb + i / BLOCK) * taps + t) * BLOCK * BLOCK
                        + (i % BLOCK) * BLOCK
                        + o % BLOCK;
                    out[at] = f[(o * c + i) * taps + t];
                }
            }
        }
        out
    }

    /// An OIHW filter in OIHW16o (input channels one per block).
    fn block_filter_plain_input(f: &[f32], m: usize, c: usize, taps: usize) -> Vec<f32> {
        let mut out = vec![0f32; m.div_ceil(BLOCK) * c * taps * BLOCK];
        for o in 0..m {
            for i in 0..c {
                for t in 0..taps {
                    out[(((o / BLOCK) * c + i) * taps + t) * BLOCK + o % BLOCK] =
                        f[(o * c + i) * taps + t];
                }
            }
        }
        out
    }

    fn check(shape: Conv2d, fused_bias: bool, bounds: Bounds) {
        check_gated(shape, fused_bias, bounds, Gate::None);
    }

    fn check_gated(shape: Conv2d, fused_bias: bool, bounds: Bounds, gate: Gate) {
        check_input(shape, fused_bias, bounds, gate, false);
        check_input(shape, fused_bias, bounds, gate, true);
    }

    /// Compares with the reference (its sums rounded to f32, then activated);
    /// `plain_input`: the NCHW-input kernel.
    fn check_input(shape: Conv2d, fused_bias: bool, bounds: Bounds, gate: Gate, plain_input: bool) {
        let ([c, h, w], [m, kh, kw], [oh, ow]) = (shape.input, shape.filter, shape.output);
        let x = random(c * h * w, 1);
        let f = random(m * c * kh * kw, 2);
        let start = random(m * oh * ow, 3);
        let bias = random(m, 4);
        let mut want = if fused_bias {
            let mut r = vec![0f64; m * oh * ow];
            for (i, v) in r.iter_mut().enumerate() {
                *v = bias[i / (oh * ow)] as f64;
            }
            let zeros = vec![0f32; m * oh * ow];
            let conv = reference_conv(&x, &f, &zeros, shape, false);
            r.iter().zip(conv).map(|(a, b)| a + b).collect::<Vec<_>>()
        } else {
            reference_conv(&x, &f, &start, shape, false)
        };
        let fused = Fused {
            bias: None,
            bounds,
            gate,
        };
        for v in &mut want {
            *v = fused.activate(*v as f32) as f64;
        }
        let (xb, fb) = if plain_input {
            (x.clone(), block_filter_plain_input(&f, m, c, kh * kw))
        } else {
            (block_input(&x, c, h * w), block_filter(&f, m, c, kh * kw))
        };
        let mut bias_blocked = bias.clone();
        bias_blocked.resize(m.div_ceil(BLOCK) * BLOCK, 0.0);
        let fused = Fused {
            bias: fused_bias.then_some(bias_blocked.as_ptr()),
            ..fused
        };
        for portable in [false, true] {
            let mut out = block_input(&start, m, oh * ow);
            // SAFETY: the buffers have the blocked sizes of `shape`.
            unsafe {
                let (x, f, y) = (xb.as_ptr(), fb.as_ptr(), out.as_mut_ptr());
                match (plain_input, portable) {
                    (false, true) => sconv2d_nchw16c_portable(x, f, y, shape, fused),
                    (false, false) => sconv2d_nchw16c(x, f, y, shape, fused),
                    (true, true) => sconv2d_nchw_nchw16c_portable(x, f, y, shape, fused),
                    (true, false) => sconv2d_nchw_nchw16c(x, f, y, shape, fused),
                }
            };
            for o in 0..m {
                for p in 0..oh * ow {
                    let got = out[((o / BLOCK) * oh * ow + p) * BLOCK + o % BLOCK] as f64;
                    let w = want[o * oh * ow + p];
                    assert!(
                        (got - w).abs() <= 1e-4 * (1.0 + w.abs()),
                        "{shape:?} plain input={plain_input} portable={portable} channel {o} pixel {p}: {got} vs {w}"
                    );
                }
            }
        }
    }

    fn shape(c: usize, hw: usize, m: usize, k: usize, stride: usize, pad: usize) -> Conv2d {
        let out = (hw + 2 * pad - k) / stride + 1;
        Conv2d {
            input: [c, hw, hw],
            filter: [m, k, k],
            output: [out, out],
            stride: [stride, stride],
            dilation: [1, 1],
            padding: [pad, pad],
        }
    }

    #[test]
    fn threads_give_the_same_bits() {
        // 3 x 3 x 32 -> 48 channels on 16 x 16: 3.5M multiply-adds, rows split.
        let s = shape(32, 16, 48, 3, 1, 1);
        let ([c, h, w], [m, kh, kw], [oh, ow]) = (s.input, s.filter, s.output);
        let x = block_input(&random(c * h * w, 5), c, h * w);
        let f = block_filter(&random(m * c * kh * kw, 6), m, c, kh * kw);
        crate::threads::assert_same_bits_on_threads(|| {
            let mut out = vec![0f32; m * oh * ow];
            // SAFETY: the buffers have the blocked sizes of the shape.
            unsafe { sconv2d_nchw16c(x.as_ptr(), f.as_ptr(), out.as_mut_ptr(), s, Fused::NONE) };
            out
        });
    }

    /// The AVX2 and NEON kernels add the same products in the same order as the
    /// portable one, with fused multiply-adds: the same sums within rounding, on full
    /// and partial tiles, strides 1, 2 and 3, clamps and gates.
    #[test]
    fn vector_kernels_agree_with_the_portable_kernel() {
        let shapes = [
            shape(16, 7, 32, 3, 1, 1),
            shape(32, 9, 48, 3, 2, 1),
            shape(3, 10, 24, 3, 1, 1),
            shape(20, 6, 5, 1, 2, 0),
            shape(16, 20, 16, 3, 3, 1),
        ];
        let gates = [Gate::None, Gate::HARD_SWISH.0, Gate::Sigmoid];
        for (s, gate) in shapes.into_iter().zip(gates.into_iter().cycle()) {
            let ([c, h, w], [m, kh, kw], [oh, ow]) = (s.input, s.filter, s.output);
            for in_block in [BLOCK, 1] {
                let x = if in_block == BLOCK {
                    block_input(&random(c * h * w, 7), c, h * w)
                } else {
                    random(c * h * w, 7)
                };
                let f = if in_block == BLOCK {
                    block_filter(&random(m * c * kh * kw, 8), m, c, kh * kw)
                } else {
                    block_filter_plain_input(&random(m * c * kh * kw, 8), m, c, kh * kw)
                };
                let bias = random(m.div_ceil(BLOCK) * BLOCK, 9);
                let fused = Fused {
                    bias: Some(bias.as_ptr()),
                    bounds: Bounds { lo: -0.5, hi: 6.0 },
                    gate,
                };
                let run = |kernels| {
                    let mut out = vec![0f32; m.div_ceil(BLOCK) * BLOCK * oh * ow];
                    // SAFETY: the buffers have the blocked sizes of `s`.
                    unsafe {
                        blocked_output(
                            x.as_ptr(),
                            f.as_ptr(),
                            out.as_mut_ptr(),
                            s,
                            1,
                            fused,
                            in_block,
                            kernels,
                        )
                    };
                    out
                };
                let (fast, portable) = (run(Kernels::NoAvx512), run(Kernels::Portable));
                let tolerance = 1e-5 * ((c * kh * kw) as f32).sqrt();
                for (i, (a, b)) in fast.iter().zip(&portable).enumerate() {
                    assert!(
                        (a - b).abs() <= tolerance * (1.0 + b.abs()),
                        "{s:?}, input block {in_block}, {gate:?}: {i}: {a} vs {b}"
                    );
                }
                assert!(portable.iter().any(|v| *v != 0.0));
            }
        }
    }

    /// Whether this CPU runs vector kernels (AVX2 with FMA, or NEON), whose sums are
    /// one fused multiply-add per step.
    fn vector_kernels() -> bool {
        #[cfg(target_arch = "x86_64")]
        return crate::avx2_fma();
        #[cfg(target_arch = "aarch64")]
        return true;
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        return false;
    }

    /// The convolution as the vector kernels define it, from the plain NCHW input
    /// `x` (`c` channels) and OIHW filter `f`: each output from its bias (else from
    /// `start`), then one fused multiply-add per input block (channels past `c` read
    /// zeros), tap and channel of the block, in that order (padding reads zeros),
    /// then activated. A plain NCHW `[m][oh][ow]` result.
    fn fused_in_order(
        x: &[f32],
        f: &[f32],
        from: &[f32],
        s: Conv2d,
        in_block: usize,
        fused: Fused,
    ) -> Vec<f32> {
        let ([c, h, w], [m, kh, kw], [oh, ow]) = (s.input, s.filter, s.output);
        let at = |o: usize, k: usize, a: usize| {
            let v = (o * s.stride[a] + k * s.dilation[a]) as isize - s.padding[a] as isize;
            (v >= 0 && (v as usize) < [h, w][a]).then_some(v as usize)
        };
        let mut out = Vec::with_capacity(m * oh * ow);
        for o in 0..m {
            for y in 0..oh {
                for xo in 0..ow {
                    let mut acc = from[(o * oh + y) * ow + xo];
                    for cb in 0..c.div_ceil(in_block) {
                        for i in 0..kh {
                            for j in 0..kw {
                                for ic in 0..in_block {
                                    let ch = cb * in_block + ic;
                                    let (v, wt) = if ch < c {
                                        let v = match (at(y, i, 0), at(xo, j, 1)) {
                                            (Some(iy), Some(ix)) => x[(ch * h + iy) * w + ix],
                                            _ => 0.0,
                                        };
                                        (v, f[((o * c + ch) * kh + i) * kw + j])
                                    } else {
                                        (0.0, 0.0)
                                    };
                                    acc = v.mul_add(wt, acc);
                                }
                            }
                        }
                    }
                    out.push(fused.activate(acc));
                }
            }
        }
        out
    }

    /// The vector kernels (the best this CPU has, and the best short of AVX-512)
    /// compute their definition bit for bit ([`fused_in_order`]): full and partial
    /// tiles and channel blocks, strides 1, 2 and 3, dilation, padding, both input
    /// blocks, a bias or the output's contents, clamps and gates. The same bits on
    /// AVX-512, AVX2 and NEON.
    #[test]
    fn vector_kernels_fuse_each_step_in_order() {
        if !vector_kernels() {
            return;
        }
        let mut dilated = shape(16, 12, 16, 3, 1, 2);
        dilated.dilation = [2, 2];
        let shapes = [
            shape(16, 7, 32, 3, 1, 1),
            shape(32, 9, 48, 3, 2, 1),
            shape(20, 13, 24, 3, 1, 1),
            shape(16, 20, 16, 3, 3, 1),
            shape(3, 11, 40, 3, 2, 1),
            dilated,
        ];
        let (hard_swish, unit) = Gate::HARD_SWISH;
        let activations = [
            (Bounds::NONE, Gate::None),
            (Bounds { lo: -0.5, hi: 6.0 }, Gate::None),
            (unit, hard_swish),
            (Bounds::NONE, Gate::Sigmoid),
        ];
        for (n, s) in shapes.into_iter().enumerate() {
            let ([c, h, w], [m, kh, kw], [oh, ow]) = (s.input, s.filter, s.output);
            let (bounds, gate) = activations[n % activations.len()];
            let x = random(c * h * w, 21);
            let f = random(m * c * kh * kw, 22);
            let start = random(m * oh * ow, 23);
            let mut bias = random(m, 24);
            for in_block in [BLOCK, 1] {
                for with_bias in [true, false] {
                    let fused = Fused {
                        bias: None,
                        bounds,
                        gate,
                    };
                    let from = starting_values(with_bias, &bias, &start, oh * ow);
                    let want = fused_in_order(&x, &f, &from, s, in_block, fused);
                    let (xb, fb) = if in_block == BLOCK {
                        (block_input(&x, c, h * w), block_filter(&f, m, c, kh * kw))
                    } else {
                        (x.clone(), block_filter_plain_input(&f, m, c, kh * kw))
                    };
                    bias.resize(m.div_ceil(BLOCK) * BLOCK, 0.0);
                    let fused = Fused {
                        bias: with_bias.then_some(bias.as_ptr()),
                        ..fused
                    };
                    for kernels in [Kernels::Best, Kernels::NoAvx512] {
                        let mut out = block_input(&start, m, oh * ow);
                        // SAFETY: the buffers have the blocked sizes of `s`.
                        unsafe {
                            blocked_output(
                                xb.as_ptr(),
                                fb.as_ptr(),
                                out.as_mut_ptr(),
                                s,
                                1,
                                fused,
                                in_block,
                                kernels,
                            )
                        };
                        for o in 0..m {
                            for p in 0..oh * ow {
                                let got = out[((o / BLOCK) * oh * ow + p) * BLOCK + o % BLOCK];
                                let want = want[o * oh * ow + p];
                                assert!(
                                    same_bits(got, want),
                                    "{s:?}, input block {in_block}, bias {with_bias}, {gate:?}: \
                                     channel {o} pixel {p}: {got} vs {want}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    /// A grouped convolution: each group the dense convolution of its own input
    /// channels by its own filters (the reference run group by group), by every
    /// kernel, with one and two output blocks per group, and on threads.
    #[test]
    fn groups_convolve_their_own_channels() {
        let cases = [
            (2, shape(32, 9, 32, 3, 1, 1), true),
            (4, shape(64, 7, 64, 3, 2, 1), false),
            (3, shape(48, 8, 96, 1, 1, 0), true),
            (24, shape(384, 7, 384, 3, 1, 1), true),
        ];
        for (groups, s, with_bias) in cases {
            let ([c, h, w], [m, kh, kw], [oh, ow]) = (s.input, s.filter, s.output);
            assert!(grouping_fits(&s, groups));
            let (cg, mg) = (c / groups, m / groups);
            let x = random(c * h * w, 11);
            let f = random(m * cg * kh * kw, 12);
            let start = random(m * oh * ow, 13);
            let bias = random(m, 14);
            let bounds = Bounds { lo: -0.5, hi: 6.0 };
            let part = Conv2d {
                input: [cg, h, w],
                filter: [mg, kh, kw],
                ..s
            };
            let mut want = Vec::with_capacity(m * oh * ow);
            for group in 0..groups {
                let plane = mg * oh * ow;
                let from = if with_bias {
                    (0..plane)
                        .map(|i| bias[group * mg + i / (oh * ow)])
                        .collect()
                } else {
                    start[group * plane..(group + 1) * plane].to_vec()
                };
                want.extend(reference_conv(
                    &x[group * cg * h * w..(group + 1) * cg * h * w],
                    &f[group * mg * cg * kh * kw..(group + 1) * mg * cg * kh * kw],
                    &from,
                    part,
                    false,
                ));
            }
            let (xb, fb) = (block_input(&x, c, h * w), block_filter(&f, m, cg, kh * kw));
            let fused = Fused {
                bias: with_bias.then_some(bias.as_ptr()),
                bounds,
                gate: Gate::None,
            };
            let run = |kernels| {
                let mut out = block_input(&start, m, oh * ow);
                // SAFETY: the buffers have the blocked sizes of `s`; the groups fit.
                unsafe {
                    blocked_output(
                        xb.as_ptr(),
                        fb.as_ptr(),
                        out.as_mut_ptr(),
                        s,
                        groups,
                        fused,
                        BLOCK,
                        kernels,
                    )
                };
                out
            };
            for kernels in [Kernels::Best, Kernels::NoAvx512, Kernels::Portable] {
                let out = run(kernels);
                for o in 0..m {
                    for p in 0..oh * ow {
                        let got = out[((o / BLOCK) * oh * ow + p) * BLOCK + o % BLOCK] as f64;
                        let w = want[o * oh * ow + p].clamp(-0.5, 6.0);
                        assert!(
                            (got - w).abs() <= 1e-4 * (1.0 + w.abs()),
                            "{groups} groups of {s:?}: channel {o} pixel {p}: {got} vs {w}"
                        );
                    }
                }
            }
            crate::threads::assert_same_bits_on_threads(|| run(Kernels::Best));
        }
    }

    #[test]
    fn agrees_with_the_reference() {
        check(shape(16, 7, 32, 3, 1, 1), false, Bounds::NONE);
        check(shape(32, 9, 48, 3, 2, 1), true, Bounds { lo: 0.0, hi: 6.0 });
        check(shape(16, 15, 16, 1, 1, 0), true, Bounds::NONE);
        check(
            shape(32, 8, 16, 1, 2, 0),
            false,
            Bounds {
                lo: 0.0,
                hi: f32::INFINITY,
            },
        );
        check(shape(16, 29, 16, 3, 1, 1), false, Bounds::NONE);
    }

    #[test]
    fn pads_partial_channel_blocks() {
        check(shape(3, 10, 24, 3, 1, 1), true, Bounds::NONE);
        check(shape(20, 6, 5, 3, 2, 2), false, Bounds::NONE);
    }

    #[test]
    fn strides_past_two_and_dilations() {
        check(shape(16, 13, 16, 3, 3, 1), false, Bounds::NONE);
        // Patch embeddings: a ViT's 16 x 16 / 16 and ConvNeXt's 4 x 4 / 4 stems.
        check(shape(3, 32, 24, 16, 16, 0), true, Bounds::NONE);
        check(
            shape(3, 16, 40, 4, 4, 0),
            false,
            Bounds { lo: 0.0, hi: 6.0 },
        );
        let mut s = shape(16, 12, 16, 3, 1, 2);
        s.dilation = [2, 2];
        check(s, true, Bounds::NONE);
    }

    #[test]
    fn gates_each_result_as_it_stores_it() {
        let (hard_swish, unit) = Gate::HARD_SWISH;
        // Both kernel shapes (two blocks, one block), with and without a bias, and
        // the plain-input kernel of a stem (check_gated runs both inputs).
        check_gated(shape(16, 9, 32, 3, 1, 1), true, unit, hard_swish);
        check_gated(shape(32, 7, 16, 1, 1, 0), false, unit, hard_swish);
        check_gated(shape(3, 12, 32, 3, 2, 1), true, Bounds::NONE, Gate::Sigmoid);
        check_gated(
            shape(16, 8, 48, 1, 1, 0),
            false,
            Bounds::NONE,
            Gate::Sigmoid,
        );
    }
}
