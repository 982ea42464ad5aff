//! `resize`: one `tensor.generate` per resampled dimension, in f64 (in the input's
//! type when every point only copies one input element).
//!
//! The taps of each output point (input points and weights, from
//! `acc_dialects::hooks::resample`, the interpreter's own arithmetic) depend only on
//! the sizes and attributes, so they are computed here and stored as constant tables:
//! each output element reads its point's taps from the tables and sums weight x input
//! in the interpreter's order. Every mode the interpreter has (nearest, linear, cubic,
//! antialiasing, exclude_outside, every coordinate transformation) lowers the same
//! way. Nearest points (a single weight of one) read their input without arithmetic.
//! Values stay in f64 across dimensions and are rounded once at the end, as in the
//! interpreter.

use acc_dialects::build::BuildExt as _;
use acc_dialects::hooks::attr_read::Attrs;
use acc_dialects::hooks::resample::{Resampling, Taps, resampled_axes};
use acc_dialects::ops::{arith, tensor};
use acc_ir::elements::{Scalar, dense_attr};
use acc_ir::{FloatKind, TypeId, ValueId};

use super::{Builder, map_with};
use acc_dialects::build::{is_float, shape_of, tensor_type};

/// `resize` of `x` to type `out`.
pub(super) fn resize(
    e: &mut Builder<'_>,
    x: ValueId,
    out: TypeId,
    a: &Attrs<'_>,
) -> Result<ValueId, String> {
    let (in_shape, elem) = shape_of(e.ctx, e.type_of(x))?;
    let (out_shape, _) = shape_of(e.ctx, out)?;
    if !is_float(e.ctx, elem) {
        return Err("resize needs floats".into());
    }
    let sizes = |s: &[i64]| -> Result<Vec<usize>, String> {
        s.iter()
            .map(|d| usize::try_from(*d).map_err(|_| "a dynamic size".to_string()))
            .collect()
    };
    let how = Resampling::of(e.ctx, a)?;
    let axes = resampled_axes(a, &how.coordinates, &sizes(&in_shape)?, &sizes(&out_shape)?)?;
    if axes.iter().all(Option::is_none) {
        return Ok(x);
    }
    let taps: Vec<(usize, Taps)> = axes
        .iter()
        .enumerate()
        .filter_map(|(axis, r)| Some((axis, how.taps(in_shape[axis] as usize, (*r)?))))
        .collect();
    // Only copies (nearest, nothing outside): no arithmetic, the input's type.
    let copies = taps
        .iter()
        .all(|(_, t)| is_pick(t) && t.iter().all(Option::is_some));
    let work = if copies {
        elem
    } else {
        e.ctx.float_type(FloatKind::F64)
    };
    let mut shape = in_shape.clone();
    let mut current = widen(e, x, &shape, elem, work)?;
    for (axis, t) in &taps {
        current = resample_axis(e, current, &mut shape, *axis, t, how.extrapolation, work)?;
    }
    widen(e, current, &shape, work, elem)
}

/// `x` (of `shape`) converted from element type `from` to `to` by a map.
fn widen(
    e: &mut Builder<'_>,
    x: ValueId,
    shape: &[i64],
    from: TypeId,
    to: TypeId,
) -> Result<ValueId, String> {
    if from == to {
        return Ok(x);
    }
    let width = |t: TypeId| match e.ctx.type_data(t) {
        acc_ir::TypeData::Float(k) => k.width(),
        _ => 0,
    };
    let wider = width(from) < width(to);
    let ty = tensor_type(e.ctx, shape, to);
    map_with(e, &[x], ty, &mut |inner, args| {
        if wider {
            arith::Extf::build(inner, args[0], to).result()
        } else {
            arith::Truncf::build(inner, args[0], to).result()
        }
    })
}

/// Whether every point of `taps` is one input point of weight one (nearest mode).
fn is_pick(taps: &Taps) -> bool {
    taps.iter().flatten().all(|t| {
        t.iter().filter(|(_, w)| *w == 1.0).count() == 1
            && t.iter().all(|(_, w)| *w == 0.0 || *w == 1.0)
    })
}

/// A 1-D constant tensor of `values` with element type `elem`.
fn table(e: &mut Builder<'_>, elem: TypeId, values: &[Scalar]) -> Result<ValueId, String> {
    let ty = tensor_type(e.ctx, &[values.len() as i64], elem);
    let attr = dense_attr(e.ctx, ty, values).ok_or("cannot make a table")?;
    arith::Constant::build(e, ty).value(attr).result()
}

/// Dimension `axis` of `x` (of `shape`, updated; elements of type `f`) resampled
/// with `taps`.
fn resample_axis(
    e: &mut Builder<'_>,
    x: ValueId,
    shape: &mut [i64],
    axis: usize,
    taps: &Taps,
    extrapolation: f64,
    f: TypeId,
) -> Result<ValueId, String> {
    let pick = is_pick(taps);
    let width = if pick {
        1
    } else {
        taps.iter().flatten().map(Vec::len).max().unwrap_or(1)
    };
    let mut indices = Vec::with_capacity(taps.len() * width);
    let mut weights = Vec::with_capacity(taps.len() * width);
    let mut outside = Vec::with_capacity(taps.len());
    for point in taps {
        outside.push(Scalar::Int(i128::from(point.is_none())));
        let chosen: Vec<(usize, f64)> = match point {
            None => Vec::new(),
            Some(t) if pick => t.iter().filter(|(_, w)| *w == 1.0).copied().collect(),
            Some(t) => t.clone(),
        };
        for k in 0..width {
            let (i, w) = chosen.get(k).copied().unwrap_or((0, 0.0));
            indices.push(Scalar::Int(i as i128));
            weights.push(Scalar::Float(w));
        }
    }
    let f64t = f;
    let i64t = e.ctx.int_type(64);
    let i8t = e.ctx.int_type(8);
    let index_table = table(e, i64t, &indices)?;
    let weight_table = if pick {
        None
    } else {
        Some(table(e, f64t, &weights)?)
    };
    let any_outside = taps.iter().any(Option::is_none);
    let outside_table = if any_outside {
        let flags: Vec<Scalar> = outside;
        Some(table(e, i8t, &flags)?)
    } else {
        None
    };
    shape[axis] = taps.len() as i64;
    let out = tensor_type(e.ctx, shape, f64t);
    let index = e.ctx.index_type();
    let rank = shape.len();
    let mut fill = |e: &mut Builder<'_>, ivs: &[ValueId]| -> Result<Vec<ValueId>, String> {
        let y = ivs[axis];
        let first = if width == 1 {
            y
        } else {
            let w = e.index(width as i64)?;
            arith::Muli::build(e, y, w, index).result()?
        };
        let mut sum: Option<ValueId> = None;
        for k in 0..width {
            let t = if k == 0 {
                first
            } else {
                let kk = e.index(k as i64)?;
                arith::Addi::build(e, first, kk, index).result()?
            };
            let j = tensor::Extract::build(e, index_table, &[t], i64t).result()?;
            let j = arith::IndexCast::build(e, j, index).result()?;
            let mut at = ivs.to_vec();
            at[axis] = j;
            let v = tensor::Extract::build(e, x, &at, f64t).result()?;
            let term = match weight_table {
                None => v,
                Some(wt) => {
                    let w = tensor::Extract::build(e, wt, &[t], f64t).result()?;
                    arith::Mulf::build(e, w, v, f64t).result()?
                }
            };
            sum = Some(match sum {
                None => term,
                Some(s) => arith::Addf::build(e, s, term, f64t).result()?,
            });
        }
        let mut value = sum.ok_or("a point without taps")?;
        if let Some(ot) = outside_table {
            let flag = tensor::Extract::build(e, ot, &[y], i8t).result()?;
            let zero = e.scalar(i8t, 0.0)?;
            let is_outside = e.cmpi(acc_dialects::build::cmpi::NE, flag, zero)?;
            let ex = e.scalar(f64t, extrapolation)?;
            value = arith::Select::build(e, is_outside, ex, value, f64t).result()?;
        }
        Ok(vec![value])
    };
    let body = e.region(&vec![index; rank], tensor::Yield::NAME, &mut fill)?;
    tensor::Generate::build(e, &[], out).body(body).result()
}
