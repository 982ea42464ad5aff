//! The AArch64 NEON elementwise functions: four lanes at a time, each step the
//! portable formula's (the same roundings, the same fused multiply-adds: `fmla`,
//! `fmls`), so every lane holds the portable kernel's bits (a NaN stays a NaN, its
//! payload as the hardware propagates it). NEON has no masked loads: the last
//! partial vector goes through a small buffer, so no element past `n` is touched.

use super::{
    ERF_LIMIT, ERF_P, ERF_Q, EXP_P, EXP_RANGE, Function, LN2_HI, LN2_LO, TANH_LIMIT, TANH_P,
    TANH_Q, TANH_TINY,
};
use std::arch::aarch64::*;

const LANES: usize = 4;

/// out[i] = f(x[i]) for i < n.
///
/// # Safety
/// The arrays are as [`super::apply`] requires (every AArch64 CPU has NEON).
pub(super) unsafe fn apply(f: Function, x: *const f32, out: *mut f32, n: usize) {
    // SAFETY (all four): the caller's contract.
    match f {
        Function::Exp => unsafe { each_vector(x, out, n, exp) },
        Function::ExpNeg => unsafe { each_vector(x, out, n, |v| exp(vnegq_f32(v))) },
        Function::Erf => unsafe { each_vector(x, out, n, erf) },
        Function::Tanh => unsafe { each_vector(x, out, n, tanh) },
    }
}

/// Applies `f` to every vector of `x`, storing into `out`.
///
/// # Safety
/// As [`apply`].
#[inline(always)]
unsafe fn each_vector(
    x: *const f32,
    out: *mut f32,
    n: usize,
    f: impl Fn(float32x4_t) -> float32x4_t,
) {
    let whole = n - n % LANES;
    // SAFETY (whole body): offsets below `whole` are full vectors inside the arrays;
    // the tail's n - whole elements are copied through `lanes`.
    unsafe {
        for i in (0..whole).step_by(LANES) {
            vst1q_f32(out.add(i), f(vld1q_f32(x.add(i))));
        }
        if whole < n {
            let mut lanes = [0f32; LANES];
            std::ptr::copy_nonoverlapping(x.add(whole), lanes.as_mut_ptr(), n - whole);
            vst1q_f32(lanes.as_mut_ptr(), f(vld1q_f32(lanes.as_ptr())));
            std::ptr::copy_nonoverlapping(lanes.as_ptr(), out.add(whole), n - whole);
        }
    }
}

/// `c[0] + x (c[1] + x (c[2] + ...))` with fused multiply-adds, from the highest
/// coefficient down, as the portable `horner`.
#[inline(always)]
fn horner(x: float32x4_t, c: &[f32]) -> float32x4_t {
    let (top, rest) = c.split_last().expect("a polynomial has a coefficient");
    // SAFETY: NEON is part of every AArch64 CPU.
    unsafe {
        rest.iter().rev().fold(vdupq_n_f32(*top), |acc, k| {
            vfmaq_f32(vdupq_n_f32(*k), acc, x)
        })
    }
}

/// `min(max(x, lo), hi)`; a NaN lane stays NaN (NEON's max and min propagate it).
#[inline(always)]
fn clamp(x: float32x4_t, lo: f32, hi: f32) -> float32x4_t {
    // SAFETY: NEON is part of every AArch64 CPU.
    unsafe { vminq_f32(vdupq_n_f32(hi), vmaxq_f32(vdupq_n_f32(lo), x)) }
}

/// e^x by the portable steps: 2^n applied as two normal factors, so that subnormal
/// results come out as the portable kernel's.
#[inline(always)]
pub(super) fn exp(x: float32x4_t) -> float32x4_t {
    // SAFETY: NEON is part of every AArch64 CPU.
    unsafe {
        let x = clamp(x, EXP_RANGE.0, EXP_RANGE.1);
        let n = vrndnq_f32(vmulq_n_f32(x, std::f32::consts::LOG2_E));
        // x - n ln2, fused, in two parts.
        let r = vfmsq_f32(x, n, vdupq_n_f32(LN2_HI));
        let r = vfmsq_f32(r, n, vdupq_n_f32(LN2_LO));
        let y = vfmaq_f32(r, horner(r, &EXP_P), vmulq_f32(r, r));
        let y = vaddq_f32(y, vdupq_n_f32(1.0));
        let h = vrndnq_f32(vmulq_n_f32(n, 0.5));
        // 2^k for integral k in [-126, 127]: the exponent field k + 127.
        let pow2 = |k: float32x4_t| {
            let bits = vaddq_s32(vcvtq_s32_f32(k), vdupq_n_s32(127));
            vreinterpretq_f32_s32(vshlq_n_s32::<23>(bits))
        };
        vmulq_f32(vmulq_f32(y, pow2(h)), pow2(vsubq_f32(n, h)))
    }
}

#[inline(always)]
pub(super) fn erf(x: float32x4_t) -> float32x4_t {
    // SAFETY: NEON is part of every AArch64 CPU.
    unsafe {
        let x = clamp(x, -ERF_LIMIT, ERF_LIMIT);
        let x2 = vmulq_f32(x, x);
        let p = vmulq_f32(x, horner(x2, &ERF_P));
        vdivq_f32(p, horner(x2, &ERF_Q))
    }
}

#[inline(always)]
fn tanh(x: float32x4_t) -> float32x4_t {
    // SAFETY: NEON is part of every AArch64 CPU.
    unsafe {
        let c = clamp(x, -TANH_LIMIT, TANH_LIMIT);
        let c2 = vmulq_f32(c, c);
        let p = vmulq_f32(c, horner(c2, &TANH_P));
        let y = vdivq_f32(p, horner(c2, &TANH_Q));
        // |x| below the tiny bound (false for NaN): x itself.
        let tiny = vcltq_f32(vabsq_f32(x), vdupq_n_f32(TANH_TINY));
        vbslq_f32(tiny, x, y)
    }
}
