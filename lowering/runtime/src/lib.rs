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
pub mod epilogue;
pub mod pool;
mod scratch;
pub mod sgemm;
pub mod threads;

pub use epilogue::{Bounds, Fused, Gate};

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

/// Whether the host has AVX2 and FMA, the AVX2 kernels' instructions (read once).
#[cfg(target_arch = "x86_64")]
pub(crate) fn avx2_fma() -> bool {
    static ENABLED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ENABLED.get_or_init(|| {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
    })
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

    /// Where each output of a kernel test starts: channel `i / plane`'s bias when
    /// `with_bias`, else the output's previous contents `start`.
    pub fn starting_values(with_bias: bool, bias: &[f32], start: &[f32], plane: usize) -> Vec<f32> {
        if with_bias {
            (0..start.len()).map(|i| bias[i / plane.max(1)]).collect()
        } else {
            start.to_vec()
        }
    }

    /// The same bits, zeros of either sign and NaNs of any payload aside.
    pub fn same_bits(a: f32, b: f32) -> bool {
        a.to_bits() == b.to_bits() || (a == 0.0 && b == 0.0) || (a.is_nan() && b.is_nan())
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
