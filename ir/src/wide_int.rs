//! Integers wider than 128 bits (MLIR's `i129` up to `i16777215`), which do not fit
//! [`crate::AttrData::Integer`]'s `i128`: parsed from decimal or `0x` hex literals,
//! printed in decimal (signed unless the type is unsigned, as MLIR prints them), and
//! stored as their two's complement little-endian bytes, [`crate::attrs::element_bytes`]
//! of them, the bits above the width sign-extended (signless, signed) or zero
//! (unsigned): one value, one byte string, so equal values intern to one attribute.

use crate::Signedness;
pub use num_bigint::BigInt;
use num_bigint::Sign;

/// The stored bytes of the literal `text` (decimal, or hex after `0x`), negated when
/// `neg`, for an integer type of `width` bits (over 128) and `signedness`; the
/// message says why it does not fit. As for narrower types, a signless type takes
/// the signed and the unsigned range (`0xff...` is the bit pattern).
pub fn parse(
    neg: bool,
    text: &str,
    width: u32,
    signedness: Signedness,
) -> Result<Box<[u8]>, String> {
    let magnitude = match text.strip_prefix("0x") {
        Some(hex) => BigInt::parse_bytes(hex.as_bytes(), 16),
        None => BigInt::parse_bytes(text.as_bytes(), 10),
    }
    .ok_or("integer literal is malformed")?;
    if neg && signedness == Signedness::Unsigned && magnitude.sign() != Sign::NoSign {
        return Err("negative integer literal not valid for unsigned integer type".into());
    }
    let value = if neg { -magnitude } else { magnitude };
    let power = |bits: u32| BigInt::from(1) << bits;
    let (lo, hi) = match signedness {
        Signedness::Unsigned => (BigInt::from(0), power(width)),
        Signedness::Signed => (-power(width - 1), power(width - 1)),
        Signedness::Signless => (-power(width - 1), power(width)),
    };
    if value < lo || value >= hi {
        return Err(format!(
            "integer constant out of range for {width}-bit type"
        ));
    }
    Ok(wrapped(&value, width, signedness))
}

/// The stored bytes of `value` wrapped to `width` bits (its value modulo 2^width),
/// as a result of integer arithmetic at that width is.
pub fn wrapped(value: &BigInt, width: u32, signedness: Signedness) -> Box<[u8]> {
    let modulus = BigInt::from(1) << width;
    // The bit pattern, in [0, 2^width).
    let mut pattern = value % &modulus;
    if pattern.sign() == Sign::Minus {
        pattern += modulus;
    }
    let mut bytes = pattern.to_bytes_le().1;
    bytes.resize(crate::attrs::element_bytes(width), 0);
    normalize(&mut bytes, width, signedness);
    bytes.into()
}

/// The value of `width` bits stored in `bytes` (only the low `width` bits are read),
/// signed unless `signedness` is unsigned.
pub fn value(bytes: &[u8], width: u32, signedness: Signedness) -> BigInt {
    let mut bytes = bytes.to_vec();
    bytes.resize(crate::attrs::element_bytes(width), 0);
    normalize(&mut bytes, width, signedness);
    match signedness {
        Signedness::Unsigned => BigInt::from_bytes_le(Sign::Plus, &bytes),
        _ => BigInt::from_signed_bytes_le(&bytes),
    }
}

/// Sets the bits of the last byte above `width` as the storage convention says.
fn normalize(bytes: &mut [u8], width: u32, signedness: Signedness) {
    let top = width % 8;
    let Some(last) = bytes.last_mut().filter(|_| top != 0) else {
        return;
    };
    let mask = (1u8 << top) - 1;
    let negative = signedness != Signedness::Unsigned && (*last >> (top - 1)) & 1 == 1;
    *last = if negative {
        *last | !mask
    } else {
        *last & mask
    };
}

/// The value of `width` bits stored in `bytes` (only the low `width` bits are read:
/// a dense hex blob's padding bits may be anything) in decimal, signed unless
/// `signedness` is unsigned.
pub fn to_decimal(bytes: &[u8], width: u32, signedness: Signedness) -> String {
    value(bytes, width, signedness).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip_through_their_bytes() {
        let cases = [
            (
                "340282366920938463463374607431768211457",
                false,
                256,
                Signedness::Signless,
            ),
            ("5", true, 1000, Signedness::Signless),
            ("0", false, 129, Signedness::Signed),
            (
                "680564733841876926926749214863536422911",
                false,
                130,
                Signedness::Unsigned,
            ),
        ];
        for (text, neg, width, signedness) in cases {
            let bytes = parse(neg, text, width, signedness).unwrap();
            assert_eq!(bytes.len(), width.div_ceil(8) as usize);
            let want = if neg {
                format!("-{text}")
            } else {
                text.to_string()
            };
            assert_eq!(to_decimal(&bytes, width, signedness), want);
        }
    }

    #[test]
    fn a_signless_bit_pattern_reads_back_signed() {
        // 2^130 - 1 at 130 bits is -1, stored with the top byte's high bits set.
        let all_ones = format!("0x3{}", "f".repeat(32));
        let bytes = parse(false, &all_ones, 130, Signedness::Signless).unwrap();
        assert!(bytes.iter().all(|b| *b == 0xff));
        assert_eq!(to_decimal(&bytes, 130, Signedness::Signless), "-1");
        // Bits above the width are not read.
        assert_eq!(
            to_decimal(&[0xff; 17], 130, Signedness::Unsigned),
            format!("{}", (BigInt::from(1) << 130u32) - 1)
        );
        assert_eq!(to_decimal(&[0xff; 17], 129, Signedness::Signed), "-1");
        assert_eq!(parse(true, "1", 130, Signedness::Signless).unwrap(), bytes);
    }

    #[test]
    fn arithmetic_wraps_at_the_width() {
        let max = (BigInt::from(1) << 129u32) - 1;
        let bytes = wrapped(&(&max + 1), 130, Signedness::Signless);
        let min = -(BigInt::from(1) << 129u32);
        assert_eq!(
            to_decimal(&bytes, 130, Signedness::Signless),
            min.to_string()
        );
        let minus_one = wrapped(&BigInt::from(-1), 200, Signedness::Unsigned);
        let all_ones = (BigInt::from(1) << 200u32) - 1;
        assert_eq!(value(&minus_one, 200, Signedness::Unsigned), all_ones);
        assert_eq!(
            value(&minus_one, 200, Signedness::Signless),
            BigInt::from(-1)
        );
    }

    #[test]
    fn values_outside_the_type_are_refused() {
        let two_to_the_130 = (BigInt::from(1) << 130u32).to_string();
        let half = (BigInt::from(1) << 129u32).to_string();
        assert!(parse(false, &two_to_the_130, 130, Signedness::Signless).is_err());
        assert!(parse(false, &half, 130, Signedness::Signed).is_err());
        assert!(parse(true, &half, 130, Signedness::Signed).is_ok());
        assert!(parse(true, "1", 130, Signedness::Unsigned).is_err());
        assert!(parse(false, "12a", 130, Signedness::Signless).is_err());
    }
}
