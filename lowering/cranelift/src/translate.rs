//! Function bodies: `func`, `cf`, `arith` and `loop` ops as Cranelift instructions.
//!
//! IR blocks become Cranelift blocks with the same arguments; `loop.for` becomes a
//! header block carrying the induction variable and the iteration values, a body and
//! an exit; `loop.parallel` a nest of such loops, its invariant ops emitted in the
//! outermost loop that can run them and its innermost loads and stores walking
//! loop-carried pointers (`translate/hoist.rs`). A memref value is a pointer to its
//! first element, with its static layout known from its type (subviews move the
//! pointer). Buffers from `loop.alloc` come from the runtime's `acc_alloc`. Large
//! nests whose body only computes, loads and stores run on the runtime's threads
//! when the target allows it (`translate/outline.rs`).

use acc_dialects::ops::{self, cf, func, hw, math};
use acc_ir::{BlockId, BodyId, Context, EntityId, Ir, OpId, OpRef, ValueId};
use cranelift_codegen::ir::{
    AbiParam, Block, FuncRef, GlobalValue, InstBuilder, MemFlagsData, Signature, SourceLoc,
    StackSlotData, StackSlotKind, Type, Value, types,
};
use cranelift_codegen::isa::TargetFrontendConfig;
use cranelift_frontend::FunctionBuilder;
use cranelift_module::{FuncId, Linkage, Module};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::CodegenError;
use crate::abi::FnAbi;
use crate::target::Features;
use crate::types::{MemrefLayout, Repr, repr};

mod arith;
mod flatten;
mod hoist;
mod loops;
mod narrow;
mod outline;

pub use outline::OutlinedBody;

/// A value in generated code.
#[derive(Clone, Debug)]
enum Val {
    Scalar(Value),
    Memref(Value, MemrefLayout),
}

/// How a block's ops ended.
enum Ended {
    /// A region's yield with these values.
    Yield(Vec<Val>),
    /// A return or branch: control left the block.
    Left,
}

/// The module-level facts a function body needs.
pub(crate) struct Shared<'m, M: Module> {
    pub module: &'m mut M,
    /// Every function of the module: its id and convention.
    pub functions: &'m FxHashMap<String, (FuncId, FnAbi)>,
    pub features: Features,
    pub config: TargetFrontendConfig,
    /// The bodies of threaded nests generated so far (`translate/outline.rs`).
    pub outlined: &'m mut Vec<OutlinedBody>,
    /// The read-only data object of each constant value defined so far: ops with
    /// the same (interned) value share one copy, so a weight read by many ops (a
    /// recurrent cell's, once per step) is one object in memory and in the cache.
    pub constants: &'m mut FxHashMap<acc_ir::AttrId, cranelift_module::DataId>,
}

/// Translates one function body into `b`.
pub(crate) struct FnTranslator<'a, 'b, 'm, M: Module> {
    pub ctx: &'a Context,
    pub ir: &'a Ir,
    pub body: BodyId,
    pub b: FunctionBuilder<'b>,
    pub shared: Shared<'m, M>,
    values: FxHashMap<ValueId, Val>,
    blocks: FxHashMap<BlockId, Block>,
    /// The result pointers of the function.
    results: Vec<Value>,
    abi: FnAbi,
    imported: FxHashMap<String, FuncRef>,
    /// The function's static arena (`loop.arena_size`), once an allocation uses it.
    arena: Option<GlobalValue>,
    /// Buffers placed in the arena: their `loop.dealloc` frees nothing.
    planned: FxHashSet<ValueId>,
    /// Loads and stores of an innermost parallel loop whose address advances by a
    /// constant each iteration: the loop-carried address they use.
    streams: FxHashMap<OpId, Value>,
    /// Allocations built in place in a result buffer ([`returned_allocations`]):
    /// the index of that result.
    in_result: FxHashMap<ValueId, usize>,
    /// This is the outlined body of a threaded nest: nests inside stay inline.
    outlined_body: bool,
}

fn err(op: OpRef<'_>, message: impl Into<String>) -> CodegenError {
    CodegenError::at(op.loc(), message)
}

impl<'a, 'b, 'm, M: Module> FnTranslator<'a, 'b, 'm, M> {
    pub fn new(
        ctx: &'a Context,
        ir: &'a Ir,
        body: BodyId,
        b: FunctionBuilder<'b>,
        shared: Shared<'m, M>,
        abi: FnAbi,
    ) -> Self {
        FnTranslator {
            ctx,
            ir,
            body,
            b,
            shared,
            values: FxHashMap::default(),
            blocks: FxHashMap::default(),
            results: Vec::new(),
            abi,
            imported: FxHashMap::default(),
            arena: None,
            planned: FxHashSet::default(),
            streams: FxHashMap::default(),
            in_result: FxHashMap::default(),
            outlined_body: false,
        }
    }

    fn ins(&mut self) -> cranelift_frontend::FuncInstBuilder<'_, 'b> {
        self.b.ins()
    }

    fn pointer(&self) -> Type {
        self.shared.config.pointer_type()
    }

    /// Translates the function whose region is `region` of `func`'s body.
    pub fn run(mut self, region: acc_ir::RegionId) -> Result<(), CodegenError> {
        let body = self.ir.body(self.body);
        let ir_blocks: Vec<BlockId> = body.region_blocks(region).collect();
        let entry_ir = *ir_blocks
            .first()
            .ok_or_else(|| CodegenError::new("the function has no body"))?;
        let entry = self.b.create_block();
        self.b.append_block_params_for_function_params(entry);
        self.blocks.insert(entry_ir, entry);
        for &blk in &ir_blocks[1..] {
            let cb = self.b.create_block();
            for &arg in body.block_args(blk) {
                let ty = body.value_type(arg);
                let t = match repr(self.ctx, ty)? {
                    Repr::Scalar(t) => t,
                    Repr::Memref(_) => self.pointer(),
                };
                self.b.append_block_param(cb, t);
            }
            self.blocks.insert(blk, cb);
        }
        self.b.switch_to_block(entry);
        let params = self.b.block_params(entry).to_vec();
        let n = self.abi.args.len();
        for (i, &arg) in body.block_args(entry_ir).iter().enumerate() {
            let v = self.wrap(body.value_type(arg), params[i])?;
            self.values.insert(arg, v);
        }
        self.results = params[n..].to_vec();
        self.in_result = returned_allocations(self.ctx, self.ir, self.body, &ir_blocks);
        for &blk in &ir_blocks {
            let cb = self.blocks[&blk];
            if blk != entry_ir {
                self.b.switch_to_block(cb);
                let ps = self.b.block_params(cb).to_vec();
                for (i, &arg) in body.block_args(blk).iter().enumerate() {
                    let v = self.wrap(body.value_type(arg), ps[i])?;
                    self.values.insert(arg, v);
                }
            }
            match self.top_level_ops(blk)? {
                Ended::Left => {}
                Ended::Yield(_) => {
                    return Err(CodegenError::new("a yield at the function's level"));
                }
            }
        }
        self.b.seal_all_blocks();
        self.b.finalize(self.shared.config);
        Ok(())
    }

    /// The result pointer an allocation is built in, if it is one of
    /// [`returned_allocations`].
    fn result_buffer(&self, v: ValueId) -> Option<Value> {
        self.in_result.get(&v).map(|&i| self.results[i])
    }

    /// A machine value of acc type `ty` as a `Val`.
    fn wrap(&self, ty: acc_ir::TypeId, v: Value) -> Result<Val, CodegenError> {
        Ok(match repr(self.ctx, ty)? {
            Repr::Scalar(_) => Val::Scalar(v),
            Repr::Memref(m) => Val::Memref(v, m),
        })
    }

    fn get(&self, op: OpRef<'_>, v: ValueId) -> Result<Val, CodegenError> {
        self.values
            .get(&v)
            .cloned()
            .ok_or_else(|| err(op, "an operand has no value"))
    }

    fn scalar(&self, op: OpRef<'_>, v: ValueId) -> Result<Value, CodegenError> {
        match self.get(op, v)? {
            Val::Scalar(x) => Ok(x),
            Val::Memref(..) => Err(err(op, "expects a scalar operand, not a memref")),
        }
    }

    fn memref(&self, op: OpRef<'_>, v: ValueId) -> Result<(Value, MemrefLayout), CodegenError> {
        match self.get(op, v)? {
            Val::Memref(p, m) => Ok((p, m)),
            Val::Scalar(_) => Err(err(op, "expects a memref operand")),
        }
    }

    /// Translates the ops of `blk` in order.
    fn ops(&mut self, blk: BlockId) -> Result<Ended, CodegenError> {
        let ops: Vec<OpId> = self.ir.body(self.body).block_ops(blk).collect();
        for op in ops {
            if let Some(ended) = self.op(op)? {
                return Ok(ended);
            }
        }
        Err(CodegenError::new("a block ends without a terminator"))
    }

    /// Translates the ops of a block of the function's own region, marking the code of
    /// each (nested ops included) with the op's number as its source location, for
    /// profiles (`JitModule::write_perf_map`).
    fn top_level_ops(&mut self, blk: BlockId) -> Result<Ended, CodegenError> {
        let ops: Vec<OpId> = self.ir.body(self.body).block_ops(blk).collect();
        for op in ops {
            self.b.set_srcloc(SourceLoc::new(op.index() as u32));
            if let Some(ended) = self.op(op)? {
                return Ok(ended);
            }
        }
        Err(CodegenError::new("a block ends without a terminator"))
    }

    /// Runs `region` of `op` with its block arguments bound to `args`; the values its
    /// yield gives.
    fn region(&mut self, op: OpId, index: usize, args: &[Val]) -> Result<Vec<Val>, CodegenError> {
        let r = self.ir.op(self.body, op);
        let blk = r
            .regions()
            .get(index)
            .and_then(|reg| self.ir.body(self.body).entry_block(*reg))
            .ok_or_else(|| err(r, format!("has no region #{index}")))?;
        let params = self.ir.body(self.body).block_args(blk).to_vec();
        if params.len() != args.len() {
            return Err(err(r, "its region takes a different number of arguments"));
        }
        for (p, a) in params.iter().zip(args) {
            self.values.insert(*p, a.clone());
        }
        match self.ops(blk)? {
            Ended::Yield(values) => Ok(values),
            Ended::Left => Err(err(r, "its region must end with a yield")),
        }
    }

    /// Translates one op; `Some` when it ends its block.
    fn op(&mut self, id: OpId) -> Result<Option<Ended>, CodegenError> {
        let op = self.ir.op(self.body, id);
        let name = self.ctx.op_name_str(op.name());
        let operands: Vec<ValueId> = op.operands().collect();
        let result_types: Vec<acc_ir::TypeId> = op.result_types().to_vec();
        let results: Vec<Val> = if let Some(kind) = ops::arith::Op::of(self.ctx, op) {
            vec![self.arith(op, kind, &operands, &result_types)?]
        } else if let Some(kind) = math::Op::of(self.ctx, op) {
            vec![Val::Scalar(self.math(op, kind, &operands)?)]
        } else if let Some(kind) = func::Op::of(self.ctx, op) {
            match kind {
                func::Op::Return => {
                    self.ret(op, &operands)?;
                    return Ok(Some(Ended::Left));
                }
                func::Op::Call => self.call(op, &operands, &result_types)?,
                _ => return Err(err(op, format!("no code generation for '{name}'"))),
            }
        } else if let Some(kind) = cf::Op::of(self.ctx, op) {
            self.branch(op, kind, &operands)?;
            return Ok(Some(Ended::Left));
        } else if let Some(kind) = ops::loops::Op::of(self.ctx, op) {
            match kind {
                ops::loops::Op::Yield => {
                    let vals = operands
                        .iter()
                        .map(|v| self.get(op, *v))
                        .collect::<Result<_, _>>()?;
                    return Ok(Some(Ended::Yield(vals)));
                }
                _ => self.loop_op(id, kind, &operands, &result_types)?,
            }
        } else if hw::Intrinsic::is(self.ctx, op) {
            self.intrinsic(op, &operands, &result_types)?;
            vec![]
        } else {
            return Err(err(
                op,
                format!("no code generation for '{name}' (lower it to loop and arith first)"),
            ));
        };
        for (r, v) in op.results().zip(results) {
            self.values.insert(r, v);
        }
        Ok(None)
    }

    // ----- func and cf -----

    fn ret(&mut self, op: OpRef<'_>, operands: &[ValueId]) -> Result<(), CodegenError> {
        if operands.len() != self.results.len() {
            return Err(err(
                op,
                "returns a different number of values than declared",
            ));
        }
        for (i, v) in operands.iter().enumerate() {
            let dest = self.results[i];
            match self.get(op, *v)? {
                Val::Scalar(x) => {
                    self.b.ins().store(MemFlagsData::trusted(), x, dest, 0);
                }
                Val::Memref(_, _) if self.in_result.get(v) == Some(&i) => {}
                Val::Memref(p, m) => {
                    let out = MemrefLayout {
                        strides: row_major(&m.shape),
                        ..m.clone()
                    };
                    self.copy(p, &m, dest, &out);
                }
            }
        }
        self.b.ins().return_(&[]);
        Ok(())
    }

    fn call(
        &mut self,
        op: OpRef<'_>,
        operands: &[ValueId],
        result_types: &[acc_ir::TypeId],
    ) -> Result<Vec<Val>, CodegenError> {
        let callee = op
            .attr(self.ctx, func::Call::ATTR_CALLEE)
            .and_then(|c| match self.ctx.attr_data(c) {
                acc_ir::AttrData::SymbolRef { root, .. } => Some(self.ctx.str(*root).to_string()),
                _ => None,
            })
            .ok_or_else(|| err(op, "a call without a callee"))?;
        let (id, abi) = self
            .shared
            .functions
            .get(&callee)
            .cloned()
            .ok_or_else(|| err(op, format!("no function '@{callee}' in the module")))?;
        let fref = self.shared.module.declare_func_in_func(id, self.b.func);
        let mut args = Vec::new();
        for v in operands {
            args.push(match self.get(op, *v)? {
                Val::Scalar(x) => x,
                Val::Memref(p, _) => p,
            });
        }
        // Results go to stack slots (scalars) or fresh buffers (memrefs).
        let mut places = Vec::new();
        for (slot, ty) in abi.results.iter().zip(result_types) {
            let place = match &slot.repr {
                Repr::Scalar(t) => {
                    let ss = self.b.create_sized_stack_slot(StackSlotData::new(
                        StackSlotKind::ExplicitSlot,
                        t.bytes(),
                        t.bytes().trailing_zeros() as u8,
                    ));
                    let p = self.pointer();
                    self.b.ins().stack_addr(p, ss, 0)
                }
                Repr::Memref(m) => self.alloc(op, m.len() as u64 * u64::from(m.element_bytes()))?,
            };
            places.push((place, *ty, slot.repr.clone()));
            args.push(place);
        }
        self.b.ins().call(fref, &args);
        let mut out = Vec::new();
        for (place, _ty, r) in places {
            out.push(match r {
                Repr::Scalar(t) => {
                    Val::Scalar(self.b.ins().load(t, MemFlagsData::trusted(), place, 0))
                }
                Repr::Memref(m) => Val::Memref(place, m),
            });
        }
        Ok(out)
    }

    fn branch(
        &mut self,
        op: OpRef<'_>,
        kind: cf::Op,
        operands: &[ValueId],
    ) -> Result<(), CodegenError> {
        let targets: Vec<BlockId> = op.successors().collect();
        let def = self
            .ctx
            .op_def(op.name())
            .and_then(|d| d.successor_operands.clone());
        let args_of = |index: usize| -> Result<Vec<cranelift_codegen::ir::BlockArg>, CodegenError> {
            let range = def
                .as_ref()
                .and_then(|h| h(op, self.ctx, index))
                .ok_or_else(|| err(op, "cannot tell the successor's operands"))?;
            operands[range]
                .iter()
                .map(|v| {
                    Ok(match self.get(op, *v)? {
                        Val::Scalar(x) | Val::Memref(x, _) => x.into(),
                    })
                })
                .collect()
        };
        match kind {
            cf::Op::Br => {
                let a = args_of(0)?;
                let t = self.blocks[&targets[0]];
                self.b.ins().jump(t, &a);
            }
            cf::Op::CondBr => {
                let c = self.scalar(op, operands[0])?;
                let (a, e) = (args_of(0)?, args_of(1)?);
                let (t, f) = (self.blocks[&targets[0]], self.blocks[&targets[1]]);
                self.b.ins().brif(c, t, &a, f, &e);
            }
        }
        Ok(())
    }

    // ----- runtime -----

    /// `bytes` bytes from `acc_alloc` (64-byte aligned).
    fn alloc(&mut self, op: OpRef<'_>, bytes: u64) -> Result<Value, CodegenError> {
        let p = self.pointer();
        let f = self.runtime(op, "acc_alloc", &[types::I64, types::I64], Some(p))?;
        let size = self.b.ins().iconst(types::I64, bytes as i64);
        let align = self.b.ins().iconst(types::I64, 64);
        let call = self.b.ins().call(f, &[size, align]);
        Ok(self.b.inst_results(call)[0])
    }

    /// The byte size of the function's static arena (its `loop.arena_size`).
    fn arena_size(&self) -> Option<i64> {
        let (outer, func) = self.ir.body(self.body).owner()?;
        let a = self
            .ir
            .op(outer, func)
            .attr(self.ctx, acc_dialects::hooks::func::ARENA_SIZE)?;
        match acc_ir::elements::scalar(self.ctx, a)?.1 {
            acc_ir::elements::Scalar::Int(i) => i64::try_from(i).ok(),
            acc_ir::elements::Scalar::Float(_) => None,
        }
    }

    /// `bytes` at `offset` in the function's static arena: zero-initialized writable
    /// data of the module (so the function is not reentrant), defined at the first use.
    fn arena_slot(
        &mut self,
        op: OpRef<'_>,
        offset: i64,
        bytes: u64,
    ) -> Result<Value, CodegenError> {
        let size = self.arena_size().ok_or_else(|| {
            err(
                op,
                "an allocation at an arena offset in a function without 'loop.arena_size'",
            )
        })?;
        let end = u64::try_from(offset)
            .ok()
            .and_then(|o| o.checked_add(bytes));
        if end.is_none_or(|e| e > size.max(0) as u64) {
            return Err(err(
                op,
                format!("{bytes} bytes at offset {offset} do not fit the arena of {size} bytes"),
            ));
        }
        let gv = match self.arena {
            Some(gv) => gv,
            None => {
                let module = &mut *self.shared.module;
                let id = module
                    .declare_anonymous_data(true, false)
                    .map_err(|e| err(op, format!("cannot declare the arena: {e}")))?;
                let mut data = cranelift_module::DataDescription::new();
                data.define_zeroinit(size as usize);
                data.set_align(64);
                module
                    .define_data(id, &data)
                    .map_err(|e| err(op, format!("cannot define the arena: {e}")))?;
                let gv = module.declare_data_in_func(id, self.b.func);
                self.arena = Some(gv);
                gv
            }
        };
        let p = self.pointer();
        let base = self.b.ins().symbol_value(p, gv);
        Ok(self.b.ins().iadd_imm_s(base, offset))
    }

    /// The runtime function `name`, imported into this function once.
    fn runtime(
        &mut self,
        op: OpRef<'_>,
        name: &str,
        params: &[Type],
        ret: Option<Type>,
    ) -> Result<FuncRef, CodegenError> {
        if let Some(f) = self.imported.get(name) {
            return Ok(*f);
        }
        let mut sig = Signature::new(self.shared.module.isa().default_call_conv());
        sig.params.extend(params.iter().map(|t| AbiParam::new(*t)));
        sig.returns.extend(ret.map(AbiParam::new));
        let id = self
            .shared
            .module
            .declare_function(name, Linkage::Import, &sig)
            .map_err(|e| err(op, format!("cannot declare '{name}': {e}")))?;
        let f = self.shared.module.declare_func_in_func(id, self.b.func);
        self.imported.insert(name.to_string(), f);
        Ok(f)
    }
}

/// Row-major strides of `shape`.
pub(crate) fn row_major(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1usize; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        s[d] = s[d + 1] * shape[d + 1];
    }
    s
}

/// The buffers a function can build directly in its callers' result buffers, with
/// the index of the result each one is: in a function of one block ending in its
/// only `func.return`, a static, contiguous `loop.alloc` of that block returned
/// once (and by nothing else). Copying it out at the return, and allocating and
/// freeing it on every call, are saved. Result buffers do not overlap the
/// arguments (the calling convention's contract), so nothing else reads them.
fn returned_allocations(
    ctx: &Context,
    ir: &Ir,
    body: BodyId,
    blocks: &[BlockId],
) -> FxHashMap<ValueId, usize> {
    let mut found = FxHashMap::default();
    let [block] = blocks else {
        return found;
    };
    let b = ir.body(body);
    let Some(last) = b.block_ops(*block).last() else {
        return found;
    };
    if !func::Return::is(ctx, ir.op(body, last)) {
        return found;
    }
    let returned: Vec<ValueId> = b.operands(last).collect();
    for (i, v) in returned.iter().enumerate() {
        let once = returned.iter().filter(|w| *w == v).count() == 1;
        let acc_ir::ValueDef::Result(def, _) = b.value(*v).def else {
            continue;
        };
        let contiguous =
            matches!(repr(ctx, b.value_type(*v)), Ok(Repr::Memref(m)) if m.is_contiguous());
        if once
            && contiguous
            && ops::loops::Alloc::is(ctx, ir.op(body, def))
            && b.operands(def).next().is_none()
            && b.op_block(def) == Some(*block)
        {
            found.insert(*v, i);
        }
    }
    found
}
