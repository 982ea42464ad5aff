//! Ops `partition` placed on a device: each becomes the call of its intrinsic.
//!
//! The target file's `call(...)` list gives the arguments: a matched operand is its
//! buffer, a result a new buffer, an integer an `i32` constant, a table or packed
//! bytes a constant buffer. The `hw.intrinsic` keeps the op itself, on tensors, as
//! its `semantics` region (`inputs` and `outputs` say which arguments the region
//! reads and which it writes; an operand the call receives packed is a constant the
//! region makes itself), so the interpreter runs exactly what the op computed and
//! `--check-semantics` compares the call with the op it replaces.

use acc_ir::clone::{ValueMap, clone_op};
use acc_ir::elements::{self, Scalar};
use acc_ir::target::CallArg;
use acc_ir::{OpId, ValueId};

use super::layouts::{inverse, permuted_shape};
use super::{Bufferizer, buffer_type};
use crate::emit::{i64s, memref_type, shape_of, tensor_type};
use crate::partition::{DEVICE_ATTR, INTRINSIC_ATTR, placement};
use acc_dialects::hooks::stored::constant_chain;

impl Bufferizer<'_> {
    /// Whether `op` was placed on a device by `partition`.
    pub(super) fn is_placed(&self, op: OpId) -> bool {
        placement(self.ctx, self.ir, self.body, op).is_some()
    }

    /// A `loop.constant` buffer of `values` (of `element`), before `op`.
    fn constant_buffer(
        &mut self,
        op: OpId,
        element: acc_ir::TypeId,
        values: &[Scalar],
    ) -> Result<ValueId, String> {
        let n = values.len() as i64;
        let dense = elements::dense_attr(self.ctx, tensor_type(self.ctx, &[n], element), values)
            .ok_or("cannot build a constant argument")?;
        let ty = memref_type(self.ctx, &[n], element);
        self.emitter(op)
            .op1("loop.constant", &[], ty, &[("value", dense)])
    }

    /// Replaces the placed `op` by its intrinsic's call; the buffers of its results.
    pub(super) fn placed(&mut self, op: OpId) -> Result<(), String> {
        let (_, name) = placement(self.ctx, self.ir, self.body, op).ok_or("not placed")?;
        let target = self
            .ctx
            .active_target()
            .ok_or("it is placed on a device, but no target is given (--target FILE)")?;
        let intrinsic = target
            .intrinsics
            .iter()
            .find(|i| i.name == name)
            .ok_or_else(|| format!("target '{}' has no intrinsic '{name}'", target.name))?;
        let placement = intrinsic
            .rule
            .place(self.ctx, self.ir, self.body, op)
            .map_err(|why| format!("intrinsic '{name}' no longer applies: {why}"))?;
        // The layouts of the call's buffers: those the target declares, and for
        // `like` pairs the layout the operand's producer wrote it in.
        let mut layouts = placement.layouts.clone();
        for (a, b) in &placement.layouts_like {
            for (from, to) in [(*b, *a), (*a, *b)] {
                if let Some((_, perm)) = self.permuted.get(&from) {
                    layouts.push((from, perm.clone()));
                    layouts.push((to, perm.clone()));
                    break;
                }
            }
        }
        let layout_of = |v: ValueId| {
            layouts
                .iter()
                .find(|(x, _)| *x == v)
                .map(|(_, p)| p.clone())
        };
        // What follows the op: copies back and plain buffers go before it.
        let next = self
            .ir
            .body(self.body)
            .next_op(op)
            .ok_or("a placed op ends its block")?;
        let r = self.ir.op(self.body, op);
        let loc = r.loc();
        let operands: Vec<ValueId> = r.operands().collect();
        let results: Vec<ValueId> = r.results().collect();
        let (mut args, mut inputs, mut outputs) = (Vec::new(), Vec::new(), Vec::new());
        let i32_type = self.ctx.int_type(32);
        let f32_type = self.ctx.float_type(acc_ir::FloatKind::F32);
        for arg in &placement.call {
            let at = args.len() as i64;
            let value = match arg {
                CallArg::Value(v) => {
                    let layout = layout_of(*v);
                    if let Some(k) = operands.iter().position(|o| o == v) {
                        inputs.push((k, at));
                        match &layout {
                            Some(perm) => self.input_in_layout(op, *v, perm)?,
                            None => self.buffer(loc, *v).map_err(|d| d.message)?,
                        }
                    } else if let Some(k) = results.iter().position(|o| o == v) {
                        let ty = self.ir.body(self.body).value_type(*v);
                        let (shape, element) = shape_of(self.ctx, ty)?;
                        let ty = match &layout {
                            Some(perm) => {
                                memref_type(self.ctx, &permuted_shape(&shape, perm), element)
                            }
                            None => buffer_type(self.ctx, ty),
                        };
                        let buffer = self.emitter(op).op1("loop.alloc", &[], ty, &[])?;
                        match layout {
                            Some(perm) => {
                                self.permuted.insert(results[k], (buffer, perm));
                            }
                            None => {
                                self.buffers.insert(results[k], buffer);
                            }
                        }
                        outputs.push((k, at));
                        buffer
                    } else {
                        return Err(format!(
                            "the call of '{name}' passes a value that is neither an operand nor a result of the op"
                        ));
                    }
                }
                CallArg::Int(i) => self.emitter(op).scalar(i32_type, *i as f64)?,
                CallArg::F32Table(t) => {
                    let values: Vec<Scalar> =
                        t.iter().map(|x| Scalar::Float(f64::from(*x))).collect();
                    self.constant_buffer(op, f32_type, &values)?
                }
                CallArg::Bytes(bytes) => {
                    let values: Vec<Scalar> = bytes
                        .iter()
                        .map(|b| Scalar::Int(i128::from(*b as i8)))
                        .collect();
                    self.constant_buffer(op, self.ctx.int_type(8), &values)?
                }
            };
            args.push(value);
        }
        // The region reads the operands passed as buffers in order (those passed in a
        // compile-time form are constants it makes itself) and yields the results in
        // order: each must be passed exactly once.
        inputs.sort();
        outputs.sort();
        let by_buffer: Vec<usize> = (0..operands.len())
            .filter(|k| !placement.compile_time.contains(&operands[*k]))
            .collect();
        let mut constants = Vec::new();
        for v in &placement.compile_time {
            let chain = constant_chain(self.ctx, self.ir, self.body, *v).ok_or_else(|| {
                format!("the call of '{name}' packs a value that is not a constant")
            })?;
            constants.push((*v, chain));
        }
        let each_once = |passed: &[(usize, i64)], want: &[usize]| {
            passed.iter().map(|p| p.0).eq(want.iter().copied())
        };
        let all_results: Vec<usize> = (0..results.len()).collect();
        if !each_once(&inputs, &by_buffer) || !each_once(&outputs, &all_results) {
            return Err(format!(
                "the call of '{name}' must pass every operand (as its buffer or packed) and result of the op once"
            ));
        }
        // The region works on tensors (a function's arguments are memrefs by now),
        // in the layouts the call passes them.
        let arg_types = by_buffer
            .iter()
            .map(|k| {
                let (shape, element) =
                    shape_of(self.ctx, self.ir.body(self.body).value_type(operands[*k]))?;
                let shape = match layout_of(operands[*k]) {
                    Some(perm) => permuted_shape(&shape, &perm),
                    None => shape,
                };
                Ok(tensor_type(self.ctx, &shape, element))
            })
            .collect::<Result<Vec<_>, String>>()?;
        let operand_layouts: Vec<Option<Vec<i64>>> =
            operands.iter().map(|v| layout_of(*v)).collect();
        let result_layouts: Vec<Option<Vec<i64>>> = results.iter().map(|v| layout_of(*v)).collect();
        let staging = match &intrinsic.memory {
            Some(memory) => Some(Staging::new(target, memory, &name)?),
            None => None,
        };
        let mut finals = Vec::new();
        if let Some(st) = &staging {
            let outputs_at: Vec<i64> = outputs.iter().map(|p| p.1).collect();
            let (staged, out_copies) = self.stage(op, st, &args, &outputs_at)?;
            args = staged;
            finals = out_copies;
        }
        let body = self.body;
        let props = [
            ("callee", self.ctx.string_attr(&name)),
            (
                "inputs",
                i64s(self.ctx, &inputs.iter().map(|p| p.1).collect::<Vec<_>>()),
            ),
            (
                "outputs",
                i64s(self.ctx, &outputs.iter().map(|p| p.1).collect::<Vec<_>>()),
            ),
        ];
        let ctx = self.ctx;
        self.emitter(op).op_with_region(
            "hw.intrinsic",
            &args,
            &[],
            &props,
            &arg_types,
            "hw.yield",
            &mut |e, block_args| {
                let mut map = ValueMap::default();
                for (k, a) in by_buffer.iter().zip(block_args) {
                    // An argument in another layout is transposed back first.
                    let value = match &operand_layouts[*k] {
                        Some(perm) => transpose(e, *a, &inverse(perm))?,
                        None => *a,
                    };
                    map.values.insert(operands[*k], value);
                }
                for (_, chain) in &constants {
                    for c in chain {
                        clone_op(e.ir, body, *c, body, e.point, &mut map);
                    }
                }
                let copy = clone_op(e.ir, body, op, body, e.point, &mut map);
                // The copy states what the call computes; it is placed nowhere.
                let attrs = e.ir.body(body).op(copy).attrs;
                let kept: Vec<_> = ctx
                    .dict_entries(attrs)
                    .iter()
                    .filter(|(k, _)| ![DEVICE_ATTR, INTRINSIC_ATTR].contains(&ctx.str(*k)))
                    .copied()
                    .collect();
                e.ir.body_mut(body).op_mut(copy).attrs =
                    ctx.dict_attr(kept).map_err(|_| "duplicate attributes")?;
                let computed: Vec<ValueId> = e.ir.body(body).results(copy).collect();
                computed
                    .iter()
                    .zip(&result_layouts)
                    .map(|(v, layout)| match layout {
                        Some(perm) => transpose(e, *v, perm),
                        None => Ok(*v),
                    })
                    .collect()
            },
        )?;
        if let Some(st) = &staging {
            // A result read only by the next calls in the same memory stays there.
            let mut copies = Vec::new();
            for (local, home) in finals {
                let result = results.iter().copied().find(|r| {
                    self.buffers.get(r) == Some(&home)
                        || self.permuted.get(r).is_some_and(|(b, _)| *b == home)
                });
                let plain_needed = result.is_some_and(|r| match &layout_of(r) {
                    Some(perm) => !self.users_agree(r, perm),
                    None => false,
                });
                let local_only =
                    result.is_some_and(|r| self.read_only_by_calls_in(op, r, &st.memory));
                if local_only && !plain_needed {
                    self.staged.insert(home, local);
                } else {
                    copies.push((local, home));
                }
            }
            self.copy_out(next, st, &copies)?;
            // The call was inserted just before the op.
            self.last_staged_call = self
                .ir
                .body(self.body)
                .prev_op(op)
                .map(|call| (call, self.last_staged_bytes));
        }
        // A result in another layout gets its plain buffer after the call (and after
        // its copy back) when some user reads it plain.
        for (v, layout) in results.iter().zip(&result_layouts) {
            let Some(perm) = layout else {
                continue;
            };
            if self.users_agree(*v, perm) {
                continue;
            }
            let (buffer, _) = self.permuted[v].clone();
            let plain = self.permuted_copy(next, buffer, &inverse(perm))?;
            self.buffers.insert(*v, plain);
        }
        Ok(())
    }

    /// Copies the call's buffer arguments into `st`'s memory, each with a DMA started
    /// as early as its source allows (before the previous staged call, when its source
    /// exists there: the copy overlaps that call, double-buffering), and waits for them
    /// before `op`. A source staged already (a tile's shared input) is reused. Gives
    /// the arguments to call with, and for each output (at `outputs` positions) its
    /// local buffer and the buffer it goes back to.
    fn stage(
        &mut self,
        op: OpId,
        st: &Staging,
        args: &[ValueId],
        outputs: &[i64],
    ) -> Result<(Vec<ValueId>, Vec<(ValueId, ValueId)>), String> {
        // Prefetching keeps this call's buffers alive during the previous call: only
        // when both calls' buffers fit in the memory together.
        let bytes: u64 = args
            .iter()
            .filter_map(|a| local_bytes(self.ctx, self.ir.body(self.body).value_type(*a)))
            .sum();
        let prefetch = match self.last_staged_call {
            Some((prev, prev_bytes)) if prev_bytes + bytes <= st.size => Some(prev),
            _ => None,
        };
        let mut staged = Vec::with_capacity(args.len());
        let mut tokens = Vec::new();
        let mut out_copies = Vec::new();
        let token_type = self.ctx.intern_type(acc_ir::TypeData::Declared {
            dialect: self.ctx.sym("hw"),
            name: self.ctx.sym("token"),
            params: Box::new([]),
        });
        for (at, arg) in args.iter().enumerate() {
            let ty = self.ir.body(self.body).value_type(*arg);
            let acc_ir::TypeData::MemRef {
                shape,
                element,
                layout,
                ..
            } = self.ctx.type_data(ty)
            else {
                staged.push(*arg);
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
            if outputs.contains(&(at as i64)) {
                let local = self.emitter(op).op1("loop.alloc", &[], local_type, &[])?;
                out_copies.push((local, *arg));
                staged.push(local);
                continue;
            }
            if let Some(local) = self.staged.get(arg) {
                staged.push(*local);
                continue;
            }
            // Early when the source exists before the previous staged call.
            let at_op = match prefetch {
                Some(prev) if self.available_before(*arg, prev) => prev,
                _ => op,
            };
            let call = self.ctx.string_attr(&st.start);
            let mut e = self.emitter(at_op);
            let local = e.op1("loop.alloc", &[], local_type, &[])?;
            let token = e.op1(
                "hw.dma_start",
                &[*arg, local],
                token_type,
                &[("call", call)],
            )?;
            tokens.push(token);
            self.staged.insert(*arg, local);
            staged.push(local);
        }
        if !tokens.is_empty() {
            let wait = self.ctx.string_attr(&st.wait);
            self.emitter(op)
                .op("hw.dma_wait", &tokens, &[], &[("call", wait)])?;
        }
        self.last_staged_bytes = bytes;
        Ok((staged, out_copies))
    }

    /// After the call, before `next`: copies each output's local buffer back and
    /// waits for it.
    fn copy_out(
        &mut self,
        next: OpId,
        st: &Staging,
        copies: &[(ValueId, ValueId)],
    ) -> Result<(), String> {
        let token_type = self.ctx.intern_type(acc_ir::TypeData::Declared {
            dialect: self.ctx.sym("hw"),
            name: self.ctx.sym("token"),
            params: Box::new([]),
        });
        let (call, wait) = (
            self.ctx.string_attr(&st.start),
            self.ctx.string_attr(&st.wait),
        );
        let mut tokens = Vec::new();
        for (local, home) in copies {
            let mut e = self.emitter(next);
            tokens.push(e.op1(
                "hw.dma_start",
                &[*local, *home],
                token_type,
                &[("call", call)],
            )?);
        }
        // A following call reading a result reads the local copy.
        for (local, home) in copies {
            self.staged.insert(*home, *local);
        }
        if !tokens.is_empty() {
            self.emitter(next)
                .op("hw.dma_wait", &tokens, &[], &[("call", wait)])?;
        }
        Ok(())
    }

    /// Whether every user of `v` (a result of `op`) is a call reading `memory` that
    /// follows `op` with only placed ops and constants between: those calls read
    /// the local copy, so nothing needs `v` in the host's memory.
    fn read_only_by_calls_in(&self, op: OpId, v: ValueId, memory: &str) -> bool {
        let Some(target) = self.ctx.active_target() else {
            return false;
        };
        let b = self.ir.body(self.body);
        let users: Vec<OpId> = b.value_users(v).collect();
        let staged_in_memory = |u: OpId| {
            placement(self.ctx, self.ir, self.body, u).is_some_and(|(_, name)| {
                target
                    .intrinsics
                    .iter()
                    .any(|i| i.name == name && i.memory.as_deref() == Some(memory))
            })
        };
        if users.is_empty() || !users.iter().all(|u| staged_in_memory(*u)) {
            return false;
        }
        let mut pending = users.len();
        let mut at = b.next_op(op);
        while let Some(o) = at {
            if users.contains(&o) {
                pending -= 1;
                if pending == 0 {
                    return true;
                }
            } else if !self.is_placed(o) && !keeps_staged(self.ctx.op_name_str(b.op(o).name)) {
                return false;
            }
            at = b.next_op(o);
        }
        false
    }

    /// Whether `v` is available before `op` (of the same block): an argument, defined
    /// before it, or a constant buffer (and views of one) that can move there, which
    /// it then does.
    fn available_before(&mut self, v: ValueId, op: OpId) -> bool {
        let b = self.ir.body(self.body);
        let acc_ir::ValueDef::Result(def, _) = b.value(v).def else {
            return true;
        };
        if b.is_before_in_block(def, op) {
            return true;
        }
        let movable = match self.ctx.op_name_str(b.op(def).name) {
            "loop.constant" => b.operands(def).len() == 0,
            "loop.reshape" => {
                let source = b.operand(def, 0);
                self.available_before(source, op)
            }
            _ => false,
        };
        if movable {
            self.ir.body_mut(self.body).move_op_before(def, op);
        }
        movable
    }
}

/// How a call's buffers reach the memory its intrinsic reads: that memory and the
/// DMA engine copying to it from the host's.
pub(super) struct Staging {
    intrinsic: String,
    memory: String,
    size: u64,
    start: String,
    wait: String,
}

impl Staging {
    fn new(
        target: &acc_ir::target::Target,
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
        let size = target.memory(memory).map_or(0, |m| m.size);
        Ok(Staging {
            intrinsic: intrinsic.to_string(),
            memory: memory.to_string(),
            size,
            start: dma.start.clone(),
            wait: dma.wait.clone(),
        })
    }
}

/// The bytes a buffer of type `ty` takes in a planned memory (64-byte aligned).
fn local_bytes(ctx: &acc_ir::Context, ty: acc_ir::TypeId) -> Option<u64> {
    let (bytes, _) = crate::memory_plan::buffer_bytes(ctx, ty)?;
    let a = crate::memory_plan::ALIGNMENT;
    Some(bytes.div_ceil(a).max(1) * a)
}

/// `graph.transpose` of the tensor `v` by `perm` (result dimension `i` is `v`'s
/// dimension `perm[i]`).
fn transpose(
    e: &mut crate::emit::Emitter<'_>,
    v: ValueId,
    perm: &[i64],
) -> Result<ValueId, String> {
    let (shape, element) = shape_of(e.ctx, e.type_of(v))?;
    let ty = tensor_type(e.ctx, &permuted_shape(&shape, perm), element);
    e.op1("graph.transpose", &[v], ty, &[("perm", i64s(e.ctx, perm))])
}

/// Ops between calls that leave their staged buffers valid: they only make
/// constants and views.
pub(super) fn keeps_staged(name: &str) -> bool {
    matches!(
        name,
        "arith.constant"
            | "tensor.bitcast"
            | "tensor.empty"
            | "graph.constant"
            | "graph.storage_cast"
    )
}
