//! Running functions: the values of a body in an environment, blocks executed op by
//! op, branches following successors, `func.call` and `func.return`.

use acc_ir::{AttrId, BlockId, BodyId, Context, DiagLoc, Diagnostic, Ir, OpId, ValueId};
use rustc_hash::FxHashMap;

use crate::rules::{self, RuleInput};
use crate::value::Tensor;

/// Bounds that turn runaway programs into errors.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Ops executed before giving up.
    pub max_steps: u64,
    /// Nested calls before giving up.
    pub max_depth: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_steps: 100_000_000,
            max_depth: 256,
        }
    }
}

/// Why a run failed: a message at the op's location.
#[derive(Clone, Debug)]
pub struct InterpError {
    /// What went wrong.
    pub message: String,
    /// Where (the op's location), when known.
    pub loc: Option<AttrId>,
}

impl InterpError {
    fn at(loc: AttrId, message: impl Into<String>) -> InterpError {
        InterpError {
            message: message.into(),
            loc: Some(loc),
        }
    }

    /// As a diagnostic, for rendering with the source.
    pub fn diagnostic(&self) -> Diagnostic {
        match self.loc {
            Some(l) => Diagnostic::error(DiagLoc::Loc(l), self.message.clone()),
            None => Diagnostic::error(DiagLoc::Unknown, self.message.clone()),
        }
    }
}

/// Runs the functions of one module.
pub struct Interpreter<'a> {
    ctx: &'a Context,
    ir: &'a Ir,
    limits: Limits,
    steps: u64,
}

impl<'a> Interpreter<'a> {
    /// An interpreter for the module `ir`.
    pub fn new(ctx: &'a Context, ir: &'a Ir, limits: Limits) -> Interpreter<'a> {
        Interpreter {
            ctx,
            ir,
            limits,
            steps: 0,
        }
    }

    /// The `func.func` named `name` in the module: its body and op.
    fn function(&self, name: &str) -> Option<(BodyId, OpId)> {
        functions(self.ctx, self.ir)
            .into_iter()
            .find(|(n, _, _)| n == name)
            .map(|(_, b, o)| (b, o))
    }

    /// Calls the function `name` with `args`; its results.
    pub fn call(&mut self, name: &str, args: Vec<Tensor>) -> Result<Vec<Tensor>, InterpError> {
        self.call_at(name, args, 0)
    }

    fn call_at(
        &mut self,
        name: &str,
        args: Vec<Tensor>,
        depth: u32,
    ) -> Result<Vec<Tensor>, InterpError> {
        let Some((body, func)) = self.function(name) else {
            return Err(InterpError {
                message: format!("no function named '@{name}' in the module"),
                loc: None,
            });
        };
        let loc = self.ir.op(body, func).loc();
        if depth > self.limits.max_depth {
            return Err(InterpError::at(
                loc,
                format!("calls nested deeper than {}", self.limits.max_depth),
            ));
        }
        let Some(inner) = self.ir.body(body).nested_body(func) else {
            return Err(InterpError::at(
                loc,
                format!("'@{name}' is a declaration: it has no body to run"),
            ));
        };
        let region = self.ir.op(body, func).regions().first().copied();
        let Some(entry) = region.and_then(|r| self.ir.body(inner).entry_block(r)) else {
            return Err(InterpError::at(
                loc,
                format!("'@{name}' is a declaration: it has no body to run"),
            ));
        };
        let params = self.ir.body(inner).block_args(entry);
        if params.len() != args.len() {
            return Err(InterpError::at(
                loc,
                format!(
                    "'@{name}' takes {} arguments, got {}",
                    params.len(),
                    args.len()
                ),
            ));
        }
        for (p, a) in params.iter().zip(&args) {
            let want = self.ir.body(inner).value_type(*p);
            if a.ty != want {
                return Err(InterpError::at(
                    loc,
                    format!(
                        "argument of '@{name}' must be {}, got {}",
                        crate::value::type_text(self.ctx, want),
                        crate::value::type_text(self.ctx, a.ty)
                    ),
                ));
            }
        }
        self.run_region(inner, entry, args, depth)
    }

    /// Runs blocks from `entry` until a `func.return`.
    fn run_region(
        &mut self,
        body: BodyId,
        entry: BlockId,
        args: Vec<Tensor>,
        depth: u32,
    ) -> Result<Vec<Tensor>, InterpError> {
        let mut env: FxHashMap<ValueId, Tensor> = FxHashMap::default();
        let mut block = entry;
        let mut block_args = args;
        loop {
            let b = self.ir.body(body);
            for (p, v) in b.block_args(block).iter().zip(block_args.drain(..)) {
                env.insert(*p, v);
            }
            let ops: Vec<OpId> = b.block_ops(block).collect();
            let mut next = None;
            for op in ops {
                self.steps += 1;
                let r = self.ir.op(body, op);
                if self.steps > self.limits.max_steps {
                    return Err(InterpError::at(
                        r.loc(),
                        format!("stopped after {} ops", self.limits.max_steps),
                    ));
                }
                let operands = r
                    .operands()
                    .map(|v| env.get(&v).cloned())
                    .collect::<Option<Vec<Tensor>>>()
                    .ok_or_else(|| {
                        InterpError::at(
                            r.loc(),
                            "an operand has no value (read before it was computed)",
                        )
                    })?;
                let name = self.ctx.op_name_str(r.name());
                match name {
                    "func.return" => return Ok(operands),
                    "func.call" => {
                        let callee = r
                            .attr(self.ctx, "callee")
                            .and_then(|c| match self.ctx.attr_data(c) {
                                acc_ir::AttrData::SymbolRef { root, .. } => {
                                    Some(self.ctx.str(*root).to_string())
                                }
                                _ => None,
                            })
                            .ok_or_else(|| InterpError::at(r.loc(), "call without a callee"))?;
                        let results = self.call_at(&callee, operands, depth + 1)?;
                        for (v, t) in r.results().zip(results) {
                            env.insert(v, t);
                        }
                        continue;
                    }
                    _ => {}
                }
                if r.successors().len() > 0 {
                    next = Some(self.branch(body, op, &operands)?);
                    break;
                }
                let results = self.apply_rule(body, op, &operands)?;
                for (v, t) in r.results().zip(results) {
                    env.insert(v, t);
                }
            }
            let Some((target, values)) = next else {
                let last = self.ir.body(body).block_ops(block).last();
                return Err(InterpError {
                    message: "a block ended without a terminator".into(),
                    loc: last.map(|o| self.ir.op(body, o).loc()),
                });
            };
            block = target;
            block_args = values;
        }
    }

    /// The successor a branch takes and the values it passes.
    fn branch(
        &self,
        body: BodyId,
        op: OpId,
        operands: &[Tensor],
    ) -> Result<(BlockId, Vec<Tensor>), InterpError> {
        let r = self.ir.op(body, op);
        let name = self.ctx.op_name_str(r.name());
        let index = match name {
            "cf.br" => 0,
            "cf.cond_br" => {
                let cond = operands.first().and_then(Tensor::scalar);
                match cond {
                    Some(acc_ir::elements::Scalar::Int(c)) => usize::from(c == 0),
                    _ => {
                        return Err(InterpError::at(
                            r.loc(),
                            "the condition of cf.cond_br must be an i1",
                        ));
                    }
                }
            }
            other => {
                return Err(InterpError::at(
                    r.loc(),
                    format!("no semantics for the branch '{other}'"),
                ));
            }
        };
        let target = r
            .successors()
            .nth(index)
            .ok_or_else(|| InterpError::at(r.loc(), "missing successor"))?;
        let range = self
            .ctx
            .op_def(r.name())
            .and_then(|d| d.successor_operands.clone())
            .and_then(|h| h(r, self.ctx, index))
            .ok_or_else(|| {
                InterpError::at(r.loc(), "cannot tell which operands go to the successor")
            })?;
        let values = operands
            .get(range)
            .ok_or_else(|| InterpError::at(r.loc(), "successor operands out of range"))?
            .to_vec();
        Ok((target, values))
    }

    /// Runs a non-control op by its dialect rule.
    fn apply_rule(
        &self,
        body: BodyId,
        op: OpId,
        operands: &[Tensor],
    ) -> Result<Vec<Tensor>, InterpError> {
        let r = self.ir.op(body, op);
        let name = self.ctx.op_name_str(r.name());
        let rule_name = self.ctx.op_def(r.name()).and_then(|d| d.interpret.clone());
        let rule = rule_name.as_deref().and_then(rules::rule).ok_or_else(|| {
            InterpError::at(r.loc(), format!("'{name}' has no interpreter semantics"))
        })?;
        let input = RuleInput {
            ctx: self.ctx,
            op: r,
            name: name.rsplit('.').next().unwrap_or(name),
            operands,
        };
        let results =
            rule(&input).map_err(|m| InterpError::at(r.loc(), format!("'{name}': {m}")))?;
        let want = r.results().len();
        if results.len() != want {
            return Err(InterpError::at(
                r.loc(),
                format!("'{name}' gave {} results for {want}", results.len()),
            ));
        }
        for (t, v) in results.iter().zip(r.results()) {
            let ty = self.ir.body(body).value_type(v);
            if t.ty != ty {
                return Err(InterpError::at(
                    r.loc(),
                    format!(
                        "'{name}' computed a {} where the IR says {}",
                        crate::value::type_text(self.ctx, t.ty),
                        crate::value::type_text(self.ctx, ty)
                    ),
                ));
            }
        }
        Ok(results)
    }
}

/// The `func.func` ops directly in the module: name, body and op.
pub(crate) fn functions(ctx: &Context, ir: &Ir) -> Vec<(String, BodyId, OpId)> {
    let (body, root) = (ir.root_body, ir.root);
    let inner = ir.region_body(body, root);
    let b = ir.body(inner);
    let Some(&region) = ir.op(body, root).regions().first() else {
        return Vec::new();
    };
    b.region_blocks(region)
        .flat_map(|bl| b.block_ops(bl))
        .filter_map(|o| {
            let r = ir.op(inner, o);
            if ctx.op_name_str(r.name()) != "func.func" {
                return None;
            }
            match r.attr(ctx, "sym_name").map(|n| ctx.attr_data(n)) {
                Some(acc_ir::AttrData::String { value, .. }) => {
                    Some((ctx.str(*value).to_string(), inner, o))
                }
                _ => None,
            }
        })
        .collect()
}

/// The names of the module's functions, in order.
pub fn function_names(ctx: &Context, ir: &Ir) -> Vec<String> {
    functions(ctx, ir).into_iter().map(|(n, _, _)| n).collect()
}

/// The argument types of the function `name`, if it exists and has a body.
pub fn parameter_types(ctx: &Context, ir: &Ir, name: &str) -> Option<Vec<acc_ir::TypeId>> {
    let (_, body, op) = functions(ctx, ir).into_iter().find(|(n, _, _)| n == name)?;
    let inner = ir.body(body).nested_body(op)?;
    let entry = ir
        .body(inner)
        .entry_block(*ir.op(body, op).regions().first()?)?;
    let b = ir.body(inner);
    Some(
        b.block_args(entry)
            .iter()
            .map(|a| b.value_type(*a))
            .collect(),
    )
}
