//! Printing an op with its declared format.

use std::ops::Range;

use acc_ir::attrs::AttrData;
use acc_ir::printer::OpPrinter;
use acc_ir::{AttrId, AttrKind, Context, OpRef, TypeId, ValueId};

use super::super::verify::value_ranges;
use super::{DeclaredSyntax, Elem};

/// What printing needs to know about the op at hand.
pub(super) struct PrintState<'o> {
    operands: Vec<ValueId>,
    operand_types: Vec<TypeId>,
    result_types: Vec<TypeId>,
    op_ranges: Vec<Range<usize>>,
    res_ranges: Vec<Range<usize>>,
    attr_names: Vec<&'o str>,
}

/// MLIR's spacing between format elements: whether the next element gets a space,
/// and whether the last one printed was punctuation.
#[derive(Copy, Clone)]
pub(super) struct Spacing {
    emit: bool,
    last_punct: bool,
}

impl Spacing {
    /// Before the first element, right after the op name.
    pub(super) const START: Spacing = Spacing {
        emit: true,
        last_punct: false,
    };

    /// Writes the space a literal needs, then records it (MLIR's
    /// `shouldEmitSpaceBefore`): none before `)`, `]`, `,`, and after a value none before
    /// `(`, `<`, `[` either; none after `(`, `[`, `<`, `{`.
    fn literal(&mut self, p: &mut OpPrinter<'_, '_>, lit: &str) {
        let first = lit.chars().next().unwrap_or(' ');
        let space = if lit.len() != 1 && lit != "->" {
            true
        } else if self.last_punct {
            !">)}],".contains(first)
        } else {
            !"<>(){}[],".contains(first)
        };
        if self.emit && space {
            p.write_str(" ");
        }
        p.write_str(lit);
        self.emit = lit.len() != 1 || !"<({[".contains(first);
        self.last_punct = first != '_' && !first.is_ascii_alphabetic();
    }

    /// Writes the space a value (operand, type, attribute, region, successor) needs.
    fn value(&mut self, p: &mut OpPrinter<'_, '_>) {
        if self.emit {
            p.write_str(" ");
        }
        self.emit = true;
        self.last_punct = false;
    }
}

impl DeclaredSyntax {
    pub(super) fn state<'s>(&'s self, op: OpRef<'_>, ctx: &Context) -> Option<PrintState<'s>> {
        Some(PrintState {
            operands: op.operands().collect(),
            operand_types: op.operand_types(),
            result_types: op.result_types(),
            op_ranges: value_ranges(ctx, &self.decl, op, false).ok()?,
            res_ranges: value_ranges(ctx, &self.decl, op, true).ok()?,
            attr_names: self.attr_names(),
        })
    }

    /// True when the group anchored at `anchor` is to be printed: its operand group is
    /// not empty, or its attribute is present and not its default value.
    fn anchor_present(
        &self,
        op: OpRef<'_>,
        ctx: &Context,
        anchor: &Elem,
        st: &PrintState<'_>,
    ) -> bool {
        match anchor {
            Elem::Attr(i) => {
                let decl = &self.decl.attributes[*i];
                match op.attr(ctx, &decl.name) {
                    None => false,
                    Some(a) => decl.default != Some(a),
                }
            }
            Elem::Operand(i) => !st.op_ranges[*i].is_empty(),
            Elem::Region(i) => op.regions().get(*i).is_some_and(|r| {
                let body = op.ir.body(op.region_body());
                body.region_blocks(*r).next().is_some()
            }),
            _ => true,
        }
    }

    pub(super) fn print_elems(
        &self,
        p: &mut OpPrinter<'_, '_>,
        op: OpRef<'_>,
        elems: &[Elem],
        st: &PrintState<'_>,
        sp: &mut Spacing,
    ) {
        let ctx = p.ctx();
        for elem in elems {
            match elem {
                Elem::Literal(l) => sp.literal(p, l),
                Elem::NoSpace => {
                    sp.emit = false;
                    sp.last_punct = true;
                }
                Elem::Operand(i) => {
                    let group = &st.operands[st.op_ranges[*i].clone()];
                    if !group.is_empty() {
                        sp.value(p);
                        p.print_operands(group.iter().copied());
                    }
                }
                Elem::OperandType(i) => {
                    let group = &st.operand_types[st.op_ranges[*i].clone()];
                    if !group.is_empty() {
                        sp.value(p);
                        p.print_types(group);
                    }
                }
                Elem::ResultType(i) => {
                    let group = &st.result_types[st.res_ranges[*i].clone()];
                    if !group.is_empty() {
                        sp.value(p);
                        p.print_types(group);
                    }
                }
                Elem::AllOperandTypes => {
                    if !st.operand_types.is_empty() {
                        sp.value(p);
                        p.print_types(&st.operand_types);
                    }
                }
                Elem::AllResultTypes => {
                    if !st.result_types.is_empty() {
                        sp.value(p);
                        p.print_types(&st.result_types);
                    }
                }
                Elem::FunctionalType => {
                    sp.value(p);
                    p.write_str("(");
                    p.print_types(&st.operand_types);
                    p.write_str(") -> ");
                    p.print_result_types(&st.result_types);
                }
                Elem::DynamicList { operand, attr } => {
                    sp.value(p);
                    let values = op
                        .attr(ctx, &self.decl.attributes[*attr].name)
                        .map(|a| dense_i64s(ctx, a))
                        .unwrap_or_default();
                    let mut dynamic = st.operands[st.op_ranges[*operand].clone()].iter();
                    p.write_str("[");
                    for (i, v) in values.iter().enumerate() {
                        if i > 0 {
                            p.write_str(", ");
                        }
                        match (*v == acc_ir::DYNAMIC).then(|| dynamic.next()).flatten() {
                            Some(d) => p.print_operand(*d),
                            None => p.write_str(&v.to_string()),
                        }
                    }
                    p.write_str("]");
                }
                Elem::Attr(i) => {
                    let decl = &self.decl.attributes[*i];
                    if let Some(a) = op.attr(ctx, &decl.name)
                        && decl.kind != AttrKind::Unit
                    {
                        sp.value(p);
                        print_attr_value(p, a, &decl.kind);
                    }
                }
                Elem::Region(i) => {
                    sp.value(p);
                    p.print_region_of(op, op.regions()[*i], true, true);
                }
                Elem::Successor(i) => {
                    if let Some(b) = op.successors().nth(*i) {
                        sp.value(p);
                        p.print_successor(b);
                    }
                }
                Elem::AttrDict { keyword } => {
                    // Attributes at their default value are left out, as MLIR does.
                    let mut skip = st.attr_names.clone();
                    skip.extend(
                        self.decl
                            .attributes
                            .iter()
                            .filter(|a| a.default.is_some() && op.attr(ctx, &a.name) == a.default)
                            .map(|a| a.name.as_str()),
                    );
                    let prefix = if *keyword { " attributes " } else { " " };
                    crate::syntax::print_remaining_attrs(p, op, &skip, prefix);
                }
                Elem::Optional { elems, anchor } => {
                    if self.anchor_present(op, ctx, anchor, st) {
                        self.print_elems(p, op, elems, st, sp);
                    }
                }
            }
        }
    }

    /// True when every attribute the format writes outside optional groups is present
    /// (the others are the attribute dictionary's or a group's business).
    pub(super) fn required_attrs_present(&self, op: OpRef<'_>, ctx: &Context) -> bool {
        self.elems.iter().all(|e| match e {
            Elem::Attr(i) => op.attr(ctx, &self.decl.attributes[*i].name).is_some(),
            _ => true,
        })
    }
}

/// The values of an `array<i64: ...>` attribute.
pub(super) fn dense_i64s(ctx: &Context, a: AttrId) -> Vec<i64> {
    match ctx.attr_data(a) {
        AttrData::DenseArray { data, .. } => data
            .chunks_exact(8)
            .map(|c| i64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect(),
        _ => Vec::new(),
    }
}

/// Prints an attribute the way its kind lets the parser read it back: numbers without
/// their type, enum cases in their custom form (`<nsw>`, or the keyword of an enum
/// stored as an integer), anything else in full.
fn print_attr_value(p: &mut OpPrinter<'_, '_>, a: AttrId, kind: &AttrKind) {
    let ctx = p.ctx();
    match kind {
        AttrKind::Int(_) | AttrKind::Float(_) => p.print_bare_value(a),
        AttrKind::IntArray(_) | AttrKind::FloatArray(_) => p.print_bare_array(a),
        AttrKind::SymbolName => match ctx.attr_data(a) {
            AttrData::String { value, .. } => {
                let mut s = String::new();
                acc_ir::printer::write_symbol(&mut s, ctx.str(*value));
                p.write_str(&s);
            }
            _ => p.print_attr(a),
        },
        AttrKind::Enum(full) => {
            let Some(def) = ctx.enum_attr(full) else {
                return p.print_attr(a);
            };
            match (&def.int_storage, ctx.attr_data(a)) {
                (Some(_), _) => match def.decode(ctx, full, a) {
                    Some(cases) => p.write_str(&def.cases_text(&cases)),
                    None => p.print_attr(a),
                },
                (None, AttrData::Dialect { body, .. }) => match ctx.str(*body).find('<') {
                    Some(at) => p.write_str(&ctx.str(*body)[at..]),
                    None => p.print_attr(a),
                },
                _ => p.print_attr(a),
            }
        }
        AttrKind::Declared(full) => {
            let text = acc_ir::printer::attr_to_string(ctx, a);
            match text.strip_prefix(&format!("#{full}")) {
                Some(params) if params.starts_with('<') => p.write_str(params),
                _ => p.print_attr(a),
            }
        }
        _ => p.print_attr(a),
    }
}
