//! `cse`: common subexpression elimination. An op without side effects, regions or
//! successors that computes what an op dominating it already computed (same name,
//! operands, attributes and result types; operands in any order for commutative ops) is
//! replaced by that op's results and erased.
//!
//! As in MLIR, ops without side effects that are already unused when visited are
//! erased as well.
//!
//! Scopes follow dominance: each block sees the ops of the blocks dominating it, and a
//! region nested in an op sees what the op's block sees up to the op (regions of the
//! same body; isolated ops are CSE'd separately, body by body).

use acc_ir::dominance::DomTree;
use acc_ir::{
    AttrId, BlockId, BodyId, Context, Diagnostic, Ir, OpId, OpName, RegionId, TypeId, ValueId,
};
use acc_pass::{Pass, PassInfo, PassOptions, PassTarget};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// What makes two ops compute the same thing.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Key {
    name: OpName,
    operands: SmallVec<[ValueId; 4]>,
    attrs: AttrId,
    props: Option<AttrId>,
    results: SmallVec<[TypeId; 2]>,
}

/// The pass.
pub struct Cse;

/// Its registration.
pub fn info() -> PassInfo {
    PassInfo {
        name: "cse",
        title: "CSE",
        summary: "Eliminate common subexpressions",
        anchor: None,
        options: Vec::new(),
        create: |_: &PassOptions| Ok(Box::new(Cse)),
    }
}

impl Pass for Cse {
    fn run(&self, t: &mut PassTarget<'_>) -> Result<(), Diagnostic> {
        for (body, regions) in t.bodies() {
            let mut cse = BodyCse {
                ctx: t.ctx,
                body,
                cacheable: FxHashMap::default(),
                replaced: Vec::new(),
                subst: FxHashMap::default(),
                dead: Vec::new(),
            };
            for r in regions {
                cse.region(t.ir, r, &mut ScopedTable::default());
            }
            let (merged, erased) = cse.finish(t.ir);
            // MLIR's names for these counters.
            t.count("num-cse'd", "Number of operations CSE'd", merged);
            t.count("num-dce'd", "Number of operations DCE'd", erased);
        }
        Ok(())
    }
}

/// What the ops in scope computed, as one map (MLIR's `ScopedHashTable`): a scope
/// opened for a block is closed by removing the keys its ops added. An op is only
/// added when no op in scope computes the same, so closing never has to restore a
/// shadowed entry, and a lookup costs the same however deep the scopes nest.
#[derive(Default)]
struct ScopedTable {
    ops: FxHashMap<Key, OpId>,
    /// The keys added, in order.
    added: Vec<Key>,
    /// Where each open scope's keys start in `added`.
    scopes: Vec<usize>,
}

impl ScopedTable {
    fn open(&mut self) {
        self.scopes.push(self.added.len());
    }

    fn close(&mut self) {
        let start = self.scopes.pop().unwrap_or(0);
        for key in self.added.drain(start..) {
            self.ops.remove(&key);
        }
    }

    fn get(&self, key: &Key) -> Option<OpId> {
        self.ops.get(key).copied()
    }

    /// Adds `key` (not in scope yet) to the innermost scope.
    fn insert(&mut self, key: Key, op: OpId) {
        debug_assert!(!self.ops.contains_key(&key), "the key is not shadowed");
        self.added.push(key.clone());
        self.ops.insert(key, op);
    }
}

struct BodyCse<'c> {
    ctx: &'c Context,
    body: BodyId,
    /// Whether ops of a name may be eliminated (pure, no regions or successors).
    cacheable: FxHashMap<OpName, bool>,
    /// Ops to erase and what replaces their results.
    replaced: Vec<(OpId, OpId)>,
    /// Results of those ops and what replaces them (applied to later keys).
    subst: FxHashMap<ValueId, ValueId>,
    /// Unused ops without side effects, to erase.
    dead: Vec<OpId>,
}

impl BodyCse<'_> {
    fn is_cacheable(&mut self, ir: &Ir, op: OpId) -> bool {
        let b = ir.body(self.body);
        let data = b.op(op);
        let ctx = self.ctx;
        let by_name = *self.cacheable.entry(data.name).or_insert_with(|| {
            ctx.op_def(data.name)
                .is_some_and(|d| d.traits.pure && !d.traits.terminator)
        });
        by_name
            && b.op_regions(op).is_empty()
            && b.nested_body(op).is_none()
            && b.successors(op).len() == 0
            && b.results(op).len() > 0
    }

    fn key(&self, ir: &Ir, op: OpId) -> Key {
        let b = ir.body(self.body);
        let data = b.op(op);
        let mut operands: SmallVec<[ValueId; 4]> = b
            .operands(op)
            .map(|v| self.subst.get(&v).copied().unwrap_or(v))
            .collect();
        if operands.len() == 2
            && self
                .ctx
                .op_def(data.name)
                .is_some_and(|d| d.traits.commutative)
        {
            operands.sort();
        }
        Key {
            name: data.name,
            operands,
            attrs: data.attrs,
            props: data.props,
            results: b.results(op).map(|v| b.value_type(v)).collect(),
        }
    }

    /// CSEs `region`, seeing what `scopes` holds (the ops of the blocks that dominate
    /// the op holding the region, and that block's ops before it). The blocks are
    /// walked depth first down the dominator tree, each in a scope of its own, without
    /// recursion (a chain of blocks is as deep as the input makes it).
    fn region(&mut self, ir: &Ir, region: RegionId, scopes: &mut ScopedTable) {
        let b = ir.body(self.body);
        let blocks: Vec<BlockId> = b.region_blocks(region).collect();
        if blocks.len() == 1 {
            scopes.open();
            self.block(ir, blocks[0], scopes);
            scopes.close();
            return;
        }
        let dom = DomTree::compute(b, region);
        let Some(&entry) = dom.reverse_post_order().first() else {
            return;
        };
        enum Step {
            Enter(BlockId),
            Leave,
        }
        let mut work = vec![Step::Enter(entry)];
        while let Some(step) = work.pop() {
            match step {
                Step::Enter(block) => {
                    scopes.open();
                    self.block(ir, block, scopes);
                    work.push(Step::Leave);
                    let first = work.len();
                    work.extend(dom.children(block).map(Step::Enter));
                    // Children in reverse post-order, as MLIR visits them.
                    work[first..].reverse();
                }
                Step::Leave => scopes.close(),
            }
        }
    }

    fn block(&mut self, ir: &Ir, block: BlockId, scopes: &mut ScopedTable) {
        let ops: Vec<OpId> = ir.body(self.body).block_ops(block).collect();
        for op in ops {
            if self.is_cacheable(ir, op) {
                let b = ir.body(self.body);
                if b.results(op).all(|r| !b.has_uses(r)) {
                    self.dead.push(op);
                    continue;
                }
                let key = self.key(ir, op);
                match scopes.get(&key) {
                    Some(earlier) => {
                        let b = ir.body(self.body);
                        for (o, n) in b.results(op).zip(b.results(earlier)) {
                            self.subst.insert(o, n);
                        }
                        self.replaced.push((op, earlier));
                    }
                    None => scopes.insert(key, op),
                }
            } else if ir.body(self.body).nested_body(op).is_none() {
                let regions: Vec<RegionId> = ir.body(self.body).op_regions(op).to_vec();
                for r in regions {
                    self.region(ir, r, scopes);
                }
            }
        }
    }

    /// Replaces and erases the duplicates, last first (a duplicate may use another).
    /// Replaces and erases the ops found: how many were merged into an earlier one,
    /// and how many dead ones were erased.
    fn finish(self, ir: &mut Ir) -> (u64, u64) {
        let body = ir.body_mut(self.body);
        let mut erased = 0;
        for &(op, earlier) in self.replaced.iter() {
            let old: SmallVec<[ValueId; 2]> = body.results(op).collect();
            let new: SmallVec<[ValueId; 2]> = body.results(earlier).collect();
            for (o, n) in old.into_iter().zip(new) {
                body.replace_all_uses(o, n);
            }
        }
        for &(op, _) in self.replaced.iter().rev() {
            body.erase_op(op);
        }
        for &op in self.dead.iter().rev() {
            if body.results(op).all(|r| !body.has_uses(r)) {
                body.erase_op(op);
                erased += 1;
            }
        }
        (self.replaced.len() as u64, erased)
    }
}
