//! The depth and size of uniqued types and attributes, recorded when they are
//! interned.
//!
//! Aliases let a short text build a deep or huge structure (`!t1 = tuple<!t0, !t0>`,
//! `!t2 = tuple<!t1, !t1>`, ...). The parser rejects any type or attribute heavier
//! than its limits, so that everything the printer and the verifier walk recursively is
//! bounded in depth and in size. Invariant: a weight is computed from the weights of
//! the children, which are always interned first.

use crate::attrs::{AttrData, AttrId, Location};
use crate::types::{TypeData, TypeId};

/// Nesting depth and node count of a type or attribute (saturating).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Weight {
    /// Longest chain of nested types/attributes, this one included.
    pub depth: u32,
    /// Number of type/attribute nodes, counting shared ones each time they appear.
    pub size: u64,
}

impl Weight {
    /// The weight of a node with no children.
    pub const LEAF: Weight = Weight { depth: 1, size: 1 };

    /// Adds a child.
    fn with(self, child: Weight) -> Weight {
        Weight {
            depth: self.depth.max(child.depth.saturating_add(1)),
            size: self.size.saturating_add(child.size),
        }
    }
}

/// The children of a type: the types and attributes it is built from.
fn type_children(data: &TypeData) -> (Vec<TypeId>, Vec<AttrId>) {
    match data {
        TypeData::Complex(t) | TypeData::UnrankedTensor(t) => (vec![*t], vec![]),
        TypeData::Tuple(ts) => (ts.to_vec(), vec![]),
        TypeData::Function { inputs, results } => (
            inputs.iter().chain(results.iter()).copied().collect(),
            vec![],
        ),
        TypeData::Vector { element, .. } => (vec![*element], vec![]),
        TypeData::RankedTensor {
            element, encoding, ..
        } => (vec![*element], encoding.iter().copied().collect()),
        TypeData::MemRef {
            element,
            layout,
            memory_space,
            ..
        } => (
            vec![*element],
            layout.iter().chain(memory_space.iter()).copied().collect(),
        ),
        TypeData::UnrankedMemRef {
            element,
            memory_space,
        } => (vec![*element], memory_space.iter().copied().collect()),
        TypeData::QuantUniform(q) => (vec![q.expressed], vec![]),
        TypeData::QuantSubChannel(q) => (vec![q.expressed], vec![]),
        TypeData::Declared { params, .. } => (vec![], params.to_vec()),
        TypeData::Integer { .. }
        | TypeData::Index
        | TypeData::Float(_)
        | TypeData::None
        | TypeData::Dialect { .. } => (vec![], vec![]),
    }
}

/// The children of an attribute.
fn attr_children(data: &AttrData) -> (Vec<TypeId>, Vec<AttrId>) {
    match data {
        AttrData::Integer { ty, .. }
        | AttrData::WideInteger { ty, .. }
        | AttrData::Float { ty, .. }
        | AttrData::Type(ty) => (vec![*ty], vec![]),
        AttrData::String { ty, .. } | AttrData::Dialect { ty, .. } => {
            (ty.iter().copied().collect(), vec![])
        }
        AttrData::DenseArray { element, .. } => (vec![*element], vec![]),
        AttrData::DenseElements { ty, .. } | AttrData::DenseResource { ty, .. } => {
            (vec![*ty], vec![])
        }
        AttrData::Sparse {
            ty,
            indices,
            values,
        } => (vec![*ty], vec![*indices, *values]),
        AttrData::Array(items) | AttrData::Declared { params: items, .. } => {
            (vec![], items.to_vec())
        }
        AttrData::Dictionary(entries) => (vec![], entries.iter().map(|(_, a)| *a).collect()),
        AttrData::Distinct { value, .. } => (vec![], vec![*value]),
        AttrData::Location(Location::Name { child, .. }) => {
            (vec![], child.iter().copied().collect())
        }
        AttrData::Location(Location::CallSite { callee, caller }) => {
            (vec![], vec![*callee, *caller])
        }
        AttrData::Location(Location::Fused { metadata, locs }) => (
            vec![],
            metadata.iter().chain(locs.iter()).copied().collect(),
        ),
        AttrData::Unit
        | AttrData::SymbolRef { .. }
        | AttrData::AffineMap(_)
        | AttrData::IntegerSet(_)
        | AttrData::Strided { .. }
        | AttrData::Location(_) => (vec![], vec![]),
    }
}

/// The weight of a node whose children weigh as `type_weight` / `attr_weight` say.
fn combine(
    children: (Vec<TypeId>, Vec<AttrId>),
    type_weight: &dyn Fn(TypeId) -> Weight,
    attr_weight: &dyn Fn(AttrId) -> Weight,
) -> Weight {
    let (types, attrs) = children;
    let w = types
        .into_iter()
        .fold(Weight::LEAF, |w, t| w.with(type_weight(t)));
    attrs.into_iter().fold(w, |w, a| w.with(attr_weight(a)))
}

/// The weight of a type, from its children's weights.
pub fn weigh_type(
    data: &TypeData,
    type_weight: &dyn Fn(TypeId) -> Weight,
    attr_weight: &dyn Fn(AttrId) -> Weight,
) -> Weight {
    combine(type_children(data), type_weight, attr_weight)
}

/// The weight of an attribute, from its children's weights.
pub fn weigh_attr(
    data: &AttrData,
    type_weight: &dyn Fn(TypeId) -> Weight,
    attr_weight: &dyn Fn(AttrId) -> Weight,
) -> Weight {
    combine(attr_children(data), type_weight, attr_weight)
}
