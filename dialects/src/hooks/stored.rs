//! Constants seen through the casts that keep their stored integers
//! (`graph.storage_cast`, `tensor.bitcast`): a quantized weight is a constant of its
//! integers cast to its quantized type.

use crate::ops::{graph, tensor};
use acc_ir::elements::{self, Dense};
use acc_ir::{BodyId, Context, Ir, OpId, ValueDef, ValueId};

/// Ops whose result holds the same stored integers as their one operand.
const STORAGE_CASTS: [&str; 2] = [graph::StorageCast::NAME, tensor::Bitcast::NAME];

/// The ops that make `v` from a constant: the constant first, then each cast in
/// order (`v` is the last one's result). `None` when `v` is not such a value.
pub fn constant_chain(ctx: &Context, ir: &Ir, body: BodyId, mut v: ValueId) -> Option<Vec<OpId>> {
    let b = ir.body(body);
    let mut chain = Vec::new();
    loop {
        let ValueDef::Result(op, 0) = b.value(v).def else {
            return None;
        };
        chain.push(op);
        let name = b.op(op).name;
        if ctx.op_def(name).is_some_and(|d| d.traits.constant_like) {
            chain.reverse();
            return Some(chain);
        }
        if !STORAGE_CASTS.contains(&ctx.op_name_str(name)) || b.operands(op).len() != 1 {
            return None;
        }
        v = b.operand(op, 0);
    }
}

/// The stored integers of `v` when it is a constant seen through storage casts.
pub fn stored_constant(ctx: &Context, ir: &Ir, body: BodyId, v: ValueId) -> Option<Dense> {
    let chain = constant_chain(ctx, ir, body, v)?;
    let value = ir
        .op(body, *chain.first()?)
        .attr_sym(ctx, ctx.value_sym())?;
    elements::dense(ctx, value)
}
