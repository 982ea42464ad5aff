//! # acc-sim
//!
//! `acc-run --mode sim`: the target's cost model charged for the accelerator calls and
//! DMA transfers a run makes.
//!
//! The interpreter runs the function (each `hw.intrinsic` by its semantics region)
//! and records the calls and transfers in the order they ran. Each call is charged
//! what its intrinsic in the target file declares for the op in its semantics region:
//! `cost` cycles and, with `macs E per_cycle N`, E multiply-accumulates at a peak of N
//! a cycle, so its MAC utilisation is E / (cycles * N). Each `hw.dma_start` is
//! charged its engine's `setup` plus bytes / `bytes_per_cycle`.
//!
//! Time: the host issues everything in program order. Its own code costs what its
//! device declares (`device cpu kind "host" cycles_per_op N`: N cycles for each op
//! the interpreter runs outside calls, counted between the traced ops; nothing
//! without it). A call blocks the host until its device has finished it; a transfer starts when
//! issued (or when its engine is free) and runs beside the calls; `hw.dma_wait`
//! blocks until its transfers are done. So a transfer issued before a call (the next
//! tile's, double-buffered) hides behind it, and the elapsed time counts only the
//! waits it does not hide.

#![deny(missing_docs)]

use acc_dialects::ops::hw;
use acc_ir::{BodyId, Context, Ir, OpId, ValueDef, ValueId};
use acc_target::Targets;
use std::collections::HashMap;

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

/// What a run cost: each call, each DMA engine, and the elapsed cycles.
pub struct Simulation {
    /// The calls, in order.
    pub calls: Vec<Charge>,
    /// Each engine's transfers, by its start function.
    pub dmas: Vec<(String, DmaTotals)>,
    /// Cycles from the first call or transfer to the end of the last.
    pub elapsed: i64,
    /// Cycles the host spent waiting for transfers.
    pub dma_stall: i64,
    /// The ops the host ran outside calls, and the cycles they cost.
    pub host: (u64, i64),
}

/// Charges the traced `hw.intrinsic`, `hw.dma_start` and `hw.dma_wait` ops (from
/// the interpreter, in the order they ran, each with the host ops run before it)
/// and the `host_ops_after` the last, and runs the timeline above.
pub fn simulate(
    ctx: &Context,
    ir: &Ir,
    targets: &Targets,
    trace: &[(BodyId, OpId, u64)],
    host_ops_after: u64,
) -> Result<Simulation, String> {
    if targets.is_empty() {
        return Err("--mode sim needs the target's cost model: give it with --target FILE".into());
    }
    let mut sim = Simulation {
        calls: Vec::new(),
        dmas: Vec::new(),
        elapsed: 0,
        dma_stall: 0,
        host: (0, 0),
    };
    // The cycles of one host op, as the host device declares them.
    let per_op = targets
        .iter()
        .flat_map(|t| t.devices.iter())
        .find_map(|d| (d.kind == "host").then_some(d.cycles_per_op).flatten())
        .unwrap_or(0);
    let mut host = |ops: u64, now: &mut i64| -> Result<(), String> {
        let cycles = i64::try_from(ops)
            .ok()
            .and_then(|n| n.checked_mul(per_op))
            .ok_or("the host's cycles overflow")?;
        sim.host.0 += ops;
        sim.host.1 = sim
            .host
            .1
            .checked_add(cycles)
            .ok_or("the host's cycles overflow")?;
        *now = now
            .checked_add(cycles)
            .ok_or("the host's cycles overflow")?;
        Ok(())
    };
    // The host's clock, when each device and engine is next free, when each token's
    // transfer is done.
    let mut now = 0i64;
    let mut device_free: HashMap<String, i64> = HashMap::new();
    let mut engine_free: HashMap<String, i64> = HashMap::new();
    let mut done: HashMap<ValueId, i64> = HashMap::new();
    for &(body, op, host_ops) in trace {
        host(host_ops, &mut now)?;
        let r = ir.op(body, op);
        match hw::Op::of(ctx, r) {
            Some(hw::Op::DmaStart) => {
                let engine = string_attr(ctx, ir, body, op, hw::DmaStart::ATTR_CALL)
                    .ok_or("an hw.dma_start without the `call` of its engine")?;
                let dma = targets
                    .dma_named(&engine)
                    .ok_or_else(|| format!("no target declares a dma '{engine}'"))?;
                let source = ir.body(body).operand(op, 0);
                let (bytes, _) =
                    acc_dialects::hooks::hw::stored_bytes(ctx, ir.body(body).value_type(source))
                        .ok_or("a transfer of a buffer without a static size")?;
                let bytes = i64::try_from(bytes).map_err(|_| "a transfer too large")?;
                let cycles = dma.cycles(bytes);
                let free = engine_free.entry(engine.clone()).or_insert(0);
                let start = now.max(*free);
                *free = start + cycles;
                if let Some(token) = ir.body(body).results(op).next() {
                    done.insert(token, *free);
                }
                let totals = match sim.dmas.iter().position(|(n, _)| *n == engine) {
                    Some(i) => &mut sim.dmas[i].1,
                    None => {
                        sim.dmas.push((engine, DmaTotals::default()));
                        &mut sim.dmas.last_mut().expect("just pushed").1
                    }
                };
                totals.transfers += 1;
                totals.bytes += bytes;
                totals.cycles += cycles;
            }
            Some(hw::Op::DmaWait) => {
                let until = ir
                    .body(body)
                    .operands(op)
                    .filter_map(|t| done.get(&t).copied())
                    .max()
                    .unwrap_or(now);
                sim.dma_stall += (until - now).max(0);
                now = now.max(until);
            }
            _ => {
                let charge = charge(ctx, ir, targets, body, op)?;
                let free = device_free.entry(charge.device.clone()).or_insert(0);
                now = now.max(*free) + charge.cycles;
                *free = now;
                sim.calls.push(charge);
            }
        }
    }
    host(host_ops_after, &mut now)?;
    sim.elapsed = engine_free.values().copied().fold(now, i64::max);
    Ok(sim)
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
/// transposes `bufferize` adds for results the call writes in another layout).
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

/// The report: one line per call, then each device's and each DMA engine's totals and
/// the elapsed cycles.
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
    out
}
