//! How a placement is recorded on an op: the discardable `hw.*` attributes that
//! `partition` writes, `weight-prep` adds to, and `tensorize`, `graph-to-tensor`,
//! `bufferize` and the simulator read.
//!
//! - `hw.device = "npu"`, `hw.intrinsic = "npu_conv2d_s8"`: the op runs on that device
//!   as that intrinsic;
//! - `hw.device = "dsp"` alone: a programmable device runs the op's own loops (a
//!   `code` rule of its target accepted it); `graph-to-tensor` and `bufferize` give
//!   the attribute to the ops they lower it to, down to its loop nests, which
//!   `schedule-devices` launches on the device;
//! - `hw.prepared = [dense<...>, ...]`: the call's compile-time arguments, in call
//!   order (f32 tables and i8 bytes);
//! - `hw.layout`: marks the `graph.transpose` ops of a call's semantics region that
//!   stand for a buffer held in another layout.

use acc_ir::attrs::AttrData;
use acc_ir::elements::{self, Scalar};
use acc_ir::{AttrId, BodyId, Context, DiagLoc, Diagnostic, Ir, OpId, TypeData, TypeId};

use crate::{CallArg, Intrinsic, Target, Targets};

/// The attribute naming the device an op is placed on.
pub const DEVICE_ATTR: &str = "hw.device";
/// The attribute naming the intrinsic computing a placed op.
pub const INTRINSIC_ATTR: &str = "hw.intrinsic";

/// The attribute holding a placed op's prepared call arguments.
pub const PREPARED_ATTR: &str = "hw.prepared";

/// The most elements a prepared argument may have (a hand-written splat could
/// otherwise ask for any number).
const MAX_PREPARED_ELEMENTS: usize = 1 << 28;

/// The discardable attribute of the `graph.transpose` ops a semantics region gets for
/// buffers in another layout.
pub const LAYOUT_ATTR: &str = "hw.layout";

/// Places `op` on `device` as `intrinsic` (the attributes `bufferize` reads).
pub fn set_placement(
    ctx: &Context,
    ir: &mut Ir,
    body: BodyId,
    op: OpId,
    device: &str,
    intrinsic: &str,
) -> Result<(), Diagnostic> {
    add_strings(
        ctx,
        ir,
        body,
        op,
        &[(DEVICE_ATTR, device), (INTRINSIC_ATTR, intrinsic)],
    )
}

/// Adds the string attributes `entries` to `op`; an error at the op when it has one
/// of them already.
fn add_strings(
    ctx: &Context,
    ir: &mut Ir,
    body: BodyId,
    op: OpId,
    entries: &[(&str, &str)],
) -> Result<(), Diagnostic> {
    let data = ir.body(body).op(op);
    let mut all = ctx.dict_entries(data.attrs).to_vec();
    all.extend(
        entries
            .iter()
            .map(|(k, v)| (ctx.sym(k), ctx.string_attr(v))),
    );
    let attrs = ctx.dict_attr(all).map_err(|_| {
        let names: Vec<&str> = entries.iter().map(|(k, _)| *k).collect();
        Diagnostic::error(
            DiagLoc::Loc(ir.op(body, op).loc()),
            format!("partition: the op is placed already (it has one of {names:?})"),
        )
    })?;
    ir.body_mut(body).op_mut(op).attrs = attrs;
    Ok(())
}

/// Places `op` on the programmable `device`, to run its own loops there.
pub fn set_device(
    ctx: &Context,
    ir: &mut Ir,
    body: BodyId,
    op: OpId,
    device: &str,
) -> Result<(), Diagnostic> {
    add_strings(ctx, ir, body, op, &[(DEVICE_ATTR, device)])
}

/// The programmable device `op` runs its own loops on: its `hw.device` when it has
/// no `hw.intrinsic`.
pub fn code_device(ctx: &Context, ir: &Ir, body: BodyId, op: OpId) -> Option<String> {
    let attrs = ir.body(body).op(op).attrs;
    if ctx.dict_get(attrs, INTRINSIC_ATTR).is_some() {
        return None;
    }
    match ctx.attr_data(ctx.dict_get(attrs, DEVICE_ATTR)?) {
        AttrData::String { value, .. } => Some(ctx.str(*value).to_string()),
        _ => None,
    }
}

/// Gives the ops a lowering inserted right before `end` in place of an op placed on
/// `device` (those created since the body had `created` ops, see
/// [`acc_ir::Body::created_ops`]) that `is_work` accepts the op's `hw.device`: what
/// it lowered to runs there too. Ops that already name a device keep theirs.
pub fn mark_lowered(
    ctx: &Context,
    ir: &mut Ir,
    body: BodyId,
    created: usize,
    end: OpId,
    device: &str,
    is_work: impl Fn(&Context, &Ir, BodyId, OpId) -> bool,
) {
    use acc_ir::EntityId;
    let b = ir.body(body);
    let mut inserted = Vec::new();
    let mut at = b.prev_op(end);
    while let Some(o) = at
        && o.index() >= created
    {
        inserted.push(o);
        at = b.prev_op(o);
    }
    for o in inserted {
        let attrs = ir.body(body).op(o).attrs;
        if ctx.dict_get(attrs, DEVICE_ATTR).is_some() || !is_work(ctx, ir, body, o) {
            continue;
        }
        let mut entries = ctx.dict_entries(attrs).to_vec();
        entries.push((ctx.sym(DEVICE_ATTR), ctx.string_attr(device)));
        if let Ok(a) = ctx.dict_attr(entries) {
            ir.body_mut(body).op_mut(o).attrs = a;
        }
    }
}

/// Takes `op` off its device: it loses `hw.device`, `hw.intrinsic` and the call
/// arguments `weight-prep` stored (`hw.prepared`).
pub fn clear_placement(ctx: &Context, ir: &mut Ir, body: BodyId, op: OpId) -> Result<(), String> {
    let placed = [DEVICE_ATTR, INTRINSIC_ATTR, PREPARED_ATTR];
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

/// The intrinsic `op` is placed on, if it is placed, and the target declaring it,
/// from the compilation's targets; an error when none of them declares that intrinsic
/// on that device.
pub fn placed_intrinsic<'t>(
    ctx: &Context,
    ir: &Ir,
    body: BodyId,
    op: OpId,
    targets: &'t Targets,
) -> Result<Option<(&'t Target, &'t Intrinsic)>, String> {
    let Some((device, name)) = placement(ctx, ir, body, op) else {
        return Ok(None);
    };
    targets
        .intrinsic(&device, &name)
        .map(Some)
        .ok_or_else(|| format!("no target declares an intrinsic '{name}' on device '{device}'"))
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

/// A compile-time call argument as a constant: an f32 table as
/// `dense<...> : tensor<Nxf32>`, bytes as `dense<...> : tensor<Nxi8>`, i32 and i16
/// tables as `tensor<Nxi32>` and `tensor<Nxi16>`; `None` for buffers and scalars.
pub fn call_arg_attr(ctx: &Context, arg: &CallArg) -> Option<AttrId> {
    let (element, values): (TypeId, Vec<Scalar>) = match arg {
        CallArg::F32Table(t) => (
            ctx.float_type(acc_ir::FloatKind::F32),
            t.iter().map(|x| Scalar::Float(f64::from(*x))).collect(),
        ),
        CallArg::Bytes(b) => (
            ctx.int_type(8),
            b.iter()
                .map(|x| Scalar::Int(i128::from(*x as i8)))
                .collect(),
        ),
        CallArg::I32Table(t) => (
            ctx.int_type(32),
            t.iter().map(|x| Scalar::Int(i128::from(*x))).collect(),
        ),
        CallArg::I16Table(t) => (
            ctx.int_type(16),
            t.iter().map(|x| Scalar::Int(i128::from(*x))).collect(),
        ),
        CallArg::Value(_) | CallArg::Int(_) | CallArg::Float(_) | CallArg::Count(_) => return None,
    };
    elements::dense_attr(ctx, vector_type(ctx, element, values.len()), &values)
}

/// Drops the arguments `weight-prep` stored on `op` (a copy made for another call).
pub fn clear_prepared(ctx: &Context, ir: &mut Ir, body: BodyId, op: OpId) -> Result<(), String> {
    let kept = without_attrs(ctx, ir.body(body).op(op).attrs, &[PREPARED_ATTR])?;
    ir.body_mut(body).op_mut(op).attrs = kept;
    Ok(())
}

/// `tensor<N x element>`.
fn vector_type(ctx: &Context, element: TypeId, n: usize) -> TypeId {
    ctx.intern_type(TypeData::RankedTensor {
        shape: vec![n as i64].into(),
        element,
        encoding: None,
    })
}

/// The call arguments `weight-prep` stored on `op`, in call order, when it has them;
/// an error when the attribute is not an array of f32 tables and i8 bytes.
pub fn prepared_args(
    ctx: &Context,
    ir: &Ir,
    body: BodyId,
    op: OpId,
) -> Result<Option<Vec<CallArg>>, String> {
    let Some(attr) = ctx.dict_get(ir.body(body).op(op).attrs, PREPARED_ATTR) else {
        return Ok(None);
    };
    let AttrData::Array(items) = ctx.attr_data(attr) else {
        return Err(format!(
            "'{PREPARED_ATTR}' must be an array of dense constants"
        ));
    };
    items
        .iter()
        .map(|a| prepared_arg(ctx, *a))
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// One prepared argument: a dense f32, i32 or i16 table, or i8 bytes.
fn prepared_arg(ctx: &Context, a: AttrId) -> Result<CallArg, String> {
    let bad = || {
        format!("'{PREPARED_ATTR}' holds something other than f32, i32 and i16 tables and i8 bytes")
    };
    let view = elements::dense_view(ctx, a).ok_or_else(bad)?;
    let n = elements::num_elements(ctx, view.ty).ok_or_else(bad)?;
    if n > MAX_PREPARED_ELEMENTS {
        return Err(format!(
            "'{PREPARED_ATTR}' holds a table of {n} elements, more than a call can take"
        ));
    }
    match ctx.type_data(view.element) {
        TypeData::Float(acc_ir::FloatKind::F32) => (0..n)
            .map(|i| match view.get(i) {
                Scalar::Float(f) => Ok(f as f32),
                Scalar::Int(_) => Err(bad()),
            })
            .collect::<Result<Vec<f32>, String>>()
            .map(CallArg::F32Table),
        TypeData::Integer { width: 32, .. } => (0..n)
            .map(|i| match view.get(i) {
                Scalar::Int(v) => i32::try_from(v).map_err(|_| bad()),
                Scalar::Float(_) => Err(bad()),
            })
            .collect::<Result<Vec<i32>, String>>()
            .map(CallArg::I32Table),
        TypeData::Integer { width: 16, .. } => (0..n)
            .map(|i| match view.get(i) {
                Scalar::Int(v) => i16::try_from(v).map_err(|_| bad()),
                Scalar::Float(_) => Err(bad()),
            })
            .collect::<Result<Vec<i16>, String>>()
            .map(CallArg::I16Table),
        TypeData::Integer { width: 8, .. } => (0..n)
            .map(|i| match view.get(i) {
                Scalar::Int(v) => Ok(v as u8),
                Scalar::Float(_) => Err(bad()),
            })
            .collect::<Result<Vec<u8>, String>>()
            .map(CallArg::Bytes),
        _ => Err(bad()),
    }
}
