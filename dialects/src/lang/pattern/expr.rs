//! Integer expressions of target files: conditions on what an intrinsic's match bound
//! (`dim(%w, 2) <= 7`), its cost, and the scalar arguments of its C call. They read
//! static shapes, integer attributes and quantization parameters of the matched
//! values, and are computed when a pass consults the intrinsic, never at run time.
//!
//! Arithmetic is checked: an overflow, a division by zero or a function that does not
//! apply (a dynamic dimension, a per-channel zero point asked as one number) is an
//! error naming the expression, which placement reports as the reason it refused.

use std::ops::Range;

use acc_ir::{AttrId, Context, TypeData, TypeId};
use pest::iterators::Pair;

use super::super::read::{GrammarRule as Rule, span};
use super::ast::Spanned;

/// An expression as written.
#[derive(Clone, Debug)]
pub enum ExprAst {
    /// `42`.
    Int(i64, Range<usize>),
    /// `0.5`: a real literal (tables, `f32(...)`, the arguments of `q31_multiplier`
    /// and `q31_shift`).
    Real(f64, Range<usize>),
    /// `$strides`: a captured attribute (an argument of a function).
    Capture(Spanned),
    /// `%x`: a matched value (an argument of a function).
    Value(Spanned),
    /// `dim(%x, 1)`.
    Call(Spanned, Vec<ExprAst>, Range<usize>),
    /// `a + b`, `a * b`, ...
    Binary(char, Box<ExprAst>, Box<ExprAst>, Range<usize>),
}

impl ExprAst {
    /// Where it was written.
    pub fn span(&self) -> Range<usize> {
        match self {
            ExprAst::Int(_, at)
            | ExprAst::Real(_, at)
            | ExprAst::Call(_, _, at)
            | ExprAst::Binary(_, _, _, at) => at.clone(),
            ExprAst::Capture((_, at)) | ExprAst::Value((_, at)) => at.clone(),
        }
    }
}

/// Reads an `expr`, `product`, atom or `value_ref` pair.
pub fn read_expr(pair: Pair<'_, Rule>) -> ExprAst {
    let at = span(&pair);
    match pair.as_rule() {
        Rule::expr | Rule::product => {
            let mut inner = pair.into_inner();
            let Some(first) = inner.next() else {
                return ExprAst::Int(0, at);
            };
            let mut lhs = read_expr(first);
            while let (Some(op), Some(rhs)) = (inner.next(), inner.next()) {
                let start = lhs.span().start;
                let rhs = read_expr(rhs);
                let end = rhs.span().end;
                let op = op.as_str().chars().next().unwrap_or('+');
                lhs = ExprAst::Binary(op, Box::new(lhs), Box::new(rhs), start..end);
            }
            lhs
        }
        Rule::int => ExprAst::Int(pair.as_str().parse().unwrap_or(i64::MAX), at),
        Rule::real => ExprAst::Real(pair.as_str().parse().unwrap_or(f64::INFINITY), at),
        Rule::capture => ExprAst::Capture((pair.as_str().to_string(), at)),
        Rule::value_ref => ExprAst::Value((pair.as_str().to_string(), at)),
        Rule::expr_call => {
            let mut inner = pair.into_inner();
            let name = inner
                .next()
                .map(|p| (p.as_str().to_string(), span(&p)))
                .unwrap_or_default();
            ExprAst::Call(name, inner.map(read_expr).collect(), at)
        }
        _ => ExprAst::Int(0, at),
    }
}

/// What an argument of an expression function is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Param {
    /// A matched value (`%x`).
    Value,
    /// A captured attribute (`$p`).
    Attr,
    /// An integer expression.
    Int,
}

/// What a function gets: its evaluated arguments.
#[derive(Copy, Clone, Debug)]
pub enum Arg {
    /// The type of a matched value, and the stored values its defining op clamps it
    /// to (its storage range, or a fused activation's; `None` for a value no
    /// quantized op defines).
    Type(TypeId, Option<(i64, i64)>),
    /// A captured attribute.
    Attr(AttrId),
    /// An integer.
    Int(i64),
}

/// An integer function of expressions.
pub type IntFn = fn(&Context, &[Arg]) -> Result<i64, String>;

/// One function: its name, parameters and what it gives.
pub struct ExprFunction {
    /// The name written.
    pub name: &'static str,
    /// Its parameters.
    pub params: &'static [Param],
    /// What it computes (for docs and errors).
    pub summary: &'static str,
    /// The function.
    pub run: IntFn,
}

use Param::{Attr as A, Int as I, Value as V};

/// The integer functions, by name.
pub const FUNCTIONS: [ExprFunction; 21] = [
    ExprFunction {
        name: "dim",
        params: &[V, I],
        summary: "size of dimension i of the value's static shape",
        run: |c, a| dim(c, a),
    },
    ExprFunction {
        name: "rank",
        params: &[V],
        summary: "rank of the value's shape",
        run: |c, a| Ok(shape(c, a)?.len() as i64),
    },
    ExprFunction {
        name: "elements",
        params: &[V],
        summary: "number of elements of the value's static shape",
        run: |c, a| {
            shape(c, a)?
                .iter()
                .try_fold(1i64, |n, d| n.checked_mul(*d))
                .ok_or_else(|| "too many elements".to_string())
        },
    },
    ExprFunction {
        name: "storage_bits",
        params: &[V],
        summary: "bits of the element type (the storage integer of a quantized type)",
        run: |c, a| storage(c, a).map(|(bits, _)| bits),
    },
    ExprFunction {
        name: "is_signed",
        params: &[V],
        summary: "1 when the elements are signed integers (or stored in them), else 0",
        run: |c, a| storage(c, a).map(|(_, signed)| i64::from(signed)),
    },
    ExprFunction {
        name: "storage_min",
        params: &[V],
        summary: "the least stored value (of a quantized type's storage range, or of the integer type)",
        run: |c, a| storage_range(c, a).map(|(lo, _)| lo),
    },
    ExprFunction {
        name: "storage_max",
        params: &[V],
        summary: "the greatest stored value (of a quantized type's storage range, or of the integer type)",
        run: |c, a| storage_range(c, a).map(|(_, hi)| hi),
    },
    ExprFunction {
        name: "act_min",
        params: &[V],
        summary: "the least stored value the op computing the value clamps it to: its `act_min` (a fused ReLU, ReLU6 or Clip), else `storage_min`",
        run: |c, a| clamp(c, a).map(|(lo, _)| lo),
    },
    ExprFunction {
        name: "act_max",
        params: &[V],
        summary: "the greatest stored value the op computing the value clamps it to: its `act_max`, else `storage_max`",
        run: |c, a| clamp(c, a).map(|(_, hi)| hi),
    },
    ExprFunction {
        name: "zero_point",
        params: &[V],
        summary: "the zero point of a quantized value (per channel: the one they all share; in a table, that of the entry's channel)",
        run: |c, a| zero_point(c, a),
    },
    ExprFunction {
        name: "scale",
        params: &[V],
        summary: "the scale of a quantized value, a real number (in a table, that of the entry's channel when the value is per channel); only in real expressions: tables, `f32(...)`, `q31_multiplier`, `q31_shift`",
        run: |_, _| {
            Err(
                "a real number: use it in a table, f32(...), q31_multiplier(...) or q31_shift(...)"
                    .into(),
            )
        },
    },
    ExprFunction {
        name: "same_quantization",
        params: &[V, V],
        summary: "1 when the two quantized values have exactly the same scales and zero points (an average keeping its input's scale), else 0",
        run: |c, a| same_quantization(c, a),
    },
    ExprFunction {
        name: "weight_sum",
        params: &[V, I],
        summary: "in a table, the sum of the stored integers of the constant value whose index along dimension `axis` is the entry's channel (`weight_sum(%b, 1)`: a fully connected layer's column sums, for a bias with the input's offset folded in, `element(%c) - zero_point(%a) * weight_sum(%b, 1)`; for a convolution that folding holds only without padding); only in tables",
        run: |_, _| Err("a sum per channel: use it in a table".into()),
    },
    ExprFunction {
        name: "element",
        params: &[V],
        summary: "in a table, the entry's channel's element of a constant 1-D value (a bias); only in tables",
        run: |_, _| Err("an element per channel: use it in a table".into()),
    },
    ExprFunction {
        name: "q31_multiplier",
        params: &[I],
        summary: "the Q31 significand of a real multiplier, as TFLite's QuantizeMultiplier computes it (in [2^30, 2^31), or 0)",
        run: |_, _| Err("evaluated from a real number".into()),
    },
    ExprFunction {
        name: "q31_shift",
        params: &[I],
        summary: "the shift of a real multiplier's Q31 form (in [-31, 30]; positive shifts left)",
        run: |_, _| Err("evaluated from a real number".into()),
    },
    ExprFunction {
        name: "at",
        params: &[A, I],
        summary: "element i of an `array<i64>` attribute",
        run: |c, a| at(c, a),
    },
    ExprFunction {
        name: "int",
        params: &[A],
        summary: "the value of an integer attribute",
        run: |c, a| match a.first() {
            Some(Arg::Attr(x)) => match acc_ir::elements::scalar(c, *x) {
                Some((_, acc_ir::elements::Scalar::Int(i))) => {
                    i64::try_from(i).map_err(|_| "integer out of range".to_string())
                }
                _ => Err("not an integer attribute".into()),
            },
            _ => Err("expects an attribute".into()),
        },
    },
    ExprFunction {
        name: "real",
        params: &[A],
        summary: "the value of a number attribute (`iou_threshold = $t`: `real($t)`), a real; only in real expressions: tables, `f32(...)`, `q31_multiplier`, `q31_shift`",
        run: |_, _| {
            Err(
                "a real number: use it in a table, f32(...), q31_multiplier(...) or q31_shift(...)"
                    .into(),
            )
        },
    },
    ExprFunction {
        name: "min",
        params: &[I, I],
        summary: "the smaller of two integers",
        run: |_, a| ints(a).map(|(x, y)| x.min(y)),
    },
    ExprFunction {
        name: "max",
        params: &[I, I],
        summary: "the larger of two integers",
        run: |_, a| ints(a).map(|(x, y)| x.max(y)),
    },
];

/// The function named `name`.
pub fn function(name: &str) -> Option<&'static ExprFunction> {
    FUNCTIONS.iter().find(|f| f.name == name)
}

fn ints(a: &[Arg]) -> Result<(i64, i64), String> {
    match a {
        [Arg::Int(x), Arg::Int(y)] => Ok((*x, *y)),
        _ => Err("expects two integers".into()),
    }
}

/// The static shape of the value argument.
fn shape(ctx: &Context, a: &[Arg]) -> Result<Vec<i64>, String> {
    let Some(Arg::Type(ty, _)) = a.first() else {
        return Err("expects a value".into());
    };
    match ctx.type_data(*ty) {
        TypeData::RankedTensor { shape, .. } | TypeData::MemRef { shape, .. } => {
            if shape.iter().any(|d| *d < 0) {
                Err("the shape is dynamic".into())
            } else {
                Ok(shape.to_vec())
            }
        }
        TypeData::Vector { shape, .. } => Ok(shape.to_vec()),
        _ => Ok(Vec::new()),
    }
}

fn dim(ctx: &Context, a: &[Arg]) -> Result<i64, String> {
    let s = shape(ctx, a)?;
    let Some(Arg::Int(i)) = a.get(1) else {
        return Err("expects a dimension".into());
    };
    usize::try_from(*i)
        .ok()
        .and_then(|i| s.get(i).copied())
        .ok_or_else(|| format!("no dimension {i} in a shape of rank {}", s.len()))
}

/// The element type of the value argument.
fn element(ctx: &Context, a: &[Arg]) -> Result<TypeId, String> {
    let Some(Arg::Type(ty, _)) = a.first() else {
        return Err("expects a value".into());
    };
    Ok(ctx.type_data(*ty).element_type().unwrap_or(*ty))
}

/// Bits and signedness of the element type (of its storage when quantized).
fn storage(ctx: &Context, a: &[Arg]) -> Result<(i64, bool), String> {
    match ctx.type_data(element(ctx, a)?) {
        TypeData::QuantUniform(q) => Ok((i64::from(q.storage_width), q.storage_signed)),
        TypeData::Integer { width, signedness } => Ok((
            i64::from(*width),
            *signedness != acc_ir::Signedness::Unsigned,
        )),
        TypeData::Float(k) => Ok((i64::from(k.width()), true)),
        TypeData::Index => Ok((64, true)),
        _ => Err("the elements are not numbers".into()),
    }
}

/// The least and greatest stored value: a quantized type's (possibly narrowed)
/// storage range, an integer type's full range.
fn storage_range(ctx: &Context, a: &[Arg]) -> Result<(i64, i64), String> {
    match ctx.type_data(element(ctx, a)?) {
        TypeData::QuantUniform(q) => Ok(q.storage_bounds()),
        TypeData::Integer { width, signedness } if *width <= 32 => {
            Ok(acc_ir::types::QuantUniform::full_range(
                *width,
                *signedness != acc_ir::Signedness::Unsigned,
            ))
        }
        _ => Err("the elements are not integers of 32 bits or fewer".into()),
    }
}

/// The clamp of a value: its defining op's, else its storage range.
fn clamp(ctx: &Context, a: &[Arg]) -> Result<(i64, i64), String> {
    match a.first() {
        Some(Arg::Type(_, Some(bounds))) => Ok(*bounds),
        _ => storage_range(ctx, a),
    }
}

fn zero_point(ctx: &Context, a: &[Arg]) -> Result<i64, String> {
    let TypeData::QuantUniform(q) = ctx.type_data(element(ctx, a)?) else {
        return Err("the value is not quantized".into());
    };
    let first = q.params_of(0).1;
    if q.params.iter().all(|(_, z)| *z == first) {
        Ok(first)
    } else {
        Err("the channels have different zero points".into())
    }
}

fn same_quantization(ctx: &Context, a: &[Arg]) -> Result<i64, String> {
    let quant = |arg: Option<&Arg>| -> Result<acc_ir::types::QuantUniform, String> {
        let Some(Arg::Type(ty, _)) = arg else {
            return Err("expects two values".into());
        };
        let e = ctx.type_data(*ty).element_type().unwrap_or(*ty);
        match ctx.type_data(e) {
            TypeData::QuantUniform(q) => Ok(q.clone()),
            _ => Err("a value is not quantized".into()),
        }
    };
    let (x, y) = (quant(a.first())?, quant(a.get(1))?);
    let same = x.params.len() == y.params.len()
        && x.params
            .iter()
            .zip(&y.params)
            .all(|((sx, zx), (sy, zy))| sx == sy && zx == zy);
    Ok(i64::from(same))
}

fn at(ctx: &Context, a: &[Arg]) -> Result<i64, String> {
    let (Some(Arg::Attr(x)), Some(Arg::Int(i))) = (a.first(), a.get(1)) else {
        return Err("expects an attribute and an index".into());
    };
    let values = super::functions::i64_array(ctx, *x).ok_or("not an `array<i64>` attribute")?;
    usize::try_from(*i)
        .ok()
        .and_then(|i| values.get(i).copied())
        .ok_or_else(|| format!("no element {i} in an array of {}", values.len()))
}

/// A compiled expression: slots and captures are indices into what a match bound.
#[derive(Clone)]
pub enum Expr {
    /// A literal.
    Int(i64),
    /// A real literal.
    Real(f64),
    /// The type of a slot's value (an argument of a function).
    Value(usize),
    /// A capture (an argument of a function).
    Capture(usize),
    /// A function of its arguments.
    Call(&'static ExprFunction, Vec<Expr>),
    /// `+ - * / %`.
    Binary(char, Box<Expr>, Box<Expr>),
}

/// What a match bound, as expressions read it.
pub struct Bound<'a> {
    /// The context.
    pub ctx: &'a Context,
    /// The type of each slot's value.
    pub types: &'a [Option<TypeId>],
    /// The clamp of each slot's value, when a quantized op defines it
    /// (`acc_dialects::hooks::activation_bounds`).
    pub clamps: &'a [Option<(i64, i64)>],
    /// Each capture.
    pub captures: &'a [Option<AttrId>],
    /// The constant values of the slots, for `weight_sum` and `element` (`None`:
    /// none are known, and those functions fail).
    pub constants: Option<&'a SlotConstants<'a>>,
}

/// The constants a match bound, decoded once each when an expression first reads
/// one (a table reads the same weights for every entry).
pub struct SlotConstants<'a> {
    ctx: &'a Context,
    ir: &'a acc_ir::Ir,
    body: acc_ir::BodyId,
    values: &'a [Option<acc_ir::ValueId>],
    decoded: Vec<std::cell::OnceCell<Option<acc_ir::elements::Dense>>>,
}

impl<'a> SlotConstants<'a> {
    /// The constants of the slots bound to `values` in `body`.
    pub fn new(
        ctx: &'a Context,
        ir: &'a acc_ir::Ir,
        body: acc_ir::BodyId,
        values: &'a [Option<acc_ir::ValueId>],
    ) -> SlotConstants<'a> {
        SlotConstants {
            ctx,
            ir,
            body,
            values,
            decoded: values.iter().map(|_| std::cell::OnceCell::new()).collect(),
        }
    }

    /// The stored integers of the constant bound to `slot` (through storage casts).
    fn get(&self, slot: usize) -> Option<&acc_ir::elements::Dense> {
        let v = self.values.get(slot).copied().flatten()?;
        self.decoded
            .get(slot)?
            .get_or_init(|| crate::hooks::stored::stored_constant(self.ctx, self.ir, self.body, v))
            .as_ref()
    }
}

impl Expr {
    /// The expression's integer value.
    pub fn eval(&self, b: &Bound<'_>) -> Result<i64, String> {
        match self {
            Expr::Int(i) => Ok(*i),
            Expr::Real(r) => Err(format!(
                "{r} is a real number: use it in a table, f32(...), q31_multiplier(...) or q31_shift(...)"
            )),
            Expr::Value(_) | Expr::Capture(_) => Err("not an integer".into()),
            Expr::Call(f, _) if REAL_ARGUMENTS.contains(&f.name) => {
                let v = self.eval_real(b, 0)?;
                if v.fract() != 0.0 || !(i64::MIN as f64..=i64::MAX as f64).contains(&v) {
                    return Err(format!("{}: {v} is not an integer", f.name));
                }
                Ok(v as i64)
            }
            Expr::Call(f, args) => {
                let args = args
                    .iter()
                    .map(|a| self::arg(a, b))
                    .collect::<Result<Vec<_>, _>>()?;
                (f.run)(b.ctx, &args).map_err(|m| format!("{}: {m}", f.name))
            }
            Expr::Binary(op, x, y) => {
                let (x, y) = (x.eval(b)?, y.eval(b)?);
                let r = match op {
                    '+' => x.checked_add(y),
                    '-' => x.checked_sub(y),
                    '*' => x.checked_mul(y),
                    '/' => x.checked_div(y),
                    _ => x.checked_rem(y),
                };
                r.ok_or_else(|| format!("{x} {op} {y} overflows or divides by zero"))
            }
        }
    }
}

/// The functions whose arguments are real expressions (their integer results read
/// from [`Expr::eval_real`]).
const REAL_ARGUMENTS: [&str; 2] = ["q31_multiplier", "q31_shift"];

impl Expr {
    /// The expression's value as a real number, for entry `channel` of a table: a
    /// quantized value's `scale` and `zero_point` are that channel's when it is per
    /// channel; `/` divides reals; `min`, `max` compare reals; `q31_multiplier` and
    /// `q31_shift` give the parts of their argument's Q31 form; every other
    /// function is the integer one. An error for a result that is not finite, a
    /// channel past the value's, or a multiplier without a Q31 form.
    pub fn eval_real(&self, b: &Bound<'_>, channel: usize) -> Result<f64, String> {
        let v = match self {
            Expr::Int(i) => *i as f64,
            Expr::Real(r) => *r,
            Expr::Value(_) | Expr::Capture(_) => return Err("not a number".into()),
            Expr::Binary(op, x, y) => {
                let (x, y) = (x.eval_real(b, channel)?, y.eval_real(b, channel)?);
                match op {
                    '+' => x + y,
                    '-' => x - y,
                    '*' => x * y,
                    '/' => x / y,
                    _ => x % y,
                }
            }
            Expr::Call(f, args) => match (f.name, args.as_slice()) {
                ("scale" | "zero_point", [Expr::Value(slot)]) => {
                    let q = quant_param(b, *slot, channel)?;
                    if f.name == "scale" { q.0 } else { q.1 as f64 }
                }
                ("min" | "max", [x, y]) => {
                    let (x, y) = (x.eval_real(b, channel)?, y.eval_real(b, channel)?);
                    if f.name == "min" { x.min(y) } else { x.max(y) }
                }
                ("weight_sum", [Expr::Value(slot), axis]) => {
                    weight_sum(b, *slot, axis.eval(b)?, channel)?
                }
                ("element", [Expr::Value(slot)]) => constant_element(b, *slot, channel)?,
                ("real", [Expr::Capture(i)]) => {
                    let attr = b
                        .captures
                        .get(*i)
                        .copied()
                        .flatten()
                        .ok_or("real: an unbound capture")?;
                    match acc_ir::elements::scalar(b.ctx, attr) {
                        Some((_, acc_ir::elements::Scalar::Float(x))) => x,
                        Some((_, acc_ir::elements::Scalar::Int(i))) => i as f64,
                        None => return Err("real: not a number attribute".into()),
                    }
                }

                ("q31_multiplier" | "q31_shift", [x]) => {
                    let real = x.eval_real(b, channel)?;
                    let m = acc_ir::requant::FixedPointMultiplier::of_real(real).ok_or_else(|| {
                        format!("{}: {real:e} has no Q31 form (it must be non-negative and below 2^30)", f.name)
                    })?;
                    if f.name == "q31_multiplier" {
                        f64::from(m.multiplier)
                    } else {
                        f64::from(m.shift)
                    }
                }
                _ => self.eval(b)? as f64,
            },
        };
        if !v.is_finite() {
            return Err(format!("a real expression is {v}"));
        }
        Ok(v)
    }

    /// Whether the expression calls the function `name` on the value of `slot`.
    pub fn calls(&self, name: &str, slot: usize) -> bool {
        match self {
            Expr::Call(f, args) => {
                (f.name == name && matches!(args.first(), Some(Expr::Value(s)) if *s == slot))
                    || args.iter().any(|a| a.calls(name, slot))
            }
            Expr::Binary(_, x, y) => x.calls(name, slot) || y.calls(name, slot),
            _ => false,
        }
    }
}

/// The constant bound to `slot` and its static shape.
fn constant_of<'b>(
    b: &'b Bound<'_>,
    slot: usize,
    function: &str,
) -> Result<(&'b acc_ir::elements::Dense, Vec<i64>), String> {
    let dense = b
        .constants
        .and_then(|c| c.get(slot))
        .ok_or_else(|| format!("{function}: the value is not a constant"))?;
    let shape = b
        .ctx
        .type_data(dense.ty)
        .shape()
        .map(<[i64]>::to_vec)
        .ok_or_else(|| format!("{function}: the constant is not shaped"))?;
    Ok((dense, shape))
}

/// The integer element `i` of a constant, as a real.
fn integer_at(dense: &acc_ir::elements::Dense, i: usize, function: &str) -> Result<f64, String> {
    match dense.get(i) {
        acc_ir::elements::Scalar::Int(v) => Ok(v as f64),
        _ => Err(format!("{function}: the constant is not integers")),
    }
}

/// The sum of the constant of `slot`'s stored integers whose index along `axis` is
/// `channel`.
fn weight_sum(b: &Bound<'_>, slot: usize, axis: i64, channel: usize) -> Result<f64, String> {
    let (dense, shape) = constant_of(b, slot, "weight_sum")?;
    let axis = usize::try_from(axis)
        .ok()
        .filter(|a| *a < shape.len())
        .ok_or_else(|| {
            format!(
                "weight_sum: no dimension {axis} in a shape of rank {}",
                shape.len()
            )
        })?;
    let dims: Vec<usize> = shape.iter().map(|d| *d as usize).collect();
    if channel >= dims[axis] {
        return Err(format!(
            "weight_sum: entry {channel} of a table, and dimension {axis} has {}",
            dims[axis]
        ));
    }
    let inner: usize = dims[axis + 1..].iter().product();
    let outer: usize = dims[..axis].iter().product();
    let mut sum = 0.0;
    for o in 0..outer {
        let base = (o * dims[axis] + channel) * inner;
        for i in 0..inner {
            sum += integer_at(dense, base + i, "weight_sum")?;
        }
    }
    Ok(sum)
}

/// Element `channel` of the constant 1-D value of `slot`.
fn constant_element(b: &Bound<'_>, slot: usize, channel: usize) -> Result<f64, String> {
    let (dense, shape) = constant_of(b, slot, "element")?;
    match shape.as_slice() {
        [n] if (channel as i64) < *n => integer_at(dense, channel, "element"),
        [n] => Err(format!(
            "element: entry {channel} of a table, and the value has {n}"
        )),
        _ => Err(format!(
            "element: the value has rank {}, not 1",
            shape.len()
        )),
    }
}

/// The (scale, zero point) of channel `channel` of the quantized value of `slot` (its
/// one pair when it is per tensor).
fn quant_param(b: &Bound<'_>, slot: usize, channel: usize) -> Result<(f64, i64), String> {
    let ty = b
        .types
        .get(slot)
        .copied()
        .flatten()
        .ok_or("an unbound value")?;
    let element = b.ctx.type_data(ty).element_type().unwrap_or(ty);
    let TypeData::QuantUniform(q) = b.ctx.type_data(element) else {
        return Err("the value is not quantized".into());
    };
    if q.params.len() == 1 {
        return Ok(q.params_of(0));
    }
    if channel >= q.params.len() {
        return Err(format!(
            "entry {channel} of a table, and the value has {} channels",
            q.params.len()
        ));
    }
    Ok(q.params_of(channel))
}

fn arg(e: &Expr, b: &Bound<'_>) -> Result<Arg, String> {
    match e {
        Expr::Value(slot) => b
            .types
            .get(*slot)
            .copied()
            .flatten()
            .map(|t| Arg::Type(t, b.clamps.get(*slot).copied().flatten()))
            .ok_or_else(|| "an unbound value".to_string()),
        Expr::Capture(i) => b
            .captures
            .get(*i)
            .copied()
            .flatten()
            .map(Arg::Attr)
            .ok_or_else(|| "an unbound capture".to_string()),
        other => other.eval(b).map(Arg::Int),
    }
}

/// A comparison between two expressions.
#[derive(Clone)]
pub struct Comparison {
    /// `==`, `!=`, `<`, `<=`, `>`, `>=`.
    pub op: String,
    /// Left side.
    pub lhs: Expr,
    /// Right side.
    pub rhs: Expr,
}

impl Comparison {
    /// Whether it holds: `Ok(None)` when it does, `Ok(Some(values))` with the two
    /// sides' values when it does not.
    pub fn check(&self, b: &Bound<'_>) -> Result<Option<(i64, i64)>, String> {
        let (x, y) = (self.lhs.eval(b)?, self.rhs.eval(b)?);
        let holds = match self.op.as_str() {
            "==" => x == y,
            "!=" => x != y,
            "<" => x < y,
            "<=" => x <= y,
            ">" => x > y,
            _ => x >= y,
        };
        Ok((!holds).then_some((x, y)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn function_names_are_unique() {
        let mut names: Vec<&str> = FUNCTIONS.iter().map(|f| f.name).collect();
        let n = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), n);
    }
}
