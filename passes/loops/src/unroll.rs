//! `unroll`: replaces each `loop.for` with constant bounds and at most `max-trip`
//! iterations (8 by default) by copies of its body, one per iteration, with the
//! induction variable a constant and the carried values passed from one copy to the
//! next. Inner loops are unrolled first, so a nest of small loops (the 3 x 3 window of
//! a depthwise convolution) becomes straight-line code when each level is small enough
//! and their product is too (`max-ops` bounds the ops a loop may grow into, 512 by
//! default).

use acc_dialects::build::BuildExt as _;
use acc_ir::{BodyId, Context, Diagnostic, InsertPoint, Ir, OpId, ValueId, clone};
use acc_pass::{OptionKind, Pass, PassInfo, PassOption, PassOptions, PassTarget};

use acc_dialects::build::{Builder, constant_int, ops_post_order};
use acc_dialects::ops::{func, loops};

/// The pass.
pub struct Unroll {
    max_trip: i64,
    max_ops: usize,
}

/// Its registration.
pub fn info() -> PassInfo {
    PassInfo {
        name: "unroll",
        title: "Unroll",
        summary: "Fully unroll loop.for loops with few iterations",
        anchor: Some(func::Func::NAME),
        options: vec![
            PassOption {
                name: "max-trip",
                description: "unroll loops of at most this many iterations",
                kind: OptionKind::Int,
                default: "8",
            },
            PassOption {
                name: "max-ops",
                description: "and whose unrolled body has at most this many ops",
                kind: OptionKind::Int,
                default: "512",
            },
        ],
        create: |o: &PassOptions| {
            let (max_trip, max_ops) = (o.int("max-trip"), o.int("max-ops"));
            if max_trip < 0 || max_ops < 0 {
                return Err("max-trip and max-ops must not be negative".into());
            }
            Ok(Box::new(Unroll {
                max_trip,
                max_ops: max_ops as usize,
            }))
        },
    }
}

impl Pass for Unroll {
    fn run(&self, t: &mut PassTarget<'_>) -> Result<(), Diagnostic> {
        for (body, _) in t.bodies() {
            // Innermost first: post-order.
            let loops: Vec<OpId> = ops_post_order(t.ir, body)
                .into_iter()
                .filter(|o| loops::For::is(t.ctx, t.ir.op(body, *o)))
                .collect();
            for l in loops {
                if t.ir.body(body).is_erased(l) {
                    continue;
                }
                let Some(trip) = trip_count(t.ctx, t.ir, body, l) else {
                    continue;
                };
                if trip > self.max_trip
                    || op_count(t.ir, body, l).saturating_mul(trip as usize) > self.max_ops
                {
                    continue;
                }
                unroll(t.ctx, t.ir, body, l, trip).map_err(|m| {
                    Diagnostic::error(acc_ir::DiagLoc::Unknown, format!("unroll: {m}"))
                })?;
            }
        }
        Ok(())
    }
}

/// The ops inside a loop (nested ones included).
fn op_count(ir: &Ir, body: BodyId, op: OpId) -> usize {
    let b = ir.body(body);
    b.op_regions(op)
        .iter()
        .flat_map(|r| b.region_blocks(*r))
        .flat_map(|blk| b.block_ops(blk))
        .map(|o| 1 + op_count(ir, body, o))
        .sum()
}

/// The iterations of a loop with constant bounds and a positive step.
fn trip_count(ctx: &Context, ir: &Ir, body: BodyId, l: OpId) -> Option<i64> {
    let b = ir.body(body);
    let c = |i: usize| constant_int(ctx, ir, body, b.operand(l, i));
    let (lb, ub, step) = (c(0)?, c(1)?, c(2)?);
    if step <= 0 || b.op_regions(l).len() != 1 {
        return None;
    }
    let region = b.op_regions(l)[0];
    if b.region_blocks(region).count() != 1 {
        return None;
    }
    Some(if ub > lb {
        (ub - lb + step - 1) / step
    } else {
        0
    })
}

fn unroll(ctx: &Context, ir: &mut Ir, body: BodyId, l: OpId, trip: i64) -> Result<(), String> {
    let b = ir.body(body);
    let operands: Vec<ValueId> = b.operands(l).collect();
    let results: Vec<ValueId> = b.results(l).collect();
    let lb = constant_int(ctx, ir, body, operands[0]).ok_or("a loop bound is not constant")?;
    let step = constant_int(ctx, ir, body, operands[2]).ok_or("a loop step is not constant")?;
    let region = b.op_regions(l)[0];
    let block = b.entry_block(region).ok_or("an empty loop")?;
    let args = b.block_args(block).to_vec();
    let ops: Vec<OpId> = b.block_ops(block).collect();
    let (terminator, inner) = ops.split_last().ok_or("a loop without a yield")?;
    let loc = ir.op(body, l).loc();
    let mut carried: Vec<ValueId> = operands[3..].to_vec();
    for k in 0..trip {
        let mut e = Builder::new(ctx, &mut *ir, body, InsertPoint::Before(l), loc);
        let iv = e.index(lb + k * step)?;
        let mut map = clone::ValueMap::default();
        map.values.insert(args[0], iv);
        for (a, v) in args[1..].iter().zip(&carried) {
            map.values.insert(*a, *v);
        }
        for o in inner {
            clone::clone_op(ir, body, *o, body, InsertPoint::Before(l), &mut map);
        }
        carried = ir
            .body(body)
            .operands(*terminator)
            .map(|v| map.values.get(&v).copied().unwrap_or(v))
            .collect();
    }
    for (r, v) in results.iter().zip(&carried) {
        ir.body_mut(body).replace_all_uses(*r, *v);
    }
    ir.body_mut(body).erase_op(l);
    Ok(())
}
