//! The network ops: matrix products, convolution, pooling, softmax and the
//! normalizations, composed of tensor ops.

use acc_dialects::build::BuildExt as _;
use acc_dialects::ops::arith::Op as A;
use acc_dialects::ops::{graph, math, tensor};
use acc_ir::{TypeId, ValueId};

use super::{AttrValues, Parts, arith_op, broadcast_to, filled, map_with, math_op, reshape};
use acc_dialects::build::{Builder, i64s, is_float, shape_of, tensor_type};

/// numpy.matmul of `a` and `b` into `out`.
pub(super) fn matmul(
    e: &mut Builder<'_>,
    a: ValueId,
    b: ValueId,
    out: TypeId,
) -> Result<ValueId, String> {
    let (sa, elem) = shape_of(e.ctx, e.type_of(a))?;
    let (sb, _) = shape_of(e.ctx, e.type_of(b))?;
    let (so, _) = shape_of(e.ctx, out)?;
    // Vectors become matrices, and the result is reshaped back.
    let a2 = if sa.len() == 1 {
        reshape(e, a, &[1, sa[0]])?
    } else {
        a
    };
    let b2 = if sb.len() == 1 {
        reshape(e, b, &[sb[0], 1])?
    } else {
        b
    };
    let (sa, sb) = (
        shape_of(e.ctx, e.type_of(a2))?.0,
        shape_of(e.ctx, e.type_of(b2))?.0,
    );
    let (m, k, n) = (sa[sa.len() - 2], sa[sa.len() - 1], sb[sb.len() - 1]);
    let result = if sa.len() == 2 && sb.len() == 2 {
        let ty = tensor_type(e.ctx, &[m, n], elem);
        let init = filled(e, ty, 0.0)?;
        tensor::Matmul::build(e, &[a2, b2], init, ty).result()?
    } else if sb.len() == 2 {
        // A batch of rows times one matrix: one matrix product on the stacked rows.
        let rows: i64 = sa[..sa.len() - 1].iter().product();
        let flat = reshape(e, a2, &[rows, k])?;
        let ty = tensor_type(e.ctx, &[rows, n], elem);
        let init = filled(e, ty, 0.0)?;
        tensor::Matmul::build(e, &[flat, b2], init, ty).result()?
    } else if sa.len() == sb.len() && sa[..sa.len() - 2] == sb[..sb.len() - 2] {
        let batch: i64 = sa[..sa.len() - 2].iter().product();
        let a3 = reshape(e, a2, &[batch, m, k])?;
        let b3 = reshape(e, b2, &[batch, k, n])?;
        let ty = tensor_type(e.ctx, &[batch, m, n], elem);
        let init = filled(e, ty, 0.0)?;
        tensor::BatchMatmul::build(e, &[a3, b3], init, ty).result()?
    } else {
        // Batch dimensions that broadcast: both operands broadcast to the result's
        // batch shape (numpy's rules), then one batched product.
        let batch_shape = broadcast_batch(&sa[..sa.len() - 2], &sb[..sb.len() - 2])
            .ok_or_else(|| format!("batch dimensions {sa:?} x {sb:?} do not broadcast"))?;
        let batch: i64 = batch_shape.iter().product();
        let full = |rows: i64, columns: i64| {
            let mut s = batch_shape.clone();
            s.extend([rows, columns]);
            s
        };
        let a3 = broadcast_to(e, a2, &full(m, k))?;
        let b3 = broadcast_to(e, b2, &full(k, n))?;
        let a3 = reshape(e, a3, &[batch, m, k])?;
        let b3 = reshape(e, b3, &[batch, k, n])?;
        let ty = tensor_type(e.ctx, &[batch, m, n], elem);
        let init = filled(e, ty, 0.0)?;
        tensor::BatchMatmul::build(e, &[a3, b3], init, ty).result()?
    };
    reshape(e, result, &so)
}

/// numpy's broadcast of two batch shapes (aligned at the right), if they broadcast.
fn broadcast_batch(a: &[i64], b: &[i64]) -> Option<Vec<i64>> {
    let rank = a.len().max(b.len());
    let dim = |s: &[i64], d: usize| {
        let lead = rank - s.len();
        if d < lead { 1 } else { s[d - lead] }
    };
    (0..rank)
        .map(|d| match (dim(a, d), dim(b, d)) {
            (x, y) if x == y || y == 1 => Some(x),
            (1, y) => Some(y),
            _ => None,
        })
        .collect()
}

/// `gemm`: alpha * A' * B' + beta * C.
pub(super) fn gemm(
    e: &mut Builder<'_>,
    p: &Parts,
    out: TypeId,
    attrs: &AttrValues<'_>,
) -> Result<ValueId, String> {
    let (so, elem) = shape_of(e.ctx, out)?;
    let transposed = |e: &mut Builder<'_>, x: ValueId| -> Result<ValueId, String> {
        let (s, el) = shape_of(e.ctx, e.type_of(x))?;
        let ty = tensor_type(e.ctx, &[s[1], s[0]], el);
        let init = tensor::Empty::build(e, &[], ty).result()?;
        let perm = i64s(e.ctx, &[1, 0]);
        tensor::Transpose::build(e, x, init, ty)
            .permutation(perm)
            .result()
    };
    let mut a = p.operands[0];
    let mut b = p.operands[1];
    if attrs.flag(graph::Gemm::ATTR_TRANS_A) {
        a = transposed(e, a)?;
    }
    if attrs.flag(graph::Gemm::ATTR_TRANS_B) {
        b = transposed(e, b)?;
    }
    let alpha = attrs.number(graph::Gemm::ATTR_ALPHA).unwrap_or(1.0);
    let beta = attrs.number(graph::Gemm::ATTR_BETA).unwrap_or(1.0);
    if alpha != 1.0 {
        let aty = e.type_of(a);
        a = map_with(e, &[a], aty, &mut |inner, args| {
            let c = inner.scalar(elem, alpha)?;
            arith_op(inner, A::Mulf, Some(A::Muli), &[args[0], c], elem)
        })?;
    }
    let init = match p.operands.get(2) {
        Some(&c) => {
            let c = broadcast_to(e, c, &so)?;
            if beta == 1.0 {
                c
            } else {
                map_with(e, &[c], out, &mut |inner, args| {
                    let k = inner.scalar(elem, beta)?;
                    arith_op(inner, A::Mulf, Some(A::Muli), &[args[0], k], elem)
                })?
            }
        }
        None => filled(e, out, 0.0)?,
    };
    tensor::Matmul::build(e, &[a, b], init, out).result()
}

/// `conv2d`: padding, then the convolution into the broadcast bias.
pub(super) fn conv2d(
    e: &mut Builder<'_>,
    p: &Parts,
    out: TypeId,
    attrs: &AttrValues<'_>,
) -> Result<ValueId, String> {
    let x = p.operands[0];
    let pads = attrs
        .ints(graph::Conv2d::ATTR_PADS)
        .unwrap_or_else(|| vec![0; 4]);
    let xp = pad_spatial(e, x, &pads, 0.0)?;
    let init = match p.operands.get(2) {
        Some(&bias) => {
            let init = tensor::Empty::build(e, &[], out).result()?;
            let dims = i64s(e.ctx, &[0, 2, 3]);
            tensor::Broadcast::build(e, bias, init, out)
                .dimensions(dims)
                .result()?
        }
        None => filled(e, out, 0.0)?,
    };
    let mut conv = tensor::Conv2d::build(e, &[xp, p.operands[1]], init, out);
    if let Some(a) = attrs.get(graph::Conv2d::ATTR_STRIDES) {
        conv = conv.strides(a);
    }
    if let Some(a) = attrs.get(graph::Conv2d::ATTR_DILATIONS) {
        conv = conv.dilations(a);
    }
    if let Some(a) = attrs.get(graph::Conv2d::ATTR_GROUPS) {
        conv = conv.groups(a);
    }
    conv.result()
}

/// `x` (NCHW) padded by [top, left, bottom, right] with `value`.
pub(super) fn pad_spatial(
    e: &mut Builder<'_>,
    x: ValueId,
    pads: &[i64],
    value: f64,
) -> Result<ValueId, String> {
    if pads.iter().all(|p| *p == 0) {
        return Ok(x);
    }
    let (s, elem) = shape_of(e.ctx, e.type_of(x))?;
    if pads.len() != 4 || s.len() != 4 || pads.iter().any(|p| *p < 0) {
        return Err("pads must be four non-negative amounts for an NCHW input".into());
    }
    let out = tensor_type(
        e.ctx,
        &[
            s[0],
            s[1],
            s[2] + pads[0] + pads[2],
            s[3] + pads[1] + pads[3],
        ],
        elem,
    );
    let low = i64s(e.ctx, &[0, 0, pads[0], pads[1]]);
    let high = i64s(e.ctx, &[0, 0, pads[2], pads[3]]);
    let index = e.ctx.index_type();
    let mut fill = |inner: &mut Builder<'_>, _: &[ValueId]| -> Result<Vec<ValueId>, String> {
        Ok(vec![inner.scalar(elem, value)?])
    };
    let region = e.region(&[index; 4], tensor::Yield::NAME, &mut fill)?;
    tensor::Pad::build(e, x, &[], &[], out)
        .static_low(low)
        .static_high(high)
        .region(region)
        .result()
}

/// The pools, as `tensor.pool` into a new tensor.
pub(super) fn pool(
    e: &mut Builder<'_>,
    op: graph::Op,
    x: ValueId,
    out: TypeId,
    attrs: &AttrValues<'_>,
) -> Result<ValueId, String> {
    let (sx, elem) = shape_of(e.ctx, e.type_of(x))?;
    let global = matches!(op, graph::Op::GlobalMaxPool | graph::Op::GlobalAvgPool);
    if global && sx[2..].iter().product::<i64>() > LARGE_GLOBAL_WINDOW && is_float(e.ctx, elem) {
        return global_pool_by_reductions(e, op, x, out);
    }
    let kind_name = match op {
        graph::Op::MaxPool | graph::Op::GlobalMaxPool => "max",
        _ => "avg",
    };
    pool_of_kind(e, op, kind_name, x, out, attrs)
}

/// The sums of the windows of an `avg_pool` (of attributes `attrs`) over the integer
/// tensor `x`: positions in the padding add nothing. A window of the whole plane
/// larger than [`LARGE_GLOBAL_WINDOW`] is summed by reductions.
pub(crate) fn window_sums(
    e: &mut Builder<'_>,
    x: ValueId,
    out: TypeId,
    attrs: &AttrValues<'_>,
) -> Result<ValueId, String> {
    let (sx, _) = shape_of(e.ctx, e.type_of(x))?;
    let (so, _) = shape_of(e.ctx, out)?;
    let kernel = attrs
        .ints(graph::AvgPool::ATTR_KERNEL_SHAPE)
        .ok_or("requires kernel_shape")?;
    let pads = attrs.ints(graph::AvgPool::ATTR_PADS).unwrap_or(vec![0; 4]);
    let global = kernel == sx[2..] && pads.iter().all(|p| *p == 0) && so[2..] == [1, 1];
    if global && sx[2..].iter().product::<i64>() > LARGE_GLOBAL_WINDOW {
        let mut v = x;
        for axis in (2..sx.len()).rev() {
            v = reduce_axis(e, v, axis, (A::Addf, Some(A::Addi)), 0.0)?;
        }
        return reshape(e, v, &so);
    }
    pool_of_kind(e, graph::Op::AvgPool, "sum", x, out, attrs)
}

/// A `tensor.pool` of kind `kind_name` with the window of `op` (a graph pool).
fn pool_of_kind(
    e: &mut Builder<'_>,
    op: graph::Op,
    kind_name: &str,
    mut x: ValueId,
    out: TypeId,
    attrs: &AttrValues<'_>,
) -> Result<ValueId, String> {
    let (sx, elem) = shape_of(e.ctx, e.type_of(x))?;
    let kind = e.ctx.intern_attr(acc_ir::attrs::AttrData::Dialect {
        dialect: e.ctx.sym("tensor"),
        body: e.ctx.sym(&format!(".pool_kind<{kind_name}>")),
        ty: None,
    });
    // The window, and the attributes taken over from the graph op.
    let (window, [strides, dilations, pads, count_include_pad]) =
        if let graph::Op::GlobalMaxPool | graph::Op::GlobalAvgPool = op {
            (i64s(e.ctx, &sx[2..]), [None; 4])
        } else {
            let w = attrs
                .get(graph::AvgPool::ATTR_KERNEL_SHAPE)
                .ok_or("requires kernel_shape")?;
            let mut taken = [
                graph::AvgPool::ATTR_STRIDES,
                graph::AvgPool::ATTR_DILATIONS,
                graph::AvgPool::ATTR_PADS,
                graph::AvgPool::ATTR_COUNT_INCLUDE_PAD,
            ]
            .map(|name| attrs.get(name));
            if attrs.flag(graph::AvgPool::ATTR_CEIL_MODE) {
                let (pads, overhang) = ceil_mode_pads(e, &sx, out, attrs)?;
                if overhang
                    && op == graph::Op::AvgPool
                    && attrs.flag(graph::AvgPool::ATTR_COUNT_INCLUDE_PAD)
                {
                    // The padding is counted, the overhang past it is not: the
                    // padding becomes zeros of the input, the overhang the pool's
                    // uncounted padding.
                    let given = attrs.ints(graph::AvgPool::ATTR_PADS).unwrap_or(vec![0; 4]);
                    x = pad_spatial(e, x, &given, 0.0)?;
                    let extra: Vec<i64> = (0..4)
                        .map(|i| if i < 2 { 0 } else { pads[i] - given[i] })
                        .collect();
                    taken[2] = Some(i64s(e.ctx, &extra));
                    taken[3] = None;
                } else {
                    taken[2] = Some(i64s(e.ctx, &pads));
                }
            }
            (w, taken)
        };
    // `tensor.pool` compares integers as signed: an unsigned max pool runs on the
    // values with their sign bits flipped, flipped back after.
    let unsigned = crate::is_unsigned(e.ctx, elem);
    if unsigned && kind_name != "max" {
        return Err("average pools of unsigned integers have no lowering yet".into());
    }
    if unsigned {
        x = crate::flip_sign_bits(e, x)?;
    }
    let init = tensor::Empty::build(e, &[], out).result()?;
    let mut pool = tensor::Pool::build(e, &[x], init, out)
        .kind(kind)
        .window(window);
    if let Some(a) = strides {
        pool = pool.strides(a);
    }
    if let Some(a) = dilations {
        pool = pool.dilations(a);
    }
    if let Some(a) = pads {
        pool = pool.pads(a);
    }
    if let Some(a) = count_include_pad {
        pool = pool.count_include_pad(a);
    }
    let pooled = pool.result()?;
    if unsigned {
        crate::flip_sign_bits(e, pooled)
    } else {
        Ok(pooled)
    }
}

/// Global pools over more positions than this are reductions (a pool's window is
/// unrolled where it lowers: 112 x 112 of them in EfficientNet's first squeeze-excite
/// made 400k ops).
const LARGE_GLOBAL_WINDOW: i64 = 64;

/// A global pool as reductions over the spatial axes (the last first), an average
/// divided by the count, reshaped to N x C x 1 x ... x 1.
fn global_pool_by_reductions(
    e: &mut Builder<'_>,
    op: graph::Op,
    x: ValueId,
    out: TypeId,
) -> Result<ValueId, String> {
    let (sx, elem) = shape_of(e.ctx, e.type_of(x))?;
    let (so, _) = shape_of(e.ctx, out)?;
    let max = op == graph::Op::GlobalMaxPool;
    let (combine, start) = if max {
        ((A::Maximumf, Some(A::Maxsi)), f64::NEG_INFINITY)
    } else {
        ((A::Addf, None), 0.0)
    };
    let mut v = x;
    for axis in (2..sx.len()).rev() {
        v = reduce_axis(e, v, axis, combine, start)?;
    }
    if !max {
        let count = sx[2..].iter().product::<i64>() as f64;
        let ty = e.type_of(v);
        v = map_with(e, &[v], ty, &mut |inner, args| {
            let n = inner.scalar(elem, count)?;
            arith_op(inner, A::Divf, None, &[args[0], n], elem)
        })?;
    }
    reshape(e, v, &so)
}

/// The pads of a `ceil_mode` pool as a floor-mode pool computes it: the last window,
/// which may start inside the end padding and run past it, gets the end padding it
/// reaches; and whether any window runs past the given padding. Padding is never a
/// maximum, nor counted in an average without `count_include_pad`, so both compute
/// what ONNX's ceil mode does (an average that counts padding must not count the
/// overhang: `pool` pads such an input explicitly).
fn ceil_mode_pads(
    e: &Builder<'_>,
    input: &[i64],
    out: TypeId,
    attrs: &AttrValues<'_>,
) -> Result<(Vec<i64>, bool), String> {
    let (so, _) = shape_of(e.ctx, out)?;
    let kernel = attrs
        .ints(graph::AvgPool::ATTR_KERNEL_SHAPE)
        .unwrap_or_default();
    let strides = attrs
        .ints(graph::AvgPool::ATTR_STRIDES)
        .unwrap_or(vec![1, 1]);
    let dilations = attrs
        .ints(graph::AvgPool::ATTR_DILATIONS)
        .unwrap_or(vec![1, 1]);
    let mut pads = attrs.ints(graph::AvgPool::ATTR_PADS).unwrap_or(vec![0; 4]);
    if kernel.len() != 2 || strides.len() != 2 || dilations.len() != 2 || pads.len() != 4 {
        return Err("a 2-D pool needs two kernel sizes, strides and dilations, four pads".into());
    }
    let mut overhang = false;
    for i in 0..2 {
        let reach = (so[2 + i] - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1;
        let extra = reach - (input[2 + i] + pads[i] + pads[2 + i]);
        if extra > 0 {
            overhang = true;
            pads[2 + i] += extra;
        }
    }
    Ok((pads, overhang))
}

/// A reduction of `x` over `axis` with `combine` (the float and integer arith ops)
/// from `start`.
pub(super) fn reduce_axis(
    e: &mut Builder<'_>,
    x: ValueId,
    axis: usize,
    (f, i): (A, Option<A>),
    start: f64,
) -> Result<ValueId, String> {
    let (s, elem) = shape_of(e.ctx, e.type_of(x))?;
    let mut kept = s.clone();
    kept.remove(axis);
    let ty = tensor_type(e.ctx, &kept, elem);
    let init = filled(e, ty, start)?;
    let dims = i64s(e.ctx, &[axis as i64]);
    let mut fill = |inner: &mut Builder<'_>, args: &[ValueId]| -> Result<Vec<ValueId>, String> {
        Ok(vec![arith_op(inner, f, i, &[args[0], args[1]], elem)?])
    };
    let combiner = e.region(&[elem, elem], tensor::Yield::NAME, &mut fill)?;
    tensor::Reduce::build(e, x, init, ty)
        .dimensions(dims)
        .combiner(combiner)
        .result()
}

/// `v` (`x`'s shape without `axis`) copied along `axis` to `x`'s shape.
pub(super) fn broadcast_axis(
    e: &mut Builder<'_>,
    v: ValueId,
    to: TypeId,
    axis: usize,
) -> Result<ValueId, String> {
    let init = tensor::Empty::build(e, &[], to).result()?;
    let dims = i64s(e.ctx, &[axis as i64]);
    tensor::Broadcast::build(e, v, init, to)
        .dimensions(dims)
        .result()
}

/// `softmax` along `axis`: exp(x - max) / sum(exp(x - max)).
pub(super) fn softmax(
    e: &mut Builder<'_>,
    x: ValueId,
    out: TypeId,
    attrs: &AttrValues<'_>,
) -> Result<ValueId, String> {
    let (s, elem) = shape_of(e.ctx, out)?;
    let axis = axis_of(attrs, s.len())?;
    let max = reduce_axis(e, x, axis, (A::Maximumf, Some(A::Maxsi)), f64::NEG_INFINITY)?;
    let maxb = broadcast_axis(e, max, out, axis)?;
    let ex = map_with(e, &[x, maxb], out, &mut |inner, args| {
        let d = arith_op(inner, A::Subf, None, &[args[0], args[1]], elem)?;
        math_op(inner, math::Op::Exp, d, elem)
    })?;
    let sum = reduce_axis(e, ex, axis, (A::Addf, None), 0.0)?;
    let sumb = broadcast_axis(e, sum, out, axis)?;
    map_with(e, &[ex, sumb], out, &mut |inner, args| {
        arith_op(inner, A::Divf, None, args, elem)
    })
}

/// `layer_norm` over the dimensions from `axis` on: the input seen as rows of those
/// dimensions, each row centred and multiplied by 1 / sqrt(variance + epsilon)
/// (computed once per row, as ONNX's definition does with `Reciprocal(Sqrt(...))`),
/// then scaled and shifted (numpy broadcasting of `scale` and `bias`).
pub(super) fn layer_norm(
    e: &mut Builder<'_>,
    ops: &[ValueId],
    out: TypeId,
    attrs: &AttrValues<'_>,
) -> Result<ValueId, String> {
    let (s, elem) = shape_of(e.ctx, out)?;
    if !is_float(e.ctx, elem) {
        return Err("layer_norm needs floats".into());
    }
    let axis = axis_of(attrs, s.len())?;
    let eps = attrs.number(graph::LayerNorm::ATTR_EPSILON).unwrap_or(1e-5);
    let rows: i64 = s[..axis].iter().product();
    let width: i64 = s[axis..].iter().product();
    let x2 = reshape(e, ops[0], &[rows, width])?;
    let t2 = tensor_type(e.ctx, &[rows, width], elem);
    // The mean of each row, one value per row.
    let row_means = |e: &mut Builder<'_>, v: ValueId| -> Result<ValueId, String> {
        let sum = reduce_axis(e, v, 1, (A::Addf, None), 0.0)?;
        let rty = e.type_of(sum);
        map_with(e, &[sum], rty, &mut |inner, args| {
            let n = inner.scalar(elem, width as f64)?;
            arith_op(inner, A::Divf, None, &[args[0], n], elem)
        })
    };
    let mean = row_means(e, x2)?;
    let mean = broadcast_axis(e, mean, t2, 1)?;
    let centred = map_with(e, &[x2, mean], t2, &mut |inner, args| {
        arith_op(inner, A::Subf, None, args, elem)
    })?;
    let square = map_with(e, &[centred], t2, &mut |inner, args| {
        arith_op(inner, A::Mulf, None, &[args[0], args[0]], elem)
    })?;
    let var = row_means(e, square)?;
    let rty = e.type_of(var);
    let inverse = map_with(e, &[var], rty, &mut |inner, args| {
        let c = inner.scalar(elem, eps)?;
        let v = arith_op(inner, A::Addf, None, &[args[0], c], elem)?;
        let r = math_op(inner, math::Op::Sqrt, v, elem)?;
        let one = inner.scalar(elem, 1.0)?;
        arith_op(inner, A::Divf, None, &[one, r], elem)
    })?;
    let inverse = broadcast_axis(e, inverse, t2, 1)?;
    let normal = map_with(e, &[centred, inverse], t2, &mut |inner, args| {
        arith_op(inner, A::Mulf, None, args, elem)
    })?;
    let y = reshape(e, normal, &s)?;
    let scale = broadcast_to(e, ops[1], &s)?;
    let scaled = map_with(e, &[y, scale], out, &mut |inner, args| {
        arith_op(inner, A::Mulf, None, args, elem)
    })?;
    match ops.get(2) {
        Some(&bias) => {
            let b = broadcast_to(e, bias, &s)?;
            map_with(e, &[scaled, b], out, &mut |inner, args| {
                arith_op(inner, A::Addf, None, args, elem)
            })
        }
        None => Ok(scaled),
    }
}

/// `batch_norm` (inference): per channel k = scale / sqrt(var + eps) and
/// b = shift - mean * k, then x * k + b.
pub(super) fn batch_norm(
    e: &mut Builder<'_>,
    ops: &[ValueId],
    out: TypeId,
    attrs: &AttrValues<'_>,
) -> Result<ValueId, String> {
    let (s, elem) = shape_of(e.ctx, out)?;
    let eps = attrs.number(graph::BatchNorm::ATTR_EPSILON).unwrap_or(1e-5);
    let (x, scale, shift, mean, var) = (ops[0], ops[1], ops[2], ops[3], ops[4]);
    let cty = e.type_of(scale);
    let k = map_with(e, &[scale, var], cty, &mut |inner, args| {
        let c = inner.scalar(elem, eps)?;
        let v = arith_op(inner, A::Addf, None, &[args[1], c], elem)?;
        let r = math_op(inner, math::Op::Sqrt, v, elem)?;
        arith_op(inner, A::Divf, None, &[args[0], r], elem)
    })?;
    let b = map_with(e, &[shift, mean, k], cty, &mut |inner, args| {
        let mk = arith_op(inner, A::Mulf, None, &[args[1], args[2]], elem)?;
        arith_op(inner, A::Subf, None, &[args[0], mk], elem)
    })?;
    let dims: Vec<i64> = (0..s.len() as i64).filter(|d| *d != 1).collect();
    let spread = |e: &mut Builder<'_>, v: ValueId| -> Result<ValueId, String> {
        let init = tensor::Empty::build(e, &[], out).result()?;
        let d = i64s(e.ctx, &dims);
        tensor::Broadcast::build(e, v, init, out)
            .dimensions(d)
            .result()
    };
    let kb = spread(e, k)?;
    let bb = spread(e, b)?;
    map_with(e, &[x, kb, bb], out, &mut |inner, args| {
        let m = arith_op(inner, A::Mulf, None, &[args[0], args[1]], elem)?;
        arith_op(inner, A::Addf, None, &[m, args[2]], elem)
    })
}

/// The `axis` attribute (default -1, the last) as a dimension of a tensor of `rank`.
fn axis_of(attrs: &AttrValues<'_>, rank: usize) -> Result<usize, String> {
    super::data::axis(
        attrs.number(graph::Softmax::ATTR_AXIS).unwrap_or(-1.0) as i64,
        rank,
    )
}
