//! Rules for quantized values (`!quant.uniform` element types): quantizing,
//! dequantizing, reinterpreting stored integers, and the integer convolution and matrix
//! product with requantization. The arithmetic follows ONNX's QuantizeLinear,
//! DequantizeLinear, QLinearConv and QLinearMatMul: products accumulate exactly in
//! integers, scales combine in the expressed float type, rounding is half to even and
//! results saturate to the storage range.

use acc_ir::elements::{self, ElementKind, Scalar};
use acc_ir::requant::{self, FixedPointMultiplier, Scheme};
use acc_ir::types::QuantUniform;
use acc_ir::{Context, FloatKind, TypeData, TypeId};

use super::nn::{conv2d_values, matmul_values};
use super::{RuleInput, graph_only};
use crate::value::{Tensor, type_text};

/// The quantized element type of `ty`, or an error naming `what`.
fn quant_of<'c>(ctx: &'c Context, ty: TypeId, what: &str) -> Result<&'c QuantUniform, String> {
    let element = ctx.type_data(ty).element_type().unwrap_or(ty);
    match ctx.type_data(element) {
        TypeData::QuantUniform(q) => Ok(q),
        _ => Err(format!(
            "{what} must be quantized, not {}",
            type_text(ctx, ty)
        )),
    }
}

/// The float format of a quantized type's expressed type.
fn expressed_kind(ctx: &Context, q: &QuantUniform) -> FloatKind {
    match ctx.type_data(q.expressed) {
        TypeData::Float(k) => *k,
        _ => FloatKind::F32,
    }
}

/// The channel (index along `q`'s quantized dimension) of each element of a tensor of
/// `shape`; all zero for a per-tensor type.
fn channels(q: &QuantUniform, shape: &[usize]) -> Result<Vec<usize>, String> {
    let n: usize = shape.iter().product();
    let Some(axis) = q.axis else {
        return Ok(vec![0; n]);
    };
    let axis = usize::try_from(axis).map_err(|_| "negative quantized dimension")?;
    let (&dim, inner) = shape
        .get(axis)
        .zip(shape.get(axis + 1..))
        .ok_or_else(|| format!("quantized dimension {axis} is out of range"))?;
    if q.params.len() != dim {
        return Err(format!(
            "{} scales for {dim} channels on dimension {axis}",
            q.params.len()
        ));
    }
    let stride: usize = inner.iter().product();
    Ok((0..n).map(|i| (i / stride.max(1)) % dim.max(1)).collect())
}

fn int(v: Scalar) -> i128 {
    match v {
        Scalar::Int(i) => i,
        Scalar::Float(f) => f as i128,
    }
}

fn float(v: Scalar) -> f64 {
    match v {
        Scalar::Int(i) => i as f64,
        Scalar::Float(f) => f,
    }
}

/// `value` rounded half to even, plus `zero`, saturated to `q`'s storage range.
fn saturate(q: &QuantUniform, value: f64, zero: i64) -> Scalar {
    let (lo, hi) = q.storage_bounds();
    let v = if value.is_nan() {
        zero as f64
    } else {
        value.round_ties_even() + zero as f64
    };
    Scalar::Int(v.clamp(lo as f64, hi as f64) as i128)
}

/// The stored integers of `t` minus their zero points, as an `i64` tensor of its shape.
fn centered(t: &Tensor, q: &QuantUniform) -> Result<Tensor, String> {
    let ch = channels(q, &t.shape)?;
    let data = t
        .data
        .iter()
        .zip(&ch)
        .map(|(v, c)| Scalar::Int(int(*v) - i128::from(q.params_of(*c).1)))
        .collect();
    Ok(Tensor {
        data,
        kind: ElementKind::Int(64, acc_ir::Signedness::Signless),
        ..t.clone()
    })
}

/// `quantize`: `saturate(round_half_even(x / scale) + zero_point)`, the division in the
/// expressed float type.
pub(super) fn quantize(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    graph_only(r)?;
    let x = r.operand(0)?;
    let ty = r.result_type(0)?;
    let q = quant_of(r.ctx, ty, "the result")?;
    let kind = expressed_kind(r.ctx, q);
    let data = channels(q, &x.shape)?
        .iter()
        .zip(&x.data)
        .map(|(c, v)| {
            let (scale, zero) = q.params_of(*c);
            saturate(q, elements::round_float(float(*v) / scale, kind), zero)
        })
        .collect();
    Ok(vec![Tensor::new(r.ctx, ty, data)?])
}

/// `dequantize`: `(q - zero_point) * scale` in the result's float type.
pub(super) fn dequantize(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    graph_only(r)?;
    let x = r.operand(0)?;
    let q = quant_of(r.ctx, x.ty, "the input")?;
    let data = channels(q, &x.shape)?
        .iter()
        .zip(&x.data)
        .map(|(c, v)| {
            let (scale, zero) = q.params_of(*c);
            Scalar::Float((int(*v) - i128::from(zero)) as f64 * scale)
        })
        .collect();
    Ok(vec![Tensor::new(r.ctx, r.result_type(0)?, data)?])
}

/// `storage_cast`: the same stored integers under the result type.
pub(super) fn storage_cast(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    graph_only(r)?;
    let x = r.operand(0)?;
    Ok(vec![Tensor::new(r.ctx, r.result_type(0)?, x.data.clone())?])
}

/// Requantizes exact integer accumulators by the op's scheme (`acc_ir::requant`):
/// channel `c` of the result (given per element by `weight_channel` for the weight's
/// scale) scales `acc` by `s_in * s_w[c] / s_out` and adds `zero_out`, saturating.
/// The float scheme computes the multiplier in the expressed float type and rounds
/// half to even; the fixed-point scheme takes the accumulator as an i32 (wrapping, as
/// the host loops' and the libraries' accumulators do).
fn requantize(
    r: &RuleInput<'_>,
    acc: Vec<Scalar>,
    input: &QuantUniform,
    weight: &QuantUniform,
    weight_channel: impl Fn(usize) -> usize,
) -> Result<Vec<Tensor>, String> {
    let ty = r.result_type(0)?;
    let q = quant_of(r.ctx, ty, "the result")?;
    let shape = Tensor::layout(r.ctx, ty)?.0;
    let out_channels = channels(q, &shape)?;
    let kind = expressed_kind(r.ctx, q);
    let round = |x: f64| elements::round_float(x, kind);
    let s_in = input.params_of(0).0;
    let scheme = acc_dialects::hooks::requant_scheme(r.ctx, r.op);
    let data = acc
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let (s_out, zero) = q.params_of(out_channels[i]);
            let s_w = weight.params_of(weight_channel(i)).0;
            match scheme {
                Scheme::Float => {
                    let multiplier = requant::float_multiplier(s_in, s_w, s_out, round);
                    Ok(saturate(q, float(*v) * multiplier, zero))
                }
                Scheme::FixedPoint => {
                    let m = FixedPointMultiplier::of_scales(s_in, s_w, s_out).ok_or_else(|| {
                        format!("the multiplier s_in * s_w / s_out of element {i} has no Q31 form")
                    })?;
                    let acc = int(*v) as i32;
                    let y = requant::requantize_fixed_point(acc, m, zero, q.storage_bounds());
                    Ok(Scalar::Int(i128::from(y)))
                }
            }
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(vec![Tensor::new(r.ctx, ty, data)?])
}

/// `qconv2d`: the convolution of the centered integers plus the i32 bias, requantized;
/// weights per tensor or per output channel.
pub(super) fn qconv2d(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    graph_only(r)?;
    let (x, w) = (r.operand(0)?, r.operand(1)?);
    let qx = quant_of(r.ctx, x.ty, "the input")?;
    let qw = quant_of(r.ctx, w.ty, "the weight")?;
    if qx.axis.is_some() || qw.axis.is_some_and(|a| a != 0) {
        return Err(
            "the input must be per tensor, the weight per tensor or per output channel".into(),
        );
    }
    let acc = conv2d_values(r, &centered(x, qx)?, &centered(w, qw)?, r.operands.get(2))?;
    let shape = Tensor::layout(r.ctx, r.result_type(0)?)?.0;
    let plane: usize = shape.iter().skip(2).product();
    let m = shape.get(1).copied().unwrap_or(1);
    requantize(r, acc, qx, qw, |i| (i / plane.max(1)) % m.max(1))
}

/// `qmatmul`: the matrix product of the centered integers, requantized; the right-hand
/// side per tensor or per column (its last dimension).
pub(super) fn qmatmul(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    graph_only(r)?;
    let (a, b) = (r.operand(0)?, r.operand(1)?);
    let qa = quant_of(r.ctx, a.ty, "the left-hand side")?;
    let qb = quant_of(r.ctx, b.ty, "the right-hand side")?;
    let last = b.shape.len().checked_sub(1).map(|d| d as i32);
    if qa.axis.is_some() || (qb.axis.is_some() && qb.axis != last) {
        return Err(
            "the left-hand side must be per tensor, the right-hand side per tensor or per column"
                .into(),
        );
    }
    let mut acc = matmul_values(&centered(a, qa)?, &centered(b, qb)?)?;
    let columns = b.shape.last().copied().unwrap_or(1).max(1);
    if let Some(bias) = r.operands.get(2) {
        if bias.data.len() != columns {
            return Err(format!(
                "the bias has {} elements for {columns} columns",
                bias.data.len()
            ));
        }
        for (i, v) in acc.iter_mut().enumerate() {
            *v = Scalar::Int(int(*v) + int(bias.data[i % columns]));
        }
    }
    requantize(r, acc, qa, qb, |i| i % columns)
}

/// `lookup`: each element's stored integer, less the storage minimum, indexes the
/// table, whose entry is the result's stored integer.
pub(super) fn lookup(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    graph_only(r)?;
    let (x, table) = (r.operand(0)?, r.operand(1)?);
    let q = quant_of(r.ctx, x.ty, "the input")?;
    let (lo, _) = QuantUniform::full_range(q.storage_width, q.storage_signed);
    let data = x
        .data
        .iter()
        .map(|v| {
            usize::try_from(int(*v) - i128::from(lo))
                .ok()
                .and_then(|i| table.data.get(i).copied())
                .ok_or_else(|| format!("stored value {} is outside the table", int(*v)))
        })
        .collect::<Result<_, String>>()?;
    Ok(vec![Tensor::new(r.ctx, r.result_type(0)?, data)?])
}
