//! The dialect language: dialects, their ops, constraints and assembly formats written
//! in text files and loaded at run time, so that a new dialect needs no Rust and no
//! rebuild. `docs/dialect-language.md` is its reference.
//!
//! Loading registers one [`OpDef`] per declared op: its traits, inherent attributes,
//! a verifier built from the declaration, and its custom syntax compiled from the
//! format. Mistakes in a file are diagnostics with spans, like IR errors.

mod constraint;
mod decl;
mod format;
mod verify;

use std::sync::Arc;

use acc_ir::diag::{DiagLoc, Diagnostic, FileId, SourceMap};
use acc_ir::{Context, OpDef, OpTraits};

pub use constraint::{ShapedKind, TypeConstraint};
pub use decl::{AttrDecl, AttrKind, DialectDecl, OpDecl, Quantifier, RegionDecl, ValueDecl};

/// Traits that set [`OpTraits`] flags.
const STRUCTURAL_TRAITS: [&str; 7] = [
    "Pure",
    "Commutative",
    "Terminator",
    "IsolatedFromAbove",
    "NoTerminator",
    "SingleBlock",
    "SymbolTable",
];

/// Loads every dialect of `file` (already in `sources`) into `ctx`. Returns the
/// dialects read, or all the errors found.
pub fn load_file(
    ctx: &mut Context,
    sources: &SourceMap,
    file: FileId,
) -> Result<Vec<DialectDecl>, Vec<Diagnostic>> {
    let (dialects, mut errors) = decl::read(ctx, file, sources.text(file)).map_err(|e| vec![e])?;
    let mut defs = Vec::new();
    for d in &dialects {
        for op in &d.ops {
            match op_def(op, file, ctx) {
                Ok(def) => defs.push(def),
                Err(e) => errors.extend(e),
            }
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    for d in &dialects {
        ctx.register_dialect(&d.name);
        for (name, def) in &d.enums {
            ctx.register_enum_attr(name, def.clone());
        }
    }
    for def in defs {
        ctx.register_op(def);
    }
    Ok(dialects)
}

/// The registration of one declared op.
fn op_def(op: &OpDecl, file: FileId, ctx: &Context) -> Result<OpDef, Vec<Diagnostic>> {
    let mut errors = Vec::new();
    let mut traits = OpTraits::default();
    for (t, span) in &op.traits {
        match t.as_str() {
            "Pure" => traits.pure = true,
            "Commutative" => traits.commutative = true,
            "Terminator" => traits.terminator = true,
            "IsolatedFromAbove" => traits.isolated_from_above = true,
            "NoTerminator" => traits.no_terminator = true,
            "SingleBlock" => traits.single_block = true,
            "SymbolTable" => traits.symbol_table = true,
            other if verify::CHECKED_TRAITS.contains(&other) => {}
            other => errors.push(Diagnostic::error(
                DiagLoc::Span(file, span.clone()),
                format!(
                    "unknown trait '{other}': expected one of {}, {}",
                    STRUCTURAL_TRAITS.join(", "),
                    verify::CHECKED_TRAITS.join(", ")
                ),
            )),
        }
    }
    let syntax: Option<Arc<dyn acc_ir::CustomSyntax>> = match &op.format {
        None => None,
        Some((text, span)) => match format::compile(op, text) {
            Ok(s) => Some(Arc::new(s)),
            Err((message, range)) => {
                // +1 skips the opening quote (formats rarely contain escapes).
                let start = (span.start + 1 + range.start).min(span.end);
                let end = (span.start + 1 + range.end).min(span.end);
                errors.push(Diagnostic::error(
                    DiagLoc::Span(file, start..end.max(start)),
                    format!("in the format of '{}': {message}", op.name),
                ));
                None
            }
        },
    };
    if !errors.is_empty() {
        return Err(errors);
    }
    let decl = op.clone();
    Ok(OpDef {
        name: op.name.clone(),
        summary: op.summary.clone(),
        description: describe(op, ctx),
        traits,
        inherent_attrs: op.attributes.iter().map(|a| a.name.clone()).collect(),
        verify: Some(Arc::new(move |r, ctx| verify::verify(&decl, r, ctx))),
        successor_operands: None,
        syntax,
        default_dialect: None,
    })
}

/// The Markdown reference of a declared op: its description, then its operands,
/// results, attributes, regions, successors, traits and format.
fn describe(op: &OpDecl, ctx: &Context) -> String {
    let mut out = String::new();
    if !op.description.is_empty() {
        out.push_str(&op.description);
        out.push_str("\n\n");
    }
    let quantifier = |q: Quantifier| match q {
        Quantifier::Single => "",
        Quantifier::Optional => "optional ",
        Quantifier::Variadic => "variadic ",
    };
    for (title, values) in [("Operands", &op.operands), ("Results", &op.results)] {
        if values.is_empty() {
            continue;
        }
        out.push_str(&format!(
            "| {} | type |\n|---|---|\n",
            title.to_lowercase().trim_end_matches('s')
        ));
        for v in values.iter() {
            // `|` would end the table cell.
            let c = v.constraint.describe(ctx).replace('|', "\\|");
            out.push_str(&format!(
                "| `{}` | {}{} |\n",
                v.name,
                quantifier(v.quantifier),
                c
            ));
        }
        out.push('\n');
    }
    if !op.attributes.is_empty() {
        out.push_str("| attribute | kind |\n|---|---|\n");
        for a in &op.attributes {
            let optional = if a.optional { "optional " } else { "" };
            out.push_str(&format!(
                "| `{}` | {optional}`{}` |\n",
                a.name,
                a.kind.name()
            ));
        }
        out.push('\n');
    }
    if !op.regions.is_empty() {
        let names: Vec<String> = op
            .regions
            .iter()
            .map(|r| {
                format!(
                    "`{}`{}",
                    r.name,
                    if r.single_block {
                        " (single block)"
                    } else {
                        ""
                    }
                )
            })
            .collect();
        out.push_str(&format!("Regions: {}.\n\n", names.join(", ")));
    }
    if !op.successors.is_empty() {
        let names: Vec<String> = op.successors.iter().map(|s| format!("`{s}`")).collect();
        out.push_str(&format!("Successors: {}.\n\n", names.join(", ")));
    }
    if let Some((format, _)) = &op.format {
        // Double backticks, since formats contain single ones.
        out.push_str(&format!("Format: `` {format} ``\n\n"));
    }
    out.trim_end().to_string()
}
