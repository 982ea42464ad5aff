//! Buffers in the layouts a target's intrinsics read and write (`layout %v (p0,
//! p1, ...)` in the target file): the buffer holds the value transposed, its
//! dimension `i` the value's dimension `p[i]`.
//!
//! A result an intrinsic writes in a layout keeps that buffer (`permuted`); the
//! plain one is made from it, by a transposing copy right after the call, only when
//! some user of the value does not read it in that layout. An operand an intrinsic
//! reads in a layout takes the permuted buffer its producer wrote when the layouts
//! agree, and a transposing copy of the plain buffer otherwise. So two accelerator
//! ops that agree pass the value between them as it is, and a value is reformatted
//! only where it crosses to code that reads it otherwise.

use acc_ir::{OpId, ValueId};
use acc_target::Placement;

use crate::Bufferizer;
use crate::loop_nests::build::parallel;
use acc_dialects::build::memref_type;
use acc_dialects::ops::loops;

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
        let loc = self.ir.op(self.body, op).loc();
        let plain = self.buffer(loc, v).map_err(|d| d.message)?;
        let copy = self.permuted_copy(op, plain, perm)?;
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

    /// A new buffer, made before `before`, holding `src` transposed by `perm`.
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
    /// layout `perm`, or in whatever layout it comes (`like`).
    pub(crate) fn users_agree(&self, v: ValueId, perm: &[i64]) -> bool {
        let users: Vec<OpId> = self.ir.body(self.body).value_users(v).collect();
        !users.is_empty()
            && users.iter().all(|u| {
                self.intrinsic_of(*u).is_some_and(|i| {
                    self.place(i, *u)
                        .is_ok_and(|p| self.reads_in_layout(*u, &p, v, Some(perm)))
                })
            })
    }
}
