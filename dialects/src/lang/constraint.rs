//! Type constraints of the dialect language: what an operand or result may be.
//!
//! A constraint is a union (`a | b`) of terms: a builtin class (`AnyType`,
//! `AnyInteger`, `AnySignlessInteger`, `AnyFloat`, `AnyQuantized`), an exact type (`i8`,
//! `f32`, `index`), a shaped type with an element constraint and optionally a rank
//! (`tensor<i8 | i4>`, `ranked_tensor<AnyFloat, rank 4>`, `memref<...>`, `vector<...>`,
//! or the bare kind for any element), a type the dialect declared (`token`), or the name
//! of a constraint the dialect defined earlier.

use acc_ir::printer::type_to_string;
use acc_ir::{Context, Signedness, TypeData, TypeId};

/// A type constraint.
#[derive(Clone, Debug)]
pub enum TypeConstraint {
    /// Any type.
    Any,
    /// Exactly this type.
    Exact(TypeId),
    /// Any integer type.
    AnyInteger,
    /// Any signless integer type.
    AnySignlessInteger,
    /// Any float type.
    AnyFloat,
    /// A `!quant.uniform` type.
    AnyQuantized,
    /// A shaped type of `kind` whose element satisfies the inner constraint, and whose
    /// rank, when a range is given, is in it (an unranked type has no rank and fails).
    Shaped(ShapedKind, Box<TypeConstraint>, Option<RankRange>),
    /// A type a dialect declared, any parameters: its full name (`hw.token`).
    Declared(String),
    /// Any of these.
    AnyOf(Vec<TypeConstraint>),
    /// A constraint the dialect named (kept for messages).
    Named(String, Box<TypeConstraint>),
}

/// Allowed ranks: `rank 4` is `4..=4`, `rank 1..3` is `1..=3`, `rank 2..` has no
/// upper bound.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RankRange {
    /// Smallest rank.
    pub min: u32,
    /// Largest rank, if bounded.
    pub max: Option<u32>,
}

impl RankRange {
    fn contains(self, rank: usize) -> bool {
        rank >= self.min as usize && self.max.is_none_or(|m| rank <= m as usize)
    }

    fn describe(self) -> String {
        match self.max {
            Some(m) if m == self.min => format!("rank {m}"),
            Some(m) => format!("rank {} to {m}", self.min),
            None => format!("rank {} or more", self.min),
        }
    }
}

/// The shaped type kinds a constraint can name.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ShapedKind {
    /// `tensor<...>`: ranked or unranked tensor.
    Tensor,
    /// `ranked_tensor<...>`.
    RankedTensor,
    /// `memref<...>`: ranked or unranked memref.
    MemRef,
    /// `vector<...>`.
    Vector,
}

impl ShapedKind {
    /// The keyword.
    pub fn keyword(self) -> &'static str {
        match self {
            ShapedKind::Tensor => "tensor",
            ShapedKind::RankedTensor => "ranked_tensor",
            ShapedKind::MemRef => "memref",
            ShapedKind::Vector => "vector",
        }
    }

    /// The kind named by a keyword.
    pub fn from_keyword(s: &str) -> Option<ShapedKind> {
        [
            ShapedKind::Tensor,
            ShapedKind::RankedTensor,
            ShapedKind::MemRef,
            ShapedKind::Vector,
        ]
        .into_iter()
        .find(|k| k.keyword() == s)
    }
}

/// A builtin class by name.
pub fn builtin_class(name: &str) -> Option<TypeConstraint> {
    Some(match name {
        "AnyType" => TypeConstraint::Any,
        "AnyInteger" => TypeConstraint::AnyInteger,
        "AnySignlessInteger" => TypeConstraint::AnySignlessInteger,
        "AnyFloat" => TypeConstraint::AnyFloat,
        "AnyQuantized" => TypeConstraint::AnyQuantized,
        _ => match ShapedKind::from_keyword(name) {
            Some(kind) => TypeConstraint::Shaped(kind, Box::new(TypeConstraint::Any), None),
            None => return None,
        },
    })
}

impl TypeConstraint {
    /// True when `ty` satisfies the constraint.
    pub fn matches(&self, ctx: &Context, ty: TypeId) -> bool {
        let data = ctx.type_data(ty);
        match self {
            TypeConstraint::Any => true,
            TypeConstraint::Exact(t) => *t == ty,
            TypeConstraint::AnyInteger => matches!(data, TypeData::Integer { .. }),
            TypeConstraint::AnySignlessInteger => {
                matches!(
                    data,
                    TypeData::Integer {
                        signedness: Signedness::Signless,
                        ..
                    }
                )
            }
            TypeConstraint::AnyFloat => matches!(data, TypeData::Float(_)),
            TypeConstraint::AnyQuantized => matches!(data, TypeData::QuantUniform(_)),
            TypeConstraint::Declared(full) => match data {
                TypeData::Declared { dialect, name, .. } => {
                    full.split_once('.') == Some((ctx.str(*dialect), ctx.str(*name)))
                }
                _ => false,
            },
            TypeConstraint::Shaped(kind, element, rank) => {
                let kind_ok = match kind {
                    ShapedKind::Tensor => matches!(
                        data,
                        TypeData::RankedTensor { .. } | TypeData::UnrankedTensor(_)
                    ),
                    ShapedKind::RankedTensor => matches!(data, TypeData::RankedTensor { .. }),
                    ShapedKind::MemRef => matches!(
                        data,
                        TypeData::MemRef { .. } | TypeData::UnrankedMemRef { .. }
                    ),
                    ShapedKind::Vector => matches!(data, TypeData::Vector { .. }),
                };
                let rank_ok =
                    rank.is_none_or(|r| data.shape().is_some_and(|s| r.contains(s.len())));
                kind_ok && rank_ok && data.element_type().is_some_and(|e| element.matches(ctx, e))
            }
            TypeConstraint::AnyOf(options) => options.iter().any(|c| c.matches(ctx, ty)),
            TypeConstraint::Named(_, inner) => inner.matches(ctx, ty),
        }
    }

    /// How the constraint reads in a diagnostic.
    pub fn describe(&self, ctx: &Context) -> String {
        match self {
            TypeConstraint::Any => "any type".into(),
            TypeConstraint::Exact(t) => type_to_string(ctx, *t),
            TypeConstraint::AnyInteger => "any integer".into(),
            TypeConstraint::AnySignlessInteger => "any signless integer".into(),
            TypeConstraint::AnyFloat => "any float".into(),
            TypeConstraint::AnyQuantized => "any quantized type".into(),
            TypeConstraint::Declared(full) => format!("!{full}"),
            TypeConstraint::Shaped(kind, element, rank) => {
                let base = match **element {
                    TypeConstraint::Any => format!("any {}", kind.keyword()),
                    _ => format!("{} of {}", kind.keyword(), element.describe(ctx)),
                };
                match rank {
                    Some(r) => format!("{base} of {}", r.describe()),
                    None => base,
                }
            }
            TypeConstraint::AnyOf(options) => options
                .iter()
                .map(|c| c.describe(ctx))
                .collect::<Vec<_>>()
                .join(" | "),
            TypeConstraint::Named(name, inner) => format!("{name} ({})", inner.describe(ctx)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_and_describes() {
        let ctx = Context::new();
        let i8t = ctx.int_type(8);
        let i4t = ctx.int_type(4);
        let f32t = ctx.float_type(acc_ir::FloatKind::F32);
        let small =
            TypeConstraint::AnyOf(vec![TypeConstraint::Exact(i8t), TypeConstraint::Exact(i4t)]);
        let t = TypeConstraint::Shaped(ShapedKind::Tensor, Box::new(small), None);
        let rank2 = TypeConstraint::Shaped(
            ShapedKind::Tensor,
            Box::new(TypeConstraint::Any),
            Some(RankRange { min: 2, max: None }),
        );
        let ti8 = ctx.intern_type(TypeData::RankedTensor {
            shape: vec![4].into(),
            element: i8t,
            encoding: None,
        });
        let tf32 = ctx.intern_type(TypeData::RankedTensor {
            shape: vec![4].into(),
            element: f32t,
            encoding: None,
        });
        let ui8 = ctx.intern_type(TypeData::UnrankedTensor(i4t));
        assert!(t.matches(&ctx, ti8));
        assert!(t.matches(&ctx, ui8));
        assert!(!t.matches(&ctx, tf32));
        assert!(!t.matches(&ctx, i8t));
        assert_eq!(t.describe(&ctx), "tensor of i8 | i4");
        assert!(!rank2.matches(&ctx, ti8));
        assert!(!rank2.matches(&ctx, ui8));
        assert_eq!(rank2.describe(&ctx), "any tensor of rank 2 or more");
        assert!(builtin_class("AnyFloat").unwrap().matches(&ctx, f32t));
    }
}
