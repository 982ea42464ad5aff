//! Block dominance within one region (Cooper, Harvey and Kennedy's iterative algorithm).
//!
//! Invariant: a [`DomTree`] describes the region as it was when computed; recompute
//! after changing the control flow. Unreachable blocks have no immediate dominator and
//! are reported by [`DomTree::is_reachable`].

use std::collections::HashMap;

use crate::entity::EntityId;
use crate::ir::{BlockId, Body, RegionId};

/// Immediate dominators of the blocks of one region.
pub struct DomTree {
    /// Position of each reachable block in reverse post-order.
    rpo_index: HashMap<BlockId, usize>,
    /// Immediate dominator by RPO index (the entry is its own).
    idom: Vec<usize>,
    /// The reachable blocks in reverse post-order.
    rpo: Vec<BlockId>,
    /// The children of each block in the tree, by RPO index (each in RPO order).
    children: Vec<Vec<usize>>,
    /// When a depth-first walk of the tree enters and leaves each block, by RPO index:
    /// `a` dominates `b` exactly when `a`'s interval holds `b`'s.
    enter: Vec<u32>,
    exit: Vec<u32>,
}

/// The successors of `block`: the successors of its ops (only its terminator has any in
/// verified IR).
pub fn block_successors(body: &Body, block: BlockId) -> Vec<BlockId> {
    body.block_ops(block)
        .flat_map(|op| body.successors(op).collect::<Vec<_>>())
        .collect()
}

impl DomTree {
    /// The reachable blocks in reverse post-order: every block after its dominators.
    pub fn reverse_post_order(&self) -> &[BlockId] {
        &self.rpo
    }

    /// The immediate dominator of a reachable block (`None` for the entry block).
    pub fn idom(&self, block: BlockId) -> Option<BlockId> {
        let i = *self.rpo_index.get(&block)?;
        if i == 0 {
            return None;
        }
        self.rpo.get(self.idom[i]).copied()
    }

    /// Computes the dominator tree of `region`.
    pub fn compute(body: &Body, region: RegionId) -> DomTree {
        let mut rpo = Vec::new();
        if let Some(entry) = body.entry_block(region) {
            // Iterative DFS post-order.
            let mut visited = std::collections::HashSet::new();
            let mut stack = vec![(entry, 0usize)];
            visited.insert(entry);
            let mut succ_cache: HashMap<BlockId, Vec<BlockId>> = HashMap::new();
            while let Some((b, i)) = stack.pop() {
                let succs = succ_cache
                    .entry(b)
                    .or_insert_with(|| block_successors(body, b))
                    .clone();
                if i < succs.len() {
                    stack.push((b, i + 1));
                    let s = succs[i];
                    if body.block_region(s) == region && visited.insert(s) {
                        stack.push((s, 0));
                    }
                } else {
                    rpo.push(b);
                }
            }
            rpo.reverse();
        }
        let rpo_index: HashMap<BlockId, usize> =
            rpo.iter().enumerate().map(|(i, b)| (*b, i)).collect();
        let preds: Vec<Vec<usize>> = rpo
            .iter()
            .map(|&b| {
                body.block_predecessors(b)
                    .into_iter()
                    .filter_map(|op| body.op_block(op))
                    .filter_map(|pb| rpo_index.get(&pb).copied())
                    .collect()
            })
            .collect();
        const UNDEF: usize = usize::MAX;
        let mut idom = vec![UNDEF; rpo.len()];
        if !rpo.is_empty() {
            idom[0] = 0;
        }
        let mut changed = true;
        while changed {
            changed = false;
            for i in 1..rpo.len() {
                let mut new_idom = UNDEF;
                for &p in &preds[i] {
                    if idom[p] == UNDEF {
                        continue;
                    }
                    new_idom = if new_idom == UNDEF {
                        p
                    } else {
                        intersect(&idom, p, new_idom)
                    };
                }
                if new_idom != UNDEF && idom[i] != new_idom {
                    idom[i] = new_idom;
                    changed = true;
                }
            }
        }
        let mut children = vec![Vec::new(); rpo.len()];
        for (i, &d) in idom.iter().enumerate().skip(1) {
            if d != UNDEF {
                children[d].push(i);
            }
        }
        let (enter, exit) = walk_numbers(&children);
        DomTree {
            rpo_index,
            idom,
            rpo,
            children,
            enter,
            exit,
        }
    }

    /// The blocks `block` immediately dominates, in reverse post-order (none for an
    /// unreachable block).
    pub fn children(&self, block: BlockId) -> impl Iterator<Item = BlockId> + '_ {
        let kids = match self.rpo_index.get(&block) {
            Some(&i) => self.children[i].as_slice(),
            None => &[],
        };
        kids.iter().map(|&c| self.rpo[c])
    }

    /// True when `block` is reachable from the entry.
    pub fn is_reachable(&self, block: BlockId) -> bool {
        self.rpo_index.contains_key(&block)
    }

    /// True when `a` dominates `b` (reflexive). Unreachable `b` is dominated by anything.
    pub fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        if a == b {
            return true;
        }
        let (Some(&ia), Some(&ib)) = (self.rpo_index.get(&a), self.rpo_index.get(&b)) else {
            return !self.rpo_index.contains_key(&b);
        };
        self.enter[ia] <= self.enter[ib] && self.exit[ib] <= self.exit[ia]
    }
}

/// The entry and exit numbers of a depth-first walk of the tree given by `children`
/// (rooted at index 0), without recursion: a chain of blocks as deep as the input
/// makes it must not overflow the stack.
fn walk_numbers(children: &[Vec<usize>]) -> (Vec<u32>, Vec<u32>) {
    let n = children.len();
    let (mut enter, mut exit) = (vec![0u32; n], vec![0u32; n]);
    if n == 0 {
        return (enter, exit);
    }
    let mut clock = 0u32;
    let mut stack = vec![(0usize, 0usize)];
    enter[0] = clock;
    while let Some(&mut (node, ref mut next)) = stack.last_mut() {
        if let Some(&child) = children[node].get(*next) {
            *next += 1;
            clock += 1;
            enter[child] = clock;
            stack.push((child, 0));
        } else {
            clock += 1;
            exit[node] = clock;
            stack.pop();
        }
    }
    (enter, exit)
}

fn intersect(idom: &[usize], mut a: usize, mut b: usize) -> usize {
    while a != b {
        while a > b {
            a = idom[a];
        }
        while b > a {
            b = idom[b];
        }
    }
    a
}

impl std::fmt::Debug for DomTree {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut v: Vec<_> = self
            .rpo_index
            .iter()
            .map(|(b, i)| (b.index(), self.idom[*i]))
            .collect();
        v.sort();
        f.debug_list().entries(v).finish()
    }
}
