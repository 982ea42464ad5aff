//! Packs of constants folded at compile time: a weight changes layout once, in the
//! compiler, never at run time.

use acc_ir::attrs::{AttrData, DenseData};
use acc_ir::elements::{self, Scalar};
use acc_ir::{InsertPoint, OpId, ValueId};

use super::{Layouts, Tiling};
use crate::emit::{element_bytes, is_float, shape_of};

impl Layouts<'_> {
    /// `pack` of a constant folded at compile time: a new constant of the packed
    /// type, its elements' bytes moved (`None` when the constant's elements are not
    /// dense numbers).
    pub(super) fn fold_constant(
        &mut self,
        constant: OpId,
        pack: OpId,
    ) -> Result<Option<ValueId>, String> {
        let Some(attr) = self.ir.op(self.body, constant).attr(self.ctx, "value") else {
            return Ok(None);
        };
        let Some((bytes, splat)) = element_bytes(self.ctx, attr) else {
            return Ok(None);
        };
        let (tiling, source, padding) = self.pack_parts(pack);
        let (plain, element) = self.shape(source).ok_or("an unranked constant")?;
        let Some(kind) = elements::ElementKind::of(self.ctx, element) else {
            return Ok(None);
        };
        let ty = self.ir.body(self.body).value_type(self.result(pack));
        let (blocked, _) = shape_of(self.ctx, ty)?;
        let data = if splat && tiling.whole(&plain) {
            DenseData::Splat(bytes.into())
        } else {
            // The padding value's bytes (zero without one).
            let zero = if is_float(self.ctx, element) {
                Scalar::Float(0.0)
            } else {
                Scalar::Int(0)
            };
            let mut fill = Vec::new();
            kind.encode(
                padding
                    .and_then(|p| self.constant_scalar(p))
                    .unwrap_or(zero),
                &mut fill,
            );
            let size = kind.bytes();
            let count: i64 = blocked.iter().product();
            let mut out = Vec::with_capacity(count.max(0) as usize * size);
            for at in pack_sources(&plain, &blocked, &tiling) {
                match at {
                    Some(_) if splat => out.extend_from_slice(&bytes[..size]),
                    Some(i) => out.extend_from_slice(
                        bytes
                            .get(i * size..(i + 1) * size)
                            .ok_or("a short constant")?,
                    ),
                    None => out.extend_from_slice(&fill),
                }
            }
            DenseData::Elements(out.into())
        };
        let value = self.ctx.intern_attr(AttrData::DenseElements { ty, data });
        let c = self.emitter(pack, InsertPoint::Before(pack)).op1(
            "arith.constant",
            &[],
            ty,
            &[("value", value)],
        )?;
        Ok(Some(c))
    }
}

/// For each element of the `blocked` shape in row-major order, the row-major
/// position in the `plain` shape it comes from (`tensor.pack`'s definition:
/// `outer * tile + inner` along each tiled dimension), `None` past the end (the
/// padding of a partial block).
fn pack_sources<'a>(
    plain: &'a [i64],
    blocked: &'a [i64],
    tiling: &'a Tiling,
) -> impl Iterator<Item = Option<usize>> + 'a {
    let rank = plain.len();
    let mut strides = vec![1i64; rank];
    for d in (0..rank.saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * plain[d + 1];
    }
    let count: i64 = blocked.iter().product();
    let mut index = vec![0i64; blocked.len()];
    let mut at = vec![0i64; rank];
    (0..count).map(move |_| {
        at.copy_from_slice(&index[..rank]);
        for (k, (p, t)) in tiling.positions.iter().zip(&tiling.tiles).enumerate() {
            at[*p as usize] = index[*p as usize] * t + index[rank + k];
        }
        let inside = at.iter().zip(plain).all(|(i, n)| *i < *n);
        let source =
            inside.then(|| at.iter().zip(&strides).map(|(i, s)| i * s).sum::<i64>() as usize);
        for d in (0..blocked.len()).rev() {
            index[d] += 1;
            if index[d] < blocked[d] {
                break;
            }
            index[d] = 0;
        }
        source
    })
}
