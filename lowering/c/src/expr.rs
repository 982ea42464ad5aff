//! C types, literals and the expression of each scalar `arith` / `math` op.

use acc_ir::elements::Scalar;
use acc_ir::{AttrId, Context, FloatKind, TypeData, TypeId};

/// A scalar type as C sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CType {
    /// An integer of this many bits (1 for `i1`, 64 for `index`), signless.
    Int(u32),
    /// `float`.
    F32,
    /// `double`.
    F64,
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
            TypeData::QuantUniform(q) if matches!(q.storage_width, 2 | 4 | 8 | 16 | 32) => {
                Ok(CType::Int(q.storage_width))
            }
            TypeData::Vector { .. } => Err(format!(
                "{} is a vector: the C back end takes scalar code (lower without `vectorize`)",
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
    short: &str,
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
    if matches!(short, "fptosi" | "fptoui") && out.narrow() {
        let a = x.first().map(String::as_str).unwrap_or("");
        let w = out.bits();
        return Ok(format!(
            "acc_wrap_narrow(acc_{short}((double){a}, {w}), {w})"
        ));
    }
    let unsigned_view = matches!(
        short,
        "extui" | "index_castui" | "uitofp" | "divui" | "remui" | "maxui" | "minui" | "shrui"
    ) || (short == "cmpi" && predicate.is_some_and(|p| p >= 6));
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
        "extui" | "index_castui" if t.narrow() => "extsi",
        "uitofp" if t.narrow() => "sitofp",
        s => s,
    };
    let e = expression("arith", short, &xs, &wide_ts, wide_out, predicate, libm)?;
    Ok(if out.narrow() {
        format!("acc_wrap_narrow({e}, {})", out.bits())
    } else {
        e
    })
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

/// The C expression of scalar op `short` (`addf`, `cmpi`, ...) of dialect `dialect`
/// on operands `x` (C expressions of types `ts`) giving type `out`; `predicate` for
/// comparisons. Sets `libm` when it calls the C library.
pub(crate) fn expression(
    dialect: &str,
    short: &str,
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
        return narrow_expression(short, x, ts, out, predicate, libm);
    }
    if dialect == "math" {
        // As the interpreter: computed in double, rounded once to the result type
        // (exact for sqrt, floor, ceil, roundeven and absf anyway).
        return Ok(match short {
            "sqrt" => format!("__builtin_sqrt{f}({a})"),
            "rsqrt" => format!("({o})(1.0 / __builtin_sqrt((double){a}))"),
            "absf" => format!("acc_fabs{f}({a})"),
            "floor" => format!("acc_floor{f}({a})"),
            "ceil" => format!("acc_ceil{f}({a})"),
            "roundeven" => format!("acc_roundeven{f}({a})"),
            "exp" | "log" | "tanh" | "erf" => {
                *libm = true;
                format!("({o}){short}((double){a})")
            }
            "powf" => {
                *libm = true;
                format!("({o})pow((double){a}, (double){b})")
            }
            other => return Err(format!("no C for 'math.{other}'")),
        });
    }
    Ok(match short {
        "addi" => wrap("+"),
        "subi" => wrap("-"),
        "muli" => wrap("*"),
        "andi" => format!("({o})({a} & {b})"),
        "ori" => format!("({o})({a} | {b})"),
        "xori" => format!("({o})({a} ^ {b})"),
        "shli" => format!("({o})(({}){a} << {b})", out.wide_unsigned()),
        "shrsi" => format!("({o})({a} >> {b})"),
        "shrui" => format!("({o})(({}){a} >> {b})", out.unsigned()),
        "divsi" => format!("({o})({a} / {b})"),
        "remsi" => format!("({o})({a} % {b})"),
        "divui" => format!("({o})(({u}){a} / ({u}){b})", u = out.unsigned()),
        "remui" => format!("({o})(({u}){a} % ({u}){b})", u = out.unsigned()),
        // Through a function: a comparison with a type's bound written inline is one
        // GCC's -Wtype-limits flags.
        "maxsi" => format!("({o})acc_maxsi((int64_t){a}, (int64_t){b})"),
        "minsi" => format!("({o})acc_minsi((int64_t){a}, (int64_t){b})"),
        "maxui" => format!("(({u}){a} > ({u}){b} ? {a} : {b})", u = out.unsigned()),
        "minui" => format!("(({u}){a} < ({u}){b} ? {a} : {b})", u = out.unsigned()),
        "addf" => format!("({a} + {b})"),
        "subf" => format!("({a} - {b})"),
        "mulf" => format!("({a} * {b})"),
        "divf" => format!("({a} / {b})"),
        "negf" => format!("(-{a})"),
        "maximumf" => format!("acc_maximum{f}({a}, {b})"),
        "minimumf" => format!("acc_minimum{f}({a}, {b})"),
        "maxnumf" => format!("acc_maxnum{f}({a}, {b})"),
        "minnumf" => format!("acc_minnum{f}({a}, {b})"),
        "cmpi" => cmpi(predicate.ok_or("no predicate")?, a, b, t).ok_or("bad predicate")?,
        "cmpf" => cmpf(predicate.ok_or("no predicate")?, a, b).ok_or("bad predicate")?,
        "select" => format!(
            "({a} ? {b} : {})",
            x.get(2).map(String::as_str).unwrap_or("")
        ),
        "extsi" if t == CType::Int(1) => format!("({o})(-({o}){a})"),
        "extsi" | "index_cast" | "fptosi" | "fptoui" | "bitcast" if out == CType::Int(1) => {
            return Err(format!("'arith.{short}' to i1 has no C yet"));
        }
        "extsi" | "index_cast" => format!("({o}){a}"),
        "extui" | "index_castui" => format!("({o})({}){a}", t.unsigned()),
        "trunci" if out == CType::Int(1) => format!("(uint8_t)({a} & 1)"),
        "trunci" => format!("({o})({}){a}", out.unsigned()),
        "extf" | "truncf" | "sitofp" => format!("({o}){a}"),
        "uitofp" => format!("({o})({}){a}", t.unsigned()),
        "fptosi" => format!("({o})acc_fptosi((double){a}, {})", out.bits()),
        "fptoui" => format!("({o})acc_fptoui((double){a}, {})", out.bits()),
        "bitcast" if t.is_float() && !out.is_float() => {
            format!("({o})acc_f{}_bits({a})", t.bits())
        }
        "bitcast" if !t.is_float() && out.is_float() => {
            format!("acc_f{}_of(({}){a})", out.bits(), t.unsigned())
        }
        "bitcast" => format!("({o}){a}"),
        other => return Err(format!("no C for 'arith.{other}'")),
    })
}
