//! `pipeline-frames{frames=N}`: a pipelined entry. Each function with work placed
//! on a device (after `partition`) takes N frames (its arguments N times over, frame
//! by frame) and returns each frame's results; its ops are ordered as a software pipeline over the
//! devices, so that the schedule overlaps frames: while the DSP post-processes frame
//! n, the DLA runs frame n+1.
//!
//! An op's stage counts the device changes on the longest chain of ops leading to it
//! (the host's ops counting as a device's: the host's work on frame n comes after the
//! devices' work on frame n+1 has started). Frame k's ops of stage s go in time slot
//! k + s; the function's ops are ordered by slot, then frame, then their order in
//! the function. So frame k's stage s comes before frame k+1's stage s (a device
//! keeps its order) and after frame k's stage s-1 (data comes first), and one
//! slot holds different frames' different stages: `memory-plan`, following the
//! program's order, then keeps their buffers apart, and `schedule-devices` launches
//! them at once.
//!
//! A function none of whose ops is placed on a device is left as it is; one that takes
//! buffers (loop-level IR) or calls another function is an error. Constants are
//! shared by the frames. Argument and result attributes are repeated per frame, an
//! `onnx.name` gaining `.K` (frame K). What each frame computes does not change
//! (`--check-semantics`).

use crate::forward_transfers::each_nested;
use acc_dialects::ops::{arith, func, graph};
use acc_ir::clone::{ValueMap, clone_op};
use acc_ir::{AttrData, BodyId, Context, Diagnostic, InsertPoint, Ir, OpId, TypeData, ValueId};
use acc_pass::{OptionKind, Pass, PassInfo, PassOption, PassOptions, PassTarget};
use acc_target::placement::DEVICE_ATTR;
use rustc_hash::FxHashMap;

/// The most frames (each one a copy of the function's ops).
const MAX_FRAMES: i64 = 64;

/// The pass.
pub struct PipelineFrames {
    frames: i64,
}

/// Its registration.
pub fn info() -> PassInfo {
    PassInfo {
        name: "pipeline-frames",
        title: "PipelineFrames",
        summary: "Make each function take several frames, its placed ops ordered as a software pipeline over the devices (frame n+1's first stage beside frame n's next)",
        anchor: Some(func::Func::NAME),
        options: vec![PassOption {
            name: "frames",
            description: "the frames each call takes (1 to 64)",
            kind: OptionKind::Int,
            default: "2",
        }],
        create: |o: &PassOptions| {
            let frames = o.int("frames");
            if !(1..=MAX_FRAMES).contains(&frames) {
                return Err(format!(
                    "frames must be from 1 to {MAX_FRAMES}, not {frames}"
                ));
            }
            Ok(Box::new(PipelineFrames { frames }))
        },
    }
}

impl Pass for PipelineFrames {
    fn frames(&self) -> usize {
        self.frames as usize
    }

    fn run(&self, t: &mut PassTarget<'_>) -> Result<(), Diagnostic> {
        if self.frames == 1 {
            return Ok(());
        }
        let loc = t.ir.op(t.body, t.op).loc();
        let fail = |m: String| {
            Diagnostic::error(acc_ir::DiagLoc::Loc(loc), format!("pipeline-frames: {m}"))
        };
        let Some(inner) = t.ir.body(t.body).nested_body(t.op) else {
            return Ok(());
        };
        // Without work placed on a device there is nothing to pipeline.
        let b = t.ir.body(inner);
        let placed = b
            .top_regions()
            .iter()
            .flat_map(|r| b.region_blocks(*r))
            .flat_map(|bl| b.block_ops(bl))
            .any(|o| placed_device(t.ctx, t.ir, inner, o).is_some());
        if !placed {
            return Ok(());
        }
        let frames = self.frames as usize;
        repeat_body(t.ctx, t.ir, inner, frames).map_err(fail)?;
        repeat_signature(t.ctx, t.ir, t.body, t.op, frames).map_err(fail)
    }
}

/// Clones the single block of `body` `frames - 1` more times (new arguments for
/// each frame), returns every frame's results, and orders the ops by slot.
fn repeat_body(ctx: &Context, ir: &mut Ir, body: BodyId, frames: usize) -> Result<(), String> {
    let b = ir.body(body);
    let blocks: Vec<_> = b
        .top_regions()
        .iter()
        .flat_map(|r| b.region_blocks(*r))
        .collect();
    let [block] = blocks[..] else {
        return Err("a function of more than one block".into());
    };
    let ops: Vec<OpId> = b.block_ops(block).collect();
    let (&ret, work) = ops.split_last().ok_or("a function without its return")?;
    if !func::Return::is(ctx, ir.op(body, ret)) {
        return Err("a function that does not end with 'func.return'".into());
    }
    let args: Vec<ValueId> = b.block_args(block).to_vec();
    if args
        .iter()
        .any(|a| matches!(ctx.type_data(b.value_type(*a)), TypeData::MemRef { .. }))
    {
        return Err("it takes buffers: it runs on graph-level functions, after partition and before bufferize".into());
    }
    if work.iter().any(|o| func::Call::is(ctx, ir.op(body, *o))) {
        return Err("the function calls another: inline it first".into());
    }
    let stages = stages(ctx, ir, body, work);
    // (slot, frame, position) of every op.
    let mut keyed: Vec<((usize, usize, usize), OpId)> = work
        .iter()
        .enumerate()
        .map(|(i, o)| ((stages[o], 0, i), *o))
        .collect();
    let mut returned: Vec<ValueId> = ir.body(body).operands(ret).collect();
    let first_returned = returned.clone();
    for k in 1..frames {
        let mut map = ValueMap::default();
        for a in &args {
            let ty = ir.body(body).value_type(*a);
            let new = ir.body_mut(body).add_block_arg(block, ty);
            map.values.insert(*a, new);
        }
        for (i, o) in work.iter().enumerate() {
            // Constants serve every frame.
            if is_constant(ctx, ir, body, *o) {
                continue;
            }
            let copy = clone_op(ir, body, *o, body, InsertPoint::Before(ret), &mut map);
            keyed.push(((stages[o] + k, k, i), copy));
        }
        returned.extend(
            first_returned
                .iter()
                .map(|v| map.values.get(v).copied().unwrap_or(*v)),
        );
    }
    keyed.sort_by_key(|(key, _)| *key);
    for (_, o) in &keyed {
        ir.body_mut(body).move_op_before(*o, ret);
    }
    let loc = ir.op(body, ret).loc();
    let mut e = acc_dialects::build::Builder::new(ctx, ir, body, InsertPoint::Before(ret), loc);
    func::Return::build(&mut e, &returned).create()?;
    ir.erase_op(body, ret);
    Ok(())
}

/// Each op's stage: the device changes on the longest chain of ops to it (the host
/// counting as a device; arguments and constants start chains; the values an op's
/// regions use count as its operands).
fn stages(ctx: &Context, ir: &Ir, body: BodyId, ops: &[OpId]) -> FxHashMap<OpId, usize> {
    let b = ir.body(body);
    // Per value an op with operands made: its op's stage and device.
    let mut of_value: FxHashMap<ValueId, (usize, String)> = FxHashMap::default();
    let mut out = FxHashMap::default();
    for o in ops {
        let device = placed_device(ctx, ir, body, *o).unwrap_or_default();
        let mut used: Vec<ValueId> = Vec::new();
        each_nested(ir, body, *o, &mut |n| {
            used.extend(ir.body(body).operands(n))
        });
        let stage = used
            .iter()
            .filter_map(|v| of_value.get(v))
            .map(|(s, d)| s + usize::from(*d != device))
            .max()
            .unwrap_or(0);
        if !is_constant(ctx, ir, body, *o) {
            for r in b.results(*o) {
                of_value.insert(r, (stage, device.clone()));
            }
        }
        out.insert(*o, stage);
    }
    out
}

/// Whether `op` is a constant (`graph.constant`, `arith.constant`): one for all frames.
fn is_constant(ctx: &Context, ir: &Ir, body: BodyId, op: OpId) -> bool {
    let r = ir.op(body, op);
    graph::Constant::is(ctx, r) || arith::Constant::is(ctx, r)
}

/// The device `op` is placed on (`hw.device`), if any.
fn placed_device(ctx: &Context, ir: &Ir, body: BodyId, op: OpId) -> Option<String> {
    match ctx.attr_data(ctx.dict_get(ir.body(body).op(op).attrs, DEVICE_ATTR)?) {
        AttrData::String { value, .. } => Some(ctx.str(*value).to_string()),
        _ => None,
    }
}

/// The function type and argument and result attributes of `f`, `frames` times over.
fn repeat_signature(
    ctx: &Context,
    ir: &mut Ir,
    outer: BodyId,
    f: OpId,
    frames: usize,
) -> Result<(), String> {
    let r = ir.op(outer, f);
    let (inputs, results) = acc_dialects::hooks::func::function_signature(ctx, r)
        .ok_or("a function without its type")?;
    let times = |ts: &[acc_ir::TypeId]| -> Vec<acc_ir::TypeId> {
        (0..frames).flat_map(|_| ts.iter().copied()).collect()
    };
    let ty = ctx.type_attr(ctx.function_type(&times(&inputs), &times(&results)));
    let keys = [
        ctx.sym(func::Func::ATTR_FUNCTION_TYPE),
        ctx.sym(func::Func::ATTR_ARG_ATTRS),
        ctx.sym(func::Func::ATTR_RES_ATTRS),
    ];
    let mut props: Vec<_> = r
        .props()
        .map(|p| ctx.dict_entries(p).to_vec())
        .unwrap_or_default();
    for e in props.iter_mut() {
        if e.0 == keys[0] {
            e.1 = ty;
        } else if keys[1..].contains(&e.0) {
            e.1 = repeat_dicts(ctx, e.1, frames)?;
        }
    }
    let props = ctx
        .dict_attr(props)
        .map_err(|_| "duplicate function properties".to_string())?;
    ir.body_mut(outer).op_mut(f).props = Some(props);
    Ok(())
}

/// The array of dictionaries `a`, `frames` times over, each `onnx.name` of frame K
/// suffixed `.K`.
fn repeat_dicts(ctx: &Context, a: acc_ir::AttrId, frames: usize) -> Result<acc_ir::AttrId, String> {
    let AttrData::Array(items) = ctx.attr_data(a) else {
        return Err("argument attributes that are not an array".into());
    };
    let name = ctx.sym("onnx.name");
    let mut out = Vec::new();
    for k in 0..frames {
        for d in items.iter() {
            let mut entries = ctx.dict_entries(*d).to_vec();
            for e in entries.iter_mut() {
                if e.0 == name
                    && let AttrData::String { value, .. } = ctx.attr_data(e.1)
                {
                    e.1 = ctx.string_attr(&format!("{}.{k}", ctx.str(*value)));
                }
            }
            out.push(
                ctx.dict_attr(entries)
                    .map_err(|_| "duplicate attributes".to_string())?,
            );
        }
    }
    Ok(ctx.intern_attr(AttrData::Array(out.into())))
}
