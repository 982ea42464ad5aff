//! The arguments of an intrinsic's call computed at compile time from what matched:
//! tables of real expressions per channel (`q31_multipliers`, `q31_shifts`,
//! `i32_table`, `i16_table`, `f32_table`), the float scheme's `requant_scales`, and
//! constant weights `packed` in the layout and bit width the device reads. Each is
//! checked as it is made (integers in their type's range, finite floats, as many
//! entries as asked) and refuses the op with the reason otherwise.

use acc_ir::requant;
use acc_ir::types::QuantUniform;
use acc_ir::{BodyId, Context, Ir, TypeData, TypeId};
use acc_target::CallArg;

/// What a table of the call holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TableKind {
    /// `q31_multipliers(n, real)`: the Q31 significands of a per-channel real
    /// multiplier (`int32_t`), the ones the library requantizes with.
    Q31Multipliers,
    /// `q31_shifts(n, real)`: their shifts (`int32_t`).
    Q31Shifts,
    /// `i32_table(n, e)`: integers (`int32_t`).
    I32,
    /// `i16_table(n, e)`: integers (`int16_t`).
    I16,
    /// `f32_table(n, e)`: reals rounded to `float`.
    F32,
}

impl TableKind {
    pub(super) fn of_name(name: &str) -> Option<TableKind> {
        Some(match name {
            "q31_multipliers" => TableKind::Q31Multipliers,
            "q31_shifts" => TableKind::Q31Shifts,
            "i32_table" => TableKind::I32,
            "i16_table" => TableKind::I16,
            "f32_table" => TableKind::F32,
            _ => return None,
        })
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            TableKind::Q31Multipliers => "q31_multipliers",
            TableKind::Q31Shifts => "q31_shifts",
            TableKind::I32 => "i32_table",
            TableKind::I16 => "i16_table",
            TableKind::F32 => "f32_table",
        }
    }

    /// The call argument of the entries `values` (checked: integers in range,
    /// finite floats; for the Q31 tables, the real multipliers whose parts they
    /// hold).
    pub(super) fn argument(self, values: &[f64]) -> Result<CallArg, String> {
        let integers = |lo: f64, hi: f64| -> Result<Vec<i64>, String> {
            values
                .iter()
                .enumerate()
                .map(|(c, v)| {
                    if v.fract() != 0.0 || !(lo..=hi).contains(v) {
                        return Err(format!(
                            "{}: entry {c} is {v}, not an integer in [{lo}, {hi}]",
                            self.name()
                        ));
                    }
                    Ok(*v as i64)
                })
                .collect()
        };
        if let TableKind::Q31Multipliers | TableKind::Q31Shifts = self {
            let parts = values
                .iter()
                .enumerate()
                .map(|(c, real)| {
                    let m = requant::FixedPointMultiplier::of_real(*real).ok_or_else(|| {
                        format!(
                            "{}: channel {c}'s multiplier {real:e} has no Q31 form (it must be non-negative and below 2^30)",
                            self.name()
                        )
                    })?;
                    Ok(if self == TableKind::Q31Multipliers { m.multiplier } else { m.shift })
                })
                .collect::<Result<Vec<i32>, String>>()?;
            return Ok(CallArg::I32Table(parts));
        }
        Ok(match self {
            TableKind::Q31Multipliers | TableKind::Q31Shifts | TableKind::I32 => {
                let v = integers(f64::from(i32::MIN), f64::from(i32::MAX))?;
                CallArg::I32Table(v.into_iter().map(|x| x as i32).collect())
            }
            TableKind::I16 => {
                let v = integers(f64::from(i16::MIN), f64::from(i16::MAX))?;
                CallArg::I16Table(v.into_iter().map(|x| x as i16).collect())
            }
            TableKind::F32 => CallArg::F32Table(values.iter().map(|v| *v as f32).collect()),
        })
    }

    /// Whether a prepared argument is this kind's, of `n` entries.
    pub(super) fn holds(self, arg: &CallArg, n: usize) -> bool {
        match (self, arg) {
            (
                TableKind::Q31Multipliers | TableKind::Q31Shifts | TableKind::I32,
                CallArg::I32Table(t),
            ) => t.len() == n,
            (TableKind::I16, CallArg::I16Table(t)) => t.len() == n,
            (TableKind::F32, CallArg::F32Table(t)) => t.len() == n,
            _ => false,
        }
    }
}

/// The most entries a table of a call may have.
pub(super) const MAX_TABLE_ENTRIES: i64 = 1 << 16;

/// The storage width of `w`'s elements (1, 2, 4 or 8 bits) and its static shape:
/// what `packed(w, ...)` packs.
fn packing_of(
    ctx: &Context,
    ir: &Ir,
    body: BodyId,
    w: acc_ir::ValueId,
) -> Result<(u32, Vec<usize>), String> {
    let ty = ir.body(body).value_type(w);
    let element = ctx.type_data(ty).element_type().unwrap_or(ty);
    let width = match ctx.type_data(element) {
        TypeData::QuantUniform(q) => q.storage_width,
        TypeData::Integer { width, .. } => *width,
        _ => return Err("packed: the value must be integers or quantized".into()),
    };
    if !matches!(width, 1 | 2 | 4 | 8) {
        return Err(format!(
            "packed: {width}-bit elements do not pack into bytes"
        ));
    }
    let shape: Vec<usize> = ctx
        .type_data(ty)
        .shape()
        .filter(|s| s.iter().all(|d| *d >= 0))
        .ok_or("packed: a dynamic shape")?
        .iter()
        .map(|d| *d as usize)
        .collect();
    Ok((width, shape))
}

/// The number of bytes `packed(w, order...)` makes (an error for an order that is
/// not a permutation of `w`'s dimensions).
pub(super) fn packed_len(
    ctx: &Context,
    ir: &Ir,
    body: BodyId,
    w: acc_ir::ValueId,
    order: &[i64],
) -> Result<usize, String> {
    let (width, shape) = packing_of(ctx, ir, body, w)?;
    let count = reordered(&shape, order)?.len();
    Ok(count.div_ceil((8 / width) as usize))
}

/// The bytes of `packed(%w, order...)`: `w`'s stored integers (a constant), its
/// dimensions in `order` (empty: as they are), `8 / width` to a byte, the first in
/// the lowest bits.
pub(super) fn packed(
    ctx: &Context,
    ir: &Ir,
    body: BodyId,
    w: acc_ir::ValueId,
    order: &[i64],
) -> Result<Vec<u8>, String> {
    let (width, shape) = packing_of(ctx, ir, body, w)?;
    let dense = crate::hooks::stored::stored_constant(ctx, ir, body, w)
        .ok_or("packed: the value is not a constant")?;
    let sources = reordered(&shape, order)?;
    let per_byte = (8 / width) as usize;
    let mask = (1u16 << width) - 1;
    let mut bytes = vec![0u8; sources.len().div_ceil(per_byte)];
    for (i, source) in sources.into_iter().enumerate() {
        let acc_ir::elements::Scalar::Int(v) = dense.get(source) else {
            return Err("packed: the constant is not integers".into());
        };
        let bits = (v as u16 & mask) << ((i % per_byte) as u32 * width);
        bytes[i / per_byte] |= bits as u8;
    }
    Ok(bytes)
}

/// The per-channel multipliers of `requant_scales`.
pub(super) fn requant_scales(
    ctx: &Context,
    types: [Option<TypeId>; 3],
    n: i64,
) -> Result<Vec<f32>, String> {
    let quant = |t: Option<TypeId>| -> Result<&QuantUniform, String> {
        let t = t.ok_or("an unbound value")?;
        let e = ctx.type_data(t).element_type().unwrap_or(t);
        match ctx.type_data(e) {
            TypeData::QuantUniform(q) => Ok(q),
            _ => Err("requant_scales: the values must be quantized".into()),
        }
    };
    let (x, w, y) = (quant(types[0])?, quant(types[1])?, quant(types[2])?);
    // The multipliers are rounded to f32 as the quantized ops' semantics round them
    // in their expressed type: other expressed types would round differently.
    let f32_type = ctx.float_type(acc_ir::FloatKind::F32);
    if [x, w, y].iter().any(|q| q.expressed != f32_type) {
        return Err("requant_scales: the quantized types must express f32".into());
    }
    if x.params.len() != 1 || y.params.len() != 1 {
        return Err("requant_scales: the input and output must be quantized per tensor".into());
    }
    let n = usize::try_from(n).map_err(|_| "requant_scales: a negative count")?;
    if w.params.len() != 1 && w.params.len() != n {
        return Err(format!(
            "requant_scales: {} weight scales for {n} channels",
            w.params.len()
        ));
    }
    let (sx, sy) = (x.params_of(0).0, y.params_of(0).0);
    let f32_round = |v: f64| f64::from(v as f32);
    Ok((0..n)
        .map(|c| requant::float_multiplier(sx, w.params_of(c).0, sy, f32_round) as f32)
        .collect())
}

/// For each element of a `shape` tensor with its dimensions in `order` (row-major),
/// the index of the element of the tensor as it is; `order` empty keeps it.
fn reordered(shape: &[usize], order: &[i64]) -> Result<Vec<usize>, String> {
    let n: usize = shape.iter().product();
    if order.is_empty() {
        return Ok((0..n).collect());
    }
    let mut seen = vec![false; shape.len()];
    let order: Vec<usize> = order
        .iter()
        .map(|d| {
            usize::try_from(*d)
                .ok()
                .filter(|d| *d < shape.len() && !std::mem::replace(&mut seen[*d], true))
                .ok_or_else(|| {
                    format!(
                        "packed: {order:?} is not an order of the {} dimensions",
                        shape.len()
                    )
                })
        })
        .collect::<Result<_, _>>()?;
    if order.len() != shape.len() {
        return Err(format!(
            "packed: {order:?} does not order all {} dimensions",
            shape.len()
        ));
    }
    let mut strides = vec![1usize; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1];
    }
    let out_shape: Vec<usize> = order.iter().map(|d| shape[*d]).collect();
    Ok((0..n)
        .map(|mut i| {
            let mut source = 0;
            for k in (0..out_shape.len()).rev() {
                source += (i % out_shape[k]) * strides[order[k]];
                i /= out_shape[k];
            }
            source
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::{TableKind, reordered};
    use acc_target::CallArg;

    #[test]
    fn tables_hold_checked_entries() {
        // 1.25 = 0.625 * 2^1 and 0.015 = 0.96 * 2^-6, as TFLite's QuantizeMultiplier.
        let reals = [1.25, 0.015];
        assert_eq!(
            TableKind::Q31Multipliers.argument(&reals),
            Ok(CallArg::I32Table(vec![1342177280, 2061584302]))
        );
        assert_eq!(
            TableKind::Q31Shifts.argument(&reals),
            Ok(CallArg::I32Table(vec![1, -6]))
        );
        assert!(
            TableKind::Q31Shifts
                .argument(&[-1.0])
                .is_err_and(|e| e.contains("channel 0's multiplier -1e0 has no Q31 form"))
        );
        assert_eq!(
            TableKind::I16.argument(&[-32768.0, 7.0]),
            Ok(CallArg::I16Table(vec![-32768, 7]))
        );
        assert!(TableKind::I16.argument(&[40000.0]).is_err());
        assert!(
            TableKind::I32
                .argument(&[0.5])
                .is_err_and(|e| e.contains("entry 0 is 0.5, not an integer"))
        );
        assert_eq!(
            TableKind::F32.argument(&[0.1]),
            Ok(CallArg::F32Table(vec![0.1]))
        );
        let i32_table = CallArg::I32Table(vec![1, 2]);
        assert!(TableKind::Q31Shifts.holds(&i32_table, 2));
        assert!(!TableKind::Q31Shifts.holds(&i32_table, 3));
        assert!(!TableKind::F32.holds(&i32_table, 2));
    }

    #[test]
    fn reordering_lists_the_source_of_each_element() {
        // A 2 x 3 matrix transposed.
        assert_eq!(reordered(&[2, 3], &[1, 0]), Ok(vec![0, 3, 1, 4, 2, 5]));
        // OIHW 1 x 2 x 1 x 2 as OHWI: the two input channels of each position together.
        assert_eq!(
            reordered(&[1, 2, 1, 2], &[0, 2, 3, 1]),
            Ok(vec![0, 2, 1, 3])
        );
        assert_eq!(reordered(&[2, 2], &[]), Ok(vec![0, 1, 2, 3]));
        assert!(reordered(&[2, 2], &[0, 0]).is_err());
        assert!(reordered(&[2, 2], &[0]).is_err());
        assert!(reordered(&[2, 2], &[0, 2]).is_err());
    }
}
