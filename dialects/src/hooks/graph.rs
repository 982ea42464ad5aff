//! Verifiers and folders of the `graph` dialect (`defs/graph.acc`) for what shape
//! inference does not cover: per-channel operands, axes, quantized types.

use crate::ops::graph;
use acc_ir::attrs::AttrData;
use acc_ir::requant::{FixedPointAdd, FixedPointMultiplier, Scheme};
use acc_ir::types::QuantUniform;
use acc_ir::{AttrId, Context, DiagLoc, Diagnostic, FoldResult, OpRef, TypeData, TypeId};

use super::attr_read::{Attrs, dims_agree, norm_axis, ranked};
use super::shape::{conv2d_shape, matmul_shape, pool_shape};

fn check(op: OpRef<'_>, ctx: &Context, result: Result<(), String>) -> Vec<Diagnostic> {
    match result {
        Ok(()) => Vec::new(),
        Err(m) => vec![Diagnostic::error(
            DiagLoc::Loc(op.loc()),
            format!("'{}' op {m}", ctx.op_name_str(op.name())),
        )],
    }
}

/// `scale`, `bias`, `mean` and `var` have one value per channel (dimension 1).
pub(crate) fn verify_batch_norm(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let types = op.operand_types();
    let result = (|| {
        let (x, _) = ranked(ctx, types[0], "input")?;
        if x.len() < 2 {
            return Err("input must have rank 2 or more (N x C x ...)".to_string());
        }
        let (p, _) = ranked(ctx, types[1], "scale")?;
        if !dims_agree(p[0], x[1]) {
            return Err(format!(
                "scale, bias, mean and var must have {} values, one per channel, but have {}",
                x[1], p[0]
            ));
        }
        Ok(())
    })();
    check(op, ctx, result)
}

/// `axis` is valid, and `scale` (and `bias`) broadcast to the normalized dimensions.
pub(crate) fn verify_layer_norm(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let types = op.operand_types();
    let result = (|| {
        let (x, _) = ranked(ctx, types[0], "input")?;
        let attrs = Attrs::of_op(ctx, op);
        let axis = norm_axis(
            attrs.int(graph::LayerNorm::ATTR_AXIS)?.unwrap_or(-1),
            x.len(),
            "axis",
        )?;
        let normalized = &x[axis..];
        for (i, t) in types.iter().enumerate().skip(1) {
            let (s, _) = ranked(ctx, *t, "scale and bias")?;
            let fits = s.len() <= normalized.len()
                && s.iter()
                    .rev()
                    .zip(normalized.iter().rev())
                    .all(|(a, b)| *a == 1 || dims_agree(*a, *b));
            if !fits {
                let name = if i == 1 { "scale" } else { "bias" };
                return Err(format!(
                    "{name} of shape {s:?} does not broadcast to the normalized dimensions {normalized:?}"
                ));
            }
        }
        Ok(())
    })();
    check(op, ctx, result)
}

/// The `axis` attribute names a dimension of the input.
pub(crate) fn verify_axis(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let types = op.operand_types();
    let result = (|| {
        let (x, _) = ranked(ctx, types[0], "input")?;
        // softmax and sort share the attribute name.
        let axis = Attrs::of_op(ctx, op)
            .int(graph::Softmax::ATTR_AXIS)?
            .unwrap_or(-1);
        norm_axis(axis, x.len(), "axis").map(|_| ())
    })();
    check(op, ctx, result)
}

fn quant(ctx: &Context, t: TypeId) -> Option<&QuantUniform> {
    let element = ctx.type_data(t).element_type()?;
    match ctx.type_data(element) {
        TypeData::QuantUniform(q) => Some(q),
        _ => None,
    }
}

/// A quantized type's per-axis parameters fit the tensor they describe.
fn check_quant_axis(ctx: &Context, t: TypeId, what: &str) -> Result<(), String> {
    let Some(q) = quant(ctx, t) else {
        return Ok(());
    };
    let Some(axis) = q.axis else { return Ok(()) };
    let (shape, _) = ranked(ctx, t, what)?;
    let axis = usize::try_from(axis)
        .ok()
        .filter(|a| *a < shape.len())
        .ok_or_else(|| format!("{what} is quantized along axis {axis}, which it lacks"))?;
    if !dims_agree(shape[axis], q.params.len() as i64) {
        return Err(format!(
            "{what} has {} quantization parameters for {} channels on axis {axis}",
            q.params.len(),
            shape[axis]
        ));
    }
    Ok(())
}

/// `graph.quantize` / `graph.dequantize`: the quantized side expresses the float side's
/// element type, and its per-axis parameters fit.
pub(crate) fn verify_quantize(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let (Some(&input), Some(&output)) = (op.operand_types().first(), op.result_types().first())
    else {
        return Vec::new();
    };
    let result = (|| {
        let (q_side, f_side) = if quant(ctx, input).is_some() {
            (input, output)
        } else {
            (output, input)
        };
        let q = quant(ctx, q_side).ok_or("one side must be quantized")?;
        let float = ctx.type_data(f_side).element_type().unwrap_or(f_side);
        if q.expressed != float {
            return Err(format!(
                "the quantized type expresses {}, but the float side is {}",
                acc_ir::printer::type_to_string(ctx, q.expressed),
                acc_ir::printer::type_to_string(ctx, float)
            ));
        }
        check_quant_axis(ctx, q_side, "the quantized tensor")
    })();
    check(op, ctx, result)
}

/// `graph.storage_cast`: one side quantized, the other an integer of its storage width.
pub(crate) fn verify_storage_cast(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let (Some(&input), Some(&output)) = (op.operand_types().first(), op.result_types().first())
    else {
        return Vec::new();
    };
    let result = (|| {
        let (q, int_side) = match (quant(ctx, input), quant(ctx, output)) {
            (Some(q), None) => (q, output),
            (None, Some(q)) => (q, input),
            _ => return Err("exactly one side must be quantized".to_string()),
        };
        let element = ctx.type_data(int_side).element_type().unwrap_or(int_side);
        match ctx.type_data(element) {
            TypeData::Integer { width, .. } if *width == q.storage_width => Ok(()),
            _ => Err(format!(
                "the integer side must have {}-bit integer elements, not {}",
                q.storage_width,
                acc_ir::printer::type_to_string(ctx, element)
            )),
        }
    })();
    check(op, ctx, result)
}

/// `tensor.bitcast`: a quantized side and its storage integers (as
/// `graph.storage_cast`), or integers of one width (the function's `ui8` arguments
/// seen as the signless `i8` the lowered code computes with).
pub(crate) fn verify_tensor_bitcast(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let (Some(&input), Some(&output)) = (op.operand_types().first(), op.result_types().first())
    else {
        return Vec::new();
    };
    let width = |t: TypeId| {
        let element = ctx.type_data(t).element_type().unwrap_or(t);
        match ctx.type_data(element) {
            TypeData::Integer { width, .. } => Some(*width),
            _ => None,
        }
    };
    match (width(input), width(output)) {
        (Some(a), Some(b)) if a == b => Vec::new(),
        (Some(_), Some(_)) => check(
            op,
            ctx,
            Err("integers on both sides must have one width".into()),
        ),
        _ => verify_storage_cast(op, ctx),
    }
}

/// The requantization scheme of a `graph.qconv2d` / `graph.qmatmul` (its `requant`
/// attribute; `float` when absent).
pub fn requant_scheme(ctx: &Context, op: OpRef<'_>) -> Scheme {
    op.attr(ctx, "requant")
        .and_then(|a| crate::ops::support::enum_case(ctx, "graph.requantization", a))
        .and_then(Scheme::of_name)
        .unwrap_or(Scheme::Float)
}

/// The scheme of an op that requantizes (`qconv2d`, `qmatmul`, `qadd`, `qmul`,
/// `qavg_pool`, `requantize`), `None` for any other op.
pub fn requantizes(ctx: &Context, op: OpRef<'_>) -> Option<Scheme> {
    let requantizing = [
        graph::Qconv2d::NAME,
        graph::Qmatmul::NAME,
        graph::Qadd::NAME,
        graph::Qmul::NAME,
        graph::QavgPool::NAME,
        graph::Requantize::NAME,
    ];
    requantizing
        .contains(&ctx.op_name_str(op.name()))
        .then(|| requant_scheme(ctx, op))
}

/// The `requant` attribute value of `scheme`: `#graph.requantization<fixed_point>`.
pub fn requant_attr(ctx: &Context, scheme: Scheme) -> AttrId {
    let case = match scheme {
        Scheme::Float => "float",
        Scheme::FixedPoint => "fixed_point",
    };
    ctx.intern_attr(AttrData::Dialect {
        dialect: ctx.sym("graph"),
        body: ctx.sym(&format!(".requantization<{case}>")),
        ty: None,
    })
}

/// Under the fixed-point scheme, every channel's real multiplier `s_in * s_w / s_out`
/// must have a Q31 form (finite, non-negative, below 2^30).
fn check_fixed_point_multipliers(
    ctx: &Context,
    types: &[TypeId],
    out: TypeId,
) -> Result<(), String> {
    let (Some(qx), Some(qw), Some(qo)) =
        (quant(ctx, types[0]), quant(ctx, types[1]), quant(ctx, out))
    else {
        return Ok(());
    };
    let channels = qw.params.len().max(qo.params.len());
    for c in 0..channels {
        let (s_w, s_out) = (qw.params_of(c).0, qo.params_of(c).0);
        let real = qx.params_of(0).0 * s_w / s_out;
        if FixedPointMultiplier::of_real(real).is_none() {
            return Err(format!(
                "channel {c}'s multiplier {real:e} (s_in * s_w / s_out) has no Q31 form for \
                 `fixed_point` requantization (it must be below 2^30)"
            ));
        }
    }
    Ok(())
}

/// `graph.qconv2d` / `graph.qmatmul`: the result has the shape of the float op on the
/// operands' shapes; weights may be per output channel, activations per tensor; a
/// fixed-point op's multipliers have Q31 forms.
pub(crate) fn verify_quantized_result(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let types = op.operand_types();
    let Some(&out) = op.result_types().first() else {
        return Vec::new();
    };
    let result = (|| {
        crate::hooks::params::Params::of(ctx, op)?;
        let (a, _) = ranked(ctx, types[0], "input")?;
        let (b, _) = ranked(ctx, types[1], "weight")?;
        let want = if graph::Qconv2d::is(ctx, op) {
            let bias = match types.get(2) {
                Some(t) => Some(ranked(ctx, *t, "bias")?.0),
                None => None,
            };
            conv2d_shape(&Attrs::of_op(ctx, op), &a, &b, bias.as_deref())?
        } else {
            let shape = matmul_shape(&a, &b)?;
            if let Some(bias) = types.get(2) {
                let (bias, _) = ranked(ctx, *bias, "bias")?;
                let columns = shape.last().copied().unwrap_or(1);
                if bias.len() != 1 || !dims_agree(bias[0], columns) {
                    return Err(format!(
                        "the bias must have one element per column ({columns}), not shape {bias:?}"
                    ));
                }
            }
            shape
        };
        let (got, _) = ranked(ctx, out, "the result")?;
        if got.len() != want.len() || !got.iter().zip(&want).all(|(g, w)| dims_agree(*g, *w)) {
            return Err(format!(
                "result shape {got:?} does not match the inferred {want:?}"
            ));
        }
        if quant(ctx, types[0]).and_then(|q| q.axis).is_some() {
            return Err("the input must be quantized per tensor".into());
        }
        check_quant_axis(ctx, types[1], "the weight")?;
        if let Some(axis) = quant(ctx, types[1]).and_then(|q| q.axis) {
            let conv = graph::Qconv2d::is(ctx, op);
            let per_column = b.len() >= 2 && axis as usize + 1 == b.len();
            if conv && axis != 0 {
                return Err(
                    "the weight must be quantized per tensor or per output channel (dimension 0)"
                        .into(),
                );
            }
            if !conv && !per_column {
                return Err("the right-hand side must be quantized per tensor or per column (the last dimension of a matrix)".into());
            }
        }
        check_quant_axis(ctx, out, "the result")?;
        if requant_scheme(ctx, op) == Scheme::FixedPoint {
            check_fixed_point_multipliers(ctx, &types, out)?;
        }
        if quant(ctx, out).is_some() {
            activation_bounds(ctx, op)?;
        } else {
            let attrs = Attrs::of_op(ctx, op);
            if attrs.get("act_min").is_some() || attrs.get("act_max").is_some() {
                return Err("an i32 result (the accumulators) is not clamped: 'act_min' and 'act_max' belong to a quantized result".into());
            }
        }
        Ok(())
    })();
    check(op, ctx, result)
}

/// The storage range of a tensor type with a quantized element type.
pub fn storage_range(ctx: &Context, ty: TypeId) -> Option<(i64, i64)> {
    quant(ctx, ty).map(QuantUniform::storage_bounds)
}

/// The stored values a quantized op's result is clamped to: its storage range,
/// narrowed by the `act_min` / `act_max` attributes (a fused ReLU, ReLU6 or Clip).
/// An error when a bound lies outside the storage range or they cross.
pub fn activation_bounds(ctx: &Context, op: OpRef<'_>) -> Result<(i64, i64), String> {
    let out = op
        .result_types()
        .first()
        .copied()
        .ok_or("the op has no result")?;
    let q = quant(ctx, out).ok_or("the result must be quantized")?;
    let (lo, hi) = q.storage_bounds();
    let attrs = Attrs::of_op(ctx, op);
    let bound = |name: &str, default: i64| -> Result<i64, String> {
        match attrs.int(name)? {
            None => Ok(default),
            Some(v) => {
                if !(lo..=hi).contains(&v) {
                    return Err(format!(
                        "'{name}' {v} lies outside the result's storage range [{lo}, {hi}]"
                    ));
                }
                Ok(v)
            }
        }
    };
    let (min, max) = (bound("act_min", lo)?, bound("act_max", hi)?);
    if min > max {
        return Err(format!("'act_min' {min} is above 'act_max' {max}"));
    }
    Ok((min, max))
}

/// The one (scale, zero point) of a per-tensor quantized type, or an error naming
/// `what`.
fn per_tensor(ctx: &Context, t: TypeId, what: &str) -> Result<(f64, i64), String> {
    let q = quant(ctx, t).ok_or(format!("{what} must be quantized"))?;
    if q.axis.is_some() || q.params.len() != 1 {
        return Err(format!("{what} must be quantized per tensor"));
    }
    Ok(q.params_of(0))
}

/// `graph.qadd`, `graph.qmul`, `graph.requantize`: every operand and the result
/// quantized per tensor; under `fixed_point`, multipliers with Q31 forms; clamp
/// bounds inside the result's storage range.
pub(crate) fn verify_quantized_elementwise(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let types = op.operand_types();
    let Some(&out) = op.result_types().first() else {
        return Vec::new();
    };
    let result = (|| {
        crate::hooks::params::Params::of(ctx, op)?;
        let names = ["the left-hand side", "the right-hand side"];
        let inputs = types
            .iter()
            .enumerate()
            .map(|(i, t)| {
                per_tensor(
                    ctx,
                    *t,
                    if types.len() == 1 {
                        "the input"
                    } else {
                        names[i.min(1)]
                    },
                )
            })
            .collect::<Result<Vec<_>, String>>()?;
        let (s_out, _) = per_tensor(ctx, out, "the result")?;
        activation_bounds(ctx, op)?;
        if requant_scheme(ctx, op) != Scheme::FixedPoint {
            return Ok(());
        }
        let bits = quant(ctx, out).map_or(8, |q| q.storage_width);
        let fits = match (
            graph::Qadd::is(ctx, op),
            graph::Qmul::is(ctx, op),
            inputs.as_slice(),
        ) {
            (true, _, [(s_a, _), (s_b, _)]) => {
                FixedPointAdd::of_scales(*s_a, *s_b, s_out, bits).is_some()
            }
            (_, true, [(s_a, _), (s_b, _)]) => {
                FixedPointMultiplier::of_scales(*s_a, *s_b, s_out).is_some()
            }
            (_, _, [(s_in, _)]) => FixedPointMultiplier::of_real(s_in / s_out).is_some(),
            _ => true,
        };
        if !fits {
            return Err("the scales give a multiplier without a Q31 form for `fixed_point` requantization (it must be below 2^30)".into());
        }
        Ok(())
    })();
    check(op, ctx, result)
}

/// `graph.rescale`: one multiplier and one shift per channel along `axis` (or one of
/// each without it); a per-tensor quantized result; clamp bounds inside its storage
/// range.
pub(crate) fn verify_rescale(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let types = op.operand_types();
    let Some(&out) = op.result_types().first() else {
        return Vec::new();
    };
    let result = (|| {
        let (x, _) = ranked(ctx, types[0], "input")?;
        let axis = Attrs::of_op(ctx, op).int("axis")?;
        let channels = match axis {
            None => 1,
            Some(a) => {
                let d = norm_axis(a, x.len(), "axis")?;
                x[d]
            }
        };
        for (k, what) in [(1, "multiplier"), (2, "shift")] {
            let (t, _) = ranked(ctx, types[k], what)?;
            if !dims_agree(t[0], channels) {
                return Err(format!(
                    "the {what} table has {} entries for {channels} channels",
                    t[0]
                ));
            }
        }
        per_tensor(ctx, out, "the result")?;
        activation_bounds(ctx, op)?;
        Ok(())
    })();
    check(op, ctx, result)
}

/// `graph.qavg_pool`: the result has the pool's shape; input and result quantized per
/// tensor; under `fixed_point` with different scales, the multiplier of a one-element
/// window has a Q31 form; clamp bounds inside the result's storage range.
pub(crate) fn verify_quantized_pool(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let types = op.operand_types();
    let (Some(&input), Some(&out)) = (types.first(), op.result_types().first()) else {
        return Vec::new();
    };
    let result = (|| {
        crate::hooks::params::Params::of(ctx, op)?;
        let (x, _) = ranked(ctx, input, "input")?;
        let want = pool_shape(&Attrs::of_op(ctx, op), &x)?;
        let (got, _) = ranked(ctx, out, "the result")?;
        if got.len() != want.len() || !got.iter().zip(&want).all(|(g, w)| dims_agree(*g, *w)) {
            return Err(format!(
                "result shape {got:?} does not match the inferred {want:?}"
            ));
        }
        let (s_in, z_in) = per_tensor(ctx, input, "the input")?;
        let (s_out, z_out) = per_tensor(ctx, out, "the result")?;
        activation_bounds(ctx, op)?;
        let rescales = s_in != s_out || z_in != z_out;
        if requant_scheme(ctx, op) == Scheme::FixedPoint
            && rescales
            && FixedPointMultiplier::of_real(s_in / s_out).is_none()
        {
            return Err(format!(
                "the multiplier {:e} (s_in / s_out) has no Q31 form for `fixed_point` requantization (it must be below 2^30)",
                s_in / s_out
            ));
        }
        Ok(())
    })();
    check(op, ctx, result)
}

/// `graph.lookup`: one table entry per stored value of the input, each an integer of
/// the output's storage width.
pub(crate) fn verify_lookup(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let types = op.operand_types();
    let (Some(&input), Some(&table), Some(&out)) =
        (types.first(), types.get(1), op.result_types().first())
    else {
        return Vec::new();
    };
    let result = (|| {
        let q_in = quant(ctx, input).ok_or("the input must be quantized")?;
        let q_out = quant(ctx, out).ok_or("the output must be quantized")?;
        let (entries, _) = ranked(ctx, table, "table")?;
        let want = 1i64
            .checked_shl(q_in.storage_width)
            .filter(|_| q_in.storage_width <= 16)
            .ok_or("the input's storage must be 16 bits or narrower")?;
        if entries.first().is_some_and(|n| *n >= 0 && *n != want) {
            return Err(format!(
                "the table must have {want} entries (one per stored value of the input), not {}",
                entries[0]
            ));
        }
        let element = ctx.type_data(table).element_type().unwrap_or(table);
        match ctx.type_data(element) {
            TypeData::Integer { width, .. } if *width == q_out.storage_width => Ok(()),
            _ => Err(format!(
                "the table's elements must be {}-bit integers (the output's storage)",
                q_out.storage_width
            )),
        }
    })();
    check(op, ctx, result)
}

/// A reshape to the input's own type is the input; of a constant, a constant.
pub(crate) fn fold_reshape(
    op: OpRef<'_>,
    consts: &[Option<AttrId>],
    ctx: &Context,
) -> Option<Vec<FoldResult>> {
    let input = op.operands().next()?;
    let out = op.result_types().first().copied()?;
    if op.operand_types().first() == Some(&out) {
        return Some(vec![FoldResult::Value(input)]);
    }
    let data = match ctx.attr_data(consts.first().copied()??).clone() {
        AttrData::DenseElements { data, .. } => AttrData::DenseElements { ty: out, data },
        AttrData::DenseResource { handle, .. } => AttrData::DenseResource { ty: out, handle },
        _ => return None,
    };
    Some(vec![FoldResult::Attr(ctx.intern_attr(data))])
}
