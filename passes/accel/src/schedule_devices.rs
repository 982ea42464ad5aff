//! `schedule-devices`: turns a function whose accelerator calls the host makes one
//! after another into an asynchronous device program (on loop-level IR, after
//! `memory-plan`, whose plan for the program's order keeps staging buffers within
//! local memories; buffers it put at overlapping offsets count as one here).
//!
//! Each run of consecutive top-level ops that belong to one device (its intrinsics'
//! calls, the loop nests of ops placed on it by a `code` rule (`hw.device`), and the
//! transfers into a memory only it reaches, else out of one: what `bufferize`
//! stages a call with) becomes one `hw.launch` on that device, which
//! returns a token at once. Buffers are followed through their views
//! (`loop.reshape`, `loop.subview`) to the buffer they belong to; what each op reads
//! and writes of them orders the work:
//! - a launch comes `after` the launches of other devices that write a buffer it
//!   reads, or read or write one it writes (a device waits for another's event,
//!   without the host, where the target declares `signal FROM -> TO`; between two
//!   devices started by `submit` without one, the host waits for the first launch
//!   and then starts the second); launches on one device run in the order issued;
//! - the host waits (`hw.wait`) only before an op of its own touching what a launch
//!   in flight writes (or writing what one reads), before a launch whose device no
//!   declared signal starts (above), and before returning;
//! - a `loop.dealloc` of a buffer a launch in flight uses moves after the wait that
//!   ends the launch (nothing frees what a device still uses); unless the
//!   buffer is in a memory only one device reaches and only that device's launches
//!   use it: its bytes then go only to that device's later launches, which run
//!   after them (a local memory is reused launch after launch).
//!
//! Allocations, constants and views between a run's ops stay where they are (they
//! compute addresses, not data); so the launch takes the place of the run's last op.
//! A scalar a run makes for ops outside it comes back through a one-element buffer
//! (`scalar_results`); a run whose ops give other values to ops outside it is left to
//! the host as it was, with a remark; so is every function of more than one block.
//! What the function computes does not change: the interpreter runs the launches and
//! reports any access that the tokens do not order (`--check-semantics`).

use acc_dialects::build::{Builder, buffer_root};
use acc_dialects::ops::{arith, builtin, func, hw, loops};
use acc_ir::clone::{ValueMap, clone_op};
use acc_ir::{
    AttrData, BodyId, Context, DiagLoc, Diagnostic, InsertPoint, Ir, OpId, Severity, TypeData,
    TypeId, ValueDef, ValueId,
};
use acc_pass::{Pass, PassInfo, PassOptions, PassTarget};
use acc_target::Targets;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::device_work::{device_of, memory_owner};

mod scalar_results;

/// The pass.
pub struct ScheduleDevices;

/// Its registration.
pub fn info() -> PassInfo {
    PassInfo {
        name: "schedule-devices",
        title: "ScheduleDevices",
        summary: "Launch each device's runs of calls and transfers asynchronously, ordered by tokens; the host waits only where it must",
        anchor: Some(builtin::Module::NAME),
        options: Vec::new(),
        create: |_: &PassOptions| Ok(Box::new(ScheduleDevices)),
    }
}

impl Pass for ScheduleDevices {
    fn run(&self, t: &mut PassTarget<'_>) -> Result<(), Diagnostic> {
        let module = t.ir.region_body(t.body, t.op);
        let functions: Vec<(OpId, BodyId)> =
            t.ir.body(module)
                .top_regions()
                .iter()
                .flat_map(|r| t.ir.body(module).region_blocks(*r))
                .flat_map(|b| t.ir.body(module).block_ops(b))
                .filter(|o| func::Func::is(t.ctx, t.ir.op(module, *o)))
                .filter_map(|o| Some((o, t.ir.body(module).nested_body(o)?)))
                .collect();
        let mut devices = Vec::new();
        for (f, body) in functions {
            let (done, remarks, launched) = {
                let mut s = Scheduler::new(t.ctx, t.ir, body, t.targets);
                let done = s.schedule(Some((module, f)));
                (done, s.remarks, s.launched)
            };
            done.map_err(|m| at(t.ir, module, f, format!("schedule-devices: {m}")))?;
            for (op, why) in remarks {
                let loc = t.ir.op(body, op).loc();
                t.diagnostics
                    .push(Diagnostic::new(Severity::Remark, DiagLoc::Loc(loc), why));
            }
            for d in launched {
                if !devices.contains(&d) {
                    devices.push(d);
                }
            }
        }
        declare_devices(t.ctx, t.ir, module, t.targets, &devices)
            .map_err(|m| Diagnostic::error(DiagLoc::Unknown, format!("schedule-devices: {m}")))
    }
}

fn at(ir: &Ir, body: BodyId, op: OpId, m: String) -> Diagnostic {
    Diagnostic::error(DiagLoc::Loc(ir.op(body, op).loc()), m)
}

/// Adds `hw.device @NAME kind "KIND"` at the start of the module for each device
/// launched on that the module does not declare yet (with the compiler of a
/// programmable one, and its vector registers' bits).
fn declare_devices(
    ctx: &Context,
    ir: &mut Ir,
    module: BodyId,
    targets: &Targets,
    devices: &[String],
) -> Result<(), String> {
    let block = ir
        .body(module)
        .top_regions()
        .first()
        .and_then(|r| ir.body(module).entry_block(*r))
        .ok_or("a module without a block")?;
    let declared: FxHashSet<String> = acc_dialects::hooks::hw::declared_devices(ctx, ir, module)
        .iter()
        .filter_map(|d| d.sym_name().map(str::to_string))
        .collect();
    let first = ir.body(module).first_op(block);
    for d in devices.iter().filter(|d| !declared.contains(*d)) {
        let device = targets.iter().find_map(|t| t.device(d));
        let kind = device.map_or("accelerator", |dev| dev.kind.as_str());
        let point = first.map_or(InsertPoint::End(block), InsertPoint::Before);
        let loc = ctx.unknown_loc();
        let mut e = Builder::new(ctx, ir, module, point, loc);
        let mut build = hw::Device::build(&mut e)
            .sym_name(ctx.string_attr(d))
            .kind(ctx.string_attr(kind));
        if let Some(c) = device.and_then(|dev| dev.compiler.as_ref()) {
            build = build.compiler(ctx.string_attr(&c.command));
            if !c.flags.is_empty() {
                build = build.flags(ctx.string_attr(&c.flags));
            }
        }
        if let Some(bits) = device.and_then(|dev| dev.vector_bits) {
            build = build.vector_bits(acc_dialects::build::i64_attr(ctx, i64::from(bits)));
        }
        build.create()?;
    }
    Ok(())
}

/// What a top-level op is to the schedule.
#[derive(Clone, PartialEq)]
enum Role {
    /// Work of a device: a call of its intrinsic, a transfer of its engine.
    Device(String),
    /// Computes an address or a constant: stays where it is.
    Address,
    /// `loop.dealloc`: moves after the launches using its buffer.
    Dealloc,
    /// The host's own work.
    Host,
}

/// A block's top-level ops, their roles, and the runs they make.
type Runs = (Vec<OpId>, Vec<Role>, Vec<Run>);

/// A run of one device's consecutive ops (addresses and deallocs between them).
struct Run {
    device: String,
    ops: Vec<OpId>,
    deallocs: Vec<OpId>,
}

/// A launch made: its token, its device, and the launches it comes after
/// (indices, itself included).
struct Launched {
    token: ValueId,
    device: String,
    after: FxHashSet<usize>,
    done: bool,
}

struct Scheduler<'a> {
    ctx: &'a Context,
    ir: &'a mut Ir,
    body: BodyId,
    targets: &'a Targets,
    launches: Vec<Launched>,
    /// Per buffer (its root): the last launch writing it, the launches reading it
    /// since.
    writer: FxHashMap<ValueId, usize>,
    readers: FxHashMap<ValueId, Vec<usize>>,
    last_on: FxHashMap<String, usize>,
    /// Deallocs waiting for the launches using their buffers.
    postponed: Vec<(OpId, ValueId)>,
    remarks: Vec<(OpId, String)>,
    launched: Vec<String>,
}

impl<'a> Scheduler<'a> {
    fn new(ctx: &'a Context, ir: &'a mut Ir, body: BodyId, targets: &'a Targets) -> Self {
        Scheduler {
            ctx,
            ir,
            body,
            targets,
            launches: Vec::new(),
            writer: FxHashMap::default(),
            readers: FxHashMap::default(),
            last_on: FxHashMap::default(),
            postponed: Vec::new(),
            remarks: Vec::new(),
            launched: Vec::new(),
        }
    }

    /// Schedules the function's body; `function` is its op (in the module's body),
    /// whose host arena grows by the cells scalars come back in.
    fn schedule(&mut self, function: Option<(BodyId, OpId)>) -> Result<(), String> {
        let b = self.ir.body(self.body);
        let blocks: Vec<_> = b
            .top_regions()
            .iter()
            .flat_map(|r| b.region_blocks(*r))
            .collect();
        let [block] = blocks[..] else {
            return Ok(());
        };
        let (mut ops, mut roles, mut runs) = self.find_runs(block)?;
        let top: FxHashMap<OpId, OpId> = ops
            .iter()
            .flat_map(|o| {
                nested_ops(self.ir, self.body, *o)
                    .into_iter()
                    .map(|n| (n, *o))
            })
            .collect();
        if self.scalars_through_memory(&runs, &top, function)? {
            (ops, roles, runs) = self.find_runs(block)?;
        }
        // Each op's run, for the ops of runs that can be launched.
        let mut run_of: FxHashMap<OpId, usize> = FxHashMap::default();
        for (i, run) in runs.iter().enumerate() {
            match self.unlaunchable(run) {
                Some(why) => self.remarks.push((
                    run.ops[0],
                    format!(
                        "the work of @{} here stays with the host: {why}",
                        run.device
                    ),
                )),
                None => {
                    for o in run.ops.iter().chain(&run.deallocs) {
                        run_of.insert(*o, i);
                    }
                }
            }
        }
        for (op, role) in ops.iter().zip(&roles) {
            if let Some(&i) = run_of.get(op) {
                if runs[i].ops.last() == Some(op) {
                    for segment in self.segments(&runs[i]) {
                        self.launch(&segment)?;
                    }
                }
                continue;
            }
            match role {
                Role::Address => {}
                Role::Dealloc => self.dealloc(*op),
                Role::Device(_) | Role::Host => {
                    let is_return = func::Return::is(self.ctx, self.ir.op(self.body, *op));
                    let needed = if is_return {
                        (0..self.launches.len())
                            .filter(|l| !self.launches[*l].done)
                            .collect()
                    } else {
                        self.needed_by_host(*op)
                    };
                    self.wait_before(*op, needed)?;
                }
            }
        }
        Ok(())
    }

    /// The top-level ops of `block`, their roles and their runs.
    fn find_runs(&self, block: acc_ir::BlockId) -> Result<Runs, String> {
        let ops: Vec<OpId> = self.ir.body(self.body).block_ops(block).collect();
        let roles: Vec<Role> = ops
            .iter()
            .map(|o| self.role(*o))
            .collect::<Result<_, _>>()?;
        let runs = self.runs(&ops, &roles);
        Ok((ops, roles, runs))
    }

    /// The role of the top-level op `op`.
    fn role(&self, op: OpId) -> Result<Role, String> {
        let r = self.ir.op(self.body, op);
        if loops::Dealloc::is(self.ctx, r) {
            return Ok(Role::Dealloc);
        }
        let address = matches!(
            loops::Op::of(self.ctx, r),
            Some(loops::Op::Alloc | loops::Op::Constant | loops::Op::Reshape | loops::Op::Subview)
        ) || arith::Constant::is(self.ctx, r);
        if address {
            return Ok(Role::Address);
        }
        Ok(
            match device_of(self.ctx, self.ir, self.body, self.targets, op) {
                Some(d) => Role::Device(d),
                None => Role::Host,
            },
        )
    }

    /// The device that alone reaches the memory of buffer `v` (not the host).
    fn memory_owner(&self, v: ValueId) -> Option<String> {
        memory_owner(self.ctx, self.ir, self.body, self.targets, v)
    }

    /// The runs: maximal sequences of one device's ops, with the addresses and
    /// deallocs between them.
    fn runs(&self, ops: &[OpId], roles: &[Role]) -> Vec<Run> {
        let mut runs: Vec<Run> = Vec::new();
        let mut open = false;
        let mut deallocs = Vec::new();
        for (op, role) in ops.iter().zip(roles) {
            match role {
                Role::Device(d) => {
                    match runs.last_mut() {
                        Some(run) if open && run.device == *d => {
                            run.deallocs.append(&mut deallocs);
                            run.ops.push(*op);
                        }
                        _ => {
                            runs.push(Run {
                                device: d.clone(),
                                ops: vec![*op],
                                deallocs: Vec::new(),
                            });
                        }
                    }
                    deallocs.clear();
                    open = true;
                }
                Role::Address => {}
                Role::Dealloc if open => deallocs.push(*op),
                Role::Dealloc => {}
                Role::Host => {
                    open = false;
                    deallocs.clear();
                }
            }
        }
        runs
    }

    /// Why `run` cannot be launched, if it cannot: an op outside it uses a value
    /// one of its ops makes, or one of its ops waits for a transfer started outside
    /// it.
    fn unlaunchable(&self, run: &Run) -> Option<String> {
        self.unlaunchable_but(run, false)
    }

    /// [`Self::unlaunchable`], scalars used outside allowed when `scalars` (they can
    /// come back through memory).
    fn unlaunchable_but(&self, run: &Run, scalars: bool) -> Option<String> {
        let b = self.ir.body(self.body);
        let inside: FxHashSet<OpId> = run
            .ops
            .iter()
            .flat_map(|o| nested_ops(self.ir, self.body, *o))
            .collect();
        let name = |o: OpId| self.ctx.op_name_str(b.op(o).name).to_string();
        let token = acc_dialects::hooks::hw::token_type(self.ctx);
        run.ops.iter().find_map(|o| {
            let user = b
                .results(*o)
                .filter(|v| !(scalars && self.is_scalar(*v)))
                .flat_map(|v| b.value_users(v))
                .find(|u| !inside.contains(u));
            if let Some(u) = user {
                return Some(format!(
                    "a value it makes is used by '{}' outside it",
                    name(u)
                ));
            }
            b.operands(*o)
                .any(|v| b.value_type(v) == token && !defined_in(b, v, &inside))
                .then(|| format!("its '{}' waits for a transfer started outside it", name(*o)))
        })
    }

    /// Splits `run` into launches where its work starts to need other devices'
    /// results: each part comes after only what it needs, so that a call that
    /// needs nothing new does not wait with the next one. A transfer that needs a
    /// result no earlier op of the run needed (the next call's input, prefetched)
    /// first moves down to just before its wait, when nothing in between touches
    /// its buffers. Parts never split a transfer from its wait.
    fn segments(&mut self, run: &Run) -> Vec<Run> {
        let mut ops = run.ops.clone();
        let needs =
            |s: &Self, op: OpId| s.conflicts(&accesses(s.ctx, s.ir, s.body, op), Some(&run.device));
        let mut k = 0;
        while k < ops.len() {
            let op = ops[k];
            let start = hw::DmaStart::of(self.ctx, self.ir.op(self.body, op));
            let new_needs = !needs(self, op).is_empty();
            if let (Some(start), true) = (start, new_needs) {
                let token = start.token();
                let wait = (k + 1..ops.len()).find(|j| {
                    self.ir
                        .body(self.body)
                        .operands(ops[*j])
                        .any(|v| v == token)
                });
                let mine = accesses(self.ctx, self.ir, self.body, op);
                let clear = wait.is_some_and(|w| {
                    ops[k + 1..w].iter().all(|o| {
                        accesses(self.ctx, self.ir, self.body, *o)
                            .iter()
                            .all(|(root, write)| {
                                !mine.iter().any(|(m, mw)| m == root && (*write || *mw))
                            })
                    })
                });
                if let (Some(w), true) = (wait, clear)
                    && w > k + 1
                {
                    self.ir.body_mut(self.body).move_op_before(op, ops[w]);
                    let moved = ops.remove(k);
                    ops.insert(w - 1, moved);
                    continue;
                }
                // Right before its wait: both go down to the first op using what it
                // copies, so that the work before does not wait with it.
                if wait == Some(k + 1) && self.sink_transfer(&mut ops, k, &mine) {
                    continue;
                }
            }
            k += 1;
        }
        let mut parts: Vec<Run> = Vec::new();
        let mut part: Vec<OpId> = Vec::new();
        let mut part_needs: Vec<usize> = Vec::new();
        let mut open: FxHashSet<ValueId> = FxHashSet::default();
        for op in ops {
            let n = needs(self, op);
            if !part.is_empty() && open.is_empty() && n.iter().any(|d| !part_needs.contains(d)) {
                parts.push(Run {
                    device: run.device.clone(),
                    ops: std::mem::take(&mut part),
                    deallocs: Vec::new(),
                });
            }
            part_needs.extend(n);
            let b = self.ir.body(self.body);
            let r = self.ir.op(self.body, op);
            if hw::DmaStart::is(self.ctx, r) {
                open.extend(b.results(op));
            }
            for v in b.operands(op) {
                open.remove(&v);
            }
            part.push(op);
        }
        parts.push(Run {
            device: run.device.clone(),
            ops: part,
            deallocs: run.deallocs.clone(),
        });
        parts
    }

    /// Moves the transfer `ops[k]` and its wait `ops[k + 1]` (waiting for it alone)
    /// down to just before the first later op of `ops` touching a buffer of `mine`
    /// (the transfer's accesses, or one sharing their bytes); true when they moved.
    fn sink_transfer(&mut self, ops: &mut Vec<OpId>, k: usize, mine: &[(ValueId, bool)]) -> bool {
        let wait = ops[k + 1];
        if self.ir.body(self.body).operands(wait).len() != 1 {
            return false;
        }
        let touches = |s: &Self, o: OpId| {
            accesses(s.ctx, s.ir, s.body, o)
                .iter()
                .any(|(root, _)| mine.iter().any(|(m, _)| s.share_bytes(*root, *m)))
        };
        let Some(u) = (k + 2..ops.len()).find(|j| touches(self, ops[*j])) else {
            return false;
        };
        if u == k + 2 {
            return false;
        }
        let (start, before) = (ops[k], ops[u]);
        self.ir.body_mut(self.body).move_op_before(start, before);
        self.ir.body_mut(self.body).move_op_before(wait, before);
        let pair: Vec<OpId> = ops.drain(k..k + 2).collect();
        ops.splice(u - 2..u - 2, pair);
        true
    }

    /// Whether the buffers `a` and `b` (roots) share bytes: the same buffer, or at
    /// overlapping offsets of one arena.
    fn share_bytes(&self, a: ValueId, b: ValueId) -> bool {
        a == b
            || matches!((self.placed(a), self.placed(b)), (Some(x), Some(y))
                if x.0 == y.0 && x.1 < y.2 && y.1 < x.2)
    }

    /// Makes `run` a launch after what it must come after.
    fn launch(&mut self, run: &Run) -> Result<(), String> {
        let inside: FxHashSet<OpId> = run
            .ops
            .iter()
            .flat_map(|o| nested_ops(self.ir, self.body, *o))
            .collect();
        // The values the run takes from outside, in order of first use: scalar
        // constants are copied in (the device's code sees its loop bounds), the
        // rest are the launch's arguments.
        let b = self.ir.body(self.body);
        let mut captured: Vec<ValueId> = Vec::new();
        let mut constants: Vec<OpId> = Vec::new();
        for o in run
            .ops
            .iter()
            .flat_map(|o| nested_ops(self.ir, self.body, *o))
        {
            for v in b.operands(o) {
                if defined_in(b, v, &inside) || captured.contains(&v) {
                    continue;
                }
                match b.value(v).def {
                    ValueDef::Result(c, _)
                        if arith::Constant::is(self.ctx, self.ir.op(self.body, c)) =>
                    {
                        if !constants.contains(&c) {
                            constants.push(c);
                        }
                    }
                    _ => captured.push(v),
                }
            }
        }
        let accesses = run
            .ops
            .iter()
            .flat_map(|o| accesses(self.ctx, self.ir, self.body, *o))
            .collect::<Vec<_>>();
        let me = self.launches.len();
        // What a device cannot be signalled by, the host waits for before starting
        // it, unless the device's previous launch already comes after it (the
        // device's queue then orders the two).
        let (relayed, deps): (Vec<usize>, Vec<usize>) = self
            .conflicts(&accesses, Some(&run.device))
            .into_iter()
            .partition(|d| self.relayed_by_host(&self.launches[*d].device, &run.device));
        let queued = self
            .last_on
            .get(&run.device)
            .filter(|p| !self.launches[**p].done)
            .map(|p| self.launches[*p].after.clone())
            .unwrap_or_default();
        let relayed: Vec<usize> = relayed
            .into_iter()
            .filter(|d| !queued.contains(d))
            .collect();
        self.wait_before(run.ops[0], relayed)?;
        let deps: Vec<usize> = deps
            .into_iter()
            .filter(|d| !self.launches[*d].done)
            .collect();
        let mut after: FxHashSet<usize> = FxHashSet::from_iter([me]);
        let previous = self.last_on.get(&run.device).copied();
        for d in deps.iter().copied().chain(previous) {
            if !self.launches[d].done {
                after.extend(self.launches[d].after.iter().copied());
            }
        }
        let last = *run.ops.last().ok_or("an empty run")?;
        let loc = self.ir.op(self.body, run.ops[0]).loc();
        let types: Vec<TypeId> = captured
            .iter()
            .map(|v| self.ir.body(self.body).value_type(*v))
            .collect();
        let tokens: Vec<ValueId> = deps.iter().map(|d| self.launches[*d].token).collect();
        let token_type = acc_dialects::hooks::hw::token_type(self.ctx);
        let device = self.ctx.intern_attr(AttrData::SymbolRef {
            root: self.ctx.sym(&run.device),
            nested: Box::new([]),
        });
        let target = self
            .targets
            .iter()
            .find(|t| t.device(&run.device).is_some());
        let submit = target
            .and_then(|t| t.device(&run.device))
            .and_then(|d| d.submit.clone());
        let (launch, inner) = {
            let mut e = Builder::new(self.ctx, self.ir, self.body, InsertPoint::Before(last), loc);
            let mut build =
                hw::Launch::build(&mut e, &tokens, &captured, token_type).device(device);
            if let Some(f) = &submit {
                build = build.call(self.ctx.string_attr(f));
            }
            build.create_isolated(&types)?
        };
        if submit.is_some()
            && let Some(t) = target
        {
            acc_dialects::hooks::hw::set_headers(self.ctx, self.ir, self.body, launch, &t.headers)?;
        }
        let entry = {
            let ib = self.ir.body(inner);
            ib.top_regions()
                .first()
                .and_then(|r| ib.entry_block(*r))
                .ok_or("a launch without its block")?
        };
        let mut map = ValueMap::default();
        for (v, a) in captured
            .iter()
            .zip(self.ir.body(inner).block_args(entry).to_vec())
        {
            map.values.insert(*v, a);
        }
        for o in constants.iter().chain(&run.ops) {
            clone_op(
                self.ir,
                self.body,
                *o,
                inner,
                InsertPoint::End(entry),
                &mut map,
            );
        }
        {
            let mut e = Builder::new(self.ctx, self.ir, inner, InsertPoint::End(entry), loc);
            hw::Yield::build(&mut e, &[]).create()?;
        }
        for o in run.ops.iter().rev() {
            self.ir.erase_op(self.body, *o);
        }
        // Constants only the run used now live in the launch alone.
        for c in constants {
            let b = self.ir.body(self.body);
            if b.results(c).all(|r| !b.has_uses(r)) {
                self.ir.erase_op(self.body, c);
            }
        }
        let token = self
            .ir
            .body(self.body)
            .results(launch)
            .next()
            .ok_or("a launch without its token")?;
        self.launches.push(Launched {
            token,
            device: run.device.clone(),
            after,
            done: false,
        });
        self.record(me, &accesses);
        self.last_on.insert(run.device.clone(), me);
        if !self.launched.contains(&run.device) {
            self.launched.push(run.device.clone());
        }
        // The run's deallocs, now before the launch, go after it (or after the
        // wait that ends it).
        for d in &run.deallocs {
            self.ir.body_mut(self.body).move_op_before(*d, launch);
            self.ir.body_mut(self.body).move_op_before(launch, *d);
            self.dealloc(*d);
        }
        Ok(())
    }

    /// Whether work on device `to` waits for work on `from` through the host: both
    /// are started by `submit` and their target declares no `signal from -> to`.
    fn relayed_by_host(&self, from: &str, to: &str) -> bool {
        let submitted = |name: &str| {
            self.targets
                .iter()
                .find_map(|t| t.device(name).map(|d| (t, d.submit.is_some())))
        };
        match (submitted(from), submitted(to)) {
            (Some((_, true)), Some((t, true))) => !t.signals(from, to),
            _ => false,
        }
    }

    /// The launches in flight that work with `accesses` must wait for: those
    /// writing what it reads or writes, those reading what it writes. For a
    /// launch on `device`, not that device's own (they run in order).
    fn conflicts(&self, accesses: &[(ValueId, bool)], device: Option<&str>) -> Vec<usize> {
        let mut found: Vec<usize> = Vec::new();
        for (accessed, write) in accesses {
            let mut candidates: Vec<usize> = Vec::new();
            for root in self.aliases(*accessed) {
                candidates.extend(self.writer.get(&root).copied());
                if *write {
                    candidates.extend(self.readers.get(&root).into_iter().flatten().copied());
                }
            }
            for c in candidates {
                let same_device = device == Some(self.launches[c].device.as_str());
                if !self.launches[c].done && !same_device && !found.contains(&c) {
                    found.push(c);
                }
            }
        }
        // Those another one comes after are waited for with it.
        let covered: Vec<usize> = found
            .iter()
            .copied()
            .filter(|c| {
                found
                    .iter()
                    .any(|o| o != c && self.launches[*o].after.contains(c))
            })
            .collect();
        found.retain(|c| !covered.contains(c));
        found.sort_unstable();
        found
    }

    /// Notes what launch `l` reads and writes.
    fn record(&mut self, l: usize, accesses: &[(ValueId, bool)]) {
        for (root, write) in accesses {
            if *write {
                self.writer.insert(*root, l);
                self.readers.remove(root);
            } else {
                self.readers.entry(*root).or_default().push(l);
            }
        }
    }

    /// The launches the host op `op` must wait for.
    fn needed_by_host(&self, op: OpId) -> Vec<usize> {
        let accesses = accesses(self.ctx, self.ir, self.body, op);
        self.conflicts(&accesses, None)
    }

    /// Waits for launches `needed` before `op`, then lets the deallocs they held
    /// go.
    fn wait_before(&mut self, op: OpId, needed: Vec<usize>) -> Result<(), String> {
        if needed.is_empty() {
            return Ok(());
        }
        let needed: Vec<usize> = needed
            .iter()
            .copied()
            .filter(|c| {
                !needed
                    .iter()
                    .any(|o| o != c && self.launches[*o].after.contains(c))
            })
            .collect();
        let tokens: Vec<ValueId> = needed.iter().map(|l| self.launches[*l].token).collect();
        let loc = self.ir.op(self.body, op).loc();
        let mut e = Builder::new(self.ctx, self.ir, self.body, InsertPoint::Before(op), loc);
        hw::Wait::build(&mut e, &tokens).create()?;
        for l in needed {
            let done: Vec<usize> = self.launches[l].after.iter().copied().collect();
            for d in done {
                self.launches[d].done = true;
            }
        }
        let (free, held): (Vec<_>, Vec<_>) = std::mem::take(&mut self.postponed)
            .into_iter()
            .partition(|(_, root)| !self.in_use(*root));
        self.postponed = held;
        for (d, _) in free {
            self.ir.body_mut(self.body).move_op_before(d, op);
        }
        Ok(())
    }

    /// Whether a launch in flight uses the buffer `root`.
    fn in_use(&self, root: ValueId) -> bool {
        let pending = |l: &usize| !self.launches[*l].done;
        self.aliases(root).into_iter().any(|root| {
            self.writer.get(&root).is_some_and(pending)
                || self
                    .readers
                    .get(&root)
                    .is_some_and(|r| r.iter().any(pending))
        })
    }

    /// The buffers launches touched that share bytes with `root`, itself included:
    /// after `memory-plan`, buffers at overlapping offsets of one arena.
    fn aliases(&self, root: ValueId) -> Vec<ValueId> {
        let mut out = vec![root];
        let Some(mine) = self.placed(root) else {
            return out;
        };
        for other in self.writer.keys().chain(self.readers.keys()) {
            if *other != root
                && !out.contains(other)
                && self.placed(*other).is_some_and(|(space, start, end)| {
                    space == mine.0 && start < mine.2 && mine.1 < end
                })
            {
                out.push(*other);
            }
        }
        out
    }

    /// Where `memory-plan` put the buffer `root`: its memory space and byte range.
    fn placed(&self, root: ValueId) -> Option<(Option<acc_ir::AttrId>, u64, u64)> {
        let b = self.ir.body(self.body);
        let ValueDef::Result(def, _) = b.value(root).def else {
            return None;
        };
        let r = self.ir.op(self.body, def);
        if !loops::Alloc::is(self.ctx, r) {
            return None;
        }
        let offset =
            match acc_ir::elements::scalar(self.ctx, r.attr(self.ctx, loops::Alloc::ATTR_OFFSET)?)?
            {
                (_, acc_ir::elements::Scalar::Int(i)) => i,
                _ => return None,
            };
        let ty = b.value_type(root);
        let (bytes, _) = acc_dialects::hooks::hw::stored_bytes(self.ctx, ty)?;
        let TypeData::MemRef { memory_space, .. } = self.ctx.type_data(ty) else {
            return None;
        };
        let start = u64::try_from(offset).ok()?;
        Some((*memory_space, start, start.checked_add(bytes)?))
    }

    /// A `loop.dealloc`: held back while a launch uses its buffer, unless the
    /// buffer is in a memory only one device reaches and only that device's
    /// launches use it (its bytes can then only go to that device's later
    /// launches, which run after them).
    fn dealloc(&mut self, op: OpId) {
        let b = self.ir.body(self.body);
        let Some(v) = b.operands(op).next() else {
            return;
        };
        let root = buffer_root(self.ctx, self.ir, self.body, v);
        let pending = |l: &usize| !self.launches[*l].done;
        let users: Vec<usize> = self
            .writer
            .get(&root)
            .copied()
            .into_iter()
            .chain(self.readers.get(&root).into_iter().flatten().copied())
            .filter(pending)
            .collect();
        let owner = self.memory_owner(root);
        let own_device_only =
            owner.is_some_and(|d| users.iter().all(|l| self.launches[*l].device == d));
        if self.in_use(root) && !own_device_only {
            self.ir.body_mut(self.body).unlink_op(op);
            self.postponed.push((op, root));
        }
    }
}

/// Whether `v` is made by one of the ops `inside` (a result, or an argument of a
/// block of one of their regions).
fn defined_in(b: &acc_ir::Body, v: ValueId, inside: &FxHashSet<OpId>) -> bool {
    match b.value(v).def {
        ValueDef::Result(d, _) => inside.contains(&d),
        ValueDef::BlockArg(block, _) => b
            .region_parent(b.block_region(block))
            .is_some_and(|p| inside.contains(&p)),
        ValueDef::Detached => false,
    }
}

/// `op` and every op nested in its regions (of the same body).
fn nested_ops(ir: &Ir, body: BodyId, op: OpId) -> Vec<OpId> {
    let b = ir.body(body);
    let mut out = vec![op];
    let mut i = 0;
    while i < out.len() {
        let o = out[i];
        for r in b.op_regions(o) {
            for block in b.region_blocks(*r) {
                out.extend(b.block_ops(block));
            }
        }
        i += 1;
    }
    out
}

/// The buffers (roots) the top-level op `op` reads and writes, with whether it
/// writes them: a store's, copy's or transfer's target, an intrinsic's `outputs`;
/// any memref an op of unknown effects takes counts as written.
fn accesses(ctx: &Context, ir: &Ir, body: BodyId, op: OpId) -> Vec<(ValueId, bool)> {
    let b = ir.body(body);
    let inside: FxHashSet<OpId> = nested_ops(ir, body, op).into_iter().collect();
    let mut out: Vec<(ValueId, bool)> = Vec::new();
    for o in &inside {
        let r = ir.op(body, *o);
        let outputs: Vec<usize> = hw::Intrinsic::of(ctx, r)
            .and_then(|i| i.outputs())
            .unwrap_or_default()
            .into_iter()
            .filter_map(|i| usize::try_from(i).ok())
            .collect();
        let known_reads = matches!(
            loops::Op::of(ctx, r),
            Some(
                loops::Op::Load
                    | loops::Op::Vload
                    | loops::Op::Store
                    | loops::Op::Vstore
                    | loops::Op::Copy
                    | loops::Op::Reshape
                    | loops::Op::Subview
                    | loops::Op::Dealloc
            )
        ) || matches!(
            hw::Op::of(ctx, r),
            Some(hw::Op::Intrinsic | hw::Op::DmaStart)
        );
        for (i, v) in b.operands(*o).enumerate() {
            if !matches!(ctx.type_data(b.value_type(v)), TypeData::MemRef { .. }) {
                continue;
            }
            let root = buffer_root(ctx, ir, body, v);
            if defined_in(b, root, &inside) {
                continue;
            }
            let write = match loops::Op::of(ctx, r) {
                Some(loops::Op::Store | loops::Op::Vstore | loops::Op::Copy) => i == 1,
                Some(loops::Op::Dealloc) => true,
                _ if hw::DmaStart::is(ctx, r) => i == 1,
                _ if hw::Intrinsic::is(ctx, r) => outputs.contains(&i),
                _ => !known_reads,
            };
            match out.iter_mut().find(|(v, _)| *v == root) {
                Some(entry) => entry.1 |= write,
                None => out.push((root, write)),
            }
        }
    }
    out
}
