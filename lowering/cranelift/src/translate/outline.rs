//! `loop.parallel` nests on several threads: the nest's body becomes a function of
//! its own, `(env, first, end)`, which runs the iterations `first..end` of one
//! dimension of the nest; the function the nest was in stores the values the body
//! reads (its captures) in a stack slot, `env`, and calls the runtime's
//! `acc_parallel_for` with the body, `env`, the number of iterations and an estimate
//! of the work. The runtime runs the body on the whole range, or on one part per
//! thread of its pool (`acc_runtime::threads`).
//!
//! Invariants:
//! - only nests whose body (nested ops included) computes, loads, stores and loops
//!   are outlined: no allocation, call or intrinsic, so that the parts share nothing
//!   but the buffers they read and the disjoint elements they write (the contract of
//!   `loop.parallel`);
//! - the split dimension is the outermost one with more than one iteration, every
//!   dimension outside it running exactly once, and its bounds are constants, so
//!   that each part knows its own bounds, and the nest as a whole still runs at least
//!   once whenever a part runs (which `hoist` relies on);
//! - a body is never outlined again inside an outlined body (one level of threads).

use acc_dialects::ops::{arith, loops, math};
use acc_ir::{BodyId, Context, EntityId, Ir, OpId, ValueId};
use cranelift_codegen::ir::{
    AbiParam, Function, InstBuilder, MemFlagsData, Signature, StackSlotData, StackSlotKind, Type,
    UserFuncName, Value, types,
};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_module::{FuncId, Module};
use rustc_hash::FxHashSet;

use super::hoist::constant_index;
use super::{CodegenError, FnTranslator, Shared, Val, err};

/// The trip count assumed for a loop whose bounds are not constants, in the work
/// estimate.
const UNKNOWN_TRIPS: i64 = 16;

/// How a `loop.parallel` nest is split among threads.
pub(super) struct Split {
    /// The dimension whose iterations are split.
    pub dim: usize,
    /// Its constant lower bound and step.
    pub lower: i64,
    pub step: i64,
    /// Its number of iterations (at least 2).
    pub count: i64,
    /// About how many ops the whole nest runs.
    pub work: i64,
    /// The values defined outside the nest that it uses, in order of first use.
    pub captures: Vec<ValueId>,
}

/// A function generated for the body of a split nest: its code ranges by op, as in
/// `module::Compiled::code_ranges`, for profiles.
#[derive(Clone, Debug)]
pub struct OutlinedBody {
    pub id: FuncId,
    pub code_ranges: Vec<(u32, u32, OpId)>,
}

/// How to split the `loop.parallel` `op` of `body`, or `None` when it must stay on
/// the calling thread (see the module's invariants).
pub(super) fn split(ctx: &Context, ir: &Ir, body: BodyId, op: OpId) -> Option<Split> {
    let b = ir.body(body);
    let operands: Vec<ValueId> = b.operands(op).collect();
    let n = operands.len() / 3;
    let constant =
        |v: ValueId| constant_index(ctx, ir, body, v).and_then(|c| i64::try_from(c).ok());
    let trips = |d: usize| dim_trips(&constant, &operands, n, d);
    let mut dim = None;
    for d in 0..n {
        match trips(d)? {
            1 => continue,
            t if t >= 2 => {
                dim = Some(d);
                break;
            }
            _ => return None,
        }
    }
    let dim = dim?;
    let region = *ir.op(body, op).regions().first()?;
    let entry = b.entry_block(region)?;
    let mut nested = Vec::new();
    let mut defined: FxHashSet<ValueId> = b.block_args(entry).iter().copied().collect();
    let mut stack: Vec<OpId> = b.block_ops(entry).collect();
    while let Some(inner) = stack.pop() {
        if !may_run_on_threads(ctx, ir, body, inner) {
            return None;
        }
        nested.push(inner);
        defined.extend(b.results(inner));
        for r in ir.op(body, inner).regions() {
            for blk in b.region_blocks(*r) {
                defined.extend(b.block_args(blk).iter().copied());
                stack.extend(b.block_ops(blk));
            }
        }
    }
    let mut captures = Vec::new();
    let mut seen = FxHashSet::default();
    for v in operands
        .iter()
        .copied()
        .chain(nested.iter().flat_map(|o| b.operands(*o)))
    {
        if !defined.contains(&v) && seen.insert(v) {
            captures.push(v);
        }
    }
    let iterations = (0..n).fold(1i64, |acc, d| {
        acc.saturating_mul(trips(d).unwrap_or(UNKNOWN_TRIPS))
    });
    let work = iterations.saturating_mul(block_work(ctx, ir, body, entry));
    if work < acc_runtime::threads::PARALLEL_LOOP_WORK as i64 {
        return None;
    }
    Some(Split {
        dim,
        lower: constant(operands[dim])?,
        step: constant(operands[2 * n + dim])?,
        count: trips(dim)?,
        work,
        captures,
    })
}

/// True for the ops an outlined body may hold: arithmetic, math, and the `loop` ops
/// that load, store, view, loop and compute on vectors.
fn may_run_on_threads(ctx: &Context, ir: &Ir, body: BodyId, op: OpId) -> bool {
    let r = ir.op(body, op);
    if arith::Op::of(ctx, r).is_some() || math::Op::of(ctx, r).is_some() {
        return true;
    }
    matches!(
        loops::Op::of(ctx, r),
        Some(
            loops::Op::Load
                | loops::Op::Store
                | loops::Op::Vload
                | loops::Op::Vstore
                | loops::Op::Fma
                | loops::Op::Splat
                | loops::Op::Vreduce
                | loops::Op::Reshape
                | loops::Op::Subview
                | loops::Op::Copy
                | loops::Op::Constant
                | loops::Op::For
                | loops::Op::Parallel
                | loops::Op::Yield
        )
    )
}

/// About how many ops one run of block `blk` executes: one per op, loops counted
/// times their trip counts.
fn block_work(ctx: &Context, ir: &Ir, body: BodyId, blk: acc_ir::BlockId) -> i64 {
    let b = ir.body(body);
    let constant =
        |v: ValueId| constant_index(ctx, ir, body, v).and_then(|c| i64::try_from(c).ok());
    let mut work = 0i64;
    for op in b.block_ops(blk) {
        let r = ir.op(body, op);
        let inner: i64 = r
            .regions()
            .iter()
            .filter_map(|reg| b.entry_block(*reg))
            .map(|e| block_work(ctx, ir, body, e))
            .sum();
        let trips = match loops::Op::of(ctx, r) {
            Some(loops::Op::For | loops::Op::Parallel) => {
                let operands: Vec<ValueId> = b.operands(op).collect();
                let n = if loops::Parallel::is(ctx, r) {
                    operands.len() / 3
                } else {
                    1
                };
                (0..n)
                    .map(|d| dim_trips(&constant, &operands, n, d).unwrap_or(UNKNOWN_TRIPS))
                    .fold(1i64, |a, t| a.saturating_mul(t))
            }
            _ => 1,
        };
        work = work
            .saturating_add(1)
            .saturating_add(trips.saturating_mul(inner));
    }
    work
}

/// The iterations of dimension `d` of a loop whose `n` lower bounds, `n` upper
/// bounds and `n` steps lead its operands, when all three are constants.
fn dim_trips(
    constant: &impl Fn(ValueId) -> Option<i64>,
    operands: &[ValueId],
    n: usize,
    d: usize,
) -> Option<i64> {
    let (lower, upper, step) = (
        constant(operands[d])?,
        constant(operands[n + d])?,
        constant(operands[2 * n + d])?,
    );
    trip_count(lower, upper, step)
}

/// The iterations of a loop from `lower` to `upper` by `step` (`None` for a step
/// that is not positive).
fn trip_count(lower: i64, upper: i64, step: i64) -> Option<i64> {
    if step <= 0 {
        return None;
    }
    let span = upper.saturating_sub(lower).max(0);
    Some(span / step + i64::from(span % step != 0))
}

/// One captured value in the environment: the value, its machine value's type and
/// its byte offset.
struct Field {
    value: ValueId,
    val: Val,
    ty: Type,
    offset: u32,
}

impl<M: Module> FnTranslator<'_, '_, '_, M> {
    /// The nest `id` as a call of `acc_parallel_for` on its outlined body.
    pub(super) fn parallel_on_threads(
        &mut self,
        id: OpId,
        split: &Split,
    ) -> Result<(), CodegenError> {
        let op = self.ir.op(self.body, id);
        let pointer = self.pointer();
        let mut fields = Vec::new();
        let mut size = 0u32;
        for v in &split.captures {
            let val = self.get(op, *v)?;
            let machine = match &val {
                Val::Scalar(x) | Val::Memref(x, _) => *x,
            };
            let ty = self.b.func.dfg.value_type(machine);
            let bytes = ty.bytes().max(8);
            let offset = size.next_multiple_of(bytes);
            size = offset + bytes;
            fields.push(Field {
                value: *v,
                val,
                ty,
                offset,
            });
        }
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            size.max(8),
            4,
        ));
        let env = self.b.ins().stack_addr(pointer, slot, 0);
        for f in &fields {
            let (Val::Scalar(x) | Val::Memref(x, _)) = f.val;
            self.b
                .ins()
                .store(MemFlagsData::trusted(), x, env, f.offset as i32);
        }
        let outlined = self.outline(id, split, &fields)?;
        let body_ref = self
            .shared
            .module
            .declare_func_in_func(outlined, self.b.func);
        let address = self.b.ins().func_addr(pointer, body_ref);
        let run = self.runtime(
            op,
            "acc_parallel_for",
            &[pointer, pointer, types::I64, types::I64],
            None,
        )?;
        let count = self.b.ins().iconst(types::I64, split.count);
        let work = self.b.ins().iconst(types::I64, split.work);
        self.b.ins().call(run, &[address, env, count, work]);
        Ok(())
    }

    /// Defines the function running the iterations `first..end` of `split.dim` of the
    /// nest `id`, its captures loaded from `fields` of its environment.
    fn outline(
        &mut self,
        id: OpId,
        split: &Split,
        fields: &[Field],
    ) -> Result<FuncId, CodegenError> {
        let op = self.ir.op(self.body, id);
        let pointer = self.pointer();
        let mut signature = Signature::new(self.shared.module.isa().default_call_conv());
        signature.params.extend(
            [pointer, types::I64, types::I64]
                .into_iter()
                .map(AbiParam::new),
        );
        let func_id = self
            .shared
            .module
            .declare_anonymous_function(&signature)
            .map_err(|e| {
                err(
                    op,
                    format!("cannot declare the body of a threaded nest: {e}"),
                )
            })?;
        let mut func =
            Function::with_name_signature(UserFuncName::user(0, func_id.as_u32()), signature);
        let mut fctx = FunctionBuilderContext::new();
        let mut code_ranges = Vec::new();
        {
            let b = FunctionBuilder::new(&mut func, &mut fctx);
            let shared = Shared {
                module: &mut *self.shared.module,
                functions: self.shared.functions,
                features: self.shared.features,
                config: self.shared.config,
                outlined: &mut *self.shared.outlined,
                constants: &mut *self.shared.constants,
            };
            let mut inner =
                FnTranslator::new(self.ctx, self.ir, self.body, b, shared, self.abi.clone());
            inner.outlined_body = true;
            inner.outlined_run(id, split, fields)?;
        }
        let mut cctx = self.shared.module.make_context();
        cctx.func = func;
        self.shared
            .module
            .define_function(func_id, &mut cctx)
            .map_err(|e| {
                err(
                    op,
                    format!("Cranelift rejected the body of a threaded nest: {e:?}"),
                )
            })?;
        if let Some(code) = cctx.compiled_code() {
            code_ranges = code
                .buffer
                .get_srclocs_sorted()
                .iter()
                .filter(|s| !s.loc.is_default())
                .map(|s| (s.start, s.end, id))
                .collect();
        }
        self.shared.outlined.push(OutlinedBody {
            id: func_id,
            code_ranges,
        });
        Ok(func_id)
    }

    /// Translates the outlined body of nest `id` (see [`Self::outline`]).
    fn outlined_run(
        mut self,
        id: OpId,
        split: &Split,
        fields: &[Field],
    ) -> Result<(), CodegenError> {
        let op = self.ir.op(self.body, id);
        self.b
            .set_srcloc(cranelift_codegen::ir::SourceLoc::new(id.index() as u32));
        let entry = self.b.create_block();
        self.b.append_block_params_for_function_params(entry);
        self.b.switch_to_block(entry);
        let params = self.b.block_params(entry).to_vec();
        let (env, first, end) = (params[0], params[1], params[2]);
        for f in fields {
            let x = self
                .b
                .ins()
                .load(f.ty, MemFlagsData::trusted(), env, f.offset as i32);
            let val = match &f.val {
                Val::Scalar(_) => Val::Scalar(x),
                Val::Memref(_, m) => Val::Memref(x, m.clone()),
            };
            self.values.insert(f.value, val);
        }
        let operands: Vec<ValueId> = op.operands().collect();
        let n = operands.len() / 3;
        let mut bounds = Vec::with_capacity(n);
        for d in 0..n {
            bounds.push(if d == split.dim {
                let from = |s: &mut Self, i: Value| {
                    let scaled = s.b.ins().imul_imm_s(i, split.step);
                    s.b.ins().iadd_imm_s(scaled, split.lower)
                };
                let step = self.scalar(op, operands[2 * n + d])?;
                (from(&mut self, first), from(&mut self, end), step)
            } else {
                (
                    self.scalar(op, operands[d])?,
                    self.scalar(op, operands[n + d])?,
                    self.scalar(op, operands[2 * n + d])?,
                )
            });
        }
        self.parallel_nest(id, &operands, &bounds, Some(split.dim))?;
        self.b.ins().return_(&[]);
        self.b.seal_all_blocks();
        self.b.finalize(self.shared.config);
        Ok(())
    }
}
