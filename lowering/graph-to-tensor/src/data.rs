//! Lowerings of the graph ops that move, convert or combine elements: cast, concat,
//! slice, pad, the reductions, sort and topk.

use acc_dialects::build::BuildExt as _;
use acc_dialects::hooks::attr_read::Attrs;
use acc_dialects::hooks::shape::slice_plan;
use acc_dialects::ops::{arith, graph, tensor};
use acc_ir::elements::Scalar;
use acc_ir::{TypeData, TypeId, ValueId};

use super::{Builder, arith_op, flip_sign_bits, map_with, reshape};
use acc_dialects::build::{cmpi, i64s, index_op, is_float, shape_of, tensor_type};
use acc_ir::minifloat::ScaleRounding;

/// `cast`: one conversion per element (`extf`/`truncf`, `sitofp`/`uitofp`,
/// `fptosi`/`fptoui`, `extsi`/`extui`/`trunci` by the types). With `wrap`, a float
/// goes through i64 and is truncated to the result's width. With `saturate`, a float
/// is clamped to the small float result's largest finite value before `truncf`
/// (`minimumf`/`maximumf`, which keep NaN). To `f8E8M0FNU`, ONNX's own rule in
/// integer ops ([`e8m0`]).
pub(super) fn cast(
    e: &mut Builder<'_>,
    x: ValueId,
    out: TypeId,
    wrap: bool,
    saturate: bool,
    rounding: ScaleRounding,
) -> Result<ValueId, String> {
    let (_, from) = shape_of(e.ctx, e.type_of(x))?;
    let (_, to) = shape_of(e.ctx, out)?;
    if from == to {
        return Ok(x);
    }
    let small = match e.ctx.type_data(to) {
        TypeData::Float(k) => acc_ir::minifloat::MiniFloat::of(*k).map(|f| (*k, f)),
        _ => None,
    };
    if let Some((kind, _)) = small
        && kind == acc_ir::FloatKind::F8E8M0FNU
    {
        if !is_float(e.ctx, from) {
            return Err("casts of integers to f8E8M0FNU have no lowering yet".into());
        }
        return map_with(e, &[x], out, &mut |e, args| {
            e8m0(e, args[0], to, saturate, rounding)
        });
    }
    let bound = match (saturate, small, e.ctx.type_data(from)) {
        (true, Some((_, format)), TypeData::Float(_)) => Some(format.max()),
        (true, Some(_), _) => {
            return Err("saturating casts of integers have no lowering yet".into());
        }
        _ => None,
    };
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
            // f16 and bf16 (the one pair of one width): through f32, which holds
            // either exactly, so the value rounds once.
            (_, _, Some(a), Some(b)) if a == b => {
                let f32t = e.ctx.float_type(acc_ir::FloatKind::F32);
                let wide = arith::Extf::build(e, v, f32t).result()?;
                arith::Truncf::build(e, wide, to).result()
            }
            (_, _, Some(a), Some(b)) => {
                if a < b {
                    arith::Extf::build(e, v, to).result()
                } else if let Some(max) = bound {
                    let high = e.scalar(from, max)?;
                    let low = e.scalar(from, -max)?;
                    let v = arith::Minimumf::build(e, v, high, from).result()?;
                    let v = arith::Maximumf::build(e, v, low, from).result()?;
                    arith::Truncf::build(e, v, to).result()
                } else {
                    arith::Truncf::build(e, v, to).result()
                }
            }
            (Some((_, unsigned)), _, _, Some(_)) => {
                if unsigned {
                    arith::Uitofp::build(e, v, to).result()
                } else {
                    arith::Sitofp::build(e, v, to).result()
                }
            }
            (_, Some((1, _)), Some(_), _) => {
                Err("casts of floats to i1 have no lowering yet".into())
            }
            (_, Some((w, _)), Some(_), _) if wrap && w < 64 => {
                let wide = arith::Fptosi::build(e, v, i64t).result()?;
                arith::Trunci::build(e, wide, to).result()
            }
            (_, Some((_, unsigned)), Some(_), _) => {
                if unsigned {
                    arith::Fptoui::build(e, v, to).result()
                } else {
                    arith::Fptosi::build(e, v, to).result()
                }
            }
            (Some((a, unsigned)), Some((b, _)), _, _) if a != b => {
                // Booleans become 0 and 1, as in ONNX.
                match (a < b, unsigned || a == 1) {
                    (true, false) => arith::Extsi::build(e, v, to).result(),
                    (true, true) => arith::Extui::build(e, v, to).result(),
                    (false, _) => arith::Trunci::build(e, v, to).result(),
                }
            }
            // Signed and unsigned integers of one width hold the same bits (ONNX's
            // cast wraps): signless below the graph level, one value.
            (Some((a, _)), Some((b, _)), _, _) if a == b => Ok(v),
            _ => Err("no conversion between these element types".into()),
        }
    })
}

/// ONNX's Cast of the float `v` to `f8E8M0FNU` (the interpreter's
/// [`acc_ir::minifloat::e8m0_from_f32`]): the biased exponent of `v` as an `f32`, one
/// more when `rounding` rounds its fraction up (not past 0xFE with `saturate`), 0xFF
/// for infinities and NaN; its byte bitcast to `to`.
fn e8m0(
    e: &mut Builder<'_>,
    v: ValueId,
    to: TypeId,
    saturate: bool,
    rounding: ScaleRounding,
) -> Result<ValueId, String> {
    let f32t = e.ctx.float_type(acc_ir::FloatKind::F32);
    let (i32t, i8t, i1t) = (e.ctx.int_type(32), e.ctx.int_type(8), e.ctx.int_type(1));
    let v = match e.ctx.type_data(e.type_of(v)) {
        TypeData::Float(k) if k.width() < 32 => arith::Extf::build(e, v, f32t).result()?,
        TypeData::Float(k) if k.width() > 32 => arith::Truncf::build(e, v, f32t).result()?,
        _ => v,
    };
    let bits = arith::Bitcast::build(e, v, i32t).result()?;
    let int = |e: &mut Builder<'_>, n: i64| e.scalar(i32t, n as f64);
    let low_bits = |e: &mut Builder<'_>, mask: i64| -> Result<ValueId, String> {
        let m = int(e, mask)?;
        let part = arith::Andi::build(e, bits, m, i32t).result()?;
        let zero = int(e, 0)?;
        e.cmpi(cmpi::NE, part, zero)
    };
    let twenty_three = int(e, 23)?;
    let shifted = arith::Shrui::build(e, bits, twenty_three, i32t).result()?;
    let byte = int(e, 0xFF)?;
    let exponent = arith::Andi::build(e, shifted, byte, i32t).result()?;
    let up = match rounding {
        ScaleRounding::Up => low_bits(e, 0x7F_FFFF)?,
        ScaleRounding::Down => e.scalar(i1t, 0.0)?,
        ScaleRounding::Nearest => {
            // The guard bit, and then the round or sticky bits or a normal exponent.
            let guard = low_bits(e, 0x40_0000)?;
            let round_or_sticky = low_bits(e, 0x3F_FFFF)?;
            let zero = int(e, 0)?;
            let normal = e.cmpi(cmpi::UGT, exponent, zero)?;
            let either = arith::Ori::build(e, round_or_sticky, normal, i1t).result()?;
            arith::Andi::build(e, guard, either, i1t).result()?
        }
    };
    let up = if saturate {
        let top = int(e, 0xFE)?;
        let below_top = e.cmpi(cmpi::NE, exponent, top)?;
        arith::Andi::build(e, up, below_top, i1t).result()?
    } else {
        up
    };
    let step = arith::Extui::build(e, up, i32t).result()?;
    let rounded = arith::Addi::build(e, exponent, step, i32t).result()?;
    let special = e.cmpi(cmpi::EQ, exponent, byte)?;
    let result = arith::Select::build(e, special, byte, rounded, i32t).result()?;
    let result = arith::Trunci::build(e, result, i8t).result()?;
    arith::Bitcast::build(e, result, to).result()
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
    let (o, s, st) = (
        i64s(e.ctx, offsets),
        i64s(e.ctx, &sizes),
        i64s(e.ctx, &vec![1; sizes.len()]),
    );
    tensor::InsertSlice::build(e, source, dest, &[], &[], &[], ty)
        .static_offsets(o)
        .static_sizes(s)
        .static_strides(st)
        .result()
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
    let (o, s, st) = (
        i64s(e.ctx, offsets),
        i64s(e.ctx, &sizes),
        i64s(e.ctx, strides),
    );
    tensor::ExtractSlice::build(e, x, &[], &[], &[], out)
        .static_offsets(o)
        .static_sizes(s)
        .static_strides(st)
        .result()
}

/// `concat`: each input inserted into an empty result at its offset along `axis`.
pub(super) fn concat(
    e: &mut Builder<'_>,
    inputs: &[ValueId],
    out: TypeId,
    a: &Attrs<'_>,
) -> Result<ValueId, String> {
    let (shape, _) = shape_of(e.ctx, out)?;
    let ax = axis(a.req_int(graph::Concat::ATTR_AXIS)?, shape.len())?;
    let mut acc = tensor::Empty::build(e, &[], out).result()?;
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
        Ok(vec![tensor::Extract::build(inner, x, &at, elem).result()?])
    };
    let body = e.region(&vec![index; shape.len()], tensor::Yield::NAME, &mut fill)?;
    tensor::Generate::build(e, &[], out).body(body).result()
}

/// `select(c, a, b)` on indices.
fn index_select(
    e: &mut Builder<'_>,
    c: ValueId,
    a: ValueId,
    b: ValueId,
) -> Result<ValueId, String> {
    let index = e.ctx.index_type();
    arith::Select::build(e, c, a, b, index).result()
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
    let pads = a.ints(graph::Pad::ATTR_PADS)?.ok_or("requires 'pads'")?;
    if pads.len() != 2 * rank {
        return Err(format!("'pads' must have {} values", 2 * rank));
    }
    let (low, high) = pads.split_at(rank);
    if mode == "constant" {
        let value = a
            .get(graph::Pad::ATTR_VALUE)
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
        let (low, high) = (i64s(e.ctx, &lo), i64s(e.ctx, &hi));
        let region = e.region(&vec![index; rank], tensor::Yield::NAME, &mut fill)?;
        return tensor::Pad::build(e, core, &[], &[], out)
            .static_low(low)
            .static_high(high)
            .region(region)
            .result();
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
                    let lo = arith::Maxsi::build(e, p, zero, index).result()?;
                    arith::Minsi::build(e, lo, last, index).result()?
                }
                "reflect" if dim > 1 => {
                    let period = 2 * (dim - 1);
                    let m = rem_euclid(e, p, period)?;
                    let limit = e.index(dim)?;
                    let inside = index_less(e, m, limit)?;
                    let k = e.index(period)?;
                    let index = e.ctx.index_type();
                    let mirrored = arith::Subi::build(e, k, m, index).result()?;
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
    op: graph::Op,
    x: ValueId,
    out: TypeId,
    a: &Attrs<'_>,
) -> Result<ValueId, String> {
    let (shape, elem) = shape_of(e.ctx, e.type_of(x))?;
    let (out_shape, _) = shape_of(e.ctx, out)?;
    let mut axes: Vec<usize> = match a.ints(graph::ReduceSum::ATTR_AXES)? {
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
        TypeData::Integer { width, .. } => *width,
        _ => 64,
    };
    // Booleans are 0 and 1 (ONNX's max is "or", min is "and"): compared unsigned,
    // since the signed i1 `true` is -1.
    let unsigned = !float && (width == 1 || crate::is_unsigned(e.ctx, elem));
    // An integer mean adds up in i64 (the interpreter's sum does not wrap), divides,
    // then truncates back.
    let (x, elem) = if op == graph::Op::ReduceMean && !float && width < 64 {
        let i64t = e.ctx.int_type(64);
        let wide = tensor_type(e.ctx, &shape, i64t);
        let w = map_with(e, &[x], wide, &mut |inner, args| {
            if unsigned {
                arith::Extui::build(inner, args[0], i64t).result()
            } else {
                arith::Extsi::build(inner, args[0], i64t).result()
            }
        })?;
        (w, i64t)
    } else {
        (x, elem)
    };
    let bound = |high: bool| -> Scalar {
        match (float, high) {
            (true, false) => Scalar::Float(f64::NEG_INFINITY),
            (true, true) => Scalar::Float(f64::INFINITY),
            (false, false) if unsigned => Scalar::Int(0),
            (false, true) if unsigned => Scalar::Int((1i128 << width) - 1),
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
    let (f, i, start) = match op {
        graph::Op::ReduceSum | graph::Op::ReduceMean => {
            (arith::Op::Addf, arith::Op::Addi, number(0.0))
        }
        graph::Op::ReduceProd => (arith::Op::Mulf, arith::Op::Muli, number(1.0)),
        graph::Op::ReduceMax if unsigned => (arith::Op::Maxnumf, arith::Op::Maxui, bound(false)),
        graph::Op::ReduceMin if unsigned => (arith::Op::Minnumf, arith::Op::Minui, bound(true)),
        graph::Op::ReduceMax => (arith::Op::Maxnumf, arith::Op::Maxsi, bound(false)),
        graph::Op::ReduceMin => (arith::Op::Minnumf, arith::Op::Minsi, bound(true)),
        other => {
            return Err(format!("no reduction named '{}'", other.short_name()));
        }
    };
    let kept: Vec<i64> = (0..shape.len())
        .filter(|d| !axes.contains(d))
        .map(|d| shape[d])
        .collect();
    let ty = tensor_type(e.ctx, &kept, elem);
    let attr = acc_ir::elements::dense_attr(e.ctx, ty, &[start]).ok_or("cannot make a start")?;
    let init = arith::Constant::build(e, ty).value(attr).result()?;
    let dims: Vec<i64> = axes.iter().map(|d| *d as i64).collect();
    let dims = i64s(e.ctx, &dims);
    let mut combine = |inner: &mut Builder<'_>, args: &[ValueId]| -> Result<Vec<ValueId>, String> {
        Ok(vec![arith_op(
            inner,
            f,
            Some(i),
            &[args[0], args[1]],
            elem,
        )?])
    };
    let combiner = e.region(&[elem, elem], tensor::Yield::NAME, &mut combine)?;
    let mut v = tensor::Reduce::build(e, x, init, ty)
        .dimensions(dims)
        .combiner(combiner)
        .result()?;
    if op == graph::Op::ReduceMean {
        let count: i64 = axes.iter().map(|d| shape[*d]).product();
        let (_, result_elem) = shape_of(e.ctx, out)?;
        let rty = tensor_type(e.ctx, &kept, result_elem);
        v = map_with(e, &[v], rty, &mut |inner, args| {
            let n = inner.scalar(elem, count as f64)?;
            let q = arith_op(
                inner,
                arith::Op::Divf,
                Some(if unsigned {
                    arith::Op::Divui
                } else {
                    arith::Op::Divsi
                }),
                &[args[0], n],
                elem,
            )?;
            if result_elem == elem {
                Ok(q)
            } else {
                arith::Trunci::build(inner, q, result_elem).result()
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
    // `tensor.sort` compares integers as signed: unsigned ones are sorted with their
    // sign bits flipped, then flipped back.
    let unsigned = crate::is_unsigned(e.ctx, elem);
    let x = if unsigned { flip_sign_bits(e, x)? } else { x };
    let ax = axis(a.int(graph::Sort::ATTR_AXIS)?.unwrap_or(-1), shape.len())?;
    let descending = if topk {
        a.get(graph::Topk::ATTR_LARGEST).is_none() || a.flag(graph::Topk::ATTR_LARGEST)
    } else {
        a.flag(graph::Sort::ATTR_DESCENDING)
    };
    let (_, index_elem) = shape_of(e.ctx, outs[1])?;
    let values_ty = tensor_type(e.ctx, &shape, elem);
    let indices_ty = tensor_type(e.ctx, &shape, index_elem);
    let values_init = tensor::Empty::build(e, &[], values_ty).result()?;
    let indices_init = tensor::Empty::build(e, &[], indices_ty).result()?;
    let dim = acc_dialects::build::i64_attr(e.ctx, ax as i64);
    let flag = acc_ir::elements::scalar_attr(
        e.ctx,
        e.ctx.int_type(1),
        acc_ir::elements::Scalar::Int(i128::from(descending)),
    )
    .ok_or("cannot make a flag")?;
    let mut sorted = tensor::Sort::build(e, x, values_init, indices_init, values_ty, indices_ty)
        .dimension(dim)
        .descending(flag)
        .results()?;
    if unsigned {
        sorted[0] = flip_sign_bits(e, sorted[0])?;
    }
    if !topk {
        return Ok(sorted);
    }
    let k = a.req_int(graph::Topk::ATTR_K)?;
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
