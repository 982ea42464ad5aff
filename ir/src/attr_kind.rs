//! Attribute kinds: what a declared attribute or type parameter may hold (`i64`,
//! `string`, `i64_array`, an enum of a dialect, ...), how to check an attribute against a
//! kind, and how a kind is written without its type in custom forms (`3`, not `3 : i64`).
//!
//! Kinds are named in dialect files (`attributes (shift: i64)`); the same names are
//! used in diagnostics and in the generated docs.

use crate::attrs::{AttrData, AttrId};
use crate::context::Context;
use crate::types::{FloatKind, TypeData, TypeId};

/// The kinds of attributes a declaration can require.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AttrKind {
    /// Any attribute.
    Any,
    /// An integer attribute of this many bits (`i1` is `bool`), or of `index` (`None`).
    Int(Option<u32>),
    /// A float attribute of 32 or 64 bits.
    Float(u32),
    /// A string.
    String,
    /// A unit attribute (a flag).
    Unit,
    /// A type.
    Type,
    /// A symbol reference.
    Symbol,
    /// The name a symbol defines (`sym_name`): a string, written `@name` in formats.
    SymbolName,
    /// An array of attributes.
    Array,
    /// A dictionary.
    Dict,
    /// Dense elements (or a dense resource).
    Dense,
    /// A typed value: an integer, a float or dense elements (what `arith.constant` holds).
    Typed,
    /// A dense array of integers of this width (`array<i64: 1, 2>`).
    IntArray(u32),
    /// A dense array of floats of this width (`array<f32: 0.5>`).
    FloatArray(u32),
    /// An affine map.
    AffineMap,
    /// An enum or flags attribute of a dialect, by full name (`arith.overflow`).
    Enum(String),
    /// A declared attribute of a dialect, by full name (`hw.memory`).
    Declared(String),
}

impl AttrKind {
    /// The builtin kinds and their names in dialect files.
    pub const NAMES: [(&'static str, AttrKind); 24] = [
        ("any", AttrKind::Any),
        ("bool", AttrKind::Int(Some(1))),
        ("i8", AttrKind::Int(Some(8))),
        ("i16", AttrKind::Int(Some(16))),
        ("i32", AttrKind::Int(Some(32))),
        ("i64", AttrKind::Int(Some(64))),
        ("index", AttrKind::Int(None)),
        ("f32", AttrKind::Float(32)),
        ("f64", AttrKind::Float(64)),
        ("string", AttrKind::String),
        ("unit", AttrKind::Unit),
        ("type", AttrKind::Type),
        ("symbol", AttrKind::Symbol),
        ("symbol_name", AttrKind::SymbolName),
        ("array", AttrKind::Array),
        ("dict", AttrKind::Dict),
        ("dense", AttrKind::Dense),
        ("typed", AttrKind::Typed),
        ("i32_array", AttrKind::IntArray(32)),
        ("i64_array", AttrKind::IntArray(64)),
        ("bool_array", AttrKind::IntArray(1)),
        ("f32_array", AttrKind::FloatArray(32)),
        ("f64_array", AttrKind::FloatArray(64)),
        ("affine_map", AttrKind::AffineMap),
    ];

    /// The builtin kind named `name`.
    pub fn from_name(name: &str) -> Option<AttrKind> {
        Self::NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, k)| k.clone())
    }

    /// The name of the kind, as written in dialect files.
    pub fn name(&self) -> String {
        match self {
            AttrKind::Enum(full) | AttrKind::Declared(full) => full
                .split_once('.')
                .map(|(_, n)| n)
                .unwrap_or(full)
                .to_string(),
            _ => Self::NAMES
                .iter()
                .find(|(_, k)| k == self)
                .map(|(n, _)| n.to_string())
                .unwrap_or_default(),
        }
    }

    /// The type of the numbers of this kind, when it is a number kind (their custom
    /// form omits the type). Looks the type up without creating it: every number type
    /// exists in every context (see [`Context::new`]).
    pub fn number_type(&self, ctx: &Context) -> Option<TypeId> {
        let data = match *self {
            AttrKind::Int(Some(w)) => TypeData::Integer {
                width: w,
                signedness: crate::types::Signedness::Signless,
            },
            AttrKind::Int(None) => TypeData::Index,
            AttrKind::Float(32) => TypeData::Float(FloatKind::F32),
            AttrKind::Float(_) => TypeData::Float(FloatKind::F64),
            _ => return None,
        };
        ctx.lookup_type(&data)
    }

    /// True when `attr` is of this kind.
    pub fn matches(&self, ctx: &Context, attr: AttrId) -> bool {
        let data = ctx.attr_data(attr);
        let int_width = |ty: TypeId| match ctx.type_data(ty) {
            TypeData::Integer { width, .. } => Some(*width),
            _ => None,
        };
        let float_width = |ty: TypeId| match ctx.type_data(ty) {
            TypeData::Float(k) => Some(k.width()),
            _ => None,
        };
        match self {
            AttrKind::Any => true,
            AttrKind::Int(width) => match data {
                AttrData::Integer { ty, .. } | AttrData::WideInteger { ty, .. } => match width {
                    None => matches!(ctx.type_data(*ty), TypeData::Index),
                    Some(w) => int_width(*ty) == Some(*w),
                },
                _ => false,
            },
            AttrKind::Float(w) => {
                matches!(data, AttrData::Float { ty, .. } if float_width(*ty) == Some(*w))
            }
            AttrKind::String | AttrKind::SymbolName => {
                matches!(data, AttrData::String { ty: None, .. })
            }
            AttrKind::Unit => matches!(data, AttrData::Unit),
            AttrKind::Type => matches!(data, AttrData::Type(_)),
            AttrKind::Symbol => matches!(data, AttrData::SymbolRef { .. }),
            AttrKind::Array => matches!(data, AttrData::Array(_)),
            AttrKind::Dict => matches!(data, AttrData::Dictionary(_)),
            AttrKind::Dense => matches!(
                data,
                AttrData::DenseElements { .. } | AttrData::DenseResource { .. }
            ),
            AttrKind::Typed => matches!(
                data,
                AttrData::Integer { .. }
                    | AttrData::WideInteger { .. }
                    | AttrData::Float { .. }
                    | AttrData::DenseElements { .. }
                    | AttrData::DenseResource { .. }
                    | AttrData::Sparse { .. }
            ),
            AttrKind::IntArray(w) => matches!(data, AttrData::DenseArray { element, .. }
                if int_width(*element) == Some(*w)),
            AttrKind::FloatArray(w) => matches!(data, AttrData::DenseArray { element, .. }
                if float_width(*element) == Some(*w)),
            AttrKind::AffineMap => matches!(data, AttrData::AffineMap(_)),
            AttrKind::Enum(full) => match ctx.enum_attr(full) {
                Some(def) => def.decode(ctx, full, attr).is_some(),
                None => false,
            },
            AttrKind::Declared(full) => match data {
                AttrData::Declared { dialect, name, .. } => {
                    let (d, n) = full.split_once('.').unwrap_or((full, ""));
                    ctx.str(*dialect) == d && ctx.str(*name) == n
                }
                _ => false,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for (name, kind) in AttrKind::NAMES.iter() {
            assert_eq!(AttrKind::from_name(name).as_ref(), Some(kind));
            assert_eq!(&kind.name(), name);
        }
        assert_eq!(AttrKind::Enum("arith.overflow".into()).name(), "overflow");
    }

    #[test]
    fn number_kinds_have_types_in_a_fresh_context() {
        let ctx = Context::new();
        for (_, kind) in AttrKind::NAMES.iter() {
            let is_number = matches!(kind, AttrKind::Int(_) | AttrKind::Float(_));
            assert_eq!(kind.number_type(&ctx).is_some(), is_number, "{kind:?}");
        }
    }
}
