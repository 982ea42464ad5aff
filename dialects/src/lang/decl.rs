//! What a dialect file declares, as data: dialects, their types, attributes and ops.
//! [`read`](super::read) builds these from text; the loader turns them into
//! registrations; the verifier and the assembly formats interpret them.

use std::ops::Range;

use acc_ir::AttrKind;
use acc_ir::attrs::AttrId;
use acc_ir::context::{DeclaredDef, EnumAttrDef};

use super::constraint::TypeConstraint;

/// How many values an operand or result declaration stands for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Quantifier {
    /// Exactly one.
    Single,
    /// Zero or one.
    Optional,
    /// Any number.
    Variadic,
}

/// A declared operand or result.
#[derive(Clone, Debug)]
pub struct ValueDecl {
    /// Its name (used in the format and in messages).
    pub name: String,
    /// How many values.
    pub quantifier: Quantifier,
    /// What types they may have.
    pub constraint: TypeConstraint,
}

/// A declared attribute.
#[derive(Clone, Debug)]
pub struct AttrDecl {
    /// Its name.
    pub name: String,
    /// Its name, interned (for lookups while verifying).
    pub sym: acc_ir::Sym,
    /// Whether it may be absent.
    pub optional: bool,
    /// Its kind.
    pub kind: AttrKind,
    /// The value it takes when absent (the parser adds it, as MLIR does).
    pub default: Option<AttrId>,
}

/// A declared region.
#[derive(Clone, Debug)]
pub struct RegionDecl {
    /// Its name.
    pub name: String,
    /// Whether it must have at most one block.
    pub single_block: bool,
}

/// A declared successor and, for a branch, the operand group passed to the successor's
/// block arguments.
#[derive(Clone, Debug)]
pub struct SuccessorDecl {
    /// Its name.
    pub name: String,
    /// Index of the operand group it receives, if any.
    pub operands: Option<usize>,
}

/// A relation between named operands and results (MLIR's `AllTypesMatch<[...]>` and
/// friends), written as a trait with arguments: `AllTypesMatch(lhs, rhs, result)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Relation {
    /// What must agree.
    pub kind: RelationKind,
    /// The operands and results it relates: `(is_result, group index)`.
    pub values: Vec<(bool, usize)>,
}

/// What a [`Relation`] requires of its values.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RelationKind {
    /// Identical types.
    Types,
    /// Identical element types (a scalar is its own element type).
    ElementTypes,
    /// Identical shapes.
    Shapes,
    /// Identical ranks.
    Ranks,
    /// The second value's type is the first's element type (`ElementTypeOf(tensor,
    /// scalar)`, MLIR's `TypesMatchWith` on `getElementTypeOrSelf`).
    ElementOf,
}

impl RelationKind {
    /// The trait names, as written in dialect files.
    pub const NAMES: [(&'static str, RelationKind); 5] = [
        ("AllTypesMatch", RelationKind::Types),
        ("AllElementTypesMatch", RelationKind::ElementTypes),
        ("AllShapesMatch", RelationKind::Shapes),
        ("AllRanksMatch", RelationKind::Ranks),
        ("ElementTypeOf", RelationKind::ElementOf),
    ];

    /// The trait name.
    pub fn name(self) -> &'static str {
        Self::NAMES
            .iter()
            .find(|(_, k)| *k == self)
            .map(|(n, _)| *n)
            .unwrap_or("AllTypesMatch")
    }

    /// What the relation asks, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            RelationKind::Types => "the same type",
            RelationKind::ElementTypes => "the same element type",
            RelationKind::Shapes => "the same shape",
            RelationKind::Ranks => "the same rank",
            RelationKind::ElementOf => "the element type of the first as the second's type",
        }
    }
}

/// The Rust hooks an op names (see `docs/dialect-language.md`), each with where it is
/// written.
#[derive(Clone, Debug, Default)]
pub struct HookNames {
    /// Extra verifier.
    pub verifier: Option<(String, Range<usize>)>,
    /// Result-type inference.
    pub infer: Option<(String, Range<usize>)>,
    /// Folder.
    pub folder: Option<(String, Range<usize>)>,
    /// Interpreter rule.
    pub interpret: Option<(String, Range<usize>)>,
    /// Custom assembly form written in Rust.
    pub syntax: Option<(String, Range<usize>)>,
}

/// Everything a dialect file says about one op.
#[derive(Clone, Debug, Default)]
pub struct OpDecl {
    /// Full name, `dialect.op`.
    pub name: String,
    /// Where the declaration is.
    pub span: Range<usize>,
    /// One-line summary.
    pub summary: String,
    /// Longer description.
    pub description: String,
    /// Trait names (those without arguments), with where each is written.
    pub traits: Vec<(String, Range<usize>)>,
    /// Relations between operands and results (traits with arguments).
    pub relations: Vec<Relation>,
    /// Operands, in order.
    pub operands: Vec<ValueDecl>,
    /// Results, in order.
    pub results: Vec<ValueDecl>,
    /// Attributes.
    pub attributes: Vec<AttrDecl>,
    /// Regions, in order.
    pub regions: Vec<RegionDecl>,
    /// Successors, in order.
    pub successors: Vec<SuccessorDecl>,
    /// The assembly format and where it is written.
    pub format: Option<(String, Range<usize>)>,
    /// Rust hooks.
    pub hooks: HookNames,
    /// Dialect whose prefix nested custom ops may omit.
    pub default_dialect: Option<String>,
}

impl OpDecl {
    /// True when the op has the trait `name`.
    pub fn has_trait(&self, name: &str) -> bool {
        self.traits.iter().any(|(t, _)| t == name)
    }

    /// True when operands (or results) need a segment sizes property, MLIR's
    /// `operandSegmentSizes` / `resultSegmentSizes`: more than one group is optional or
    /// variadic.
    pub fn needs_segments(values: &[ValueDecl]) -> bool {
        values
            .iter()
            .filter(|v| v.quantifier != Quantifier::Single)
            .count()
            > 1
    }
}

/// The name of the property that holds the group sizes of operands or results.
pub fn segment_property(results: bool) -> &'static str {
    if results {
        "resultSegmentSizes"
    } else {
        "operandSegmentSizes"
    }
}

/// A declared type or attribute: `type buffer<space: string, size: i64>`.
#[derive(Clone, Debug)]
pub struct DeclaredItem {
    /// Full name, `dialect.name`.
    pub name: String,
    /// Its parameters.
    pub def: DeclaredDef,
    /// One-line summary.
    pub summary: String,
    /// Longer description.
    pub description: String,
}

/// An enum or flags attribute.
#[derive(Clone, Debug)]
pub struct EnumItem {
    /// Full name, `dialect.name`.
    pub name: String,
    /// Its cases.
    pub def: EnumAttrDef,
}

/// A parsed dialect.
#[derive(Clone, Debug, Default)]
pub struct DialectDecl {
    /// Namespace.
    pub name: String,
    /// One-line summary.
    pub summary: String,
    /// Longer description.
    pub description: String,
    /// Its ops.
    pub ops: Vec<OpDecl>,
    /// Its enum attributes.
    pub enums: Vec<EnumItem>,
    /// Its declared types.
    pub types: Vec<DeclaredItem>,
    /// Its declared attributes.
    pub attrs: Vec<DeclaredItem>,
}
