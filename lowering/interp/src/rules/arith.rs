//! Rules for `arith` (and `graph.constant`): elementwise over scalars, vectors and
//! tensors, with the same evaluation functions as the folders, so that folding and
//! running agree by construction. Where the folders decline (undefined results such as
//! a division by zero), running is an error.

use acc_dialects::hooks::arith::{
    cast_eval, cmpf_eval, cmpi_eval, float_eval, int_eval, predicate, unsigned,
};
use acc_dialects::math_functions::library_function;
use acc_dialects::ops::{arith, graph, math};
use acc_ir::elements::{ElementKind, Scalar};

use super::{RuleInput, arith_kind, graph_kind, math_kind};
use crate::value::Tensor;

/// `constant`: the `value` attribute.
pub(super) fn constant(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let value = r.op.attr(r.ctx, "value").ok_or("has no value")?;
    let t = Tensor::from_attr(r.ctx, value)?;
    if t.ty != r.result_type(0)? {
        return Err("its value's type differs from its result type".into());
    }
    Ok(vec![t])
}

/// Applies `f` element by element to operands of one shape, giving result 0's type.
fn elementwise(
    r: &RuleInput<'_>,
    f: impl Fn(&[Scalar]) -> Result<Scalar, String>,
) -> Result<Vec<Tensor>, String> {
    let ty = r.result_type(0)?;
    let first = r.operand(0)?;
    if let Some(o) = r.operands.iter().find(|o| o.shape != first.shape) {
        return Err(format!(
            "operand shapes differ: {:?} and {:?}",
            first.shape, o.shape
        ));
    }
    let mut args = Vec::with_capacity(r.operands.len());
    let mut out = Vec::with_capacity(first.data.len());
    for i in 0..first.data.len() {
        args.clear();
        args.extend(r.operands.iter().map(|o| o.data[i]));
        out.push(f(&args)?);
    }
    Ok(vec![Tensor::new(r.ctx, ty, out)?])
}

fn width(t: &Tensor) -> Result<u32, String> {
    match t.kind {
        ElementKind::Int(w, _) => Ok(w),
        ElementKind::Float(_) => Err("expects integers".into()),
    }
}

/// `addi`, `divsi`, `shli`, ...
pub(super) fn int_binary(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let w = width(r.operand(0)?)?;
    let kind = arith_kind(r.name);
    elementwise(r, |v| match (v[0], v[1]) {
        (Scalar::Int(a), Scalar::Int(b)) => {
            let value = kind.and_then(|k| int_eval(k, a, b, w));
            value.map(Scalar::Int).ok_or_else(|| {
                format!("undefined for {a} and {b} (division by zero, overflow or shift too large)")
            })
        }
        _ => Err("expects integers".into()),
    })
}

/// `addui_extended` (the sum and its carry, an i1), `mulsi_extended` and
/// `mului_extended` (the low and high halves of the signed or unsigned product), as
/// MLIR defines them, element by element.
pub(super) fn int_extended(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let (a, b) = (r.operand(0)?, r.operand(1)?);
    if a.shape != b.shape {
        return Err(format!(
            "operand shapes differ: {:?} and {:?}",
            a.shape, b.shape
        ));
    }
    let w = width(a)?;
    if w > 64 {
        return Err(format!("i{w} is wider than the 64 bits it supports"));
    }
    let kind = arith_kind(r.name);
    let mask = (1u128 << w) - 1;
    let mut first = Vec::with_capacity(a.data.len());
    let mut second = Vec::with_capacity(a.data.len());
    for (x, y) in a.data.iter().zip(&b.data) {
        let (Scalar::Int(x), Scalar::Int(y)) = (*x, *y) else {
            return Err("expects integers".into());
        };
        let (ux, uy) = (unsigned(x, w), unsigned(y, w));
        let (low, high) = match kind {
            Some(arith::Op::AdduiExtended) => {
                let sum = ux + uy;
                (sum & mask, u128::from(sum > mask))
            }
            Some(arith::Op::MuluiExtended) => {
                let product = ux * uy;
                (product & mask, product >> w)
            }
            Some(arith::Op::MulsiExtended) => {
                // |x|, |y| < 2^63: the product fits in 127 bits and a sign.
                let product = x * y;
                (product as u128 & mask, (product >> w) as u128 & mask)
            }
            _ => return Err(format!("no extended integer op '{}'", r.name)),
        };
        first.push(Scalar::Int(low as i128));
        second.push(Scalar::Int(high as i128));
    }
    Ok(vec![
        Tensor::new(r.ctx, r.result_type(0)?, first)?,
        Tensor::new(r.ctx, r.result_type(1)?, second)?,
    ])
}

/// `addf`, `maximumf`, ...
pub(super) fn float_binary(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let kind = arith_kind(r.name);
    elementwise(r, |v| match (v[0], v[1]) {
        (Scalar::Float(a), Scalar::Float(b)) => kind
            .and_then(|k| float_eval(k, a, b))
            .map(Scalar::Float)
            .ok_or_else(|| "unknown float operation".to_string()),
        _ => Err("expects floats".into()),
    })
}

/// `negf`.
pub(super) fn float_unary(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let kind = arith_kind(r.name);
    elementwise(r, |v| match (kind, v[0]) {
        (Some(arith::Op::Negf), Scalar::Float(a)) => Ok(Scalar::Float(-a)),
        _ => Err("unknown float operation".into()),
    })
}

/// The `math` dialect's functions of one float.
pub(super) fn math_unary(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let kind = math_kind(r.name);
    let library = kind.and_then(library_function);
    elementwise(r, |v| match v[0] {
        Scalar::Float(x) if library.is_some() => {
            Ok(Scalar::Float(library.map_or(x, |f| (f.eval)(x))))
        }
        Scalar::Float(x) => Ok(Scalar::Float(match kind {
            Some(math::Op::Sqrt) => x.sqrt(),
            Some(math::Op::Rsqrt) => 1.0 / x.sqrt(),
            Some(math::Op::Absf) => x.abs(),
            Some(math::Op::Floor) => x.floor(),
            Some(math::Op::Ceil) => x.ceil(),
            Some(math::Op::Roundeven) => x.round_ties_even(),
            _ => return Err(format!("unknown function '{}'", r.name)),
        })),
        Scalar::Int(_) => Err("expects floats".into()),
    })
}

/// `math.powf`.
pub(super) fn math_binary(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let powf = math_kind(r.name) == Some(math::Op::Powf);
    elementwise(r, |v| match (v[0], v[1]) {
        (Scalar::Float(x), Scalar::Float(y)) if powf => Ok(Scalar::Float(x.powf(y))),
        _ => Err("expects two floats".into()),
    })
}

/// `cmpi`: an i1 per element.
pub(super) fn cmpi(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let pred = predicate(r.op, r.ctx, arith::enums::CMPI_PREDICATE).ok_or("bad predicate")?;
    let w = width(r.operand(0)?)?;
    elementwise(r, |v| match (v[0], v[1]) {
        (Scalar::Int(a), Scalar::Int(b)) => cmpi_eval(&pred, a, b, w)
            .map(|c| Scalar::Int(i128::from(c)))
            .ok_or_else(|| format!("unknown predicate '{pred}'")),
        _ => Err("expects integers".into()),
    })
}

/// `cmpf`: an i1 per element.
pub(super) fn cmpf(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let pred = predicate(r.op, r.ctx, arith::enums::CMPF_PREDICATE).ok_or("bad predicate")?;
    elementwise(r, |v| match (v[0], v[1]) {
        (Scalar::Float(a), Scalar::Float(b)) => cmpf_eval(&pred, a, b)
            .map(|c| Scalar::Int(i128::from(c)))
            .ok_or_else(|| format!("unknown predicate '{pred}'")),
        _ => Err("expects floats".into()),
    })
}

/// `select`: a scalar condition picks a whole operand, a shaped one element by element.
pub(super) fn select(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let cond = r.operand(0)?;
    let (a, b) = (r.operand(1)?, r.operand(2)?);
    if cond.shape.is_empty() {
        let pick = if cond.data[0] != Scalar::Int(0) { a } else { b };
        return Ok(vec![pick.clone()]);
    }
    elementwise(r, |v| Ok(if v[0] != Scalar::Int(0) { v[1] } else { v[2] }))
}

/// `extsi`, `sitofp`, `truncf`, `bitcast`, ..., and `graph.cast` (ONNX Cast: the
/// arith cast its element kinds call for).
pub(super) fn cast(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let from = r.operand(0)?.kind;
    let (_, to) = Tensor::layout(r.ctx, r.result_type(0)?)?;
    let onnx = graph_kind(r.name) == Some(graph::Op::Cast);
    let kind = match (onnx, from, to) {
        (true, ElementKind::Int(_, s), ElementKind::Float(_)) => {
            if s == acc_ir::Signedness::Unsigned {
                Some(arith::Op::Uitofp)
            } else {
                Some(arith::Op::Sitofp)
            }
        }
        (true, ElementKind::Float(_), ElementKind::Int(_, s)) => {
            if s == acc_ir::Signedness::Unsigned {
                Some(arith::Op::Fptoui)
            } else {
                Some(arith::Op::Fptosi)
            }
        }
        (true, ElementKind::Float(_), ElementKind::Float(_)) => Some(arith::Op::Extf),
        // ONNX casts booleans to 0 and 1.
        (true, ElementKind::Int(w, s), ElementKind::Int(..)) => {
            if s == acc_ir::Signedness::Unsigned || w == 1 {
                Some(arith::Op::Extui)
            } else {
                Some(arith::Op::Extsi)
            }
        }
        (false, ..) => arith_kind(r.name),
    };
    let attrs = acc_dialects::hooks::attr_read::Attrs::of_op(r.ctx, r.op);
    if let (true, ElementKind::Float(small)) = (onnx, to)
        && acc_ir::minifloat::MiniFloat::of(small).is_some()
    {
        let saturate = attrs.flag("saturate");
        let rounding = acc_dialects::hooks::graph_fold::cast_rounding(r.ctx, r.op);
        return elementwise(r, |v| {
            let x = match v[0] {
                Scalar::Float(x) => x,
                Scalar::Int(i) => i as f64,
            };
            acc_dialects::hooks::graph_fold::cast_to_small_float(x, small, saturate, rounding)
                .map(Scalar::Float)
                .ok_or_else(|| "not a small float".to_string())
        });
    }
    let wrap = attrs.flag("wrap");
    if let (true, ElementKind::Float(_), ElementKind::Int(..)) = (wrap, from, to) {
        // Truncated toward zero, then wrapped by the result's normalization.
        return elementwise(r, |v| match v[0] {
            Scalar::Float(x) if x.is_finite() => Ok(Scalar::Int(x.trunc() as i128)),
            other => Err(format!("{other:?} has no integer value")),
        });
    }
    elementwise(r, |v| {
        kind.and_then(|k| cast_eval(k, v[0], from, to))
            .ok_or_else(|| format!("{:?} is out of range of the result type", v[0]))
    })
}
