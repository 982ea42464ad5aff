//! Rules for graph ops that move or combine elements along axes: reductions, slices,
//! pads and layer normalization. Output shapes are the result types' (inferred and
//! verified before running).

use acc_dialects::hooks::attr_read::Attrs;
use acc_dialects::ops::graph;
use acc_ir::elements::{ElementKind, Scalar};

use super::{RuleInput, graph_kind, graph_only};
use crate::value::{Tensor, row_major};

fn f(v: Scalar) -> f64 {
    match v {
        Scalar::Int(i) => i as f64,
        Scalar::Float(x) => x,
    }
}

fn attrs<'a>(r: &'a RuleInput<'_>) -> Attrs<'a> {
    Attrs::of_op(r.ctx, r.op)
}

/// Axis `a` of a rank-`rank` tensor, negative ones counting from the end.
fn axis(a: i64, rank: usize) -> Result<usize, String> {
    let n = if a < 0 { a + rank as i64 } else { a };
    usize::try_from(n)
        .ok()
        .filter(|n| *n < rank)
        .ok_or_else(|| format!("axis {a} out of range for rank {rank}"))
}

/// The enum case of attribute `name` (of enum `enum_name`), if present.
pub(super) fn case(r: &RuleInput<'_>, name: &str, enum_name: &str) -> Option<String> {
    let a = attrs(r).get(name)?;
    let def = r.ctx.enum_attr(enum_name)?;
    let cases = def.decode(r.ctx, enum_name, a)?;
    Some(def.cases[*cases.first()?].clone())
}

/// `reduce_sum`, `reduce_mean`, `reduce_max`, `reduce_min`, `reduce_prod` over `axes`
/// (all when absent).
pub(super) fn reduce(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    graph_only(r)?;
    let x = r.operand(0)?;
    let rank = x.shape.len();
    let axes: Vec<usize> = match attrs(r).ints("axes")? {
        Some(a) => a.iter().map(|v| axis(*v, rank)).collect::<Result<_, _>>()?,
        None => (0..rank).collect(),
    };
    // The output index of each input element: reduced axes dropped.
    let kept: Vec<usize> = (0..rank).filter(|d| !axes.contains(d)).collect();
    let kept_shape: Vec<usize> = kept.iter().map(|d| x.shape[*d]).collect();
    let kept_strides = row_major(&kept_shape);
    let in_strides = row_major(&x.shape);
    let n_out: usize = kept_shape.iter().product();
    let count = (x.data.len() / n_out.max(1)).max(1);
    let kind = graph_kind(r.name);
    let (init, combine): (f64, fn(f64, f64) -> f64) = match kind {
        Some(graph::Op::ReduceSum | graph::Op::ReduceMean) => (0.0, |a, b| a + b),
        Some(graph::Op::ReduceProd) => (1.0, |a, b| a * b),
        Some(graph::Op::ReduceMax) => (f64::NEG_INFINITY, f64::max),
        Some(graph::Op::ReduceMin) => (f64::INFINITY, f64::min),
        _ => return Err(format!("no reduction named '{}'", r.name)),
    };
    let mut acc = vec![init; n_out];
    for (i, v) in x.data.iter().enumerate() {
        let o: usize = kept
            .iter()
            .zip(&kept_strides)
            .map(|(d, s)| (i / in_strides[*d]) % x.shape[*d] * s)
            .sum();
        acc[o] = combine(acc[o], f(*v));
    }
    if kind == Some(graph::Op::ReduceMean) {
        acc.iter_mut().for_each(|a| *a /= count as f64);
    }
    let data = acc
        .into_iter()
        .map(|a| match x.kind {
            ElementKind::Int(..) => Scalar::Int(a as i128),
            ElementKind::Float(_) => Scalar::Float(a),
        })
        .collect();
    Ok(vec![Tensor::new(r.ctx, r.result_type(0)?, data)?])
}

/// Gathers the result of shape `out` from `x`: `source(axis, i)` is the input index
/// along `axis` for output index `i`, or `None` for a padded position (filled with
/// `fill`).
fn gather(
    x: &Tensor,
    out: &[usize],
    fill: Scalar,
    source: impl Fn(usize, usize) -> Option<usize>,
) -> Vec<Scalar> {
    let in_strides = row_major(&x.shape);
    let n: usize = out.iter().product();
    let mut data = Vec::with_capacity(n);
    let mut counter = vec![0usize; out.len()];
    for _ in 0..n {
        let mut at = Some(0usize);
        for (d, c) in counter.iter().enumerate() {
            at = at.and_then(|a| source(d, *c).map(|s| a + s * in_strides[d]));
        }
        data.push(at.map_or(fill, |a| x.data[a]));
        for d in (0..out.len()).rev() {
            counter[d] += 1;
            if counter[d] < out[d] {
                break;
            }
            counter[d] = 0;
        }
    }
    data
}

/// `slice`: ONNX Slice with constant starts, ends, axes and steps (clamped).
pub(super) fn slice(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    graph_only(r)?;
    let x = r.operand(0)?;
    let rank = x.shape.len();
    let a = attrs(r);
    let starts = a.ints("starts")?.ok_or("requires 'starts'")?;
    let axes: Vec<usize> = match a.ints("axes")? {
        Some(v) => v.iter().map(|d| axis(*d, rank)).collect::<Result<_, _>>()?,
        None => (0..starts.len()).collect(),
    };
    let steps = a.ints("steps")?.unwrap_or_else(|| vec![1; starts.len()]);
    let mut first = vec![0i64; rank];
    let mut step = vec![1i64; rank];
    for ((ax, s), st) in axes.iter().zip(&starts).zip(&steps) {
        let dim = x.shape[*ax] as i64;
        let s = if *s < 0 { s + dim } else { *s };
        first[*ax] = if *st > 0 {
            s.clamp(0, dim)
        } else {
            s.clamp(0, (dim - 1).max(0))
        };
        step[*ax] = *st;
    }
    let (out, _) = Tensor::layout(r.ctx, r.result_type(0)?)?;
    let data = gather(x, &out, Scalar::Int(0), |d, i| {
        usize::try_from(first[d] + i as i64 * step[d]).ok()
    });
    Ok(vec![Tensor::new(r.ctx, r.result_type(0)?, data)?])
}

/// `pad`: constant, reflect or edge padding; negative amounts crop.
pub(super) fn pad(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    graph_only(r)?;
    let x = r.operand(0)?;
    let rank = x.shape.len();
    let pads = attrs(r).ints("pads")?.ok_or("requires 'pads'")?;
    if pads.len() != 2 * rank {
        return Err(format!("'pads' must have {} values", 2 * rank));
    }
    let mode = case(r, "mode", graph::enums::PAD_MODE).unwrap_or_else(|| "constant".into());
    let value = attrs(r)
        .get("value")
        .and_then(|v| acc_ir::elements::scalar(r.ctx, v))
        .map_or(0.0, |(_, v)| f(v));
    let fill = match x.kind {
        ElementKind::Int(..) => Scalar::Int(value as i128),
        ElementKind::Float(_) => Scalar::Float(value),
    };
    let (out, _) = Tensor::layout(r.ctx, r.result_type(0)?)?;
    if mode != "constant" && (0..rank).any(|d| x.shape[d] == 0 && out[d] > 0) {
        return Err(format!("{mode} padding cannot extend an empty dimension"));
    }
    let data = gather(x, &out, fill, |d, i| {
        let dim = x.shape[d] as i64;
        let p = i as i64 - pads[d];
        if (0..dim).contains(&p) {
            return Some(p as usize);
        }
        match mode.as_str() {
            "edge" => Some(p.clamp(0, dim - 1) as usize),
            "reflect" if dim > 1 => {
                let period = 2 * (dim - 1);
                let m = p.rem_euclid(period);
                Some((if m < dim { m } else { period - m }) as usize)
            }
            "reflect" => Some(0),
            "wrap" => Some(p.rem_euclid(dim) as usize),
            _ => None,
        }
    });
    Ok(vec![Tensor::new(r.ctx, r.result_type(0)?, data)?])
}

/// `layer_norm`: normalized over the dimensions from `axis` on, then scaled and shifted
/// by `scale` (and `bias`) broadcast over those dimensions.
pub(super) fn layer_norm(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    graph_only(r)?;
    let x = r.operand(0)?;
    let scale = r.operand(1)?;
    let bias = r.operands.get(2);
    let a = axis(attrs(r).int("axis")?.unwrap_or(-1), x.shape.len())?;
    let eps = attrs(r)
        .get("epsilon")
        .and_then(|v| acc_ir::elements::scalar(r.ctx, v))
        .map_or(1e-5, |(_, v)| f(v));
    let inner: usize = x.shape[a..].iter().product();
    let param = |t: &Tensor, i: usize| {
        // Parameters shaped like the normalized dimensions (or a suffix of them, or
        // one element) repeat along them.
        let n = t.data.len().max(1);
        f(t.data[i % n])
    };
    let mut data = Vec::with_capacity(x.data.len());
    for row in x.data.chunks(inner.max(1)) {
        let mean = row.iter().map(|v| f(*v)).sum::<f64>() / row.len() as f64;
        let var = row.iter().map(|v| (f(*v) - mean).powi(2)).sum::<f64>() / row.len() as f64;
        for (i, v) in row.iter().enumerate() {
            let y = (f(*v) - mean) / (var + eps).sqrt() * param(scale, i)
                + bias.map_or(0.0, |b| param(b, i));
            data.push(Scalar::Float(y));
        }
    }
    Ok(vec![Tensor::new(r.ctx, r.result_type(0)?, data)?])
}

/// `topk` and `sort`: along `axis`, the elements ordered (largest first for topk with
/// `largest`, and for sort with `descending`), equal ones in index order, with their
/// indices; topk keeps the first `k`.
pub(super) fn topk_or_sort(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    graph_only(r)?;
    let x = r.operand(0)?;
    let a = attrs(r);
    let ax = axis(a.int("axis")?.unwrap_or(-1), x.shape.len())?;
    let (descending, keep) = if graph_kind(r.name) == Some(graph::Op::Topk) {
        let k = usize::try_from(a.req_int("k")?).map_err(|_| "k must not be negative")?;
        (a.get("largest").is_none() || a.flag("largest"), k)
    } else {
        (a.flag("descending"), x.shape[ax])
    };
    let (values, indices) = sorted_along(x, ax, descending, keep)?;
    Ok(vec![
        Tensor::new(r.ctx, r.result_type(0)?, values)?,
        Tensor::new(r.ctx, r.result_type(1)?, indices)?,
    ])
}

/// `tensor.sort`: the input sorted along `dimension` into the two inits' types.
pub(super) fn tensor_sort(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let x = r.operand(0)?;
    let a = attrs(r);
    let dim = a.req_int("dimension")?;
    let ax = usize::try_from(dim)
        .ok()
        .filter(|d| *d < x.shape.len())
        .ok_or_else(|| format!("dimension {dim} is out of range"))?;
    let (values, indices) = sorted_along(x, ax, a.flag("descending"), x.shape[ax])?;
    Ok(vec![
        Tensor::new(r.ctx, r.result_type(0)?, values)?,
        Tensor::new(r.ctx, r.result_type(1)?, indices)?,
    ])
}

/// The order `sort` and `topk` use: numbers by value, NaN above every number (numpy's
/// order), NaNs equal to each other.
fn sort_order(a: Scalar, b: Scalar) -> std::cmp::Ordering {
    use std::cmp::Ordering::{Equal, Greater, Less};
    if let (Scalar::Int(x), Scalar::Int(y)) = (a, b) {
        return x.cmp(&y);
    }
    let (x, y) = (f(a), f(b));
    match (x.is_nan(), y.is_nan()) {
        (true, true) => Equal,
        (true, false) => Greater,
        (false, true) => Less,
        _ => x.partial_cmp(&y).unwrap_or(Equal),
    }
}

/// The first `keep` elements of each line of `x` along `ax` in sorted order (stable:
/// equal elements keep their index order), and their positions on the line.
fn sorted_along(
    x: &Tensor,
    ax: usize,
    descending: bool,
    keep: usize,
) -> Result<(Vec<Scalar>, Vec<Scalar>), String> {
    let len = x.shape[ax];
    if keep > len {
        return Err(format!("k = {keep} is larger than the axis ({len})"));
    }
    let inner: usize = x.shape[ax + 1..].iter().product();
    let outer: usize = x.shape[..ax].iter().product();
    let mut values = vec![Scalar::Int(0); outer * keep * inner];
    let mut indices = vec![Scalar::Int(0); outer * keep * inner];
    let mut order: Vec<usize> = Vec::with_capacity(len);
    for o in 0..outer {
        for i in 0..inner {
            let at = |t: usize| (o * len + t) * inner + i;
            order.clear();
            order.extend(0..len);
            // Stable: equal values keep their index order, as ONNX requires.
            order.sort_by(|&p, &q| {
                let c = sort_order(x.data[at(p)], x.data[at(q)]);
                if descending { c.reverse() } else { c }
            });
            for (t, &src) in order.iter().take(keep).enumerate() {
                let dst = (o * keep + t) * inner + i;
                values[dst] = x.data[at(src)];
                indices[dst] = Scalar::Int(src as i128);
            }
        }
    }
    Ok((values, indices))
}
