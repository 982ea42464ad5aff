//! Rules for the `graph` ops that read elements at computed positions: `gather`,
//! `gather_elements`, `gather_nd`, `arg_max`/`arg_min` and `cumsum`. Index
//! normalization (negative from the end, then clamped) is
//! `acc_dialects::hooks::shape::gather_index`, the one the lowerings mirror.

use acc_dialects::hooks::attr_read::{Attrs, norm_axis};
use acc_dialects::hooks::shape::{gather_index, gather_nd_shape, gather_shape};
use acc_dialects::ops::graph;
use acc_ir::elements::Scalar;

use super::indexing::{all_indices, flat};
use super::{RuleInput, graph_kind};
use crate::value::Tensor;

fn attrs<'a>(r: &'a RuleInput<'_>) -> Attrs<'a> {
    Attrs::of_op(r.ctx, r.op)
}

/// The integer value of an element of an index tensor.
fn int(v: Scalar) -> Result<i64, String> {
    match v {
        Scalar::Int(i) => i64::try_from(i).map_err(|_| format!("index {i} is out of range")),
        Scalar::Float(_) => Err("indices must be integers".into()),
    }
}

/// `indices[at]` as a position along a dimension of `dim`.
fn position(indices: &Tensor, at: usize, dim: usize) -> Result<usize, String> {
    Ok(gather_index(int(indices.data[at])?, dim as i64) as usize)
}

fn shape_i64(s: &[usize]) -> Vec<i64> {
    s.iter().map(|d| *d as i64).collect()
}

/// `gather`: element `[a..., i..., b...]` is `input[a..., indices[i...], b...]`.
pub(super) fn gather(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let (x, idx) = (r.operand(0)?, r.operand(1)?);
    let axis = norm_axis(attrs(r).int("axis")?.unwrap_or(0), x.shape.len(), "axis")?;
    if x.shape[axis] == 0 {
        return Err("gathers along an empty axis".into());
    }
    let out_shape = gather_shape(&shape_i64(&x.shape), &shape_i64(&idx.shape), axis);
    let out_shape: Vec<usize> = out_shape.iter().map(|d| *d as usize).collect();
    let q = idx.shape.len();
    let mut data = Vec::with_capacity(out_shape.iter().product());
    for at in all_indices(&out_shape) {
        let i = flat(&idx.shape, &at[axis..axis + q]);
        let mut src = at[..axis].to_vec();
        src.push(position(idx, i, x.shape[axis])?);
        src.extend(&at[axis + q..]);
        data.push(x.data[flat(&x.shape, &src)]);
    }
    Ok(vec![Tensor::new(r.ctx, r.result_type(0)?, data)?])
}

/// `gather_elements`: element `i` is `input[i with its axis coordinate indices[i]]`.
pub(super) fn gather_elements(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let (x, idx) = (r.operand(0)?, r.operand(1)?);
    let axis = norm_axis(attrs(r).int("axis")?.unwrap_or(0), x.shape.len(), "axis")?;
    if idx.shape.len() != x.shape.len() || x.shape[axis] == 0 {
        return Err("indices of another rank, or an empty axis".into());
    }
    let mut data = Vec::with_capacity(idx.data.len());
    for (k, at) in all_indices(&idx.shape).into_iter().enumerate() {
        let mut src = at;
        src[axis] = position(idx, k, x.shape[axis])?;
        if src.iter().zip(&x.shape).any(|(i, n)| i >= n) {
            return Err(format!("indices reach {src:?}, outside {:?}", x.shape));
        }
        data.push(x.data[flat(&x.shape, &src)]);
    }
    Ok(vec![Tensor::new(r.ctx, r.result_type(0)?, data)?])
}

/// `gather_nd`: element `[i..., c...]` is `input[batch..., indices[i..., :]..., c...]`.
pub(super) fn gather_nd(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let (x, idx) = (r.operand(0)?, r.operand(1)?);
    let b = attrs(r).int("batch_dims")?.unwrap_or(0);
    let out_shape = gather_nd_shape(&shape_i64(&x.shape), &shape_i64(&idx.shape), b)?;
    let out_shape: Vec<usize> = out_shape.iter().map(|d| *d as usize).collect();
    let (b, q) = (b as usize, idx.shape.len());
    let k = idx.shape[q - 1];
    let mut data = Vec::with_capacity(out_shape.iter().product());
    for at in all_indices(&out_shape) {
        let mut src = at[..b].to_vec();
        let mut tuple = at[..q - 1].to_vec();
        tuple.push(0);
        for t in 0..k {
            tuple[q - 1] = t;
            let dim = x.shape[b + t];
            if dim == 0 {
                return Err("gathers along an empty dimension".into());
            }
            src.push(position(idx, flat(&idx.shape, &tuple), dim)?);
        }
        src.extend(&at[q - 1..]);
        data.push(x.data[flat(&x.shape, &src)]);
    }
    Ok(vec![Tensor::new(r.ctx, r.result_type(0)?, data)?])
}

/// Whether `candidate` replaces `best` on a line: strictly greater (`max`) or
/// smaller, or equal when the last position is wanted; NaN beats every number, and
/// a later NaN a NaN only when the last position is wanted.
fn arg_better(candidate: Scalar, best: Scalar, max: bool, last: bool) -> bool {
    let (c, b) = match (candidate, best) {
        (Scalar::Int(c), Scalar::Int(b)) => {
            return if max {
                c > b || (last && c == b)
            } else {
                c < b || (last && c == b)
            };
        }
        (c, b) => (to_f64(c), to_f64(b)),
    };
    match (c.is_nan(), b.is_nan()) {
        (true, true) => last,
        (true, false) => true,
        (false, true) => false,
        _ => {
            if max {
                c > b || (last && c == b)
            } else {
                c < b || (last && c == b)
            }
        }
    }
}

fn to_f64(v: Scalar) -> f64 {
    match v {
        Scalar::Int(i) => i as f64,
        Scalar::Float(f) => f,
    }
}

/// `arg_max` and `arg_min`: per line along the axis, the position of the best element.
pub(super) fn arg_reduce(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let x = r.operand(0)?;
    let a = attrs(r);
    let axis = norm_axis(a.int("axis")?.unwrap_or(0), x.shape.len(), "axis")?;
    let max = match graph_kind(r.name) {
        Some(graph::Op::ArgMax) => true,
        Some(graph::Op::ArgMin) => false,
        _ => return Err(format!("no arg reduction '{}'", r.name)),
    };
    let last = a.flag("select_last_index");
    let len = x.shape[axis];
    if len == 0 {
        return Err("an arg reduction over an empty axis".into());
    }
    let mut lines = x.shape.clone();
    lines[axis] = 1;
    let mut data = Vec::with_capacity(lines.iter().product());
    for at in all_indices(&lines) {
        let mut src = at;
        let mut best = (x.data[flat(&x.shape, &src)], 0usize);
        for j in 1..len {
            src[axis] = j;
            let v = x.data[flat(&x.shape, &src)];
            if arg_better(v, best.0, max, last) {
                best = (v, j);
            }
        }
        data.push(Scalar::Int(best.1 as i128));
    }
    Ok(vec![Tensor::new(r.ctx, r.result_type(0)?, data)?])
}

/// `cumsum`: running sums along the axis, each added to zero one element at a time
/// and rounded (or wrapped) to the element type after each addition.
pub(super) fn cumsum(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let x = r.operand(0)?;
    let a = attrs(r);
    let axis = norm_axis(a.req_int("axis")?, x.shape.len(), "axis")?;
    let (exclusive, reverse) = (a.flag("exclusive"), a.flag("reverse"));
    let len = x.shape[axis];
    let zero = match x.data.first() {
        Some(Scalar::Int(_)) | None => Scalar::Int(0),
        Some(Scalar::Float(_)) => Scalar::Float(0.0),
    };
    let mut data = vec![zero; x.data.len()];
    let mut lines = x.shape.clone();
    lines[axis] = 1;
    for at in all_indices(&lines) {
        let mut src = at;
        let mut sum = zero;
        let order: Box<dyn Iterator<Item = usize>> = if reverse {
            Box::new((0..len).rev())
        } else {
            Box::new(0..len)
        };
        for j in order {
            src[axis] = j;
            let p = flat(&x.shape, &src);
            let next = x.kind.normalize(match (sum, x.data[p]) {
                (Scalar::Int(s), Scalar::Int(v)) => Scalar::Int(s.wrapping_add(v)),
                (s, v) => Scalar::Float(to_f64(s) + to_f64(v)),
            });
            data[p] = if exclusive { sum } else { next };
            sum = next;
        }
    }
    Ok(vec![Tensor::new(r.ctx, r.result_type(0)?, data)?])
}
