//! The AVX2 (with FMA) elementwise functions: eight lanes at a time, each step the
//! portable formula's (the same roundings, the same fused multiply-adds), so every
//! lane holds the portable kernel's bits; the last partial vector is read and
//! written under a lane mask (no element past `n` is touched).

use super::{
    ERF_LIMIT, ERF_P, ERF_Q, EXP_P, EXP_RANGE, Function, LN2_HI, LN2_LO, TANH_LIMIT, TANH_P,
    TANH_Q, TANH_TINY,
};
use std::arch::x86_64::*;

const LANES: usize = 8;

/// out[i] = f(x[i]) for i < n.
///
/// # Safety
/// The CPU has AVX2 and FMA; the arrays are as [`super::apply`] requires.
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn apply(f: Function, x: *const f32, out: *mut f32, n: usize) {
    match f {
        // SAFETY: the caller's contract; the closures run where AVX2 is enabled.
        Function::Exp => unsafe { each_vector(x, out, n, |v| exp(v)) },
        Function::ExpNeg => unsafe { each_vector(x, out, n, |v| exp(negate(v))) },
        Function::Erf => unsafe { each_vector(x, out, n, |v| erf(v)) },
        Function::Tanh => unsafe { each_vector(x, out, n, |v| tanh(v)) },
    }
}

/// Applies `f` to every vector of `x`, storing into `out`.
///
/// # Safety
/// As [`apply`].
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn each_vector(x: *const f32, out: *mut f32, n: usize, f: impl Fn(__m256) -> __m256) {
    let whole = n - n % LANES;
    // SAFETY (whole body): offsets below `whole` are full vectors inside the arrays,
    // the tail is masked to its n - whole lanes.
    unsafe {
        for i in (0..whole).step_by(LANES) {
            _mm256_storeu_ps(out.add(i), f(_mm256_loadu_ps(x.add(i))));
        }
        if whole < n {
            let lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
            let mask = _mm256_cmpgt_epi32(_mm256_set1_epi32((n - whole) as i32), lane);
            let v = _mm256_maskload_ps(x.add(whole), mask);
            _mm256_maskstore_ps(out.add(whole), mask, f(v));
        }
    }
}

/// `c[0] + x (c[1] + x (c[2] + ...))` with fused multiply-adds, from the highest
/// coefficient down, as the portable `horner`.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn horner(x: __m256, c: &[f32]) -> __m256 {
    let (top, rest) = c.split_last().expect("a polynomial has a coefficient");
    rest.iter().rev().fold(_mm256_set1_ps(*top), |acc, k| {
        _mm256_fmadd_ps(acc, x, _mm256_set1_ps(*k))
    })
}

/// `min(max(x, lo), hi)`; a NaN lane stays NaN (max/min return their second operand
/// when either is NaN).
#[inline]
#[target_feature(enable = "avx2,fma")]
fn clamp(x: __m256, lo: f32, hi: f32) -> __m256 {
    _mm256_min_ps(_mm256_set1_ps(hi), _mm256_max_ps(_mm256_set1_ps(lo), x))
}

/// -x: the sign bit flipped, as `arith.negf` does (NaN included).
#[inline]
#[target_feature(enable = "avx2,fma")]
pub(super) fn negate(x: __m256) -> __m256 {
    _mm256_xor_ps(x, _mm256_set1_ps(-0.0))
}

/// e^x by the portable steps: 2^n applied as two normal factors, so that
/// subnormal results come out as the portable kernel's.
#[inline]
#[target_feature(enable = "avx2,fma")]
pub(super) fn exp(x: __m256) -> __m256 {
    const NEAREST: i32 = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    let x = clamp(x, EXP_RANGE.0, EXP_RANGE.1);
    let n = _mm256_round_ps::<NEAREST>(_mm256_mul_ps(x, _mm256_set1_ps(std::f32::consts::LOG2_E)));
    let r = _mm256_fnmadd_ps(n, _mm256_set1_ps(LN2_HI), x);
    let r = _mm256_fnmadd_ps(n, _mm256_set1_ps(LN2_LO), r);
    let y = _mm256_fmadd_ps(horner(r, &EXP_P), _mm256_mul_ps(r, r), r);
    let y = _mm256_add_ps(y, _mm256_set1_ps(1.0));
    let h = _mm256_round_ps::<NEAREST>(_mm256_mul_ps(n, _mm256_set1_ps(0.5)));
    // 2^k for integral k in [-126, 127]: the exponent field k + 127.
    let pow2 = |k: __m256| {
        let bits = _mm256_add_epi32(_mm256_cvtps_epi32(k), _mm256_set1_epi32(127));
        _mm256_castsi256_ps(_mm256_slli_epi32::<23>(bits))
    };
    _mm256_mul_ps(_mm256_mul_ps(y, pow2(h)), pow2(_mm256_sub_ps(n, h)))
}

/// The lower clamp of the logistic's exponent: e^-86 (about 4.4e-38) is far below
/// 2^-24, so wherever the clamp changes e^t, 1 + e^t is 1 in f32 either way.
const LOGISTIC_EXP_LOW: f32 = -86.0;

/// 1 / (1 + e^-x), the bits of `1.0 / (1.0 + Function::ExpNeg.scalar(x))` with half
/// the scaling work: e^t (t = -x) by the portable steps, but t clamped below at
/// [`LOGISTIC_EXP_LOW`] rather than -104. That changes e^t only where 1 + e^t is 1
/// regardless, and keeps n >= -124, so y 2^n is y 2^(n-1) (a normal, exact product
/// for y in [0.7, 1.42] and n <= 128) doubled: the one rounding of the portable
/// kernel's two exact factors, overflow to +inf included.
#[inline]
#[target_feature(enable = "avx2,fma")]
pub(super) fn logistic(x: __m256) -> __m256 {
    const NEAREST: i32 = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    let t = clamp(negate(x), LOGISTIC_EXP_LOW, EXP_RANGE.1);
    let n = _mm256_round_ps::<NEAREST>(_mm256_mul_ps(t, _mm256_set1_ps(std::f32::consts::LOG2_E)));
    let r = _mm256_fnmadd_ps(n, _mm256_set1_ps(LN2_HI), t);
    let r = _mm256_fnmadd_ps(n, _mm256_set1_ps(LN2_LO), r);
    let y = _mm256_fmadd_ps(horner(r, &EXP_P), _mm256_mul_ps(r, r), r);
    let y = _mm256_add_ps(y, _mm256_set1_ps(1.0));
    // 2^(n-1): the exponent field n - 1 + 127, in [2, 254].
    let bits = _mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(126));
    let half = _mm256_mul_ps(y, _mm256_castsi256_ps(_mm256_slli_epi32::<23>(bits)));
    let e = _mm256_add_ps(half, half);
    let one = _mm256_set1_ps(1.0);
    _mm256_div_ps(one, _mm256_add_ps(one, e))
}

#[inline]
#[target_feature(enable = "avx2,fma")]
pub(super) fn erf(x: __m256) -> __m256 {
    let x = clamp(x, -ERF_LIMIT, ERF_LIMIT);
    let x2 = _mm256_mul_ps(x, x);
    let p = _mm256_mul_ps(x, horner(x2, &ERF_P));
    _mm256_div_ps(p, horner(x2, &ERF_Q))
}

#[inline]
#[target_feature(enable = "avx2,fma")]
fn tanh(x: __m256) -> __m256 {
    let c = clamp(x, -TANH_LIMIT, TANH_LIMIT);
    let c2 = _mm256_mul_ps(c, c);
    let p = _mm256_mul_ps(c, horner(c2, &TANH_P));
    let y = _mm256_div_ps(p, horner(c2, &TANH_Q));
    // |x| below the tiny bound (false for NaN): x itself.
    let magnitude = _mm256_andnot_ps(_mm256_set1_ps(-0.0), x);
    let tiny = _mm256_cmp_ps::<_CMP_LT_OQ>(magnitude, _mm256_set1_ps(TANH_TINY));
    _mm256_blendv_ps(y, x, tiny)
}
