//! The timeline: each traced op charged on the lane of the host, of a device or of a
//! DMA engine, at the earliest time its lane and what it waits for allow (the rules
//! are in the crate's documentation).
//!
//! Invariant: every span starts at or after the end of the span named by its `pred`
//! (what it waited for last), and a child span (a call or a stretch of the device's
//! own code inside a launch) lies within its parent's.

use std::collections::HashMap;

use acc_dialects::ops::hw;
use acc_interp::HwTrace;
use acc_ir::{BodyId, Context, Ir, ValueId};
use acc_target::Targets;

use crate::{Charge, DmaTotals, charge, string_attr};

/// Work on a lane from `start` to `end` (cycles).
#[derive(Clone, Debug)]
pub struct Span {
    /// Its lane (an index of [`Simulation::lanes`]).
    pub lane: usize,
    /// What ran: an intrinsic, `launch @dla`, `dma 256 B`, `host`.
    pub name: String,
    /// First cycle.
    pub start: i64,
    /// Cycle after the last.
    pub end: i64,
    /// The span whose end it waited for last, if any.
    pub pred: Option<usize>,
    /// The launch it is part of, if any.
    pub parent: Option<usize>,
}

/// What a run cost: each call, each DMA engine, the host, and the timeline.
pub struct Simulation {
    /// The calls, in order.
    pub calls: Vec<Charge>,
    /// Each engine's transfers, by its start function.
    pub dmas: Vec<(String, DmaTotals)>,
    /// Cycles from the start to the end of the last work (the makespan).
    pub elapsed: i64,
    /// Cycles the host spent waiting for transfers.
    pub dma_stall: i64,
    /// The ops the host ran outside calls and launches, and the cycles they cost.
    pub host: (u64, i64),
    /// The lanes: the host first, then devices and DMA engines as they were first used.
    pub lanes: Vec<String>,
    /// The work, in the order it was issued.
    pub spans: Vec<Span>,
    /// How many launches ran.
    pub launches: usize,
}

/// A time and the span that made it (what whatever starts then waited for).
#[derive(Clone, Copy, Default)]
struct At {
    t: i64,
    by: Option<usize>,
}

impl At {
    fn later(self, other: At) -> At {
        if other.t > self.t { other } else { self }
    }
}

/// The launch whose region's ops are being charged.
struct Open {
    span: usize,
    device: String,
    clock: At,
    token: (BodyId, ValueId),
    /// The ops of the device's own code after the launch's last traced op.
    tail: u64,
}

struct Timeline<'a> {
    ctx: &'a Context,
    ir: &'a Ir,
    targets: &'a Targets,
    sim: Simulation,
    host: At,
    host_per_op: i64,
    device_free: HashMap<String, At>,
    engine_free: HashMap<String, At>,
    done: HashMap<(BodyId, ValueId), At>,
    open: Option<Open>,
}

/// Charges the traced ops of a run (from the interpreter, in the order they ran) and
/// lays them out on the timeline.
pub fn simulate(
    ctx: &Context,
    ir: &Ir,
    targets: &Targets,
    trace: &HwTrace,
) -> Result<Simulation, String> {
    if targets.is_empty() {
        return Err("--mode sim needs the target's cost model: give it with --target FILE".into());
    }
    // The cycles of one host op, as the host device declares them.
    let host_device = targets
        .iter()
        .flat_map(|t| t.devices.iter())
        .find(|d| d.kind == "host");
    let mut t = Timeline {
        ctx,
        ir,
        targets,
        sim: Simulation {
            calls: Vec::new(),
            dmas: Vec::new(),
            elapsed: 0,
            dma_stall: 0,
            host: (0, 0),
            lanes: vec![host_device.map_or("host", |d| d.name.as_str()).to_string()],
            spans: Vec::new(),
            launches: 0,
        },
        host: At::default(),
        host_per_op: host_device.and_then(|d| d.cycles_per_op).unwrap_or(0),
        device_free: HashMap::new(),
        engine_free: HashMap::new(),
        done: HashMap::new(),
        open: None,
    };
    for e in &trace.ops {
        if e.launch.is_none() {
            t.close_launch()?;
            t.host_code(e.host_ops)?;
        } else {
            // The device's code before this op of its launch.
            t.device_code(e.device_ops)?;
        }
        t.op(e.body, e.op, e.device_ops)?;
    }
    t.close_launch()?;
    t.host_code(trace.host_ops)?;
    let ends = t
        .engine_free
        .values()
        .chain(t.device_free.values())
        .map(|a| a.t);
    t.sim.elapsed = ends.fold(t.host.t, i64::max);
    Ok(t.sim)
}

impl Timeline<'_> {
    fn lane(&mut self, name: &str) -> usize {
        match self.sim.lanes.iter().position(|l| l == name) {
            Some(i) => i,
            None => {
                self.sim.lanes.push(name.to_string());
                self.sim.lanes.len() - 1
            }
        }
    }

    /// A span on `lane` from `start`: part of the open launch, if any, unless on a
    /// DMA engine's lane (a transfer is the engine's work). Its end, made by it.
    fn span(&mut self, lane: usize, name: String, start: At, cycles: i64) -> Result<At, String> {
        let end = start
            .t
            .checked_add(cycles)
            .ok_or("the timeline's cycles overflow")?;
        let engine = self.sim.lanes[lane].starts_with("dma ");
        let parent = self.open.as_ref().filter(|_| !engine).map(|o| o.span);
        self.sim.spans.push(Span {
            lane,
            name,
            start: start.t,
            end,
            pred: start.by,
            parent,
        });
        Ok(At {
            t: end,
            by: Some(self.sim.spans.len() - 1),
        })
    }

    /// The host runs `ops` ops of its own code.
    fn host_code(&mut self, ops: u64) -> Result<(), String> {
        let cycles = i64::try_from(ops)
            .ok()
            .and_then(|n| n.checked_mul(self.host_per_op))
            .ok_or("the host's cycles overflow")?;
        self.sim.host.0 += ops;
        self.sim.host.1 = self
            .sim
            .host
            .1
            .checked_add(cycles)
            .ok_or("the host's cycles overflow")?;
        if cycles > 0 {
            self.host = self.span(0, "host".into(), self.host, cycles)?;
        }
        Ok(())
    }

    /// The clock the next op runs on: the open launch's, else the host's.
    fn clock(&self) -> At {
        self.open.as_ref().map_or(self.host, |o| o.clock)
    }

    fn set_clock(&mut self, at: At) {
        match self.open.as_mut() {
            Some(o) => o.clock = at,
            None => self.host = at,
        }
    }

    /// Charges the open launch's device `ops` ops of its own code, from its clock.
    fn device_code(&mut self, ops: u64) -> Result<(), String> {
        let Some(o) = &self.open else {
            return Ok(());
        };
        let per_op = self
            .targets
            .iter()
            .find_map(|t| t.device(&o.device))
            .and_then(|d| d.cycles_per_op)
            .unwrap_or(0);
        let cycles = i64::try_from(ops)
            .ok()
            .and_then(|n| n.checked_mul(per_op))
            .ok_or("the device's cycles overflow")?;
        if cycles > 0 {
            let (device, clock) = (o.device.clone(), o.clock);
            let lane = self.lane(&device);
            let at = self.span(lane, "code".into(), clock, cycles)?;
            self.set_clock(at);
        }
        Ok(())
    }

    /// Ends the open launch (its code after its last traced op charged): its device
    /// is free, its token done.
    fn close_launch(&mut self) -> Result<(), String> {
        let tail = self.open.as_ref().map_or(0, |o| o.tail);
        self.device_code(tail)?;
        if let Some(o) = self.open.take() {
            let end = At {
                t: o.clock.t,
                by: Some(o.span),
            };
            self.sim.spans[o.span].end = end.t;
            self.device_free.insert(o.device, end);
            self.done.insert(o.token, end);
        }
        Ok(())
    }

    /// Charges the traced op `op` (for a `hw.launch`, `device_ops` ops of the device's
    /// own code run after its last traced op).
    fn op(&mut self, body: BodyId, op: acc_ir::OpId, device_ops: u64) -> Result<(), String> {
        let (ctx, ir) = (self.ctx, self.ir);
        let r = ir.op(body, op);
        let b = ir.body(body);
        let tokens_done = |t: &Timeline<'_>| {
            b.operands(op)
                .filter_map(|v| t.done.get(&(body, v)).copied())
                .fold(At::default(), At::later)
        };
        match hw::Op::of(ctx, r) {
            Some(hw::Op::Launch) => {
                let view = hw::Launch::of(ctx, r).ok_or("a malformed hw.launch")?;
                let device = view.device().unwrap_or("?").to_string();
                let free = self.device_free.get(&device).copied().unwrap_or_default();
                let start = self.host.later(free).later(tokens_done(self));
                let lane = self.lane(&device);
                // Open until its last op is charged: its span's end is set then.
                let span = self.sim.spans.len();
                self.span(lane, format!("launch @{device}"), start, 0)?;
                self.sim.launches += 1;
                self.open = Some(Open {
                    span,
                    device: device.clone(),
                    clock: start,
                    token: (body, view.token()),
                    tail: 0,
                });
                // Its code after its last call or transfer, charged when it closes.
                self.open.as_mut().expect("just opened").tail = device_ops;
            }
            Some(hw::Op::Wait) => {
                let until = tokens_done(self);
                self.host = self.host.later(until);
            }
            Some(hw::Op::DmaStart) => {
                let engine = string_attr(ctx, ir, body, op, hw::DmaStart::ATTR_CALL)
                    .ok_or("an hw.dma_start without the `call` of its engine")?;
                let dma = self
                    .targets
                    .dma_named(&engine)
                    .ok_or_else(|| format!("no target declares a dma '{engine}'"))?;
                let source = b.operand(op, 0);
                let (bytes, _) = acc_dialects::hooks::hw::stored_bytes(ctx, b.value_type(source))
                    .ok_or("a transfer of a buffer without a static size")?;
                let bytes = i64::try_from(bytes).map_err(|_| "a transfer too large")?;
                let cycles = dma.cycles(bytes);
                let free = self.engine_free.get(&engine).copied().unwrap_or_default();
                let lane = self.lane(&format!("dma {engine}"));
                let end =
                    self.span(lane, format!("{bytes} B"), self.clock().later(free), cycles)?;
                self.engine_free.insert(engine.clone(), end);
                if let Some(token) = b.results(op).next() {
                    self.done.insert((body, token), end);
                }
                let totals = match self.sim.dmas.iter().position(|(n, _)| *n == engine) {
                    Some(i) => &mut self.sim.dmas[i].1,
                    None => {
                        self.sim.dmas.push((engine, DmaTotals::default()));
                        &mut self.sim.dmas.last_mut().expect("just pushed").1
                    }
                };
                totals.transfers += 1;
                totals.bytes += bytes;
                totals.cycles += cycles;
            }
            Some(hw::Op::DmaWait) => {
                let until = tokens_done(self);
                let now = self.clock();
                if self.open.is_none() {
                    self.sim.dma_stall += (until.t - now.t).max(0);
                }
                self.set_clock(now.later(until));
            }
            _ => {
                let charge = charge(ctx, ir, self.targets, body, op)?;
                let lane = self.lane(&charge.device);
                let at = match &self.open {
                    Some(o) => self.span(lane, charge.intrinsic.clone(), o.clock, charge.cycles)?,
                    None => {
                        let free = self
                            .device_free
                            .get(&charge.device)
                            .copied()
                            .unwrap_or_default();
                        let end = self.span(
                            lane,
                            charge.intrinsic.clone(),
                            self.host.later(free),
                            charge.cycles,
                        )?;
                        self.device_free.insert(charge.device.clone(), end);
                        end
                    }
                };
                self.set_clock(at);
                self.sim.calls.push(charge);
            }
        }
        Ok(())
    }
}

/// Each lane's busy cycles: the spans on it that are not part of a launch (a launch
/// counts whole).
pub fn busy(sim: &Simulation) -> Vec<i64> {
    let mut busy = vec![0i64; sim.lanes.len()];
    for s in sim.spans.iter().filter(|s| s.parent.is_none()) {
        busy[s.lane] += s.end - s.start;
    }
    busy
}

/// The critical path: from the work that ends last, back through what each waited
/// for (a call inside a launch stands for its launch), first to last.
pub fn critical_path(sim: &Simulation) -> Vec<usize> {
    let top = |i: usize| sim.spans[i].parent.unwrap_or(i);
    let Some(mut at) = (0..sim.spans.len())
        .filter(|i| sim.spans[*i].parent.is_none())
        .max_by_key(|i| (sim.spans[*i].end, std::cmp::Reverse(*i)))
    else {
        return Vec::new();
    };
    let mut path = vec![at];
    while let Some(p) = sim.spans[at].pred.map(top) {
        if p == at || path.contains(&p) {
            break;
        }
        path.push(p);
        at = p;
    }
    path.reverse();
    path
}

/// The lines on the schedule: each lane's busy cycles and utilisation, the
/// makespan beside the sum of the devices' busy cycles, and the critical path.
pub fn schedule_report(sim: &Simulation) -> String {
    let busy = busy(sim);
    let mut out = String::new();
    let percent = |c: i64| {
        if sim.elapsed > 0 {
            format!("{:.1}%", 100.0 * c as f64 / sim.elapsed as f64)
        } else {
            "-".into()
        }
    };
    for (lane, name) in sim.lanes.iter().enumerate() {
        out += &format!(
            "sim: lane={name} busy={} utilisation={}\n",
            busy[lane],
            percent(busy[lane])
        );
    }
    let devices: i64 = sim
        .lanes
        .iter()
        .enumerate()
        .filter(|(i, name)| *i > 0 && !name.starts_with("dma "))
        .map(|(i, _)| busy[i])
        .sum();
    out += &format!(
        "sim: launches={} makespan={} devices_busy_sum={devices}\n",
        sim.launches, sim.elapsed
    );
    let path: Vec<String> = critical_path(sim)
        .into_iter()
        .map(|i| {
            let s = &sim.spans[i];
            format!(
                "{} on {} [{}, {})",
                s.name, sim.lanes[s.lane], s.start, s.end
            )
        })
        .collect();
    out += &format!("sim: critical_path={}\n", path.join(" -> "));
    out
}
