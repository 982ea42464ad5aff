//! The functions a pattern may call: constraints in its `where` clause and attribute
//! builders in its `rewrite` block. Each declares the kinds of its arguments, checked
//! when the pattern is loaded, so that at match time an argument always has its kind.

use acc_ir::attrs::AttrData;
use acc_ir::elements::{self, Scalar};
use acc_ir::rewrite::constant_value;
use acc_ir::{AttrId, BodyId, Context, Ir, TypeData, ValueId};

/// What an argument is: a value (`%x`) or an attribute (`$p`, a literal, a call).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ArgKind {
    /// `%x`.
    Value,
    /// `$p`, `"literal"` or `f(...)`.
    Attr,
}

/// An evaluated argument.
#[derive(Copy, Clone, Debug)]
pub enum ArgVal {
    /// A value of the body being rewritten.
    Value(ValueId),
    /// An attribute.
    Attr(AttrId),
}

/// Where the arguments live.
pub struct Scope<'a> {
    /// The context.
    pub ctx: &'a Context,
    /// The IR.
    pub ir: &'a Ir,
    /// The body being rewritten.
    pub body: BodyId,
}

/// A constraint: true when the match may be rewritten.
pub type ConstraintFn = fn(&Scope<'_>, &[ArgVal]) -> bool;
/// An attribute builder: `None` when it cannot build one (the rewrite is abandoned).
pub type AttrFn = fn(&Scope<'_>, &[ArgVal]) -> Option<AttrId>;

/// One function: name, argument kinds, summary (for docs and errors).
pub struct Function<F> {
    /// The name written in patterns.
    pub name: &'static str,
    /// The kinds of its arguments.
    pub args: &'static [ArgKind],
    /// What it checks or builds.
    pub summary: &'static str,
    /// The function.
    pub run: F,
}

use ArgKind::{Attr as A, Value as V};

/// The constraints, by name.
pub const CONSTRAINTS: [Function<ConstraintFn>; 7] = [
    Function {
        name: "constant",
        args: &[V],
        summary: "the value is the result of a constant-like op",
        run: |s, a| value(a, 0).is_some_and(|v| constant_value(s.ctx, s.ir, s.body, v).is_some()),
    },
    Function {
        name: "not_constant",
        args: &[V],
        summary: "the value is not the result of a constant-like op",
        run: |s, a| value(a, 0).is_some_and(|v| constant_value(s.ctx, s.ir, s.body, v).is_none()),
    },
    Function {
        name: "one_use",
        args: &[V],
        summary: "the value has exactly one use",
        run: |s, a| value(a, 0).is_some_and(|v| s.ir.body(s.body).value_users(v).count() == 1),
    },
    Function {
        name: "single_element",
        args: &[V],
        summary: "the value is a tensor of one element and rank 0 or 1 (it broadcasts against any shape without changing it)",
        run: |s, a| {
            value(a, 0).is_some_and(|v| {
                let ty = s.ir.body(s.body).value_type(v);
                s.ctx
                    .type_data(ty)
                    .shape()
                    .is_some_and(|shape| shape.len() <= 1 && shape.iter().all(|d| *d == 1))
            })
        },
    },
    Function {
        name: "same_type",
        args: &[V, V],
        summary: "the two values have the same type",
        run: |s, a| match (value(a, 0), value(a, 1)) {
            (Some(x), Some(y)) => {
                let b = s.ir.body(s.body);
                b.value_type(x) == b.value_type(y)
            }
            _ => false,
        },
    },
    Function {
        name: "equal",
        args: &[A, A],
        summary: "the two attributes are equal",
        run: |_, a| matches!((attr(a, 0), attr(a, 1)), (Some(x), Some(y)) if x == y),
    },
    Function {
        name: "inverse_permutations",
        args: &[A, A],
        summary: "the two `array<i64>` permutations undo each other",
        run: |s, a| inverse_permutations(s.ctx, a),
    },
];

/// The attribute builders, by name.
pub const BUILDERS: [Function<AttrFn>; 3] = [
    Function {
        name: "exact_reciprocal",
        args: &[V],
        summary: "1 / c for a float constant c whose every reciprocal is exact in its type (powers of two); none otherwise",
        run: |s, a| exact_reciprocal(s, a),
    },
    Function {
        name: "splat",
        args: &[A, V],
        summary: "a dense splat of the value's (shaped) type holding the scalar attribute",
        run: |s, a| splat(s, a),
    },
    Function {
        name: "swapped_cmpi_predicate",
        args: &[A],
        summary: "the `arith.cmpi` predicate that holds with the operands swapped",
        run: |s, a| swapped_cmpi_predicate(s.ctx, a),
    },
];

/// The constraint named `name`.
pub fn constraint(name: &str) -> Option<&'static Function<ConstraintFn>> {
    CONSTRAINTS.iter().find(|f| f.name == name)
}

/// The attribute builder named `name`.
pub fn builder(name: &str) -> Option<&'static Function<AttrFn>> {
    BUILDERS.iter().find(|f| f.name == name)
}

fn value(args: &[ArgVal], i: usize) -> Option<ValueId> {
    match args.get(i)? {
        ArgVal::Value(v) => Some(*v),
        ArgVal::Attr(_) => None,
    }
}

fn attr(args: &[ArgVal], i: usize) -> Option<AttrId> {
    match args.get(i)? {
        ArgVal::Attr(a) => Some(*a),
        ArgVal::Value(_) => None,
    }
}

/// The values of an `array<i64: ...>` attribute.
pub(super) fn i64_array(ctx: &Context, a: AttrId) -> Option<Vec<i64>> {
    match ctx.attr_data(a) {
        AttrData::DenseArray { element, data }
            if matches!(ctx.type_data(*element), TypeData::Integer { width: 64, .. }) =>
        {
            data.chunks_exact(8)
                .map(|c| c.try_into().ok().map(i64::from_le_bytes))
                .collect()
        }
        _ => None,
    }
}

/// `transpose(transpose(x, p), q) == x` exactly when `p[q[i]] == i` for every `i`.
fn inverse_permutations(ctx: &Context, args: &[ArgVal]) -> bool {
    let (Some(p), Some(q)) = (attr(args, 0), attr(args, 1)) else {
        return false;
    };
    let (Some(p), Some(q)) = (i64_array(ctx, p), i64_array(ctx, q)) else {
        return false;
    };
    p.len() == q.len()
        && q.iter().enumerate().all(|(i, &qi)| {
            usize::try_from(qi)
                .ok()
                .and_then(|qi| p.get(qi))
                .is_some_and(|&pq| pq == i as i64)
        })
}

fn splat(s: &Scope<'_>, args: &[ArgVal]) -> Option<AttrId> {
    let (scalar, like) = (attr(args, 0)?, value(args, 1)?);
    let ty = s.ir.body(s.body).value_type(like);
    let element = s.ctx.type_data(ty).element_type()?;
    let kind = elements::ElementKind::of(s.ctx, element)?;
    let (_, v) = elements::scalar(s.ctx, scalar)?;
    let v = match (kind, v) {
        (elements::ElementKind::Float(_), Scalar::Int(i)) => Scalar::Float(i as f64),
        (elements::ElementKind::Int(..), Scalar::Float(_)) => return None,
        (_, v) => v,
    };
    elements::dense_attr(s.ctx, ty, &[kind.normalize(v)])
}

/// The constant 1 / c of the same type, when c is a float constant and every 1 / c is
/// exactly representable (a power of two whose reciprocal is in range): then
/// x * (1 / c) rounds to the same value as x / c for every x.
fn exact_reciprocal(s: &Scope<'_>, args: &[ArgVal]) -> Option<AttrId> {
    let c = value(args, 0)?;
    let dense = elements::dense(s.ctx, constant_value(s.ctx, s.ir, s.body, c)?)?;
    let elements::ElementKind::Float(kind) = dense.kind else {
        return None;
    };
    let reciprocals = dense
        .values
        .iter()
        .map(|v| match v {
            Scalar::Float(c) if c.is_finite() && *c != 0.0 => {
                let r = 1.0 / c;
                (elements::round_float(r, kind) == r && r * c == 1.0).then_some(Scalar::Float(r))
            }
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    elements::dense_attr(s.ctx, dense.ty, &reciprocals)
}

/// `arith.cmpi` predicates by number: eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge.
const SWAPPED_CMPI: [i128; 10] = [0, 1, 4, 5, 2, 3, 8, 9, 6, 7];

fn swapped_cmpi_predicate(ctx: &Context, args: &[ArgVal]) -> Option<AttrId> {
    let a = attr(args, 0)?;
    let (ty, Scalar::Int(p)) = elements::scalar(ctx, a)? else {
        return None;
    };
    let swapped = *SWAPPED_CMPI.get(usize::try_from(p).ok()?)?;
    elements::scalar_attr(ctx, ty, Scalar::Int(swapped))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn function_names_are_unique() {
        let mut names: Vec<&str> = CONSTRAINTS.iter().map(|f| f.name).collect();
        names.extend(BUILDERS.iter().map(|f| f.name));
        let n = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), n);
    }

    #[test]
    fn swapping_twice_is_the_identity() {
        for (i, s) in SWAPPED_CMPI.iter().enumerate() {
            assert_eq!(SWAPPED_CMPI[*s as usize], i as i128);
        }
    }
}
