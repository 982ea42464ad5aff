//! `qavg_pool`. The float scheme is the QDQ group's arithmetic: the input
//! dequantized to f32, `avg_pool`'s lowering, each average quantized. The
//! fixed-point scheme sums the centered integers of each window (`tensor.pool` of
//! kind `sum`, padding adding nothing) and counts its elements, then:
//!
//! - with the input's scale and zero point on the result, CMSIS-NN's rounded average
//!   of the stored integers (the centered sum plus the zero point per counted
//!   element), `(sum ± count / 2) / count`;
//! - otherwise TFLite's mean: the centered sum scaled by the Q31 form of
//!   `s_in / (s_out * count)`, from a table indexed by the count (made at compile
//!   time for every count a window can have).
//!
//! The count is the window's size when padding counts (`count_include_pad`, without
//! `ceil_mode`'s overhang), else the sum of a window over ones.

use acc_dialects::build::{BuildExt as _, cmpi, shape_of, tensor_type};
use acc_dialects::ops::{arith, tensor};
use acc_ir::elements::{Scalar, dense_attr};
use acc_ir::requant::{FixedPointMultiplier, Scheme};
use acc_ir::{FloatKind, TypeId, ValueId};

use super::elementwise::quantized;
use super::{Builder, centered, dequantize, fixed_point, generate, quant_of, storage};
use crate::AttrValues;
use crate::nn::{pool, window_sums};
use acc_dialects::ops::graph;

/// `qavg_pool` of `x` (attributes `attrs`) into `out`, clamped to `bounds`.
pub(crate) fn qavg_pool(
    e: &mut Builder<'_>,
    x: ValueId,
    out: TypeId,
    attrs: &AttrValues<'_>,
    scheme: Scheme,
    bounds: (i64, i64),
) -> Result<ValueId, String> {
    let (q, qo) = (quant_of(e, e.type_of(x))?, quant_of(e, out)?);
    if q.params.len() != 1 || qo.params.len() != 1 || q.axis.is_some() || qo.axis.is_some() {
        return Err("average pools quantized per channel have no lowering".into());
    }
    let (sx, _) = shape_of(e.ctx, e.type_of(x))?;
    let (so, _) = shape_of(e.ctx, out)?;
    let f32t = e.ctx.float_type(FloatKind::F32);
    let (i32t, i64t) = (e.ctx.int_type(32), e.ctx.int_type(64));
    let stored_ty = tensor_type(e.ctx, &so, storage(e, &qo));
    if scheme == Scheme::Float {
        let real = dequantize(e, x, tensor_type(e.ctx, &sx, f32t))?;
        let averages = pool(
            e,
            graph::Op::AvgPool,
            real,
            tensor_type(e.ctx, &so, f32t),
            attrs,
        )?;
        let ints = generate(e, stored_ty, &mut |e, ivs| {
            let v = tensor::Extract::build(e, averages, ivs, f32t).result()?;
            Ok(vec![quantized(e, v, &qo, bounds)?])
        })?;
        return tensor::Bitcast::build(e, ints, out).result();
    }
    let kernel = attrs
        .ints(graph::AvgPool::ATTR_KERNEL_SHAPE)
        .ok_or("requires kernel_shape")?;
    let window: i64 = kernel.iter().product();
    let include_pad = attrs.flag(graph::AvgPool::ATTR_COUNT_INCLUDE_PAD);
    if include_pad && attrs.flag(graph::AvgPool::ATTR_CEIL_MODE) {
        return Err("count_include_pad with ceil_mode has no fixed-point lowering yet".into());
    }
    let i32_out = tensor_type(e.ctx, &so, i32t);
    let centered_x = centered(e, x)?;
    let sums = window_sums(e, centered_x, i32_out, attrs)?;
    let counts = if include_pad {
        None
    } else {
        let plane = tensor_type(e.ctx, &[1, 1, sx[2], sx[3]], i32t);
        let ones = dense_attr(e.ctx, plane, &[Scalar::Int(1)]).ok_or("a tensor of ones")?;
        let ones = arith::Constant::build(e, plane).value(ones).result()?;
        let counts_ty = tensor_type(e.ctx, &[1, 1, so[2], so[3]], i32t);
        Some(window_sums(e, ones, counts_ty, attrs)?)
    };
    let (s_in, z_in) = q.params_of(0);
    let (s_out, z_out) = qo.params_of(0);
    let same = s_in == s_out && z_in == z_out;
    // Per count (0 for a window wholly in the padding), the multiplier.
    let multipliers = (0..=window)
        .map(|n| match n {
            0 => FixedPointMultiplier::of_real(0.0),
            n => FixedPointMultiplier::of_real(s_in / (s_out * n as f64)),
        })
        .collect::<Option<Vec<_>>>()
        .ok_or("a window's multiplier s_in / (s_out * count) has no Q31 form")?;
    let per_count = if same {
        None
    } else {
        Some(fixed_point::Params::new(e, &multipliers, Some(0))?)
    };
    let index = e.ctx.index_type();
    let ints = generate(e, stored_ty, &mut |e, ivs| {
        let sum = tensor::Extract::build(e, sums, ivs, i32t).result()?;
        let count = match counts {
            Some(c) => {
                let zero = e.index(0)?;
                tensor::Extract::build(e, c, &[zero, zero, ivs[2], ivs[3]], i32t).result()?
            }
            None => e.scalar(i32t, window as f64)?,
        };
        if let Some(table) = &per_count {
            let at = arith::IndexCast::build(e, count, index).result()?;
            let m = table.at_index(e, at)?;
            let scaled = fixed_point::multiply(e, sum, &m)?;
            let z = e.scalar(i64t, z_out as f64)?;
            return Ok(vec![fixed_point::offset_and_clamp(
                e, scaled, z, &qo, bounds,
            )?]);
        }
        // CMSIS-NN: the stored integers' sum (the padding holds the zero point),
        // divided by the count rounding half away from zero.
        let z = e.scalar(i32t, z_in as f64)?;
        let zeros = arith::Muli::build(e, z, count, i32t).result()?;
        let total = arith::Addi::build(e, sum, zeros, i32t).result()?;
        let two = e.scalar(i32t, 2.0)?;
        let half = arith::Divsi::build(e, count, two, i32t).result()?;
        let up = arith::Addi::build(e, total, half, i32t).result()?;
        let down = arith::Subi::build(e, total, half, i32t).result()?;
        let zero = e.scalar(i32t, 0.0)?;
        let positive = e.cmpi(cmpi::SGT, total, zero)?;
        let nudged = arith::Select::build(e, positive, up, down, i32t).result()?;
        let average = arith::Divsi::build(e, nudged, count, i32t).result()?;
        let no_offset = e.scalar(i64t, 0.0)?;
        Ok(vec![fixed_point::offset_and_clamp(
            e, average, no_offset, &qo, bounds,
        )?])
    })?;
    tensor::Bitcast::build(e, ints, out).result()
}
