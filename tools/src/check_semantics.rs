//! `acc-opt --check-semantics`: translation validation. Every function of the module
//! runs in the reference interpreter on seeded random inputs before the pipeline and
//! after each of its passes; the first pass after which a function's results differ
//! (beyond a float tolerance) is reported, with the function, the seed and the
//! difference. Functions the interpreter cannot run (an op without semantics yet) are
//! not compared. A pass meant to change results (`calibrate`, which quantizes) is not
//! checked: the passes after it are compared with its output.

use acc_interp::check::{defines, first_difference, outcomes, samples};
use acc_ir::{Context, DiagLoc, Diagnostic, Ir};
use acc_pass::manager::{RunFailure, RunOptions, run};
use acc_pass::pipeline::Pipeline;

/// Relative tolerance for float results: passes may reassociate or fold in another
/// order (f32 rounding), never change values more than this.
const TOLERANCE: f64 = 1e-4;

/// Runs `pipeline` pass by pass on `ir`, checking results after each. The outputs of
/// the passes run, and the errors (of a pass, or of the check) if any.
pub(crate) fn run_checked(
    pipeline: &Pipeline,
    ctx: &Context,
    ir: &mut Ir,
    opts: &RunOptions,
    seed: u64,
) -> Result<Vec<acc_pass::manager::RunOutput>, RunFailure> {
    let inputs = samples(ctx, ir, seed);
    let mut expected = outcomes(ctx, ir, &inputs);
    let mut outputs = Vec::new();
    for step in pipeline.steps() {
        let output = run(&step, ctx, ir, opts)?;
        outputs.push(output);
        let got = outcomes(ctx, ir, &inputs);
        let pass = step.first_pass_name().unwrap_or("?");
        if step.passes().iter().any(|p| p.pass.approximates()) {
            expected = got;
            continue;
        }
        for ((sample, before), after) in inputs.iter().zip(&expected).zip(&got) {
            let (Some(before), Some(after)) = (before, after) else {
                if before.is_some() && defines(ctx, ir, &sample.function) {
                    return Err(failure(
                        outputs,
                        sample.loc,
                        format!(
                            "pass '{pass}' broke '@{}': it no longer runs on the inputs of seed {seed}",
                            sample.function
                        ),
                    ));
                }
                continue;
            };
            if let Some(diff) = first_difference(before, after, TOLERANCE) {
                return Err(failure(
                    outputs,
                    sample.loc,
                    format!(
                        "pass '{pass}' changed the results of '@{}' (inputs of seed {seed}): {diff}",
                        sample.function
                    ),
                ));
            }
        }
        expected = got;
    }
    Ok(outputs)
}

fn failure(
    outputs: Vec<acc_pass::manager::RunOutput>,
    loc: acc_ir::AttrId,
    message: String,
) -> RunFailure {
    let mut output = acc_pass::manager::RunOutput::default();
    for o in outputs {
        output.dumps.push_str(&o.dumps);
        output.diagnostics.extend(o.diagnostics);
    }
    RunFailure {
        errors: vec![Diagnostic::error(DiagLoc::Loc(loc), message)],
        output: Box::new(output),
    }
}
