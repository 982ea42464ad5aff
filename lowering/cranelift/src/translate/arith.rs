//! `arith` and `math` ops as instructions (and calls to the C library).

use acc_dialects::math_functions::library_function;
use acc_dialects::ops::{arith, math};
use acc_ir::elements::{self, Scalar};
use acc_ir::{OpRef, ValueId};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Type, Value, types};
use cranelift_frontend::FunctionBuilder;
use cranelift_module::Module;

use super::{CodegenError, FnTranslator, Val, err};
use crate::types::{is_bool, narrow_float, narrow_int, scalar_type};

impl<M: Module> FnTranslator<'_, '_, '_, M> {
    // ----- arith -----

    pub(super) fn arith(
        &mut self,
        op: OpRef<'_>,
        kind: arith::Op,
        operands: &[ValueId],
        result_types: &[acc_ir::TypeId],
    ) -> Result<Val, CodegenError> {
        let ty = *result_types
            .first()
            .ok_or_else(|| err(op, "an arith op without a result"))?;
        let t = scalar_type(self.ctx, ty).map_err(|m| err(op, m))?;
        if t.is_vector() && !self.shared.features.vectors {
            return Err(err(
                op,
                "the target has no vector instructions (RISC-V needs the V extension)",
            ));
        }
        if kind == arith::Op::Constant {
            return self.constant(op, ty, t).map(Val::Scalar);
        }
        let narrow_from = operands
            .first()
            .and_then(|v| narrow_float(self.ctx, self.ir.body(self.body).value_type(*v)));
        let narrow_to = narrow_float(self.ctx, ty);
        if narrow_from.is_some() || narrow_to.is_some() {
            let v = self.narrow_float_op(op, kind, operands, t, narrow_from, narrow_to)?;
            // A bitcast to an i2 or i4 (from an f4 or f6) is held sign-extended.
            return Ok(Val::Scalar(match narrow_int(self.ctx, ty) {
                Some(w) => self.sign_extend_narrow(v, w),
                None => v,
            }));
        }
        let narrow_out = narrow_int(self.ctx, ty);
        let mut values = operands
            .iter()
            .map(|v| self.scalar(op, *v))
            .collect::<Result<Vec<_>, _>>()?;
        if self.sees_unsigned(op, kind)? {
            // An i2 or i4 is held sign-extended: its unsigned value is its low bits.
            for (value, id) in values.iter_mut().zip(operands) {
                if let Some(w) = narrow_int(self.ctx, self.ir.body(self.body).value_type(*id)) {
                    *value = self.b.ins().band_imm_u(*value, (1 << w) - 1);
                }
            }
        }
        let x = |i: usize| {
            values
                .get(i)
                .copied()
                .ok_or_else(|| err(op, "too few operands"))
        };
        let bool_result = is_bool(self.ctx, ty);
        let v = match kind {
            arith::Op::Addi => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().iadd(a, c)
            }
            arith::Op::Subi => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().isub(a, c)
            }
            arith::Op::Muli => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().imul(a, c)
            }
            arith::Op::Divsi => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().sdiv(a, c)
            }
            arith::Op::Divui => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().udiv(a, c)
            }
            arith::Op::Remsi => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().srem(a, c)
            }
            arith::Op::Remui => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().urem(a, c)
            }
            // C's fmod: exact, as the interpreter's remainder.
            arith::Op::Remf => self.library_call(op, "fmod", operands)?,
            arith::Op::Andi => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().band(a, c)
            }
            arith::Op::Ori => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().bor(a, c)
            }
            arith::Op::Xori => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().bxor(a, c)
            }
            arith::Op::Shli => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().ishl(a, c)
            }
            arith::Op::Shrsi => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().sshr(a, c)
            }
            arith::Op::Shrui => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().ushr(a, c)
            }
            // An i1 held as 0 or 1 is -1 when true to signed ops: its signed max is
            // the unsigned min, and the other way round.
            arith::Op::Maxsi => {
                let (a, c) = (x(0)?, x(1)?);
                if bool_result {
                    self.ins().umin(a, c)
                } else {
                    self.ins().smax(a, c)
                }
            }
            arith::Op::Minsi => {
                let (a, c) = (x(0)?, x(1)?);
                if bool_result {
                    self.ins().umax(a, c)
                } else {
                    self.ins().smin(a, c)
                }
            }
            arith::Op::Maxui => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().umax(a, c)
            }
            arith::Op::Minui => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().umin(a, c)
            }
            arith::Op::Addf => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().fadd(a, c)
            }
            arith::Op::Subf => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().fsub(a, c)
            }
            arith::Op::Mulf => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().fmul(a, c)
            }
            arith::Op::Divf => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().fdiv(a, c)
            }
            arith::Op::Maximumf => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().fmax(a, c)
            }
            arith::Op::Minimumf => {
                let (a, c) = (x(0)?, x(1)?);
                self.ins().fmin(a, c)
            }
            arith::Op::Maxnumf | arith::Op::Minnumf if !t.is_vector() => {
                // The non-NaN operand wins.
                let (a, c) = (x(0)?, x(1)?);
                let m = if kind == arith::Op::Maxnumf {
                    self.ins().fmax(a, c)
                } else {
                    self.ins().fmin(a, c)
                };
                let a_nan = self.ins().fcmp(FloatCC::Unordered, a, a);
                let c_nan = self.ins().fcmp(FloatCC::Unordered, c, c);
                let m = self.ins().select(c_nan, a, m);
                self.ins().select(a_nan, c, m)
            }
            arith::Op::Negf => {
                let a = x(0)?;
                self.ins().fneg(a)
            }
            arith::Op::Cmpi => {
                let (a, c) = (x(0)?, x(1)?);
                let mut cc = int_cc(self.predicate(op, arith::Cmpi::ATTR_PREDICATE)?)
                    .ok_or_else(|| err(op, "unknown cmpi predicate"))?;
                if is_bool(self.ctx, self.ir.body(self.body).value_type(operands[0])) {
                    // Signed order of 0 and -1 is the unsigned order of 1 and 0 reversed.
                    cc = match cc {
                        IntCC::SignedLessThan => IntCC::UnsignedGreaterThan,
                        IntCC::SignedLessThanOrEqual => IntCC::UnsignedGreaterThanOrEqual,
                        IntCC::SignedGreaterThan => IntCC::UnsignedLessThan,
                        IntCC::SignedGreaterThanOrEqual => IntCC::UnsignedLessThanOrEqual,
                        other => other,
                    };
                }
                self.ins().icmp(cc, a, c)
            }
            arith::Op::Cmpf => {
                let (a, c) = (x(0)?, x(1)?);
                match self.predicate(op, arith::Cmpf::ATTR_PREDICATE)? {
                    0 => self.ins().iconst(types::I8, 0),
                    15 => self.ins().iconst(types::I8, 1),
                    p => {
                        let cc = float_cc(p).ok_or_else(|| err(op, "unknown cmpf predicate"))?;
                        self.ins().fcmp(cc, a, c)
                    }
                }
            }
            arith::Op::Select => {
                let (c, a, d) = (x(0)?, x(1)?, x(2)?);
                self.ins().select(c, a, d)
            }
            arith::Op::Extsi
            | arith::Op::Extui
            | arith::Op::Trunci
            | arith::Op::IndexCast
            | arith::Op::IndexCastui => {
                let a = x(0)?;
                let from_ty = self.ir.body(self.body).value_type(operands[0]);
                let from = scalar_type(self.ctx, from_ty).map_err(|m| err(op, m))?;
                let from_bool = is_bool(self.ctx, from_ty);
                let signed = matches!(kind, arith::Op::Extsi | arith::Op::IndexCast);
                if from.bits() == t.bits() {
                    if from_bool && signed && !bool_result {
                        self.ins().ineg(a)
                    } else {
                        a
                    }
                } else if from.bits() < t.bits() {
                    let e = self.ins().uextend(t, a);
                    match (from_bool, signed) {
                        (true, true) => self.ins().ineg(e),
                        (false, true) => self.ins().sextend(t, a),
                        _ => e,
                    }
                } else {
                    self.ins().ireduce(t, a)
                }
            }
            arith::Op::Extf => {
                let a = x(0)?;
                self.ins().fpromote(t, a)
            }
            arith::Op::Truncf => {
                let a = x(0)?;
                self.ins().fdemote(t, a)
            }
            // Cranelift converts between floats and 32- or 64-bit integers only:
            // narrower integers go through i32 (extended first, or saturated to their
            // own range and reduced after).
            arith::Op::Sitofp | arith::Op::Uitofp => {
                let mut a = x(0)?;
                let from = self.b.func.dfg.value_type(a);
                let signed = kind == arith::Op::Sitofp;
                if !from.is_vector() && from.bits() < 32 {
                    a = if signed {
                        self.ins().sextend(types::I32, a)
                    } else {
                        self.ins().uextend(types::I32, a)
                    };
                }
                if signed {
                    self.ins().fcvt_from_sint(t, a)
                } else {
                    self.ins().fcvt_from_uint(t, a)
                }
            }
            arith::Op::Fptosi | arith::Op::Fptoui => {
                let a = x(0)?;
                let signed = kind == arith::Op::Fptosi;
                if t.is_vector() || t.bits() >= 32 {
                    if signed {
                        self.ins().fcvt_to_sint_sat(t, a)
                    } else {
                        self.ins().fcvt_to_uint_sat(t, a)
                    }
                } else {
                    let bits = narrow_out.unwrap_or(t.bits());
                    let (lo, hi) = if signed {
                        (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
                    } else {
                        (0, (1i64 << bits) - 1)
                    };
                    let wide = if signed {
                        self.ins().fcvt_to_sint_sat(types::I32, a)
                    } else {
                        self.ins().fcvt_to_uint_sat(types::I32, a)
                    };
                    let lo = self.ins().iconst(types::I32, lo);
                    let hi = self.ins().iconst(types::I32, hi);
                    let clamped = if signed {
                        let c = self.ins().smax(wide, lo);
                        self.ins().smin(c, hi)
                    } else {
                        self.ins().umin(wide, hi)
                    };
                    self.ins().ireduce(t, clamped)
                }
            }
            arith::Op::Bitcast => {
                let a = x(0)?;
                self.ins().bitcast(t, MemFlagsData::new(), a)
            }
            other => {
                return Err(err(
                    op,
                    format!("no code generation for '{}'", other.name()),
                ));
            }
        };
        // An i2 or i4 is held sign-extended from its width.
        let v = match narrow_out {
            Some(w) => self.sign_extend_narrow(v, w),
            None => v,
        };
        // An i1 keeps only its low bit.
        let v = if bool_result
            && matches!(
                kind,
                arith::Op::Addi
                    | arith::Op::Subi
                    | arith::Op::Muli
                    | arith::Op::Shli
                    | arith::Op::Trunci
            ) {
            self.b.ins().band_imm_u(v, 1)
        } else {
            v
        };
        Ok(Val::Scalar(v))
    }

    /// The `math` functions: square root and absolute value as instructions, the others
    /// as calls to the C library (`expf`, `exp`, ...), lane by lane for vectors.
    pub(super) fn math(
        &mut self,
        op: OpRef<'_>,
        kind: math::Op,
        operands: &[ValueId],
    ) -> Result<Value, CodegenError> {
        if narrow_float(self.ctx, self.ir.body(self.body).value_type(operands[0])).is_some() {
            return Err(err(
                op,
                format!(
                    "'{}' on f16 or bf16 has no code generation (run emulate-narrow-floats first)",
                    kind.name()
                ),
            ));
        }
        let x = self.scalar(op, operands[0])?;
        let t = self.b.func.dfg.value_type(x);
        match kind {
            math::Op::Sqrt => return Ok(self.b.ins().sqrt(x)),
            math::Op::Absf => return Ok(self.b.ins().fabs(x)),
            math::Op::Floor => return Ok(self.b.ins().floor(x)),
            math::Op::Ceil => return Ok(self.b.ins().ceil(x)),
            math::Op::Roundeven => return Ok(self.b.ins().nearest(x)),
            math::Op::Rsqrt => {
                let s = self.b.ins().sqrt(x);
                let one = if t.lane_type() == types::F32 {
                    self.b.ins().f32const(1.0)
                } else {
                    self.b.ins().f64const(1.0)
                };
                let one = if t.is_vector() {
                    self.b.ins().splat(t, one)
                } else {
                    one
                };
                return Ok(self.b.ins().fdiv(one, s));
            }
            _ => {}
        }
        // The C library's function (`expf` for f32).
        let base = match (kind, library_function(kind)) {
            (_, Some(f)) => f.name,
            (math::Op::Powf, None) => "pow",
            (other, None) => {
                return Err(err(
                    op,
                    format!("no code generation for '{}'", other.name()),
                ));
            }
        };
        self.library_call(op, base, operands)
    }

    /// A call of the C library's function `base` (`expf` for f32, `exp` for f64) on
    /// `operands` (one or two floats), lane by lane for vectors.
    fn library_call(
        &mut self,
        op: OpRef<'_>,
        base: &str,
        operands: &[ValueId],
    ) -> Result<Value, CodegenError> {
        let x = self.scalar(op, operands[0])?;
        let t = self.b.func.dfg.value_type(x);
        let lane = t.lane_type();
        let symbol = if lane == types::F32 {
            format!("{base}f")
        } else {
            base.to_string()
        };
        let arity = operands.len();
        let f = self.runtime(op, &symbol, &vec![lane; arity], Some(lane))?;
        let y = if arity == 2 {
            Some(self.scalar(op, operands[1])?)
        } else {
            None
        };
        let call = |s: &mut Self, a: Value, b: Option<Value>| -> Value {
            let args: Vec<Value> = std::iter::once(a).chain(b).collect();
            let c = s.b.ins().call(f, &args);
            s.b.inst_results(c)[0]
        };
        if !t.is_vector() {
            return Ok(call(self, x, y));
        }
        let mut out = x;
        for l in 0..t.lane_count() as u8 {
            let a = self.b.ins().extractlane(x, l);
            let b = y.map(|y| self.b.ins().extractlane(y, l));
            let r = call(self, a, b);
            out = self.b.ins().insertlane(out, r, l);
        }
        Ok(out)
    }

    /// An op on `f16`/`bf16`/f8/f6/f4 values, held as their bits: conversions to and from
    /// them, `select` and `bitcast`; any other is an error (`emulate-narrow-floats`
    /// computes them in `f32`).
    fn narrow_float_op(
        &mut self,
        op: OpRef<'_>,
        kind: arith::Op,
        operands: &[ValueId],
        t: Type,
        from: Option<acc_ir::FloatKind>,
        to: Option<acc_ir::FloatKind>,
    ) -> Result<Value, CodegenError> {
        let a = self.scalar(op, operands[0])?;
        Ok(match (kind, from, to) {
            (arith::Op::Extf, Some(k), None) => {
                let f = self.narrow_to_f32(a, k).map_err(|m| err(op, m))?;
                if t == types::F64 {
                    self.ins().fpromote(types::F64, f)
                } else {
                    f
                }
            }
            (arith::Op::Truncf, None, Some(k)) => {
                let wide = if self.b.func.dfg.value_type(a) == types::F32 {
                    self.ins().fpromote(types::F64, a)
                } else {
                    a
                };
                self.f64_to_narrow(wide, k).map_err(|m| err(op, m))?
            }
            (arith::Op::Extf | arith::Op::Truncf, Some(a_kind), Some(b_kind))
                if a_kind == b_kind =>
            {
                a
            }
            (arith::Op::Extf | arith::Op::Truncf, Some(k), Some(to)) => {
                let f = self.narrow_to_f32(a, k).map_err(|m| err(op, m))?;
                let wide = self.ins().fpromote(types::F64, f);
                self.f64_to_narrow(wide, to).map_err(|m| err(op, m))?
            }
            (arith::Op::Bitcast, _, _) if self.b.func.dfg.value_type(a) == t => a,
            (arith::Op::Bitcast, _, _) => self.ins().bitcast(t, MemFlagsData::new(), a),
            (arith::Op::Select, _, _) => {
                let (c, d) = (self.scalar(op, operands[1])?, self.scalar(op, operands[2])?);
                self.ins().select(a, c, d)
            }
            _ => {
                return Err(err(
                    op,
                    format!(
                        "'{}' on a float held as its bits (f16, bf16, f8, f4) has no code generation (run emulate-narrow-floats first)",
                        kind.name()
                    ),
                ));
            }
        })
    }

    /// Whether arith op `kind` reads its integer operands as unsigned numbers.
    fn sees_unsigned(&self, op: OpRef<'_>, kind: arith::Op) -> Result<bool, CodegenError> {
        Ok(match kind {
            arith::Op::Extui
            | arith::Op::IndexCastui
            | arith::Op::Uitofp
            | arith::Op::Divui
            | arith::Op::Remui
            | arith::Op::Maxui
            | arith::Op::Minui
            | arith::Op::Shrui => true,
            arith::Op::Cmpi => self.predicate(op, arith::Cmpi::ATTR_PREDICATE)? >= 6,
            _ => false,
        })
    }

    /// `v` (an `I8`) with its bits above `width` copies of the bit below them: how an
    /// `i2` or `i4` is held.
    pub(super) fn sign_extend_narrow(&mut self, v: Value, width: u32) -> Value {
        let spare = 8 - i64::from(width);
        let high = self.b.ins().ishl_imm_u(v, spare);
        self.b.ins().sshr_imm_u(high, spare)
    }

    /// The integer predicate of a comparison (its attribute `name`).
    pub(super) fn predicate(&self, op: OpRef<'_>, name: &str) -> Result<i128, CodegenError> {
        match op
            .attr(self.ctx, name)
            .and_then(|a| elements::scalar(self.ctx, a))
        {
            Some((_, Scalar::Int(p))) => Ok(p),
            _ => Err(err(op, "requires a predicate")),
        }
    }

    pub(super) fn constant(
        &mut self,
        op: OpRef<'_>,
        ty: acc_ir::TypeId,
        t: Type,
    ) -> Result<Value, CodegenError> {
        let attr = op
            .attr(self.ctx, arith::Constant::ATTR_VALUE)
            .ok_or_else(|| err(op, "a constant without a value"))?;
        let values: Vec<Scalar> = match elements::scalar(self.ctx, attr) {
            Some((_, v)) => vec![v],
            None => {
                let d = elements::dense(self.ctx, attr)
                    .ok_or_else(|| err(op, "unsupported constant"))?;
                let n = elements::num_elements(self.ctx, d.ty).unwrap_or(1);
                (0..n).map(|i| d.get(i)).collect()
            }
        };
        let lane = t.lane_type();
        let bool_ty = is_bool(self.ctx, ty);
        let narrow = narrow_float(self.ctx, ty);
        let narrow_width = narrow_int(self.ctx, ty);
        let one = |b: &mut FunctionBuilder<'_>, v: Scalar| -> Value {
            match (v, lane) {
                (Scalar::Float(f), _) if let Some(k) = narrow => {
                    b.ins().iconst(lane, elements::float_to_bits(f, k) as i64)
                }
                (Scalar::Float(f), types::F32) => b.ins().f32const(f as f32),
                (Scalar::Float(f), _) if lane.is_float() => b.ins().f64const(f),
                (Scalar::Int(i), _) if lane.is_float() => b.ins().f64const(i as f64),
                (Scalar::Int(i), _) => {
                    let i = match narrow_width {
                        _ if bool_ty => i & 1,
                        // Sign-extended from the width, as i2 and i4 are held.
                        Some(w) => (i << (128 - w)) >> (128 - w),
                        None => i,
                    };
                    b.ins().iconst(lane, i as i64)
                }
                (Scalar::Float(f), _) => b.ins().iconst(lane, f as i64),
            }
        };
        if !t.is_vector() {
            let v = *values.first().ok_or_else(|| err(op, "an empty constant"))?;
            return Ok(one(&mut self.b, v));
        }
        let first = *values.first().ok_or_else(|| err(op, "an empty constant"))?;
        let s = one(&mut self.b, first);
        let mut vec = self.b.ins().splat(t, s);
        if values.len() > 1 {
            for (i, v) in values.iter().enumerate().skip(1) {
                let s = one(&mut self.b, *v);
                vec = self.b.ins().insertlane(vec, s, i as u8);
            }
        }
        Ok(vec)
    }
}

fn int_cc(p: i128) -> Option<IntCC> {
    Some(match p {
        0 => IntCC::Equal,
        1 => IntCC::NotEqual,
        2 => IntCC::SignedLessThan,
        3 => IntCC::SignedLessThanOrEqual,
        4 => IntCC::SignedGreaterThan,
        5 => IntCC::SignedGreaterThanOrEqual,
        6 => IntCC::UnsignedLessThan,
        7 => IntCC::UnsignedLessThanOrEqual,
        8 => IntCC::UnsignedGreaterThan,
        9 => IntCC::UnsignedGreaterThanOrEqual,
        _ => return None,
    })
}

fn float_cc(p: i128) -> Option<FloatCC> {
    Some(match p {
        1 => FloatCC::Equal,
        2 => FloatCC::GreaterThan,
        3 => FloatCC::GreaterThanOrEqual,
        4 => FloatCC::LessThan,
        5 => FloatCC::LessThanOrEqual,
        6 => FloatCC::OrderedNotEqual,
        7 => FloatCC::Ordered,
        8 => FloatCC::UnorderedOrEqual,
        9 => FloatCC::UnorderedOrGreaterThan,
        10 => FloatCC::UnorderedOrGreaterThanOrEqual,
        11 => FloatCC::UnorderedOrLessThan,
        12 => FloatCC::UnorderedOrLessThanOrEqual,
        13 => FloatCC::NotEqual,
        14 => FloatCC::Unordered,
        _ => return None,
    })
}
