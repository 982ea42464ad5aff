//! `acc_spool2d_nchw16c`: max and average pooling of a batch-1 f32 tensor in
//! NCHW16c (`[C/16][H][W][16]` in, `[C/16][OH][OW][16]` out), the host's pool for
//! the `layout` pass's blocked tensors.
//!
//! Output (y, x) of a block reads input row `y * sh + i * dh - pad_top` and column
//! `x * sw + j * dw - pad_left` for i < kh, j < kw, in that order, skipping positions
//! outside the input. A max starts from -inf and takes IEEE 754 `maximum` (a NaN
//! wins, +0 is above -0), as `arith.maximumf`; an average sums from zero in window
//! order and divides by the positions inside (or by kh x kw with
//! `count_include_pad`): the same operations in the same order as the loops
//! `bufferize` generates otherwise, so the same values. With channels in the lanes
//! each window position is one vector operation.

use crate::blocked::BLOCK;

/// A pool's geometry: input and output extents, window, strides, dilations, top
/// and left padding, what it computes.
#[derive(Clone, Copy, Debug)]
pub struct Pool2d {
    pub blocks: usize,
    pub input: [usize; 2],
    pub output: [usize; 2],
    pub window: [usize; 2],
    pub stride: [usize; 2],
    pub dilation: [usize; 2],
    pub pad: [usize; 2],
    pub average: bool,
    pub count_include_pad: bool,
}

impl Pool2d {
    /// The input position of output coordinate `o`'s window position `k` along
    /// axis `a`, if inside.
    fn tap(&self, a: usize, o: usize, k: usize) -> Option<usize> {
        let at = (o * self.stride[a] + k * self.dilation[a]).checked_sub(self.pad[a])?;
        (at < self.input[a]).then_some(at)
    }
}

/// IEEE 754 `maximum` of two floats, as `arith.maximumf`.
fn maximum(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        f32::NAN
    } else if a == b {
        // -0 and +0: +0 unless both are -0.
        f32::from_bits(a.to_bits() & b.to_bits())
    } else {
        a.max(b)
    }
}

/// Pools `x` into `out` as the module says.
///
/// # Safety
/// `x` holds `blocks x H x W x 16` floats, `out` `blocks x OH x OW x 16`, and they
/// do not overlap.
pub unsafe fn spool2d_nchw16c(x: *const f32, out: *mut f32, p: Pool2d) {
    let [oh, ow] = p.output;
    let rows = p.blocks * oh;
    let work = rows * ow * p.window[0] * p.window[1] * BLOCK;
    let shared = crate::threads::Unshared((x, out));
    let part = |range: std::ops::Range<usize>| {
        let (x, out) = shared.get();
        for row in range {
            // SAFETY: each part writes its own output rows; the caller vouches for
            // the buffers.
            unsafe { pool_row(x, out, &p, row / oh, row % oh) };
        }
    };
    crate::threads::split(rows, work, &part);
}

/// One output row (`block`, `y`).
///
/// # Safety
/// As [`spool2d_nchw16c`]; `block` and `y` lie inside the output.
unsafe fn pool_row(x: *const f32, out: *mut f32, p: &Pool2d, block: usize, y: usize) {
    #[cfg(target_arch = "x86_64")]
    if crate::avx512() {
        // SAFETY: the CPU has AVX-512F; the caller vouches for the rest.
        unsafe { avx512::pool_row(x, out, p, block, y) };
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if crate::avx2_fma() {
        // SAFETY: the CPU has AVX2; the caller vouches for the rest.
        unsafe { avx2::pool_row(x, out, p, block, y) };
        return;
    }
    #[cfg(target_arch = "aarch64")]
    // SAFETY: every AArch64 CPU has NEON; the caller vouches for the rest.
    unsafe {
        neon::pool_row(x, out, p, block, y)
    }
    #[cfg(not(target_arch = "aarch64"))]
    // SAFETY: the caller's contract.
    unsafe {
        portable_row(x, out, p, block, y)
    }
}

/// [`pool_row`] one element at a time (any CPU; AArch64 always has NEON).
///
/// # Safety
/// As [`pool_row`].
#[cfg_attr(target_arch = "aarch64", allow(dead_code))]
unsafe fn portable_row(x: *const f32, out: *mut f32, p: &Pool2d, block: usize, y: usize) {
    let [h, w] = p.input;
    let [oh, ow] = p.output;
    for ox in 0..ow {
        let mut acc = [if p.average { 0.0 } else { f32::NEG_INFINITY }; BLOCK];
        let mut count = 0f32;
        for i in 0..p.window[0] {
            let Some(iy) = p.tap(0, y, i) else { continue };
            for j in 0..p.window[1] {
                let Some(ix) = p.tap(1, ox, j) else { continue };
                let at = ((block * h + iy) * w + ix) * BLOCK;
                for (lane, a) in acc.iter_mut().enumerate() {
                    // SAFETY: (block, iy, ix) lies inside the input.
                    let v = unsafe { *x.add(at + lane) };
                    *a = if p.average { *a + v } else { maximum(*a, v) };
                }
                count += 1.0;
            }
        }
        let at = ((block * oh + y) * ow + ox) * BLOCK;
        let divisor = if p.count_include_pad {
            (p.window[0] * p.window[1]) as f32
        } else {
            count
        };
        for (lane, a) in acc.iter().enumerate() {
            let v = if p.average { *a / divisor } else { *a };
            // SAFETY: (block, y, ox) lies inside the output.
            unsafe { *out.add(at + lane) = v };
        }
    }
}

/// An output row's pixels in order, as (first pixel, whether it starts a group of
/// `group` pixels whose window columns all lie inside the input) : the vector
/// kernels compute such groups side by side and the other pixels one at a time.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
fn groups(p: &Pool2d, group: usize) -> impl Iterator<Item = (usize, bool)> {
    let ow = p.output[1];
    // Pixels whose window columns all lie inside the input.
    let first = p.pad[1].div_ceil(p.stride[1]).min(ow);
    let reach = (p.window[1] - 1) * p.dilation[1];
    let end = if p.input[1] + p.pad[1] > reach {
        ((p.input[1] + p.pad[1] - reach - 1) / p.stride[1] + 1).clamp(first, ow)
    } else {
        first
    };
    let mut ox = 0;
    std::iter::from_fn(move || {
        (ox < ow).then(|| {
            let grouped = ox >= first && ox + group <= end;
            let at = ox;
            ox += if grouped { group } else { 1 };
            (at, grouped)
        })
    })
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::{BLOCK, Pool2d};
    use std::arch::x86_64::*;

    /// IEEE 754 `maximum` of each lane, as [`super::maximum`].
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn maximum(a: __m512, b: __m512) -> __m512 {
        let m = _mm512_max_ps(a, b);
        let equal = _mm512_cmp_ps_mask::<_CMP_EQ_OQ>(a, b);
        let both = _mm512_castsi512_ps(_mm512_and_si512(
            _mm512_castps_si512(a),
            _mm512_castps_si512(b),
        ));
        let m = _mm512_mask_mov_ps(m, equal, both);
        let unordered = _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(a, b);
        _mm512_mask_mov_ps(m, unordered, _mm512_set1_ps(f32::NAN))
    }

    /// [`super::pool_row`] a vector per output pixel: [`GROUP`] pixels at a time
    /// where every window column is inside the input (their chains of maxima or
    /// sums run side by side), one at a time at the edges. Each pixel's window is
    /// taken in the same order either way.
    ///
    /// # Safety
    /// The CPU has AVX-512F; as [`super::pool_row`].
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn pool_row(
        x: *const f32,
        out: *mut f32,
        p: &Pool2d,
        block: usize,
        y: usize,
    ) {
        for (ox, group) in super::groups(p, GROUP) {
            // SAFETY: as this function's; a group's pixels have every window column
            // inside the input.
            unsafe {
                if group {
                    pixels::<GROUP>(x, out, p, block, y, ox)
                } else {
                    pixels::<1>(x, out, p, block, y, ox)
                }
            }
        }
    }

    /// Output pixels computed side by side.
    const GROUP: usize = 8;

    /// Output pixels ox..ox + G of row (`block`, `y`); with G > 1 every window
    /// column of each lies inside the input.
    ///
    /// # Safety
    /// The CPU has AVX-512F; as [`super::pool_row`], the pixels inside the output.
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn pixels<const G: usize>(
        x: *const f32,
        out: *mut f32,
        p: &Pool2d,
        block: usize,
        y: usize,
        ox: usize,
    ) {
        let [h, w] = p.input;
        let [oh, ow] = p.output;
        let start = if p.average { 0.0 } else { f32::NEG_INFINITY };
        let mut acc = [_mm512_set1_ps(start); G];
        let mut count = 0f32;
        for i in 0..p.window[0] {
            let Some(iy) = p.tap(0, y, i) else { continue };
            let row = (block * h + iy) * w;
            for j in 0..p.window[1] {
                if G == 1 && p.tap(1, ox, j).is_none() {
                    continue;
                }
                for (g, a) in acc.iter_mut().enumerate() {
                    // Inside the input (checked above for one pixel, by the
                    // caller's range for a group).
                    let ix = (ox + g) * p.stride[1] + j * p.dilation[1] - p.pad[1];
                    // SAFETY: (block, iy, ix) lies inside the input.
                    let v = unsafe { _mm512_loadu_ps(x.add((row + ix) * BLOCK)) };
                    *a = if p.average {
                        _mm512_add_ps(*a, v)
                    } else {
                        maximum(*a, v)
                    };
                }
                count += 1.0;
            }
        }
        for (g, a) in acc.iter().enumerate() {
            let mut v = *a;
            if p.average {
                let divisor = if p.count_include_pad {
                    (p.window[0] * p.window[1]) as f32
                } else {
                    count
                };
                v = _mm512_div_ps(v, _mm512_set1_ps(divisor));
            }
            // SAFETY: (block, y, ox + g) lies inside the output.
            unsafe { _mm512_storeu_ps(out.add(((block * oh + y) * ow + ox + g) * BLOCK), v) };
        }
    }
}

/// The AVX2 pool: each 16-channel vector of [`avx512`] as two 8-lane halves.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{BLOCK, Pool2d};
    use std::arch::x86_64::*;

    const HALF: usize = BLOCK / 2;

    /// IEEE 754 `maximum` of each lane, as [`super::maximum`].
    #[inline]
    #[target_feature(enable = "avx2")]
    fn maximum(a: __m256, b: __m256) -> __m256 {
        let m = _mm256_max_ps(a, b);
        let equal = _mm256_cmp_ps::<_CMP_EQ_OQ>(a, b);
        let m = _mm256_blendv_ps(m, _mm256_and_ps(a, b), equal);
        let unordered = _mm256_cmp_ps::<_CMP_UNORD_Q>(a, b);
        _mm256_blendv_ps(m, _mm256_set1_ps(f32::NAN), unordered)
    }

    /// [`super::pool_row`] two vectors per output pixel: [`GROUP`] pixels at a time
    /// where every window column is inside the input, one at a time at the edges,
    /// each pixel's window in the same order either way.
    ///
    /// # Safety
    /// The CPU has AVX2; as [`super::pool_row`].
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn pool_row(
        x: *const f32,
        out: *mut f32,
        p: &Pool2d,
        block: usize,
        y: usize,
    ) {
        for (ox, group) in super::groups(p, GROUP) {
            // SAFETY: as this function's; a group's pixels have every window column
            // inside the input.
            unsafe {
                if group {
                    pixels::<GROUP>(x, out, p, block, y, ox)
                } else {
                    pixels::<1>(x, out, p, block, y, ox)
                }
            }
        }
    }

    /// Output pixels computed side by side (12 of the 16 ymm registers).
    const GROUP: usize = 6;

    /// Output pixels ox..ox + G of row (`block`, `y`); with G > 1 every window
    /// column of each lies inside the input.
    ///
    /// # Safety
    /// The CPU has AVX2; as [`super::pool_row`], the pixels inside the output.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn pixels<const G: usize>(
        x: *const f32,
        out: *mut f32,
        p: &Pool2d,
        block: usize,
        y: usize,
        ox: usize,
    ) {
        let [h, w] = p.input;
        let [oh, ow] = p.output;
        let start = if p.average { 0.0 } else { f32::NEG_INFINITY };
        let mut acc = [[_mm256_set1_ps(start); 2]; G];
        let mut count = 0f32;
        for i in 0..p.window[0] {
            let Some(iy) = p.tap(0, y, i) else { continue };
            let row = (block * h + iy) * w;
            for j in 0..p.window[1] {
                if G == 1 && p.tap(1, ox, j).is_none() {
                    continue;
                }
                for (g, a) in acc.iter_mut().enumerate() {
                    // Inside the input (checked above for one pixel, by the
                    // caller's range for a group).
                    let ix = (ox + g) * p.stride[1] + j * p.dilation[1] - p.pad[1];
                    for (half, a) in a.iter_mut().enumerate() {
                        // SAFETY: (block, iy, ix) lies inside the input.
                        let v = unsafe { _mm256_loadu_ps(x.add((row + ix) * BLOCK + half * HALF)) };
                        *a = if p.average {
                            _mm256_add_ps(*a, v)
                        } else {
                            maximum(*a, v)
                        };
                    }
                }
                count += 1.0;
            }
        }
        let divisor = if p.count_include_pad {
            (p.window[0] * p.window[1]) as f32
        } else {
            count
        };
        for (g, a) in acc.iter().enumerate() {
            for (half, v) in a.iter().enumerate() {
                let v = if p.average {
                    _mm256_div_ps(*v, _mm256_set1_ps(divisor))
                } else {
                    *v
                };
                let at = ((block * oh + y) * ow + ox + g) * BLOCK + half * HALF;
                // SAFETY: (block, y, ox + g) lies inside the output.
                unsafe { _mm256_storeu_ps(out.add(at), v) };
            }
        }
    }
}

/// The NEON pool: each 16-channel vector of the AVX-512 pool as four 4-lane quarters.
/// `fmax` is IEEE 754 `maximum` itself (a NaN wins, +0 is above -0); a NaN result
/// keeps the input NaN's payload, where the scalar and x86 pools store the canonical
/// NaN.
#[cfg(target_arch = "aarch64")]
mod neon {
    use super::{BLOCK, Pool2d};
    use std::arch::aarch64::*;

    const LANES: usize = 4;
    const QUARTERS: usize = BLOCK / LANES;

    /// [`super::pool_row`] four vectors per output pixel: [`GROUP`] pixels at a
    /// time where every window column is inside the input, one at a time at the
    /// edges, each pixel's window in the same order either way.
    ///
    /// # Safety
    /// As [`super::pool_row`] (every AArch64 CPU has NEON).
    pub(super) unsafe fn pool_row(
        x: *const f32,
        out: *mut f32,
        p: &Pool2d,
        block: usize,
        y: usize,
    ) {
        for (ox, group) in super::groups(p, GROUP) {
            // SAFETY: as this function's; a group's pixels have every window column
            // inside the input.
            unsafe {
                if group {
                    pixels::<GROUP>(x, out, p, block, y, ox)
                } else {
                    pixels::<1>(x, out, p, block, y, ox)
                }
            }
        }
    }

    /// Output pixels computed side by side (24 of the 32 q registers).
    const GROUP: usize = 6;

    /// Output pixels ox..ox + G of row (`block`, `y`); with G > 1 every window
    /// column of each lies inside the input.
    ///
    /// # Safety
    /// As [`super::pool_row`], the pixels inside the output.
    #[inline]
    unsafe fn pixels<const G: usize>(
        x: *const f32,
        out: *mut f32,
        p: &Pool2d,
        block: usize,
        y: usize,
        ox: usize,
    ) {
        let [h, w] = p.input;
        let [oh, ow] = p.output;
        let start = if p.average { 0.0 } else { f32::NEG_INFINITY };
        // SAFETY (block): every address is inside the input or the output (the
        // caller's contract, and the window checks below).
        unsafe {
            let mut acc = [[vdupq_n_f32(start); QUARTERS]; G];
            let mut count = 0f32;
            for i in 0..p.window[0] {
                let Some(iy) = p.tap(0, y, i) else { continue };
                let row = (block * h + iy) * w;
                for j in 0..p.window[1] {
                    if G == 1 && p.tap(1, ox, j).is_none() {
                        continue;
                    }
                    for (g, a) in acc.iter_mut().enumerate() {
                        // Inside the input (checked above for one pixel, by the
                        // caller's range for a group).
                        let ix = (ox + g) * p.stride[1] + j * p.dilation[1] - p.pad[1];
                        for (l, a) in a.iter_mut().enumerate() {
                            let v = vld1q_f32(x.add((row + ix) * BLOCK + l * LANES));
                            *a = if p.average {
                                vaddq_f32(*a, v)
                            } else {
                                vmaxq_f32(*a, v)
                            };
                        }
                    }
                    count += 1.0;
                }
            }
            let divisor = if p.count_include_pad {
                (p.window[0] * p.window[1]) as f32
            } else {
                count
            };
            for (g, a) in acc.iter().enumerate() {
                for (l, v) in a.iter().enumerate() {
                    let v = if p.average {
                        vdivq_f32(*v, vdupq_n_f32(divisor))
                    } else {
                        *v
                    };
                    vst1q_f32(
                        out.add(((block * oh + y) * ow + ox + g) * BLOCK + l * LANES),
                        v,
                    );
                }
            }
        }
    }
}

/// The C ABI entry point: pools `x` into `out` (see the module); the sizes are the
/// blocks, H, W, OH, OW, KH, KW, the strides, the dilations, the top and left
/// padding, then `average` (0: max) and `count_include_pad` (0: no).
///
/// # Safety
/// As [`spool2d_nchw16c`]; every size at least 0, the window, strides and
/// dilations at least 1.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn acc_spool2d_nchw16c(
    x: *const f32,
    out: *mut f32,
    blocks: i64,
    h: i64,
    w: i64,
    oh: i64,
    ow: i64,
    kh: i64,
    kw: i64,
    sh: i64,
    sw: i64,
    dh: i64,
    dw: i64,
    pad_top: i64,
    pad_left: i64,
    average: i64,
    count_include_pad: i64,
) {
    let n = |v: i64| v.max(0) as usize;
    let one = |v: i64| v.max(1) as usize;
    let p = Pool2d {
        blocks: n(blocks),
        input: [n(h), n(w)],
        output: [n(oh), n(ow)],
        window: [one(kh), one(kw)],
        stride: [one(sh), one(sw)],
        dilation: [one(dh), one(dw)],
        pad: [n(pad_top), n(pad_left)],
        average: average != 0,
        count_include_pad: count_include_pad != 0,
    };
    // SAFETY: the caller vouches for the buffers.
    unsafe { spool2d_nchw16c(x, out, p) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pool of one lane by the definition, in f32 with the loops' order.
    fn reference(x: &[f32], p: &Pool2d) -> Vec<f32> {
        let ([h, w], [oh, ow]) = (p.input, p.output);
        let mut out = vec![0f32; p.blocks * oh * ow * BLOCK];
        for b in 0..p.blocks {
            for y in 0..oh {
                for ox in 0..ow {
                    for lane in 0..BLOCK {
                        let mut acc = if p.average { 0.0 } else { f32::NEG_INFINITY };
                        let mut count = 0f32;
                        for i in 0..p.window[0] {
                            for j in 0..p.window[1] {
                                let (Some(iy), Some(ix)) = (p.tap(0, y, i), p.tap(1, ox, j)) else {
                                    continue;
                                };
                                let v = x[((b * h + iy) * w + ix) * BLOCK + lane];
                                acc = if p.average { acc + v } else { maximum(acc, v) };
                                count += 1.0;
                            }
                        }
                        let divisor = if p.count_include_pad {
                            (p.window[0] * p.window[1]) as f32
                        } else {
                            count
                        };
                        out[((b * oh + y) * ow + ox) * BLOCK + lane] =
                            if p.average { acc / divisor } else { acc };
                    }
                }
            }
        }
        out
    }

    #[test]
    fn pools_as_defined_bit_for_bit() {
        let mut x = crate::test_data::random(2 * 6 * 40 * BLOCK, 5);
        // A NaN, and a -0 / +0 pair in one window whose other values in that lane
        // are all negative (its maximum is +0, -0 where the window holds only -0).
        for v in x.iter_mut().skip(1).step_by(BLOCK) {
            *v = -v.abs() - 0.5;
        }
        x[3] = f32::NAN;
        x[BLOCK + 1] = -0.0;
        x[2 * BLOCK + 1] = 0.0;
        // Narrow rows (every pixel at an edge), and wide ones whose inner pixels
        // go in groups: padded, and with the last window past the input's end (as
        // `ceil_mode` gives), dilated.
        let geometries = [
            ([7, 9], [4, 5], [3, 3], [2, 2], [1, 1], [1, 1]),
            ([5, 37], [3, 19], [3, 3], [2, 2], [1, 1], [1, 1]),
            ([5, 36], [2, 18], [3, 3], [2, 2], [1, 1], [0, 0]),
            ([6, 40], [4, 34], [3, 3], [1, 1], [1, 2], [0, 1]),
        ];
        let modes = [(false, false), (true, false), (true, true)];
        for ((input, output, window, stride, dilation, pad), (average, count_include_pad)) in
            geometries
                .into_iter()
                .flat_map(|g| modes.into_iter().map(move |m| (g, m)))
        {
            let x = &x[..2 * input[0] * input[1] * BLOCK];
            let p = Pool2d {
                blocks: 2,
                input,
                output,
                window,
                stride,
                dilation,
                pad,
                average,
                count_include_pad,
            };
            let mut out = vec![f32::NAN; 2 * output[0] * output[1] * BLOCK];
            // SAFETY: the vectors hold the sizes of p.
            unsafe { spool2d_nchw16c(x.as_ptr(), out.as_mut_ptr(), p) };
            let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
            let want = reference(x, &p);
            let canonical = |v: &[f32]| {
                bits(v)
                    .into_iter()
                    .zip(v)
                    .map(|(b, f)| if f.is_nan() { u32::MAX } else { b })
                    .collect::<Vec<_>>()
            };
            assert_eq!(canonical(&out), canonical(&want), "{p:?}");
            // The AVX2 rows too, where this CPU dispatches to AVX-512.
            #[cfg(target_arch = "x86_64")]
            if crate::avx2_fma() {
                let mut rows = vec![f32::NAN; out.len()];
                for (block, y) in (0..2).flat_map(|b| (0..output[0]).map(move |y| (b, y))) {
                    // SAFETY: the CPU has AVX2; the vectors hold the sizes of p.
                    unsafe { avx2::pool_row(x.as_ptr(), rows.as_mut_ptr(), &p, block, y) };
                }
                assert_eq!(canonical(&rows), canonical(&want), "AVX2 {p:?}");
            }
            assert!(!average || !out.iter().all(|v| v.is_nan()));
            // (Pixel 0's window holds input pixel 0 unless dilated.)
            assert!(
                average || dilation != [1, 1] || out[3].is_nan(),
                "the NaN wins its windows"
            );
        }
    }
}
