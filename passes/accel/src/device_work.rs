//! Which device does the work of a top-level op of a loop-level function: what
//! `schedule-devices` launches and `memory-plan` keeps apart. A call of an
//! intrinsic is its device's; a transfer belongs to the device that alone reaches its
//! destination's memory, else its source's; a transfer's wait to the device that
//! started it; the loops of an op a `code` rule placed (`hw.device`) to that device;
//! anything else, and anything of a `host` device, to the host.

use acc_dialects::ops::hw;
use acc_ir::{AttrId, BodyId, Context, Ir, OpId, TypeData, ValueDef, ValueId};
use acc_target::Targets;

/// The device other than the host whose work the top-level op `op` is, if any
/// (allocations, views and deallocs included: none).
pub(crate) fn device_of(
    ctx: &Context,
    ir: &Ir,
    body: BodyId,
    targets: &Targets,
    op: OpId,
) -> Option<String> {
    let r = ir.op(body, op);
    let b = ir.body(body);
    let device = match hw::Op::of(ctx, r) {
        Some(hw::Op::Intrinsic) => {
            let callee = string_attr(ctx, r.attr(ctx, hw::Intrinsic::ATTR_CALLEE))?;
            // A target's intrinsic, or an external compiler's region (its `hw.device`).
            targets
                .intrinsic_named(&callee)
                .map(|i| i.device.clone())
                .or_else(|| string_attr(ctx, acc_dialects::hooks::hw::placed_device(ctx, r)))
        }
        Some(hw::Op::DmaStart) => {
            let (from, to) = (b.operand(op, 0), b.operand(op, 1));
            memory_owner(ctx, ir, body, targets, to)
                .or_else(|| memory_owner(ctx, ir, body, targets, from))
        }
        Some(hw::Op::DmaWait) => match b.operands(op).next().map(|t| b.value(t).def) {
            Some(ValueDef::Result(start, _)) if start != op => {
                return device_of(ctx, ir, body, targets, start);
            }
            _ => None,
        },
        // The loops of ops a programmable device runs.
        _ => string_attr(ctx, acc_dialects::hooks::hw::placed_device(ctx, r)),
    };
    device.filter(|d| !is_host(targets, d))
}

/// Whether `device` is the host (or no target declares it).
pub(crate) fn is_host(targets: &Targets, device: &str) -> bool {
    targets
        .iter()
        .find_map(|t| t.device(device))
        .is_none_or(|d| d.kind == "host")
}

/// The device that alone reaches the memory of buffer `v` (not the host).
pub(crate) fn memory_owner(
    ctx: &Context,
    ir: &Ir,
    body: BodyId,
    targets: &Targets,
    v: ValueId,
) -> Option<String> {
    let ty = ir.body(body).value_type(v);
    let TypeData::MemRef {
        memory_space: Some(space),
        ..
    } = ctx.type_data(ty)
    else {
        return None;
    };
    let name = string_attr(ctx, Some(*space))?;
    let memory = targets.iter().find_map(|t| t.memory(&name))?;
    match memory.devices.as_slice() {
        [only] if !is_host(targets, only) => Some(only.clone()),
        _ => None,
    }
}

/// The text of a string attribute.
pub(crate) fn string_attr(ctx: &Context, a: Option<AttrId>) -> Option<String> {
    match ctx.attr_data(a?) {
        acc_ir::AttrData::String { value, .. } => Some(ctx.str(*value).to_string()),
        _ => None,
    }
}
