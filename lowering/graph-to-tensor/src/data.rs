//! Lowerings of the graph ops that move, convert or combine elements: cast, concat,
//! slice, pad, the reductions, sort and topk.

use acc_dialects::build::BuildExt as _;
use acc_dialects::hooks::attr_read::Attrs;
use acc_dialects::hooks::shape::slice_plan;
use acc_dialects::ops::arith;
use acc_ir::elements::Scalar;
use acc_ir::{TypeData, TypeId, ValueId};

use super::{Builder, arith, map_with, reshape};
use acc_dialects::build::{i64s, index_op, is_float, segments, shape_of, tensor_type};

/// `cast`: one conversion per element (`extf`/`truncf`, `sitofp`/`uitofp`,
/// `fptosi`/`fptoui`, `extsi`/`extui`/`trunci` by the types). With `wrap`, a float
/// goes through i64 and is truncated to the result's width.
pub(super) fn cast(
    e: &mut Builder<'_>,
    x: ValueId,
    out: TypeId,
    wrap: bool,
) -> Result<ValueId, String> {
    let (_, from) = shape_of(e.ctx, e.type_of(x))?;
    let (_, to) = shape_of(e.ctx, out)?;
    if from == to {
        return Ok(x);
    }
    let int = |t: TypeId| match e.ctx.type_data(t) {
        TypeData::Integer { width, signedness } => {
            Some((*width, *signedness == acc_ir::Signedness::Unsigned))
        }
        _ => None,
    };
    let float_width = |t: TypeId| match e.ctx.type_data(t) {
        TypeData::Float(k) => Some(k.width()),
        _ => None,
    };
    let (fi, ti, ff, tf) = (int(from), int(to), float_width(from), float_width(to));
    let i64t = e.ctx.int_type(64);
    map_with(e, &[x], out, &mut |e, args| {
        let v = args[0];
        match (fi, ti, ff, tf) {
            (_, _, Some(a), Some(b)) if a == b => {
                Err("no conversion between floats of one width yet".into())
            }
            (_, _, Some(a), Some(b)) => {
                let op = if a < b { "arith.extf" } else { "arith.truncf" };
                e.op1(op, &[v], to, &[])
            }
            (Some((_, unsigned)), _, _, Some(_)) => {
                let op = if unsigned {
                    "arith.uitofp"
                } else {
                    "arith.sitofp"
                };
                e.op1(op, &[v], to, &[])
            }
            (_, Some((1, _)), Some(_), _) => {
                Err("casts of floats to i1 have no lowering yet".into())
            }
            (_, Some((w, _)), Some(_), _) if wrap && w < 64 => {
                let wide = e.op1("arith.fptosi", &[v], i64t, &[])?;
                e.op1("arith.trunci", &[wide], to, &[])
            }
            (_, Some((_, unsigned)), Some(_), _) => {
                let op = if unsigned {
                    "arith.fptoui"
                } else {
                    "arith.fptosi"
                };
                e.op1(op, &[v], to, &[])
            }
            (Some((a, unsigned)), Some((b, _)), _, _) if a != b => {
                // Booleans become 0 and 1, as in ONNX.
                let op = match (a < b, unsigned || a == 1) {
                    (true, false) => "arith.extsi",
                    (true, true) => "arith.extui",
                    (false, _) => "arith.trunci",
                };
                e.op1(op, &[v], to, &[])
            }
            _ => Err("no conversion between these element types".into()),
        }
    })
}

/// `axis` of a rank-`rank` tensor, negative ones counting from the end.
pub(super) fn axis(a: i64, rank: usize) -> Result<usize, String> {
    let d = if a < 0 { a + rank as i64 } else { a };
    usize::try_from(d)
        .ok()
        .filter(|d| *d < rank)
        .ok_or_else(|| format!("axis {a} is out of range for rank {rank}"))
}

/// `tensor.insert_slice` of `source` into `dest` at `offsets` (unit strides).
fn insert(
    e: &mut Builder<'_>,
    source: ValueId,
    dest: ValueId,
    offsets: &[i64],
) -> Result<ValueId, String> {
    let (sizes, _) = shape_of(e.ctx, e.type_of(source))?;
    let ty = e.type_of(dest);
    let props = [
        ("static_offsets", i64s(e.ctx, offsets)),
        ("static_sizes", i64s(e.ctx, &sizes)),
        ("static_strides", i64s(e.ctx, &vec![1; sizes.len()])),
        ("operandSegmentSizes", segments(e.ctx, &[1, 1, 0, 0, 0])),
    ];
    e.op1("tensor.insert_slice", &[source, dest], ty, &props)
}

/// `tensor.extract_slice` of `x` (same rank) of type `out`.
fn extract(
    e: &mut Builder<'_>,
    x: ValueId,
    out: TypeId,
    offsets: &[i64],
    strides: &[i64],
) -> Result<ValueId, String> {
    let (sizes, _) = shape_of(e.ctx, out)?;
    let props = [
        ("static_offsets", i64s(e.ctx, offsets)),
        ("static_sizes", i64s(e.ctx, &sizes)),
        ("static_strides", i64s(e.ctx, strides)),
        ("operandSegmentSizes", segments(e.ctx, &[1, 0, 0, 0])),
    ];
    e.op1("tensor.extract_slice", &[x], out, &props)
}

/// `concat`: each input inserted into an empty result at its offset along `axis`.
pub(super) fn concat(
    e: &mut Builder<'_>,
    inputs: &[ValueId],
    out: TypeId,
    a: &Attrs<'_>,
) -> Result<ValueId, String> {
    let (shape, _) = shape_of(e.ctx, out)?;
    let ax = axis(a.req_int("axis")?, shape.len())?;
    let mut acc = e.op1("tensor.empty", &[], out, &[])?;
    let mut offset = 0;
    for x in inputs {
        let mut offsets = vec![0; shape.len()];
        offsets[ax] = offset;
        acc = insert(e, *x, acc, &offsets)?;
        offset += shape_of(e.ctx, e.type_of(*x))?.0[ax];
    }
    Ok(acc)
}

/// `slice`: ONNX's clamped starts and steps; a `tensor.extract_slice` when every
/// step is positive, else a `tensor.generate` reading `start + i * step`.
pub(super) fn slice(
    e: &mut Builder<'_>,
    x: ValueId,
    out: TypeId,
    a: &Attrs<'_>,
) -> Result<ValueId, String> {
    let (shape, _) = shape_of(e.ctx, e.type_of(x))?;
    let plan = slice_plan(a, &shape)?;
    let (starts, steps): (Vec<i64>, Vec<i64>) = plan.start_step.iter().copied().unzip();
    if steps.iter().all(|s| *s > 0) {
        return extract(e, x, out, &starts, &steps);
    }
    generate(e, x, out, &mut |e, ivs| {
        let mut at = Vec::new();
        for (d, iv) in ivs.iter().enumerate() {
            at.push(match (starts[d], steps[d]) {
                (0, 1) => *iv,
                (start, 1) => index_op(e, arith::Op::Addi, *iv, start)?,
                (start, step) => {
                    let scaled = index_op(e, arith::Op::Muli, *iv, step)?;
                    index_op(e, arith::Op::Addi, scaled, start)?
                }
            });
        }
        Ok(at)
    })
}

/// A `tensor.generate` of type `out` whose element at each index is `x`'s element at
/// the indices `source` computes.
fn generate(
    e: &mut Builder<'_>,
    x: ValueId,
    out: TypeId,
    source: &mut acc_dialects::build::RegionBuilder<'_>,
) -> Result<ValueId, String> {
    let (shape, elem) = shape_of(e.ctx, out)?;
    let index = e.ctx.index_type();
    let mut fill = |inner: &mut Builder<'_>, ivs: &[ValueId]| -> Result<Vec<ValueId>, String> {
        let at = source(inner, ivs)?;
        let operands = [&[x][..], &at[..]].concat();
        Ok(vec![inner.op1("tensor.extract", &operands, elem, &[])?])
    };
    Ok(e.op_with_region(
        "tensor.generate",
        &[],
        &[out],
        &[],
        &vec![index; shape.len()],
        "tensor.yield",
        &mut fill,
    )?[0])
}

/// `select(c, a, b)` on indices.
fn index_select(
    e: &mut Builder<'_>,
    c: ValueId,
    a: ValueId,
    b: ValueId,
) -> Result<ValueId, String> {
    let index = e.ctx.index_type();
    e.op1("arith.select", &[c, a, b], index, &[])
}

/// Whether `a < b` on indices.
fn index_less(e: &mut Builder<'_>, a: ValueId, b: ValueId) -> Result<ValueId, String> {
    e.cmpi(acc_dialects::build::cmpi::SLT, a, b)
}

/// `p` modulo `n`, in `[0, n)`.
fn rem_euclid(e: &mut Builder<'_>, p: ValueId, n: i64) -> Result<ValueId, String> {
    let m = index_op(e, arith::Op::Remsi, p, n)?;
    let zero = e.index(0)?;
    let negative = index_less(e, m, zero)?;
    let wrapped = index_op(e, arith::Op::Addi, m, n)?;
    index_select(e, negative, wrapped, m)
}

/// `pad`. Constant mode: negative amounts crop with a `tensor.extract_slice`, then a
/// `tensor.pad` yields the value. Edge, reflect and wrap: a `tensor.generate` reading
/// each element at the clamped, mirrored or wrapped index (numpy's modes).
pub(super) fn pad(
    e: &mut Builder<'_>,
    x: ValueId,
    out: TypeId,
    a: &Attrs<'_>,
    mode: &str,
) -> Result<ValueId, String> {
    let (shape, elem) = shape_of(e.ctx, e.type_of(x))?;
    let rank = shape.len();
    let pads = a.ints("pads")?.ok_or("requires 'pads'")?;
    if pads.len() != 2 * rank {
        return Err(format!("'pads' must have {} values", 2 * rank));
    }
    let (low, high) = pads.split_at(rank);
    if mode == "constant" {
        let value = a
            .get("value")
            .and_then(|v| acc_ir::elements::scalar(e.ctx, v))
            .map_or(0.0, |(_, v)| match v {
                acc_ir::elements::Scalar::Int(i) => i as f64,
                acc_ir::elements::Scalar::Float(f) => f,
            });
        let mut core = x;
        if pads.iter().any(|p| *p < 0) {
            let offsets: Vec<i64> = low.iter().map(|l| (-l).max(0)).collect();
            let sizes: Vec<i64> = (0..rank)
                .map(|d| shape[d] + low[d].min(0) + high[d].min(0))
                .collect();
            let ty = tensor_type(e.ctx, &sizes, elem);
            core = extract(e, x, ty, &offsets, &vec![1; rank])?;
        }
        if pads.iter().all(|p| *p <= 0) {
            return Ok(core);
        }
        let lo: Vec<i64> = low.iter().map(|l| (*l).max(0)).collect();
        let hi: Vec<i64> = high.iter().map(|h| (*h).max(0)).collect();
        let index = e.ctx.index_type();
        let mut fill = |inner: &mut Builder<'_>, _: &[ValueId]| -> Result<Vec<ValueId>, String> {
            Ok(vec![inner.scalar(elem, value)?])
        };
        let props = [
            ("static_low", i64s(e.ctx, &lo)),
            ("static_high", i64s(e.ctx, &hi)),
            ("operandSegmentSizes", segments(e.ctx, &[1, 0, 0])),
        ];
        return Ok(e.op_with_region(
            "tensor.pad",
            &[core],
            &[out],
            &props,
            &vec![index; rank],
            "tensor.yield",
            &mut fill,
        )?[0]);
    }
    if shape.contains(&0) {
        return Err(format!("{mode} padding cannot extend an empty dimension"));
    }
    generate(e, x, out, &mut |e, ivs| {
        let mut at = Vec::new();
        for (d, iv) in ivs.iter().enumerate() {
            let dim = shape[d];
            let p = index_op(e, arith::Op::Subi, *iv, low[d])?;
            at.push(match mode {
                "edge" => {
                    let zero = e.index(0)?;
                    let last = e.index(dim - 1)?;
                    let index = e.ctx.index_type();
                    let lo = e.op1("arith.maxsi", &[p, zero], index, &[])?;
                    e.op1("arith.minsi", &[lo, last], index, &[])?
                }
                "reflect" if dim > 1 => {
                    let period = 2 * (dim - 1);
                    let m = rem_euclid(e, p, period)?;
                    let limit = e.index(dim)?;
                    let inside = index_less(e, m, limit)?;
                    let k = e.index(period)?;
                    let index = e.ctx.index_type();
                    let mirrored = e.op1("arith.subi", &[k, m], index, &[])?;
                    index_select(e, inside, m, mirrored)?
                }
                "reflect" => e.index(0)?,
                "wrap" => rem_euclid(e, p, dim)?,
                other => return Err(format!("no lowering of pad mode '{other}'")),
            });
        }
        Ok(at)
    })
}

/// The reductions: `tensor.reduce` over the (sorted) axes into the identity of the
/// combination, `reduce_mean` then divided by the count, and the result reshaped
/// to keep or drop the reduced dimensions.
pub(super) fn reduce(
    e: &mut Builder<'_>,
    name: &str,
    x: ValueId,
    out: TypeId,
    a: &Attrs<'_>,
) -> Result<ValueId, String> {
    let (shape, elem) = shape_of(e.ctx, e.type_of(x))?;
    let (out_shape, _) = shape_of(e.ctx, out)?;
    let mut axes: Vec<usize> = match a.ints("axes")? {
        Some(list) => list
            .iter()
            .map(|v| axis(*v, shape.len()))
            .collect::<Result<_, _>>()?,
        None => (0..shape.len()).collect(),
    };
    axes.sort_unstable();
    axes.dedup();
    if axes.is_empty() {
        return reshape(e, x, &out_shape);
    }
    let float = is_float(e.ctx, elem);
    let width = match e.ctx.type_data(elem) {
        TypeData::Integer {
            signedness: acc_ir::Signedness::Unsigned,
            ..
        } => return Err("reductions of unsigned integers have no lowering yet".into()),
        TypeData::Integer { width, .. } => *width,
        _ => 64,
    };
    // An integer mean adds up in i64 (the interpreter's sum does not wrap), divides,
    // then truncates back.
    let (x, elem) = if name == "reduce_mean" && !float && width < 64 {
        let i64t = e.ctx.int_type(64);
        let wide = tensor_type(e.ctx, &shape, i64t);
        let w = map_with(e, &[x], wide, &mut |inner, args| {
            inner.op1("arith.extsi", &[args[0]], i64t, &[])
        })?;
        (w, i64t)
    } else {
        (x, elem)
    };
    let bound = |high: bool| -> Scalar {
        match (float, high) {
            (true, false) => Scalar::Float(f64::NEG_INFINITY),
            (true, true) => Scalar::Float(f64::INFINITY),
            (false, false) => Scalar::Int(-(1i128 << (width - 1))),
            (false, true) => Scalar::Int((1i128 << (width - 1)) - 1),
        }
    };
    let number = |v: f64| {
        if float {
            Scalar::Float(v)
        } else {
            Scalar::Int(v as i128)
        }
    };
    // Max and min skip NaN, as the interpreter's f64::max does.
    let (f, i, start) = match name {
        "reduce_sum" | "reduce_mean" => ("addf", "addi", number(0.0)),
        "reduce_prod" => ("mulf", "muli", number(1.0)),
        "reduce_max" => ("maxnumf", "maxsi", bound(false)),
        "reduce_min" => ("minnumf", "minsi", bound(true)),
        other => return Err(format!("no reduction named '{other}'")),
    };
    let kept: Vec<i64> = (0..shape.len())
        .filter(|d| !axes.contains(d))
        .map(|d| shape[d])
        .collect();
    let ty = tensor_type(e.ctx, &kept, elem);
    let attr = acc_ir::elements::dense_attr(e.ctx, ty, &[start]).ok_or("cannot make a start")?;
    let init = e.op1("arith.constant", &[], ty, &[("value", attr)])?;
    let dims: Vec<i64> = axes.iter().map(|d| *d as i64).collect();
    let dims = i64s(e.ctx, &dims);
    let mut combine = |inner: &mut Builder<'_>, args: &[ValueId]| -> Result<Vec<ValueId>, String> {
        Ok(vec![arith(inner, f, i, &[args[0], args[1]], elem)?])
    };
    let mut v = e.op_with_region(
        "tensor.reduce",
        &[x, init],
        &[ty],
        &[("dimensions", dims)],
        &[elem, elem],
        "tensor.yield",
        &mut combine,
    )?[0];
    if name == "reduce_mean" {
        let count: i64 = axes.iter().map(|d| shape[*d]).product();
        let (_, result_elem) = shape_of(e.ctx, out)?;
        let rty = tensor_type(e.ctx, &kept, result_elem);
        v = map_with(e, &[v], rty, &mut |inner, args| {
            let n = inner.scalar(elem, count as f64)?;
            let q = arith(inner, "divf", "divsi", &[args[0], n], elem)?;
            if result_elem == elem {
                Ok(q)
            } else {
                inner.op1("arith.trunci", &[q], result_elem, &[])
            }
        })?;
    }
    reshape(e, v, &out_shape)
}

/// `sort` and `topk`: a `tensor.sort` along the axis (descending for `descending`
/// and for topk's `largest`), topk then keeping the first `k` with
/// `tensor.extract_slice`s. Returns the values and the indices.
pub(super) fn sort(
    e: &mut Builder<'_>,
    topk: bool,
    x: ValueId,
    outs: [TypeId; 2],
    a: &Attrs<'_>,
) -> Result<Vec<ValueId>, String> {
    let (shape, elem) = shape_of(e.ctx, e.type_of(x))?;
    if let TypeData::Integer {
        signedness: acc_ir::Signedness::Unsigned,
        ..
    } = e.ctx.type_data(elem)
    {
        return Err("sorts of unsigned integers have no lowering yet".into());
    }
    let ax = axis(a.int("axis")?.unwrap_or(-1), shape.len())?;
    let descending = if topk {
        a.get("largest").is_none() || a.flag("largest")
    } else {
        a.flag("descending")
    };
    let (_, index_elem) = shape_of(e.ctx, outs[1])?;
    let values_ty = tensor_type(e.ctx, &shape, elem);
    let indices_ty = tensor_type(e.ctx, &shape, index_elem);
    let values_init = e.op1("tensor.empty", &[], values_ty, &[])?;
    let indices_init = e.op1("tensor.empty", &[], indices_ty, &[])?;
    let dim = acc_dialects::build::i64_attr(e.ctx, ax as i64);
    let flag = acc_ir::elements::scalar_attr(
        e.ctx,
        e.ctx.int_type(1),
        acc_ir::elements::Scalar::Int(i128::from(descending)),
    )
    .ok_or("cannot make a flag")?;
    let sorted = e.op(
        "tensor.sort",
        &[x, values_init, indices_init],
        &[values_ty, indices_ty],
        &[("dimension", dim), ("descending", flag)],
    )?;
    if !topk {
        return Ok(sorted);
    }
    let k = a.req_int("k")?;
    if k > shape[ax] || k < 0 {
        return Err(format!("k = {k} is not in [0, {}]", shape[ax]));
    }
    if k == shape[ax] {
        return Ok(sorted);
    }
    let offsets = vec![0; shape.len()];
    let strides = vec![1; shape.len()];
    Ok(vec![
        extract(e, sorted[0], outs[0], &offsets, &strides)?,
        extract(e, sorted[1], outs[1], &offsets, &strides)?,
    ])
}
