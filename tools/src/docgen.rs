//! The `acc-docgen` command: generate or check `docs/dialects/*.md`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use acc_ir::SourceMap;

/// The pages to write: file name and contents, for the built-in dialects and the
/// dialects of `dialect_files`.
pub fn pages(dialect_files: &[PathBuf]) -> Result<Vec<(String, String)>, String> {
    let mut ctx = acc_ir::Context::new();
    let mut dialects = acc_dialects::load_builtin_definitions(&mut ctx);
    let mut sources = SourceMap::new();
    for path in dialect_files {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read '{}': {e}", path.display()))?;
        let file = sources.add(&path.display().to_string(), text);
        let loaded = acc_dialects::lang::load_file(&mut ctx, &sources, file)
            .map_err(|d| sources.render(&ctx, &d))?;
        dialects.extend(loaded.dialects);
    }
    Ok(acc_dialects::docgen::pages(&ctx, &dialects))
}

/// The pages of `out` that differ from the generated ones (missing ones included).
pub fn stale_pages(out: &Path, pages: &[(String, String)]) -> Vec<String> {
    pages
        .iter()
        .filter(|(name, text)| {
            std::fs::read_to_string(out.join(name)).ok().as_deref() != Some(text.as_str())
        })
        .map(|(name, _)| name.clone())
        .collect()
}

/// Runs `acc-docgen` with `args` (without the program name).
pub fn main_with_args(args: &[String]) -> ExitCode {
    let mut out = None;
    let mut dialects = Vec::new();
    let mut check = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--out" => out = it.next().map(PathBuf::from),
            "--dialect" => dialects.extend(it.next().map(PathBuf::from)),
            "--check" => check = true,
            _ => {
                eprintln!("usage: acc-docgen --out DIR [--dialect FILE]... [--check]");
                return ExitCode::from(2);
            }
        }
    }
    let Some(out) = out else {
        eprintln!("usage: acc-docgen --out DIR [--dialect FILE]... [--check]");
        return ExitCode::from(2);
    };
    let pages = match pages(&dialects) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("acc-docgen: {e}");
            return ExitCode::FAILURE;
        }
    };
    if check {
        let stale = stale_pages(&out, &pages);
        if stale.is_empty() {
            return ExitCode::SUCCESS;
        }
        eprintln!(
            "acc-docgen: stale pages in {}: {}",
            out.display(),
            stale.join(", ")
        );
        return ExitCode::FAILURE;
    }
    if let Err(e) = std::fs::create_dir_all(&out) {
        eprintln!("acc-docgen: cannot create '{}': {e}", out.display());
        return ExitCode::FAILURE;
    }
    for (name, text) in &pages {
        if let Err(e) = std::fs::write(out.join(name), text) {
            eprintln!("acc-docgen: cannot write '{name}': {e}");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
