//! Packs of constants folded at compile time: a weight changes layout once, in the
//! compiler, never at run time (slices of constants first, so that the packs of
//! per-group weights fold too).

use acc_ir::attrs::{AttrData, DenseData};
use acc_ir::elements::{self, Scalar};
use acc_ir::{InsertPoint, OpId, ValueId};

use super::{Layouts, Tiling};
use acc_dialects::build::{element_bytes, is_float, shape_of};
use acc_dialects::ops::{arith, tensor};

impl Layouts<'_> {
    /// `pack` of a constant folded at compile time: a new constant of the packed
    /// type, its elements' bytes moved (`None` when the constant's elements are not
    /// dense numbers).
    pub(super) fn fold_constant(
        &mut self,
        constant: OpId,
        pack: OpId,
    ) -> Result<Option<ValueId>, String> {
        let Some(attr) = arith::Constant::of(self.ctx, self.ir.op(self.body, constant))
            .and_then(|c| c.value_attr())
        else {
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
            let what = acc_ir::printer::type_to_string(self.ctx, ty);
            let count = acc_ir::budget::shape_allocation(&what, &blocked, size as u64)?;
            let mut out = Vec::with_capacity(count * size);
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
        let c = arith::Constant::build(&mut self.emitter(pack, InsertPoint::Before(pack)), ty)
            .value(value)
            .result()?;
        Ok(Some(c))
    }
}

impl Layouts<'_> {
    /// `extract_slice` (static, unit strides, no dropped dimension) of a constant
    /// folded at compile time, so that a pack of the slice folds too (the weights of
    /// each group of a grouped convolution); `None` when it does not apply.
    pub(super) fn fold_slice(&mut self, slice: OpId) -> Result<Option<ValueId>, String> {
        let source = self.operands(slice)[0];
        let Some(def) = self.def(source).filter(|d| self.is_constant(*d)) else {
            return Ok(None);
        };
        let Some(attr) =
            arith::Constant::of(self.ctx, self.ir.op(self.body, def)).and_then(|c| c.value_attr())
        else {
            return Ok(None);
        };
        let Some((bytes, splat)) = element_bytes(self.ctx, attr) else {
            return Ok(None);
        };
        let offsets = self.ints(slice, tensor::ExtractSlice::ATTR_STATIC_OFFSETS);
        let strides = self.ints(slice, tensor::ExtractSlice::ATTR_STATIC_STRIDES);
        let result = self.result(slice);
        let ty = self.ir.body(self.body).value_type(result);
        let (Some((plain, element)), Some((sizes, _))) = (self.shape(source), self.shape(result))
        else {
            return Ok(None);
        };
        let Some(kind) = elements::ElementKind::of(self.ctx, element) else {
            return Ok(None);
        };
        let fits = offsets.len() == plain.len()
            && sizes.len() == plain.len()
            && strides.iter().all(|s| *s == 1)
            && (0..plain.len()).all(|d| offsets[d] >= 0 && offsets[d] + sizes[d] <= plain[d]);
        if !fits {
            return Ok(None);
        }
        let size = kind.bytes();
        let data = if splat {
            DenseData::Splat(bytes[..size.min(bytes.len())].to_vec().into())
        } else {
            let count: i64 = sizes.iter().product();
            let mut out = Vec::with_capacity(count.max(0) as usize * size);
            for flat in 0..count {
                // The element's index in the slice, then its row-major position in
                // the source.
                let (mut rest, mut at) = (flat, 0i64);
                let mut scale = 1i64;
                for d in (0..plain.len()).rev() {
                    let i = rest % sizes[d];
                    rest /= sizes[d];
                    at += (offsets[d] + i) * scale;
                    scale *= plain[d];
                }
                let at = at as usize;
                out.extend_from_slice(
                    bytes
                        .get(at * size..(at + 1) * size)
                        .ok_or("a short constant")?,
                );
            }
            DenseData::Elements(out.into())
        };
        let value = self.ctx.intern_attr(AttrData::DenseElements { ty, data });
        let c = arith::Constant::build(&mut self.emitter(slice, InsertPoint::Before(slice)), ty)
            .value(value)
            .result()?;
        Ok(Some(c))
    }
}

/// For each element of the `blocked` shape in row-major order, the row-major
/// position in the `plain` shape it comes from (`tensor.pack`'s definition:
/// `outer * tile + inner` along each tiled dimension), `None` past the end (the
/// padding of a partial block).
///
/// Both the position and each plain coordinate are linear in the blocked index, so
/// they advance by a fixed step per blocked dimension, with no work per element
/// beyond the bounds check.
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
    // Each blocked dimension moves one plain coordinate by `amount`: an outer
    // dimension its own (by its tile when tiled), a tile dimension its tiled one by 1.
    let mut moves: Vec<(usize, i64)> = (0..rank).map(|d| (d, 1)).collect();
    for (p, t) in tiling.positions.iter().zip(&tiling.tiles) {
        moves[*p as usize].1 = *t;
    }
    moves.extend(tiling.positions.iter().map(|p| (*p as usize, 1)));
    let count: i64 = blocked.iter().product();
    let mut index = vec![0i64; blocked.len()];
    let mut at = vec![0i64; rank];
    let mut offset = 0i64;
    (0..count).map(move |_| {
        let inside = at.iter().zip(plain).all(|(i, n)| *i < *n);
        let source = inside.then_some(offset as usize);
        for d in (0..blocked.len()).rev() {
            let (p, amount) = moves[d];
            index[d] += 1;
            at[p] += amount;
            offset += amount * strides[p];
            if index[d] < blocked[d] {
                break;
            }
            at[p] -= amount * blocked[d];
            offset -= amount * strides[p] * blocked[d];
            index[d] = 0;
        }
        source
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The incremental walk gives `tensor.pack`'s definition, computed per element,
    /// with partial blocks and tiles out of dimension order.
    #[test]
    fn pack_sources_follow_the_definition() {
        let plain = [5i64, 3, 6];
        let tiling = Tiling {
            positions: vec![2, 0],
            tiles: vec![4, 2],
        };
        let blocked = tiling.blocked_shape(&plain);
        assert_eq!(blocked, vec![3, 3, 2, 4, 2]);
        let mut want = Vec::new();
        for o0 in 0..3 {
            for o1 in 0..3 {
                for o2 in 0..2 {
                    for t2 in 0..4 {
                        for t0 in 0..2 {
                            let (i0, i1, i2) = (o0 * 2 + t0, o1, o2 * 4 + t2);
                            let inside = i0 < 5 && i1 < 3 && i2 < 6;
                            want.push(inside.then_some((i0 * 18 + i1 * 6 + i2) as usize));
                        }
                    }
                }
            }
        }
        let got: Vec<Option<usize>> = pack_sources(&plain, &blocked, &tiling).collect();
        assert_eq!(got, want);
    }
}
