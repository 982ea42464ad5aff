//! `layout`: data layouts for tensor ops from a preference table.
//!
//! 1. **Assign.** Each op the table has a row for, and whose operands meet the row's
//!    conditions, takes the row's layouts: its operands are packed into them
//!    (`tensor.pack`), it runs on the blocked tensors, and its result is unpacked
//!    back (`tensor.unpack`) for its users.
//! 2. **Propagate.** Packs move up towards the values they pack, through the ops
//!    that do not care about layouts, until they meet an unpack or a constant:
//!    - `pack(unpack(x))` with the same tiling is `x`;
//!    - `pack(constant)` is folded into a constant (weights change layout at
//!      compile time);
//!    - `pack(tensor.empty)` is an empty tensor of the packed type;
//!    - `pack(pad(x))` is `pad(pack(x))` when the pad leaves the tiled dimensions
//!      alone;
//!    - `pack(broadcast(x))` is `broadcast(pack(x))` when the tiled dimensions come
//!      from x;
//!    - `pack(map(x, y, ...))` is `map(pack(x), pack(y), ...)` for elementwise maps.
//!
//!    An op is moved only when every user of its result is the same pack (so nothing
//!    is computed twice); identical packs of one value are merged first. A move that
//!    would change the values of a partial last block (the pack's padding lanes) is
//!    made only when the tiled dimensions divide into whole blocks, or, for the
//!    cancellation, when the padding lanes are provably zeros ([`padding`];
//!    `assume-finite` lets convolutions keep them zero).
//! 3. Unused tensor ops are erased. What is left: one pack where a plain value enters
//!    a run of blocked ops, one unpack where a blocked value leaves it.
//!
//! The result computes the same values as the input (`--check-semantics`).

use acc_dialects::hooks::attr_read::Attrs;
use acc_dialects::hooks::layout::Layout;
use acc_ir::attrs::AttrData;
use acc_ir::clone::{ValueMap, clone_op};
use acc_ir::elements::{self, Scalar};
use acc_ir::pass::{Pass, PassInfo, PassOptions, PassTarget};
use acc_ir::{
    AttrId, BodyId, Context, DiagLoc, Diagnostic, InsertPoint, Ir, OpId, TypeId, ValueDef, ValueId,
};

use crate::emit::{Emitter, i64s, shape_of, tensor_type};

mod padding;

/// One row of a preference table: the layouts an op runs fastest in, and when.
#[derive(Clone, Copy, Debug)]
pub struct Preference {
    /// The op (`tensor.conv2d`).
    pub op: &'static str,
    /// Its input, filter and output layouts.
    pub layouts: [&'static str; 3],
    /// The channels per block of those layouts.
    pub block: i64,
    /// The fewest input channels the row is for (below, padding would waste lanes).
    pub min_channels: i64,
    /// The most input channels the row is for.
    pub max_channels: i64,
    /// Whether the op must have batch 1 (what the host's kernel takes).
    pub batch_one: bool,
    /// Which convolutions: depthwise ones (one filter per channel), else ungrouped.
    pub depthwise: bool,
}

/// The host's table: f32 convolutions of batch 1 produce NCHW16c, channels in the
/// lanes of an AVX-512 vector: ungrouped ones with at least 16 input channels read
/// NCHW16c with OIHW16i16o filters (`acc_sconv2d_nchw16c`), those with fewer (a
/// network's first) read NCHW with OIHW16o filters (`acc_sconv2d_nchw_nchw16c`),
/// depthwise ones read NCHW16c with OIHW16o filters (`acc_sdwconv2d_nchw16c`).
/// Everything else keeps its layout.
pub const HOST: &[Preference] = &[
    Preference {
        op: "tensor.conv2d",
        layouts: ["NCHW16c", "OIHW16i16o", "NCHW16c"],
        block: 16,
        min_channels: 16,
        max_channels: i64::MAX,
        batch_one: true,
        depthwise: false,
    },
    Preference {
        op: "tensor.conv2d",
        layouts: ["NCHW", "OIHW16o", "NCHW16c"],
        block: 16,
        min_channels: 1,
        max_channels: 15,
        batch_one: true,
        depthwise: false,
    },
    Preference {
        op: "tensor.conv2d",
        layouts: ["NCHW16c", "OIHW16o", "NCHW16c"],
        block: 16,
        min_channels: 16,
        max_channels: i64::MAX,
        batch_one: true,
        depthwise: true,
    },
];

/// The pass.
pub struct LayoutPass {
    table: &'static [Preference],
    assume_finite: bool,
}

/// Its registration.
pub fn info() -> PassInfo {
    PassInfo {
        name: "layout",
        title: "Layout",
        summary: "Assign blocked layouts from a preference table, propagate them, fold weight layouts at compile time",
        anchor: Some("func.func"),
        options: vec![
            acc_ir::pass::PassOption {
                name: "table",
                description: "the preference table: host (blocked NCHW16c convolutions) or none (leave layouts alone)",
                kind: acc_ir::pass::OptionKind::String,
                default: "host",
            },
            acc_ir::pass::PassOption {
                name: "assume-finite",
                description: "assume no infinity or NaN reaches a convolution, so that the padding channels of its blocked result are zeros and partial blocks need no repacking",
                kind: acc_ir::pass::OptionKind::Bool,
                default: "false",
            },
        ],
        create: |o: &PassOptions| {
            let table: &'static [Preference] = match o.get("table") {
                "host" => HOST,
                "none" => &[],
                other => {
                    return Err(format!(
                        "layout: unknown table '{other}' (expected host or none)"
                    ));
                }
            };
            Ok(Box::new(LayoutPass {
                table,
                assume_finite: o.flag("assume-finite"),
            }))
        },
    }
}

impl Pass for LayoutPass {
    fn run(&self, t: &mut PassTarget<'_>) -> Result<(), Diagnostic> {
        for (body, _) in t.bodies() {
            let mut l = Layouts {
                ctx: t.ctx,
                ir: &mut *t.ir,
                body,
                assume_finite: self.assume_finite,
            };
            l.run(self.table).map_err(|(op, m)| {
                let loc = op.map_or(DiagLoc::Unknown, |op| DiagLoc::Loc(l.ir.op(body, op).loc()));
                Diagnostic::error(loc, format!("layout: {m}"))
            })?;
        }
        Ok(())
    }
}

/// A failure and the op it concerns.
type Failure = (Option<OpId>, String);

/// How a pack tiles: the tiled dimensions (of the plain side) and their tiles.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Tiling {
    positions: Vec<i64>,
    tiles: Vec<i64>,
}

impl Tiling {
    /// The blocked shape of a plain one: tiled dimensions counted in blocks (rounded
    /// up), the tiles appended.
    fn blocked_shape(&self, plain: &[i64]) -> Vec<i64> {
        let mut shape = plain.to_vec();
        for (p, t) in self.positions.iter().zip(&self.tiles) {
            shape[*p as usize] = (plain[*p as usize] + t - 1) / t;
        }
        shape.extend(&self.tiles);
        shape
    }

    /// Whether every tiled dimension of `plain` divides into whole blocks.
    fn whole(&self, plain: &[i64]) -> bool {
        self.positions
            .iter()
            .zip(&self.tiles)
            .all(|(p, t)| plain[*p as usize] % t == 0)
    }
}

struct Layouts<'a> {
    ctx: &'a Context,
    ir: &'a mut Ir,
    body: BodyId,
    /// No infinity or NaN reaches a convolution (see [`padding`]).
    assume_finite: bool,
}

impl Layouts<'_> {
    fn run(&mut self, table: &[Preference]) -> Result<(), Failure> {
        for op in self.top_ops() {
            let name = self.name(op);
            if let Some(row) = table.iter().find(|r| r.op == name && self.meets(op, r)) {
                self.assign(op, row).map_err(|m| (Some(op), m))?;
            }
        }
        loop {
            let mut changed = false;
            for op in self.top_ops() {
                if self.ir.body(self.body).is_erased(op) {
                    continue;
                }
                match self.name(op) {
                    "tensor.pack" => changed |= self.bubble(op).map_err(|m| (Some(op), m))?,
                    "tensor.map" => changed |= self.sink(op).map_err(|m| (Some(op), m))?,
                    _ => {}
                }
            }
            if !changed {
                break;
            }
        }
        self.erase_unused();
        Ok(())
    }

    /// The ops of the body's blocks, in order (not those nested in regions).
    fn top_ops(&self) -> Vec<OpId> {
        let b = self.ir.body(self.body);
        b.top_regions()
            .iter()
            .flat_map(|r| b.region_blocks(*r))
            .flat_map(|bl| b.block_ops(bl).collect::<Vec<_>>())
            .collect()
    }

    fn name(&self, op: OpId) -> &str {
        self.ctx.op_name_str(self.ir.body(self.body).op(op).name)
    }

    fn attrs(&self, op: OpId) -> Attrs<'_> {
        Attrs::of_op(self.ctx, self.ir.op(self.body, op))
    }

    fn ints(&self, op: OpId, name: &str) -> Vec<i64> {
        self.attrs(op).ints(name).ok().flatten().unwrap_or_default()
    }

    fn shape(&self, v: ValueId) -> Option<(Vec<i64>, TypeId)> {
        shape_of(self.ctx, self.ir.body(self.body).value_type(v)).ok()
    }

    fn operands(&self, op: OpId) -> Vec<ValueId> {
        self.ir.body(self.body).operands(op).collect()
    }

    fn result(&self, op: OpId) -> ValueId {
        self.ir
            .body(self.body)
            .results(op)
            .next()
            .expect("a tensor op has a result")
    }

    fn def(&self, v: ValueId) -> Option<OpId> {
        match self.ir.body(self.body).value(v).def {
            ValueDef::Result(op, _) => Some(op),
            _ => None,
        }
    }

    /// Whether a layout attribute is absent or the plain one.
    fn plain_layout(&self, op: OpId, name: &str, plain: &str) -> bool {
        match self.ir.op(self.body, op).attr(self.ctx, name) {
            None => true,
            Some(a) => Layout::of_attr(self.ctx, a).ok() == Layout::parse(plain).ok(),
        }
    }

    /// Whether a convolution meets a row's conditions.
    fn meets(&self, op: OpId, row: &Preference) -> bool {
        let operands = self.operands(op);
        let [x, w, init] = operands[..] else {
            return false;
        };
        let (Some((sx, ex)), Some((sw, _)), Some((so, _))) =
            (self.shape(x), self.shape(w), self.shape(init))
        else {
            return false;
        };
        let f32 = self.ctx.float_type(acc_ir::FloatKind::F32);
        let plain = self.plain_layout(op, "input_layout", "NCHW")
            && self.plain_layout(op, "filter_layout", "OIHW")
            && self.plain_layout(op, "output_layout", "NCHW");
        plain
            && ex == f32
            && sx.len() == 4
            && sw.len() == 4
            && so.len() == 4
            && sx.iter().chain(&sw).chain(&so).all(|d| *d > 0)
            && self.grouping_fits(op, row, &sx, &sw)
            && (row.min_channels..=row.max_channels).contains(&sx[1])
            && (!row.batch_one || sx[0] == 1)
    }

    /// Whether a convolution's groups are the row's: one (ungrouped), or one filter
    /// per channel (depthwise).
    fn grouping_fits(&self, op: OpId, row: &Preference, sx: &[i64], sw: &[i64]) -> bool {
        let groups = self.attrs(op).int("groups").ok().flatten().unwrap_or(1);
        if row.depthwise {
            groups == sx[1] && sw[0] == sx[1] && sw[1] == 1
        } else {
            groups == 1
        }
    }

    /// Runs a convolution in the row's layouts: its operands packed, its result
    /// unpacked for its users.
    fn assign(&mut self, op: OpId, row: &Preference) -> Result<(), String> {
        let operands = self.operands(op);
        let (x, w, init) = (operands[0], operands[1], operands[2]);
        let b = row.block;
        let [input, filter, output] = [
            (row.layouts[0], "NCHW"),
            (row.layouts[1], "OIHW"),
            (row.layouts[2], "NCHW"),
        ]
        .map(|(layout, plain)| tiling_of(layout, plain));
        let (input, filter, channels) = (input?, filter?, output?.ok_or("a plain output layout")?);
        let xb = match &input {
            Some(t) => self.pack(op, x, t)?,
            None => x,
        };
        let wb = match &filter {
            Some(t) => self.pack(op, w, t)?,
            None => w,
        };
        let ib = self.pack(op, init, &channels)?;
        let result = self.result(op);
        let (plain_shape, element) = self.shape(result).ok_or("an unranked result")?;
        let blocked_ty = tensor_type(self.ctx, &channels.blocked_shape(&plain_shape), element);
        let body = self.ir.body_mut(self.body);
        body.set_operand(op, 0, xb);
        body.set_operand(op, 1, wb);
        body.set_operand(op, 2, ib);
        body.set_value_type(result, blocked_ty);
        let mut entries: Vec<(acc_ir::Sym, AttrId)> = self
            .ir
            .op(self.body, op)
            .props()
            .map(|p| self.ctx.dict_entries(p).to_vec())
            .unwrap_or_default();
        for (name, text) in ["input_layout", "filter_layout", "output_layout"]
            .iter()
            .zip(row.layouts)
        {
            let key = self.ctx.sym(name);
            entries.retain(|(k, _)| *k != key);
            entries.push((key, layout_attr(self.ctx, text)));
        }
        if row.depthwise {
            // One group per channel of the blocks, padding channels included.
            let key = self.ctx.sym("groups");
            let channels = channels.blocked_shape(&plain_shape)[1] * b;
            entries.retain(|(k, _)| *k != key);
            entries.push((key, crate::emit::i64_attr(self.ctx, channels)));
        }
        let props = self
            .ctx
            .dict_attr(entries)
            .map_err(|_| "duplicate properties".to_string())?;
        self.ir.body_mut(self.body).op_mut(op).props = Some(props);
        // The result unpacked after the op, for every other user.
        let next = self
            .ir
            .body(self.body)
            .next_op(op)
            .ok_or("a convolution ends its block")?;
        let plain_ty = tensor_type(self.ctx, &plain_shape, element);
        let props = tiling_props(self.ctx, &channels);
        let mut e = self.emitter(op, InsertPoint::Before(next));
        let dest = e.op1("tensor.empty", &[], plain_ty, &[])?;
        let unpacked = e.op1("tensor.unpack", &[result, dest], plain_ty, &props)?;
        let users: Vec<OpId> = self.ir.body(self.body).value_users(result).collect();
        let unpack = self.def(unpacked).ok_or("no unpack")?;
        for user in users {
            if user == unpack {
                continue;
            }
            for (i, v) in self.operands(user).into_iter().enumerate() {
                if v == result {
                    self.ir.body_mut(self.body).set_operand(user, i, unpacked);
                }
            }
        }
        Ok(())
    }

    fn emitter(&mut self, near: OpId, point: InsertPoint) -> Emitter<'_> {
        let loc = self.ir.op(self.body, near).loc();
        Emitter {
            ctx: self.ctx,
            ir: &mut *self.ir,
            body: self.body,
            point,
            loc,
        }
    }

    /// `tensor.pack` of `v` with `tiling` before `before` (zero padding for a partial
    /// block).
    fn pack(&mut self, before: OpId, v: ValueId, tiling: &Tiling) -> Result<ValueId, String> {
        let (shape, element) = self.shape(v).ok_or("an unranked operand")?;
        let ty = tensor_type(self.ctx, &tiling.blocked_shape(&shape), element);
        let whole = tiling.whole(&shape);
        let props = tiling_props(self.ctx, tiling);
        let mut e = self.emitter(before, InsertPoint::Before(before));
        let dest = e.op1("tensor.empty", &[], ty, &[])?;
        if whole {
            return e.op1("tensor.pack", &[v, dest], ty, &props);
        }
        let zero = e.scalar(element, 0.0)?;
        e.op1("tensor.pack", &[v, dest, zero], ty, &props)
    }

    /// A pack's tiling, its source and its padding value (if any).
    fn pack_parts(&self, pack: OpId) -> (Tiling, ValueId, Option<ValueId>) {
        let operands = self.operands(pack);
        (
            Tiling {
                positions: self.ints(pack, "inner_dims_pos"),
                tiles: self.ints(pack, "inner_tiles"),
            },
            operands[0],
            operands.get(2).copied(),
        )
    }

    /// Moves one pack up a step; whether anything changed.
    fn bubble(&mut self, pack: OpId) -> Result<bool, String> {
        if !self.ints(pack, "outer_dims_perm").is_empty() {
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
        let replacement = match self.name(def) {
            "tensor.unpack" => {
                let inner = self.operands(def)[0];
                // A partial block: the pack zeroes the padding lanes again, which
                // changes nothing when they are zeros already.
                let zero_padding = padding.is_some_and(
                    |p| matches!(self.constant_scalar(p), Some(Scalar::Float(f)) if f == 0.0),
                );
                let lanes_agree = whole
                    || (zero_padding
                        && tiling.positions == [1]
                        && tiling.tiles == [16]
                        && self.zero_padding_lanes(inner, plain[1]));
                let same = lanes_agree
                    && self.ints(def, "outer_dims_perm").is_empty()
                    && self.ints(def, "inner_dims_pos") == tiling.positions
                    && self.ints(def, "inner_tiles") == tiling.tiles
                    && self.ir.body(self.body).value_type(inner)
                        == self.ir.body(self.body).value_type(packed);
                if !same {
                    return Ok(false);
                }
                inner
            }
            "arith.constant" => match self.fold_constant(def, &tiling, packed)? {
                Some(c) => c,
                None => return Ok(false),
            },
            "tensor.empty" if whole => {
                let ty = self.ir.body(self.body).value_type(packed);
                self.emitter(pack, InsertPoint::Before(pack))
                    .op1("tensor.empty", &[], ty, &[])?
            }
            "tensor.pad" | "tensor.broadcast" | "tensor.map" | "tensor.pool" => {
                let Some(kept) = self.merge_packs(source, pack, &tiling, padding) else {
                    return Ok(false);
                };
                let pack = kept;
                let moved = match self.name(def) {
                    "tensor.pad" => self.pad_through(def, pack, &tiling, padding)?,
                    "tensor.broadcast" => self.broadcast_through(def, pack, &tiling, padding)?,
                    "tensor.pool" => self.pool_through(def, pack, &tiling, padding)?,
                    _ if whole => self.map_through(def, pack, &tiling)?,
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

    /// `map(unpack(x), unpack(y), ...)` as `unpack(map(x, y, ...))` when every input
    /// is unpacked the same way: the map runs on the blocks (a partial block's padding
    /// lanes too, which the unpack drops); whether it moved.
    fn sink(&mut self, map: OpId) -> Result<bool, String> {
        let operands = self.operands(map);
        let (inputs, _init) = operands.split_at(operands.len() - 1);
        let mut blocked = Vec::new();
        let mut tiling: Option<(Tiling, TypeId)> = None;
        for v in inputs {
            let Some(def) = self.def(*v) else {
                return Ok(false);
            };
            if self.name(def) != "tensor.unpack" || !self.ints(def, "outer_dims_perm").is_empty() {
                return Ok(false);
            }
            let source = self.operands(def)[0];
            let t = Tiling {
                positions: self.ints(def, "inner_dims_pos"),
                tiles: self.ints(def, "inner_tiles"),
            };
            let ty = self.ir.body(self.body).value_type(source);
            match &tiling {
                Some(seen) if *seen != (t.clone(), ty) => return Ok(false),
                _ => tiling = Some((t, ty)),
            }
            blocked.push(source);
        }
        let Some((tiling, blocked_ty)) = tiling else {
            return Ok(false);
        };
        let result = self.result(map);
        let plain_ty = self.ir.body(self.body).value_type(result);
        let next = self
            .ir
            .body(self.body)
            .next_op(map)
            .ok_or("a map ends its block")?;
        let mut e = self.emitter(map, InsertPoint::Before(map));
        let init = e.op1("tensor.empty", &[], blocked_ty, &[])?;
        blocked.push(init);
        let (_, new_result) = self.clone_retyped(map, map, &blocked, blocked_ty);
        let props = tiling_props(self.ctx, &tiling);
        let mut e = self.emitter(map, InsertPoint::Before(next));
        let dest = e.op1("tensor.empty", &[], plain_ty, &[])?;
        let unpacked = e.op1("tensor.unpack", &[new_result, dest], plain_ty, &props)?;
        self.ir
            .body_mut(self.body)
            .replace_all_uses(result, unpacked);
        self.ir.erase_op(self.body, map);
        Ok(true)
    }

    /// Replaces a pack's result by `v` and erases it, and the op it packed when
    /// that has no other user (so its operands' users are what they seem); true.
    fn replace(&mut self, pack: OpId, v: ValueId) -> Result<bool, String> {
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
    fn merge_packs(
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
    fn merge_siblings(
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
    fn same_pack(
        &self,
        user: OpId,
        value: ValueId,
        pack: OpId,
        tiling: &Tiling,
        padding: Option<ValueId>,
    ) -> bool {
        if self.name(user) != "tensor.pack" || self.operands(user)[0] != value {
            return false;
        }
        let (t, _, p) = self.pack_parts(user);
        let ty = self.ir.body(self.body).value_type(self.result(pack));
        t == *tiling
            && self.ints(user, "outer_dims_perm").is_empty()
            && self.ir.body(self.body).value_type(self.result(user)) == ty
            && p.and_then(|p| self.constant_scalar(p))
                == padding.and_then(|p| self.constant_scalar(p))
    }

    fn constant_scalar(&self, v: ValueId) -> Option<Scalar> {
        let def = self.def(v)?;
        let attr = self.ir.op(self.body, def).attr(self.ctx, "value")?;
        elements::scalar(self.ctx, attr).map(|(_, s)| s)
    }

    /// A constant packed at compile time: a new constant of the packed type.
    fn fold_constant(
        &mut self,
        constant: OpId,
        tiling: &Tiling,
        packed: ValueId,
    ) -> Result<Option<ValueId>, String> {
        let Some(attr) = self.ir.op(self.body, constant).attr(self.ctx, "value") else {
            return Ok(None);
        };
        let Some(dense) = elements::dense(self.ctx, attr) else {
            return Ok(None);
        };
        let source = self.operands_of_result(packed);
        let (plain, _) = self.shape(source).ok_or("an unranked constant")?;
        let ty = self.ir.body(self.body).value_type(packed);
        let (blocked, _) = shape_of(self.ctx, ty)?;
        let pack = self.def(packed).ok_or("no pack")?;
        let padding = self
            .pack_parts(pack)
            .2
            .and_then(|p| self.constant_scalar(p));
        let values = pack_values(&dense, &plain, &blocked, tiling, padding)?;
        let value = elements::dense_attr(self.ctx, ty, &values)
            .ok_or("the packed constant has no dense form")?;
        let op = self.def(packed).ok_or("no pack")?;
        let c = self.emitter(op, InsertPoint::Before(op)).op1(
            "arith.constant",
            &[],
            ty,
            &[("value", value)],
        )?;
        Ok(Some(c))
    }

    /// The value a pack result packs.
    fn operands_of_result(&self, packed: ValueId) -> ValueId {
        let pack = self.def(packed).expect("a pack result");
        self.operands(pack)[0]
    }

    /// `pack(pad(x))` as `pad(pack(x))` when the pad leaves the tiled dimensions
    /// alone and yields one value for every position.
    fn pad_through(
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
        let (low, high) = (self.ints(pad, "static_low"), self.ints(pad, "static_high"));
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
                ("static_low", i64s(self.ctx, &widen(&low))),
                ("static_high", i64s(self.ctx, &widen(&high))),
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

    /// Whether a pad's region yields a value defined outside it or a constant (the
    /// same for every position).
    fn yields_outside_value(&self, pad: OpId) -> bool {
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
                ir.op(body, op).block() != Some(block)
                    || ctx.op_name_str(b.op(op).name) == "arith.constant"
            }
            ValueDef::BlockArg(bl, _) => bl != block,
            ValueDef::Detached => false,
        })
    }

    /// `pack(broadcast(x))` as `broadcast(pack(x))` when every tiled dimension comes
    /// from x.
    fn broadcast_through(
        &mut self,
        broadcast: OpId,
        pack: OpId,
        tiling: &Tiling,
        padding: Option<ValueId>,
    ) -> Result<Option<ValueId>, String> {
        let x = self.operands(broadcast)[0];
        let added = self.ints(broadcast, "dimensions");
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
        let packed_init = e.op1("tensor.empty", &[], ty, &[])?;
        let r = e.op1(
            "tensor.broadcast",
            &[packed_x, packed_init],
            ty,
            &[("dimensions", dims)],
        )?;
        Ok(Some(r))
    }

    /// `pack(pool(x))` as a pool of `pack(x)` in NCHW16c when the channels are what
    /// is tiled, by 16, and a partial block's padding is zero (pooling zeros gives
    /// zero: the padding lanes stay what the pack would make them).
    fn pool_through(
        &mut self,
        pool: OpId,
        pack: OpId,
        tiling: &Tiling,
        padding: Option<ValueId>,
    ) -> Result<Option<ValueId>, String> {
        let x = self.operands(pool)[0];
        let plain = self.plain_layout(pool, "layout", "NCHW");
        let zero_padding = padding
            .is_none_or(|p| matches!(self.constant_scalar(p), Some(Scalar::Float(f)) if f == 0.0));
        let channels = tiling.positions == [1] && tiling.tiles == [16];
        if !plain || !zero_padding || !channels {
            return Ok(None);
        }
        let packed_x = self.pack_like(pack, x, tiling, padding)?;
        let ty = self.ir.body(self.body).value_type(self.result(pack));
        let init =
            self.emitter(pack, InsertPoint::Before(pack))
                .op1("tensor.empty", &[], ty, &[])?;
        let (new, r) = self.clone_retyped(pool, pack, &[packed_x, init], ty);
        self.set_props(new, &[("layout", layout_attr(self.ctx, "NCHW16c"))])?;
        Ok(Some(r))
    }

    /// `pack(map(x, y, ...))` as `map(pack(x), pack(y), ...)` (whole blocks only: the
    /// map would compute the padding lanes otherwise).
    fn map_through(
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
        packed.push(self.emitter(pack, InsertPoint::Before(pack)).op1(
            "tensor.empty",
            &[],
            packed_ty,
            &[],
        )?);
        let (_, r) = self.clone_retyped(map, pack, &packed, packed_ty);
        Ok(Some(r))
    }

    /// A copy of `op` (regions included) before `before`, its first operands
    /// replaced by `operands` and its result of type `ty`: the copy and its result.
    fn clone_retyped(
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
    fn pack_like(
        &mut self,
        pack: OpId,
        v: ValueId,
        tiling: &Tiling,
        padding: Option<ValueId>,
    ) -> Result<ValueId, String> {
        let (shape, element) = self.shape(v).ok_or("an unranked operand")?;
        let ty = tensor_type(self.ctx, &tiling.blocked_shape(&shape), element);
        let props = tiling_props(self.ctx, tiling);
        let whole = tiling.whole(&shape);
        let mut e = self.emitter(pack, InsertPoint::Before(pack));
        let dest = e.op1("tensor.empty", &[], ty, &[])?;
        match padding {
            Some(p) if !whole => e.op1("tensor.pack", &[v, dest, p], ty, &props),
            None if !whole => {
                let zero = e.scalar(element, 0.0)?;
                e.op1("tensor.pack", &[v, dest, zero], ty, &props)
            }
            _ => e.op1("tensor.pack", &[v, dest], ty, &props),
        }
    }

    /// Sets (replaces) properties of an op.
    fn set_props(&mut self, op: OpId, props: &[(&str, AttrId)]) -> Result<(), String> {
        let mut entries: Vec<(acc_ir::Sym, AttrId)> = self
            .ir
            .op(self.body, op)
            .props()
            .map(|p| self.ctx.dict_entries(p).to_vec())
            .unwrap_or_default();
        for (name, value) in props {
            let key = self.ctx.sym(name);
            entries.retain(|(k, _)| *k != key);
            entries.push((key, *value));
        }
        let dict = self
            .ctx
            .dict_attr(entries)
            .map_err(|_| "duplicate properties".to_string())?;
        self.ir.body_mut(self.body).op_mut(op).props = Some(dict);
        Ok(())
    }

    /// Erases tensor ops and constants whose results nothing uses (the moved ops,
    /// the unpacks that found no user), last first.
    fn erase_unused(&mut self) {
        loop {
            let mut erased = false;
            for op in self.top_ops().into_iter().rev() {
                let name = self.name(op);
                let pure = name.starts_with("tensor.") || name == "arith.constant";
                let b = self.ir.body(self.body);
                if pure && b.results(op).len() > 0 && b.results(op).all(|r| !b.has_uses(r)) {
                    self.ir.erase_op(self.body, op);
                    erased = true;
                }
            }
            if !erased {
                break;
            }
        }
    }
}

/// How `layout` tiles the dimensions of `plain` (the same letters, outermost in
/// the same order, then the blocks): `None` when it does not.
fn tiling_of(layout: &str, plain: &str) -> Result<Option<Tiling>, String> {
    let parsed = Layout::parse(layout)?;
    let outer: String = parsed
        .dims
        .iter()
        .filter(|d| d.block.is_none())
        .map(|d| d.letter)
        .collect();
    if outer != plain {
        return Err(format!("layout {layout} does not tile {plain}"));
    }
    let mut t = Tiling {
        positions: Vec::new(),
        tiles: Vec::new(),
    };
    for d in parsed.dims.iter().filter(|d| d.block.is_some()) {
        let at = plain
            .find(d.letter)
            .ok_or(format!("layout {layout} does not tile {plain}"))?;
        t.positions.push(at as i64);
        t.tiles.push(d.block.unwrap_or(1));
    }
    Ok((!t.positions.is_empty()).then_some(t))
}

/// `inner_dims_pos` and `inner_tiles` of a tiling.
fn tiling_props(ctx: &Context, t: &Tiling) -> Vec<(&'static str, AttrId)> {
    vec![
        ("inner_dims_pos", i64s(ctx, &t.positions)),
        ("inner_tiles", i64s(ctx, &t.tiles)),
    ]
}

/// `#tensor.layout<"text">`.
fn layout_attr(ctx: &Context, text: &str) -> AttrId {
    ctx.intern_attr(AttrData::Declared {
        dialect: ctx.sym("tensor"),
        name: ctx.sym("layout"),
        params: vec![ctx.string_attr(text)].into(),
    })
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
