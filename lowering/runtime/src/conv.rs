//! `acc_sconv2d`: a batch-1, ungrouped NCHW f32 convolution as an implicit matrix
//! product, the host's convolution behind `hw.intrinsic "acc_sconv2d"`.
//!
//! out (M x OH*OW) += filter (M x C*KH*KW) x patches (C*KH*KW x OH*OW), where the
//! patches are never stored: the matrix product's kernel gathers each panel of them
//! from the input as it packs it (no im2col buffer, no second pass over memory).

use crate::sgemm::{Matrix, PanelSource, matrix, portable};

/// The shape of a convolution. The input is already padded: output pixel (y, x)
/// reads input rows `y * stride.0 + i * dilation.0` and columns
/// `x * stride.1 + j * dilation.1` for the filter's (i, j).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conv2d {
    /// Input channels, rows and columns.
    pub input: [usize; 3],
    /// Output channels, filter rows and filter columns.
    pub filter: [usize; 3],
    /// Output rows and columns.
    pub output: [usize; 2],
    pub stride: [usize; 2],
    pub dilation: [usize; 2],
}

impl Conv2d {
    /// Whether every window lies inside the input.
    pub fn is_consistent(&self) -> bool {
        let [_, h, w] = self.input;
        let [_, kh, kw] = self.filter;
        let fits = |out: usize, stride: usize, k: usize, dilation: usize, size: usize| {
            out == 0 || k == 0 || (out - 1) * stride + (k - 1) * dilation < size
        };
        fits(self.output[0], self.stride[0], kh, self.dilation[0], h)
            && fits(self.output[1], self.stride[1], kw, self.dilation[1], w)
    }

    fn depth(&self) -> usize {
        self.input[0] * self.filter[1] * self.filter[2]
    }

    fn plane(&self) -> usize {
        self.output[0] * self.output[1]
    }
}

/// The patches matrix of a convolution, read from its input.
struct Patches {
    input: *const f32,
    shape: Conv2d,
}

impl PanelSource for Patches {
    unsafe fn copy_row(&self, k: usize, n: usize, out: &mut [f32]) {
        let Conv2d {
            input: [_, h, w],
            filter: [_, kh, kw],
            output: [_, ow],
            stride: [sh, sw],
            dilation: [dh, dw],
        } = self.shape;
        let (channel, i, j) = (k / (kh * kw), k / kw % kh, k % kw);
        let (mut y, mut x) = (n / ow, n % ow);
        let mut done = 0;
        while done < out.len() {
            let run = (ow - x).min(out.len() - done);
            // SAFETY: the caller keeps (k, n..) inside the patches matrix, so each
            // pixel read lies inside the consistent input.
            let row = unsafe { self.input.add((channel * h + y * sh + i * dh) * w + j * dw) };
            let segment = &mut out[done..done + run];
            if sw == 1 {
                // SAFETY: as above; the run stays inside the input row.
                segment.copy_from_slice(unsafe { std::slice::from_raw_parts(row.add(x), run) });
            } else {
                for (t, value) in segment.iter_mut().enumerate() {
                    // SAFETY: as above.
                    *value = unsafe { *row.add((x + t) * sw) };
                }
            }
            done += run;
            (y, x) = (y + 1, 0);
        }
    }

    fn in_place(&self, k: usize, n: usize) -> Option<(*const f32, usize)> {
        // A 1x1 convolution with unit strides over the whole input: the patches are
        // the input itself, C x H*W.
        let Conv2d {
            input: [_, h, w],
            filter: [_, kh, kw],
            output,
            stride,
            ..
        } = self.shape;
        let plane = h * w;
        (kh == 1 && kw == 1 && stride == [1, 1] && output == [h, w])
            .then(|| (self.input.wrapping_add(k * plane + n), plane))
    }
}

/// out += conv(input, filter).
///
/// # Safety
/// `input` holds C*H*W floats, `filter` M*C*KH*KW, `output` M*OH*OW not overlapping
/// the others, and the shape is consistent (checked: an inconsistent one panics).
pub unsafe fn sconv2d(input: *const f32, filter: *const f32, output: *mut f32, shape: Conv2d) {
    let Some(product) = Product::new(input, filter, output, shape) else {
        return;
    };
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU has AVX-512F; the caller vouches for the memory and the
        // patches cover depth x plane.
        unsafe { crate::sgemm::avx512::sgemm(product.filter, &product.patches, product.output) };
        return;
    }
    // SAFETY: as above.
    unsafe { product.portable() }
}

/// out += conv(input, filter) on any CPU: the patches gathered into a buffer, then
/// the portable matrix product.
///
/// # Safety
/// As [`sconv2d`].
pub unsafe fn sconv2d_portable(
    input: *const f32,
    filter: *const f32,
    output: *mut f32,
    shape: Conv2d,
) {
    if let Some(product) = Product::new(input, filter, output, shape) {
        // SAFETY: the caller vouches for the memory.
        unsafe { product.portable() }
    }
}

/// A convolution as the matrix product output += filter x patches.
struct Product {
    filter: Matrix<*const f32>,
    patches: Patches,
    output: Matrix<*mut f32>,
}

impl Product {
    /// The product of a consistent shape (an inconsistent one panics); None when it
    /// is empty.
    fn new(input: *const f32, filter: *const f32, output: *mut f32, shape: Conv2d) -> Option<Self> {
        assert!(
            shape.is_consistent(),
            "sconv2d: windows leave the input: {shape:?}"
        );
        let (m, depth, plane) = (shape.filter[0], shape.depth(), shape.plane());
        (m > 0 && depth > 0 && plane > 0).then(|| Product {
            filter: matrix(filter, m, depth),
            patches: Patches { input, shape },
            output: matrix(output, m, plane),
        })
    }

    /// The patches gathered into a buffer, then the portable matrix product.
    ///
    /// # Safety
    /// As [`sconv2d`].
    unsafe fn portable(&self) {
        let (depth, plane) = (self.filter.cols, self.output.cols);
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
    }
}

/// The C ABI entry point generated code calls (sizes as in [`Conv2d`]).
///
/// # Safety
/// As [`sconv2d`].
#[allow(clippy::too_many_arguments)]
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
) {
    let u = |v: i64| v.max(0) as usize;
    let shape = Conv2d {
        input: [u(channels), u(height), u(width)],
        filter: [u(out_channels), u(kernel_h), u(kernel_w)],
        output: [u(out_h), u(out_w)],
        stride: [u(stride_h), u(stride_w)],
        dilation: [u(dilation_h), u(dilation_w)],
    };
    // SAFETY: the caller vouches for the buffers.
    unsafe { sconv2d(input, filter, output, shape) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_data::random;

    /// The convolution by its definition, in f64.
    fn reference(x: &[f32], f: &[f32], out: &[f32], s: Conv2d) -> Vec<f64> {
        let ([c, h, w], [m, kh, kw], [oh, ow]) = (s.input, s.filter, s.output);
        let mut r: Vec<f64> = out.iter().map(|&v| v as f64).collect();
        for o in 0..m {
            for y in 0..oh {
                for xx in 0..ow {
                    let mut sum = 0f64;
                    for ci in 0..c {
                        for i in 0..kh {
                            for j in 0..kw {
                                let iy = y * s.stride[0] + i * s.dilation[0];
                                let ix = xx * s.stride[1] + j * s.dilation[1];
                                sum += f[((o * c + ci) * kh + i) * kw + j] as f64
                                    * x[(ci * h + iy) * w + ix] as f64;
                            }
                        }
                    }
                    r[(o * oh + y) * ow + xx] += sum;
                }
            }
        }
        r
    }

    type Convolution = unsafe fn(*const f32, *const f32, *mut f32, Conv2d);

    fn check(shape: Conv2d) {
        check_with(sconv2d, shape);
        check_with(sconv2d_portable, shape);
    }

    fn check_with(convolution: Convolution, shape: Conv2d) {
        let ([c, h, w], [m, kh, kw], [oh, ow]) = (shape.input, shape.filter, shape.output);
        let (x, f) = (random(c * h * w, 1), random(m * c * kh * kw, 2));
        let mut out = random(m * oh * ow, 3);
        let want = reference(&x, &f, &out, shape);
        // SAFETY: the vectors hold the shape's buffers.
        unsafe { convolution(x.as_ptr(), f.as_ptr(), out.as_mut_ptr(), shape) };
        for (i, (&got, &want)) in out.iter().zip(&want).enumerate() {
            let tolerance = 1e-5 * ((c * kh * kw) as f64).sqrt() * (1.0 + want.abs());
            assert!(
                (got as f64 - want).abs() <= tolerance,
                "{shape:?}: {i}: {got} vs {want}"
            );
        }
    }

    #[test]
    fn agrees_with_the_definition() {
        let conv = |input, filter, output, stride, dilation| Conv2d {
            input,
            filter,
            output,
            stride,
            dilation,
        };
        // 3x3 same-size (padded input), strided 7x7, 1x1, dilated, and shapes whose
        // output rows end inside a tile or a depth block.
        check(conv([3, 10, 10], [5, 3, 3], [8, 8], [1, 1], [1, 1]));
        check(conv([3, 23, 23], [40, 7, 7], [9, 9], [2, 2], [1, 1]));
        check(conv([130, 7, 7], [33, 1, 1], [7, 7], [1, 1], [1, 1]));
        check(conv([4, 13, 11], [9, 3, 2], [9, 9], [1, 1], [2, 2]));
        check(conv([16, 16, 70], [64, 3, 3], [14, 68], [1, 1], [1, 1]));
        check(conv([8, 9, 9], [3, 3, 3], [4, 4], [2, 2], [1, 1]));
    }

    #[test]
    fn inconsistent_shapes_are_refused() {
        let shape = Conv2d {
            input: [1, 4, 4],
            filter: [1, 3, 3],
            output: [3, 3],
            stride: [1, 1],
            dilation: [1, 1],
        };
        assert!(!shape.is_consistent());
        assert!(
            Conv2d {
                output: [2, 2],
                ..shape
            }
            .is_consistent()
        );
    }
}
