//! `canonicalize`: folds ops, erases dead ones and applies every registered rewrite
//! pattern (from Rust and from dialect files) to a fixed point, with the greedy driver.

use acc_ir::rewrite::greedy::{GreedyConfig, apply_greedily};
use acc_ir::{DiagLoc, Diagnostic};
use acc_pass::{OptionKind, Pass, PassInfo, PassOption, PassOptions, PassTarget};

/// The pass.
pub struct Canonicalize {
    config: GreedyConfig,
    test_convergence: bool,
}

/// Its registration.
pub fn info() -> PassInfo {
    PassInfo {
        name: "canonicalize",
        title: "Canonicalizer",
        summary: "Fold, erase dead ops and apply rewrite patterns to a fixed point",
        anchor: None,
        options: vec![
            PassOption {
                name: "max-iterations",
                description: "sweeps over the IR before giving up",
                kind: OptionKind::Int,
                default: "10",
            },
            PassOption {
                name: "max-num-rewrites",
                description: "rewrites before giving up (-1: no limit)",
                kind: OptionKind::Int,
                default: "-1",
            },
            PassOption {
                name: "test-convergence",
                description: "fail when the limits stop it before a fixed point",
                kind: OptionKind::Bool,
                default: "false",
            },
        ],
        create,
    }
}

fn create(o: &PassOptions) -> Result<Box<dyn Pass>, String> {
    let iterations = o.int("max-iterations");
    if iterations < 1 {
        return Err("max-iterations must be at least 1".into());
    }
    let rewrites = o.int("max-num-rewrites");
    Ok(Box::new(Canonicalize {
        config: GreedyConfig {
            max_iterations: u32::try_from(iterations).unwrap_or(u32::MAX),
            max_rewrites: u64::try_from(rewrites).ok(),
            fold: true,
            use_patterns: true,
            context_patterns: true,
        },
        test_convergence: o.flag("test-convergence"),
    }))
}

impl Pass for Canonicalize {
    fn run(&self, t: &mut PassTarget<'_>) -> Result<(), Diagnostic> {
        for (body, regions) in t.bodies() {
            let report = apply_greedily(t.ctx, t.ir, body, &regions, &[], &self.config);
            count_rewrites(t, &report);
            if let Some(pattern) = &report.runaway {
                return Err(Diagnostic::error(
                    DiagLoc::Loc(t.op_ref().loc()),
                    format!(
                        "canonicalization does not terminate: rewriting went on without end \
                         (last pattern applied: '{pattern}'); a pattern rebuilds what it \
                         matches, or two patterns undo each other"
                    ),
                ));
            }
            if self.test_convergence && !report.converged {
                return Err(Diagnostic::error(
                    DiagLoc::Loc(t.op_ref().loc()),
                    format!(
                        "canonicalization did not converge after {} iterations",
                        report.iterations
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// Adds a greedy run's counts to the pass's statistics (`--mlir-pass-statistics`).
pub(crate) fn count_rewrites(
    t: &mut PassTarget<'_>,
    report: &acc_ir::rewrite::greedy::GreedyReport,
) {
    t.count(
        "num-rewrites",
        "Number of patterns applied",
        report.rewrites,
    );
    t.count("num-folds", "Number of ops folded", report.folds);
    t.count("num-erased", "Number of dead ops erased", report.erased);
}
