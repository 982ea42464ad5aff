//! Running functions: the values of a body in an environment, blocks executed op by
//! op, branches following successors, `func.call` and `func.return`.

use std::cell::{Cell, RefCell};
use std::sync::Arc;

use acc_dialects::ops::{cf, func, hw, loops, tensor};
use acc_dialects::semantics::Rule;
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

/// What a traced run did: the `hw.intrinsic`, `hw.dma_start`, `hw.dma_wait`,
/// `hw.launch` and `hw.wait` ops it ran, in order, each with the number of host ops
/// run since the previous one (ops the interpreter ran outside calls' semantics
/// regions and launches: arithmetic, loads, stores, graph ops), and the host ops run
/// after the last.
#[derive(Clone, Debug, Default)]
pub struct HwTrace {
    /// Each traced op, in the order it ran.
    pub ops: Vec<TracedOp>,
    /// The host ops run since the last traced op.
    pub host_ops: u64,
    /// The ops of the open launch's own code run since its last traced op.
    pub device_ops: u64,
}

/// One traced op.
#[derive(Clone, Copy, Debug)]
pub struct TracedOp {
    /// The body holding it.
    pub body: BodyId,
    /// The op.
    pub op: OpId,
    /// The host ops run before it, since the previous traced op.
    pub host_ops: u64,
    /// For an op of a launch's region: the index (in [`HwTrace::ops`]) of the
    /// launch.
    pub launch: Option<usize>,
    /// The device's own code (ops outside calls and transfers) run: for an op of a
    /// launch's region, the ops before it since the previous traced op of the launch;
    /// for a `hw.launch`, those after its last traced op.
    pub device_ops: u64,
}

/// Runs the functions of one module.
pub struct Interpreter<'a> {
    ctx: &'a Context,
    ir: &'a Ir,
    limits: Limits,
    steps: Cell<u64>,
    /// Rules added by the embedding program (a vendor's intrinsics), by name; they
    /// take precedence over acc's own.
    extra_rules: FxHashMap<String, rules::RuleFn>,
    /// While tracing: the `hw.intrinsic` and DMA ops run, in order (what a simulator charges
    /// for).
    hw_ops_run: RefCell<Option<HwTrace>>,
    /// How deep the run is in calls' semantics regions (whose ops the host does not
    /// run).
    in_semantics: Cell<u32>,
    /// While recording: the least and greatest element of each float value computed.
    ranges: RefCell<Option<Ranges>>,
    /// The module's functions by name, built at the first call (a lookup per call
    /// would make deep call chains quadratic) unless given
    /// ([`Interpreter::with_functions`]).
    functions: std::sync::OnceLock<Arc<FunctionTable>>,
    /// The launches whose tokens nothing has waited for.
    launches: RefCell<crate::launches::Launches>,
    /// While a launch's region runs and the run is traced: the launch's index in the
    /// trace.
    current_launch: Cell<Option<usize>>,
}

/// The least and greatest element each float value took, over every time it was
/// computed (calibration statistics).
pub type Ranges = FxHashMap<(BodyId, ValueId), (f64, f64)>;

/// Widens `ranges[key]` to the finite float elements of `t`.
fn record_range(ranges: &mut Ranges, key: (BodyId, ValueId), t: &Tensor) {
    if !matches!(t.kind, acc_ir::elements::ElementKind::Float(_)) {
        return;
    }
    let Ok(values) = t.values() else {
        return;
    };
    let finite = values.iter().filter_map(|v| match v {
        acc_ir::elements::Scalar::Float(f) if f.is_finite() => Some(*f),
        _ => None,
    });
    for f in finite {
        let slot = ranges.entry(key).or_insert((f, f));
        slot.0 = slot.0.min(f);
        slot.1 = slot.1.max(f);
    }
}

/// The values computed so far in a function (blocks of nested regions included: SSA
/// names are unique in a body).
type Env = RefCell<FxHashMap<ValueId, Tensor>>;

/// How a block ended.
enum Flow {
    /// `func.return` with these values.
    Return(Vec<Tensor>),
    /// A branch to a block with its arguments.
    Branch(BlockId, Vec<Tensor>),
    /// A region's yield (at this location) with these values.
    Yield(AttrId, Vec<Tensor>),
}

impl<'a> Interpreter<'a> {
    /// An interpreter for the module `ir`.
    pub fn new(ctx: &'a Context, ir: &'a Ir, limits: Limits) -> Interpreter<'a> {
        Interpreter {
            ctx,
            ir,
            limits,
            steps: Cell::new(0),
            extra_rules: FxHashMap::default(),
            hw_ops_run: RefCell::new(None),
            in_semantics: Cell::new(0),
            ranges: RefCell::new(None),
            launches: RefCell::default(),
            current_launch: Cell::new(None),
            functions: std::sync::OnceLock::new(),
        }
    }

    /// Starts recording the range of every float value computed from now on (the
    /// function arguments excluded), or stops and returns what was recorded.
    pub fn record_ranges(&mut self, on: bool) -> Option<Ranges> {
        let before = self.ranges.get_mut().take();
        if on {
            *self.ranges.get_mut() = Some(Ranges::default());
        }
        before
    }

    /// Starts tracing the `hw.intrinsic`, `hw.dma_start` and `hw.dma_wait` ops run
    /// from now on, or stops; the trace so far, in the order they ran (an op in a
    /// loop once per iteration), with the host's ops counted between them: what a
    /// simulator charges cycles for.
    pub fn trace_hw_ops(&mut self, on: bool) -> HwTrace {
        let trace = self.hw_ops_run.get_mut().take().unwrap_or_default();
        if on {
            *self.hw_ops_run.get_mut() = Some(HwTrace::default());
        }
        trace
    }

    /// Adds (or replaces) the rule `name`: every op whose definition says
    /// `interpret NAME` then runs `rule`. This is how a vendor's Rust semantics for its
    /// intrinsics reach the interpreter without changing acc.
    pub fn add_rule(&mut self, name: &str, rule: rules::RuleFn) -> &mut Self {
        self.extra_rules.insert(name.to_string(), rule);
        self
    }

    /// Uses `table` (built by [`FunctionTable::of`] from this interpreter's IR) to find
    /// functions: a caller running many functions of one module builds it once.
    pub fn with_functions(self, table: Arc<FunctionTable>) -> Self {
        let _ = self.functions.set(table);
        self
    }

    /// The `func.func` named `name` in the module: its body and op.
    fn function(&self, name: &str) -> Option<(BodyId, OpId)> {
        self.functions
            .get_or_init(|| Arc::new(FunctionTable::of(self.ctx, self.ir)))
            .get(name)
    }

    /// Calls the function `name` with `args`; its results (a `memref` result with its
    /// elements read out of its buffer, a result of bounded size cut to its size:
    /// [`crate::bounded`]).
    pub fn call(&mut self, name: &str, args: Vec<Tensor>) -> Result<Vec<Tensor>, InterpError> {
        self.launches.get_mut().reset();
        let results = self.call_at(name, args, 0)?;
        let pending = self.launches.get_mut().pending();
        if pending > 0 {
            return Err(InterpError {
                message: format!(
                    "'@{name}' returned with {pending} launches whose tokens nothing waited for (their work may still be running)"
                ),
                loc: None,
            });
        }
        let failed = |m: String| InterpError {
            message: format!("result of '@{name}': {m}"),
            loc: None,
        };
        let triples = match self.function(name) {
            Some((body, op)) => {
                acc_dialects::hooks::func::result_sizes(self.ctx, self.ir.op(body, op))
                    .map_err(failed)?
            }
            None => Vec::new(),
        };
        crate::bounded::trim(self.ctx, &triples, results)
            .map_err(failed)?
            .iter()
            .map(|t| {
                t.materialized().map_err(|m| InterpError {
                    message: format!("result of '@{name}': {m}"),
                    loc: None,
                })
            })
            .collect()
    }

    fn call_at(
        &self,
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
        &self,
        body: BodyId,
        entry: BlockId,
        args: Vec<Tensor>,
        depth: u32,
    ) -> Result<Vec<Tensor>, InterpError> {
        let env = Env::default();
        let mut block = entry;
        let mut block_args = args;
        loop {
            match self.exec_block(body, block, block_args, &env, depth)? {
                Flow::Return(values) => return Ok(values),
                Flow::Branch(target, values) => {
                    block = target;
                    block_args = values;
                }
                Flow::Yield(loc, _) => {
                    return Err(InterpError::at(loc, "a yield outside of a region"));
                }
            }
        }
    }

    /// Runs region `index` of `op` (a single block ending in a yield) with `args` for
    /// its block arguments; the values it yields. Values from above are read from `env`.
    fn run_nested(
        &self,
        body: BodyId,
        op: OpId,
        index: usize,
        args: Vec<Tensor>,
        env: &Env,
        depth: u32,
    ) -> Result<Vec<Tensor>, InterpError> {
        let r = self.ir.op(body, op);
        let block = r
            .regions()
            .get(index)
            .and_then(|region| self.ir.body(body).entry_block(*region))
            .ok_or_else(|| InterpError::at(r.loc(), format!("has no region #{index}")))?;
        match self.exec_block(body, block, args, env, depth)? {
            Flow::Yield(_, values) => Ok(values),
            Flow::Return(_) | Flow::Branch(..) => {
                Err(InterpError::at(r.loc(), "its region must end in a yield"))
            }
        }
    }

    /// Runs the ops of `block` (its arguments bound to `args`) up to its terminator.
    fn exec_block(
        &self,
        body: BodyId,
        block: BlockId,
        args: Vec<Tensor>,
        env: &Env,
        depth: u32,
    ) -> Result<Flow, InterpError> {
        let b = self.ir.body(body);
        let params = b.block_args(block);
        if params.len() != args.len() {
            let loc = b.block_ops(block).next().map(|o| self.ir.op(body, o).loc());
            return Err(InterpError {
                message: format!(
                    "a block of {} arguments entered with {} values",
                    params.len(),
                    args.len()
                ),
                loc,
            });
        }
        {
            let mut e = env.borrow_mut();
            for (p, v) in params.iter().zip(args) {
                e.insert(*p, v);
            }
        }
        for op in b.block_ops(block) {
            let r = self.ir.op(body, op);
            self.steps.set(self.steps.get() + 1);
            if acc_ir::interrupt::requested() {
                return Err(InterpError::at(r.loc(), acc_ir::interrupt::MESSAGE));
            }
            if self.steps.get() > self.limits.max_steps {
                return Err(InterpError::at(
                    r.loc(),
                    format!("stopped after {} ops", self.limits.max_steps),
                ));
            }
            let operands = {
                let e = env.borrow();
                r.operands()
                    .map(|v| e.get(&v).cloned())
                    .collect::<Option<Vec<Tensor>>>()
            }
            .ok_or_else(|| {
                InterpError::at(
                    r.loc(),
                    "an operand has no value (read before it was computed)",
                )
            })?;
            if func::Return::is(self.ctx, r) {
                if operands.iter().any(|t| t.undefined.is_some()) {
                    return Err(InterpError::at(
                        r.loc(),
                        "returns a tensor with unspecified elements (from tensor.empty)",
                    ));
                }
                return Ok(Flow::Return(operands));
            }
            if loops::Yield::is(self.ctx, r)
                || tensor::Yield::is(self.ctx, r)
                || hw::Yield::is(self.ctx, r)
            {
                return Ok(Flow::Yield(r.loc(), operands));
            }
            if func::Call::is(self.ctx, r) {
                let callee = r
                    .attr(self.ctx, func::Call::ATTR_CALLEE)
                    .and_then(|c| match self.ctx.attr_data(c) {
                        acc_ir::AttrData::SymbolRef { root, .. } => {
                            Some(self.ctx.str(*root).to_string())
                        }
                        _ => None,
                    })
                    .ok_or_else(|| InterpError::at(r.loc(), "call without a callee"))?;
                let results = self.call_at(&callee, operands, depth + 1)?;
                let mut e = env.borrow_mut();
                for (v, t) in r.results().zip(results) {
                    e.insert(v, t);
                }
                continue;
            }
            if self.launch_or_wait(body, op, &operands, env, depth)? {
                continue;
            }
            if r.successors().len() > 0 {
                let (target, values) = self.branch(body, op, &operands)?;
                return Ok(Flow::Branch(target, values));
            }
            let results = self.apply_rule(body, op, &operands, env, depth)?;
            if let Some(ranges) = self.ranges.borrow_mut().as_mut() {
                for (v, t) in r.results().zip(&results) {
                    record_range(ranges, (body, v), t);
                }
            }
            let mut e = env.borrow_mut();
            for (v, t) in r.results().zip(results) {
                e.insert(v, t);
            }
        }
        let last = b.block_ops(block).last();
        Err(InterpError {
            message: "a block ended without a terminator".into(),
            loc: last.map(|o| self.ir.op(body, o).loc()),
        })
    }

    /// The successor a branch takes and the values it passes.
    fn branch(
        &self,
        body: BodyId,
        op: OpId,
        operands: &[Tensor],
    ) -> Result<(BlockId, Vec<Tensor>), InterpError> {
        let r = self.ir.op(body, op);
        let index = match cf::Op::of(self.ctx, r) {
            Some(cf::Op::Br) => 0,
            Some(cf::Op::CondBr) => {
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
            None => {
                let other = self.ctx.op_name_str(r.name());
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
        env: &Env,
        depth: u32,
    ) -> Result<Vec<Tensor>, InterpError> {
        let r = self.ir.op(body, op);
        let name = self.ctx.op_name_str(r.name());
        let hw_kind = hw::Op::of(self.ctx, r);
        if matches!(
            hw_kind,
            Some(hw::Op::Intrinsic | hw::Op::DmaStart | hw::Op::DmaWait)
        ) {
            self.trace(body, op);
        } else if hw_kind.is_none()
            && self.in_semantics.get() == 0
            && let Some(trace) = self.hw_ops_run.borrow_mut().as_mut()
        {
            match self.current_launch.get() {
                Some(_) => trace.device_ops += 1,
                None => trace.host_ops += 1,
            }
        }
        // The op's rule: a tool's own (declared in the context, added with
        // `add_rule`), else acc's; an intrinsic's is its semantics region or the
        // kernel its callee names.
        let interpret = self.ctx.op_def(r.name()).and_then(|d| d.interpret.clone());
        let known = interpret.as_deref().and_then(Rule::from_name);
        let intrinsic = known == Some(Rule::Intrinsic) || hw_kind == Some(hw::Op::Intrinsic);
        if intrinsic && self.has_semantics(body, op) {
            self.in_semantics.set(self.in_semantics.get() + 1);
            let out = self.intrinsic_semantics(body, op, operands, env, depth);
            self.in_semantics.set(self.in_semantics.get() - 1);
            return out;
        }
        let rule_name = if intrinsic {
            r.attr(self.ctx, hw::Intrinsic::ATTR_CALLEE)
                .and_then(|c| match self.ctx.attr_data(c) {
                    acc_ir::AttrData::String { value, .. } => {
                        Some(self.ctx.str(*value).to_string())
                    }
                    _ => None,
                })
        } else {
            interpret
        };
        let rule = rule_name
            .as_deref()
            .and_then(|n| {
                self.extra_rules.get(n).copied().or_else(|| {
                    if intrinsic {
                        rules::kernel(n)
                    } else {
                        Rule::from_name(n).and_then(rules::rule)
                    }
                })
            })
            .ok_or_else(|| {
                InterpError::at(r.loc(), format!("'{name}' has no interpreter semantics"))
            })?;
        // What is not a rule of the vocabulary (a host kernel) accepts nothing
        // unspecified.
        let named = rule_name.as_deref().and_then(Rule::from_name);
        for (i, t) in operands.iter().enumerate() {
            let accepted = named.is_some_and(|n| rules::accepts_unspecified(n, i, operands.len()));
            if t.undefined.is_some() && !accepted {
                return Err(InterpError::at(
                    r.loc(),
                    format!(
                        "'{name}' reads operand #{i}, whose elements are unspecified (from tensor.empty)"
                    ),
                ));
            }
        }
        // An error inside a region keeps its own location.
        let inner_error: RefCell<Option<InterpError>> = RefCell::new(None);
        let run_region = |index: usize, args: Vec<Tensor>| -> Result<Vec<Tensor>, String> {
            self.run_nested(body, op, index, args, env, depth)
                .map_err(|e| {
                    let message = e.message.clone();
                    inner_error.borrow_mut().get_or_insert(e);
                    message
                })
        };
        let input = RuleInput {
            ctx: self.ctx,
            op: r,
            name: name.rsplit('.').next().unwrap_or(name),
            operands,
            regions: &run_region,
            steps_left: self.limits.max_steps.saturating_sub(self.steps.get()),
        };
        let results = rule(&input).map_err(|m| {
            inner_error
                .borrow_mut()
                .take()
                .unwrap_or_else(|| InterpError::at(r.loc(), format!("'{name}': {m}")))
        })?;
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

impl Interpreter<'_> {
    /// Records `op` in the trace, when tracing: its index there.
    fn trace(&self, body: BodyId, op: OpId) -> Option<usize> {
        let mut trace = self.hw_ops_run.borrow_mut();
        let trace = trace.as_mut()?;
        let launch = self.current_launch.get();
        let (host_ops, device_ops) = if launch.is_some() {
            (0, std::mem::take(&mut trace.device_ops))
        } else {
            (std::mem::take(&mut trace.host_ops), 0)
        };
        trace.ops.push(TracedOp {
            body,
            op,
            host_ops,
            launch,
            device_ops,
        });
        Some(trace.ops.len() - 1)
    }

    /// Runs `op` when it is an `hw.launch` or an `hw.wait`: whether it was. (Out of
    /// `exec_block`, whose frame every nested call repeats, so that its locals do
    /// not deepen the stack of nested calls.)
    #[inline(never)]
    fn launch_or_wait(
        &self,
        body: BodyId,
        op: OpId,
        operands: &[Tensor],
        env: &Env,
        depth: u32,
    ) -> Result<bool, InterpError> {
        let r = self.ir.op(body, op);
        if let Some(view) = hw::Launch::of(self.ctx, r) {
            let token = self.launch(body, view, operands, depth)?;
            env.borrow_mut().insert(view.token(), token);
            return Ok(true);
        }
        if hw::Wait::is(self.ctx, r) {
            self.trace(body, op);
            self.wait(r.loc(), operands)?;
            return Ok(true);
        }
        Ok(false)
    }

    /// Issues the launch `view`: runs its region now, then puts the cells it touched
    /// in flight until its token is waited for ([`crate::launches`]). Its token.
    fn launch(
        &self,
        body: BodyId,
        view: hw::Launch<'_>,
        operands: &[Tensor],
        depth: u32,
    ) -> Result<Tensor, InterpError> {
        let r = view.op();
        let loc = r.loc();
        if crate::value::running_launch() {
            return Err(InterpError::at(loc, "a launch inside a launch's region"));
        }
        let device = view.device().unwrap_or("?").to_string();
        let deps = view.deps().len();
        let tokens = operands[..deps]
            .iter()
            .map(launch_number)
            .collect::<Result<Vec<u32>, String>>()
            .map_err(|m| InterpError::at(loc, m))?;
        let (id, after) = self.launches.borrow_mut().issue(&device, &tokens);
        let what: std::sync::Arc<str> = match acc_ir::diag::file_line_col(self.ctx, loc) {
            Some(at) => format!(
                "the hw.launch on @{device} at {}:{}:{}",
                at.file, at.line, at.col
            ),
            None => format!("the hw.launch on @{device}"),
        }
        .into();
        let inner = r.region_body();
        let entry = self
            .ir
            .body(inner)
            .entry_block(view.body())
            .ok_or_else(|| InterpError::at(loc, "a launch without a body"))?;
        let index = self.trace(body, r.op);
        self.current_launch.set(index);
        let (flow, touched) = crate::value::in_launch(after.clone(), || {
            self.exec_block(
                inner,
                entry,
                operands[deps..].to_vec(),
                &Env::default(),
                depth,
            )
        });
        self.current_launch.set(None);
        if let (Some(i), Some(trace)) = (index, self.hw_ops_run.borrow_mut().as_mut()) {
            let tail = std::mem::take(&mut trace.device_ops);
            if let Some(launch) = trace.ops.get_mut(i) {
                launch.device_ops = tail;
            }
        }
        match flow? {
            Flow::Yield(..) => {}
            _ => {
                return Err(InterpError::at(
                    loc,
                    "a launch's region must end in hw.yield",
                ));
            }
        }
        let device: std::sync::Arc<str> = device.into();
        self.launches
            .borrow_mut()
            .claim(id, after, (&what, &device), touched);
        Ok(Tensor {
            ty: self.ir.body(body).value_type(view.token()),
            shape: Vec::new(),
            kind: acc_ir::elements::ElementKind::Int(32, acc_ir::Signedness::Unsigned),
            data: vec![acc_ir::elements::Scalar::Int(i128::from(id))],
            undefined: None,
            view: None,
        })
    }

    /// `hw.wait`: completes the launches of the tokens (and the transfers, for
    /// `hw.dma_start` tokens).
    fn wait(&self, loc: AttrId, tokens: &[Tensor]) -> Result<(), InterpError> {
        if crate::value::running_launch() {
            return Err(InterpError::at(
                loc,
                "hw.wait inside a launch's region (a launch waits with `after`)",
            ));
        }
        for t in tokens {
            match &t.view {
                Some(target) => target
                    .write_row_major(&t.shape, &t.data)
                    .map_err(|m| InterpError::at(loc, m))?,
                None => {
                    let id = launch_number(t).map_err(|m| InterpError::at(loc, m))?;
                    self.launches.borrow_mut().complete(id);
                }
            }
        }
        Ok(())
    }

    /// Whether the `hw.intrinsic` `op` has a non-empty `semantics` region.
    fn has_semantics(&self, body: BodyId, op: OpId) -> bool {
        let r = self.ir.op(body, op);
        r.regions()
            .first()
            .is_some_and(|region| self.ir.body(r.region_body()).entry_block(*region).is_some())
    }

    /// Runs an intrinsic by its `semantics` region: the operands listed by `inputs`
    /// are read as the region's arguments, and what it yields is written into the
    /// buffers listed by `outputs` (or, for an intrinsic with results, on tensors, is
    /// its results).
    fn intrinsic_semantics(
        &self,
        body: BodyId,
        op: OpId,
        operands: &[Tensor],
        env: &Env,
        depth: u32,
    ) -> Result<Vec<Tensor>, InterpError> {
        let r = self.ir.op(body, op);
        let fail = |m: String| InterpError::at(r.loc(), format!("'{}': {m}", hw::Intrinsic::NAME));
        let list = |key: &str| -> Result<Vec<usize>, InterpError> {
            let a = r
                .attr(self.ctx, key)
                .ok_or_else(|| fail(format!("no '{key}'")))?;
            match self.ctx.attr_data(a) {
                acc_ir::AttrData::DenseArray { data, .. } => Ok(data
                    .chunks_exact(8)
                    .filter_map(|c| c.try_into().ok().map(i64::from_le_bytes))
                    .filter_map(|i| usize::try_from(i).ok())
                    .collect()),
                _ => Err(fail(format!("'{key}' is not an array"))),
            }
        };
        let (inputs, outputs) = (
            list(hw::Intrinsic::ATTR_INPUTS)?,
            list(hw::Intrinsic::ATTR_OUTPUTS)?,
        );
        let region_body = self.ir.body(r.region_body());
        let block = r
            .regions()
            .first()
            .and_then(|region| region_body.entry_block(*region))
            .ok_or_else(|| fail("no semantics".into()))?;
        let mut args = Vec::new();
        for (i, a) in inputs.iter().zip(region_body.block_args(block)) {
            let t = operands
                .get(*i)
                .ok_or_else(|| fail(format!("no operand {i}")))?;
            let values = t.values().map_err(|m| fail(format!("input {i}: {m}")))?;
            let ty = region_body.value_type(*a);
            args.push(Tensor::new(self.ctx, ty, values).map_err(fail)?);
        }
        let results = self.run_nested(body, op, 0, args, env, depth)?;
        if r.results().next().is_some() {
            // On tensors (an external region before `bufferize`): its results.
            return Ok(results);
        }
        for (o, t) in outputs.iter().zip(results) {
            let target = operands
                .get(*o)
                .ok_or_else(|| fail(format!("no operand {o}")))?;
            let view = target
                .view
                .as_ref()
                .ok_or_else(|| fail(format!("output {o} is not a buffer")))?;
            let values = t.values().map_err(fail)?;
            view.write_row_major(&target.shape, &values)
                .map_err(|m| fail(format!("output {o}: {m}")))?;
        }
        Ok(Vec::new())
    }
}

/// The `func.func` ops directly in the module: name, the body holding the op, op.
pub fn functions(ctx: &Context, ir: &Ir) -> Vec<(String, BodyId, OpId)> {
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
            if !func::Func::is(ctx, r) {
                return None;
            }
            match r
                .attr(ctx, func::Func::ATTR_SYM_NAME)
                .map(|n| ctx.attr_data(n))
            {
                Some(acc_ir::AttrData::String { value, .. }) => {
                    Some((ctx.str(*value).to_string(), inner, o))
                }
                _ => None,
            }
        })
        .collect()
}

/// The module's functions by name (the first of two of one name, as a scan in order
/// finds it). Invariant: describes the IR it was built from, as long as no function is
/// added, erased or renamed.
pub struct FunctionTable(FxHashMap<String, (BodyId, OpId)>);

impl FunctionTable {
    /// The table of `ir`'s functions.
    pub fn of(ctx: &Context, ir: &Ir) -> FunctionTable {
        let mut table = FxHashMap::default();
        for (n, b, o) in functions(ctx, ir).into_iter().rev() {
            table.insert(n, (b, o));
        }
        FunctionTable(table)
    }

    /// The function `name`: the body holding it and its op.
    pub fn get(&self, name: &str) -> Option<(BodyId, OpId)> {
        self.0.get(name).copied()
    }
}

/// The names of the module's functions, in order.
pub fn function_names(ctx: &Context, ir: &Ir) -> Vec<String> {
    functions(ctx, ir).into_iter().map(|(n, _, _)| n).collect()
}

/// The string attribute `key` of each argument of function `name` (its
/// `arg_attrs`), `None` where an argument has none: the ONNX importer names arguments
/// so (`{onnx.name = "input"}`).
pub fn argument_names(ctx: &Context, ir: &Ir, name: &str, key: &str) -> Vec<Option<String>> {
    let Some((_, body, op)) = functions(ctx, ir).into_iter().find(|(n, _, _)| n == name) else {
        return Vec::new();
    };
    let Some(f) = func::Func::of(ctx, ir.op(body, op)) else {
        return Vec::new();
    };
    let Some(arg_attrs) = f.arg_attrs_attr() else {
        return Vec::new();
    };
    let acc_ir::attrs::AttrData::Array(items) = ctx.attr_data(arg_attrs) else {
        return Vec::new();
    };
    items
        .iter()
        .map(|d| {
            let value = ctx.dict_get(*d, key)?;
            match ctx.attr_data(value) {
                acc_ir::attrs::AttrData::String { value, .. } => Some(ctx.str(*value).to_string()),
                _ => None,
            }
        })
        .collect()
}

/// The argument types of the function `name`, if it exists and has a body.
pub fn parameter_types(ctx: &Context, ir: &Ir, name: &str) -> Option<Vec<acc_ir::TypeId>> {
    let (_, body, op) = functions(ctx, ir).into_iter().find(|(n, _, _)| n == name)?;
    function_parameter_types(ir, body, op)
}

/// The argument types of the function `op` of `body`, if it has a body.
pub fn function_parameter_types(ir: &Ir, body: BodyId, op: OpId) -> Option<Vec<acc_ir::TypeId>> {
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

/// The number of the launch a token stands for.
fn launch_number(token: &Tensor) -> Result<u32, String> {
    match (token.view.as_ref(), token.data.as_slice()) {
        (None, [acc_ir::elements::Scalar::Int(n)]) => {
            u32::try_from(*n).map_err(|_| "not a launch's token".to_string())
        }
        _ => Err("waits for a transfer's token where a launch's is expected".into()),
    }
}
