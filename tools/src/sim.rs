//! `acc-run --mode sim`: the target's cost model charged for the accelerator calls a
//! run makes.
//!
//! The interpreter runs the function (each `hw.intrinsic` by its semantics region)
//! and records the calls in the order they ran. Each call is charged what its
//! intrinsic in the target file declares for the op in its semantics region: `cost`
//! cycles and, with `macs E per_cycle N`, E multiply-accumulates at a peak of N a
//! cycle, so its MAC utilisation is E / (cycles * N). Host code is not timed.

use acc_ir::{BodyId, Context, Ir, OpId, ValueDef};

/// What one accelerator call costs.
pub(crate) struct Charge {
    /// The intrinsic (the C function).
    pub intrinsic: String,
    /// Its device.
    pub device: String,
    /// Cycles, from the intrinsic's `cost`.
    pub cycles: i64,
    /// Multiply-accumulates and the peak a cycle, when declared.
    pub macs: Option<(i64, i64)>,
}

/// The charge of each call in `calls` (from the interpreter's trace).
pub(crate) fn charges(
    ctx: &Context,
    ir: &Ir,
    calls: &[(BodyId, OpId)],
) -> Result<Vec<Charge>, String> {
    let target = ctx
        .active_target()
        .ok_or("--mode sim needs the target's cost model: give it with --target FILE")?;
    calls
        .iter()
        .map(|&(body, op)| {
            let r = ir.op(body, op);
            let callee = r
                .attr(ctx, "callee")
                .and_then(|c| match ctx.attr_data(c) {
                    acc_ir::AttrData::String { value, .. } => Some(ctx.str(*value).to_string()),
                    _ => None,
                })
                .ok_or("an hw.intrinsic without a callee")?;
            let intrinsic = target
                .intrinsics
                .iter()
                .find(|i| i.name == callee)
                .ok_or_else(|| {
                    format!("target '{}' declares no intrinsic '{callee}'", target.name)
                })?;
            let (inner, root) = semantics_root(ir, body, op).ok_or_else(|| {
                format!("the call of '{callee}' has no semantics region to charge")
            })?;
            let placement = intrinsic.rule.place(ctx, ir, inner, root).map_err(|why| {
                format!("'{callee}' does not accept the op of its semantics: {why}")
            })?;
            Ok(Charge {
                intrinsic: callee,
                device: intrinsic.device.clone(),
                cycles: placement.cost,
                macs: placement.macs,
            })
        })
        .collect()
}

/// The op computing the values a call's semantics region yields.
fn semantics_root(ir: &Ir, body: BodyId, op: OpId) -> Option<(BodyId, OpId)> {
    let r = ir.op(body, op);
    let inner = r.region_body();
    let b = ir.body(inner);
    let block = b.entry_block(*r.regions().first()?)?;
    let terminator = b.block_ops(block).last()?;
    let yielded = b.operands(terminator).next()?;
    match b.value(yielded).def {
        ValueDef::Result(root, _) => Some((inner, root)),
        _ => None,
    }
}

/// The report: one line per call, then each device's totals.
pub(crate) fn report(charges: &[Charge]) -> String {
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
    out
}
