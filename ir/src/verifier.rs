//! The verifier. It checks, for every op reachable from the root:
//!
//! 1. the op is registered, unless the context allows unregistered ops; a registered
//!    op's properties are among its declared inherent attributes;
//! 2. every operand is a defined value (no dangling forward reference or erased definer);
//! 3. every operand is defined in a region enclosing the use and, in SSA regions,
//!    properly dominates it (graph regions, the regions of unregistered ops, and
//!    unreachable blocks are exempt from the order, as in MLIR);
//! 4. an op with successors is a terminator (when registered) and the last op of its
//!    block, and its successors are blocks
//!    of the same region; for branch ops, the operands passed to each successor match
//!    its block arguments in number and type;
//! 5. in the regions of registered ops that need terminators, every block is non-empty
//!    and ends with a terminator; a registered terminator is last in its block;
//! 6. the entry block of a region has no predecessors; single-block and graph regions
//!    have at most one block;
//! 7. an isolated-from-above op keeps its regions in its own body (so nothing inside
//!    can see values from outside);
//! 8. symbol names are unique in symbol tables;
//! 9. the op's own verifier hook, if it has one;
//! 10. no result or block argument has more than [`MAX_RANK`] dimensions.
//!
//! Errors point at the op's location and carry notes (where the operand is defined,
//! where a symbol was first defined). Messages are MLIR's: those MLIR emits with
//! `emitOpError` start with `'<op name>' op `, the others do not.

use std::collections::HashMap;

use crate::attrs::AttrData;
use crate::context::Context;
use crate::diag::{DiagLoc, Diagnostic};
use crate::dominance::DomTree;
use crate::ir::{BlockId, Body, BodyId, Ir, OpId, RegionId, ValueDef};
use crate::registry::OpTraits;
use crate::types::TypeId;

/// The most dimensions a value may have (NumPy's limit). The lowerings nest a loop,
/// and recurse, once per dimension: a value of 20,000 dimensions would overflow the
/// stack in `bufferize` rather than be refused.
pub const MAX_RANK: usize = 64;

/// Verifies the whole IR. Returns every error found.
pub fn verify(ctx: &Context, ir: &Ir) -> Result<(), Vec<Diagnostic>> {
    verify_op(ctx, ir, ir.root_body, ir.root)
}

/// Verifies the whole IR using up to `threads` threads: the isolated ops directly
/// inside the root (a module's functions) are verified in parallel, as MLIR's verifier
/// does. The result is the same as [`verify`]'s, errors in the same order: when the
/// parallel run finds any, the serial one reports them.
pub fn verify_parallel(ctx: &Context, ir: &Ir, threads: usize) -> Result<(), Vec<Diagnostic>> {
    verify_op_parallel(ctx, ir, ir.root_body, ir.root, threads)
}

/// [`verify_op`] using up to `threads` threads, as [`verify_parallel`] does.
pub fn verify_op_parallel(
    ctx: &Context,
    ir: &Ir,
    body: BodyId,
    op: OpId,
    threads: usize,
) -> Result<(), Vec<Diagnostic>> {
    crate::symbols::with_cache(|| verify_op_parallel_cached(ctx, ir, body, op, threads))
}

/// [`verify_op_parallel`] with symbol lookups cached on this thread.
fn verify_op_parallel_cached(
    ctx: &Context,
    ir: &Ir,
    body: BodyId,
    op: OpId,
    threads: usize,
) -> Result<(), Vec<Diagnostic>> {
    /// Below this many isolated ops, threads cost more than they save.
    const MIN_PARALLEL_OPS: usize = 64;
    let mut root = Verifier::new(ctx, ir);
    root.deferred = Some(Vec::new());
    root.verify_op(body, op);
    let deferred = root.deferred.take().unwrap_or_default();
    if threads <= 1 || deferred.len() < MIN_PARALLEL_OPS {
        for (body, op) in deferred {
            root.verify_op(body, op);
        }
        return root.finish();
    }
    let per = deferred.len().div_ceil(threads);
    let clean = root.diags.is_empty()
        && std::thread::scope(|scope| {
            let workers: Vec<_> = deferred
                .chunks(per)
                .map(|chunk| {
                    scope.spawn(move || {
                        crate::symbols::with_cache(|| {
                            let mut v = Verifier::new(ctx, ir);
                            for &(body, op) in chunk {
                                v.verify_op(body, op);
                            }
                            v.diags.is_empty()
                        })
                    })
                })
                .collect();
            // A panicking worker counts as a failure; the serial run then reports.
            workers.into_iter().all(|w| w.join().unwrap_or(false))
        });
    if clean {
        Ok(())
    } else {
        verify_op(ctx, ir, body, op)
    }
}

/// Verifies the op `op` of `body` and everything nested in it (what a pass running on
/// that op may have changed).
pub fn verify_op(ctx: &Context, ir: &Ir, body: BodyId, op: OpId) -> Result<(), Vec<Diagnostic>> {
    crate::symbols::with_cache(|| {
        let mut v = Verifier::new(ctx, ir);
        v.verify_op(body, op);
        v.finish()
    })
}

struct Verifier<'a> {
    ctx: &'a Context,
    ir: &'a Ir,
    diags: Vec<Diagnostic>,
    doms: HashMap<(BodyId, RegionId), DomTree>,
    /// When set, isolated ops met in the regions being verified are collected here
    /// instead of being verified (for [`verify_parallel`]).
    deferred: Option<Vec<(BodyId, OpId)>>,
}

impl<'a> Verifier<'a> {
    fn new(ctx: &'a Context, ir: &'a Ir) -> Verifier<'a> {
        Verifier {
            ctx,
            ir,
            diags: Vec::new(),
            doms: HashMap::new(),
            deferred: None,
        }
    }

    fn finish(self) -> Result<(), Vec<Diagnostic>> {
        if self.diags.is_empty() {
            Ok(())
        } else {
            Err(self.diags)
        }
    }

    fn error(&mut self, body: BodyId, op: OpId, message: impl Into<String>) -> &mut Diagnostic {
        let loc = self.ir.body(body).op(op).loc;
        self.diags
            .push(Diagnostic::error(DiagLoc::Loc(loc), message));
        self.diags.last_mut().expect("just pushed")
    }

    fn op_name(&self, body: BodyId, op: OpId) -> &'a str {
        self.ctx.op_name_str(self.ir.body(body).op(op).name)
    }

    fn traits(&self, body: BodyId, op: OpId) -> Option<OpTraits> {
        self.ctx
            .op_def(self.ir.body(body).op(op).name)
            .map(|d| d.traits)
    }

    fn verify_op(&mut self, body: BodyId, op: OpId) {
        let ir = self.ir;
        let b = ir.body(body);
        let name = self.op_name(body, op);
        let def = self.ctx.op_def(b.op(op).name).cloned();
        if def.is_none() && !self.ctx.allow_unregistered {
            let dialect = name.split_once('.').map_or(name, |d| d.0);
            let message = if self.ctx.is_dialect_registered(dialect) {
                format!(
                    "unregistered operation '{name}' found in dialect ('{dialect}') that does not allow unknown operations"
                )
            } else {
                format!(
                    "'{name}' op created with unregistered dialect; use --allow-unregistered-dialect to keep it opaque"
                )
            };
            self.error(body, op, message);
        }
        let result_types: Vec<TypeId> = b.results(op).map(|v| b.value_type(v)).collect();
        self.check_rank(body, op, &result_types, "a result");
        for (i, v) in b.operands(op).enumerate() {
            if matches!(b.value(v).def, ValueDef::Detached) {
                self.error(
                    body,
                    op,
                    format!("operand #{i} does not reference a valid value"),
                );
            }
        }
        if b.successors(op).len() > 0 {
            if def.as_ref().is_some_and(|d| !d.traits.terminator) {
                self.error(body, op, "only terminators may have successors");
            }
            let block = b.op_block(op);
            if block.is_some_and(|bl| b.last_op(bl) != Some(op)) {
                self.error(
                    body,
                    op,
                    "operation with block successors must terminate its parent block",
                );
            }
            let region = block.map(|bl| b.block_region(bl));
            for s in b.successors(op) {
                if Some(b.block_region(s)) != region {
                    self.error(
                        body,
                        op,
                        format!("'{name}' op branching to block of a different region"),
                    );
                }
            }
        }
        if let (Some(d), Some(props)) = (&def, b.op(op).props) {
            let unknown = self
                .ctx
                .dict_entries(props)
                .iter()
                .find(|(k, _)| !d.inherent_attrs.iter().any(|n| n == self.ctx.str(*k)));
            if let Some((k, _)) = unknown {
                let k = self.ctx.str(*k).to_string();
                self.error(body, op, format!("'{k}' is not a property of '{name}'"));
            }
        }
        if let Some(hook) = def.as_ref().and_then(|d| d.successor_operands.clone()) {
            self.verify_successor_operands(body, op, &hook);
        }
        let traits = def.as_ref().map(|d| d.traits).unwrap_or_default();
        if traits.terminator
            && let Some(bl) = b.op_block(op)
            && b.last_op(bl) != Some(op)
        {
            self.error(
                body,
                op,
                format!("'{name}' op must be the last operation in the parent block"),
            );
        }
        let region_body = ir.region_body(body, op);
        let regions = ir.op(body, op).regions().to_vec();
        if def.is_some()
            && traits.isolated_from_above != b.nested_body(op).is_some()
            && !regions.is_empty()
        {
            self.error(
                body,
                op,
                "isolated-from-above op must own a separate body for its regions",
            );
        }
        for (index, region) in regions.into_iter().enumerate() {
            self.verify_region(
                body,
                op,
                region_body,
                (index, region),
                def.is_some(),
                traits,
            );
        }
        if traits.symbol_table {
            self.verify_symbol_table(body, op, region_body);
        }
        if let Some(hook) = def.as_ref().and_then(|d| d.verify.as_ref()) {
            let found = hook(ir.op(body, op), self.ctx);
            self.diags.extend(found);
        }
    }

    /// An error at `op` when one of `types` (of its results or its blocks'
    /// arguments, `what`) has more than [`MAX_RANK`] dimensions.
    fn check_rank(&mut self, body: BodyId, op: OpId, types: &[TypeId], what: &str) {
        let deepest = types
            .iter()
            .filter_map(|t| self.ctx.type_data(*t).shape().map(<[i64]>::len))
            .max();
        if let Some(rank) = deepest.filter(|r| *r > MAX_RANK) {
            self.error(
                body,
                op,
                format!(
                    "{what} of {rank} dimensions: acc takes at most {MAX_RANK} (its lowerings nest a loop per dimension)"
                ),
            );
        }
    }

    fn verify_successor_operands(
        &mut self,
        body: BodyId,
        op: OpId,
        hook: &crate::registry::SuccessorOperandsHook,
    ) {
        let b = self.ir.body(body);
        let operands: Vec<_> = b.operands(op).collect();
        for (i, succ) in b.successors(op).enumerate() {
            let Some(range) = hook(self.ir.op(body, op), self.ctx, i) else {
                continue;
            };
            let Some(passed) = operands.get(range) else {
                continue;
            };
            let args = b.block_args(succ);
            if passed.len() != args.len() {
                self.error(
                    body,
                    op,
                    format!(
                        "branch has {} operands for successor #{i}, but target block has {}",
                        passed.len(),
                        args.len()
                    ),
                );
                continue;
            }
            for (j, (&v, &a)) in passed.iter().zip(args).enumerate() {
                let (vt, at) = (b.value_type(v), b.value_type(a));
                if vt != at {
                    let (vs, ats) = (
                        crate::printer::type_to_string(self.ctx, vt),
                        crate::printer::type_to_string(self.ctx, at),
                    );
                    self.error(body, op, format!(
                        "type mismatch for bb argument #{j} of successor #{i}: operand has type {vs}, block argument has type {ats}"
                    ));
                }
            }
        }
    }

    fn verify_region(
        &mut self,
        obody: BodyId,
        op: OpId,
        body: BodyId,
        (index, region): (usize, RegionId),
        registered: bool,
        traits: OpTraits,
    ) {
        let b = self.ir.body(body);
        let blocks: Vec<BlockId> = b.region_blocks(region).collect();
        if let Some(&entry) = blocks.first()
            && !b.block_predecessors(entry).is_empty()
        {
            self.error(obody, op, "entry block of region may not have predecessors");
        }
        if (traits.single_block || traits.graph_region) && blocks.len() > 1 {
            // MLIR's single-block trait is checked before the graph region rule.
            let kind = if traits.single_block { "" } else { "graph " };
            let name = self.op_name(obody, op);
            self.error(
                obody,
                op,
                format!("'{name}' op expects {kind}region #{index} to have 0 or 1 blocks"),
            );
        }
        let needs_terminator = registered && !traits.no_terminator;
        let ssa = registered && !traits.graph_region;
        if ssa && blocks.len() > 1 {
            self.doms
                .entry((body, region))
                .or_insert_with(|| DomTree::compute(b, region));
        }
        for &block in &blocks {
            let arg_types: Vec<TypeId> = b
                .block_args(block)
                .iter()
                .map(|v| b.value_type(*v))
                .collect();
            self.check_rank(obody, op, &arg_types, "a block argument");
            if needs_terminator {
                match b.last_op(block) {
                    None => {
                        self.error(obody, op, "empty block: expect at least a terminator");
                    }
                    Some(last) => {
                        let is_term = self
                            .traits(body, last)
                            .map(|t| t.terminator)
                            .unwrap_or(true);
                        if !is_term {
                            let name = self.op_name(body, last);
                            self.error(
                                body,
                                last,
                                format!(
                                    "block with no terminator, has '{name}' as its last operation"
                                ),
                            );
                        }
                    }
                }
            }
            let reachable = self
                .doms
                .get(&(body, region))
                .is_none_or(|d| d.is_reachable(block));
            for o in b.block_ops(block) {
                if reachable {
                    self.verify_dominance(body, o);
                }
                if let Some(deferred) = &mut self.deferred
                    && b.nested_body(o).is_some()
                {
                    deferred.push((body, o));
                    continue;
                }
                self.verify_op(body, o);
            }
        }
    }

    /// Finds the op that is `user` or contains it and sits directly in `region`.
    fn ancestor_in_region(b: &Body, mut user: OpId, region: RegionId) -> Option<OpId> {
        loop {
            let block = b.op_block(user)?;
            let r = b.block_region(block);
            if r == region {
                return Some(user);
            }
            user = b.region_parent(r)?;
        }
    }

    fn region_is_graph(&self, body: BodyId, region: RegionId) -> bool {
        let b = self.ir.body(body);
        let parent = b.region_parent(region).map(|p| (body, p)).or(b.owner());
        match parent {
            Some((pb, p)) => self.traits(pb, p).is_none_or(|t| t.graph_region),
            None => true,
        }
    }

    fn verify_dominance(&mut self, body: BodyId, user: OpId) {
        let b = self.ir.body(body);
        for (i, v) in b.operands(user).enumerate() {
            let (def_block, def_op) = match b.value(v).def {
                ValueDef::Result(d, _) => match b.op_block(d) {
                    Some(bl) => (bl, Some(d)),
                    None => continue,
                },
                ValueDef::BlockArg(bl, _) => (bl, None),
                ValueDef::Detached => continue,
            };
            let region = b.block_region(def_block);
            // A value is only visible inside the region that defines it; only then do
            // graph regions waive the order.
            let ok = match Self::ancestor_in_region(b, user, region) {
                None => false,
                Some(_) if self.region_is_graph(body, region) => true,
                Some(anc) => {
                    let anc_block = b.op_block(anc).expect("placed");
                    match def_op {
                        Some(d) if anc_block == def_block => {
                            d != anc && b.is_before_in_block(d, anc)
                        }
                        _ => {
                            let dom = self
                                .doms
                                .entry((body, region))
                                .or_insert_with(|| DomTree::compute(b, region));
                            if def_op.is_some() {
                                def_block != anc_block && dom.dominates(def_block, anc_block)
                            } else {
                                dom.dominates(def_block, anc_block)
                            }
                        }
                    }
                }
            };
            if !ok {
                let note_loc = match def_op {
                    Some(d) => DiagLoc::Loc(b.op(d).loc),
                    None => DiagLoc::Unknown,
                };
                let d = self.error(
                    body,
                    user,
                    format!("operand #{i} does not dominate this use"),
                );
                d.notes.push(Diagnostic::new(
                    crate::diag::Severity::Note,
                    note_loc,
                    "operand defined here",
                ));
            }
        }
    }

    fn verify_symbol_table(&mut self, obody: BodyId, op: OpId, body: BodyId) {
        let b = self.ir.body(body);
        let mut seen: HashMap<&str, OpId> = HashMap::new();
        let regions = self.ir.op(obody, op).regions().to_vec();
        for region in regions {
            for block in b.region_blocks(region) {
                for o in b.block_ops(block) {
                    let r = self.ir.op(body, o);
                    let Some(name_attr) = r.attr(self.ctx, "sym_name") else {
                        continue;
                    };
                    let AttrData::String { value, .. } = self.ctx.attr_data(name_attr) else {
                        continue;
                    };
                    let name = self.ctx.str(*value);
                    if let Some(&first) = seen.get(name) {
                        let first_loc = b.op(first).loc;
                        let d =
                            self.error(body, o, format!("redefinition of symbol named '{name}'"));
                        d.notes.push(Diagnostic::new(
                            crate::diag::Severity::Note,
                            DiagLoc::Loc(first_loc),
                            "see existing symbol definition here",
                        ));
                    } else {
                        seen.insert(name, o);
                    }
                }
            }
        }
    }
}
