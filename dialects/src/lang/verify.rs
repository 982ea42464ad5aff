//! The verifier of an op declared in the dialect language, checking in order: operand
//! and result counts (with segment sizes when several groups are optional or
//! variadic) and constraints, attributes (presence and kind), regions, successors,
//! the traits that relate types, the relations (`AllTypesMatch(a, b)`, ...), and the
//! result types given by the op's inference hook. Messages name the op and the
//! offending operand, result or attribute; the first failure is reported.

use std::ops::Range;

use acc_ir::attrs::AttrData;
use acc_ir::printer::type_to_string;
use acc_ir::{Context, DiagLoc, Diagnostic, InferHook, InferInput, OpRef, TypeData, TypeId};

use super::decl::{OpDecl, Quantifier, RelationKind, ValueDecl, segment_property};

/// The traits the verifier checks (the structural ones go to [`acc_ir::OpTraits`]).
pub const CHECKED_TRAITS: [&str; 4] = [
    "SameOperandsAndResultType",
    "SameTypeOperands",
    "SameOperandsAndResultShape",
    "SameOperandsAndResultElementType",
];

/// Splits `n` values among declarations with at most one optional or variadic group:
/// the range of each declaration, or `None` when `n` cannot be split so.
pub fn group_ranges(decls: &[ValueDecl], n: usize) -> Option<Vec<Range<usize>>> {
    let quantifiers: Vec<Quantifier> = decls.iter().map(|d| d.quantifier).collect();
    split_groups(&quantifiers, n)
}

/// [`group_ranges`] of groups given by their quantifiers.
fn split_groups(quantifiers: &[Quantifier], n: usize) -> Option<Vec<Range<usize>>> {
    let singles = quantifiers
        .iter()
        .filter(|q| **q == Quantifier::Single)
        .count();
    let flexible = quantifiers.iter().find(|q| **q != Quantifier::Single);
    let extra = n.checked_sub(singles)?;
    match flexible {
        None if extra != 0 => return None,
        Some(Quantifier::Optional) if extra > 1 => return None,
        _ => {}
    }
    let sizes: Vec<usize> = quantifiers
        .iter()
        .map(|q| if *q == Quantifier::Single { 1 } else { extra })
        .collect();
    Some(ranges_of(&sizes))
}

/// Consecutive ranges of the given sizes.
pub fn ranges_of(sizes: &[usize]) -> Vec<Range<usize>> {
    let mut at = 0;
    sizes
        .iter()
        .map(|&len| {
            at += len;
            at - len..at
        })
        .collect()
}

/// The sizes in a segment sizes property (`array<i32: 1, 0, 2>`), if well formed.
pub fn segment_sizes(ctx: &Context, op: OpRef<'_>, results: bool) -> Option<Vec<usize>> {
    let attr = op.attr(ctx, segment_property(results))?;
    let AttrData::DenseArray { element, data } = ctx.attr_data(attr) else {
        return None;
    };
    if !matches!(ctx.type_data(*element), TypeData::Integer { width: 32, .. }) {
        return None;
    }
    data.chunks_exact(4)
        .map(|c| usize::try_from(i32::from_le_bytes([c[0], c[1], c[2], c[3]])).ok())
        .collect()
}

/// The range of each declared operand (or result) group of `op`: from its segment
/// sizes when the declaration needs them, else by counting. `Err` says what is wrong.
pub fn value_ranges(
    ctx: &Context,
    decl: &OpDecl,
    op: OpRef<'_>,
    results: bool,
) -> Result<Vec<Range<usize>>, String> {
    let decls = if results {
        &decl.results
    } else {
        &decl.operands
    };
    let quantifiers: Vec<Quantifier> = decls.iter().map(|d| d.quantifier).collect();
    quantified_ranges(ctx, op, &quantifiers, results).map_err(|why| match why {
        GroupMismatch::Count(n) => {
            let what = if results { "result" } else { "operand" };
            let count = count_text(decls);
            let plural = if count == "1" { "" } else { "s" };
            format!(
                "'{}' op expects {count} {what}{plural}, but found {n}",
                decl.name
            )
        }
        GroupMismatch::NoSegments => format!(
            "'{}' op requires property '{}': an array<i32: ...> of {} non-negative sizes",
            decl.name,
            segment_property(results),
            decls.len()
        ),
        GroupMismatch::Segments(sizes, n) => format!(
            "'{}' op '{}' {sizes:?} does not match its {n} {}s and the {} declared groups",
            decl.name,
            segment_property(results),
            if results { "result" } else { "operand" },
            decls.len()
        ),
    })
}

/// Why an op's values do not split into its declared groups.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GroupMismatch {
    /// This many values cannot be split by counting.
    Count(usize),
    /// The segment sizes property is missing or malformed.
    NoSegments,
    /// The segment sizes do not fit the values (sizes, number of values).
    Segments(Vec<usize>, usize),
}

/// The range of each operand (or result) group of `op`, the groups declared by their
/// quantifiers: from the segment sizes property when more than one group is optional
/// or variadic, else by counting (the typed views of `crate::ops` use this too).
pub fn quantified_ranges(
    ctx: &Context,
    op: OpRef<'_>,
    quantifiers: &[Quantifier],
    results: bool,
) -> Result<Vec<Range<usize>>, GroupMismatch> {
    let n = if results {
        op.results().len()
    } else {
        op.operands().len()
    };
    let flexible = quantifiers
        .iter()
        .filter(|q| **q != Quantifier::Single)
        .count();
    if flexible <= 1 {
        return split_groups(quantifiers, n).ok_or(GroupMismatch::Count(n));
    }
    let sizes = segment_sizes(ctx, op, results).ok_or(GroupMismatch::NoSegments)?;
    let fits = sizes.len() == quantifiers.len()
        && sizes.iter().sum::<usize>() == n
        && quantifiers.iter().zip(&sizes).all(|(q, &s)| match q {
            Quantifier::Single => s == 1,
            Quantifier::Optional => s <= 1,
            Quantifier::Variadic => true,
        });
    if !fits {
        return Err(GroupMismatch::Segments(sizes, n));
    }
    Ok(ranges_of(&sizes))
}

fn count_text(decls: &[ValueDecl]) -> String {
    let singles = decls
        .iter()
        .filter(|d| d.quantifier == Quantifier::Single)
        .count();
    match decls
        .iter()
        .find(|d| d.quantifier != Quantifier::Single)
        .map(|d| d.quantifier)
    {
        None => format!("{singles}"),
        Some(Quantifier::Optional) => format!("{singles} or {}", singles + 1),
        Some(_) => format!("at least {singles}"),
    }
}

/// Checks values (operands or results) against their declarations.
fn check_values(
    ctx: &Context,
    op: &OpDecl,
    what: &str,
    decls: &[ValueDecl],
    ranges: &[Range<usize>],
    types: &[TypeId],
) -> Option<String> {
    for (decl, range) in decls.iter().zip(ranges) {
        for i in range.clone() {
            if !decl.constraint.matches(ctx, types[i]) {
                return Some(format!(
                    "'{}' op {what} #{i} ('{}') must be {}, but got {}",
                    op.name,
                    decl.name,
                    decl.constraint.describe(ctx),
                    type_to_string(ctx, types[i])
                ));
            }
        }
    }
    None
}

/// The shape of a type (`None` when unranked; a scalar has the empty shape) and its
/// element type (a scalar is its own).
pub fn shape_and_element(ctx: &Context, t: TypeId) -> (Option<Vec<i64>>, TypeId) {
    let d = ctx.type_data(t);
    let element = d.element_type().unwrap_or(t);
    let shape = match d {
        TypeData::UnrankedTensor(_) | TypeData::UnrankedMemRef { .. } => None,
        _ => Some(d.shape().unwrap_or(&[]).to_vec()),
    };
    (shape, element)
}

/// Whether two types agree for a relation.
fn agree(ctx: &Context, kind: RelationKind, a: TypeId, b: TypeId) -> bool {
    let (sa, ea) = shape_and_element(ctx, a);
    let (sb, eb) = shape_and_element(ctx, b);
    match kind {
        RelationKind::Types => a == b,
        RelationKind::ElementTypes => ea == eb,
        RelationKind::Shapes => sa == sb,
        RelationKind::Ranks => sa.map(|s| s.len()) == sb.map(|s| s.len()),
        RelationKind::ElementOf => ea == b,
    }
}

fn check_traits(
    ctx: &Context,
    decl: &OpDecl,
    operands: &[TypeId],
    results: &[TypeId],
) -> Option<String> {
    let all: Vec<TypeId> = operands.iter().chain(results).copied().collect();
    for (t, _) in &decl.traits {
        let (set, kind) = match t.as_str() {
            "SameOperandsAndResultType" => (&all[..], RelationKind::Types),
            "SameTypeOperands" => (operands, RelationKind::Types),
            "SameOperandsAndResultShape" => (&all[..], RelationKind::Shapes),
            "SameOperandsAndResultElementType" => (&all[..], RelationKind::ElementTypes),
            _ => continue,
        };
        if let Some(first) = set.first()
            && let Some(other) = set.iter().find(|x| !agree(ctx, kind, *first, **x))
        {
            let what = match t.as_str() {
                "SameTypeOperands" => "all operands to have the same type",
                "SameOperandsAndResultShape" => "the same shape for all operands and results",
                "SameOperandsAndResultElementType" => {
                    "the same element type for all operands and results"
                }
                _ => "the same type for all operands and results",
            };
            return Some(format!(
                "'{}' op requires {what} ({t}), but found {} and {}",
                decl.name,
                type_to_string(ctx, *first),
                type_to_string(ctx, *other)
            ));
        }
    }
    None
}

fn check_relations(
    ctx: &Context,
    decl: &OpDecl,
    groups: [(&[TypeId], &[Range<usize>]); 2],
) -> Option<String> {
    for rel in &decl.relations {
        let mut first: Option<(&str, TypeId)> = None;
        for &(is_result, g) in &rel.values {
            let (types, ranges) = groups[is_result as usize];
            let name = if is_result {
                &decl.results[g].name
            } else {
                &decl.operands[g].name
            };
            for i in ranges[g].clone() {
                match first {
                    None => first = Some((name, types[i])),
                    Some((fname, ft)) if !agree(ctx, rel.kind, ft, types[i]) => {
                        if rel.kind == RelationKind::ElementOf {
                            return Some(format!(
                                "'{}' op requires '{name}' to have the element type of '{fname}' (ElementTypeOf), but found {} and {}",
                                decl.name,
                                type_to_string(ctx, ft),
                                type_to_string(ctx, types[i])
                            ));
                        }
                        return Some(format!(
                            "'{}' op requires {} for '{fname}' and '{name}' ({}), but found {} and {}",
                            decl.name,
                            rel.kind.describe(),
                            rel.kind.name(),
                            type_to_string(ctx, ft),
                            type_to_string(ctx, types[i])
                        ));
                    }
                    Some(_) => {}
                }
            }
        }
    }
    None
}

/// True when an actual result type is what inference gave, a dynamic inferred
/// dimension accepting any size.
fn compatible(ctx: &Context, actual: TypeId, inferred: &TypeData) -> bool {
    let data = ctx.type_data(actual);
    if data == inferred {
        return true;
    }
    match (data, inferred) {
        (
            TypeData::RankedTensor {
                shape: a,
                element: ea,
                encoding: na,
            },
            TypeData::RankedTensor {
                shape: b,
                element: eb,
                encoding: nb,
            },
        ) => {
            ea == eb
                && na == nb
                && a.len() == b.len()
                && a.iter()
                    .zip(b.iter())
                    .all(|(x, y)| x == y || *y == acc_ir::DYNAMIC)
        }
        _ => false,
    }
}

/// Checks the result types against the inference hook.
fn check_inferred(
    ctx: &Context,
    decl: &OpDecl,
    infer: &InferHook,
    op: OpRef<'_>,
    operands: &[TypeId],
    results: &[TypeId],
) -> Option<String> {
    let input = InferInput {
        operand_types: operands,
        props: op.props(),
        attrs: op.attrs(),
    };
    let inferred = match infer(ctx, &input) {
        Ok(t) => t,
        Err(m) => return Some(format!("'{}' op {m}", decl.name)),
    };
    if inferred.len() != results.len() {
        return Some(format!(
            "'{}' op infers {} results, but has {}",
            decl.name,
            inferred.len(),
            results.len()
        ));
    }
    for (i, (actual, want)) in results.iter().zip(&inferred).enumerate() {
        if !compatible(ctx, *actual, want) {
            let want = acc_ir::printer::type_data_to_string(ctx, want);
            return Some(format!(
                "'{}' op result #{i} has type {}, but its operands and attributes give {want}",
                decl.name,
                type_to_string(ctx, *actual)
            ));
        }
    }
    None
}

/// Verifies `op` against its declaration (and, when given, its inference hook).
pub fn verify(
    decl: &OpDecl,
    infer: Option<&InferHook>,
    op: OpRef<'_>,
    ctx: &Context,
) -> Vec<Diagnostic> {
    match first_error(decl, infer, op, ctx) {
        Some(m) => vec![Diagnostic::error(DiagLoc::Loc(op.loc()), m)],
        None => Vec::new(),
    }
}

fn first_error(
    decl: &OpDecl,
    infer: Option<&InferHook>,
    op: OpRef<'_>,
    ctx: &Context,
) -> Option<String> {
    let operands = op.operand_types();
    let results = op.result_types();
    let op_ranges = match value_ranges(ctx, decl, op, false) {
        Ok(r) => r,
        Err(m) => return Some(m),
    };
    let res_ranges = match value_ranges(ctx, decl, op, true) {
        Ok(r) => r,
        Err(m) => return Some(m),
    };
    let values = [
        ("operand", &decl.operands, &op_ranges, &operands),
        ("result", &decl.results, &res_ranges, &results),
    ];
    for (what, decls, ranges, types) in values {
        if let Some(m) = check_values(ctx, decl, what, decls, ranges, types) {
            return Some(m);
        }
    }
    for a in &decl.attributes {
        match op.attr_sym(ctx, a.sym) {
            None if !a.optional => {
                return Some(format!(
                    "'{}' op requires attribute '{}'",
                    decl.name, a.name
                ));
            }
            Some(v) if !a.kind.matches(ctx, v) => {
                return Some(format!(
                    "'{}' op attribute '{}' must be of kind '{}', but got {}",
                    decl.name,
                    a.name,
                    a.kind.name(),
                    acc_ir::printer::attr_to_string(ctx, v)
                ));
            }
            _ => {}
        }
    }
    if op.regions().len() != decl.regions.len() {
        return Some(format!(
            "'{}' op expects {} regions, but found {}",
            decl.name,
            decl.regions.len(),
            op.regions().len()
        ));
    }
    let body = op.ir.body(op.region_body());
    for (r, d) in op.regions().iter().zip(&decl.regions) {
        if d.single_block && body.region_blocks(*r).count() > 1 {
            return Some(format!(
                "'{}' op region '{}' must have at most one block",
                decl.name, d.name
            ));
        }
    }
    if op.successors().len() != decl.successors.len() {
        return Some(format!(
            "'{}' op expects {} successors, but found {}",
            decl.name,
            decl.successors.len(),
            op.successors().len()
        ));
    }
    if let Some(m) = check_traits(ctx, decl, &operands, &results) {
        return Some(m);
    }
    let groups = [
        (&operands[..], &op_ranges[..]),
        (&results[..], &res_ranges[..]),
    ];
    if let Some(m) = check_relations(ctx, decl, groups) {
        return Some(m);
    }
    infer.and_then(|h| check_inferred(ctx, decl, h, op, &operands, &results))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::constraint::TypeConstraint;

    fn v(q: Quantifier) -> ValueDecl {
        ValueDecl {
            name: "x".into(),
            quantifier: q,
            constraint: TypeConstraint::Any,
        }
    }

    #[test]
    fn splits_groups() {
        use Quantifier::*;
        assert_eq!(
            group_ranges(&[v(Single), v(Variadic), v(Single)], 5),
            Some(vec![0..1, 1..4, 4..5])
        );
        assert_eq!(
            group_ranges(&[v(Single), v(Optional)], 1),
            Some(vec![0..1, 1..1])
        );
        assert_eq!(group_ranges(&[v(Single), v(Optional)], 3), None);
        assert_eq!(group_ranges(&[v(Single)], 0), None);
        assert_eq!(group_ranges(&[], 0), Some(vec![]));
        assert_eq!(ranges_of(&[1, 0, 2]), vec![0..1, 1..1, 1..3]);
    }
}
