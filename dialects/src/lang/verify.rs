//! The verifier of an op declared in the dialect language: counts, type constraints,
//! attributes, regions, successors and declared traits, with messages that name the
//! offending operand, result or attribute.

use std::ops::Range;

use acc_ir::printer::type_to_string;
use acc_ir::{Context, DiagLoc, Diagnostic, OpRef, TypeData, TypeId};

use super::decl::{OpDecl, Quantifier, ValueDecl};

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
    let singles = decls
        .iter()
        .filter(|d| d.quantifier == Quantifier::Single)
        .count();
    let flexible = decls.iter().find(|d| d.quantifier != Quantifier::Single);
    let extra = n.checked_sub(singles)?;
    match flexible.map(|d| d.quantifier) {
        None if extra != 0 => return None,
        Some(Quantifier::Optional) if extra > 1 => return None,
        _ => {}
    }
    let mut at = 0;
    Some(
        decls
            .iter()
            .map(|d| {
                let len = if d.quantifier == Quantifier::Single {
                    1
                } else {
                    extra
                };
                at += len;
                at - len..at
            })
            .collect(),
    )
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
    types: &[TypeId],
) -> Option<String> {
    let Some(ranges) = group_ranges(decls, types.len()) else {
        return Some(format!(
            "'{}' op expects {} {what}s, but found {}",
            op.name,
            count_text(decls),
            types.len()
        ));
    };
    for (decl, range) in decls.iter().zip(ranges) {
        for i in range {
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

fn shape_and_element(ctx: &Context, t: TypeId) -> (Option<Vec<i64>>, TypeId) {
    let d = ctx.type_data(t);
    let element = d.element_type().unwrap_or(t);
    let shape = match d {
        TypeData::UnrankedTensor(_) | TypeData::UnrankedMemRef { .. } => None,
        _ => Some(d.shape().unwrap_or(&[]).to_vec()),
    };
    (shape, element)
}

/// Whether two types are "the same" for a trait.
type TypeRelation = fn(&Context, TypeId, TypeId) -> bool;

fn check_traits(
    ctx: &Context,
    decl: &OpDecl,
    operands: &[TypeId],
    results: &[TypeId],
) -> Option<String> {
    let all: Vec<TypeId> = operands.iter().chain(results).copied().collect();
    for (t, _) in &decl.traits {
        let (set, same): (&[TypeId], TypeRelation) = match t.as_str() {
            "SameOperandsAndResultType" => (&all, |_, a, b| a == b),
            "SameTypeOperands" => (operands, |_, a, b| a == b),
            "SameOperandsAndResultShape" => (&all, |c, a, b| {
                shape_and_element(c, a).0 == shape_and_element(c, b).0
            }),
            "SameOperandsAndResultElementType" => (&all, |c, a, b| {
                shape_and_element(c, a).1 == shape_and_element(c, b).1
            }),
            _ => continue,
        };
        if let Some(first) = set.first()
            && let Some(other) = set.iter().find(|x| !same(ctx, *first, **x))
        {
            return Some(format!(
                "'{}' op requires {} ({t}), but found {} and {}",
                decl.name,
                match t.as_str() {
                    "SameOperandsAndResultShape" => "the same shape for all operands and results",
                    "SameOperandsAndResultElementType" =>
                        "the same element type for all operands and results",
                    "SameTypeOperands" => "all operands to have the same type",
                    _ => "the same type for all operands and results",
                },
                type_to_string(ctx, *first),
                type_to_string(ctx, *other)
            ));
        }
    }
    None
}

/// Verifies `op` against its declaration.
pub fn verify(decl: &OpDecl, op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let error = |m: String| vec![Diagnostic::error(DiagLoc::Loc(op.loc()), m)];
    let operands = op.operand_types();
    let results = op.result_types();
    if let Some(m) = check_values(ctx, decl, "operand", &decl.operands, &operands) {
        return error(m);
    }
    if let Some(m) = check_values(ctx, decl, "result", &decl.results, &results) {
        return error(m);
    }
    for a in &decl.attributes {
        match op.attr(ctx, &a.name) {
            None if !a.optional => {
                return error(format!(
                    "'{}' op requires attribute '{}'",
                    decl.name, a.name
                ));
            }
            Some(v) if !a.kind.matches(ctx, v) => {
                return error(format!(
                    "'{}' op attribute '{}' must be of kind '{}'",
                    decl.name,
                    a.name,
                    a.kind.name()
                ));
            }
            _ => {}
        }
    }
    if op.regions().len() != decl.regions.len() {
        return error(format!(
            "'{}' op expects {} regions, but found {}",
            decl.name,
            decl.regions.len(),
            op.regions().len()
        ));
    }
    let body = op.ir.body(op.region_body());
    for (r, d) in op.regions().iter().zip(&decl.regions) {
        if d.single_block && body.region_blocks(*r).count() > 1 {
            return error(format!(
                "'{}' op region '{}' must have at most one block",
                decl.name, d.name
            ));
        }
    }
    if op.successors().len() != decl.successors.len() {
        return error(format!(
            "'{}' op expects {} successors, but found {}",
            decl.name,
            decl.successors.len(),
            op.successors().len()
        ));
    }
    match check_traits(ctx, decl, &operands, &results) {
        Some(m) => error(m),
        None => Vec::new(),
    }
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
    }
}
