//! Running a pipeline: each pass on its op, nested pipelines on each matching op one
//! level down, in parallel across isolated ops (functions) when asked. After each pass
//! the op it ran on is verified (unless turned off); IR is dumped before or after the
//! passes asked for; times are collected in a tree shaped like the pipeline.
//!
//! Parallel runs give the same result as serial ones: each thread works on its own
//! functions (see `acc_ir::split`), and dumps, diagnostics and errors are reported in the
//! functions' order, whatever thread ran them.

use std::time::Instant;

use crate::PassTarget;
use crate::pipeline::{Element, PassInstance, Pipeline};
use crate::timing::TimingNode;
use acc_ir::context::Context;
use acc_ir::diag::{DiagLoc, Diagnostic};
use acc_ir::ir::{BodyId, Ir, OpId};
use acc_ir::printer::{PrintOptions, print_op};
use acc_ir::split as workers;
use acc_ir::verifier;
use acc_target::Targets;

/// How to run a pipeline.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Verify the op after each pass.
    pub verify_each: bool,
    /// Threads for nested pipelines on isolated ops (1: serial).
    pub threads: usize,
    /// Dump the IR before passes of these names.
    pub print_before: Vec<String>,
    /// Dump the IR after passes of these names.
    pub print_after: Vec<String>,
    /// Dump the IR before every pass.
    pub print_before_all: bool,
    /// Dump the IR after every pass.
    pub print_after_all: bool,
    /// Dump the IR after a pass only when it changed it (with `print_after*`, or alone
    /// for every pass).
    pub print_after_change: bool,
    /// Dump the IR after a pass that failed (or left invalid IR), as MLIR's
    /// `--mlir-print-ir-after-failure`.
    pub print_after_failure: bool,
    /// How dumps are printed.
    pub print: PrintOptions,
    /// The targets of the compilation, handed to every pass.
    pub targets: Targets,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            verify_each: true,
            threads: 1,
            print_before: Vec::new(),
            print_after: Vec::new(),
            print_before_all: false,
            print_after_all: false,
            print_after_change: false,
            print_after_failure: false,
            print: PrintOptions::default(),
            targets: Targets::new(),
        }
    }
}

impl RunOptions {
    fn dump_before(&self, name: &str) -> bool {
        self.print_before_all || self.print_before.iter().any(|n| n == name)
    }
    fn dump_after(&self, name: &str) -> bool {
        self.print_after_all
            || self.print_after.iter().any(|n| n == name)
            || (self.print_after_change && self.print_after.is_empty())
    }
}

/// What a run reports besides the changed IR.
#[derive(Debug, Default)]
pub struct RunOutput {
    /// IR dumps, in order (for standard error).
    pub dumps: String,
    /// Times, shaped like the pipeline.
    pub timing: TimingNode,
    /// Remarks and warnings the passes reported.
    pub diagnostics: Vec<Diagnostic>,
    /// Files the passes produced beside the IR, in order: the caller writes them
    /// when the run succeeded (a failed run's are dropped).
    pub files: Vec<crate::SideFile>,
    /// The passes' counters, by pass title in the order the passes first ran, each
    /// summed over every run of that pass.
    pub statistics: Vec<(String, Vec<crate::Statistic>)>,
}

impl RunOutput {
    /// Adds the counters `stats` of the pass titled `title`.
    pub fn add_statistics(&mut self, title: &str, stats: &[crate::Statistic]) {
        if stats.is_empty() {
            return;
        }
        let at = match self.statistics.iter().position(|(t, _)| t == title) {
            Some(i) => i,
            None => {
                self.statistics.push((title.to_string(), Vec::new()));
                self.statistics.len() - 1
            }
        };
        for s in stats {
            crate::add_statistic(&mut self.statistics[at].1, s);
        }
    }

    /// The report of `--mlir-pass-statistics`, as MLIR prints it in its list form:
    /// each pass with counters, by title, and its counters.
    pub fn statistics_report(&self) -> String {
        let rule =
            "===-------------------------------------------------------------------------===";
        let mut out =
            format!("{rule}\n                         ... Pass statistics report ...\n{rule}\n");
        let mut passes: Vec<&(String, Vec<crate::Statistic>)> = self.statistics.iter().collect();
        passes.sort_by(|a, b| a.0.cmp(&b.0));
        for (title, stats) in passes {
            out.push_str(&format!("{title}\n"));
            for s in stats {
                out.push_str(&format!(
                    "  (S) {} {} - {}\n",
                    s.value, s.name, s.description
                ));
            }
        }
        out
    }
}

/// A failed run: the errors, and what was reported before them.
#[derive(Debug)]
pub struct RunFailure {
    /// The errors (a pass's, or the verifier's after a pass).
    pub errors: Vec<Diagnostic>,
    /// Dumps, times and diagnostics up to the failure.
    pub output: Box<RunOutput>,
}

/// What running a nested pipeline on one function gives: its output and its result.
type FunctionRun = (RunOutput, Result<(), Vec<Diagnostic>>);

/// The timing node of a pipeline, with one child per element.
fn timing_shape(p: &Pipeline) -> TimingNode {
    let mut node = TimingNode::new(format!("'{}' Pipeline", p.anchor));
    for e in &p.elements {
        node.children.push(match e {
            Element::Pass(pi) => TimingNode::new(pi.info.title),
            Element::Nested(n) => timing_shape(n),
        });
    }
    node
}

/// Runs `pipeline` on the root op of `ir`.
pub fn run(
    pipeline: &Pipeline,
    ctx: &Context,
    ir: &mut Ir,
    opts: &RunOptions,
) -> Result<RunOutput, RunFailure> {
    let mut out = RunOutput {
        timing: timing_shape(pipeline),
        ..Default::default()
    };
    let (body, root) = (ir.root_body, ir.root);
    let root_name = ctx.op_name_str(ir.op(body, root).name()).to_string();
    if pipeline.anchor != "any" && pipeline.anchor != root_name {
        return Err(RunFailure {
            errors: vec![Diagnostic::error(
                DiagLoc::Loc(ir.op(body, root).loc()),
                format!(
                    "can't run '{}' pass manager on '{root_name}' op",
                    pipeline.anchor
                ),
            )],
            output: Box::new(out),
        });
    }
    let start = Instant::now();
    let mut timing = std::mem::take(&mut out.timing);
    // Symbol lookups (the verifier's, after each pass) share one table per symbol
    // table, checked against the IR the passes change: verifying each of N functions
    // calling others is then O(N), not O(N²).
    let result = acc_ir::symbols::with_checked_cache(|| {
        run_pipeline(pipeline, &mut timing, ctx, ir, body, root, opts, &mut out)
    });
    timing.time += start.elapsed();
    out.timing = timing;
    match result {
        Ok(()) => Ok(out),
        Err(errors) => Err(RunFailure {
            errors,
            output: Box::new(out),
        }),
    }
}

#[allow(clippy::too_many_arguments)]
fn run_pipeline(
    p: &Pipeline,
    timing: &mut TimingNode,
    ctx: &Context,
    ir: &mut Ir,
    body: BodyId,
    op: OpId,
    opts: &RunOptions,
    out: &mut RunOutput,
) -> Result<(), Vec<Diagnostic>> {
    for (i, e) in p.elements.iter().enumerate() {
        let node = &mut timing.children[i];
        match e {
            Element::Pass(pi) => run_pass(pi, node, ctx, ir, body, op, opts, out)?,
            Element::Nested(np) => {
                let start = Instant::now();
                let result = run_nested(np, node, ctx, ir, body, op, opts, out);
                node.time += start.elapsed();
                result?
            }
        }
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn run_pass(
    pi: &PassInstance,
    node: &mut TimingNode,
    ctx: &Context,
    ir: &mut Ir,
    body: BodyId,
    op: OpId,
    opts: &RunOptions,
    out: &mut RunOutput,
) -> Result<(), Vec<Diagnostic>> {
    let name = pi.info.name;
    // Ctrl-C in the REPL: stop before the next pass (the caller's IR is a copy).
    if acc_ir::interrupt::requested() {
        return Err(vec![Diagnostic::error(
            DiagLoc::Loc(ir.op(body, op).loc()),
            format!("{} before pass '{name}'", acc_ir::interrupt::MESSAGE),
        )]);
    }
    let header = |when: &str| {
        format!(
            "// -----// IR Dump {when} {} ({name}) //----- //\n",
            pi.info.title
        )
    };
    if opts.dump_before(name) {
        out.dumps.push_str(&header("Before"));
        out.dumps
            .push_str(&print_op(ctx, ir, body, op, &opts.print));
    }
    let before = (opts.print_after_change && opts.dump_after(name))
        .then(|| print_op(ctx, ir, body, op, &opts.print));
    let start = Instant::now();
    let mut target = PassTarget {
        ctx,
        ir,
        body,
        op,
        targets: &opts.targets,
        diagnostics: Vec::new(),
        files: Vec::new(),
        statistics: Vec::new(),
    };
    let result = pi.pass.run(&mut target);
    node.time += start.elapsed();
    out.diagnostics.append(&mut target.diagnostics);
    out.files.append(&mut target.files);
    out.add_statistics(pi.info.title, &target.statistics);
    let failed = |out: &mut RunOutput, ir: &Ir| {
        if opts.print_after_failure {
            out.dumps.push_str(&format!(
                "// -----// IR Dump After {} Failed ({name}) //----- //\n",
                pi.info.title
            ));
            // Printed generically: the IR a pass left behind may not verify.
            let generic = PrintOptions {
                generic: true,
                ..opts.print.clone()
            };
            out.dumps.push_str(&print_op(ctx, ir, body, op, &generic));
        }
    };
    if let Err(e) = result {
        failed(out, ir);
        return Err(vec![e]);
    }
    if opts.verify_each
        && let Err(mut errors) = verifier::verify_op_parallel(ctx, ir, body, op, opts.threads)
    {
        failed(out, ir);
        errors.push(Diagnostic::error(
            DiagLoc::Loc(ir.op(body, op).loc()),
            format!("the IR is invalid after pass '{name}'"),
        ));
        return Err(errors);
    }
    if opts.dump_after(name) {
        let after = print_op(ctx, ir, body, op, &opts.print);
        if before.as_ref().is_none_or(|b| *b != after) {
            out.dumps.push_str(&header("After"));
            out.dumps.push_str(&after);
        }
    }
    Ok(())
}

/// The ops one level down in `op`'s regions that `p` runs on.
fn anchors(ctx: &Context, ir: &Ir, body: BodyId, op: OpId, p: &Pipeline) -> (BodyId, Vec<OpId>) {
    let inner = ir.region_body(body, op);
    let b = ir.body(inner);
    let mut found = Vec::new();
    for &r in ir.op(body, op).regions() {
        for block in b.region_blocks(r) {
            for child in b.block_ops(block) {
                if p.anchor == "any" || ctx.op_name_str(b.op(child).name) == p.anchor {
                    found.push(child);
                }
            }
        }
    }
    (inner, found)
}

#[allow(clippy::too_many_arguments)]
fn run_nested(
    p: &Pipeline,
    node: &mut TimingNode,
    ctx: &Context,
    ir: &mut Ir,
    body: BodyId,
    op: OpId,
    opts: &RunOptions,
    out: &mut RunOutput,
) -> Result<(), Vec<Diagnostic>> {
    let (inner, children) = anchors(ctx, ir, body, op, p);
    run_on_children(p, node, ctx, ir, inner, &children, opts, out)?;
    // A pipeline on an op kind (`func.func`) also reaches those ops in modules nested
    // in this one, as `mlir-opt --cse` does.
    if p.anchor != "any" && p.anchor != "builtin.module" {
        let modules: Vec<OpId> = {
            let b = ir.body(inner);
            ir.op(body, op)
                .regions()
                .iter()
                .flat_map(|r| b.region_blocks(*r))
                .flat_map(|bl| b.block_ops(bl))
                .filter(|c| ctx.op_name_str(b.op(*c).name) == "builtin.module")
                .collect()
        };
        for m in modules {
            run_nested(p, node, ctx, ir, inner, m, opts, out)?;
        }
    }
    Ok(())
}

/// Runs `p` on `children` (ops of `inner`), on several threads when they are isolated.
#[allow(clippy::too_many_arguments)]
fn run_on_children(
    p: &Pipeline,
    node: &mut TimingNode,
    ctx: &Context,
    ir: &mut Ir,
    inner: BodyId,
    children: &[OpId],
    opts: &RunOptions,
    out: &mut RunOutput,
) -> Result<(), Vec<Diagnostic>> {
    let isolated = children
        .iter()
        .all(|c| ir.body(inner).nested_body(*c).is_some());
    if opts.threads <= 1 || children.len() < 2 || !isolated {
        for &child in children {
            run_pipeline(p, node, ctx, ir, inner, child, opts, out)?;
        }
        return Ok(());
    }
    // Contiguous groups of functions, one per thread.
    let threads = opts.threads.min(children.len());
    let per = children.len().div_ceil(threads);
    let groups: Vec<Vec<OpId>> = children.chunks(per).map(<[OpId]>::to_vec).collect();
    let mut workers = workers::split(ir, inner, &groups);
    let shape = timing_shape(p);
    let results: Vec<(TimingNode, Vec<FunctionRun>)> = std::thread::scope(|s| {
        let handles: Vec<_> = workers
            .iter_mut()
            .zip(&groups)
            .map(|(w, group)| {
                let shape = shape.clone();
                s.spawn(move || {
                    acc_ir::symbols::with_checked_cache(|| {
                        let mut node = shape;
                        let mut per_child = Vec::new();
                        for &child in group {
                            let mut o = RunOutput::default();
                            let r = run_pipeline(
                                p, &mut node, ctx, &mut w.ir, inner, child, opts, &mut o,
                            );
                            let failed = r.is_err();
                            per_child.push((o, r));
                            if failed {
                                break;
                            }
                        }
                        (node, per_child)
                    })
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    workers::join(ir, workers);
    let mut first_error = None;
    for (timing, per_child) in results {
        // The nested pipeline's own total is measured by the caller.
        let mut t = timing;
        t.time = std::time::Duration::ZERO;
        node.merge(&t);
        for (o, r) in per_child {
            // As a serial run, report nothing after the first failing function.
            if first_error.is_some() {
                break;
            }
            out.dumps.push_str(&o.dumps);
            out.diagnostics.extend(o.diagnostics);
            out.files.extend(o.files);
            for (title, stats) in &o.statistics {
                out.add_statistics(title, stats);
            }
            if let Err(e) = r {
                first_error = Some(e);
            }
        }
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}
