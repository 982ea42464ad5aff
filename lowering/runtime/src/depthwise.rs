//! `acc_sdwconv2d`: a batch-1 depthwise NCHW f32 convolution (one kh x kw filter per
//! channel, output channel c reads input channel c only), the host's kernel behind
//! `hw.intrinsic "acc_sdwconv2d"`. Zero padding is read as zeros, never copied.
//!
//! A depthwise convolution does kh*kw multiply-adds per output, too few for a matrix
//! product: the kernel runs along each output row 16 pixels at a time, one vector of
//! input taps per filter element (loaded in place, or every second one for stride 2).

use crate::Fused;
use crate::conv::{Conv2d, inside};

/// out = clamp(out + depthwise_conv(input, filter)), or with a bias
/// clamp(bias[channel] + depthwise_conv(input, filter)) (out's contents unread):
/// `fused` says which and the clamp. `shape.filter[0]` is ignored (the output has
/// `shape.input[0]` channels).
///
/// # Safety
/// `input` holds C*H*W floats, `filter` C*KH*KW, `output` C*OH*OW not overlapping
/// the others, a bias C.
pub unsafe fn sdwconv2d(
    input: *const f32,
    filter: *const f32,
    output: *mut f32,
    shape: Conv2d,
    fused: Fused,
) {
    #[cfg(target_arch = "x86_64")]
    if crate::avx512() {
        // SAFETY: the CPU has AVX-512F; the caller vouches for the memory.
        unsafe { avx512::sdwconv2d(input, filter, output, &shape, fused) };
        return;
    }
    // SAFETY: as above.
    unsafe { sdwconv2d_portable(input, filter, output, shape, fused) }
}

/// [`sdwconv2d`] on any CPU, one output pixel at a time.
///
/// # Safety
/// As [`sdwconv2d`].
pub unsafe fn sdwconv2d_portable(
    input: *const f32,
    filter: *const f32,
    output: *mut f32,
    shape: Conv2d,
    fused: Fused,
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
                // SAFETY: (ch, y, x) lies inside the output; a bias holds c values.
                let out = unsafe { &mut *output.add((ch * oh + y) * ow + x) };
                let start = match fused.bias {
                    // SAFETY: as above.
                    Some(bias) => unsafe { *bias.add(ch) },
                    None => *out,
                };
                *out = fused.activate(start + sum);
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::{Conv2d, Fused};
    use std::arch::x86_64::*;

    const LANES: usize = 16;
    /// Output vectors computed together: independent multiply-add chains, so the
    /// kernel waits on the FMA unit's throughput, not on its latency.
    const SLOTS: usize = 4;

    /// One output vector: up to 16 pixels of one output row.
    #[derive(Clone, Copy)]
    struct Slot {
        /// Its first pixel's first tap in the padded plane.
        from: usize,
        /// Its first pixel in the output plane.
        at: usize,
        /// The pixels it holds (0 for a slot that only fills a group).
        mask: __mmask16,
    }

    /// A channel's input copied into a zero-bordered plane that every tap of every
    /// output vector lies inside, so the kernel reads without bounds tests or
    /// masks. The border is written once; each channel overwrites the interior.
    struct Padded {
        data: Vec<f32>,
        /// Row length of the padded plane.
        width: usize,
        rows: usize,
    }

    impl Padded {
        fn new(shape: &Conv2d) -> Self {
            let Conv2d {
                filter: [_, kh, kw],
                output: [oh, ow],
                stride: [sh, sw],
                dilation: [dh, dw],
                ..
            } = *shape;
            let rows = (oh - 1) * sh + (kh - 1) * dh + 1;
            // The last vector's loads reach 16 * stride columns past its first tap
            // (two vectors for stride 2).
            let last_vector = (ow - 1) / LANES * LANES;
            let reach = last_vector * sw + (kw - 1) * dw + LANES * sw.max(1);
            let width = reach.max((ow - 1) * sw + (kw - 1) * dw + 1);
            Padded {
                data: vec![0.0; rows * width],
                width,
                rows,
            }
        }

        /// Copies channel plane `input` (h x w) in at (top, left).
        ///
        /// # Safety
        /// `input` holds h * w floats.
        unsafe fn fill(&mut self, input: *const f32, [h, w]: [usize; 2], [top, left]: [usize; 2]) {
            let columns = w.min(self.width.saturating_sub(left));
            for r in 0..h.min(self.rows.saturating_sub(top)) {
                let at = (top + r) * self.width + left;
                // SAFETY: row r of the plane; `columns` fit in the padded row.
                let row = unsafe { std::slice::from_raw_parts(input.add(r * w), columns) };
                self.data[at..at + columns].copy_from_slice(row);
            }
        }
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
        fused: Fused,
    ) {
        let Conv2d {
            input: [c, h, w],
            filter: [_, kh, kw],
            output: [oh, ow],
            stride: [sh, sw],
            padding,
            ..
        } = *shape;
        if c == 0 || oh == 0 || ow == 0 {
            return;
        }
        if kh == 0 || kw == 0 {
            // Nothing to add: the bias, if any, and the clamp.
            // SAFETY: the caller vouches for the output and the bias.
            let out = unsafe { std::slice::from_raw_parts_mut(output, c * oh * ow) };
            for (ch, plane) in out.chunks_exact_mut(oh * ow).enumerate() {
                // SAFETY: as above.
                unsafe { fused.start(plane, ch) };
            }
            fused.activate_all(out);
            return;
        }
        let mut plane = Padded::new(shape);
        // The output vectors of a plane, row by row, in groups of SLOTS (across rows
        // when rows are short).
        let mut slots = Vec::with_capacity((oh * ow.div_ceil(LANES)).next_multiple_of(SLOTS));
        for y in 0..oh {
            for x0 in (0..ow).step_by(LANES) {
                let lanes = LANES.min(ow - x0);
                slots.push(Slot {
                    from: y * sh * plane.width + x0 * sw,
                    at: y * ow + x0,
                    mask: ((1u32 << lanes) - 1) as __mmask16,
                });
            }
        }
        while slots.len() % SLOTS != 0 {
            slots.push(Slot {
                from: 0,
                at: 0,
                mask: 0,
            });
        }
        let group = match sw {
            1 => run_group::<1>,
            2 => run_group::<2>,
            _ => run_group::<0>,
        };
        for ch in 0..c {
            // SAFETY: channel ch of the input.
            unsafe { plane.fill(input.add(ch * h * w), [h, w], padding) };
            for slots in slots.chunks_exact(SLOTS) {
                let Ok(slots) = <&[Slot; SLOTS]>::try_from(slots) else {
                    continue;
                };
                // SAFETY: channel ch's filter and output plane; the slots' taps lie
                // in the padded plane by its construction.
                unsafe {
                    group(
                        &plane,
                        filter.add(ch * kh * kw),
                        output.add(ch * oh * ow),
                        shape,
                        Fused {
                            bias: fused.bias.map(|b| b.add(ch)),
                            ..fused
                        },
                        slots,
                    )
                };
            }
        }
    }

    /// out[slot] += the slot's windows times the channel's filter, for each slot;
    /// STRIDE is the column stride when 1 or 2, 0 for any other (gathered taps).
    ///
    /// # Safety
    /// As [`sdwconv2d`], for one channel's filter and output plane.
    #[target_feature(enable = "avx512f")]
    unsafe fn run_group<const STRIDE: usize>(
        plane: &Padded,
        filter: *const f32,
        output: *mut f32,
        shape: &Conv2d,
        fused: Fused,
        slots: &[Slot; SLOTS],
    ) {
        let Conv2d {
            filter: [_, kh, kw],
            stride: [_, sw],
            dilation: [dh, dw],
            ..
        } = *shape;
        let data = plane.data.as_ptr();
        let even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
        let lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
        let gather = _mm512_mullo_epi32(lane, _mm512_set1_epi32(sw as i32));
        // SAFETY (whole body): stores are masked to the slots' pixels; every load
        // lies inside the padded plane (`Padded::new`).
        unsafe {
            let mut acc = [_mm512_setzero_ps(); SLOTS];
            if let Some(bias) = fused.bias {
                acc = [_mm512_set1_ps(*bias); SLOTS];
            } else {
                for (acc, slot) in acc.iter_mut().zip(slots) {
                    *acc = _mm512_maskz_loadu_ps(slot.mask, output.add(slot.at));
                }
            }
            for i in 0..kh {
                for j in 0..kw {
                    let weight = _mm512_set1_ps(*filter.add(i * kw + j));
                    let offset = i * dh * plane.width + j * dw;
                    for (acc, slot) in acc.iter_mut().zip(slots) {
                        let at = data.add(slot.from + offset);
                        let taps = match STRIDE {
                            1 => _mm512_loadu_ps(at),
                            2 => _mm512_permutex2var_ps(
                                _mm512_loadu_ps(at),
                                even,
                                _mm512_loadu_ps(at.add(LANES)),
                            ),
                            _ => _mm512_mask_i32gather_ps::<4>(
                                _mm512_setzero_ps(),
                                slot.mask,
                                gather,
                                at,
                            ),
                        };
                        *acc = _mm512_fmadd_ps(weight, taps, *acc);
                    }
                }
            }
            let bounds = fused.bounds;
            let (lo, hi) = (_mm512_set1_ps(bounds.lo), _mm512_set1_ps(bounds.hi));
            for (slot, acc) in slots.iter().zip(acc) {
                _mm512_mask_storeu_ps(output.add(slot.at), slot.mask, bounds.apply(lo, hi, acc));
            }
        }
    }
}

/// The C ABI entry point generated code calls: out = clamp(out + depthwise_conv(x,
/// w), lo, hi). Sizes as [`Conv2d`]'s without the output channels (input channels,
/// rows, columns; filter rows, columns; output rows, columns; strides; dilations;
/// padding above and left), then the clamp's bounds (-inf and +inf for none).
///
/// # Safety
/// As [`sdwconv2d`].
#[allow(clippy::too_many_arguments)]
#[unsafe(no_mangle)]
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
    lo: f32,
    hi: f32,
) {
    // SAFETY: the caller vouches for the buffers; no bias.
    unsafe {
        acc_sdwconv2d_bias(
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
        )
    }
}

/// [`acc_sdwconv2d`] starting each channel from its bias instead of the output's
/// contents: out = clamp(bias[channel] + depthwise_conv(x, w), lo, hi).
///
/// # Safety
/// As [`sdwconv2d`]; `bias` holds one float per channel, or is null (then as
/// [`acc_sdwconv2d`]).
#[allow(clippy::too_many_arguments)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn acc_sdwconv2d_bias(
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
) {
    let shape = Conv2d::from_sizes(
        [channels, height, width],
        [channels, kernel_h, kernel_w],
        [out_h, out_w],
        [stride_h, stride_w],
        [dilation_h, dilation_w],
        [pad_top, pad_left],
    );
    let fused = Fused::of_call(bias, lo, hi);
    // SAFETY: the caller vouches for the buffers.
    unsafe { sdwconv2d(input, filter, output, shape, fused) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Bounds;
    use crate::test_data::{random, reference_conv};

    type Convolution = unsafe fn(*const f32, *const f32, *mut f32, Conv2d, Fused);

    /// A depthwise shape: input c x h x w, a kernel, output, stride, dilation,
    /// padding.
    fn shape(
        input: [usize; 3],
        kernel: [usize; 2],
        output: [usize; 2],
        stride: [usize; 2],
        dilation: [usize; 2],
        padding: [usize; 2],
    ) -> Conv2d {
        Conv2d {
            input,
            filter: [input[0], kernel[0], kernel[1]],
            output,
            stride,
            dilation,
            padding,
        }
    }

    fn check(
        input: [usize; 3],
        kernel: [usize; 2],
        output: [usize; 2],
        stride: [usize; 2],
        dilation: [usize; 2],
        padding: [usize; 2],
    ) {
        let shape = shape(input, kernel, output, stride, dilation, padding);
        check_clamped(shape, Bounds::NONE, false);
    }

    /// Both kernels against the definition, with the clamp `bounds` and, if
    /// `biased`, a bias per channel (the output's contents then unread).
    fn check_clamped(shape: Conv2d, bounds: Bounds, biased: bool) {
        let (input, output, kernel) = (
            shape.input,
            shape.output,
            [shape.filter[1], shape.filter[2]],
        );
        let kernels: [(&str, Convolution); 2] =
            [("dispatched", sdwconv2d), ("portable", sdwconv2d_portable)];
        for (name, convolution) in kernels {
            let ([c, h, w], [oh, ow]) = (input, output);
            let (x, f) = (random(c * h * w, 11), random(c * kernel[0] * kernel[1], 12));
            let mut out = random(c * oh * ow, 13);
            let bias = random(c, 14);
            let start: Vec<f32> = if biased {
                (0..c * oh * ow).map(|i| bias[i / (oh * ow)]).collect()
            } else {
                out.clone()
            };
            let mut want = reference_conv(&x, &f, &start, shape, true);
            for v in &mut want {
                *v = v.max(bounds.lo as f64).min(bounds.hi as f64);
            }
            let fused = Fused {
                bias: biased.then_some(bias.as_ptr()),
                ..Fused::of_call(std::ptr::null(), bounds.lo, bounds.hi)
            };
            // SAFETY: the vectors hold the shape's buffers.
            unsafe { convolution(x.as_ptr(), f.as_ptr(), out.as_mut_ptr(), shape, fused) };
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

    #[test]
    fn clamps_what_it_stores_and_starts_from_the_bias() {
        let relu = Bounds {
            lo: 0.0,
            hi: f32::INFINITY,
        };
        let tight = Bounds { lo: -0.3, hi: 0.4 };
        for biased in [false, true] {
            check_clamped(
                shape([3, 20, 20], [3, 3], [20, 20], [1, 1], [1, 1], [1, 1]),
                relu,
                biased,
            );
            check_clamped(
                shape([4, 21, 37], [3, 3], [11, 19], [2, 2], [1, 1], [1, 1]),
                tight,
                biased,
            );
            check_clamped(
                shape([2, 5, 5], [0, 0], [5, 5], [1, 1], [1, 1], [0, 0]),
                tight,
                biased,
            );
            let none = Bounds::NONE;
            check_clamped(
                shape([3, 9, 9], [3, 3], [9, 9], [1, 1], [1, 1], [1, 1]),
                none,
                biased,
            );
        }
    }
}
