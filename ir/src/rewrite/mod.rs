//! Rewriting IR: patterns, the rewriter they mutate the IR through, and the driver
//! that applies them ([`greedy`], for canonicalization and pattern passes).
//!
//! A [`RewritePattern`] names the op it matches (its root, or any op), a benefit
//! (higher is tried first) and a name (for reports and `--debug` output). It only
//! changes the IR through the [`Rewriter`], which tells its [`RewriteListener`] (the
//! driver's worklist) about every op created, modified, replaced or erased: that is how
//! the driver knows what to revisit. Discipline, as in Cranelift's ISLE rules: a pattern
//! rewrites toward something simpler or cheaper, never back, so that applying patterns
//! to a fixed point terminates; and it returns `true` only when it changed the IR.

pub mod greedy;

use crate::attrs::{AttrData, AttrId};
pub use crate::builder::Builder;
pub use crate::builder::with_defaults;
use crate::context::Context;
use crate::ir::{BodyId, Ir, OpId, RegionId, ValueDef, ValueId};
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

/// What patterns change the IR through: a [`Builder`] whose listener is the driver's
/// worklist, inserting before the op being rewritten, at its location. Every change
/// goes through its methods, so the driver hears about every op created, modified,
/// replaced or erased.
pub type Rewriter<'a> = Builder<'a>;

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
        | AttrData::WideInteger { ty, .. }
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
