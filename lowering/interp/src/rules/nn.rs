//! Rules for the network ops of `graph`: convolution, matrix products, pooling,
//! normalization, softmax and concatenation, computed in `f64` (integers in `i128`) and
//! rounded once to the result type. Output shapes are the result types' (inferred and
//! verified before running); the index arithmetic follows ONNX.

use acc_dialects::hooks::attr_read::Attrs;
use acc_dialects::hooks::graph_fold::broadcast_index;
use acc_ir::elements::{ElementKind, Scalar};

use super::{RuleInput, graph_only};
use crate::value::Tensor;

fn f(v: Scalar) -> f64 {
    match v {
        Scalar::Int(i) => i as f64,
        Scalar::Float(x) => x,
    }
}

/// A number of the tensor's kind from an `f64` (integers round toward zero).
fn back(kind: ElementKind, x: f64) -> Scalar {
    match kind {
        ElementKind::Int(..) => Scalar::Int(x as i128),
        ElementKind::Float(_) => Scalar::Float(x),
    }
}

fn attrs<'a>(r: &'a RuleInput<'_>) -> Attrs<'a> {
    Attrs::of_op(r.ctx, r.op)
}

fn rank4(t: &Tensor, what: &str) -> Result<[usize; 4], String> {
    <[usize; 4]>::try_from(t.shape.as_slice()).map_err(|_| format!("{what} must have rank 4"))
}

/// Attribute `name` as `n` non-negative sizes (its default when absent).
fn sizes(r: &RuleInput<'_>, name: &str, n: usize, default: i64) -> Result<Vec<usize>, String> {
    attrs(r)
        .ints_n(name, n, default)?
        .iter()
        .map(|v| usize::try_from(*v).map_err(|_| format!("'{name}' must not be negative")))
        .collect()
}

fn out(r: &RuleInput<'_>, data: Vec<Scalar>) -> Result<Vec<Tensor>, String> {
    Ok(vec![Tensor::new(r.ctx, r.result_type(0)?, data)?])
}

/// The result's shape.
fn out_shape(r: &RuleInput<'_>) -> Result<Vec<usize>, String> {
    Ok(Tensor::layout(r.ctx, r.result_type(0)?)?.0)
}

/// `conv2d`: NCHW input, OIHW weights, groups, strides, dilations, pads
/// [top, left, bottom, right], optional bias.
pub(super) fn conv2d(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    graph_only(r)?;
    let data = conv2d_values(r, r.operand(0)?, r.operand(1)?, r.operands.get(2))?;
    out(r, data)
}

/// The elements of `conv2d` (attributes and result shape from `r`'s op), not yet
/// rounded to the result type; exact for integer operands of up to 16 bits.
pub(super) fn conv2d_values(
    r: &RuleInput<'_>,
    x: &Tensor,
    w: &Tensor,
    bias: Option<&Tensor>,
) -> Result<Vec<Scalar>, String> {
    let [_, _, oh, ow] =
        <[usize; 4]>::try_from(out_shape(r)?.as_slice()).map_err(|_| "result must have rank 4")?;
    conv2d_values_sized(r, x, w, bias, [oh, ow])
}

/// [`conv2d_values`] for an output of `oh x ow` pixels (NCHW, OIHW).
pub(super) fn conv2d_values_sized(
    r: &RuleInput<'_>,
    x: &Tensor,
    w: &Tensor,
    bias: Option<&Tensor>,
    [oh, ow]: [usize; 2],
) -> Result<Vec<Scalar>, String> {
    let [n, c, h, wd] = rank4(x, "the input")?;
    let [m, cg, kh, kw] = rank4(w, "the weight")?;
    let groups =
        usize::try_from(attrs(r).req_int("groups").unwrap_or(1)).map_err(|_| "bad groups")?;
    if groups == 0 || c != cg * groups || m % groups != 0 {
        return Err(format!(
            "{c} input channels, {cg} per group and {groups} groups do not agree"
        ));
    }
    let (s, d, p) = (
        sizes(r, "strides", 2, 1)?,
        sizes(r, "dilations", 2, 1)?,
        sizes(r, "pads", 4, 0)?,
    );
    let mg = m / groups;
    let mut data = Vec::with_capacity(n * m * oh * ow);
    for b in 0..n {
        for oc in 0..m {
            let g = oc / mg;
            let base = bias.map_or(0.0, |t| f(t.data[oc]));
            for y in 0..oh {
                for xo in 0..ow {
                    let mut acc = base;
                    for ic in 0..cg {
                        let ch = g * cg + ic;
                        for i in 0..kh {
                            let iy = (y * s[0] + i * d[0]) as isize - p[0] as isize;
                            if iy < 0 || iy as usize >= h {
                                continue;
                            }
                            for j in 0..kw {
                                let ix = (xo * s[1] + j * d[1]) as isize - p[1] as isize;
                                if ix < 0 || ix as usize >= wd {
                                    continue;
                                }
                                let xv =
                                    x.data[((b * c + ch) * h + iy as usize) * wd + ix as usize];
                                let wv = w.data[((oc * cg + ic) * kh + i) * kw + j];
                                acc += f(xv) * f(wv);
                            }
                        }
                    }
                    data.push(Scalar::Float(acc));
                }
            }
        }
    }
    Ok(data)
}

/// `matmul`: numpy.matmul (batch dimensions broadcast; 1-D operands are vectors).
pub(super) fn matmul(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    graph_only(r)?;
    let data = matmul_values(r.operand(0)?, r.operand(1)?)?;
    out(r, data)
}

/// The elements of `a` x `b` (numpy.matmul), integers exactly, floats in `f64`.
pub(super) fn matmul_values(a: &Tensor, b: &Tensor) -> Result<Vec<Scalar>, String> {
    let (mut sa, mut sb) = (a.shape.clone(), b.shape.clone());
    if sa.len() == 1 {
        sa.insert(0, 1);
    }
    if sb.len() == 1 {
        sb.push(1);
    }
    if sa.len() < 2 || sb.len() < 2 {
        return Err("operands must have rank 1 or more".into());
    }
    let (m, k) = (sa[sa.len() - 2], sa[sa.len() - 1]);
    let (k2, n) = (sb[sb.len() - 2], sb[sb.len() - 1]);
    if k != k2 {
        return Err(format!("inner dimensions differ: {k} and {k2}"));
    }
    let (ba, bb) = (&sa[..sa.len() - 2], &sb[..sb.len() - 2]);
    let rank = ba.len().max(bb.len());
    let mut batch = vec![1usize; rank];
    for (i, slot) in batch.iter_mut().enumerate() {
        let da = ba.len().checked_sub(rank - i).map_or(1, |j| ba[j]);
        let db = bb.len().checked_sub(rank - i).map_or(1, |j| bb[j]);
        *slot = if da == 1 { db } else { da };
        if da != db && da != 1 && db != 1 {
            return Err(format!("batch dimensions {da} and {db} do not broadcast"));
        }
    }
    let dims = |s: &[usize]| s.iter().map(|d| *d as i64).collect::<Vec<i64>>();
    let bi = dims(&batch);
    let ia = broadcast_index(&dims(ba), &bi).ok_or("batch dimensions do not broadcast")?;
    let ib = broadcast_index(&dims(bb), &bi).ok_or("batch dimensions do not broadcast")?;
    let int = matches!(a.kind, ElementKind::Int(..));
    let mut data = Vec::with_capacity(ia.len() * m * n);
    for (pa, pb) in ia.iter().zip(&ib) {
        for i in 0..m {
            for j in 0..n {
                let (ai, bj) = (pa * m * k + i * k, pb * k * n + j);
                if int {
                    let mut acc: i128 = 0;
                    for t in 0..k {
                        if let (Scalar::Int(x), Scalar::Int(y)) =
                            (a.data[ai + t], b.data[bj + t * n])
                        {
                            acc = acc.wrapping_add(x.wrapping_mul(y));
                        }
                    }
                    data.push(Scalar::Int(acc));
                } else {
                    let acc: f64 = (0..k)
                        .map(|t| f(a.data[ai + t]) * f(b.data[bj + t * n]))
                        .sum();
                    data.push(Scalar::Float(acc));
                }
            }
        }
    }
    Ok(data)
}

/// `gemm`: alpha * A' * B' + beta * C, A' and B' optionally transposed, C broadcast.
pub(super) fn gemm(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    graph_only(r)?;
    let (a, b) = (r.operand(0)?, r.operand(1)?);
    let at = attrs(r);
    let alpha = at
        .get("alpha")
        .and_then(|v| acc_ir::elements::scalar(r.ctx, v))
        .map_or(1.0, |(_, v)| f(v));
    let beta = at
        .get("beta")
        .and_then(|v| acc_ir::elements::scalar(r.ctx, v))
        .map_or(1.0, |(_, v)| f(v));
    let (ta, tb) = (at.flag("transA"), at.flag("transB"));
    let (m, k) = if ta {
        (a.shape[1], a.shape[0])
    } else {
        (a.shape[0], a.shape[1])
    };
    let n = if tb { b.shape[0] } else { b.shape[1] };
    let get_a = |i: usize, t: usize| {
        if ta {
            a.data[t * m + i]
        } else {
            a.data[i * k + t]
        }
    };
    let get_b = |t: usize, j: usize| {
        if tb {
            b.data[j * k + t]
        } else {
            b.data[t * n + j]
        }
    };
    let c_index = match r.operands.get(2) {
        Some(c) => {
            let s: Vec<i64> = c.shape.iter().map(|d| *d as i64).collect();
            Some(
                broadcast_index(&s, &[m as i64, n as i64])
                    .ok_or("C does not broadcast to M x N")?,
            )
        }
        None => None,
    };
    let mut data = Vec::with_capacity(m * n);
    for i in 0..m {
        for j in 0..n {
            let mut acc: f64 = (0..k).map(|t| f(get_a(i, t)) * f(get_b(t, j))).sum::<f64>() * alpha;
            if let (Some(c), Some(idx)) = (r.operands.get(2), &c_index) {
                acc += beta * f(c.data[idx[i * n + j]]);
            }
            data.push(back(a.kind, acc));
        }
    }
    out(r, data)
}

/// `batch_norm` (inference): per channel (dimension 1).
pub(super) fn batch_norm(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    graph_only(r)?;
    let x = r.operand(0)?;
    let [scale, bias, mean, var] = [1, 2, 3, 4].map(|i| r.operands.get(i));
    let (Some(scale), Some(bias), Some(mean), Some(var)) = (scale, bias, mean, var) else {
        return Err("expects five operands".into());
    };
    let eps = attrs(r)
        .get("epsilon")
        .and_then(|v| acc_ir::elements::scalar(r.ctx, v))
        .map_or(1e-5, |(_, v)| f(v));
    let c = *x
        .shape
        .get(1)
        .ok_or("the input must have a channel dimension")?;
    let inner: usize = x.shape[2..].iter().product();
    let data = x
        .data
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let ch = (i / inner) % c;
            let norm = (f(*v) - f(mean.data[ch])) / (f(var.data[ch]) + eps).sqrt();
            Scalar::Float(norm * f(scale.data[ch]) + f(bias.data[ch]))
        })
        .collect();
    out(r, data)
}

/// Splits a shape around `axis`: (outer, axis size, inner).
fn around(shape: &[usize], axis: i64) -> Result<(usize, usize, usize), String> {
    let rank = shape.len() as i64;
    let a = if axis < 0 { axis + rank } else { axis };
    if a < 0 || a >= rank.max(1) {
        return Err(format!("axis {axis} out of range for rank {rank}"));
    }
    let a = a as usize;
    let outer: usize = shape[..a].iter().product();
    let inner: usize = shape.get(a + 1..).map_or(1, |s| s.iter().product());
    Ok((outer, *shape.get(a).unwrap_or(&1), inner))
}

/// `softmax` along `axis` (default the last), computed stably.
pub(super) fn softmax(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    graph_only(r)?;
    let x = r.operand(0)?;
    let axis = attrs(r).int("axis")?.unwrap_or(-1);
    let (outer, len, inner) = around(&x.shape, axis)?;
    let mut data = vec![Scalar::Float(0.0); x.data.len()];
    for o in 0..outer {
        for i in 0..inner {
            let at = |t: usize| (o * len + t) * inner + i;
            let max = (0..len)
                .map(|t| f(x.data[at(t)]))
                .fold(f64::NEG_INFINITY, f64::max);
            let sum: f64 = (0..len).map(|t| (f(x.data[at(t)]) - max).exp()).sum();
            for t in 0..len {
                data[at(t)] = Scalar::Float((f(x.data[at(t)]) - max).exp() / sum);
            }
        }
    }
    out(r, data)
}

/// `concat` along `axis`.
pub(super) fn concat(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    graph_only(r)?;
    let axis = attrs(r).req_int("axis")?;
    let shape = out_shape(r)?;
    let (outer, _, inner) = around(&shape, axis)?;
    let mut data = Vec::new();
    for o in 0..outer {
        for t in r.operands {
            let (_, len, _) = around(&t.shape, axis)?;
            let chunk = len * inner;
            data.extend_from_slice(
                t.data
                    .get(o * chunk..(o + 1) * chunk)
                    .ok_or("operand shapes do not agree")?,
            );
        }
    }
    out(r, data)
}

/// The windows of a pool over an NCHW input, in the result's row-major order.
pub(super) struct PoolWindows {
    /// N * C.
    planes: usize,
    h: usize,
    w: usize,
    kernel: Vec<usize>,
    strides: Vec<usize>,
    dilations: Vec<usize>,
    /// [top, left, bottom, right].
    pads: Vec<usize>,
    oh: usize,
    ow: usize,
}

impl PoolWindows {
    /// The windows of the op of `r` (`global`: one window of the whole plane).
    pub(super) fn of(r: &RuleInput<'_>, global: bool) -> Result<PoolWindows, String> {
        let x = r.operand(0)?;
        let [n, c, h, w] = rank4(x, "the input")?;
        let (kernel, strides, dilations, pads) = if global {
            (vec![h, w], vec![1, 1], vec![1, 1], vec![0; 4])
        } else {
            (
                sizes(r, "kernel_shape", 2, 1)?,
                sizes(r, "strides", 2, 1)?,
                sizes(r, "dilations", 2, 1)?,
                sizes(r, "pads", 4, 0)?,
            )
        };
        let [_, _, oh, ow] = <[usize; 4]>::try_from(out_shape(r)?.as_slice())
            .map_err(|_| "result must have rank 4")?;
        Ok(PoolWindows {
            planes: n * c,
            h,
            w,
            kernel,
            strides,
            dilations,
            pads,
            oh,
            ow,
        })
    }

    /// Calls `visit` for each window with the flat input indices of its elements
    /// inside the input and the number of its positions in the padding (but not
    /// beyond it, as `ceil_mode` allows).
    pub(super) fn for_each(&self, mut visit: impl FnMut(&[usize], usize)) {
        let (k, s, d, p) = (&self.kernel, &self.strides, &self.dilations, &self.pads);
        let (h, w) = (self.h, self.w);
        let mut inside = Vec::with_capacity(k[0] * k[1]);
        for plane in 0..self.planes {
            for y in 0..self.oh {
                for xo in 0..self.ow {
                    inside.clear();
                    let mut padded = 0;
                    for i in 0..k[0] {
                        for j in 0..k[1] {
                            let iy = (y * s[0] + i * d[0]) as isize - p[0] as isize;
                            let ix = (xo * s[1] + j * d[1]) as isize - p[1] as isize;
                            let in_pads = iy < (h + p[2]) as isize && ix < (w + p[3]) as isize;
                            if iy < 0 || ix < 0 || iy as usize >= h || ix as usize >= w {
                                padded += usize::from(in_pads);
                                continue;
                            }
                            inside.push((plane * h + iy as usize) * w + ix as usize);
                        }
                    }
                    visit(&inside, padded);
                }
            }
        }
    }
}

/// The average of each window of `values` (f64, the sum divided by the count of
/// elements inside the input, plus the padded positions when `include_pad`).
pub(super) fn average_values(windows: &PoolWindows, values: &[f64], include_pad: bool) -> Vec<f64> {
    let mut data = Vec::with_capacity(windows.planes * windows.oh * windows.ow);
    windows.for_each(|inside, padded| {
        let sum: f64 = inside.iter().map(|i| values[*i]).sum();
        let count = inside.len() + if include_pad { padded } else { 0 };
        data.push(sum / count.max(1) as f64);
    });
    data
}

/// `max_pool`, `avg_pool`, `global_max_pool`, `global_avg_pool` over NCHW.
fn pool(r: &RuleInput<'_>, max: bool, global: bool) -> Result<Vec<Tensor>, String> {
    graph_only(r)?;
    let x = r.operand(0)?;
    let windows = PoolWindows::of(r, global)?;
    let values: Vec<f64> = x.data.iter().map(|v| f(*v)).collect();
    if !max {
        let include_pad = attrs(r).flag("count_include_pad");
        let data = average_values(&windows, &values, include_pad)
            .into_iter()
            .map(|v| back(x.kind, v))
            .collect();
        return out(r, data);
    }
    // A window wholly in the padding: -inf for floats, the least value of an
    // integer type (what the lowering starts from).
    let least = match x.kind {
        acc_ir::elements::ElementKind::Int(width, signedness) if width <= 64 => {
            if signedness == acc_ir::Signedness::Unsigned {
                0.0
            } else {
                -(2f64.powi(width as i32 - 1))
            }
        }
        _ => f64::NEG_INFINITY,
    };
    let mut data = Vec::new();
    windows.for_each(|inside, _| {
        let best = inside.iter().map(|i| values[*i]).fold(least, f64::max);
        data.push(back(x.kind, best));
    });
    out(r, data)
}

pub(super) fn max_pool(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    pool(r, true, false)
}
pub(super) fn avg_pool(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    pool(r, false, false)
}
pub(super) fn global_max_pool(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    pool(r, true, true)
}
pub(super) fn global_avg_pool(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    pool(r, false, true)
}
