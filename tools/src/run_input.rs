//! `acc-run`'s front half: the module to run, read from textual IR or imported from
//! an ONNX model (`.onnx`), then lowered in the same process by the passes of
//! `--pass`. Nothing is printed in between, so the time from model to native code is
//! what `compile_ms` reports.

use std::path::Path;
use std::time::{Duration, Instant};

use acc_ir::{Context, Diagnostic, Ir, Severity, SourceMap, parser, verifier};
use acc_pass::manager::{RunOptions, run as run_pipeline};
use acc_pass::pipeline::Pipeline;
use acc_target::Targets;

/// The module, and how long each step took.
pub struct Loaded {
    /// The verified module, after the passes.
    pub ir: Ir,
    /// Reading the file, and parsing and verifying the IR or importing the model.
    pub read: Duration,
    /// Running the passes (each verified after it ran).
    pub passes: Duration,
}

/// Reads `path` into `ctx` (whose dialects are loaded) and runs `passes` (a
/// comma-separated pass list, as `acc-opt --pass` takes) on it for `targets`. Errors
/// are the text to print, ending in a newline; the passes' warnings go to standard
/// error.
pub fn load(
    ctx: &mut Context,
    sources: &mut SourceMap,
    targets: &Targets,
    path: &Path,
    binds: &[(String, std::path::PathBuf)],
    passes: Option<&str>,
) -> Result<Loaded, String> {
    // The pipeline is checked before any work, so a typo fails at once.
    let pipeline = passes
        .map(|text| parse_pipeline(ctx, sources, text))
        .transpose()?;
    let start = Instant::now();
    let mut ir = read_module(ctx, sources, path, binds)?;
    let read = start.elapsed();
    let start = Instant::now();
    if let Some(p) = &pipeline {
        run_passes(ctx, sources, targets, p, &mut ir)?;
    }
    Ok(Loaded {
        ir,
        read,
        passes: start.elapsed(),
    })
}

/// The pipeline of a pass list, or its error rendered at the list's text.
fn parse_pipeline(ctx: &Context, sources: &mut SourceMap, text: &str) -> Result<Pipeline, String> {
    Pipeline::from_pass_list(text, &crate::opt::registry()).map_err(|(message, range)| {
        let file = sources.add("<pass pipeline>", text.to_string());
        let at = acc_ir::DiagLoc::Span(file, range);
        sources.render(ctx, &[Diagnostic::error(at, message)])
    })
}

/// The verified module of an IR file, or of an ONNX model (a `.onnx` name) imported
/// with its graph as `@main` and the inputs of `binds` fixed to their values.
fn read_module(
    ctx: &mut Context,
    sources: &mut SourceMap,
    path: &Path,
    binds: &[(String, std::path::PathBuf)],
) -> Result<Ir, String> {
    let bytes = acc_ir::budget::read_file(path)
        .map_err(|e| format!("acc-run: cannot read '{}': {e}\n", path.display()))?;
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("onnx"))
    {
        return crate::translate::import_model(ctx, path, &bytes, "main", binds)
            .map_err(|e| e + "\n");
    }
    if !binds.is_empty() {
        return Err("acc-run: --bind applies to ONNX models only (the file is IR)\n".into());
    }
    let (file, bad) = sources.add_bytes(&path.display().to_string(), bytes);
    if let Some(diag) = bad {
        return Err(sources.render(ctx, &[diag]));
    }
    let ir = parser::parse_file(ctx, sources, file).map_err(|d| sources.render(ctx, &[d]))?;
    verifier::verify(ctx, &ir).map_err(|d| sources.render(ctx, &d))?;
    Ok(ir)
}

/// Runs `pipeline` on `ir`, verifying after each pass, and prints the warnings it
/// reported; its errors (and what it reported before them) are the error text.
fn run_passes(
    ctx: &Context,
    sources: &SourceMap,
    targets: &Targets,
    pipeline: &Pipeline,
    ir: &mut Ir,
) -> Result<(), String> {
    let options = RunOptions {
        targets: targets.clone(),
        ..RunOptions::default()
    };
    match run_pipeline(pipeline, ctx, ir, &options) {
        Ok(output) => {
            crate::output::write_side_files(&output.files)
                .map_err(|e| format!("acc-run: {e}\n"))?;
            let warnings: Vec<Diagnostic> = output
                .diagnostics
                .into_iter()
                .filter(|d| d.severity != Severity::Remark)
                .collect();
            if !warnings.is_empty() {
                eprint!("{}", sources.render(ctx, &warnings));
            }
            Ok(())
        }
        Err(failure) => {
            let mut all = failure.output.diagnostics;
            all.extend(failure.errors);
            Err(sources.render(ctx, &all))
        }
    }
}
