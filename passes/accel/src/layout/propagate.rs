//! The `layout` pass's propagation: packs move up towards the values they pack and
//! unpacks down towards their users (`sink`), until they meet and cancel (see the
//! pass's documentation for the rules).

use acc_dialects::build::BuildExt as _;
use acc_ir::clone::{ValueMap, clone_op};
use acc_ir::elements::Scalar;
use acc_ir::{InsertPoint, OpId, TypeId, ValueDef, ValueId};

use super::{Layouts, Tiling, layout_attr, pack_op};
use acc_dialects::build::{i64s, tensor_type};
use acc_dialects::ops::{arith, tensor};

impl Layouts<'_> {
    /// Moves one pack up a step; whether anything changed.
    pub(super) fn bubble(&mut self, pack: OpId) -> Result<bool, String> {
        if !self
            .ints(pack, tensor::Pack::ATTR_OUTER_DIMS_PERM)
            .is_empty()
        {
            return Ok(false);
        }
        let (tiling, source, padding) = self.pack_parts(pack);
        let packed = self.result(pack);
        let Some(def) = self.def(source) else {
            return Ok(false);
        };
        let Some((plain, _)) = self.shape(source) else {
            return Ok(false);
        };
        let whole = tiling.whole(&plain);
        if self.kind(def) == Some(tensor::Op::ExtractSlice)
            && let Some(c) = self.fold_slice(def)?
        {
            // The pack now packs a constant: it folds on the next step.
            let sliced = self.result(def);
            self.ir.body_mut(self.body).replace_all_uses(sliced, c);
            self.ir.erase_op(self.body, def);
            return Ok(true);
        }
        let replacement = match self.kind(def) {
            Some(tensor::Op::Unpack) => {
                let inner = self.operands(def)[0];
                // A partial block: the pack zeroes the padding lanes again, which
                // changes nothing when they are zeros already.
                let zero_padding = padding.is_some_and(
                    |p| matches!(self.constant_scalar(p), Some(Scalar::Float(f)) if f == 0.0),
                );
                let lanes_agree = whole
                    || (zero_padding
                        && tiling.tiles == [16]
                        && matches!(tiling.positions[..], [p] if p >= 0
                            && self.zero_padding_lanes(inner, p as usize, plain[p as usize])));
                let same = lanes_agree
                    && self
                        .ints(def, tensor::Unpack::ATTR_OUTER_DIMS_PERM)
                        .is_empty()
                    && self.ints(def, tensor::Unpack::ATTR_INNER_DIMS_POS) == tiling.positions
                    && self.ints(def, tensor::Unpack::ATTR_INNER_TILES) == tiling.tiles
                    && self.ir.body(self.body).value_type(inner)
                        == self.ir.body(self.body).value_type(packed);
                if !same {
                    return Ok(false);
                }
                inner
            }
            _ if self.is_constant(def) => match self.fold_constant(def, pack)? {
                Some(c) => c,
                None => return Ok(false),
            },
            Some(tensor::Op::Empty) if whole => {
                let ty = self.ir.body(self.body).value_type(packed);
                tensor::Empty::build(&mut self.emitter(pack, InsertPoint::Before(pack)), &[], ty)
                    .result()?
            }
            Some(
                tensor::Op::Pad
                | tensor::Op::Broadcast
                | tensor::Op::Map
                | tensor::Op::Pool
                | tensor::Op::InsertSlice
                | tensor::Op::ExtractSlice,
            ) => {
                let Some(kept) = self.merge_packs(source, pack, &tiling, padding) else {
                    return Ok(false);
                };
                // The kept pack may be an earlier twin: its own padding value is the
                // one defined before it (the moved pack's may come later).
                let pack = kept;
                let (_, _, padding) = self.pack_parts(pack);
                let moved = match self.kind(def) {
                    Some(tensor::Op::Pad) => self.pad_through(def, pack, &tiling, padding)?,
                    Some(tensor::Op::Broadcast) => {
                        self.broadcast_through(def, pack, &tiling, padding)?
                    }
                    Some(tensor::Op::Pool) => self.pool_through(def, pack, &tiling, padding)?,
                    Some(tensor::Op::InsertSlice) if whole => {
                        self.insert_through(def, pack, &tiling)?
                    }
                    Some(tensor::Op::ExtractSlice) if whole => {
                        self.extract_through(def, pack, &tiling)?
                    }
                    Some(tensor::Op::Map) if whole => self.map_through(def, pack, &tiling)?,
                    _ => None,
                };
                return match moved {
                    Some(v) => self.replace(pack, v),
                    None => Ok(false),
                };
            }
            _ => return Ok(self.merge_siblings(source, pack, &tiling, padding)),
        };
        self.replace(pack, replacement)
    }

    /// Replaces a pack's result by `v` and erases it, and the op it packed when
    /// that has no other user (so its operands' users are what they seem); true.
    pub(super) fn replace(&mut self, pack: OpId, v: ValueId) -> Result<bool, String> {
        let packed = self.result(pack);
        let source = self.def(self.operands(pack)[0]);
        self.ir.body_mut(self.body).replace_all_uses(packed, v);
        self.ir.erase_op(self.body, pack);
        if let Some(def) = source {
            let b = self.ir.body(self.body);
            if b.results(def).all(|r| !b.has_uses(r)) && self.name(def).starts_with("tensor.") {
                self.ir.erase_op(self.body, def);
            }
        }
        Ok(true)
    }

    /// When every user of `value` is a pack like `pack` (same tiling, padding and
    /// type), keeps the first of them only and gives it; `None` when some user is
    /// anything else.
    pub(super) fn merge_packs(
        &mut self,
        value: ValueId,
        pack: OpId,
        tiling: &Tiling,
        padding: Option<ValueId>,
    ) -> Option<OpId> {
        let users: Vec<OpId> = self.ir.body(self.body).value_users(value).collect();
        if !users
            .iter()
            .all(|u| *u == pack || self.same_pack(*u, value, pack, tiling, padding))
        {
            return None;
        }
        self.merge_siblings(value, pack, tiling, padding);
        self.ir.body(self.body).value_users(value).next()
    }

    /// Merges the packs of `value` identical to `pack` into the first of them (the
    /// value's other users stay); whether there was more than one.
    pub(super) fn merge_siblings(
        &mut self,
        value: ValueId,
        pack: OpId,
        tiling: &Tiling,
        padding: Option<ValueId>,
    ) -> bool {
        let twins: Vec<OpId> = self
            .ir
            .body(self.body)
            .value_users(value)
            .filter(|u| *u == pack || self.same_pack(*u, value, pack, tiling, padding))
            .collect();
        if twins.len() < 2 {
            return false;
        }
        let b = self.ir.body(self.body);
        let first = twins
            .iter()
            .copied()
            .reduce(|x, y| if b.is_before_in_block(x, y) { x } else { y })
            .unwrap_or(pack);
        let kept = self.result(first);
        for twin in twins {
            if twin != first {
                let r = self.result(twin);
                self.ir.body_mut(self.body).replace_all_uses(r, kept);
                self.ir.erase_op(self.body, twin);
            }
        }
        true
    }

    /// Whether `user` packs `value` as `pack` does (tiling, padding, type).
    pub(super) fn same_pack(
        &self,
        user: OpId,
        value: ValueId,
        pack: OpId,
        tiling: &Tiling,
        padding: Option<ValueId>,
    ) -> bool {
        if self.kind(user) != Some(tensor::Op::Pack) || self.operands(user)[0] != value {
            return false;
        }
        let (t, _, p) = self.pack_parts(user);
        let ty = self.ir.body(self.body).value_type(self.result(pack));
        t == *tiling
            && self
                .ints(user, tensor::Pack::ATTR_OUTER_DIMS_PERM)
                .is_empty()
            && self.ir.body(self.body).value_type(self.result(user)) == ty
            && p.and_then(|p| self.constant_scalar(p))
                == padding.and_then(|p| self.constant_scalar(p))
    }

    /// `pack(pad(x))` as `pad(pack(x))` when the pad leaves the tiled dimensions
    /// alone and yields one value for every position.
    pub(super) fn pad_through(
        &mut self,
        pad: OpId,
        pack: OpId,
        tiling: &Tiling,
        padding: Option<ValueId>,
    ) -> Result<Option<ValueId>, String> {
        let operands = self.operands(pad);
        let [x] = operands[..] else {
            return Ok(None);
        };
        let (low, high) = (
            self.ints(pad, tensor::Pad::ATTR_STATIC_LOW),
            self.ints(pad, tensor::Pad::ATTR_STATIC_HIGH),
        );
        let untouched = tiling
            .positions
            .iter()
            .all(|p| low.get(*p as usize) == Some(&0) && high.get(*p as usize) == Some(&0));
        if !untouched || !self.yields_outside_value(pad) {
            return Ok(None);
        }
        let packed_x = self.pack_like(pack, x, tiling, padding)?;
        let ty = self.ir.body(self.body).value_type(self.result(pack));
        let (new, r) = self.clone_retyped(pad, pack, &[packed_x], ty);
        let extra = tiling.tiles.len();
        let widen = |v: &[i64]| {
            let mut v = v.to_vec();
            v.extend(std::iter::repeat_n(0, extra));
            v
        };
        self.set_props(
            new,
            &[
                (tensor::Pad::ATTR_STATIC_LOW, i64s(self.ctx, &widen(&low))),
                (tensor::Pad::ATTR_STATIC_HIGH, i64s(self.ctx, &widen(&high))),
            ],
        )?;
        let index = self.ctx.index_type();
        let region = self.ir.body(self.body).op_regions(new)[0];
        let block = self
            .ir
            .body(self.body)
            .entry_block(region)
            .ok_or("an empty pad region")?;
        for _ in 0..extra {
            self.ir.body_mut(self.body).add_block_arg(block, index);
        }
        Ok(Some(r))
    }

    /// `pack(insert_slice(x, dest))` as `insert_slice(pack(x), pack(dest))` when the
    /// pack blocks the channels (dimension 1 by 16) into whole blocks and the slice
    /// covers whole blocks of them (offset and size multiples of 16, unit strides):
    /// a concatenation along channels then joins blocked tensors, and the packs of
    /// its unpacked parts cancel.
    pub(super) fn insert_through(
        &mut self,
        insert: OpId,
        pack: OpId,
        tiling: &Tiling,
    ) -> Result<Option<ValueId>, String> {
        let operands = self.operands(insert);
        let [source, dest] = operands[..] else {
            return Ok(None);
        };
        let offsets = self.ints(insert, tensor::InsertSlice::ATTR_STATIC_OFFSETS);
        let sizes = self.ints(insert, tensor::InsertSlice::ATTR_STATIC_SIZES);
        let strides = self.ints(insert, tensor::InsertSlice::ATTR_STATIC_STRIDES);
        let source_rank = self.shape(source).map_or(0, |(s, _)| s.len());
        if !whole_channel_blocks(tiling, &offsets, &sizes, &strides, source_rank) {
            return Ok(None);
        }
        let packed_source = self.pack_like(pack, source, tiling, None)?;
        let packed_dest = self.pack_like(pack, dest, tiling, None)?;
        let ty = self.ir.body(self.body).value_type(self.result(pack));
        let (new, r) = self.clone_retyped(insert, pack, &[packed_source, packed_dest], ty);
        self.set_slice(
            new,
            [
                tensor::InsertSlice::ATTR_STATIC_OFFSETS,
                tensor::InsertSlice::ATTR_STATIC_SIZES,
                tensor::InsertSlice::ATTR_STATIC_STRIDES,
            ],
            &offsets,
            &sizes,
            &strides,
        )?;
        Ok(Some(r))
    }

    /// `pack(extract_slice(x))` as `extract_slice(pack(x))` when the pack blocks the
    /// channels (dimension 1 by 16), `x`'s channels are whole blocks and the slice
    /// takes whole blocks of them (offset and size multiples of 16, unit strides):
    /// the groups of a grouped convolution then read blocks of the blocked input.
    pub(super) fn extract_through(
        &mut self,
        extract: OpId,
        pack: OpId,
        tiling: &Tiling,
    ) -> Result<Option<ValueId>, String> {
        let operands = self.operands(extract);
        let [source] = operands[..] else {
            return Ok(None);
        };
        let offsets = self.ints(extract, tensor::ExtractSlice::ATTR_STATIC_OFFSETS);
        let sizes = self.ints(extract, tensor::ExtractSlice::ATTR_STATIC_SIZES);
        let strides = self.ints(extract, tensor::ExtractSlice::ATTR_STATIC_STRIDES);
        let Some((source_shape, _)) = self.shape(source) else {
            return Ok(None);
        };
        if !whole_channel_blocks(tiling, &offsets, &sizes, &strides, source_shape.len())
            || !tiling.whole(&source_shape)
        {
            return Ok(None);
        }
        let packed_source = self.pack_like(pack, source, tiling, None)?;
        let ty = self.ir.body(self.body).value_type(self.result(pack));
        let (new, r) = self.clone_retyped(extract, pack, &[packed_source], ty);
        self.set_slice(
            new,
            [
                tensor::ExtractSlice::ATTR_STATIC_OFFSETS,
                tensor::ExtractSlice::ATTR_STATIC_SIZES,
                tensor::ExtractSlice::ATTR_STATIC_STRIDES,
            ],
            &offsets,
            &sizes,
            &strides,
        )?;
        Ok(Some(r))
    }

    /// Sets a slice op's static offsets, sizes and strides (`names`) to the blocked
    /// form of plain ones that take whole channel blocks: dimension 1 counted in
    /// blocks of 16, and the whole lane dimension last.
    fn set_slice(
        &mut self,
        op: OpId,
        names: [&str; 3],
        offsets: &[i64],
        sizes: &[i64],
        strides: &[i64],
    ) -> Result<(), String> {
        let blocked = |v: &[i64], lane: i64| {
            let mut v = v.to_vec();
            v[1] /= BLOCK;
            v.push(lane);
            v
        };
        let lists = [
            blocked(offsets, 0),
            blocked(sizes, BLOCK),
            [strides, &[1]].concat(),
        ];
        let props: Vec<(&str, acc_ir::AttrId)> = names
            .iter()
            .zip(&lists)
            .map(|(name, list)| (*name, i64s(self.ctx, list)))
            .collect();
        self.set_props(op, &props)
    }

    /// Whether a pad's region yields a value defined outside it or a constant (the
    /// same for every position).
    pub(super) fn yields_outside_value(&self, pad: OpId) -> bool {
        let (ctx, ir, body) = (self.ctx, &*self.ir, self.body);
        let b = ir.body(body);
        let Some(block) = b.op_regions(pad).first().and_then(|r| b.entry_block(*r)) else {
            return false;
        };
        let Some(last) = b.block_ops(block).last() else {
            return false;
        };
        b.operands(last).all(|v| match b.value(v).def {
            ValueDef::Result(op, _) => {
                ir.op(body, op).block() != Some(block) || arith::Constant::is(ctx, ir.op(body, op))
            }
            ValueDef::BlockArg(bl, _) => bl != block,
            ValueDef::Detached => false,
        })
    }

    /// `pack(broadcast(x))` as `broadcast(pack(x))` when every tiled dimension comes
    /// from x.
    pub(super) fn broadcast_through(
        &mut self,
        broadcast: OpId,
        pack: OpId,
        tiling: &Tiling,
        padding: Option<ValueId>,
    ) -> Result<Option<ValueId>, String> {
        let x = self.operands(broadcast)[0];
        let added = self.ints(broadcast, tensor::Broadcast::ATTR_DIMENSIONS);
        if tiling.positions.iter().any(|p| added.contains(p)) {
            return Ok(None);
        }
        // x's dimension of result dimension p: p less the added ones before it.
        let inner = Tiling {
            positions: tiling
                .positions
                .iter()
                .map(|p| p - added.iter().filter(|a| *a < p).count() as i64)
                .collect(),
            tiles: tiling.tiles.clone(),
        };
        let packed_x = self.pack_like(pack, x, &inner, padding)?;
        let ty = self.ir.body(self.body).value_type(self.result(pack));
        let dims = i64s(self.ctx, &added);
        // The broadcast overwrites its init: a new empty one will do.
        let mut e = self.emitter(pack, InsertPoint::Before(pack));
        let packed_init = tensor::Empty::build(&mut e, &[], ty).result()?;
        let r = tensor::Broadcast::build(&mut e, packed_x, packed_init, ty)
            .dimensions(dims)
            .result()?;
        Ok(Some(r))
    }

    /// `pack(pool(x))` as a pool of `pack(x)` in NCHW16c when the channels are what
    /// is tiled, by 16, and a partial block's padding is zero (pooling zeros gives
    /// zero: the padding lanes stay what the pack would make them).
    pub(super) fn pool_through(
        &mut self,
        pool: OpId,
        pack: OpId,
        tiling: &Tiling,
        padding: Option<ValueId>,
    ) -> Result<Option<ValueId>, String> {
        let x = self.operands(pool)[0];
        let plain = self.plain_layout(pool, tensor::Pool::ATTR_LAYOUT, "NCHW");
        let zero_padding = padding
            .is_none_or(|p| matches!(self.constant_scalar(p), Some(Scalar::Float(f)) if f == 0.0));
        let channels = tiling.positions == [1] && tiling.tiles == [16];
        if !plain || !zero_padding || !channels {
            return Ok(None);
        }
        let packed_x = self.pack_like(pack, x, tiling, padding)?;
        let ty = self.ir.body(self.body).value_type(self.result(pack));
        let init =
            tensor::Empty::build(&mut self.emitter(pack, InsertPoint::Before(pack)), &[], ty)
                .result()?;
        let (new, r) = self.clone_retyped(pool, pack, &[packed_x, init], ty);
        self.set_props(
            new,
            &[(tensor::Pool::ATTR_LAYOUT, layout_attr(self.ctx, "NCHW16c"))],
        )?;
        Ok(Some(r))
    }

    /// `pack(map(x, y, ...))` as `map(pack(x), pack(y), ...)` (whole blocks only: the
    /// map would compute the padding lanes otherwise).
    pub(super) fn map_through(
        &mut self,
        map: OpId,
        pack: OpId,
        tiling: &Tiling,
    ) -> Result<Option<ValueId>, String> {
        let operands = self.operands(map);
        let result = self.result(map);
        let ty = self.ir.body(self.body).value_type(result);
        if operands
            .iter()
            .any(|v| self.ir.body(self.body).value_type(*v) != ty)
        {
            return Ok(None);
        }
        let (inputs, _init) = operands.split_at(operands.len() - 1);
        let mut packed = Vec::new();
        for v in inputs {
            packed.push(self.pack_like(pack, *v, tiling, None)?);
        }
        // The map overwrites its init: a new empty one will do.
        let packed_ty = self.ir.body(self.body).value_type(self.result(pack));
        packed.push(
            tensor::Empty::build(
                &mut self.emitter(pack, InsertPoint::Before(pack)),
                &[],
                packed_ty,
            )
            .result()?,
        );
        let (_, r) = self.clone_retyped(map, pack, &packed, packed_ty);
        Ok(Some(r))
    }

    /// A copy of `op` (regions included) before `before`, its first operands
    /// replaced by `operands` and its result of type `ty`: the copy and its result.
    pub(super) fn clone_retyped(
        &mut self,
        op: OpId,
        before: OpId,
        operands: &[ValueId],
        ty: TypeId,
    ) -> (OpId, ValueId) {
        let mut values = ValueMap::default();
        let new = clone_op(
            self.ir,
            self.body,
            op,
            self.body,
            InsertPoint::Before(before),
            &mut values,
        );
        for (i, v) in operands.iter().enumerate() {
            self.ir.body_mut(self.body).set_operand(new, i, *v);
        }
        let r = self.result(new);
        self.ir.body_mut(self.body).set_value_type(r, ty);
        (new, r)
    }

    /// A pack of `v` with `tiling` (and `pack`'s padding), before `pack`.
    pub(super) fn pack_like(
        &mut self,
        pack: OpId,
        v: ValueId,
        tiling: &Tiling,
        padding: Option<ValueId>,
    ) -> Result<ValueId, String> {
        let (shape, element) = self.shape(v).ok_or("an unranked operand")?;
        let ty = tensor_type(self.ctx, &tiling.blocked_shape(&shape), element);
        let whole = tiling.whole(&shape);
        let mut e = self.emitter(pack, InsertPoint::Before(pack));
        let dest = tensor::Empty::build(&mut e, &[], ty).result()?;
        match padding {
            Some(p) if !whole => pack_op(&mut e, v, dest, Some(p), tiling, ty),
            None if !whole => {
                let zero = e.scalar(element, 0.0)?;
                pack_op(&mut e, v, dest, Some(zero), tiling, ty)
            }
            _ => pack_op(&mut e, v, dest, None, tiling, ty),
        }
    }
}

/// The channel block of the NCHW16c layouts the slice rules handle.
const BLOCK: i64 = 16;

/// Whether a slice (static `offsets`, `sizes`, `strides` of a tensor of rank `rank`)
/// takes whole channel blocks for `tiling`: the tiling blocks dimension 1 by
/// [`BLOCK`], strides are 1, and the channel offset and size are multiples of it.
fn whole_channel_blocks(
    tiling: &Tiling,
    offsets: &[i64],
    sizes: &[i64],
    strides: &[i64],
    rank: usize,
) -> bool {
    tiling.positions == [1]
        && tiling.tiles == [BLOCK]
        && rank >= 2
        && [offsets.len(), sizes.len(), strides.len()] == [rank; 3]
        && strides.iter().all(|s| *s == 1)
        && offsets.iter().chain(sizes).all(|v| *v >= 0)
        && offsets[1] % BLOCK == 0
        && sizes[1] % BLOCK == 0
}
