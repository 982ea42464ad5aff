//! The AVX-512 elementwise functions: sixteen lanes at a time, the last partial
//! vector under a lane mask (no element past `n` is read or written).

use super::{
    ERF_LIMIT, ERF_P, ERF_Q, EXP_P, EXP_RANGE, Function, LN2_HI, LN2_LO, TANH_LIMIT, TANH_P,
    TANH_Q, TANH_TINY,
};
use std::arch::x86_64::*;

const LANES: usize = 16;

/// out[i] = f(x[i]) for i < n.
///
/// # Safety
/// The CPU has AVX-512F; the arrays are as [`super::apply`] requires.
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn apply(f: Function, x: *const f32, out: *mut f32, n: usize) {
    match f {
        // SAFETY: the caller's contract; the closures run where AVX-512F is enabled.
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
#[target_feature(enable = "avx512f")]
unsafe fn each_vector(x: *const f32, out: *mut f32, n: usize, f: impl Fn(__m512) -> __m512) {
    let whole = n - n % LANES;
    // SAFETY (whole body): offsets below `whole` are full vectors inside the arrays,
    // the tail is masked to its n - whole lanes.
    unsafe {
        for i in (0..whole).step_by(LANES) {
            _mm512_storeu_ps(out.add(i), f(_mm512_loadu_ps(x.add(i))));
        }
        if whole < n {
            let mask = ((1u32 << (n - whole)) - 1) as __mmask16;
            let v = _mm512_maskz_loadu_ps(mask, x.add(whole));
            _mm512_mask_storeu_ps(out.add(whole), mask, f(v));
        }
    }
}

/// `c[0] + x (c[1] + x (c[2] + ...))` with fused multiply-adds, from the highest
/// coefficient down, as the portable `horner`.
#[inline]
#[target_feature(enable = "avx512f")]
fn horner(x: __m512, c: &[f32]) -> __m512 {
    let (top, rest) = c.split_last().expect("a polynomial has a coefficient");
    rest.iter().rev().fold(_mm512_set1_ps(*top), |acc, k| {
        _mm512_fmadd_ps(acc, x, _mm512_set1_ps(*k))
    })
}

/// `min(max(x, lo), hi)`; a NaN lane stays NaN (max/min return their second operand
/// when either is NaN).
#[inline]
#[target_feature(enable = "avx512f")]
fn clamp(x: __m512, lo: f32, hi: f32) -> __m512 {
    _mm512_min_ps(_mm512_set1_ps(hi), _mm512_max_ps(_mm512_set1_ps(lo), x))
}

/// -x: the sign bit flipped, as `arith.negf` does (NaN included).
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn negate(x: __m512) -> __m512 {
    let sign = _mm512_set1_epi32(i32::MIN);
    _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(x), sign))
}

#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn exp(x: __m512) -> __m512 {
    let x = clamp(x, EXP_RANGE.0, EXP_RANGE.1);
    let scaled = _mm512_mul_ps(x, _mm512_set1_ps(std::f32::consts::LOG2_E));
    let n = _mm512_roundscale_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(scaled);
    let r = _mm512_fnmadd_ps(n, _mm512_set1_ps(LN2_HI), x);
    let r = _mm512_fnmadd_ps(n, _mm512_set1_ps(LN2_LO), r);
    let y = _mm512_fmadd_ps(horner(r, &EXP_P), _mm512_mul_ps(r, r), r);
    let y = _mm512_add_ps(y, _mm512_set1_ps(1.0));
    // y 2^n, rounded once (subnormal results included).
    _mm512_scalef_ps(y, n)
}

#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn erf(x: __m512) -> __m512 {
    let x = clamp(x, -ERF_LIMIT, ERF_LIMIT);
    let x2 = _mm512_mul_ps(x, x);
    let p = _mm512_mul_ps(x, horner(x2, &ERF_P));
    _mm512_div_ps(p, horner(x2, &ERF_Q))
}

#[inline]
#[target_feature(enable = "avx512f")]
fn tanh(x: __m512) -> __m512 {
    let c = clamp(x, -TANH_LIMIT, TANH_LIMIT);
    let c2 = _mm512_mul_ps(c, c);
    let p = _mm512_mul_ps(c, horner(c2, &TANH_P));
    let y = _mm512_div_ps(p, horner(c2, &TANH_Q));
    // |x| below the tiny bound (false for NaN): x itself.
    let magnitude = _mm512_castsi512_ps(_mm512_and_si512(
        _mm512_castps_si512(x),
        _mm512_set1_epi32(i32::MAX),
    ));
    let tiny = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(magnitude, _mm512_set1_ps(TANH_TINY));
    _mm512_mask_blend_ps(tiny, y, x)
}
