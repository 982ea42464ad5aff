//! C types, literals and the expression of each scalar `arith` / `math` op.

use acc_dialects::math_functions::library_function;
use acc_dialects::ops::{arith, math};
use acc_ir::elements::Scalar;
use acc_ir::minifloat::{MiniFloat, NonFinite};
use acc_ir::{AttrId, Context, FloatKind, OpRef, TypeData, TypeId};

/// A scalar op C writes as an expression: an `arith` or a `math` op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ScalarOp {
    /// An `arith` op.
    Arith(arith::Op),
    /// A `math` op.
    Math(math::Op),
}

impl ScalarOp {
    /// The kind of `op` when it is an `arith` or a `math` op.
    pub(crate) fn of(ctx: &Context, op: OpRef<'_>) -> Option<ScalarOp> {
        arith::Op::of(ctx, op)
            .map(ScalarOp::Arith)
            .or_else(|| math::Op::of(ctx, op).map(ScalarOp::Math))
    }
}

/// A scalar type as C sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CType {
    /// An integer of this many bits (1 for `i1`, 64 for `index`), signless.
    Int(u32),
    /// `float`.
    F32,
    /// `double`.
    F64,
    /// `f16` or `bf16`, held as its bits in a `uint16_t`, or a float of 8 bits or
    /// fewer (f8, f6, f4) in a `uint8_t`: only moved, selected and converted
    /// (`emulate-narrow-floats` computes on them in `f32`).
    Half(FloatKind),
}

impl CType {
    /// The C type acc type `ty` (a scalar, or a quantized element: its storage) maps to.
    pub(crate) fn of(ctx: &Context, ty: TypeId) -> Result<CType, String> {
        match ctx.type_data(ty) {
            TypeData::Integer { width, .. } if matches!(width, 1 | 2 | 4 | 8 | 16 | 32 | 64) => {
                Ok(CType::Int(*width))
            }
            TypeData::Index => Ok(CType::Int(64)),
            TypeData::Float(FloatKind::F32) => Ok(CType::F32),
            TypeData::Float(FloatKind::F64) => Ok(CType::F64),
            TypeData::Float(k @ (FloatKind::F16 | FloatKind::BF16)) => Ok(CType::Half(*k)),
            TypeData::Float(k) if MiniFloat::of(*k).is_some() => Ok(CType::Half(*k)),
            TypeData::QuantUniform(q) if matches!(q.storage_width, 2 | 4 | 8 | 16 | 32) => {
                Ok(CType::Int(q.storage_width))
            }
            TypeData::Vector { .. } => Err(format!(
                "{} is a vector, where the C back end takes a scalar",
                acc_ir::printer::type_to_string(ctx, ty)
            )),
            TypeData::RankedTensor { .. } | TypeData::UnrankedTensor(_) => Err(format!(
                "{} has no C type: C is emitted from loop-level IR, where tensors are \
                 buffers; lower the network first (acc-opt --pipeline host-pipeline, or \
                 --target FILE --pipeline target)",
                acc_ir::printer::type_to_string(ctx, ty)
            )),
            _ => Err(format!(
                "{} has no C type here",
                acc_ir::printer::type_to_string(ctx, ty)
            )),
        }
    }

    /// Its name (`int32_t`, `float`; `uint8_t` holding 0 or 1 for `i1`; `int8_t`
    /// holding the sign-extended value for `i2` and `i4`, one per byte).
    pub(crate) fn name(self) -> &'static str {
        match self {
            CType::Int(1) => "uint8_t",
            CType::Int(2 | 4 | 8) => "int8_t",
            CType::Int(16) => "int16_t",
            CType::Int(32) => "int32_t",
            CType::Int(_) => "int64_t",
            CType::F32 => "float",
            CType::F64 => "double",
            CType::Half(k) if k.width() > 8 => "uint16_t",
            CType::Half(_) => "uint8_t",
        }
    }

    /// The bytes of its C type.
    pub(crate) fn bytes(self) -> usize {
        match self {
            CType::Int(1 | 2 | 4 | 8) => 1,
            CType::Int(16) => 2,
            CType::Int(32) | CType::F32 => 4,
            CType::Int(_) | CType::F64 => 8,
            CType::Half(k) if k.width() > 8 => 2,
            CType::Half(_) => 1,
        }
    }

    /// An unsigned type at least as wide as the integer, and at least `int`'s width,
    /// for arithmetic that wraps (a narrower one would be promoted to `int`, where
    /// overflow is undefined).
    fn wide_unsigned(self) -> &'static str {
        match self {
            CType::Int(64) => "uint64_t",
            _ => "uint32_t",
        }
    }

    /// The unsigned type of an integer's width.
    fn unsigned(self) -> &'static str {
        match self {
            CType::Int(1 | 8) => "uint8_t",
            CType::Int(16) => "uint16_t",
            CType::Int(32) => "uint32_t",
            _ => "uint64_t",
        }
    }

    /// Whether it is an `i2` or `i4` (kept sign-extended in an `int8_t`).
    fn narrow(self) -> bool {
        matches!(self, CType::Int(2 | 4))
    }

    fn bits(self) -> u32 {
        match self {
            CType::Int(w) => w,
            CType::F32 => 32,
            CType::F64 => 64,
            CType::Half(k) => k.width().max(8),
        }
    }

    fn is_float(self) -> bool {
        matches!(self, CType::F32 | CType::F64)
    }
}

/// A C literal of `value` in type `t`.
pub(crate) fn literal(t: CType, value: Scalar) -> String {
    match (t, value) {
        (CType::F32, v) => {
            let x = match v {
                Scalar::Float(f) => f as f32,
                Scalar::Int(i) => i as f32,
            };
            // GCC's and Clang's builtins: constant expressions, also in initializers.
            if x.is_nan() {
                "__builtin_nanf(\"\")".into()
            } else if x.is_infinite() {
                if x > 0.0 {
                    "__builtin_inff()"
                } else {
                    "(-__builtin_inff())"
                }
                .into()
            } else if x.is_sign_negative() {
                format!("({x:?}f)")
            } else {
                format!("{x:?}f")
            }
        }
        (CType::F64, v) => {
            let x = match v {
                Scalar::Float(f) => f,
                Scalar::Int(i) => i as f64,
            };
            if x.is_nan() {
                "__builtin_nan(\"\")".into()
            } else if x.is_infinite() {
                if x > 0.0 {
                    "__builtin_inf()"
                } else {
                    "(-__builtin_inf())"
                }
                .into()
            } else if x.is_sign_negative() {
                format!("({x:?})")
            } else {
                format!("{x:?}")
            }
        }
        (CType::Half(kind), v) => {
            let x = match v {
                Scalar::Float(f) => f,
                Scalar::Int(i) => i as f64,
            };
            format!(
                "(({})0x{:04x}u)",
                t.name(),
                acc_ir::elements::float_to_bits(x, kind)
            )
        }
        (CType::Int(w), v) => {
            let i = match v {
                Scalar::Int(i) => i,
                Scalar::Float(f) => f as i128,
            };
            if w == 1 {
                return format!("{}", i & 1);
            }
            // Small values as they are; others through the unsigned type, where
            // every bit pattern is a literal (INT64_MIN has no literal of its own).
            if (-(1i128 << 31) + 1..1i128 << 31).contains(&i) {
                return if i < 0 {
                    format!("(({})({i}))", t.name())
                } else {
                    format!("(({}){i})", t.name())
                };
            }
            let mask: u128 = if w == 64 {
                u64::MAX as u128
            } else {
                (1u128 << w) - 1
            };
            let bits = (i as u128) & mask;
            format!("(({})UINT64_C({bits}))", t.name())
        }
    }
}

/// The scalar of a constant attribute.
pub(crate) fn scalar_of(ctx: &Context, a: AttrId) -> Option<Scalar> {
    acc_ir::elements::scalar(ctx, a).map(|(_, v)| v)
}

/// An `arith` op on or to `i2`/`i4`: computed on the sign-extended values in a
/// wider type, and a narrow result wrapped back to its width (`acc_wrap_narrow`).
/// Unsigned views of narrow values (`extui`, `uitofp`, unsigned comparisons and
/// division) first mask them to their width.
fn narrow_expression(
    kind: ScalarOp,
    x: &[String],
    ts: &[CType],
    out: CType,
    predicate: Option<i64>,
    libm: &mut bool,
) -> Result<String, String> {
    let widen = |t: CType| if t.narrow() { CType::Int(32) } else { t };
    let masked = |v: &str, t: CType| {
        if t.narrow() {
            format!("((int32_t)((uint8_t){v} & {}u))", (1u32 << t.bits()) - 1)
        } else {
            v.to_string()
        }
    };
    let t = ts.first().copied().unwrap_or(out);
    let short = match kind {
        ScalarOp::Arith(k) => k,
        // A math op on integers (not valid IR) is no arith op either.
        ScalarOp::Math(k) => return Err(format!("no C for 'arith.{}'", k.short_name())),
    };
    if matches!(short, arith::Op::Fptosi | arith::Op::Fptoui) && out.narrow() {
        let a = x.first().map(String::as_str).unwrap_or("");
        let w = out.bits();
        let convert = if short == arith::Op::Fptosi {
            "acc_fptosi"
        } else {
            "acc_fptoui"
        };
        if t == CType::F32 {
            return Ok(format!("acc_wrap_narrow({convert}f({a}, {w}), {w})"));
        }
        return Ok(format!("acc_wrap_narrow({convert}((double){a}, {w}), {w})"));
    }
    let unsigned_view = matches!(
        short,
        arith::Op::Extui
            | arith::Op::IndexCastui
            | arith::Op::Uitofp
            | arith::Op::Divui
            | arith::Op::Remui
            | arith::Op::Maxui
            | arith::Op::Minui
            | arith::Op::Shrui
    ) || (short == arith::Op::Cmpi && predicate.is_some_and(|p| p >= 6));
    let xs: Vec<String> = x
        .iter()
        .zip(ts)
        .map(|(v, t)| {
            if unsigned_view {
                masked(v, *t)
            } else {
                v.clone()
            }
        })
        .collect();
    let wide_ts: Vec<CType> = ts.iter().map(|t| widen(*t)).collect();
    let wide_out = widen(out);
    // Unsigned ops of the wide type see the masked (non-negative) values alike.
    let short = match short {
        arith::Op::Extui | arith::Op::IndexCastui if t.narrow() => arith::Op::Extsi,
        arith::Op::Uitofp if t.narrow() => arith::Op::Sitofp,
        s => s,
    };
    let e = expression(
        ScalarOp::Arith(short),
        &xs,
        &wide_ts,
        wide_out,
        predicate,
        libm,
    )?;
    Ok(if out.narrow() {
        format!("acc_wrap_narrow({e}, {})", out.bits())
    } else {
        e
    })
}

/// An op on or to the bits of a float C has no type for (`f16`, `bf16`, f8, f6, f4):
/// the conversions (prelude.h: exact widening, narrowing rounded once from a
/// `double`), `select` and `bitcast`.
fn half_expression(kind: ScalarOp, x: &[String], t: CType, out: CType) -> Result<String, String> {
    let a = x.first().map(String::as_str).unwrap_or("");
    let short = match kind {
        ScalarOp::Arith(k) => k,
        ScalarOp::Math(k) => {
            return Err(format!(
                "'{}' on a float held as its bits (f16, bf16, f8, f4) has no C (run emulate-narrow-floats first)",
                k.name()
            ));
        }
    };
    Ok(match (short, t, out) {
        (arith::Op::Extf | arith::Op::Truncf, CType::Half(from), CType::Half(to)) if from == to => {
            a.to_string()
        }
        (arith::Op::Extf | arith::Op::Truncf, CType::Half(from), CType::Half(to)) => {
            narrowed(to, &format!("(double){}", widened(from, a)?))?
        }
        (arith::Op::Extf, CType::Half(from), o) => format!("({}){}", o.name(), widened(from, a)?),
        (arith::Op::Truncf, _, CType::Half(to)) => narrowed(to, &format!("(double){a}"))?,
        (arith::Op::Select, _, _) => format!(
            "({a} ? {} : {})",
            x.get(1).map(String::as_str).unwrap_or(""),
            x.get(2).map(String::as_str).unwrap_or("")
        ),
        (arith::Op::Bitcast, _, o) => format!("({}){a}", o.name()),
        (other, _, _) => {
            return Err(format!(
                "'{}' on a float held as its bits (f16, bf16, f8, f4) has no C (run emulate-narrow-floats first)",
                other.name()
            ));
        }
    })
}

/// The C expression of the `f32` value of `bits`, a `kind` float (prelude.h).
fn widened(kind: FloatKind, bits: &str) -> Result<String, String> {
    Ok(match kind {
        FloatKind::F16 => format!("acc_f16_to_f32({bits})"),
        FloatKind::BF16 => format!("acc_bf16_to_f32({bits})"),
        _ => {
            let m = small_format(kind)?;
            let rule = match m.non_finite {
                NonFinite::Ieee => 0,
                NonFinite::NanOnly => 1,
                NonFinite::NegativeZeroNan => 2,
                NonFinite::FiniteOnly => 3,
                NonFinite::ExponentOnly => 4,
            };
            format!(
                "acc_small_float_to_f32({bits}, {}, {}, {}, {rule})",
                m.exponent_bits, m.mantissa_bits, m.bias
            )
        }
    })
}

/// The C expression of the bits of the `kind` float nearest to the `double` `x`, as
/// `MiniFloat::encode` without saturation.
fn narrowed(kind: FloatKind, x: &str) -> Result<String, String> {
    Ok(match kind {
        FloatKind::F16 => format!("acc_f16_of({x})"),
        FloatKind::BF16 => format!("acc_bf16_of({x})"),
        _ => {
            let m = small_format(kind)?;
            if m.non_finite == NonFinite::ExponentOnly {
                return Err(format!(
                    "truncf to {kind:?} has no C (ONNX's Cast to it lowers to integer ops)"
                ));
            }
            let pattern = |v: f64| m.encode(v, false);
            format!(
                "acc_small_float_of({x}, {}, {}, {}, 0x{:x}u, 0x{:x}u, 0x{:x}u, 0x{:x}u, {})",
                m.exponent_bits,
                m.mantissa_bits,
                m.bias,
                pattern(m.max()),
                pattern(f64::INFINITY),
                pattern(f64::NEG_INFINITY),
                pattern(f64::NAN),
                u8::from(m.non_finite == NonFinite::NegativeZeroNan)
            )
        }
    })
}

/// The format of a float of 8 bits or fewer.
fn small_format(kind: FloatKind) -> Result<MiniFloat, String> {
    MiniFloat::of(kind).ok_or_else(|| format!("{kind:?} is no small float"))
}

/// `arith.cmpi` predicates, MLIR's numbering.
fn cmpi(p: i64, a: &str, b: &str, t: CType) -> Option<String> {
    let u = t.unsigned();
    Some(match p {
        0 => format!("({a} == {b})"),
        1 => format!("({a} != {b})"),
        2 => format!("({a} < {b})"),
        3 => format!("({a} <= {b})"),
        4 => format!("({a} > {b})"),
        5 => format!("({a} >= {b})"),
        6 => format!("(({u}){a} < ({u}){b})"),
        7 => format!("(({u}){a} <= ({u}){b})"),
        8 => format!("(({u}){a} > ({u}){b})"),
        9 => format!("(({u}){a} >= ({u}){b})"),
        _ => return None,
    })
}

/// `arith.cmpf` predicates, MLIR's numbering (C's comparisons are false on NaN).
fn cmpf(p: i64, a: &str, b: &str) -> Option<String> {
    let uno = format!("({a} != {a} || {b} != {b})");
    Some(match p {
        0 => "0".into(),
        1 => format!("({a} == {b})"),
        2 => format!("({a} > {b})"),
        3 => format!("({a} >= {b})"),
        4 => format!("({a} < {b})"),
        5 => format!("({a} <= {b})"),
        6 => format!("({a} < {b} || {a} > {b})"),
        7 => format!("!{uno}"),
        8 => format!("({uno} || {a} == {b})"),
        9 => format!("!({a} <= {b})"),
        10 => format!("!({a} < {b})"),
        11 => format!("!({a} >= {b})"),
        12 => format!("!({a} > {b})"),
        13 => format!("({a} != {b})"),
        14 => uno,
        15 => "1".into(),
        _ => return None,
    })
}

/// The C expression of scalar op `kind` (`arith.addf`, `arith.cmpi`, `math.exp`, ...)
/// on operands `x` (C expressions of types `ts`) giving type `out`; `predicate` for
/// comparisons. Sets `libm` when it calls the C library.
pub(crate) fn expression(
    kind: ScalarOp,
    x: &[String],
    ts: &[CType],
    out: CType,
    predicate: Option<i64>,
    libm: &mut bool,
) -> Result<String, String> {
    let o = out.name();
    let a = x.first().map(String::as_str).unwrap_or("");
    let b = x.get(1).map(String::as_str).unwrap_or("");
    let t = ts.first().copied().unwrap_or(out);
    let f = if out == CType::F64 || t == CType::F64 {
        ""
    } else {
        "f"
    };
    let wrap = |op: &str| {
        let u = out.wide_unsigned();
        if out == CType::Int(1) {
            format!("(uint8_t)(({a} {op} {b}) & 1)")
        } else {
            format!("({o})(({u}){a} {op} ({u}){b})")
        }
    };
    if out.narrow() || t.narrow() {
        return narrow_expression(kind, x, ts, out, predicate, libm);
    }
    if let (CType::Half(_), _) | (_, CType::Half(_)) = (out, t) {
        return half_expression(kind, x, t, out);
    }
    let short = match kind {
        ScalarOp::Arith(k) => k,
        // As the interpreter: computed in double, rounded once to the result type
        // (exact for sqrt, floor, ceil, roundeven and absf anyway).
        ScalarOp::Math(k) => {
            if let Some(function) = library_function(k) {
                // The C library's function on doubles.
                *libm = true;
                return Ok(format!("({o}){}((double){a})", function.name));
            }
            return Ok(match k {
                math::Op::Sqrt => format!("__builtin_sqrt{f}({a})"),
                math::Op::Rsqrt => format!("({o})(1.0 / __builtin_sqrt((double){a}))"),
                math::Op::Absf => format!("acc_fabs{f}({a})"),
                math::Op::Floor => format!("acc_floor{f}({a})"),
                math::Op::Ceil => format!("acc_ceil{f}({a})"),
                math::Op::Roundeven => format!("acc_roundeven{f}({a})"),
                math::Op::Powf => {
                    *libm = true;
                    format!("({o})pow((double){a}, (double){b})")
                }
                other => return Err(format!("'{}' has no C yet", other.name())),
            });
        }
    };
    if short == arith::Op::Remf {
        // Exact, as the interpreter's remainder.
        *libm = true;
        return Ok(format!("fmod{f}({a}, {b})"));
    }
    Ok(match short {
        arith::Op::Addi => wrap("+"),
        arith::Op::Subi => wrap("-"),
        arith::Op::Muli => wrap("*"),
        arith::Op::Andi => format!("({o})({a} & {b})"),
        arith::Op::Ori => format!("({o})({a} | {b})"),
        arith::Op::Xori => format!("({o})({a} ^ {b})"),
        arith::Op::Shli => format!("({o})(({}){a} << {b})", out.wide_unsigned()),
        arith::Op::Shrsi => format!("({o})({a} >> {b})"),
        arith::Op::Shrui => format!("({o})(({}){a} >> {b})", out.unsigned()),
        arith::Op::Divsi => format!("({o})({a} / {b})"),
        arith::Op::Remsi => format!("({o})({a} % {b})"),
        arith::Op::Divui => format!("({o})(({u}){a} / ({u}){b})", u = out.unsigned()),
        arith::Op::Remui => format!("({o})(({u}){a} % ({u}){b})", u = out.unsigned()),
        // Through a function: a comparison with a type's bound written inline is one
        // GCC's -Wtype-limits flags.
        arith::Op::Maxsi => format!("({o})acc_maxsi((int64_t){a}, (int64_t){b})"),
        arith::Op::Minsi => format!("({o})acc_minsi((int64_t){a}, (int64_t){b})"),
        arith::Op::Maxui => format!("(({u}){a} > ({u}){b} ? {a} : {b})", u = out.unsigned()),
        arith::Op::Minui => format!("(({u}){a} < ({u}){b} ? {a} : {b})", u = out.unsigned()),
        arith::Op::Addf => format!("({a} + {b})"),
        arith::Op::Subf => format!("({a} - {b})"),
        arith::Op::Mulf => format!("({a} * {b})"),
        arith::Op::Divf => format!("({a} / {b})"),
        arith::Op::Negf => format!("(-{a})"),
        arith::Op::Maximumf => format!("acc_maximum{f}({a}, {b})"),
        arith::Op::Minimumf => format!("acc_minimum{f}({a}, {b})"),
        arith::Op::Maxnumf => format!("acc_maxnum{f}({a}, {b})"),
        arith::Op::Minnumf => format!("acc_minnum{f}({a}, {b})"),
        arith::Op::Cmpi => {
            cmpi(predicate.ok_or("no predicate")?, a, b, t).ok_or("bad predicate")?
        }
        arith::Op::Cmpf => cmpf(predicate.ok_or("no predicate")?, a, b).ok_or("bad predicate")?,
        arith::Op::Select => format!(
            "({a} ? {b} : {})",
            x.get(2).map(String::as_str).unwrap_or("")
        ),
        arith::Op::Extsi if t == CType::Int(1) => format!("({o})(-({o}){a})"),
        arith::Op::Extsi
        | arith::Op::IndexCast
        | arith::Op::Fptosi
        | arith::Op::Fptoui
        | arith::Op::Bitcast
            if out == CType::Int(1) =>
        {
            return Err(format!("'{}' to i1 has no C yet", short.name()));
        }
        arith::Op::Extsi | arith::Op::IndexCast => format!("({o}){a}"),
        arith::Op::Extui | arith::Op::IndexCastui => format!("({o})({}){a}", t.unsigned()),
        arith::Op::Trunci if out == CType::Int(1) => format!("(uint8_t)({a} & 1)"),
        arith::Op::Trunci => format!("({o})({}){a}", out.unsigned()),
        arith::Op::Extf | arith::Op::Truncf | arith::Op::Sitofp => format!("({o}){a}"),
        arith::Op::Uitofp => format!("({o})({}){a}", t.unsigned()),
        // From a float, in float arithmetic (no double-precision routines on a
        // soft-float core): the same saturation and truncation.
        arith::Op::Fptosi if t == CType::F32 => format!("({o})acc_fptosif({a}, {})", out.bits()),
        arith::Op::Fptoui if t == CType::F32 => format!("({o})acc_fptouif({a}, {})", out.bits()),
        arith::Op::Fptosi => format!("({o})acc_fptosi((double){a}, {})", out.bits()),
        arith::Op::Fptoui => format!("({o})acc_fptoui((double){a}, {})", out.bits()),
        arith::Op::Bitcast if t.is_float() && !out.is_float() => {
            format!("({o})acc_f{}_bits({a})", t.bits())
        }
        arith::Op::Bitcast if !t.is_float() && out.is_float() => {
            format!("acc_f{}_of(({}){a})", out.bits(), t.unsigned())
        }
        arith::Op::Bitcast => format!("({o}){a}"),
        other => return Err(format!("no C for '{}'", other.name())),
    })
}
