//! Buffers in the layouts a target's intrinsics read and write (`layout %v (p0,
//! p1, ...)` in the target file): the buffer holds the value transposed, its
//! dimension `i` the value's dimension `p[i]`.
//!
//! A result an intrinsic writes in a layout keeps that buffer (`permuted`); the
//! plain one is made from it, by a transposing copy right after the call (a view,
//! when the transposition moves only dimensions of size 1), only when some user of
//! the value does not read it in that layout. A bitcast keeps its operand's layout,
//! and a host elementwise op whose users all read one layout writes it directly. An operand an intrinsic
//! reads in a layout takes the permuted buffer its producer wrote when the layouts
//! agree, and a transposing copy of the plain buffer otherwise. So two accelerator
//! ops that agree pass the value between them as it is, and a value is reformatted
//! only where it crosses to code that reads it otherwise.

use acc_ir::{OpId, ValueId};
use acc_target::Placement;

use crate::Bufferizer;
use crate::loop_nests::build::parallel;
use acc_dialects::build::memref_type;
use acc_dialects::ops::{loops, tensor};

/// `shape` with its dimensions in the order `perm` gives.
pub(crate) fn permuted_shape(shape: &[i64], perm: &[i64]) -> Vec<i64> {
    perm.iter().map(|p| shape[*p as usize]).collect()
}

/// The permutation undoing `perm`.
pub(crate) fn inverse(perm: &[i64]) -> Vec<i64> {
    let mut inv = vec![0; perm.len()];
    for (i, p) in perm.iter().enumerate() {
        inv[*p as usize] = i as i64;
    }
    inv
}

impl Bufferizer<'_> {
    /// A buffer holding the operand `v` of `op` in layout `perm`: the one its
    /// producer wrote when that is the layout, else a transposing copy of its plain
    /// buffer made before `op`.
    pub(crate) fn input_in_layout(
        &mut self,
        op: OpId,
        v: ValueId,
        perm: &[i64],
    ) -> Result<ValueId, String> {
        if let Some((buffer, p)) = self.permuted.get(&v)
            && p == perm
        {
            return Ok(*buffer);
        }
        let copy = match (
            self.buffers.get(&v).copied(),
            self.permuted.get(&v).cloned(),
        ) {
            // Only in another layout (a `like` pair whose partner came otherwise than
            // predicted): transposed from that one.
            (None, Some((buffer, held))) => {
                let inv = inverse(&held);
                let from_held: Vec<i64> = perm.iter().map(|p| inv[*p as usize]).collect();
                self.permuted_copy(op, buffer, &from_held)?
            }
            _ => {
                let loc = self.ir.op(self.body, op).loc();
                let plain = self.buffer(loc, v).map_err(|d| d.message)?;
                self.permuted_copy(op, plain, perm)?
            }
        };
        // Later readers in this layout (the other tiles of an op) share the copy.
        self.permuted
            .entry(v)
            .or_insert_with(|| (copy, perm.to_vec()));
        Ok(copy)
    }

    /// The layouts of the buffers of call `p`: those the target declares, and for
    /// each `like` pair the declared layout of either value, else the layout the
    /// operand's producer wrote.
    pub(crate) fn call_layouts(&self, p: &Placement) -> Vec<(ValueId, Vec<i64>)> {
        let mut layouts = p.layouts.clone();
        for (a, b) in &p.layouts_like {
            let declared = |v: ValueId| p.layouts.iter().find(|(x, _)| *x == v);
            let perm = declared(*a)
                .or_else(|| declared(*b))
                .map(|(_, perm)| perm.clone())
                .or_else(|| {
                    [*b, *a]
                        .iter()
                        .find_map(|v| self.permuted.get(v).map(|(_, perm)| perm.clone()))
                });
            if let Some(perm) = perm {
                for v in [*a, *b] {
                    if declared(v).is_none() {
                        layouts.push((v, perm.clone()));
                    }
                }
            }
        }
        layouts
    }

    /// A buffer, made before `before`, holding `src` transposed by `perm`: a new
    /// one filled by a copy, or `src` itself seen in the new shape when the
    /// permutation moves only dimensions of size 1 (the elements keep their order:
    /// NCHW and NHWC of a 1 x 1 plane).
    pub(crate) fn permuted_copy(
        &mut self,
        before: OpId,
        src: ValueId,
        perm: &[i64],
    ) -> Result<ValueId, String> {
        let ty = self.ir.body(self.body).value_type(src);
        let data = self.ctx.type_data(ty);
        let shape = data.shape().ok_or("a buffer without a shape")?.to_vec();
        let element = data.element_type().ok_or("a buffer without elements")?;
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
    /// layout `perm`, or in whatever layout it comes (`like`), or a bitcast whose
    /// users all do (a quantized value seen as its stored integers keeps its
    /// layout).
    pub(crate) fn users_agree(&self, v: ValueId, perm: &[i64]) -> bool {
        let users: Vec<OpId> = self.ir.body(self.body).value_users(v).collect();
        !users.is_empty()
            && users.iter().all(|u| {
                if let Some(r) = self.layout_keeping_bitcast(*u) {
                    return self.users_agree(r, perm);
                }
                self.intrinsic_of(*u).is_some_and(|i| {
                    self.place(i, *u)
                        .is_ok_and(|p| self.reads_in_layout(*u, &p, v, Some(perm)))
                })
            })
    }

    /// The result of `op` when it is a `tensor.bitcast` of one shape to the same
    /// shape (only the element type changes), which reads and writes any layout.
    fn layout_keeping_bitcast(&self, op: OpId) -> Option<ValueId> {
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
        let Some((buffer, perm)) = self.permuted.get(&operand).cloned() else {
            return Ok(false);
        };
        let ty = self.ir.body(self.body).value_type(result);
        let data = self.ctx.type_data(ty);
        let shape = data.shape().ok_or("a bitcast without a shape")?.to_vec();
        let element = data.element_type().ok_or("a bitcast without elements")?;
        let permuted_type = memref_type(self.ctx, &permuted_shape(&shape, &perm), element);
        let seen = loops::Reshape::build(&mut self.emitter(op), buffer, permuted_type).result()?;
        self.permuted.insert(result, (seen, perm.clone()));
        if !self.users_agree(result, &perm) {
            let plain = match self.buffers.get(&operand).copied() {
                Some(plain) => {
                    let plain_type = memref_type(self.ctx, &shape, element);
                    loops::Reshape::build(&mut self.emitter(op), plain, plain_type).result()?
                }
                None => self.permuted_copy(op, seen, &inverse(&perm))?,
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
        let Some(perm) = self.layout_wanted(result) else {
            return Ok(false);
        };
        if !self.users_agree(result, &perm) {
            return Ok(false);
        }
        let buffer = self.generate_in_layout(op, Some(&perm))?;
        self.permuted.insert(result, (buffer, perm));
        Ok(true)
    }

    /// The layout the first user of `v` reads it in, when an intrinsic declares
    /// one (through bitcasts).
    fn layout_wanted(&self, v: ValueId) -> Option<Vec<i64>> {
        let user = self.ir.body(self.body).value_users(v).next()?;
        if let Some(r) = self.layout_keeping_bitcast(user) {
            return self.layout_wanted(r);
        }
        let placement = self.place(self.intrinsic_of(user)?, user).ok()?;
        placement
            .layouts
            .iter()
            .find(|(x, _)| *x == v)
            .map(|(_, perm)| perm.clone())
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
