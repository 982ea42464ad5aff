//! `partition`: places each op of a function on a device of the active target
//! (`acc-opt --target`), from the intrinsics the target file declares.
//!
//! An op goes to the cheapest intrinsic that accepts it (the first declared among
//! equal costs): it gains the discardable attributes `hw.device` and `hw.intrinsic`
//! (strings), which `bufferize` turns into the intrinsic's call. Every other op stays
//! on the host and gets a remark saying why: no intrinsic computes ops of its kind,
//! or which condition of which intrinsic refused it. Constants and terminators are
//! not placed. Nothing here names a device, an op or a target: all of it comes from
//! the target file.
//!
//! Placement does not change what the function computes: the attributes only say
//! where the op will run.

use acc_ir::pass::{Pass, PassInfo, PassOptions, PassTarget};
use acc_ir::target::{Intrinsic, Target};
use acc_ir::{AttrId, BodyId, Context, DiagLoc, Diagnostic, Ir, OpId, Severity};

/// The attribute naming the device an op is placed on.
pub const DEVICE_ATTR: &str = "hw.device";
/// The attribute naming the intrinsic computing a placed op.
pub const INTRINSIC_ATTR: &str = "hw.intrinsic";

/// The pass.
pub struct Partition;

/// Its registration.
pub fn info() -> PassInfo {
    PassInfo {
        name: "partition",
        title: "Partition",
        summary: "Place ops on the target's devices by its intrinsics' matches, conditions and costs; remark why each other op stays on the host",
        anchor: Some("func.func"),
        options: Vec::new(),
        create: |_: &PassOptions| Ok(Box::new(Partition)),
    }
}

impl Pass for Partition {
    fn run(&self, t: &mut PassTarget<'_>) -> Result<(), Diagnostic> {
        let Some(target) = t.ctx.active_target().cloned() else {
            return Err(Diagnostic::error(
                DiagLoc::Loc(t.op_ref().loc()),
                "partition: no target (give one with --target FILE)",
            ));
        };
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
                    Ok((device, intrinsic)) => {
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

/// The device and intrinsic of the cheapest intrinsic accepting `op`, or why none does.
fn choose(
    ctx: &Context,
    ir: &Ir,
    body: BodyId,
    op: OpId,
    target: &Target,
) -> Result<(String, String), String> {
    let name = ctx.op_name_str(ir.body(body).op(op).name);
    let mut best: Option<(i64, &str, &str)> = None;
    let mut refusals = Vec::new();
    for i in target.intrinsics.iter().filter(|i| i.rule.root() == name) {
        match i.rule.place(ctx, ir, body, op) {
            Ok(p) if best.is_none_or(|(cost, _, _)| p.cost < cost) => {
                best = Some((p.cost, &i.device, &i.name));
            }
            Ok(_) => {}
            Err(why) => refusals.push(format!("'{}' refuses it: {why}", i.name)),
        }
    }
    match best {
        Some((_, device, intrinsic)) => Ok((device.to_string(), intrinsic.to_string())),
        None if refusals.is_empty() => Err(format!(
            "no intrinsic of target '{}' computes '{name}'",
            target.name
        )),
        None => Err(refusals.join("; ")),
    }
}

/// Places `op` on `device` as `intrinsic` (the attributes `bufferize` reads).
pub fn set_placement(
    ctx: &Context,
    ir: &mut Ir,
    body: BodyId,
    op: OpId,
    device: &str,
    intrinsic: &str,
) -> Result<(), Diagnostic> {
    let data = ir.body(body).op(op);
    let mut entries = ctx.dict_entries(data.attrs).to_vec();
    entries.push((ctx.sym(DEVICE_ATTR), ctx.string_attr(device)));
    entries.push((ctx.sym(INTRINSIC_ATTR), ctx.string_attr(intrinsic)));
    let attrs = ctx.dict_attr(entries).map_err(|_| {
        Diagnostic::error(
            DiagLoc::Loc(ir.op(body, op).loc()),
            "partition: the op already has a 'hw.intrinsic' attribute",
        )
    })?;
    ir.body_mut(body).op_mut(op).attrs = attrs;
    Ok(())
}

/// Takes `op` off its device: it loses `hw.device`, `hw.intrinsic` and the call
/// arguments `weight-prep` stored (`hw.prepared`).
pub fn clear_placement(ctx: &Context, ir: &mut Ir, body: BodyId, op: OpId) -> Result<(), String> {
    let placed = [
        DEVICE_ATTR,
        INTRINSIC_ATTR,
        crate::weight_prep::PREPARED_ATTR,
    ];
    let kept = without_attrs(ctx, ir.body(body).op(op).attrs, &placed)?;
    ir.body_mut(body).op_mut(op).attrs = kept;
    Ok(())
}

/// The attribute dictionary `attrs` without the entries named `keys`.
pub fn without_attrs(ctx: &Context, attrs: AttrId, keys: &[&str]) -> Result<AttrId, String> {
    let kept: Vec<_> = ctx
        .dict_entries(attrs)
        .iter()
        .filter(|(k, _)| !keys.contains(&ctx.str(*k)))
        .copied()
        .collect();
    ctx.dict_attr(kept)
        .map_err(|_| "duplicate attributes".to_string())
}

/// The intrinsic of `target` that `op` is placed on, if it is placed; an error when
/// the target has no intrinsic of that name.
pub fn placed_intrinsic<'t>(
    ctx: &Context,
    ir: &Ir,
    body: BodyId,
    op: OpId,
    target: &'t Target,
) -> Result<Option<&'t Intrinsic>, String> {
    let Some((_, name)) = placement(ctx, ir, body, op) else {
        return Ok(None);
    };
    target
        .intrinsics
        .iter()
        .find(|i| i.name == name)
        .map(Some)
        .ok_or_else(|| format!("target '{}' has no intrinsic '{name}'", target.name))
}

/// The device and intrinsic `op` is placed on, if `partition` placed it.
pub fn placement(ctx: &Context, ir: &Ir, body: BodyId, op: OpId) -> Option<(String, String)> {
    let attrs = ir.body(body).op(op).attrs;
    let text = |key: &str| match ctx.attr_data(ctx.dict_get(attrs, key)?) {
        acc_ir::AttrData::String { value, .. } => Some(ctx.str(*value).to_string()),
        _ => None,
    };
    Some((text(DEVICE_ATTR)?, text(INTRINSIC_ATTR)?))
}
