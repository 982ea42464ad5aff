//! `acc_sconv2d`: a batch-1, ungrouped NCHW f32 convolution as an implicit matrix
//! product, the host's convolution behind `hw.intrinsic "acc_sconv2d"`.
//!
//! out (M x OH*OW) += filter (M x C*KH*KW) x patches (C*KH*KW x OH*OW), where the
//! patches are never stored: the matrix product's kernel gathers each panel of them
//! from the input as it packs it (no im2col buffer, no second pass over memory), and
//! zero padding is read as zeros there (no padded copy of the input).

use crate::Fused;
use crate::sgemm::{Matrix, PanelSource, matrix, portable};

/// The shape of a convolution. Output pixel (y, x) reads input row
/// `y * stride.0 + i * dilation.0 - padding.0` and column
/// `x * stride.1 + j * dilation.1 - padding.1` for the filter's (i, j); a row or
/// column outside the input reads as zero (so any shape is well defined, and a
/// window entirely in the padding adds nothing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conv2d {
    /// Input channels, rows and columns.
    pub input: [usize; 3],
    /// Output channels, filter rows and filter columns. A depthwise convolution
    /// ([`crate::depthwise`]) has as many output channels as input channels.
    pub filter: [usize; 3],
    /// Output rows and columns.
    pub output: [usize; 2],
    pub stride: [usize; 2],
    pub dilation: [usize; 2],
    /// Zero rows above and zero columns left of the input (those below and right
    /// follow from the output size).
    pub padding: [usize; 2],
}

impl Conv2d {
    /// The shape of a call's i64 sizes (negative ones read as 0).
    #[allow(clippy::too_many_arguments)]
    pub fn from_sizes(
        [c, h, w]: [i64; 3],
        [m, kh, kw]: [i64; 3],
        [oh, ow]: [i64; 2],
        [sh, sw]: [i64; 2],
        [dh, dw]: [i64; 2],
        [pt, pl]: [i64; 2],
    ) -> Self {
        let u = |v: i64| v.max(0) as usize;
        Conv2d {
            input: [u(c), u(h), u(w)],
            filter: [u(m), u(kh), u(kw)],
            output: [u(oh), u(ow)],
            stride: [u(sh), u(sw)],
            dilation: [u(dh), u(dw)],
            padding: [u(pt), u(pl)],
        }
    }

    fn depth(&self) -> usize {
        self.input[0] * self.filter[1] * self.filter[2]
    }

    fn plane(&self) -> usize {
        self.output[0] * self.output[1]
    }
}

/// The `t` in `0..count` for which `first + t * stride` lies in `0..size`, as a
/// range `lo..hi` (empty when there are none). This is how a window meets the
/// input along one axis: `first` is the (possibly negative) coordinate of its
/// first tap.
#[inline(always)]
pub(crate) fn inside(first: isize, stride: usize, count: usize, size: usize) -> (usize, usize) {
    if stride <= 1 {
        // The common case without divisions.
        let lo = (-first).clamp(0, count as isize) as usize;
        let hi = (size as isize - first).clamp(0, count as isize) as usize;
        return (lo, hi.max(lo));
    }
    let (stride, size) = (stride as isize, size as isize);
    // The first t with first + t * stride >= 0, and the first with it >= size.
    let lo = if first >= 0 {
        0
    } else {
        (-first + stride - 1) / stride
    };
    let hi = if first >= size {
        0
    } else {
        (size - first + stride - 1) / stride
    };
    let (lo, hi) = (
        lo.min(count as isize) as usize,
        hi.min(count as isize) as usize,
    );
    (lo, hi.max(lo))
}

/// The patches matrix of a convolution, read from its input.
struct Patches {
    input: *const f32,
    shape: Conv2d,
}

impl Patches {
    /// The filter tap of patches row k: (input channel, filter row, filter column).
    fn tap(&self, k: usize) -> [usize; 3] {
        let [_, kh, kw] = self.shape.filter;
        [k / (kh * kw), k / kw % kh, k % kw]
    }

    /// The tap of the next patches row.
    fn next_tap(&self, [channel, i, j]: [usize; 3]) -> [usize; 3] {
        let [_, kh, kw] = self.shape.filter;
        match (j + 1 == kw, i + 1 == kh) {
            (false, _) => [channel, i, j + 1],
            (true, false) => [channel, i + 1, 0],
            (true, true) => [channel + 1, 0, 0],
        }
    }

    /// `copy_panel` for column strides 1 and 2 with AVX-512: each run of a panel
    /// row is at most 48 floats, moved by masked vector loads and stores (every
    /// second column picked by a permute for stride 2) with the padding's lanes
    /// masked to zero, instead of a memmove and fills per run.
    ///
    /// # Safety
    /// The CPU has AVX-512F; the runs (output row, first column, length, offset)
    /// and rows k0..k0 + depth lie inside the patches matrix; `panel` holds
    /// `depth` rows of `ld` floats.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    unsafe fn copy_panel_avx512(
        &self,
        runs: &[(usize, usize, usize, usize)],
        k0: usize,
        depth: usize,
        panel: &mut [f32],
        ld: usize,
    ) {
        use std::arch::x86_64::*;
        let Conv2d {
            input: [_, h, w],
            stride: [sh, sw],
            dilation: [dh, dw],
            padding: [pt, pl],
            ..
        } = self.shape;
        // The lanes t of a vector from column `first` with first + t in 0..w.
        let columns = |first: isize| {
            let (lo, hi) = inside(first, 1, 16, w);
            (((1u32 << hi) - 1) & !((1u32 << lo) - 1)) as __mmask16
        };
        let even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
        let mut tap = self.tap(k0);
        for row in panel.chunks_mut(ld).take(depth) {
            let [channel, i, j] = tap;
            for &(y, x, run, at) in runs {
                let input_row = (y * sh + i * dh) as isize - pt as isize;
                let inside_rows = input_row >= 0 && input_row < h as isize;
                // SAFETY (block): the row is read only when it lies in the input,
                // and only at columns in 0..w (masked lanes are not accessed); the
                // stores stay in the run's part of the panel row.
                unsafe {
                    let source = self
                        .input
                        .add(channel * h * w)
                        .wrapping_offset(input_row * w as isize);
                    let out = row.as_mut_ptr().add(at);
                    for c in (0..run).step_by(16) {
                        let store = ((1u32 << (run - c).min(16)) - 1) as __mmask16;
                        let first = ((x + c) * sw + j * dw) as isize - pl as isize;
                        let v = if !inside_rows {
                            _mm512_setzero_ps()
                        } else if sw == 1 {
                            _mm512_maskz_loadu_ps(columns(first), source.wrapping_offset(first))
                        } else {
                            let next = first + 16;
                            let low = _mm512_maskz_loadu_ps(
                                columns(first),
                                source.wrapping_offset(first),
                            );
                            let high =
                                _mm512_maskz_loadu_ps(columns(next), source.wrapping_offset(next));
                            _mm512_permutex2var_ps(low, even, high)
                        };
                        _mm512_mask_storeu_ps(out.add(c), store, v);
                    }
                }
            }
            tap = self.next_tap(tap);
        }
    }

    /// Fills `segment` with the tap's inputs for output row y, columns x.. (one
    /// run along an output row): zeros where the window is in the padding.
    ///
    /// # Safety
    /// The tap and the output pixels lie inside the patches matrix.
    unsafe fn copy_segment(
        &self,
        [channel, i, j]: [usize; 3],
        y: usize,
        x: usize,
        segment: &mut [f32],
    ) {
        let Conv2d {
            input: [_, h, w],
            stride: [sh, sw],
            dilation: [dh, dw],
            padding: [pt, pl],
            ..
        } = self.shape;
        let row = (y * sh + i * dh) as isize - pt as isize;
        if row < 0 || row >= h as isize {
            segment.fill(0.0);
            return;
        }
        let first = (x * sw + j * dw) as isize - pl as isize;
        let (lo, hi) = inside(first, sw, segment.len(), w);
        segment[..lo].fill(0.0);
        segment[hi..].fill(0.0);
        // SAFETY: the row lies inside the input, and columns first + t * sw for t
        // in lo..hi inside the row.
        let start = unsafe {
            self.input
                .add((channel * h + row as usize) * w)
                .offset(first + (lo * sw) as isize)
        };
        let middle = &mut segment[lo..hi];
        if sw == 1 {
            // SAFETY: as above.
            middle.copy_from_slice(unsafe { std::slice::from_raw_parts(start, hi - lo) });
        } else {
            for (t, value) in middle.iter_mut().enumerate() {
                // SAFETY: as above.
                *value = unsafe { *start.add(t * sw) };
            }
        }
    }
}

impl PanelSource for Patches {
    unsafe fn copy_row(&self, k: usize, n: usize, out: &mut [f32]) {
        let ow = self.shape.output[1];
        let tap = self.tap(k);
        let (mut y, mut x) = (n / ow, n % ow);
        let mut done = 0;
        while done < out.len() {
            let run = (ow - x).min(out.len() - done);
            // SAFETY: the caller keeps (k, n..) inside the patches matrix.
            unsafe { self.copy_segment(tap, y, x, &mut out[done..done + run]) };
            done += run;
            (y, x) = (y + 1, 0);
        }
    }

    unsafe fn copy_panel(
        &self,
        k0: usize,
        depth: usize,
        n: usize,
        width: usize,
        panel: &mut [f32],
        ld: usize,
    ) {
        // The panel's columns split where output rows end, once for all its rows:
        // (output row, first column, length, offset in a panel row).
        let ow = self.shape.output[1];
        let mut runs = Vec::with_capacity(width.min(width / ow.max(1) + 2));
        let (mut y, mut x, mut done) = (n / ow, n % ow, 0);
        while done < width {
            let run = (ow - x).min(width - done);
            runs.push((y, x, run, done));
            done += run;
            (y, x) = (y + 1, 0);
        }
        #[cfg(target_arch = "x86_64")]
        if self.shape.stride[1] <= 2 && crate::avx512() {
            // SAFETY: the CPU has AVX-512F; the caller keeps the panel inside the
            // patches matrix.
            unsafe { self.copy_panel_avx512(&runs, k0, depth, panel, ld) };
            return;
        }
        // The filter tap advances with the row, without divisions.
        let mut tap = self.tap(k0);
        for row in panel.chunks_mut(ld).take(depth) {
            for &(y, x, run, at) in &runs {
                // SAFETY: the caller keeps the panel inside the patches matrix.
                unsafe { self.copy_segment(tap, y, x, &mut row[at..at + run]) };
            }
            tap = self.next_tap(tap);
        }
    }

    fn in_place(&self, k: usize, n: usize) -> Option<(*const f32, usize)> {
        // A 1x1 convolution with unit strides and no padding over the whole input:
        // the patches are the input itself, C x H*W.
        let Conv2d {
            input: [_, h, w],
            filter: [_, kh, kw],
            output,
            stride,
            padding,
            ..
        } = self.shape;
        let plane = h * w;
        (kh == 1 && kw == 1 && stride == [1, 1] && padding == [0, 0] && output == [h, w])
            .then(|| (self.input.wrapping_add(k * plane + n), plane))
    }
}

/// out = clamp(out + conv(input, filter)), or with a bias clamp(bias[channel] +
/// conv(input, filter)) (out's contents unread): `fused` says which and the clamp.
///
/// # Safety
/// `input` holds C*H*W floats, `filter` M*C*KH*KW, `output` M*OH*OW not overlapping
/// the others, a bias M.
pub unsafe fn sconv2d(
    input: *const f32,
    filter: *const f32,
    output: *mut f32,
    shape: Conv2d,
    fused: Fused,
) {
    let Some(product) = Product::new(input, filter, output, shape) else {
        // SAFETY: the caller vouches for the output.
        unsafe { without_taps(output, shape, fused) };
        return;
    };
    if let Some(kernels) = crate::sgemm::tiled::host() {
        // SAFETY: the CPU runs the kernels; the caller vouches for the memory and
        // the patches cover depth x plane.
        unsafe {
            crate::sgemm::tiled::sgemm(
                kernels,
                product.filter,
                &product.patches,
                product.output,
                fused,
                crate::sgemm::tiled::Initial::Output,
            )
        };
        return;
    }
    // SAFETY: as above.
    unsafe { product.portable(fused) }
}

/// [`sconv2d`] on any CPU: the patches gathered into a buffer, then the portable
/// matrix product.
///
/// # Safety
/// As [`sconv2d`].
pub unsafe fn sconv2d_portable(
    input: *const f32,
    filter: *const f32,
    output: *mut f32,
    shape: Conv2d,
    fused: Fused,
) {
    match Product::new(input, filter, output, shape) {
        // SAFETY: the caller vouches for the memory.
        Some(product) => unsafe { product.portable(fused) },
        // SAFETY: as above.
        None => unsafe { without_taps(output, shape, fused) },
    }
}

/// The output of a convolution with nothing to add (no filter taps): the bias, if
/// any, then the clamp.
///
/// # Safety
/// `output` holds M*OH*OW floats, a bias M.
unsafe fn without_taps(output: *mut f32, shape: Conv2d, fused: Fused) {
    let (channels, plane) = (shape.filter[0], shape.plane());
    if channels * plane == 0 {
        return;
    }
    // SAFETY: the caller vouches for the output.
    let out = unsafe { std::slice::from_raw_parts_mut(output, channels * plane) };
    for (channel, values) in out.chunks_exact_mut(plane).enumerate() {
        // SAFETY: the caller vouches for the bias.
        unsafe { fused.start(values, channel) };
    }
    fused.activate_all(out);
}

/// A convolution as the matrix product output += filter x patches.
struct Product {
    filter: Matrix<*const f32>,
    patches: Patches,
    output: Matrix<*mut f32>,
}

impl Product {
    /// The product of a shape; None when it is empty.
    fn new(input: *const f32, filter: *const f32, output: *mut f32, shape: Conv2d) -> Option<Self> {
        let (m, depth, plane) = (shape.filter[0], shape.depth(), shape.plane());
        (m > 0 && depth > 0 && plane > 0).then(|| Product {
            filter: matrix(filter, m, depth),
            patches: Patches { input, shape },
            output: matrix(output, m, plane),
        })
    }

    /// The patches gathered into a buffer, the bias, the portable matrix product
    /// and the clamp.
    ///
    /// # Safety
    /// As [`sconv2d`].
    unsafe fn portable(&self, fused: Fused) {
        let (depth, plane) = (self.filter.cols, self.output.cols);
        // SAFETY: the output is rows x cols, contiguous.
        let out =
            unsafe { std::slice::from_raw_parts_mut(self.output.ptr, self.output.rows * plane) };
        for (channel, values) in out.chunks_exact_mut(plane).enumerate() {
            // SAFETY: the caller vouches for the bias.
            unsafe { fused.start(values, channel) };
        }
        let mut gathered = vec![0f32; depth * plane];
        for (k, row) in gathered.chunks_exact_mut(plane).enumerate() {
            // SAFETY: row k of the patches, all its columns.
            unsafe { self.patches.copy_row(k, 0, row) };
        }
        // SAFETY: the caller vouches for the memory; `gathered` holds the patches.
        unsafe {
            portable(
                self.filter,
                matrix(gathered.as_ptr(), depth, plane),
                self.output,
            )
        };
        // SAFETY: as above.
        fused.activate_all(unsafe {
            std::slice::from_raw_parts_mut(self.output.ptr, self.output.rows * plane)
        });
    }
}

/// The C ABI entry point generated code calls: out = clamp(out + conv(x, w), lo,
/// hi). Sizes as in [`Conv2d`]: input channels, rows, columns; output channels,
/// filter rows, columns; output rows, columns; strides; dilations; padding above
/// and left; then the clamp's bounds (-inf and +inf for none).
///
/// # Safety
/// As [`sconv2d`].
#[allow(clippy::too_many_arguments)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn acc_sconv2d(
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
) {
    // SAFETY: the caller vouches for the buffers; no bias.
    unsafe {
        acc_sconv2d_bias(
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
        )
    }
}

/// [`acc_sconv2d`] starting each output channel from its bias instead of the
/// output's contents: out = clamp(bias[channel] + conv(x, w), lo, hi).
///
/// # Safety
/// As [`sconv2d`]; `bias` holds one float per output channel, or is null (then
/// as [`acc_sconv2d`]).
#[allow(clippy::too_many_arguments)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn acc_sconv2d_bias(
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
) {
    let shape = Conv2d::from_sizes(
        [channels, height, width],
        [out_channels, kernel_h, kernel_w],
        [out_h, out_w],
        [stride_h, stride_w],
        [dilation_h, dilation_w],
        [pad_top, pad_left],
    );
    let fused = Fused::of_call(bias, lo, hi);
    // SAFETY: the caller vouches for the buffers.
    unsafe { sconv2d(input, filter, output, shape, fused) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Bounds;
    use crate::test_data::{random, reference_conv};

    type Convolution = unsafe fn(*const f32, *const f32, *mut f32, Conv2d, Fused);

    fn check(shape: Conv2d) {
        check_with(sconv2d, shape, Bounds::NONE, false);
        check_with(sconv2d_portable, shape, Bounds::NONE, false);
    }

    /// The kernel against the definition, with the clamp `bounds` and, if `biased`,
    /// a bias per output channel (the output's contents then unread).
    fn check_with(convolution: Convolution, shape: Conv2d, bounds: Bounds, biased: bool) {
        let ([c, h, w], [m, kh, kw], [oh, ow]) = (shape.input, shape.filter, shape.output);
        let (x, f) = (random(c * h * w, 1), random(m * c * kh * kw, 2));
        let mut out = random(m * oh * ow, 3);
        let bias = random(m, 4);
        let start: Vec<f32> = if biased {
            (0..m * oh * ow).map(|i| bias[i / (oh * ow)]).collect()
        } else {
            out.clone()
        };
        let mut want = reference_conv(&x, &f, &start, shape, false);
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
            let tolerance = 1e-5 * ((c * kh * kw) as f64).sqrt() * (1.0 + want.abs());
            assert!(
                (got as f64 - want).abs() <= tolerance,
                "{shape:?}: {i}: {got} vs {want}"
            );
        }
    }

    fn conv(
        input: [usize; 3],
        filter: [usize; 3],
        output: [usize; 2],
        stride: [usize; 2],
        dilation: [usize; 2],
        padding: [usize; 2],
    ) -> Conv2d {
        Conv2d {
            input,
            filter,
            output,
            stride,
            dilation,
            padding,
        }
    }

    #[test]
    fn agrees_with_the_definition() {
        // 3x3 on a padded input, strided 7x7, 1x1, dilated, and shapes whose output
        // rows end inside a tile or a depth block.
        check(conv([3, 10, 10], [5, 3, 3], [8, 8], [1, 1], [1, 1], [0, 0]));
        check(conv(
            [3, 23, 23],
            [40, 7, 7],
            [9, 9],
            [2, 2],
            [1, 1],
            [0, 0],
        ));
        check(conv(
            [130, 7, 7],
            [33, 1, 1],
            [7, 7],
            [1, 1],
            [1, 1],
            [0, 0],
        ));
        check(conv([4, 13, 11], [9, 3, 2], [9, 9], [1, 1], [2, 2], [0, 0]));
        check(conv(
            [16, 16, 70],
            [64, 3, 3],
            [14, 68],
            [1, 1],
            [1, 1],
            [0, 0],
        ));
        check(conv([8, 9, 9], [3, 3, 3], [4, 4], [2, 2], [1, 1], [0, 0]));
    }

    #[test]
    fn reads_padding_as_zeros() {
        // "Same" 3x3 (padding 1 all round), ResNet's 7x7 stem (padding 3, stride 2),
        // uneven padding (more below and right than above and left), dilation into
        // the padding, a 1x1 with padding (the in-place path must not be taken),
        // and output pixels whose windows lie wholly in the padding.
        check(conv([3, 8, 8], [5, 3, 3], [8, 8], [1, 1], [1, 1], [1, 1]));
        check(conv(
            [3, 20, 20],
            [17, 7, 7],
            [10, 10],
            [2, 2],
            [1, 1],
            [3, 3],
        ));
        check(conv([2, 9, 7], [4, 3, 3], [10, 9], [1, 1], [1, 1], [0, 1]));
        check(conv([5, 9, 9], [6, 3, 3], [9, 9], [1, 1], [2, 2], [2, 2]));
        check(conv([20, 5, 5], [33, 1, 1], [7, 7], [1, 1], [1, 1], [1, 1]));
        check(conv([2, 3, 3], [3, 2, 2], [8, 8], [1, 1], [1, 1], [3, 3]));
    }

    #[test]
    fn clamps_the_sums_once_complete() {
        // ReLU6 over sums that cross both bounds; a depth of several blocks (the
        // clamp must come after the last); no taps at all (only the clamp).
        let relu6 = Bounds { lo: 0.0, hi: 6.0 };
        let shapes = [
            conv([40, 9, 9], [20, 3, 3], [9, 9], [1, 1], [1, 1], [1, 1]),
            conv([3, 6, 6], [5, 1, 1], [6, 6], [1, 1], [1, 1], [0, 0]),
            conv([2, 4, 4], [3, 0, 0], [2, 2], [1, 1], [1, 1], [0, 0]),
        ];
        for shape in shapes {
            check_with(sconv2d, shape, relu6, false);
            check_with(sconv2d_portable, shape, relu6, false);
        }
    }

    #[test]
    fn starts_from_the_bias() {
        // Rows of C beyond a tile (20 channels), several depth blocks (the bias only
        // in the first), with and without a clamp, and no taps at all.
        let shapes = [
            conv([40, 9, 9], [20, 3, 3], [9, 9], [1, 1], [1, 1], [1, 1]),
            conv([3, 6, 6], [5, 1, 1], [6, 6], [1, 1], [1, 1], [0, 0]),
            conv([2, 4, 4], [3, 0, 0], [2, 2], [1, 1], [1, 1], [0, 0]),
        ];
        for shape in shapes {
            for bounds in [Bounds::NONE, Bounds { lo: 0.0, hi: 6.0 }] {
                check_with(sconv2d, shape, bounds, true);
                check_with(sconv2d_portable, shape, bounds, true);
            }
        }
    }

    #[test]
    fn threads_split_few_columns_by_rows_with_the_same_bits() {
        // A 7x7 output (2 column tiles) of 90 channels: the threads take groups of
        // rows (output channels), each with its share of the bias.
        let shape = conv([70, 9, 9], [90, 3, 3], [7, 7], [1, 1], [1, 1], [0, 0]);
        let relu6 = Bounds { lo: 0.0, hi: 6.0 };
        check_with(sconv2d, shape, relu6, true);
        let (x, f, bias) = (random(70 * 81, 31), random(90 * 70 * 9, 32), random(90, 33));
        crate::threads::assert_same_bits_on_threads(|| {
            let mut out = vec![0f32; 90 * 49];
            let fused = Fused {
                bias: Some(bias.as_ptr()),
                ..Fused::of_call(std::ptr::null(), relu6.lo, relu6.hi)
            };
            // SAFETY: the vectors hold the shape's buffers.
            unsafe { sconv2d(x.as_ptr(), f.as_ptr(), out.as_mut_ptr(), shape, fused) };
            out
        });
    }

    #[test]
    fn the_c_entry_points_agree_with_the_kernel() {
        // 3 channels 6x6 -> 4 channels 3x3 (stride 2, padding 1), ReLU, with and
        // without a bias (a null bias is no bias).
        let (x, f, bias) = (random(3 * 36, 21), random(4 * 3 * 9, 22), random(4, 23));
        let start = random(4 * 9, 24);
        let shape = conv([3, 6, 6], [4, 3, 3], [3, 3], [2, 2], [1, 1], [1, 1]);
        let relu = Bounds {
            lo: 0.0,
            hi: f32::INFINITY,
        };
        let run = |bias: Option<&[f32]>, entry: bool| {
            let mut out = start.clone();
            let fused = Fused {
                bias: bias.map(|b| b.as_ptr()),
                ..Fused::of_call(std::ptr::null(), relu.lo, relu.hi)
            };
            let b = bias.map_or(std::ptr::null(), |b| b.as_ptr());
            let (o, p) = (out.as_mut_ptr(), f.as_ptr());
            // SAFETY: the vectors hold the shape's buffers.
            unsafe {
                match (entry, bias.is_some()) {
                    (false, _) => sconv2d(x.as_ptr(), p, o, shape, fused),
                    (true, false) => acc_sconv2d(
                        x.as_ptr(),
                        p,
                        o,
                        3,
                        6,
                        6,
                        4,
                        3,
                        3,
                        3,
                        3,
                        2,
                        2,
                        1,
                        1,
                        1,
                        1,
                        0.0,
                        f32::INFINITY,
                    ),
                    (true, true) => acc_sconv2d_bias(
                        x.as_ptr(),
                        p,
                        b,
                        o,
                        3,
                        6,
                        6,
                        4,
                        3,
                        3,
                        3,
                        3,
                        2,
                        2,
                        1,
                        1,
                        1,
                        1,
                        0.0,
                        f32::INFINITY,
                    ),
                }
            };
            out
        };
        assert_eq!(run(None, true), run(None, false));
        assert_eq!(run(Some(&bias), true), run(Some(&bias), false));
        assert_ne!(run(Some(&bias), false), run(None, false));
    }

    #[test]
    fn inside_counts_the_taps_within_the_input() {
        // Taps at -3, -1, 1, 3, 5 with stride 2 in an axis of size 4: t = 2 and 3.
        assert_eq!(inside(-3, 2, 5, 4), (2, 4));
        assert_eq!(inside(0, 1, 16, 4), (0, 4));
        assert_eq!(inside(-20, 1, 16, 4), (16, 16));
        assert_eq!(inside(9, 1, 16, 4), (0, 0));
        assert_eq!(inside(-1, 3, 4, 10), (1, 4));
    }
}
