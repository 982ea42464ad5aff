//! Floats Cranelift does not compute on, held as their bits: `f16` and `bf16` in an
//! `I16`, the f8, f6 and f4 formats in an `I8` ([`MiniFloat`]). `emulate-narrow-floats`
//! leaves them only in loads, stores, constants, `select`, `bitcast`, and the
//! conversions here, which use integer instructions. Widening is exact (every value of
//! these formats is an `f32`). Narrowing rounds once, to nearest even, from every bit
//! of the `f64` value, then follows the format's rule for values beyond its range
//! (infinity, NaN, or its largest value), as the interpreter does
//! ([`MiniFloat::encode`]); a NaN becomes the format's NaN pattern (`0x7e00` for `f16`).

use acc_ir::FloatKind;
use acc_ir::minifloat::{MiniFloat, NonFinite};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Value, types};
use cranelift_module::Module;

use super::FnTranslator;

/// The format of a float held as its bits.
fn format(kind: FloatKind) -> Result<MiniFloat, String> {
    MiniFloat::sixteen_bit(kind)
        .or_else(|| MiniFloat::of(kind))
        .ok_or_else(|| format!("{kind:?} is not held as its bits"))
}

/// The `f32` quiet NaN the interpreter gives.
const QUIET_NAN: i64 = 0x7fc0_0000;

impl<M: Module> FnTranslator<'_, '_, '_, M> {
    /// The `f32` of the bits `h` (an `I16` or `I8`) of a `kind` float.
    pub(super) fn narrow_to_f32(&mut self, h: Value, kind: FloatKind) -> Result<Value, String> {
        let m = format(kind)?;
        let b = &mut self.b;
        let h = b.ins().uextend(types::I32, h);
        if kind == FloatKind::BF16 {
            // The top half of the f32.
            let bits = b.ins().ishl_imm_u(h, 16);
            return Ok(b.ins().bitcast(types::F32, MemFlagsData::new(), bits));
        }
        if m.non_finite == NonFinite::ExponentOnly {
            // 2^(h - 127): h is an f32's exponent field; 0 is 2^-127, an f32
            // subnormal; 0xFF is NaN.
            let normal = b.ins().ishl_imm_u(h, 23);
            let tiny = b.ins().iconst(types::I32, 0x0040_0000);
            let is_zero = b.ins().icmp_imm_u(IntCC::Equal, h, 0);
            let bits = b.ins().select(is_zero, tiny, normal);
            let nan = b.ins().iconst(types::I32, QUIET_NAN);
            let is_nan = b.ins().icmp_imm_u(IntCC::Equal, h, 0xff);
            let bits = b.ins().select(is_nan, nan, bits);
            return Ok(b.ins().bitcast(types::F32, MemFlagsData::new(), bits));
        }
        let (e_bits, m_bits, bias) = (
            i64::from(m.exponent_bits),
            i64::from(m.mantissa_bits),
            i64::from(m.bias),
        );
        let sign_bit = 1i64 << (e_bits + m_bits);
        let h = b.ins().band_imm_u(h, (sign_bit << 1) - 1);
        let sign = b.ins().band_imm_u(h, sign_bit);
        let sign = b.ins().ishl_imm_u(sign, 31 - (e_bits + m_bits));
        let mag = b.ins().band_imm_u(h, sign_bit - 1);
        // Normal: the exponent rebiased to 127.
        let shifted = b.ins().ishl_imm_u(mag, 23 - m_bits);
        let normal = b.ins().iadd_imm_u(shifted, (127 - bias) << 23);
        // Zero and subnormals: the fraction times 2^(1 - bias - m_bits), exact in f32.
        let count = b.ins().fcvt_from_uint(types::F32, mag);
        let scale = b.ins().f32const(2f32.powi((1 - bias - m_bits) as i32));
        let tiny = b.ins().fmul(count, scale);
        let tiny = b.ins().bitcast(types::I32, MemFlagsData::new(), tiny);
        let is_normal = b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, mag, 1 << m_bits);
        let finite = b.ins().select(is_normal, normal, tiny);
        let mut bits = b.ins().bor(finite, sign);
        let is_nan = match m.non_finite {
            NonFinite::Ieee => {
                // Infinity and NaN: all-ones exponent, the fraction kept.
                let top = ((1i64 << e_bits) - 1) << m_bits;
                let fraction = b.ins().band_imm_u(shifted, 0x7f_ffff);
                let special = b.ins().bor_imm_u(fraction, 0x7f80_0000);
                let special = b.ins().bor(special, sign);
                let is_special = b
                    .ins()
                    .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, mag, top);
                bits = b.ins().select(is_special, special, bits);
                None
            }
            NonFinite::NanOnly => Some(b.ins().icmp_imm_u(IntCC::Equal, mag, sign_bit - 1)),
            NonFinite::NegativeZeroNan => Some(b.ins().icmp_imm_u(IntCC::Equal, h, sign_bit)),
            NonFinite::FiniteOnly | NonFinite::ExponentOnly => None,
        };
        if let Some(is_nan) = is_nan {
            let nan = b.ins().iconst(types::I32, QUIET_NAN);
            bits = b.ins().select(is_nan, nan, bits);
        }
        Ok(b.ins().bitcast(types::F32, MemFlagsData::new(), bits))
    }

    /// The bits (an `I16` for `f16`/`bf16`, else an `I8`) of the `kind` float nearest
    /// to the `f64` `x` (ties to even), as [`MiniFloat::encode`] without saturation.
    pub(super) fn f64_to_narrow(&mut self, x: Value, kind: FloatKind) -> Result<Value, String> {
        let m = format(kind)?;
        if m.non_finite == NonFinite::ExponentOnly {
            return Err(format!(
                "truncf to {kind:?} has no code generation (ONNX's Cast to it lowers to integer ops)"
            ));
        }
        let (e_bits, m_bits, bias) = (
            i64::from(m.exponent_bits),
            i64::from(m.mantissa_bits),
            i64::from(m.bias),
        );
        let pattern = |v: f64| i64::from(m.encode(v, false));
        let (largest, overflow_up, overflow_down, nan) = (
            pattern(m.max()),
            pattern(f64::INFINITY),
            pattern(f64::NEG_INFINITY),
            pattern(f64::NAN),
        );
        let out = if m.width() > 8 { types::I16 } else { types::I8 };
        let b = &mut self.b;
        let bits = b.ins().bitcast(types::I64, MemFlagsData::new(), x);
        let sign = b.ins().ushr_imm_u(bits, 63);
        let sign = b.ins().ishl_imm_u(sign, e_bits + m_bits);
        let abs = b.ins().band_imm_u(bits, i64::MAX);
        let exponent = b.ins().ushr_imm_u(abs, 52);
        let fraction = b.ins().band_imm_u(abs, (1i64 << 52) - 1);
        let full = b.ins().bor_imm_u(fraction, 1i64 << 52);
        // The narrow biased exponent; at 0 and below the result is subnormal, its
        // significand shifted right by 1 - de more.
        let de = b.ins().iadd_imm_s(exponent, bias - 1023);
        let one = b.ins().iconst(types::I64, 1);
        let zero = b.ins().iconst(types::I64, 0);
        let below = b.ins().isub(one, de);
        let below = b.ins().smax(below, zero);
        let shift = b.ins().iadd_imm_u(below, 52 - m_bits);
        let most = b.ins().iconst(types::I64, 63);
        let shift = b.ins().umin(shift, most);
        let q = b.ins().ushr(full, shift);
        let kept = b.ins().ishl(q, shift);
        let rest = b.ins().isub(full, kept);
        let shift_less = b.ins().iadd_imm_s(shift, -1);
        let half = b.ins().ishl(one, shift_less);
        let above_half = b.ins().icmp(IntCC::UnsignedGreaterThan, rest, half);
        let at_half = b.ins().icmp(IntCC::Equal, rest, half);
        let odd = b.ins().band_imm_u(q, 1);
        let odd = b.ins().icmp_imm_u(IntCC::NotEqual, odd, 0);
        let tie_up = b.ins().band(at_half, odd);
        let up = b.ins().bor(above_half, tie_up);
        let up = b.ins().uextend(types::I64, up);
        // (de - 1) << m_bits plus the significand (its leading bit adds the 1 back);
        // a carry out of the fraction moves into the exponent.
        let lead = b.ins().iadd_imm_s(de, -1);
        let lead = b.ins().smax(lead, zero);
        let lead = b.ins().ishl_imm_u(lead, m_bits);
        let rounded = b.ins().iadd(lead, q);
        let rounded = b.ins().iadd(rounded, up);
        // Past the largest finite value (infinities too): the format's rule.
        let overflows = b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThan, rounded, largest);
        let negative = b.ins().icmp_imm_u(IntCC::NotEqual, sign, 0);
        let up_value = b.ins().iconst(types::I64, overflow_up);
        let down_value = b.ins().iconst(types::I64, overflow_down);
        let overflow = b.ins().select(negative, down_value, up_value);
        let mut signed = b.ins().bor(rounded, sign);
        if m.non_finite == NonFinite::NegativeZeroNan {
            // No negative zero: its pattern is the NaN.
            let is_zero = b.ins().icmp_imm_u(IntCC::Equal, rounded, 0);
            signed = b.ins().select(is_zero, zero, signed);
        }
        let result = b.ins().select(overflows, overflow, signed);
        let is_nan = b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThan, abs, 0x7ff0_0000_0000_0000);
        let nan = b.ins().iconst(types::I64, nan);
        let result = b.ins().select(is_nan, nan, result);
        Ok(b.ins().ireduce(out, result))
    }
}
