//! Float bit patterns of every [`FloatKind`]: conversion from decimal literals and back
//! to `f64` for printing. Values are kept as raw bits so every pattern round-trips.

use crate::minifloat::MiniFloat;
use crate::types::FloatKind;

/// Bits of `value` rounded to `kind`. f80 and f128 are exact widenings of the f64.
/// The small formats round to nearest even ([`crate::minifloat`]). `None` for tf32,
/// which has no decimal conversion here (use hex).
pub fn bits_from_f64(kind: FloatKind, value: f64) -> Option<u128> {
    if let Some(small) = MiniFloat::of(kind).or_else(|| MiniFloat::sixteen_bit(kind)) {
        return Some(u128::from(small.encode(value, false)));
    }
    Some(match kind {
        FloatKind::F32 => (value as f32).to_bits() as u128,
        FloatKind::F64 => value.to_bits() as u128,
        FloatKind::F128 => widen(value, 15, 112, false),
        FloatKind::F80 => widen(value, 15, 63, true),
        _ => return None,
    })
}

/// Bits of a decimal literal in `kind`, rounding correctly for f32 and f64.
pub fn bits_from_decimal(kind: FloatKind, text: &str) -> Option<u128> {
    match kind {
        FloatKind::F32 => text.parse::<f32>().ok().map(|v| v.to_bits() as u128),
        _ => bits_from_f64(kind, text.parse::<f64>().ok()?),
    }
}

/// The value of `bits` as an f64, when `kind` converts exactly or by rounding.
pub fn to_f64(kind: FloatKind, bits: u128) -> Option<f64> {
    if let Some(small) = MiniFloat::of(kind) {
        return Some(small.decode(bits as u32));
    }
    Some(match kind {
        FloatKind::F16 => half::f16::from_bits(bits as u16).to_f64(),
        FloatKind::BF16 => half::bf16::from_bits(bits as u16).to_f64(),
        FloatKind::F32 => f32::from_bits(bits as u32) as f64,
        FloatKind::F64 => f64::from_bits(bits as u64),
        _ => return None,
    })
}

/// Mask of the significant bits of `kind`.
pub fn width_mask(kind: FloatKind) -> u128 {
    let w = kind.width();
    if w >= 128 {
        u128::MAX
    } else {
        (1u128 << w) - 1
    }
}

/// Exact widening of an f64 into a wider IEEE-like format with `exp_bits` exponent bits
/// and `frac_bits` fraction bits (`explicit_int` for x87's explicit integer bit).
fn widen(value: f64, exp_bits: u32, frac_bits: u32, explicit_int: bool) -> u128 {
    let bits = value.to_bits();
    let sign = (bits >> 63) as u128;
    let exp = ((bits >> 52) & 0x7ff) as i64;
    let mut frac = (bits & ((1u64 << 52) - 1)) as u128;
    let bias = (1i64 << (exp_bits - 1)) - 1;
    let max_exp = (1u128 << exp_bits) - 1;
    let int_bit = if explicit_int { 1u128 << frac_bits } else { 0 };
    let total_frac = frac_bits + explicit_int as u32;
    let (e, f): (u128, u128) = if exp == 0x7ff {
        (max_exp, (frac << (frac_bits - 52)) | int_bit)
    } else if exp == 0 && frac == 0 {
        (0, 0)
    } else {
        let mut e = exp - 1023;
        if exp == 0 {
            // Subnormal f64: normalize.
            e = -1022;
            while frac & (1 << 52) == 0 {
                frac <<= 1;
                e -= 1;
            }
            frac &= (1 << 52) - 1;
        }
        ((e + bias) as u128, (frac << (frac_bits - 52)) | int_bit)
    };
    (sign << (exp_bits + total_frac)) | (e << total_frac) | f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widening_matches_known_patterns() {
        assert_eq!(
            bits_from_f64(FloatKind::F128, 1.0),
            Some(0x3FFF_0000_0000_0000_0000_0000_0000_0000)
        );
        assert_eq!(
            bits_from_f64(FloatKind::F80, 1.0),
            Some(0x3FFF_8000_0000_0000_0000)
        );
        assert_eq!(
            bits_from_f64(FloatKind::F128, -2.0),
            Some(0xC000_0000_0000_0000_0000_0000_0000_0000)
        );
        assert_eq!(bits_from_f64(FloatKind::F16, 1.0), Some(0x3C00));
        assert_eq!(bits_from_f64(FloatKind::BF16, 1.0), Some(0x3F80));
        assert_eq!(
            bits_from_decimal(FloatKind::F32, "0.1"),
            Some(0.1f32.to_bits() as u128)
        );
    }
}
