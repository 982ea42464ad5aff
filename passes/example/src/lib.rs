//! A custom pass written against acc's public API: `mul-to-shift` rewrites
//! `arith.muli %x, C`, where the constant `C` is a power of two `2^k`, into
//! `arith.shli %x, k`. `docs/writing-a-pass.md` walks through this file.

use std::sync::Arc;

use acc_dialects::ops::{arith, func};
use acc_ir::elements::{self, Scalar};
use acc_ir::rewrite::greedy::{GreedyConfig, apply_greedily};
use acc_ir::rewrite::{RewritePattern, Rewriter, constant_value};
use acc_ir::{Diagnostic, OpId};
use acc_pass::{OptionKind, Pass, PassInfo, PassOption, PassOptions, PassTarget};

/// The rewrite: matches `arith.muli` whose right operand is a constant power of two.
/// (Canonicalization puts constants on the right of commutative ops, and so does the
/// greedy driver this pass runs, before it tries patterns.)
struct MulToShift {
    /// The largest shift amount to produce.
    max_shift: u32,
}

impl RewritePattern for MulToShift {
    fn name(&self) -> &str {
        "mul-by-power-of-two-to-shift"
    }

    fn root(&self) -> Option<&str> {
        Some(arith::Muli::NAME)
    }

    fn match_and_rewrite(&self, op: OpId, rw: &mut Rewriter<'_>) -> bool {
        let Some(mul) = arith::Muli::of(rw.ctx, rw.op_ref(op)) else {
            return false;
        };
        let (x, c) = (mul.lhs(), mul.rhs());
        // The constant, as a scalar integer (splat vectors and tensors are left alone).
        let Some(value) = constant_value(rw.ctx, rw.ir, rw.body, c) else {
            return false;
        };
        let Some((ty, Scalar::Int(n))) = elements::scalar(rw.ctx, value) else {
            return false;
        };
        if n < 2 || n & (n - 1) != 0 || n.trailing_zeros() > self.max_shift {
            return false;
        }
        let Some(shift) = elements::scalar_attr(rw.ctx, ty, Scalar::Int(n.trailing_zeros().into()))
        else {
            return false;
        };
        // The rewriter inserts before `op`, at its location.
        let Ok(k) = arith::Constant::build(rw, ty).value(shift).result() else {
            return false;
        };
        let Ok(result) = arith::Shli::build(rw, x, k, ty).result() else {
            return false;
        };
        rw.replace_op(op, &[result]);
        true
    }
}

/// The pass: the greedy driver with the one pattern above, and no other patterns.
struct MulToShiftPass {
    patterns: Vec<Arc<dyn RewritePattern>>,
}

impl Pass for MulToShiftPass {
    fn run(&self, t: &mut PassTarget<'_>) -> Result<(), Diagnostic> {
        let config = GreedyConfig {
            context_patterns: false,
            ..GreedyConfig::default()
        };
        for (body, regions) in t.bodies() {
            apply_greedily(t.ctx, t.ir, body, &regions, &self.patterns, &config);
        }
        Ok(())
    }
}

/// The pass's registration: name, summary, anchor, options and constructor.
pub fn info() -> PassInfo {
    PassInfo {
        name: "mul-to-shift",
        title: "MulToShift",
        summary: "Rewrite multiplications by a constant power of two into left shifts",
        anchor: Some(func::Func::NAME),
        options: vec![PassOption {
            name: "max-shift",
            description: "the largest shift to produce",
            kind: OptionKind::Int,
            default: "63",
        }],
        create,
    }
}

fn create(options: &PassOptions) -> Result<Box<dyn Pass>, String> {
    let max_shift = u32::try_from(options.int("max-shift"))
        .map_err(|_| "max-shift must be between 0 and 4294967295".to_string())?;
    Ok(Box::new(MulToShiftPass {
        patterns: vec![Arc::new(MulToShift { max_shift })],
    }))
}
