//! Reductions along the innermost, contiguous dimension: a `loop.for` whose carried
//! values each combine one new value per iteration (`acc = combine(acc, f(x[.., i]))`
//! with `arith.addf`, `mulf`, `maximumf` or `minimumf` on f32), run on vectors.
//!
//! The loop runs `CHAINS` vector accumulators of one register's f32 lanes each (4 on
//! the host), started from the combiner's identity, over the whole multiples of
//! `CHAINS` vectors of iterations (each chain takes every fourth vector, so the
//! additions of one chain do not wait for the others);
//! the chains are then combined, their lanes reduced (`loop.vreduce`), the loop's own
//! start folded in, and the original loop runs the remaining iterations from there.
//!
//! This reassociates the combination: exact for max and min, within rounding for sums
//! and products (as `--check-semantics`' tolerance allows; MLIR's vectorizer asks for
//! the `reassoc` flag for the same reason).

use acc_dialects::build::BuildExt as _;
use acc_ir::{BodyId, Context, InsertPoint, Ir, OpId, TypeData, TypeId, ValueDef, ValueId};
use rustc_hash::FxHashMap;

use super::{Analysis, Class, VectorUnit};
use acc_dialects::build::{Builder, constant_int};
use acc_dialects::ops::{arith, loops};

/// Vector accumulators per carried value.
const CHAINS: i64 = 4;

/// The reductions found and vectorized inside `nest`; how many.
pub(super) fn vectorize_reductions(
    ctx: &Context,
    ir: &mut Ir,
    body: BodyId,
    nest: OpId,
    unit: VectorUnit,
) -> Result<usize, String> {
    // One element width: the accumulators are f32 vectors.
    let unit = VectorUnit {
        lane_by_lane: false,
        ..unit
    };
    let mut loops = Vec::new();
    ir.walk_nested(body, nest, &mut |b, op| {
        if b == body && loops::For::is(ctx, ir.op(b, op)) {
            loops.push(op);
        }
    });
    let mut done = 0;
    for l in loops {
        if let Some(plan) = plan(ctx, ir, body, l, unit) {
            rewrite(ctx, ir, body, l, &plan)?;
            done += 1;
        }
    }
    Ok(done)
}

/// How one carried value is combined.
#[derive(Clone, Copy)]
struct Combiner {
    /// The `arith` op.
    op: arith::Op,
    /// Its `loop.vreduce` kind.
    kind: &'static str,
    /// Its identity.
    identity: f64,
}

const COMBINERS: [Combiner; 4] = [
    Combiner {
        op: arith::Op::Addf,
        kind: "add",
        identity: -0.0,
    },
    Combiner {
        op: arith::Op::Mulf,
        kind: "mul",
        identity: 1.0,
    },
    Combiner {
        op: arith::Op::Maximumf,
        kind: "max",
        identity: f64::NEG_INFINITY,
    },
    Combiner {
        op: arith::Op::Minimumf,
        kind: "min",
        identity: f64::INFINITY,
    },
];

/// A loop that can be vectorized: the classes of its body's values, each carried
/// value's combiner, and its bounds.
struct Plan {
    class: FxHashMap<ValueId, Class>,
    combiners: Vec<Combiner>,
    /// f32 lanes of a vector.
    lanes: i64,
    lower: i64,
    /// Where the vector loop stops (lower + a whole number of CHAINS x lanes).
    split: i64,
    upper: i64,
}

fn plan(ctx: &Context, ir: &Ir, body: BodyId, l: OpId, unit: VectorUnit) -> Option<Plan> {
    let b = ir.body(body);
    let operands: Vec<ValueId> = b.operands(l).collect();
    let bound = |i: usize| constant_int(ctx, ir, body, operands[i]);
    let (lower, upper, step) = (bound(0)?, bound(1)?, bound(2)?);
    let lanes = i64::from(unit.bits / 32);
    let whole = CHAINS * lanes;
    let split = lower + (upper - lower) / whole * whole;
    if step != 1 || split == lower || operands.len() < 4 {
        return None;
    }
    let f32 = ctx.float_type(acc_ir::FloatKind::F32);
    let block = b.entry_block(*b.op_regions(l).first()?)?;
    let args = b.block_args(block).to_vec();
    if args[1..].iter().any(|a| b.value_type(*a) != f32) {
        return None;
    }
    if b.block_ops(block).any(|op| !b.op_regions(op).is_empty()) {
        return None;
    }
    let mut a = Analysis::new(ctx, ir, body, unit);
    a.class.insert(args[0], Class::Lane(1));
    for carried in &args[1..] {
        a.class.insert(*carried, Class::Vector);
    }
    let terminator = b.block_ops(block).last()?;
    for op in b.block_ops(block) {
        if op != terminator {
            a.op(op)?;
        }
    }
    // Only consecutive elements: a strided load would need its stride.
    let strided = a.loads.iter().any(|(_, idx, c)| {
        *c == Class::Vector && idx.last().map(|v| a.of(*v)) != Some(Class::Lane(1))
    });
    if !a.stores.is_empty() || a.width != Some(32) || strided {
        return None;
    }
    // Each yielded value combines its carried value, used nowhere else, with another.
    let mut combiners = Vec::new();
    for (carried, yielded) in args[1..].iter().zip(b.operands(terminator)) {
        let ValueDef::Result(def, _) = b.value(yielded).def else {
            return None;
        };
        let kind = arith::Op::of(ctx, ir.op(body, def));
        let combiner = COMBINERS.iter().find(|c| Some(c.op) == kind)?;
        let uses: Vec<OpId> = b.value_users(*carried).collect();
        if uses != [def] || !b.operands(def).any(|v| v == *carried) {
            return None;
        }
        combiners.push(*combiner);
    }
    Some(Plan {
        class: a.class,
        combiners,
        lanes,
        lower,
        split,
        upper,
    })
}

fn vector_type(ctx: &Context, scalar: TypeId, lanes: i64) -> TypeId {
    ctx.intern_type(TypeData::Vector {
        shape: vec![lanes].into(),
        scalable: vec![false].into(),
        element: scalar,
    })
}

fn rewrite(ctx: &Context, ir: &mut Ir, body: BodyId, l: OpId, plan: &Plan) -> Result<(), String> {
    let b = ir.body(body);
    let operands: Vec<ValueId> = b.operands(l).collect();
    let results: Vec<ValueId> = b.results(l).collect();
    let block = b
        .entry_block(b.op_regions(l)[0])
        .ok_or("an empty loop.for")?;
    let args = b.block_args(block).to_vec();
    let ops: Vec<OpId> = b.block_ops(block).collect();
    let (terminator, body_ops) = ops.split_last().ok_or("a loop.for without a yield")?;
    let yielded: Vec<ValueId> = b.operands(*terminator).collect();
    let loc = ir.op(body, l).loc();
    let f32 = ctx.float_type(acc_ir::FloatKind::F32);
    let vty = vector_type(ctx, f32, plan.lanes);
    let index = ctx.index_type();
    let carried = plan.combiners.len();
    let mut e = Builder::new(ctx, &mut *ir, body, InsertPoint::Before(l), loc);
    let mut inits = Vec::new();
    for _ in 0..CHAINS {
        for c in &plan.combiners {
            let identity = e.scalar(f32, c.identity)?;
            inits.push(loops::Splat::build(&mut e, identity, vty).result()?);
        }
    }
    let (lower, split, step) = (
        e.index(plan.lower)?,
        e.index(plan.split)?,
        e.index(CHAINS * plan.lanes)?,
    );
    let mut arg_types = vec![index];
    arg_types.extend(std::iter::repeat_n(vty, inits.len()));
    let mut fill = |e: &mut Builder<'_>, new_args: &[ValueId]| -> Result<Vec<ValueId>, String> {
        let mut next = Vec::new();
        for chain in 0..CHAINS as usize {
            let offset = e.index(chain as i64 * plan.lanes)?;
            let at = arith::Addi::build(e, new_args[0], offset, index).result()?;
            let mut map: FxHashMap<ValueId, ValueId> = FxHashMap::default();
            map.insert(args[0], at);
            for i in 0..carried {
                map.insert(args[1 + i], new_args[1 + chain * carried + i]);
            }
            for op in body_ops {
                clone_vectorized(e, plan, *op, &mut map, vty)?;
            }
            for y in &yielded {
                next.push(*map.get(y).ok_or("a yielded value was not cloned")?);
            }
        }
        Ok(next)
    };
    let region = e.region(&arg_types, loops::Yield::NAME, &mut fill)?;
    let vector_results =
        loops::For::build(&mut e, lower, split, step, &inits, &vec![vty; inits.len()])
            .region(region)
            .results()?;
    // The chains combined, their lanes reduced, the loop's own start folded in.
    let mut starts = Vec::new();
    for (i, c) in plan.combiners.iter().enumerate() {
        let mut v = vector_results[i];
        for chain in 1..CHAINS as usize {
            v = e.op1(
                c.op.name(),
                &[v, vector_results[chain * carried + i]],
                vty,
                &[],
            )?;
        }
        // `#loop.reduction<kind>`.
        let kind = ctx.intern_attr(acc_ir::AttrData::Dialect {
            dialect: ctx.sym("loop"),
            body: ctx.sym(&format!(".reduction<{}>", c.kind)),
            ty: None,
        });
        let lanes = loops::Vreduce::build(&mut e, v, f32).kind(kind).result()?;
        starts.push(e.op1(c.op.name(), &[operands[3 + i], lanes], f32, &[])?);
    }
    if plan.split == plan.upper {
        for (r, s) in results.iter().zip(starts) {
            ir.body_mut(body).replace_all_uses(*r, s);
        }
        ir.erase_op(body, l);
    } else {
        // The vector loop's end is where the original loop resumes.
        ir.body_mut(body).set_operand(l, 0, split);
        for (i, s) in starts.into_iter().enumerate() {
            ir.body_mut(body).set_operand(l, 3 + i, s);
        }
    }
    Ok(())
}

/// Clones one op of the loop's body for one chain: loads along the loop become
/// `loop.vload`s, vector arithmetic takes vector types (uniform operands splat),
/// uniform ops are cloned as they are.
fn clone_vectorized(
    e: &mut Builder<'_>,
    plan: &Plan,
    op: OpId,
    map: &mut FxHashMap<ValueId, ValueId>,
    vty: TypeId,
) -> Result<(), String> {
    let r = e.ir.op(e.body, op);
    let name = e.ctx.op_name_str(r.name()).to_string();
    let (load, select) = (loops::Load::is(e.ctx, r), arith::Select::is(e.ctx, r));
    let operands: Vec<ValueId> = r.operands().collect();
    let results: Vec<ValueId> = r.results().collect();
    let props: Vec<(String, acc_ir::AttrId)> = r
        .props()
        .map(|p| {
            e.ctx
                .dict_entries(p)
                .iter()
                .map(|(k, v)| (e.ctx.str(*k).to_string(), *v))
                .collect()
        })
        .unwrap_or_default();
    let class = |v: &ValueId| plan.class.get(v).copied().unwrap_or(Class::Uniform);
    let mapped: Vec<ValueId> = operands.iter().map(|v| *map.get(v).unwrap_or(v)).collect();
    let vector = results.first().is_some_and(|v| class(v) == Class::Vector);
    let props_ref: Vec<(&str, acc_ir::AttrId)> =
        props.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    let result_types: Vec<TypeId> = results
        .iter()
        .map(|v| e.ir.body(e.body).value_type(*v))
        .collect();
    let out = if load && vector {
        loops::Vload::build(e, mapped[0], &mapped[1..], vty).results()?
    } else if vector {
        let mut vector_operands = Vec::new();
        for (i, (v, m)) in operands.iter().zip(&mapped).enumerate() {
            let condition = i == 0 && select;
            vector_operands.push(if class(v) == Class::Uniform && !condition {
                loops::Splat::build(e, *m, vty).result()?
            } else {
                *m
            });
        }
        e.op(&name, &vector_operands, &[vty], &props_ref)?
    } else {
        e.op(&name, &mapped, &result_types, &props_ref)?
    };
    for (old, new) in results.iter().zip(out) {
        map.insert(*old, new);
    }
    Ok(())
}
