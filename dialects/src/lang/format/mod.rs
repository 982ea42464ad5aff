//! Assembly formats: the custom syntax of a declared op, from a format string in the
//! spirit of MLIR's `assemblyFormat`, printed ([`print`]) and parsed ([`parse`]) by the
//! same element list, so that the two agree by construction.
//!
//! Elements, separated by spaces: `` `lit` `` (punctuation such as `,` `:` `(` `->`, a
//! keyword, or ` `` ` for "no space here"), `$name` (an operand group, attribute,
//! region or successor), `type($name)`, `type(operands)`, `type(results)`,
//! `functional-type(operands, results)`, `attr-dict`, `attr-dict-with-keyword`, and
//! optional groups `( ... )?` anchored by `^`.
//!
//! A format must mention every operand, region and successor, let the type of every
//! operand and result be known (written, the single type a constraint allows, a trait
//! or relation that ties it to a written one, or the op's inference hook), and contain
//! one attribute dictionary. Attributes not named by `$name` go through the dictionary.

mod parse;
mod print;

use std::ops::Range;

use acc_ir::parser::lexer::Tok;
use acc_ir::parser::{CustomParse, OperationState, PResult};
use acc_ir::printer::OpPrinter;
use acc_ir::{AttrKind, Context, CustomSyntax, InferHook, OpRef, TypeId};

use super::constraint::TypeConstraint;
use super::decl::{OpDecl, Quantifier, RelationKind};

/// One element of a format.
#[derive(Clone, Debug, PartialEq)]
enum Elem {
    /// Punctuation or a keyword.
    Literal(String),
    /// ` `` `: no space before the next element.
    NoSpace,
    Operand(usize),
    Attr(usize),
    Region(usize),
    Successor(usize),
    OperandType(usize),
    ResultType(usize),
    /// `type(operands)`.
    AllOperandTypes,
    /// `type(results)`.
    AllResultTypes,
    /// `functional-type(operands, results)`.
    FunctionalType,
    /// `dynamic_index_list($operands, $attr)`: `[0, %i, 4]`, constants in the
    /// `i64_array` attribute and, where it holds `?` (i64::MIN), the next operand of the
    /// variadic `index` group (MLIR's `custom<DynamicIndexList>`).
    DynamicList {
        operand: usize,
        attr: usize,
    },
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
    infer: Option<InferHook>,
    /// The op's extra verifier: an op it rejects prints in generic form.
    verifier: Option<acc_ir::registry::VerifyHook>,
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

/// Compiles the format of `decl`; `infer` is the op's inference hook, which lets the
/// format leave result types out.
pub fn compile(
    decl: &OpDecl,
    format: &str,
    infer: Option<InferHook>,
    verifier: Option<acc_ir::registry::VerifyHook>,
) -> Result<DeclaredSyntax, FormatError> {
    let mut pos = 0;
    let (elems, _) = compile_elems(decl, format, &mut pos, false)?;
    if pos < format.len() {
        return Err(("')?' without a matching '('".into(), pos..format.len()));
    }
    let syntax = DeclaredSyntax {
        decl: decl.clone(),
        elems,
        infer,
        verifier,
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
            if lit.is_empty() {
                Elem::NoSpace
            } else if PUNCTUATION.iter().any(|(p, _)| *p == lit) || is_keyword(lit) {
                Elem::Literal(lit.to_string())
            } else {
                return Err((
                    format!("literal `{lit}` is neither punctuation nor a keyword"),
                    start..*pos,
                ));
            }
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
                Some(Elem::Attr(i)) if matches!(decl.attributes[*i].kind, AttrKind::Enum(_)) => {}
                _ => {
                    return Err((
                        "an optional group must start with a literal, an operand or an enum attribute".into(),
                        range,
                    ));
                }
            }
            Elem::Optional {
                elems: inner,
                anchor: Box::new(anchor),
            }
        } else {
            let end = word_end(format, start);
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
                    // A region may be empty: the group is printed when it has blocks.
                    Elem::Region(_) => true,
                    _ => false,
                };
                if !in_group || !ok || anchor.is_some() {
                    return Err(("'^' marks the one optional attribute, optional/variadic operand or region that decides an optional group".into(), start..*pos));
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

/// The end of a word: the next space or literal, or the `)` closing a directive's
/// parentheses.
fn word_end(format: &str, start: usize) -> usize {
    let mut depth = 0usize;
    for (i, c) in format[start..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    return start + i + 1;
                }
            }
            c if (c.is_whitespace() || c == '`') && depth == 0 && i > 0 => return start + i,
            _ => {}
        }
    }
    format.len()
}

fn resolve_word(decl: &OpDecl, word: &str) -> Result<Elem, String> {
    match word {
        "attr-dict" => return Ok(Elem::AttrDict { keyword: false }),
        "attr-dict-with-keyword" => return Ok(Elem::AttrDict { keyword: true }),
        "type(operands)" => return Ok(Elem::AllOperandTypes),
        "type(results)" => return Ok(Elem::AllResultTypes),
        "functional-type(operands, results)" | "functional-type(operands,results)" => {
            return Ok(Elem::FunctionalType);
        }
        _ => {}
    }
    if let Some(inner) = word
        .strip_prefix("dynamic_index_list(")
        .and_then(|w| w.strip_suffix(')'))
    {
        return dynamic_list(decl, inner);
    }
    if let Some(inner) = word.strip_prefix("type(").and_then(|w| w.strip_suffix(')')) {
        let name = inner.trim().strip_prefix('$').ok_or(format!(
            "expected type($name), type(operands) or type(results), found '{word}'"
        ))?;
        if let Some(i) = decl.operands.iter().position(|o| o.name == name) {
            return Ok(Elem::OperandType(i));
        }
        if let Some(i) = decl.results.iter().position(|o| o.name == name) {
            return Ok(Elem::ResultType(i));
        }
        return Err(format!(
            "type(${name}): '{name}' is not an operand or result of '{}'",
            decl.name
        ));
    }
    if let Some(name) = word.strip_prefix('$') {
        if let Some(i) = decl.operands.iter().position(|o| o.name == name) {
            return Ok(Elem::Operand(i));
        }
        if let Some(i) = decl.attributes.iter().position(|a| a.name == name) {
            return Ok(Elem::Attr(i));
        }
        if let Some(i) = decl.regions.iter().position(|r| r.name == name) {
            return Ok(Elem::Region(i));
        }
        if let Some(i) = decl.successors.iter().position(|s| s.name == name) {
            return Ok(Elem::Successor(i));
        }
        if decl.results.iter().any(|r| r.name == name) {
            return Err(format!(
                "results are not written in the format; use type(${name}) for their types"
            ));
        }
        return Err(format!(
            "'${name}' is not an operand, attribute, region or successor of '{}'",
            decl.name
        ));
    }
    Err(format!(
        "unknown format element '{word}': expected `literal`, $name, type($name), type(operands), type(results), functional-type(operands, results), attr-dict or attr-dict-with-keyword"
    ))
}

/// `dynamic_index_list($operands, $attr)`: a variadic operand group and an i64 array.
fn dynamic_list(decl: &OpDecl, inner: &str) -> Result<Elem, String> {
    let usage = "expected dynamic_index_list($operands, $attr): a variadic operand group and an i64_array attribute";
    let (a, b) = inner.split_once(',').ok_or(usage)?;
    let (a, b) = (a.trim().strip_prefix('$'), b.trim().strip_prefix('$'));
    let operand = a.and_then(|a| decl.operands.iter().position(|o| o.name == a));
    let attr = b.and_then(|b| decl.attributes.iter().position(|x| x.name == b));
    match (operand, attr) {
        (Some(o), Some(at))
            if decl.operands[o].quantifier == Quantifier::Variadic
                && decl.attributes[at].kind == AttrKind::IntArray(64) =>
        {
            Ok(Elem::DynamicList {
                operand: o,
                attr: at,
            })
        }
        _ => Err(usage.into()),
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

/// Where the type of each operand and result group comes from, once the written types
/// are known: the groups whose types a relation, a trait or a constraint fixes.
/// `known` is `(operands, results)`, updated in place to a fixed point.
fn propagate_known(decl: &OpDecl, has_infer: bool, known: &mut (Vec<bool>, Vec<bool>)) {
    for (i, o) in decl.operands.iter().enumerate() {
        known.0[i] |= buildable(&o.constraint).is_some();
    }
    for (i, r) in decl.results.iter().enumerate() {
        known.1[i] |= buildable(&r.constraint).is_some() || has_infer;
    }
    let same_all = decl.has_trait("SameOperandsAndResultType");
    let same_operands = same_all || decl.has_trait("SameTypeOperands");
    loop {
        let before = known.clone();
        for rel in decl
            .relations
            .iter()
            .filter(|r| r.kind == RelationKind::Types)
        {
            let any = rel
                .values
                .iter()
                .any(|&(res, g)| if res { known.1[g] } else { known.0[g] });
            if any {
                for &(res, g) in &rel.values {
                    if res {
                        known.1[g] = true
                    } else {
                        known.0[g] = true
                    }
                }
            }
        }
        for rel in decl
            .relations
            .iter()
            .filter(|r| r.kind == RelationKind::ElementOf)
        {
            if let [(cres, cg), (eres, eg)] = rel.values[..] {
                let container = if cres { known.1[cg] } else { known.0[cg] };
                if container {
                    if eres {
                        known.1[eg] = true
                    } else {
                        known.0[eg] = true
                    }
                }
            }
        }
        let any_operand = known.0.iter().any(|k| *k);
        let any = any_operand || known.1.iter().any(|k| *k);
        if (same_operands && any_operand) || (same_all && any) {
            known.0.iter_mut().for_each(|k| *k = true);
        }
        if same_all && any {
            known.1.iter_mut().for_each(|k| *k = true);
        }
        if *known == before {
            return;
        }
    }
}

impl DeclaredSyntax {
    /// Rejects a format that would lose information.
    fn check_complete(&self) -> Result<(), String> {
        let d = &self.decl;
        let all = flatten(&self.elems);
        let count = |e: &Elem| all.iter().filter(|x| **x == e).count();
        let dicts = all
            .iter()
            .filter(|e| matches!(e, Elem::AttrDict { .. }))
            .count();
        if dicts != 1 {
            return Err(
                "the format must contain attr-dict (or attr-dict-with-keyword) exactly once".into(),
            );
        }
        self.check_ambiguity(&self.elems)?;
        let in_list = |i: usize| {
            all.iter()
                .filter(|e| matches!(e, Elem::DynamicList { operand, .. } if *operand == i))
                .count()
        };
        for (i, o) in d.operands.iter().enumerate() {
            if count(&Elem::Operand(i)) + in_list(i) != 1 {
                return Err(format!(
                    "the format must mention operand '${}' exactly once",
                    o.name
                ));
            }
        }
        let region_order: Vec<usize> = all
            .iter()
            .filter_map(|e| {
                if let Elem::Region(i) = e {
                    Some(*i)
                } else {
                    None
                }
            })
            .collect();
        if region_order != (0..d.regions.len()).collect::<Vec<_>>() {
            return Err("the format must mention every region once, in declaration order".into());
        }
        for (i, s) in d.successors.iter().enumerate() {
            if count(&Elem::Successor(i)) != 1 {
                return Err(format!(
                    "the format must mention successor '${}' exactly once",
                    s.name
                ));
            }
        }
        for (i, a) in d.attributes.iter().enumerate() {
            if count(&Elem::Attr(i)) > 1 {
                return Err(format!("the format mentions attribute '${}' twice", a.name));
            }
        }
        self.check_unit_anchors(&self.elems, None)?;
        let written = |e: &Elem| all.contains(&e);
        let functional = written(&Elem::FunctionalType);
        let mut known = (
            (0..d.operands.len())
                .map(|i| {
                    functional || written(&Elem::AllOperandTypes) || written(&Elem::OperandType(i))
                })
                .collect::<Vec<bool>>(),
            (0..d.results.len())
                .map(|i| {
                    functional || written(&Elem::AllResultTypes) || written(&Elem::ResultType(i))
                })
                .collect::<Vec<bool>>(),
        );
        propagate_known(d, self.infer.is_some(), &mut known);
        if let Some(i) = known.0.iter().position(|k| !k) {
            return Err(format!(
                "the format must give the type of operand '${}' (type(${}), or a trait or relation that ties it to a written type)",
                d.operands[i].name, d.operands[i].name
            ));
        }
        if let Some(i) = known.1.iter().position(|k| !k) {
            return Err(format!(
                "the format must give the type of result '${}' (type(${}), a trait or relation that ties it to a written type, or an infer hook)",
                d.results[i].name, d.results[i].name
            ));
        }
        Ok(())
    }

    /// Rejects formats the parser could not read back unambiguously: an operand group
    /// right after an optional or variadic one (where would one end?), and an
    /// attribute dictionary right before a region (both start with `{`).
    fn check_ambiguity(&self, elems: &[Elem]) -> Result<(), String> {
        for pair in elems.windows(2) {
            match pair {
                [Elem::Operand(a), Elem::Operand(b)]
                    if self.decl.operands[*a].quantifier != Quantifier::Single =>
                {
                    return Err(format!(
                        "operand groups '${}' and '${}' must be separated by a literal, since '${}' has no fixed length",
                        self.decl.operands[*a].name,
                        self.decl.operands[*b].name,
                        self.decl.operands[*a].name
                    ));
                }
                [Elem::AttrDict { keyword: false }, Elem::Region(_)] => {
                    return Err(
                        "attr-dict cannot come right before a region (both start with '{'): use attr-dict-with-keyword"
                            .into(),
                    );
                }
                _ => {}
            }
        }
        for e in elems {
            if let Elem::Optional { elems, .. } = e {
                self.check_ambiguity(elems)?;
            }
        }
        Ok(())
    }

    /// A unit attribute prints nothing itself: it must be the anchor of its group.
    fn check_unit_anchors(&self, elems: &[Elem], anchor: Option<&Elem>) -> Result<(), String> {
        for e in elems {
            match e {
                Elem::Attr(i)
                    if self.decl.attributes[*i].kind == AttrKind::Unit && anchor != Some(e) =>
                {
                    return Err(format!(
                        "unit attribute '${}' can only be written as the anchor of an optional group",
                        self.decl.attributes[*i].name
                    ));
                }
                Elem::Optional { elems, anchor } => self.check_unit_anchors(elems, Some(anchor))?,
                _ => {}
            }
        }
        Ok(())
    }

    /// Names of the attributes the format writes itself (the rest go to attr-dict).
    fn attr_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = flatten(&self.elems)
            .into_iter()
            .filter_map(|e| match e {
                Elem::Attr(i) | Elem::DynamicList { attr: i, .. } => {
                    Some(self.decl.attributes[*i].name.as_str())
                }
                _ => None,
            })
            .collect();
        // Segment sizes are implied by the groups, as in MLIR.
        if OpDecl::needs_segments(&self.decl.operands) {
            names.push(super::decl::segment_property(false));
        }
        if OpDecl::needs_segments(&self.decl.results) {
            names.push(super::decl::segment_property(true));
        }
        names
    }
}

impl CustomSyntax for DeclaredSyntax {
    fn can_print(&self, op: OpRef<'_>, ctx: &Context) -> bool {
        super::verify::verify(&self.decl, self.infer.as_ref(), op, ctx).is_empty()
            && self.verifier.as_ref().is_none_or(|v| v(op, ctx).is_empty())
            && crate::syntax::remaining_attrs(ctx, op, &self.attr_names()).is_some()
            && self.required_attrs_present(op, ctx)
    }

    fn print(&self, p: &mut OpPrinter<'_, '_>, op: OpRef<'_>) -> std::fmt::Result {
        if let Some(st) = self.state(op, p.ctx()) {
            let mut spacing = print::Spacing::START;
            self.print_elems(p, op, &self.elems, &st, &mut spacing);
        }
        Ok(())
    }

    fn parse(&self, cp: &mut CustomParse<'_, '_, '_>, state: &mut OperationState) -> PResult<()> {
        self.parse_op(cp, state)
    }
}
