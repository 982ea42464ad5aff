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
    AttrDict { keyword: bool },
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

/// Compiles the format of `decl`. Errors carry a message and the byte range within the
/// format string.
pub fn compile(decl: &OpDecl, format: &str) -> Result<DeclaredSyntax, (String, Range<usize>)> {
    let mut elems = Vec::new();
    let mut pos = 0;
    let bytes = format.as_bytes();
    while pos < bytes.len() {
        if bytes[pos].is_ascii_whitespace() {
            pos += 1;
            continue;
        }
        let start = pos;
        let elem = if bytes[pos] == b'`' {
            let end = format[pos + 1..]
                .find('`')
                .map(|n| pos + 1 + n)
                .ok_or(("unterminated literal".to_string(), start..format.len()))?;
            let lit = &format[pos + 1..end];
            pos = end + 1;
            if !PUNCTUATION.iter().any(|(p, _)| *p == lit) && !is_keyword(lit) {
                return Err((
                    format!("literal `{lit}` is neither punctuation nor a keyword"),
                    start..pos,
                ));
            }
            Elem::Literal(lit.to_string())
        } else {
            let end = format[pos..]
                .find(char::is_whitespace)
                .map(|n| pos + n)
                .unwrap_or(format.len());
            let word = &format[pos..end];
            pos = end;
            resolve_word(decl, word).map_err(|m| (m, start..end))?
        };
        elems.push(elem);
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
        let count = |f: &dyn Fn(&Elem) -> bool| self.elems.iter().filter(|e| f(e)).count();
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
        let regions: Vec<usize> = self
            .elems
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
        self.elems
            .iter()
            .any(|e| matches!(e, Elem::OperandType(_) | Elem::ResultType(_)))
    }

    fn operand_type_inferable(&self) -> bool {
        (self.same_operands || self.same_all) && self.has_type_source()
    }

    fn attr_names(&self) -> Vec<&str> {
        self.elems
            .iter()
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

impl CustomSyntax for DeclaredSyntax {
    fn can_print(&self, op: OpRef<'_>, ctx: &Context) -> bool {
        let names = self.attr_names();
        super::verify::verify(&self.decl, op, ctx).is_empty()
            && crate::syntax::remaining_attrs(ctx, op, &names).is_some()
            // Attributes named in the format must be present to be printed.
            && names.iter().all(|n| op.attr(ctx, n).is_some())
    }

    fn print(&self, p: &mut OpPrinter<'_, '_>, op: OpRef<'_>) -> std::fmt::Result {
        let ctx = p.ctx();
        let operands: Vec<_> = op.operands().collect();
        let operand_types = op.operand_types();
        let result_types = op.result_types();
        let (Some(op_ranges), Some(res_ranges)) = (
            group_ranges(&self.decl.operands, operands.len()),
            group_ranges(&self.decl.results, result_types.len()),
        ) else {
            return Ok(());
        };
        let names = self.attr_names();
        let mut prev = None;
        for elem in &self.elems {
            let space = if space_before(prev, elem) { " " } else { "" };
            match elem {
                Elem::Literal(l) => {
                    p.write_str(space);
                    p.write_str(l);
                }
                Elem::Operand(i) => {
                    let group = &operands[op_ranges[*i].clone()];
                    if !group.is_empty() {
                        p.write_str(space);
                        p.print_operands(group.iter().copied());
                    }
                }
                Elem::OperandType(i) => {
                    let group = &operand_types[op_ranges[*i].clone()];
                    if !group.is_empty() {
                        p.write_str(space);
                        p.print_types(group);
                    }
                }
                Elem::ResultType(i) => {
                    let group = &result_types[res_ranges[*i].clone()];
                    if !group.is_empty() {
                        p.write_str(space);
                        p.print_types(group);
                    }
                }
                Elem::Attr(i) => {
                    if let Some(a) = op.attr(ctx, &self.decl.attributes[*i].name) {
                        p.write_str(space);
                        print_attr_value(p, a);
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
                    crate::syntax::print_remaining_attrs(p, op, &names, prefix);
                }
            }
            prev = Some(elem);
        }
        Ok(())
    }

    fn parse(&self, cp: &mut CustomParse<'_, '_, '_>, state: &mut OperationState) -> PResult<()> {
        let d = &self.decl;
        let mut operands: Vec<Vec<UnresolvedOperand<'_>>> = vec![Vec::new(); d.operands.len()];
        let mut operand_types: Vec<Option<Vec<TypeId>>> = vec![None; d.operands.len()];
        let mut result_types: Vec<Option<Vec<TypeId>>> = vec![None; d.results.len()];
        let mut successors: Vec<Option<BlockId>> = vec![None; d.successors.len()];
        let mut props: Vec<(Sym, acc_ir::AttrId)> = Vec::new();
        let span = cp.p.tok_span();
        for elem in &self.elems {
            match elem {
                Elem::Literal(l) => match PUNCTUATION.iter().find(|(p, _)| p == l) {
                    Some((_, tok)) => cp.p.expect(*tok, &format!("'{l}'"))?,
                    None => cp.p.expect_keyword(l)?,
                },
                Elem::Operand(i) => {
                    let q = d.operands[*i].quantifier;
                    if q == Quantifier::Single || cp.p.peek() == Tok::ValueId {
                        operands[*i].push(cp.p.parse_operand()?);
                        while q == Quantifier::Variadic
                            && cp.p.peek() == Tok::Comma
                            && cp.p.tok_text() == ","
                        {
                            cp.p.try_consume(Tok::Comma);
                            operands[*i].push(cp.p.parse_operand()?);
                        }
                    }
                }
                Elem::OperandType(i) => {
                    let n = operands[*i].len();
                    operand_types[*i] = Some(parse_types(cp, n)?);
                }
                Elem::ResultType(i) => {
                    let n = if d.results[*i].quantifier == Quantifier::Single {
                        1
                    } else {
                        usize::MAX
                    };
                    result_types[*i] = Some(parse_types(cp, n)?);
                }
                Elem::Attr(i) => {
                    let a = cp.p.parse_attribute()?;
                    let key = cp.p.context().sym(&d.attributes[*i].name);
                    props.push((key, a));
                }
                Elem::Region(_) => cp.parse_region(state, &[])?,
                Elem::Successor(i) => successors[*i] = Some(cp.parse_successor()?),
                Elem::AttrDict { keyword } => {
                    if *keyword {
                        crate::syntax::parse_optional_attributes(cp.p, &mut state.attrs)?;
                    } else if cp.p.peek() == Tok::LBrace {
                        state.attrs.extend(cp.p.parse_attr_dict()?);
                    }
                }
            }
        }
        // Types the format leaves to the traits: one type for all operands (and results).
        let known = operand_types
            .iter()
            .chain(result_types.iter())
            .flatten()
            .flatten()
            .next()
            .copied();
        for (i, group) in operands.iter().enumerate() {
            let types = match operand_types[i].take() {
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
            match result_types[i].take() {
                Some(t) => state.result_types.extend(t),
                None if r.quantifier == Quantifier::Single => {
                    if let Some(t) = buildable(&r.constraint).or(known.filter(|_| self.same_all)) {
                        state.result_types.push(t);
                    }
                }
                None => {}
            }
        }
        state.successors.extend(successors.into_iter().flatten());
        if !props.is_empty() {
            state.props = Some(crate::syntax::make_props(cp, props)?);
        }
        Ok(())
    }
}

/// Prints an attribute, leaving out the type of `i64` integers and `f64` floats, which
/// is what a bare number parses as.
fn print_attr_value(p: &mut OpPrinter<'_, '_>, a: acc_ir::AttrId) {
    let ctx = p.ctx();
    match ctx.attr_data(a) {
        acc_ir::AttrData::Integer { value, ty }
            if matches!(
                ctx.type_data(*ty),
                acc_ir::TypeData::Integer {
                    width: 64,
                    signedness: acc_ir::Signedness::Signless
                }
            ) =>
        {
            p.write_str(&value.to_string())
        }
        acc_ir::AttrData::Float { bits, ty }
            if matches!(
                ctx.type_data(*ty),
                acc_ir::TypeData::Float(acc_ir::FloatKind::F64)
            ) =>
        {
            let mut s = String::new();
            acc_ir::printer::write_float(&mut s, acc_ir::FloatKind::F64, *bits);
            p.write_str(&s);
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
