//! Resolving a pattern as written against the registered ops: every name defined once
//! and before it is used, the match connected to its root, functions called with
//! arguments of the right kinds, every result of the root replaced, and the result
//! types of every created op inferable. Mistakes are diagnostics at their spans.

use std::collections::HashMap;
use std::ops::Range;

use acc_ir::diag::{DiagLoc, Diagnostic, FileId};
use acc_ir::{AttrId, Context};

use super::ast::{ArgAst, CallAst, OpAst, PatternAst, Spanned};
use super::functions::{self, ArgKind};
use super::{Arg, AttrMatch, MatchOp, NewOp, SlotDef, TextPattern};

/// Resolves `ast` (read from `file`) into a pattern, or reports every mistake in it.
pub fn compile(
    ctx: &mut Context,
    file: FileId,
    ast: &PatternAst,
) -> Result<TextPattern, Vec<Diagnostic>> {
    let mut c = Compiler::new(ctx, file);
    if ast.benefit == 0 {
        c.error(&ast.benefit_span, "benefit must be between 1 and 65535");
    }
    let matched: Vec<MatchOp> = ast
        .matched
        .iter()
        .enumerate()
        .filter_map(|(k, op)| c.match_op(k, op))
        .collect();
    c.check_connected(ast);
    let constraints = ast
        .constraints
        .iter()
        .filter_map(|call| c.constraint(call))
        .collect();
    let created: Vec<NewOp> = ast
        .rewrite
        .iter()
        .enumerate()
        .filter_map(|(k, op)| c.new_op(k, op))
        .collect();
    let replacements = c.replacements(ast, matched.last());
    if !c.errors.is_empty() || matched.len() != ast.matched.len() {
        return Err(c.errors);
    }
    let (Some(root), Some(replacements)) = (ast.matched.last(), replacements) else {
        return Err(c.errors);
    };
    Ok(TextPattern {
        name: ast.name.0.clone(),
        root: root.name.0.clone(),
        benefit: ast.benefit,
        matched,
        slots: c.slots,
        captures: c.captures.len(),
        constraints,
        created,
        replacements,
    })
}

/// Resolves the names of a pattern or an intrinsic, collecting errors.
pub(super) struct Compiler<'c> {
    pub(super) ctx: &'c mut Context,
    file: FileId,
    pub(super) errors: Vec<Diagnostic>,
    pub(super) slots: Vec<SlotDef>,
    /// Slot of each value name.
    names: HashMap<String, usize>,
    /// Index of each capture name.
    pub(super) captures: HashMap<String, usize>,
}

impl<'c> Compiler<'c> {
    pub(super) fn new(ctx: &'c mut Context, file: FileId) -> Compiler<'c> {
        Compiler {
            ctx,
            file,
            errors: Vec::new(),
            slots: Vec::new(),
            names: HashMap::new(),
            captures: HashMap::new(),
        }
    }

    /// A `where` constraint: the function and its arguments.
    pub(super) fn constraint(
        &mut self,
        call: &CallAst,
    ) -> Option<(functions::ConstraintFn, Vec<Arg>)> {
        let Some(f) = functions::constraint(&call.name.0) else {
            let known: Vec<&str> = functions::CONSTRAINTS.iter().map(|f| f.name).collect();
            self.error(
                &call.name.1,
                format!(
                    "unknown constraint '{}': acc provides {}",
                    call.name.0,
                    known.join(", ")
                ),
            );
            return None;
        };
        let args = self.args(call, f.args)?;
        Some((f.run, args))
    }

    pub(super) fn error(&mut self, at: &Range<usize>, message: impl Into<String>) {
        self.errors.push(Diagnostic::error(
            DiagLoc::Span(self.file, at.clone()),
            message,
        ));
    }

    /// A registered op's name, or an error.
    fn op_name(&mut self, name: &Spanned) -> Option<acc_ir::registry::OpName> {
        let found = self
            .ctx
            .lookup_op_name(&name.0)
            .filter(|n| self.ctx.op_def(*n).is_some());
        if found.is_none() {
            self.error(&name.1, format!("unknown op '{}' in a pattern", name.0));
        }
        found
    }

    /// Defines the names of an op's results as new slots.
    fn define_results(
        &mut self,
        results: &[Spanned],
        def: impl Fn(usize) -> SlotDef,
    ) -> Vec<usize> {
        let mut slots = Vec::new();
        for (r, (name, at)) in results.iter().enumerate() {
            if self.names.contains_key(name) {
                self.error(at, format!("'{name}' is defined twice"));
                continue;
            }
            let slot = self.slots.len();
            self.slots.push(def(r));
            self.names.insert(name.clone(), slot);
            slots.push(slot);
        }
        slots
    }

    pub(super) fn match_op(&mut self, k: usize, op: &OpAst) -> Option<MatchOp> {
        let name = self.op_name(&op.name);
        let operands = op
            .operands
            .iter()
            .map(|(v, _)| match self.names.get(v) {
                Some(slot) => *slot,
                None => {
                    let slot = self.slots.len();
                    self.slots.push(SlotDef::Free);
                    self.names.insert(v.clone(), slot);
                    slot
                }
            })
            .collect();
        let mut attrs = Vec::new();
        for (key, value) in &op.attrs {
            let m = match value {
                ArgAst::Capture((c, _)) => {
                    let next = self.captures.len();
                    AttrMatch::Capture(*self.captures.entry(c.clone()).or_insert(next))
                }
                ArgAst::Literal(lit) => AttrMatch::Equals(self.literal(lit)?),
                ArgAst::Call(call) => {
                    self.error(
                        &call.span,
                        "a match compares attributes with captures ($p) or literals; \
                         compute attributes in the rewrite",
                    );
                    continue;
                }
                ArgAst::Value((_, at)) => {
                    self.error(at, "an attribute's value cannot be an SSA value");
                    continue;
                }
            };
            attrs.push((self.ctx.sym(&key.0), m));
        }
        let results = self.define_results(&op.results, |r| SlotDef::Matched(k, r));
        Some(MatchOp {
            name: name?,
            operands,
            results,
            attrs,
        })
    }

    /// Every op of the match but the root must feed a later op: the match is a DAG
    /// hanging from its root.
    pub(super) fn check_connected(&mut self, ast: &PatternAst) {
        let n = ast.matched.len();
        for (k, op) in ast.matched.iter().enumerate().take(n.saturating_sub(1)) {
            let used = ast.matched[k + 1..].iter().any(|later| {
                later.operands.iter().any(|(v, _)| {
                    self.names
                        .get(v)
                        .is_some_and(|s| matches!(self.slots[*s], SlotDef::Matched(j, _) if j == k))
                })
            });
            if !used {
                self.error(
                    &op.name.1,
                    "no later op of the match uses this op's results: a match is a DAG \
                     of ops rooted at its last op",
                );
            }
        }
    }

    fn literal(&mut self, (text, at): &Spanned) -> Option<AttrId> {
        match acc_ir::parser::parse_attribute_str(self.ctx, text) {
            Ok(a) => Some(a),
            Err((message, range)) => {
                // +1: past the opening quote.
                let start = (at.start + 1 + range.start).min(at.end);
                let end = (at.start + 1 + range.end).min(at.end).max(start);
                self.error(&(start..end), format!("in attribute literal: {message}"));
                None
            }
        }
    }

    /// A value name that must be defined.
    pub(super) fn value(&mut self, (name, at): &Spanned) -> Option<usize> {
        let slot = self.names.get(name).copied();
        if slot.is_none() {
            self.error(at, format!("'{name}' is not defined"));
        }
        slot
    }

    fn arg(&mut self, a: &ArgAst) -> Option<Arg> {
        match a {
            ArgAst::Value(v) => self.value(v).map(Arg::Value),
            ArgAst::Capture((c, at)) => match self.captures.get(c) {
                Some(i) => Some(Arg::Capture(*i)),
                None => {
                    self.error(at, format!("'{c}' is not captured by the match"));
                    None
                }
            },
            ArgAst::Literal(lit) => self.literal(lit).map(Arg::Attr),
            ArgAst::Call(call) => {
                let Some(f) = functions::builder(&call.name.0) else {
                    let known: Vec<&str> = functions::BUILDERS.iter().map(|f| f.name).collect();
                    self.error(
                        &call.name.1,
                        format!(
                            "unknown attribute function '{}': acc provides {}",
                            call.name.0,
                            known.join(", ")
                        ),
                    );
                    return None;
                };
                let args = self.args(call, f.args)?;
                Some(Arg::Call(f.run, args))
            }
        }
    }

    /// The arguments of `call`, checked against the kinds the function takes.
    fn args(&mut self, call: &CallAst, kinds: &[ArgKind]) -> Option<Vec<Arg>> {
        if call.args.len() != kinds.len() {
            self.error(
                &call.span,
                format!(
                    "'{}' takes {} arguments, not {}",
                    call.name.0,
                    kinds.len(),
                    call.args.len()
                ),
            );
            return None;
        }
        let mut out = Vec::new();
        for (a, kind) in call.args.iter().zip(kinds) {
            let is_value = matches!(a, ArgAst::Value(_));
            if is_value != (*kind == ArgKind::Value) {
                let want = if is_value {
                    "an attribute"
                } else {
                    "a value (%name)"
                };
                self.error(
                    &call.span,
                    format!("argument of '{}' must be {want}", call.name.0),
                );
                return None;
            }
            out.push(self.arg(a)?);
        }
        Some(out)
    }

    fn new_op(&mut self, k: usize, op: &OpAst) -> Option<NewOp> {
        let name = self.op_name(&op.name);
        let operands: Option<Vec<usize>> = op.operands.iter().map(|v| self.value(v)).collect();
        let mut attrs = Vec::new();
        let def = name.and_then(|n| self.ctx.op_def(n)).cloned();
        for (key, value) in &op.attrs {
            if let Some(a) = self.arg(value) {
                let inherent = def
                    .as_ref()
                    .is_some_and(|d| d.inherent_attrs.contains(&key.0));
                attrs.push((self.ctx.sym(&key.0), inherent, a));
            }
        }
        let infer = def.as_ref().and_then(|d| d.infer.clone());
        if def.is_some() && infer.is_none() {
            self.error(
                &op.name.1,
                format!(
                    "cannot create '{}' in a rewrite: its result types cannot be inferred \
                     (it has no `infer` hook and no trait tying its results to its operands)",
                    op.name.0
                ),
            );
        }
        let results = self.define_results(&op.results, |r| SlotDef::Created(k, r));
        Some(NewOp {
            name: name?,
            operands: operands?,
            results,
            attrs,
            infer: infer?,
        })
    }

    /// For each result of the root, the slot that replaces it.
    fn replacements(&mut self, ast: &PatternAst, root: Option<&MatchOp>) -> Option<Vec<usize>> {
        let root = root?;
        let mut by_result: Vec<Option<usize>> = vec![None; root.results.len()];
        for (old, new) in &ast.replaces {
            let old_slot = self.value(old)?;
            let new_slot = self.value(new)?;
            let Some(r) = root.results.iter().position(|s| *s == old_slot) else {
                self.error(
                    &old.1,
                    format!("'{}' is not a result of the root op", old.0),
                );
                continue;
            };
            if by_result[r].replace(new_slot).is_some() {
                self.error(&old.1, format!("'{}' is replaced twice", old.0));
            }
        }
        let missing: Vec<String> = by_result
            .iter()
            .zip(&ast.matched.last()?.results)
            .filter(|(r, _)| r.is_none())
            .map(|(_, (n, _))| n.clone())
            .collect();
        if !missing.is_empty() {
            self.error(
                &ast.span,
                format!("the rewrite does not replace {}", missing.join(", ")),
            );
            return None;
        }
        by_result.into_iter().collect()
    }
}
