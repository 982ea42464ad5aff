//! `fuse-parallel`: a `loop.parallel` nest that reads, at its own indices, the buffer
//! the previous nest wrote at the same indices takes that nest's body in: the value
//! is computed where it is used instead of going through memory. When nothing else
//! uses the buffer, it disappears (its allocation, the store, its deallocation).
//!
//! Two top-level nests `P` then `Q` are fused when
//! - they have the same constant bounds and steps;
//! - `P` stores exactly once, into a buffer `B` at its induction variables;
//! - `Q` reads `B` only at its induction variables (in the same order);
//! - `P` reads no buffer `Q` writes, and `Q` writes neither `B` nor anything `P` reads;
//! - between them there are only constants, allocations and views;
//! - both run on the same device (the same `hw.device`, or none).
//!
//! An elementwise chain (a broadcast materialized for an `add`, the `add`, a
//! `relu`, the copy into a padded buffer) becomes one nest.

use acc_ir::{
    BlockId, BodyId, Context, Diagnostic, InsertPoint, Ir, OpId, ValueDef, ValueId, clone,
};
use acc_pass::{Pass, PassInfo, PassOptions, PassTarget};
use rustc_hash::{FxHashMap, FxHashSet};

use acc_dialects::build::{buffer_root, constant_int};
use acc_dialects::ops::{arith, func, loops};

/// The pass.
pub struct FuseParallel;

/// Its registration.
pub fn info() -> PassInfo {
    PassInfo {
        name: "fuse-parallel",
        title: "FuseParallel",
        summary: "Fuse a loop.parallel nest into the next one that reads its result elementwise",
        anchor: Some(func::Func::NAME),
        options: Vec::new(),
        create: |_: &PassOptions| Ok(Box::new(FuseParallel)),
    }
}

impl Pass for FuseParallel {
    fn run(&self, t: &mut PassTarget<'_>) -> Result<(), Diagnostic> {
        for (body, _) in t.bodies() {
            let b = t.ir.body(body);
            let blocks: Vec<BlockId> = b
                .top_regions()
                .iter()
                .flat_map(|r| b.region_blocks(*r))
                .collect();
            for block in blocks {
                fuse_block(t.ctx, t.ir, body, block);
            }
        }
        Ok(())
    }
}

/// The kind of `op` when it is a `loop` op.
fn kind(ctx: &Context, ir: &Ir, body: BodyId, op: OpId) -> Option<loops::Op> {
    loops::Op::of(ctx, ir.op(body, op))
}

/// Fuses pairs along one block until none is left. `P` need not be right before `Q`:
/// nests in between are fine when they neither touch `B` nor write what `P` reads (`P`'s
/// work moves past them).
///
/// Each sweep goes down the block once, fusing every pair it can as it goes (a nest
/// that took another's work stays a candidate for the nests after it); sweeps repeat
/// while one fused something, since a fusion can clear the way for another. A nest's
/// bounds are read once per sweep.
fn fuse_block(ctx: &Context, ir: &mut Ir, body: BodyId, block: BlockId) {
    loop {
        let ops: Vec<OpId> = ir.body(body).block_ops(block).collect();
        let mut fused = false;
        // The nests since the last op that is neither a nest nor a constant, allocation
        // or view.
        let mut earlier: Vec<OpId> = Vec::new();
        let mut bounds: FxHashMap<OpId, Option<Vec<i64>>> = FxHashMap::default();
        for op in ops {
            if ir.body(body).is_erased(op) {
                continue;
            }
            match kind(ctx, ir, body, op) {
                Some(loops::Op::Parallel) => {
                    let Some(here) = cached_bounds(&mut bounds, ctx, ir, body, op) else {
                        earlier.push(op);
                        continue;
                    };
                    let mut taken = None;
                    for (k, &p) in earlier.iter().enumerate().rev() {
                        if cached_bounds(&mut bounds, ctx, ir, body, p).as_ref() != Some(&here) {
                            continue;
                        }
                        let Some(plan) = fusible(ctx, ir, body, p, op) else {
                            continue;
                        };
                        let (p_reads, _) = accesses(ctx, ir, body, p);
                        let target = buffer_root(ctx, ir, body, plan.buffer);
                        let clear = earlier[k + 1..].iter().all(|x| {
                            let (reads, writes) = accesses(ctx, ir, body, *x);
                            !reads.contains(&target)
                                && !writes.contains(&target)
                                && writes.is_disjoint(&p_reads)
                        });
                        if clear && fuse(ctx, ir, body, p, op, plan).is_some() {
                            taken = Some(k);
                            break;
                        }
                    }
                    if let Some(k) = taken {
                        earlier.remove(k);
                        fused = true;
                    }
                    earlier.push(op);
                }
                Some(loops::Op::Alloc | loops::Op::Reshape | loops::Op::Subview) => {}
                _ if arith::Constant::is(ctx, ir.op(body, op)) => {}
                _ => earlier.clear(),
            }
        }
        if !fused {
            return;
        }
    }
}

/// The buffers a nest reads and writes (through any view).
fn accesses(
    ctx: &Context,
    ir: &Ir,
    body: BodyId,
    op: OpId,
) -> (FxHashSet<ValueId>, FxHashSet<ValueId>) {
    let (mut reads, mut writes) = (FxHashSet::default(), FxHashSet::default());
    let mut ops = Vec::new();
    if let Some((block, _, _)) = nest(ir, body, op) {
        all_ops(ir, body, block, &mut ops);
    }
    let b = ir.body(body);
    for o in ops {
        match kind(ctx, ir, body, o) {
            Some(loops::Op::Load | loops::Op::Vload) => {
                reads.insert(buffer_root(ctx, ir, body, b.operand(o, 0)));
            }
            Some(loops::Op::Store | loops::Op::Vstore) => {
                writes.insert(buffer_root(ctx, ir, body, b.operand(o, 1)));
            }
            _ => {}
        }
    }
    (reads, writes)
}

/// The one block of a nest, its induction variables and its ops.
fn nest(ir: &Ir, body: BodyId, op: OpId) -> Option<(BlockId, Vec<ValueId>, Vec<OpId>)> {
    let b = ir.body(body);
    let region = *b.op_regions(op).first()?;
    let block = b.entry_block(region)?;
    Some((
        block,
        b.block_args(block).to_vec(),
        b.block_ops(block).collect(),
    ))
}

/// Every op inside a nest (nested regions included).
fn all_ops(ir: &Ir, body: BodyId, block: BlockId, out: &mut Vec<OpId>) {
    let b = ir.body(body);
    for op in b.block_ops(block) {
        out.push(op);
        for r in b.op_regions(op) {
            for blk in b.region_blocks(*r) {
                all_ops(ir, body, blk, out);
            }
        }
    }
}

/// What fusing `p` into `q` needs: the buffer `p` writes and `q`'s loads of it.
struct Plan {
    buffer: ValueId,
    loads: Vec<OpId>,
}

/// [`constant_bounds`] of `op`, read once per sweep.
fn cached_bounds(
    cache: &mut FxHashMap<OpId, Option<Vec<i64>>>,
    ctx: &Context,
    ir: &Ir,
    body: BodyId,
    op: OpId,
) -> Option<Vec<i64>> {
    cache
        .entry(op)
        .or_insert_with(|| constant_bounds(ctx, ir, body, op))
        .clone()
}

/// A nest's bounds and steps, when all are constants.
fn constant_bounds(ctx: &Context, ir: &Ir, body: BodyId, op: OpId) -> Option<Vec<i64>> {
    ir.body(body)
        .operands(op)
        .map(|v| constant_int(ctx, ir, body, v))
        .collect()
}

/// Whether `p` can move into `q` (whose bounds the caller found equal).
fn fusible(ctx: &Context, ir: &Ir, body: BodyId, p: OpId, q: OpId) -> Option<Plan> {
    let b = ir.body(body);
    let device = |o| acc_dialects::hooks::hw::placed_device(ctx, ir.op(body, o));
    if device(p) != device(q) {
        return None;
    }
    let (p_block, p_ivs, _) = nest(ir, body, p)?;
    let (q_block, q_ivs, _) = nest(ir, body, q)?;
    let (mut p_ops, mut q_ops) = (Vec::new(), Vec::new());
    all_ops(ir, body, p_block, &mut p_ops);
    all_ops(ir, body, q_block, &mut q_ops);
    let at_ivs = |op: OpId, from: usize, ivs: &[ValueId]| -> bool {
        b.operands(op).skip(from).collect::<Vec<_>>() == ivs
    };
    // P: exactly one store, at its indices; loads anywhere.
    let mut buffer = None;
    let mut p_reads = FxHashSet::default();
    for &o in &p_ops {
        match kind(ctx, ir, body, o) {
            Some(loops::Op::Store) => {
                let top = b.op_block(o) == Some(p_block);
                if buffer.is_some() || !top || !at_ivs(o, 2, &p_ivs) {
                    return None;
                }
                buffer = Some(b.operand(o, 1));
            }
            Some(loops::Op::Load) => {
                p_reads.insert(buffer_root(ctx, ir, body, b.operand(o, 0)));
            }
            _ if pure_or_structural(ctx, ir, body, o) => {}
            _ => return None,
        }
    }
    let buffer = buffer?;
    let target = buffer_root(ctx, ir, body, buffer);
    if p_reads.contains(&target) {
        return None;
    }
    // Q: reads of B at its indices only; writes to neither B nor what P reads.
    let mut loads = Vec::new();
    for &o in &q_ops {
        match kind(ctx, ir, body, o) {
            Some(loops::Op::Load) => {
                let m = b.operand(o, 0);
                if buffer_root(ctx, ir, body, m) == target {
                    if m != buffer || !at_ivs(o, 1, &q_ivs) {
                        return None;
                    }
                    loads.push(o);
                }
            }
            Some(loops::Op::Store | loops::Op::Vstore) => {
                let m = buffer_root(ctx, ir, body, b.operand(o, 1));
                if m == target || p_reads.contains(&m) {
                    return None;
                }
            }
            _ if pure_or_structural(ctx, ir, body, o) => {}
            _ => return None,
        }
    }
    (!loads.is_empty()).then_some(Plan { buffer, loads })
}

/// Ops a fused body may hold besides loads and stores.
fn pure_or_structural(ctx: &Context, ir: &Ir, body: BodyId, op: OpId) -> bool {
    let name = ctx.op_name_str(ir.body(body).op(op).name);
    name.starts_with("arith.")
        || name.starts_with("math.")
        || matches!(
            kind(ctx, ir, body, op),
            Some(loops::Op::Yield | loops::Op::For | loops::Op::Fma | loops::Op::Splat)
        )
}

/// Moves `p` into `q` by `plan` (which `fusible` made); `None`, before changing
/// anything, if the nests are not shaped as it found them.
fn fuse(ctx: &Context, ir: &mut Ir, body: BodyId, p: OpId, q: OpId, plan: Plan) -> Option<()> {
    let (_, p_ivs, p_ops) = nest(ir, body, p)?;
    let (q_block, q_ivs, _) = nest(ir, body, q)?;
    let first = ir.body(body).first_op(q_block)?;
    let load_results: Vec<ValueId> = plan
        .loads
        .iter()
        .map(|l| ir.body(body).results(*l).next())
        .collect::<Option<_>>()?;
    if !p_ops.iter().any(|o| loops::Store::is(ctx, ir.op(body, *o))) {
        return None;
    }
    // P's body (without its yield) at the start of Q's, on Q's indices.
    let mut map = clone::ValueMap::default();
    for (a, b) in p_ivs.iter().zip(&q_ivs) {
        map.values.insert(*a, *b);
    }
    let mut stored = None;
    for &o in &p_ops {
        if loops::Yield::is(ctx, ir.op(body, o)) {
            continue;
        }
        let copy = clone::clone_op(ir, body, o, body, InsertPoint::Before(first), &mut map);
        if loops::Store::is(ctx, ir.op(body, copy)) {
            stored = Some((copy, ir.body(body).operand(copy, 0)));
        }
    }
    // The store checked above was copied.
    let (store, value) = stored?;
    for (l, r) in plan.loads.iter().zip(load_results) {
        ir.body_mut(body).replace_all_uses(r, value);
        ir.body_mut(body).erase_op(*l);
    }
    ir.body_mut(body).erase_op(p);
    // A buffer nothing else uses is not needed at all.
    let users: Vec<OpId> = ir.body(body).value_users(plan.buffer).collect();
    let only_written = users
        .iter()
        .all(|u| *u == store || loops::Dealloc::is(ctx, ir.op(body, *u)));
    let allocated = matches!(ir.body(body).value(plan.buffer).def,
        ValueDef::Result(def, _) if loops::Alloc::is(ctx, ir.op(body, def)));
    if only_written && allocated {
        for u in users {
            ir.body_mut(body).erase_op(u);
        }
        if let ValueDef::Result(def, _) = ir.body(body).value(plan.buffer).def {
            ir.body_mut(body).erase_op(def);
        }
    }
    Some(())
}
