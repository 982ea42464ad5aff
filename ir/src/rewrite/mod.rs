//! Rewriting IR: patterns, the rewriter they mutate the IR through, and the drivers
//! that apply them ([`greedy`] for canonicalization, [`conversion`] for lowerings).
//!
//! A [`RewritePattern`] names the op it matches (its root, or any op), a benefit
//! (higher is tried first) and a name (for reports and `--debug` output). It only
//! changes the IR through the [`Rewriter`], which tells its [`RewriteListener`] (the
//! driver's worklist) about every op created, modified, replaced or erased: that is how
//! the driver knows what to revisit. Discipline, as in Cranelift's ISLE rules: a pattern
//! rewrites toward something simpler or cheaper, never back, so that applying patterns
//! to a fixed point terminates; and it returns `true` only when it changed the IR.

pub mod conversion;
pub mod greedy;

use crate::attrs::{AttrData, AttrId};
use crate::body::OpSpec;
use crate::context::Context;
use crate::ir::{BlockId, BodyId, Ir, OpId, OpRef, RegionId, ValueDef, ValueId};
use crate::layout::InsertPoint;
use crate::registry::OpName;
use crate::types::TypeId;

/// A rewrite: matches an op (and what defines its operands) and replaces it.
pub trait RewritePattern: Send + Sync {
    /// A name, for reports.
    fn name(&self) -> &str;
    /// The op name this pattern matches, or `None` for any op.
    fn root(&self) -> Option<&str>;
    /// Patterns with a higher benefit are tried first.
    fn benefit(&self) -> u16 {
        1
    }
    /// Tries to rewrite `op` (an op of the rewriter's body); true when the IR changed.
    fn match_and_rewrite(&self, op: OpId, rewriter: &mut Rewriter<'_>) -> bool;
}

/// Told about every change a [`Rewriter`] makes.
pub trait RewriteListener {
    /// `op` was created (and placed).
    fn op_created(&mut self, _op: OpId) {}
    /// `op` changed in place (operands, attributes).
    fn op_modified(&mut self, _op: OpId) {}
    /// `op` is about to be erased.
    fn op_erased(&mut self, _op: OpId) {}
}

/// A listener that ignores everything.
pub struct NoListener;
impl RewriteListener for NoListener {}

/// Changes one body of an [`Ir`], at an insertion point, telling a listener.
///
/// Invariant: every op the rewriter creates is placed at the insertion point (before the
/// point's op, or at the end of its block); every erased op had no uses left.
pub struct Rewriter<'a> {
    /// The context (interning works through `&Context`).
    pub ctx: &'a Context,
    /// The IR.
    pub ir: &'a mut Ir,
    /// The body being rewritten.
    pub body: BodyId,
    point: InsertPoint,
    listener: &'a mut dyn RewriteListener,
}

impl<'a> Rewriter<'a> {
    /// A rewriter of `body` inserting before `at`.
    pub fn new(
        ctx: &'a Context,
        ir: &'a mut Ir,
        body: BodyId,
        at: InsertPoint,
        listener: &'a mut dyn RewriteListener,
    ) -> Rewriter<'a> {
        Rewriter {
            ctx,
            ir,
            body,
            point: at,
            listener,
        }
    }

    /// A handle on an op of the body.
    pub fn op(&self, op: OpId) -> OpRef<'_> {
        self.ir.op(self.body, op)
    }

    /// Inserts before `op` from now on.
    pub fn set_insertion_point_before(&mut self, op: OpId) {
        self.point = InsertPoint::Before(op);
    }

    /// Inserts at the end of `block` from now on.
    pub fn set_insertion_point_to_end(&mut self, block: BlockId) {
        self.point = InsertPoint::End(block);
    }

    /// Inserts at the start of `block` from now on.
    pub fn set_insertion_point_to_start(&mut self, block: BlockId) {
        self.point = match self.ir.body(self.body).first_op(block) {
            Some(first) => InsertPoint::Before(first),
            None => InsertPoint::End(block),
        };
    }

    /// Creates an op at the insertion point.
    pub fn create(&mut self, spec: OpSpec<'_>) -> OpId {
        let body = self.ir.body_mut(self.body);
        let op = body.create_op(spec);
        body.insert_op(op, self.point);
        self.listener.op_created(op);
        op
    }

    /// Creates `name(operands) {props} : result_types` at the insertion point, at
    /// location `loc`; its registered defaults are added to `props`. `None` when no op
    /// of that name was ever seen (making a new name needs `&mut Context`).
    pub fn create_op(
        &mut self,
        name: &str,
        operands: &[ValueId],
        result_types: &[TypeId],
        props: Vec<(crate::Sym, AttrId)>,
        loc: AttrId,
    ) -> Option<OpId> {
        let op_name = self.ctx.lookup_op_name(name)?;
        let props = with_defaults(self.ctx, op_name, props);
        Some(self.create(OpSpec {
            name: op_name,
            loc,
            attrs: self.ctx.empty_dict(),
            props,
            operands,
            result_types,
            successors: &[],
            regions: Vec::new(),
            nested: None,
        }))
    }

    /// Replaces every use of `old` by `new`, telling the listener about each user.
    pub fn replace_all_uses(&mut self, old: ValueId, new: ValueId) {
        let users: Vec<OpId> = self.ir.body(self.body).value_users(old).collect();
        self.ir.body_mut(self.body).replace_all_uses(old, new);
        for u in users {
            self.listener.op_modified(u);
        }
    }

    /// Replaces the results of `op` by `values` (one each) and erases `op`.
    pub fn replace_op(&mut self, op: OpId, values: &[ValueId]) {
        let results: Vec<ValueId> = self.ir.body(self.body).results(op).collect();
        debug_assert_eq!(results.len(), values.len(), "one replacement per result");
        for (r, v) in results.into_iter().zip(values) {
            self.replace_all_uses(r, *v);
        }
        self.erase_op(op);
    }

    /// Erases `op`, whose results must have no uses; the ops defining its operands
    /// are reported as modified (they may have become dead).
    pub fn erase_op(&mut self, op: OpId) {
        let definers: Vec<OpId> = {
            let b = self.ir.body(self.body);
            b.operands(op)
                .filter_map(|v| match b.value(v).def {
                    ValueDef::Result(d, _) => Some(d),
                    _ => None,
                })
                .collect()
        };
        self.listener.op_erased(op);
        self.ir.erase_op(self.body, op);
        for d in definers {
            self.listener.op_modified(d);
        }
    }

    /// Sets operand `i` of `op` to `v`.
    pub fn set_operand(&mut self, op: OpId, i: usize, v: ValueId) {
        self.ir.body_mut(self.body).set_operand(op, i, v);
        self.listener.op_modified(op);
    }

    /// Sets the properties of `op`.
    pub fn set_props(&mut self, op: OpId, props: AttrId) {
        self.ir.body_mut(self.body).op_mut(op).props = Some(props);
        self.listener.op_modified(op);
    }
}

/// The properties `props` plus the registered defaults of `name` it lacks, as a
/// dictionary (`None` when empty).
pub fn with_defaults(
    ctx: &Context,
    name: OpName,
    mut props: Vec<(crate::Sym, AttrId)>,
) -> Option<AttrId> {
    if let Some(def) = ctx.op_def(name) {
        for (n, v) in &def.defaults {
            let key = ctx.sym(n);
            if !props.iter().any(|(k, _)| *k == key) {
                props.push((key, *v));
            }
        }
    }
    if props.is_empty() {
        return None;
    }
    ctx.dict_attr(props).ok()
}

/// The constant value of `v`: the `value` of the constant-like op defining it.
pub fn constant_value(ctx: &Context, ir: &Ir, body: BodyId, v: ValueId) -> Option<AttrId> {
    let b = ir.body(body);
    let ValueDef::Result(def, 0) = b.value(v).def else {
        return None;
    };
    let d = ctx.op_def(b.op(def).name)?;
    if !d.traits.constant_like {
        return None;
    }
    ir.op(body, def).attr_sym(ctx, ctx.value_sym())
}

/// The type a constant attribute has (what the constant op producing it returns).
pub fn attr_type(ctx: &Context, a: AttrId) -> Option<TypeId> {
    match ctx.attr_data(a) {
        AttrData::Integer { ty, .. }
        | AttrData::Float { ty, .. }
        | AttrData::DenseElements { ty, .. }
        | AttrData::DenseResource { ty, .. }
        | AttrData::Sparse { ty, .. } => Some(*ty),
        _ => None,
    }
}

/// Every op of `region` (and of regions nested in the same body), in program order.
pub(crate) fn collect_ops(ir: &Ir, body: BodyId, region: RegionId, out: &mut Vec<OpId>) {
    let b = ir.body(body);
    for block in b.region_blocks(region) {
        for op in b.block_ops(block) {
            out.push(op);
            if b.nested_body(op).is_none() {
                for &r in b.op_regions(op) {
                    collect_ops(ir, body, r, out);
                }
            }
        }
    }
}
