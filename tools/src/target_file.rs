//! Loading a target description (`--target FILE`, repeatable) into a compilation's
//! targets.

use std::sync::Arc;

use acc_ir::{Context, DiagLoc, Diagnostic, SourceMap};
use acc_pass::PassRegistry;
use acc_pass::pipeline::Pipeline;
use acc_target::Targets;

/// Loads the target file `file` (its dialects and patterns into `ctx`) and adds its
/// target after those of `targets`: the file must declare exactly one, with a name
/// no earlier target has, and the pipeline it names (if any) must be one `passes`
/// can build.
pub(crate) fn load_target(
    ctx: &mut Context,
    sources: &SourceMap,
    file: usize,
    targets: &mut Targets,
    passes: &PassRegistry,
) -> Result<(), Vec<Diagnostic>> {
    let loaded = acc_dialects::lang::load_file(ctx, sources, file)?;
    let at_file = |message: String| vec![Diagnostic::error(DiagLoc::Span(file, 0..0), message)];
    let [target] = <[_; 1]>::try_from(loaded.targets).map_err(|all| {
        at_file(format!(
            "a target file declares exactly one target (`target NAME {{ ... }}`), not {}",
            all.len()
        ))
    })?;
    if let Some(p) = &target.pipeline
        && let Err((message, _)) = Pipeline::from_pass_list(&p.text, passes)
    {
        return Err(vec![Diagnostic::error(
            DiagLoc::Span(p.file, p.span.clone()),
            format!(
                "target '{}' names a pipeline acc cannot build: {message}",
                target.name
            ),
        )]);
    }
    targets.add(Arc::new(target)).map_err(at_file)
}

/// The pipeline text the first target of `targets` names (`--pipeline target`).
pub(crate) fn target_pipeline(targets: &Targets) -> Result<String, String> {
    let first = targets
        .iter()
        .next()
        .ok_or("--pipeline target needs a target file (--target FILE)")?;
    first
        .pipeline
        .as_ref()
        .map(|p| p.text.clone())
        .ok_or_else(|| {
            format!(
                "--pipeline target: target '{}' names no pipeline (add `pipeline \"NAME\"` to it, or name one: --list-pipelines)",
                first.name
            )
        })
}
