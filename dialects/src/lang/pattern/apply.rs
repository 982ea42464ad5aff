//! Applying a [`TextPattern`]: match the DAG from the root up through the ops defining
//! its operands, check the constraints, infer the types of the ops to create, and only
//! then change the IR. A pattern that fails at any step leaves the IR untouched.

use acc_ir::rewrite::{RewritePattern, Rewriter, with_defaults};
use acc_ir::{
    AttrId, Body, BodyId, Context, InferInput, Ir, OpId, OpSpec, TypeId, ValueDef, ValueId,
};

use super::functions::{ArgVal, Scope};
use super::{Arg, AttrMatch, SlotDef, TextPattern};

/// What a match has bound so far.
pub(super) struct Bindings {
    pub(super) values: Vec<Option<ValueId>>,
    ops: Vec<Option<OpId>>,
    pub(super) captures: Vec<Option<AttrId>>,
}

impl Bindings {
    /// Nothing bound yet, for `pattern`.
    pub(super) fn new(pattern: &TextPattern) -> Bindings {
        Bindings {
            values: vec![None; pattern.slots.len()],
            ops: vec![None; pattern.matched.len()],
            captures: vec![None; pattern.captures],
        }
    }
}

impl RewritePattern for TextPattern {
    fn name(&self) -> &str {
        &self.name
    }

    fn root(&self) -> Option<&str> {
        Some(&self.root)
    }

    fn benefit(&self) -> u16 {
        self.benefit
    }

    fn match_and_rewrite(&self, op: OpId, rw: &mut Rewriter<'_>) -> bool {
        if !self.may_match(rw.ir.body(rw.body), op) {
            return false;
        }
        let mut b = Bindings::new(self);
        let root = self.matched.len() - 1;
        if !self.match_op(rw.ctx, rw.ir.body(rw.body), root, op, &mut b) {
            return false;
        }
        let scope = Scope {
            ctx: rw.ctx,
            ir: rw.ir,
            body: rw.body,
        };
        for (check, args) in &self.constraints {
            let Some(args) = self.eval_args(&scope, args, &b) else {
                return false;
            };
            if !check(&scope, &args) {
                return false;
            }
        }
        let Some(plan) = self.plan(&scope, &b) else {
            return false;
        };
        self.rewrite(rw, op, plan, &mut b);
        true
    }
}

/// The ops a rewrite will create: properties, attributes and result types, all known
/// before the IR changes.
struct PlannedOp {
    props: Option<AttrId>,
    attrs: AttrId,
    result_types: Vec<TypeId>,
}

impl TextPattern {
    /// A quick test that rejects most ops without allocating: the root's operand
    /// count, and the names of the ops defining the operands the match needs defined.
    fn may_match(&self, body: &Body, op: OpId) -> bool {
        let root = &self.matched[self.matched.len() - 1];
        if body.operands(op).len() != root.operands.len() {
            return false;
        }
        root.operands
            .iter()
            .zip(body.operands(op))
            .all(|(slot, v)| match self.slots[*slot] {
                SlotDef::Matched(j, _) => match body.value(v).def {
                    ValueDef::Result(def, _) => body.op(def).name == self.matched[j].name,
                    _ => false,
                },
                _ => true,
            })
    }

    /// Matches pattern op `k` against `op`, binding what it defines.
    pub(super) fn match_op(
        &self,
        ctx: &Context,
        body: &Body,
        k: usize,
        op: OpId,
        b: &mut Bindings,
    ) -> bool {
        if let Some(bound) = b.ops[k] {
            return bound == op;
        }
        let p = &self.matched[k];
        let data = body.op(op);
        if data.name != p.name
            || body.operands(op).len() != p.operands.len()
            || body.results(op).len() != p.results.len()
        {
            return false;
        }
        b.ops[k] = Some(op);
        for (slot, v) in p.results.iter().zip(body.results(op)) {
            b.values[*slot] = Some(v);
        }
        let attr_of = |name: acc_ir::Sym| {
            data.props
                .and_then(|d| ctx.dict_get_sym(d, name))
                .or_else(|| ctx.dict_get_sym(data.attrs, name))
        };
        for (name, want) in &p.attrs {
            let Some(found) = attr_of(*name) else {
                return false;
            };
            let ok = match want {
                AttrMatch::Equals(a) => *a == found,
                AttrMatch::Capture(i) => *b.captures[*i].get_or_insert(found) == found,
            };
            if !ok {
                return false;
            }
        }
        for (slot, v) in p.operands.iter().zip(body.operands(op)) {
            if let Some(bound) = b.values[*slot] {
                if bound != v {
                    return false;
                }
                continue;
            }
            match self.slots[*slot] {
                SlotDef::Matched(j, r) => {
                    let ValueDef::Result(def, index) = body.value(v).def else {
                        return false;
                    };
                    if index as usize != r || !self.match_op(ctx, body, j, def, b) {
                        return false;
                    }
                }
                _ => b.values[*slot] = Some(v),
            }
        }
        true
    }

    fn eval_args(&self, s: &Scope<'_>, args: &[Arg], b: &Bindings) -> Option<Vec<ArgVal>> {
        args.iter().map(|a| self.eval(s, a, b)).collect()
    }

    pub(super) fn eval(&self, s: &Scope<'_>, a: &Arg, b: &Bindings) -> Option<ArgVal> {
        Some(match a {
            Arg::Value(slot) => ArgVal::Value(b.values[*slot]?),
            Arg::Capture(i) => ArgVal::Attr(b.captures[*i]?),
            Arg::Attr(x) => ArgVal::Attr(*x),
            Arg::Call(f, args) => ArgVal::Attr(f(s, &self.eval_args(s, args, b)?)?),
        })
    }

    /// Everything the rewrite needs, or `None` when an attribute cannot be built, a
    /// type cannot be inferred, or a replacement's type differs from the result it
    /// replaces.
    fn plan(&self, s: &Scope<'_>, b: &Bindings) -> Option<Vec<PlannedOp>> {
        let ctx = s.ctx;
        let body = s.ir.body(s.body);
        let mut created_types: Vec<Vec<TypeId>> = Vec::new();
        let type_of = |slot: usize, created: &[Vec<TypeId>]| -> Option<TypeId> {
            match self.slots[slot] {
                SlotDef::Created(k, r) => created.get(k)?.get(r).copied(),
                _ => b.values[slot].map(|v| body.value_type(v)),
            }
        };
        let mut plan = Vec::new();
        for op in &self.created {
            let mut props = Vec::new();
            let mut attrs = Vec::new();
            for (name, inherent, arg) in &op.attrs {
                let ArgVal::Attr(a) = self.eval(s, arg, b)? else {
                    return None;
                };
                if *inherent { &mut props } else { &mut attrs }.push((*name, a));
            }
            let props = with_defaults(ctx, op.name, props).ok()?;
            let attrs = ctx.dict_attr(attrs).ok()?;
            let operand_types: Option<Vec<TypeId>> = op
                .operands
                .iter()
                .map(|slot| type_of(*slot, &created_types))
                .collect();
            let input = InferInput {
                operand_types: &operand_types?,
                props,
                attrs,
            };
            let types: Vec<TypeId> = (op.infer)(ctx, &input)
                .ok()?
                .into_iter()
                .map(|t| ctx.intern_type(t))
                .collect();
            if types.len() != op.results.len() {
                return None;
            }
            created_types.push(types.clone());
            plan.push(PlannedOp {
                props,
                attrs,
                result_types: types,
            });
        }
        let root = b.ops[self.matched.len() - 1]?;
        for (old, slot) in body.results(root).zip(&self.replacements) {
            if type_of(*slot, &created_types)? != body.value_type(old) {
                return None;
            }
        }
        Some(plan)
    }

    fn rewrite(&self, rw: &mut Rewriter<'_>, root: OpId, plan: Vec<PlannedOp>, b: &mut Bindings) {
        let loc = rw.op_ref(root).loc();
        rw.set_insertion_point_before(root);
        for (op, planned) in self.created.iter().zip(plan) {
            let operands: Vec<ValueId> = op
                .operands
                .iter()
                .filter_map(|slot| b.values[*slot])
                .collect();
            let new = rw.create(OpSpec {
                name: op.name,
                loc,
                attrs: planned.attrs,
                props: planned.props,
                operands: &operands,
                result_types: &planned.result_types,
                successors: &[],
                regions: Vec::new(),
                nested: None,
            });
            let results: Vec<ValueId> = body_results(rw.ir, rw.body, new);
            for (slot, v) in op.results.iter().zip(results) {
                b.values[*slot] = Some(v);
            }
        }
        let values: Vec<ValueId> = self
            .replacements
            .iter()
            .filter_map(|slot| b.values[*slot])
            .collect();
        rw.replace_op(root, &values);
    }
}

fn body_results(ir: &Ir, body: BodyId, op: OpId) -> Vec<ValueId> {
    ir.body(body).results(op).collect()
}
