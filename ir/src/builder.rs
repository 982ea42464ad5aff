//! Building IR from code: an insertion point over a body, and helpers to create ops,
//! blocks and isolated ops (which own a new body).
//!
//! Invariant: the insertion point always names a placed op or a block of the body the
//! builder borrows; every op the builder creates is placed there, before the point's op
//! or at the end of its block, so successive creations keep their order.

use crate::attrs::AttrId;
use crate::body::OpSpec;
use crate::context::Context;
use crate::ir::{BlockId, Body, BodyId, Ir, OpId, RegionId, ValueId};
use crate::layout::InsertPoint;
use crate::types::TypeId;

impl<'s> OpSpec<'s> {
    /// A spec for an op named `name` with no operands, results, attributes or regions,
    /// located at `loc`. Fill in the rest with the builder methods below.
    pub fn new(ctx: &mut Context, name: &str, loc: AttrId) -> OpSpec<'s> {
        OpSpec {
            name: ctx.op_name(name),
            loc,
            attrs: ctx.empty_dict(),
            props: None,
            operands: &[],
            result_types: &[],
            successors: &[],
            regions: Vec::new(),
            nested: None,
        }
    }
    /// Sets the operands.
    pub fn operands(mut self, operands: &'s [ValueId]) -> Self {
        self.operands = operands;
        self
    }
    /// Sets the result types.
    pub fn results(mut self, types: &'s [TypeId]) -> Self {
        self.result_types = types;
        self
    }
    /// Sets the successors.
    pub fn successors(mut self, blocks: &'s [BlockId]) -> Self {
        self.successors = blocks;
        self
    }
    /// Sets the discardable attribute dictionary.
    pub fn attrs(mut self, dict: AttrId) -> Self {
        self.attrs = dict;
        self
    }
    /// Sets the properties dictionary.
    pub fn props(mut self, dict: AttrId) -> Self {
        self.props = Some(dict);
        self
    }
    /// Gives the op regions already created in the body (non-isolated ops).
    pub fn regions(mut self, regions: Vec<RegionId>) -> Self {
        self.regions = regions;
        self
    }
}

/// Creates ops at an insertion point in one body.
pub struct Builder<'b> {
    body: &'b mut Body,
    point: InsertPoint,
}

impl<'b> Builder<'b> {
    /// A builder inserting at the end of `block`.
    pub fn at_end(body: &'b mut Body, block: BlockId) -> Builder<'b> {
        Builder {
            body,
            point: InsertPoint::End(block),
        }
    }
    /// A builder inserting just before `op` (which must be placed).
    pub fn before(body: &'b mut Body, op: OpId) -> Builder<'b> {
        debug_assert!(
            body.op_block(op).is_some(),
            "insertion point op is not placed"
        );
        Builder {
            body,
            point: InsertPoint::Before(op),
        }
    }
    /// The body being built.
    pub fn body(&mut self) -> &mut Body {
        self.body
    }
    /// The current insertion point.
    pub fn insertion_point(&self) -> InsertPoint {
        self.point
    }
    /// Inserts at the end of `block` from now on.
    pub fn set_insertion_point_to_end(&mut self, block: BlockId) {
        self.point = InsertPoint::End(block);
    }
    /// Inserts just before `op` from now on.
    pub fn set_insertion_point_before(&mut self, op: OpId) {
        self.point = InsertPoint::Before(op);
    }
    /// Inserts just after `op` from now on.
    pub fn set_insertion_point_after(&mut self, op: OpId) {
        self.point = match self.body.next_op(op) {
            Some(next) => InsertPoint::Before(next),
            None => InsertPoint::End(
                self.body
                    .op_block(op)
                    .expect("insertion point op is placed"),
            ),
        };
    }
    /// Creates an op from `spec` at the insertion point.
    pub fn create(&mut self, spec: OpSpec<'_>) -> OpId {
        let op = self.body.create_op(spec);
        self.body.insert_op(op, self.point);
        op
    }
    /// Creates an op and returns its first result (for single-result ops).
    pub fn create_value(&mut self, spec: OpSpec<'_>) -> Option<ValueId> {
        let op = self.create(spec);
        self.body.results(op).next()
    }
    /// Appends a block with arguments of `arg_types` to `region` and moves the
    /// insertion point to its end.
    pub fn create_block(&mut self, region: RegionId, arg_types: &[TypeId]) -> BlockId {
        let block = self.body.append_block(region);
        for &t in arg_types {
            self.body.add_block_arg(block, t);
        }
        self.point = InsertPoint::End(block);
        block
    }
    /// Moves the placed `op` to the insertion point.
    pub fn move_here(&mut self, op: OpId) {
        self.body.unlink_op(op);
        self.body.insert_op(op, self.point);
    }
}

impl Ir {
    /// Creates an isolated-from-above op in `body` (detached) with `num_regions`
    /// regions in a new body of its own, each with one entry block of `entry_args`
    /// argument types. Returns the op and its body.
    pub fn create_isolated_op(
        &mut self,
        body: BodyId,
        mut spec: OpSpec<'_>,
        num_regions: usize,
        entry_args: &[TypeId],
    ) -> (OpId, BodyId) {
        let nested = self.new_body();
        for _ in 0..num_regions {
            let region = self.body_mut(nested).new_top_region();
            let block = self.body_mut(nested).append_block(region);
            for &t in entry_args {
                self.body_mut(nested).add_block_arg(block, t);
            }
        }
        spec.regions = Vec::new();
        spec.nested = Some(nested);
        let op = self.body_mut(body).create_op(spec);
        self.set_body_owner(nested, (body, op));
        (op, nested)
    }

    /// An empty IR whose root is an empty `builtin.module` (with one block). Returns
    /// the IR, the module's body and the block to build into.
    pub fn new_module(ctx: &mut Context) -> (Ir, BodyId, BlockId) {
        let mut ir = Ir::new();
        let loc = ctx.unknown_loc();
        let root_body = ir.root_body;
        let (module, body) =
            ir.create_isolated_op(root_body, OpSpec::new(ctx, "builtin.module", loc), 1, &[]);
        ir.root = module;
        let region = ir.body(body).top_regions()[0];
        let block = ir
            .body(body)
            .entry_block(region)
            .expect("created with a block");
        (ir, body, block)
    }
}
