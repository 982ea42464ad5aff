//! Requantization: an exact integer accumulator (a quantized convolution's, matrix
//! product's, sum's or product's) scaled to a quantized result. One implementation per scheme, which the
//! interpreter, the lowering to loops and the compile-time tables of accelerator calls
//! all use, so that every level computes the same integers.
//!
//! - [`Scheme::Float`]: `acc * m + zero`, `m = f32(f32(s_in * s_w) / s_out)` (the
//!   multiplier rounded as [`float_multiplier`] does), the product rounded half to
//!   even: onnxruntime's QLinearConv / QLinearMatMul.
//! - [`Scheme::FixedPoint`]: TFLite's and CMSIS-NN's integer arithmetic. The real
//!   multiplier `s_in * s_w / s_out` (in f64) becomes a Q31 multiplier and a shift
//!   ([`FixedPointMultiplier::of_real`], TFLite's `QuantizeMultiplier`); the
//!   accumulator, an i32, is shifted left by the positive part of the shift (wrapping,
//!   as the libraries' `x * (1 << left)`), multiplied by the Q31 multiplier with
//!   [`saturating_rounding_doubling_high_mul`] and shifted right by the negative part
//!   with [`rounding_divide_by_pot`]; then the zero point is added and the result
//!   clamped. Additions rescale both inputs first ([`FixedPointAdd`]); average pools
//!   that keep their input's quantization divide with [`rounded_average`].

/// How a quantized op scales its accumulators to its result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// A float multiplier, the product rounded half to even (onnxruntime).
    Float,
    /// A Q31 multiplier and a shift, integer arithmetic only (TFLite, CMSIS-NN).
    FixedPoint,
}

impl Scheme {
    /// The scheme of an enum case name (`float`, `fixed_point`).
    pub fn of_name(name: &str) -> Option<Scheme> {
        match name {
            "float" => Some(Scheme::Float),
            "fixed_point" => Some(Scheme::FixedPoint),
            _ => None,
        }
    }
}

/// The float scheme's multiplier of channel scales `s_in`, `s_w` and `s_out`:
/// `round(round(s_in * s_w) / s_out)`, `round` rounding to the expressed float type
/// (f32 for every lowering).
pub fn float_multiplier(s_in: f64, s_w: f64, s_out: f64, round: impl Fn(f64) -> f64) -> f64 {
    round(round(s_in * s_w) / s_out)
}

/// A real multiplier as TFLite and CMSIS-NN hold it: `multiplier * 2^(shift - 31)`,
/// `multiplier` in `[2^30, 2^31)` and `shift` in `[-31, 30]`, or both 0 for a real
/// multiplier below 2^-32 (whose products all round to 0), as [`Self::of_real`]
/// makes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FixedPointMultiplier {
    /// The Q31 significand.
    pub multiplier: i32,
    /// The power of two: positive shifts left, negative right.
    pub shift: i32,
}

impl FixedPointMultiplier {
    /// TFLite's `QuantizeMultiplier`: `real = q * 2^shift` with `q` in [0.5, 1)
    /// (frexp), `q` rounded to Q31 half away from zero; a `q` that rounds to 1 becomes
    /// 1/2 with the shift one more; a shift below -31 is a zero multiplier. `None` for a
    /// real multiplier that is negative, not finite, or 2^30 or more (a shift past 30:
    /// no i32 result holds its products).
    pub fn of_real(real: f64) -> Option<FixedPointMultiplier> {
        if !real.is_finite() || real < 0.0 {
            return None;
        }
        if real == 0.0 {
            return Some(FixedPointMultiplier {
                multiplier: 0,
                shift: 0,
            });
        }
        let (q, mut shift) = frexp(real);
        let mut fixed = (q * 2f64.powi(31)).round() as i64;
        if fixed == 1 << 31 {
            fixed /= 2;
            shift += 1;
        }
        if shift < -31 {
            return Some(FixedPointMultiplier {
                multiplier: 0,
                shift: 0,
            });
        }
        if shift > 30 {
            return None;
        }
        Some(FixedPointMultiplier {
            multiplier: fixed as i32,
            shift,
        })
    }

    /// The multiplier of an accumulator of scales `s_in * s_w` into a result of scale
    /// `s_out`: `of_real(s_in * s_w / s_out)`, the quotient in f64 (as TFLite computes
    /// its effective scale from the f32 scales).
    pub fn of_scales(s_in: f64, s_w: f64, s_out: f64) -> Option<FixedPointMultiplier> {
        Self::of_real(s_in * s_w / s_out)
    }

    /// A multiplier as a library is given it: `multiplier` in [0, 2^31) (a Q31
    /// significand; 0 scales everything to 0) and `shift` in [-31, 30], else an error.
    pub fn checked(multiplier: i64, shift: i64) -> Result<FixedPointMultiplier, String> {
        if !(0..1i64 << 31).contains(&multiplier) || !(-31..=30).contains(&shift) {
            return Err(format!(
                "multiplier {multiplier} and shift {shift} are not a Q31 multiplier (in [0, 2^31)) and a shift in [-31, 30]"
            ));
        }
        Ok(FixedPointMultiplier {
            multiplier: multiplier as i32,
            shift: shift as i32,
        })
    }

    /// TFLite's `MultiplyByQuantizedMultiplier`: `x` scaled by this multiplier.
    pub fn apply(self, x: i32) -> i32 {
        let left = self.shift.max(0) as u32;
        let right = (-self.shift).max(0) as u32;
        let scaled = x.wrapping_mul(1i32.wrapping_shl(left));
        rounding_divide_by_pot(
            saturating_rounding_doubling_high_mul(scaled, self.multiplier),
            right,
        )
    }
}

/// `x = q * 2^e` with `q` in [0.5, 1), for finite positive `x` (subnormals included).
fn frexp(x: f64) -> (f64, i32) {
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32;
    if exponent == 0 {
        // Subnormal: scale into the normal range first.
        let (q, e) = frexp(x * 2f64.powi(64));
        return (q, e - 64);
    }
    let q = f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52));
    (q, exponent - 1022)
}

/// gemmlowp's `SaturatingRoundingDoublingHighMul`: the high 32 bits of `2 * a * b`,
/// rounded (ties toward +infinity), `i32::MAX` for the one overflowing case
/// `a = b = i32::MIN`.
pub fn saturating_rounding_doubling_high_mul(a: i32, b: i32) -> i32 {
    if a == i32::MIN && b == i32::MIN {
        return i32::MAX;
    }
    let ab = i64::from(a) * i64::from(b);
    let nudge: i64 = if ab >= 0 { 1 << 30 } else { 1 - (1 << 30) };
    // Division truncating toward zero, as C's.
    ((ab + nudge) / (1i64 << 31)) as i32
}

/// gemmlowp's `RoundingDivideByPOT`: `x / 2^exponent` rounded to nearest, ties away
/// from zero; `exponent` at most 31.
pub fn rounding_divide_by_pot(x: i32, exponent: u32) -> i32 {
    let exponent = exponent.min(31);
    let mask = ((1i64 << exponent) - 1) as i32;
    let remainder = x & mask;
    let threshold = (mask >> 1) + i32::from(x < 0);
    (x >> exponent) + i32::from(remainder > threshold)
}

/// The fixed-point scheme on one accumulator: `multiplier.apply(acc) + zero`, clamped
/// to `[lo, hi]` (the storage range, or a fused activation's).
pub fn requantize_fixed_point(
    acc: i32,
    multiplier: FixedPointMultiplier,
    zero: i64,
    (lo, hi): (i64, i64),
) -> i64 {
    (i64::from(multiplier.apply(acc)) + zero).clamp(lo, hi)
}

/// TFLite's and CMSIS-NN's quantized addition (`arm_elementwise_add_s8`): both
/// inputs are rescaled to a common scale, `2 * max(s_a, s_b) / 2^left_shift`, with
/// headroom (`left_shift` is 20 for 8-bit storage, 15 for wider), summed, and the sum
/// rescaled to the output. Each multiplier is [`FixedPointMultiplier::of_real`] of its
/// ratio of f64 scales, as TFLite's `PrepareGeneralSubOp` computes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FixedPointAdd {
    /// The inputs' headroom: each centered input is multiplied by `2^left_shift`.
    pub left_shift: u32,
    /// The left-hand input's multiplier (`s_a / (2 * max(s_a, s_b))`, at most 1/2).
    pub lhs: FixedPointMultiplier,
    /// The right-hand input's multiplier.
    pub rhs: FixedPointMultiplier,
    /// The sum's multiplier to the output (`2 * max(s_a, s_b) / (2^left_shift * s_out)`).
    pub out: FixedPointMultiplier,
}

impl FixedPointAdd {
    /// The parameters of adding inputs of scales `s_a` and `s_b` into a result of
    /// scale `s_out` stored in `storage_bits` bits. `None` when a scale is not
    /// positive and finite or the output multiplier has no Q31 form.
    pub fn of_scales(s_a: f64, s_b: f64, s_out: f64, storage_bits: u32) -> Option<FixedPointAdd> {
        let positive = |s: f64| s.is_finite() && s > 0.0;
        if !(positive(s_a) && positive(s_b) && positive(s_out)) {
            return None;
        }
        let left_shift = if storage_bits <= 8 { 20 } else { 15 };
        let twice_max = 2.0 * s_a.max(s_b);
        Some(FixedPointAdd {
            left_shift,
            lhs: FixedPointMultiplier::of_real(s_a / twice_max)?,
            rhs: FixedPointMultiplier::of_real(s_b / twice_max)?,
            out: FixedPointMultiplier::of_real(
                twice_max / (f64::from(1u32 << left_shift) * s_out),
            )?,
        })
    }

    /// The sum of the centered inputs `a` and `b` (stored value minus zero point)
    /// scaled to the output, before its zero point: each input times `2^left_shift`
    /// (wrapping, as the libraries' `x << left_shift`) scaled by its multiplier, the
    /// two added (wrapping) and the sum scaled by the output multiplier.
    pub fn apply(self, a: i32, b: i32) -> i32 {
        let shifted = |x: i32| x.wrapping_mul(1i32.wrapping_shl(self.left_shift));
        let sum = self
            .lhs
            .apply(shifted(a))
            .wrapping_add(self.rhs.apply(shifted(b)));
        self.out.apply(sum)
    }
}

/// CMSIS-NN's rounded average (`arm_avgpool_s8`): `sum / count` rounded half away
/// from zero, as `(sum + count / 2) / count` for a positive sum and
/// `(sum - count / 2) / count` otherwise, divisions truncating. `count` is positive.
pub fn rounded_average(sum: i32, count: i32) -> i32 {
    let count = count.max(1);
    if sum > 0 {
        sum.saturating_add(count / 2) / count
    } else {
        sum.saturating_sub(count / 2) / count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n / 2^shift` rounded to nearest with ties `up` (toward +infinity) or away from
    /// zero, in i128: the rounding the gemmlowp functions document, computed another way.
    fn divide_rounded(n: i128, shift: u32, ties_up: bool) -> i128 {
        let d = 1i128 << shift;
        let floor = n.div_euclid(d);
        let twice_remainder = 2 * n.rem_euclid(d);
        if twice_remainder > d {
            floor + 1
        } else if twice_remainder < d {
            floor
        } else if ties_up || n > 0 {
            floor + 1
        } else {
            floor
        }
    }

    fn edge_and_seeded_i32() -> Vec<i32> {
        let mut v = vec![
            0,
            1,
            -1,
            2,
            -2,
            3,
            -3,
            i32::MAX,
            i32::MIN,
            i32::MIN + 1,
            1 << 30,
            -(1 << 30),
            (1 << 30) + 1,
            -(1 << 30) - 1,
            1 << 15,
            -(1 << 15),
        ];
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..2000 {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let x = (s >> 32) as i32;
            v.push(x);
            v.push(x >> (s % 31));
        }
        v
    }

    #[test]
    fn doubling_high_mul_rounds_half_up_and_saturates() {
        let xs = edge_and_seeded_i32();
        for &a in xs.iter().step_by(7) {
            for &b in xs.iter().step_by(5) {
                let got = saturating_rounding_doubling_high_mul(a, b);
                if a == i32::MIN && b == i32::MIN {
                    assert_eq!(got, i32::MAX);
                    continue;
                }
                let want = divide_rounded(i128::from(a) * i128::from(b), 31, true);
                assert_eq!(i128::from(got), want, "srdhm({a}, {b})");
                // The lowering's form: an arithmetic shift of the nudged product.
                let shifted = ((i64::from(a) * i64::from(b) + (1 << 30)) >> 31) as i32;
                assert_eq!(got, shifted, "srdhm({a}, {b}) as a shift");
            }
        }
        // Ties: 2 * 1 * 2^30 / 2^32 = 0.5 -> 1; -0.5 -> 0.
        assert_eq!(saturating_rounding_doubling_high_mul(1, 1 << 30), 1);
        assert_eq!(saturating_rounding_doubling_high_mul(-1, 1 << 30), 0);
    }

    #[test]
    fn divide_by_power_of_two_rounds_ties_away_from_zero() {
        for x in edge_and_seeded_i32() {
            for e in [0, 1, 2, 5, 15, 30, 31] {
                let want = divide_rounded(i128::from(x), e, false);
                assert_eq!(
                    i128::from(rounding_divide_by_pot(x, e)),
                    want,
                    "{x} / 2^{e}"
                );
            }
        }
        assert_eq!(rounding_divide_by_pot(5, 1), 3);
        assert_eq!(rounding_divide_by_pot(-5, 1), -3);
        assert_eq!(rounding_divide_by_pot(-6, 2), -2);
    }

    #[test]
    fn multipliers_are_tflites() {
        let m = |real| FixedPointMultiplier::of_real(real).map(|m| (m.multiplier, m.shift));
        assert_eq!(m(0.5), Some((1 << 30, 0)));
        assert_eq!(m(1.0), Some((1 << 30, 1)));
        assert_eq!(m(0.25), Some((1 << 30, -1)));
        assert_eq!(m(0.75), Some((3 << 29, 0)));
        assert_eq!(m(3.0), Some((3 << 29, 2)));
        assert_eq!(m(0.0), Some((0, 0)));
        // Below 2^-32 every product rounds to zero: a zero multiplier.
        assert_eq!(m(2f64.powi(-40)), Some((0, 0)));
        // A significand that rounds up to 1 carries into the shift.
        assert_eq!(m(1.0 - 2f64.powi(-40)), Some((1 << 30, 1)));
        assert_eq!(m(-0.5), None);
        assert_eq!(m(f64::NAN), None);
        assert_eq!(m(2f64.powi(30)), None);
        assert_eq!(m(2f64.powi(30) * 0.75), Some((3 << 29, 30)));
        // Every multiplier is within half a Q31 unit of the real one.
        for real in [0.000123, 0.0039215, 0.02, 0.3, 0.999, 1.7, 123.456] {
            let q = FixedPointMultiplier::of_real(real).expect("a multiplier");
            assert!((1 << 30..=i32::MAX).contains(&q.multiplier));
            let back = f64::from(q.multiplier) * 2f64.powi(q.shift - 31);
            assert!(
                (back - real).abs() <= real * 2f64.powi(-31),
                "{real}: {back}"
            );
        }
    }

    #[test]
    fn requantizing_approximates_the_real_product() {
        // A per-channel conv's effective scale, applied to accumulators of every size:
        // within one step of the real product, the zero point added and clamped.
        let (s_in, s_w, s_out) = (0.0235f32 as f64, 0.00117f32 as f64, 0.0471f32 as f64);
        let q = FixedPointMultiplier::of_scales(s_in, s_w, s_out).expect("a multiplier");
        let real = s_in * s_w / s_out;
        for acc in edge_and_seeded_i32() {
            let got = requantize_fixed_point(acc, q, -3, (i64::MIN, i64::MAX));
            let want = (f64::from(acc) * real).round() - 3.0;
            assert!((got as f64 - want).abs() <= 1.0, "{acc}: {got} vs {want}");
        }
        assert_eq!(requantize_fixed_point(1 << 20, q, 5, (-128, 127)), 127);
        assert_eq!(requantize_fixed_point(-(1 << 20), q, 5, (-128, 127)), -128);
        // A left shift: multiplier 3.0 = 0.75 * 2^2.
        let three = FixedPointMultiplier::of_real(3.0).expect("a multiplier");
        assert_eq!(three.apply(7), 21);
        assert_eq!(three.apply(-7), -21);
    }
    #[test]
    fn additions_are_within_a_step_of_the_real_sum() {
        // Two inputs of different scales into a third, over a grid of centered values.
        for (s_a, s_b, s_out) in [(0.02, 0.05, 0.06), (0.1, 0.1, 0.2), (0.013, 0.007, 0.011)] {
            let add = FixedPointAdd::of_scales(s_a, s_b, s_out, 8).expect("parameters");
            assert_eq!(add.left_shift, 20);
            for a in (-255..=255).step_by(7) {
                for b in (-255..=255).step_by(11) {
                    let real = (f64::from(a) * s_a + f64::from(b) * s_b) / s_out;
                    let got = add.apply(a, b);
                    assert!(
                        (f64::from(got) - real).abs() <= 0.5 + 1e-3,
                        "{a}*{s_a} + {b}*{s_b}: {got} vs {real}"
                    );
                }
            }
        }
        // Equal scales into twice the scale: an exact halving of the sum, rounded.
        let half = FixedPointAdd::of_scales(0.5, 0.5, 1.0, 8).expect("parameters");
        assert_eq!(half.apply(3, 4), 4);
        assert_eq!(half.apply(-3, -4), -4);
        assert_eq!(FixedPointAdd::of_scales(0.0, 1.0, 1.0, 8), None);
        assert_eq!(
            FixedPointAdd::of_scales(1.0, 1.0, 1.0, 16).map(|a| a.left_shift),
            Some(15)
        );
    }

    #[test]
    fn averages_round_half_away_from_zero() {
        assert_eq!(rounded_average(5, 2), 3);
        assert_eq!(rounded_average(-5, 2), -3);
        assert_eq!(rounded_average(4, 3), 1);
        assert_eq!(rounded_average(5, 3), 2);
        assert_eq!(rounded_average(-5, 3), -2);
        assert_eq!(rounded_average(0, 9), 0);
        for sum in -300..=300 {
            for count in 1..=12 {
                let want = (f64::from(sum) / f64::from(count)).round() as i32;
                assert_eq!(rounded_average(sum, count), want, "{sum} / {count}");
            }
        }
    }
}
