//! The `layout` pass's sinking: an unpack moves down through the ops that can run on
//! the blocked value it unpacks, so that the unpack comes after them (and meets, at
//! the end, a pack it cancels with). A squeeze-and-excitation block is the case in
//! point: the mean over the spatial dimensions of a blocked activation, two small
//! convolutions, a reshape and a broadcast back, and a product with the activation
//! all stay blocked.
//!
//! Each rule replaces `op(unpack(x), ...)` by `unpack(op'(x, ...))`, `op'` the same
//! computation on the blocked value. The values of the real channels are the same;
//! those of a partial last block's padding lanes are whatever `op'` makes of the
//! padding lanes of `x`, which the new unpack drops. Only unpacks of one tiled
//! dimension, without an outer permutation, move (except through elementwise maps,
//! which take any tiling).

use acc_dialects::build::{i64s, reassociation, tensor_type};
use acc_dialects::ops::tensor;
use acc_ir::{InsertPoint, OpId, TypeId, ValueId};

use super::{Layouts, Tiling, layout_attr, unpack_op};

impl Layouts<'_> {
    /// Moves the unpack an op reads below it when a rule applies; whether it moved.
    pub(super) fn sink(&mut self, op: OpId) -> Result<bool, String> {
        match self.kind(op) {
            Some(tensor::Op::Map) => self.sink_map(op),
            Some(tensor::Op::Reduce) => self.sink_reduce(op),
            Some(tensor::Op::Broadcast) => self.sink_broadcast(op),
            Some(tensor::Op::CollapseShape | tensor::Op::ExpandShape) => self.sink_reshape(op),
            Some(tensor::Op::Pool) => self.sink_pool(op),
            _ => Ok(false),
        }
    }

    /// The blocked value `v` is an unpack of, and its tiling, when an unpack without
    /// an outer permutation defines `v`.
    fn unpacked(&self, v: ValueId) -> Option<(ValueId, Tiling)> {
        let def = self.def(v)?;
        if self.kind(def) != Some(tensor::Op::Unpack)
            || !self
                .ints(def, tensor::Unpack::ATTR_OUTER_DIMS_PERM)
                .is_empty()
        {
            return None;
        }
        let tiling = Tiling {
            positions: self.ints(def, tensor::Unpack::ATTR_INNER_DIMS_POS),
            tiles: self.ints(def, tensor::Unpack::ATTR_INNER_TILES),
        };
        Some((self.operands(def)[0], tiling))
    }

    /// The unpack of a single tiled dimension that defines `v`: the blocked value,
    /// the tiled position and the tile.
    pub(super) fn unpacked_once(&self, v: ValueId) -> Option<(ValueId, usize, i64)> {
        let (blocked, tiling) = self.unpacked(v)?;
        match (&tiling.positions[..], &tiling.tiles[..]) {
            ([p], [t]) if *p >= 0 && *t > 0 => Some((blocked, *p as usize, *t)),
            _ => None,
        }
    }

    /// The blocked type of `op`'s (plain) result when dimension `position` is tiled
    /// by `tile`.
    fn blocked_result_type(&self, op: OpId, position: usize, tile: i64) -> Option<TypeId> {
        let (plain, element) = self.shape(self.result(op))?;
        let tiling = single(position, tile);
        Some(tensor_type(
            self.ctx,
            &tiling.blocked_shape(&plain),
            element,
        ))
    }

    /// Replaces `op`'s result by the unpack of `blocked` by `tiling`, placed right
    /// after `op`, and erases `op`; true.
    fn unpack_instead(
        &mut self,
        op: OpId,
        blocked: ValueId,
        tiling: &Tiling,
    ) -> Result<bool, String> {
        let result = self.result(op);
        let plain_ty = self.ir.body(self.body).value_type(result);
        let next = self
            .ir
            .body(self.body)
            .next_op(op)
            .ok_or("a tensor op ends its block")?;
        let mut e = self.emitter(op, InsertPoint::Before(next));
        let dest = tensor::Empty::build(&mut e, &[], plain_ty).result()?;
        let unpacked = unpack_op(&mut e, blocked, dest, tiling, plain_ty)?;
        self.ir
            .body_mut(self.body)
            .replace_all_uses(result, unpacked);
        self.ir.erase_op(self.body, op);
        Ok(true)
    }

    /// An empty tensor of type `ty` before `op`.
    fn empty_before(&mut self, op: OpId, ty: TypeId) -> Result<ValueId, String> {
        tensor::Empty::build(&mut self.emitter(op, InsertPoint::Before(op)), &[], ty).result()
    }

    /// `map(unpack(x), unpack(y), c, ...)` as `unpack(map(x, y, pack(c), ...))` when
    /// the inputs are unpacks of one tiling and type, or constants (packed at compile
    /// time): the map runs on the blocks, a partial block's padding lanes too.
    fn sink_map(&mut self, map: OpId) -> Result<bool, String> {
        let operands = self.operands(map);
        let (inputs, _init) = operands.split_at(operands.len() - 1);
        let unpacked: Vec<Option<(ValueId, Tiling)>> =
            inputs.iter().map(|v| self.unpacked(*v)).collect();
        let result = self.result(map);
        let result_ty = self.ir.body(self.body).value_type(result);
        let mut seen: Option<(Tiling, TypeId)> = None;
        for (v, u) in inputs.iter().zip(&unpacked) {
            match u {
                Some((source, t)) => {
                    let ty = self.ir.body(self.body).value_type(*source);
                    match &seen {
                        Some(s) if *s != (t.clone(), ty) => return Ok(false),
                        _ => seen = Some((t.clone(), ty)),
                    }
                }
                // A constant of the result's type, packed below.
                None if self.def(*v).is_some_and(|d| self.is_constant(d))
                    && self.ir.body(self.body).value_type(*v) == result_ty => {}
                None => return Ok(false),
            }
        }
        let Some((tiling, input_ty)) = seen else {
            return Ok(false);
        };
        // The blocked shape of the inputs, the element type of the map's result.
        let (Some((blocked_shape, _)), Some((_, element))) =
            (self.shape_of_type(input_ty), self.shape(result))
        else {
            return Ok(false);
        };
        let blocked_ty = tensor_type(self.ctx, &blocked_shape, element);
        let mut blocked = Vec::new();
        for (v, u) in inputs.iter().zip(unpacked) {
            blocked.push(match u {
                Some((source, _)) => source,
                None => self.pack(map, *v, &tiling)?,
            });
        }
        blocked.push(self.empty_before(map, blocked_ty)?);
        let (_, new_result) = self.clone_retyped(map, map, &blocked, blocked_ty);
        self.unpack_instead(map, new_result, &tiling)
    }

    /// `reduce(unpack(x))` as `unpack(reduce(x))` when the reduced dimensions leave
    /// the tiled one alone; the init is packed (a constant one at compile time).
    /// Each real channel combines the same elements in the same order.
    fn sink_reduce(&mut self, reduce: OpId) -> Result<bool, String> {
        let operands = self.operands(reduce);
        let [x, init] = operands[..] else {
            return Ok(false);
        };
        let Some((blocked, p, tile)) = self.unpacked_once(x) else {
            return Ok(false);
        };
        let dims = self.ints(reduce, tensor::Reduce::ATTR_DIMENSIONS);
        if dims.contains(&(p as i64)) {
            return Ok(false);
        }
        let q = p - dims.iter().filter(|d| **d < p as i64).count();
        let Some(ty) = self.blocked_result_type(reduce, q, tile) else {
            return Ok(false);
        };
        let tiling = single(q, tile);
        let packed_init = self.pack(reduce, init, &tiling)?;
        let (_, r) = self.clone_retyped(reduce, reduce, &[blocked, packed_init], ty);
        self.unpack_instead(reduce, r, &tiling)
    }

    /// `broadcast(unpack(x))` as `unpack(broadcast(x))` (the tiled dimension is one
    /// of x's, so not an added one; the lanes stay innermost).
    fn sink_broadcast(&mut self, broadcast: OpId) -> Result<bool, String> {
        let x = self.operands(broadcast)[0];
        let Some((blocked, p, tile)) = self.unpacked_once(x) else {
            return Ok(false);
        };
        let added = self.ints(broadcast, tensor::Broadcast::ATTR_DIMENSIONS);
        // The result dimension of x's dimension p: the p-th one not added.
        let Some((result, _)) = self.shape(self.result(broadcast)) else {
            return Ok(false);
        };
        let rank = result.len();
        let Some(q) = (0..rank).filter(|d| !added.contains(&(*d as i64))).nth(p) else {
            return Ok(false);
        };
        let Some(ty) = self.blocked_result_type(broadcast, q, tile) else {
            return Ok(false);
        };
        let init = self.empty_before(broadcast, ty)?;
        let (_, r) = self.clone_retyped(broadcast, broadcast, &[blocked, init], ty);
        self.unpack_instead(broadcast, r, &single(q, tile))
    }

    /// `collapse_shape(unpack(x))` / `expand_shape(unpack(x))` as the same reshape of
    /// the blocked x, then an unpack, when the tiled dimension only gains or loses
    /// dimensions of size 1 (`1x200x1x1` to `200` to `1x200`): the lanes stay a
    /// group of their own, innermost.
    fn sink_reshape(&mut self, reshape: OpId) -> Result<bool, String> {
        let operands = self.operands(reshape);
        let [x] = operands[..] else {
            return Ok(false);
        };
        let Some((blocked, p, tile)) = self.unpacked_once(x) else {
            return Ok(false);
        };
        let (Some((source, _)), Some((result, _))) =
            (self.shape(x), self.shape(self.result(reshape)))
        else {
            return Ok(false);
        };
        let Ok(mut groups) = self.attrs(reshape).reassociation() else {
            return Ok(false);
        };
        let collapse = self.kind(reshape) == Some(tensor::Op::CollapseShape);
        let ones_but = |shape: &[i64], dims: &[usize], kept: usize| {
            dims.iter().all(|d| *d == kept || shape[*d] == 1)
        };
        let q = if collapse {
            // The group that holds p: p and dimensions of size 1.
            let Some(q) = groups.iter().position(|g| g.contains(&p)) else {
                return Ok(false);
            };
            if !ones_but(&source, &groups[q], p) {
                return Ok(false);
            }
            q
        } else {
            // Group p of the result: one dimension of p's size, the others 1.
            let Some(group) = groups.get(p) else {
                return Ok(false);
            };
            let Some(q) = group.iter().copied().find(|d| result[*d] == source[p]) else {
                return Ok(false);
            };
            if source[p] <= 1 || !ones_but(&result, group, q) {
                return Ok(false);
            }
            q
        };
        let Some(ty) = self.blocked_result_type(reshape, q, tile) else {
            return Ok(false);
        };
        // The lanes: the last dimension of the larger side, a group of its own.
        let larger = if collapse { source.len() } else { result.len() };
        groups.push(vec![larger]);
        let groups: Vec<Vec<i64>> = groups
            .iter()
            .map(|g| g.iter().map(|d| *d as i64).collect())
            .collect();
        let (new, r) = self.clone_retyped(reshape, reshape, &[blocked], ty);
        let mut props = vec![(
            tensor::CollapseShape::ATTR_REASSOCIATION,
            reassociation(self.ctx, &groups),
        )];
        if !collapse {
            let shape = self.shape_of_type(ty).map(|(s, _)| s).unwrap_or_default();
            props.push((
                tensor::ExpandShape::ATTR_STATIC_OUTPUT_SHAPE,
                i64s(self.ctx, &shape),
            ));
        }
        self.set_props(new, &props)?;
        self.unpack_instead(reshape, r, &single(q, tile))
    }

    /// `pool(unpack(x))` of an NCHW pool as `unpack(pool(x))` in NCHW16c when the
    /// channels are what is tiled, by 16 (each channel pools on its own).
    fn sink_pool(&mut self, pool: OpId) -> Result<bool, String> {
        let operands = self.operands(pool);
        let [x, _init] = operands[..] else {
            return Ok(false);
        };
        let Some((blocked, 1, 16)) = self.unpacked_once(x) else {
            return Ok(false);
        };
        if !self.plain_layout(pool, tensor::Pool::ATTR_LAYOUT, "NCHW") {
            return Ok(false);
        }
        let Some(ty) = self.blocked_result_type(pool, 1, 16) else {
            return Ok(false);
        };
        let init = self.empty_before(pool, ty)?;
        let (new, r) = self.clone_retyped(pool, pool, &[blocked, init], ty);
        self.set_props(
            new,
            &[(tensor::Pool::ATTR_LAYOUT, layout_attr(self.ctx, "NCHW16c"))],
        )?;
        self.unpack_instead(pool, r, &single(1, 16))
    }
}

/// One dimension, `position`, tiled by `tile`.
fn single(position: usize, tile: i64) -> Tiling {
    Tiling {
        positions: vec![position as i64],
        tiles: vec![tile],
    }
}
