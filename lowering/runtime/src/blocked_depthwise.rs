//! `acc_sdwconv2d_nchw16c`: a batch-1 depthwise f32 convolution in blocked layouts
//! (one kh x kw filter per channel), the host's depthwise kernel for the `layout`
//! pass's NCHW16c preference.
//!
//! Layouts (`B` = 16; `C` the channel count rounded up to whole blocks): input and
//! output NCHW16c, `[C/B][H][W][B]` and `[C/B][OH][OW][B]`; filter OIHW16o with one
//! input channel per group, `[C/B][1][KH][KW][B]`; a bias `C` floats.
//!
//! With channels in the lanes every filter tap is one vector multiply-add per output
//! pixel: the kernel keeps up to 8 pixels (6 with AVX2 or NEON) of a row in registers and loads each tap's
//! filter vector once for them. Zero padding is read as zeros: rows outside the input
//! are skipped, and a pixel whose column is outside reads a zero vector.

use crate::Fused;
use crate::blocked::BLOCK;
use crate::conv::Conv2d;

/// out = clamp(out + depthwise_conv(input, filter)), or with a bias clamp(bias[c] +
/// depthwise_conv(input, filter)) (out's contents unread), in the blocked layouts of
/// this module; `shape.input[0]` is the channel count (rounded up to blocks here),
/// `shape.filter[0]` is ignored.
///
/// # Safety
/// The buffers hold the blocked sizes of `shape` (a bias the rounded-up C floats);
/// the output overlaps none of the others.
pub unsafe fn sdwconv2d_nchw16c(
    input: *const f32,
    filter: *const f32,
    output: *mut f32,
    shape: Conv2d,
    fused: Fused,
) {
    #[cfg(target_arch = "x86_64")]
    if crate::avx512() {
        // SAFETY: the CPU has AVX-512F; the caller vouches for the memory.
        unsafe { run(input, filter, output, &shape, fused, &avx512::TILES) };
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if crate::avx2_fma() {
        // SAFETY: the CPU has AVX2 and FMA; the caller vouches for the memory.
        unsafe { run(input, filter, output, &shape, fused, &avx2::TILES) };
        return;
    }
    #[cfg(target_arch = "aarch64")]
    // SAFETY: every AArch64 CPU has NEON; the caller vouches for the memory.
    unsafe {
        run(input, filter, output, &shape, fused, &neon::TILES)
    }
    #[cfg(not(target_arch = "aarch64"))]
    // SAFETY: as above.
    unsafe {
        sdwconv2d_nchw16c_portable(input, filter, output, shape, fused)
    }
}

/// The input position of output coordinate `o`'s tap `k` along an axis, if inside.
fn tap(
    o: usize,
    k: usize,
    stride: usize,
    dilation: usize,
    pad: usize,
    size: usize,
) -> Option<usize> {
    let at = (o * stride + k * dilation).checked_sub(pad)?;
    (at < size).then_some(at)
}

/// [`sdwconv2d_nchw16c`] on any CPU, one output vector at a time.
///
/// # Safety
/// As [`sdwconv2d_nchw16c`].
pub unsafe fn sdwconv2d_nchw16c_portable(
    input: *const f32,
    filter: *const f32,
    output: *mut f32,
    shape: Conv2d,
    fused: Fused,
) {
    // SAFETY: the caller's contract.
    unsafe { sums(input, filter, output, shape, fused) }
}

/// The depthwise sums, one output vector at a time (inlined into each instruction
/// set's version).
///
/// # Safety
/// As [`sdwconv2d_nchw16c`].
#[inline(always)]
unsafe fn sums(
    input: *const f32,
    filter: *const f32,
    output: *mut f32,
    shape: Conv2d,
    fused: Fused,
) {
    let ([c, h, w], [_, kh, kw], [oh, ow]) = (shape.input, shape.filter, shape.output);
    for cb in 0..c.div_ceil(BLOCK) {
        for y in 0..oh {
            for x in 0..ow {
                // SAFETY: pixel (y, x) of output block cb.
                let out = unsafe { output.add(((cb * oh + y) * ow + x) * BLOCK) };
                let mut acc = [0f32; BLOCK];
                for (l, a) in acc.iter_mut().enumerate() {
                    // SAFETY: the bias holds the blocked C floats; the output pixel
                    // holds BLOCK.
                    *a = unsafe {
                        match fused.bias {
                            Some(b) => *b.add(cb * BLOCK + l),
                            None => *out.add(l),
                        }
                    };
                }
                for i in 0..kh {
                    let Some(iy) = tap(
                        y,
                        i,
                        shape.stride[0],
                        shape.dilation[0],
                        shape.padding[0],
                        h,
                    ) else {
                        continue;
                    };
                    for j in 0..kw {
                        let Some(ix) = tap(
                            x,
                            j,
                            shape.stride[1],
                            shape.dilation[1],
                            shape.padding[1],
                            w,
                        ) else {
                            continue;
                        };
                        // SAFETY: (iy, ix) lies in the input; tap (i, j) in block cb's filter.
                        let (xs, ws) = unsafe {
                            (
                                input.add(((cb * h + iy) * w + ix) * BLOCK),
                                filter.add(((cb * kh + i) * kw + j) * BLOCK),
                            )
                        };
                        for (l, a) in acc.iter_mut().enumerate() {
                            // SAFETY: as above.
                            *a += unsafe { *xs.add(l) * *ws.add(l) };
                        }
                    }
                }
                for (l, a) in acc.iter().enumerate() {
                    // SAFETY: as above.
                    unsafe { *out.add(l) = fused.activate(*a) };
                }
            }
        }
    }
}

/// Sixteen zeros: what a pixel reads for a tap left or right of the input.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
static ZEROS: [f32; BLOCK] = [0.0; BLOCK];

/// Where one tile reads and writes: its channel block's input plane, filter and
/// bias, its first output pixel and its output row and column.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
struct Tile {
    input: *const f32,
    filter: *const f32,
    bias: Option<*const f32>,
    output: *mut f32,
    y: usize,
    x: usize,
}

/// An instruction set's tile kernels for runs of `pixels` pixels of a row, widest
/// first, the last for one: each takes the tile, the shape, the activation and
/// whether some tap of some pixel lies left or right of the input (it reads zeros).
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
struct Tiles {
    pixels: [usize; 4],
    kernels: [unsafe fn(&Tile, &Conv2d, Fused, bool); 4],
}

/// Runs every channel block, row and tile of pixels with `tiles`.
///
/// # Safety
/// The CPU can run `tiles`; the buffers hold the blocked sizes of `s`.
///
/// With a thread pool ([`crate::threads`]) and enough work, the channel blocks are
/// split into contiguous parts among the threads ([`crate::threads`]).
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
unsafe fn run(
    input: *const f32,
    filter: *const f32,
    output: *mut f32,
    s: &Conv2d,
    fused: Fused,
    tiles: &'static Tiles,
) {
    let ([c, _, _], [_, kh, kw], [oh, ow]) = (s.input, s.filter, s.output);
    let shared = crate::threads::Unshared((input, filter, output, *s, fused));
    let blocks = |range: std::ops::Range<usize>| {
        let (input, filter, output, s, fused) = shared.get();
        // SAFETY: the CPU can run `tiles` (the caller's contract); parts write
        // disjoint channel blocks and only read the input and the filter.
        unsafe { run_blocks(input, filter, output, &s, fused, tiles, range) };
    };
    crate::threads::split(c.div_ceil(BLOCK), c * oh * ow * kh * kw, &blocks);
}

/// [`run`] on the channel blocks in `blocks`.
///
/// # Safety
/// As [`run`]; the blocks lie inside the buffers.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
unsafe fn run_blocks(
    input: *const f32,
    filter: *const f32,
    output: *mut f32,
    s: &Conv2d,
    fused: Fused,
    tiles: &Tiles,
    blocks: std::ops::Range<usize>,
) {
    let ([_, h, w], [_, kh, kw], [oh, ow]) = (s.input, s.filter, s.output);
    // The output columns whose taps all lie inside the input: no checks there.
    let first = -(s.padding[1] as isize);
    let (lo, hi) = crate::conv::inside(first, s.stride[1], ow, w);
    let last_tap = ((kw.max(1) - 1) * s.dilation[1]) as isize;
    let (_, hi_last) = crate::conv::inside(first + last_tap, s.stride[1], ow, w);
    let (safe_lo, safe_hi) = (lo, hi.min(hi_last).max(lo));
    for cb in blocks {
        for y in 0..oh {
            let mut x = 0;
            while x < ow {
                let (pixels, tile) = tiles
                    .pixels
                    .into_iter()
                    .zip(&tiles.kernels)
                    .find(|(p, _)| x + p <= ow)
                    .unwrap_or((1, &tiles.kernels[3]));
                let checked = x < safe_lo || x + pixels > safe_hi;
                // SAFETY (block): the offsets stay inside the blocked buffers.
                let t = unsafe {
                    Tile {
                        input: input.add(cb * h * w * BLOCK),
                        filter: filter.add(cb * kh * kw * BLOCK),
                        bias: fused.bias.map(|b| b.add(cb * BLOCK)),
                        output: output.add(((cb * oh + y) * ow + x) * BLOCK),
                        y,
                        x,
                    }
                };
                // SAFETY: the CPU can run the tile; it lies inside the buffers.
                unsafe { tile(&t, s, fused, checked) };
                x += pixels;
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::{BLOCK, Tile, Tiles, ZEROS};
    use crate::conv::Conv2d;
    use crate::{Bounds, Fused, Gate};
    use std::arch::x86_64::*;

    /// The AVX-512 tiles (one 16-lane accumulator per pixel).
    pub(super) static TILES: Tiles = Tiles {
        pixels: [8, 4, 2, 1],
        kernels: [tile::<8>, tile::<4>, tile::<2>, tile::<1>],
    };

    /// P output pixels of one row and channel block; `checked`: some tap of some
    /// pixel lies left or right of the input (it reads zeros).
    ///
    /// # Safety
    /// The CPU has AVX-512F; the tile lies inside the buffers.
    #[target_feature(enable = "avx512f")]
    unsafe fn tile<const P: usize>(t: &Tile, s: &Conv2d, fused: Fused, checked: bool) {
        let ([_, h, w], [_, kh, kw]) = (s.input, s.filter);
        let mut acc = [_mm512_setzero_ps(); P];
        // SAFETY (block): every address is inside the tile's buffers, or ZEROS.
        unsafe {
            for (p, a) in acc.iter_mut().enumerate() {
                *a = match t.bias {
                    Some(b) => _mm512_loadu_ps(b),
                    None => _mm512_loadu_ps(t.output.add(p * BLOCK)),
                };
            }
            for i in 0..kh {
                let iy = (t.y * s.stride[0] + i * s.dilation[0]) as isize - s.padding[0] as isize;
                if iy < 0 || iy >= h as isize {
                    continue;
                }
                let row = t.input.add(iy as usize * w * BLOCK);
                for j in 0..kw {
                    let wv = _mm512_loadu_ps(t.filter.add((i * kw + j) * BLOCK));
                    let first =
                        (t.x * s.stride[1] + j * s.dilation[1]) as isize - s.padding[1] as isize;
                    for (p, a) in acc.iter_mut().enumerate() {
                        let ix = first + (p * s.stride[1]) as isize;
                        let source = if !checked || (ix >= 0 && ix < w as isize) {
                            row.wrapping_offset(ix * BLOCK as isize)
                        } else {
                            ZEROS.as_ptr()
                        };
                        *a = _mm512_fmadd_ps(_mm512_loadu_ps(source), wv, *a);
                    }
                }
            }
            let bounds = fused.bounds_as_stored();
            let (lo, hi) = (_mm512_set1_ps(bounds.lo), _mm512_set1_ps(bounds.hi));
            for (p, a) in acc.iter().enumerate() {
                let v = if bounds == Bounds::NONE {
                    *a
                } else {
                    bounds.apply(lo, hi, *a)
                };
                _mm512_storeu_ps(t.output.add(p * BLOCK), v);
            }
            if fused.gate != Gate::None {
                crate::epilogue::gate_vectors(t.output, P, fused);
            }
        }
    }
}

/// The AVX2 and FMA tiles: each pixel's 16 lanes in two 8-lane accumulators, the
/// same sums in the same order as the AVX-512 tiles'.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{BLOCK, Tile, Tiles, ZEROS};
    use crate::conv::Conv2d;
    use crate::{Fused, Gate};
    use std::arch::x86_64::*;

    /// The AVX2 tiles (two 8-lane accumulators per pixel): at most 6 pixels, whose
    /// 12 accumulators and two filter vectors fit the 16 ymm registers (8 pixels
    /// spilled accumulators).
    pub(super) static TILES: Tiles = Tiles {
        pixels: [6, 4, 2, 1],
        kernels: [tile::<6>, tile::<4>, tile::<2>, tile::<1>],
    };

    /// P output pixels of one row and channel block; `checked`: some tap of some
    /// pixel lies left or right of the input (it reads zeros).
    ///
    /// # Safety
    /// The CPU has AVX2 and FMA; the tile lies inside the buffers.
    #[target_feature(enable = "avx2,fma")]
    unsafe fn tile<const P: usize>(t: &Tile, s: &Conv2d, fused: Fused, checked: bool) {
        const HALF: usize = BLOCK / 2;
        let ([_, h, w], [_, kh, kw]) = (s.input, s.filter);
        // SAFETY (block): every address is inside the tile's buffers, or ZEROS.
        unsafe {
            let mut acc: [[__m256; 2]; P] = std::array::from_fn(|p| {
                std::array::from_fn(|l| match t.bias {
                    Some(b) => _mm256_loadu_ps(b.add(l * HALF)),
                    None => _mm256_loadu_ps(t.output.add(p * BLOCK + l * HALF)),
                })
            });
            for i in 0..kh {
                let iy = (t.y * s.stride[0] + i * s.dilation[0]) as isize - s.padding[0] as isize;
                if iy < 0 || iy >= h as isize {
                    continue;
                }
                let row = t.input.add(iy as usize * w * BLOCK);
                for j in 0..kw {
                    let taps = t.filter.add((i * kw + j) * BLOCK);
                    let (w0, w1) = (_mm256_loadu_ps(taps), _mm256_loadu_ps(taps.add(HALF)));
                    let first =
                        (t.x * s.stride[1] + j * s.dilation[1]) as isize - s.padding[1] as isize;
                    for (p, a) in acc.iter_mut().enumerate() {
                        let ix = first + (p * s.stride[1]) as isize;
                        let source = if !checked || (ix >= 0 && ix < w as isize) {
                            row.wrapping_offset(ix * BLOCK as isize)
                        } else {
                            ZEROS.as_ptr()
                        };
                        a[0] = _mm256_fmadd_ps(_mm256_loadu_ps(source), w0, a[0]);
                        a[1] = _mm256_fmadd_ps(_mm256_loadu_ps(source.add(HALF)), w1, a[1]);
                    }
                }
            }
            // max/min give their second operand when either is NaN: the sum, as
            // `Bounds::apply_scalar` keeps it.
            let bounds = fused.bounds_as_stored();
            let (lo, hi) = (_mm256_set1_ps(bounds.lo), _mm256_set1_ps(bounds.hi));
            for (p, a) in acc.iter().enumerate() {
                for (l, v) in a.iter().enumerate() {
                    let v = _mm256_min_ps(hi, _mm256_max_ps(lo, *v));
                    _mm256_storeu_ps(t.output.add(p * BLOCK + l * HALF), v);
                }
            }
            if fused.gate != Gate::None {
                let stored = std::slice::from_raw_parts_mut(t.output, P * BLOCK);
                crate::epilogue::activate_all_fma(fused, stored);
            }
        }
    }
}

/// The NEON tiles: each pixel's 16 lanes in four 4-lane accumulators, the same sums
/// in the same order as the x86 tiles' (`fmla`: the same bits).
#[cfg(target_arch = "aarch64")]
mod neon {
    use super::{BLOCK, Tile, Tiles, ZEROS};
    use crate::conv::Conv2d;
    use crate::{Fused, Gate};
    use std::arch::aarch64::*;

    const LANES: usize = 4;
    const QUARTERS: usize = BLOCK / LANES;

    /// The NEON tiles (four 4-lane accumulators per pixel): at most 6 pixels, whose
    /// 24 accumulators and four filter vectors fit the 32 q registers.
    pub(super) static TILES: Tiles = Tiles {
        pixels: [6, 4, 2, 1],
        kernels: [tile::<6>, tile::<4>, tile::<2>, tile::<1>],
    };

    /// P output pixels of one row and channel block; `checked`: some tap of some
    /// pixel lies left or right of the input (it reads zeros).
    ///
    /// # Safety
    /// The tile lies inside the buffers (every AArch64 CPU has NEON).
    unsafe fn tile<const P: usize>(t: &Tile, s: &Conv2d, fused: Fused, checked: bool) {
        let ([_, h, w], [_, kh, kw]) = (s.input, s.filter);
        // SAFETY (block): every address is inside the tile's buffers, or ZEROS.
        unsafe {
            let mut acc: [[float32x4_t; QUARTERS]; P] = std::array::from_fn(|p| {
                std::array::from_fn(|l| match t.bias {
                    Some(b) => vld1q_f32(b.add(l * LANES)),
                    None => vld1q_f32(t.output.add(p * BLOCK + l * LANES)),
                })
            });
            for i in 0..kh {
                let iy = (t.y * s.stride[0] + i * s.dilation[0]) as isize - s.padding[0] as isize;
                if iy < 0 || iy >= h as isize {
                    continue;
                }
                let row = t.input.add(iy as usize * w * BLOCK);
                for j in 0..kw {
                    let taps = t.filter.add((i * kw + j) * BLOCK);
                    let wv: [float32x4_t; QUARTERS] =
                        std::array::from_fn(|l| vld1q_f32(taps.add(l * LANES)));
                    let first =
                        (t.x * s.stride[1] + j * s.dilation[1]) as isize - s.padding[1] as isize;
                    for (p, a) in acc.iter_mut().enumerate() {
                        let ix = first + (p * s.stride[1]) as isize;
                        let source = if !checked || (ix >= 0 && ix < w as isize) {
                            row.wrapping_offset(ix * BLOCK as isize)
                        } else {
                            ZEROS.as_ptr()
                        };
                        for (l, (a, w)) in a.iter_mut().zip(&wv).enumerate() {
                            *a = vfmaq_f32(*a, vld1q_f32(source.add(l * LANES)), *w);
                        }
                    }
                }
            }
            // fmax/fmin return a NaN operand: a NaN sum stays NaN, as
            // `Bounds::apply_scalar` keeps it.
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
}

/// The C entry point: out = activation(out + depthwise_conv(input, filter)) by
/// [`sdwconv2d_nchw16c`], with the sizes of [`crate::depthwise::acc_sdwconv2d`] (the
/// channel count rounded up to whole blocks), then the activation's arguments as
/// for [`crate::blocked::acc_sconv2d_nchw16c`] (`lo`, `hi`, the gate).
///
/// # Safety
/// As [`sdwconv2d_nchw16c`].
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn acc_sdwconv2d_nchw16c(
    input: *const f32,
    filter: *const f32,
    output: *mut f32,
    channels: i64,
    height: i64,
    width: i64,
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
        acc_sdwconv2d_nchw16c_bias(
            input,
            filter,
            std::ptr::null(),
            output,
            channels,
            height,
            width,
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

/// [`acc_sdwconv2d_nchw16c`] with each channel starting from its bias (C floats,
/// rounded up to whole blocks) instead of the output's contents; a null bias is none.
///
/// # Safety
/// As [`sdwconv2d_nchw16c`].
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn acc_sdwconv2d_nchw16c_bias(
    input: *const f32,
    filter: *const f32,
    bias: *const f32,
    output: *mut f32,
    channels: i64,
    height: i64,
    width: i64,
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
        [channels, kernel_h, kernel_w],
        [out_h, out_w],
        [stride_h, stride_w],
        [dilation_h, dilation_w],
        [pad_top, pad_left],
    );
    let fused = Fused::of_gated_call(bias, lo, hi, gate, gate_scale, gate_shift);
    // SAFETY: the caller vouches for the buffers.
    unsafe { sdwconv2d_nchw16c(input, filter, output, shape, fused) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_data::{random, reference_conv, same_bits, starting_values};
    use crate::{Bounds, Gate};

    /// A plain `[c][plane]` array in blocks of 16 channels (padding lanes zero).
    fn block(x: &[f32], c: usize, plane: usize) -> Vec<f32> {
        let mut out = vec![0f32; c.div_ceil(BLOCK) * plane * BLOCK];
        for ch in 0..c {
            for p in 0..plane {
                out[((ch / BLOCK) * plane + p) * BLOCK + ch % BLOCK] = x[ch * plane + p];
            }
        }
        out
    }

    fn check(c: usize, hw: usize, k: usize, stride: usize, pad: usize, bias: bool, bounds: Bounds) {
        check_gated(c, hw, [k, stride, pad], bias, bounds, Gate::None);
    }

    /// Compares with the reference (its sums rounded to f32, then activated).
    fn check_gated(
        c: usize,
        hw: usize,
        [k, stride, pad]: [usize; 3],
        bias: bool,
        bounds: Bounds,
        gate: Gate,
    ) {
        let out = (hw + 2 * pad - k) / stride + 1;
        let shape = Conv2d {
            input: [c, hw, hw],
            filter: [c, k, k],
            output: [out, out],
            stride: [stride, stride],
            dilation: [1, 1],
            padding: [pad, pad],
        };
        let x = random(c * hw * hw, 5);
        let f = random(c * k * k, 6);
        let start = random(c * out * out, 7);
        let b = random(c, 8);
        let mut want = if bias {
            let zeros = vec![0f32; c * out * out];
            let conv = reference_conv(&x, &f, &zeros, shape, true);
            conv.iter()
                .enumerate()
                .map(|(i, v)| v + b[i / (out * out)] as f64)
                .collect::<Vec<_>>()
        } else {
            reference_conv(&x, &f, &start, shape, true)
        };
        let mut bb = b.clone();
        bb.resize(c.div_ceil(BLOCK) * BLOCK, 0.0);
        let fused = Fused {
            bias: bias.then_some(bb.as_ptr()),
            bounds,
            gate,
        };
        for v in &mut want {
            *v = fused.activate(*v as f32) as f64;
        }
        let (xb, fb) = (block(&x, c, hw * hw), block(&f, c, k * k));
        for portable in [false, true] {
            let mut got = block(&start, c, out * out);
            // SAFETY: the vectors hold the blocked buffers of `shape`.
            unsafe {
                if portable {
                    sdwconv2d_nchw16c_portable(
                        xb.as_ptr(),
                        fb.as_ptr(),
                        got.as_mut_ptr(),
                        shape,
                        fused,
                    )
                } else {
                    sdwconv2d_nchw16c(xb.as_ptr(), fb.as_ptr(), got.as_mut_ptr(), shape, fused)
                }
            };
            for ch in 0..c {
                for p in 0..out * out {
                    let g = got[((ch / BLOCK) * out * out + p) * BLOCK + ch % BLOCK] as f64;
                    let w = want[ch * out * out + p];
                    assert!(
                        (g - w).abs() <= 1e-4 * (1.0 + w.abs()),
                        "{shape:?} portable={portable} channel {ch} pixel {p}: {g} vs {w}"
                    );
                }
            }
        }
    }

    #[test]
    fn threads_give_the_same_bits() {
        // 64 channels, 3 x 3 on 48 x 48: 1.3M multiply-adds, channel blocks split.
        let (c, hw) = (64, 48);
        let shape = Conv2d {
            input: [c, hw, hw],
            filter: [c, 3, 3],
            output: [hw, hw],
            stride: [1, 1],
            dilation: [1, 1],
            padding: [1, 1],
        };
        let xb = block(&random(c * hw * hw, 9), c, hw * hw);
        let fb = block(&random(c * 9, 10), c, 9);
        crate::threads::assert_same_bits_on_threads(|| {
            let mut out = vec![0f32; c * hw * hw];
            // SAFETY: the vectors hold the blocked buffers of `shape`.
            unsafe {
                sdwconv2d_nchw16c(
                    xb.as_ptr(),
                    fb.as_ptr(),
                    out.as_mut_ptr(),
                    shape,
                    Fused::NONE,
                )
            };
            out
        });
    }

    /// The depthwise convolution as the vector tiles define it, from the plain NCHW
    /// input `x` and filter `f` (one per channel): each output from `from`, then one
    /// fused multiply-add per tap in order (rows outside the input skipped, columns
    /// outside read zeros), then activated. A plain `[c][oh][ow]` result.
    fn fused_in_order(x: &[f32], f: &[f32], from: &[f32], s: &Conv2d, fused: Fused) -> Vec<f32> {
        let ([c, h, w], [_, kh, kw], [oh, ow]) = (s.input, s.filter, s.output);
        let at = |o: usize, k: usize, a: usize| {
            let v = (o * s.stride[a] + k * s.dilation[a]) as isize - s.padding[a] as isize;
            (v >= 0 && (v as usize) < [h, w][a]).then_some(v as usize)
        };
        let mut out = Vec::with_capacity(c * oh * ow);
        for ch in 0..c {
            for y in 0..oh {
                for xo in 0..ow {
                    let mut acc = from[(ch * oh + y) * ow + xo];
                    for i in 0..kh {
                        let Some(iy) = at(y, i, 0) else { continue };
                        for j in 0..kw {
                            let v = at(xo, j, 1).map_or(0.0, |ix| x[(ch * h + iy) * w + ix]);
                            acc = v.mul_add(f[(ch * kh + i) * kw + j], acc);
                        }
                    }
                    out.push(fused.activate(acc));
                }
            }
        }
        out
    }

    /// The vector tiles this CPU has (AVX-512, AVX2 with FMA, NEON).
    fn vector_tiles() -> Vec<&'static Tiles> {
        #[cfg(target_arch = "x86_64")]
        return [
            (crate::avx512(), &avx512::TILES),
            (crate::avx2_fma(), &avx2::TILES),
        ]
        .into_iter()
        .filter_map(|(has, tiles)| has.then_some(tiles))
        .collect();
        #[cfg(target_arch = "aarch64")]
        return vec![&neon::TILES];
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        return Vec::new();
    }

    /// Every vector tile set this CPU has computes the definition bit for bit
    /// ([`fused_in_order`]; the same bits on AVX-512, AVX2 and NEON): padding on
    /// every side, strides 1, 2 and 3, a dilation, partial channel blocks and tiles,
    /// a bias or the output's contents, clamps and gates.
    #[test]
    fn vector_tiles_fuse_each_step_in_order() {
        let (hard_swish, unit) = Gate::HARD_SWISH;
        let cases = [
            (
                40,
                11,
                [3, 2, 1],
                1,
                Bounds { lo: 0.0, hi: 6.0 },
                Gate::None,
            ),
            (16, 13, [3, 1, 1], 1, Bounds::NONE, Gate::Sigmoid),
            (24, 15, [5, 2, 2], 1, unit, hard_swish),
            (32, 10, [3, 3, 0], 1, Bounds::NONE, Gate::None),
            (16, 12, [3, 1, 2], 2, Bounds::NONE, Gate::None),
        ];
        for (c, hw, [k, stride, pad], dilation, bounds, gate) in cases {
            let out = (hw + 2 * pad - dilation * (k - 1) - 1) / stride + 1;
            let shape = Conv2d {
                input: [c, hw, hw],
                filter: [c, k, k],
                output: [out, out],
                stride: [stride, stride],
                dilation: [dilation, dilation],
                padding: [pad, pad],
            };
            let x = random(c * hw * hw, 11);
            let f = random(c * k * k, 12);
            let start = random(c * out * out, 13);
            let mut bias = random(c, 14);
            for with_bias in [true, false] {
                let fused = Fused {
                    bias: None,
                    bounds,
                    gate,
                };
                let from = starting_values(with_bias, &bias, &start, out * out);
                let want = fused_in_order(&x, &f, &from, &shape, fused);
                bias.resize(c.div_ceil(BLOCK) * BLOCK, 0.0);
                let fused = Fused {
                    bias: with_bias.then_some(bias.as_ptr()),
                    ..fused
                };
                let (xb, fb) = (block(&x, c, hw * hw), block(&f, c, k * k));
                for tiles in vector_tiles() {
                    let mut got = block(&start, c, out * out);
                    // SAFETY: the vectors hold the blocked buffers of `shape`; the CPU
                    // can run the tiles.
                    unsafe {
                        super::run(
                            xb.as_ptr(),
                            fb.as_ptr(),
                            got.as_mut_ptr(),
                            &shape,
                            fused,
                            tiles,
                        )
                    };
                    for ch in 0..c {
                        for p in 0..out * out {
                            let g = got[((ch / BLOCK) * out * out + p) * BLOCK + ch % BLOCK];
                            let w = want[ch * out * out + p];
                            assert!(
                                same_bits(g, w),
                                "{shape:?} {} pixels, bias {with_bias}, {gate:?}: \
                                 channel {ch} pixel {p}: {g} vs {w}",
                                tiles.pixels[0]
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn agrees_with_the_reference() {
        check(16, 7, 3, 1, 1, false, Bounds::NONE);
        check(32, 12, 3, 2, 1, true, Bounds { lo: 0.0, hi: 6.0 });
        check(24, 15, 3, 1, 1, true, Bounds::NONE);
        check(16, 20, 5, 2, 2, false, Bounds::NONE);
        check(
            48,
            9,
            3,
            3,
            0,
            false,
            Bounds {
                lo: 0.0,
                hi: f32::INFINITY,
            },
        );
    }

    #[test]
    fn gates_each_result_as_it_stores_it() {
        let (hard_swish, unit) = Gate::HARD_SWISH;
        check_gated(32, 9, [3, 1, 1], true, unit, hard_swish);
        check_gated(16, 12, [5, 2, 2], false, unit, hard_swish);
        check_gated(48, 10, [3, 2, 1], true, Bounds::NONE, Gate::Sigmoid);
        check_gated(16, 7, [3, 1, 1], false, Bounds::NONE, Gate::Sigmoid);
    }
}
