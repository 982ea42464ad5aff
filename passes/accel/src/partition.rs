//! `partition`: places each op of a function on a device of a target of the
//! compilation (its `target` option; the first `acc-opt --target FILE` by default),
//! from the intrinsics the target file declares.
//!
//! An op goes to the cheapest intrinsic that accepts it (the first declared among
//! equal costs): it gains the discardable attributes `hw.device` and `hw.intrinsic`
//! (strings), which `bufferize` turns into the intrinsic's call. A `code` rule is
//! weighed the same way; the op it wins gains `hw.device` alone: the programmable
//! device runs the op's own loops (`graph-to-tensor` and `bufferize` carry the
//! attribute down to them). Every other op stays
//! on the host and gets a remark saying why: no intrinsic computes ops of its kind,
//! or which condition of which intrinsic refused it. Constants and terminators are
//! not placed. Nothing here names a device, an op or a target: all of it comes from
//! the target file.
//!
//! Placement does not change what the function computes: the attributes only say
//! where the op will run.

use acc_dialects::ops::func;
use acc_ir::{BodyId, Context, DiagLoc, Diagnostic, Ir, OpId, Severity};
use acc_pass::{Pass, PassInfo, PassOptions, PassTarget, target_option};
use acc_target::Target;
use acc_target::placement::{DEVICE_ATTR, set_device, set_placement};

/// The pass.
pub struct Partition {
    /// The target whose intrinsics place ops (empty: the compilation's first).
    target: String,
}

/// Its registration.
pub fn info() -> PassInfo {
    PassInfo {
        name: "partition",
        title: "Partition",
        summary: "Place ops on the target's devices by its intrinsics' matches, conditions and costs; remark why each other op stays on the host",
        anchor: Some(func::Func::NAME),
        options: vec![target_option()],
        create: |o: &PassOptions| {
            Ok(Box::new(Partition {
                target: o.get("target").to_string(),
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
            for op in ops {
                if !placeable(t.ctx, t.ir, body, op) {
                    continue;
                }
                match choose(t.ctx, t.ir, body, op, &target) {
                    Ok((device, None)) => set_device(t.ctx, t.ir, body, op, &device)?,
                    Ok((device, Some(intrinsic))) => {
                        set_placement(t.ctx, t.ir, body, op, &device, &intrinsic)?;
                    }
                    Err(why) => {
                        let name = t.ctx.op_name_str(t.ir.body(body).op(op).name).to_string();
                        t.diagnostics.push(Diagnostic::new(
                            Severity::Remark,
                            DiagLoc::Loc(t.ir.op(body, op).loc()),
                            format!("'{name}' stays on {host}: {why}"),
                        ));
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

/// The device and intrinsic of the cheapest intrinsic or `code` rule accepting `op`
/// (no intrinsic for a `code` rule), or why none does.
fn choose(
    ctx: &Context,
    ir: &Ir,
    body: BodyId,
    op: OpId,
    target: &Target,
) -> Result<(String, Option<String>), String> {
    let name = ctx.op_name_str(ir.body(body).op(op).name);
    let mut best: Option<(i64, &acc_target::Intrinsic)> = None;
    let mut refusals = Vec::new();
    for i in target.intrinsics.iter().filter(|i| i.rule.root() == name) {
        match i.rule.place(ctx, ir, body, op) {
            Ok(p) if best.is_none_or(|(cost, _)| p.cost < cost) => best = Some((p.cost, i)),
            Ok(_) => {}
            Err(why) => refusals.push(format!("'{}' refuses it: {why}", i.name)),
        }
    }
    match best {
        Some((_, i)) => Ok((i.device.clone(), (!i.compiled).then(|| i.name.clone()))),
        None if refusals.is_empty() => Err(format!(
            "no intrinsic of target '{}' computes '{name}'",
            target.name
        )),
        None => Err(refusals.join("; ")),
    }
}
