//! Rewrite patterns written in the dialect language (`docs/rewrite-patterns.md`): a
//! small DAG of ops to match, constraints on what matched, and the ops that replace
//! it. A file's patterns are read with its dialects ([`ast`]), resolved against the
//! registered ops when the file is loaded ([`compile`]) and registered in the context
//! as [`TextPattern`]s, which the greedy driver applies like patterns written in Rust
//! ([`apply`]).
//!
//! Every value of a pattern is a numbered *slot*: a free operand of the match, a
//! result of a matched op, or a result of an op the rewrite creates. Every captured
//! attribute (`$p`) is a numbered capture. Matching fills slots and captures; the
//! rewrite reads them.

mod apply;
mod ast;
mod compile;
pub mod expr;
pub mod functions;
mod intrinsic;
mod tables;

use acc_ir::registry::OpName;
use acc_ir::{AttrId, InferHook, Sym};

pub use ast::{PatternAst, read_pattern};
pub use compile::compile;
pub use intrinsic::{IntrinsicAst, TextIntrinsic, compile_intrinsic, read_intrinsic};

/// A pattern ready to apply.
pub struct TextPattern {
    /// Its name.
    pub name: String,
    /// The root op's name (the last op of the match).
    pub root: String,
    /// Its benefit.
    pub benefit: u16,
    /// The ops to match, in the order written; the last is the root.
    matched: Vec<MatchOp>,
    /// What defines each slot.
    slots: Vec<SlotDef>,
    /// How many captures there are.
    captures: usize,
    /// The constraints, in order.
    constraints: Vec<(functions::ConstraintFn, Vec<Arg>)>,
    /// The ops to create, in order.
    created: Vec<NewOp>,
    /// For each result of the root, the slot replacing it.
    replacements: Vec<usize>,
}

/// What defines a slot.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum SlotDef {
    /// Any value the match binds (an operand no matched op defines).
    Free,
    /// Result `r` of matched op `k`.
    Matched(usize, usize),
    /// Result `r` of created op `k`.
    Created(usize, usize),
}

/// An op of the match.
struct MatchOp {
    name: OpName,
    operands: Vec<usize>,
    results: Vec<usize>,
    attrs: Vec<(Sym, AttrMatch)>,
}

/// What an attribute of a matched op must be.
enum AttrMatch {
    /// Anything (present), captured.
    Capture(usize),
    /// Exactly this.
    Equals(AttrId),
}

/// An op the rewrite creates.
struct NewOp {
    name: OpName,
    operands: Vec<usize>,
    results: Vec<usize>,
    /// Attribute name, whether it is inherent (a property), and its value.
    attrs: Vec<(Sym, bool, Arg)>,
    infer: InferHook,
}

/// An argument of a function, or an attribute's value.
#[derive(Clone)]
enum Arg {
    /// A slot.
    Value(usize),
    /// A capture.
    Capture(usize),
    /// A literal.
    Attr(AttrId),
    /// A computed attribute.
    Call(functions::AttrFn, Vec<Arg>),
}
