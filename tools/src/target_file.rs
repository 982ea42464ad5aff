//! Loading a target description (`--target FILE`) into a context.

use acc_ir::{Context, DiagLoc, Diagnostic, SourceMap};

/// Loads the target file `file` and makes its target the active one: the file must
/// declare exactly one.
pub(crate) fn load_target(
    ctx: &mut Context,
    sources: &SourceMap,
    file: usize,
) -> Result<(), Vec<Diagnostic>> {
    let before: Vec<String> = ctx.target_names().map(str::to_string).collect();
    acc_dialects::lang::load_file(ctx, sources, file)?;
    let names: Vec<String> = ctx
        .target_names()
        .filter(|n| !before.iter().any(|b| b == n))
        .map(str::to_string)
        .collect();
    match names.as_slice() {
        [name] if ctx.activate_target(name) => Ok(()),
        _ => Err(vec![Diagnostic::error(
            DiagLoc::Span(file, 0..0),
            format!(
                "a target file declares exactly one target (`target NAME {{ ... }}`), not {}",
                names.len()
            ),
        )]),
    }
}
