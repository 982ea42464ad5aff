//! `gather`, `gather_elements`, `gather_nd`, `arg_max`/`arg_min` and `cumsum`: each a
//! `tensor.generate` over the result whose region reads its operands with
//! `tensor.extract` at computed positions. Arg reductions and running sums walk
//! their line with a `loop.for` inside the region, in the interpreter's order, so that
//! every level computes the same elements (running float sums bit for bit).
//!
//! Indices are normalized as `acc_dialects::hooks::shape::gather_index` says: a
//! negative index counts from the end, and one still outside its dimension is
//! clamped into it.

use acc_dialects::build::BuildExt as _;
use acc_dialects::build::{
    Builder, clamp_index, cmpf, cmpi, for_carrying, index_op, is_float, shape_of,
};
use acc_dialects::hooks::attr_read::Attrs;
use acc_dialects::hooks::shape::gather_nd_shape;
use acc_dialects::ops::{arith, graph, tensor};
use acc_ir::{TypeId, ValueId};

use super::data::axis;

/// The elements of one result position, from its indices.
type ElementAt<'f> = dyn FnMut(&mut Builder<'_>, &[ValueId]) -> Result<ValueId, String> + 'f;

/// A `tensor.generate` of type `out` whose element at each index `element` computes.
fn generate(
    e: &mut Builder<'_>,
    out: TypeId,
    element: &mut ElementAt<'_>,
) -> Result<ValueId, String> {
    let (shape, _) = shape_of(e.ctx, out)?;
    let index = e.ctx.index_type();
    let mut fill = |inner: &mut Builder<'_>, ivs: &[ValueId]| -> Result<Vec<ValueId>, String> {
        Ok(vec![element(inner, ivs)?])
    };
    let body = e.region(&vec![index; shape.len()], tensor::Yield::NAME, &mut fill)?;
    tensor::Generate::build(e, &[], out).body(body).result()
}

/// `tensor.extract` of `t` at `at`.
fn extract(e: &mut Builder<'_>, t: ValueId, at: &[ValueId]) -> Result<ValueId, String> {
    let (_, elem) = shape_of(e.ctx, e.type_of(t))?;
    tensor::Extract::build(e, t, at, elem).result()
}

/// The element of the index tensor `indices` at `at`, as a position along a
/// dimension of `dim`: negative ones count from the end, then clamped to `[0, dim)`.
fn position(
    e: &mut Builder<'_>,
    indices: ValueId,
    at: &[ValueId],
    dim: i64,
) -> Result<ValueId, String> {
    if dim <= 0 {
        return Err("gathers along an empty or dynamic dimension".into());
    }
    let raw = extract(e, indices, at)?;
    let index = e.ctx.index_type();
    let i = arith::IndexCast::build(e, raw, index).result()?;
    let zero = e.index(0)?;
    let negative = e.cmpi(cmpi::SLT, i, zero)?;
    let wrapped = index_op(e, arith::Op::Addi, i, dim)?;
    let i = arith::Select::build(e, negative, wrapped, i, index).result()?;
    clamp_index(e, i, dim)
}

/// The shapes of the input and of the indices of a gather.
fn shapes(e: &Builder<'_>, x: ValueId, indices: ValueId) -> Result<[Vec<i64>; 2], String> {
    Ok([
        shape_of(e.ctx, e.type_of(x))?.0,
        shape_of(e.ctx, e.type_of(indices))?.0,
    ])
}

/// `gather` of `x` at `indices` along the `axis` attribute.
pub(super) fn gather(
    e: &mut Builder<'_>,
    x: ValueId,
    indices: ValueId,
    out: TypeId,
    a: &Attrs<'_>,
) -> Result<ValueId, String> {
    let [shape, index_shape] = shapes(e, x, indices)?;
    let ax = axis(a.int(graph::Gather::ATTR_AXIS)?.unwrap_or(0), shape.len())?;
    let q = index_shape.len();
    generate(e, out, &mut |e, ivs| {
        let mut at = ivs[..ax].to_vec();
        at.push(position(e, indices, &ivs[ax..ax + q], shape[ax])?);
        at.extend(&ivs[ax + q..]);
        extract(e, x, &at)
    })
}

/// `gather_elements` of `x` at `indices` along the `axis` attribute.
pub(super) fn gather_elements(
    e: &mut Builder<'_>,
    x: ValueId,
    indices: ValueId,
    out: TypeId,
    a: &Attrs<'_>,
) -> Result<ValueId, String> {
    let [shape, index_shape] = shapes(e, x, indices)?;
    let ax = axis(
        a.int(graph::GatherElements::ATTR_AXIS)?.unwrap_or(0),
        shape.len(),
    )?;
    if index_shape
        .iter()
        .zip(&shape)
        .enumerate()
        .any(|(d, (i, n))| d != ax && i > n)
    {
        return Err(format!(
            "indices of shape {index_shape:?} reach outside an input of shape {shape:?}"
        ));
    }
    generate(e, out, &mut |e, ivs| {
        let mut at = ivs.to_vec();
        at[ax] = position(e, indices, ivs, shape[ax])?;
        extract(e, x, &at)
    })
}

/// `gather_nd` of `x` at the index tuples of `indices` after `batch_dims`.
pub(super) fn gather_nd(
    e: &mut Builder<'_>,
    x: ValueId,
    indices: ValueId,
    out: TypeId,
    a: &Attrs<'_>,
) -> Result<ValueId, String> {
    let [shape, index_shape] = shapes(e, x, indices)?;
    let b = a.int(graph::GatherNd::ATTR_BATCH_DIMS)?.unwrap_or(0);
    gather_nd_shape(&shape, &index_shape, b)?;
    let (b, q) = (b as usize, index_shape.len());
    let k = index_shape[q - 1] as usize;
    generate(e, out, &mut |e, ivs| {
        let mut at = ivs[..b].to_vec();
        let mut tuple = ivs[..q - 1].to_vec();
        tuple.push(ivs[0]);
        for t in 0..k {
            tuple[q - 1] = e.index(t as i64)?;
            at.push(position(e, indices, &tuple, shape[b + t])?);
        }
        at.extend(&ivs[q - 1..]);
        extract(e, x, &at)
    })
}

/// Whether `c` replaces the best element `b` so far (as `acc_interp`'s arg
/// reductions decide): strictly better, or as good when the last position is wanted;
/// a NaN beats every number, and a later NaN an earlier one only for the last position.
fn better(
    e: &mut Builder<'_>,
    c: ValueId,
    b: ValueId,
    elem: TypeId,
    max: bool,
    last: bool,
) -> Result<ValueId, String> {
    if !is_float(e.ctx, elem) {
        let unsigned = crate::is_unsigned(e.ctx, elem);
        let predicate = match (max, last, unsigned) {
            (true, false, false) => cmpi::SGT,
            (true, true, false) => cmpi::SGE,
            (false, false, false) => cmpi::SLT,
            (false, true, false) => cmpi::SLE,
            (true, false, true) => cmpi::UGT,
            (true, true, true) => cmpi::UGE,
            (false, false, true) => cmpi::ULT,
            (false, true, true) => cmpi::ULE,
        };
        return e.cmpi(predicate, c, b);
    }
    let predicate = match (max, last) {
        (true, false) => cmpf::OGT,
        (true, true) => cmpf::OGE,
        (false, false) => cmpf::OLT,
        (false, true) => cmpf::OLE,
    };
    let ordered_better = e.cmpf(predicate, c, b)?;
    let bool_type = e.ctx.int_type(1);
    let c_nan = e.cmpf(cmpf::UNO, c, c)?;
    let b_nan = e.cmpf(cmpf::UNO, b, b)?;
    // c is NaN and b is not (or b is too, for the last position).
    let nan_wins = if last {
        c_nan
    } else {
        let one = e.scalar(bool_type, 1.0)?;
        let b_number = arith::Xori::build(e, b_nan, one, bool_type).result()?;
        arith::Andi::build(e, c_nan, b_number, bool_type).result()?
    };
    arith::Ori::build(e, ordered_better, nan_wins, bool_type).result()
}

/// `arg_max` (`max`) or `arg_min` of `x`: per result position, a `loop.for` along the
/// axis carrying the best element and its position.
pub(super) fn arg_reduce(
    e: &mut Builder<'_>,
    max: bool,
    x: ValueId,
    out: TypeId,
    a: &Attrs<'_>,
) -> Result<ValueId, String> {
    let (shape, elem) = shape_of(e.ctx, e.type_of(x))?;
    let ax = axis(a.int(graph::ArgMax::ATTR_AXIS)?.unwrap_or(0), shape.len())?;
    let keep =
        a.get(graph::ArgMax::ATTR_KEEPDIMS).is_none() || a.flag(graph::ArgMax::ATTR_KEEPDIMS);
    let last = a.flag(graph::ArgMax::ATTR_SELECT_LAST_INDEX);
    let (_, out_elem) = shape_of(e.ctx, out)?;
    let len = shape[ax];
    if len <= 0 {
        return Err("an arg reduction over an empty or dynamic axis".into());
    }
    generate(e, out, &mut |e, ivs| {
        // The input position of the line's element `j`.
        let line = |j: ValueId| -> Vec<ValueId> {
            let mut at = ivs.to_vec();
            if keep {
                at[ax] = j;
            } else {
                at.insert(ax, j);
            }
            at
        };
        let zero = e.index(0)?;
        let first = extract(e, x, &line(zero))?;
        let (one, end) = (e.index(1)?, e.index(len)?);
        let index = e.ctx.index_type();
        let best = for_carrying(e, [one, end], &[first, zero], &mut |e, j, carried| {
            let v = extract(e, x, &line(j))?;
            let wins = better(e, v, carried[0], elem, max, last)?;
            Ok(vec![
                arith::Select::build(e, wins, v, carried[0], elem).result()?,
                arith::Select::build(e, wins, j, carried[1], index).result()?,
            ])
        })?;
        arith::IndexCast::build(e, best[1], out_elem).result()
    })
}

/// `cumsum` of `x`: per element, a `loop.for` adding the line's elements up to it
/// (from the end with `reverse`; without it with `exclusive`) to zero, in order.
pub(super) fn cumsum(
    e: &mut Builder<'_>,
    x: ValueId,
    out: TypeId,
    a: &Attrs<'_>,
) -> Result<ValueId, String> {
    let (shape, elem) = shape_of(e.ctx, e.type_of(x))?;
    let ax = axis(a.req_int(graph::Cumsum::ATTR_AXIS)?, shape.len())?;
    let (exclusive, reverse) = (
        a.flag(graph::Cumsum::ATTR_EXCLUSIVE),
        a.flag(graph::Cumsum::ATTR_REVERSE),
    );
    let len = shape[ax];
    if len < 0 {
        return Err("a running sum along a dynamic axis".into());
    }
    let float = is_float(e.ctx, elem);
    generate(e, out, &mut |e, ivs| {
        let i = ivs[ax];
        // Steps taken: the elements up to i (from the start, or from the end).
        let count = match (reverse, exclusive) {
            (false, false) => index_op(e, arith::Op::Addi, i, 1)?,
            (false, true) => i,
            (true, _) => {
                let n = e.index(len - i64::from(exclusive))?;
                let index = e.ctx.index_type();
                arith::Subi::build(e, n, i, index).result()?
            }
        };
        let zero_index = e.index(0)?;
        let zero = e.scalar(elem, 0.0)?;
        let sum = for_carrying(e, [zero_index, count], &[zero], &mut |e, k, carried| {
            let j = if reverse {
                let index = e.ctx.index_type();
                let end = e.index(len - 1)?;
                arith::Subi::build(e, end, k, index).result()?
            } else {
                k
            };
            let mut at = ivs.to_vec();
            at[ax] = j;
            let v = extract(e, x, &at)?;
            let next = if float {
                arith::Addf::build(e, carried[0], v, elem).result()?
            } else {
                arith::Addi::build(e, carried[0], v, elem).result()?
            };
            Ok(vec![next])
        })?;
        Ok(sum[0])
    })
}
