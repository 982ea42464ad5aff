//! The greedy driver (MLIR's `applyPatternsGreedily`): visits the ops of some regions
//! from a worklist and, for each, erases it when it is dead, folds it, or applies the
//! first pattern (highest benefit first) that rewrites it. Every change puts the ops it
//! touches back on the worklist; sweeps repeat until one changes nothing (convergence)
//! or a limit is reached.
//!
//! Constants that folding makes, and constant ops it meets, are hoisted to the start of
//! the entry block of the first region and deduplicated, as MLIR's `OperationFolder`
//! does, so equal constants are one op.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::{RewriteListener, RewritePattern, Rewriter, attr_type, constant_value};
use crate::attrs::AttrId;
use crate::context::Context;
use crate::entity::EntityId;
use crate::ir::{BlockId, BodyId, Ir, OpId, RegionId, ValueId};
use crate::layout::InsertPoint;
use crate::registry::{FoldResult, OpName};
use crate::types::TypeId;

/// Limits and switches of a greedy run.
#[derive(Clone, Debug)]
pub struct GreedyConfig {
    /// Sweeps over the regions before giving up (MLIR's default is 10).
    pub max_iterations: u32,
    /// Rewrites (pattern applications and folds) before giving up.
    pub max_rewrites: Option<u64>,
    /// Fold ops with their folders.
    pub fold: bool,
    /// Apply patterns: the `extra` ones given to [`apply_greedily`], and the
    /// context's when `context_patterns` is also set.
    pub use_patterns: bool,
    /// Apply the patterns registered in the context (from Rust and dialect files).
    pub context_patterns: bool,
}

impl GreedyConfig {
    /// Only erase dead ops: no folds, no patterns (the `dce` pass, and passes that
    /// clean up after themselves).
    pub fn dead_code_only() -> GreedyConfig {
        GreedyConfig {
            fold: false,
            use_patterns: false,
            ..GreedyConfig::default()
        }
    }
}

impl Default for GreedyConfig {
    fn default() -> Self {
        GreedyConfig {
            max_iterations: 10,
            max_rewrites: None,
            fold: true,
            use_patterns: true,
            context_patterns: true,
        }
    }
}

/// What a greedy run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GreedyReport {
    /// Sweeps made.
    pub iterations: u32,
    /// Patterns applied.
    pub rewrites: u64,
    /// Ops folded.
    pub folds: u64,
    /// Dead ops erased.
    pub erased: u64,
    /// True when the last sweep changed nothing.
    pub converged: bool,
    /// Set when a sweep was cut short because rewriting never stopped (a pattern that
    /// rebuilds what it matched, or two that undo each other): the name of the last
    /// pattern applied. The IR is valid, but not at a fixed point.
    pub runaway: Option<String>,
}

/// Visits one sweep may make per op it starts with (plus a constant), before it is
/// taken for a runaway: far more than any terminating set of patterns needs.
const VISITS_PER_OP: usize = 32;
const EXTRA_VISITS: usize = 1024;

/// The worklist, fed by the rewriter's notifications.
#[derive(Default)]
struct Worklist {
    stack: Vec<OpId>,
    queued: Vec<bool>,
    changed: bool,
}

impl Worklist {
    fn push(&mut self, op: OpId) {
        let i = op.index();
        if i >= self.queued.len() {
            self.queued.resize(i + 1, false);
        }
        if !self.queued[i] {
            self.queued[i] = true;
            self.stack.push(op);
        }
    }
    fn pop(&mut self) -> Option<OpId> {
        let op = self.stack.pop()?;
        self.queued[op.index()] = false;
        Some(op)
    }
}

impl RewriteListener for Worklist {
    fn op_created(&mut self, op: OpId) {
        self.changed = true;
        self.push(op);
    }
    fn op_modified(&mut self, op: OpId) {
        self.changed = true;
        self.push(op);
    }
    fn op_erased(&mut self, op: OpId) {
        self.changed = true;
        if let Some(q) = self.queued.get_mut(op.index()) {
            *q = false;
        }
    }
}

/// Applies folding, dead-op erasure and the context's patterns (plus `extra`) to the
/// ops of `regions` of `body` (nested regions of the same body included).
pub fn apply_greedily(
    ctx: &Context,
    ir: &mut Ir,
    body: BodyId,
    regions: &[RegionId],
    extra: &[Arc<dyn RewritePattern>],
    config: &GreedyConfig,
) -> GreedyReport {
    let mut driver = Driver {
        ctx,
        body,
        config,
        extra,
        report: GreedyReport::default(),
        constants: FxHashMap::default(),
        hoist_block: regions.first().and_then(|r| ir.body(body).entry_block(*r)),
        last_constant: None,
        constant_ops: FxHashMap::default(),
        last_pattern: None,
    };
    let mut list = Worklist::default();
    while driver.report.iterations < config.max_iterations {
        driver.report.iterations += 1;
        let mut order = Vec::new();
        for &r in regions {
            super::collect_ops(ir, body, r, &mut order);
        }
        for &op in order.iter().rev() {
            list.push(op);
        }
        list.changed = false;
        let mut visits_left = order.len() * VISITS_PER_OP + EXTRA_VISITS;
        while let Some(op) = list.pop() {
            if ir.body(body).is_erased(op) {
                continue;
            }
            if visits_left == 0 {
                driver.report.runaway = Some(
                    driver
                        .last_pattern
                        .clone()
                        .unwrap_or_else(|| "folding".into()),
                );
                return driver.report;
            }
            visits_left -= 1;
            if config
                .max_rewrites
                .is_some_and(|m| driver.report.rewrites + driver.report.folds >= m)
            {
                return driver.report;
            }
            driver.visit(ir, op, &mut list);
        }
        if !list.changed {
            driver.report.converged = true;
            break;
        }
    }
    driver.report
}

struct Driver<'c> {
    ctx: &'c Context,
    body: BodyId,
    config: &'c GreedyConfig,
    extra: &'c [Arc<dyn RewritePattern>],
    report: GreedyReport,
    /// Hoisted constants: (constant op name, value, type) to the value.
    constants: FxHashMap<(OpName, AttrId, TypeId), ValueId>,
    /// Where constants are hoisted.
    hoist_block: Option<BlockId>,
    /// The last constant hoisted (the next one goes after it).
    last_constant: Option<OpId>,
    /// The constant op of each dialect, by dialect name.
    constant_ops: FxHashMap<String, Option<OpName>>,
    /// The name of the last pattern applied (for [`GreedyReport::runaway`]).
    last_pattern: Option<String>,
}

impl<'c> Driver<'c> {
    fn visit(&mut self, ir: &mut Ir, op: OpId, list: &mut Worklist) {
        let ctx = self.ctx;
        let name = ir.body(self.body).op(op).name;
        let def = ctx.op_def(name).cloned();
        let traits = def.as_ref().map(|d| d.traits).unwrap_or_default();
        if traits.pure && !traits.terminator && self.is_dead(ir, op) {
            let mut rw = self.rewriter(ir, op, list);
            rw.erase_op(op);
            self.report.erased += 1;
            return;
        }
        if traits.constant_like {
            if self.config.fold {
                self.hoist_constant(ir, op, list);
            }
            return;
        }
        if self.config.fold
            && let Some(fold) = def.as_ref().and_then(|d| d.fold.clone())
            && self.try_fold(ir, op, &fold, list)
        {
            self.report.folds += 1;
            return;
        }
        if self.config.fold && traits.commutative && self.move_constants_right(ir, op, list) {
            self.report.folds += 1;
            return;
        }
        if !self.config.use_patterns {
            return;
        }
        let (by_root, any_op) = if self.config.context_patterns {
            (ctx.patterns_for(name), ctx.patterns_for_any_op())
        } else {
            (&[][..], &[][..])
        };
        let mut candidates: Vec<&Arc<dyn RewritePattern>> = by_root
            .iter()
            .chain(any_op)
            .chain(
                self.extra
                    .iter()
                    .filter(|p| p.root().is_none_or(|r| ctx.lookup_op_name(r) == Some(name))),
            )
            .collect();
        candidates.sort_by_key(|p| std::cmp::Reverse(p.benefit()));
        for p in candidates {
            let mut rw = self.rewriter(ir, op, list);
            if p.match_and_rewrite(op, &mut rw) {
                self.report.rewrites += 1;
                if self.last_pattern.as_deref() != Some(p.name()) {
                    self.last_pattern = Some(p.name().to_string());
                }
                return;
            }
        }
    }

    fn rewriter<'r>(&self, ir: &'r mut Ir, op: OpId, list: &'r mut Worklist) -> Rewriter<'r>
    where
        'c: 'r,
    {
        let loc = ir.op(self.body, op).loc();
        Rewriter::listening(self.ctx, ir, self.body, InsertPoint::Before(op), loc, list)
    }

    fn is_dead(&self, ir: &Ir, op: OpId) -> bool {
        let b = ir.body(self.body);
        b.results(op).all(|r| !b.has_uses(r))
    }

    /// Deduplicates a constant op and moves it to the hoisting point.
    fn hoist_constant(&mut self, ir: &mut Ir, op: OpId, list: &mut Worklist) {
        let Some(block) = self.hoist_block else {
            return;
        };
        let b = ir.body(self.body);
        let (Some(value), Some(result)) = (
            ir.op(self.body, op)
                .attr_sym(self.ctx, self.ctx.value_sym()),
            b.results(op).next(),
        ) else {
            return;
        };
        let key = (b.op(op).name, value, b.value_type(result));
        match self.live_constant(ir, key) {
            Some(existing) if existing != result => {
                let mut rw = self.rewriter(ir, op, list);
                rw.replace_op(op, &[existing]);
            }
            Some(_) => {}
            None => {
                self.constants.insert(key, result);
                self.place_constant(ir, op, block);
            }
        }
    }

    /// The hoisted constant for `key`, if it is still there (a constant that became
    /// dead was erased: its entry is dropped).
    fn live_constant(&mut self, ir: &Ir, key: (OpName, AttrId, TypeId)) -> Option<ValueId> {
        let v = *self.constants.get(&key)?;
        let live = match ir.body(self.body).value(v).def {
            crate::ir::ValueDef::Result(op, _) => !ir.body(self.body).is_erased(op),
            _ => false,
        };
        if !live {
            self.constants.remove(&key);
        }
        live.then_some(v)
    }

    /// Moves a constant op right after the previously hoisted one (or to the start of
    /// the hoisting block).
    fn place_constant(&mut self, ir: &mut Ir, op: OpId, block: BlockId) {
        let body = ir.body_mut(self.body);
        // The previous constant may have been erased since (it became dead).
        if let Some(c) = self.last_constant
            && (body.is_erased(c) || body.op_block(c) != Some(block))
        {
            self.last_constant = None;
        }
        let target = match self.last_constant.and_then(|c| body.next_op(c)) {
            Some(next) => next,
            None => match self.last_constant {
                Some(_) => {
                    // The last constant ends its block: append.
                    if body.op_block(op).is_some() {
                        body.unlink_op(op);
                    }
                    body.insert_op(op, InsertPoint::End(block));
                    self.last_constant = Some(op);
                    return;
                }
                None => match body.first_op(block) {
                    Some(first) => first,
                    None => return,
                },
            },
        };
        if target != op {
            body.move_op_before(op, target);
        }
        self.last_constant = Some(op);
    }

    /// The constant op of the dialect of `name` (falling back to `arith.constant`).
    fn constant_op(&mut self, name: OpName) -> Option<OpName> {
        let ctx = self.ctx;
        let full = ctx.op_name_str(name);
        let dialect = full.split_once('.').map_or(full, |(d, _)| d).to_string();
        *self.constant_ops.entry(dialect.clone()).or_insert_with(|| {
            ctx.registered_ops()
                .find(|d| d.traits.constant_like && d.dialect() == dialect)
                .and_then(|d| ctx.lookup_op_name(&d.name))
                .or_else(|| ctx.lookup_op_name("arith.constant"))
        })
    }

    /// A constant of `value` with type `ty`, hoisted and shared.
    fn materialize(
        &mut self,
        ir: &mut Ir,
        folded: OpId,
        value: AttrId,
        ty: TypeId,
        list: &mut Worklist,
    ) -> Option<ValueId> {
        let name = self.constant_op(ir.body(self.body).op(folded).name)?;
        if attr_type(self.ctx, value) != Some(ty) {
            return None;
        }
        if let Some(v) = self.live_constant(ir, (name, value, ty)) {
            return Some(v);
        }
        let block = self.hoist_block?;
        let loc = ir.body(self.body).op(folded).loc;
        let key = self.ctx.value_sym();
        let props = self.ctx.dict_attr(vec![(key, value)]).ok();
        let spec = crate::body::OpSpec {
            name,
            loc,
            attrs: self.ctx.empty_dict(),
            props,
            operands: &[],
            result_types: &[ty],
            successors: &[],
            regions: Vec::new(),
            nested: None,
        };
        let mut rw = self.rewriter(ir, folded, list);
        rw.set_insertion_point_to_start(block);
        let op = rw.create(spec);
        let v = rw.ir.body(self.body).results(op).next()?;
        self.constants.insert((name, value, ty), v);
        self.place_constant(ir, op, block);
        Some(v)
    }

    /// Puts the constant operands of a commutative op after the others (keeping their
    /// order), as MLIR's folding of commutative ops does, so that patterns only need
    /// to look for constants on the right. True when the operands moved.
    fn move_constants_right(&mut self, ir: &mut Ir, op: OpId, list: &mut Worklist) -> bool {
        let operands: Vec<ValueId> = ir.body(self.body).operands(op).collect();
        let is_constant: Vec<bool> = operands
            .iter()
            .map(|v| constant_value(self.ctx, ir, self.body, *v).is_some())
            .collect();
        if !is_constant.windows(2).any(|w| w[0] && !w[1]) {
            return false;
        }
        let mut moved: Vec<ValueId> = Vec::with_capacity(operands.len());
        for want_constant in [false, true] {
            moved.extend(
                operands
                    .iter()
                    .zip(&is_constant)
                    .filter(|(_, c)| **c == want_constant)
                    .map(|(v, _)| *v),
            );
        }
        let mut rw = self.rewriter(ir, op, list);
        for (i, v) in moved.into_iter().enumerate() {
            rw.set_operand(op, i, v);
        }
        true
    }

    fn try_fold(
        &mut self,
        ir: &mut Ir,
        op: OpId,
        fold: &crate::registry::FoldHook,
        list: &mut Worklist,
    ) -> bool {
        let consts: Vec<Option<AttrId>> = ir
            .body(self.body)
            .operands(op)
            .map(|v| constant_value(self.ctx, ir, self.body, v))
            .collect();
        let Some(results) = fold(ir.op(self.body, op), &consts, self.ctx) else {
            return false;
        };
        let result_values: Vec<ValueId> = ir.body(self.body).results(op).collect();
        if results.len() != result_values.len() {
            return false;
        }
        let mut replacements = Vec::with_capacity(results.len());
        for (r, old) in results.iter().zip(&result_values) {
            let v = match *r {
                FoldResult::Value(v) => v,
                FoldResult::Attr(a) => {
                    let ty = ir.body(self.body).value_type(*old);
                    match self.materialize(ir, op, a, ty, list) {
                        Some(v) => v,
                        None => return false,
                    }
                }
            };
            replacements.push(v);
        }
        let mut rw = self.rewriter(ir, op, list);
        rw.replace_op(op, &replacements);
        true
    }
}
