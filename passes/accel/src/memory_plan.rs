//! `memory-plan`: the buffers a function allocates and frees itself go to byte offsets
//! of one static arena per memory, buffers alive at the same time never sharing bytes.
//!
//! A buffer is planned when its `loop.alloc` is at the function's top level with a
//! static shape and a `loop.dealloc` of it follows at the top level
//! (`buffer-deallocation` places them): it lives from the alloc to the dealloc. The
//! allocation gets `offset` (bytes, multiples of [`ALIGNMENT`]). Buffers of the host
//! memory (memrefs without a memory space) share one arena, whose size the function
//! gets as `loop.arena_size`; buffers of a memory space `"NAME"` (an accelerator's
//! local memory, where `bufferize` stages an intrinsic's operands) get an arena of
//! their own, sized in the function's `loop.arena_sizes = {NAME = BYTES}`. Code
//! generation then takes each buffer from its arena instead of the allocator. Buffers
//! the function returns are left to the allocator. A function that has an arena
//! already is left as it is.
//!
//! Two buffers share bytes only when they are not alive together and, with devices
//! the host starts asynchronously (a target `device` with `submit`, which
//! `schedule-devices` launches), when the device that last uses the first (in the
//! program's order) is the one that first uses the second, the host counting as one:
//! frame n+1's DLA input does not take the bytes of frame n's DLA result the DSP
//! still reads (`pipeline-frames`), so the DLA need not wait for the DSP.
//!
//! Placement is greedy by size (largest first, each at the lowest offset free during
//! its lifetime), the strategy of TensorFlow Lite's arena planner. An arena is never
//! smaller than [`lower_bound`], the most bytes alive at one time.
//!
//! With a target (`acc-opt --target`) that declares memories, an arena larger than
//! its memory (the host's for the host arena) is an error at the function, and so is
//! a memory space the target does not declare.

use acc_ir::{BodyId, Context, Diagnostic, Ir, OpId, ValueId};
use acc_target::Targets;

use crate::device_work::device_of;
use crate::forward_transfers::touches;
use acc_pass::{Pass, PassInfo, PassOptions, PassTarget};
use rustc_hash::FxHashMap;

use acc_dialects::build::i64_attr;
use acc_dialects::ops::{func, loops};

use acc_dialects::hooks::func::{ARENA_SECTION, ARENA_SECTIONS, ARENA_SIZE, ARENA_SIZES};
pub use acc_dialects::hooks::hw::ALIGNMENT;
use acc_dialects::hooks::hw::stored_bytes;

/// The pass.
pub struct MemoryPlan {
    /// The target whose host memory bounds the host's arena (empty: the
    /// compilation's first).
    target: String,
}

/// Its registration.
pub fn info() -> PassInfo {
    PassInfo {
        name: "memory-plan",
        title: "MemoryPlan",
        summary: "Place the buffers a function allocates in one static arena per memory, reusing memory by liveness",
        anchor: Some(func::Func::NAME),
        options: vec![acc_pass::target_option()],
        create: |o: &PassOptions| {
            Ok(Box::new(MemoryPlan {
                target: o.get("target").to_string(),
            }))
        },
    }
}

impl Pass for MemoryPlan {
    fn run(&self, t: &mut PassTarget<'_>) -> Result<(), Diagnostic> {
        let Some((body, _)) = t.bodies().into_iter().next() else {
            return Ok(());
        };
        let (outer, func) = (t.body, t.op);
        let loc = t.ir.op(outer, func).loc();
        let at_function = |m: String| Diagnostic::error(acc_ir::DiagLoc::Loc(loc), m);
        let target = t.targets.select(&self.target);
        if !self.target.is_empty() && target.is_none() {
            return Err(at_function(t.targets.missing(&self.target, "memory-plan")));
        }
        let arenas = plan_function(t.ctx, t.ir, body, outer, func, t.targets)
            .map_err(|m| at_function(format!("memory-plan: {m}")))?;
        // The linker sections the target gives its memories: the host arena's, and
        // the others' by memory name.
        let mut host_section = None;
        let mut sections = Vec::new();
        for arena in &arenas {
            // The target's memories bound the arenas: the host's arena its host's
            // memory, another memory the one of that name (from any target).
            let memory = match (&arena.memory, target) {
                (None, Some(tg)) => tg.host_memory(),
                (Some(name), Some(tg)) => Some(t.targets.memory(name).ok_or_else(|| {
                    let which = if t.targets.iter().count() == 1 {
                        format!("target '{}' does not declare", tg.name)
                    } else {
                        "no target of the compilation declares".to_string()
                    };
                    at_function(format!(
                        "memory-plan: buffers live in memory \"{name}\", which {which}"
                    ))
                })?),
                (_, None) => None,
            };
            if let Some(section) = memory.and_then(|m| m.section.clone()) {
                match &arena.memory {
                    None => host_section = Some(section),
                    Some(name) => sections.push((name.clone(), section)),
                }
            }
            let which = match &arena.memory {
                None => "the arena".to_string(),
                Some(m) => format!("the arena of memory \"{m}\""),
            };
            if let Some(memory) = memory
                && arena.size > memory.size
            {
                return Err(at_function(format!(
                    "memory-plan: {which} needs {} bytes (at least {} are alive at once), more than memory '{}' of the target holds ({} bytes)",
                    arena.size, arena.bound, memory.name, memory.size
                )));
            }
            let what = match &arena.memory {
                None => "an arena".to_string(),
                Some(m) => format!("memory \"{m}\"'s arena"),
            };
            t.diagnostics.push(Diagnostic::new(
                acc_ir::Severity::Remark,
                acc_ir::DiagLoc::Loc(loc),
                format!(
                    "memory-plan: {} buffers in {what} of {} bytes (the most alive at once: {} bytes)",
                    arena.count, arena.size, arena.bound
                ),
            ));
        }
        set_sections(t.ctx, t.ir, outer, func, host_section, &sections)
            .map_err(|m| at_function(format!("memory-plan: {m}")))
    }
}

/// Records on the function the linker sections of its arenas
/// ([`ARENA_SECTION`] for the host's, [`ARENA_SECTIONS`] by memory name).
fn set_sections(
    ctx: &Context,
    ir: &mut Ir,
    outer: BodyId,
    func: OpId,
    host: Option<String>,
    others: &[(String, String)],
) -> Result<(), String> {
    if host.is_none() && others.is_empty() {
        return Ok(());
    }
    let mut entries: Vec<_> = ctx.dict_entries(ir.body(outer).op(func).attrs).to_vec();
    if let Some(section) = host {
        entries.push((ctx.sym(ARENA_SECTION), ctx.string_attr(&section)));
    }
    if !others.is_empty() {
        let by_memory = others
            .iter()
            .map(|(m, s)| (ctx.sym(m), ctx.string_attr(s)))
            .collect();
        let dict = ctx
            .dict_attr(by_memory)
            .map_err(|_| "a memory twice".to_string())?;
        entries.push((ctx.sym(ARENA_SECTIONS), dict));
    }
    ir.body_mut(outer).op_mut(func).attrs = ctx
        .dict_attr(entries)
        .map_err(|_| "duplicate function attributes".to_string())?;
    Ok(())
}

/// One memory's plan: its arena size, the lower bound and the buffers placed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arena {
    /// The memory space (`None`: the host's memory).
    pub memory: Option<String>,
    /// The arena's bytes.
    pub size: u64,
    /// The most bytes alive at once.
    pub bound: u64,
    /// How many buffers it holds.
    pub count: usize,
}

/// A buffer's lifetime (positions of its first and last top-level op, inclusive) and
/// size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lifetime {
    /// Where it is allocated.
    pub start: usize,
    /// Where it is freed.
    pub end: usize,
    /// Its size in bytes.
    pub bytes: u64,
    /// The asynchronous device that first uses it (0: the host, or a device the host
    /// calls), and the one that last does (see [`Lifetime::shares_with`]).
    pub first_device: u32,
    /// See `first_device`.
    pub last_device: u32,
}

impl Lifetime {
    /// A buffer alive from `start` to `end` used by the host alone.
    pub fn on_host(start: usize, end: usize, bytes: u64) -> Lifetime {
        Lifetime {
            start,
            end,
            bytes,
            first_device: 0,
            last_device: 0,
        }
    }

    fn overlaps(&self, other: &Lifetime) -> bool {
        self.start <= other.end && other.start <= self.end
    }

    /// Whether the two buffers may share bytes: they are not alive together, and the
    /// later one's first user is the earlier one's last (otherwise reusing the bytes
    /// would make one device wait for another that works at the same time).
    fn shares_with(&self, other: &Lifetime) -> bool {
        if self.overlaps(other) {
            false
        } else if self.end < other.start {
            self.last_device == other.first_device
        } else {
            other.last_device == self.first_device
        }
    }
}

fn aligned(bytes: u64) -> u64 {
    bytes.div_ceil(ALIGNMENT).max(1) * ALIGNMENT
}

/// Offsets for `buffers` (in their order) and the arena size: two buffers alive at the
/// same time get disjoint byte ranges; every offset is a multiple of [`ALIGNMENT`].
pub fn plan(buffers: &[Lifetime]) -> (Vec<u64>, u64) {
    let mut order: Vec<usize> = (0..buffers.len()).collect();
    order.sort_by_key(|i| (std::cmp::Reverse(buffers[*i].bytes), buffers[*i].start));
    let mut offsets = vec![0u64; buffers.len()];
    let mut placed: Vec<usize> = Vec::new();
    let mut size = 0;
    for i in order {
        let b = &buffers[i];
        let need = aligned(b.bytes);
        let mut busy: Vec<(u64, u64)> = placed
            .iter()
            .filter(|j| !buffers[**j].shares_with(b))
            .map(|j| (offsets[*j], offsets[*j] + aligned(buffers[*j].bytes)))
            .collect();
        busy.sort_unstable();
        let mut at = 0;
        for (lo, hi) in busy {
            if lo >= at + need {
                break;
            }
            at = at.max(hi);
        }
        offsets[i] = at;
        size = size.max(at + need);
        placed.push(i);
    }
    (offsets, size)
}

/// The most bytes (aligned) alive at one time: no plan can use less.
pub fn lower_bound(buffers: &[Lifetime]) -> u64 {
    let mut events: Vec<(usize, bool, u64)> = Vec::new();
    for b in buffers {
        events.push((b.start, true, aligned(b.bytes)));
        events.push((b.end + 1, false, aligned(b.bytes)));
    }
    // Frees before allocations at the same position.
    events.sort_by_key(|(at, alloc, _)| (*at, *alloc));
    let (mut live, mut peak) = (0u64, 0u64);
    for (_, alloc, bytes) in events {
        if alloc {
            live += bytes;
            peak = peak.max(live);
        } else {
            live -= bytes;
        }
    }
    peak
}

/// Plans the function `func` (of body `outer`) whose own body is `body`: one arena per
/// memory its buffers live in, the host's first (none when nothing was planned).
fn plan_function(
    ctx: &Context,
    ir: &mut Ir,
    body: BodyId,
    outer: BodyId,
    func: OpId,
    targets: &Targets,
) -> Result<Vec<Arena>, String> {
    let f_attrs = ir.body(outer).op(func).attrs;
    if ctx.dict_get(f_attrs, ARENA_SIZE).is_some() || ctx.dict_get(f_attrs, ARENA_SIZES).is_some() {
        // Planned already: its offsets stand.
        return Ok(Vec::new());
    }
    let b = ir.body(body);
    let Some(&region) = b.top_regions().first() else {
        return Ok(Vec::new());
    };
    let blocks: Vec<_> = b.region_blocks(region).collect();
    if blocks.len() != 1 {
        return Ok(Vec::new());
    }
    let ops: Vec<OpId> = b.block_ops(blocks[0]).collect();
    // The asynchronous devices (those started through a `submit` function), numbered
    // from 1 in the order their work appears; 0 the host.
    let mut numbers: FxHashMap<String, u32> = FxHashMap::default();
    let async_device: Vec<u32> = ops
        .iter()
        .map(|o| {
            let Some(d) = device_of(ctx, ir, body, targets, *o) else {
                return 0;
            };
            let submits = targets
                .iter()
                .find_map(|t| t.device(&d))
                .is_some_and(|dev| dev.submit.is_some());
            if !submits {
                return 0;
            }
            let next = numbers.len() as u32 + 1;
            *numbers.entry(d).or_insert(next)
        })
        .collect();
    let position: FxHashMap<OpId, usize> = ops.iter().enumerate().map(|(i, o)| (*o, i)).collect();
    // The first and last asynchronous user of the buffer `root` among `span`.
    let users = |span: &[OpId], root: ValueId| -> (u32, u32) {
        let mut found = span
            .iter()
            .filter(|o| {
                // Views and frees only compute addresses.
                !matches!(
                    loops::Op::of(ctx, ir.op(body, **o)),
                    Some(loops::Op::Dealloc | loops::Op::Reshape | loops::Op::Subview)
                ) && touches(ctx, ir, body, **o, root)
            })
            .map(|o| async_device[position[o]]);
        let first = found.next().unwrap_or(0);
        (first, found.last().unwrap_or(first))
    };
    let mut allocs: FxHashMap<ValueId, (OpId, usize, u64, Option<String>)> = FxHashMap::default();
    let mut found: Vec<(OpId, Lifetime, Option<String>)> = Vec::new();
    for (i, &o) in ops.iter().enumerate() {
        match loops::Op::of(ctx, ir.op(body, o)) {
            Some(loops::Op::Alloc) => {
                let r = b.op(o);
                if b.operands(o).len() != 0
                    || r.props
                        .is_some_and(|p| ctx.dict_get(p, loops::Alloc::ATTR_OFFSET).is_some())
                {
                    continue;
                }
                let Some(v) = b.results(o).next() else {
                    continue;
                };
                if let Some((bytes, space)) = stored_bytes(ctx, b.value_type(v)) {
                    allocs.insert(v, (o, i, bytes, space));
                }
            }
            Some(loops::Op::Dealloc) => {
                if let Some((alloc, start, bytes, space)) = allocs.remove(&b.operand(o, 0)) {
                    let (first_device, last_device) = users(&ops[start..=i], b.operand(o, 0));
                    let life = Lifetime {
                        start,
                        end: i,
                        bytes,
                        first_device,
                        last_device,
                    };
                    found.push((alloc, life, space));
                }
            }
            _ => {}
        }
    }
    let mut spaces: Vec<Option<String>> = found.iter().map(|f| f.2.clone()).collect();
    spaces.sort();
    spaces.dedup();
    let mut arenas = Vec::new();
    let mut sizes = Vec::new();
    for space in spaces {
        let mine: Vec<&(OpId, Lifetime, Option<String>)> =
            found.iter().filter(|f| f.2 == space).collect();
        let lifetimes: Vec<Lifetime> = mine.iter().map(|f| f.1).collect();
        let (offsets, size) = plan(&lifetimes);
        for ((alloc, _, _), offset) in mine.iter().zip(offsets) {
            set_prop(
                ctx,
                ir,
                body,
                *alloc,
                loops::Alloc::ATTR_OFFSET,
                offset as i64,
            )?;
        }
        if let Some(m) = &space {
            sizes.push((ctx.sym(m), i64_attr(ctx, size as i64)));
        }
        arenas.push(Arena {
            bound: lower_bound(&lifetimes),
            count: lifetimes.len(),
            memory: space,
            size,
        });
    }
    // The function's discardable attributes gain the arena sizes.
    let mut entries: Vec<_> = ctx.dict_entries(f_attrs).to_vec();
    if let Some(host) = arenas.iter().find(|a| a.memory.is_none()) {
        entries.push((ctx.sym(ARENA_SIZE), i64_attr(ctx, host.size as i64)));
    }
    if !sizes.is_empty() {
        let dict = ctx
            .dict_attr(sizes)
            .map_err(|_| "a memory twice".to_string())?;
        entries.push((ctx.sym(ARENA_SIZES), dict));
    }
    let attrs = ctx
        .dict_attr(entries)
        .map_err(|_| "duplicate function attributes".to_string())?;
    ir.body_mut(outer).op_mut(func).attrs = attrs;
    Ok(arenas)
}

/// Sets the property `key` of `op` to the i64 `value`.
fn set_prop(
    ctx: &Context,
    ir: &mut Ir,
    body: BodyId,
    op: OpId,
    key: &str,
    value: i64,
) -> Result<(), String> {
    let mut entries: Vec<_> = ir
        .body(body)
        .op(op)
        .props
        .map(|p| ctx.dict_entries(p).to_vec())
        .unwrap_or_default();
    entries.push((ctx.sym(key), i64_attr(ctx, value)));
    let props = ctx
        .dict_attr(entries)
        .map_err(|_| format!("an allocation has '{key}' twice"))?;
    ir.body_mut(body).op_mut(op).props = Some(props);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn life(start: usize, end: usize, bytes: u64) -> Lifetime {
        Lifetime::on_host(start, end, bytes)
    }

    /// Every pair of buffers alive together has disjoint ranges.
    fn check(buffers: &[Lifetime]) -> u64 {
        let (offsets, size) = plan(buffers);
        for i in 0..buffers.len() {
            assert_eq!(offsets[i] % ALIGNMENT, 0);
            assert!(offsets[i] + aligned(buffers[i].bytes) <= size);
            for j in 0..i {
                if buffers[i].overlaps(&buffers[j]) {
                    let (a, b) = (offsets[i], offsets[j]);
                    let disjoint =
                        a + aligned(buffers[i].bytes) <= b || b + aligned(buffers[j].bytes) <= a;
                    assert!(disjoint, "buffers {i} and {j} share bytes");
                }
            }
        }
        assert!(size >= lower_bound(buffers));
        size
    }

    /// Bytes pass from a buffer the DSP (2) last used to one the DLA (1) first uses
    /// only if they are alive apart and the devices match.
    #[test]
    fn bytes_pass_only_within_a_device() {
        let on = |start, end, first_device, last_device| Lifetime {
            start,
            end,
            bytes: 64,
            first_device,
            last_device,
        };
        // The DLA writes, the DSP reads; then the DLA's next buffer.
        let (offsets, size) = plan(&[on(0, 2, 1, 2), on(3, 4, 1, 1)]);
        assert_ne!(offsets[0], offsets[1]);
        assert_eq!(size, 128);
        // The DLA's alone: the bytes are reused.
        let (offsets, size) = plan(&[on(0, 2, 1, 1), on(3, 4, 1, 1)]);
        assert_eq!(offsets[0], offsets[1]);
        assert_eq!(size, 64);
    }

    #[test]
    fn a_chain_reuses_memory() {
        // a -> b -> c -> d, each freed after the next is made: two live at a time.
        let chain = [
            life(0, 1, 1000),
            life(1, 2, 1000),
            life(2, 3, 1000),
            life(3, 4, 1000),
        ];
        assert_eq!(check(&chain), 2 * 1024);
        assert_eq!(lower_bound(&chain), 2 * 1024);
    }

    #[test]
    fn buffers_alive_together_never_share() {
        // A residual block: the input lives across two convolutions.
        let block = [
            life(0, 5, 4096),
            life(1, 3, 4096),
            life(2, 4, 8192),
            life(4, 6, 4096),
            life(6, 7, 64),
        ];
        let size = check(&block);
        assert!(size <= lower_bound(&block) * 11 / 10, "{size}");
    }

    #[test]
    fn pseudo_random_lifetimes_stay_disjoint() {
        let mut seed = 12345u64;
        let mut next = |n: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        for _ in 0..50 {
            let buffers: Vec<Lifetime> = (0..40)
                .map(|_| {
                    let start = next(100) as usize;
                    life(start, start + next(20) as usize, 1 + next(100_000))
                })
                .collect();
            check(&buffers);
        }
    }
}
