//! Assembly formats: the custom syntax of a declared op, from a format string in the
//! spirit of MLIR's `assemblyFormat`, printed and parsed by the same element list so
//! that the two agree by construction.
//!
//! Elements, separated by spaces: `` `lit` `` (punctuation such as `,` `:` `(` `->`, or
//! a keyword), `$name` (an operand group, attribute, region or successor), `type($name)`
//! (the types of an operand or result group), `attr-dict` and
//! `attr-dict-with-keyword`. A format must mention every operand, region and successor,
//! give the type of every operand and result (directly, or through the
//! `SameOperandsAndResultType` / `SameTypeOperands` traits), and contain one
//! attribute dictionary. Attributes not named by `$name` go through the dictionary.

use std::ops::Range;

use acc_ir::parser::lexer::Tok;
use acc_ir::parser::{CustomParse, OperationState, PResult, UnresolvedOperand};
use acc_ir::printer::OpPrinter;
use acc_ir::{BlockId, Context, CustomSyntax, OpRef, Sym, TypeId};

use super::constraint::TypeConstraint;
use super::decl::{OpDecl, Quantifier};
use super::verify::group_ranges;

/// One element of a format.
#[derive(Clone, Debug, PartialEq)]
enum Elem {
    Literal(String),
    Operand(usize),
    Attr(usize),
    Region(usize),
    Successor(usize),
    OperandType(usize),
    ResultType(usize),
    AttrDict {
        keyword: bool,
    },
    /// `( ... )?`: printed and parsed only when its anchor (`$name^`, an optional
    /// attribute or an optional/variadic operand) is present.
    Optional {
        elems: Vec<Elem>,
        anchor: Box<Elem>,
    },
}

/// A compiled format for one declared op.
pub struct DeclaredSyntax {
    decl: OpDecl,
    elems: Vec<Elem>,
    /// Operand types come from the first result type, or the first operand type.
    same_all: bool,
    same_operands: bool,
}

const PUNCTUATION: [(&str, Tok); 16] = [
    (",", Tok::Comma),
    (":", Tok::Colon),
    ("::", Tok::ColonColon),
    ("(", Tok::LParen),
    (")", Tok::RParen),
    ("[", Tok::LSquare),
    ("]", Tok::RSquare),
    ("{", Tok::LBrace),
    ("}", Tok::RBrace),
    ("<", Tok::Less),
    (">", Tok::Greater),
    ("=", Tok::Equal),
    ("->", Tok::Arrow),
    ("*", Tok::Star),
    ("?", Tok::Question),
    ("+", Tok::Plus),
];

fn is_keyword(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && (b[0].is_ascii_alphabetic() || b[0] == b'_')
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'.')
}

/// A format mistake: the message and the byte range within the format string.
pub type FormatError = (String, Range<usize>);

/// Compiles the format of `decl`.
pub fn compile(decl: &OpDecl, format: &str) -> Result<DeclaredSyntax, FormatError> {
    let mut pos = 0;
    let (elems, _) = compile_elems(decl, format, &mut pos, false)?;
    if pos < format.len() {
        return Err(("')?' without a matching '('".into(), pos..format.len()));
    }
    let same_all = decl
        .traits
        .iter()
        .any(|(t, _)| t == "SameOperandsAndResultType");
    let same_operands = same_all || decl.traits.iter().any(|(t, _)| t == "SameTypeOperands");
    let syntax = DeclaredSyntax {
        decl: decl.clone(),
        elems,
        same_all,
        same_operands,
    };
    syntax.check_complete().map_err(|m| (m, 0..format.len()))?;
    Ok(syntax)
}

/// Reads elements up to the end, or up to `)?` when `in_group`. Returns them and the
/// anchor of the group (`$name^`), if one was marked.
fn compile_elems(
    decl: &OpDecl,
    format: &str,
    pos: &mut usize,
    in_group: bool,
) -> Result<(Vec<Elem>, Option<Elem>), FormatError> {
    let bytes = format.as_bytes();
    let mut elems = Vec::new();
    let mut anchor = None;
    let group_start = *pos;
    while *pos < bytes.len() {
        if bytes[*pos].is_ascii_whitespace() {
            *pos += 1;
            continue;
        }
        let start = *pos;
        if format[start..].starts_with(")?") {
            if !in_group {
                return Err(("')?' without a matching '('".into(), start..start + 2));
            }
            *pos += 2;
            return Ok((elems, anchor));
        }
        let elem = if bytes[start] == b'`' {
            let end = format[start + 1..]
                .find('`')
                .map(|n| start + 1 + n)
                .ok_or(("unterminated literal".to_string(), start..format.len()))?;
            let lit = &format[start + 1..end];
            *pos = end + 1;
            if !PUNCTUATION.iter().any(|(p, _)| *p == lit) && !is_keyword(lit) {
                return Err((
                    format!("literal `{lit}` is neither punctuation nor a keyword"),
                    start..*pos,
                ));
            }
            Elem::Literal(lit.to_string())
        } else if bytes[start] == b'(' {
            *pos += 1;
            let (inner, inner_anchor) = compile_elems(decl, format, pos, true)?;
            let range = start..*pos;
            let anchor = inner_anchor.ok_or((
                "an optional group needs an anchor: mark one element with '^'".to_string(),
                range.clone(),
            ))?;
            match inner.first() {
                Some(Elem::Literal(_)) | Some(Elem::Operand(_)) => {}
                _ => {
                    return Err((
                        "an optional group must start with a literal or an operand".into(),
                        range,
                    ));
                }
            }
            Elem::Optional {
                elems: inner,
                anchor: Box::new(anchor),
            }
        } else {
            let end = format[start..]
                .find(|c: char| c.is_whitespace())
                .map(|n| start + n)
                .unwrap_or(format.len());
            let mut word = &format[start..end];
            // `)?` may follow a word without a space.
            if let Some(stripped) = word.strip_suffix(")?") {
                word = stripped;
            }
            *pos = start + word.len();
            let is_anchor = word.ends_with('^');
            let elem =
                resolve_word(decl, word.trim_end_matches('^')).map_err(|m| (m, start..*pos))?;
            if is_anchor {
                let ok = match &elem {
                    Elem::Attr(i) => decl.attributes[*i].optional,
                    Elem::Operand(i) => decl.operands[*i].quantifier != Quantifier::Single,
                    _ => false,
                };
                if !in_group || !ok || anchor.is_some() {
                    return Err(("'^' marks the one optional attribute or optional/variadic operand that decides an optional group".into(), start..*pos));
                }
                anchor = Some(elem.clone());
            }
            elem
        };
        elems.push(elem);
    }
    if in_group {
        return Err((
            "unterminated optional group: expected ')?'".into(),
            group_start..format.len(),
        ));
    }
    Ok((elems, anchor))
}

fn resolve_word(decl: &OpDecl, word: &str) -> Result<Elem, String> {
    match word {
        "attr-dict" => return Ok(Elem::AttrDict { keyword: false }),
        "attr-dict-with-keyword" => return Ok(Elem::AttrDict { keyword: true }),
        _ => {}
    }
    if let Some(inner) = word
        .strip_prefix("type($")
        .and_then(|w| w.strip_suffix(')'))
    {
        if let Some(i) = decl.operands.iter().position(|o| o.name == inner) {
            return Ok(Elem::OperandType(i));
        }
        if let Some(i) = decl.results.iter().position(|o| o.name == inner) {
            return Ok(Elem::ResultType(i));
        }
        return Err(format!("type($…) names no operand or result '{inner}'"));
    }
    let Some(name) = word.strip_prefix('$') else {
        return Err(format!(
            "unknown format element '{word}' (expected `literal`, $name, type($name), attr-dict or attr-dict-with-keyword)"
        ));
    };
    if let Some(i) = decl.operands.iter().position(|o| o.name == name) {
        return Ok(Elem::Operand(i));
    }
    if let Some(i) = decl.attributes.iter().position(|a| a.name == name) {
        return Ok(Elem::Attr(i));
    }
    if let Some(i) = decl.regions.iter().position(|r| r.name == name) {
        return Ok(Elem::Region(i));
    }
    if let Some(i) = decl.successors.iter().position(|s| s == name) {
        return Ok(Elem::Successor(i));
    }
    Err(format!(
        "'${name}' names no operand, attribute, region or successor of the op"
    ))
}

impl DeclaredSyntax {
    /// Checks at load time that printing and parsing lose nothing.
    fn check_complete(&self) -> Result<(), String> {
        let d = &self.decl;
        let all = flatten(&self.elems);
        let count = |f: &dyn Fn(&Elem) -> bool| all.iter().filter(|e| f(e)).count();
        if self.elems.iter().any(|e| matches!(e, Elem::Optional { elems, .. } if elems.iter().any(|x| matches!(x, Elem::AttrDict { .. } | Elem::Region(_))))) {
            return Err("attr-dict and regions cannot be inside an optional group".into());
        }
        if count(&|e| matches!(e, Elem::AttrDict { .. })) != 1 {
            return Err(
                "the format must contain exactly one attr-dict or attr-dict-with-keyword".into(),
            );
        }
        for (i, o) in d.operands.iter().enumerate() {
            if count(&|e| *e == Elem::Operand(i)) != 1 {
                return Err(format!(
                    "the format must mention operand '${}' exactly once",
                    o.name
                ));
            }
            if count(&|e| *e == Elem::OperandType(i)) == 0
                && !self.operand_type_inferable()
                && buildable(&o.constraint).is_none()
            {
                return Err(format!(
                    "the format does not give the type of operand '{}' (add type(${}))",
                    o.name, o.name
                ));
            }
        }
        for (i, r) in d.results.iter().enumerate() {
            if count(&|e| *e == Elem::ResultType(i)) == 0
                && !(self.same_all && self.has_type_source())
                && buildable(&r.constraint).is_none()
            {
                return Err(format!(
                    "the format does not give the type of result '{}' (add type(${}))",
                    r.name, r.name
                ));
            }
        }
        let regions: Vec<usize> = all
            .iter()
            .filter_map(|e| {
                if let Elem::Region(i) = e {
                    Some(*i)
                } else {
                    None
                }
            })
            .collect();
        if regions != (0..d.regions.len()).collect::<Vec<_>>() {
            return Err("the format must mention every region once, in declaration order".into());
        }
        for (i, s) in d.successors.iter().enumerate() {
            if count(&|e| *e == Elem::Successor(i)) != 1 {
                return Err(format!(
                    "the format must mention successor '${s}' exactly once"
                ));
            }
        }
        let flexible = |v: &[super::decl::ValueDecl]| {
            v.iter()
                .filter(|x| x.quantifier != Quantifier::Single)
                .count()
        };
        if flexible(&d.operands) > 1 || flexible(&d.results) > 1 {
            return Err(
                "at most one optional or variadic operand group and one result group are supported"
                    .into(),
            );
        }
        Ok(())
    }

    fn has_type_source(&self) -> bool {
        flatten(&self.elems)
            .iter()
            .any(|e| matches!(e, Elem::OperandType(_) | Elem::ResultType(_)))
    }

    fn operand_type_inferable(&self) -> bool {
        (self.same_operands || self.same_all) && self.has_type_source()
    }

    fn attr_names(&self) -> Vec<&str> {
        flatten(&self.elems)
            .into_iter()
            .filter_map(|e| {
                if let Elem::Attr(i) = e {
                    Some(self.decl.attributes[*i].name.as_str())
                } else {
                    None
                }
            })
            .collect()
    }
}

/// Whether to put a space before an element, given the previous literal.
fn space_before(prev: Option<&Elem>, elem: &Elem) -> bool {
    let after_open =
        matches!(prev, Some(Elem::Literal(l)) if matches!(l.as_str(), "(" | "[" | "<"));
    let closing = matches!(elem, Elem::Literal(l) if matches!(l.as_str(), "," | ")" | "]" | ">"));
    let open_after_value = matches!(elem, Elem::Literal(l) if l == "(")
        && matches!(
            prev,
            None | Some(Elem::Operand(_)) | Some(Elem::Successor(_))
        );
    !(after_open || closing || open_after_value)
}

/// Every element, with those of optional groups (and the groups themselves) included.
fn flatten(elems: &[Elem]) -> Vec<&Elem> {
    let mut out = Vec::new();
    for e in elems {
        out.push(e);
        if let Elem::Optional { elems, .. } = e {
            out.extend(flatten(elems));
        }
    }
    out
}

/// What printing needs to know about the op at hand.
struct PrintState<'o> {
    operands: Vec<acc_ir::ValueId>,
    operand_types: Vec<TypeId>,
    result_types: Vec<TypeId>,
    op_ranges: Vec<Range<usize>>,
    res_ranges: Vec<Range<usize>>,
    attr_names: Vec<&'o str>,
}

/// What parsing has collected so far, per declared group.
struct ParseState<'s> {
    operands: Vec<Vec<UnresolvedOperand<'s>>>,
    operand_types: Vec<Option<Vec<TypeId>>>,
    result_types: Vec<Option<Vec<TypeId>>>,
    successors: Vec<Option<BlockId>>,
    props: Vec<(Sym, acc_ir::AttrId)>,
}

impl DeclaredSyntax {
    fn anchor_present(
        &self,
        op: OpRef<'_>,
        ctx: &Context,
        anchor: &Elem,
        st: &PrintState<'_>,
    ) -> bool {
        match anchor {
            Elem::Attr(i) => op.attr(ctx, &self.decl.attributes[*i].name).is_some(),
            Elem::Operand(i) => !st.op_ranges[*i].is_empty(),
            _ => true,
        }
    }

    fn print_elems(
        &self,
        p: &mut OpPrinter<'_, '_>,
        op: OpRef<'_>,
        elems: &[Elem],
        st: &PrintState<'_>,
        prev: &mut Option<Elem>,
    ) {
        let ctx = p.ctx();
        for elem in elems {
            let space = if space_before(prev.as_ref(), elem) {
                " "
            } else {
                ""
            };
            match elem {
                Elem::Literal(l) => {
                    p.write_str(space);
                    p.write_str(l);
                }
                Elem::Operand(i) => {
                    let group = &st.operands[st.op_ranges[*i].clone()];
                    if !group.is_empty() {
                        p.write_str(space);
                        p.print_operands(group.iter().copied());
                    }
                }
                Elem::OperandType(i) => {
                    let group = &st.operand_types[st.op_ranges[*i].clone()];
                    if !group.is_empty() {
                        p.write_str(space);
                        p.print_types(group);
                    }
                }
                Elem::ResultType(i) => {
                    let group = &st.result_types[st.res_ranges[*i].clone()];
                    if !group.is_empty() {
                        p.write_str(space);
                        p.print_types(group);
                    }
                }
                Elem::Attr(i) => {
                    let decl = &self.decl.attributes[*i];
                    if let Some(a) = op.attr(ctx, &decl.name) {
                        p.write_str(space);
                        print_attr_value(p, a, &decl.kind);
                    }
                }
                Elem::Region(i) => {
                    p.write_str(space);
                    p.print_region_of(op, op.regions()[*i], true, true);
                }
                Elem::Successor(i) => {
                    if let Some(b) = op.successors().nth(*i) {
                        p.write_str(space);
                        p.print_successor(b);
                    }
                }
                Elem::AttrDict { keyword } => {
                    let prefix = if *keyword { " attributes " } else { " " };
                    crate::syntax::print_remaining_attrs(p, op, &st.attr_names, prefix);
                }
                Elem::Optional { elems, anchor } => {
                    if self.anchor_present(op, ctx, anchor, st) {
                        self.print_elems(p, op, elems, st, prev);
                    }
                    continue;
                }
            }
            *prev = Some(elem.clone());
        }
    }

    /// True when the optional group starting with `first` is present in the input.
    fn group_present(cp: &CustomParse<'_, '_, '_>, first: &Elem) -> bool {
        match first {
            Elem::Literal(l) => match PUNCTUATION.iter().find(|(p, _)| p == l) {
                Some((_, tok)) => cp.p.peek() == *tok,
                None => cp.p.at_keyword(l),
            },
            Elem::Operand(_) => cp.p.peek() == Tok::ValueId,
            _ => false,
        }
    }

    fn parse_elems<'s>(
        &self,
        cp: &mut CustomParse<'_, 's, '_>,
        state: &mut OperationState,
        elems: &[Elem],
        st: &mut ParseState<'s>,
    ) -> PResult<()> {
        let d = &self.decl;
        for elem in elems {
            match elem {
                Elem::Literal(l) => match PUNCTUATION.iter().find(|(p, _)| p == l) {
                    Some((_, tok)) => cp.p.expect(*tok, &format!("'{l}'"))?,
                    None => cp.p.expect_keyword(l)?,
                },
                Elem::Operand(i) => {
                    let q = d.operands[*i].quantifier;
                    if q == Quantifier::Single || cp.p.peek() == Tok::ValueId {
                        st.operands[*i].push(cp.p.parse_operand()?);
                        while q == Quantifier::Variadic && cp.p.peek() == Tok::Comma {
                            cp.p.try_consume(Tok::Comma);
                            st.operands[*i].push(cp.p.parse_operand()?);
                        }
                    }
                }
                Elem::OperandType(i) => {
                    let n = st.operands[*i].len();
                    st.operand_types[*i] = Some(parse_types(cp, n)?);
                }
                Elem::ResultType(i) => {
                    let n = if d.results[*i].quantifier == Quantifier::Single {
                        1
                    } else {
                        usize::MAX
                    };
                    st.result_types[*i] = Some(parse_types(cp, n)?);
                }
                Elem::Attr(i) => {
                    // Numbers of a known type are written without it (a `:` may follow).
                    let kind = &d.attributes[*i].kind;
                    let a = match kind.number_type(cp.p.context()) {
                        Some(ty) => cp.p.parse_typed_number(ty)?,
                        // A string is not followed by a type here either.
                        None if *kind == super::decl::AttrKind::String => {
                            let text = cp.p.parse_string()?;
                            cp.p.context().string_attr(&text)
                        }
                        None => cp.p.parse_attribute()?,
                    };
                    let key = cp.p.context().sym(&d.attributes[*i].name);
                    st.props.push((key, a));
                }
                Elem::Region(_) => cp.parse_region(state, &[])?,
                Elem::Successor(i) => st.successors[*i] = Some(cp.parse_successor()?),
                Elem::AttrDict { keyword } => {
                    if *keyword {
                        crate::syntax::parse_optional_attributes(cp.p, &mut state.attrs)?;
                    } else if cp.p.peek() == Tok::LBrace {
                        state.attrs.extend(cp.p.parse_attr_dict()?);
                    }
                }
                Elem::Optional { elems, .. } => {
                    if elems.first().is_some_and(|f| Self::group_present(cp, f)) {
                        self.parse_elems(cp, state, elems, st)?;
                    }
                }
            }
        }
        Ok(())
    }
}

impl CustomSyntax for DeclaredSyntax {
    fn can_print(&self, op: OpRef<'_>, ctx: &Context) -> bool {
        let names = self.attr_names();
        // Attributes named outside optional groups must be present to be printed.
        let required_present = self.elems.iter().all(|e| match e {
            Elem::Attr(i) => op.attr(ctx, &self.decl.attributes[*i].name).is_some(),
            _ => true,
        });
        super::verify::verify(&self.decl, op, ctx).is_empty()
            && crate::syntax::remaining_attrs(ctx, op, &names).is_some()
            && required_present
    }

    fn print(&self, p: &mut OpPrinter<'_, '_>, op: OpRef<'_>) -> std::fmt::Result {
        let operands: Vec<_> = op.operands().collect();
        let result_types = op.result_types();
        let (Some(op_ranges), Some(res_ranges)) = (
            group_ranges(&self.decl.operands, operands.len()),
            group_ranges(&self.decl.results, result_types.len()),
        ) else {
            return Ok(());
        };
        let st = PrintState {
            operand_types: op.operand_types(),
            operands,
            result_types,
            op_ranges,
            res_ranges,
            attr_names: self.attr_names(),
        };
        self.print_elems(p, op, &self.elems, &st, &mut None);
        Ok(())
    }

    fn parse(&self, cp: &mut CustomParse<'_, '_, '_>, state: &mut OperationState) -> PResult<()> {
        let d = &self.decl;
        let mut st = ParseState {
            operands: vec![Vec::new(); d.operands.len()],
            operand_types: vec![None; d.operands.len()],
            result_types: vec![None; d.results.len()],
            successors: vec![None; d.successors.len()],
            props: Vec::new(),
        };
        let span = cp.p.tok_span();
        self.parse_elems(cp, state, &self.elems, &mut st)?;
        // Types the format leaves to the traits: one type for all operands (and results).
        let known = st
            .operand_types
            .iter()
            .chain(st.result_types.iter())
            .flatten()
            .flatten()
            .next()
            .copied();
        for (i, group) in st.operands.iter().enumerate() {
            let types = match st.operand_types[i].take() {
                Some(t) => t,
                None => {
                    let t = buildable(&d.operands[i].constraint)
                        .or(known)
                        .unwrap_or_else(|| unreachable_type(cp));
                    vec![t; group.len()]
                }
            };
            let resolved = cp.resolve_all(group, &types, span.clone())?;
            state.operands.extend(resolved);
        }
        for (i, r) in d.results.iter().enumerate() {
            match st.result_types[i].take() {
                Some(t) => state.result_types.extend(t),
                None if r.quantifier == Quantifier::Single => {
                    if let Some(t) = buildable(&r.constraint).or(known.filter(|_| self.same_all)) {
                        state.result_types.push(t);
                    }
                }
                None => {}
            }
        }
        state.successors.extend(st.successors.into_iter().flatten());
        if !st.props.is_empty() {
            state.props = Some(crate::syntax::make_props(cp, st.props)?);
        }
        Ok(())
    }
}

/// Prints an attribute; numbers of a number kind without their type, which the kind
/// gives back when parsing.
fn print_attr_value(p: &mut OpPrinter<'_, '_>, a: acc_ir::AttrId, kind: &super::decl::AttrKind) {
    let ctx = p.ctx();
    let is_number_kind = matches!(
        kind,
        super::decl::AttrKind::Int(_) | super::decl::AttrKind::Float(_)
    );
    match ctx.attr_data(a) {
        acc_ir::AttrData::Integer { value, ty } if is_number_kind => {
            let bool_type = matches!(
                ctx.type_data(*ty),
                acc_ir::TypeData::Integer { width: 1, .. }
            );
            p.write_str(&if bool_type {
                (if *value != 0 { "true" } else { "false" }).to_string()
            } else {
                value.to_string()
            });
        }
        acc_ir::AttrData::Float { bits, ty } if is_number_kind => {
            if let acc_ir::TypeData::Float(k) = ctx.type_data(*ty) {
                let mut s = String::new();
                acc_ir::printer::write_float(&mut s, *k, *bits);
                p.write_str(&s);
            }
        }
        _ => p.print_attr(a),
    }
}

/// The one type a constraint allows, when it allows exactly one (the format then need
/// not spell it, as MLIR's buildable types).
fn buildable(c: &TypeConstraint) -> Option<TypeId> {
    match c {
        TypeConstraint::Exact(t) => Some(*t),
        TypeConstraint::Named(_, inner) => buildable(inner),
        _ => None,
    }
}

/// `none`, for the impossible case of a format without any type (rejected at load).
fn unreachable_type(cp: &mut CustomParse<'_, '_, '_>) -> TypeId {
    cp.p.context().none_type()
}

/// Parses `n` comma-separated types (`usize::MAX`: as many as there are).
fn parse_types(cp: &mut CustomParse<'_, '_, '_>, n: usize) -> PResult<Vec<TypeId>> {
    let mut types = Vec::new();
    if n == 0 {
        return Ok(types);
    }
    if n == usize::MAX && !cp.p.at_type() {
        return Ok(types);
    }
    types.push(cp.p.parse_type()?);
    while types.len() < n && cp.p.peek() == Tok::Comma {
        cp.p.try_consume(Tok::Comma);
        types.push(cp.p.parse_type()?);
    }
    Ok(types)
}
