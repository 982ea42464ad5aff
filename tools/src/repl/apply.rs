//! Running passes for the REPL: pipelines are built as `acc-opt` builds them, and run on
//! a clone of the module, so the module itself never holds half-rewritten IR. A pass that
//! fails, leaves invalid IR or panics yields an error and the clone is dropped.

use std::panic::{AssertUnwindSafe, catch_unwind};

use acc_ir::printer::{PrintOptions, print_ir};
use acc_ir::{Context, DiagLoc, Diagnostic, Ir, SourceMap};
use acc_pass::PassRegistry;
use acc_pass::manager::{RunOptions, run};
use acc_pass::pipeline::Pipeline;
use acc_target::Targets;

use super::diff::{LineCounts, line_counts};

/// How a pipeline is written.
#[derive(Clone, Copy, Debug)]
pub enum Spelling<'a> {
    /// A pass list, `canonicalize,cse{...}`, nested by each pass's anchor (`--pass`).
    PassList(&'a str),
    /// MLIR's syntax, `builtin.module(func.func(cse))` (`--pass-pipeline`).
    Pipeline(&'a str),
}

/// Builds the pipeline; the error is rendered, pointing into the pipeline text.
pub fn build(spelling: Spelling<'_>, passes: &PassRegistry) -> Result<Pipeline, String> {
    let (text, result) = match spelling {
        Spelling::PassList(t) => (t, Pipeline::from_pass_list(t, passes)),
        Spelling::Pipeline(t) => (t, Pipeline::parse(t, passes)),
    };
    result.map_err(|(message, range)| {
        // The pipeline parser speaks to acc-opt users.
        let message = message.replace("--list-passes", ":passes");
        let mut sources = SourceMap::new();
        let file = sources.add("<pass pipeline>", text.to_string());
        sources.render(
            &Context::new(),
            &[Diagnostic::error(DiagLoc::Span(file, range), message)],
        )
    })
}

/// A successful run.
pub struct Applied {
    /// The transformed clone.
    pub ir: Ir,
    /// Remarks and warnings the passes reported.
    pub diagnostics: Vec<Diagnostic>,
    /// Files the passes produced (`view-graph`'s), for the session to write.
    pub files: Vec<acc_pass::SideFile>,
}

/// Runs `pipeline` on a clone of `ir`, verifying after each pass. The errors are the
/// pass's or the verifier's; a panic becomes an error too.
pub fn apply(
    pipeline: &Pipeline,
    ctx: &Context,
    targets: &Targets,
    ir: &Ir,
    threads: usize,
) -> Result<Applied, Vec<Diagnostic>> {
    let options = RunOptions {
        threads,
        targets: targets.clone(),
        ..RunOptions::default()
    };
    let mut work = ir.clone();
    // The clone is dropped on a panic, so nothing half-rewritten can be observed.
    let result = catch_unwind(AssertUnwindSafe(|| {
        run(pipeline, ctx, &mut work, &options)
            .map(|output| (output.diagnostics, output.files))
            .map_err(|failure| {
                let mut all = failure.output.diagnostics;
                all.extend(failure.errors);
                all
            })
    }));
    match result {
        Ok(Ok((diagnostics, files))) => Ok(Applied {
            ir: work,
            diagnostics,
            files,
        }),
        Ok(Err(diagnostics)) => Err(diagnostics),
        Err(payload) => {
            let why = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "no message".to_string());
            Err(vec![Diagnostic::error(
                DiagLoc::Unknown,
                format!(
                    "internal error: pipeline '{}' panicked: {why}",
                    pipeline.to_text()
                ),
            )])
        }
    }
}

/// A pass that changes a module, and by how much.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suggestion {
    /// The pass's name.
    pub name: &'static str,
    /// Its summary.
    pub summary: &'static str,
    /// Lines of the printed module it changes.
    pub counts: LineCounts,
}

/// The passes of `passes` that change the printed form of `ir` when run alone with
/// their default options, by name. Passes that need options, fail or panic are left out.
/// An interrupt (Ctrl-C) stops the search: the error says so.
pub fn suggest(
    passes: &PassRegistry,
    ctx: &Context,
    targets: &Targets,
    ir: &Ir,
    threads: usize,
) -> Result<Vec<Suggestion>, &'static str> {
    let print = PrintOptions::default();
    let before = print_ir(ctx, ir, &print);
    let mut out = Vec::new();
    for info in passes.iter() {
        let Ok(pipeline) = Pipeline::from_pass_list(info.name, passes) else {
            continue;
        };
        let applied = apply(&pipeline, ctx, targets, ir, threads);
        if acc_ir::interrupt::requested() {
            return Err(acc_ir::interrupt::MESSAGE);
        }
        let Ok(applied) = applied else {
            continue;
        };
        let after = print_ir(ctx, &applied.ir, &print);
        if after != before {
            out.push(Suggestion {
                name: info.name,
                summary: info.summary,
                counts: line_counts(&before, &after),
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use acc_pass::{Pass, PassConstructor, PassInfo, PassTarget};

    struct Panics;
    impl Pass for Panics {
        fn run(&self, _: &mut PassTarget<'_>) -> Result<(), Diagnostic> {
            panic!("test pass panics")
        }
    }

    struct Fails;
    impl Pass for Fails {
        fn run(&self, t: &mut PassTarget<'_>) -> Result<(), Diagnostic> {
            Err(Diagnostic::error(
                DiagLoc::Loc(t.op_ref().loc()),
                "test pass fails",
            ))
        }
    }

    fn registry() -> PassRegistry {
        let mut r = crate::opt::registry();
        let panics: PassConstructor = |_| Ok(Box::new(Panics));
        let fails: PassConstructor = |_| Ok(Box::new(Fails));
        for (name, create) in [("test-panic", panics), ("test-fail", fails)] {
            r.register(PassInfo {
                name,
                title: name,
                summary: "a test pass",
                anchor: None,
                options: Vec::new(),
                create,
            });
        }
        r
    }

    fn module(ctx: &mut Context) -> Ir {
        let mut sources = SourceMap::new();
        let text = "func.func @f(%a: i32) -> i32 {\n  %0 = arith.muli %a, %a : i32\n  \
                    %1 = arith.muli %a, %a : i32\n  %2 = arith.addi %0, %1 : i32\n  \
                    return %2 : i32\n}\n";
        let file = sources.add("t.mlir", text.to_string());
        acc_ir::parser::parse_file(ctx, &sources, file).expect("parses")
    }

    #[test]
    fn failures_and_panics_are_errors_on_a_clone() {
        let mut ctx = acc_dialects::new_context();
        let ir = module(&mut ctx);
        let passes = registry();
        let before = print_ir(&ctx, &ir, &PrintOptions::default());
        for (name, message) in [("test-fail", "test pass fails"), ("test-panic", "panicked")] {
            let p = build(Spelling::PassList(name), &passes).expect("builds");
            let errors = match apply(&p, &ctx, &Targets::new(), &ir, 1) {
                Ok(_) => panic!("{name} should fail"),
                Err(e) => e,
            };
            assert!(
                errors.iter().any(|d| d.message.contains(message)),
                "{name}: {errors:?}"
            );
        }
        assert_eq!(print_ir(&ctx, &ir, &PrintOptions::default()), before);
    }

    #[test]
    fn suggests_the_passes_that_change_the_module() {
        let mut ctx = acc_dialects::new_context();
        let ir = module(&mut ctx);
        let names: Vec<&str> = suggest(&registry(), &ctx, &Targets::new(), &ir, 1)
            .unwrap()
            .iter()
            .map(|s| s.name)
            .collect();
        assert_eq!(names, ["cse"]);
    }

    #[test]
    fn pipeline_mistakes_point_into_the_text() {
        let passes = registry();
        let e = build(Spelling::PassList("cse,nope"), &passes)
            .err()
            .expect("fails");
        assert!(e.contains("unknown pass 'nope' (see :passes)"), "{e}");
        assert!(e.contains("<pass pipeline>:1:5"), "{e}");
        assert!(build(Spelling::Pipeline("builtin.module(cse"), &passes).is_err());
    }
}
