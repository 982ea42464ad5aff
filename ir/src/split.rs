//! Splitting an [`Ir`] so that threads can change different isolated ops at once.
//!
//! Each worker gets its own `Ir` with the same body IDs: the bodies of its ops (each
//! op's body and every body nested in it) are moved in; the bodies on the path from the
//! ops' parent to the root are copied in, so that a pass can read the op's parent
//! (symbol lookups, the enclosing function's signature) but its changes there are
//! discarded; every other body is empty. Joining moves the owned bodies back, with the
//! bodies a worker created renumbered into the main IR.
//!
//! The isolated ops' own attributes and properties (a function pass may set its
//! function's attributes, as `memory-plan` does) are copied back from the worker's copy
//! of their parent.
//!
//! Invariant kept by callers: a pass running on an isolated op changes only that op's
//! bodies and attributes, never the rest of its parent, so discarding the copies loses
//! nothing.

use crate::entity::{EntityId, PackedId, Table};
use crate::ir::{Body, BodyId, Ir, OpId};

/// One worker's share of the IR: made by [`split`], given back by [`join`].
pub struct Worker {
    /// The worker's IR.
    pub ir: Ir,
    /// The bodies it owns (moved from the main IR).
    owned: Vec<BodyId>,
    /// Number of bodies of the main IR when split (bodies from here on are new).
    base: usize,
    /// The isolated ops it runs on, ops of `parent`.
    ops: Vec<OpId>,
    parent: BodyId,
}

/// The bodies of isolated op `op` of `body`: its own and all nested ones.
fn owned_bodies(ir: &Ir, body: BodyId, op: OpId) -> Vec<BodyId> {
    let Some(first) = ir.body(body).nested_body(op) else {
        return Vec::new();
    };
    let mut out = vec![first];
    ir.walk(first, &mut |b, o| {
        if let Some(n) = ir.body(b).nested_body(o) {
            out.push(n);
        }
    });
    out
}

/// Moves the bodies of each group of isolated ops (ops of `parent`) into one worker.
pub fn split(ir: &mut Ir, parent: BodyId, groups: &[Vec<OpId>]) -> Vec<Worker> {
    let base = ir.bodies.len();
    // The path from the ops' parent up to the root body, copied into every worker.
    let mut ancestors = vec![parent];
    let mut cur = parent;
    while let Some((up, _)) = ir.body(cur).owner() {
        ancestors.push(up);
        cur = up;
    }
    groups
        .iter()
        .map(|group| {
            let mut bodies: Table<BodyId, Body> = Table::default();
            bodies.reserve(base);
            for _ in 0..base {
                bodies.push(Body::default());
            }
            for &a in &ancestors {
                bodies[a] = ir.bodies[a].clone();
            }
            let mut owned = Vec::new();
            for &op in group {
                for b in owned_bodies(ir, parent, op) {
                    bodies[b] = std::mem::take(&mut ir.bodies[b]);
                    owned.push(b);
                }
            }
            Worker {
                ir: Ir {
                    bodies,
                    dead_bodies: ir.dead_bodies.clone(),
                    root_body: ir.root_body,
                    root: ir.root,
                    external_resources: Vec::new(),
                },
                owned,
                base,
                ops: group.clone(),
                parent,
            }
        })
        .collect()
}

/// Moves the workers' bodies back into `ir`, appending the bodies they created.
pub fn join(ir: &mut Ir, workers: Vec<Worker>) {
    for mut w in workers {
        // New bodies get the next IDs of the main IR.
        let created = w.ir.bodies.len() - w.base;
        let remap = |b: BodyId, first_new: usize| -> BodyId {
            if b.index() >= w.base {
                BodyId::from_index(first_new + b.index() - w.base)
            } else {
                b
            }
        };
        let first_new = ir.bodies.len();
        let touched: Vec<BodyId> = w
            .owned
            .iter()
            .copied()
            .chain((w.base..w.base + created).map(BodyId::from_index))
            .collect();
        if created > 0 {
            for &b in &touched {
                let body = &mut w.ir.bodies[b];
                for data in body.ops.items_mut() {
                    if let Some(n) = data.nested.get() {
                        data.nested = PackedId::new(Some(remap(n, first_new)));
                    }
                }
                if let Some((owner_body, op)) = body.owner {
                    body.owner = Some((remap(owner_body, first_new), op));
                }
            }
        }
        for &op in &w.ops {
            let changed = w.ir.body(w.parent).op(op);
            let (attrs, props) = (changed.attrs, changed.props);
            let data = ir.body_mut(w.parent).op_mut(op);
            data.attrs = attrs;
            data.props = props;
        }
        for &b in &w.owned {
            ir.bodies[b] = std::mem::take(&mut w.ir.bodies[b]);
            ir.dead_bodies[b.index()] = w.ir.dead_bodies[b.index()];
        }
        for i in 0..created {
            let old = BodyId::from_index(w.base + i);
            let new = ir.new_body();
            debug_assert_eq!(new.index(), first_new + i, "bodies are appended in order");
            ir.bodies[new] = std::mem::take(&mut w.ir.bodies[old]);
            ir.dead_bodies[new.index()] = w.ir.dead_bodies[old.index()];
        }
    }
}
