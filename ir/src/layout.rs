//! Where ops are: the order of ops in blocks, kept apart from what they are.
//!
//! Each block is a doubly linked list of ops. Every placed op has a 64-bit sequence number that
//! increases along its block, so "is A before B in the same block" is one comparison.
//! When an insertion finds no gap, the few ops after it are pushed up (a pass inserting
//! many ops before one, such as a loop's terminator, moves only that one), and the block
//! is renumbered only when that would move more than [`MAX_PUSHED`] ops: inserting N ops
//! at one point costs O(N), appends amortised O(1).

use crate::entity::PackedId;
use crate::ir::*;

/// The gap between consecutive ops after renumbering (20 insertions at one point before
/// the gap closes; 2^44 ops in a block before the numbers run out).
const SEQ_STRIDE: u64 = 1 << 20;

/// How many ops an insertion without a gap pushes up before renumbering the block.
const MAX_PUSHED: usize = 32;

/// Where [`Body::insert_op`] puts an op.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum InsertPoint {
    /// At the end of a block.
    End(BlockId),
    /// Just before an op.
    Before(OpId),
}

impl Body {
    /// Places the detached `op` at `at`.
    pub fn insert_op(&mut self, op: OpId, at: InsertPoint) {
        debug_assert!(
            self.layout[op].block.get().is_none(),
            "op is already placed"
        );
        match at {
            InsertPoint::End(block) => {
                let last = self.blocks[block].last_op;
                self.link_between(op, block, last, PackedId::NONE);
            }
            InsertPoint::Before(before) => {
                let block = self.layout[before]
                    .block
                    .get()
                    .expect("insertion point is placed");
                let prev = self.layout[before].prev;
                self.link_between(op, block, prev, before.into());
            }
        }
    }

    /// Places `op` at the end of `block`.
    pub fn append_op(&mut self, block: BlockId, op: OpId) {
        self.insert_op(op, InsertPoint::End(block));
    }

    fn link_between(
        &mut self,
        op: OpId,
        block: BlockId,
        prev: PackedId<OpId>,
        next: PackedId<OpId>,
    ) {
        let node = &mut self.layout[op];
        node.block = block.into();
        node.prev = prev;
        node.next = next;
        match prev.get() {
            Some(p) => self.layout[p].next = op.into(),
            None => self.blocks[block].first_op = op.into(),
        }
        match next.get() {
            Some(n) => self.layout[n].prev = op.into(),
            None => self.blocks[block].last_op = op.into(),
        }
        let lo = prev.get().map(|p| self.layout[p].seq);
        let hi = next.get().map(|n| self.layout[n].seq);
        let seq = match (lo, hi) {
            (None, None) => Some(SEQ_STRIDE),
            (Some(l), None) => l.checked_add(SEQ_STRIDE),
            (None, Some(h)) => (h > 1).then_some(h / 2),
            (Some(l), Some(h)) => (h - l > 1).then_some(l + (h - l) / 2),
        };
        match seq {
            Some(s) => self.layout[op].seq = s,
            None => {
                if !self.push_up(op, lo.unwrap_or(0)) {
                    self.renumber_block(block);
                }
            }
        }
    }

    /// Numbers `op` (just linked after an op numbered `lo`, or first) and pushes the
    /// ops after it up until one is already above its new number; `false`, having
    /// changed nothing, when that would take more than [`MAX_PUSHED`] ops.
    fn push_up(&mut self, op: OpId, lo: u64) -> bool {
        let Some(first) = lo.checked_add(SEQ_STRIDE) else {
            return false;
        };
        // Count first: the ops to push and whether their numbers stay in range.
        let (mut cur, mut seq, mut pushed) = (self.layout[op].next, first, 0);
        while let Some(n) = cur.get() {
            if self.layout[n].seq > seq {
                break;
            }
            pushed += 1;
            let Some(next_seq) = seq.checked_add(SEQ_STRIDE) else {
                return false;
            };
            if pushed > MAX_PUSHED {
                return false;
            }
            seq = next_seq;
            cur = self.layout[n].next;
        }
        let (mut cur, mut seq): (PackedId<OpId>, u64) = (op.into(), first);
        for _ in 0..=pushed {
            let Some(n) = cur.get() else { break };
            self.layout[n].seq = seq;
            seq += SEQ_STRIDE;
            cur = self.layout[n].next;
        }
        true
    }

    fn renumber_block(&mut self, block: BlockId) {
        let mut cur = self.blocks[block].first_op;
        let mut seq = SEQ_STRIDE;
        while let Some(o) = cur.get() {
            self.layout[o].seq = seq;
            seq = seq.saturating_add(SEQ_STRIDE);
            cur = self.layout[o].next;
        }
    }

    /// Removes `op` from its block, keeping its data and uses (it can be re-inserted).
    pub fn unlink_op(&mut self, op: OpId) {
        let Some(block) = self.layout[op].block.get() else {
            return;
        };
        let (prev, next) = (self.layout[op].prev, self.layout[op].next);
        match prev.get() {
            Some(p) => self.layout[p].next = next,
            None => self.blocks[block].first_op = next,
        }
        match next.get() {
            Some(n) => self.layout[n].prev = prev,
            None => self.blocks[block].last_op = prev,
        }
        self.layout[op] = OpNode::default();
    }

    /// Moves `op` just before `before` (possibly into another block of this body).
    pub fn move_op_before(&mut self, op: OpId, before: OpId) {
        self.unlink_op(op);
        self.insert_op(op, InsertPoint::Before(before));
    }

    /// The block holding `op`, if placed.
    pub fn op_block(&self, op: OpId) -> Option<BlockId> {
        self.layout[op].block.get()
    }
    /// The op after `op` in its block.
    pub fn next_op(&self, op: OpId) -> Option<OpId> {
        self.layout[op].next.get()
    }
    /// The op before `op` in its block.
    pub fn prev_op(&self, op: OpId) -> Option<OpId> {
        self.layout[op].prev.get()
    }
    /// The first op of `block`.
    pub fn first_op(&self, block: BlockId) -> Option<OpId> {
        self.blocks[block].first_op.get()
    }
    /// The last op of `block` (its terminator, when it has one).
    pub fn last_op(&self, block: BlockId) -> Option<OpId> {
        self.blocks[block].last_op.get()
    }
    /// True when `a` comes strictly before `b`; both must be in the same block.
    pub fn is_before_in_block(&self, a: OpId, b: OpId) -> bool {
        debug_assert_eq!(
            self.layout[a].block, self.layout[b].block,
            "ops in different blocks"
        );
        self.layout[a].seq < self.layout[b].seq
    }
    /// The ops of `block`, in order.
    pub fn block_ops(&self, block: BlockId) -> OpIter<'_> {
        OpIter {
            body: self,
            next: self.blocks[block].first_op,
        }
    }
}

/// Iterator over the ops of a block.
pub struct OpIter<'a> {
    body: &'a Body,
    next: PackedId<OpId>,
}

impl Iterator for OpIter<'_> {
    type Item = OpId;
    fn next(&mut self) -> Option<OpId> {
        let o = self.next.get()?;
        self.next = self.body.layout[o].next;
        Some(o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::OpSpec;
    use crate::context::Context;

    fn spec<'a>(
        ctx: &mut Context,
        operands: &'a [ValueId],
        tys: &'a [crate::TypeId],
    ) -> OpSpec<'a> {
        let empty = ctx.empty_dict();
        OpSpec {
            name: ctx.op_name("t.op"),
            loc: ctx.unknown_loc(),
            attrs: empty,
            props: None,
            operands,
            result_types: tys,
            successors: &[],
            regions: vec![],
            nested: None,
        }
    }

    #[test]
    fn insertion_order_and_rauw() {
        let mut ctx = Context::new();
        let i32t = ctx.int_type(32);
        let mut body = Body::default();
        let region = body.new_top_region();
        let block = body.append_block(region);
        let a = body.create_op(spec(&mut ctx, &[], &[i32t]));
        body.append_op(block, a);
        let va = body.results(a).next().unwrap();
        let c = body.create_op(spec(&mut ctx, &[va, va], &[i32t]));
        body.append_op(block, c);
        // Insert many ops between a and c to force renumbering.
        let mut inserted = Vec::new();
        for _ in 0..40 {
            let b = body.create_op(spec(&mut ctx, &[], &[i32t]));
            body.insert_op(b, InsertPoint::Before(c));
            inserted.push(b);
        }
        let order: Vec<OpId> = body.block_ops(block).collect();
        assert_eq!(order.len(), 42);
        assert_eq!(order[0], a);
        assert_eq!(*order.last().unwrap(), c);
        for w in order.windows(2) {
            assert!(body.is_before_in_block(w[0], w[1]));
        }
        // Many more at the front and before the last op: the order stays right
        // through pushes and renumberings.
        for i in 0..200 {
            let b = body.create_op(spec(&mut ctx, &[], &[i32t]));
            let first = body.first_op(block).unwrap();
            body.insert_op(b, InsertPoint::Before(if i % 2 == 0 { first } else { c }));
        }
        let order: Vec<OpId> = body.block_ops(block).collect();
        assert_eq!(order.len(), 242);
        for w in order.windows(2) {
            assert!(body.is_before_in_block(w[0], w[1]));
            assert!(!body.is_before_in_block(w[1], w[0]));
        }
        for _ in 0..200 {
            let b = body.create_op(spec(&mut ctx, &[], &[i32t]));
            body.insert_op(b, InsertPoint::Before(c));
        }
        let order: Vec<OpId> = body.block_ops(block).collect();
        assert_eq!(order.len(), 442);
        for w in order.windows(2) {
            assert!(body.is_before_in_block(w[0], w[1]));
        }
        assert_eq!(body.value_users(va).count(), 2);
        let vb = body.results(inserted[0]).next().unwrap();
        body.replace_all_uses(va, vb);
        assert!(!body.has_uses(va));
        assert_eq!(body.operands(c).collect::<Vec<_>>(), vec![vb, vb]);
        body.erase_op(c);
        assert!(!body.has_uses(vb));
        assert_eq!(body.block_ops(block).count(), 441);
    }
}
