//! Flat loops for `loop.parallel` nests that walk whole contiguous buffers in order.
//!
//! An elementwise map over NCHW16c buffers becomes a nest like
//! `(n, c, h, w, lane) = (0, 0, 0, 0, 0) to (1, 6, 28, 28, 16) step (1, 1, 1, 1, 4)`
//! whose every load and store is at exactly `[n, c, h, w, lane]` of a buffer of that
//! shape. Such a nest visits the elements of each buffer in memory order, so it is
//! one loop over `0..1*6*28*28*16` by 4: no loop per dimension, and no addresses
//! recomputed for each row (with 16 lanes by 4, each innermost loop ran 4 times).
//!
//! A nest is flat when (checked by [`FnTranslator::flat_accesses`]):
//! - every dimension starts at constant 0 and has a constant bound; all steps are 1
//!   but the innermost one's, which divides its bound;
//! - each induction variable is used only as an index of a `load`, `vload`,
//!   `store` or `vstore` directly in the body, whose indices are exactly the
//!   induction variables in order;
//! - each such buffer is known before the nest, contiguous, and has the nest's
//!   bounds as its shape.
//!
//! In a part of a nest split among threads ([`super::outline`]), the split
//! dimension's range is dynamic; the nest is still flat when every dimension before
//! it has one iteration, the part covering a contiguous range of elements.

use acc_dialects::ops::loops;
use acc_ir::{OpId, ValueId};
use cranelift_codegen::ir::{BlockArg, InstBuilder, Value};
use cranelift_module::Module;

use super::hoist::constant_index;
use super::{CodegenError, Ended, FnTranslator, err};

/// The accesses of a flat nest and its geometry.
pub(super) struct Flat {
    /// Each load or store of the body, with its buffer's address and element size.
    accesses: Vec<(OpId, Value, i64)>,
    /// Elements between consecutive iterations of each dimension (row-major).
    strides: Vec<i64>,
    /// The innermost step (lanes per access).
    step: i64,
}

impl<M: Module> FnTranslator<'_, '_, '_, M> {
    /// The nest's accesses when a `loop.parallel` (operands `operands`, body
    /// arguments `params`, body ops `ops`) is flat; `split`: the dimension whose
    /// range a part of a threaded nest takes.
    pub(super) fn flat_accesses(
        &mut self,
        operands: &[ValueId],
        params: &[ValueId],
        ops: &[OpId],
        split: Option<usize>,
    ) -> Result<Option<Flat>, CodegenError> {
        let n = params.len();
        if n < 2 {
            return Ok(None);
        }
        let constant = |v: ValueId| constant_index(self.ctx, self.ir, self.body, v);
        let mut upper = Vec::with_capacity(n);
        for d in 0..n {
            let as_i64 = |v: Option<i128>| v.and_then(|v| i64::try_from(v).ok());
            let (Some(0), Some(ub), Some(step)) = (
                as_i64(constant(operands[d])),
                as_i64(constant(operands[n + d])),
                as_i64(constant(operands[2 * n + d])),
            ) else {
                return Ok(None);
            };
            let innermost = d + 1 == n;
            let step_fits = if innermost {
                step >= 1 && ub % step == 0
            } else {
                step == 1
            };
            if ub < 1 || !step_fits || split.is_some_and(|k| d < k && ub != 1) {
                return Ok(None);
            }
            upper.push(ub);
        }
        let step = constant(operands[3 * n - 1]).map_or(1, |s| s as i64);
        let body = self.ir.body(self.body);
        // Every use of an induction variable is an index list of an access in the body.
        for p in params {
            for user in body.value_users(*p) {
                if !ops.contains(&user) {
                    return Ok(None);
                }
            }
        }
        let mut accesses = Vec::new();
        for &o in ops {
            let op = self.ir.op(self.body, o);
            let first_index = match loops::Op::of(self.ctx, op) {
                Some(loops::Op::Load | loops::Op::Vload) => 1,
                Some(loops::Op::Store | loops::Op::Vstore) => 2,
                _ => {
                    if op.operands().any(|v| params.contains(&v)) {
                        return Ok(None);
                    }
                    continue;
                }
            };
            let operands: Vec<ValueId> = op.operands().collect();
            let memref = operands[first_index - 1];
            let indices = &operands[first_index..];
            let value_operands = &operands[..first_index];
            if value_operands.iter().any(|v| params.contains(v)) {
                return Ok(None);
            }
            if indices != params {
                if indices.iter().any(|v| params.contains(v)) {
                    return Ok(None);
                }
                continue;
            }
            if !self.values.contains_key(&memref) {
                return Ok(None);
            }
            let (p, m) = self.memref(op, memref)?;
            let shape_fits = m.shape.iter().map(|s| *s as i64).eq(upper.iter().copied());
            if !shape_fits || !m.is_contiguous() {
                return Ok(None);
            }
            accesses.push((o, p, i64::from(m.element_bytes())));
        }
        if accesses.is_empty() {
            return Ok(None);
        }
        let mut strides = vec![1i64; n];
        for d in (0..n - 1).rev() {
            let Some(stride) = strides[d + 1].checked_mul(upper[d + 1]) else {
                return Ok(None);
            };
            strides[d] = stride;
        }
        Ok(Some(Flat {
            accesses,
            strides,
            step,
        }))
    }

    /// The flat nest `flat` as one loop over the elements `lower * stride ..
    /// upper * stride` of dimension `split` (the dimension whose range a part of a
    /// nest split among threads takes; else 0, the whole nest), `bounds` that
    /// dimension's machine bounds, the body's ops of `levels` below `n` translated
    /// before it.
    pub(super) fn flat_loop(
        &mut self,
        id: OpId,
        flat: Flat,
        split: Option<usize>,
        (lower, upper): (Value, Value),
        levels: &[(OpId, usize)],
        n: usize,
    ) -> Result<(), CodegenError> {
        let op = self.ir.op(self.body, id);
        let stride = flat.strides[split.unwrap_or(0)];
        let first = self.b.ins().imul_imm_s(lower, stride);
        let end = self.b.ins().imul_imm_s(upper, stride);
        // Ops of the body independent of the induction variables run once, before.
        for &(inner, level) in levels {
            if level < n {
                self.op(inner)?;
            }
        }
        let starts: Vec<Value> = flat
            .accesses
            .iter()
            .map(|(_, p, bytes)| {
                let offset = self.b.ins().imul_imm_s(first, *bytes);
                self.b.ins().iadd(*p, offset)
            })
            .collect();
        let carried = vec![self.pointer(); starts.len()];
        // A whole nest (not a part's range) runs at least once: its loop tests at
        // the end.
        let rotated = split.is_none();
        let (header, exit) = self.loop_start((first, end), &starts, &carried, rotated);
        let header_params = self.b.block_params(header).to_vec();
        let iv = header_params[0];
        for ((o, _, _), address) in flat.accesses.iter().zip(&header_params[1..]) {
            self.streams.insert(*o, *address);
        }
        let mut ended = None;
        for &(inner, level) in levels {
            if level == n {
                ended = self.op(inner)?;
            }
        }
        if !matches!(ended, Some(Ended::Yield(_))) {
            return Err(err(op, "its region must end with a yield"));
        }
        let next = self.b.ins().iadd_imm_s(iv, flat.step);
        let mut back: Vec<BlockArg> = vec![next.into()];
        for ((o, _, bytes), address) in flat.accesses.iter().zip(&header_params[1..]) {
            self.streams.remove(o);
            back.push(self.b.ins().iadd_imm_s(*address, flat.step * bytes).into());
        }
        self.loop_end((header, exit), (next, end), &back, rotated);
        Ok(())
    }
}
