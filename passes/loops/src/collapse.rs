//! `collapse-parallel`: the trailing dimensions of a `loop.parallel` nest that every
//! access walks as one contiguous run become one dimension, so that the innermost
//! loop is long (what `vectorize` runs on vectors, and what code generation streams)
//! rather than a short row inside loops that each pay their own overhead.
//!
//! A concatenation's copy `(n, c, h, w) = (0, 0, 0, 0) to (1, 58, 28, 28)` reading
//! `a[n, c, h, w]` and writing `out[n, c + 58, h, w]` walks `h, w` as 784
//! consecutive elements of both buffers: it becomes `(n, c, h, w) = (0, 0, 0, 0) to
//! (1, 1, 1, 45472)` reading `a'[n, w]` and writing `out'[n, w + 45472]`, where `a'`
//! and `out'` are the buffers with their last three dimensions as one
//! (`loop.reshape`). The merged index runs in the last dimension; the dimensions it
//! replaces keep a single iteration, so the nest keeps its rank and its arguments.
//!
//! Dimensions `k..` (at least two) of a nest of rank `n` are collapsed when
//! - all of them have constant bounds and step 1, and every one after `k` starts at
//!   0;
//! - their induction variables are used only as the trailing indices of `loop.load`
//!   and `loop.store` ops, in order (dimension `k`'s possibly plus a constant, by an
//!   `arith.addi` used only so), each access having them as its last `n - k`
//!   indices and none of them among its others;
//! - each buffer so accessed is defined before the nest, has a static shape and the
//!   identity layout, and has exactly the nest's extents in the dimensions after
//!   `k`'s (whole rows, so the merged run is contiguous).
//!
//! The largest such run of dimensions is taken. Every iteration of the collapsed
//! nest accesses exactly the element the corresponding iteration accessed before,
//! so it computes the same values.

use acc_dialects::build::BuildExt as _;
use acc_ir::{
    BlockId, BodyId, Context, Diagnostic, InsertPoint, Ir, OpId, TypeData, ValueDef, ValueId,
};
use acc_pass::{Pass, PassInfo, PassOptions, PassTarget};
use rustc_hash::{FxHashMap, FxHashSet};

use acc_dialects::build::{Builder, constant_int, memref_type, shape_of};
use acc_dialects::ops::{arith, func, loops};

/// The pass.
pub struct CollapseParallel;

/// Its registration.
pub fn info() -> PassInfo {
    PassInfo {
        name: "collapse-parallel",
        title: "CollapseParallel",
        summary: "Merge the trailing dimensions of loop.parallel nests that every access walks contiguously",
        anchor: Some(func::Func::NAME),
        options: Vec::new(),
        create: |_: &PassOptions| Ok(Box::new(CollapseParallel)),
    }
}

impl Pass for CollapseParallel {
    fn run(&self, t: &mut PassTarget<'_>) -> Result<(), Diagnostic> {
        for (body, _) in t.bodies() {
            for nest in crate::outermost_parallel_nests(t.ctx, t.ir, body) {
                if let Some(plan) = analyze(t.ctx, t.ir, body, nest) {
                    rewrite(t.ctx, t.ir, body, nest, &plan).map_err(|m| {
                        Diagnostic::error(
                            acc_ir::DiagLoc::Unknown,
                            format!("collapse-parallel: {m}"),
                        )
                    })?;
                }
            }
        }
        Ok(())
    }
}

/// An access of a collapsed nest: the op, where its buffer operand and its indices
/// start, the constant added to dimension `k`'s index (with the `arith.addi` that
/// adds it), and the buffer.
struct Access {
    op: OpId,
    memref_at: usize,
    offset: Option<(OpId, i64)>,
    memref: ValueId,
}

/// How a nest collapses: its dimensions from `first` on become one of `lower..upper`
/// in the last dimension, `run` elements per iteration of dimension `first`.
struct Plan {
    first: usize,
    lower: i64,
    upper: i64,
    run: i64,
    accesses: Vec<Access>,
}

/// The ops and blocks inside `op` (at any depth).
fn contents(ir: &Ir, body: BodyId, op: OpId) -> (FxHashSet<OpId>, FxHashSet<BlockId>) {
    let b = ir.body(body);
    let (mut ops, mut blocks) = (FxHashSet::default(), FxHashSet::default());
    let mut stack: Vec<BlockId> = b
        .op_regions(op)
        .iter()
        .flat_map(|r| b.region_blocks(*r))
        .collect();
    while let Some(block) = stack.pop() {
        blocks.insert(block);
        for inner in b.block_ops(block) {
            ops.insert(inner);
            for r in b.op_regions(inner) {
                stack.extend(b.region_blocks(*r));
            }
        }
    }
    (ops, blocks)
}

/// The largest run of trailing dimensions of `nest` that collapses, if any.
fn analyze(ctx: &Context, ir: &Ir, body: BodyId, nest: OpId) -> Option<Plan> {
    let b = ir.body(body);
    let operands: Vec<ValueId> = b.operands(nest).collect();
    let n = operands.len() / 3;
    if n < 2 {
        return None;
    }
    let region = *b.op_regions(nest).first()?;
    let ivs = b.block_args(b.entry_block(region)?).to_vec();
    if ivs.len() != n {
        return None;
    }
    let constant = |v: ValueId| constant_int(ctx, ir, body, v);
    // The trailing dimensions with constant bounds and step 1, those after the first
    // starting at 0.
    let mut bounds = Vec::new();
    for d in (0..n).rev() {
        let (Some(lb), Some(ub), Some(1)) = (
            constant(operands[d]),
            constant(operands[n + d]),
            constant(operands[2 * n + d]),
        ) else {
            break;
        };
        if ub <= lb {
            break;
        }
        bounds.push((lb, ub));
        if lb != 0 {
            break;
        }
    }
    bounds.reverse();
    let inside = contents(ir, body, nest);
    for first in (n - bounds.len())..n - 1 {
        if let Some(plan) = try_collapse(
            ctx,
            ir,
            body,
            &ivs,
            first,
            &bounds[bounds.len() - (n - first)..],
            &inside,
        ) {
            return Some(plan);
        }
    }
    None
}

/// The plan collapsing dimensions `first..` (whose bounds are `bounds`), when every
/// use of their induction variables allows it.
fn try_collapse(
    ctx: &Context,
    ir: &Ir,
    body: BodyId,
    ivs: &[ValueId],
    first: usize,
    bounds: &[(i64, i64)],
    (inner_ops, inner_blocks): &(FxHashSet<OpId>, FxHashSet<BlockId>),
) -> Option<Plan> {
    let b = ir.body(body);
    let (lb, ub) = bounds[0];
    if bounds[1..].iter().any(|(l, _)| *l != 0) {
        return None;
    }
    let run = bounds[1..]
        .iter()
        .try_fold(1i64, |p, (_, u)| p.checked_mul(*u))?;
    // Index constants are built exactly up to 2^53.
    let exact = |v: i64| (v.unsigned_abs() <= 1 << 53).then_some(v);
    let (lower, upper) = (exact(lb.checked_mul(run)?)?, exact(ub.checked_mul(run)?)?);
    let collapsed = &ivs[first..];
    // Each access using a collapsed variable, by op.
    let mut accesses: FxHashMap<OpId, Access> = FxHashMap::default();
    let mut offsets: FxHashMap<ValueId, (OpId, i64)> = FxHashMap::default();
    // Uses of dimension `first`'s variable through `addi` by a constant.
    for user in b.value_users(ivs[first]) {
        let o = ir.op(body, user);
        if arith::Addi::is(ctx, o) {
            let ops: Vec<ValueId> = b.operands(user).collect();
            let other = if ops[0] == ivs[first] { ops[1] } else { ops[0] };
            let c = constant_int(ctx, ir, body, other)?;
            exact(c.checked_mul(run)?)?;
            offsets.insert(b.results(user).next()?, (user, c));
        }
    }
    let mut check_use = |user: OpId| -> Option<()> {
        if accesses.contains_key(&user) {
            return Some(());
        }
        let o = ir.op(body, user);
        let memref_at = match loops::Op::of(ctx, o) {
            Some(loops::Op::Load) => 0,
            Some(loops::Op::Store) => 1,
            _ => return None,
        };
        let ops: Vec<ValueId> = b.operands(user).collect();
        let memref = ops[memref_at];
        let indices = &ops[memref_at + 1..];
        let m = collapsed.len();
        if indices.len() < m
            || ops[..=memref_at]
                .iter()
                .any(|v| collapsed.contains(v) || offsets.contains_key(v))
        {
            return None;
        }
        let (lead, tail) = indices.split_at(indices.len() - m);
        if lead
            .iter()
            .any(|v| collapsed.contains(v) || offsets.contains_key(v))
        {
            return None;
        }
        let offset = if tail[0] == collapsed[0] {
            None
        } else {
            Some(*offsets.get(&tail[0])?)
        };
        if tail[1..] != collapsed[1..] {
            return None;
        }
        // A static, contiguous buffer from before the nest, whole in the inner
        // dimensions.
        let defined_inside = match b.value(memref).def {
            ValueDef::Result(op, _) => inner_ops.contains(&op),
            ValueDef::BlockArg(block, _) => inner_blocks.contains(&block),
            ValueDef::Detached => true,
        };
        let TypeData::MemRef {
            shape,
            layout: None,
            ..
        } = ctx.type_data(b.value_type(memref))
        else {
            return None;
        };
        let inner = &shape[shape.len() - m + 1..];
        let whole = inner.iter().zip(&bounds[1..]).all(|(s, (_, u))| s == u);
        if defined_inside || !whole || shape.iter().any(|s| *s < 0) {
            return None;
        }
        shape.iter().try_fold(1i64, |p, s| p.checked_mul(*s))?;
        accesses.insert(
            user,
            Access {
                op: user,
                memref_at,
                offset,
                memref,
            },
        );
        Some(())
    };
    for (d, iv) in collapsed.iter().enumerate() {
        for user in b.value_users(*iv) {
            if d == 0 && offsets.values().any(|(a, _)| *a == user) {
                continue;
            }
            check_use(user)?;
        }
    }
    for (result, _) in offsets.iter() {
        for user in b.value_users(*result) {
            check_use(user)?;
        }
    }
    // An access is inside the nest (a buffer defined before it may be used after).
    if accesses.keys().any(|op| !inner_ops.contains(op)) {
        return None;
    }
    let mut accesses: Vec<Access> = accesses.into_values().collect();
    accesses.sort_by_key(|a| a.op);
    Some(Plan {
        first,
        lower,
        upper,
        run,
        accesses,
    })
}

/// Rewrites `nest` by `plan`.
fn rewrite(
    ctx: &Context,
    ir: &mut Ir,
    body: BodyId,
    nest: OpId,
    plan: &Plan,
) -> Result<(), String> {
    let n = ir.body(body).operands(nest).len() / 3;
    let loc = ir.op(body, nest).loc();
    let m = n - plan.first;
    let ivs: Vec<ValueId> = {
        let b = ir.body(body);
        let region = b.op_regions(nest)[0];
        let block = b.entry_block(region).ok_or("an empty loop.parallel")?;
        b.block_args(block).to_vec()
    };
    let merged = ivs[n - 1];
    // The bounds: one iteration of each replaced dimension, the merged run last.
    let mut views: FxHashMap<ValueId, ValueId> = FxHashMap::default();
    {
        let mut e = Builder::new(ctx, &mut *ir, body, InsertPoint::Before(nest), loc);
        let (zero, one) = (e.index(0)?, e.index(1)?);
        let (lower, upper) = (e.index(plan.lower)?, e.index(plan.upper)?);
        for a in &plan.accesses {
            if views.contains_key(&a.memref) {
                continue;
            }
            let (shape, element) = shape_of(ctx, e.ir.body(body).value_type(a.memref))?;
            let mut joined = shape[..shape.len() - m].to_vec();
            joined.push(shape[shape.len() - m..].iter().product());
            let ty = memref_type(ctx, &joined, element);
            let view = e.op(loops::Reshape::NAME, &[a.memref], &[ty], &[])?[0];
            views.insert(a.memref, view);
        }
        for d in plan.first..n - 1 {
            e.ir.body_mut(body).set_operand(nest, d, zero);
            e.ir.body_mut(body).set_operand(nest, n + d, one);
        }
        e.ir.body_mut(body).set_operand(nest, n - 1, lower);
        e.ir.body_mut(body).set_operand(nest, 2 * n - 1, upper);
    }
    // The accesses, at the merged index (plus the offset times the run).
    let index_ty = ctx.index_type();
    for a in &plan.accesses {
        let op_loc = ir.op(body, a.op).loc();
        let operands: Vec<ValueId> = ir.body(body).operands(a.op).collect();
        let results: Vec<ValueId> = ir.body(body).results(a.op).collect();
        let mut e = Builder::new(ctx, &mut *ir, body, InsertPoint::Before(a.op), op_loc);
        let at = match a.offset {
            None => merged,
            Some((_, c)) => {
                // (In range: checked by the analysis.)
                let shift = e.index(c * plan.run)?;
                e.op(arith::Addi::NAME, &[merged, shift], &[index_ty], &[])?[0]
            }
        };
        let mut new_operands = operands[..a.memref_at].to_vec();
        new_operands.push(views[&a.memref]);
        let indices = &operands[a.memref_at + 1..];
        new_operands.extend_from_slice(&indices[..indices.len() - m]);
        new_operands.push(at);
        let name = if a.memref_at == 0 {
            loops::Load::NAME
        } else {
            loops::Store::NAME
        };
        let result_types: Vec<_> = results
            .iter()
            .map(|r| e.ir.body(body).value_type(*r))
            .collect();
        let new = e.op(name, &new_operands, &result_types, &[])?;
        for (old, new) in results.iter().zip(new) {
            ir.body_mut(body).replace_all_uses(*old, new);
        }
        ir.body_mut(body).erase_op(a.op);
    }
    for a in &plan.accesses {
        if let Some((addi, _)) = a.offset
            && !ir.body(body).is_erased(addi)
            && ir
                .body(body)
                .results(addi)
                .all(|r| !ir.body(body).has_uses(r))
        {
            ir.body_mut(body).erase_op(addi);
        }
    }
    Ok(())
}
