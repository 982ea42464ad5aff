//! The quantized ops, on stored integers.
//!
//! A `!quant.uniform` tensor is seen as its stored integers with `tensor.bitcast`
//! (a view once bufferized); the scales and zero points are the type's, so they
//! become constants (one per tensor) or constant tables read at each element's
//! channel (per axis). The arithmetic is the interpreter's, step for step, so results
//! agree exactly:
//!
//! - quantize: `x / scale` in f64 rounded to f32, rounded half to even, plus the zero
//!   point, saturated (NaN gives the zero point);
//! - dequantize: `(q - zero) * scale` in f64, rounded to the result type.
//!
//!   Both are computed in f32 alone when every scale is an f32 (as ONNX's are), the
//!   storage has at most 16 bits and the zero points are in its range: the quotient and the product of two f32s
//!   rounded once to f32 are the ones f64 gives rounded to f32, and the integers
//!   involved are exact in f32 (or saturate either way), so the results are the
//!   same bits, and a host without double precision (a soft-float RV32) runs no f64
//!   helper routines;
//! - qmatmul, qconv2d: both operands minus their zero points as i32, the integer
//!   product or convolution (`tensor.matmul`, `tensor.conv2d`; the conv's zero padding
//!   is the input's zero point), then requantized by the op's scheme
//!   (`acc_ir::requant`): `float`, `acc * m + zero` saturated, with
//!   `m = f32(f32(s_in * s_w) / s_out)` computed at compile time per channel; or
//!   `fixed_point`, a Q31 multiplier and shift per channel (computed at compile time)
//!   applied in integer ops only, as TFLite and CMSIS-NN do.
//!
//! - lookup: the stored integer less the storage minimum indexes the table.
//!
//! Storage wider than 16 bits (8 for products, whose i32 accumulators must stay
//! exact), expressed types other than f32, and an output quantized per channel along
//! another dimension than the weight's are refused.

use acc_dialects::build::BuildExt as _;
use acc_dialects::ops::{arith, math, tensor};
use acc_ir::elements::{Scalar, dense_attr};
use acc_ir::requant::{self, FixedPointMultiplier, Scheme};

mod elementwise;
mod fixed_point;
mod pool;

use acc_ir::types::QuantUniform;
use acc_ir::{FloatKind, TypeData, TypeId, ValueId};
pub(super) use elementwise::{qadd, qmul, requantize_op};
pub(super) use fixed_point::rescale;
pub(super) use pool::qavg_pool;

use super::nn::{conv2d, matmul};
use super::{AttrValues, Builder, Parts};
use acc_dialects::build::{RegionBuilder, shape_of, tensor_type};

/// How a quantized op's accumulators become its result: the scheme, and the stored
/// values the result is clamped to.
#[derive(Clone, Copy)]
struct Requant {
    scheme: Scheme,
    bounds: (i64, i64),
}

/// The quantized element type of tensor type `ty`.
fn quant_of(e: &Builder<'_>, ty: TypeId) -> Result<QuantUniform, String> {
    let (_, elem) = shape_of(e.ctx, ty)?;
    match e.ctx.type_data(elem) {
        TypeData::QuantUniform(q) if q.expressed == e.ctx.float_type(FloatKind::F32) => {
            // Stored integers minus zero points are computed in i32.
            if q.storage_width > 16 {
                return Err("storage wider than 16 bits has no lowering yet".into());
            }
            Ok(q.clone())
        }
        TypeData::QuantUniform(_) => Err("only f32 expressed types have a lowering yet".into()),
        _ => Err("expects a quantized tensor".into()),
    }
}

/// The signless integer type a quantized type stores.
fn storage(e: &Builder<'_>, q: &QuantUniform) -> TypeId {
    e.ctx.int_type(q.storage_width)
}

/// `x` (quantized) seen as its stored integers.
fn stored(e: &mut Builder<'_>, x: ValueId, q: &QuantUniform) -> Result<ValueId, String> {
    let (shape, _) = shape_of(e.ctx, e.type_of(x))?;
    let ty = tensor_type(e.ctx, &shape, storage(e, q));
    tensor::Bitcast::build(e, x, ty).result()
}

/// The channel dimension of a quantized type on a tensor of rank `rank`.
fn channel_dim(q: &QuantUniform, rank: usize) -> Result<Option<usize>, String> {
    match q.axis {
        None => Ok(None),
        Some(a) => usize::try_from(a)
            .ok()
            .filter(|d| *d < rank)
            .map(Some)
            .ok_or_else(|| format!("quantized dimension {a} is out of range")),
    }
}

/// A per-element parameter: one constant, or a table read at the element's channel.
enum Param {
    Scalar(Scalar, TypeId),
    Table(ValueId, TypeId, usize),
}

impl Param {
    /// `values` (one, or one per channel along `dim`) of element type `ty`; a table
    /// is made at the emitter's point (outside the region reading it).
    fn new(
        e: &mut Builder<'_>,
        values: Vec<Scalar>,
        ty: TypeId,
        dim: Option<usize>,
    ) -> Result<Param, String> {
        match dim {
            Some(d) if values.len() > 1 => {
                let table_ty = tensor_type(e.ctx, &[values.len() as i64], ty);
                let attr = dense_attr(e.ctx, table_ty, &values).ok_or("cannot make a table")?;
                let t = arith::Constant::build(e, table_ty).value(attr).result()?;
                Ok(Param::Table(t, ty, d))
            }
            _ => Ok(Param::Scalar(*values.first().ok_or("no parameters")?, ty)),
        }
    }

    /// The parameter of the element at `ivs`.
    fn at(&self, e: &mut Builder<'_>, ivs: &[ValueId]) -> Result<ValueId, String> {
        match self {
            Param::Scalar(v, ty) => {
                let attr = acc_ir::elements::scalar_attr(e.ctx, *ty, *v).ok_or("a constant")?;
                arith::Constant::build(e, *ty).value(attr).result()
            }
            Param::Table(t, ty, d) => tensor::Extract::build(e, *t, &[ivs[*d]], *ty).result(),
        }
    }

    /// The parameter at `index` of its table (an index value), or the constant.
    fn at_index(&self, e: &mut Builder<'_>, index: ValueId) -> Result<ValueId, String> {
        match self {
            Param::Scalar(..) => self.at(e, &[]),
            Param::Table(t, ty, _) => tensor::Extract::build(e, *t, &[index], *ty).result(),
        }
    }
}

/// The scales of `q` as floats of type `ty` (f32 or f64) along its channel
/// dimension of a rank-`rank` tensor.
fn scales(e: &mut Builder<'_>, q: &QuantUniform, rank: usize, ty: TypeId) -> Result<Param, String> {
    let dim = channel_dim(q, rank)?;
    let values = (0..q.params.len())
        .map(|c| Scalar::Float(q.params_of(c).0))
        .collect();
    Param::new(e, values, ty, dim)
}

/// The float type quantize and dequantize of `q` compute in: f32 when every scale
/// is an f32, the storage has at most 16 bits and every zero point is in its range
/// (the same results as f64; module docs), else f64.
fn conversion_type(e: &Builder<'_>, q: &QuantUniform) -> TypeId {
    let (lo, hi) = q.storage_bounds();
    let exact_f32 = (0..q.params.len()).all(|c| {
        let (s, z) = q.params_of(c);
        f64::from(s as f32) == s && (lo..=hi).contains(&z)
    });
    let kind = if exact_f32 && q.storage_width <= 16 {
        FloatKind::F32
    } else {
        FloatKind::F64
    };
    e.ctx.float_type(kind)
}

/// The zero points of `q` (as `ty`, a float or an integer type) as a parameter along
/// its channel dimension of a rank-`rank` tensor.
fn zeros(e: &mut Builder<'_>, q: &QuantUniform, rank: usize, ty: TypeId) -> Result<Param, String> {
    let dim = channel_dim(q, rank)?;
    let float = matches!(e.ctx.type_data(ty), TypeData::Float(_));
    let values = (0..q.params.len())
        .map(|c| {
            let z = q.params_of(c).1;
            if float {
                Scalar::Float(z as f64)
            } else {
                Scalar::Int(i128::from(z))
            }
        })
        .collect();
    Param::new(e, values, ty, dim)
}

/// A `tensor.generate` of type `out` whose region `f` builds from the indices.
fn generate(
    e: &mut Builder<'_>,
    out: TypeId,
    f: &mut RegionBuilder<'_>,
) -> Result<ValueId, String> {
    let (shape, _) = shape_of(e.ctx, out)?;
    let index = e.ctx.index_type();
    let body = e.region(&vec![index; shape.len()], tensor::Yield::NAME, f)?;
    tensor::Generate::build(e, &[], out).body(body).result()
}

/// `v` (f64, integral) saturated to `q`'s storage range and stored.
fn saturate(e: &mut Builder<'_>, v: ValueId, q: &QuantUniform) -> Result<ValueId, String> {
    clamp_to(e, v, q, q.storage_bounds())
}

/// `v` (a float, integral) clamped to `[lo, hi]` (within `q`'s storage range) and
/// stored.
fn clamp_to(
    e: &mut Builder<'_>,
    v: ValueId,
    q: &QuantUniform,
    (lo, hi): (i64, i64),
) -> Result<ValueId, String> {
    let ft = e.type_of(v);
    let lo = e.scalar(ft, lo as f64)?;
    let hi = e.scalar(ft, hi as f64)?;
    let v = arith::Maximumf::build(e, v, lo, ft).result()?;
    let v = arith::Minimumf::build(e, v, hi, ft).result()?;
    let i32t = e.ctx.int_type(32);
    let i = arith::Fptosi::build(e, v, i32t).result()?;
    if q.storage_width == 32 {
        return Ok(i);
    }
    let st = storage(e, q);
    arith::Trunci::build(e, i, st).result()
}

/// A stored integer widened to i32 (by the storage's signedness).
fn widen(e: &mut Builder<'_>, v: ValueId, q: &QuantUniform) -> Result<ValueId, String> {
    if q.storage_width == 32 {
        return Ok(v);
    }
    let i32t = e.ctx.int_type(32);
    if q.storage_signed {
        arith::Extsi::build(e, v, i32t).result()
    } else {
        arith::Extui::build(e, v, i32t).result()
    }
}

/// `quantize` of `x` (f32) to type `out`.
pub(super) fn quantize(e: &mut Builder<'_>, x: ValueId, out: TypeId) -> Result<ValueId, String> {
    let q = quant_of(e, out)?;
    let (shape, x_elem) = shape_of(e.ctx, e.type_of(x))?;
    let wide_t = conversion_type(e, &q);
    let f32t = e.ctx.float_type(FloatKind::F32);
    if x_elem != f32t {
        return Err("quantize lowers from f32 only".into());
    }
    let (scale, zero) = (
        scales(e, &q, shape.len(), wide_t)?,
        zeros(e, &q, shape.len(), wide_t)?,
    );
    let stored_ty = tensor_type(e.ctx, &shape, storage(e, &q));
    let ints = generate(e, stored_ty, &mut |e, ivs| {
        let v = tensor::Extract::build(e, x, ivs, f32t).result()?;
        let s = scale.at(e, ivs)?;
        let ratio = if wide_t == f32t {
            arith::Divf::build(e, v, s, f32t).result()?
        } else {
            let wide = arith::Extf::build(e, v, wide_t).result()?;
            let ratio = arith::Divf::build(e, wide, s, wide_t).result()?;
            arith::Truncf::build(e, ratio, f32t).result()?
        };
        let r = math::Roundeven::build(e, ratio, f32t).result()?;
        let r = if wide_t == f32t {
            r
        } else {
            arith::Extf::build(e, r, wide_t).result()?
        };
        let z = zero.at(e, ivs)?;
        let shifted = arith::Addf::build(e, r, z, wide_t).result()?;
        // NaN quantizes to the zero point.
        let nan = e.cmpf(acc_dialects::build::cmpf::UNO, v, v)?;
        let chosen = arith::Select::build(e, nan, z, shifted, wide_t).result()?;
        Ok(vec![saturate(e, chosen, &q)?])
    })?;
    tensor::Bitcast::build(e, ints, out).result()
}

/// `dequantize` of `x` to the float type `out`.
pub(super) fn dequantize(e: &mut Builder<'_>, x: ValueId, out: TypeId) -> Result<ValueId, String> {
    let q = quant_of(e, e.type_of(x))?;
    let (shape, out_elem) = shape_of(e.ctx, out)?;
    let f64t = e.ctx.float_type(FloatKind::F64);
    let f32t = e.ctx.float_type(FloatKind::F32);
    let wide_t = if out_elem == f32t {
        conversion_type(e, &q)
    } else {
        f64t
    };
    let i32t = e.ctx.int_type(32);
    let (scale, zero) = (
        scales(e, &q, shape.len(), wide_t)?,
        zeros(e, &q, shape.len(), i32t)?,
    );
    let ints = stored(e, x, &q)?;
    let st = storage(e, &q);
    generate(e, out, &mut |e, ivs| {
        let v = tensor::Extract::build(e, ints, ivs, st).result()?;
        let v = widen(e, v, &q)?;
        let z = zero.at(e, ivs)?;
        let d = arith::Subi::build(e, v, z, i32t).result()?;
        let d = arith::Sitofp::build(e, d, wide_t).result()?;
        let s = scale.at(e, ivs)?;
        let y = arith::Mulf::build(e, d, s, wide_t).result()?;
        if out_elem == wide_t {
            Ok(vec![y])
        } else {
            Ok(vec![arith::Truncf::build(e, y, out_elem).result()?])
        }
    })
}

/// `x` (quantized) minus its zero points, as i32.
fn centered(e: &mut Builder<'_>, x: ValueId) -> Result<ValueId, String> {
    let q = quant_of(e, e.type_of(x))?;
    let (shape, _) = shape_of(e.ctx, e.type_of(x))?;
    let i32t = e.ctx.int_type(32);
    let zero = zeros(e, &q, shape.len(), i32t)?;
    let ints = stored(e, x, &q)?;
    let st = storage(e, &q);
    let ty = tensor_type(e.ctx, &shape, i32t);
    generate(e, ty, &mut |e, ivs| {
        let v = tensor::Extract::build(e, ints, ivs, st).result()?;
        let v = widen(e, v, &q)?;
        let z = zero.at(e, ivs)?;
        Ok(vec![arith::Subi::build(e, v, z, i32t).result()?])
    })
}

/// The i32 accumulators `acc` requantized to `out` by `scheme`: `s_in` is the input's
/// scale, `weight` the weight's type, whose channels run along `weight_dim` of `acc`.
fn requantize(
    e: &mut Builder<'_>,
    acc: ValueId,
    s_in: f64,
    weight: &QuantUniform,
    weight_dim: usize,
    out: TypeId,
    requant: Requant,
) -> Result<ValueId, String> {
    let Requant { scheme, bounds } = requant;
    if shape_of(e.ctx, out)?.1 == e.ctx.int_type(32) {
        // An i32 result: the accumulators themselves.
        return Ok(acc);
    }
    let qo = quant_of(e, out)?;
    let (shape, _) = shape_of(e.ctx, out)?;
    let out_dim = channel_dim(&qo, shape.len())?;
    let per_weight = weight.params.len() > 1;
    let dim = match (per_weight, out_dim) {
        (true, Some(d)) if d != weight_dim => {
            return Err(
                "an output quantized along another dimension than the weight has no lowering yet"
                    .into(),
            );
        }
        (true, _) => Some(weight_dim),
        (false, d) => d,
    };
    let channels = dim.map_or(1, |d| shape[d] as usize);
    let scales = |c: usize| {
        let s_w = weight.params_of(if per_weight { c } else { 0 }).0;
        let (s_out, z) = qo.params_of(if qo.params.len() > 1 { c } else { 0 });
        (s_w, s_out, z)
    };
    if scheme == Scheme::FixedPoint {
        let params = (0..channels)
            .map(|c| {
                let (s_w, s_out, z) = scales(c);
                let m = FixedPointMultiplier::of_scales(s_in, s_w, s_out)
                    .ok_or_else(|| format!("channel {c}'s multiplier has no Q31 form"))?;
                Ok((m, z))
            })
            .collect::<Result<Vec<_>, String>>()?;
        return requantize_fixed_point(e, acc, &params, dim, &qo, out, bounds);
    }
    let f32_round = |v: f64| f64::from(v as f32);
    let mut multipliers = Vec::with_capacity(channels);
    let mut zeros = Vec::with_capacity(channels);
    for c in 0..channels {
        let (s_w, s_out, z) = scales(c);
        let m = requant::float_multiplier(s_in, s_w, s_out, f32_round);
        multipliers.push(Scalar::Float(m));
        zeros.push(Scalar::Float(z as f64));
    }
    let f64t = e.ctx.float_type(FloatKind::F64);
    let i32t = e.ctx.int_type(32);
    let m = Param::new(e, multipliers, f64t, dim)?;
    let zero = Param::new(e, zeros, f64t, dim)?;
    let stored_ty = tensor_type(e.ctx, &shape, storage(e, &qo));
    let ints = generate(e, stored_ty, &mut |e, ivs| {
        let a = tensor::Extract::build(e, acc, ivs, i32t).result()?;
        let a = arith::Sitofp::build(e, a, f64t).result()?;
        let k = m.at(e, ivs)?;
        let y = arith::Mulf::build(e, a, k, f64t).result()?;
        let r = math::Roundeven::build(e, y, f64t).result()?;
        let z = zero.at(e, ivs)?;
        let v = arith::Addf::build(e, r, z, f64t).result()?;
        Ok(vec![clamp_to(e, v, &qo, bounds)?])
    })?;
    tensor::Bitcast::build(e, ints, out).result()
}

/// The fixed-point scheme on the i32 accumulators `acc` (`acc_ir::requant`): per
/// channel along `dim` (or once) a Q31 multiplier and the zero point, in integer ops
/// only ([`fixed_point::multiply`]), the result clamped to `bounds`.
fn requantize_fixed_point(
    e: &mut Builder<'_>,
    acc: ValueId,
    params: &[(FixedPointMultiplier, i64)],
    dim: Option<usize>,
    qo: &QuantUniform,
    out: TypeId,
    bounds: (i64, i64),
) -> Result<ValueId, String> {
    let (shape, _) = shape_of(e.ctx, out)?;
    let (i32t, i64t) = (e.ctx.int_type(32), e.ctx.int_type(64));
    let multipliers: Vec<FixedPointMultiplier> = params.iter().map(|(m, _)| *m).collect();
    let multiplier = fixed_point::Params::new(e, &multipliers, dim)?;
    let zeros = params
        .iter()
        .map(|(_, z)| Scalar::Int(i128::from(*z)))
        .collect();
    let zero = Param::new(e, zeros, i64t, dim)?;
    let stored_ty = tensor_type(e.ctx, &shape, storage(e, qo));
    let ints = generate(e, stored_ty, &mut |e, ivs| {
        let a = tensor::Extract::build(e, acc, ivs, i32t).result()?;
        let m = multiplier.at(e, ivs)?;
        let scaled = fixed_point::multiply(e, a, &m)?;
        let z = zero.at(e, ivs)?;
        Ok(vec![fixed_point::offset_and_clamp(
            e, scaled, z, qo, bounds,
        )?])
    })?;
    tensor::Bitcast::build(e, ints, out).result()
}

/// The i32 accumulator holds exact sums of products of 8-bit values (up to 2^15
/// terms); wider storage could overflow it.
fn check_accumulator(qs: &[&QuantUniform]) -> Result<(), String> {
    if qs.iter().any(|q| q.storage_width > 8) {
        return Err("products of storage wider than 8 bits could overflow the i32 accumulator; not lowered yet".into());
    }
    Ok(())
}

/// `qmatmul`: the left-hand side per tensor, the right-hand side per tensor or per
/// column.
pub(super) fn qmatmul(
    e: &mut Builder<'_>,
    p: &Parts,
    out: TypeId,
    scheme: Scheme,
    bounds: (i64, i64),
) -> Result<ValueId, String> {
    let (a, b) = (p.operands[0], p.operands[1]);
    let (qa, qb) = (quant_of(e, e.type_of(a))?, quant_of(e, e.type_of(b))?);
    check_accumulator(&[&qa, &qb])?;
    let (sb, _) = shape_of(e.ctx, e.type_of(b))?;
    let columns_axis = sb.len() as i32 - 1;
    if qa.axis.is_some() || qb.axis.is_some_and(|d| d != columns_axis) {
        return Err(
            "the left-hand side must be per tensor, the right-hand side per tensor or per column"
                .into(),
        );
    }
    let (shape, _) = shape_of(e.ctx, out)?;
    let i32_out = tensor_type(e.ctx, &shape, e.ctx.int_type(32));
    let (ca, cb) = (centered(e, a)?, centered(e, b)?);
    let mut acc = matmul(e, ca, cb, i32_out)?;
    if let Some(&bias) = p.operands.get(2) {
        let i32t = e.ctx.int_type(32);
        acc = generate(e, i32_out, &mut |e, ivs| {
            let a = tensor::Extract::build(e, acc, ivs, i32t).result()?;
            let column = *ivs.last().ok_or("a rank-0 product")?;
            let b = tensor::Extract::build(e, bias, &[column], i32t).result()?;
            Ok(vec![arith::Addi::build(e, a, b, i32t).result()?])
        })?;
    }
    let requant = Requant { scheme, bounds };
    requantize(
        e,
        acc,
        qa.params_of(0).0,
        &qb,
        shape.len() - 1,
        out,
        requant,
    )
}

/// `lookup`: each stored integer, widened and less the storage minimum, indexes the
/// table.
pub(super) fn lookup(
    e: &mut Builder<'_>,
    x: ValueId,
    table: ValueId,
    out: TypeId,
) -> Result<ValueId, String> {
    let (q, qo) = (quant_of(e, e.type_of(x))?, quant_of(e, out)?);
    let (shape, _) = shape_of(e.ctx, out)?;
    let ints = stored(e, x, &q)?;
    let (st, sto) = (storage(e, &q), storage(e, &qo));
    let (lo, _) = QuantUniform::full_range(q.storage_width, q.storage_signed);
    let i32t = e.ctx.int_type(32);
    let index = e.ctx.index_type();
    let ty = tensor_type(e.ctx, &shape, sto);
    let looked_up = generate(e, ty, &mut |e, ivs| {
        let v = tensor::Extract::build(e, ints, ivs, st).result()?;
        let v = widen(e, v, &q)?;
        let lo = e.scalar(i32t, lo as f64)?;
        let i = arith::Subi::build(e, v, lo, i32t).result()?;
        let i = arith::IndexCast::build(e, i, index).result()?;
        Ok(vec![tensor::Extract::build(e, table, &[i], sto).result()?])
    })?;
    tensor::Bitcast::build(e, looked_up, out).result()
}

/// `qconv2d`: the input per tensor, the weight per tensor or per output channel, an
/// optional i32 bias.
pub(super) fn qconv2d(
    e: &mut Builder<'_>,
    p: &Parts,
    out: TypeId,
    attrs: &AttrValues<'_>,
    scheme: Scheme,
    bounds: (i64, i64),
) -> Result<ValueId, String> {
    let (x, w) = (p.operands[0], p.operands[1]);
    let (qx, qw) = (quant_of(e, e.type_of(x))?, quant_of(e, e.type_of(w))?);
    check_accumulator(&[&qx, &qw])?;
    if qx.axis.is_some() || qw.axis.is_some_and(|d| d != 0) {
        return Err(
            "the input must be per tensor, the weight per tensor or per output channel".into(),
        );
    }
    let (shape, _) = shape_of(e.ctx, out)?;
    let i32_out = tensor_type(e.ctx, &shape, e.ctx.int_type(32));
    let mut operands = vec![centered(e, x)?, centered(e, w)?];
    operands.extend(p.operands.get(2).copied());
    let integer = Parts {
        operands,
        results: vec![i32_out],
    };
    let acc = conv2d(e, &integer, i32_out, attrs)?;
    let requant = Requant { scheme, bounds };
    requantize(e, acc, qx.params_of(0).0, &qw, 1, out, requant)
}
