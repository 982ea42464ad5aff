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

use acc_ir::{BlockId, BodyId, Context, Diagnostic, InsertPoint, Ir, OpId, ValueDef, ValueId};
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
/// while one fused something, since a fusion can clear the way for another.
///
/// Near-linear in the block's ops: each nest is read once per sweep into a
/// [`Summary`] (a fused nest's is the two summaries merged), the only candidates for
/// `P` are the latest nests writing a buffer `Q` reads, and a fusion moves `Q`'s ops
/// into `P` (which then takes `Q`'s place) rather than copying `P`'s growing body.
fn fuse_block(ctx: &Context, ir: &mut Ir, body: BodyId, block: BlockId) {
    loop {
        let ops: Vec<OpId> = ir.body(body).block_ops(block).collect();
        let mut fused = false;
        // The nests since the last op that is neither a nest nor a constant, allocation
        // or view, in order (`None` where one was fused into a later one).
        let mut earlier: Vec<Option<OpId>> = Vec::new();
        // The position in `earlier` of the latest nest writing each buffer.
        let mut writer: FxHashMap<ValueId, usize> = FxHashMap::default();
        let mut summaries: FxHashMap<OpId, Summary> = FxHashMap::default();
        for op in ops {
            if ir.body(body).is_erased(op) {
                continue;
            }
            match kind(ctx, ir, body, op) {
                Some(loops::Op::Parallel) => {
                    let q = summary_of(&mut summaries, ctx, ir, body, op).clone();
                    let mut candidates: Vec<usize> = q
                        .loads
                        .iter()
                        .filter_map(|l| writer.get(&l.root).copied())
                        .collect();
                    candidates.sort_unstable();
                    candidates.dedup();
                    let mut taken = None;
                    for &k in candidates.iter().rev() {
                        let Some(p) = earlier[k] else { continue };
                        if q.bounds.is_none() || summaries[&p].bounds != q.bounds {
                            continue;
                        }
                        let Some(plan) = fusible(ctx, ir, body, (p, &summaries[&p]), (op, &q))
                        else {
                            continue;
                        };
                        let p_reads = &summaries[&p].reads;
                        let clear = earlier[k + 1..].iter().flatten().all(|x| {
                            let x = &summaries[x];
                            !x.reads.contains(&plan.target)
                                && !x.writes.contains(&plan.target)
                                && x.writes.is_disjoint(p_reads)
                        });
                        if clear {
                            let p_summary = summaries.remove(&p).unwrap_or_default();
                            let merged = fuse(ctx, ir, body, p, op, plan, p_summary, q.clone());
                            summaries.remove(&op);
                            summaries.insert(p, merged);
                            earlier[k] = None;
                            taken = Some(p);
                            break;
                        }
                    }
                    let nest = match taken {
                        Some(p) => {
                            fused = true;
                            p
                        }
                        None => op,
                    };
                    let at = earlier.len();
                    earlier.push(Some(nest));
                    for root in &summaries[&nest].writes {
                        writer.insert(*root, at);
                    }
                }
                Some(loops::Op::Alloc | loops::Op::Reshape | loops::Op::Subview) => {}
                _ if arith::Constant::is(ctx, ir.op(body, op)) => {}
                _ => {
                    earlier.clear();
                    writer.clear();
                }
            }
        }
        if !fused {
            return;
        }
    }
}

/// A load or store in a nest.
#[derive(Clone)]
struct Access {
    op: OpId,
    /// The buffer (or view) accessed, and the buffer under its views.
    buffer: ValueId,
    root: ValueId,
    /// Whether its indices are the nest's induction variables, in order.
    at_ivs: bool,
    /// Whether it is directly in the nest's block (not in a loop inside it).
    top: bool,
    /// Whether it is a vector access (`loop.vload`, `loop.vstore`).
    vector: bool,
}

/// What fusion needs to know of a nest, read once (and merged when nests fuse).
#[derive(Clone, Default)]
struct Summary {
    /// Its bounds and steps, when all are constants.
    bounds: Option<Vec<i64>>,
    loads: Vec<Access>,
    stores: Vec<Access>,
    /// The buffers it reads and writes (under their views).
    reads: FxHashSet<ValueId>,
    writes: FxHashSet<ValueId>,
    /// Whether every op besides scalar loads and stores is pure or structural
    /// ([`pure_or_structural`]; a vector load is not).
    pure: bool,
}

/// The summary of nest `op`, read at the first need.
fn summary_of<'s>(
    cache: &'s mut FxHashMap<OpId, Summary>,
    ctx: &Context,
    ir: &Ir,
    body: BodyId,
    op: OpId,
) -> &'s Summary {
    cache
        .entry(op)
        .or_insert_with(|| summarize(ctx, ir, body, op))
}

/// Reads nest `op`.
fn summarize(ctx: &Context, ir: &Ir, body: BodyId, op: OpId) -> Summary {
    let b = ir.body(body);
    let mut s = Summary {
        bounds: constant_bounds(ctx, ir, body, op),
        pure: true,
        ..Summary::default()
    };
    let Some((block, ivs)) = nest(ir, body, op) else {
        s.pure = false;
        return s;
    };
    let mut ops = Vec::new();
    all_ops(ir, body, block, &mut ops);
    for o in ops {
        let access = |buffer: ValueId, from: usize, vector: bool| Access {
            op: o,
            buffer,
            root: buffer_root(ctx, ir, body, buffer),
            at_ivs: b.operands(o).skip(from).eq(ivs.iter().copied()),
            top: b.op_block(o) == Some(block),
            vector,
        };
        match kind(ctx, ir, body, o) {
            Some(k @ (loops::Op::Load | loops::Op::Vload)) => {
                let a = access(b.operand(o, 0), 1, k == loops::Op::Vload);
                s.reads.insert(a.root);
                // A vector load makes the nest unfusible, as any op the list does not know.
                s.pure &= !a.vector;
                s.loads.push(a);
            }
            Some(k @ (loops::Op::Store | loops::Op::Vstore)) => {
                let a = access(b.operand(o, 1), 2, k == loops::Op::Vstore);
                s.writes.insert(a.root);
                s.stores.push(a);
            }
            _ => s.pure &= pure_or_structural(ctx, ir, body, o),
        }
    }
    s
}

/// The one block of a nest and its induction variables.
fn nest(ir: &Ir, body: BodyId, op: OpId) -> Option<(BlockId, Vec<ValueId>)> {
    let b = ir.body(body);
    let region = *b.op_regions(op).first()?;
    let block = b.entry_block(region)?;
    Some((block, b.block_args(block).to_vec()))
}

/// Every op inside a nest (nested regions included), without recursion.
fn all_ops(ir: &Ir, body: BodyId, block: BlockId, out: &mut Vec<OpId>) {
    let b = ir.body(body);
    let mut blocks = vec![block];
    while let Some(blk) = blocks.pop() {
        for op in b.block_ops(blk) {
            out.push(op);
            for r in b.op_regions(op) {
                blocks.extend(b.region_blocks(*r));
            }
        }
    }
}

/// What fusing `p` into `q` needs: the buffer `p` writes (and the buffer under its
/// views), `p`'s store of it, and `q`'s loads of it.
struct Plan {
    buffer: ValueId,
    target: ValueId,
    store: OpId,
    loads: Vec<OpId>,
}

/// A nest's bounds and steps, when all are constants.
fn constant_bounds(ctx: &Context, ir: &Ir, body: BodyId, op: OpId) -> Option<Vec<i64>> {
    ir.body(body)
        .operands(op)
        .map(|v| constant_int(ctx, ir, body, v))
        .collect()
}

/// Whether `p` can move into `q` (whose bounds the caller found equal).
fn fusible(
    ctx: &Context,
    ir: &Ir,
    body: BodyId,
    (p, ps): (OpId, &Summary),
    (q, qs): (OpId, &Summary),
) -> Option<Plan> {
    let device = |o| acc_dialects::hooks::hw::placed_device(ctx, ir.op(body, o));
    if device(p) != device(q) || !ps.pure || !qs.pure {
        return None;
    }
    // P: exactly one store, scalar, directly in its block, at its indices.
    let [store] = ps.stores.as_slice() else {
        return None;
    };
    if store.vector || !store.top || !store.at_ivs || ps.reads.contains(&store.root) {
        return None;
    }
    let target = store.root;
    // Q: reads of B at its indices only; writes to neither B nor what P reads.
    let mut loads = Vec::new();
    for l in qs.loads.iter().filter(|l| l.root == target) {
        if l.buffer != store.buffer || !l.at_ivs {
            return None;
        }
        loads.push(l.op);
    }
    if qs
        .stores
        .iter()
        .any(|s| s.root == target || ps.reads.contains(&s.root))
    {
        return None;
    }
    (!loads.is_empty()).then_some(Plan {
        buffer: store.buffer,
        target,
        store: store.op,
        loads,
    })
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

/// Fuses `p` into `q` by `plan` (which [`fusible`] made from their summaries): `q`'s
/// ops move to the end of `p`'s body, on `p`'s indices, reading the value `p` stored
/// instead of loading it; `p` takes `q`'s place, attributes and location, and `q` is
/// erased. The fused nest's summary.
#[allow(clippy::too_many_arguments)]
fn fuse(
    ctx: &Context,
    ir: &mut Ir,
    body: BodyId,
    p: OpId,
    q: OpId,
    plan: Plan,
    mut ps: Summary,
    qs: Summary,
) -> Summary {
    let (p_block, p_ivs) = nest(ir, body, p).expect("a fusible nest has a block");
    let (q_block, q_ivs) = nest(ir, body, q).expect("a fusible nest has a block");
    let value = ir.body(body).operand(plan.store, 0);
    let p_end = ir
        .body(body)
        .last_op(p_block)
        .filter(|y| loops::Yield::is(ctx, ir.op(body, *y)));
    let b = ir.body_mut(body);
    for (qi, pi) in q_ivs.iter().zip(&p_ivs) {
        b.replace_all_uses(*qi, *pi);
    }
    for l in &plan.loads {
        let r = b.results(*l).next().expect("a load has a result");
        b.replace_all_uses(r, value);
        b.erase_op(*l);
    }
    let moved: Vec<OpId> = ir
        .body(body)
        .block_ops(q_block)
        .filter(|o| !loops::Yield::is(ctx, ir.op(body, *o)))
        .collect();
    let b = ir.body_mut(body);
    for o in moved {
        b.unlink_op(o);
        b.insert_op(
            o,
            match p_end {
                Some(y) => InsertPoint::Before(y),
                None => InsertPoint::End(p_block),
            },
        );
    }
    let (loc, attrs, props) = {
        let d = b.op(q);
        (d.loc, d.attrs, d.props)
    };
    let d = b.op_mut(p);
    (d.loc, d.attrs, d.props) = (loc, attrs, props);
    b.move_op_before(p, q);
    b.erase_op(q);
    // The fused nest: both summaries, less the loads replaced.
    let gone: FxHashSet<OpId> = plan.loads.iter().copied().collect();
    ps.loads
        .extend(qs.loads.into_iter().filter(|l| !gone.contains(&l.op)));
    ps.reads.extend(qs.reads);
    // Q's every read of B was one of the loads replaced, and P reads no B.
    ps.reads.remove(&plan.target);
    ps.stores.extend(qs.stores);
    ps.writes.extend(qs.writes);
    ps.pure &= qs.pure;
    // A buffer nothing else uses is not needed at all.
    let users: Vec<OpId> = ir.body(body).value_users(plan.buffer).collect();
    let only_written = users
        .iter()
        .all(|u| *u == plan.store || loops::Dealloc::is(ctx, ir.op(body, *u)));
    let allocated = matches!(ir.body(body).value(plan.buffer).def,
        ValueDef::Result(def, _) if loops::Alloc::is(ctx, ir.op(body, def)));
    if only_written && allocated {
        for u in users {
            ir.body_mut(body).erase_op(u);
        }
        if let ValueDef::Result(def, _) = ir.body(body).value(plan.buffer).def {
            ir.body_mut(body).erase_op(def);
        }
        ps.stores.retain(|s| s.op != plan.store);
        ps.writes.remove(&plan.target);
    }
    ps
}
