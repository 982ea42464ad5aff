//! Rules for the `loop` dialect: buffers (`memref` values sharing a [`Buffer`]), loads
//! and stores with bounds and initialization checks, counted and parallel loops (their
//! bodies run through [`RuleInput::regions`]) and the vector ops.
//!
//! A memref value is a [`View`] of a buffer: subviews share the buffer, so a store
//! through one view is seen by every other. Reading a cell never written, reading or
//! writing out of bounds, and touching a freed buffer are errors.

use acc_dialects::hooks::attr_read::{Attrs, is_dyn};
use acc_ir::elements::{ElementKind, Scalar};
use acc_ir::{Context, TypeData, TypeId};

use super::RuleInput;
use super::indexing::{index, index_list};
use crate::value::{Buffer, Tensor, View, row_major, type_text};

/// A signed index operand's value (loop bounds may be negative).
fn signed(t: &Tensor) -> Result<i128, String> {
    match t.scalar() {
        Some(Scalar::Int(i)) => Ok(i),
        _ => Err("expects an index".into()),
    }
}

fn index_value(ctx: &Context, i: i128) -> Result<Tensor, String> {
    Tensor::new(ctx, ctx.index_type(), vec![Scalar::Int(i)])
}

/// The element kind of a shaped type.
fn element_kind(ctx: &Context, ty: TypeId) -> Result<ElementKind, String> {
    let element = ctx.type_data(ty).element_type().unwrap_or(ty);
    Ok(Tensor::layout(ctx, element)?.1)
}

/// The view of a memref operand.
fn view(t: &Tensor) -> Result<&View, String> {
    t.view
        .as_ref()
        .ok_or_else(|| "expects a memref".to_string())
}

/// `loop.alloc`: a fresh buffer, no cell written; dynamic sizes from the operands.
pub(super) fn alloc(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let ty = r.result_type(0)?;
    let declared = r
        .ctx
        .type_data(ty)
        .shape()
        .ok_or("expects a memref result")?;
    let mut dynamic = r.operands.iter();
    let shape = declared
        .iter()
        .map(|d| {
            if is_dyn(*d) {
                index(dynamic.next().ok_or("missing a dynamic size")?)
            } else {
                usize::try_from(*d).map_err(|_| "negative size".to_string())
            }
        })
        .collect::<Result<Vec<usize>, String>>()?;
    let dims: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
    let what = acc_ir::printer::type_to_string(r.ctx, ty);
    let cells = acc_ir::budget::shape_allocation(
        &what,
        &dims,
        std::mem::size_of::<Option<Scalar>>() as u64,
    )?;
    let view = View {
        buffer: Buffer::uninitialized(cells),
        offset: 0,
        strides: row_major(&shape),
    };
    Ok(vec![Tensor::of_view(
        ty,
        shape,
        element_kind(r.ctx, ty)?,
        view,
    )])
}

/// `loop.constant`: a buffer holding the value.
pub(super) fn buffer_constant(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let attr = r.op.attr(r.ctx, "value").ok_or("requires a value")?;
    // Its own message: a value over the memory budget says so.
    let value = Tensor::from_attr(r.ctx, attr)?;
    Ok(vec![Tensor::new(r.ctx, r.result_type(0)?, value.data)?])
}

/// `loop.reshape`: the same cells, row-major in the new shape.
pub(super) fn buffer_reshape(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let m = r.operand(0)?;
    let v = view(m)?;
    if v.strides != row_major(&m.shape) {
        return Err("reshapes a buffer that is not contiguous".into());
    }
    let ty = r.result_type(0)?;
    let (shape, kind) = Tensor::layout(r.ctx, ty)?;
    let view = View {
        buffer: v.buffer.clone(),
        offset: v.offset,
        strides: row_major(&shape),
    };
    Ok(vec![Tensor::of_view(ty, shape, kind, view)])
}

/// `loop.dealloc`: frees the buffer (later accesses are errors).
pub(super) fn dealloc(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let m = r.operand(0)?;
    let local = matches!(
        r.ctx.type_data(m.ty),
        acc_ir::TypeData::MemRef {
            memory_space: Some(_),
            ..
        }
    );
    view(m)?.buffer.free(local)?;
    Ok(Vec::new())
}

/// `loop.subview`: a window sharing the source's buffer.
pub(super) fn subview(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let source = r.operand(0)?;
    let v = view(source)?;
    let mut dynamic = r.operands[1..].iter();
    let offsets = index_list(r, "static_offsets", &mut dynamic)?;
    let sizes = index_list(r, "static_sizes", &mut dynamic)?;
    let strides = index_list(r, "static_strides", &mut dynamic)?;
    let rank = source.shape.len();
    if offsets.len() != rank || sizes.len() != rank || strides.len() != rank {
        return Err(format!("needs {rank} offsets, sizes and strides"));
    }
    for d in 0..rank {
        let last = offsets[d] + sizes[d].saturating_sub(1) * strides[d];
        if sizes[d] > 0 && last >= source.shape[d] {
            return Err(format!(
                "the window reaches index {last} of dimension {d} of size {}",
                source.shape[d]
            ));
        }
    }
    let offset = v.offset + (0..rank).map(|d| offsets[d] * v.strides[d]).sum::<usize>();
    let ty = r.result_type(0)?;
    // Dimensions of size 1 the result type drops (a rank-reducing subview).
    let result_rank = r.ctx.type_data(ty).shape().map_or(rank, <[i64]>::len);
    let mut kept: Vec<usize> = (0..rank).collect();
    if result_rank < rank {
        let mut drop = rank - result_rank;
        kept.retain(|d| {
            if drop > 0 && sizes[*d] == 1 {
                drop -= 1;
                false
            } else {
                true
            }
        });
    }
    let view = View {
        buffer: v.buffer.clone(),
        offset,
        strides: kept.iter().map(|d| v.strides[*d] * strides[*d]).collect(),
    };
    let shape = kept.iter().map(|d| sizes[*d]).collect();
    Ok(vec![Tensor::of_view(ty, shape, source.kind, view)])
}

/// `loop.copy`: every element of the source into the target.
pub(super) fn copy(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    // Read everything first: the two views may overlap.
    let (values, target) = read_for_copy(r)?;
    view(target)?.write_row_major(&target.shape, &values)?;
    Ok(Vec::new())
}

/// The elements of a copy's source (operand 0), and its target (operand 1), both
/// buffers of one shape.
fn read_for_copy<'r>(r: &'r RuleInput<'_>) -> Result<(Vec<Scalar>, &'r Tensor), String> {
    let (source, target) = (r.operand(0)?, r.operand(1)?);
    view(source)?;
    view(target)?;
    if source.shape != target.shape {
        return Err(format!(
            "shapes {:?} and {:?} differ",
            source.shape, target.shape
        ));
    }
    Ok((source.values()?, target))
}

/// `hw.dma_start`: reads the source now and gives a token holding what it read and
/// the target's view; the target is written only when the token is waited for, so
/// a program reading the target before its `hw.dma_wait` reads cells not yet
/// written (an error), as on an engine that finishes late.
pub(super) fn dma_start(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let (values, target) = read_for_copy(r)?;
    Ok(vec![Tensor {
        ty: r.result_type(0)?,
        shape: target.shape.clone(),
        kind: target.kind,
        data: values,
        undefined: None,
        view: Some(view(target)?.clone()),
    }])
}

/// `hw.dma_wait` and `hw.wait`: completes the transfers of the tokens (writes what
/// each `hw.dma_start` read into its target); launches are done when they start.
pub(super) fn wait(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    for token in r.operands {
        if let Some(target) = &token.view {
            target.write_row_major(&token.shape, &token.data)?;
        }
    }
    Ok(Vec::new())
}

/// The indices operands from `first` on.
fn indices(r: &RuleInput<'_>, first: usize) -> Result<Vec<usize>, String> {
    r.operands[first.min(r.operands.len())..]
        .iter()
        .map(index)
        .collect()
}

/// `loop.load`: one element.
pub(super) fn load(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let m = r.operand(0)?;
    let v = view(m)?;
    let value = v.buffer.read(v.cell(&m.shape, &indices(r, 1)?)?)?;
    Ok(vec![Tensor::new(r.ctx, r.result_type(0)?, vec![value])?])
}

/// `loop.store`: one element.
pub(super) fn store(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let value = r.operand(0)?.scalar().ok_or("stores one element")?;
    let m = r.operand(1)?;
    let v = view(m)?;
    v.buffer
        .write(v.cell(&m.shape, &indices(r, 2)?)?, m.kind.normalize(value))?;
    Ok(Vec::new())
}

/// The cells of `lanes` consecutive elements along the last dimension from `at`.
fn lanes(m: &Tensor, at: &[usize], lanes: usize, stride: usize) -> Result<Vec<usize>, String> {
    let v = view(m)?;
    let last = m
        .shape
        .len()
        .checked_sub(1)
        .ok_or("needs a memref of rank 1 or more")?;
    if stride == 0
        || at
            .get(last)
            .is_none_or(|i| i + (lanes - 1) * stride >= m.shape[last])
    {
        return Err(format!(
            "{lanes} lanes from index {:?} run past dimension {last} of size {}",
            at.get(last),
            m.shape[last]
        ));
    }
    let first = v.cell(&m.shape, at)?;
    Ok((0..lanes)
        .map(|k| first + k * stride * v.strides[last])
        .collect())
}

/// The number of lanes of a vector type.
fn lane_count(ctx: &Context, ty: TypeId) -> Result<usize, String> {
    match ctx.type_data(ty) {
        TypeData::Vector { .. } => Ok(Tensor::layout(ctx, ty)?.0.iter().product()),
        _ => Err(format!("expects a vector, not {}", type_text(ctx, ty))),
    }
}

/// `loop.vload`: elements `stride` apart (consecutive by default) along the last
/// dimension.
pub(super) fn vload(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let m = r.operand(0)?;
    let ty = r.result_type(0)?;
    let stride = Attrs::of_op(r.ctx, r.op).int("stride")?.unwrap_or(1);
    let stride = usize::try_from(stride).map_err(|_| format!("stride {stride} is not positive"))?;
    let cells = lanes(m, &indices(r, 1)?, lane_count(r.ctx, ty)?, stride)?;
    let v = view(m)?;
    let data = cells
        .iter()
        .map(|c| v.buffer.read(*c))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(vec![Tensor::new(r.ctx, ty, data)?])
}

/// `loop.vstore`: a vector to consecutive elements along the last dimension.
pub(super) fn vstore(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let value = r.operand(0)?;
    let m = r.operand(1)?;
    let cells = lanes(m, &indices(r, 2)?, value.data.len(), 1)?;
    let v = view(m)?;
    for (c, x) in cells.iter().zip(&value.data) {
        v.buffer.write(*c, m.kind.normalize(*x))?;
    }
    Ok(Vec::new())
}

fn float(v: Scalar) -> f64 {
    match v {
        Scalar::Int(i) => i as f64,
        Scalar::Float(f) => f,
    }
}

/// `loop.fma`: `a * b + c` per lane, with one rounding to `f64` before the result's
/// format.
pub(super) fn fma(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let (a, b, c) = (r.operand(0)?, r.operand(1)?, r.operand(2)?);
    let data = a
        .data
        .iter()
        .zip(&b.data)
        .zip(&c.data)
        .map(|((x, y), z)| Scalar::Float(float(*x).mul_add(float(*y), float(*z))))
        .collect();
    Ok(vec![Tensor::new(r.ctx, r.result_type(0)?, data)?])
}

/// `loop.splat`: every lane the scalar.
pub(super) fn splat(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let x = r.operand(0)?.scalar().ok_or("splats one element")?;
    let ty = r.result_type(0)?;
    let n = lane_count(r.ctx, ty)?;
    Ok(vec![Tensor::new(r.ctx, ty, vec![x; n])?])
}

/// `loop.vreduce`: the lanes combined by `kind` (add, mul, max, min), in lane order;
/// a float max or min is `arith.maximumf` / `minimumf` (NaN when a lane is, -0.0 below
/// +0.0).
pub(super) fn vreduce(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let x = r.operand(0)?;
    let kind = super::shape::case(r, "kind", acc_dialects::ops::loops::enums::REDUCTION)
        .ok_or("requires 'kind'")?;
    let combine = |a: Scalar, b: Scalar| -> Scalar {
        match (a, b) {
            (Scalar::Int(p), Scalar::Int(q)) => Scalar::Int(match kind.as_str() {
                "add" => p.wrapping_add(q),
                "mul" => p.wrapping_mul(q),
                "max" => p.max(q),
                _ => p.min(q),
            }),
            _ => {
                use acc_dialects::ops::arith::Op;
                let op = match kind.as_str() {
                    "add" => Op::Addf,
                    "mul" => Op::Mulf,
                    "max" => Op::Maximumf,
                    _ => Op::Minimumf,
                };
                let (p, q) = (float(a), float(b));
                Scalar::Float(acc_dialects::hooks::arith::float_eval(op, p, q).unwrap_or(f64::NAN))
            }
        }
    };
    let first = *x.data.first().ok_or("reduces an empty vector")?;
    let mut acc = first;
    for v in &x.data[1..] {
        // Round after each step, as the hardware lanes would.
        acc = x.kind.normalize(combine(acc, *v));
    }
    Ok(vec![Tensor::new(r.ctx, r.result_type(0)?, vec![acc])?])
}

/// `loop.for`: runs the body from the lower bound while below the upper bound, adding
/// the step; the carried values go from one iteration's yield to the next.
pub(super) fn for_loop(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let (lb, ub, step) = (
        signed(r.operand(0)?)?,
        signed(r.operand(1)?)?,
        signed(r.operand(2)?)?,
    );
    if step <= 0 {
        return Err(format!("the step must be positive, not {step}"));
    }
    if ub > lb {
        r.check_trips((ub - lb + step - 1) as u128 / step as u128)?;
    }
    let mut carried: Vec<Tensor> = r.operands[3..].to_vec();
    let mut i = lb;
    while i < ub {
        let mut args = vec![index_value(r.ctx, i)?];
        args.extend(carried);
        carried = (r.regions)(0, args)?;
        i += step;
    }
    Ok(carried)
}

/// `loop.parallel`: runs the body for every point of the iteration space (in
/// row-major order; the op promises the order does not matter).
pub(super) fn parallel(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let n = r.operands.len() / 3;
    let bounds: Vec<(i128, i128, i128)> = (0..n)
        .map(|d| {
            Ok((
                signed(&r.operands[d])?,
                signed(&r.operands[n + d])?,
                signed(&r.operands[2 * n + d])?,
            ))
        })
        .collect::<Result<_, String>>()?;
    if let Some((_, _, s)) = bounds.iter().find(|(_, _, s)| *s <= 0) {
        return Err(format!("steps must be positive, not {s}"));
    }
    if bounds.iter().any(|(lb, ub, _)| lb >= ub) {
        return Ok(Vec::new());
    }
    let trips = bounds.iter().fold(1u128, |n, (lb, ub, s)| {
        n.saturating_mul((ub - lb + s - 1) as u128 / *s as u128)
    });
    r.check_trips(trips)?;
    let mut point: Vec<i128> = bounds.iter().map(|b| b.0).collect();
    loop {
        let args = point
            .iter()
            .map(|i| index_value(r.ctx, *i))
            .collect::<Result<Vec<_>, _>>()?;
        (r.regions)(0, args)?;
        let mut d = n;
        loop {
            if d == 0 {
                return Ok(Vec::new());
            }
            d -= 1;
            point[d] += bounds[d].2;
            if point[d] < bounds[d].1 {
                break;
            }
            point[d] = bounds[d].0;
        }
    }
}

/// `hw.intrinsic "acc_sgemm"(%a, %b, %c, %m, %n, %k)`: C += A x B on row-major f32
/// buffers (A is m x k, B k x n, C m x n), the host library's matrix product.
pub(super) fn sgemm(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let [a, b, c] = [0, 1, 2].map(|i| r.operand(i));
    library_gemm([a?, b?, c?], &sizes(r, 3)?, None)
}

/// `hw.intrinsic "acc_sgemm_nk48n"(%a, %b, %c, %m, %n, %k)`: as `acc_sgemm` with B
/// stored in 48-column panels (layout `NK48n`): element (t, j) of B at
/// `((j / 48) * k + t) * 48 + j % 48` of a buffer of ceil(n / 48) * k * 48.
pub(super) fn sgemm_nk48n(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let [a, b, c] = [0, 1, 2].map(|i| r.operand(i));
    library_gemm([a?, b?, c?], &sizes(r, 3)?, Some(48))
}

/// `hw.intrinsic "acc_sgemm_nk48n_bias"(%a, %b, %bias, %c, %m, %n, %k)`: as
/// `acc_sgemm_nk48n`, C = bias[col] + A x B (C's contents unread).
pub(super) fn sgemm_nk48n_bias(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    packed_gemm_from_bias(r, &sizes(r, 4)?)
}

/// C = bias[col] + A x B for the packed products with a bias (operands a, b, bias,
/// c): the product's m x n values written to C.
fn packed_gemm_from_bias(r: &RuleInput<'_>, dims: &[usize]) -> Result<Vec<Tensor>, String> {
    let [m, n, _] = <[usize; 3]>::try_from(dims).map_err(|_| "expects m, n and k")?;
    let bias = Flat::new(r.operand(2)?, n)?;
    let start = (0..m * n)
        .map(|i| bias.read(i % n))
        .collect::<Result<Vec<_>, _>>()?;
    Flat::new(r.operand(3)?, m * n)?.write_all(start)?;
    let [a, b, c] = [0, 1, 3].map(|i| r.operand(i));
    library_gemm([a?, b?, c?], dims, Some(48))
}

/// `hw.intrinsic "acc_sgemm_nk48n_bias_act"(%a, %b, %bias, %c, %m, %n, %k, %lo, %hi,
/// %gate, %p, %q)`: as `acc_sgemm_nk48n_bias`, each result then stored through the
/// clamp and gate of the blocked convolutions (`acc_sconv2d_nchw16c`).
pub(super) fn sgemm_nk48n_bias_act(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let (dims, bounds, gate) = sizes_and_activation(r, 4, 3, true)?;
    let [m, n, _] = <[usize; 3]>::try_from(dims.as_slice()).map_err(|_| "expects m, n and k")?;
    packed_gemm_from_bias(r, &dims)?;
    let mut c = Flat::new(r.operand(3)?, m * n)?;
    let stored = (0..m * n)
        .map(|i| Ok(gate.apply(c.read(i)?, bounds)))
        .collect::<Result<Vec<_>, String>>()?;
    c.write_all(stored)?;
    Ok(Vec::new())
}

/// `hw.intrinsic "acc_sgemm_strided"(%a, %b, %c, %m, %n, %k, %a_rs, %a_cs, %b_rs,
/// %b_cs, %c_rs, %c_cs, %accumulate)`: C += A x B, or C = A x B (C unread) when
/// `accumulate` is 0, on f32 matrices A m x k, B k x n and C m x n whose element
/// (i, j) is the cell `i * rs + j * cs` after the operand's first element, in its
/// buffer: the strides are in memory, as the C function reads them, whatever the
/// operands' types say.
pub(super) fn sgemm_strided(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    if r.operands.len() != 13 {
        return Err(format!(
            "expects A, B, C, m, n, k, six strides and accumulate, not {} operands",
            r.operands.len()
        ));
    }
    let [m, n, k] = [3, 4, 5].map(|i| index(&r.operands[i]));
    let (m, n, k) = (m?, n?, k?);
    let strides = r.operands[6..12]
        .iter()
        .map(signed)
        .collect::<Result<Vec<_>, _>>()?;
    let accumulate = signed(&r.operands[12])? != 0;
    // The cell of element (i, j) of operand `which` (0: A, 1: B, 2: C).
    let cell = |which: usize, view: &View, i: usize, j: usize| {
        let (rs, cs) = (strides[2 * which], strides[2 * which + 1]);
        let at = view.offset as i128 + i as i128 * rs + j as i128 * cs;
        usize::try_from(at).map_err(|_| format!("strides reach cell {at}, before the buffer"))
    };
    let [a, b, c] = [0, 1, 2].map(|i| r.operands[i].view.as_ref());
    let (a, b, c) = (
        a.ok_or("A is not a memref")?,
        b.ok_or("B is not a memref")?,
        c.ok_or("C is not a memref")?,
    );
    let float = |v: Scalar| match v {
        Scalar::Float(f) => f,
        Scalar::Int(i) => i as f64,
    };
    let mut out = Vec::with_capacity(m * n);
    for i in 0..m {
        for j in 0..n {
            let mut acc = if accumulate {
                float(c.buffer.read(cell(2, c, i, j)?)?)
            } else {
                0.0
            };
            for t in 0..k {
                let x = float(a.buffer.read(cell(0, a, i, t)?)?);
                let y = float(b.buffer.read(cell(1, b, t, j)?)?);
                acc += x * y;
            }
            out.push(acc);
        }
    }
    let kind = r.operands[2].kind;
    for (e, v) in out.into_iter().enumerate() {
        let at = cell(2, c, e / n, e % n)?;
        c.buffer.write(at, kind.normalize(Scalar::Float(v)))?;
    }
    Ok(Vec::new())
}

/// C += A x B with `dims` [m, n, k], B row-major or in panels of `panel` columns.
fn library_gemm(
    [a, b, c]: [&Tensor; 3],
    dims: &[usize],
    panel: Option<usize>,
) -> Result<Vec<Tensor>, String> {
    let [m, n, k] = <[usize; 3]>::try_from(dims).map_err(|_| "expects m, n and k")?;
    let b_len = panel.map_or(k * n, |w| n.div_ceil(w) * k * w);
    let (a, b, mut c) = (
        Flat::new(a, m * k)?,
        Flat::new(b, b_len)?,
        Flat::new(c, m * n)?,
    );
    let b_at = |t: usize, j: usize| match panel {
        Some(w) => ((j / w) * k + t) * w + j % w,
        None => t * n + j,
    };
    let mut out = Vec::with_capacity(m * n);
    for i in 0..m {
        for j in 0..n {
            let mut acc = c.read(i * n + j)?;
            for t in 0..k {
                acc += a.read(i * k + t)? * b.read(b_at(t, j))?;
            }
            out.push(acc);
        }
    }
    c.write_all(out)?;
    Ok(Vec::new())
}

/// `hw.intrinsic "acc_vexp"(%x, %out, %n)`: out[i] = e^x[i] for the first n elements
/// of two f32 buffers (possibly the same one), the host library's exponential.
pub(super) fn vexp(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    library_function(r, f64::exp)
}

/// `hw.intrinsic "acc_vexpneg"(%x, %out, %n)`: out[i] = e^-x[i], as `acc_vexp`.
pub(super) fn vexpneg(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    library_function(r, |x| (-x).exp())
}

/// `hw.intrinsic "acc_verf"(%x, %out, %n)`: out[i] = erf(x[i]), as `acc_vexp`.
pub(super) fn verf(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    library_function(r, libm::erf)
}

/// `hw.intrinsic "acc_vtanh"(%x, %out, %n)`: out[i] = tanh(x[i]), as `acc_vexp`.
pub(super) fn vtanh(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    library_function(r, f64::tanh)
}

/// `hw.intrinsic "acc_spool2d_nchw16c"(%x, %out, %blocks, %h, %w, %oh, %ow, %kh,
/// %kw, %sh, %sw, %dh, %dw, %pt, %pl, %average, %count_include_pad)`: a max (IEEE
/// `maximum` from -inf, as `arith.maximumf`) or average (a sum from zero in window
/// order, divided by the positions inside the input, or by kh x kw with
/// count_include_pad) pool of batch-1 f32 NCHW16c buffers, output (y, x) reading
/// input row y*sh + i*dh - pt and column x*sw + j*dw - pl, positions outside
/// skipped; computed in f32, operation by operation.
pub(super) fn spool2d_nchw16c(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let dims = sizes(r, 2)?;
    let [
        blocks,
        h,
        w,
        oh,
        ow,
        kh,
        kw,
        sh,
        sw,
        dh,
        dw,
        pt,
        pl,
        average,
        include_pad,
    ] = <[usize; 15]>::try_from(dims.as_slice()).map_err(|_| "expects x, out and 15 sizes")?;
    const LANES: usize = 16;
    let x = Flat::new(r.operand(0)?, blocks * h * w * LANES)?;
    let tap = |o: usize, k: usize, stride: usize, dilation: usize, pad: usize, size: usize| {
        (o * stride + k * dilation)
            .checked_sub(pad)
            .filter(|at| *at < size)
    };
    // arith.maximumf's rule, on f32 values (exact in f64).
    let maximum = |a: f32, b: f32| {
        acc_dialects::hooks::arith::float_eval(
            acc_dialects::ops::arith::Op::Maximumf,
            a.into(),
            b.into(),
        )
        .map_or(f32::NAN, |m| m as f32)
    };
    let mut values = Vec::with_capacity(blocks * oh * ow * LANES);
    for b in 0..blocks {
        for y in 0..oh {
            for ox in 0..ow {
                for lane in 0..LANES {
                    let mut acc = if average != 0 {
                        0f32
                    } else {
                        f32::NEG_INFINITY
                    };
                    let mut count = 0f32;
                    for i in 0..kh {
                        let Some(iy) = tap(y, i, sh, dh, pt, h) else {
                            continue;
                        };
                        for j in 0..kw {
                            let Some(ix) = tap(ox, j, sw, dw, pl, w) else {
                                continue;
                            };
                            let v = x.read(((b * h + iy) * w + ix) * LANES + lane)? as f32;
                            acc = if average != 0 {
                                acc + v
                            } else {
                                maximum(acc, v)
                            };
                            count += 1.0;
                        }
                    }
                    let divisor = if include_pad != 0 {
                        (kh * kw) as f32
                    } else {
                        count
                    };
                    values.push(f64::from(if average != 0 { acc / divisor } else { acc }));
                }
            }
        }
    }
    Flat::new(r.operand(1)?, blocks * oh * ow * LANES)?.write_all(values)?;
    Ok(Vec::new())
}

/// out[i] = f(x[i]) over buffers of n elements, every x read before out is written.
fn library_function(r: &RuleInput<'_>, f: fn(f64) -> f64) -> Result<Vec<Tensor>, String> {
    let dims = sizes(r, 2)?;
    let [n] = <[usize; 1]>::try_from(dims.as_slice()).map_err(|_| "expects x, out and n")?;
    let (x, out) = (Flat::new(r.operand(0)?, n)?, r.operand(1)?);
    let values = (0..n)
        .map(|i| Ok(f(x.read(i)?)))
        .collect::<Result<Vec<_>, String>>()?;
    Flat::new(out, n)?.write_all(values)?;
    Ok(Vec::new())
}

/// `hw.intrinsic "acc_sconv2d"(%x, %w, %out, %c, %h, %w, %m, %kh, %kw, %oh, %ow, %sh,
/// %sw, %dh, %dw, %pt, %pl, %lo, %hi)`: out = clamp(out + conv(x, w), lo, hi) on
/// batch-1 NCHW f32 buffers, output pixel (y, x) reading input row y*sh + i*dh - pt
/// and column x*sw + j*dw - pl (zero outside the input), the host library's
/// convolution.
pub(super) fn sconv2d(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    full_conv(r, false)
}

/// `hw.intrinsic "acc_sconv2d_bias"(%x, %w, %bias, %out, sizes..., %lo, %hi)`: as
/// `acc_sconv2d`, each output channel starting from its bias instead of out's
/// contents.
pub(super) fn sconv2d_bias(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    full_conv(r, true)
}

/// `hw.intrinsic "acc_sdwconv2d"(%x, %w, %out, %c, %h, %w, %kh, %kw, %oh, %ow, %sh,
/// %sw, %dh, %dw, %pt, %pl, %lo, %hi)`: out = clamp(out + the depthwise convolution
/// of x by w, lo, hi) (one kh x kw filter per channel; output channel o reads input
/// channel o), windows as in `acc_sconv2d`.
pub(super) fn sdwconv2d(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    depthwise_conv(r, false)
}

/// `hw.intrinsic "acc_sdwconv2d_bias"(%x, %w, %bias, %out, sizes..., %lo, %hi)`: as
/// `acc_sdwconv2d`, each channel starting from its bias.
pub(super) fn sdwconv2d_bias(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    depthwise_conv(r, true)
}

/// `hw.intrinsic "acc_sconv2d_nchw16c"(%x, %w, %out, sizes..., %lo, %hi, %gate,
/// %scale, %shift)`: as `acc_sconv2d` in blocked layouts: x and out NCHW16c, w
/// OIHW16i16o, the channel counts `c` and `m` multiples of 16 (the blocked
/// extents); gate 0 stores clamp(x, lo, hi), gate 1 x * clamp(x * scale + shift,
/// lo, hi) (HardSwish), gate 2 x * clamp(1 / (1 + e^-x), lo, hi) (SiLU) and gate 3,
/// its parameters a divisor and a scale, x * clamp(erf(x / divisor) + 1, lo, hi) *
/// scale (GELU), each operation in f32.
pub(super) fn sconv2d_nchw16c(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    library_conv(r, Kind::Blocked, false)
}

/// `hw.intrinsic "acc_sconv2d_nchw16c_bias"(%x, %w, %bias, %out, sizes..., %lo, %hi,
/// %gate, %scale, %shift)`: as `acc_sconv2d_nchw16c`, each output channel starting
/// from its bias.
pub(super) fn sconv2d_nchw16c_bias(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    library_conv(r, Kind::Blocked, true)
}

/// `hw.intrinsic "acc_sgconv2d_nchw16c"(%x, %w, %out, sizes..., %groups, %lo, %hi,
/// %gate, %scale, %shift)`: as `acc_sconv2d_nchw16c` in `groups` groups, each whole
/// blocks of input and output channels: output channel o reads the `c / groups`
/// input channels of group o / (m / groups), w `[m/16][c/groups/16][kh][kw][16][16]`.
pub(super) fn sgconv2d_nchw16c(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    library_conv(r, Kind::BlockedGrouped, false)
}

/// `hw.intrinsic "acc_sgconv2d_nchw16c_bias"(%x, %w, %bias, %out, sizes..., %groups,
/// %lo, %hi, %gate, %scale, %shift)`: as `acc_sgconv2d_nchw16c`, each output channel
/// starting from its bias.
pub(super) fn sgconv2d_nchw16c_bias(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    library_conv(r, Kind::BlockedGrouped, true)
}

/// `hw.intrinsic "acc_sconv2d_nchw_nchw16c"(%x, %w, %out, sizes..., %lo, %hi, %gate,
/// %scale, %shift)`: as `acc_sconv2d_nchw16c` with x plain NCHW (any channel count) and w OIHW16o
/// (`[m/16][c][kh][kw][16]`).
pub(super) fn sconv2d_nchw_nchw16c(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    library_conv(r, Kind::BlockedOutput, false)
}

/// `hw.intrinsic "acc_sconv2d_nchw_nchw16c_bias"(%x, %w, %bias, %out, sizes..., %lo,
/// %hi, %gate, %scale, %shift)`: as `acc_sconv2d_nchw_nchw16c`, each output channel
/// starting from its bias.
pub(super) fn sconv2d_nchw_nchw16c_bias(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    library_conv(r, Kind::BlockedOutput, true)
}

/// `hw.intrinsic "acc_sdwconv2d_nchw16c"(%x, %w, %out, sizes..., %lo, %hi, %gate,
/// %scale, %shift)`: as `acc_sdwconv2d` in blocked layouts: x and out NCHW16c, w
/// `[c/16][1][kh][kw][16]`, the channel count `c` a multiple of 16; the activation
/// as `acc_sconv2d_nchw16c`'s.
pub(super) fn sdwconv2d_nchw16c(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    library_conv(r, Kind::BlockedDepthwise, false)
}

/// `hw.intrinsic "acc_sdwconv2d_nchw16c_bias"(%x, %w, %bias, %out, sizes..., %lo,
/// %hi, %gate, %scale, %shift)`: as `acc_sdwconv2d_nchw16c`, each channel starting
/// from its bias.
pub(super) fn sdwconv2d_nchw16c_bias(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    library_conv(r, Kind::BlockedDepthwise, true)
}

fn full_conv(r: &RuleInput<'_>, bias: bool) -> Result<Vec<Tensor>, String> {
    library_conv(r, Kind::Full, bias)
}

fn depthwise_conv(r: &RuleInput<'_>, bias: bool) -> Result<Vec<Tensor>, String> {
    library_conv(r, Kind::Depthwise, bias)
}

/// Which library convolution: NCHW / OIHW, depthwise NCHW, blocked (NCHW16c /
/// OIHW16i16o; grouped with whole blocks per group), blocked depthwise (NCHW16c /
/// OIHW16o) or blocked output (NCHW / OIHW16o into NCHW16c).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Full,
    Depthwise,
    Blocked,
    BlockedGrouped,
    BlockedDepthwise,
    BlockedOutput,
}

/// Channels per block of the blocked layouts.
const BLOCK: usize = 16;

/// A library convolution call: its buffers (a bias after the filter when `bias`),
/// its sizes (without the output channels when depthwise: there are as many as
/// input channels), clamp bounds and, for the blocked kinds, a gate.
fn library_conv(r: &RuleInput<'_>, kind: Kind, bias: bool) -> Result<Vec<Tensor>, String> {
    let depthwise = matches!(kind, Kind::Depthwise | Kind::BlockedDepthwise);
    let gated = !matches!(kind, Kind::Full | Kind::Depthwise);
    let buffers = if bias { 4 } else { 3 };
    let count = match kind {
        Kind::Depthwise | Kind::BlockedDepthwise => 13,
        Kind::BlockedGrouped => 15,
        _ => 14,
    };
    let (mut dims, bounds, gate) = sizes_and_activation(r, buffers, count, gated)?;
    if depthwise {
        // The output channels are the input channels.
        dims.insert(3, dims[0]);
    }
    let groups = if kind == Kind::BlockedGrouped {
        dims.pop().unwrap_or(0)
    } else {
        1
    };
    let [c, h, wd, m, kh, kw, oh, ow, sh, sw, dh, dw, pt, pl] =
        <[usize; 14]>::try_from(dims.as_slice()).map_err(|_| format!("expects {count} sizes"))?;
    if groups == 0 || c % groups != 0 || m % groups != 0 {
        return Err(format!(
            "{groups} groups do not divide {c} input and {m} output channels"
        ));
    }
    let window = Window {
        input: [c, h, wd],
        kernel: [kh, kw],
        output: [oh, ow],
        stride: [sh, sw],
        dilation: [dh, dw],
        padding: [pt, pl],
        groups,
        bounds,
        gate,
    };
    let bad_blocks = match kind {
        Kind::Blocked | Kind::BlockedDepthwise => c % BLOCK != 0 || m % BLOCK != 0,
        Kind::BlockedGrouped => c % (groups * BLOCK) != 0 || m % (groups * BLOCK) != 0,
        Kind::BlockedOutput => m % BLOCK != 0,
        Kind::Full | Kind::Depthwise => false,
    };
    if bad_blocks {
        return Err(format!(
            "blocked channel counts must be multiples of {BLOCK}, not {c} and {m}"
        ));
    }
    window.convolve(r, m, kind, bias)
}

/// The gate of a blocked library convolution, after its clamp bounds: `x * clamp(g(x),
/// lo, hi)` stored instead of `clamp(x, lo, hi)`, each operation in f32 (the
/// runtime's `Gate`).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Gate {
    /// Code 0: the clamp alone.
    None,
    /// Code 1: g(x) = x * scale + shift, the product and the sum each rounded
    /// (HardSwish).
    Hard { scale: f32, shift: f32 },
    /// Code 2: g(x) = 1 / (1 + e^-x), e^-x as `acc_vexpneg` gives it (SiLU).
    Sigmoid,
    /// Code 3: g(x) = erf(x / divisor) + 1, erf as `acc_verf` gives it, the stored
    /// product x * g then times `scale` (GELU: divisor sqrt 2, scale 1/2).
    Erf { divisor: f32, scale: f32 },
}

impl Gate {
    /// The stored value of the sum `x` (rounded to f32 first).
    fn apply(self, x: f64, [lo, hi]: [f64; 2]) -> f64 {
        let clamp = |v: f32| {
            if v.is_nan() {
                v
            } else {
                v.max(lo as f32).min(hi as f32)
            }
        };
        let x32 = x as f32;
        let stored = match self {
            Gate::None => return if x.is_nan() { x } else { x.max(lo).min(hi) },
            Gate::Hard { scale, shift } => x32 * clamp(x32 * scale + shift),
            Gate::Sigmoid => {
                let e = (-(x32 as f64)).exp() as f32;
                x32 * clamp(1.0 / (1.0 + e))
            }
            Gate::Erf { divisor, scale } => {
                let e = libm::erf((x32 / divisor) as f64) as f32;
                x32 * clamp(e + 1.0) * scale
            }
        };
        stored as f64
    }
}

/// A library convolution's `count` sizes (the operands after its `buffers`
/// buffers), the clamp bounds after them and, when `gated`, the gate after those
/// (code and two parameters).
fn sizes_and_activation(
    r: &RuleInput<'_>,
    buffers: usize,
    count: usize,
    gated: bool,
) -> Result<(Vec<usize>, [f64; 2], Gate), String> {
    let activation = if gated { 5 } else { 2 };
    if r.operands.len() != buffers + count + activation {
        return Err(format!(
            "expects {buffers} buffers, {count} sizes and {}, not {} operands",
            if gated {
                "2 bounds, a gate and its 2 parameters"
            } else {
                "2 bounds"
            },
            r.operands.len()
        ));
    }
    let dims = r.operands[buffers..buffers + count]
        .iter()
        .map(index)
        .collect::<Result<_, _>>()?;
    let float = |t: &Tensor, what: &str| match t.data.as_slice() {
        [Scalar::Float(f)] => Ok(*f),
        _ => Err(format!("{what} is not a float")),
    };
    let at = buffers + count;
    let bounds = [
        float(&r.operands[at], "a clamp bound")?,
        float(&r.operands[at + 1], "a clamp bound")?,
    ];
    let gate = if gated {
        let (p, q) = (
            float(&r.operands[at + 3], "the gate's first parameter")? as f32,
            float(&r.operands[at + 4], "the gate's second parameter")? as f32,
        );
        match index(&r.operands[at + 2])? {
            0 => Gate::None,
            1 => Gate::Hard { scale: p, shift: q },
            2 => Gate::Sigmoid,
            3 => Gate::Erf {
                divisor: p,
                scale: q,
            },
            other => return Err(format!("gate code {other} is not 0, 1, 2 or 3")),
        }
    } else {
        Gate::None
    };
    Ok((dims, bounds, gate))
}

/// The windows of a library convolution.
struct Window {
    input: [usize; 3],
    kernel: [usize; 2],
    output: [usize; 2],
    stride: [usize; 2],
    dilation: [usize; 2],
    padding: [usize; 2],
    /// Groups (1 but for a grouped kind): output channel o reads the c / groups
    /// input channels of group o / (m / groups).
    groups: usize,
    /// The clamp of each result: low and high bound (NaN stays NaN).
    bounds: [f64; 2],
    /// The gate the clamp applies within (none: the result itself is clamped).
    gate: Gate,
}

impl Window {
    /// The input coordinate of output coordinate `o`'s tap `k` along axis `axis`,
    /// if it lies inside the input.
    fn tap(&self, axis: usize, o: usize, k: usize) -> Option<usize> {
        let at =
            (o * self.stride[axis] + k * self.dilation[axis]).checked_sub(self.padding[axis])?;
        (at < self.input[axis + 1]).then_some(at)
    }

    /// out += the convolution of operand 0 by operand 1 into operand 2 with `m`
    /// output channels, clamped; depthwise: output channel o reads input channel
    /// o only; blocked: the buffers in NCHW16c / OIHW16i16o; `bias`: operand 2 is a
    /// bias per output channel that the sums start from, and operand 3 the output.
    fn convolve(
        &self,
        r: &RuleInput<'_>,
        m: usize,
        kind: Kind,
        bias: bool,
    ) -> Result<Vec<Tensor>, String> {
        let ([c, h, wd], [kh, kw], [oh, ow]) = (self.input, self.kernel, self.output);
        let depthwise = matches!(kind, Kind::Depthwise | Kind::BlockedDepthwise);
        let taps = if depthwise { 1 } else { c / self.groups };
        let blocked_input = matches!(
            kind,
            Kind::Blocked | Kind::BlockedGrouped | Kind::BlockedDepthwise
        );
        let blocked = blocked_input || kind == Kind::BlockedOutput;
        // Flat positions of input (channel, row, column), filter (output channel,
        // input channel, row, column) and output (channel, row, column).
        let x_at = |ci: usize, iy: usize, ix: usize| {
            if blocked_input {
                ((ci / BLOCK * h + iy) * wd + ix) * BLOCK + ci % BLOCK
            } else {
                (ci * h + iy) * wd + ix
            }
        };
        let w_at = |o: usize, t: usize, i: usize, j: usize| {
            if (blocked && depthwise) || kind == Kind::BlockedOutput {
                (((o / BLOCK * taps + t) * kh + i) * kw + j) * BLOCK + o % BLOCK
            } else if blocked {
                ((((o / BLOCK) * (taps / BLOCK) + t / BLOCK) * kh + i) * kw + j) * BLOCK * BLOCK
                    + (t % BLOCK) * BLOCK
                    + o % BLOCK
            } else {
                ((o * taps + t) * kh + i) * kw + j
            }
        };
        let out_at = |o: usize, y: usize, xx: usize| {
            if blocked {
                ((o / BLOCK * oh + y) * ow + xx) * BLOCK + o % BLOCK
            } else {
                (o * oh + y) * ow + xx
            }
        };
        let (x, w, mut out) = (
            Flat::new(r.operand(0)?, c * h * wd)?,
            Flat::new(r.operand(1)?, m * taps * kh * kw)?,
            Flat::new(r.operand(if bias { 3 } else { 2 })?, m * oh * ow)?,
        );
        let biases = if bias {
            Some(Flat::new(r.operand(2)?, m)?)
        } else {
            None
        };
        let mut values = vec![0f64; m * oh * ow];
        for o in 0..m {
            for y in 0..oh {
                for xx in 0..ow {
                    let mut acc = match &biases {
                        Some(b) => b.read(o)?,
                        None => out.read(out_at(o, y, xx))?,
                    };
                    for t in 0..taps {
                        let ci = if depthwise {
                            o
                        } else {
                            o / (m / self.groups) * taps + t
                        };
                        for i in 0..kh {
                            let Some(iy) = self.tap(0, y, i) else {
                                continue;
                            };
                            for j in 0..kw {
                                let Some(ix) = self.tap(1, xx, j) else {
                                    continue;
                                };
                                acc += w.read(w_at(o, t, i, j))? * x.read(x_at(ci, iy, ix))?;
                            }
                        }
                    }
                    values[out_at(o, y, xx)] = self.gate.apply(acc, self.bounds);
                }
            }
        }
        out.write_all(values)?;
        Ok(Vec::new())
    }
}

/// The index operands of an intrinsic from `first` on, as sizes.
fn sizes(r: &RuleInput<'_>, first: usize) -> Result<Vec<usize>, String> {
    r.operands[first..].iter().map(index).collect()
}

/// A buffer read and written as a flat row-major sequence of `len` elements.
struct Flat<'t> {
    tensor: &'t Tensor,
    view: &'t View,
}

impl<'t> Flat<'t> {
    fn new(tensor: &'t Tensor, len: usize) -> Result<Self, String> {
        if tensor.shape.iter().product::<usize>() != len {
            return Err(format!(
                "a buffer of shape {:?} does not hold {len} elements",
                tensor.shape
            ));
        }
        Ok(Flat {
            tensor,
            view: view(tensor)?,
        })
    }

    fn index(&self, mut flat: usize) -> Vec<usize> {
        let shape = &self.tensor.shape;
        let mut index = vec![0; shape.len()];
        for d in (0..shape.len()).rev() {
            index[d] = flat % shape[d];
            flat /= shape[d];
        }
        index
    }

    fn read(&self, flat: usize) -> Result<f64, String> {
        let cell = self.view.cell(&self.tensor.shape, &self.index(flat))?;
        Ok(match self.view.buffer.read(cell)? {
            Scalar::Float(f) => f,
            Scalar::Int(i) => i as f64,
        })
    }

    /// Writes `values` (rounded to the element type) in order from element 0.
    fn write_all(&mut self, values: Vec<f64>) -> Result<(), String> {
        for (i, v) in values.into_iter().enumerate() {
            let cell = self.view.cell(&self.tensor.shape, &self.index(i))?;
            self.view
                .buffer
                .write(cell, self.tensor.kind.normalize(Scalar::Float(v)))?;
        }
        Ok(())
    }
}
