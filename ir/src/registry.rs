//! Op definitions: what the core needs to know about a registered op.
//!
//! An op is *registered* when a dialect gave the [`Context`](crate::Context) an [`OpDef`]
//! for its name. Unregistered ops are only accepted with `allow_unregistered`, are kept
//! opaque, and get MLIR's conservative treatment: their regions may be graph regions and
//! any of them may be a terminator.

use std::sync::Arc;

use crate::attrs::AttrId;
use crate::context::Context;
use crate::diag::Diagnostic;
use crate::ir::{OpRef, ValueId};
use crate::parser::{CustomParse, OperationState, PResult};
use crate::printer::OpPrinter;
use crate::types::{TypeData, TypeId};

/// An interned op name, registered or not.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct OpName(pub(crate) u32);

/// Structural properties an op declares (MLIR's traits).
#[derive(Copy, Clone, Default, Debug, PartialEq, Eq)]
pub struct OpTraits {
    /// Ends a block.
    pub terminator: bool,
    /// Its regions cannot see values defined outside; it owns a separate body.
    pub isolated_from_above: bool,
    /// Its blocks need no terminator.
    pub no_terminator: bool,
    /// Its regions are graph regions: no dominance requirement, at most one block.
    pub graph_region: bool,
    /// Each of its regions has at most one block.
    pub single_block: bool,
    /// Its region holds symbols whose names must be unique.
    pub symbol_table: bool,
    /// It has no side effects.
    pub pure: bool,
    /// Its two operands may be swapped.
    pub commutative: bool,
    /// It is a constant: its `value` attribute is its result (MLIR's `ConstantLike`);
    /// folding materializes constants of its dialect with it.
    pub constant_like: bool,
}

/// The custom assembly form of an op: `print` and `parse` must agree, so that parsing
/// what `print` wrote yields the same op.
pub trait CustomSyntax: Send + Sync {
    /// False when `op` is malformed in a way the custom form cannot express (possible
    /// when printing unverified IR); the printer then uses the generic form.
    fn can_print(&self, _op: OpRef<'_>, _ctx: &Context) -> bool {
        true
    }
    /// Prints everything after the op name (the printer has already written the results
    /// and the name).
    fn print(&self, p: &mut OpPrinter<'_, '_>, op: OpRef<'_>) -> std::fmt::Result;
    /// Parses everything after the op name into `state`. Errors are reported through
    /// the parser, which keeps the diagnostic.
    fn parse(&self, p: &mut CustomParse<'_, '_, '_>, state: &mut OperationState) -> PResult<()>;
}

/// A per-op verifier: returns the diagnostics it finds (empty when the op is valid).
/// A closure, so that ops declared in text can carry their constraints.
pub type VerifyHook = Arc<dyn Fn(OpRef<'_>, &Context) -> Vec<Diagnostic> + Send + Sync>;

/// For a branch op (MLIR's `BranchOpInterface`): the range of operands passed to the
/// arguments of successor `index`, or `None` when the op's operands are malformed
/// (its own verifier reports that).
pub type SuccessorOperandsHook =
    Arc<dyn Fn(OpRef<'_>, &Context, usize) -> Option<std::ops::Range<usize>> + Send + Sync>;

/// What result-type inference sees of an op (built or still being parsed): its operand
/// types and attributes.
#[derive(Copy, Clone, Debug)]
pub struct InferInput<'a> {
    /// Operand types, in order.
    pub operand_types: &'a [TypeId],
    /// Properties dictionary, if any.
    pub props: Option<AttrId>,
    /// Discardable attribute dictionary.
    pub attrs: AttrId,
}

impl InferInput<'_> {
    /// An attribute by name: from the properties, else from the attribute dictionary.
    pub fn attr(&self, ctx: &Context, name: &str) -> Option<AttrId> {
        self.props
            .and_then(|p| ctx.dict_get(p, name))
            .or_else(|| ctx.dict_get(self.attrs, name))
    }
}

/// Infers an op's result types from its operands and attributes (MLIR's
/// `InferTypeOpInterface`), or says why they are invalid. Types are returned as data,
/// not IDs, so that a verifier holding only `&Context` can compare them with
/// [`Context::lookup_type`]; their element types must already exist.
pub type InferHook =
    Arc<dyn Fn(&Context, &InferInput<'_>) -> Result<Vec<TypeData>, String> + Send + Sync>;

/// One folded result: a constant, or an existing value that replaces the result.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FoldResult {
    /// The result is this constant attribute.
    Attr(AttrId),
    /// The result is this value (of the op's body).
    Value(ValueId),
}

/// Folds an op given the constant value of each operand (`None` when not constant):
/// one [`FoldResult`] per result, or `None` when it does not fold. It never changes the
/// IR; the caller replaces the results.
pub type FoldHook =
    Arc<dyn Fn(OpRef<'_>, &[Option<AttrId>], &Context) -> Option<Vec<FoldResult>> + Send + Sync>;

/// Everything the core knows about one registered op.
#[derive(Clone, Default)]
pub struct OpDef {
    /// Full name, `dialect.op`.
    pub name: String,
    /// One-line summary for docs and `--list-ops`.
    pub summary: String,
    /// Longer documentation (Markdown), for the generated dialect reference.
    pub description: String,
    /// Structural traits.
    pub traits: OpTraits,
    /// Names of inherent attributes, printed as properties (`<{...}>`) in generic form.
    pub inherent_attrs: Vec<String>,
    /// Extra verification beyond the structural checks.
    pub verify: Option<VerifyHook>,
    /// Which operands a branch passes to each successor; the verifier checks them
    /// against the successors' block arguments.
    pub successor_operands: Option<SuccessorOperandsHook>,
    /// Custom assembly form; `None` means the op always prints in generic form.
    pub syntax: Option<Arc<dyn CustomSyntax>>,
    /// Dialect whose prefix may be omitted for ops nested in this op's regions
    /// (MLIR's `getDefaultDialect`; `func` for `func.func`).
    pub default_dialect: Option<String>,
    /// Inherent attributes with a default value: when an op is created without one,
    /// the parser adds the default to its properties (as MLIR does).
    pub defaults: Vec<(String, AttrId)>,
    /// Result-type inference.
    pub infer: Option<InferHook>,
    /// Constant folding and simplification.
    pub fold: Option<FoldHook>,
    /// Name of the interpreter rule giving the op's semantics, when it has one.
    pub interpret: Option<String>,
}

impl OpDef {
    /// The dialect part of the name.
    pub fn dialect(&self) -> &str {
        self.name
            .split_once('.')
            .map(|(d, _)| d)
            .unwrap_or(&self.name)
    }
}
