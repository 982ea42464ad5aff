//! `device-buffers`: a buffer of the host's memory that only one programmable
//! device's own loops use (the ops a `code` rule placed on it), apart from copies,
//! moves into that device's local memory (on loop-level IR, after
//! `buffer-deallocation` and `forward-transfers`, before `memory-plan`). A DSP's
//! intermediate results then stay in its TCM, and another device's result that was
//! copied out to the host's memory for those loops is copied straight into the TCM
//! by the engine the target declares between the two memories (`dma dla_to_dsp ...
//! between(dla_sram, dsp_tcm)`): it never passes through the DDR.
//!
//! A buffer moves when:
//! - its `loop.alloc` is at the function's top level with a static shape, and a
//!   top-level `loop.dealloc` frees it (the function does not return it);
//! - every op using it or a view of it (`loop.reshape`, `loop.subview`), other than
//!   its deallocs and views, is in the loops of one device D or is a top-level
//!   transfer (`hw.dma_start`), and no dealloc of it is inside a loop;
//! - D is not the host, and exactly one memory M is reached by D alone (its local
//!   memory);
//! - for each transfer, the target declares an engine between M and the transfer's
//!   other memory: the transfer then uses that engine and its wait;
//! - the bytes moved into M, with the bytes already allocated there, fit M.
//!
//! A function `memory-plan` has placed already is left as it is. Only types, engines
//! and waits change: what the function computes does not
//! (`--check-semantics`).

use acc_dialects::build::buffer_root;
use acc_dialects::hooks::hw::{ALIGNMENT, stored_bytes};
use acc_dialects::ops::{func, hw, loops};
use acc_ir::{BodyId, Context, Diagnostic, Ir, OpId, TypeData, ValueId};
use acc_pass::{Pass, PassInfo, PassOptions, PassTarget};
use acc_target::Target;
use acc_target::placement::code_device;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::forward_transfers::{each_nested, space, use_engine};

/// The pass.
pub struct DeviceBuffers {
    target: String,
}

/// Its registration.
pub fn info() -> PassInfo {
    PassInfo {
        name: "device-buffers",
        title: "DeviceBuffers",
        summary: "Move buffers only one programmable device's loops use into its local memory, copies into them by an engine from the other device's memory",
        anchor: Some(func::Func::NAME),
        options: vec![acc_pass::target_option()],
        create: |o: &PassOptions| {
            Ok(Box::new(DeviceBuffers {
                target: o.get("target").to_string(),
            }))
        },
    }
}

impl Pass for DeviceBuffers {
    fn run(&self, t: &mut PassTarget<'_>) -> Result<(), Diagnostic> {
        let target = t.target(&self.target, "device-buffers")?;
        for (body, _) in t.bodies().into_iter().take(1) {
            let loc = t.ir.op(t.body, t.op).loc();
            place(t.ctx, t.ir, body, &target).map_err(|m| {
                Diagnostic::error(acc_ir::DiagLoc::Loc(loc), format!("device-buffers: {m}"))
            })?;
        }
        Ok(())
    }
}

/// What uses a buffer: the device whose loops do, and the transfers.
struct Users {
    device: Option<String>,
    views: Vec<ValueId>,
    transfers: Vec<OpId>,
}

fn place(ctx: &Context, ir: &mut Ir, body: BodyId, target: &Target) -> Result<(), String> {
    let b = ir.body(body);
    let Some(block) = b.top_regions().first().and_then(|r| b.entry_block(*r)) else {
        return Ok(());
    };
    let ops: Vec<OpId> = b.block_ops(block).collect();
    let mut top: FxHashMap<OpId, OpId> = FxHashMap::default();
    for o in &ops {
        each_nested(ir, body, *o, &mut |n| {
            top.insert(n, *o);
        });
    }
    // Bytes allocated in each memory so far.
    let mut used: FxHashMap<String, u64> = FxHashMap::default();
    let allocs: Vec<ValueId> = ops
        .iter()
        .filter(|o| loops::Alloc::is(ctx, ir.op(body, **o)))
        .filter_map(|o| ir.body(body).results(*o).next())
        .collect();
    // After memory-plan, offsets stand: nothing moves.
    if ops.iter().any(|o| {
        ir.op(body, *o)
            .attr(ctx, loops::Alloc::ATTR_OFFSET)
            .is_some()
    }) {
        return Ok(());
    }
    for v in &allocs {
        if let Some((bytes, Some(m))) = stored_bytes(ctx, ir.body(body).value_type(*v)) {
            *used.entry(m).or_default() += bytes.div_ceil(ALIGNMENT) * ALIGNMENT;
        }
    }
    let host = target.host_memory().map(|m| m.name.clone());
    for root in allocs {
        if space(ctx, ir, body, root).is_some_and(|s| Some(&s) != host.as_ref()) {
            continue;
        }
        let Some((bytes, _)) = stored_bytes(ctx, ir.body(body).value_type(root)) else {
            continue;
        };
        let Some(users) = users(ctx, ir, body, target, root, &top) else {
            continue;
        };
        let Some(device) = users.device else { continue };
        let Some(memory) = local_memory(target, &device) else {
            continue;
        };
        let engines: Option<Vec<(OpId, &acc_target::Dma)>> = users
            .transfers
            .iter()
            .map(|t| {
                let r = ir.body(body);
                let (from, to) = (r.operand(*t, 0), r.operand(*t, 1));
                let other = if buffer_root(ctx, ir, body, from) == root {
                    to
                } else {
                    from
                };
                let other = space(ctx, ir, body, other).or_else(|| host.clone())?;
                Some((*t, target.dma_between(&other, &memory.name)?))
            })
            .collect();
        let Some(engines) = engines else { continue };
        let bytes = bytes.div_ceil(ALIGNMENT) * ALIGNMENT;
        let total = used.get(&memory.name).copied().unwrap_or(0) + bytes;
        if total > memory.size {
            continue;
        }
        used.insert(memory.name.clone(), total);
        for v in users.views {
            let ty = ir.body(body).value_type(v);
            let moved = in_memory(ctx, ty, &memory.name);
            ir.body_mut(body).set_value_type(v, moved);
        }
        for (t, engine) in engines {
            use_engine(ctx, ir, body, t, engine)?;
        }
    }
    Ok(())
}

/// The buffer `root` and its views, the one device whose loops use them and the
/// transfers that do; none when anything else uses them (or the function returns
/// them, or no top-level dealloc frees them).
fn users(
    ctx: &Context,
    ir: &Ir,
    body: BodyId,
    target: &Target,
    root: ValueId,
    top: &FxHashMap<OpId, OpId>,
) -> Option<Users> {
    let b = ir.body(body);
    let mut found = Users {
        device: None,
        views: vec![root],
        transfers: Vec::new(),
    };
    let mut freed = false;
    let mut seen: FxHashSet<ValueId> = FxHashSet::from_iter([root]);
    let mut i = 0;
    while i < found.views.len() {
        let v = found.views[i];
        i += 1;
        for u in b.value_users(v) {
            let r = ir.op(body, u);
            match loops::Op::of(ctx, r) {
                Some(loops::Op::Reshape | loops::Op::Subview) => {
                    for w in b.results(u) {
                        if seen.insert(w) {
                            found.views.push(w);
                        }
                    }
                    continue;
                }
                // A dealloc inside a loop: not a lifetime this pass follows.
                Some(loops::Op::Dealloc) if top.get(&u) != Some(&u) => return None,
                Some(loops::Op::Dealloc) => {
                    freed = true;
                    continue;
                }
                _ => {}
            }
            let t = *top.get(&u)?;
            // A transfer inside a nest would keep its engine.
            if t != u && hw::DmaStart::is(ctx, r) {
                return None;
            }
            if hw::DmaStart::is(ctx, ir.op(body, t)) {
                if !found.transfers.contains(&t) {
                    found.transfers.push(t);
                }
                continue;
            }
            let d = code_device(ctx, ir, body, t)
                .filter(|d| target.device(d).is_some_and(|dev| dev.kind != "host"))?;
            match &found.device {
                Some(e) if *e != d => return None,
                _ => found.device = Some(d),
            }
        }
    }
    freed.then_some(found)
}

/// The one memory `device` reaches that no other device reaches.
fn local_memory<'t>(target: &'t Target, device: &str) -> Option<&'t acc_target::Memory> {
    let mut own = target
        .memories
        .iter()
        .filter(|m| m.devices.len() == 1 && m.devices[0] == device);
    let m = own.next()?;
    own.next().is_none().then_some(m)
}

/// The memref type `ty` in memory `name`.
fn in_memory(ctx: &Context, ty: acc_ir::TypeId, name: &str) -> acc_ir::TypeId {
    match ctx.type_data(ty) {
        TypeData::MemRef {
            shape,
            element,
            layout,
            ..
        } => ctx.intern_type(TypeData::MemRef {
            shape: shape.clone(),
            element: *element,
            layout: *layout,
            memory_space: Some(ctx.string_attr(name)),
        }),
        _ => ty,
    }
}
