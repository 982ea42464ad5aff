//! `buffer-deallocation`: frees every buffer a function allocates (`loop.alloc` at
//! its top level) right after the last op that uses it or a view of it
//! (`loop.reshape`, `loop.subview`), counting uses inside nested loops as uses by the
//! loop; a buffer an `hw.dma_start` copies is in use until the `hw.dma_wait` of its
//! token. Buffers that the function returns, or whose views it returns, are left to
//! the caller. Without it, each call of a bufferized function leaks its
//! intermediate buffers.

use acc_ir::{BodyId, Context, Diagnostic, InsertPoint, Ir, OpId, ValueDef, ValueId};
use acc_pass::{Pass, PassInfo, PassOptions, PassTarget};
use rustc_hash::FxHashMap;

use acc_dialects::build::Builder;
use acc_dialects::ops::{func, hw, loops};

/// The pass.
pub struct BufferDeallocation;

/// Its registration.
pub fn info() -> PassInfo {
    PassInfo {
        name: "buffer-deallocation",
        title: "BufferDeallocation",
        summary: "Free each buffer a function allocates after its last use (views included)",
        anchor: Some(func::Func::NAME),
        options: Vec::new(),
        create: |_: &PassOptions| Ok(Box::new(BufferDeallocation)),
    }
}

impl Pass for BufferDeallocation {
    fn run(&self, t: &mut PassTarget<'_>) -> Result<(), Diagnostic> {
        for (body, _) in t.bodies() {
            deallocate(t.ctx, t.ir, body).map_err(|m| {
                Diagnostic::error(
                    acc_ir::DiagLoc::Unknown,
                    format!("buffer-deallocation: {m}"),
                )
            })?;
        }
        Ok(())
    }
}

/// The top-level op of `body` that contains `op` (itself when top-level).
fn top_level(ir: &Ir, body: BodyId, mut op: OpId, tops: &FxHashMap<OpId, usize>) -> Option<OpId> {
    loop {
        if tops.contains_key(&op) {
            return Some(op);
        }
        let parent = ir.op(body, op).parent_op()?;
        if parent.body != body {
            return None;
        }
        op = parent.op;
    }
}

fn deallocate(ctx: &Context, ir: &mut Ir, body: BodyId) -> Result<(), String> {
    let b = ir.body(body);
    let Some(&region) = b.top_regions().first() else {
        return Ok(());
    };
    let blocks: Vec<_> = b.region_blocks(region).collect();
    if blocks.len() != 1 {
        // Branches would need deallocation on every path: left alone.
        return Ok(());
    }
    let ops: Vec<OpId> = b.block_ops(blocks[0]).collect();
    let tops: FxHashMap<OpId, usize> = ops.iter().enumerate().map(|(i, o)| (*o, i)).collect();
    // Each allocation, and the values that alias it.
    let mut root: FxHashMap<ValueId, ValueId> = FxHashMap::default();
    let mut allocs = Vec::new();
    for &o in &ops {
        match loops::Op::of(ctx, ir.op(body, o)) {
            Some(loops::Op::Alloc) => {
                if let Some(v) = ir.body(body).results(o).next() {
                    root.insert(v, v);
                    allocs.push(v);
                }
            }
            Some(loops::Op::Reshape | loops::Op::Subview) => {
                let src = ir.body(body).operands(o).next();
                let out = ir.body(body).results(o).next();
                if let (Some(s), Some(r)) = (src, out)
                    && let Some(&base) = root.get(&s)
                {
                    root.insert(r, base);
                }
            }
            _ => {}
        }
    }
    // The last top-level op using each allocation (through any alias); returned ones
    // are not freed.
    let mut last: FxHashMap<ValueId, usize> = FxHashMap::default();
    let mut returned = Vec::new();
    for (&v, &base) in &root {
        for user in ir.body(body).value_users(v).collect::<Vec<_>>() {
            let Some(top) = top_level(ir, body, user, &tops) else {
                continue;
            };
            if func::Return::is(ctx, ir.op(body, top)) {
                returned.push(base);
            }
            let mut i = tops[&top];
            // A transfer reads and writes its buffers until it is waited for.
            if hw::DmaStart::is(ctx, ir.op(body, top))
                && let Some(token) = ir.body(body).results(top).next()
            {
                for waiter in ir.body(body).value_users(token) {
                    if let Some(w) = top_level(ir, body, waiter, &tops) {
                        i = i.max(tops[&w]);
                    }
                }
            }
            let e = last.entry(base).or_insert(i);
            *e = (*e).max(i);
        }
        if let ValueDef::Result(def, _) = ir.body(body).value(v).def {
            let i = tops.get(&def).copied().unwrap_or(0);
            let e = last.entry(base).or_insert(i);
            *e = (*e).max(i);
        }
    }
    for base in allocs {
        if returned.contains(&base) {
            continue;
        }
        let Some(&i) = last.get(&base) else {
            continue;
        };
        // After the op at index i: before the next op (the terminator at the latest).
        let Some(&next) = ops.get(i + 1) else {
            continue;
        };
        let loc = ir.op(body, ops[i]).loc();
        let mut e = Builder::new(ctx, &mut *ir, body, InsertPoint::Before(next), loc);
        loops::Dealloc::build(&mut e, base).create()?;
    }
    Ok(())
}
