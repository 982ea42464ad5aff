//! Building and rewriting IR from code: the one way to make an op.
//!
//! A [`Builder`] holds an insertion point in one body of an [`Ir`] and the location
//! new ops get. [`Builder::build`] makes an op from a [`NewOp`] (name, operands, result
//! types, properties, regions, successors): the name must be known to the context,
//! the op's registered defaults are added to the properties it lacks, and the op is
//! placed at the insertion point. Everything else that makes ops goes through it: the
//! typed builders generated from the dialect definitions
//! (`acc_dialects::ops::graph::Conv2d::build`), the by-name shorthands
//! [`Builder::op`] and [`Builder::op1`], with regions made by [`Builder::region`].
//!
//! A builder may carry a [`RewriteListener`]: then it is the rewriter a pattern
//! driver hands to its patterns ([`crate::rewrite::Rewriter`]), and every op it
//! creates, modifies or erases is reported, so that the driver knows what to revisit.
//!
//! Invariant: the insertion point always names a placed op or a block of the body the
//! builder works on; every op the builder creates is placed there, before the point's
//! op or at the end of its block, so successive creations keep their order.

use crate::attrs::AttrId;
use crate::body::OpSpec;
use crate::context::Context;
use crate::ir::{BlockId, BodyId, Ir, OpId, OpRef, RegionId, ValueDef, ValueId};
use crate::layout::InsertPoint;
use crate::registry::OpName;
use crate::rewrite::RewriteListener;
use crate::types::TypeId;

/// An op to make: what [`Builder::build`] takes. Properties are named by string; the
/// op's registered defaults are added to those it lacks.
#[derive(Clone, Copy, Debug)]
pub struct NewOp<'s> {
    /// The op's name, `dialect.op`; it must be known to the context.
    pub name: &'s str,
    /// Its operands.
    pub operands: &'s [ValueId],
    /// Its result types.
    pub results: &'s [TypeId],
    /// Its properties (inherent attributes), by name.
    pub props: &'s [(&'s str, AttrId)],
    /// Regions already made in the body ([`Builder::region`]), which the op takes.
    pub regions: &'s [RegionId],
    /// Its successor blocks.
    pub successors: &'s [BlockId],
}

impl<'s> NewOp<'s> {
    /// An op named `name` with nothing else yet.
    pub fn named(name: &'s str) -> NewOp<'s> {
        NewOp {
            name,
            operands: &[],
            results: &[],
            props: &[],
            regions: &[],
            successors: &[],
        }
    }
}

/// Builds the ops of a region's block from its arguments; the values its terminator
/// takes.
pub type RegionBuilder<'f> =
    dyn FnMut(&mut Builder<'_>, &[ValueId]) -> Result<Vec<ValueId>, String> + 'f;

/// Creates (and, for patterns, rewrites) ops at an insertion point of one body.
pub struct Builder<'a> {
    /// The context; interning works through `&Context`.
    pub ctx: &'a Context,
    /// The IR.
    pub ir: &'a mut Ir,
    /// The body ops go into.
    pub body: BodyId,
    /// Where they go.
    pub point: InsertPoint,
    /// The location they get.
    pub loc: AttrId,
    listener: Option<&'a mut dyn RewriteListener>,
}

impl<'a> Builder<'a> {
    /// A builder of `body` inserting at `point`, making ops located at `loc`.
    pub fn new(
        ctx: &'a Context,
        ir: &'a mut Ir,
        body: BodyId,
        point: InsertPoint,
        loc: AttrId,
    ) -> Builder<'a> {
        Builder {
            ctx,
            ir,
            body,
            point,
            loc,
            listener: None,
        }
    }

    /// As [`Builder::new`], telling `listener` about every op created, modified or
    /// erased (a pattern driver's worklist).
    pub fn listening(
        ctx: &'a Context,
        ir: &'a mut Ir,
        body: BodyId,
        point: InsertPoint,
        loc: AttrId,
        listener: &'a mut dyn RewriteListener,
    ) -> Builder<'a> {
        Builder {
            listener: Some(listener),
            ..Builder::new(ctx, ir, body, point, loc)
        }
    }

    /// A builder of the same body, location and listener inserting at `point` (for a
    /// region's block, say), borrowing this one.
    pub fn at(&mut self, point: InsertPoint) -> Builder<'_> {
        Builder {
            ctx: self.ctx,
            ir: &mut *self.ir,
            body: self.body,
            point,
            loc: self.loc,
            listener: match &mut self.listener {
                Some(l) => Some(&mut **l),
                None => None,
            },
        }
    }

    /// A handle on an op of the body.
    pub fn op_ref(&self, op: OpId) -> OpRef<'_> {
        self.ir.op(self.body, op)
    }

    /// The type of a value of the body.
    pub fn type_of(&self, v: ValueId) -> TypeId {
        self.ir.body(self.body).value_type(v)
    }

    /// The results of an op of the body.
    pub fn results_of(&self, op: OpId) -> Vec<ValueId> {
        self.ir.body(self.body).results(op).collect()
    }

    /// Inserts before `op` from now on.
    pub fn set_insertion_point_before(&mut self, op: OpId) {
        self.point = InsertPoint::Before(op);
    }

    /// Inserts just after the placed `op` from now on.
    pub fn set_insertion_point_after(&mut self, op: OpId) {
        let body = self.ir.body(self.body);
        self.point = match body.next_op(op) {
            Some(next) => InsertPoint::Before(next),
            None => InsertPoint::End(body.op_block(op).expect("insertion point op is placed")),
        };
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

    /// Makes `new` at the insertion point, at the builder's location: the one way to
    /// make an op. An error when no op of that name was ever seen (making a new name
    /// needs `&mut Context`) or when two properties have the same name.
    pub fn build(&mut self, new: NewOp<'_>) -> Result<OpId, String> {
        let spec = self.spec(&new)?;
        Ok(self.create(spec))
    }

    /// The raw spec of `new` at the builder's location: its name resolved and its
    /// properties with the registered defaults.
    fn spec<'s>(&self, new: &NewOp<'s>) -> Result<OpSpec<'s>, String> {
        let name = self
            .ctx
            .lookup_op_name(new.name)
            .ok_or_else(|| format!("'{}' is not registered", new.name))?;
        let props: Vec<_> = new
            .props
            .iter()
            .map(|(k, v)| (self.ctx.sym(k), *v))
            .collect();
        Ok(OpSpec {
            name,
            loc: self.loc,
            attrs: self.ctx.empty_dict(),
            props: with_defaults(self.ctx, name, props)?,
            operands: new.operands,
            result_types: new.results,
            successors: new.successors,
            regions: new.regions.to_vec(),
            nested: None,
        })
    }

    /// Makes the isolated-from-above op `new` (its `regions` ignored) with
    /// `num_regions` regions in a new body of its own, each with one entry block of
    /// `entry_args` argument types, at the insertion point: a function, a module.
    /// Returns the op and its body.
    pub fn build_isolated(
        &mut self,
        new: NewOp<'_>,
        num_regions: usize,
        entry_args: &[TypeId],
    ) -> Result<(OpId, BodyId), String> {
        let spec = self.spec(&new)?;
        let (op, nested) = self
            .ir
            .create_isolated_op(self.body, spec, num_regions, entry_args);
        self.ir.body_mut(self.body).insert_op(op, self.point);
        if let Some(l) = &mut self.listener {
            l.op_created(op);
        }
        Ok((op, nested))
    }

    /// Places an op made from a raw `spec` (its name resolved, its properties as
    /// given) at the insertion point: for code that copies ops (cloning, the greedy
    /// driver's constants). Everything else calls [`Builder::build`].
    pub fn create(&mut self, spec: OpSpec<'_>) -> OpId {
        let body = self.ir.body_mut(self.body);
        let op = body.create_op(spec);
        body.insert_op(op, self.point);
        if let Some(l) = &mut self.listener {
            l.op_created(op);
        }
        op
    }

    /// `name(operands) {props} : result_types`: its results.
    pub fn op(
        &mut self,
        name: &str,
        operands: &[ValueId],
        result_types: &[TypeId],
        props: &[(&str, AttrId)],
    ) -> Result<Vec<ValueId>, String> {
        let op = self.build(NewOp {
            operands,
            results: result_types,
            props,
            ..NewOp::named(name)
        })?;
        Ok(self.results_of(op))
    }

    /// As [`Builder::op`] for an op of one result: that result.
    pub fn op1(
        &mut self,
        name: &str,
        operands: &[ValueId],
        result: TypeId,
        props: &[(&str, AttrId)],
    ) -> Result<ValueId, String> {
        self.op(name, operands, &[result], props)?
            .first()
            .copied()
            .ok_or_else(|| format!("'{name}' has no result"))
    }

    /// A detached region of the body with one block whose arguments have
    /// `arg_types`: `fill` builds the block's ops from its arguments and returns the
    /// values that `terminator` (an op name, such as a yield) ends it with.
    pub fn region(
        &mut self,
        arg_types: &[TypeId],
        terminator: &str,
        fill: &mut RegionBuilder<'_>,
    ) -> Result<RegionId, String> {
        let body = self.ir.body_mut(self.body);
        let region = body.new_region(None);
        let block = body.append_block(region);
        let args: Vec<ValueId> = arg_types
            .iter()
            .map(|t| body.add_block_arg(block, *t))
            .collect();
        let mut inner = self.at(InsertPoint::End(block));
        let yielded = fill(&mut inner, &args)?;
        inner.op(terminator, &yielded, &[], &[])?;
        Ok(region)
    }

    /// Moves the placed `op` to the insertion point.
    pub fn move_here(&mut self, op: OpId) {
        let body = self.ir.body_mut(self.body);
        body.unlink_op(op);
        body.insert_op(op, self.point);
        if let Some(l) = &mut self.listener {
            l.op_modified(op);
        }
    }

    /// Replaces every use of `old` by `new`, telling the listener about each user.
    pub fn replace_all_uses(&mut self, old: ValueId, new: ValueId) {
        let users: Vec<OpId> = self.ir.body(self.body).value_users(old).collect();
        self.ir.body_mut(self.body).replace_all_uses(old, new);
        if let Some(l) = &mut self.listener {
            for u in users {
                l.op_modified(u);
            }
        }
    }

    /// Replaces the results of `op` by `values` (one each) and erases `op`.
    pub fn replace_op(&mut self, op: OpId, values: &[ValueId]) {
        let results = self.results_of(op);
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
        if let Some(l) = &mut self.listener {
            l.op_erased(op);
        }
        self.ir.erase_op(self.body, op);
        if let Some(l) = &mut self.listener {
            for d in definers {
                l.op_modified(d);
            }
        }
    }

    /// Sets operand `i` of `op` to `v`.
    pub fn set_operand(&mut self, op: OpId, i: usize, v: ValueId) {
        self.ir.body_mut(self.body).set_operand(op, i, v);
        if let Some(l) = &mut self.listener {
            l.op_modified(op);
        }
    }

    /// Sets the discardable attribute `name` of `op` to `value` (replacing one of
    /// that name).
    pub fn set_attr(&mut self, op: OpId, name: &str, value: AttrId) -> Result<(), String> {
        let key = self.ctx.sym(name);
        let mut entries: Vec<_> = self
            .ctx
            .dict_entries(self.ir.body(self.body).op(op).attrs)
            .iter()
            .filter(|(k, _)| *k != key)
            .copied()
            .collect();
        entries.push((key, value));
        let dict = self
            .ctx
            .dict_attr(entries)
            .map_err(|_| format!("'{name}' cannot be set"))?;
        self.ir.body_mut(self.body).op_mut(op).attrs = dict;
        if let Some(l) = &mut self.listener {
            l.op_modified(op);
        }
        Ok(())
    }
}

/// The properties `props` plus the registered defaults of `name` it lacks, as a
/// dictionary (`None` when empty); an error when two properties share a name.
pub fn with_defaults(
    ctx: &Context,
    name: OpName,
    mut props: Vec<(crate::Sym, AttrId)>,
) -> Result<Option<AttrId>, String> {
    if let Some(def) = ctx.op_def(name) {
        for (n, v) in &def.defaults {
            let key = ctx.sym(n);
            if !props.iter().any(|(k, _)| *k == key) {
                props.push((key, *v));
            }
        }
    }
    if props.is_empty() {
        return Ok(None);
    }
    ctx.dict_attr(props).map(Some).map_err(|_| {
        format!(
            "'{}' is given two properties of one name",
            ctx.op_name_str(name)
        )
    })
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
        let spec = OpSpec {
            name: ctx.op_name("builtin.module"),
            loc,
            attrs: ctx.empty_dict(),
            props: None,
            operands: &[],
            result_types: &[],
            successors: &[],
            regions: Vec::new(),
            nested: None,
        };
        let (module, body) = ir.create_isolated_op(root_body, spec, 1, &[]);
        ir.root = module;
        let region = ir.body(body).top_regions()[0];
        let block = ir
            .body(body)
            .entry_block(region)
            .expect("created with a block");
        (ir, body, block)
    }
}
