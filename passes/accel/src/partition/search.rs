//! Placement as a search for the shortest schedule, transfers included.
//!
//! Every placeable op of a function has candidates: for each device, the cheapest of
//! its rules that accepts the op (an intrinsic, or a `code` rule of a programmable
//! device or of the host), and the host when nothing else accepts it. A placement
//! (one candidate per op) is priced by a list schedule in program order: each device
//! and each DMA engine runs its work one piece after another. An operand a device
//! cannot read where it is gets copied into its memory, and a result leaves the
//! device's own memory when a consumer elsewhere or the host needs it (once), as
//! `bufferize` stages a call: nothing on one device or when both read one memory in
//! place; a declared engine between the two memories; else out to the shared memory
//! and in again, each by the cheapest engine reaching the memory. A copy starts once
//! its data is there and its engine free (so copies overlap computing, as staged
//! prefetches do); an op once its device is free and its operands are in. Function
//! arguments come from the host, results return to it; constants are free (weights
//! are placed at compile time). The schedule's length is the last finish.
//!
//! The search starts from the op-by-op choice (each op on its cheapest candidate)
//! and improves it while it can, within a budget of evaluations: it moves one op to
//! another candidate, then a whole region (ops connected by data on one device) to
//! a device every one of them has a candidate on, keeping each move that shortens
//! the schedule. Moves strictly improve, so it ends.

use acc_target::Target;
use rustc_hash::FxHashMap;

/// One way to run an op: on `device`, by the rule `rule` (an index into the
/// target's intrinsics; `None` for the host's own loops when no rule accepts the
/// op), at `cost` cycles, with its buffers in `memory` (`None`: the shared memory,
/// read in place).
#[derive(Clone, Debug)]
pub(super) struct Candidate {
    pub device: String,
    pub rule: Option<usize>,
    pub cost: i64,
    pub memory: Option<String>,
}

/// Where an operand comes from.
#[derive(Clone, Copy, Debug)]
pub(super) enum Source {
    /// The placeable op of this index.
    Op(usize),
    /// The host (a function argument, an op not placed here).
    Host,
}

/// The function to place: per placeable op (program order), its candidates, its
/// operands (source and bytes), and the bytes of its results the host receives.
#[derive(Debug, Default)]
pub(super) struct Problem {
    pub candidates: Vec<Vec<Candidate>>,
    pub inputs: Vec<Vec<(Source, i64)>>,
    pub returned: Vec<i64>,
    pub host: String,
}

/// The most op-evaluations (ops scheduled, over all placements tried) the search
/// spends; past it, the best placement found so far stands.
const BUDGET: u64 = 50_000_000;

/// A placement found: a candidate index per op and its schedule's length; the
/// op-by-op choice (each op's cheapest candidate) and its length.
pub(super) struct Found {
    pub choice: Vec<usize>,
    pub cycles: i64,
    pub start: Vec<usize>,
    pub op_by_op: i64,
    /// Whether the search stopped at its budget.
    pub exhausted: bool,
}

/// Each op on its cheapest candidate (the first among equal costs).
pub(super) fn op_by_op(p: &Problem, target: &Target) -> Found {
    let choice: Vec<usize> = p
        .candidates
        .iter()
        .map(|c| (0..c.len()).min_by_key(|k| (c[*k].cost, *k)).unwrap_or(0))
        .collect();
    let cycles = length(p, &choice, target);
    Found {
        start: choice.clone(),
        choice,
        cycles,
        op_by_op: cycles,
        exhausted: false,
    }
}

/// Searches for the placement of `p` with the shortest schedule on `target`.
pub(super) fn search(p: &Problem, target: &Target) -> Found {
    let n = p.candidates.len();
    let Found {
        start, op_by_op, ..
    } = self::op_by_op(p, target);
    let mut choice = start.clone();
    let mut best = op_by_op;
    let mut spent: u64 = n as u64;
    let mut exhausted = false;
    let mut improved = true;
    while improved && !exhausted {
        improved = false;
        // One op at a time.
        for i in 0..n {
            for k in 0..p.candidates[i].len() {
                if k == choice[i] {
                    continue;
                }
                if spent > BUDGET {
                    exhausted = true;
                    break;
                }
                spent += n as u64;
                let was = std::mem::replace(&mut choice[i], k);
                let cycles = length(p, &choice, target);
                if cycles < best {
                    best = cycles;
                    improved = true;
                } else {
                    choice[i] = was;
                }
            }
        }
        // Whole regions.
        for region in regions(p, &choice) {
            let devices: Vec<String> = p.candidates[region[0]]
                .iter()
                .map(|c| c.device.clone())
                .collect();
            for device in devices {
                if device == p.candidates[region[0]][choice[region[0]]].device {
                    continue;
                }
                let moved: Option<Vec<usize>> = region
                    .iter()
                    .map(|i| p.candidates[*i].iter().position(|c| c.device == device))
                    .collect();
                let Some(moved) = moved else { continue };
                if spent > BUDGET {
                    exhausted = true;
                    break;
                }
                spent += n as u64;
                let was: Vec<usize> = region.iter().map(|i| choice[*i]).collect();
                for (i, k) in region.iter().zip(&moved) {
                    choice[*i] = *k;
                }
                let cycles = length(p, &choice, target);
                if cycles < best {
                    best = cycles;
                    improved = true;
                    break;
                }
                for (i, k) in region.iter().zip(was) {
                    choice[*i] = k;
                }
            }
        }
    }
    Found {
        choice,
        cycles: best,
        start,
        op_by_op,
        exhausted,
    }
}

/// The schedule's length of the placement `choice`.
pub(super) fn length<'t>(p: &Problem, choice: &[usize], target: &'t Target) -> i64 {
    let host = Candidate {
        device: p.host.clone(),
        rule: None,
        cost: 0,
        memory: None,
    };
    let chosen = |i: usize| &p.candidates[i][choice[i]];
    // Each op's copy back out of its memory, once, when a consumer elsewhere (or the
    // host, for a result) needs it.
    let mut out: Vec<Option<Copy<'t>>> = vec![None; choice.len()];
    let mut widen = |i: usize, copy: Option<Copy<'t>>| {
        if let Some(c) = copy
            && out[i].as_ref().is_none_or(|o| o.cycles < c.cycles)
        {
            out[i] = Some(c);
        }
    };
    for (i, inputs) in p.inputs.iter().enumerate() {
        for (source, bytes) in inputs {
            if let Source::Op(j) = source {
                widen(*j, transfer(chosen(*j), chosen(i), *bytes, target).0);
            }
        }
    }
    for (i, bytes) in p.returned.iter().enumerate() {
        if *bytes > 0 {
            widen(i, transfer(chosen(i), &host, *bytes, target).0);
        }
    }
    // When each device is next free (it runs its work in program order), and the
    // copies each engine is busy with (a copy takes the first gap it fits, so a
    // prefetch goes before a copy back booked later).
    let mut free: FxHashMap<&str, i64> = FxHashMap::default();
    let mut busy: FxHashMap<&str, Vec<(i64, i64)>> = FxHashMap::default();
    // When each op's result is done on its device, and when it is out of the
    // device's memory too (for consumers that need it elsewhere).
    let mut finished = vec![0i64; choice.len()];
    let mut available = vec![0i64; choice.len()];
    let mut end = 0i64;
    for i in 0..choice.len() {
        let c = chosen(i);
        let mut ready = 0i64;
        for (source, bytes) in &p.inputs[i] {
            let (from, finish, out_too) = match source {
                Source::Op(j) => (chosen(*j), finished[*j], available[*j]),
                Source::Host => (&host, 0, 0),
            };
            let (copy_out, copy_in) = transfer(from, c, *bytes, target);
            let done = if copy_out.is_some() { out_too } else { finish };
            ready = ready.max(match copy_in {
                Some(copy) => book(busy.entry(copy.engine).or_default(), done, copy.cycles),
                None => done,
            });
        }
        let at = free.entry(&c.device).or_insert(0);
        let finish = ready.max(*at).saturating_add(c.cost);
        *at = finish;
        finished[i] = finish;
        available[i] = match &out[i] {
            Some(copy) => book(busy.entry(copy.engine).or_default(), finish, copy.cycles),
            None => finish,
        };
        end = end.max(available[i]);
    }
    end
}

/// Books `cycles` on an engine busy during `intervals` (sorted, disjoint), in the
/// first gap from `ready` on; returns when the copy ends.
fn book(intervals: &mut Vec<(i64, i64)>, ready: i64, cycles: i64) -> i64 {
    let mut at = ready;
    let mut k = intervals.partition_point(|(_, e)| *e <= ready);
    while k < intervals.len() && intervals[k].0 < at.saturating_add(cycles) {
        at = at.max(intervals[k].1);
        k += 1;
    }
    let done = at.saturating_add(cycles);
    if cycles > 0 {
        intervals.insert(k, (at, done));
    }
    done
}

/// A copy by an engine.
#[derive(Clone, Copy, Debug)]
struct Copy<'a> {
    engine: &'a str,
    cycles: i64,
}

/// The copies moving `bytes` from where `from` leaves them to where `to` reads
/// them: out of `from`'s memory and into `to`'s. None on one device or one memory;
/// a declared engine between the two memories (the copy in); else out to the
/// shared memory and in again, each by the cheapest engine reaching the memory.
fn transfer<'a>(
    from: &Candidate,
    to: &Candidate,
    bytes: i64,
    target: &'a Target,
) -> (Option<Copy<'a>>, Option<Copy<'a>>) {
    if bytes <= 0 || from.device == to.device || from.memory == to.memory {
        return (None, None);
    }
    if let (Some(a), Some(b)) = (&from.memory, &to.memory)
        && let Some(dma) = target.dma_between(a, b)
    {
        let copy = Copy {
            engine: &dma.start,
            cycles: dma.cycles(bytes),
        };
        return (None, Some(copy));
    }
    let hop = |memory: &Option<String>| -> Option<Copy<'a>> {
        let m = memory.as_ref()?;
        target
            .dmas
            .iter()
            .filter(|d| d.memories.iter().any(|x| x == m))
            .map(|d| Copy {
                engine: &d.start,
                cycles: d.cycles(bytes),
            })
            .min_by_key(|c| c.cycles)
    };
    (hop(&from.memory), hop(&to.memory))
}

/// The regions of a placement: maximal sets of ops on one device connected by the
/// values they pass each other, each in program order.
fn regions(p: &Problem, choice: &[usize]) -> Vec<Vec<usize>> {
    let n = choice.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let device = |i: usize| &p.candidates[i][choice[i]].device;
    for i in 0..n {
        for (source, _) in &p.inputs[i] {
            if let Source::Op(j) = source
                && device(*j) == device(i)
            {
                let (a, b) = (root(&mut parent, i), root(&mut parent, *j));
                parent[a.max(b)] = a.min(b);
            }
        }
    }
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut index: Vec<Option<usize>> = vec![None; n];
    for i in 0..n {
        let r = root(&mut parent, i);
        match index[r] {
            Some(k) => out[k].push(i),
            None => {
                index[r] = Some(out.len());
                out.push(vec![i]);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target() -> Target {
        Target {
            name: "t".into(),
            dmas: vec![acc_target::Dma {
                start: "dla_dma".into(),
                wait: "dla_wait".into(),
                memories: vec!["ddr".into(), "sram".into()],
                setup: 10,
                bytes_per_cycle: 1,
            }],
            ..Target::default()
        }
    }

    fn on(device: &str, cost: i64, memory: Option<&str>) -> Candidate {
        Candidate {
            device: device.into(),
            rule: Some(0),
            cost,
            memory: memory.map(str::to_string),
        }
    }

    /// A chain DLA, (DLA or DSP), DLA: the middle op is cheaper on the DSP alone,
    /// but its two transfers cost more; the search keeps it on the DLA.
    #[test]
    fn a_cheaper_op_elsewhere_stays_when_transfers_cost_more() {
        let p = Problem {
            candidates: vec![
                vec![on("dla", 100, Some("sram"))],
                vec![on("dla", 100, Some("sram")), on("dsp", 60, None)],
                vec![on("dla", 100, Some("sram"))],
            ],
            inputs: vec![
                vec![(Source::Host, 50)],
                vec![(Source::Op(0), 50)],
                vec![(Source::Op(1), 50)],
            ],
            returned: vec![0, 0, 50],
            host: "arm".into(),
        };
        let t = target();
        let found = search(&p, &t);
        // Op by op: 60 + 100 + 60 in, out, in, out (DSP reads the DDR in place).
        assert_eq!(found.op_by_op, 60 + 100 + 60 + 60 + 60 + 100 + 60);
        assert_eq!(found.choice, vec![0, 0, 0]);
        assert_eq!(found.cycles, 60 + 300 + 60);
    }

    /// Two independent ops both cheaper on the DLA: one goes to the DSP, so the
    /// two run at once.
    #[test]
    fn independent_work_spreads_over_devices() {
        let p = Problem {
            candidates: vec![
                vec![on("dla", 100, None), on("dsp", 150, None)],
                vec![on("dla", 100, None), on("dsp", 150, None)],
            ],
            inputs: vec![vec![(Source::Host, 8)], vec![(Source::Host, 8)]],
            returned: vec![8, 8],
            host: "arm".into(),
        };
        let found = search(&p, &target());
        assert_eq!(found.op_by_op, 200);
        assert_eq!(found.cycles, 150);
        assert_ne!(
            p.candidates[0][found.choice[0]].device,
            p.candidates[1][found.choice[1]].device
        );
    }

    /// A region moves as one: between two DLA-only ops, two ops cheaper on the DSP
    /// each lose by moving alone (a transfer moves, the op costs more), together
    /// they save both transfers.
    #[test]
    fn a_region_moves_where_no_single_op_would() {
        let either = || vec![on("dsp", 50, None), on("dla", 60, Some("sram"))];
        let p = Problem {
            candidates: vec![
                vec![on("dla", 100, Some("sram"))],
                either(),
                either(),
                vec![on("dla", 100, Some("sram"))],
            ],
            inputs: vec![
                vec![(Source::Host, 30)],
                vec![(Source::Op(0), 30)],
                vec![(Source::Op(1), 30)],
                vec![(Source::Op(2), 30)],
            ],
            returned: vec![0, 0, 0, 30],
            host: "arm".into(),
        };
        let t = target();
        let start = vec![0, 0, 0, 0];
        assert_eq!(
            length(&p, &start, &t),
            40 + 100 + 40 + 50 + 50 + 40 + 100 + 40
        );
        for single in [vec![0, 1, 0, 0], vec![0, 0, 1, 0]] {
            assert!(length(&p, &single, &t) > length(&p, &start, &t));
        }
        let found = search(&p, &t);
        assert_eq!(found.op_by_op, 460);
        assert_eq!(found.choice, vec![0, 1, 1, 0]);
        assert_eq!(found.cycles, 40 + 100 + 60 + 60 + 100 + 40);
    }
}
