//! Calls of intrinsics that read a local memory (`memory NAME` in the target file):
//! their buffers are copied there by the target's DMA engine before the call and
//! their results back after it.
//!
//! Invariants:
//! - A local copy in [`StagingState::copies`] holds its source's final contents: the
//!   source is a constant, a function argument, or a buffer the state saw written
//!   (a call's result); and only calls staging into the same memory, ops making
//!   constants or views, and the transposing copies those calls' layouts need (which
//!   write new host buffers only) have run since. Any other op resets the state,
//!   except calls of intrinsics without a memory, which write new host buffers only.
//! - An input copy is started before the previous call (prefetched, so the engine
//!   fills it while the device computes) only when its source's contents are final
//!   there (a constant, a function argument, a view of one, or a buffer all of whose
//!   uses come before), and when the local buffers alive during the previous call
//!   plus this call's new ones fit the memory.
//! - A result is copied back unless every user is a following call in the same
//!   memory, reading it in the layout it is in, with nothing else between.

use acc_ir::{OpId, TypeId, ValueDef, ValueId};
use rustc_hash::FxHashMap;

use crate::Bufferizer;
use acc_dialects::hooks::hw::{ALIGNMENT, stored_bytes};
use acc_dialects::ops::{arith, hw, loops, tensor};
use acc_target::BufferLayout;
use acc_target::placement::placement;

/// Where a call's buffers go: the intrinsic's memory and the DMA engine filling it.
pub(crate) struct Staging {
    pub intrinsic: String,
    pub memory: String,
    pub size: u64,
    pub start: String,
    pub wait: String,
    /// The headers declaring the DMA functions (the target's).
    pub headers: Vec<String>,
}

impl Staging {
    pub(crate) fn new(
        target: &acc_target::Target,
        memory: &str,
        intrinsic: &str,
    ) -> Result<Staging, String> {
        let host = target.host_memory().ok_or_else(|| {
            format!("'{intrinsic}' reads memory '{memory}', but the target has no host memory")
        })?;
        let dma = target.dma_between(&host.name, memory).ok_or_else(|| {
            format!(
                "'{intrinsic}' reads memory '{memory}', but no dma copies between '{}' and it",
                host.name
            )
        })?;
        Ok(Staging {
            intrinsic: intrinsic.to_string(),
            memory: memory.to_string(),
            size: target.memory(memory).map_or(0, |m| m.size),
            start: dma.start.clone(),
            wait: dma.wait.clone(),
            headers: target.headers.clone(),
        })
    }
}

/// What consecutive staged calls share (see the module's invariants).
#[derive(Default)]
pub(crate) struct StagingState {
    /// The memory the copies are in.
    memory: Option<String>,
    /// A buffer of the host's memory to its copy in `memory`.
    copies: FxHashMap<ValueId, ValueId>,
    /// Local copies of results that were not copied back: alive until read.
    retained: Vec<ValueId>,
    /// The last staged call and the local buffers it used.
    previous: Option<(OpId, Vec<ValueId>)>,
}

impl StagingState {
    /// Forgets everything: an op other than a staged call ran.
    pub(crate) fn reset(&mut self) {
        *self = StagingState::default();
    }
}

/// A call's staged arguments and the copies its results need.
pub(crate) struct Staged {
    /// The arguments to call with.
    pub args: Vec<ValueId>,
    /// Each result's local buffer and its buffer in the host's memory.
    pub results: Vec<(ValueId, ValueId)>,
    /// Every local buffer the call uses.
    pub locals: Vec<ValueId>,
}

/// Ops between calls that leave staged copies valid: they only make constants and
/// views.
pub(crate) fn keeps_staged(name: &str) -> bool {
    matches!(arith::Op::from_name(name), Some(arith::Op::Constant))
        || matches!(
            tensor::Op::from_name(name),
            Some(tensor::Op::Bitcast | tensor::Op::Empty)
        )
}

impl Bufferizer<'_> {
    fn token_type(&self) -> TypeId {
        acc_dialects::hooks::hw::token_type(self.ctx)
    }

    /// The bytes a buffer takes in a planned memory (64-byte aligned), 0 when it is
    /// not a buffer.
    fn local_bytes(&self, v: ValueId) -> u64 {
        let ty = self.ir.body(self.body).value_type(v);
        stored_bytes(self.ctx, ty).map_or(0, |(b, _)| b.div_ceil(ALIGNMENT).max(1) * ALIGNMENT)
    }

    /// Copies the call's buffer arguments into `st`'s memory and waits for them
    /// before `op`; `outputs` are the positions of its results, which get local
    /// buffers.
    pub(crate) fn stage(
        &mut self,
        op: OpId,
        st: &Staging,
        args: &[ValueId],
        outputs: &[i64],
    ) -> Result<Staged, String> {
        if self.staging.memory.as_deref() != Some(st.memory.as_str()) {
            self.staging.reset();
            self.staging.memory = Some(st.memory.clone());
        }
        let prefetch = self.prefetch_point(st, args, outputs);
        let token_type = self.token_type();
        let call = self.ctx.string_attr(&st.start);
        let mut staged = Staged {
            args: Vec::with_capacity(args.len()),
            results: Vec::new(),
            locals: Vec::new(),
        };
        let mut tokens = Vec::new();
        for (at, arg) in args.iter().enumerate() {
            let ty = self.ir.body(self.body).value_type(*arg);
            let acc_ir::TypeData::MemRef {
                shape,
                element,
                layout,
                ..
            } = self.ctx.type_data(ty)
            else {
                staged.args.push(*arg);
                continue;
            };
            if layout.is_some() {
                return Err(format!(
                    "'{}' reads memory '{}', but an argument is a strided view, which one DMA copy cannot stage",
                    st.intrinsic, st.memory
                ));
            }
            let local_type = self.ctx.intern_type(acc_ir::TypeData::MemRef {
                shape: shape.clone(),
                element: *element,
                layout: None,
                memory_space: Some(self.ctx.string_attr(&st.memory)),
            });
            let local = if outputs.contains(&(at as i64)) {
                let local = loops::Alloc::build(&mut self.emitter(op), &[], local_type).result()?;
                staged.results.push((local, *arg));
                local
            } else if let Some(local) = self.staging.copies.get(arg).copied() {
                self.staging.retained.retain(|r| *r != local);
                local
            } else {
                let at_op = match prefetch {
                    Some(prev) if self.hoist_before(*arg, prev) => prev,
                    _ => op,
                };
                let mut e = self.emitter(at_op);
                let local = loops::Alloc::build(&mut e, &[], local_type).result()?;
                let token = hw::DmaStart::build(&mut e, *arg, local, token_type)
                    .call(call)
                    .result()?;
                self.mark_library_call(token, &st.headers)?;
                tokens.push(token);
                self.staging.copies.insert(*arg, local);
                local
            };
            staged.args.push(local);
            staged.locals.push(local);
        }
        self.wait_for(op, &tokens, st)?;
        Ok(staged)
    }

    /// The previous call, when this call's new local buffers fit beside the ones
    /// alive during it (its own and the retained results): its inputs may then be
    /// copied in during that call.
    fn prefetch_point(&self, st: &Staging, args: &[ValueId], outputs: &[i64]) -> Option<OpId> {
        let (prev, prev_locals) = self.staging.previous.as_ref()?;
        let mut alive: Vec<ValueId> = prev_locals.clone();
        alive.extend(self.staging.retained.iter().copied());
        alive.sort_unstable();
        alive.dedup();
        let before: u64 = alive.iter().map(|v| self.local_bytes(*v)).sum();
        let new: u64 = args
            .iter()
            .enumerate()
            .filter(|(at, a)| {
                outputs.contains(&(*at as i64)) || !self.staging.copies.contains_key(a)
            })
            .map(|(_, a)| self.local_bytes(*a))
            .sum();
        (before + new <= st.size).then_some(*prev)
    }

    /// After the call `call` (whose op `op` is being replaced), before `next`: copies
    /// back each result (`results`: local buffer, result value, its buffer in the
    /// host's memory) that something other than the following calls in the same
    /// memory reads, and waits for them. The others stay in the local memory for
    /// those calls. `layouts` gives the layout each result's buffer has.
    pub(crate) fn settle_staged_results(
        &mut self,
        op: OpId,
        call: OpId,
        next: OpId,
        st: &Staging,
        staged: Staged,
        results: &[(ValueId, Option<BufferLayout>)],
    ) -> Result<(), String> {
        let token_type = self.token_type();
        let start = self.ctx.string_attr(&st.start);
        let mut tokens = Vec::new();
        for ((local, home), (value, layout)) in staged.results.iter().zip(results) {
            self.staging.copies.insert(*home, *local);
            if self.read_only_by_calls_in(op, *value, &st.memory, layout.as_ref()) {
                self.staging.retained.push(*local);
                continue;
            }
            let token = hw::DmaStart::build(&mut self.emitter(next), *local, *home, token_type)
                .call(start)
                .result()?;
            self.mark_library_call(token, &st.headers)?;
            tokens.push(token);
        }
        self.wait_for(next, &tokens, st)?;
        self.staging.previous = Some((call, staged.locals));
        Ok(())
    }

    /// A wait for the transfers `tokens` before `at` (nothing for none), by the
    /// engine of `st`.
    fn wait_for(&mut self, at: OpId, tokens: &[ValueId], st: &Staging) -> Result<(), String> {
        if tokens.is_empty() {
            return Ok(());
        }
        let wait = self.ctx.string_attr(&st.wait);
        let waited = hw::DmaWait::build(&mut self.emitter(at), tokens)
            .call(wait)
            .create()?;
        acc_dialects::hooks::hw::set_headers(self.ctx, self.ir, self.body, waited, &st.headers)
    }

    /// Marks the op defining `token` (a DMA start) as a call of a function `headers`
    /// declare.
    fn mark_library_call(&mut self, token: ValueId, headers: &[String]) -> Result<(), String> {
        if let ValueDef::Result(op, _) = self.ir.body(self.body).value(token).def {
            acc_dialects::hooks::hw::set_headers(self.ctx, self.ir, self.body, op, headers)?;
        }
        Ok(())
    }

    /// Whether every user of `v` (a result of `op`, its buffer in `layout`) is a call
    /// reading `memory`, reading `v` in that layout, and following `op` with only
    /// staged calls and ops that keep copies between.
    fn read_only_by_calls_in(
        &self,
        op: OpId,
        v: ValueId,
        memory: &str,
        layout: Option<&BufferLayout>,
    ) -> bool {
        let b = self.ir.body(self.body);
        let mut users: Vec<OpId> = b.value_users(v).collect();
        users.sort_unstable();
        users.dedup();
        let in_memory = |u: OpId| {
            self.intrinsic_of(u)
                .is_some_and(|i| i.memory.as_deref() == Some(memory))
        };
        let reads_here = |u: OpId| {
            in_memory(u)
                && self.intrinsic_of(u).is_some_and(|i| {
                    self.place(i, u)
                        .is_ok_and(|p| self.reads_in_layout(u, &p, v, layout))
                })
        };
        if users.is_empty() || !users.iter().all(|u| reads_here(*u)) {
            return false;
        }
        // Between: only calls staging into the same memory (another memory's would
        // reset the state) and ops that keep copies.
        let mut pending = users.len();
        let mut at = b.next_op(op);
        while let Some(o) = at {
            if users.contains(&o) {
                pending -= 1;
                if pending == 0 {
                    return true;
                }
            } else if !in_memory(o) && !keeps_staged(self.ctx.op_name_str(b.op(o).name)) {
                return false;
            }
            at = b.next_op(o);
        }
        false
    }

    /// Whether the contents of buffer `v` are final before `op` (a function
    /// argument, a constant or a view of one, moving its defining ops there when they
    /// come after it; or a buffer every use of which comes before `op`).
    fn hoist_before(&mut self, v: ValueId, op: OpId) -> bool {
        let b = self.ir.body(self.body);
        let def = match b.value(v).def {
            ValueDef::Result(def, _) => def,
            _ => return true,
        };
        if b.op_block(def) != b.op_block(op) {
            return false;
        }
        let movable = match loops::Op::of(self.ctx, self.ir.op(self.body, def)) {
            Some(loops::Op::Constant) => b.operands(def).len() == 0,
            Some(loops::Op::Reshape) => {
                let source = b.operand(def, 0);
                self.hoist_before(source, op)
            }
            // A buffer whose every use (its writers) is done before `op`.
            Some(loops::Op::Alloc) => {
                return b.is_before_in_block(def, op)
                    && b.value_users(v).all(|u| {
                        self.top_level_op(u, op)
                            .is_some_and(|t| b.is_before_in_block(t, op))
                    });
            }
            _ => false,
        };
        if movable && !self.ir.body(self.body).is_before_in_block(def, op) {
            self.ir.body_mut(self.body).move_op_before(def, op);
        }
        movable
    }

    /// The op of `anchor`'s block containing `op` (itself when it is in that block).
    fn top_level_op(&self, mut op: OpId, anchor: OpId) -> Option<OpId> {
        let b = self.ir.body(self.body);
        let block = b.op_block(anchor)?;
        loop {
            if b.op_block(op) == Some(block) {
                return Some(op);
            }
            let parent = self.ir.op(self.body, op).parent_op()?;
            if parent.body != self.body {
                return None;
            }
            op = parent.op;
        }
    }

    /// The intrinsic `op` is placed on, if any.
    pub(crate) fn intrinsic_of(&self, op: OpId) -> Option<&acc_target::Intrinsic> {
        let (device, name) = placement(self.ctx, self.ir, self.body, op)?;
        Some(self.targets.intrinsic(&device, &name)?.1)
    }
}

impl Bufferizer<'_> {
    /// Whether the call `p` of `user` reads `v` in `layout`: the layout it declares
    /// for `v`; for `v` in a `like` pair, its partner's declared layout, or any
    /// transposition when the partner is an undeclared result of the call (it
    /// follows `v`); for a `like` pair of two operands, the layout [`Self::call_layouts`]
    /// will choose, its partner's written layout predicted from the intrinsic
    /// computing it ([`Self::written_layout`]); else plain.
    pub(crate) fn reads_in_layout(
        &self,
        user: OpId,
        p: &acc_target::Placement,
        v: ValueId,
        layout: Option<&BufferLayout>,
    ) -> bool {
        let declared = |x: ValueId| p.layouts.iter().find(|(y, _)| *y == x).map(|(_, l)| l);
        if let Some(declared) = declared(v) {
            return layout == Some(declared);
        }
        let partner = p.layouts_like.iter().find_map(|(a, b)| {
            if *a == v {
                Some(*b)
            } else if *b == v {
                Some(*a)
            } else {
                None
            }
        });
        let Some(partner) = partner else {
            return layout.is_none();
        };
        if let Some(declared) = declared(partner) {
            return layout == Some(declared);
        }
        if self.ir.body(self.body).results(user).any(|r| r == partner) {
            // Any transposition; not blocks (`call_layouts`).
            return layout.is_none_or(|l| l.block.is_none());
        }
        // Two operands alike: the call takes the layout of the first of the pair's
        // second and first values whose producer writes one (`call_layouts`).
        let pair = p
            .layouts_like
            .iter()
            .find(|(a, b)| *a == v || *b == v)
            .copied();
        let Some((a, b)) = pair else {
            return false;
        };
        let chosen = [b, a].into_iter().find_map(|x| {
            if x == v {
                layout.cloned()
            } else {
                self.written_layout(x)
            }
        });
        layout.cloned() == chosen
    }

    /// The transposition the buffer of `v` is written in (what a `like` pair may
    /// take): the one its producer wrote, or, before that, the one the intrinsic
    /// computing it declares.
    fn written_layout(&self, v: ValueId) -> Option<BufferLayout> {
        let transposition = |l: &BufferLayout| l.block.is_none();
        if let Some((_, layout)) = self.permuted.get(&v) {
            return Some(layout.clone()).filter(transposition);
        }
        let acc_ir::ValueDef::Result(producer, _) = self.ir.body(self.body).value(v).def else {
            return None;
        };
        let intrinsic = self.intrinsic_of(producer)?;
        let placement = self.place(intrinsic, producer).ok()?;
        placement
            .layouts
            .iter()
            .find(|(x, _)| *x == v)
            .map(|(_, layout)| layout.clone())
            .filter(transposition)
    }
}
