//! `partition`: places each op of a function on a device of a target of the
//! compilation (its `target` option; the first `acc-opt --target FILE` by default),
//! from the intrinsics the target file declares.
//!
//! Each op's candidates are, per device, the cheapest of its rules accepting the op
//! (an intrinsic, or a `code` rule: the first declared among equal costs); the host
//! is one when a `code` rule of the host prices the op, or when nothing else accepts
//! it. With `placement=schedule` (the default) a search ([`search`]) chooses among
//! them the placement whose schedule, transfers between the devices' memories
//! included, is shortest; with `placement=op-by-op` each op takes its cheapest
//! candidate. An op on an intrinsic gains the discardable attributes `hw.device` and
//! `hw.intrinsic` (strings), which `bufferize` turns into the intrinsic's call; an
//! op on a programmable device's `code` gains `hw.device` alone: the device runs the
//! op's own loops (`graph-to-tensor` and `bufferize` carry the attribute down to
//! them). An op placed elsewhere than its cheapest candidate gets a remark giving
//! both schedules' lengths. Every other op stays
//! on the host and gets a remark saying why: no intrinsic computes ops of its kind,
//! or which condition of which intrinsic refused it. Constants and terminators are
//! not placed. Nothing here names a device, an op or a target: all of it comes from
//! the target file.
//!
//! Placement does not change what the function computes: the attributes only say
//! where the op will run.

use acc_dialects::ops::func;
use acc_ir::{BodyId, Context, DiagLoc, Diagnostic, Ir, OpId, Severity, TypeData, ValueDef};
use acc_pass::{OptionKind, Pass, PassInfo, PassOption, PassOptions, PassTarget, target_option};
use acc_target::Target;
use acc_target::placement::{DEVICE_ATTR, set_device, set_placement};
use rustc_hash::FxHashMap;

mod search;

use search::{Candidate, Problem, Source};

/// The pass.
pub struct Partition {
    /// The target whose intrinsics place ops (empty: the compilation's first).
    target: String,
    /// Whether to search for the shortest schedule (else: each op on its cheapest
    /// candidate).
    schedule: bool,
}

/// Its registration.
pub fn info() -> PassInfo {
    PassInfo {
        name: "partition",
        title: "Partition",
        summary: "Place ops on the target's devices by its intrinsics' and code rules' matches, conditions and costs, searching for the shortest schedule with transfers priced; remark why each other op stays on the host",
        anchor: Some(func::Func::NAME),
        options: vec![
            target_option(),
            PassOption {
                name: "placement",
                description: "schedule: the placement whose schedule, transfers included, is shortest; op-by-op: each op on its cheapest device",
                kind: OptionKind::OneOf(&["schedule", "op-by-op"]),
                default: "schedule",
            },
        ],
        create: |o: &PassOptions| {
            Ok(Box::new(Partition {
                target: o.get("target").to_string(),
                schedule: o.get("placement") == "schedule",
            }))
        },
    }
}

impl Pass for Partition {
    fn run(&self, t: &mut PassTarget<'_>) -> Result<(), Diagnostic> {
        let target = t.target(&self.target, "partition")?;
        let host = target
            .host()
            .map_or("host", |d| d.name.as_str())
            .to_string();
        for (body, ops) in t.body_ops() {
            let ops: Vec<OpId> = ops
                .into_iter()
                .filter(|o| placeable(t.ctx, t.ir, body, *o))
                .collect();
            let (problem, refusals) = problem(t.ctx, t.ir, body, &ops, &target, &host);
            let found = if self.schedule {
                search::search(&problem, &target)
            } else {
                search::op_by_op(&problem, &target)
            };
            if found.exhausted
                && let Some(first) = ops.first()
            {
                t.diagnostics.push(Diagnostic::new(
                    Severity::Remark,
                    DiagLoc::Loc(t.ir.op(body, *first).loc()),
                    "partition: the placement search stopped at its budget of evaluations; the best placement found stands",
                ));
            }
            for (i, op) in ops.iter().enumerate() {
                let chosen = &problem.candidates[i][found.choice[i]];
                let cheapest = &problem.candidates[i][found.start[i]];
                let name = t.ctx.op_name_str(t.ir.body(body).op(*op).name).to_string();
                let loc = DiagLoc::Loc(t.ir.op(body, *op).loc());
                if found.choice[i] != found.start[i] {
                    let alone = if cheapest.cost < chosen.cost {
                        format!(
                            "where it alone costs less ({} cycles, not {})",
                            cheapest.cost, chosen.cost
                        )
                    } else {
                        format!("where it alone costs as much ({} cycles)", chosen.cost)
                    };
                    t.diagnostics.push(Diagnostic::new(
                        Severity::Remark,
                        loc.clone(),
                        format!(
                            "'{name}' goes to {} rather than {}, {alone}: with transfers priced, the schedule takes {} cycles instead of {}",
                            chosen.device, cheapest.device, found.cycles, found.op_by_op
                        ),
                    ));
                }
                match chosen.rule.map(|r| &target.intrinsics[r]) {
                    None => t.diagnostics.push(Diagnostic::new(
                        Severity::Remark,
                        loc,
                        format!("'{name}' stays on {host}: {}", refusals[i]),
                    )),
                    Some(rule) if chosen.device == host => t.diagnostics.push(Diagnostic::new(
                        Severity::Remark,
                        loc,
                        format!(
                            "'{name}' stays on {host}: its code '{}' gives the shortest schedule",
                            rule.name
                        ),
                    )),
                    Some(rule) if rule.compiled => {
                        set_device(t.ctx, t.ir, body, *op, &rule.device)?;
                    }
                    Some(rule) => {
                        set_placement(t.ctx, t.ir, body, *op, &rule.device, &rule.name)?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// Ops that compute something: not constants, not terminators, not already placed.
fn placeable(ctx: &Context, ir: &Ir, body: BodyId, op: OpId) -> bool {
    let data = ir.body(body).op(op);
    let traits = ctx.op_def(data.name).map(|d| d.traits).unwrap_or_default();
    !traits.constant_like && !traits.terminator && ctx.dict_get(data.attrs, DEVICE_ATTR).is_none()
}

/// The placement problem of the placeable `ops` of `body`, and for each op, why no
/// rule of another device accepts it (when none does).
fn problem(
    ctx: &Context,
    ir: &Ir,
    body: BodyId,
    ops: &[OpId],
    target: &Target,
    host: &str,
) -> (Problem, Vec<String>) {
    let b = ir.body(body);
    let index: FxHashMap<OpId, usize> = ops.iter().enumerate().map(|(i, o)| (*o, i)).collect();
    let mut p = Problem {
        host: host.to_string(),
        ..Problem::default()
    };
    let mut refusals = Vec::new();
    for op in ops {
        let (candidates, why) = candidates(ctx, ir, body, *op, target, host);
        p.candidates.push(candidates);
        refusals.push(why);
        let mut inputs = Vec::new();
        for v in b.operands(*op) {
            let source = match b.value(v).def {
                ValueDef::Result(d, _) => match index.get(&d) {
                    Some(j) => Source::Op(*j),
                    None if is_constant(ctx, ir, body, d) => continue,
                    None => Source::Host,
                },
                _ => Source::Host,
            };
            inputs.push((source, tensor_bytes(ctx, b.value_type(v))));
        }
        p.inputs.push(inputs);
        let returned = b
            .results(*op)
            .filter(|r| b.value_users(*r).any(|u| !index.contains_key(&u)))
            .map(|r| tensor_bytes(ctx, b.value_type(r)))
            .sum();
        p.returned.push(returned);
    }
    (p, refusals)
}

fn is_constant(ctx: &Context, ir: &Ir, body: BodyId, op: OpId) -> bool {
    let data = ir.body(body).op(op);
    ctx.op_def(data.name)
        .is_some_and(|d| d.traits.constant_like)
}

/// The bytes of a ranked tensor of static shape (0 for anything else).
fn tensor_bytes(ctx: &Context, ty: acc_ir::TypeId) -> i64 {
    let TypeData::RankedTensor { shape, element, .. } = ctx.type_data(ty) else {
        return 0;
    };
    let bits = match ctx.type_data(*element) {
        TypeData::Float(k) => i64::from(k.width()),
        TypeData::Integer { width, .. } => i64::from(*width),
        TypeData::QuantUniform(q) => i64::from(q.storage_width),
        _ => 64,
    };
    shape
        .iter()
        .try_fold(1i64, |n, d| if *d < 0 { None } else { n.checked_mul(*d) })
        .and_then(|n| n.checked_mul((bits + 7) / 8))
        .unwrap_or(0)
}

/// The candidates of `op`: per device, the cheapest rule accepting it (the first
/// declared among equal costs), in the order of each device's first accepting rule;
/// the host alone, without a rule, when nothing accepts it, with why.
fn candidates(
    ctx: &Context,
    ir: &Ir,
    body: BodyId,
    op: OpId,
    target: &Target,
    host: &str,
) -> (Vec<Candidate>, String) {
    let name = ctx.op_name_str(ir.body(body).op(op).name);
    let mut out: Vec<Candidate> = Vec::new();
    let mut refusals = Vec::new();
    for (k, i) in target.intrinsics.iter().enumerate() {
        if i.rule.root() != name {
            continue;
        }
        match i.rule.place(ctx, ir, body, op) {
            Ok(p) => {
                let candidate = Candidate {
                    device: i.device.clone(),
                    rule: Some(k),
                    cost: p.cost,
                    memory: i.memory.clone(),
                };
                match out.iter_mut().find(|c| c.device == i.device) {
                    Some(c) if p.cost < c.cost => *c = candidate,
                    Some(_) => {}
                    None => out.push(candidate),
                }
            }
            Err(why) => refusals.push(format!("'{}' refuses it: {why}", i.name)),
        }
    }
    let why = if !out.iter().all(|c| c.device == host) {
        String::new()
    } else if refusals.is_empty() {
        format!("no intrinsic of target '{}' computes '{name}'", target.name)
    } else {
        refusals.join("; ")
    };
    if out.is_empty() {
        out.push(Candidate {
            device: host.to_string(),
            rule: None,
            cost: 0,
            memory: None,
        });
    }
    (out, why)
}
