//! The fixed-point scheme's arithmetic (`acc_ir::requant`) as integer ops: one Q31
//! multiplier applied to an i32 (TFLite's `MultiplyByQuantizedMultiplier`), then the
//! zero point and the clamp. Every quantized op's fixed-point lowering is built from
//! these, so each computes what the interpreter's `acc_ir::requant` does, bit for bit.

use acc_dialects::build::{BuildExt as _, cmpi, shape_of, tensor_type};
use acc_dialects::ops::{arith, tensor};
use acc_ir::elements::Scalar;
use acc_ir::requant::FixedPointMultiplier;
use acc_ir::types::QuantUniform;
use acc_ir::{TypeId, ValueId};

use super::{Builder, Param, generate, quant_of, storage};

/// Multipliers as parameters (one, or a table along a channel dimension or indexed
/// by a value): the Q31 significand (i64), the left factor `2^max(shift, 0)` (i32),
/// the right shift `max(-shift, 0)` and its mask `2^right - 1` (i32).
pub(super) struct Params {
    multiplier: Param,
    left: Param,
    right: Param,
    mask: Param,
}

/// One multiplier's parts at an element.
pub(super) struct Values {
    multiplier: ValueId,
    left: ValueId,
    right: ValueId,
    mask: ValueId,
}

impl Params {
    /// The parameters of `multipliers`, one per channel along `dim` (or one), made at
    /// the emitter's point.
    pub(super) fn new(
        e: &mut Builder<'_>,
        multipliers: &[FixedPointMultiplier],
        dim: Option<usize>,
    ) -> Result<Params, String> {
        let (i32t, i64t) = (e.ctx.int_type(32), e.ctx.int_type(64));
        let column = |f: &dyn Fn(&FixedPointMultiplier) -> i128| -> Vec<Scalar> {
            multipliers.iter().map(|m| Scalar::Int(f(m))).collect()
        };
        let right = |m: &FixedPointMultiplier| (-m.shift).max(0);
        Ok(Params {
            multiplier: Param::new(e, column(&|m| i128::from(m.multiplier)), i64t, dim)?,
            left: Param::new(e, column(&|m| 1i128 << m.shift.max(0)), i32t, dim)?,
            right: Param::new(e, column(&|m| i128::from(right(m))), i32t, dim)?,
            mask: Param::new(e, column(&|m| (1i128 << right(m)) - 1), i32t, dim)?,
        })
    }

    /// The parts of the multiplier of the element at `ivs`.
    pub(super) fn at(&self, e: &mut Builder<'_>, ivs: &[ValueId]) -> Result<Values, String> {
        Ok(Values {
            multiplier: self.multiplier.at(e, ivs)?,
            left: self.left.at(e, ivs)?,
            right: self.right.at(e, ivs)?,
            mask: self.mask.at(e, ivs)?,
        })
    }

    /// The parts of the multiplier at `index` (an index value) of the tables.
    pub(super) fn at_index(&self, e: &mut Builder<'_>, index: ValueId) -> Result<Values, String> {
        Ok(Values {
            multiplier: self.multiplier.at_index(e, index)?,
            left: self.left.at_index(e, index)?,
            right: self.right.at_index(e, index)?,
            mask: self.mask.at_index(e, index)?,
        })
    }
}

/// One constant multiplier's parts, made at the emitter's point.
pub(super) fn constant(e: &mut Builder<'_>, m: FixedPointMultiplier) -> Result<Values, String> {
    Params::new(e, &[m], None)?.at(e, &[])
}

/// `x` (i32) scaled by the multiplier `m`, as `FixedPointMultiplier::apply`: times
/// the left factor (wrapping i32), the doubling high product `(x * m + 2^30) >> 31`
/// in i64 (gemmlowp's rounding; the significand is never i32::MIN, so it never
/// saturates), then the rounding division by `2^right`, which adds one when the
/// remainder passes half (ties away from zero).
pub(super) fn multiply(e: &mut Builder<'_>, x: ValueId, m: &Values) -> Result<ValueId, String> {
    let (i32t, i64t) = (e.ctx.int_type(32), e.ctx.int_type(64));
    let x = arith::Muli::build(e, x, m.left, i32t).result()?;
    let x = arith::Extsi::build(e, x, i64t).result()?;
    let product = arith::Muli::build(e, x, m.multiplier, i64t).result()?;
    let nudge = e.scalar(i64t, (1u64 << 30) as f64)?;
    let product = arith::Addi::build(e, product, nudge, i64t).result()?;
    let thirty_one = e.scalar(i64t, 31.0)?;
    let high = arith::Shrsi::build(e, product, thirty_one, i64t).result()?;
    let high = arith::Trunci::build(e, high, i32t).result()?;
    let remainder = arith::Andi::build(e, high, m.mask, i32t).result()?;
    let one = e.scalar(i32t, 1.0)?;
    let half = arith::Shrsi::build(e, m.mask, one, i32t).result()?;
    let zero = e.scalar(i32t, 0.0)?;
    let negative = e.cmpi(cmpi::SLT, high, zero)?;
    let negative = arith::Extui::build(e, negative, i32t).result()?;
    let threshold = arith::Addi::build(e, half, negative, i32t).result()?;
    let quotient = arith::Shrsi::build(e, high, m.right, i32t).result()?;
    let up = e.cmpi(cmpi::SGT, remainder, threshold)?;
    let up = arith::Extui::build(e, up, i32t).result()?;
    arith::Addi::build(e, quotient, up, i32t).result()
}

/// `scaled` (i32) plus the zero point `zero` (i64) in i64, clamped to `[lo, hi]` and
/// stored as `q`'s storage integer.
pub(super) fn offset_and_clamp(
    e: &mut Builder<'_>,
    scaled: ValueId,
    zero: ValueId,
    q: &QuantUniform,
    (lo, hi): (i64, i64),
) -> Result<ValueId, String> {
    let i64t = e.ctx.int_type(64);
    let scaled = arith::Extsi::build(e, scaled, i64t).result()?;
    let v = arith::Addi::build(e, scaled, zero, i64t).result()?;
    let (lo, hi) = (e.scalar(i64t, lo as f64)?, e.scalar(i64t, hi as f64)?);
    let v = arith::Maxsi::build(e, v, lo, i64t).result()?;
    let v = arith::Minsi::build(e, v, hi, i64t).result()?;
    arith::Trunci::build(e, v, storage(e, q)).result()
}

/// `rescale` of the i32 accumulators `acc` by the tables `multipliers` and `shifts`
/// (one per channel along `axis`, or one), into `out`, clamped to `bounds`: each
/// element's multiplier parts computed from the tables at run time.
pub(crate) fn rescale(
    e: &mut Builder<'_>,
    operands: [ValueId; 3],
    axis: Option<usize>,
    out: TypeId,
    bounds: (i64, i64),
) -> Result<ValueId, String> {
    let [acc, multipliers, shifts] = operands;
    let q = quant_of(e, out)?;
    if q.axis.is_some() || q.params.len() != 1 {
        return Err("a result quantized per channel has no lowering".into());
    }
    let (shape, _) = shape_of(e.ctx, out)?;
    let (i32t, i64t) = (e.ctx.int_type(32), e.ctx.int_type(64));
    let zero_point = q.params_of(0).1;
    let stored_ty = tensor_type(e.ctx, &shape, storage(e, &q));
    let ints = generate(e, stored_ty, &mut |e, ivs| {
        let c = match axis {
            Some(d) => ivs[d],
            None => e.index(0)?,
        };
        let m = tensor::Extract::build(e, multipliers, &[c], i32t).result()?;
        let shift = tensor::Extract::build(e, shifts, &[c], i32t).result()?;
        let zero = e.scalar(i32t, 0.0)?;
        let one = e.scalar(i32t, 1.0)?;
        let up = arith::Maxsi::build(e, shift, zero, i32t).result()?;
        let left = arith::Shli::build(e, one, up, i32t).result()?;
        let negated = arith::Subi::build(e, zero, shift, i32t).result()?;
        let right = arith::Maxsi::build(e, negated, zero, i32t).result()?;
        let power = arith::Shli::build(e, one, right, i32t).result()?;
        let mask = arith::Subi::build(e, power, one, i32t).result()?;
        let multiplier = arith::Extsi::build(e, m, i64t).result()?;
        let parts = Values {
            multiplier,
            left,
            right,
            mask,
        };
        let x = tensor::Extract::build(e, acc, ivs, i32t).result()?;
        let scaled = multiply(e, x, &parts)?;
        let z = e.scalar(i64t, zero_point as f64)?;
        Ok(vec![offset_and_clamp(e, scaled, z, &q, bounds)?])
    })?;
    tensor::Bitcast::build(e, ints, out).result()
}
