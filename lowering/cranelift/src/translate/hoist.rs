//! Loop-invariant code motion for `loop.parallel` nests: the level of the nest each
//! op of the body can run at.
//!
//! A parallel loop over N dimensions becomes N nested Cranelift loops. An op of its
//! body whose operands do not depend on the inner induction variables computes the
//! same value on every inner iteration; it is translated in the body of the
//! outermost loop where all its operands are known instead (Cranelift's own
//! hoisting does not move such address arithmetic and loads out of our nests).
//!
//! Invariants that keep this sound:
//! - only ops without side effects move: `arith`, `math`, `loop.splat`, views, and
//!   loads of buffers the body never writes (a store, copy, call or any other op
//!   taking a memref in the body writes "everything" as far as loads are concerned;
//!   two function arguments are taken to be possibly the same memory);
//! - ops move only when every loop of the nest runs at least once (constant bounds,
//!   lower below upper), so a moved op runs only if it ran before (an integer
//!   division by zero or an out-of-bounds load cannot appear);
//! - an op never moves above an operand: its level is the deepest of its operands'.

use acc_dialects::ops::{arith, loops, math};
use acc_ir::elements::{self, Scalar};
use acc_ir::{BlockId, BodyId, Context, Ir, OpId, ValueDef, ValueId};
use rustc_hash::{FxHashMap, FxHashSet};

/// For each op of block `blk` (the body of a `loop.parallel` over `n` dimensions,
/// whose arguments are the induction variables, outermost first): the number of
/// loops it must run inside, 1..=n. All are n when the nest may run zero times.
pub(super) fn levels(
    ctx: &Context,
    ir: &Ir,
    body: BodyId,
    blk: BlockId,
    n: usize,
    runs_at_least_once: bool,
) -> Vec<(OpId, usize)> {
    let b = ir.body(body);
    let ops: Vec<OpId> = b.block_ops(blk).collect();
    if !runs_at_least_once {
        return ops.into_iter().map(|op| (op, n)).collect();
    }
    let written = Written::of(ctx, ir, body, &ops);
    let mut level: FxHashMap<ValueId, usize> = FxHashMap::default();
    for (d, iv) in b.block_args(blk).iter().enumerate() {
        level.insert(*iv, d + 1);
    }
    let mut out = Vec::with_capacity(ops.len());
    for op in ops {
        let l = if movable(ctx, ir, body, op, &written) {
            b.operands(op)
                .map(|v| level.get(&v).copied().unwrap_or(1))
                .max()
                .unwrap_or(1)
                .max(1)
        } else {
            n
        };
        for r in b.results(op) {
            level.insert(r, l);
        }
        out.push((op, l));
    }
    out
}

/// The buffers a body writes, by root (the buffer its views are taken of).
struct Written {
    roots: FxHashSet<ValueId>,
    /// A call or an unknown op took a memref: any buffer may be written.
    anything: bool,
}

impl Written {
    fn of(ctx: &Context, ir: &Ir, body: BodyId, ops: &[OpId]) -> Written {
        let mut w = Written {
            roots: FxHashSet::default(),
            anything: false,
        };
        let b = ir.body(body);
        let mut stack: Vec<OpId> = ops.to_vec();
        while let Some(op) = stack.pop() {
            let kind = loops::Op::of(ctx, ir.op(body, op));
            match kind {
                Some(loops::Op::Store | loops::Op::Vstore | loops::Op::Copy) => {
                    w.roots.insert(root(ctx, ir, body, b.operand(op, 1)));
                }
                _ if reads_only(kind) => {}
                _ if b.operands(op).any(|v| is_memref(ctx, ir, body, v)) => w.anything = true,
                _ => {}
            }
            for region in ir.op(body, op).regions() {
                for blk in b.region_blocks(*region) {
                    stack.extend(b.block_ops(blk));
                }
            }
        }
        w
    }
}

/// Ops that take memrefs without writing them (or that only hold other ops).
fn reads_only(kind: Option<loops::Op>) -> bool {
    matches!(
        kind,
        Some(
            loops::Op::Load
                | loops::Op::Vload
                | loops::Op::Reshape
                | loops::Op::Subview
                | loops::Op::For
                | loops::Op::Parallel
                | loops::Op::Yield
        )
    )
}

/// True when `op` may run at a shallower level of the nest: no side effects, no
/// regions, and a load only of a buffer the body does not write.
fn movable(ctx: &Context, ir: &Ir, body: BodyId, op: OpId, written: &Written) -> bool {
    let b = ir.body(body);
    if !ir.op(body, op).regions().is_empty() {
        return false;
    }
    let r = ir.op(body, op);
    if arith::Op::of(ctx, r).is_some() || math::Op::of(ctx, r).is_some() {
        return true;
    }
    match loops::Op::of(ctx, r) {
        Some(loops::Op::Splat | loops::Op::Reshape | loops::Op::Subview) => true,
        Some(loops::Op::Load | loops::Op::Vload) => {
            let read = root(ctx, ir, body, b.operand(op, 0));
            // Two memref arguments may be the same memory (the caller's choice).
            let may_alias = |r: &ValueId| {
                *r == read || (is_argument(ir, body, *r) && is_argument(ir, body, read))
            };
            !written.anything && !written.roots.iter().any(may_alias)
        }
        _ => false,
    }
}

/// The buffer a view was taken of (through `loop.reshape` and `loop.subview`).
fn root(ctx: &Context, ir: &Ir, body: BodyId, mut v: ValueId) -> ValueId {
    let b = ir.body(body);
    while let ValueDef::Result(op, _) = b.value(v).def {
        match loops::Op::of(ctx, ir.op(body, op)) {
            Some(loops::Op::Reshape | loops::Op::Subview) => v = b.operand(op, 0),
            _ => break,
        }
    }
    v
}

/// True when `v` is a block argument (of the function: a memref the caller passes).
fn is_argument(ir: &Ir, body: BodyId, v: ValueId) -> bool {
    matches!(ir.body(body).value(v).def, ValueDef::BlockArg(..))
}

fn is_memref(ctx: &Context, ir: &Ir, body: BodyId, v: ValueId) -> bool {
    matches!(
        ctx.type_data(ir.body(body).value_type(v)),
        acc_ir::TypeData::MemRef { .. }
    )
}

/// The value of an index defined by `arith.constant`.
pub(super) fn constant_index(ctx: &Context, ir: &Ir, body: BodyId, v: ValueId) -> Option<i128> {
    let b = ir.body(body);
    let ValueDef::Result(op, _) = b.value(v).def else {
        return None;
    };
    let o = ir.op(body, op);
    if !arith::Constant::is(ctx, o) {
        return None;
    }
    match elements::scalar(ctx, o.attr(ctx, arith::Constant::ATTR_VALUE)?)?.1 {
        Scalar::Int(i) => Some(i),
        Scalar::Float(_) => None,
    }
}
