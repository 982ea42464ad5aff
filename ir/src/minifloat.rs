//! Floats of 8 bits and fewer: MLIR's `f8*`, `f6*` and `f4E2M1FN` types (the OCP and
//! ONNX float8/float4 formats). Each is described by its field widths, bias and how it
//! spends (or not) encodings on infinity, NaN and negative zero; decoding is exact and
//! encoding rounds to nearest, ties to even, as LLVM's APFloat and numpy's `ml_dtypes`
//! convert.
//!
//! Invariant: for every format, `decode(encode(x))` is the value of the format nearest
//! to `x` (ties to even), after the format's overflow rule ([`NonFinite`]).

use crate::types::FloatKind;

/// What a format does with the encodings IEEE spends on infinity and NaN.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum NonFinite {
    /// IEEE: the largest exponent holds infinity (mantissa 0) and NaNs; overflow gives
    /// infinity (`f8E5M2`, `f8E4M3`, `f8E3M4`).
    Ieee,
    /// "FN": no infinity; only the all-ones pattern (either sign) is NaN; overflow gives
    /// NaN (`f8E4M3FN`).
    NanOnly,
    /// "FNUZ": no infinity and no negative zero; the pattern of negative zero is the one
    /// NaN; overflow gives NaN (`f8E5M2FNUZ`, `f8E4M3FNUZ`, `f8E4M3B11FNUZ`).
    NegativeZeroNan,
    /// "FN" without NaN: every pattern is a finite number; overflow and infinity
    /// saturate to the largest value and NaN becomes negative zero, as `ml_dtypes` does
    /// (`f6E2M3FN`, `f6E3M2FN`, `f4E2M1FN`).
    FiniteOnly,
    /// `f8E8M0FNU`: an unsigned power of two, 2^(e - 127); no zero; 0xFF is NaN.
    ExponentOnly,
}

/// A small float format.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct MiniFloat {
    /// Exponent field width.
    pub exponent_bits: u32,
    /// Stored mantissa (fraction) width.
    pub mantissa_bits: u32,
    /// Exponent bias.
    pub bias: i32,
    /// How infinity, NaN and negative zero are encoded.
    pub non_finite: NonFinite,
}

impl MiniFloat {
    /// The format of `kind`, for the kinds of 8 bits and fewer.
    pub fn of(kind: FloatKind) -> Option<MiniFloat> {
        use NonFinite::*;
        let f = |exponent_bits, mantissa_bits, bias, non_finite| MiniFloat {
            exponent_bits,
            mantissa_bits,
            bias,
            non_finite,
        };
        Some(match kind {
            FloatKind::F8E5M2 => f(5, 2, 15, Ieee),
            FloatKind::F8E4M3 => f(4, 3, 7, Ieee),
            FloatKind::F8E3M4 => f(3, 4, 3, Ieee),
            FloatKind::F8E4M3FN => f(4, 3, 7, NanOnly),
            FloatKind::F8E5M2FNUZ => f(5, 2, 16, NegativeZeroNan),
            FloatKind::F8E4M3FNUZ => f(4, 3, 8, NegativeZeroNan),
            FloatKind::F8E4M3B11FNUZ => f(4, 3, 11, NegativeZeroNan),
            FloatKind::F8E8M0FNU => f(8, 0, 127, ExponentOnly),
            FloatKind::F6E2M3FN => f(2, 3, 1, FiniteOnly),
            FloatKind::F6E3M2FN => f(3, 2, 3, FiniteOnly),
            FloatKind::F4E2M1FN => f(2, 1, 1, FiniteOnly),
            _ => return None,
        })
    }

    /// IEEE half precision (`f16`) and `bf16` in the same terms, for conversions from
    /// `f64` that round once, to nearest even, from every bit of the value (the `half`
    /// crate's look at the top 32 bits of an `f64` only, so a value just above a tie
    /// in the low bits rounded as the tie).
    pub fn sixteen_bit(kind: FloatKind) -> Option<MiniFloat> {
        let (exponent_bits, mantissa_bits, bias) = match kind {
            FloatKind::F16 => (5, 10, 15),
            FloatKind::BF16 => (8, 7, 127),
            _ => return None,
        };
        Some(MiniFloat {
            exponent_bits,
            mantissa_bits,
            bias,
            non_finite: NonFinite::Ieee,
        })
    }

    /// The spacing of this format's values at magnitude `x` (its unit in the last
    /// place; the subnormal spacing below the normal range).
    pub fn ulp(self, x: f64) -> f64 {
        let min_exponent = 1 - self.bias;
        let exponent = if x > 0.0 && x.is_finite() {
            exponent_of(x).max(min_exponent)
        } else {
            min_exponent
        };
        pow2(exponent - self.mantissa_bits as i32)
    }

    /// Has a sign bit (every format but `f8E8M0FNU`).
    fn signed(self) -> bool {
        self.non_finite != NonFinite::ExponentOnly
    }

    /// Width of the whole pattern.
    pub fn width(self) -> u32 {
        u32::from(self.signed()) + self.exponent_bits + self.mantissa_bits
    }

    fn sign_bit(self) -> u32 {
        1 << (self.exponent_bits + self.mantissa_bits)
    }

    fn max_exponent_field(self) -> u32 {
        (1 << self.exponent_bits) - 1
    }

    fn mantissa_mask(self) -> u32 {
        (1 << self.mantissa_bits) - 1
    }

    /// The pattern of the largest finite value (positive).
    fn max_pattern(self) -> u32 {
        let top = self.max_exponent_field() << self.mantissa_bits;
        match self.non_finite {
            NonFinite::Ieee => top - 1,
            NonFinite::NanOnly | NonFinite::ExponentOnly => (top | self.mantissa_mask()) - 1,
            NonFinite::NegativeZeroNan | NonFinite::FiniteOnly => top | self.mantissa_mask(),
        }
    }

    /// The largest finite value.
    pub fn max(self) -> f64 {
        self.decode(self.max_pattern())
    }

    /// The pattern of a (quiet, positive) NaN, for formats that have one.
    fn nan_pattern(self) -> u32 {
        let top = self.max_exponent_field() << self.mantissa_bits;
        match self.non_finite {
            NonFinite::Ieee => top | (1 << (self.mantissa_bits - 1)),
            NonFinite::NanOnly | NonFinite::ExponentOnly => top | self.mantissa_mask(),
            NonFinite::NegativeZeroNan => self.sign_bit(),
            // No NaN: ml_dtypes stores negative zero.
            NonFinite::FiniteOnly => self.sign_bit(),
        }
    }

    /// The value of a pattern (bits above the width are ignored).
    pub fn decode(self, bits: u32) -> f64 {
        let bits = bits & ((1 << self.width()) - 1);
        let negative = self.signed() && bits & self.sign_bit() != 0;
        let exponent = (bits >> self.mantissa_bits) & self.max_exponent_field();
        let mantissa = bits & self.mantissa_mask();
        let top = exponent == self.max_exponent_field();
        let magnitude = match self.non_finite {
            NonFinite::Ieee if top && mantissa == 0 => f64::INFINITY,
            NonFinite::Ieee if top => return f64::NAN,
            NonFinite::NanOnly | NonFinite::ExponentOnly
                if top && mantissa == self.mantissa_mask() =>
            {
                return f64::NAN;
            }
            NonFinite::NegativeZeroNan if bits == self.sign_bit() => return f64::NAN,
            _ if exponent == 0 && self.mantissa_bits > 0 => {
                // Subnormal: 0.m * 2^(1 - bias).
                f64::from(mantissa) * pow2(1 - self.bias - self.mantissa_bits as i32)
            }
            _ => {
                let significand = f64::from(mantissa | (1 << self.mantissa_bits));
                significand * pow2(exponent as i32 - self.bias - self.mantissa_bits as i32)
            }
        };
        if negative { -magnitude } else { magnitude }
    }

    /// The pattern of `x` rounded to nearest, ties to even (ties away from zero for
    /// `f8E8M0FNU`, as `ml_dtypes` rounds it). With `saturate`, values beyond the
    /// largest finite value, infinities included, become it (ONNX Cast's `saturate`);
    /// without, they follow the format's rule ([`NonFinite`]).
    pub fn encode(self, x: f64, saturate: bool) -> u32 {
        if x.is_nan() {
            return self.nan_pattern();
        }
        if self.non_finite == NonFinite::ExponentOnly {
            return self.encode_exponent_only(x, saturate);
        }
        let sign = if x.is_sign_negative() {
            self.sign_bit()
        } else {
            0
        };
        let magnitude = x.abs();
        let overflow = || match self.non_finite {
            _ if saturate => sign | self.max_pattern(),
            NonFinite::Ieee => sign | (self.max_exponent_field() << self.mantissa_bits),
            NonFinite::NanOnly => sign | self.nan_pattern(),
            NonFinite::NegativeZeroNan => self.nan_pattern(),
            _ => sign | self.max_pattern(),
        };
        if magnitude.is_infinite() {
            return overflow();
        }
        let min_exponent = 1 - self.bias;
        let exponent = if magnitude == 0.0 {
            min_exponent
        } else {
            exponent_of(magnitude).max(min_exponent)
        };
        // The spacing of representable values at this exponent; the quotient is exact.
        let quantum = pow2(exponent - self.mantissa_bits as i32);
        let steps = (magnitude / quantum).round_ties_even();
        let rounded = steps * quantum;
        if rounded > self.max() {
            return overflow();
        }
        if rounded == 0.0 {
            return if self.non_finite == NonFinite::NegativeZeroNan {
                0
            } else {
                sign
            };
        }
        let e = exponent_of(rounded);
        let pattern = if e < min_exponent {
            rounded / pow2(min_exponent - self.mantissa_bits as i32)
        } else {
            let field = (e + self.bias) as u32;
            let fraction =
                rounded / pow2(e - self.mantissa_bits as i32) - pow2(self.mantissa_bits as i32);
            f64::from(field << self.mantissa_bits) + fraction
        };
        sign | pattern as u32
    }

    /// `f8E8M0FNU`: 2^round(log2 x) with ties (1.5 * 2^k) up; zero and negative
    /// values have no encoding and become NaN, as in `ml_dtypes`.
    fn encode_exponent_only(self, x: f64, saturate: bool) -> u32 {
        if x <= 0.0 {
            return self.nan_pattern();
        }
        if x.is_infinite() {
            return if saturate {
                self.max_pattern()
            } else {
                self.nan_pattern()
            };
        }
        let e = exponent_of(x);
        let up = x / pow2(e) >= 1.5;
        let field = e + i32::from(up) + self.bias;
        if field > self.max_pattern() as i32 {
            if saturate {
                self.max_pattern()
            } else {
                self.nan_pattern()
            }
        } else {
            field.max(0) as u32
        }
    }

    /// The value of the format nearest to `x` (see [`MiniFloat::encode`]).
    pub fn round(self, x: f64) -> f64 {
        self.decode(self.encode(x, false))
    }

    /// Values where rounding to this format decides something, for checking a
    /// conversion against [`MiniFloat::encode`]: every `step`-th positive finite value,
    /// the midpoint to its successor (a tie) and that midpoint's `f64` and `f32`
    /// neighbours, each with both signs; then the largest value, the tie past it where
    /// rounding overflows and that tie's neighbours, values further out,
    /// infinities, NaN, signed zeros and values far below the smallest.
    pub fn rounding_cases(self, step: usize) -> Vec<f64> {
        let mut out = Vec::new();
        let mut bits = 0u32;
        while bits < self.max_pattern() {
            let v = self.decode(bits);
            let mid = (v + self.decode(bits + 1)) / 2.0;
            let as_f32 = mid as f32;
            for x in [
                v,
                mid,
                f64::from_bits(mid.to_bits() + 1),
                f64::from_bits(mid.to_bits().saturating_sub(1)),
                f64::from(f32::from_bits(as_f32.to_bits() + 1)),
                f64::from(f32::from_bits(as_f32.to_bits().saturating_sub(1))),
            ] {
                out.extend([x, -x]);
            }
            bits += step.max(1) as u32;
        }
        let max = self.max();
        // Half a unit past the largest value: where rounding overflows (a tie).
        let overflow_tie = max + self.ulp(max) / 2.0;
        out.extend([
            max,
            -max,
            overflow_tie,
            -overflow_tie,
            f64::from_bits(overflow_tie.to_bits() - 1),
            f64::from_bits(overflow_tie.to_bits() + 1),
            max * 1.01,
            max * 2.0,
            -max * 2.0,
            f64::from(f32::MAX),
            1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            0.0,
            -0.0,
            1e-40,
            -1e-300,
        ]);
        out
    }
}

/// How ONNX's Cast rounds a value to `f8E8M0FNU` (its `round_mode`).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum ScaleRounding {
    /// To the next power of two up (ONNX's default).
    Up,
    /// To the power of two below.
    Down,
    /// To the nearest power of two (from 1.5 * 2^k up).
    Nearest,
}

/// ONNX's conversion of `x` to `f8E8M0FNU` (Cast and CastLike from opset 24): the
/// biased exponent of `x` as an f32, sign ignored, incremented when the rounding asks
/// (never past 2^127 with `saturate`). Zero and f32 subnormals have exponent 0 (2^-127);
/// infinities and NaN give the NaN pattern 0xFF.
pub fn e8m0_from_f32(x: f32, rounding: ScaleRounding, saturate: bool) -> u32 {
    let bits = x.to_bits();
    let exponent = (bits >> 23) & 0xFF;
    if exponent == 0xFF {
        return 0xFF;
    }
    let round_up = match rounding {
        ScaleRounding::Up => bits & 0x7F_FFFF != 0,
        ScaleRounding::Down => false,
        ScaleRounding::Nearest => {
            let guard = bits & 0x40_0000 != 0;
            let round = bits & 0x20_0000 != 0;
            let sticky = bits & 0x1F_FFFF != 0;
            guard && (round || sticky || exponent > 0)
        }
    };
    if round_up && !(saturate && exponent == 0xFE) {
        exponent + 1
    } else {
        exponent
    }
}

/// 2^e for the exponents these formats use.
fn pow2(e: i32) -> f64 {
    2f64.powi(e)
}

/// floor(log2 x) for a finite positive `x`.
fn exponent_of(x: f64) -> i32 {
    let bits = x.to_bits();
    let field = ((bits >> 52) & 0x7ff) as i32;
    if field == 0 {
        // f64 subnormal: far below every small format's range.
        -1075 + (64 - (bits & ((1 << 52) - 1)).leading_zeros() as i32)
    } else {
        field - 1023
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn format(kind: FloatKind) -> MiniFloat {
        MiniFloat::of(kind).unwrap()
    }

    #[test]
    fn largest_values_are_the_published_ones() {
        assert_eq!(format(FloatKind::F8E4M3FN).max(), 448.0);
        assert_eq!(format(FloatKind::F8E4M3FNUZ).max(), 240.0);
        assert_eq!(format(FloatKind::F8E5M2).max(), 57344.0);
        assert_eq!(format(FloatKind::F8E5M2FNUZ).max(), 57344.0);
        assert_eq!(format(FloatKind::F8E4M3).max(), 240.0);
        assert_eq!(format(FloatKind::F8E3M4).max(), 15.5);
        assert_eq!(format(FloatKind::F4E2M1FN).max(), 6.0);
        assert_eq!(format(FloatKind::F6E2M3FN).max(), 7.5);
        assert_eq!(format(FloatKind::F6E3M2FN).max(), 28.0);
        assert_eq!(format(FloatKind::F8E8M0FNU).max(), 2f64.powi(127));
    }

    /// Patterns computed with numpy's ml_dtypes 0.6 (`np.float32(x).astype(...)`).
    #[test]
    fn encodings_match_ml_dtypes() {
        let cases: &[(FloatKind, f64, u32)] = &[
            (FloatKind::F8E4M3FN, 464.0, 0x7E),
            (FloatKind::F8E4M3FN, 500.0, 0x7F),
            (FloatKind::F8E4M3FN, f64::INFINITY, 0x7F),
            (FloatKind::F8E4M3FN, -0.0, 0x80),
            (FloatKind::F8E4M3FNUZ, 464.0, 0x80),
            (FloatKind::F8E4M3FNUZ, -0.0, 0x00),
            (FloatKind::F8E5M2, 61440.0, 0x7C),
            (FloatKind::F8E5M2, f64::NAN, 0x7E),
            (FloatKind::F8E5M2FNUZ, -1e-10, 0x00),
            (FloatKind::F8E5M2FNUZ, 70000.0, 0x80),
            (FloatKind::F4E2M1FN, 7.0, 0x7),
            (FloatKind::F4E2M1FN, f64::NEG_INFINITY, 0xF),
            (FloatKind::F4E2M1FN, f64::NAN, 0x8),
            (FloatKind::F4E2M1FN, 0.25, 0x0),
            (FloatKind::F4E2M1FN, 0.75, 0x2),
            (FloatKind::F4E2M1FN, 5.0, 0x6),
            (FloatKind::F8E8M0FNU, 1.0, 127),
            (FloatKind::F8E8M0FNU, 3.0, 129),
            (FloatKind::F8E8M0FNU, 0.0, 0xFF),
            (FloatKind::F8E8M0FNU, -4.0, 0xFF),
        ];
        for &(kind, x, want) in cases {
            assert_eq!(format(kind).encode(x, false), want, "{kind:?} {x}");
        }
    }

    #[test]
    fn saturation_stops_at_the_largest_value() {
        let e4m3 = format(FloatKind::F8E4M3FN);
        assert_eq!(e4m3.encode(1e6, true), 0x7E);
        assert_eq!(e4m3.encode(f64::NEG_INFINITY, true), 0xFE);
        assert_eq!(format(FloatKind::F8E5M2).encode(f64::INFINITY, true), 0x7B);
        assert_eq!(format(FloatKind::F8E5M2FNUZ).encode(-1e6, true), 0xFF);
    }

    /// Patterns of ONNX's reference (`onnx.numpy_helper.to_float8e8m0`).
    #[test]
    fn onnx_scale_conversion() {
        use ScaleRounding::*;
        let up: Vec<u32> = [0.0f32, 0.124, 0.25, 0.5, 1.1, 2.0, 4.0, 8.0]
            .iter()
            .map(|x| e8m0_from_f32(*x, Up, true))
            .collect();
        assert_eq!(up, [0, 124, 125, 126, 128, 128, 129, 130]);
        assert_eq!(e8m0_from_f32(3.0, Nearest, true), 129);
        assert_eq!(e8m0_from_f32(2.9, Down, true), 128);
        assert_eq!(e8m0_from_f32(-4.0, Down, true), 129);
        assert_eq!(e8m0_from_f32(f32::MAX, Up, true), 0xFE);
        assert_eq!(e8m0_from_f32(f32::MAX, Up, false), 0xFF);
        assert_eq!(e8m0_from_f32(f32::NAN, Up, true), 0xFF);
    }

    /// Every pattern decodes to a value that encodes back to it (NaNs to the one NaN).
    #[test]
    fn every_pattern_round_trips() {
        for (kind, _) in FloatKind::ALL {
            let Some(f) = MiniFloat::of(kind) else {
                continue;
            };
            for bits in 0..(1u32 << f.width()) {
                let v = f.decode(bits);
                let back = f.encode(v, false);
                if v.is_nan() {
                    assert!(f.decode(back).is_nan(), "{kind:?} {bits:#x}");
                } else {
                    assert_eq!(back, bits, "{kind:?} {bits:#x} = {v}");
                }
            }
        }
    }

    /// `f16` and `bf16` from `f32` values as the `half` crate rounds them (its `f32`
    /// conversions see every bit), and from an `f64` just above a tie in its low bits,
    /// which rounds up (where `half`'s `f64` conversion rounds as the tie, to even).
    #[test]
    fn sixteen_bit_formats_round_once_to_nearest_even() {
        let f16 = MiniFloat::sixteen_bit(FloatKind::F16).unwrap();
        let bf16 = MiniFloat::sixteen_bit(FloatKind::BF16).unwrap();
        let mut seed = 7u64;
        for i in 0..200_000u32 {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            // Random bit patterns, and every pattern near 1.0 and near f16's range.
            let bits = match i % 3 {
                0 => (seed >> 32) as u32,
                1 => 0x3f80_0000 + (i & 0xffff) - 0x8000,
                _ => 0x4780_0000 + (i & 0xffff) - 0x8000,
            };
            let x = f32::from_bits(bits);
            if x.is_nan() {
                continue;
            }
            assert_eq!(
                f16.encode(f64::from(x), false),
                u32::from(half::f16::from_f32(x).to_bits()),
                "{x:e}"
            );
            assert_eq!(
                bf16.encode(f64::from(x), false),
                u32::from(half::bf16::from_f32(x).to_bits()),
                "{x:e}"
            );
        }
        // 1 + 2^-11 is the tie between 1 and its successor; one f64 unit above it
        // rounds up.
        let above_tie = f64::from_bits((1.0f64 + 2f64.powi(-11)).to_bits() + 1);
        assert_eq!(f16.encode(above_tie, false), 0x3c01);
        assert_eq!(f16.encode(1.0 + 2f64.powi(-11), false), 0x3c00);
        assert_eq!(f16.encode(f64::NAN, false), 0x7e00);
        assert_eq!(f16.encode(65520.0, false), 0x7c00);
        assert_eq!(f16.encode(-65519.0, false), 0xfbff);
        assert_eq!(bf16.encode(f64::NAN, false), 0x7fc0);
    }
}
