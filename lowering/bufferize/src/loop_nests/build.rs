//! Building blocks of the bufferized loops: index arithmetic, bounds, conversions,
//! loop nests, and the calls to the library GEMM.

use acc_dialects::build::BuildExt as _;
use acc_dialects::ops::{arith, loops};
use acc_ir::{TypeId, ValueId};

pub(crate) use acc_dialects::build::clamp_index as clamp;
use acc_dialects::build::{BodyBuilder, Builder, cmpi, for_carrying, is_float};

pub(crate) use acc_dialects::build::index_op;

pub(crate) fn index_add(e: &mut Builder<'_>, a: ValueId, b: ValueId) -> Result<ValueId, String> {
    let index = e.ctx.index_type();
    arith::Addi::build(e, a, b, index).result()
}

/// `iv * stride + offset`.
pub(crate) fn pos(
    e: &mut Builder<'_>,
    iv: ValueId,
    stride: i64,
    offset: i64,
) -> Result<ValueId, String> {
    let s = index_op(e, arith::Op::Muli, iv, stride)?;
    index_op(e, arith::Op::Addi, s, offset)
}

/// Whether `0 <= i < n`.
pub(crate) fn in_range(e: &mut Builder<'_>, i: ValueId, n: i64) -> Result<ValueId, String> {
    let zero = e.index(0)?;
    let limit = e.index(n)?;
    let lo = e.cmpi(cmpi::SGE, i, zero)?;
    let hi = e.cmpi(cmpi::SLT, i, limit)?;
    let i1 = e.ctx.int_type(1);
    arith::Andi::build(e, lo, hi, i1).result()
}

/// The condition `ok` and, when there is one, `so_far` (both `i1`).
pub(crate) fn and_also(
    e: &mut Builder<'_>,
    so_far: Option<ValueId>,
    ok: ValueId,
) -> Result<ValueId, String> {
    match so_far {
        None => Ok(ok),
        Some(prev) => {
            let i1 = e.ctx.int_type(1);
            arith::Andi::build(e, prev, ok, i1).result()
        }
    }
}

/// `x` converted from element type `from` to `to` (a narrower integer or float
/// widened), or `x` when they agree.
pub(crate) fn convert(
    e: &mut Builder<'_>,
    x: ValueId,
    from: TypeId,
    to: TypeId,
) -> Result<ValueId, String> {
    if from == to {
        return Ok(x);
    }
    let op = match (is_float(e.ctx, from), is_float(e.ctx, to)) {
        (true, true) => arith::Op::Extf,
        (false, false) => arith::Op::Extsi,
        (false, true) => arith::Op::Sitofp,
        (true, false) => return Err("float inputs into an integer result".into()),
    };
    e.op1(op.name(), &[x], to, &[])
}

/// `acc + x * y` in element type `ty`.
pub(crate) fn multiply_add(
    e: &mut Builder<'_>,
    x: ValueId,
    y: ValueId,
    acc: ValueId,
    ty: TypeId,
) -> Result<ValueId, String> {
    let (mul, add) = if is_float(e.ctx, ty) {
        (arith::Op::Mulf, arith::Op::Addf)
    } else {
        (arith::Op::Muli, arith::Op::Addi)
    };
    let p = e.op1(mul.name(), &[x, y], ty, &[])?;
    e.op1(add.name(), &[acc, p], ty, &[])
}

/// A `loop.for` from 0 to `n` carrying one value from `init`; `step` gives the next
/// value from the index and the carried one.
pub(crate) fn for_range(
    e: &mut Builder<'_>,
    n: i64,
    init: ValueId,
    step: &mut dyn FnMut(&mut Builder<'_>, ValueId, ValueId) -> Result<ValueId, String>,
) -> Result<ValueId, String> {
    let (lb, ub, one) = (e.index(0)?, e.index(n)?, e.index(1)?);
    let ty = e.type_of(init);
    let index = e.ctx.index_type();
    let mut fill = |inner: &mut Builder<'_>, args: &[ValueId]| -> Result<Vec<ValueId>, String> {
        Ok(vec![step(inner, args[0], args[1])?])
    };
    let region = e.region(&[index, ty], loops::Yield::NAME, &mut fill)?;
    Ok(loops::For::build(e, lb, ub, one, &[init], &[ty])
        .region(region)
        .results()?[0])
}

/// Whether position `j` of a line goes before the one being ranked: ordered strictly
/// before it (`strict`), or before it or equal to it (not `strict`), as an `i1`.
pub(crate) type LineOrder<'f> =
    dyn FnMut(&mut Builder<'_>, ValueId, bool) -> Result<ValueId, String> + 'f;

/// The rank of position `i` on a line of `end` (an index value; its place in a
/// stable sort): the positions before `i` that `order` puts before it or equal to
/// it, counted by one `loop.for`, plus the positions after `i` it puts strictly
/// before it, by another. Quadratic, and free of data-dependent branches.
pub(crate) fn rank_on_line(
    e: &mut Builder<'_>,
    end: ValueId,
    i: ValueId,
    order: &mut LineOrder<'_>,
) -> Result<ValueId, String> {
    let zero = e.index(0)?;
    let after = index_op(e, arith::Op::Addi, i, 1)?;
    let mut count = zero;
    for (range, strict) in [([zero, i], false), ([after, end], true)] {
        count = for_carrying(e, range, &[count], &mut |e, j, count| {
            let before = order(e, j, strict)?;
            let next = index_op(e, arith::Op::Addi, count[0], 1)?;
            let index = e.ctx.index_type();
            Ok(vec![
                arith::Select::build(e, before, next, count[0], index).result()?,
            ])
        })?[0];
    }
    Ok(count)
}

/// A `loop.parallel` over `shape` running `body` with the indices (directly when the
/// shape has no dimension).
pub(crate) fn parallel(
    e: &mut Builder<'_>,
    shape: &[i64],
    body: &mut BodyBuilder<'_>,
) -> Result<(), String> {
    parallel_range(e, &vec![0; shape.len()], shape, body)
}

/// A `loop.parallel` over the box `lower[d] <= index[d] < upper[d]` (unit steps)
/// running `body` with the indices.
pub(crate) fn parallel_range(
    e: &mut Builder<'_>,
    lower: &[i64],
    upper: &[i64],
    body: &mut BodyBuilder<'_>,
) -> Result<(), String> {
    if upper.is_empty() {
        return body(e, &[]);
    }
    let shape = upper;
    let lower = lower
        .iter()
        .map(|n| e.index(*n))
        .collect::<Result<Vec<_>, _>>()?;
    let upper = upper
        .iter()
        .map(|n| e.index(*n))
        .collect::<Result<Vec<_>, _>>()?;
    let steps = shape
        .iter()
        .map(|_| e.index(1))
        .collect::<Result<Vec<_>, _>>()?;
    let index = e.ctx.index_type();
    let mut fill = |inner: &mut Builder<'_>, ivs: &[ValueId]| -> Result<Vec<ValueId>, String> {
        body(inner, ivs)?;
        Ok(Vec::new())
    };
    // The builder records the three groups' sizes (`operandSegmentSizes`).
    let region = e.region(&vec![index; shape.len()], loops::Yield::NAME, &mut fill)?;
    loops::Parallel::build(e, &lower, &upper, &steps)
        .region(region)
        .create()?;
    Ok(())
}
