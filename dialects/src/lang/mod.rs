//! The dialect language: dialects, their types, attributes, ops, constraints and
//! assembly formats written in text files and loaded at run time, so that a new dialect
//! needs no Rust and no rebuild. `docs/dialect-language.md` is its reference.
//!
//! Loading registers one [`OpDef`] per declared op: its traits, inherent attributes and
//! their defaults, a verifier built from the declaration, its custom syntax compiled
//! from the format, and the Rust hooks it names (looked up in [`crate::hooks`]).
//! Mistakes in a file are diagnostics with spans, like IR errors.

mod constraint;
mod decl;
pub mod describe;
mod format;
pub mod pattern;
mod read;
mod verify;

use std::sync::Arc;

use acc_ir::diag::{DiagLoc, Diagnostic, FileId, SourceMap};
use acc_ir::registry::SuccessorOperandsHook;
use acc_ir::{Context, OpDef, OpTraits};
use acc_target::Target;

pub use constraint::{RankRange, ShapedKind, TypeConstraint};
pub use decl::{
    AttrDecl, DeclaredItem, DialectDecl, EnumItem, HookNames, OpDecl, Quantifier, RegionDecl,
    Relation, RelationKind, SuccessorDecl, ValueDecl, segment_property,
};
pub use verify::{GroupMismatch, quantified_ranges, segment_sizes, value_ranges};

/// Traits that set [`OpTraits`] flags.
const STRUCTURAL_TRAITS: [&str; 9] = [
    "Pure",
    "Commutative",
    "Terminator",
    "IsolatedFromAbove",
    "NoTerminator",
    "SingleBlock",
    "SymbolTable",
    "GraphRegion",
    "ConstantLike",
];

/// What a file declares, once loaded: its dialects (whose ops and patterns are now
/// registered in the context) and its targets, as values for the caller to hold (in a
/// compilation's [`acc_target::Targets`]).
pub struct Loaded {
    /// The dialects, in file order.
    pub dialects: Vec<DialectDecl>,
    /// The targets, in file order, with their intrinsics compiled.
    pub targets: Vec<Target>,
}

/// Loads every dialect and rewrite pattern of `file` (already in `sources`) into
/// `ctx`, and reads its targets. Returns what the file declares, or all the errors
/// found (then no pattern of the file is registered).
pub fn load_file(
    ctx: &mut Context,
    sources: &SourceMap,
    file: FileId,
) -> Result<Loaded, Vec<Diagnostic>> {
    let (items, mut errors) = read::read(ctx, file, sources.text(file)).map_err(|e| vec![e])?;
    let mut defs = Vec::new();
    for d in &items.dialects {
        for op in &d.ops {
            match op_def(ctx, op, file) {
                Ok(def) => defs.push(def),
                Err(e) => errors.extend(e),
            }
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    for def in defs {
        ctx.register_op(def);
    }
    let mut patterns = Vec::new();
    for (i, ast) in items.patterns.iter().enumerate() {
        if items.patterns[..i].iter().any(|p| p.name.0 == ast.name.0)
            || ctx.all_patterns().any(|p| p.name() == ast.name.0)
        {
            errors.push(Diagnostic::error(
                DiagLoc::Span(file, ast.name.1.clone()),
                format!("pattern '{}' is defined twice", ast.name.0),
            ));
            continue;
        }
        match pattern::compile(ctx, file, ast) {
            Ok(p) => patterns.push(p),
            Err(e) => errors.extend(e),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut targets = Vec::new();
    for decl in &items.targets {
        let name = &decl.target.name;
        if items
            .targets
            .iter()
            .filter(|u| &u.target.name == name)
            .count()
            > 1
        {
            errors.push(Diagnostic::error(
                DiagLoc::Span(file, decl.name_span.clone()),
                format!("target '{name}' is defined twice"),
            ));
        }
        let mut target = decl.target.clone();
        for ast in &decl.intrinsics {
            match pattern::compile_intrinsic(ctx, file, ast) {
                Ok(rule) => target.intrinsics.push(acc_target::Intrinsic {
                    name: ast.name.0.clone(),
                    device: ast.device.0.clone(),
                    memory: ast.memory.as_ref().map(|m| m.0.clone()),
                    compiled: ast.compiled,
                    rule: Arc::new(rule),
                }),
                Err(e) => errors.extend(e),
            }
        }
        targets.push(target);
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    for p in patterns {
        ctx.add_pattern(Arc::new(p));
    }
    Ok(Loaded {
        dialects: items.dialects,
        targets,
    })
}

/// The registration of one declared op.
fn op_def(ctx: &Context, op: &OpDecl, file: FileId) -> Result<OpDef, Vec<Diagnostic>> {
    let mut errors = Vec::new();
    let at = |span: &std::ops::Range<usize>| DiagLoc::Span(file, span.clone());
    let mut traits = OpTraits::default();
    for (t, span) in &op.traits {
        match t.as_str() {
            "Pure" => traits.pure = true,
            "ConstantLike" => {
                traits.pure = true;
                traits.constant_like = true;
            }
            "Commutative" => traits.commutative = true,
            "Terminator" => traits.terminator = true,
            "IsolatedFromAbove" => traits.isolated_from_above = true,
            "NoTerminator" => traits.no_terminator = true,
            "SingleBlock" => traits.single_block = true,
            "SymbolTable" => traits.symbol_table = true,
            "GraphRegion" => traits.graph_region = true,
            other if verify::CHECKED_TRAITS.contains(&other) => {}
            other => errors.push(Diagnostic::error(
                at(span),
                format!(
                    "unknown trait '{other}': expected one of {}, {}, or {}(...) relating operands and results",
                    STRUCTURAL_TRAITS.join(", "),
                    verify::CHECKED_TRAITS.join(", "),
                    RelationKind::NAMES.map(|(n, _)| n).join("(...), ")
                ),
            )),
        }
    }
    let hooks = crate::hooks::table();
    let mut lookup = |slot: &Option<(String, std::ops::Range<usize>)>, kind: &str, known: bool| {
        if let Some((name, span)) = slot
            && !known
        {
            errors.push(Diagnostic::error(
                at(span),
                format!(
                    "unknown {kind} hook '{name}': acc provides {}",
                    hooks.names(kind).join(", ")
                ),
            ));
        }
    };
    let h = &op.hooks;
    let verifier = h.verifier.as_ref().and_then(|(n, _)| hooks.verifier(n));
    lookup(&h.verifier, "verifier", verifier.is_some());
    let infer = h.infer.as_ref().and_then(|(n, _)| hooks.infer(n));
    lookup(&h.infer, "infer", infer.is_some());
    let fold = h.folder.as_ref().and_then(|(n, _)| hooks.folder(n));
    lookup(&h.folder, "folder", fold.is_some());
    let rust_syntax = h.syntax.as_ref().and_then(|(n, _)| hooks.syntax(n));
    lookup(&h.syntax, "syntax", rust_syntax.is_some());
    if let Some((name, span)) = &h.interpret
        && crate::semantics::Rule::from_name(name).is_none()
        && !ctx.is_interpreter_rule_declared(name)
    {
        let mut known: Vec<&str> = crate::semantics::Rule::ALL
            .iter()
            .map(|r| r.name())
            .chain(ctx.declared_interpreter_rules())
            .collect();
        known.sort_unstable();
        errors.push(Diagnostic::error(
            at(span),
            format!(
                "unknown interpreter rule '{name}': acc's interpreter has {} (a tool adding a rule of its own declares its name in the context first)",
                known.join(", ")
            ),
        ));
    }
    let syntax: Option<Arc<dyn acc_ir::CustomSyntax>> = match (&op.format, rust_syntax) {
        (Some((_, span)), Some(_)) => {
            errors.push(Diagnostic::error(
                at(span),
                format!("op '{}' has both a format and a syntax hook", op.name),
            ));
            None
        }
        (None, rust) => rust,
        (Some((text, span)), None) => {
            match format::compile(op, text, infer.clone(), verifier.clone()) {
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
            }
        }
    };
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut inherent_attrs: Vec<String> = op.attributes.iter().map(|a| a.name.clone()).collect();
    for results in [false, true] {
        let values = if results { &op.results } else { &op.operands };
        if OpDecl::needs_segments(values) {
            inherent_attrs.push(segment_property(results).to_string());
        }
    }
    let decl = op.clone();
    let infer_for_verify = infer.clone();
    let verify: acc_ir::registry::VerifyHook = Arc::new(move |r, ctx| {
        let found = verify::verify(&decl, infer_for_verify.as_ref(), r, ctx);
        match (&verifier, found.is_empty()) {
            (Some(extra), true) => extra(r, ctx),
            _ => found,
        }
    });
    Ok(OpDef {
        name: op.name.clone(),
        summary: op.summary.clone(),
        description: op.description.clone(),
        traits,
        inherent_attrs,
        verify: Some(verify),
        successor_operands: successor_operands(op),
        syntax,
        default_dialect: op.default_dialect.clone(),
        defaults: op
            .attributes
            .iter()
            .filter_map(|a| a.default.map(|d| (a.name.clone(), d)))
            .collect(),
        infer: infer.or_else(|| derived_infer(op)),
        fold,
        interpret: op.hooks.interpret.as_ref().map(|(n, _)| n.clone()),
    })
}

/// For a branch, the operands passed to each successor: the operand group the
/// successor's declaration names.
fn successor_operands(op: &OpDecl) -> Option<SuccessorOperandsHook> {
    if op.successors.iter().all(|s| s.operands.is_none()) {
        return None;
    }
    let decl = op.clone();
    Some(Arc::new(move |r, ctx, index| {
        let group = decl.successors.get(index)?.operands?;
        let ranges = value_ranges(ctx, &decl, r, false).ok()?;
        ranges.get(group).cloned()
    }))
}

/// For an op without an `infer` hook whose every result must have the type of one of
/// its operands (`SameOperandsAndResultType`, `AllTypesMatch(x, result)`), inference
/// from those operands, as MLIR derives `InferTypeOpInterface` from such traits. Only
/// operands before any optional or variadic group qualify (their index is fixed).
fn derived_infer(op: &OpDecl) -> Option<acc_ir::InferHook> {
    let fixed = op
        .operands
        .iter()
        .take_while(|v| v.quantifier == Quantifier::Single)
        .count();
    if op
        .results
        .iter()
        .any(|r| r.quantifier != Quantifier::Single)
    {
        return None;
    }
    let same_all = op
        .traits
        .iter()
        .any(|(t, _)| t == "SameOperandsAndResultType");
    let sources: Option<Vec<usize>> = (0..op.results.len())
        .map(|r| {
            if same_all && fixed > 0 {
                return Some(0);
            }
            op.relations
                .iter()
                .filter(|rel| rel.kind == RelationKind::Types && rel.values.contains(&(true, r)))
                .flat_map(|rel| rel.values.iter())
                .find(|(is_result, g)| !is_result && *g < fixed)
                .map(|(_, g)| *g)
        })
        .collect();
    let sources = sources?;
    if sources.is_empty() {
        return None;
    }
    Some(Arc::new(move |ctx, input| {
        sources
            .iter()
            .map(|&i| match input.operand_types.get(i) {
                Some(t) => Ok(ctx.type_data(*t).clone()),
                None => Err(format!("expects at least {} operands", i + 1)),
            })
            .collect()
    }))
}
