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

use acc_dialects::hooks::params::Params;

use super::nn::{PoolWindows, average_values, conv2d_values, matmul_values};
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
    clamp_rounded(q.storage_bounds(), value, zero)
}

/// `value` rounded half to even, plus `zero`, clamped to `[lo, hi]`.
fn clamp_rounded((lo, hi): (i64, i64), value: f64, zero: i64) -> Scalar {
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

/// The stored integers of `t` (a per-tensor quantized input) plus `offset`: what a
/// library accumulates when given an input offset.
fn offset(t: &Tensor, offset: i64) -> Tensor {
    let data = t
        .data
        .iter()
        .map(|v| Scalar::Int(int(*v) + i128::from(offset)))
        .collect();
    Tensor {
        data,
        kind: ElementKind::Int(64, acc_ir::Signedness::Signless),
        ..t.clone()
    }
}

/// The input a convolution or matrix product accumulates: its centered integers, or
/// its stored integers plus the `input_offset` it is given (none with a
/// `kernel_sum`, which holds the offset's share).
fn accumulated_input(t: &Tensor, q: &QuantUniform, params: &Params) -> Result<Tensor, String> {
    if params.has("kernel_sum") || params.has("input_offset") {
        return Ok(offset(t, params.int("input_offset").unwrap_or(0)));
    }
    centered(t, q)
}

/// The accumulators `acc` (channel `channel(i)` of `channels` for element `i`) plus
/// the bias: the `bias` or `kernel_sum` table the op is given, else its bias operand
/// `operand` (one element per channel), if any.
fn add_bias(
    acc: &mut [Scalar],
    params: &Params,
    operand: Option<&Tensor>,
    channels: usize,
    channel: impl Fn(usize) -> usize,
) -> Result<(), String> {
    let given = match params.i32s("bias", channels)? {
        Some(t) => Some(t),
        None => params.i32s("kernel_sum", channels)?,
    };
    let bias: Vec<i128> = match (given, operand) {
        (Some(t), _) => t.iter().map(|b| i128::from(*b)).collect(),
        (None, Some(b)) if b.data.len() == channels => b.data.iter().map(|v| int(*v)).collect(),
        (None, Some(b)) => {
            return Err(format!(
                "the bias has {} elements for {channels} channels",
                b.data.len()
            ));
        }
        (None, None) => return Ok(()),
    };
    for (i, v) in acc.iter_mut().enumerate() {
        *v = Scalar::Int(int(*v) + bias[channel(i)]);
    }
    Ok(())
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
/// scale) scales `acc` by `s_in * s_w[c] / s_out` and adds `zero_out`, clamped to the
/// op's activation bounds (the storage range unless `act_min` / `act_max` narrow it).
/// The float scheme computes the multiplier in the expressed float type and rounds
/// half to even; the fixed-point scheme takes the accumulator as an i32 (wrapping, as
/// the host loops' and the libraries' accumulators do).
///
/// The numbers the op is given (`params`: `multipliers` and `shifts`, `scales`,
/// `output_offset`) replace those derived from the scales and zero points.
fn requantize(
    r: &RuleInput<'_>,
    params: &Params,
    acc: Vec<Scalar>,
    input: &QuantUniform,
    weight: &QuantUniform,
    channels_out: usize,
    weight_channel: impl Fn(usize) -> usize,
) -> Result<Vec<Tensor>, String> {
    let ty = r.result_type(0)?;
    if !matches!(
        r.ctx
            .type_data(r.ctx.type_data(ty).element_type().unwrap_or(ty)),
        TypeData::QuantUniform(_)
    ) {
        // An i32 result: the accumulators, as a library's i32 holds them.
        let data = acc
            .iter()
            .map(|v| Scalar::Int(i128::from(int(*v) as i32)))
            .collect();
        return Ok(vec![Tensor::new(r.ctx, ty, data)?]);
    }
    let q = quant_of(r.ctx, ty, "the result")?;
    let shape = Tensor::layout(r.ctx, ty)?.0;
    let out_channels = channels(q, &shape)?;
    let kind = expressed_kind(r.ctx, q);
    let round = |x: f64| elements::round_float(x, kind);
    let s_in = input.params_of(0).0;
    let scheme = acc_dialects::hooks::requant_scheme(r.ctx, r.op);
    let bounds = acc_dialects::hooks::activation_bounds(r.ctx, r.op)?;
    let (given_q31, given_scales) = (
        params.multipliers(channels_out)?,
        params.f32s("scales", channels_out)?,
    );
    let data = acc
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let (s_out, zero) = q.params_of(out_channels[i]);
            let zero = params.int("output_offset").unwrap_or(zero);
            let c = weight_channel(i);
            let s_w = weight.params_of(c).0;
            match scheme {
                Scheme::Float => {
                    let multiplier = match given_scales {
                        Some(t) => f64::from(t[c]),
                        None => requant::float_multiplier(s_in, s_w, s_out, round),
                    };
                    Ok(clamp_rounded(bounds, float(*v) * multiplier, zero))
                }
                Scheme::FixedPoint => {
                    let m = match &given_q31 {
                        Some(t) => Some(t[c]),
                        None => FixedPointMultiplier::of_scales(s_in, s_w, s_out),
                    }
                    .ok_or_else(|| {
                        format!("the multiplier s_in * s_w / s_out of element {i} has no Q31 form")
                    })?;
                    let acc = int(*v) as i32;
                    let y = requant::requantize_fixed_point(acc, m, zero, bounds);
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
    let params = Params::of(r.ctx, r.op)?;
    let shape = Tensor::layout(r.ctx, r.result_type(0)?)?.0;
    let plane: usize = shape.iter().skip(2).product();
    let m = shape.get(1).copied().unwrap_or(1);
    let channel = |i: usize| (i / plane.max(1)) % m.max(1);
    let input = accumulated_input(x, qx, &params)?;
    let mut acc = conv2d_values(r, &input, &centered(w, qw)?, None)?;
    add_bias(&mut acc, &params, r.operands.get(2), m, channel)?;
    requantize(r, &params, acc, qx, qw, m, channel)
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
    let params = Params::of(r.ctx, r.op)?;
    let mut acc = matmul_values(&accumulated_input(a, qa, &params)?, &centered(b, qb)?)?;
    let columns = b.shape.last().copied().unwrap_or(1).max(1);
    add_bias(&mut acc, &params, r.operands.get(2), columns, |i| {
        i % columns
    })?;
    requantize(r, &params, acc, qa, qb, columns, |i| i % columns)
}

/// The one scale and zero point of a per-tensor quantized operand or result.
fn per_tensor(q: &QuantUniform, what: &str) -> Result<(f64, i64), String> {
    if q.axis.is_some() || q.params.len() != 1 {
        return Err(format!("{what} must be quantized per tensor"));
    }
    Ok(q.params_of(0))
}

/// A per-tensor quantized operand's elements as the f32 values `dequantize` gives
/// (in the expressed float type of `q`).
fn dequantized(t: &Tensor, q: &QuantUniform, kind: FloatKind) -> Result<Vec<f64>, String> {
    let (scale, zero) = per_tensor(q, "the input")?;
    Ok(t.data
        .iter()
        .map(|v| elements::round_float((int(*v) - i128::from(zero)) as f64 * scale, kind))
        .collect())
}

/// The result of an op whose float scheme is a QDQ group: `values` (real values in
/// the expressed float type) quantized as `quantize` does, clamped to the op's
/// activation bounds.
fn quantized_result(r: &RuleInput<'_>, values: Vec<f64>) -> Result<Vec<Tensor>, String> {
    let ty = r.result_type(0)?;
    let q = quant_of(r.ctx, ty, "the result")?;
    let kind = expressed_kind(r.ctx, q);
    let (scale, zero) = per_tensor(q, "the result")?;
    let bounds = acc_dialects::hooks::activation_bounds(r.ctx, r.op)?;
    let data = values
        .into_iter()
        .map(|v| clamp_rounded(bounds, elements::round_float(v / scale, kind), zero))
        .collect();
    Ok(vec![Tensor::new(r.ctx, ty, data)?])
}

/// The result of the fixed-point scheme: each element's scaled integer (before the
/// zero point) from `scaled`, plus the result's zero point (or the `output_offset`
/// the op is given), clamped to the op's activation bounds.
fn fixed_point_result(
    r: &RuleInput<'_>,
    scaled: impl Iterator<Item = i32>,
) -> Result<Vec<Tensor>, String> {
    let ty = r.result_type(0)?;
    let q = quant_of(r.ctx, ty, "the result")?;
    let (_, zero) = per_tensor(q, "the result")?;
    let zero = Params::of(r.ctx, r.op)?
        .int("output_offset")
        .unwrap_or(zero);
    let (lo, hi) = acc_dialects::hooks::activation_bounds(r.ctx, r.op)?;
    let data = scaled
        .map(|v| Scalar::Int(i128::from((i64::from(v) + zero).clamp(lo, hi))))
        .collect();
    Ok(vec![Tensor::new(r.ctx, ty, data)?])
}

/// The operands of `qadd` / `qmul`: both tensors, their (scale, zero point), and the
/// result's scale and storage width.
type Pair<'t> = (&'t Tensor, &'t Tensor, (f64, i64), (f64, i64), f64, u32);

fn pair<'t>(r: &'t RuleInput<'_>) -> Result<Pair<'t>, String> {
    let (a, b) = (r.operand(0)?, r.operand(1)?);
    if a.data.len() != b.data.len() {
        return Err("the operands must have one shape".into());
    }
    let qa = per_tensor(
        quant_of(r.ctx, a.ty, "the left-hand side")?,
        "the left-hand side",
    )?;
    let qb = per_tensor(
        quant_of(r.ctx, b.ty, "the right-hand side")?,
        "the right-hand side",
    )?;
    let q = quant_of(r.ctx, r.result_type(0)?, "the result")?;
    let (s_out, _) = per_tensor(q, "the result")?;
    Ok((a, b, qa, qb, s_out, q.storage_width))
}

/// The float scheme of `qadd` / `qmul`: `f` of the dequantized values, rounded to
/// the expressed type, quantized.
fn float_pair(
    r: &RuleInput<'_>,
    a: &Tensor,
    b: &Tensor,
    f: impl Fn(f64, f64) -> f64,
) -> Result<Vec<Tensor>, String> {
    let q = quant_of(r.ctx, a.ty, "the left-hand side")?;
    let kind = expressed_kind(r.ctx, q);
    let qb = quant_of(r.ctx, b.ty, "the right-hand side")?;
    let (x, y) = (dequantized(a, q, kind)?, dequantized(b, qb, kind)?);
    let values = x
        .iter()
        .zip(&y)
        .map(|(x, y)| elements::round_float(f(*x, *y), kind))
        .collect();
    quantized_result(r, values)
}

/// A centered stored integer as the libraries' i32.
fn centered_i32(v: Scalar, zero: i64) -> i32 {
    (int(v) - i128::from(zero)) as i32
}

/// The zero point of input `k` (1 or 2) of a two-input op: its type's, or minus the
/// offset the op is given.
fn input_zero(params: &Params, k: usize, zero: i64) -> i64 {
    params
        .int(&format!("input{k}_offset"))
        .map_or(zero, |offset| -offset)
}

/// `qadd`: the float scheme adds the dequantized f32 values in f32 and quantizes; the
/// fixed-point scheme is TFLite's and CMSIS-NN's ([`requant::FixedPointAdd`]), with
/// the offsets, multipliers, shifts and headroom the op is given (`params`) in place
/// of those derived from the scales.
pub(super) fn qadd(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    graph_only(r)?;
    let (a, b, (s_a, z_a), (s_b, z_b), s_out, bits) = pair(r)?;
    match acc_dialects::hooks::requant_scheme(r.ctx, r.op) {
        Scheme::Float => float_pair(r, a, b, |x, y| x + y),
        Scheme::FixedPoint => {
            let params = Params::of(r.ctx, r.op)?;
            let mut add = requant::FixedPointAdd::of_scales(s_a, s_b, s_out, bits)
                .ok_or("the scales have no fixed-point addition")?;
            for (m, s, into) in [
                ("input1_multiplier", "input1_shift", &mut add.lhs),
                ("input2_multiplier", "input2_shift", &mut add.rhs),
                ("output_multiplier", "output_shift", &mut add.out),
            ] {
                if let Some(given) = params.multiplier(m, s)? {
                    *into = given;
                }
            }
            if let Some(l) = params.int("left_shift") {
                add.left_shift = u32::try_from(l)
                    .ok()
                    .filter(|l| *l <= 31)
                    .ok_or_else(|| format!("'left_shift' {l} is not in [0, 31]"))?;
            }
            let (z_a, z_b) = (input_zero(&params, 1, z_a), input_zero(&params, 2, z_b));
            let scaled = a
                .data
                .iter()
                .zip(&b.data)
                .map(|(x, y)| add.apply(centered_i32(*x, z_a), centered_i32(*y, z_b)));
            fixed_point_result(r, scaled)
        }
    }
}

/// `qmul`: the float scheme multiplies the dequantized f32 values in f32 and
/// quantizes; the fixed-point scheme scales the product of the centered integers by
/// the Q31 form of `s_a * s_b / s_out`.
pub(super) fn qmul(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    graph_only(r)?;
    let (a, b, (s_a, z_a), (s_b, z_b), s_out, _) = pair(r)?;
    match acc_dialects::hooks::requant_scheme(r.ctx, r.op) {
        Scheme::Float => float_pair(r, a, b, |x, y| x * y),
        Scheme::FixedPoint => {
            let params = Params::of(r.ctx, r.op)?;
            let m = match params.multiplier("multiplier", "shift")? {
                Some(m) => m,
                None => FixedPointMultiplier::of_scales(s_a, s_b, s_out)
                    .ok_or("the multiplier s_a * s_b / s_out has no Q31 form")?,
            };
            let (z_a, z_b) = (input_zero(&params, 1, z_a), input_zero(&params, 2, z_b));
            let scaled =
                a.data.iter().zip(&b.data).map(|(x, y)| {
                    m.apply(centered_i32(*x, z_a).wrapping_mul(centered_i32(*y, z_b)))
                });
            fixed_point_result(r, scaled)
        }
    }
}

/// `requantize`: the float scheme dequantizes to f32 and quantizes; the fixed-point
/// scheme scales the centered integer by the Q31 form of `s_in / s_out`.
pub(super) fn requantize_op(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    graph_only(r)?;
    let x = r.operand(0)?;
    let q = quant_of(r.ctx, x.ty, "the input")?;
    match acc_dialects::hooks::requant_scheme(r.ctx, r.op) {
        Scheme::Float => quantized_result(r, dequantized(x, q, expressed_kind(r.ctx, q))?),
        Scheme::FixedPoint => {
            let (s_in, z_in) = per_tensor(q, "the input")?;
            let qo = quant_of(r.ctx, r.result_type(0)?, "the result")?;
            let (s_out, _) = per_tensor(qo, "the result")?;
            let params = Params::of(r.ctx, r.op)?;
            let z_in = params.int("input_offset").map_or(z_in, |o| -o);
            let m = match params.multiplier("multiplier", "shift")? {
                Some(m) => m,
                None => FixedPointMultiplier::of_real(s_in / s_out)
                    .ok_or("the multiplier s_in / s_out has no Q31 form")?,
            };
            fixed_point_result(r, x.data.iter().map(|v| m.apply(centered_i32(*v, z_in))))
        }
    }
}

/// `qavg_pool`: the float scheme averages the dequantized values as `avg_pool` does
/// and quantizes. The fixed-point scheme, when the result has the input's scale and
/// zero point, is CMSIS-NN's rounded average of the stored integers (padding counted
/// as the zero point when `count_include_pad`); otherwise TFLite's mean, the sum of
/// the centered integers scaled by the Q31 form of `s_in / (s_out * count)`.
pub(super) fn qavg_pool(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    graph_only(r)?;
    let x = r.operand(0)?;
    let q = quant_of(r.ctx, x.ty, "the input")?;
    let (s_in, z_in) = per_tensor(q, "the input")?;
    let windows = PoolWindows::of(r, false)?;
    let include_pad =
        acc_dialects::hooks::attr_read::Attrs::of_op(r.ctx, r.op).flag("count_include_pad");
    if acc_dialects::hooks::requant_scheme(r.ctx, r.op) == Scheme::Float {
        let kind = expressed_kind(r.ctx, q);
        let values = dequantized(x, q, kind)?;
        let averages = average_values(&windows, &values, include_pad)
            .into_iter()
            .map(|v| elements::round_float(v, kind))
            .collect();
        return quantized_result(r, averages);
    }
    let qo = quant_of(r.ctx, r.result_type(0)?, "the result")?;
    let (s_out, z_out) = per_tensor(qo, "the result")?;
    let same = s_in == s_out && z_in == z_out;
    // A mean's numbers as a library is given them.
    let params = Params::of(r.ctx, r.op)?;
    if same && !params.is_empty() {
        return Err("a pool keeping its input's quantization takes no 'params'".into());
    }
    let given = params.multiplier("multiplier", "shift")?;
    let z_in = params.int("input_offset").map_or(z_in, |o| -o);
    let mut scaled = Vec::new();
    let mut failure = None;
    windows.for_each(|inside, padded| {
        let count = inside.len() + if include_pad { padded } else { 0 };
        let centered: i64 = inside.iter().map(|i| int(x.data[*i]) as i64 - z_in).sum();
        if same {
            // The stored integers' sum: the padding holds the zero point.
            let stored = centered + z_in * count as i64;
            scaled.push(requant::rounded_average(stored as i32, count as i32) - z_out as i32);
        } else {
            match given
                .or_else(|| FixedPointMultiplier::of_real(s_in / (s_out * count.max(1) as f64)))
            {
                Some(m) => scaled.push(m.apply(centered as i32)),
                None => {
                    failure = Some(format!(
                        "the multiplier of a {count}-element window has no Q31 form"
                    ))
                }
            }
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    fixed_point_result(r, scaled.into_iter())
}

/// `rescale`: each i32 accumulator scaled by its channel's Q31 multiplier and shift
/// from the tables, plus the result's zero point, clamped.
pub(super) fn rescale(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    graph_only(r)?;
    let (x, multipliers, shifts) = (r.operand(0)?, r.operand(1)?, r.operand(2)?);
    let axis = acc_dialects::hooks::attr_read::Attrs::of_op(r.ctx, r.op).int("axis")?;
    let (stride, dim) = match axis {
        None => (1, 1),
        Some(a) => {
            let d = acc_dialects::hooks::attr_read::norm_axis(a, x.shape.len(), "axis")?;
            (x.shape[d + 1..].iter().product::<usize>(), x.shape[d])
        }
    };
    let table = (0..multipliers.data.len().min(shifts.data.len()))
        .map(|c| {
            let (m, s) = (int(multipliers.data[c]), int(shifts.data[c]));
            let (m, s) = (
                i64::try_from(m).unwrap_or(-1),
                i64::try_from(s).unwrap_or(99),
            );
            FixedPointMultiplier::checked(m, s).map_err(|e| format!("channel {c}'s {e}"))
        })
        .collect::<Result<Vec<_>, String>>()?;
    let scaled = x.data.iter().enumerate().map(|(i, v)| {
        let c = (i / stride.max(1)) % dim.max(1);
        table.get(c).map_or(0, |m| m.apply(int(*v) as i32))
    });
    if table.len() < dim {
        return Err(format!("{} multipliers for {dim} channels", table.len()));
    }
    fixed_point_result(r, scaled)
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
