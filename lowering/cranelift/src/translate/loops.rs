//! `loop` ops: buffers, loads and stores, loops, vectors, constants and intrinsic
//! calls.

use acc_dialects::ops::{hw, loops};
use acc_ir::elements::{self, Scalar};
use acc_ir::{OpId, OpRef, ValueId};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{Block, BlockArg, InstBuilder, MemFlagsData, Type, Value, types};
use cranelift_module::Module;

use super::{CodegenError, FnTranslator, Val, err};
use crate::types::{MemrefLayout, Repr, repr, scalar_type};

/// A load or store whose address advances by `advance` bytes per iteration of its
/// innermost loop, from `start`.
struct Stream {
    op: OpId,
    start: Value,
    advance: Value,
}

impl<M: Module> FnTranslator<'_, '_, '_, M> {
    // ----- loop -----

    pub(super) fn loop_op(
        &mut self,
        id: OpId,
        kind: loops::Op,
        operands: &[ValueId],
        result_types: &[acc_ir::TypeId],
    ) -> Result<Vec<Val>, CodegenError> {
        let op = self.ir.op(self.body, id);
        let layout_of = |s: &Self, ty| match repr(s.ctx, ty) {
            Ok(Repr::Memref(m)) => Ok(m),
            Ok(_) => Err(err(op, "expects a memref type")),
            Err(m) => Err(err(op, m)),
        };
        Ok(match kind {
            loops::Op::Alloc => {
                let m = layout_of(self, result_types[0])?;
                if !operands.is_empty() {
                    return Err(err(
                        op,
                        "dynamic sizes are not supported by the code generator",
                    ));
                }
                let bytes = m.len() as u64 * u64::from(m.element_bytes());
                let offset = match op
                    .attr(self.ctx, loops::Alloc::ATTR_OFFSET)
                    .map(|a| elements::scalar(self.ctx, a))
                {
                    Some(Some((_, Scalar::Int(o)))) => Some(o as i64),
                    Some(_) => return Err(err(op, "an arena offset that is not an integer")),
                    None => None,
                };
                let result = self.ir.body(self.body).results(id).next();
                let p = match (result.and_then(|r| self.result_buffer(r)), offset) {
                    (Some(p), _) => {
                        // Built in the caller's result buffer: nothing to free.
                        self.planned.extend(result);
                        p
                    }
                    (None, Some(o)) => {
                        self.planned.extend(result);
                        self.arena_slot(op, o, bytes)?
                    }
                    (None, None) => self.alloc(op, bytes)?,
                };
                vec![Val::Memref(p, m)]
            }
            loops::Op::Constant => {
                let m = layout_of(self, result_types[0])?;
                vec![Val::Memref(self.constant_data(op)?, m)]
            }
            loops::Op::Reshape => {
                let (p, m) = self.memref(op, operands[0])?;
                let out = layout_of(self, result_types[0])?;
                if !m.is_contiguous() {
                    return Err(err(op, "reshapes a buffer that is not contiguous"));
                }
                vec![Val::Memref(p, out)]
            }
            loops::Op::Dealloc if self.planned.contains(&operands[0]) => vec![],
            loops::Op::Dealloc => {
                let (p, _) = self.memref(op, operands[0])?;
                let free = self.runtime(op, "acc_free", &[self.pointer()], None)?;
                self.b.ins().call(free, &[p]);
                vec![]
            }
            loops::Op::Subview => vec![self.subview(op, operands, result_types[0])?],
            loops::Op::Load => {
                let (p, m) = self.memref(op, operands[0])?;
                let addr = self.address(op, p, &m, &operands[1..])?;
                let v = self
                    .b
                    .ins()
                    .load(m.element, MemFlagsData::trusted(), addr, 0);
                let v = match crate::types::narrow_int(self.ctx, m.element_ty) {
                    Some(w) => self.sign_extend_narrow(v, w),
                    None => v,
                };
                vec![Val::Scalar(v)]
            }
            loops::Op::Store => {
                let v = self.scalar(op, operands[0])?;
                let (p, m) = self.memref(op, operands[1])?;
                let addr = self.address(op, p, &m, &operands[2..])?;
                self.b.ins().store(MemFlagsData::trusted(), v, addr, 0);
                vec![]
            }
            loops::Op::Vload => {
                let t = self.vector_type(op, result_types[0])?;
                let (p, m) = self.memref(op, operands[0])?;
                self.check_lanes(op, &m, t)?;
                let addr = self.address(op, p, &m, &operands[1..])?;
                let stride = match op
                    .attr(self.ctx, loops::Vload::ATTR_STRIDE)
                    .map(|a| elements::scalar(self.ctx, a))
                {
                    Some(Some((_, Scalar::Int(s)))) => s,
                    _ => 1,
                };
                let v = if stride == 1 {
                    self.b
                        .ins()
                        .load(t, MemFlagsData::new().with_notrap(), addr, 0)
                } else {
                    // A gather: one load per lane.
                    let step = i64::try_from(stride)
                        .ok()
                        .and_then(|s| s.checked_mul(i64::from(m.element.bytes())))
                        .and_then(|s| s.checked_mul(*m.strides.last().unwrap_or(&1) as i64))
                        .ok_or_else(|| err(op, "a vload stride out of range"))?;
                    let flags = MemFlagsData::new().with_notrap();
                    let first = self.b.ins().load(m.element, flags, addr, 0);
                    let mut v = self.b.ins().splat(t, first);
                    for lane in 1..t.lane_count() {
                        let offset = i32::try_from(step * i64::from(lane))
                            .map_err(|_| err(op, "a vload stride out of range"))?;
                        let x = self.b.ins().load(m.element, flags, addr, offset);
                        v = self.b.ins().insertlane(v, x, lane as u8);
                    }
                    v
                };
                vec![Val::Scalar(v)]
            }
            loops::Op::Vstore => {
                let v = self.scalar(op, operands[0])?;
                let vt = self.ir.body(self.body).value_type(operands[0]);
                let t = self.vector_type(op, vt)?;
                let (p, m) = self.memref(op, operands[1])?;
                self.check_lanes(op, &m, t)?;
                let addr = self.address(op, p, &m, &operands[2..])?;
                self.b
                    .ins()
                    .store(MemFlagsData::new().with_notrap(), v, addr, 0);
                vec![]
            }
            loops::Op::Fma => {
                let (a, c, d) = (
                    self.scalar(op, operands[0])?,
                    self.scalar(op, operands[1])?,
                    self.scalar(op, operands[2])?,
                );
                let vector = self.b.func.dfg.value_type(a).is_vector();
                let v = if vector && !self.shared.features.fma {
                    let m = self.b.ins().fmul(a, c);
                    self.b.ins().fadd(m, d)
                } else {
                    self.b.ins().fma(a, c, d)
                };
                vec![Val::Scalar(v)]
            }
            loops::Op::Splat => {
                let t = self.vector_type(op, result_types[0])?;
                let s = self.scalar(op, operands[0])?;
                vec![Val::Scalar(self.b.ins().splat(t, s))]
            }
            loops::Op::Vreduce => vec![Val::Scalar(self.vreduce(op, operands[0])?)],
            loops::Op::Copy => {
                let (src, sm) = self.memref(op, operands[0])?;
                let (dst, dm) = self.memref(op, operands[1])?;
                if sm.shape != dm.shape {
                    return Err(err(op, "copies between different shapes"));
                }
                self.copy(src, &sm, dst, &dm);
                vec![]
            }
            loops::Op::For => self.for_loop(id, operands)?,
            loops::Op::Parallel => {
                self.parallel(id, operands)?;
                vec![]
            }
            other => {
                return Err(err(
                    op,
                    format!("no code generation for '{}'", other.name()),
                ));
            }
        })
    }

    pub(super) fn vector_type(
        &self,
        op: OpRef<'_>,
        ty: acc_ir::TypeId,
    ) -> Result<Type, CodegenError> {
        if !self.shared.features.vectors {
            return Err(err(
                op,
                "the target has no vector instructions (RISC-V needs the V extension)",
            ));
        }
        scalar_type(self.ctx, ty).map_err(|m| err(op, m))
    }

    /// Vector accesses read consecutive elements: the innermost stride must be 1.
    pub(super) fn check_lanes(
        &self,
        op: OpRef<'_>,
        m: &MemrefLayout,
        t: Type,
    ) -> Result<(), CodegenError> {
        if m.strides.last() != Some(&1) || t.lane_type() != m.element {
            return Err(err(
                op,
                "vector accesses need unit-stride elements of the vector's type",
            ));
        }
        Ok(())
    }

    pub(super) fn vreduce(&mut self, op: OpRef<'_>, v: ValueId) -> Result<Value, CodegenError> {
        let x = self.scalar(op, v)?;
        let t = self.b.func.dfg.value_type(x);
        let kind = op
            .attr(self.ctx, loops::Vreduce::ATTR_KIND)
            .map(|a| acc_ir::printer::attr_to_string(self.ctx, a))
            .unwrap_or_default();
        let kind = ["add", "mul", "max", "min"]
            .into_iter()
            .find(|k| kind.contains(&format!("<{k}>")) || kind == *k)
            .ok_or_else(|| err(op, "unknown reduction"))?;
        let float = t.lane_type().is_float();
        let mut acc = self.b.ins().extractlane(x, 0);
        for lane in 1..t.lane_count() {
            let e = self.b.ins().extractlane(x, lane as u8);
            acc = match (kind, float) {
                ("add", true) => self.b.ins().fadd(acc, e),
                ("mul", true) => self.b.ins().fmul(acc, e),
                ("max", true) => self.b.ins().fmax(acc, e),
                ("min", true) => self.b.ins().fmin(acc, e),
                ("add", false) => self.b.ins().iadd(acc, e),
                ("mul", false) => self.b.ins().imul(acc, e),
                ("max", false) => self.b.ins().smax(acc, e),
                _ => self.b.ins().smin(acc, e),
            };
        }
        Ok(acc)
    }

    /// The address of element `indices` of a memref at `p`.
    pub(super) fn address(
        &mut self,
        op: OpRef<'_>,
        p: Value,
        m: &MemrefLayout,
        indices: &[ValueId],
    ) -> Result<Value, CodegenError> {
        if indices.len() != m.shape.len() {
            return Err(err(op, "needs one index per dimension"));
        }
        if let Some(addr) = self.streams.get(&op.op) {
            return Ok(*addr);
        }
        let mut addr = p;
        for (d, idx) in indices.iter().enumerate() {
            let i = self.scalar(op, *idx)?;
            let bytes = m.strides[d] as i64 * i64::from(m.element_bytes());
            let off = self.b.ins().imul_imm_s(i, bytes);
            addr = self.b.ins().iadd(addr, off);
        }
        Ok(addr)
    }

    pub(super) fn subview(
        &mut self,
        op: OpRef<'_>,
        operands: &[ValueId],
        result: acc_ir::TypeId,
    ) -> Result<Val, CodegenError> {
        let (p, m) = self.memref(op, operands[0])?;
        let attrs = acc_dialects::hooks::attr_read::Attrs::of_op(self.ctx, op);
        let list = |name: &str| -> Result<Vec<i64>, CodegenError> {
            attrs
                .ints(name)
                .map_err(|e| err(op, e))?
                .ok_or_else(|| err(op, format!("requires '{name}'")))
        };
        let (offsets, sizes, steps) = (
            list(loops::Subview::ATTR_STATIC_OFFSETS)?,
            list(loops::Subview::ATTR_STATIC_SIZES)?,
            list(loops::Subview::ATTR_STATIC_STRIDES)?,
        );
        let dynamic = acc_dialects::hooks::attr_read::is_dyn;
        if sizes.iter().chain(&steps).any(|v| dynamic(*v)) {
            return Err(err(
                op,
                "dynamic sizes and strides are not supported by the code generator",
            ));
        }
        let mut next = operands[1..].iter();
        let mut addr = p;
        for (d, off) in offsets.iter().enumerate() {
            let bytes = m.strides[d] as i64 * i64::from(m.element_bytes());
            if dynamic(*off) {
                let v = next
                    .next()
                    .ok_or_else(|| err(op, "missing a dynamic offset"))?;
                let i = self.scalar(op, *v)?;
                let o = self.b.ins().imul_imm_s(i, bytes);
                addr = self.b.ins().iadd(addr, o);
            } else if *off != 0 {
                addr = self.b.ins().iadd_imm_s(addr, off * bytes);
            }
        }
        let out = match repr(self.ctx, result).map_err(|e| err(op, e))? {
            Repr::Memref(r) => r,
            Repr::Scalar(_) => return Err(err(op, "a subview gives a memref")),
        };
        Ok(Val::Memref(addr, out))
    }

    /// Copies every element of (`src`, `sm`) into (`dst`, `dm`): one `memcpy` when
    /// both are contiguous, else a loop nest.
    pub(super) fn copy(&mut self, src: Value, sm: &MemrefLayout, dst: Value, dm: &MemrefLayout) {
        if sm.is_contiguous() && dm.is_contiguous() {
            let bytes = sm.len() as i64 * i64::from(sm.element_bytes());
            let p = self.pointer();
            let size = self.b.ins().iconst(p, bytes);
            self.b.call_memcpy(self.shared.config, dst, src, size);
            return;
        }
        let shape = sm.shape.clone();
        let flags = MemFlagsData::trusted();
        self.nest(&shape, &mut |s, idx| {
            let a = s.offset_address(src, sm, idx);
            let v = s.b.ins().load(sm.element, flags, a, 0);
            let b = s.offset_address(dst, dm, idx);
            s.b.ins().store(flags, v, b, 0);
        });
    }

    pub(super) fn offset_address(&mut self, p: Value, m: &MemrefLayout, idx: &[Value]) -> Value {
        let mut addr = p;
        for (d, i) in idx.iter().enumerate() {
            let bytes = m.strides[d] as i64 * i64::from(m.element_bytes());
            let o = self.b.ins().imul_imm_s(*i, bytes);
            addr = self.b.ins().iadd(addr, o);
        }
        addr
    }

    /// A loop nest over `shape` (constant bounds, step 1) running `body` with the
    /// indices.
    pub(super) fn nest(&mut self, shape: &[usize], body: &mut dyn FnMut(&mut Self, &[Value])) {
        fn level<'a, 'b, 'm, M: Module>(
            s: &mut FnTranslator<'a, 'b, 'm, M>,
            shape: &[usize],
            idx: &mut Vec<Value>,
            body: &mut dyn FnMut(&mut FnTranslator<'a, 'b, 'm, M>, &[Value]),
        ) {
            let Some((&n, rest)) = shape.split_first() else {
                body(s, idx);
                return;
            };
            let lb = s.b.ins().iconst(types::I64, 0);
            let ub = s.b.ins().iconst(types::I64, n as i64);
            let (header, body_block, exit) = s.loop_blocks(&[]);
            s.b.ins().jump(header, &[lb.into()]);
            s.b.switch_to_block(header);
            let iv = s.b.block_params(header)[0];
            let c = s.b.ins().icmp(IntCC::SignedLessThan, iv, ub);
            s.b.ins().brif(c, body_block, &[], exit, &[]);
            s.b.switch_to_block(body_block);
            idx.push(iv);
            level(s, rest, idx, body);
            idx.pop();
            let next = s.b.ins().iadd_imm_s(iv, 1);
            s.b.ins().jump(header, &[next.into()]);
            s.b.switch_to_block(exit);
        }
        let mut idx = Vec::new();
        level(self, shape, &mut idx, body);
    }

    /// A loop's header (induction variable and carried values), body and exit blocks.
    pub(super) fn loop_blocks(&mut self, carried: &[Type]) -> (Block, Block, Block) {
        let header = self.b.create_block();
        self.b.append_block_param(header, types::I64);
        for t in carried {
            self.b.append_block_param(header, *t);
        }
        let body = self.b.create_block();
        let exit = self.b.create_block();
        for t in carried {
            self.b.append_block_param(exit, *t);
        }
        (header, body, exit)
    }

    /// Whether `iv + step` may pass i64::MAX in a loop up to `ub`: unless both are
    /// constants with `ub - 1 + step` in range.
    fn step_may_overflow(&self, ub: ValueId, step: ValueId) -> bool {
        let constant = |v| acc_dialects::build::constant_int(self.ctx, self.ir, self.body, v);
        match (constant(ub), constant(step)) {
            (Some(ub), Some(step)) => (ub as i128) - 1 + (step as i128) > i64::MAX as i128,
            _ => true,
        }
    }

    /// `loop.for`: the results are the exit block's parameters.
    pub(super) fn for_loop(
        &mut self,
        id: OpId,
        operands: &[ValueId],
    ) -> Result<Vec<Val>, CodegenError> {
        let op = self.ir.op(self.body, id);
        let (lb, ub, step) = (
            self.scalar(op, operands[0])?,
            self.scalar(op, operands[1])?,
            self.scalar(op, operands[2])?,
        );
        // A step that is not positive at run time (the verifier refuses a constant
        // one) runs no iteration instead of looping forever.
        let positive = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, step, 0);
        let ub = self.b.ins().select(positive, ub, lb);
        let inits: Vec<Val> = operands[3..]
            .iter()
            .map(|v| self.get(op, *v))
            .collect::<Result<_, _>>()?;
        let machine = |v: &Val| match v {
            Val::Scalar(x) | Val::Memref(x, _) => *x,
        };
        let types: Vec<Type> = inits
            .iter()
            .map(|v| self.b.func.dfg.value_type(machine(v)))
            .collect();
        let (header, body, exit) = self.loop_blocks(&types);
        let mut args: Vec<cranelift_codegen::ir::BlockArg> = vec![lb.into()];
        args.extend(
            inits
                .iter()
                .map(|v| cranelift_codegen::ir::BlockArg::from(machine(v))),
        );
        self.b.ins().jump(header, &args);
        self.b.switch_to_block(header);
        let ps = self.b.block_params(header).to_vec();
        let iv = ps[0];
        let carried: Vec<Val> = inits
            .iter()
            .zip(&ps[1..])
            .map(|(init, p)| match init {
                Val::Scalar(_) => Val::Scalar(*p),
                Val::Memref(_, m) => Val::Memref(*p, m.clone()),
            })
            .collect();
        let c = self.b.ins().icmp(IntCC::SignedLessThan, iv, ub);
        let carried_args: Vec<cranelift_codegen::ir::BlockArg> =
            ps[1..].iter().map(|v| (*v).into()).collect();
        self.b.ins().brif(c, body, &[], exit, &carried_args);
        self.b.switch_to_block(body);
        let mut region_args = vec![Val::Scalar(iv)];
        region_args.extend(carried.iter().cloned());
        let yielded = self.region(id, 0, &region_args)?;
        let next = self.b.ins().iadd(iv, step);
        let yielded: Vec<cranelift_codegen::ir::BlockArg> = yielded
            .iter()
            .map(|v| cranelift_codegen::ir::BlockArg::from(machine(v)))
            .collect();
        let mut back: Vec<cranelift_codegen::ir::BlockArg> = vec![next.into()];
        back.extend(yielded.iter().copied());
        if self.step_may_overflow(operands[1], operands[2]) {
            // The last iteration may be one whose next induction variable is past
            // i64::MAX: the loop ends there (as the interpreter's, which counts in
            // i128) instead of wrapping around to run forever.
            let room = self.b.ins().iconst(types::I64, i64::MAX);
            let room = self.b.ins().isub(room, step);
            let over = self.b.ins().icmp(IntCC::SignedGreaterThan, iv, room);
            self.b.ins().brif(over, exit, &yielded, header, &back);
        } else {
            self.b.ins().jump(header, &back);
        }
        self.b.switch_to_block(exit);
        let outs = self.b.block_params(exit).to_vec();
        Ok(carried
            .iter()
            .zip(outs)
            .map(|(c, v)| match c {
                Val::Scalar(_) => Val::Scalar(v),
                Val::Memref(_, m) => Val::Memref(v, m.clone()),
            })
            .collect())
    }

    /// `loop.parallel`: split among the runtime's threads when the target allows it
    /// and the nest qualifies ([`super::outline`]), else [`Self::nest`] here.
    pub(super) fn parallel(&mut self, id: OpId, operands: &[ValueId]) -> Result<(), CodegenError> {
        if self.shared.features.threaded_loops
            && !self.outlined_body
            && let Some(split) = super::outline::split(self.ctx, self.ir, self.body, id)
        {
            return self.parallel_on_threads(id, &split);
        }
        let op = self.ir.op(self.body, id);
        let n = operands.len() / 3;
        let bounds: Vec<(Value, Value, Value)> = (0..n)
            .map(|d| {
                Ok((
                    self.scalar(op, operands[d])?,
                    self.scalar(op, operands[n + d])?,
                    self.scalar(op, operands[2 * n + d])?,
                ))
            })
            .collect::<Result<_, CodegenError>>()?;
        self.parallel_nest(id, operands, &bounds, None)
    }

    /// The loops of `loop.parallel` `id` with the machine bounds `bounds` (lower,
    /// upper, step per dimension, outermost first), as loops on this thread. Each op
    /// of the body is translated in the outermost loop where its operands are known
    /// ([`super::hoist`]), so invariant loads and address arithmetic leave the inner
    /// loops. A nest walking whole contiguous buffers in order is one loop
    /// ([`super::flatten`]). `split`: the dimension whose bounds are a part's range
    /// in a nest split among threads.
    pub(super) fn parallel_nest(
        &mut self,
        id: OpId,
        operands: &[ValueId],
        bounds: &[(Value, Value, Value)],
        split: Option<usize>,
    ) -> Result<(), CodegenError> {
        let op = self.ir.op(self.body, id);
        let n = operands.len() / 3;
        let blk = op
            .regions()
            .first()
            .and_then(|r| self.ir.body(self.body).entry_block(*r))
            .ok_or_else(|| err(op, "has no region"))?;
        let params = self.ir.body(self.body).block_args(blk).to_vec();
        if params.len() != n {
            return Err(err(op, "its region takes a different number of arguments"));
        }
        let constant = |v: ValueId| super::hoist::constant_index(self.ctx, self.ir, self.body, v);
        let positive_step: Vec<bool> = (0..n)
            .map(|d| constant(operands[2 * n + d]).is_some_and(|s| s > 0))
            .collect();
        let runs = (0..n).all(|d| {
            matches!((constant(operands[d]), constant(operands[n + d])), (Some(l), Some(u)) if l < u)
                && positive_step[d]
        });
        let levels = super::hoist::levels(self.ctx, self.ir, self.body, blk, n, runs);
        if runs {
            let ops: Vec<OpId> = levels.iter().map(|(o, _)| *o).collect();
            if let Some(flat) = self.flat_accesses(operands, &params, &ops, split)? {
                let (lower, upper, _) = bounds[split.unwrap_or(0)];
                return self.flat_loop(id, flat, split, (lower, upper), &levels, n);
            }
        }
        let mut exits = Vec::new();
        let mut ended = None;
        for (d, (lb, ub, step)) in bounds.iter().enumerate() {
            // The innermost loop carries the addresses of its streams.
            let streams = if d + 1 == n && runs {
                self.streams_of(&levels, params[d], *lb, *step)?
            } else {
                Vec::new()
            };
            let carried = vec![self.pointer(); streams.len()];
            // A loop known to run (constant bounds; not a part's range) tests at its
            // end: one branch per iteration.
            let rotated = runs && split != Some(d);
            let starts: Vec<Value> = streams.iter().map(|s| s.start).collect();
            // A step not known positive (the verifier refuses a constant one that is
            // not) is tested: a non-positive one runs no iteration instead of forever
            // (the interpreter refuses it).
            let ub = if positive_step[d] {
                *ub
            } else {
                let positive = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, *step, 0);
                self.b.ins().select(positive, *ub, *lb)
            };
            let may_overflow = self.step_may_overflow(operands[n + d], operands[2 * n + d]);
            let (header, exit) = self.loop_start((*lb, ub), &starts, &carried, rotated);
            let header_params = self.b.block_params(header).to_vec();
            let iv = header_params[0];
            self.values.insert(params[d], Val::Scalar(iv));
            for (s, address) in streams.iter().zip(&header_params[1..]) {
                self.streams.insert(s.op, *address);
            }
            exits.push((
                header,
                exit,
                iv,
                (*step, ub, rotated, may_overflow),
                streams,
                header_params,
            ));
            for &(inner, level) in &levels {
                if level == d + 1 {
                    ended = self.op(inner)?;
                }
            }
        }
        if !matches!(ended, Some(super::Ended::Yield(_))) {
            return Err(err(op, "its region must end with a yield"));
        }
        for (header, exit, iv, (step, ub, rotated, may_overflow), streams, header_params) in
            exits.into_iter().rev()
        {
            let next = self.b.ins().iadd(iv, step);
            let mut back: Vec<BlockArg> = vec![next.into()];
            for (s, address) in streams.iter().zip(&header_params[1..]) {
                self.streams.remove(&s.op);
                back.push(self.b.ins().iadd(*address, s.advance).into());
            }
            if may_overflow {
                self.exit_before_overflow(exit, (iv, step), &back[1..]);
            }
            self.loop_end((header, exit), (next, ub), &back, rotated);
        }
        Ok(())
    }

    /// Starts a loop over `lower..upper` carrying addresses from `starts` (of types
    /// `carried`): its header (parameters: the induction variable, then the
    /// addresses), whose body is current once this returns, and its exit block. A
    /// `rotated` loop (known to run at least once) enters its body directly and
    /// [`Self::loop_end`] tests; else the header tests before each iteration.
    pub(super) fn loop_start(
        &mut self,
        (lower, upper): (Value, Value),
        starts: &[Value],
        carried: &[Type],
        rotated: bool,
    ) -> (Block, Block) {
        let mut entry: Vec<BlockArg> = vec![lower.into()];
        entry.extend(starts.iter().map(|s| BlockArg::from(*s)));
        let (header, body, exit) = self.loop_blocks(carried);
        self.b.ins().jump(header, &entry);
        self.b.switch_to_block(header);
        if rotated {
            // The body block is not used: an empty block is never laid out.
            return (header, exit);
        }
        let params = self.b.block_params(header).to_vec();
        let c = self.b.ins().icmp(IntCC::SignedLessThan, params[0], upper);
        let passed: Vec<BlockArg> = params[1..].iter().map(|v| (*v).into()).collect();
        self.b.ins().brif(c, body, &[], exit, &passed);
        self.b.switch_to_block(body);
        (header, exit)
    }

    /// Leaves for `exit` (passing `exit_args`) when the induction variable `iv` plus
    /// `step` would pass i64::MAX: the iteration just run was the last below the bound
    /// (as the interpreter's, which counts in i128), instead of a wrap-around that
    /// runs forever. The code after it continues the loop.
    fn exit_before_overflow(
        &mut self,
        exit: Block,
        (iv, step): (Value, Value),
        exit_args: &[BlockArg],
    ) {
        let room = self.b.ins().iconst(types::I64, i64::MAX);
        let room = self.b.ins().isub(room, step);
        let over = self.b.ins().icmp(IntCC::SignedGreaterThan, iv, room);
        let go_on = self.b.create_block();
        self.b.ins().brif(over, exit, exit_args, go_on, &[]);
        self.b.switch_to_block(go_on);
    }

    /// Ends a loop begun by [`Self::loop_start`]: `back` (the next induction
    /// variable `next`, then the next addresses) goes back to `header`;
    /// a `rotated` loop first tests `next` against `upper` (the exit taking the
    /// addresses). The exit block is current once this returns.
    pub(super) fn loop_end(
        &mut self,
        (header, exit): (Block, Block),
        (next, upper): (Value, Value),
        back: &[BlockArg],
        rotated: bool,
    ) {
        if rotated {
            let c = self.b.ins().icmp(IntCC::SignedLessThan, next, upper);
            self.b.ins().brif(c, header, back, exit, &back[1..]);
        } else {
            self.b.ins().jump(header, back);
        }
        self.b.switch_to_block(exit);
    }

    /// The loads and stores of an innermost loop (`level` n in `levels`) whose
    /// buffer and indices are known outside it, the induction variable `iv` being
    /// exactly one of the indices: each one's address at the first iteration (`lb`)
    /// and its advance per iteration (`step` times the dimension's stride).
    fn streams_of(
        &mut self,
        levels: &[(OpId, usize)],
        iv: ValueId,
        lb: Value,
        step: Value,
    ) -> Result<Vec<Stream>, CodegenError> {
        let n = levels.iter().map(|(_, l)| *l).max().unwrap_or(0);
        let mut streams = Vec::new();
        for &(id, level) in levels {
            let op = self.ir.op(self.body, id);
            let first_index = match loops::Op::of(self.ctx, op) {
                Some(loops::Op::Load | loops::Op::Vload) => 1,
                Some(loops::Op::Store | loops::Op::Vstore) => 2,
                _ => continue,
            };
            let operands: Vec<ValueId> = op.operands().collect();
            let memref = operands[first_index - 1];
            let indices = &operands[first_index..];
            let known = |v: &ValueId| self.values.contains_key(v) && *v != iv;
            let Some(k) = indices.iter().position(|v| *v == iv) else {
                continue;
            };
            let others_known = indices.iter().enumerate().all(|(d, v)| d == k || known(v));
            if level != n || !known(&memref) || !others_known {
                continue;
            }
            let (p, m) = self.memref(op, memref)?;
            if indices.len() != m.shape.len() {
                continue;
            }
            let bytes = m.strides[k] as i64 * i64::from(m.element_bytes());
            let mut start = p;
            for (d, v) in indices.iter().enumerate() {
                let i = if d == k { lb } else { self.scalar(op, *v)? };
                let bytes = m.strides[d] as i64 * i64::from(m.element_bytes());
                let offset = self.b.ins().imul_imm_s(i, bytes);
                start = self.b.ins().iadd(start, offset);
            }
            let advance = self.b.ins().imul_imm_s(step, bytes);
            streams.push(Stream {
                op: id,
                start,
                advance,
            });
        }
        Ok(streams)
    }

    /// The address of a read-only data object holding `op`'s `value`: one object
    /// per distinct value in the module.
    pub(super) fn constant_data(&mut self, op: OpRef<'_>) -> Result<Value, CodegenError> {
        let value = op
            .attr(self.ctx, loops::Constant::ATTR_VALUE)
            .ok_or_else(|| err(op, "a constant without a value"))?;
        let id = match self.shared.constants.get(&value) {
            Some(id) => *id,
            None => {
                let bytes = constant_bytes(self.ctx, value).map_err(|m| err(op, m))?;
                let module = &mut *self.shared.module;
                let id = module
                    .declare_anonymous_data(false, false)
                    .map_err(|e| err(op, format!("cannot declare the constant: {e}")))?;
                let mut data = cranelift_module::DataDescription::new();
                data.define(bytes.into_boxed_slice());
                data.set_align(64);
                module
                    .define_data(id, &data)
                    .map_err(|e| err(op, format!("cannot define the constant: {e}")))?;
                self.shared.constants.insert(value, id);
                id
            }
        };
        let gv = self.shared.module.declare_data_in_func(id, self.b.func);
        let p = self.pointer();
        Ok(self.b.ins().symbol_value(p, gv))
    }

    /// `hw.intrinsic "NAME"(operands)`: a call to the function NAME of the program
    /// (a library's: the host's GEMM, a vendor's HWlib), memrefs as pointers to their
    /// first element, scalars by value.
    pub(super) fn intrinsic(
        &mut self,
        op: OpRef<'_>,
        operands: &[ValueId],
        result_types: &[acc_ir::TypeId],
    ) -> Result<(), CodegenError> {
        if !result_types.is_empty() {
            return Err(err(
                op,
                "intrinsics with results have no code generation yet",
            ));
        }
        let callee = op
            .attr(self.ctx, hw::Intrinsic::ATTR_CALLEE)
            .and_then(|c| match self.ctx.attr_data(c) {
                acc_ir::AttrData::String { value, .. } => Some(self.ctx.str(*value).to_string()),
                _ => None,
            })
            .ok_or_else(|| err(op, "an intrinsic without a callee"))?;
        let mut args = Vec::new();
        let mut params = Vec::new();
        for v in operands {
            let (x, t) = match self.get(op, *v)? {
                Val::Scalar(x) => (x, self.b.func.dfg.value_type(x)),
                Val::Memref(p, _) => (p, self.pointer()),
            };
            args.push(x);
            params.push(t);
        }
        let f = self.runtime(op, &callee, &params, None)?;
        self.b.ins().call(f, &args);
        Ok(())
    }
}

/// The bytes of a constant as generated code lays them out ([`crate::types::encode`]).
/// Dense elements of whole bytes (not `i1`, whose bytes hold 0 or 1, nor widths like
/// `i4` that do not fill their bytes) are stored in that layout already and are copied
/// as they are, so weights skip the per-element decoding.
fn constant_bytes(ctx: &acc_ir::Context, value: acc_ir::AttrId) -> Result<Vec<u8>, String> {
    use acc_ir::elements::{self, ElementKind};
    if let Some(view) = elements::dense_view(ctx, value) {
        let whole_bytes = match view.kind {
            ElementKind::Int(w, _) => matches!(w, 8 | 16 | 32 | 64),
            ElementKind::Float(_) => true,
        };
        let n = elements::num_elements(ctx, view.ty);
        if let (true, Some(n)) = (whole_bytes, n) {
            let raw = view.raw_bytes();
            let what = acc_ir::printer::type_to_string(ctx, view.ty);
            acc_ir::budget::allocation(&what, n as u64, view.kind.bytes() as u64)?;
            return Ok(if view.splat {
                raw.repeat(n)
            } else {
                raw.to_vec()
            });
        }
    }
    let t = acc_interp::Tensor::from_attr(ctx, value)?;
    crate::types::encode(&t)
}

#[cfg(test)]
mod tests {
    use super::constant_bytes;
    use acc_ir::elements::{Scalar, dense_attr};
    use acc_ir::{Context, FloatKind, TypeData};

    /// Copied bytes equal the per-element encoding, for the formats copied as they are
    /// (splats expanded) and for those decoded (i1, i4).
    #[test]
    fn constant_bytes_agree_with_element_encoding() {
        let ctx = Context::new();
        let elements = [
            ctx.float_type(FloatKind::F32),
            ctx.float_type(FloatKind::F16),
            ctx.int_type(8),
            ctx.int_type(32),
            ctx.int_type(4),
            ctx.int_type(1),
        ];
        for element in elements {
            let ty = ctx.intern_type(TypeData::RankedTensor {
                shape: vec![2, 3].into(),
                element,
                encoding: None,
            });
            let is_float = matches!(ctx.type_data(element), TypeData::Float(_));
            let value = |i: i32| {
                if is_float {
                    Scalar::Float(f64::from(i) * -0.75)
                } else {
                    Scalar::Int(i128::from(i) * 3 - 7)
                }
            };
            let varied: Vec<Scalar> = (0..6).map(value).collect();
            for values in [varied, vec![value(5)]] {
                let attr = dense_attr(&ctx, ty, &values).unwrap();
                let t = acc_interp::Tensor::from_attr(&ctx, attr).unwrap();
                let want = crate::types::encode(&t).unwrap();
                assert_eq!(constant_bytes(&ctx, attr).unwrap(), want, "{values:?}");
            }
        }
    }

    /// A weight in a `dense_resource` blob (how imported models hold them) and an
    /// empty tensor.
    #[test]
    fn resource_and_empty_constants() {
        let mut ctx = Context::new();
        let data: Vec<u8> = [1.5f32, -2.0, 0.25]
            .iter()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        let builtin = ctx.sym("builtin");
        let key = ctx.sym("w");
        ctx.set_resource(
            builtin,
            key,
            acc_ir::ResourceValue::Blob {
                alignment: 4,
                data: data.clone().into(),
            },
        );
        let f32t = ctx.float_type(FloatKind::F32);
        let tensor = |n: i64| {
            ctx.intern_type(TypeData::RankedTensor {
                shape: vec![n].into(),
                element: f32t,
                encoding: None,
            })
        };
        let blob = ctx.intern_attr(acc_ir::AttrData::DenseResource {
            ty: tensor(3),
            handle: key,
        });
        assert_eq!(constant_bytes(&ctx, blob).unwrap(), data);
        let empty = dense_attr(&ctx, tensor(0), &[]).unwrap();
        assert_eq!(constant_bytes(&ctx, empty).unwrap(), Vec::<u8>::new());
    }
}
