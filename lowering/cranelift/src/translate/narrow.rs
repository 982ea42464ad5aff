//! `f16` and `bf16`: held as their 16 bits (`I16`), since Cranelift computes on
//! neither; `emulate-narrow-floats` leaves them only in loads, stores, constants,
//! `select`, `bitcast`, and the conversions here, which use integer instructions:
//! widening is exact, and narrowing rounds once, to nearest even, from every bit of
//! the `f64` value (as the interpreter does, [`acc_ir::minifloat::MiniFloat`]); a NaN
//! becomes the format's positive quiet NaN (`0x7e00`, `0x7fc0`), as there.

use acc_ir::FloatKind;
use acc_ir::minifloat::MiniFloat;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Value, types};
use cranelift_module::Module;

use super::FnTranslator;

/// The exponent and fraction bits of `f16` or `bf16`.
fn fields(kind: FloatKind) -> (i64, i64) {
    MiniFloat::sixteen_bit(kind).map_or((5, 10), |m| {
        (i64::from(m.exponent_bits), i64::from(m.mantissa_bits))
    })
}

impl<M: Module> FnTranslator<'_, '_, '_, M> {
    /// The `f32` of the 16 bits `h` of a `kind` float.
    pub(super) fn narrow_to_f32(&mut self, h: Value, kind: FloatKind) -> Value {
        let b = &mut self.b;
        let h = b.ins().uextend(types::I32, h);
        if kind == FloatKind::BF16 {
            // The top half of the f32.
            let bits = b.ins().ishl_imm_u(h, 16);
            return b.ins().bitcast(types::F32, MemFlagsData::new(), bits);
        }
        let sign = b.ins().band_imm_u(h, 0x8000);
        let sign = b.ins().ishl_imm_u(sign, 16);
        let mag = b.ins().band_imm_u(h, 0x7fff);
        // Normal: the exponent rebiased from 15 to 127.
        let shifted = b.ins().ishl_imm_u(mag, 13);
        let normal = b.ins().iadd_imm_u(shifted, (127 - 15) << 23);
        // Infinity and NaN: all-ones exponent, the fraction kept.
        let fraction = b.ins().band_imm_u(shifted, 0x7f_ffff);
        let special = b.ins().bor_imm_u(fraction, 0x7f80_0000);
        // Zero and subnormals: the fraction times 2^-24, exact in f32.
        let count = b.ins().fcvt_from_uint(types::F32, mag);
        let scale = b.ins().f32const(2f32.powi(-24));
        let tiny = b.ins().fmul(count, scale);
        let tiny = b.ins().bitcast(types::I32, MemFlagsData::new(), tiny);
        let is_special = b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, mag, 0x7c00);
        let is_normal = b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, mag, 0x0400);
        let finite = b.ins().select(is_normal, normal, tiny);
        let bits = b.ins().select(is_special, special, finite);
        let bits = b.ins().bor(bits, sign);
        b.ins().bitcast(types::F32, MemFlagsData::new(), bits)
    }

    /// The 16 bits of the `kind` float nearest to the `f64` `x` (ties to even).
    pub(super) fn f64_to_narrow(&mut self, x: Value, kind: FloatKind) -> Value {
        let (e_bits, m_bits) = fields(kind);
        let bias = (1i64 << (e_bits - 1)) - 1;
        let all_ones = (1i64 << e_bits) - 1;
        let infinity = all_ones << m_bits;
        let b = &mut self.b;
        let bits = b.ins().bitcast(types::I64, MemFlagsData::new(), x);
        let sign = b.ins().ushr_imm_u(bits, 48);
        let sign = b.ins().band_imm_u(sign, 0x8000);
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
        // a carry out of the fraction moves into the exponent, up to infinity.
        let lead = b.ins().iadd_imm_s(de, -1);
        let lead = b.ins().smax(lead, zero);
        let lead = b.ins().ishl_imm_u(lead, m_bits);
        let rounded = b.ins().iadd(lead, q);
        let rounded = b.ins().iadd(rounded, up);
        let inf = b.ins().iconst(types::I64, infinity);
        let too_big = b
            .ins()
            .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, de, all_ones);
        let is_special = b.ins().icmp_imm_u(
            IntCC::UnsignedGreaterThanOrEqual,
            abs,
            0x7ff0_0000_0000_0000,
        );
        let is_nan = b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThan, abs, 0x7ff0_0000_0000_0000);
        let nan = b.ins().iconst(types::I64, infinity | (1 << (m_bits - 1)));
        let overflows = b.ins().bor(too_big, is_special);
        let finite = b.ins().select(overflows, inf, rounded);
        let signed = b.ins().bor(finite, sign);
        let result = b.ins().select(is_nan, nan, signed);
        b.ins().ireduce(types::I16, result)
    }
}
