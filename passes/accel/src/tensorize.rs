//! `tensorize`: splits an op placed on an intrinsic whose buffers do not fit the
//! memory the intrinsic reads (its `memory NAME` in the target file) into tiles that
//! do, along the op's output channels, or, when those cannot fit (a convolution's
//! shared input alone overflows the memory, a pool), along its output rows
//! ([`rows`]).
//!
//! An op placed by `partition` on an intrinsic with a local memory keeps its place
//! when the call's buffers (operands, result, the tables and packed bytes computed at
//! compile time) fit that memory together. Otherwise it becomes `k` ops of at most
//! `T` output channels each, joined by a `graph.concat` along that axis; each tile is
//! placed on the same intrinsic, which must accept it (its conditions are checked on
//! the tile, and its call arguments, such as the number of channels or the
//! requantization table, are computed for the tile). `T` is the largest number for
//! which the inputs every tile shares, plus two tiles' own buffers, fit: `bufferize`
//! copies the next tile's buffers in by DMA while the current one computes, so two
//! tiles' buffers are alive at once (double buffering).
//!
//! What a tile reads of each operand is the op's tiling rule, which belongs to the
//! op, not to a target ([`rule`]):
//! - `graph.qconv2d`: filters and bias split by output channel, the input shared;
//!   a depthwise convolution (groups = input channels) splits its input channels
//!   too, and each tile has `groups` = its channels;
//! - `graph.qmatmul`: the right-hand side's columns and the bias split, the
//!   left-hand side shared;
//! - `graph.lookup`: input and result split along the last axis, the table shared;
//! - `graph.qadd`, `graph.qmul`, `graph.requantize` (elementwise): every operand and
//!   the result split along the result's first dimension of more than one element.
//!
//! An op `partition` left on the host because an intrinsic's conditions bound a
//! dimension the tiles split (at most so many output channels a call) is tiled the
//! same way, to the largest tile the intrinsic accepts (`tile_refused_op`).
//!
//! A constant operand is sliced at compile time (a per-channel quantized weight
//! keeps the scales of its channels); another is sliced with `graph.slice`. An op
//! that cannot be tiled (no rule, a tile the intrinsic refuses, one channel too
//! large) leaves the accelerator: it stays on the host with a remark saying why.
//! Each tiling is reported as a remark. The function computes the same values
//! (`--check-semantics`): the tiles compute the channels of the op they replace.

mod rows;

use acc_dialects::hooks::attr_read::Attrs;
use acc_dialects::hooks::stored::{constant_chain, stored_constant};
use acc_ir::clone::{ValueMap, clone_op};
use acc_ir::elements::{self, Scalar};
use acc_ir::{
    BodyId, Context, DiagLoc, Diagnostic, InsertPoint, Ir, OpId, Severity, TypeData, TypeId,
    ValueId,
};
use acc_pass::{Pass, PassInfo, PassOptions, PassTarget, target_option};
use acc_target::{CallArg, Intrinsic, Placement, Target, Targets};

use acc_dialects::build::{Builder, i64_attr, i64s, memref_type, shape_of, tensor_type};
use acc_dialects::hooks::hw::{ALIGNMENT, stored_bytes};
use acc_dialects::ops::{func, graph};
use acc_target::placement::{clear_placement, placement, set_placement};

/// The pass.
pub struct Tensorize {
    /// The target whose intrinsics may take tiles of ops left on the host (empty:
    /// the compilation's first).
    target: String,
}

/// Its registration.
pub fn info() -> PassInfo {
    PassInfo {
        name: "tensorize",
        title: "Tensorize",
        summary: "Split ops into tiles of output channels (or of output rows, with their halos) that an intrinsic accepts and whose buffers fit its memory, two tiles at a time",
        anchor: Some(func::Func::NAME),
        options: vec![target_option()],
        create: |o: &PassOptions| {
            Ok(Box::new(Tensorize {
                target: o.get("target").to_string(),
            }))
        },
    }
}

impl Pass for Tensorize {
    fn run(&self, t: &mut PassTarget<'_>) -> Result<(), Diagnostic> {
        let Some(target) = t.targets.select(&self.target).cloned() else {
            if self.target.is_empty() {
                // Without a target there is nothing placed to tile.
                return Ok(());
            }
            return Err(Diagnostic::error(
                DiagLoc::Loc(t.op_ref().loc()),
                t.targets.missing(&self.target, "tensorize"),
            ));
        };
        for (body, ops) in t.body_ops() {
            for op in ops {
                let remark = match tensorize_op(t.ctx, t.ir, body, op, t.targets, &target)? {
                    Some(remark) => Some(remark),
                    None => tile_refused_op(t.ctx, t.ir, body, op, &target)?,
                };
                if let Some(remark) = remark {
                    t.diagnostics.push(Diagnostic::new(
                        Severity::Remark,
                        DiagLoc::Loc(t.ir.op(body, op).loc()),
                        remark,
                    ));
                    if t.ir
                        .body(body)
                        .results(op)
                        .all(|r| !t.ir.body(body).has_uses(r))
                    {
                        erase_with_dead_constants(t.ctx, t.ir, body, op);
                    }
                }
            }
        }
        Ok(())
    }
}

/// Tiles `op` when it is placed on an intrinsic whose memory its buffers overflow:
/// the remark saying what was done (the op is left without uses when tiled), or
/// `None` when there was nothing to do.
fn tensorize_op(
    ctx: &Context,
    ir: &mut Ir,
    body: BodyId,
    op: OpId,
    targets: &Targets,
    target: &Target,
) -> Result<Option<String>, Diagnostic> {
    let Some((device, name)) = placement(ctx, ir, body, op) else {
        return Ok(None);
    };
    let Some((declaring, intrinsic)) = targets.intrinsic(&device, &name) else {
        return Ok(None);
    };
    let Some(memory) = intrinsic
        .memory
        .as_deref()
        .and_then(|m| declaring.memory(m))
    else {
        return Ok(None);
    };
    let loc = ir.op(body, op).loc();
    let fail = |m: String| Diagnostic::error(DiagLoc::Loc(loc), format!("tensorize: {m}"));
    let whole = intrinsic
        .rule
        .place(ctx, ir, body, op)
        .map_err(|why| fail(format!("'{name}' no longer accepts the op: {why}")))?;
    let operands: Vec<ValueId> = ir.body(body).operands(op).collect();
    let whole_bytes = call_bytes(ctx, ir, body, &whole, &operands, &[]).total();
    // Tiles of output rows, when output-channel tiles cannot fit: the remark, or why
    // not.
    let by_rows = |ir: &mut Ir| -> Result<String, String> {
        let rule = rows::row_rule(ctx, ir, body, op).ok_or("acc has no tiling rule for it")?;
        let per_tile = rows::rows_per_tile(
            ctx,
            ir,
            body,
            (op, &whole),
            &rule,
            (memory.size, whole_bytes),
        )
        .ok_or("even one output row a tile")?;
        let count = (rule.out_rows + per_tile - 1) / per_tile;
        let per_tile = (rule.out_rows + count - 1) / count;
        rows::split_rows(ctx, ir, body, op, intrinsic, &rule, per_tile)?;
        Ok(format!(
            "tensorize: '{name}' computes this in {count} tiles of {per_tile} output rows (its buffers take {whole_bytes} bytes, more than memory '{}' holds, {}; each tile reads its input rows and the rows around them its windows reach)",
            memory.name, memory.size
        ))
    };
    let Some(rule) = rule(ctx, ir, body, op) else {
        if whole_bytes <= memory.size {
            return Ok(None);
        }
        return match by_rows(ir) {
            Ok(remark) => Ok(Some(remark)),
            Err(why) => {
                let why = format!(
                    "its buffers take {whole_bytes} bytes, more than memory '{}' holds ({}), and tiles cannot fit: {why}",
                    memory.name, memory.size
                );
                Ok(Some(leave_device(ctx, ir, body, op, target, &why)?))
            }
        };
    };
    let shared: Vec<usize> = (0..operands.len())
        .filter(|k| rule.operand_axes.get(*k).copied().flatten().is_none())
        .collect();
    let bytes = call_bytes(ctx, ir, body, &whole, &operands, &shared);
    if bytes.total() <= memory.size {
        return Ok(None);
    }
    // The largest tile whose buffers fit twice, beside the shared ones.
    let fits = |n: i64| bytes.shared + 2 * bytes.tile(n, rule.channels) <= memory.size;
    let Some(per_tile) = (1..rule.channels).rev().find(|n| fits(*n)) else {
        return match by_rows(ir) {
            Ok(remark) => Ok(Some(remark)),
            Err(rows_why) => {
                let why = format!(
                    "its buffers take {} bytes, more than memory '{}' holds ({}), even one channel a tile; by rows: {rows_why}",
                    bytes.total(),
                    memory.name,
                    memory.size
                );
                Ok(Some(leave_device(ctx, ir, body, op, target, &why)?))
            }
        };
    };
    let count = (rule.channels + per_tile - 1) / per_tile;
    // Balanced tiles: the same count, as even as possible.
    let per_tile = (rule.channels + count - 1) / count;
    match split(ctx, ir, body, op, intrinsic, &rule, per_tile) {
        Ok(_) => Ok(Some(format!(
            "tensorize: '{name}' computes this in {count} tiles of {per_tile} channels (its buffers take {} bytes, more than memory '{}' holds, {}; a tile's take {})",
            bytes.total(),
            memory.name,
            memory.size,
            bytes.shared + bytes.tile(per_tile, rule.channels)
        ))),
        Err(why) => Ok(Some(leave_device(ctx, ir, body, op, target, &why)?)),
    }
}

/// Tiles `op` when partition left it on the host but an intrinsic accepts tiles of
/// it (its conditions bound a dimension the tiles split: at most so many output
/// channels a call): the remark saying what was done, or `None`. Of the intrinsics
/// accepting some tile, the one whose tiles cost least in all wins, with its
/// largest tile (that also fits its memory twice over). The search assumes that
/// conditions accepting a tile accept every smaller one (upper bounds): a condition
/// such as `dim(%b, 1) % 4 == 0` or a lower bound is not searched, and a last
/// tile the intrinsic refuses leaves the op on the host.
fn tile_refused_op(
    ctx: &Context,
    ir: &mut Ir,
    body: BodyId,
    op: OpId,
    target: &Target,
) -> Result<Option<String>, Diagnostic> {
    if placement(ctx, ir, body, op).is_some()
        || acc_target::placement::code_device(ctx, ir, body, op).is_some()
    {
        return Ok(None);
    }
    let Some(rule) = rule(ctx, ir, body, op) else {
        return Ok(None);
    };
    let name = ctx.op_name_str(ir.body(body).op(op).name).to_string();
    // An op an intrinsic accepts whole was left on the host by choice (a host
    // `code` rule made the schedule shorter there): not refused, not tiled.
    if target
        .intrinsics
        .iter()
        .any(|i| i.rule.root() == name && i.rule.place(ctx, ir, body, op).is_ok())
    {
        return Ok(None);
    }
    let mut best: Option<(i64, i64, &Intrinsic)> = None;
    for intrinsic in target
        .intrinsics
        .iter()
        .filter(|i| i.rule.root() == name && !i.compiled)
    {
        let Some((per_tile, cost)) =
            largest_accepted_tile(ctx, ir, body, op, &rule, intrinsic, target)
        else {
            continue;
        };
        let total = cost.saturating_mul((rule.channels + per_tile - 1) / per_tile);
        if best.is_none_or(|(least, _, _)| total < least) {
            best = Some((total, per_tile, intrinsic));
        }
    }
    let Some((_, per_tile, intrinsic)) = best else {
        return Ok(None);
    };
    let tiles = match split(ctx, ir, body, op, intrinsic, &rule, per_tile) {
        Ok(tiles) => tiles,
        Err(_) => return Ok(None),
    };
    for t in &tiles {
        set_placement(ctx, ir, body, *t, &intrinsic.device, &intrinsic.name)?;
    }
    Ok(Some(format!(
        "tensorize: '{}' computes this in {} tiles of {per_tile} channels (it refuses the whole op)",
        intrinsic.name,
        tiles.len()
    )))
}

/// The largest number of channels a tile of `op` can have for `intrinsic` to accept
/// it (and, with a local memory, to fit it twice beside the shared buffers), and the
/// cost of such a tile. Trial tiles are built and erased.
fn largest_accepted_tile(
    ctx: &Context,
    ir: &mut Ir,
    body: BodyId,
    op: OpId,
    rule: &TileRule,
    intrinsic: &Intrinsic,
    target: &Target,
) -> Option<(i64, i64)> {
    let memory = intrinsic.memory.as_deref().and_then(|m| target.memory(m));
    let operands: Vec<ValueId> = ir.body(body).operands(op).collect();
    let shared: Vec<usize> = (0..operands.len())
        .filter(|k| rule.operand_axes.get(*k).copied().flatten().is_none())
        .collect();
    // One channel first: a refusal that no tile lifts (an element type, a kernel
    // size) costs one small trial, not one per tile size.
    let mut sizes = vec![1];
    let mut tried = rule.channels;
    for count in 2..=rule.channels {
        let per_tile = (rule.channels + count - 1) / count;
        if per_tile != tried && per_tile > 1 {
            sizes.push(per_tile);
        }
        tried = per_tile;
    }
    let mut found = None;
    for (i, per_tile) in sizes.into_iter().enumerate() {
        let mut made = Vec::new();
        let trial = (|| {
            let inputs: Vec<ValueId> = operands
                .iter()
                .enumerate()
                .map(|(k, v)| match rule.operand_axes.get(k).copied().flatten() {
                    Some(axis) => slice(ctx, ir, body, op, *v, axis, 0, per_tile, &mut made),
                    None => Ok(*v),
                })
                .collect::<Result<_, String>>()
                .ok()?;
            let (tile_op, _) =
                tile(ctx, ir, body, op, rule, &inputs, 0, per_tile, &mut made).ok()?;
            let p = intrinsic.rule.place(ctx, ir, body, tile_op).ok()?;
            let tile_operands: Vec<ValueId> = ir.body(body).operands(tile_op).collect();
            let bytes = call_bytes(ctx, ir, body, &p, &tile_operands, &shared);
            let fits = memory.is_none_or(|m| bytes.double_buffered() <= m.size);
            fits.then_some(p.cost)
        })();
        for o in made.into_iter().rev() {
            ir.erase_op(body, o);
        }
        match (i, trial) {
            (0, None) => return None,
            (0, Some(cost)) => found = Some((1, cost)),
            (_, Some(cost)) => return Some((per_tile, cost)),
            (_, None) => {}
        }
    }
    found
}

/// How an op splits into output-channel tiles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileRule {
    /// The result's channel axis.
    pub result_axis: usize,
    /// The result's channels.
    pub channels: i64,
    /// For each operand, the axis a tile slices (its channels), or `None` when every
    /// tile reads all of it.
    pub operand_axes: Vec<Option<usize>>,
    /// Whether each tile's `groups` is its channels (a depthwise convolution).
    pub per_tile_groups: bool,
}

/// The tiling rule of `op`, when acc knows one for its kind and shapes.
pub fn rule(ctx: &Context, ir: &Ir, body: BodyId, op: OpId) -> Option<TileRule> {
    let b = ir.body(body);
    let operands: Vec<ValueId> = b.operands(op).collect();
    let result = b.results(op).next()?;
    let (out_shape, _) = shape_of(ctx, b.value_type(result)).ok()?;
    let rank_of = |v: ValueId| shape_of(ctx, b.value_type(v)).ok().map(|(s, _)| s.len());
    let (result_axis, operand_axes, per_tile_groups) = match graph::Op::of(ctx, ir.op(body, op)) {
        Some(graph::Op::Qconv2d) => {
            let attrs = Attrs::of_op(ctx, ir.op(body, op));
            let groups = attrs
                .int(graph::Qconv2d::ATTR_GROUPS)
                .ok()
                .flatten()
                .unwrap_or(1);
            let (x_shape, _) = shape_of(ctx, b.value_type(operands[0])).ok()?;
            let depthwise = groups > 1 && x_shape.get(1) == Some(&groups);
            if groups > 1 && !depthwise {
                return None;
            }
            let x_axis = depthwise.then_some(1);
            let mut axes = vec![x_axis, Some(0)];
            axes.extend(operands.get(2).map(|_| Some(0)));
            (1, axes, depthwise)
        }
        Some(graph::Op::Qmatmul) => {
            let rhs = rank_of(operands[1])?;
            let mut axes = vec![None, Some(rhs.checked_sub(1)?)];
            axes.extend(operands.get(2).map(|_| Some(0)));
            (out_shape.len().checked_sub(1)?, axes, false)
        }
        Some(graph::Op::Lookup) => {
            let last = out_shape.len().checked_sub(1)?;
            (last, vec![Some(last), None], false)
        }
        // Elementwise: every operand (of the result's shape) split along the
        // result's first dimension of more than one element.
        Some(graph::Op::Qadd | graph::Op::Qmul | graph::Op::Requantize) => {
            let axis = out_shape.iter().position(|d| *d > 1)?;
            if operands.iter().any(|v| {
                shape_of(ctx, b.value_type(*v)).ok().map(|(s, _)| s) != Some(out_shape.clone())
            }) {
                return None;
            }
            (axis, vec![Some(axis); operands.len()], false)
        }
        _ => return None,
    };
    let channels = *out_shape.get(result_axis)?;
    (channels > 1).then_some(TileRule {
        result_axis,
        channels,
        operand_axes,
        per_tile_groups,
    })
}

/// The bytes of a call's buffers, as the memory planner aligns them.
struct CallBytes {
    /// The operands every tile reads whole.
    shared: u64,
    /// Everything else, for the whole op.
    split: Vec<u64>,
}

impl CallBytes {
    fn total(&self) -> u64 {
        self.shared + self.split.iter().map(|b| aligned(*b)).sum::<u64>()
    }

    /// The bytes of the shared buffers and two sets of the others: what a call
    /// needs with the next one's buffers copied in beside it.
    fn double_buffered(&self) -> u64 {
        self.shared + 2 * self.split.iter().map(|b| aligned(*b)).sum::<u64>()
    }

    /// The bytes of one tile of `n` of `channels` channels, besides the shared ones.
    fn tile(&self, n: i64, channels: i64) -> u64 {
        let (n, c) = (n.max(0) as u64, channels.max(1) as u64);
        self.split
            .iter()
            .map(|b| aligned((b * n).div_ceil(c)))
            .sum()
    }
}

fn aligned(bytes: u64) -> u64 {
    bytes.div_ceil(ALIGNMENT).max(1) * ALIGNMENT
}

/// The bytes of the buffers the call `p` of `op` passes, the operands numbered in
/// `shared` apart.
fn call_bytes(
    ctx: &Context,
    ir: &Ir,
    body: BodyId,
    p: &Placement,
    operands: &[ValueId],
    shared: &[usize],
) -> CallBytes {
    let mut bytes = CallBytes {
        shared: 0,
        split: Vec::new(),
    };
    for arg in &p.call {
        let n = match arg {
            CallArg::Value(v) => {
                let (shape, element) = match shape_of(ctx, ir.body(body).value_type(*v)) {
                    Ok(s) => s,
                    Err(_) => continue,
                };
                // A blocked layout's buffer holds its padding too; a result of
                // dynamic shape has the buffer of its bound.
                let shape = match (
                    p.layouts.iter().find(|(x, _)| x == v),
                    p.bounds.iter().find(|(x, _)| x == v),
                ) {
                    (Some((_, layout)), _) => layout.stored_shape(&shape),
                    (None, Some((_, bound))) => bound.clone(),
                    (None, None) => shape,
                };
                let n = stored_bytes(ctx, memref_type(ctx, &shape, element)).map_or(0, |b| b.0);
                if shared.iter().any(|k| operands[*k] == *v) {
                    bytes.shared += aligned(n);
                    continue;
                }
                n
            }
            CallArg::Int(_) | CallArg::Float(_) => continue,
            CallArg::Count(_) => 4,
            CallArg::F32Table(t) => 4 * t.len() as u64,
            CallArg::I32Table(t) => 4 * t.len() as u64,
            CallArg::I16Table(t) => 2 * t.len() as u64,
            CallArg::Bytes(b) => b.len() as u64,
        };
        bytes.split.push(n);
    }
    bytes
}

/// Replaces `op` by tiles of `per_tile` channels and their concatenation; on an error
/// nothing is left of the tiles.
fn split(
    ctx: &Context,
    ir: &mut Ir,
    body: BodyId,
    op: OpId,
    intrinsic: &Intrinsic,
    rule: &TileRule,
    per_tile: i64,
) -> Result<Vec<OpId>, String> {
    let loc = ir.op(body, op).loc();
    let result = ir.body(body).results(op).next().ok_or("no result")?;
    let result_type = ir.body(body).value_type(result);
    let operands: Vec<ValueId> = ir.body(body).operands(op).collect();
    let mut made: Vec<OpId> = Vec::new();
    let mut tiles = Vec::new();
    let mut outcome = Ok(());
    // Every tile's operands first, then the tiles one after another: nothing runs
    // between two tiles, so the staged input stays in the local memory.
    let mut ranges = Vec::new();
    let mut start = 0;
    while start < rule.channels {
        let n = per_tile.min(rule.channels - start);
        ranges.push((start, n));
        start += n;
    }
    let mut tile_inputs = Vec::new();
    for (start, n) in &ranges {
        let inputs: Result<Vec<ValueId>, String> = operands
            .iter()
            .enumerate()
            .map(|(k, v)| match rule.operand_axes.get(k).copied().flatten() {
                Some(axis) => slice(ctx, ir, body, op, *v, axis, *start, *n, &mut made),
                None => Ok(*v),
            })
            .collect();
        match inputs {
            Ok(inputs) => tile_inputs.push(inputs),
            Err(e) => {
                outcome = Err(e);
                break;
            }
        }
    }
    for ((start, n), inputs) in ranges.iter().zip(&tile_inputs) {
        let built = tile(ctx, ir, body, op, rule, inputs, *start, *n, &mut made);
        match built.and_then(|(tile_op, v)| {
            intrinsic
                .rule
                .place(ctx, ir, body, tile_op)
                .map(|_| v)
                .map_err(|why| {
                    format!("'{}' refuses a tile of {n} channels: {why}", intrinsic.name)
                })
        }) {
            Ok(v) => tiles.push(v),
            Err(e) => {
                outcome = Err(e);
                break;
            }
        }
    }
    if let Err(e) = outcome {
        for o in made.into_iter().rev() {
            ir.erase_op(body, o);
        }
        return Err(e);
    }
    let mut e = Builder::new(ctx, &mut *ir, body, InsertPoint::Before(op), loc);
    let axis = i64_attr(ctx, rule.result_axis as i64);
    let joined = match graph::Concat::build(&mut e, &tiles, result_type)
        .axis(axis)
        .result()
    {
        Ok(joined) => joined,
        Err(e) => {
            for o in made.into_iter().rev() {
                ir.erase_op(body, o);
            }
            return Err(e);
        }
    };
    ir.body_mut(body).replace_all_uses(result, joined);
    Ok(tiles
        .iter()
        .filter_map(|v| match ir.body(body).value(*v).def {
            acc_ir::ValueDef::Result(o, _) => Some(o),
            _ => None,
        })
        .collect())
}

/// One tile: channels `[start, start + n)` of `op` reading `inputs`, before `op`;
/// the tile op and its result. The op made is added to `made`.
#[allow(clippy::too_many_arguments)]
fn tile(
    ctx: &Context,
    ir: &mut Ir,
    body: BodyId,
    op: OpId,
    rule: &TileRule,
    inputs: &[ValueId],
    start: i64,
    n: i64,
    made: &mut Vec<OpId>,
) -> Result<(OpId, ValueId), String> {
    let mut map = ValueMap::default();
    let copy = clone_op(ir, body, op, body, InsertPoint::Before(op), &mut map);
    made.push(copy);
    // The whole op's prepared arguments are not the tile's.
    acc_target::placement::clear_prepared(ctx, ir, body, copy)?;
    for (k, v) in inputs.iter().enumerate() {
        ir.body_mut(body).set_operand(copy, k, *v);
    }
    let out = ir.body(body).results(copy).next().ok_or("no result")?;
    let ty = sliced_type(
        ctx,
        ir.body(body).value_type(out),
        rule.result_axis,
        start,
        n,
    )?;
    ir.body_mut(body).set_value_type(out, ty);
    if rule.per_tile_groups {
        let props = ir.body(body).op(copy).props;
        let mut entries: Vec<_> = props
            .map(|p| ctx.dict_entries(p).to_vec())
            .unwrap_or_default();
        entries.retain(|(k, _)| ctx.str(*k) != graph::Qconv2d::ATTR_GROUPS);
        entries.push((ctx.sym(graph::Qconv2d::ATTR_GROUPS), i64_attr(ctx, n)));
        ir.body_mut(body).op_mut(copy).props =
            Some(ctx.dict_attr(entries).map_err(|_| "duplicate properties")?);
    }
    Ok((copy, out))
}

/// Elements `[start, start + n)` of `v` along `axis`, before `op`: a constant sliced
/// at compile time (through its storage casts), else a `graph.slice`.
#[allow(clippy::too_many_arguments)]
fn slice(
    ctx: &Context,
    ir: &mut Ir,
    body: BodyId,
    op: OpId,
    v: ValueId,
    axis: usize,
    start: i64,
    n: i64,
    made: &mut Vec<OpId>,
) -> Result<ValueId, String> {
    let ty = ir.body(body).value_type(v);
    let sliced = sliced_type(ctx, ty, axis, start, n)?;
    let loc = ir.op(body, op).loc();
    if let (Some(chain), Some(dense)) = (
        constant_chain(ctx, ir, body, v),
        stored_constant(ctx, ir, body, v),
    ) {
        let (shape, _) = shape_of(ctx, dense.ty)?;
        let values = slice_values(&dense, &shape, axis, start, n);
        let stored = sliced_type(ctx, dense.ty, axis, start, n)?;
        let attr = elements::dense_attr(ctx, stored, &values).ok_or("cannot slice a constant")?;
        let mut map = ValueMap::default();
        let mut last = None;
        for (i, c) in chain.iter().enumerate() {
            let copy = clone_op(ir, body, *c, body, InsertPoint::Before(op), &mut map);
            made.push(copy);
            let out = ir.body(body).results(copy).next().ok_or("no result")?;
            if i == 0 {
                let props = ir.body(body).op(copy).props;
                let mut entries: Vec<_> = props
                    .map(|p| ctx.dict_entries(p).to_vec())
                    .unwrap_or_default();
                for entry in &mut entries {
                    if entry.0 == ctx.value_sym() {
                        entry.1 = attr;
                    }
                }
                ir.body_mut(body).op_mut(copy).props =
                    Some(ctx.dict_attr(entries).map_err(|_| "duplicate properties")?);
                ir.body_mut(body).set_value_type(out, stored);
            } else {
                let old = ir.body(body).value_type(out);
                ir.body_mut(body)
                    .set_value_type(out, sliced_type(ctx, old, axis, start, n)?);
            }
            last = Some(out);
        }
        return last.ok_or_else(|| "an empty constant chain".to_string());
    }
    if let TypeData::RankedTensor { element, .. } = ctx.type_data(ty)
        && let TypeData::QuantUniform(q) = ctx.type_data(*element)
        && q.axis == Some(axis as i32)
    {
        return Err("a tile would slice the channels of a per-channel quantized value that is not a constant".into());
    }
    let mut e = Builder::new(ctx, &mut *ir, body, InsertPoint::Before(op), loc);
    let out = graph::Slice::build(&mut e, v, sliced)
        .starts(i64s(ctx, &[start]))
        .ends(i64s(ctx, &[start + n]))
        .axes(i64s(ctx, &[axis as i64]))
        .result()?;
    if let acc_ir::ValueDef::Result(s, _) = ir.body(body).value(out).def {
        made.push(s);
    }
    Ok(out)
}

/// The elements of `[start, start + n)` along `axis` of a row-major `shape`.
fn slice_values(
    dense: &elements::Dense,
    shape: &[i64],
    axis: usize,
    start: i64,
    n: i64,
) -> Vec<Scalar> {
    let inner: i64 = shape[axis + 1..].iter().product();
    let outer: i64 = shape[..axis].iter().product();
    let dim = shape[axis];
    let at = |i: i64| {
        if dense.splat {
            dense.values[0]
        } else {
            dense.values[i as usize]
        }
    };
    let mut values = Vec::with_capacity((outer * n * inner) as usize);
    for o in 0..outer {
        for c in start..start + n {
            let first = (o * dim + c) * inner;
            values.extend((first..first + inner).map(at));
        }
    }
    values
}

/// `ty` (a ranked tensor) with elements `[start, start + n)` along `axis`: a
/// per-channel quantized element type along that axis keeps those channels'
/// parameters.
fn sliced_type(
    ctx: &Context,
    ty: TypeId,
    axis: usize,
    start: i64,
    n: i64,
) -> Result<TypeId, String> {
    let (mut shape, element) = shape_of(ctx, ty)?;
    let dim = *shape.get(axis).ok_or("the axis is out of range")?;
    shape[axis] = n;
    let mut element = element;
    if let TypeData::QuantUniform(q) = ctx.type_data(element)
        && q.axis == Some(axis as i32)
    {
        if q.params.len() as i64 != dim || start < 0 || start + n > dim {
            return Err("a per-channel type whose parameters do not match its channels".into());
        }
        let mut q = q.clone();
        q.params = q.params[start as usize..(start + n) as usize].into();
        element = ctx.intern_type(TypeData::QuantUniform(q));
    }
    Ok(tensor_type(ctx, &shape, element))
}

/// Takes `op` off its device: it stays on the host. The remark saying so.
fn leave_device(
    ctx: &Context,
    ir: &mut Ir,
    body: BodyId,
    op: OpId,
    target: &Target,
    why: &str,
) -> Result<String, Diagnostic> {
    clear_placement(ctx, ir, body, op)
        .map_err(|m| Diagnostic::error(DiagLoc::Loc(ir.op(body, op).loc()), m))?;
    let name = ctx.op_name_str(ir.body(body).op(op).name).to_string();
    let host = target.host().map_or("host", |d| d.name.as_str());
    Ok(format!("'{name}' stays on {host}: {why}"))
}

/// Erases `op`, then the constants (and their storage casts) only it read.
fn erase_with_dead_constants(ctx: &Context, ir: &mut Ir, body: BodyId, op: OpId) {
    let operands: Vec<ValueId> = ir.body(body).operands(op).collect();
    ir.erase_op(body, op);
    for v in operands {
        let Some(chain) = constant_chain(ctx, ir, body, v) else {
            continue;
        };
        for c in chain.into_iter().rev() {
            if ir.body(body).is_erased(c)
                || ir.body(body).results(c).any(|r| ir.body(body).has_uses(r))
            {
                break;
            }
            ir.erase_op(body, c);
        }
    }
}
