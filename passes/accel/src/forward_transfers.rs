//! `forward-transfers`: a result one device copied back to the host's memory, which
//! another device's memory then copies in, goes from the one local memory to the
//! other by an engine the target declares between them (`dma ... between(dla_sram,
//! dsp_tcm)`), without passing through the host's memory (on loop-level IR, after
//! `bufferize` and `buffer-deallocation`, before `memory-plan` and `schedule-devices`).
//!
//! For `%t2 = hw.dma_start %home, %b` (`%home` a buffer of the host's memory, `%b`
//! of memory B) after `%t1 = hw.dma_start %a, %home` (`%a` of another memory A, not
//! the host's, the whole of `%home`'s buffer written), with nothing writing `%home`
//! or `%a` between them: `%t2` copies `%a` into `%b` with the engine between A and
//! B, waited for by that engine's wait; `%a`'s dealloc moves after that wait. When
//! nothing else reads `%home` (not returned, no other op), the copy back `%t1` goes,
//! with its buffer. What the function computes does not change (`--check-semantics`).

use acc_dialects::build::buffer_root;
use acc_dialects::ops::{func, hw, loops};
use acc_ir::{
    AttrData, BodyId, Context, Diagnostic, InsertPoint, Ir, OpId, TypeData, ValueDef, ValueId,
};
use acc_pass::{Pass, PassInfo, PassOptions, PassTarget};
use acc_target::Target;

/// The pass.
pub struct ForwardTransfers {
    target: String,
}

/// Its registration.
pub fn info() -> PassInfo {
    PassInfo {
        name: "forward-transfers",
        title: "ForwardTransfers",
        summary: "Copy a device's result straight into another device's memory by an engine between them, not through the host's memory",
        anchor: Some(func::Func::NAME),
        options: vec![acc_pass::target_option()],
        create: |o: &PassOptions| {
            Ok(Box::new(ForwardTransfers {
                target: o.get("target").to_string(),
            }))
        },
    }
}

impl Pass for ForwardTransfers {
    fn run(&self, t: &mut PassTarget<'_>) -> Result<(), Diagnostic> {
        let target = t.target(&self.target, "forward-transfers")?;
        for (body, _) in t.bodies().into_iter().take(1) {
            let loc = t.ir.op(t.body, t.op).loc();
            forward(t.ctx, t.ir, body, &target).map_err(|m| {
                Diagnostic::error(acc_ir::DiagLoc::Loc(loc), format!("forward-transfers: {m}"))
            })?;
        }
        Ok(())
    }
}

/// The memory space of a memref type (`None`: the host's memory).
pub(crate) fn space(ctx: &Context, ir: &Ir, body: BodyId, v: ValueId) -> Option<String> {
    match ctx.type_data(ir.body(body).value_type(v)) {
        TypeData::MemRef {
            memory_space: Some(s),
            ..
        } => match ctx.attr_data(*s) {
            AttrData::String { value, .. } => Some(ctx.str(*value).to_string()),
            _ => None,
        },
        _ => None,
    }
}

fn forward(ctx: &Context, ir: &mut Ir, body: BodyId, target: &Target) -> Result<(), String> {
    let host = target.host_memory().map(|m| m.name.clone());
    let in_host = |s: &Option<String>| s.is_none() || *s == host;
    let b = ir.body(body);
    let Some(block) = b.top_regions().first().and_then(|r| b.entry_block(*r)) else {
        return Ok(());
    };
    let ops: Vec<OpId> = b.block_ops(block).collect();
    for (k, &second) in ops.iter().enumerate() {
        let b = ir.body(body);
        if b.op_block(second).is_none() || !hw::DmaStart::is(ctx, ir.op(body, second)) {
            continue;
        }
        let (home, to) = (b.operand(second, 0), b.operand(second, 1));
        let to_space = space(ctx, ir, body, to);
        if !in_host(&space(ctx, ir, body, home)) || in_host(&to_space) {
            continue;
        }
        let root = buffer_root(ctx, ir, body, home);
        // The last op before touching the home buffer: it must be the copy back.
        let Some(first) = ops[..k]
            .iter()
            .rev()
            .copied()
            .find(|o| ir.body(body).op_block(*o).is_some() && touches(ctx, ir, body, *o, root))
        else {
            continue;
        };
        let r = ir.op(body, first);
        if !hw::DmaStart::is(ctx, r) {
            continue;
        }
        let (from, written) = (b.operand(first, 0), b.operand(first, 1));
        let from_space = space(ctx, ir, body, from);
        if written != home
            || buffer_root(ctx, ir, body, written) != written
            || in_host(&from_space)
            || from_space == to_space
        {
            continue;
        }
        let (Some(a), Some(bm)) = (&from_space, &to_space) else {
            continue;
        };
        let Some(engine) = target.dma_between(a, bm) else {
            continue;
        };
        // Nothing writes the source between the two copies.
        let from_root = buffer_root(ctx, ir, body, from);
        let between: Vec<OpId> = ops[..k]
            .iter()
            .copied()
            .skip_while(|o| *o != first)
            .skip(1)
            .filter(|o| ir.body(body).op_block(*o).is_some())
            .collect();
        if between.iter().any(|o| {
            writes(ctx, ir, body, *o, from_root) && !loops::Dealloc::is(ctx, ir.op(body, *o))
        }) {
            continue;
        }
        rewrite(ctx, ir, body, first, second, from, engine, &between)?;
    }
    Ok(())
}

/// Whether `op` (or an op in its regions) uses a view of the buffer `root`.
pub(crate) fn touches(ctx: &Context, ir: &Ir, body: BodyId, op: OpId, root: ValueId) -> bool {
    let mut found = false;
    each_nested(ir, body, op, &mut |o| {
        found |= ir
            .body(body)
            .operands(o)
            .any(|v| is_buffer(ctx, ir, body, v) && buffer_root(ctx, ir, body, v) == root);
    });
    found
}

/// Whether `op` may write the buffer `root`: it touches it other than as a DMA's
/// source or a load.
fn writes(ctx: &Context, ir: &Ir, body: BodyId, op: OpId, root: ValueId) -> bool {
    let mut found = false;
    each_nested(ir, body, op, &mut |o| {
        let r = ir.op(body, o);
        for (i, v) in ir.body(body).operands(o).enumerate() {
            if !is_buffer(ctx, ir, body, v) || buffer_root(ctx, ir, body, v) != root {
                continue;
            }
            let reads = (hw::DmaStart::is(ctx, r) && i == 0)
                || matches!(
                    loops::Op::of(ctx, r),
                    Some(
                        loops::Op::Load
                            | loops::Op::Vload
                            | loops::Op::Reshape
                            | loops::Op::Subview
                    )
                )
                || hw::Intrinsic::of(ctx, r)
                    .and_then(|c| c.inputs())
                    .is_some_and(|ins| ins.contains(&(i as i64)))
                    && !hw::Intrinsic::of(ctx, r)
                        .and_then(|c| c.outputs())
                        .is_some_and(|outs| outs.contains(&(i as i64)));
            found |= !reads;
        }
    });
    found
}

fn is_buffer(ctx: &Context, ir: &Ir, body: BodyId, v: ValueId) -> bool {
    matches!(
        ctx.type_data(ir.body(body).value_type(v)),
        TypeData::MemRef { .. }
    )
}

pub(crate) fn each_nested(ir: &Ir, body: BodyId, op: OpId, f: &mut dyn FnMut(OpId)) {
    f(op);
    let b = ir.body(body);
    let inner: Vec<OpId> = b
        .op_regions(op)
        .iter()
        .flat_map(|r| b.region_blocks(*r))
        .flat_map(|bl| b.block_ops(bl))
        .collect();
    for o in inner {
        each_nested(ir, body, o, f);
    }
}

/// `second` copies `from` with `engine`, waited for by the engine's wait where its
/// old wait was; `from`'s deallocs (among `between` and after) move after that
/// wait; `first` and its buffer go when nothing else reads the buffer.
#[allow(clippy::too_many_arguments)]
fn rewrite(
    ctx: &Context,
    ir: &mut Ir,
    body: BodyId,
    first: OpId,
    second: OpId,
    from: ValueId,
    engine: &acc_target::Dma,
    between: &[OpId],
) -> Result<(), String> {
    let home = ir.body(body).operand(second, 0);
    ir.body_mut(body).set_operand(second, 0, from);
    let new_wait = use_engine(ctx, ir, body, second, engine)?;
    // The source stays until the copy is done.
    let from_root = buffer_root(ctx, ir, body, from);
    let deallocs: Vec<OpId> = ir
        .body(body)
        .value_users(from_root)
        .filter(|u| loops::Dealloc::is(ctx, ir.op(body, *u)))
        .collect();
    for d in deallocs {
        if between.contains(&d) || ir.body(body).is_before_in_block(d, new_wait) {
            ir.body_mut(body).unlink_op(d);
            ir.body_mut(body)
                .insert_op(d, InsertPoint::Before(new_wait));
            ir.body_mut(body).move_op_before(new_wait, d);
        }
    }
    // The copy back, when only it and deallocs use the home buffer now.
    let users: Vec<OpId> = ir.body(body).value_users(home).collect();
    let unread = users
        .iter()
        .all(|u| *u == first || loops::Dealloc::is(ctx, ir.op(body, *u)));
    let is_alloc = match ir.body(body).value(home).def {
        ValueDef::Result(d, _) => loops::Alloc::is(ctx, ir.op(body, d)).then_some(d),
        _ => None,
    };
    if let (true, Some(alloc)) = (unread, is_alloc) {
        let back = ir
            .body(body)
            .results(first)
            .next()
            .ok_or("a transfer without a token")?;
        let waits: Vec<OpId> = ir.body(body).value_users(back).collect();
        for w in waits {
            let rest: Vec<ValueId> = ir.body(body).operands(w).filter(|v| *v != back).collect();
            replace_operands(ctx, ir, body, w, &rest)?;
        }
        ir.erase_op(body, first);
        for u in users.iter().filter(|u| **u != first) {
            ir.erase_op(body, *u);
        }
        ir.erase_op(body, alloc);
    }
    Ok(())
}

/// Makes the transfer `start` a copy by `engine`, waited for by the engine's wait
/// alone where its old wait was (which keeps waiting for its other tokens); that new
/// wait.
pub(crate) fn use_engine(
    ctx: &Context,
    ir: &mut Ir,
    body: BodyId,
    start: OpId,
    engine: &acc_target::Dma,
) -> Result<OpId, String> {
    let token = ir
        .body(body)
        .results(start)
        .next()
        .ok_or("a transfer without a token")?;
    set_call(ctx, ir, body, start, &engine.start)?;
    let old_wait = ir
        .body(body)
        .value_users(token)
        .find(|u| hw::DmaWait::is(ctx, ir.op(body, *u)))
        .ok_or("a transfer nothing waits for")?;
    let others: Vec<ValueId> = ir
        .body(body)
        .operands(old_wait)
        .filter(|v| *v != token)
        .collect();
    let loc = ir.op(body, old_wait).loc();
    let headers = ctx.dict_get(
        ir.op(body, old_wait).attrs(),
        acc_dialects::hooks::hw::HEADERS_ATTR,
    );
    let new_wait = {
        let mut e =
            acc_dialects::build::Builder::new(ctx, ir, body, InsertPoint::Before(old_wait), loc);
        hw::DmaWait::build(&mut e, &[token])
            .call(ctx.string_attr(&engine.wait))
            .create()?
    };
    if headers.is_some() {
        // The same headers as the old wait's (the target's).
        ir.body_mut(body).op_mut(new_wait).attrs = ir.body(body).op(old_wait).attrs;
    }
    replace_operands(ctx, ir, body, old_wait, &others)?;
    Ok(new_wait)
}

/// Makes the wait `op` wait for `tokens` only (a new wait with its attributes),
/// erasing it when there are none.
fn replace_operands(
    ctx: &Context,
    ir: &mut Ir,
    body: BodyId,
    op: OpId,
    tokens: &[ValueId],
) -> Result<(), String> {
    if !tokens.is_empty() {
        let data = ir.body(body).op(op).clone();
        let mut e =
            acc_dialects::build::Builder::new(ctx, ir, body, InsertPoint::Before(op), data.loc);
        let new = hw::DmaWait::build(&mut e, tokens).create()?;
        ir.body_mut(body).op_mut(new).attrs = data.attrs;
        ir.body_mut(body).op_mut(new).props = data.props;
    }
    ir.erase_op(body, op);
    Ok(())
}

fn set_call(ctx: &Context, ir: &mut Ir, body: BodyId, op: OpId, call: &str) -> Result<(), String> {
    acc_dialects::build::set_props(
        ctx,
        ir,
        body,
        op,
        &[(hw::DmaStart::ATTR_CALL, ctx.string_attr(call))],
        &[],
    )
}
