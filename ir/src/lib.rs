//! # acc-ir: the SSA core of acc
//!
//! One IR shared by every dialect level (graph, tensor, loop, hw), modelled on MLIR and
//! stored the way Cranelift stores functions:
//!
//! - A [`Context`] uniques types ([`TypeId`]), attributes ([`AttrId`]) and strings
//!   ([`Sym`]) and registers ops ([`OpDef`]). IR holds only these small IDs, so cloning
//!   an [`Ir`] is a flat copy of tables.
//! - An [`Ir`] owns one [`Body`] per isolated-from-above op. A body holds the ops,
//!   values, blocks, regions and uses of that op in typed tables indexed by `u32` IDs
//!   ([`OpId`], [`ValueId`], [`BlockId`], [`RegionId`]); the order of ops in blocks is a
//!   separate layout ([`layout`]); every value and block has an intrusive use list, so
//!   [`Body::replace_all_uses`] is a loop.
//! - Text is MLIR's syntax: [`parser::parse_file`] reads the generic form and registered
//!   custom forms, [`printer::print_ir`] writes either; [`verifier::verify`] checks the
//!   structural rules; [`diag`] renders errors with codespan-reporting.
//!
//! Nothing here panics on user input: malformed text yields a [`Diagnostic`].

#![deny(missing_docs)]

pub mod affine;
pub mod attr_kind;
pub mod attrs;
pub mod body;
pub mod budget;
pub mod builder;
pub mod clone;
pub mod context;
pub mod diag;
pub mod dominance;
pub mod elements;
pub mod entity;
pub mod expected;
pub mod floats;
pub mod intern;
pub mod interrupt;
pub mod ir;
pub mod layout;
pub mod minifloat;
pub mod parser;
pub mod printer;
pub mod registry;
pub mod requant;
pub mod rewrite;
pub mod split;
pub mod suggest;
pub mod symbols;
pub mod types;
mod uniquer;
pub mod verifier;
pub mod weight;
pub mod wide_int;

pub use attr_kind::AttrKind;
pub use attrs::{AttrData, AttrId, DenseData, Location};
pub use body::OpSpec;
pub use builder::Builder;
pub use context::{Context, ResourceValue};
pub use diag::{DiagLoc, Diagnostic, DiagnosticsFormat, Severity, SourceMap};
pub use entity::EntityId;
pub use intern::Sym;
pub use ir::{BlockId, Body, BodyId, Ir, OpData, OpId, OpRef, RegionId, ValueDef, ValueId};
pub use layout::InsertPoint;
pub use registry::{
    CustomSyntax, FoldHook, FoldResult, InferHook, InferInput, OpDef, OpName, OpTraits,
};
pub use types::{DYNAMIC, FloatKind, Signedness, TypeData, TypeId};
