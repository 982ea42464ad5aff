//! acc's host runtime: the library kernels that generated code calls through
//! `hw.intrinsic` (the host's counterpart of a vendor's HWlib).
//!
//! Every kernel has a portable version, and faster ones chosen at run time from the
//! host's instruction set; all versions compute the same products (up to the
//! association of floating-point sums).

pub mod blocked;
pub mod blocked_depthwise;
pub mod conv;
pub mod depthwise;
pub mod elementwise;
pub mod pool;
pub mod sgemm;
pub mod threads;

/// Whether the AVX-512 kernels run: the host has AVX-512F and the environment does
/// not set `ACC_RUNTIME_NO_AVX512` (read once), which makes the runtime take the
/// kernels an AVX2-only or other host takes: how benchmarks measure those on an
/// AVX-512 machine. The results are the same either way.
#[cfg(target_arch = "x86_64")]
pub(crate) fn avx512() -> bool {
    static ENABLED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ENABLED.get_or_init(|| {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::env::var_os("ACC_RUNTIME_NO_AVX512").is_none()
    })
}

/// What a convolution kernel fuses around its sums: the bias each output channel
/// starts from (else the output's own contents, which the sums are added to) and the
/// clamp of what it stores.
#[derive(Clone, Copy, Debug)]
pub struct Fused {
    /// One value per output channel (per row of a matrix product's C).
    pub bias: Option<*const f32>,
    pub bounds: Bounds,
}

impl Fused {
    /// Accumulate onto the output, no clamp.
    pub const NONE: Fused = Fused {
        bias: None,
        bounds: Bounds::NONE,
    };

    /// What a C entry point's `bias` (null for none), `lo` and `hi` ask for.
    pub fn of_call(bias: *const f32, lo: f32, hi: f32) -> Fused {
        Fused {
            bias: (!bias.is_null()).then_some(bias),
            bounds: Bounds { lo, hi },
        }
    }

    /// Starts `len` outputs of channel `channel` from its bias, if there is one.
    ///
    /// # Safety
    /// `out` holds `len` floats; a bias holds more than `channel` values.
    pub(crate) unsafe fn start(self, out: &mut [f32], channel: usize) {
        if let Some(bias) = self.bias {
            // SAFETY: the caller vouches for the bias.
            out.fill(unsafe { *bias.add(channel) });
        }
    }
}

/// The clamp a kernel applies to each result as it stores it: `min(max(x, lo),
/// hi)`, the fused activation of a convolution (ReLU: lo = 0; ReLU6 / Clip: lo =
/// 0, hi = 6). A NaN result stays NaN.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    pub lo: f32,
    pub hi: f32,
}

impl Bounds {
    /// No clamp.
    pub const NONE: Bounds = Bounds {
        lo: f32::NEG_INFINITY,
        hi: f32::INFINITY,
    };

    /// One value clamped (NaN stays NaN).
    pub fn apply_scalar(self, x: f32) -> f32 {
        if x.is_nan() {
            x
        } else {
            x.max(self.lo).min(self.hi)
        }
    }

    /// Clamps a vector, `lo` and `hi` the bounds splatted.
    ///
    /// # Safety
    /// The CPU has AVX-512F.
    #[cfg(target_arch = "x86_64")]
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(crate) fn apply(
        self,
        lo: std::arch::x86_64::__m512,
        hi: std::arch::x86_64::__m512,
        x: std::arch::x86_64::__m512,
    ) -> std::arch::x86_64::__m512 {
        use std::arch::x86_64::{_mm512_max_ps, _mm512_min_ps};
        // max_ps / min_ps give their second operand when either is NaN: the value.
        _mm512_min_ps(hi, _mm512_max_ps(lo, x))
    }

    /// Clamps every element of `values`.
    pub fn apply_all(self, values: &mut [f32]) {
        if self != Bounds::NONE {
            for x in values {
                *x = self.apply_scalar(*x);
            }
        }
    }
}

/// Inputs for the kernels' tests.
#[cfg(test)]
mod test_data {
    /// `len` deterministic pseudo-random values in [-1, 1) (an LCG from `seed`).
    pub fn random(len: usize, seed: u64) -> Vec<f32> {
        let mut s = seed;
        (0..len)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((s >> 40) as f32 / (1u64 << 23) as f32) - 1.0
            })
            .collect()
    }

    /// out + conv(x, f) by the definition of [`crate::conv::Conv2d`], in f64;
    /// `depthwise`: output channel o reads input channel o only (f holds one
    /// kh x kw filter per channel).
    pub fn reference_conv(
        x: &[f32],
        f: &[f32],
        out: &[f32],
        s: crate::conv::Conv2d,
        depthwise: bool,
    ) -> Vec<f64> {
        let ([c, h, w], [m, kh, kw], [oh, ow]) = (s.input, s.filter, s.output);
        let mut r: Vec<f64> = out.iter().map(|&v| v as f64).collect();
        let taps = if depthwise { 1 } else { c };
        for o in 0..m {
            for y in 0..oh {
                for xx in 0..ow {
                    let mut sum = 0f64;
                    for t in 0..taps {
                        let ci = if depthwise { o } else { t };
                        for i in 0..kh {
                            for j in 0..kw {
                                let iy = (y * s.stride[0] + i * s.dilation[0]) as isize
                                    - s.padding[0] as isize;
                                let ix = (xx * s.stride[1] + j * s.dilation[1]) as isize
                                    - s.padding[1] as isize;
                                if iy < 0 || ix < 0 || iy >= h as isize || ix >= w as isize {
                                    continue;
                                }
                                let (iy, ix) = (iy as usize, ix as usize);
                                sum += f[((o * taps + t) * kh + i) * kw + j] as f64
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
}
