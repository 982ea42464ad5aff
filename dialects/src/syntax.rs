//! Small helpers shared by hand-written custom syntaxes.

use acc_ir::attrs::{AttrData, AttrId};
use acc_ir::parser::{CustomParse, PResult, Parser};
use acc_ir::printer::OpPrinter;
use acc_ir::{Context, OpRef, Sym};

/// The text of a string attribute.
pub fn string_value(ctx: &Context, a: AttrId) -> Option<&str> {
    match ctx.attr_data(a) {
        AttrData::String { value, .. } => Some(ctx.str(*value)),
        _ => None,
    }
}

/// The properties of `op` as a dictionary (empty when none).
pub fn props_entries<'a>(ctx: &'a Context, op: OpRef<'_>) -> &'a [(Sym, AttrId)] {
    op.props().map(|p| ctx.dict_entries(p)).unwrap_or(&[])
}

/// The op's properties not in `printed`, merged with its discardable attributes and
/// sorted: what a custom form prints in its attribute dictionary. `None` when a name is
/// both a property and a discardable attribute (the custom form cannot say which is
/// which, so the op must print in generic form).
pub fn remaining_attrs(
    ctx: &Context,
    op: OpRef<'_>,
    printed: &[&str],
) -> Option<Vec<(Sym, AttrId)>> {
    let mut merged: Vec<(Sym, AttrId)> = props_entries(ctx, op)
        .iter()
        .filter(|(k, _)| !printed.contains(&ctx.str(*k)))
        .copied()
        .collect();
    merged.extend_from_slice(ctx.dict_entries(op.attrs()));
    merged.sort_by(|a, b| ctx.str(a.0).cmp(ctx.str(b.0)));
    if merged.windows(2).any(|w| w[0].0 == w[1].0) {
        return None;
    }
    Some(merged)
}

/// Prints the remaining attributes (see [`remaining_attrs`]) after `prefix`
/// (` attributes ` or ` `), or nothing when there are none.
pub fn print_remaining_attrs(
    p: &mut OpPrinter<'_, '_>,
    op: OpRef<'_>,
    printed: &[&str],
    prefix: &str,
) {
    let merged = remaining_attrs(p.ctx(), op, printed).unwrap_or_default();
    if !merged.is_empty() {
        p.write_str(prefix);
        p.print_dict_entries(&merged);
    }
}

/// Checks the symbol attributes an op may carry: `sym_name` is a string and
/// `sym_visibility` is `public`, `private` or `nested`.
pub fn verify_symbol_attrs(op: OpRef<'_>, ctx: &Context, name: &str) -> Vec<acc_ir::Diagnostic> {
    let err = |m: String| vec![acc_ir::Diagnostic::error(acc_ir::DiagLoc::Loc(op.loc()), m)];
    if let Some(a) = op.attr(ctx, "sym_name")
        && string_value(ctx, a).is_none()
    {
        return err(format!("'{name}' op attribute 'sym_name' must be a string"));
    }
    if let Some(a) = op.attr(ctx, "sym_visibility")
        && !matches!(string_value(ctx, a), Some("public" | "private" | "nested"))
    {
        return err(format!(
            "'{name}' op attribute 'sym_visibility' must be \"public\", \"private\" or \"nested\""
        ));
    }
    Vec::new()
}

/// True when `op` has exactly these numbers of operands, results, regions and
/// successors (`None`: any number).
pub fn has_shape(
    op: OpRef<'_>,
    operands: Option<usize>,
    results: usize,
    regions: usize,
    successors: usize,
) -> bool {
    operands.is_none_or(|n| op.operands().len() == n)
        && op.results().len() == results
        && op.regions().len() == regions
        && op.successors().len() == successors
}

/// The shape error of an op that [`has_shape`] rejects.
pub fn shape_error(
    op: OpRef<'_>,
    name: &str,
    operands: Option<usize>,
    results: usize,
    regions: usize,
    successors: usize,
) -> Vec<acc_ir::Diagnostic> {
    if has_shape(op, operands, results, regions, successors) {
        return Vec::new();
    }
    let operands = operands
        .map(|n| format!("{n} operands, "))
        .unwrap_or_default();
    vec![acc_ir::Diagnostic::error(
        acc_ir::DiagLoc::Loc(op.loc()),
        format!(
            "'{name}' op expects {operands}{results} results, {regions} regions and {successors} successors, found {} operands, {} results, {} regions and {} successors",
            op.operands().len(),
            op.results().len(),
            op.regions().len(),
            op.successors().len()
        ),
    )]
}

/// Parses an optional `attributes {...}` into `attrs`.
pub fn parse_optional_attributes(
    p: &mut Parser<'_, '_>,
    attrs: &mut Vec<(Sym, AttrId)>,
) -> PResult<()> {
    if p.try_keyword("attributes") {
        attrs.extend(p.parse_attr_dict()?);
    }
    Ok(())
}

/// Builds the properties dictionary from `entries`, reporting duplicates.
pub fn make_props(
    cp: &mut CustomParse<'_, '_, '_>,
    entries: Vec<(Sym, AttrId)>,
) -> PResult<AttrId> {
    match cp.p.context().dict_attr(entries) {
        Ok(d) => Ok(d),
        Err(dup) => {
            let name = cp.p.context().str(dup).to_string();
            cp.p.err(format!("attribute '{name}' given twice"))
        }
    }
}

/// The op defining symbol `name` (its `sym_name`) in the nearest symbol table
/// enclosing `op`, if any ([`acc_ir::symbols::lookup`]: cached while the verifier runs).
pub fn lookup_symbol<'a>(op: OpRef<'a>, ctx: &Context, name: Sym) -> Option<OpRef<'a>> {
    acc_ir::symbols::lookup(op, ctx, name)
}
