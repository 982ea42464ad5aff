//! A layout change next to a transpose is one copy, not two. A network that moves
//! between channels-first and channels-last (ConvNeXt: an NCHW16c depthwise
//! convolution, then a layer norm and linear layers on NHWC) is left by the
//! propagation with `transpose(unpack(x))` and `pack(transpose(y))`; when the
//! transpose moves the tiled dimension to or from the last position and the blocks
//! are whole, each pair is one transpose of the blocked tensor, the tile dimension
//! staying innermost, and a reshape that joins or splits the last dimension (no
//! copy):
//! - `transpose(unpack(x), perm)`, perm ending in the tiled dimension d, is
//!   `collapse(transpose(x, perm ++ [r]))`, the last two dimensions joined;
//! - `pack(transpose(y, perm))` tiling dimension d with `perm[d]` y's last dimension
//!   is `transpose(expand(y), perm ++ [r])`, y's last dimension split into blocks.
//!
//! Both copies then read and write 16 contiguous floats at a time where the pair
//! read or wrote one float per channel, 4 bytes apart by the channel count.

use acc_dialects::build::{i64s, reassociation, tensor_type};
use acc_dialects::ops::tensor;
use acc_ir::{InsertPoint, OpId};

use super::Layouts;

impl Layouts<'_> {
    /// Rewrites every transpose next to a pack or an unpack that qualifies; true when
    /// one was.
    pub(super) fn fuse_transposes(&mut self) -> Result<bool, String> {
        let mut changed = false;
        for op in self.top_ops() {
            if self.ir.body(self.body).is_erased(op) {
                continue;
            }
            changed |= match self.kind(op) {
                Some(tensor::Op::Transpose) => self.transpose_of_unpack(op)?,
                Some(tensor::Op::Pack) => self.pack_of_transpose(op)?,
                _ => false,
            };
        }
        Ok(changed)
    }

    /// The permutation of transpose `op`.
    fn permutation(&self, op: OpId) -> Vec<i64> {
        self.ints(op, tensor::Transpose::ATTR_PERMUTATION)
    }

    /// `transpose(unpack(x))` as `collapse(transpose(x))` (see the module).
    fn transpose_of_unpack(&mut self, op: OpId) -> Result<bool, String> {
        let input = self.operands(op)[0];
        let Some((x, d, tile)) = self.unpacked_once(input) else {
            return Ok(false);
        };
        let perm = self.permutation(op);
        let Some((plain, element)) = self.shape(input) else {
            return Ok(false);
        };
        let single_use = self.ir.body(self.body).value_users(input).count() == 1;
        if !single_use || perm.last() != Some(&(d as i64)) || plain[d] % tile != 0 {
            return Ok(false);
        }
        let Some((blocked, _)) = self.shape(x) else {
            return Ok(false);
        };
        let r = plain.len();
        let mut inner_perm = perm.clone();
        inner_perm.push(r as i64);
        let shape: Vec<i64> = inner_perm.iter().map(|p| blocked[*p as usize]).collect();
        let result = self.result(op);
        let out_ty = self.ir.body(self.body).value_type(result);
        let mut e = self.emitter(op, InsertPoint::Before(op));
        let ty = tensor_type(e.ctx, &shape, element);
        let init = tensor::Empty::build(&mut e, &[], ty).result()?;
        let pa = i64s(e.ctx, &inner_perm);
        let moved = tensor::Transpose::build(&mut e, x, init, ty)
            .permutation(pa)
            .result()?;
        let groups = reassociation(e.ctx, &last_two_joined(r + 1));
        let joined = tensor::CollapseShape::build(&mut e, moved, out_ty)
            .reassociation(groups)
            .result()?;
        self.ir.body_mut(self.body).replace_all_uses(result, joined);
        Ok(true)
    }

    /// `pack(transpose(y))` as `transpose(expand(y))` (see the module).
    fn pack_of_transpose(&mut self, pack: OpId) -> Result<bool, String> {
        if !self
            .ints(pack, tensor::Pack::ATTR_OUTER_DIMS_PERM)
            .is_empty()
        {
            return Ok(false);
        }
        let (tiling, t, _) = self.pack_parts(pack);
        let ([d], [tile]) = (&tiling.positions[..], &tiling.tiles[..]) else {
            return Ok(false);
        };
        let (d, tile) = (*d as usize, *tile);
        let Some(transpose) = self.def(t) else {
            return Ok(false);
        };
        if self.kind(transpose) != Some(tensor::Op::Transpose)
            || self.ir.body(self.body).value_users(t).count() != 1
        {
            return Ok(false);
        }
        let perm = self.permutation(transpose);
        let y = self.operands(transpose)[0];
        let Some((plain, element)) = self.shape(y) else {
            return Ok(false);
        };
        let r = plain.len();
        if perm.get(d) != Some(&(r as i64 - 1)) || plain[r - 1] % tile != 0 {
            return Ok(false);
        }
        let mut split = plain.clone();
        split[r - 1] /= tile;
        split.push(tile);
        let mut inner_perm = perm.clone();
        inner_perm.push(r as i64);
        let result = self.result(pack);
        let out_ty = self.ir.body(self.body).value_type(result);
        let mut e = self.emitter(pack, InsertPoint::Before(pack));
        let split_ty = tensor_type(e.ctx, &split, element);
        let os = i64s(e.ctx, &split);
        let groups = reassociation(e.ctx, &last_two_joined(r + 1));
        let expanded = tensor::ExpandShape::build(&mut e, y, &[], split_ty)
            .reassociation(groups)
            .static_output_shape(os)
            .result()?;
        let init = tensor::Empty::build(&mut e, &[], out_ty).result()?;
        let pa = i64s(e.ctx, &inner_perm);
        let moved = tensor::Transpose::build(&mut e, expanded, init, out_ty)
            .permutation(pa)
            .result()?;
        self.ir.body_mut(self.body).replace_all_uses(result, moved);
        Ok(true)
    }
}

/// The reassociation of `rank` dimensions into `rank - 1`, the last two joined.
fn last_two_joined(rank: usize) -> Vec<Vec<i64>> {
    let mut groups: Vec<Vec<i64>> = (0..rank as i64 - 2).map(|i| vec![i]).collect();
    groups.push(vec![rank as i64 - 2, rank as i64 - 1]);
    groups
}
