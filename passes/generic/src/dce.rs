//! `dce` (erase dead ops) and `fold` (fold ops and erase dead ones), both with the
//! greedy driver restricted to what they do.

use acc_ir::Diagnostic;
use acc_ir::rewrite::greedy::{GreedyConfig, apply_greedily};
use acc_pass::{Pass, PassInfo, PassOptions, PassTarget};

/// The greedy driver with some of its steps.
pub struct Restricted {
    config: GreedyConfig,
}

impl Pass for Restricted {
    fn run(&self, t: &mut PassTarget<'_>) -> Result<(), Diagnostic> {
        for (body, regions) in t.bodies() {
            let report = apply_greedily(t.ctx, t.ir, body, &regions, &[], &self.config);
            crate::canonicalize::count_rewrites(t, &report);
        }
        Ok(())
    }
}

/// `dce`'s registration.
pub fn dce_info() -> PassInfo {
    PassInfo {
        name: "dce",
        title: "DCE",
        summary: "Erase ops without side effects whose results are unused",
        anchor: None,
        options: Vec::new(),
        create: |_: &PassOptions| {
            Ok(Box::new(Restricted {
                config: GreedyConfig::dead_code_only(),
            }))
        },
    }
}

/// `fold`'s registration.
pub fn fold_info() -> PassInfo {
    PassInfo {
        name: "fold",
        title: "Fold",
        summary: "Fold ops with constant operands (whole constant tensors included) and erase dead ops",
        anchor: None,
        options: Vec::new(),
        create: |_: &PassOptions| {
            Ok(Box::new(Restricted {
                config: GreedyConfig {
                    use_patterns: false,
                    ..GreedyConfig::default()
                },
            }))
        },
    }
}
