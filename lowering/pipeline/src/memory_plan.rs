//! `memory-plan`: the buffers a function allocates and frees itself go to byte offsets
//! of one static arena, buffers alive at the same time never sharing bytes.
//!
//! A buffer is planned when its `loop.alloc` is at the function's top level with a
//! static shape in host memory and a `loop.dealloc` of it follows at the top level
//! (`buffer-deallocation` places them): it lives from the alloc to the dealloc. The
//! allocation gets `offset` (bytes, multiples of [`ALIGNMENT`]) and the function
//! `loop.arena_size`; code generation then takes the buffer from the arena instead of
//! the allocator. Buffers the function returns are left to the allocator. A function
//! that has an arena already is left as it is.
//!
//! Placement is greedy by size (largest first, each at the lowest offset free during
//! its lifetime), the strategy of TensorFlow Lite's arena planner. The arena is never
//! smaller than [`lower_bound`], the most bytes alive at one time.
//!
//! With a target (`acc-opt --target`) that declares memories, an arena larger than
//! the memory its host device reaches is an error at the function.

use acc_ir::pass::{Pass, PassInfo, PassOptions, PassTarget};
use acc_ir::{BodyId, Context, Diagnostic, Ir, OpId, TypeData, ValueId};
use rustc_hash::FxHashMap;

use crate::emit::i64_attr;

/// Byte alignment of every planned buffer (a cache line, and the widest vector).
pub const ALIGNMENT: u64 = 64;

/// The pass.
pub struct MemoryPlan;

/// Its registration.
pub fn info() -> PassInfo {
    PassInfo {
        name: "memory-plan",
        title: "MemoryPlan",
        summary: "Place the buffers a function allocates in one static arena, reusing memory by liveness",
        anchor: Some("func.func"),
        options: Vec::new(),
        create: |_: &PassOptions| Ok(Box::new(MemoryPlan)),
    }
}

impl Pass for MemoryPlan {
    fn run(&self, t: &mut PassTarget<'_>) -> Result<(), Diagnostic> {
        let Some((body, _)) = t.bodies().into_iter().next() else {
            return Ok(());
        };
        let (outer, func) = (t.body, t.op);
        let planned = plan_function(t.ctx, t.ir, body, outer, func).map_err(|m| {
            Diagnostic::error(acc_ir::DiagLoc::Unknown, format!("memory-plan: {m}"))
        })?;
        if let Some((size, bound, count)) = planned {
            let loc = t.ir.op(outer, func).loc();
            // The target's host memory bounds the arena.
            if let Some(memory) = t.ctx.active_target().and_then(|tg| tg.host_memory())
                && size > memory.size
            {
                return Err(Diagnostic::error(
                    acc_ir::DiagLoc::Loc(loc),
                    format!(
                        "memory-plan: the arena needs {size} bytes (at least {bound} are alive at once), more than memory '{}' of the target holds ({} bytes)",
                        memory.name, memory.size
                    ),
                ));
            }
            t.diagnostics.push(Diagnostic::new(
                acc_ir::Severity::Remark,
                acc_ir::DiagLoc::Loc(loc),
                format!(
                    "memory-plan: {count} buffers in an arena of {size} bytes (the most alive at once: {bound} bytes)"
                ),
            ));
        }
        Ok(())
    }
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
}

impl Lifetime {
    fn overlaps(&self, other: &Lifetime) -> bool {
        self.start <= other.end && other.start <= self.end
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
            .filter(|j| buffers[**j].overlaps(b))
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

/// The bytes of a static host-memory buffer type, if it is one.
fn buffer_bytes(ctx: &Context, ty: acc_ir::TypeId) -> Option<u64> {
    let TypeData::MemRef {
        shape,
        element,
        layout: None,
        memory_space: None,
    } = ctx.type_data(ty)
    else {
        return None;
    };
    let bits = match ctx.type_data(*element) {
        TypeData::Float(k) => u64::from(k.width()),
        TypeData::Integer { width, .. } => u64::from(*width),
        TypeData::Index => 64,
        TypeData::QuantUniform(q) => u64::from(q.storage_width),
        _ => return None,
    };
    let mut n = 1u64;
    for d in shape.iter() {
        n = n.checked_mul(u64::try_from(*d).ok()?)?;
    }
    n.checked_mul(bits.div_ceil(8))
}

/// Plans the function `func` (of body `outer`) whose own body is `body`; the arena size,
/// the lower bound and the number of buffers placed, if any was.
fn plan_function(
    ctx: &Context,
    ir: &mut Ir,
    body: BodyId,
    outer: BodyId,
    func: OpId,
) -> Result<Option<(u64, u64, usize)>, String> {
    if ctx
        .dict_get(ir.body(outer).op(func).attrs, "loop.arena_size")
        .is_some()
    {
        // Planned already: its offsets stand.
        return Ok(None);
    }
    let b = ir.body(body);
    let Some(&region) = b.top_regions().first() else {
        return Ok(None);
    };
    let blocks: Vec<_> = b.region_blocks(region).collect();
    if blocks.len() != 1 {
        return Ok(None);
    }
    let ops: Vec<OpId> = b.block_ops(blocks[0]).collect();
    let name = |o: OpId| ctx.op_name_str(b.op(o).name);
    let mut allocs: FxHashMap<ValueId, (OpId, usize, u64)> = FxHashMap::default();
    let mut found: Vec<(OpId, Lifetime)> = Vec::new();
    for (i, &o) in ops.iter().enumerate() {
        match name(o) {
            "loop.alloc" => {
                let r = b.op(o);
                if b.operands(o).len() != 0
                    || r.props.is_some_and(|p| ctx.dict_get(p, "offset").is_some())
                {
                    continue;
                }
                let Some(v) = b.results(o).next() else {
                    continue;
                };
                if let Some(bytes) = buffer_bytes(ctx, b.value_type(v)) {
                    allocs.insert(v, (o, i, bytes));
                }
            }
            "loop.dealloc" => {
                if let Some((alloc, start, bytes)) = allocs.remove(&b.operand(o, 0)) {
                    found.push((
                        alloc,
                        Lifetime {
                            start,
                            end: i,
                            bytes,
                        },
                    ));
                }
            }
            _ => {}
        }
    }
    if found.is_empty() {
        return Ok(None);
    }
    let lifetimes: Vec<Lifetime> = found.iter().map(|(_, l)| *l).collect();
    let (offsets, size) = plan(&lifetimes);
    for ((alloc, _), offset) in found.iter().zip(offsets) {
        let mut entries: Vec<_> = ir
            .body(body)
            .op(*alloc)
            .props
            .map(|p| ctx.dict_entries(p).to_vec())
            .unwrap_or_default();
        entries.push((ctx.sym("offset"), i64_attr(ctx, offset as i64)));
        let props = ctx
            .dict_attr(entries)
            .map_err(|_| "an allocation has 'offset' twice".to_string())?;
        ir.body_mut(body).op_mut(*alloc).props = Some(props);
    }
    // The function's discardable attributes gain the arena size.
    let f = ir.body(outer).op(func);
    let mut entries: Vec<_> = ctx.dict_entries(f.attrs).to_vec();
    entries.retain(|(k, _)| ctx.str(*k) != "loop.arena_size");
    entries.push((ctx.sym("loop.arena_size"), i64_attr(ctx, size as i64)));
    let attrs = ctx
        .dict_attr(entries)
        .map_err(|_| "duplicate function attributes".to_string())?;
    ir.body_mut(outer).op_mut(func).attrs = attrs;
    Ok(Some((size, lower_bound(&lifetimes), found.len())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn life(start: usize, end: usize, bytes: u64) -> Lifetime {
        Lifetime { start, end, bytes }
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
