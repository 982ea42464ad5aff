//! `outline-external`: the ops a device's `code` rules placed, where the device names
//! an external (vendor) compiler (`external "COMMAND"` in the target file), become
//! regions that compiler builds, the way TVM's BYOC partitions a graph into functions
//! for an external codegen.
//!
//! After `partition`, the ops placed on such a device (`hw.device`, no intrinsic) that
//! data connects form one region, in each block of the function's body (ops nested
//! in another op's region, and ops with regions, stay as they are); a region nothing
//! reads is erased. A region becomes one
//! `hw.intrinsic` on tensors where its last op was: its operands are the values the
//! region reads from outside (the inputs), its results those read outside (the
//! outputs), its `semantics` region the ops themselves (the constants they read cloned
//! in, so that the region carries its weights), `callee` a C name of its own
//! (`<function>_<device>_ext<n>`, not one of acc's own `acc_` names), `compiler` the command, `hw.device` the
//! device. `bufferize` makes it a call on buffers (inputs, then outputs), which
//! `schedule-devices` launches on the device; the C back end hands the semantics to
//! the command as a function and links what it returns (docs/codegen.md, "External
//! compilers"). The interpreter runs the semantics: what the function computes does not
//! change (`--check-semantics`).
//!
//! A region takes the place of its last op: when an op outside it, between two of its
//! ops, uses what the region computed before it (which the region would then compute
//! too late), the region's ops go one by one instead. Inputs and outputs are tensors of static shape
//! (a region with another is an error: an external compiler receives buffers of known
//! size); ops with regions of their own are not outlined.

use acc_dialects::build::{Builder, i64s};
use acc_dialects::ops::{func, hw};
use acc_ir::clone::{ValueMap, clone_op};
use acc_ir::{
    BlockId, BodyId, Context, DiagLoc, Diagnostic, InsertPoint, Ir, OpId, TypeData, ValueDef,
    ValueId,
};
use acc_pass::{Pass, PassInfo, PassOptions, PassTarget};
use acc_target::placement::{clear_placement, code_device, set_device};
use rustc_hash::{FxHashMap, FxHashSet};

/// The pass.
pub struct OutlineExternal;

/// Its registration.
pub fn info() -> PassInfo {
    PassInfo {
        name: "outline-external",
        title: "OutlineExternal",
        summary: "Make the ops placed on a device with an external compiler regions (hw.intrinsic with the command) that compiler builds",
        anchor: Some(func::Func::NAME),
        options: Vec::new(),
        create: |_: &PassOptions| Ok(Box::new(OutlineExternal)),
    }
}

impl Pass for OutlineExternal {
    fn run(&self, t: &mut PassTarget<'_>) -> Result<(), Diagnostic> {
        let commands: FxHashMap<String, String> = t
            .targets
            .iter()
            .flat_map(|target| target.devices.iter())
            .filter_map(|d| d.external.clone().map(|c| (d.name.clone(), c)))
            .collect();
        if commands.is_empty() {
            return Ok(());
        }
        let function: String = func::Func::of(t.ctx, t.op_ref())
            .and_then(|f| f.sym_name())
            .unwrap_or_default()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let body = t.ir.region_body(t.body, t.op);
        let b = t.ir.body(body);
        let blocks: Vec<BlockId> = b
            .top_regions()
            .iter()
            .flat_map(|r| b.region_blocks(*r))
            .collect();
        // Callees are unique in the module (another function's, an earlier run's).
        let mut taken: FxHashSet<String> = FxHashSet::default();
        t.ir.walk(t.body, &mut |b, o| {
            if let Some(i) = hw::Intrinsic::of(t.ctx, t.ir.op(b, o))
                && let Some(callee) = i.callee()
            {
                taken.insert(callee.to_string());
            }
        });
        let mut made = 0;
        for block in blocks {
            for (device, ops) in regions(t.ctx, t.ir, body, block, &commands) {
                let callee = loop {
                    let name = format!("{function}_{device}_ext{made}");
                    made += 1;
                    if taken.insert(name.clone()) {
                        break name;
                    }
                };
                outline(
                    t.ctx,
                    t.ir,
                    body,
                    &ops,
                    &device,
                    &commands[&device],
                    &callee,
                )
                .map_err(|m| {
                    let loc = t.ir.op(body, ops[0]).loc();
                    Diagnostic::error(DiagLoc::Loc(loc), format!("outline-external: {m}"))
                })?;
            }
        }
        Ok(())
    }
}

/// The regions of `block`: for each, its device and its ops in program order.
fn regions(
    ctx: &Context,
    ir: &Ir,
    body: BodyId,
    block: BlockId,
    commands: &FxHashMap<String, String>,
) -> Vec<(String, Vec<OpId>)> {
    let b = ir.body(body);
    let ops: Vec<OpId> = b.block_ops(block).collect();
    let position: FxHashMap<OpId, usize> = ops.iter().enumerate().map(|(i, o)| (*o, i)).collect();
    let device: FxHashMap<OpId, String> = ops
        .iter()
        .filter(|o| b.op_regions(**o).is_empty() && !constant_like(ctx, ir, body, **o))
        .filter_map(|o| {
            code_device(ctx, ir, body, *o)
                .filter(|d| commands.contains_key(d))
                .map(|d| (*o, d))
        })
        .collect();
    // Union-find over the data edges between ops of one device.
    let mut parent: FxHashMap<OpId, OpId> = device.keys().map(|o| (*o, *o)).collect();
    fn root(parent: &mut FxHashMap<OpId, OpId>, mut o: OpId) -> OpId {
        while parent[&o] != o {
            let up = parent[&parent[&o]];
            parent.insert(o, up);
            o = up;
        }
        o
    }
    for (op, d) in &device {
        for v in b.operands(*op) {
            if let ValueDef::Result(def, _) = b.value(v).def
                && device.get(&def) == Some(d)
            {
                let (x, y) = (root(&mut parent, *op), root(&mut parent, def));
                parent.insert(x, y);
            }
        }
    }
    let mut groups: FxHashMap<OpId, Vec<OpId>> = FxHashMap::default();
    for op in &ops {
        if device.contains_key(op) {
            let r = root(&mut parent, *op);
            groups.entry(r).or_default().push(*op);
        }
    }
    let mut groups: Vec<Vec<OpId>> = groups.into_values().collect();
    groups.sort_by_key(|g| position[&g[0]]);
    let mut out = Vec::new();
    for group in groups {
        let d = device[&group[0]].clone();
        if in_order(ir, body, &ops, &position, &group) {
            out.push((d, group));
        } else {
            out.extend(group.into_iter().map(|o| (d.clone(), vec![o])));
        }
    }
    out
}

/// Whether the ops of `group` (in program order) can become one op where the last
/// is: no op between them uses what the group computed.
fn in_order(
    ir: &Ir,
    body: BodyId,
    ops: &[OpId],
    position: &FxHashMap<OpId, usize>,
    group: &[OpId],
) -> bool {
    let b = ir.body(body);
    let inside: FxHashSet<OpId> = group.iter().copied().collect();
    let (first, last) = (position[&group[0]], position[&group[group.len() - 1]]);
    let mut computed: FxHashSet<ValueId> = FxHashSet::default();
    for op in &ops[first..=last] {
        if inside.contains(op) {
            computed.extend(b.results(*op));
            continue;
        }
        let mut uses = false;
        ir.walk_nested(body, *op, &mut |nb, o| {
            if nb == body {
                uses |= b.operands(o).any(|v| computed.contains(&v));
            }
        });
        uses |= b.operands(*op).any(|v| computed.contains(&v));
        if uses {
            return false;
        }
    }
    true
}

/// Replaces `ops` (one region, in program order) by the `hw.intrinsic` computing
/// them.
fn outline(
    ctx: &Context,
    ir: &mut Ir,
    body: BodyId,
    ops: &[OpId],
    device: &str,
    command: &str,
    callee: &str,
) -> Result<(), String> {
    let b = ir.body(body);
    let inside: FxHashSet<OpId> = ops.iter().copied().collect();
    let mut inputs: Vec<ValueId> = Vec::new();
    let mut constants: Vec<OpId> = Vec::new();
    for op in ops {
        for v in b.operands(*op) {
            match b.value(v).def {
                ValueDef::Result(def, _) if inside.contains(&def) => {}
                ValueDef::Result(def, _) if constant_like(ctx, ir, body, def) => {
                    if !constants.contains(&def) {
                        constants.push(def);
                    }
                }
                _ => {
                    if !inputs.contains(&v) {
                        inputs.push(v);
                    }
                }
            }
        }
    }
    let outputs: Vec<ValueId> = ops
        .iter()
        .flat_map(|op| b.results(*op))
        .filter(|v| b.value_users(*v).any(|u| !inside.contains(&u)))
        .collect();
    if outputs.is_empty() {
        // Nothing reads what the region computes (its ops are pure graph ops).
        for op in ops.iter().rev() {
            ir.erase_op(body, *op);
        }
        return Ok(());
    }
    for v in inputs.iter().chain(&outputs) {
        let ty = b.value_type(*v);
        let fixed = matches!(ctx.type_data(ty), TypeData::RankedTensor { shape, .. } if shape.iter().all(|d| *d >= 0));
        if !fixed {
            return Err(format!(
                "region '{callee}' on '{device}' passes a {}, where an external compiler takes tensors of static shape",
                acc_ir::printer::type_to_string(ctx, ty)
            ));
        }
    }
    let arg_types: Vec<_> = inputs.iter().map(|v| b.value_type(*v)).collect();
    let result_types: Vec<_> = outputs.iter().map(|v| b.value_type(*v)).collect();
    let last = ops[ops.len() - 1];
    let next = b
        .next_op(last)
        .ok_or("the region's last op ends its block")?;
    let loc = ir.op(body, last).loc();
    let mut e = Builder::new(ctx, &mut *ir, body, InsertPoint::Before(next), loc);
    let semantics = e.region(&arg_types, hw::Yield::NAME, &mut |e, args| {
        let mut map = ValueMap::default();
        for (v, a) in inputs.iter().zip(args) {
            map.values.insert(*v, *a);
        }
        for c in &constants {
            clone_op(e.ir, body, *c, body, e.point, &mut map);
        }
        for op in ops {
            let copy = clone_op(e.ir, body, *op, body, e.point, &mut map);
            // The copy states what the region computes; it is placed nowhere.
            clear_placement(ctx, e.ir, body, copy)?;
        }
        Ok(outputs.iter().map(|v| map.values[v]).collect())
    })?;
    let all: Vec<i64> = (0..inputs.len() as i64).collect();
    let made = hw::Intrinsic::build(&mut e, &inputs, &result_types)
        .callee(ctx.string_attr(callee))
        .inputs(i64s(ctx, &all))
        .outputs(i64s(ctx, &[]))
        .compiler(ctx.string_attr(command))
        .semantics(semantics)
        .create()?;
    set_device(ctx, ir, body, made, device).map_err(|d| d.message)?;
    let results: Vec<ValueId> = ir.body(body).results(made).collect();
    for (old, new) in outputs.iter().zip(results) {
        ir.body_mut(body).replace_all_uses(*old, new);
    }
    for op in ops.iter().rev() {
        ir.erase_op(body, *op);
    }
    // Constants only the region read are its own now.
    for c in constants {
        if ir
            .body(body)
            .results(c)
            .all(|v| ir.body(body).value_users(v).next().is_none())
        {
            ir.erase_op(body, c);
        }
    }
    Ok(())
}

/// Whether `op` is constant-like (its value known here: the region takes a copy).
fn constant_like(ctx: &Context, ir: &Ir, body: BodyId, op: OpId) -> bool {
    let r = ir.op(body, op);
    ctx.op_def(r.name())
        .is_some_and(|d| d.traits.constant_like && r.regions().is_empty())
}
