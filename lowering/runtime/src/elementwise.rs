//! `acc_vexp`, `acc_vexpneg`, `acc_verf` and `acc_vtanh`: e^x, e^-x, erf(x) and
//! tanh(x) over f32 arrays, the host library's elementwise functions behind
//! `hw.intrinsic` (softmax's exponentials, a sigmoid's e^-x read straight from its
//! input, GELU's erf, a recurrent cell's tanh).
//!
//! Both use the approximations of the `math-approximation` pass, so that generated
//! loops and these kernels agree to within rounding:
//! - `exp`: n = round(x log2 e), r = x - n ln 2 (Cody and Waite, two parts),
//!   e^r = 1 + r + r^2 P(r) (Cephes' degree-5 P), scaled by 2^n. Relative error
//!   about 1e-7; x above 88.73 gives +inf, below -103.98 zero, NaN stays NaN.
//! - `erf`: x clamped to [-4, 4], x P(x^2) / Q(x^2) with Eigen's coefficients
//!   (degree 13 over degree 8). Absolute error below 5e-7.
//! - `tanh`: x clamped to [-7.9053, 7.9053], x P(x^2) / Q(x^2) (degree 13 over
//!   degree 6, MLIR's and Eigen's coefficients), x itself where |x| < 0.0004. A few
//!   ulps.
//!
//! On x86-64 with AVX-512 sixteen lanes are computed at a time with fused
//! multiply-adds (`vscalefps` does the scaling), with AVX2 and FMA eight, on AArch64
//! four with NEON; elsewhere the same formulas run per element. All give the same
//! bits. The input and output may be the same array (the kernels work in place).

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(target_arch = "aarch64")]
mod neon;

/// e^-x on sixteen lanes, the bits of [`Function::ExpNeg`] (for kernels' epilogues).
///
/// # Safety
/// The CPU has AVX-512F.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx512f")]
pub(crate) fn exp_neg_vector(x: std::arch::x86_64::__m512) -> std::arch::x86_64::__m512 {
    avx512::exp(avx512::negate(x))
}

/// erf(x) on sixteen lanes, the bits of [`Function::Erf`] (for kernels' epilogues: a
/// GELU gate).
///
/// # Safety
/// The CPU has AVX-512F.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx512f")]
pub(crate) fn erf_vector(x: std::arch::x86_64::__m512) -> std::arch::x86_64::__m512 {
    avx512::erf(x)
}

/// The logistic function 1 / (1 + e^-x) on eight lanes with AVX2 and FMA, the bits
/// of `1.0 / (1.0 + Function::ExpNeg.scalar(x))` (a SiLU gate).
///
/// # Safety
/// The CPU has AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx2,fma")]
pub(crate) fn logistic_avx2(x: std::arch::x86_64::__m256) -> std::arch::x86_64::__m256 {
    avx2::logistic(x)
}

/// erf(x) on eight lanes with AVX2 and FMA, the bits of [`Function::Erf`] (a GELU
/// gate).
///
/// # Safety
/// The CPU has AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx2,fma")]
pub(crate) fn erf_avx2(x: std::arch::x86_64::__m256) -> std::arch::x86_64::__m256 {
    avx2::erf(x)
}

/// e^-x on four NEON lanes, the bits of [`Function::ExpNeg`] (a SiLU gate).
#[cfg(target_arch = "aarch64")]
#[inline(always)]
pub(crate) fn exp_neg_neon(x: std::arch::aarch64::float32x4_t) -> std::arch::aarch64::float32x4_t {
    // SAFETY: NEON is part of every AArch64 CPU.
    neon::exp(unsafe { std::arch::aarch64::vnegq_f32(x) })
}

/// erf(x) on four NEON lanes, the bits of [`Function::Erf`] (a GELU gate).
#[cfg(target_arch = "aarch64")]
#[inline(always)]
pub(crate) fn erf_neon(x: std::arch::aarch64::float32x4_t) -> std::arch::aarch64::float32x4_t {
    neon::erf(x)
}

/// `x` is clamped to this range before e^x is computed: below it e^x is zero in f32,
/// above it +inf (the scaling by 2^n gives both).
const EXP_RANGE: (f32, f32) = (-104.0, 89.0);
/// ln 2 in two parts: `LN2_HI` has few significant bits, so `n * LN2_HI` is exact.
const LN2_HI: f32 = 0.693_359_4;
const LN2_LO: f32 = -2.121_944_4e-4;
/// P of e^r = 1 + r + r^2 P(r), lowest degree first.
const EXP_P: [f32; 6] = [
    0.5,
    1.666_666_5e-1,
    4.166_579_6e-2,
    8.333_452e-3,
    1.398_2e-3,
    1.987_569_1e-4,
];
/// erf(x) is +-1 in f32 beyond this.
const ERF_LIMIT: f32 = 4.0;
/// The numerator of erf(x) = x P(x^2) / Q(x^2), lowest degree first.
const ERF_P: [f32; 7] = [
    -1.609_603_3e-2,
    -2.954_6e-3,
    -7.349_906_3e-4,
    -5.692_506_4e-5,
    -2.101_024e-6,
    2.770_681_4e-8,
    -2.726_142_3e-10,
];
/// The denominator Q, lowest degree first.
const ERF_Q: [f32; 5] = [
    -1.426_473_9e-2,
    -7.373_329e-3,
    -1.682_827e-3,
    -2.133_740_6e-4,
    -1.456_607_2e-5,
];

/// tanh(x) is +-1 in f32 beyond this.
const TANH_LIMIT: f32 = 7.905_311;
/// Below this magnitude tanh(x) is x itself.
const TANH_TINY: f32 = 0.0004;
/// The numerator of tanh(x) = x P(x^2) / Q(x^2), lowest degree first.
const TANH_P: [f32; 7] = [
    4.893_524_6e-3,
    6.372_619_3e-4,
    1.485_722_4e-5,
    5.122_297e-8,
    -8.604_672e-11,
    2.000_188e-13,
    -2.760_768_5e-16,
];
/// The denominator Q, lowest degree first.
const TANH_Q: [f32; 4] = [4.893_525e-3, 2.268_434_6e-3, 1.185_347_1e-4, 1.198_258_4e-6];

/// One of the functions these kernels compute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Function {
    Exp,
    /// e^-x: the negation is exact, so it is e^x of `-x`.
    ExpNeg,
    Erf,
    Tanh,
}

impl Function {
    /// The function of one element, by the formulas above (the portable kernel).
    #[inline(always)]
    pub fn scalar(self, x: f32) -> f32 {
        match self {
            Function::Exp => exp(x),
            Function::ExpNeg => exp(-x),
            Function::Erf => erf(x),
            Function::Tanh => tanh(x),
        }
    }
}

/// `c[0] + x (c[1] + x (c[2] + ...))` with fused multiply-adds, from the highest
/// coefficient down (`c` is not empty). Every caller's `x` is finite or NaN (each
/// function clamps its argument first), for which this is the fold from 0: 0 x + c
/// is exactly c, and NaN stays NaN. The vector versions start the same way.
#[inline(always)]
fn horner(x: f32, c: &[f32]) -> f32 {
    let (top, rest) = c.split_last().expect("a polynomial has a coefficient");
    rest.iter().rev().fold(*top, |acc, k| acc.mul_add(x, *k))
}

#[inline(always)]
fn exp(x: f32) -> f32 {
    // NaN compares false both ways and passes through the clamp.
    let x = if x < EXP_RANGE.0 {
        EXP_RANGE.0
    } else if x > EXP_RANGE.1 {
        EXP_RANGE.1
    } else {
        x
    };
    let n = (x * std::f32::consts::LOG2_E).round_ties_even();
    let r = (-n).mul_add(LN2_HI, x);
    let r = (-n).mul_add(LN2_LO, r);
    let y = horner(r, &EXP_P).mul_add(r * r, r) + 1.0;
    // 2^n as two factors, each a normal f32, so that subnormal results come out.
    let h = (n * 0.5).round_ties_even();
    y * pow2(h) * pow2(n - h)
}

/// 2^n for an integral n in [-126, 127].
#[inline(always)]
fn pow2(n: f32) -> f32 {
    f32::from_bits(((n as i32 + 127) as u32) << 23)
}

#[inline(always)]
fn erf(x: f32) -> f32 {
    let x = if x.is_nan() {
        x
    } else {
        x.clamp(-ERF_LIMIT, ERF_LIMIT)
    };
    let x2 = x * x;
    x * horner(x2, &ERF_P) / horner(x2, &ERF_Q)
}

#[inline(always)]
fn tanh(x: f32) -> f32 {
    if x.abs() < TANH_TINY {
        return x;
    }
    let c = if x.is_nan() {
        x
    } else {
        x.clamp(-TANH_LIMIT, TANH_LIMIT)
    };
    let c2 = c * c;
    c * horner(c2, &TANH_P) / horner(c2, &TANH_Q)
}

/// out[i] = f(x[i]) for i < n.
///
/// # Safety
/// `x` holds `n` readable floats and `out` `n` writable ones; the two are the same
/// array or do not overlap.
pub unsafe fn apply(f: Function, x: *const f32, out: *mut f32, n: usize) {
    let chunks = n.div_ceil(CHUNK);
    let shared = crate::threads::Unshared((x, out));
    let part = |range: std::ops::Range<usize>| {
        let (x, out) = shared.get();
        let start = range.start * CHUNK;
        let len = (range.end * CHUNK).min(n) - start;
        // SAFETY: the caller's contract; parts read and write disjoint elements.
        unsafe { apply_here(f, x.add(start), out.add(start), len) };
    };
    crate::threads::split_from(
        chunks,
        n.saturating_mul(WORK_PER_ELEMENT),
        crate::threads::PARALLEL_LOOP_WORK,
        &part,
    );
}

/// Elements per unit of [`apply`]'s split among threads (whole cache lines).
const CHUNK: usize = 64;

/// About the operations one element costs (a polynomial and its reduction), for
/// the threshold of splitting.
const WORK_PER_ELEMENT: usize = 16;

/// [`apply`] on the calling thread.
///
/// # Safety
/// As [`apply`].
unsafe fn apply_here(f: Function, x: *const f32, out: *mut f32, n: usize) {
    #[cfg(target_arch = "x86_64")]
    if crate::avx512() {
        // SAFETY: the CPU has AVX-512F; the caller vouches for the arrays.
        unsafe { avx512::apply(f, x, out, n) };
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if crate::avx2_fma() {
        // SAFETY: the CPU has AVX2 and FMA; as above.
        unsafe { avx2::apply(f, x, out, n) };
        return;
    }
    #[cfg(target_arch = "aarch64")]
    {
        // SAFETY: every AArch64 CPU has NEON; the caller vouches for the arrays.
        unsafe { neon::apply(f, x, out, n) };
    }
    #[cfg(not(target_arch = "aarch64"))]
    // SAFETY: as above.
    unsafe {
        portable(f, x, out, n)
    };
}

/// [`apply`] one element at a time (any CPU).
///
/// # Safety
/// As [`apply`].
pub unsafe fn portable(f: Function, x: *const f32, out: *mut f32, n: usize) {
    for i in 0..n {
        // SAFETY: i < n; element i is read before it is written.
        unsafe { *out.add(i) = f.scalar(*x.add(i)) };
    }
}

/// The C ABI entry point: out[i] = e^x[i] for i < n.
///
/// # Safety
/// `x` and `out` hold `n` floats each and are the same array or do not overlap.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn acc_vexp(x: *const f32, out: *mut f32, n: i64) {
    // SAFETY: the caller vouches for the arrays.
    unsafe { apply(Function::Exp, x, out, n.max(0) as usize) }
}

/// The C ABI entry point: out[i] = e^-x[i] for i < n (a sigmoid's exponential,
/// without a pass that negates its input first).
///
/// # Safety
/// As [`acc_vexp`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn acc_vexpneg(x: *const f32, out: *mut f32, n: i64) {
    // SAFETY: the caller vouches for the arrays.
    unsafe { apply(Function::ExpNeg, x, out, n.max(0) as usize) }
}

/// The C ABI entry point: out[i] = erf(x[i]) for i < n.
///
/// # Safety
/// As [`acc_vexp`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn acc_verf(x: *const f32, out: *mut f32, n: i64) {
    // SAFETY: the caller vouches for the arrays.
    unsafe { apply(Function::Erf, x, out, n.max(0) as usize) }
}

/// The C ABI entry point: out[i] = tanh(x[i]) for i < n.
///
/// # Safety
/// As [`acc_vexp`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn acc_vtanh(x: *const f32, out: *mut f32, n: i64) {
    // SAFETY: the caller vouches for the arrays.
    unsafe { apply(Function::Tanh, x, out, n.max(0) as usize) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Inputs across both functions' ranges, the limits and the special values.
    fn inputs() -> Vec<f32> {
        let mut v: Vec<f32> = (-2200..=2200).map(|i| i as f32 * 0.05).collect();
        v.extend([
            0.0,
            -0.0,
            88.7,
            88.8,
            -87.0,
            -100.0,
            -103.9,
            -110.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            1e-30,
        ]);
        v
    }

    /// Within `tolerance` of `reference` relative to its magnitude, or one step of
    /// the smallest subnormal (results that underflow); a reference beyond f32's
    /// range must give the same infinity.
    fn close(got: f32, reference: f64, tolerance: f64) -> bool {
        if reference.is_nan() {
            return got.is_nan();
        }
        if (reference as f32).is_infinite() {
            return got == reference as f32;
        }
        (got as f64 - reference).abs() <= tolerance * reference.abs() + 1.5e-45
    }

    fn check(f: Function, reference: fn(f64) -> f64, tolerance: f64) {
        let x = inputs();
        let mut fast = vec![0f32; x.len()];
        let mut slow = vec![0f32; x.len()];
        // SAFETY: the arrays hold x.len() floats.
        unsafe {
            apply(f, x.as_ptr(), fast.as_mut_ptr(), x.len());
            portable(f, x.as_ptr(), slow.as_mut_ptr(), x.len());
        }
        for (i, &v) in x.iter().enumerate() {
            let want = reference(v as f64);
            assert!(
                close(fast[i], want, tolerance),
                "{f:?}({v}) = {}, not {want}",
                fast[i]
            );
            assert!(
                close(slow[i], want, tolerance),
                "{f:?}({v}) = {} (portable)",
                slow[i]
            );
        }
    }

    #[test]
    fn tanh_agrees_with_the_f64_tanh() {
        // A few ulps (about 1.2e-7 each) of the result.
        check(Function::Tanh, f64::tanh, 5e-7);
        let x = [1e-5f32, -3e-4, 0.0, -0.0];
        let mut y = [1f32; 4];
        // SAFETY: both arrays hold four floats.
        unsafe { apply(Function::Tanh, x.as_ptr(), y.as_mut_ptr(), 4) };
        assert_eq!(
            y.map(f32::to_bits),
            x.map(f32::to_bits),
            "tiny inputs are their tanh"
        );
    }

    #[test]
    fn exp_agrees_with_the_f64_exponential() {
        check(Function::Exp, f64::exp, 4e-7);
    }

    #[test]
    fn negated_exp_is_exp_of_the_negation() {
        check(Function::ExpNeg, |x| (-x).exp(), 4e-7);
        let x = inputs();
        let minus: Vec<f32> = x.iter().map(|v| -v).collect();
        let (mut negated, mut plain) = (vec![0f32; x.len()], vec![0f32; x.len()]);
        // SAFETY: the arrays hold x.len() floats.
        unsafe {
            apply(Function::ExpNeg, x.as_ptr(), negated.as_mut_ptr(), x.len());
            apply(Function::Exp, minus.as_ptr(), plain.as_mut_ptr(), x.len());
        }
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&negated), bits(&plain));
    }

    #[test]
    fn erf_agrees_with_a_series_within_its_bound() {
        // Absolute error below 5e-7 (erf is at most 1 in magnitude).
        let x = inputs();
        let mut fast = vec![0f32; x.len()];
        let mut slow = vec![0f32; x.len()];
        // SAFETY: the arrays hold x.len() floats.
        unsafe {
            apply(Function::Erf, x.as_ptr(), fast.as_mut_ptr(), x.len());
            portable(Function::Erf, x.as_ptr(), slow.as_mut_ptr(), x.len());
        }
        for (i, &v) in x.iter().enumerate() {
            if v.is_nan() {
                assert!(fast[i].is_nan() && slow[i].is_nan());
                continue;
            }
            let want = erf_reference(v as f64);
            for got in [fast[i], slow[i]] {
                assert!(
                    (got as f64 - want).abs() < 5e-7,
                    "erf({v}) = {got}, not {want}"
                );
            }
        }
    }

    /// erf by its Taylor series near zero and its continued fraction beyond
    /// (accurate to ~1e-12 in f64 over the range tested).
    fn erf_reference(x: f64) -> f64 {
        if x.is_nan() {
            return x;
        }
        let a = x.abs();
        let value = if a < 2.5 {
            let (mut term, mut sum) = (a, a);
            for k in 1..80 {
                term *= -a * a / k as f64;
                sum += term / (2 * k + 1) as f64;
            }
            sum * 2.0 / std::f64::consts::PI.sqrt()
        } else {
            // erfc(a) = e^-a^2 / sqrt(pi) * 1 / (a + 1/2 / (a + 1 / (a + 3/2 / ...))).
            let mut fraction = a;
            for k in (1..60).rev() {
                fraction = a + k as f64 / 2.0 / fraction;
            }
            1.0 - (-a * a).exp() / std::f64::consts::PI.sqrt() / fraction
        };
        value.copysign(x)
    }

    /// A vector version of [`apply`] (its safety contract met by the caller).
    type Version = unsafe fn(Function, *const f32, *mut f32, usize);

    /// Checks that `version` computes the portable bits of every function, at several
    /// tail lengths; with `any_nan`, a NaN matches any NaN (its payload is the
    /// hardware's to propagate).
    fn gives_the_portable_bits(name: &str, version: Version, any_nan: bool) {
        let x = inputs();
        for f in [
            Function::Exp,
            Function::ExpNeg,
            Function::Erf,
            Function::Tanh,
        ] {
            let mut slow = vec![0f32; x.len()];
            // SAFETY: the arrays hold x.len() floats.
            unsafe { portable(f, x.as_ptr(), slow.as_mut_ptr(), x.len()) };
            for len in [x.len(), x.len() - 1, x.len() - 5, 3] {
                let mut fast = vec![0f32; len];
                // SAFETY: the arrays hold len floats; the caller checked the CPU.
                unsafe { version(f, x.as_ptr(), fast.as_mut_ptr(), len) };
                for (i, (a, b)) in fast.iter().zip(&slow[..len]).enumerate() {
                    let same = a.to_bits() == b.to_bits() || (any_nan && a.is_nan() && b.is_nan());
                    assert!(same, "{f:?} {name} {len}: {a} for {}, portable {b}", x[i]);
                }
            }
        }
    }

    /// The NEON version computes the portable bits, NaN payloads aside. Runs under
    /// qemu-aarch64: docs/testing.md.
    #[cfg(target_arch = "aarch64")]
    #[test]
    fn neon_gives_the_portable_bits() {
        gives_the_portable_bits("NEON", neon::apply, true);
    }

    /// The AVX2 and AVX-512 versions compute the portable bits, NaNs included.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn vector_versions_give_the_portable_bits() {
        if crate::avx2_fma() {
            gives_the_portable_bits("AVX2", avx2::apply, false);
        }
        if crate::avx512() {
            gives_the_portable_bits("AVX-512", avx512::apply, false);
        }
    }

    #[test]
    fn in_place_and_every_tail_length() {
        for n in 0..40 {
            let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.3 - 4.0).collect();
            let mut y = x.clone();
            // SAFETY: y holds n floats; in and out are the same array.
            unsafe { apply(Function::Exp, y.as_ptr(), y.as_mut_ptr(), n) };
            for (a, b) in x.iter().zip(&y) {
                assert!(
                    close(*b, (*a as f64).exp(), 4e-7),
                    "exp({a}) = {b} in place"
                );
            }
        }
    }
}
