//! # acc-sim
//!
//! `acc-run --mode sim`: the target's cost model charged for the accelerator calls,
//! DMA transfers and launches a run makes, on a timeline of one lane per device and
//! DMA engine.
//!
//! The interpreter runs the function (each `hw.intrinsic` by its semantics region)
//! and records the calls, transfers, launches and waits in the order they ran
//! ([`acc_interp::HwTrace`]). Each call is charged what its intrinsic in the target
//! file declares for the op in its semantics region: `cost` cycles and, with `macs E
//! per_cycle N`, E multiply-accumulates at a peak of N a cycle, so its MAC
//! utilisation is E / (cycles * N). Each `hw.dma_start` is charged its engine's
//! `setup` plus bytes / `bytes_per_cycle`.
//!
//! Time ([`timeline`]): the host issues everything in program order. Its own code
//! costs what its device declares (`device cpu kind "host" cycles_per_op N`: N cycles
//! for each op the interpreter runs outside calls and launches; nothing without it).
//! A call the host makes itself blocks it until the call's device has finished; a
//! transfer starts when issued (or when its engine is free) and runs beside the
//! calls; `hw.dma_wait` blocks until its transfers are done. A `hw.launch` does not
//! block the host: its work starts on its device once the device is free and the
//! launches of its `after` tokens are done, and runs its calls and transfers in
//! order on the device's clock; `hw.wait` blocks the host until the launches are
//! done. The makespan is the end of the last work; the critical path is the chain
//! of work, each item waiting for the one before it, that ends there.
//! [`chrome::trace_json`] writes the timeline in the Chrome trace event format.

#![deny(missing_docs)]

pub mod chrome;
pub mod timeline;

use acc_dialects::ops::hw;
use acc_ir::{BodyId, Context, Ir, OpId, ValueDef};
use acc_target::Targets;

pub use timeline::{Simulation, simulate};

/// What one accelerator call costs.
pub struct Charge {
    /// The intrinsic (the C function).
    pub intrinsic: String,
    /// Its device.
    pub device: String,
    /// Cycles, from the intrinsic's `cost`.
    pub cycles: i64,
    /// Multiply-accumulates and the peak a cycle, when declared.
    pub macs: Option<(i64, i64)>,
}

/// The transfers of one DMA engine.
#[derive(Default)]
pub struct DmaTotals {
    /// Transfers started.
    pub transfers: usize,
    /// Bytes moved.
    pub bytes: i64,
    /// Cycles the engine was busy.
    pub cycles: i64,
}

/// What the call `op` costs, from its intrinsic's declaration.
fn charge(
    ctx: &Context,
    ir: &Ir,
    targets: &Targets,
    body: BodyId,
    op: OpId,
) -> Result<Charge, String> {
    let callee = string_attr(ctx, ir, body, op, hw::Intrinsic::ATTR_CALLEE)
        .ok_or("an hw.intrinsic without a callee")?;
    let intrinsic = targets
        .intrinsic_named(&callee)
        .ok_or_else(|| format!("no target declares an intrinsic '{callee}'"))?;
    let (inner, root) = semantics_root(ctx, ir, body, op)
        .ok_or_else(|| format!("the call of '{callee}' has no semantics region to charge"))?;
    let placement = intrinsic
        .rule
        .place(ctx, ir, inner, root)
        .map_err(|why| format!("'{callee}' does not accept the op of its semantics: {why}"))?;
    Ok(Charge {
        intrinsic: callee,
        device: intrinsic.device.clone(),
        cycles: placement.cost,
        macs: placement.macs,
    })
}

/// The string attribute `name` of `op`.
fn string_attr(ctx: &Context, ir: &Ir, body: BodyId, op: OpId, name: &str) -> Option<String> {
    match ctx.attr_data(ir.op(body, op).attr(ctx, name)?) {
        acc_ir::AttrData::String { value, .. } => Some(ctx.str(*value).to_string()),
        _ => None,
    }
}

/// The op computing the values a call's semantics region yields (under the
/// transposes, packs and bitcasts `bufferize` adds, marked `hw.layout`, for results
/// the call writes in another layout).
fn semantics_root(ctx: &Context, ir: &Ir, body: BodyId, op: OpId) -> Option<(BodyId, OpId)> {
    let r = ir.op(body, op);
    let inner = r.region_body();
    let b = ir.body(inner);
    let block = b.entry_block(*r.regions().first()?)?;
    let terminator = b.block_ops(block).last()?;
    let mut value = b.operands(terminator).next()?;
    loop {
        let ValueDef::Result(def, _) = b.value(value).def else {
            return None;
        };
        let layout = acc_target::placement::LAYOUT_ATTR;
        if ctx.dict_get(b.op(def).attrs, layout).is_none() {
            return Some((inner, def));
        }
        value = b.operand(def, 0);
    }
}

/// The report: one line per call, then each device's and each DMA engine's totals,
/// the host's, and the elapsed cycles; with launches, each lane's busy cycles and
/// utilisation, the makespan and the critical path.
pub fn report(sim: &Simulation) -> String {
    let charges = &sim.calls;
    let utilisation = |macs: i64, cycles: i64, peak: i64| {
        if cycles > 0 && peak > 0 {
            format!(
                "{:.1}%",
                100.0 * macs as f64 / (cycles as f64 * peak as f64)
            )
        } else {
            "-".to_string()
        }
    };
    let mut out = format!(
        "{:>4}  {:<22} {:<8} {:>10} {:>12}  {}\n",
        "call", "intrinsic", "device", "cycles", "macs", "mac_utilisation"
    );
    for (i, c) in charges.iter().enumerate() {
        let (macs, util) = match c.macs {
            Some((m, peak)) => (m.to_string(), utilisation(m, c.cycles, peak)),
            None => ("-".to_string(), "-".to_string()),
        };
        out += &format!(
            "{:>4}  {:<22} {:<8} {:>10} {:>12}  {}\n",
            i + 1,
            c.intrinsic,
            c.device,
            c.cycles,
            macs,
            util
        );
    }
    let mut devices: Vec<&str> = charges.iter().map(|c| c.device.as_str()).collect();
    devices.sort_unstable();
    devices.dedup();
    for d in devices {
        let on: Vec<&Charge> = charges.iter().filter(|c| c.device == d).collect();
        let cycles: i64 = on.iter().map(|c| c.cycles).sum();
        let mac_calls: Vec<(i64, i64, i64)> = on
            .iter()
            .filter_map(|c| c.macs.map(|(m, p)| (m, p, c.cycles)))
            .collect();
        let macs: i64 = mac_calls.iter().map(|(m, _, _)| m).sum();
        // Over the calls that multiply: their MACs against their cycles at their peaks.
        let capacity: i64 = mac_calls.iter().map(|(_, p, cy)| p * cy).sum();
        out += &format!(
            "sim: device={d} calls={} cycles={cycles} macs={macs} mac_utilisation={}\n",
            on.len(),
            utilisation(macs, capacity, 1)
        );
    }
    for (engine, t) in &sim.dmas {
        out += &format!(
            "sim: dma={engine} transfers={} bytes={} cycles={}\n",
            t.transfers, t.bytes, t.cycles
        );
    }
    out += &format!(
        "sim: host ops={} cycles={}\nsim: elapsed cycles={} dma_stall={}\n",
        sim.host.0, sim.host.1, sim.elapsed, sim.dma_stall
    );
    if sim.launches > 0 {
        out += &timeline::schedule_report(sim);
    }
    out
}
