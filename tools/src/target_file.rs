//! Loading a target description (`--target FILE`, repeatable) into a compilation's
//! targets.

use std::sync::Arc;

use acc_ir::{Context, DiagLoc, Diagnostic, SourceMap};
use acc_target::Targets;

/// Loads the target file `file` (its dialects and patterns into `ctx`) and adds its
/// target after those of `targets`: the file must declare exactly one, with a name
/// no earlier target has.
pub(crate) fn load_target(
    ctx: &mut Context,
    sources: &SourceMap,
    file: usize,
    targets: &mut Targets,
) -> Result<(), Vec<Diagnostic>> {
    let loaded = acc_dialects::lang::load_file(ctx, sources, file)?;
    let at_file = |message: String| vec![Diagnostic::error(DiagLoc::Span(file, 0..0), message)];
    let [target] = <[_; 1]>::try_from(loaded.targets).map_err(|all| {
        at_file(format!(
            "a target file declares exactly one target (`target NAME {{ ... }}`), not {}",
            all.len()
        ))
    })?;
    targets.add(Arc::new(target)).map_err(at_file)
}
