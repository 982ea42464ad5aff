//! `acc-opt --check-semantics`: translation validation. Every function of the module
//! runs in the reference interpreter on seeded random inputs before the pipeline and
//! after each of its passes; the first pass after which a function's results differ
//! (beyond a float tolerance) is reported, with the function, the seed and the
//! difference. Functions the interpreter cannot run (an op without semantics yet) are
//! not compared. A pass meant to change results (`calibrate`, which quantizes) is not
//! checked: the passes after it are compared with its output. A pass that makes
//! functions take several frames (`pipeline-frames`) is compared frame by frame: frame
//! K gets the inputs of seed + K, and must give what the function gave before on them.

use acc_interp::check::{Sample, defines, first_difference, outcomes, samples};
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
    let mut inputs = samples(ctx, ir, seed);
    let mut expected = outcomes(ctx, ir, &inputs);
    let mut outputs = Vec::new();
    for step in pipeline.steps() {
        let frames = step
            .passes()
            .iter()
            .map(|p| p.pass.frames())
            .max()
            .unwrap_or(1);
        let framed_samples = (frames > 1).then(|| {
            let (i, e) = framed(ctx, ir, &inputs, &expected, frames, seed);
            (i, e, signature_sizes(ctx, ir))
        });
        let output = run(&step, ctx, ir, opts)?;
        // The functions the pass made take the frames take the framed samples.
        if let Some((framed_inputs, framed_expected, before)) = framed_samples {
            let after = signature_sizes(ctx, ir);
            for (i, (sample, results)) in framed_inputs.into_iter().zip(framed_expected).enumerate()
            {
                let (Some(&(ins, outs)), Some(&now)) =
                    (before.get(&sample.function), after.get(&sample.function))
                else {
                    continue;
                };
                if outs > 0 && now == (ins * frames, outs * frames) {
                    inputs[i] = sample;
                    expected[i] = results;
                }
            }
        }
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

/// Each function's numbers of arguments and results.
fn signature_sizes(ctx: &Context, ir: &Ir) -> std::collections::HashMap<String, (usize, usize)> {
    acc_interp::functions(ctx, ir)
        .into_iter()
        .filter_map(|(name, body, op)| {
            let (ins, outs) = acc_dialects::hooks::func::function_signature(ctx, ir.op(body, op))?;
            Some((name, (ins.len(), outs.len())))
        })
        .collect()
}

/// A function's results on a sample (none: it cannot run).
type Outcome = Option<Vec<acc_interp::Tensor>>;

/// The samples and their expected results for functions made to take `frames` frames:
/// frame 0 the sample's inputs, frame K those of another seed, each frame's
/// results computed by the functions as they are (before the pass repeating them).
fn framed(
    ctx: &Context,
    ir: &Ir,
    inputs: &[Sample],
    expected: &[Outcome],
    frames: usize,
    seed: u64,
) -> (Vec<Sample>, Vec<Outcome>) {
    let more: Vec<(Vec<Sample>, Vec<Outcome>)> = (1..frames as u64)
        .map(|k| {
            // Far apart in the high bits: the samples' generator ignores bit 0.
            let s = samples(ctx, ir, seed ^ k.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let o = outcomes(ctx, ir, &s);
            (s, o)
        })
        .collect();
    inputs
        .iter()
        .zip(expected)
        .map(|(sample, results)| {
            let mut framed = Sample {
                function: sample.function.clone(),
                loc: sample.loc,
                inputs: sample.inputs.clone(),
            };
            let mut results = results.clone();
            for (s, o) in &more {
                match s.iter().position(|x| x.function == sample.function) {
                    Some(i) => {
                        framed.inputs.extend(s[i].inputs.iter().cloned());
                        results = match (results, &o[i]) {
                            (Some(mut r), Some(more)) => {
                                r.extend(more.iter().cloned());
                                Some(r)
                            }
                            _ => None,
                        };
                    }
                    None => results = None,
                }
            }
            (framed, results)
        })
        .unzip()
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
