//! `qadd`, `qmul` and `requantize`: per-tensor quantized operands of one shape, one
//! `tensor.generate` over the stored integers. The float scheme is the QDQ group's
//! arithmetic (dequantize to f32, the f32 op, quantize), the fixed-point scheme
//! `acc_ir::requant`'s integer ops, each as the interpreter computes it.

use acc_dialects::build::{BuildExt as _, shape_of, tensor_type};
use acc_dialects::ops::{arith, math, tensor};
use acc_ir::requant::{FixedPointAdd, FixedPointMultiplier, Scheme};
use acc_ir::types::QuantUniform;
use acc_ir::{FloatKind, TypeId, ValueId};

use super::{Builder, clamp_to, fixed_point, generate, quant_of, storage, stored, widen};

/// An operand's one scale and zero point, or an error.
fn per_tensor(q: &QuantUniform) -> Result<(f64, i64), String> {
    if q.axis.is_some() || q.params.len() != 1 {
        return Err("operands quantized per channel have no lowering here".into());
    }
    Ok(q.params_of(0))
}

/// A quantized operand: its stored integers, type and (scale, zero point).
struct Operand {
    ints: ValueId,
    q: QuantUniform,
    scale: f64,
    zero: i64,
}

impl Operand {
    fn new(e: &mut Builder<'_>, x: ValueId) -> Result<Operand, String> {
        let q = quant_of(e, e.type_of(x))?;
        let (scale, zero) = per_tensor(&q)?;
        let ints = stored(e, x, &q)?;
        Ok(Operand {
            ints,
            q,
            scale,
            zero,
        })
    }

    /// The stored integer at `ivs` minus the zero point, as i32.
    fn centered(&self, e: &mut Builder<'_>, ivs: &[ValueId]) -> Result<ValueId, String> {
        let i32t = e.ctx.int_type(32);
        let v = tensor::Extract::build(e, self.ints, ivs, storage(e, &self.q)).result()?;
        let v = widen(e, v, &self.q)?;
        let z = e.scalar(i32t, self.zero as f64)?;
        arith::Subi::build(e, v, z, i32t).result()
    }

    /// The element at `ivs` dequantized to f32: `(q - zero) * scale` in f64, rounded.
    fn dequantized(&self, e: &mut Builder<'_>, ivs: &[ValueId]) -> Result<ValueId, String> {
        let (f32t, f64t) = (
            e.ctx.float_type(FloatKind::F32),
            e.ctx.float_type(FloatKind::F64),
        );
        let d = self.centered(e, ivs)?;
        let d = arith::Sitofp::build(e, d, f64t).result()?;
        let s = e.scalar(f64t, self.scale)?;
        let y = arith::Mulf::build(e, d, s, f64t).result()?;
        arith::Truncf::build(e, y, f32t).result()
    }
}

/// The f32 `v` quantized to `q` as `quantize` does (`v / scale` in f64 rounded to
/// f32, rounded half to even, plus the zero point), clamped to `bounds`.
pub(super) fn quantized(
    e: &mut Builder<'_>,
    v: ValueId,
    q: &QuantUniform,
    bounds: (i64, i64),
) -> Result<ValueId, String> {
    let (scale, zero) = per_tensor(q)?;
    let (f32t, f64t) = (
        e.ctx.float_type(FloatKind::F32),
        e.ctx.float_type(FloatKind::F64),
    );
    let wide = arith::Extf::build(e, v, f64t).result()?;
    let s = e.scalar(f64t, scale)?;
    let ratio = arith::Divf::build(e, wide, s, f64t).result()?;
    let ratio = arith::Truncf::build(e, ratio, f32t).result()?;
    let r = math::Roundeven::build(e, ratio, f32t).result()?;
    let r = arith::Extf::build(e, r, f64t).result()?;
    let z = e.scalar(f64t, zero as f64)?;
    let shifted = arith::Addf::build(e, r, z, f64t).result()?;
    clamp_to(e, shifted, q, bounds)
}

/// The stored integer of one element of a result, built from its indices.
type ElementFn<'f> = dyn FnMut(&mut Builder<'_>, &[ValueId]) -> Result<ValueId, String> + 'f;

/// A generate of the stored integers of `out`, each from `f` at its indices, cast
/// to `out`.
fn quantized_generate(
    e: &mut Builder<'_>,
    out: TypeId,
    qo: &QuantUniform,
    f: &mut ElementFn<'_>,
) -> Result<ValueId, String> {
    let (shape, _) = shape_of(e.ctx, out)?;
    let ty = tensor_type(e.ctx, &shape, storage(e, qo));
    let ints = generate(e, ty, &mut |e, ivs| Ok(vec![f(e, ivs)?]))?;
    tensor::Bitcast::build(e, ints, out).result()
}

/// The scaled integer (before the zero point) of the fixed-point scheme, plus the
/// result's zero point, clamped.
fn fixed_point_stored(
    e: &mut Builder<'_>,
    scaled: ValueId,
    qo: &QuantUniform,
    bounds: (i64, i64),
) -> Result<ValueId, String> {
    let (_, zero) = per_tensor(qo)?;
    let i64t = e.ctx.int_type(64);
    let z = e.scalar(i64t, zero as f64)?;
    fixed_point::offset_and_clamp(e, scaled, z, qo, bounds)
}

/// The float scheme of `qadd` / `qmul`: the f32 `op` (`addf`, `mulf`) of the
/// dequantized operands, quantized to `qo` and clamped to `bounds`.
fn float_pair(
    e: &mut Builder<'_>,
    [a, b]: [&Operand; 2],
    out: TypeId,
    qo: &QuantUniform,
    bounds: (i64, i64),
    op: arith::Op,
) -> Result<ValueId, String> {
    let f32t = e.ctx.float_type(FloatKind::F32);
    quantized_generate(e, out, qo, &mut |e, ivs| {
        let (x, y) = (a.dequantized(e, ivs)?, b.dequantized(e, ivs)?);
        let v = e.op1(op.name(), &[x, y], f32t, &[])?;
        quantized(e, v, qo, bounds)
    })
}

/// `qadd` of `a` and `b`: the f32 sum of the dequantized values, quantized; or
/// TFLite's fixed-point addition (`FixedPointAdd`).
pub(crate) fn qadd(
    e: &mut Builder<'_>,
    a: ValueId,
    b: ValueId,
    out: TypeId,
    scheme: Scheme,
    bounds: (i64, i64),
) -> Result<ValueId, String> {
    let (a, b) = (Operand::new(e, a)?, Operand::new(e, b)?);
    let qo = quant_of(e, out)?;
    if scheme == Scheme::Float {
        return float_pair(e, [&a, &b], out, &qo, bounds, arith::Op::Addf);
    }
    let (s_out, _) = per_tensor(&qo)?;
    let add = FixedPointAdd::of_scales(a.scale, b.scale, s_out, qo.storage_width)
        .ok_or("the scales have no fixed-point addition")?;
    let i32t = e.ctx.int_type(32);
    quantized_generate(e, out, &qo, &mut |e, ivs| {
        let headroom = e.scalar(i32t, f64::from(1u32 << add.left_shift))?;
        let mut terms = Vec::with_capacity(2);
        for (operand, m) in [(&a, add.lhs), (&b, add.rhs)] {
            let x = operand.centered(e, ivs)?;
            let x = arith::Muli::build(e, x, headroom, i32t).result()?;
            let m = fixed_point::constant(e, m)?;
            terms.push(fixed_point::multiply(e, x, &m)?);
        }
        let sum = arith::Addi::build(e, terms[0], terms[1], i32t).result()?;
        let m = fixed_point::constant(e, add.out)?;
        let scaled = fixed_point::multiply(e, sum, &m)?;
        fixed_point_stored(e, scaled, &qo, bounds)
    })
}

/// `qmul` of `a` and `b`: the f32 product of the dequantized values, quantized; or the
/// product of the centered integers scaled by the Q31 form of `s_a * s_b / s_out`.
pub(crate) fn qmul(
    e: &mut Builder<'_>,
    a: ValueId,
    b: ValueId,
    out: TypeId,
    scheme: Scheme,
    bounds: (i64, i64),
) -> Result<ValueId, String> {
    let (a, b) = (Operand::new(e, a)?, Operand::new(e, b)?);
    let qo = quant_of(e, out)?;
    if scheme == Scheme::Float {
        return float_pair(e, [&a, &b], out, &qo, bounds, arith::Op::Mulf);
    }
    let (s_out, _) = per_tensor(&qo)?;
    let m = FixedPointMultiplier::of_scales(a.scale, b.scale, s_out)
        .ok_or("the multiplier s_a * s_b / s_out has no Q31 form")?;
    let i32t = e.ctx.int_type(32);
    quantized_generate(e, out, &qo, &mut |e, ivs| {
        let (x, y) = (a.centered(e, ivs)?, b.centered(e, ivs)?);
        let product = arith::Muli::build(e, x, y, i32t).result()?;
        let m = fixed_point::constant(e, m)?;
        let scaled = fixed_point::multiply(e, product, &m)?;
        fixed_point_stored(e, scaled, &qo, bounds)
    })
}

/// `requantize` of `x`: dequantized to f32 and quantized; or the centered integer
/// scaled by the Q31 form of `s_in / s_out`.
pub(crate) fn requantize_op(
    e: &mut Builder<'_>,
    x: ValueId,
    out: TypeId,
    scheme: Scheme,
    bounds: (i64, i64),
) -> Result<ValueId, String> {
    let x = Operand::new(e, x)?;
    let qo = quant_of(e, out)?;
    if scheme == Scheme::Float {
        return quantized_generate(e, out, &qo, &mut |e, ivs| {
            let v = x.dequantized(e, ivs)?;
            quantized(e, v, &qo, bounds)
        });
    }
    let (s_out, _) = per_tensor(&qo)?;
    let m = FixedPointMultiplier::of_real(x.scale / s_out)
        .ok_or("the multiplier s_in / s_out has no Q31 form")?;
    quantized_generate(e, out, &qo, &mut |e, ivs| {
        let v = x.centered(e, ivs)?;
        let m = fixed_point::constant(e, m)?;
        let scaled = fixed_point::multiply(e, v, &m)?;
        fixed_point_stored(e, scaled, &qo, bounds)
    })
}
