//! `acc_sdwconv2d`: a batch-1 depthwise NCHW f32 convolution (one kh x kw filter per
//! channel, output channel c reads input channel c only), the host's kernel behind
//! `hw.intrinsic "acc_sdwconv2d"`. Zero padding is read as zeros, never copied.
//!
//! A depthwise convolution does kh*kw multiply-adds per output, too few for a matrix
//! product: the kernel runs along each output row 16 pixels at a time, one vector of
//! input taps per filter element (loaded in place, or every second one for stride 2).

use crate::conv::{Conv2d, inside};

/// out += depthwise_conv(input, filter); `shape.filter[0]` is ignored (the output
/// has `shape.input[0]` channels).
///
/// # Safety
/// `input` holds C*H*W floats, `filter` C*KH*KW, `output` C*OH*OW not overlapping
/// the others.
pub unsafe fn sdwconv2d(input: *const f32, filter: *const f32, output: *mut f32, shape: Conv2d) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU has AVX-512F; the caller vouches for the memory.
        unsafe { avx512::sdwconv2d(input, filter, output, &shape) };
        return;
    }
    // SAFETY: as above.
    unsafe { sdwconv2d_portable(input, filter, output, shape) }
}

/// out += depthwise_conv(input, filter) on any CPU, one output pixel at a time.
///
/// # Safety
/// As [`sdwconv2d`].
pub unsafe fn sdwconv2d_portable(
    input: *const f32,
    filter: *const f32,
    output: *mut f32,
    shape: Conv2d,
) {
    let Conv2d {
        input: [c, h, w],
        filter: [_, kh, kw],
        output: [oh, ow],
        stride: [sh, sw],
        dilation: [dh, dw],
        padding: [pt, pl],
    } = shape;
    for ch in 0..c {
        for y in 0..oh {
            let (i0, i1) = inside((y * sh) as isize - pt as isize, dh, kh, h);
            for x in 0..ow {
                let (j0, j1) = inside((x * sw) as isize - pl as isize, dw, kw, w);
                let mut sum = 0f32;
                for i in i0..i1 {
                    let row = y * sh + i * dh - pt;
                    for j in j0..j1 {
                        let column = x * sw + j * dw - pl;
                        // SAFETY: (i, j) is a filter tap of channel ch; (row, column)
                        // lies inside channel ch of the input.
                        sum += unsafe {
                            *filter.add((ch * kh + i) * kw + j)
                                * *input.add((ch * h + row) * w + column)
                        };
                    }
                }
                // SAFETY: (ch, y, x) lies inside the output.
                unsafe { *output.add((ch * oh + y) * ow + x) += sum };
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::{Conv2d, inside};
    use std::arch::x86_64::*;

    const LANES: usize = 16;
    /// Output vectors computed together: independent multiply-add chains, so the
    /// kernel waits on the FMA unit's throughput, not on its latency.
    const SLOTS: usize = 4;

    /// One output vector: up to 16 pixels of one output row.
    #[derive(Clone, Copy)]
    struct Slot {
        /// The input row of the filter's first row (may be negative).
        first_row: isize,
        /// The input column of the first pixel's first tap (may be negative).
        first_column: isize,
        /// Its first pixel in the output plane.
        at: usize,
        /// The pixels it holds (0 for a slot that only fills a group).
        mask: __mmask16,
    }

    /// As [`super::sdwconv2d`].
    ///
    /// # Safety
    /// The CPU has AVX-512F; the memory is as [`super::sdwconv2d`] requires.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn sdwconv2d(
        input: *const f32,
        filter: *const f32,
        output: *mut f32,
        shape: &Conv2d,
    ) {
        let Conv2d {
            input: [c, h, w],
            filter: [_, kh, kw],
            output: [oh, ow],
            stride: [sh, sw],
            padding: [pt, pl],
            ..
        } = *shape;
        // The output vectors of a plane, row by row, in groups of SLOTS (across rows
        // when rows are short).
        let mut slots = Vec::with_capacity(oh * ow.div_ceil(LANES));
        for y in 0..oh {
            for x0 in (0..ow).step_by(LANES) {
                let lanes = LANES.min(ow - x0);
                slots.push(Slot {
                    first_row: (y * sh) as isize - pt as isize,
                    first_column: (x0 * sw) as isize - pl as isize,
                    at: y * ow + x0,
                    mask: ((1u32 << lanes) - 1) as __mmask16,
                });
            }
        }
        let idle = Slot {
            first_row: isize::MIN / 2,
            first_column: 0,
            at: 0,
            mask: 0,
        };
        for ch in 0..c {
            for group in slots.chunks(SLOTS) {
                let group: [Slot; SLOTS] =
                    std::array::from_fn(|s| group.get(s).copied().unwrap_or(idle));
                // SAFETY: channel ch of each buffer; the slots lie in the output plane.
                unsafe {
                    run_group(
                        input.add(ch * h * w),
                        filter.add(ch * kh * kw),
                        output.add(ch * oh * ow),
                        shape,
                        &group,
                    )
                };
            }
        }
    }

    /// out[slot] += the slot's windows times the channel's filter, for each slot.
    ///
    /// # Safety
    /// As [`sdwconv2d`], for one channel's planes and filter.
    #[target_feature(enable = "avx512f")]
    unsafe fn run_group(
        input: *const f32,
        filter: *const f32,
        output: *mut f32,
        shape: &Conv2d,
        group: &[Slot; SLOTS],
    ) {
        let Conv2d {
            input: [_, h, w],
            filter: [_, kh, kw],
            stride: [_, sw],
            dilation: [dh, dw],
            ..
        } = *shape;
        // SAFETY (whole body): stores and loads are masked to the slots' pixels;
        // input rows are tested against 0..h, and `taps` reads only columns in
        // 0..w of a row.
        unsafe {
            let mut acc: [__m512; SLOTS] = std::array::from_fn(|s| {
                _mm512_maskz_loadu_ps(group[s].mask, output.add(group[s].at))
            });
            for i in 0..kh {
                for j in 0..kw {
                    let weight = _mm512_set1_ps(*filter.add(i * kw + j));
                    for (slot, acc) in group.iter().zip(acc.iter_mut()) {
                        let row = slot.first_row + (i * dh) as isize;
                        if row < 0 || row >= h as isize {
                            continue;
                        }
                        let row = input.add(row as usize * w);
                        let taps = taps(row, slot.first_column + (j * dw) as isize, sw, w);
                        *acc = _mm512_fmadd_ps(weight, taps, *acc);
                    }
                }
            }
            for (slot, acc) in group.iter().zip(acc) {
                _mm512_mask_storeu_ps(output.add(slot.at), slot.mask, acc);
            }
        }
    }

    /// Lane t holds row[first + t * stride], or 0 where that column is outside
    /// 0..w.
    ///
    /// # Safety
    /// `row` points at an input row of w floats.
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn taps(row: *const f32, first: isize, stride: usize, w: usize) -> __m512 {
        // SAFETY (block): only lanes whose column lies in 0..w are read.
        unsafe {
            match stride {
                1 => _mm512_maskz_loadu_ps(columns(first, w), row.wrapping_offset(first)),
                2 => {
                    // Columns first .. first + 32: two vectors, then the even ones.
                    let next = first + LANES as isize;
                    let low = _mm512_maskz_loadu_ps(columns(first, w), row.wrapping_offset(first));
                    let high = _mm512_maskz_loadu_ps(columns(next, w), row.wrapping_offset(next));
                    let even =
                        _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
                    _mm512_permutex2var_ps(low, even, high)
                }
                _ => {
                    let (lo, hi) = inside(first, stride, LANES, w);
                    let mask = (((1u32 << hi) - 1) & !((1u32 << lo) - 1)) as __mmask16;
                    let lane =
                        _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
                    let offsets = _mm512_add_epi32(
                        _mm512_mullo_epi32(lane, _mm512_set1_epi32(stride as i32)),
                        _mm512_set1_epi32(first as i32),
                    );
                    _mm512_mask_i32gather_ps::<4>(_mm512_setzero_ps(), mask, offsets, row)
                }
            }
        }
    }

    /// The lanes u of a vector starting at column `first` with `first + u` in 0..w.
    #[inline]
    fn columns(first: isize, w: usize) -> __mmask16 {
        let lo = (-first).clamp(0, LANES as isize) as u32;
        let hi = (w as isize - first).clamp(0, LANES as isize) as u32;
        let below_hi = ((1u64 << hi) - 1) as u32;
        let from_lo = !((1u32 << lo) - 1) & 0xffff;
        (below_hi & from_lo) as __mmask16
    }
}

/// The C ABI entry point generated code calls: sizes as [`Conv2d`]'s without the
/// output channels (input channels, rows, columns; filter rows, columns; output
/// rows, columns; strides; dilations; padding above and left).
///
/// # Safety
/// As [`sdwconv2d`].
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn acc_sdwconv2d(
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
) {
    let shape = Conv2d::from_sizes(
        [channels, height, width],
        [channels, kernel_h, kernel_w],
        [out_h, out_w],
        [stride_h, stride_w],
        [dilation_h, dilation_w],
        [pad_top, pad_left],
    );
    // SAFETY: the caller vouches for the buffers.
    unsafe { sdwconv2d(input, filter, output, shape) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_data::{random, reference_conv};

    type Convolution = unsafe fn(*const f32, *const f32, *mut f32, Conv2d);

    fn check(
        input: [usize; 3],
        kernel: [usize; 2],
        output: [usize; 2],
        stride: [usize; 2],
        dilation: [usize; 2],
        padding: [usize; 2],
    ) {
        let shape = Conv2d {
            input,
            filter: [input[0], kernel[0], kernel[1]],
            output,
            stride,
            dilation,
            padding,
        };
        let kernels: [(&str, Convolution); 2] =
            [("dispatched", sdwconv2d), ("portable", sdwconv2d_portable)];
        for (name, convolution) in kernels {
            let ([c, h, w], [oh, ow]) = (input, output);
            let (x, f) = (random(c * h * w, 11), random(c * kernel[0] * kernel[1], 12));
            let mut out = random(c * oh * ow, 13);
            let want = reference_conv(&x, &f, &out, shape, true);
            // SAFETY: the vectors hold the shape's buffers.
            unsafe { convolution(x.as_ptr(), f.as_ptr(), out.as_mut_ptr(), shape) };
            for (i, (&got, &want)) in out.iter().zip(&want).enumerate() {
                assert!(
                    (got as f64 - want).abs() <= 1e-5 * (1.0 + want.abs()),
                    "{name} {shape:?}: {i}: {got} vs {want}"
                );
            }
        }
    }

    #[test]
    fn agrees_with_the_definition() {
        // MobileNet's 3x3 "same" at stride 1 and 2 (rows longer than a vector, and
        // ending inside one), no padding, a stride of 3 (gathered taps), dilation,
        // 5x5 with uneven padding, and windows wholly in the padding.
        check([3, 20, 20], [3, 3], [20, 20], [1, 1], [1, 1], [1, 1]);
        check([4, 21, 37], [3, 3], [11, 19], [2, 2], [1, 1], [1, 1]);
        check([2, 9, 9], [3, 3], [7, 7], [1, 1], [1, 1], [0, 0]);
        check([2, 40, 40], [3, 3], [13, 13], [3, 3], [1, 1], [0, 0]);
        check([3, 12, 34], [3, 3], [12, 34], [1, 1], [2, 2], [2, 2]);
        check([2, 10, 10], [5, 5], [11, 12], [1, 1], [1, 1], [1, 2]);
        check([1, 3, 3], [2, 2], [9, 40], [1, 1], [1, 1], [4, 4]);
        check([2, 33, 33], [3, 3], [17, 17], [2, 2], [1, 1], [1, 1]);
    }
}
