//! Rules for shape-level ops of `graph` and `tensor`: elementwise ops with numpy
//! broadcasting (sharing the folders' evaluation), reshapes and transposes.

use acc_dialects::hooks::attr_read::Attrs;
use acc_dialects::hooks::graph_fold::{BinaryOp, broadcast_index, transpose_indices, unary_eval};
use acc_dialects::ops::graph;
use acc_ir::elements::Scalar;

use super::{RuleInput, graph_kind};
use crate::value::Tensor;

/// `relu`, `sqrt`, `exp`, `erf`, `gelu`, `clip`, ...: one element at a time.
pub(super) fn unary(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let x = r.operand(0)?;
    let attrs = Attrs::of_op(r.ctx, r.op);
    let bound = |name: &str| {
        attrs
            .get(name)
            .and_then(|a| acc_ir::elements::scalar(r.ctx, a))
            .map(|(_, v)| match v {
                Scalar::Float(f) => f,
                Scalar::Int(i) => i as f64,
            })
    };
    let (lo, hi) = (bound("min"), bound("max"));
    // As numpy.clip: with min above max, every element becomes max.
    let clamp = |x: f64| {
        let x = lo.map_or(x, |l| x.max(l));
        hi.map_or(x, |h| x.min(h))
    };
    let tanh_gelu = attrs
        .get("approximate")
        .is_some_and(|a| acc_ir::printer::attr_to_string(r.ctx, a).contains("tanh"));
    let kind = graph_kind(r.name);
    let eval = |v: Scalar| -> Option<Scalar> {
        match (kind?, v) {
            (graph::Op::Erf, Scalar::Float(x)) => Some(Scalar::Float(libm::erf(x))),
            (graph::Op::Gelu, Scalar::Float(x)) if tanh_gelu => {
                let c = (2.0 / std::f64::consts::PI).sqrt();
                let inner = c * (x + 0.044715 * x * x * x);
                Some(Scalar::Float(0.5 * x * (1.0 + inner.tanh())))
            }
            (graph::Op::Gelu, Scalar::Float(x)) => Some(Scalar::Float(
                0.5 * x * (1.0 + libm::erf(x / std::f64::consts::SQRT_2)),
            )),
            (graph::Op::Clip, Scalar::Float(x)) => Some(Scalar::Float(clamp(x))),
            (graph::Op::Clip, Scalar::Int(x)) => Some(Scalar::Int(clamp(x as f64) as i128)),
            (k, _) => unary_eval(k, v),
        }
    };
    let data: Result<Vec<Scalar>, String> = x
        .data
        .iter()
        .map(|v| eval(*v).ok_or_else(|| format!("no semantics for {v:?} (or it overflows)")))
        .collect();
    Ok(vec![Tensor::new(r.ctx, r.result_type(0)?, data?)?])
}

/// `add`, `div`, `pow`, ...: numpy broadcasting of both operands to the result shape.
pub(super) fn binary(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let (a, b) = (r.operand(0)?, r.operand(1)?);
    let ty = r.result_type(0)?;
    let index = broadcast_to_result(r, ty)?;
    let (ia, ib) = (index(a)?, index(b)?);
    let op = graph_kind(r.name)
        .and_then(BinaryOp::of)
        .ok_or_else(|| format!("no binary op '{}'", r.name))?;
    let data: Result<Vec<Scalar>, String> = ia
        .iter()
        .zip(&ib)
        .map(|(i, j)| {
            let (x, y) = (a.data[*i], b.data[*j]);
            op.eval_in(a.kind, x, y)
                .ok_or_else(|| format!("undefined for {x:?} and {y:?}"))
        })
        .collect();
    Ok(vec![Tensor::new(r.ctx, ty, data?)?])
}

/// For an operand, the index of its element each element of the result type `ty`
/// reads under numpy broadcasting.
fn broadcast_to_result(
    r: &RuleInput<'_>,
    ty: acc_ir::TypeId,
) -> Result<impl Fn(&Tensor) -> Result<Vec<usize>, String>, String> {
    let (shape, _) = Tensor::layout(r.ctx, ty)?;
    let dims: Vec<i64> = shape.iter().map(|d| *d as i64).collect();
    Ok(move |t: &Tensor| {
        let s: Vec<i64> = t.shape.iter().map(|d| *d as i64).collect();
        broadcast_index(&s, &dims)
            .ok_or_else(|| format!("shape {:?} does not broadcast to {:?}", t.shape, shape))
    })
}

/// `where`: the condition, true and false values broadcast to the result shape.
pub(super) fn select_where(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let (c, x, y) = (r.operand(0)?, r.operand(1)?, r.operand(2)?);
    let ty = r.result_type(0)?;
    let index = broadcast_to_result(r, ty)?;
    let (ic, ix, iy) = (index(c)?, index(x)?, index(y)?);
    let data = ic
        .iter()
        .zip(ix.iter().zip(&iy))
        .map(|(k, (i, j))| {
            if c.data[*k] == Scalar::Int(0) {
                y.data[*j]
            } else {
                x.data[*i]
            }
        })
        .collect();
    Ok(vec![Tensor::new(r.ctx, ty, data)?])
}

/// `reshape`, `flatten`, `squeeze`, `collapse_shape`, ...: the same elements in the
/// result's shape.
pub(super) fn reshape(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let x = r.operand(0)?;
    Ok(vec![Tensor::new(r.ctx, r.result_type(0)?, x.data.clone())?])
}

/// `transpose` (`perm`, default reversed; `tensor.transpose`'s `permutation`).
pub(super) fn transpose(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let x = r.operand(0)?;
    let rank = x.shape.len();
    let attrs = Attrs::of_op(r.ctx, r.op);
    let perm: Vec<usize> = match attrs.ints("perm")?.or(attrs.ints("permutation")?) {
        Some(p) => p
            .iter()
            .map(|d| usize::try_from(*d).ok().filter(|d| *d < rank))
            .collect::<Option<_>>()
            .ok_or("permutation out of range")?,
        None => (0..rank).rev().collect(),
    };
    if perm.len() != rank {
        return Err(format!(
            "permutation of {} dimensions for rank {rank}",
            perm.len()
        ));
    }
    let data = transpose_indices(&x.shape, &perm)
        .into_iter()
        .map(|at| x.data[at])
        .collect();
    Ok(vec![Tensor::new(r.ctx, r.result_type(0)?, data)?])
}
