//! Packs of constants folded at compile time: a weight changes layout once, in the
//! compiler, never at run time.

use acc_ir::elements::{self, Scalar};
use acc_ir::{InsertPoint, OpId, ValueId};

use super::{Layouts, Tiling};
use crate::emit::shape_of;

impl Layouts<'_> {
    /// `pack` of a constant folded at compile time: a new constant of the packed
    /// type (`None` when the constant's elements are not dense numbers).
    pub(super) fn fold_constant(
        &mut self,
        constant: OpId,
        pack: OpId,
    ) -> Result<Option<ValueId>, String> {
        let Some(attr) = self.ir.op(self.body, constant).attr(self.ctx, "value") else {
            return Ok(None);
        };
        let Some(dense) = elements::dense(self.ctx, attr) else {
            return Ok(None);
        };
        let (tiling, source, padding) = self.pack_parts(pack);
        let (plain, _) = self.shape(source).ok_or("an unranked constant")?;
        let ty = self.ir.body(self.body).value_type(self.result(pack));
        let (blocked, _) = shape_of(self.ctx, ty)?;
        let padding = padding.and_then(|p| self.constant_scalar(p));
        let values = pack_values(&dense, &plain, &blocked, &tiling, padding)?;
        let value = elements::dense_attr(self.ctx, ty, &values)
            .ok_or("the packed constant has no dense form")?;
        let c = self.emitter(pack, InsertPoint::Before(pack)).op1(
            "arith.constant",
            &[],
            ty,
            &[("value", value)],
        )?;
        Ok(Some(c))
    }
}

/// The elements of a constant of `plain` shape packed into `blocked` shape
/// (`tensor.pack`'s definition: position `outer * tile + inner` along each tiled
/// dimension; past the end, the padding value, else zero).
fn pack_values(
    dense: &elements::Dense,
    plain: &[i64],
    blocked: &[i64],
    tiling: &Tiling,
    padding: Option<Scalar>,
) -> Result<Vec<Scalar>, String> {
    let rank = plain.len();
    let count: i64 = blocked.iter().product();
    if dense.splat && tiling.whole(plain) {
        return Ok(vec![dense.values[0]]);
    }
    let zero = match dense.values.first() {
        Some(Scalar::Int(_)) => Scalar::Int(0),
        _ => Scalar::Float(0.0),
    };
    let fill = padding.unwrap_or(zero);
    let mut strides = vec![1i64; rank];
    for d in (0..rank.saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * plain[d + 1];
    }
    let mut out = Vec::with_capacity(count.max(0) as usize);
    let mut index = vec![0i64; blocked.len()];
    for _ in 0..count {
        let mut at = index[..rank].to_vec();
        for (k, (p, t)) in tiling.positions.iter().zip(&tiling.tiles).enumerate() {
            at[*p as usize] = index[*p as usize] * t + index[rank + k];
        }
        let inside = at.iter().zip(plain).all(|(i, n)| *i < *n);
        out.push(if inside {
            let flat: i64 = at.iter().zip(&strides).map(|(i, s)| i * s).sum();
            dense.get(flat as usize)
        } else {
            fill
        });
        for d in (0..blocked.len()).rev() {
            index[d] += 1;
            if index[d] < blocked[d] {
                break;
            }
            index[d] = 0;
        }
    }
    Ok(out)
}
