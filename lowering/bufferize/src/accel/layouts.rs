//! Buffers in the layouts a target's intrinsics read and write (`layout %v (p0,
//! p1, ...)` or `layout %v "NCHW" -> "NCHW16c"` in the target file): the buffer
//! holds the value transposed, one dimension possibly split into blocks
//! ([`BufferLayout`]).
//!
//! A result an intrinsic writes in a layout keeps that buffer (`permuted`); the
//! plain one is made from it, by a copy before its first plain reader (a view, when
//! a transposition moves only dimensions of size 1), only when some user of the
//! value does not read it in that layout. A bitcast keeps its operand's layout, and a host
//! elementwise op whose users all read one transposition writes it directly. An
//! operand an intrinsic reads in a layout takes the buffer its producer wrote when
//! the layouts agree, and a copy of the plain buffer otherwise. So two accelerator
//! ops that agree pass the value between them as it is, and a value is reformatted
//! only where it crosses to code that reads it otherwise. A copy between a
//! programmable device's code and an intrinsic runs on that device (the op the
//! device's `code` rule placed makes or reads the plain value), so a DSP hands a
//! DLA its blocked input, and takes its blocked result, without the host.

use acc_dialects::build::BuildExt as _;
use acc_ir::{OpId, TypeData, TypeId, ValueDef, ValueId};
use acc_target::{BufferLayout, Placement};

use crate::Bufferizer;
use crate::loop_nests::blocks::{Tiling, pack_nest, unpack_nest};
use crate::loop_nests::build::parallel;
use acc_dialects::build::memref_type;
use acc_dialects::ops::{loops, tensor};

/// `shape` with its dimensions in the order `perm` gives.
pub(crate) fn permuted_shape(shape: &[i64], perm: &[i64]) -> Vec<i64> {
    perm.iter().map(|p| shape[*p as usize]).collect()
}

impl Bufferizer<'_> {
    /// A buffer holding the operand `v` of `op` in `layout`: the one its producer
    /// wrote when that is the layout, else a copy of its plain buffer made before
    /// `op` (on the device whose code produced `v`, if one did).
    pub(crate) fn input_in_layout(
        &mut self,
        op: OpId,
        v: ValueId,
        layout: &BufferLayout,
    ) -> Result<ValueId, String> {
        if let Some((buffer, held)) = self.permuted.get(&v)
            && held == layout
        {
            return Ok(*buffer);
        }
        let created = self.ir.body(self.body).created_ops();
        let copy = match (
            self.buffers.get(&v).copied(),
            self.permuted.get(&v).cloned(),
        ) {
            // Only in another layout (a `like` pair whose partner came otherwise than
            // predicted): transposed from that one when both are transpositions,
            // else made plain, then laid out.
            (None, Some((buffer, held))) if held.block.is_none() && layout.block.is_none() => {
                let inv = held.inverse();
                let from_held: Vec<i64> = layout.perm.iter().map(|p| inv[*p as usize]).collect();
                self.permuted_copy(op, buffer, &from_held)?
            }
            (None, Some((buffer, held))) => {
                let shape = self.value_shape(v)?;
                let plain = self.plain_copy(op, buffer, &held, &shape)?;
                self.layout_copy(op, plain, layout)?
            }
            _ => {
                let loc = self.ir.op(self.body, op).loc();
                let plain = self.buffer(loc, v).map_err(|d| d.message)?;
                self.layout_copy(op, plain, layout)?
            }
        };
        if let Some(device) = self.producing_device(v) {
            self.run_on(created, op, &device);
        }
        // Later readers in this layout (the other tiles of an op) share the copy.
        self.permuted
            .entry(v)
            .or_insert_with(|| (copy, layout.clone()));
        Ok(copy)
    }

    /// The programmable device whose code (an op its `code` rule placed) computes
    /// `v`, through bitcasts.
    fn producing_device(&self, v: ValueId) -> Option<String> {
        let ValueDef::Result(def, _) = self.ir.body(self.body).value(v).def else {
            return None;
        };
        if let Some(device) = acc_target::placement::code_device(self.ctx, self.ir, self.body, def)
        {
            return Some(device);
        }
        let r = self.ir.op(self.body, def);
        if matches!(tensor::Op::of(self.ctx, r), Some(tensor::Op::Bitcast)) {
            return self.producing_device(r.operands().next()?);
        }
        None
    }

    /// The programmable device whose code reads `v` wherever it is read plain
    /// (through bitcasts), when every such reader is one device's.
    pub(crate) fn consuming_device(&self, v: ValueId, layout: &BufferLayout) -> Option<String> {
        let mut readers = Vec::new();
        self.plain_readers(v, layout, false, &mut readers);
        let mut devices = readers
            .iter()
            .map(|op| acc_target::placement::code_device(self.ctx, self.ir, self.body, *op));
        let first = devices.next()??;
        devices.all(|d| d.as_ref() == Some(&first)).then_some(first)
    }

    /// The first op from `from` on (in its block) that reads `v` other than in
    /// `layout` (in its regions too), or a bitcast seeing that plain value as
    /// another type; `from` when none does.
    pub(crate) fn first_plain_reader(&self, v: ValueId, layout: &BufferLayout, from: OpId) -> OpId {
        let mut readers = Vec::new();
        self.plain_readers(v, layout, true, &mut readers);
        let b = self.ir.body(self.body);
        let mut at = Some(from);
        while let Some(op) = at {
            if readers.contains(&op) {
                return op;
            }
            at = b.next_op(op);
        }
        from
    }

    /// The top-level ops reading `v` other than in `layout`, through bitcasts; with
    /// `views` (where a plain copy must come first), those bitcasts too and the
    /// calls that take `layout` only by `like`.
    fn plain_readers(&self, v: ValueId, layout: &BufferLayout, views: bool, out: &mut Vec<OpId>) {
        for u in self.ir.body(self.body).value_users(v) {
            if let Some(r) = self.layout_keeping_bitcast(u) {
                if !self.users_agree(r, layout) {
                    if views {
                        out.push(self.top_level(u));
                    }
                    self.plain_readers(r, layout, views, out);
                }
                continue;
            }
            let placement = self.intrinsic_of(u).and_then(|i| self.place(i, u).ok());
            let declared = placement
                .as_ref()
                .is_some_and(|p| p.layouts.iter().any(|(x, l)| *x == v && l == layout));
            let reads_laid_out = placement
                .as_ref()
                .is_some_and(|p| self.reads_in_layout(u, p, v, Some(layout)));
            // A `like` reader takes the layout only as predicted: for where the
            // plain copy goes, it may read the plain buffer.
            if !reads_laid_out || (views && !declared) {
                out.push(self.top_level(u));
            }
        }
    }

    /// The op of the function's blocks that is `op` or holds it in its regions.
    fn top_level(&self, mut op: OpId) -> OpId {
        let b = self.ir.body(self.body);
        while let Some(parent) = b
            .op_block(op)
            .and_then(|block| b.region_parent(b.block_region(block)))
        {
            op = parent;
        }
        op
    }

    /// Marks the work inserted before `end` since the body had `created` ops (a
    /// layout copy) as `device`'s, when a target declares it programmable (its own
    /// compiler; a device handing its regions to an external one runs no copies).
    pub(crate) fn run_on(&mut self, created: usize, end: OpId, device: &str) {
        let programmable = self
            .targets
            .iter()
            .filter_map(|t| t.device(device))
            .any(|d| d.compiler.is_some());
        if !programmable {
            return;
        }
        acc_target::placement::mark_lowered(
            self.ctx,
            self.ir,
            self.body,
            created,
            end,
            device,
            crate::is_work,
        );
    }

    /// The static shape of the tensor `v`.
    fn value_shape(&self, v: ValueId) -> Result<Vec<i64>, String> {
        let ty = self.ir.body(self.body).value_type(v);
        self.ctx
            .type_data(ty)
            .shape()
            .map(<[i64]>::to_vec)
            .ok_or_else(|| "a value without a shape".to_string())
    }

    /// The layouts of the buffers of call `p`: those the target declares, and for
    /// each `like` pair the declared layout of either value, else the transposition
    /// the operand's producer wrote (a blocked one is not passed on: a `like`
    /// function counts its elements flat, so it would compute on the padding).
    pub(crate) fn call_layouts(&self, p: &Placement) -> Vec<(ValueId, BufferLayout)> {
        let mut layouts = p.layouts.clone();
        for (a, b) in &p.layouts_like {
            let declared = |v: ValueId| p.layouts.iter().find(|(x, _)| *x == v);
            let layout = declared(*a)
                .or_else(|| declared(*b))
                .map(|(_, layout)| layout.clone())
                .or_else(|| {
                    [*b, *a]
                        .iter()
                        .find_map(|v| self.permuted.get(v).map(|(_, layout)| layout.clone()))
                        .filter(|layout| layout.block.is_none())
                });
            if let Some(layout) = layout {
                for v in [*a, *b] {
                    if declared(v).is_none() {
                        layouts.push((v, layout.clone()));
                    }
                }
            }
        }
        layouts
    }

    /// A buffer, made before `before`, holding the plain buffer `src` in `layout`:
    /// transposed (see [`Self::permuted_copy`]), then split into blocks with a
    /// partial last block's lanes zero.
    pub(crate) fn layout_copy(
        &mut self,
        before: OpId,
        src: ValueId,
        layout: &BufferLayout,
    ) -> Result<ValueId, String> {
        let Some((d, size)) = layout.block else {
            return self.permuted_copy(before, src, &layout.perm);
        };
        let transposed = if is_identity(&layout.perm) {
            src
        } else {
            self.permuted_copy(before, src, &layout.perm)?
        };
        let (shape, element) = self.buffer_shape(transposed)?;
        // The blocked dimension's place among the transposed ones.
        let at = layout.inverse()[d] as usize;
        let blocked = BufferLayout {
            perm: (0..shape.len() as i64).collect(),
            block: Some((at, size)),
        };
        let stored = blocked.stored_shape(&shape);
        let dest_type = memref_type(self.ctx, &stored, element);
        let mut e = self.emitter(before);
        let dest = loops::Alloc::build(&mut e, &[], dest_type).result()?;
        // Quantized values are copied as their stored integers, so that the padding
        // is the integer 0.
        let (src_view, dest_view, integers) = match stored_integers(self.ctx, element) {
            Some(int) => {
                let src_ty = memref_type(self.ctx, &shape, int);
                let dest_ty = memref_type(self.ctx, &stored, int);
                let mut e = self.emitter(before);
                let s = loops::Reshape::build(&mut e, transposed, src_ty).result()?;
                let d = loops::Reshape::build(&mut e, dest, dest_ty).result()?;
                (s, d, int)
            }
            None => (transposed, dest, element),
        };
        let mut e = self.emitter(before);
        let padding = if shape[at] % size != 0 {
            Some(e.scalar(integers, 0.0)?)
        } else {
            None
        };
        let tiling = Tiling {
            positions: &[at],
            tiles: &[size],
        };
        pack_nest(
            &mut e, src_view, dest_view, &shape, &stored, &tiling, padding, integers,
        )?;
        self.writable.insert(dest);
        Ok(dest)
    }

    /// A plain buffer (of the value's `shape`), made before `before`, holding what
    /// the buffer `src` holds in `layout`.
    pub(crate) fn plain_copy(
        &mut self,
        before: OpId,
        src: ValueId,
        layout: &BufferLayout,
        shape: &[i64],
    ) -> Result<ValueId, String> {
        let Some((d, size)) = layout.block else {
            return self.permuted_copy(before, src, &layout.inverse());
        };
        let (_, element) = self.buffer_shape(src)?;
        // Unblocked first, into the transposed shape; then transposed back.
        let transposed: Vec<i64> = layout.perm.iter().map(|p| shape[*p as usize]).collect();
        let at = layout.inverse()[d] as usize;
        let ty = memref_type(self.ctx, &transposed, element);
        let mut e = self.emitter(before);
        let dest = loops::Alloc::build(&mut e, &[], ty).result()?;
        let tiling = Tiling {
            positions: &[at],
            tiles: &[size],
        };
        unpack_nest(&mut e, src, dest, &transposed, &tiling, element)?;
        self.writable.insert(dest);
        if is_identity(&layout.perm) {
            return Ok(dest);
        }
        self.permuted_copy(before, dest, &layout.inverse())
    }

    /// A buffer's shape and element type.
    fn buffer_shape(&self, buffer: ValueId) -> Result<(Vec<i64>, TypeId), String> {
        let ty = self.ir.body(self.body).value_type(buffer);
        let data = self.ctx.type_data(ty);
        let shape = data.shape().ok_or("a buffer without a shape")?.to_vec();
        let element = data.element_type().ok_or("a buffer without elements")?;
        Ok((shape, element))
    }

    /// A buffer, made before `before`, holding `src` transposed by `perm`: `src`
    /// seen in the new shape when the permutation moves only dimensions of size 1
    /// (the elements keep their order: NCHW and NHWC of a 1 x 1 plane), else a new
    /// one filled by a copy.
    pub(crate) fn permuted_copy(
        &mut self,
        before: OpId,
        src: ValueId,
        perm: &[i64],
    ) -> Result<ValueId, String> {
        let (shape, element) = self.buffer_shape(src)?;
        if shape.len() != perm.len() {
            return Err("a layout of another rank than its buffer".into());
        }
        let out_shape = permuted_shape(&shape, perm);
        let out_type = memref_type(self.ctx, &out_shape, element);
        let mut e = self.emitter(before);
        if keeps_element_order(&shape, perm) {
            return loops::Reshape::build(&mut e, src, out_type).result();
        }
        let dest = loops::Alloc::build(&mut e, &[], out_type).result()?;
        parallel(&mut e, &out_shape, &mut |e, ivs| {
            // Result index i is source index perm[i].
            let mut at = ivs.to_vec();
            for (i, p) in perm.iter().enumerate() {
                at[*p as usize] = ivs[i];
            }
            let x = loops::Load::build(e, src, &at, element).result()?;
            loops::Store::build(e, x, dest, ivs).create()?;
            Ok(())
        })?;
        self.writable.insert(dest);
        Ok(dest)
    }

    /// Whether every user of `v` is an op placed on an intrinsic reading `v` in
    /// `layout`, or in whatever layout it comes (`like`), or a bitcast whose users
    /// all do (a quantized value seen as its stored integers keeps its layout).
    pub(crate) fn users_agree(&self, v: ValueId, layout: &BufferLayout) -> bool {
        let users: Vec<OpId> = self.ir.body(self.body).value_users(v).collect();
        !users.is_empty()
            && users.iter().all(|u| {
                if let Some(r) = self.layout_keeping_bitcast(*u) {
                    return self.users_agree(r, layout);
                }
                self.intrinsic_of(*u).is_some_and(|i| {
                    self.place(i, *u)
                        .is_ok_and(|p| self.reads_in_layout(*u, &p, v, Some(layout)))
                })
            })
    }

    /// The result of `op` when it is a `tensor.bitcast` of one shape to the same
    /// shape (only the element type changes), which reads and writes any layout.
    pub(crate) fn layout_keeping_bitcast(&self, op: OpId) -> Option<ValueId> {
        let r = self.ir.op(self.body, op);
        if !matches!(tensor::Op::of(self.ctx, r), Some(tensor::Op::Bitcast)) {
            return None;
        }
        let (x, y) = (r.operands().next()?, r.results().next()?);
        let b = self.ir.body(self.body);
        let shape = |v| {
            self.ctx
                .type_data(b.value_type(v))
                .shape()
                .map(<[i64]>::to_vec)
        };
        (shape(x).is_some() && shape(x) == shape(y)).then_some(y)
    }

    /// Bufferizes `op` when it is a bitcast of a value held in another layout: its
    /// result is the same buffer in the same layout, and a plain one too when some
    /// user reads it plain. False (nothing done) for any other op.
    pub(crate) fn permuted_bitcast(&mut self, op: OpId) -> Result<bool, String> {
        let Some(result) = self.layout_keeping_bitcast(op) else {
            return Ok(false);
        };
        let Some(operand) = self.ir.op(self.body, op).operands().next() else {
            return Ok(false);
        };
        let Some((buffer, layout)) = self.permuted.get(&operand).cloned() else {
            return Ok(false);
        };
        let ty = self.ir.body(self.body).value_type(result);
        let data = self.ctx.type_data(ty);
        let shape = data.shape().ok_or("a bitcast without a shape")?.to_vec();
        let element = data.element_type().ok_or("a bitcast without elements")?;
        let stored_type = memref_type(self.ctx, &layout.stored_shape(&shape), element);
        let seen = loops::Reshape::build(&mut self.emitter(op), buffer, stored_type).result()?;
        self.permuted.insert(result, (seen, layout.clone()));
        if !self.users_agree(result, &layout) {
            let plain = match self.buffers.get(&operand).copied() {
                Some(plain) => {
                    let plain_type = memref_type(self.ctx, &shape, element);
                    loops::Reshape::build(&mut self.emitter(op), plain, plain_type).result()?
                }
                None => self.plain_copy(op, seen, &layout, &shape)?,
            };
            self.buffers.insert(result, plain);
        }
        Ok(true)
    }
}

impl Bufferizer<'_> {
    /// Bufferizes `op` when it is a host `tensor.generate` (an elementwise op: the
    /// input's quantization) whose every user reads its result in one layout (an
    /// intrinsic's, through bitcasts): the loop nest writes that layout directly.
    /// False (nothing done) otherwise.
    pub(crate) fn generate_for_layout(&mut self, op: OpId) -> Result<bool, String> {
        let r = self.ir.op(self.body, op);
        if !matches!(tensor::Op::of(self.ctx, r), Some(tensor::Op::Generate)) {
            return Ok(false);
        }
        let Some(result) = r.results().next() else {
            return Ok(false);
        };
        // A transposition only: a blocked layout's padding is a copy's to write.
        let Some(layout) = self.layout_wanted(result).filter(|l| l.block.is_none()) else {
            return Ok(false);
        };
        if !self.users_agree(result, &layout) {
            return Ok(false);
        }
        let buffer = self.generate_in_layout(op, Some(&layout.perm))?;
        self.permuted.insert(result, (buffer, layout));
        Ok(true)
    }

    /// The layout the first user of `v` reads it in, when an intrinsic declares
    /// one (through bitcasts).
    fn layout_wanted(&self, v: ValueId) -> Option<BufferLayout> {
        let user = self.ir.body(self.body).value_users(v).next()?;
        if let Some(r) = self.layout_keeping_bitcast(user) {
            return self.layout_wanted(r);
        }
        let placement = self.place(self.intrinsic_of(user)?, user).ok()?;
        placement
            .layouts
            .iter()
            .find(|(x, _)| *x == v)
            .map(|(_, layout)| layout.clone())
    }
}

/// Whether `perm` leaves every dimension in place.
fn is_identity(perm: &[i64]) -> bool {
    perm.iter().copied().eq(0..perm.len() as i64)
}

/// The integers a quantized `element` is stored as (`None` for other types).
pub(crate) fn stored_integers(ctx: &acc_ir::Context, element: TypeId) -> Option<TypeId> {
    match ctx.type_data(element) {
        TypeData::QuantUniform(q) => Some(ctx.int_type(q.storage_width)),
        TypeData::QuantSubChannel(q) => Some(ctx.int_type(q.storage_width)),
        _ => None,
    }
}

/// Whether transposing `shape` by `perm` keeps every element where it is: the
/// dimensions larger than 1 stay in their order.
fn keeps_element_order(shape: &[i64], perm: &[i64]) -> bool {
    let moved: Vec<i64> = perm
        .iter()
        .copied()
        .filter(|p| shape.get(*p as usize).is_some_and(|d| *d != 1))
        .collect();
    moved.windows(2).all(|w| w[0] < w[1])
}
