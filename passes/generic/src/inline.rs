//! `inline`: replaces `func.call`s to functions of the module by the callee's body
//! (a copy of its single block, with the returned values in place of the call's
//! results), repeatedly, so calls inside inlined bodies are inlined too. Recursive
//! calls, calls to a function that calls itself, calls marked `no_inline`, and callees
//! with several blocks are left alone.
//! Callees that end up unused stay: `symbol-dce` erases the private ones.
//!
//! Each round looks callees up in a table of the module's functions built once, and
//! the ops copied are counted against the memory budget (`acc_ir::budget`, 256 bytes
//! an op): inlining a chain of calls doubles its code each round, and past the budget
//! the pass fails at the call instead of exhausting the machine.

use acc_dialects::ops::{builtin, func};
use acc_ir::attrs::AttrData;
use acc_ir::clone::{ValueMap, clone_op};
use acc_ir::layout::InsertPoint;
use acc_ir::{BodyId, DiagLoc, Diagnostic, OpId, ValueId};
use acc_pass::{OptionKind, Pass, PassInfo, PassOption, PassOptions, PassTarget};
use rustc_hash::{FxHashMap, FxHashSet};

/// The pass.
pub struct Inline {
    max_rounds: u32,
}

/// Its registration.
pub fn info() -> PassInfo {
    PassInfo {
        name: "inline",
        title: "Inliner",
        summary: "Inline calls to functions of the module",
        anchor: Some(builtin::Module::NAME),
        options: vec![PassOption {
            name: "max-rounds",
            description: "times calls in inlined bodies are inlined in turn",
            kind: OptionKind::Int,
            default: "8",
        }],
        create: |o: &PassOptions| {
            Ok(Box::new(Inline {
                max_rounds: u32::try_from(o.int("max-rounds"))
                    .ok()
                    .filter(|n| *n >= 1)
                    .ok_or("max-rounds must be at least 1")?,
            }))
        },
    }
}

/// What one inlined op is taken to cost in memory, for the growth budget.
const BYTES_PER_OP: u64 = 256;

impl Pass for Inline {
    fn run(&self, t: &mut PassTarget<'_>) -> Result<(), Diagnostic> {
        let ctx = t.ctx;
        let module_body = t.ir.region_body(t.body, t.op);
        // Ops inlining may add before the module outgrows the memory budget: inlining
        // a call chain copies each callee into every caller above it, round after round.
        let max_ops = acc_ir::budget::max_bytes() / BYTES_PER_OP;
        let mut added = 0u64;
        for _ in 0..self.max_rounds {
            let functions = module_functions(t.ir, module_body, ctx);
            // Calls and the body of the function they are in.
            let mut calls: Vec<(BodyId, OpId, OpId)> = Vec::new();
            t.ir.walk_nested(t.body, t.op, &mut |b, o| {
                let Some(call) = func::Call::of(ctx, t.ir.op(b, o)) else {
                    return;
                };
                if call.no_inline() {
                    return;
                }
                let Some(AttrData::SymbolRef { root, nested }) =
                    call.callee_attr().map(|c| ctx.attr_data(c))
                else {
                    return;
                };
                if !nested.is_empty() {
                    return;
                }
                if let Some(&callee) = functions.get(root) {
                    calls.push((b, o, callee));
                }
            });
            // A function calling itself is not inlined anywhere: each copy would bring
            // its call along, and rounds would grow the caller without end (MLIR's
            // inliner keeps a history for the same reason).
            let recursive: FxHashSet<OpId> = calls
                .iter()
                .filter(|(b, _, callee)| t.ir.body(module_body).nested_body(*callee) == Some(*b))
                .map(|(_, _, callee)| *callee)
                .collect();
            let mut inlined = 0;
            for (body, call, callee) in calls {
                if recursive.contains(&callee) {
                    continue;
                }
                let loc = t.ir.op(body, call).loc();
                let before = t.ir.body(body).created_ops();
                if inline_call(t, body, call, module_body, callee) {
                    inlined += 1;
                }
                added += (t.ir.body(body).created_ops() - before) as u64;
                if added > max_ops {
                    return Err(Diagnostic::error(
                        DiagLoc::Loc(loc),
                        format!(
                            "inlining made the module grow by more than {max_ops} ops, more \
                             than the memory budget of {} allows (--max-memory raises it; \
                             a smaller max-rounds inlines less)",
                            acc_ir::budget::describe(acc_ir::budget::max_bytes())
                        ),
                    ));
                }
            }
            if inlined == 0 {
                break;
            }
        }
        Ok(())
    }
}

/// The `func.func`s of the module by name (the first of two of one name).
fn module_functions(
    ir: &acc_ir::Ir,
    module_body: BodyId,
    ctx: &acc_ir::Context,
) -> FxHashMap<acc_ir::Sym, OpId> {
    let body = ir.body(module_body);
    let mut functions = FxHashMap::default();
    let Some(&top) = body.top_regions().first() else {
        return functions;
    };
    for o in body.region_blocks(top).flat_map(|b| body.block_ops(b)) {
        let Some(f) = func::Func::of(ctx, ir.op(module_body, o)) else {
            continue;
        };
        if let Some(AttrData::String { value, .. }) = f.sym_name_attr().map(|n| ctx.attr_data(n)) {
            functions.entry(*value).or_insert(o);
        }
    }
    functions
}

/// Inlines one call; false when the callee cannot be inlined there.
fn inline_call(
    t: &mut PassTarget<'_>,
    body: BodyId,
    call: OpId,
    module_body: BodyId,
    callee: OpId,
) -> bool {
    let ctx = t.ctx;
    let Some(callee_body) = t.ir.body(module_body).nested_body(callee) else {
        return false;
    };
    if callee_body == body || t.ir.body(body).is_erased(call) {
        return false;
    }
    let region = match t.ir.body(callee_body).top_regions() {
        [r] => *r,
        _ => return false,
    };
    let blocks: Vec<_> = t.ir.body(callee_body).region_blocks(region).collect();
    let [entry] = blocks[..] else {
        return false;
    };
    let Some(ret) = t.ir.body(callee_body).last_op(entry) else {
        return false;
    };
    if !func::Return::is(ctx, t.ir.op(callee_body, ret)) {
        return false;
    }
    let mut map = ValueMap::default();
    let args: Vec<ValueId> = t.ir.body(callee_body).block_args(entry).to_vec();
    let operands: Vec<ValueId> = t.ir.body(body).operands(call).collect();
    if args.len() != operands.len() {
        return false;
    }
    for (a, v) in args.into_iter().zip(operands) {
        map.values.insert(a, v);
    }
    let ops: Vec<OpId> =
        t.ir.body(callee_body)
            .block_ops(entry)
            .filter(|o| *o != ret)
            .collect();
    for o in ops {
        clone_op(
            t.ir,
            callee_body,
            o,
            body,
            InsertPoint::Before(call),
            &mut map,
        );
    }
    let returned: Vec<ValueId> =
        t.ir.body(callee_body)
            .operands(ret)
            .map(|v| map.values.get(&v).copied().unwrap_or(v))
            .collect();
    let results: Vec<ValueId> = t.ir.body(body).results(call).collect();
    let b = t.ir.body_mut(body);
    for (r, v) in results.into_iter().zip(returned) {
        b.replace_all_uses(r, v);
    }
    t.ir.erase_op(body, call);
    true
}
