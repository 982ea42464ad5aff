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

/// Prints ` attributes {...}` with the op's discardable attributes plus any properties
/// not in `printed` (so nothing is lost when the custom form does not know them).
pub fn print_remaining_attrs(p: &mut OpPrinter<'_, '_>, op: OpRef<'_>, printed: &[&str]) {
    let ctx = p.ctx();
    let mut merged: Vec<(Sym, AttrId)> = props_entries(ctx, op)
        .iter()
        .filter(|(k, _)| !printed.contains(&ctx.str(*k)))
        .copied()
        .collect();
    merged.extend_from_slice(ctx.dict_entries(op.attrs()));
    merged.sort_by(|a, b| ctx.str(a.0).cmp(ctx.str(b.0)));
    if merged.is_empty() {
        return;
    }
    p.write_str(" attributes ");
    p.print_dict_entries(&merged);
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
