//! Creating, reading and mutating the entities of a [`Body`]: ops, values, uses, blocks
//! and regions. Order within blocks is in [`layout`](crate::layout).
//!
//! Invariants kept here: an op's operand slots are `first_use..first_use+num_operands` in
//! the use table and each is linked into its value's use list; results are consecutive
//! values; replacing or dropping an operand relinks exactly one use.

use crate::attrs::AttrId;
use crate::entity::{EntityId, PackedId};
use crate::ir::*;
use crate::registry::OpName;
use crate::types::TypeId;

/// What [`Body::create_op`] needs to make an op.
#[derive(Clone, Debug)]
pub struct OpSpec<'s> {
    /// Name.
    pub name: OpName,
    /// Location attribute.
    pub loc: AttrId,
    /// Discardable attribute dictionary.
    pub attrs: AttrId,
    /// Properties dictionary.
    pub props: Option<AttrId>,
    /// Operand values (of this body).
    pub operands: &'s [ValueId],
    /// Result types.
    pub result_types: &'s [TypeId],
    /// Successor blocks (of this body).
    pub successors: &'s [BlockId],
    /// Regions already created in this body (for a non-isolated op).
    pub regions: Vec<RegionId>,
    /// The nested body holding the regions (for an isolated op).
    pub nested: Option<BodyId>,
}

impl Body {
    // ----- creation -----

    /// Creates an empty region; `parent` is the op owning it, when it already exists.
    pub fn new_region(&mut self, parent: Option<OpId>) -> RegionId {
        self.regions.push(RegionData {
            parent: PackedId::new(parent),
            first_block: PackedId::NONE,
            last_block: PackedId::NONE,
        })
    }

    /// Creates an empty region owned by the body's owner (a top-level region).
    pub fn new_top_region(&mut self) -> RegionId {
        let r = self.new_region(None);
        self.top_regions.push(r);
        r
    }

    /// Creates a block at the end of `region`.
    pub fn append_block(&mut self, region: RegionId) -> BlockId {
        let prev = self.regions[region].last_block;
        let block = self.blocks.push(BlockData {
            args: Vec::new(),
            region,
            first_op: PackedId::NONE,
            last_op: PackedId::NONE,
            prev,
            next: PackedId::NONE,
            first_succ_use: PackedId::NONE,
            erased: false,
        });
        match prev.get() {
            Some(p) => self.blocks[p].next = block.into(),
            None => self.regions[region].first_block = block.into(),
        }
        self.regions[region].last_block = block.into();
        block
    }

    /// Moves `block` (of the same region) to the end of its region.
    pub fn move_block_to_end(&mut self, block: BlockId) {
        let region = self.blocks[block].region;
        if self.regions[region].last_block == block.into() {
            return;
        }
        let (prev, next) = (self.blocks[block].prev, self.blocks[block].next);
        match prev.get() {
            Some(p) => self.blocks[p].next = next,
            None => self.regions[region].first_block = next,
        }
        if let Some(n) = next.get() {
            self.blocks[n].prev = prev;
        }
        let last = self.regions[region].last_block;
        self.blocks[block].prev = last;
        self.blocks[block].next = PackedId::NONE;
        if let Some(l) = last.get() {
            self.blocks[l].next = block.into();
        }
        self.regions[region].last_block = block.into();
    }

    /// Appends an argument of type `ty` to `block`.
    pub fn add_block_arg(&mut self, block: BlockId, ty: TypeId) -> ValueId {
        let index = self.blocks[block].args.len() as u32;
        let v = self.values.push(ValueData {
            ty,
            def: ValueDef::BlockArg(block, index),
            first_use: PackedId::NONE,
        });
        self.blocks[block].args.push(v);
        v
    }

    /// Creates a value with no definition yet (a forward reference).
    pub fn new_detached_value(&mut self, ty: TypeId) -> ValueId {
        self.values.push(ValueData {
            ty,
            def: ValueDef::Detached,
            first_use: PackedId::NONE,
        })
    }

    /// Creates a detached op (insert it with the [`layout`](crate::layout) functions).
    pub fn create_op(&mut self, spec: OpSpec<'_>) -> OpId {
        let op = OpId::from_index(self.ops.len());
        let first_result = self.values.len() as u32;
        for (i, &ty) in spec.result_types.iter().enumerate() {
            self.values.push(ValueData {
                ty,
                def: ValueDef::Result(op, i as u32),
                first_use: PackedId::NONE,
            });
        }
        let first_use = self.uses.len() as u32;
        for &v in spec.operands {
            let u = self.uses.push(UseData {
                value: v,
                owner: op,
                prev: PackedId::NONE,
                next: PackedId::NONE,
            });
            self.link_use(u);
        }
        let first_succ = self.succs.len() as u32;
        for &b in spec.successors {
            let s = self.succs.push(SuccData {
                block: b,
                owner: op,
                prev: PackedId::NONE,
                next: PackedId::NONE,
            });
            self.link_succ(s);
        }
        for &r in &spec.regions {
            self.regions[r].parent = op.into();
        }
        self.ops.push(OpData {
            name: spec.name,
            loc: spec.loc,
            attrs: spec.attrs,
            props: spec.props,
            first_result,
            num_results: spec.result_types.len() as u32,
            first_use,
            num_operands: spec.operands.len() as u32,
            first_succ,
            num_succs: spec.successors.len() as u32,
            regions: spec.regions.into_boxed_slice(),
            nested: PackedId::new(spec.nested),
            erased: false,
        });
        self.layout.push(OpNode::default());
        op
    }

    // ----- reading -----

    /// The data of an op.
    pub fn op(&self, op: OpId) -> &OpData {
        &self.ops[op]
    }
    /// The data of an op, mutably (name, location, attributes).
    pub fn op_mut(&mut self, op: OpId) -> &mut OpData {
        &mut self.ops[op]
    }
    /// The data of a value.
    pub fn value(&self, v: ValueId) -> &ValueData {
        &self.values[v]
    }
    /// The type of a value.
    pub fn value_type(&self, v: ValueId) -> TypeId {
        self.values[v].ty
    }
    /// Changes the type of a value (a block argument when a conversion changes a
    /// signature); the caller keeps the IR valid.
    pub fn set_value_type(&mut self, v: ValueId, ty: TypeId) {
        self.values[v].ty = ty;
    }
    /// Operand values of `op`.
    pub fn operands(&self, op: OpId) -> impl ExactSizeIterator<Item = ValueId> + '_ {
        let d = &self.ops[op];
        (d.first_use..d.first_use + d.num_operands)
            .map(move |u| self.uses[UseId::from_index(u as usize)].value)
    }
    /// Operand `i` of `op`.
    pub fn operand(&self, op: OpId, i: usize) -> ValueId {
        debug_assert!(
            i < self.ops[op].num_operands as usize,
            "operand index out of range"
        );
        self.uses[UseId::from_index(self.ops[op].first_use as usize + i)].value
    }
    /// Result values of `op`.
    pub fn results(&self, op: OpId) -> impl ExactSizeIterator<Item = ValueId> + use<> {
        let d = &self.ops[op];
        (d.first_result..d.first_result + d.num_results).map(|v| ValueId::from_index(v as usize))
    }
    /// Successor blocks of `op`.
    pub fn successors(&self, op: OpId) -> impl ExactSizeIterator<Item = BlockId> + '_ {
        let d = &self.ops[op];
        (d.first_succ..d.first_succ + d.num_succs)
            .map(move |s| self.succs[SuccId::from_index(s as usize)].block)
    }
    /// The regions of a non-isolated op (an isolated op's are its nested body's
    /// [`Body::top_regions`]).
    pub fn op_regions(&self, op: OpId) -> &[RegionId] {
        &self.ops[op].regions
    }
    /// The nested body of an isolated op.
    pub fn nested_body(&self, op: OpId) -> Option<BodyId> {
        self.ops[op].nested.get()
    }
    /// The regions owned by this body's owner.
    pub fn top_regions(&self) -> &[RegionId] {
        &self.top_regions
    }
    /// The op (in the parent body) owning this body.
    pub fn owner(&self) -> Option<(BodyId, OpId)> {
        self.owner
    }
    /// The op owning `region` inside this body (`None` for a top region).
    pub fn region_parent(&self, region: RegionId) -> Option<OpId> {
        self.regions[region].parent.get()
    }
    /// Blocks of `region`, in order.
    pub fn region_blocks(&self, region: RegionId) -> BlockIter<'_> {
        BlockIter {
            body: self,
            next: self.regions[region].first_block,
        }
    }
    /// The first block of `region`.
    pub fn entry_block(&self, region: RegionId) -> Option<BlockId> {
        self.regions[region].first_block.get()
    }
    /// Arguments of `block`.
    pub fn block_args(&self, block: BlockId) -> &[ValueId] {
        &self.blocks[block].args
    }
    /// The region containing `block`.
    pub fn block_region(&self, block: BlockId) -> RegionId {
        self.blocks[block].region
    }
    /// Ops that use `block` as a successor.
    pub fn block_predecessors(&self, block: BlockId) -> Vec<OpId> {
        let mut out = Vec::new();
        let mut cur = self.blocks[block].first_succ_use;
        while let Some(s) = cur.get() {
            out.push(self.succs[s].owner);
            cur = self.succs[s].next;
        }
        out
    }
    /// The ops using `v` (one entry per use, so an op using it twice appears twice).
    pub fn value_users(&self, v: ValueId) -> UserIter<'_> {
        UserIter {
            body: self,
            next: self.values[v].first_use,
        }
    }
    /// True when `v` has at least one use.
    pub fn has_uses(&self, v: ValueId) -> bool {
        self.values[v].first_use.get().is_some()
    }
    /// True when `op` was erased.
    pub fn is_erased(&self, op: OpId) -> bool {
        self.ops[op].erased
    }
    /// The number of ops ever created in the body, erased ones included: every op
    /// created from now on has an index at least this (what a rewrite records to
    /// tell the ops it makes from those that were there).
    pub fn created_ops(&self) -> usize {
        self.ops.len()
    }

    // ----- use lists -----

    fn link_use(&mut self, u: UseId) {
        let v = self.uses[u].value;
        let head = self.values[v].first_use;
        self.uses[u].prev = PackedId::NONE;
        self.uses[u].next = head;
        if let Some(h) = head.get() {
            self.uses[h].prev = u.into();
        }
        self.values[v].first_use = u.into();
    }

    fn unlink_use(&mut self, u: UseId) {
        let (v, prev, next) = (self.uses[u].value, self.uses[u].prev, self.uses[u].next);
        match prev.get() {
            Some(p) => self.uses[p].next = next,
            None => self.values[v].first_use = next,
        }
        if let Some(n) = next.get() {
            self.uses[n].prev = prev;
        }
    }

    fn link_succ(&mut self, s: SuccId) {
        let b = self.succs[s].block;
        let head = self.blocks[b].first_succ_use;
        self.succs[s].next = head;
        if let Some(h) = head.get() {
            self.succs[h].prev = s.into();
        }
        self.blocks[b].first_succ_use = s.into();
    }

    fn unlink_succ(&mut self, s: SuccId) {
        let (b, prev, next) = (self.succs[s].block, self.succs[s].prev, self.succs[s].next);
        match prev.get() {
            Some(p) => self.succs[p].next = next,
            None => self.blocks[b].first_succ_use = next,
        }
        if let Some(n) = next.get() {
            self.succs[n].prev = prev;
        }
    }

    /// Makes operand `i` of `op` use `v`.
    pub fn set_operand(&mut self, op: OpId, i: usize, v: ValueId) {
        let u = UseId::from_index(self.ops[op].first_use as usize + i);
        self.unlink_use(u);
        self.uses[u].value = v;
        self.link_use(u);
    }

    /// Replaces every use of `old` by `new` (MLIR's RAUW): a loop over the use list.
    pub fn replace_all_uses(&mut self, old: ValueId, new: ValueId) {
        if old == new {
            return;
        }
        while let Some(u) = self.values[old].first_use.get() {
            self.unlink_use(u);
            self.uses[u].value = new;
            self.link_use(u);
        }
    }

    /// Drops the operand and successor uses of `op` (its operands become dangling slots).
    fn drop_uses(&mut self, op: OpId) {
        let d = &self.ops[op];
        let (fu, nu, fs, ns) = (d.first_use, d.num_operands, d.first_succ, d.num_succs);
        for u in fu..fu + nu {
            self.unlink_use(UseId::from_index(u as usize));
        }
        for s in fs..fs + ns {
            self.unlink_succ(SuccId::from_index(s as usize));
        }
        let d = &mut self.ops[op];
        d.num_operands = 0;
        d.num_succs = 0;
    }

    /// Erases `op` and, recursively, the ops of its regions in this body; pushes the
    /// nested bodies that die with it onto `dead_bodies`. Results must have no uses left
    /// outside the erased ops.
    pub(crate) fn erase_op_collect(&mut self, op: OpId, dead_bodies: &mut Vec<BodyId>) {
        if self.ops[op].erased {
            return;
        }
        if self.layout[op].block.get().is_some() {
            self.unlink_op(op);
        }
        // Drop every use inside the regions first, so that no inner op is erased while
        // a later one (or one in another block) still uses its results.
        let regions = self.ops[op].regions.clone();
        for r in regions.iter() {
            self.drop_uses_in_region(*r);
        }
        for r in regions.iter() {
            let blocks: Vec<BlockId> = self.region_blocks(*r).collect();
            for b in &blocks {
                let ops: Vec<OpId> = self.block_ops(*b).collect();
                for o in ops {
                    self.erase_op_collect(o, dead_bodies);
                }
                self.blocks[*b].erased = true;
            }
        }
        self.drop_uses(op);
        debug_assert!(
            self.results(op).all(|v| !self.has_uses(v)),
            "erasing an op whose results are still used"
        );
        for v in self.results(op) {
            self.values[v].def = ValueDef::Detached;
        }
        if let Some(n) = self.ops[op].nested.get() {
            dead_bodies.push(n);
        }
        self.ops[op].erased = true;
    }

    /// Drops the operands of every op of `region`, nested regions of this body included.
    fn drop_uses_in_region(&mut self, region: RegionId) {
        let blocks: Vec<BlockId> = self.region_blocks(region).collect();
        for b in blocks {
            let ops: Vec<OpId> = self.block_ops(b).collect();
            for o in ops {
                self.drop_uses(o);
                let inner = self.ops[o].regions.clone();
                for r in inner.iter() {
                    self.drop_uses_in_region(*r);
                }
            }
        }
    }

    /// Erases a non-isolated op in place (see [`crate::Ir::erase_op`] for isolated ones).
    pub fn erase_op(&mut self, op: OpId) {
        let mut dead = Vec::new();
        self.erase_op_collect(op, &mut dead);
        debug_assert!(
            dead.is_empty(),
            "use Ir::erase_op for ops with nested bodies"
        );
    }
}

/// Iterator over the blocks of a region.
pub struct BlockIter<'a> {
    body: &'a Body,
    next: PackedId<BlockId>,
}

impl Iterator for BlockIter<'_> {
    type Item = BlockId;
    fn next(&mut self) -> Option<BlockId> {
        let b = self.next.get()?;
        self.next = self.body.blocks[b].next;
        Some(b)
    }
}

/// Iterator over the users of a value.
pub struct UserIter<'a> {
    body: &'a Body,
    next: PackedId<UseId>,
}

impl Iterator for UserIter<'_> {
    type Item = OpId;
    fn next(&mut self) -> Option<OpId> {
        let u = self.next.get()?;
        self.next = self.body.uses[u].next;
        Some(self.body.uses[u].owner)
    }
}
