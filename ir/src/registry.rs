//! Op definitions: what the core needs to know about a registered op.
//!
//! An op is *registered* when a dialect gave the [`Context`](crate::Context) an [`OpDef`]
//! for its name. Unregistered ops are only accepted with `allow_unregistered`, are kept
//! opaque, and get MLIR's conservative treatment: their regions may be graph regions and
//! any of them may be a terminator.

use std::sync::Arc;

use crate::context::Context;
use crate::diag::Diagnostic;
use crate::ir::OpRef;
use crate::parser::{CustomParse, OperationState, PResult};
use crate::printer::OpPrinter;

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
pub type SuccessorOperandsHook = fn(OpRef<'_>, &Context, usize) -> Option<std::ops::Range<usize>>;

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
