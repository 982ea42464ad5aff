//! What a convolution or matrix product kernel does around its sums: the bias they
//! start from, and the activation applied to each result as it is stored (a clamp,
//! or a gate: the HardSwish, SiLU or GELU a network applies right after the
//! convolution or linear layer), so that no separate pass over the output is needed.
//!
//! Every kernel version computes an activation the same way, operation by
//! operation in f32 (no fused multiply-adds), as the loops of the unfused
//! `tensor.map`s would: the only approximations are the sigmoid's e^-x and GELU's
//! erf, which are those of [`crate::elementwise`] (`acc_vexpneg`, `acc_verf`).

use crate::elementwise::Function;

/// What a convolution kernel fuses around its sums: the bias each output channel
/// starts from (else the output's own contents, which the sums are added to) and the
/// activation of what it stores, `gate` with `bounds`.
#[derive(Clone, Copy, Debug)]
pub struct Fused {
    /// One value per output channel (per row of a matrix product's C).
    pub bias: Option<*const f32>,
    pub bounds: Bounds,
    pub gate: Gate,
}

impl Fused {
    /// Accumulate onto the output, no activation.
    pub const NONE: Fused = Fused {
        bias: None,
        bounds: Bounds::NONE,
        gate: Gate::None,
    };

    /// What a C entry point's `bias` (null for none), `lo` and `hi` ask for, with no
    /// gate.
    pub fn of_call(bias: *const f32, lo: f32, hi: f32) -> Fused {
        Fused {
            bias: (!bias.is_null()).then_some(bias),
            bounds: Bounds { lo, hi },
            gate: Gate::None,
        }
    }

    /// [`Fused::of_call`] with a gate, from the code and parameters of
    /// [`Gate::of_call`].
    pub fn of_gated_call(
        bias: *const f32,
        lo: f32,
        hi: f32,
        gate: i64,
        scale: f32,
        shift: f32,
    ) -> Fused {
        Fused {
            gate: Gate::of_call(gate, scale, shift),
            ..Fused::of_call(bias, lo, hi)
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

    /// Whether storing a sum changes it (a clamp or a gate).
    pub fn activates(self) -> bool {
        self.bounds != Bounds::NONE || self.gate != Gate::None
    }

    /// The value stored for the sum `x`: the gate's definition with the bounds.
    #[inline(always)]
    pub fn activate(self, x: f32) -> f32 {
        match self.gate {
            Gate::None => self.bounds.apply_scalar(x),
            Gate::Hard { scale, shift } => x * self.bounds.apply_scalar(x * scale + shift),
            Gate::Sigmoid => {
                let e = Function::ExpNeg.scalar(x);
                x * self.bounds.apply_scalar(1.0 / (1.0 + e))
            }
            Gate::Erf { divisor, scale } => {
                let e = Function::Erf.scalar(x / divisor);
                x * self.bounds.apply_scalar(e + 1.0) * scale
            }
        }
    }

    /// The clamp a vector tile applies as it stores its sums: the bounds without a
    /// gate; with one, none (the stored tile is gated afterwards, as by
    /// [`gate_vectors`], whose constants, inlined into the tile, would take the
    /// accumulators' registers).
    pub(crate) fn bounds_as_stored(self) -> Bounds {
        if self.gate == Gate::None {
            self.bounds
        } else {
            Bounds::NONE
        }
    }

    /// [`Fused::activate`] on every element of `values` (inlined: compiled with the
    /// caller's instruction set).
    #[inline(always)]
    pub fn activate_all(self, values: &mut [f32]) {
        if self.activates() {
            for x in values {
                *x = self.activate(*x);
            }
        }
    }

    /// [`Fused::activate`] on sixteen lanes, the same bits.
    ///
    /// # Safety
    /// The CPU has AVX-512F.
    #[cfg(target_arch = "x86_64")]
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(crate) fn activate_vector(self, x: std::arch::x86_64::__m512) -> std::arch::x86_64::__m512 {
        use std::arch::x86_64::*;
        let (lo, hi) = (
            _mm512_set1_ps(self.bounds.lo),
            _mm512_set1_ps(self.bounds.hi),
        );
        let clamp = |v| self.bounds.apply(lo, hi, v);
        match self.gate {
            Gate::None if self.bounds == Bounds::NONE => x,
            Gate::None => clamp(x),
            Gate::Hard { scale, shift } => {
                let t = _mm512_add_ps(
                    _mm512_mul_ps(x, _mm512_set1_ps(scale)),
                    _mm512_set1_ps(shift),
                );
                _mm512_mul_ps(x, clamp(t))
            }
            Gate::Sigmoid => {
                let e = crate::elementwise::exp_neg_vector(x);
                let one = _mm512_set1_ps(1.0);
                let g = _mm512_div_ps(one, _mm512_add_ps(one, e));
                _mm512_mul_ps(x, clamp(g))
            }
            Gate::Erf { divisor, scale } => {
                let t = _mm512_div_ps(x, _mm512_set1_ps(divisor));
                let g = _mm512_add_ps(crate::elementwise::erf_vector(t), _mm512_set1_ps(1.0));
                _mm512_mul_ps(_mm512_mul_ps(x, clamp(g)), _mm512_set1_ps(scale))
            }
        }
    }
}

impl Fused {
    /// [`Fused::activate`] on eight lanes with AVX2 and FMA, the same bits.
    ///
    /// # Safety
    /// The CPU has AVX2 and FMA.
    #[cfg(target_arch = "x86_64")]
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    pub(crate) fn activate_avx2(self, x: std::arch::x86_64::__m256) -> std::arch::x86_64::__m256 {
        use std::arch::x86_64::*;
        let (lo, hi) = (
            _mm256_set1_ps(self.bounds.lo),
            _mm256_set1_ps(self.bounds.hi),
        );
        // max / min give their second operand when either is NaN: NaN passes.
        let clamp = |v| _mm256_min_ps(hi, _mm256_max_ps(lo, v));
        match self.gate {
            Gate::None => clamp(x),
            Gate::Hard { scale, shift } => {
                let t = _mm256_add_ps(
                    _mm256_mul_ps(x, _mm256_set1_ps(scale)),
                    _mm256_set1_ps(shift),
                );
                _mm256_mul_ps(x, clamp(t))
            }
            Gate::Sigmoid => _mm256_mul_ps(x, clamp(crate::elementwise::logistic_avx2(x))),
            Gate::Erf { divisor, scale } => {
                let t = _mm256_div_ps(x, _mm256_set1_ps(divisor));
                let g = _mm256_add_ps(crate::elementwise::erf_avx2(t), _mm256_set1_ps(1.0));
                _mm256_mul_ps(_mm256_mul_ps(x, clamp(g)), _mm256_set1_ps(scale))
            }
        }
    }
}

/// Applies `fused`'s activation to `count` vectors of sixteen floats stored from
/// `at` on: the gate of an AVX-512 kernel's tile, once it is stored (inlined into
/// the kernel, the gate's constants would take the accumulators' registers).
///
/// # Safety
/// The CPU has AVX-512F; `at` holds `count * 16` floats.
#[cfg(target_arch = "x86_64")]
#[inline(never)]
#[target_feature(enable = "avx512f")]
pub(crate) unsafe fn gate_vectors(at: *mut f32, count: usize, fused: Fused) {
    use std::arch::x86_64::{_mm512_loadu_ps, _mm512_storeu_ps};
    for v in 0..count {
        // SAFETY: vector v is inside the caller's floats.
        unsafe {
            let x = at.add(v * 16);
            _mm512_storeu_ps(x, fused.activate_vector(_mm512_loadu_ps(x)));
        }
    }
}

/// Applies `fused`'s activation to the `len` floats from `at` on (a row of a matrix
/// product's tile once it is stored), the last partial vector under a lane mask.
///
/// # Safety
/// The CPU has AVX-512F; `at` holds `len` floats.
#[cfg(target_arch = "x86_64")]
#[inline(never)]
#[target_feature(enable = "avx512f")]
pub(crate) unsafe fn gate_floats(at: *mut f32, len: usize, fused: Fused) {
    use std::arch::x86_64::{_mm512_mask_storeu_ps, _mm512_maskz_loadu_ps};
    // SAFETY: the whole vectors lie inside the caller's floats.
    unsafe { gate_vectors(at, len / 16, fused) };
    let tail = len % 16;
    if tail > 0 {
        let mask = ((1u32 << tail) - 1) as u16;
        // SAFETY: the masked lanes are the last `tail` floats of the caller's.
        unsafe {
            let x = at.add(len - tail);
            let y = fused.activate_vector(_mm512_maskz_loadu_ps(mask, x));
            _mm512_mask_storeu_ps(x, mask, y);
        }
    }
}

/// [`Fused::activate_all`] compiled for AVX2 and FMA: the gate of an AVX2 kernel's
/// stored tile, eight lanes at a time. A SiLU gate without bounds (as networks
/// export it) leaves out the clamp, which cannot change a value there.
///
/// # Safety
/// The CPU has AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[inline(never)]
#[target_feature(enable = "avx2,fma")]
pub(crate) unsafe fn activate_all_fma(fused: Fused, values: &mut [f32]) {
    use std::arch::x86_64::*;
    if !fused.activates() {
        return;
    }
    // SAFETY (block): the CPU has AVX2 and FMA (the caller's contract).
    unsafe {
        match fused.gate {
            Gate::Sigmoid if fused.bounds == Bounds::NONE => each_vector_avx2(fused, values, |x| {
                _mm256_mul_ps(x, crate::elementwise::logistic_avx2(x))
            }),
            _ => each_vector_avx2(fused, values, |x| fused.activate_avx2(x)),
        }
    }
}

/// `values` through `f` (the activation of `fused` on eight lanes) a vector at a
/// time, the last partial vector by [`Fused::activate_all`].
///
/// # Safety
/// The CPU has AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn each_vector_avx2(
    fused: Fused,
    values: &mut [f32],
    f: impl Fn(std::arch::x86_64::__m256) -> std::arch::x86_64::__m256,
) {
    use std::arch::x86_64::{_mm256_loadu_ps, _mm256_storeu_ps};
    let mut lanes = values.chunks_exact_mut(8);
    for chunk in &mut lanes {
        // SAFETY: the chunk holds eight floats.
        unsafe { _mm256_storeu_ps(chunk.as_mut_ptr(), f(_mm256_loadu_ps(chunk.as_ptr()))) };
    }
    fused.activate_all(lanes.into_remainder());
}

/// [`Fused::activate_all`] four NEON lanes at a time (the last partial vector one
/// element at a time): the gate of a NEON kernel's stored tile, the same bits.
#[cfg(target_arch = "aarch64")]
#[inline(never)]
pub(crate) fn activate_all_neon(fused: Fused, values: &mut [f32]) {
    use std::arch::aarch64::*;
    if !fused.activates() {
        return;
    }
    let mut lanes = values.chunks_exact_mut(4);
    for chunk in &mut lanes {
        // SAFETY: the chunk holds four floats (every AArch64 CPU has NEON).
        unsafe {
            vst1q_f32(
                chunk.as_mut_ptr(),
                fused.activate_neon(vld1q_f32(chunk.as_ptr())),
            )
        };
    }
    fused.activate_all(lanes.into_remainder());
}

impl Fused {
    /// [`Fused::activate`] on four NEON lanes, the same bits: each operation the
    /// scalar one (no fused multiply-add where the definition rounds twice).
    #[cfg(target_arch = "aarch64")]
    #[inline(always)]
    pub(crate) fn activate_neon(
        self,
        x: std::arch::aarch64::float32x4_t,
    ) -> std::arch::aarch64::float32x4_t {
        use std::arch::aarch64::*;
        // SAFETY (block): NEON is part of every AArch64 CPU.
        unsafe {
            let (lo, hi) = (vdupq_n_f32(self.bounds.lo), vdupq_n_f32(self.bounds.hi));
            // fmax / fmin return a NaN operand: NaN passes.
            let clamp = |v| vminq_f32(hi, vmaxq_f32(lo, v));
            let one = vdupq_n_f32(1.0);
            match self.gate {
                Gate::None => clamp(x),
                Gate::Hard { scale, shift } => {
                    let t = vaddq_f32(vmulq_n_f32(x, scale), vdupq_n_f32(shift));
                    vmulq_f32(x, clamp(t))
                }
                Gate::Sigmoid => {
                    let e = crate::elementwise::exp_neg_neon(x);
                    vmulq_f32(x, clamp(vdivq_f32(one, vaddq_f32(one, e))))
                }
                Gate::Erf { divisor, scale } => {
                    let t = vdivq_f32(x, vdupq_n_f32(divisor));
                    let g = vaddq_f32(crate::elementwise::erf_neon(t), one);
                    vmulq_n_f32(vmulq_f32(x, clamp(g)), scale)
                }
            }
        }
    }
}

/// A gate: the stored value is the sum times a function of it, clamped by the
/// kernel's [`Bounds`] (`x * min(max(g(x), lo), hi)`); with no gate the sum itself
/// is clamped. Each operation rounds to f32.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Gate {
    /// `min(max(x, lo), hi)`: ReLU, ReLU6, Clip.
    None,
    /// `x * min(max(x * scale + shift, lo), hi)`, the product and the sum each
    /// rounded: HardSwish (scale 1/6, shift 1/2, bounds [0, 1]).
    Hard { scale: f32, shift: f32 },
    /// `x * min(max(1 / (1 + e^-x), lo), hi)`: SiLU (Swish) with unbounded clamps.
    Sigmoid,
    /// `(x * min(max(erf(x / divisor) + 1, lo), hi)) * scale`, each operation
    /// rounded: GELU as exporters write it (divisor sqrt 2, scale 1/2, no bounds).
    Erf { divisor: f32, scale: f32 },
}

impl Gate {
    /// HardSwish, x * min(max(x / 6 + 1/2, 0), 1): the gate and its bounds.
    pub const HARD_SWISH: (Gate, Bounds) = (
        Gate::Hard {
            scale: 1.0 / 6.0,
            shift: 0.5,
        },
        Bounds { lo: 0.0, hi: 1.0 },
    );

    /// The gate a C entry point's `gate` code and its two parameters ask for: 0 none,
    /// 1 [`Gate::Hard`] (`scale`, `shift`), 2 [`Gate::Sigmoid`] (parameters unread),
    /// 3 [`Gate::Erf`] (`divisor`, `scale`). Code generation passes only these codes;
    /// any other is taken as 0.
    pub fn of_call(code: i64, p: f32, q: f32) -> Gate {
        match code {
            1 => Gate::Hard { scale: p, shift: q },
            2 => Gate::Sigmoid,
            3 => Gate::Erf {
                divisor: p,
                scale: q,
            },
            _ => Gate::None,
        }
    }

    /// GELU as torch exports it, `x * (erf(x / sqrt 2) + 1) * 0.5`: the gate (the
    /// divisor is the f32 nearest sqrt 2, as in the exported graph).
    pub const GELU: Gate = Gate::Erf {
        divisor: std::f32::consts::SQRT_2,
        scale: 0.5,
    };
}

/// The clamp of a kernel's results: `min(max(x, lo), hi)`, the fused activation of a
/// convolution (ReLU: lo = 0; ReLU6 / Clip: lo = 0, hi = 6). A NaN result stays NaN.
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs() -> Vec<f32> {
        let mut v: Vec<f32> = (-400..=400).map(|i| i as f32 * 0.037).collect();
        v.extend([
            0.0,
            -0.0,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            -200.0,
            120.0,
            3.0,
            -3.0,
        ]);
        // Where e^-x turns subnormal, zero or +inf, finely (SiLU's vector versions
        // clamp and scale there differently from the portable steps).
        for (from, to) in [(84.0f32, 106.0f32), (-90.0, -86.0)] {
            v.extend((0..=4000).map(|i| from + (to - from) * i as f32 / 4000.0));
        }
        // Bit patterns across the whole range, from a fixed linear congruence.
        let mut state = 0x2545_f491_u32;
        v.extend((0..20_000).map(|_| {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            f32::from_bits(state)
        }));
        v
    }

    fn gated(gate: Gate, lo: f32, hi: f32) -> Fused {
        Fused {
            bias: None,
            bounds: Bounds { lo, hi },
            gate,
        }
    }

    #[test]
    fn hard_swish_is_its_definition_op_by_op() {
        let (gate, bounds) = Gate::HARD_SWISH;
        let f = gated(gate, bounds.lo, bounds.hi);
        for x in inputs() {
            let want = x * (x * (1.0f32 / 6.0) + 0.5).clamp(0.0, 1.0);
            let got = f.activate(x);
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "hardswish({x}) = {got}, want {want}"
            );
        }
        assert_eq!(f.activate(-3.0), -0.0);
        assert_eq!(f.activate(3.0), 3.0);
        assert_eq!(f.activate(1.5), 1.5 * 0.75);
    }

    #[test]
    fn silu_follows_the_exponential_within_its_error() {
        let f = gated(Gate::Sigmoid, f32::NEG_INFINITY, f32::INFINITY);
        // Below -88.72, e^-x is +inf in f32 and the gate 0 (where |silu| < 3e-37).
        for x in inputs().into_iter().filter(|x| x.is_finite() && *x > -88.7) {
            let want = x as f64 / (1.0 + (-(x as f64)).exp());
            let got = f.activate(x) as f64;
            assert!(
                (got - want).abs() <= 1e-6 * want.abs().max(1e-30) + 1e-37,
                "silu({x}) = {got}, want {want}"
            );
        }
        assert!(f.activate(f32::NAN).is_nan());
        assert_eq!(f.activate(f32::INFINITY), f32::INFINITY);
        // e^-x is +inf: x times a zero gate.
        assert_eq!(f.activate(-200.0), -0.0);
    }

    #[test]
    fn gelu_is_its_definition_op_by_op() {
        let f = gated(Gate::GELU, f32::NEG_INFINITY, f32::INFINITY);
        for x in inputs() {
            let e = Function::Erf.scalar(x / std::f32::consts::SQRT_2);
            let want = x * (e + 1.0) * 0.5;
            let got = f.activate(x);
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "gelu({x}) = {got}, want {want}"
            );
            // (erf itself is checked over its whole range in `elementwise`.)
            if x.abs() < 4.0 {
                let exact = x as f64 * 0.5 * (1.0 + series_erf(x as f64 / 2f64.sqrt()));
                // erf's absolute error (below 5e-7) scaled by x / 2, and rounding.
                let bound = 3e-7 * (x as f64).abs() + 1e-6 * exact.abs() + 1e-30;
                assert!(
                    (got as f64 - exact).abs() <= bound,
                    "gelu({x}) = {got}, want {exact}"
                );
            }
        }
        // erf is clamped at -4: 1 + erf(-4) is one ulp of 1 / 2^24 or so, not 0.
        assert!(f.activate(-200.0).abs() < 2e-5);
        assert_eq!(f.activate(f32::INFINITY), f32::INFINITY);
        assert!(f.activate(f32::NAN).is_nan());
    }

    /// erf by its Maclaurin series, accurate in f64 for |x| < 3.
    fn series_erf(x: f64) -> f64 {
        let (mut term, mut sum, mut n) = (x, x, 0.0);
        while term.abs() > 1e-17 {
            n += 1.0;
            term *= -x * x / n;
            sum += term / (2.0 * n + 1.0);
        }
        sum * 2.0 / std::f64::consts::PI.sqrt()
    }

    #[test]
    fn unknown_gate_codes_are_none() {
        assert_eq!(Gate::of_call(7, 1.0, 2.0), Gate::None);
        assert_eq!(Gate::of_call(2, 1.0, 2.0), Gate::Sigmoid);
        assert_eq!(
            Gate::of_call(3, 1.5, 0.5),
            Gate::Erf {
                divisor: 1.5,
                scale: 0.5
            }
        );
        assert_eq!(
            Gate::of_call(1, 0.25, 0.5),
            Gate::Hard {
                scale: 0.25,
                shift: 0.5
            }
        );
    }

    /// The activations every vector gate is checked on: each gate, with and without
    /// bounds.
    fn gate_cases() -> [Fused; 8] {
        let (hard, _) = Gate::HARD_SWISH;
        [
            gated(Gate::None, 0.0, 6.0),
            gated(Gate::None, f32::NEG_INFINITY, f32::INFINITY),
            gated(hard, 0.0, 1.0),
            gated(hard, f32::NEG_INFINITY, f32::INFINITY),
            gated(Gate::Sigmoid, f32::NEG_INFINITY, f32::INFINITY),
            gated(Gate::Sigmoid, 0.25, 0.75),
            gated(Gate::GELU, f32::NEG_INFINITY, f32::INFINITY),
            gated(Gate::GELU, 0.5, 1.5),
        ]
    }

    /// `got` (a vector version's results for `inputs`) holds [`Fused::activate`]'s
    /// bits for each input, NaNs of any payload aside.
    fn assert_scalar_bits(version: &str, f: Fused, inputs: &[f32], got: &[f32]) {
        assert_eq!(inputs.len(), got.len());
        for (x, g) in inputs.iter().zip(got) {
            let want = f.activate(*x);
            assert!(
                g.to_bits() == want.to_bits() || (g.is_nan() && want.is_nan()),
                "{version} {f:?} of {x}: {g}, scalar {want}"
            );
        }
    }

    /// [`activate_all_fma`] (the AVX2 tile gate) against [`Fused::activate`].
    #[cfg(target_arch = "x86_64")]
    fn avx2_gives_the_scalar_bits() {
        for f in gate_cases() {
            let x = inputs();
            let mut got = x.clone();
            // SAFETY: the CPU has AVX2 and FMA (checked by the caller).
            unsafe { activate_all_fma(f, &mut got) };
            assert_scalar_bits("AVX2", f, &x, &got);
        }
    }

    /// [`activate_all_neon`] against [`Fused::activate`]; every length, so every
    /// tail. Runs under qemu-aarch64: docs/testing.md.
    #[cfg(target_arch = "aarch64")]
    #[test]
    fn neon_gives_the_scalar_bits() {
        for f in gate_cases() {
            let x = inputs();
            for len in [x.len(), x.len() - 1, x.len() - 2, x.len() - 3] {
                let mut got = x[..len].to_vec();
                activate_all_neon(f, &mut got);
                assert_scalar_bits("NEON", f, &x[..len], &got);
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn vectors_give_the_scalar_bits() {
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            avx2_gives_the_scalar_bits();
        }
        if !std::arch::is_x86_feature_detected!("avx512f") {
            return;
        }
        for f in gate_cases() {
            for chunk in inputs().chunks(16) {
                let mut lanes = [0f32; 16];
                lanes[..chunk.len()].copy_from_slice(chunk);
                let mut got = [0f32; 16];
                // SAFETY: the CPU has AVX-512F; both arrays hold 16 floats.
                unsafe {
                    use std::arch::x86_64::*;
                    let v = f.activate_vector(_mm512_loadu_ps(lanes.as_ptr()));
                    _mm512_storeu_ps(got.as_mut_ptr(), v);
                }
                assert_scalar_bits("AVX-512", f, &lanes, &got);
            }
        }
    }
}
