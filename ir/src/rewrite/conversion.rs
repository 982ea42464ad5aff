//! The conversion driver, for lowerings: every op a [`ConversionTarget`] says is
//! illegal must be rewritten by one of the patterns (and what they create must be
//! legal, or be rewritten in turn), or the conversion fails with an error naming the
//! op that could not be converted, at its location.
//!
//! A lowering declares what it produces as legal (dialects or ops, or a predicate per
//! op), what it removes as illegal, and gives patterns rooted at the illegal ops. In a
//! *full* conversion every op must end legal; a *partial* one leaves ops the target
//! does not mention alone. Patterns that change types use a [`TypeConverter`] of their
//! own: the driver checks legality, not types.

use std::sync::Arc;

use super::{RewriteListener, RewritePattern, Rewriter};
use crate::context::Context;
use crate::diag::{DiagLoc, Diagnostic};
use crate::entity::EntityId;
use crate::ir::{BodyId, Ir, OpId, OpRef, RegionId};
use crate::layout::InsertPoint;
use crate::types::TypeId;

/// Converts types for a lowering (tensor to memref, element types to storage types).
pub trait TypeConverter: Send + Sync {
    /// The converted type, or `None` when `ty` cannot be converted.
    fn convert(&self, ctx: &Context, ty: TypeId) -> Option<TypeId>;
}

/// Whether an op is legal after a conversion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Legality {
    /// It may stay.
    Legal,
    /// It must be rewritten.
    Illegal,
    /// The target does not say (an error in a full conversion).
    Unknown,
}

/// A predicate deciding the legality of individual ops.
pub type LegalityFn = Arc<dyn Fn(OpRef<'_>, &Context) -> bool + Send + Sync>;

/// What a conversion must produce.
#[derive(Clone, Default)]
pub struct ConversionTarget {
    legal_dialects: Vec<String>,
    legal_ops: Vec<String>,
    illegal_dialects: Vec<String>,
    illegal_ops: Vec<String>,
    dynamic: Vec<(String, LegalityFn)>,
}

impl ConversionTarget {
    /// Every op of these dialects is legal.
    pub fn legal_dialects(mut self, names: &[&str]) -> Self {
        self.legal_dialects
            .extend(names.iter().map(|s| s.to_string()));
        self
    }
    /// These ops are legal.
    pub fn legal_ops(mut self, names: &[&str]) -> Self {
        self.legal_ops.extend(names.iter().map(|s| s.to_string()));
        self
    }
    /// Every op of these dialects must be converted.
    pub fn illegal_dialects(mut self, names: &[&str]) -> Self {
        self.illegal_dialects
            .extend(names.iter().map(|s| s.to_string()));
        self
    }
    /// These ops must be converted.
    pub fn illegal_ops(mut self, names: &[&str]) -> Self {
        self.illegal_ops.extend(names.iter().map(|s| s.to_string()));
        self
    }
    /// Ops named `name` are legal when `f` says so.
    pub fn dynamically_legal(mut self, name: &str, f: LegalityFn) -> Self {
        self.dynamic.push((name.to_string(), f));
        self
    }

    /// The legality of `op`: op rules before dialect rules, dynamic rules first.
    pub fn legality(&self, op: OpRef<'_>, ctx: &Context) -> Legality {
        let name = ctx.op_name_str(op.name());
        let dialect = name.split_once('.').map_or(name, |(d, _)| d);
        if let Some((_, f)) = self.dynamic.iter().find(|(n, _)| n == name) {
            return if f(op, ctx) {
                Legality::Legal
            } else {
                Legality::Illegal
            };
        }
        if self.legal_ops.iter().any(|n| n == name) {
            Legality::Legal
        } else if self.illegal_ops.iter().any(|n| n == name) {
            Legality::Illegal
        } else if self.legal_dialects.iter().any(|d| d == dialect) {
            Legality::Legal
        } else if self.illegal_dialects.iter().any(|d| d == dialect) {
            Legality::Illegal
        } else {
            Legality::Unknown
        }
    }
}

/// How many times the driver rewrites one op before giving up on it.
const MAX_ATTEMPTS: u8 = 8;

/// Full or partial conversion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConversionMode {
    /// Every op must end legal.
    Full,
    /// Only illegal ops must be converted.
    Partial,
}

/// What a conversion did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConversionReport {
    /// Ops rewritten by a pattern.
    pub converted: u64,
}

/// Collects the ops a rewrite creates, to check them in turn.
#[derive(Default)]
struct Created {
    ops: Vec<OpId>,
}

impl RewriteListener for Created {
    fn op_created(&mut self, op: OpId) {
        self.ops.push(op);
    }
}

/// Converts the ops of `regions` of `body` (nested regions of the same body included)
/// with `patterns`, until every op is legal (or, in a partial conversion, not illegal).
/// On failure, returns an error at the first op that could not be converted.
pub fn apply_conversion(
    ctx: &Context,
    ir: &mut Ir,
    body: BodyId,
    regions: &[RegionId],
    target: &ConversionTarget,
    patterns: &[Arc<dyn RewritePattern>],
    mode: ConversionMode,
) -> Result<ConversionReport, Diagnostic> {
    let mut report = ConversionReport::default();
    let mut pending = Vec::new();
    for &r in regions {
        super::collect_ops(ir, body, r, &mut pending);
    }
    pending.reverse();
    // Rewrites tried per op, to stop patterns that keep an op illegal forever.
    let mut attempts: Vec<u8> = Vec::new();
    while let Some(op) = pending.pop() {
        if ir.body(body).is_erased(op) {
            continue;
        }
        let legality = target.legality(ir.op(body, op), ctx);
        let must_convert = match (legality, mode) {
            (Legality::Legal, _) => false,
            (Legality::Illegal, _) => true,
            (Legality::Unknown, ConversionMode::Full) => true,
            (Legality::Unknown, ConversionMode::Partial) => false,
        };
        if !must_convert {
            continue;
        }
        let i = op.index();
        if attempts.len() <= i {
            attempts.resize(i + 1, 0);
        }
        attempts[i] += 1;
        if attempts[i] > MAX_ATTEMPTS {
            return Err(failure(
                ctx,
                ir,
                body,
                op,
                legality,
                "patterns keep rewriting it without making it legal",
            ));
        }
        let name = ir.op(body, op).name();
        let mut applied = false;
        let mut candidates: Vec<&Arc<dyn RewritePattern>> = patterns
            .iter()
            .filter(|p| p.root().is_none_or(|r| ctx.lookup_op_name(r) == Some(name)))
            .collect();
        candidates.sort_by_key(|p| std::cmp::Reverse(p.benefit()));
        for p in candidates {
            let mut created = Created::default();
            let loc = ir.op(body, op).loc();
            let mut rw =
                Rewriter::listening(ctx, ir, body, InsertPoint::Before(op), loc, &mut created);
            if p.match_and_rewrite(op, &mut rw) {
                report.converted += 1;
                applied = true;
                // Check what the pattern made, and the op itself if it survived.
                for c in created.ops.into_iter().rev() {
                    pending.push(c);
                    let mut nested = Vec::new();
                    if ir.body(body).nested_body(c).is_none() {
                        for &r in ir.body(body).op_regions(c) {
                            super::collect_ops(ir, body, r, &mut nested);
                        }
                    }
                    pending.extend(nested.into_iter().rev());
                }
                if !ir.body(body).is_erased(op) {
                    pending.push(op);
                }
                break;
            }
        }
        if !applied {
            return Err(failure(ctx, ir, body, op, legality, "no pattern applies"));
        }
    }
    Ok(report)
}

fn failure(
    ctx: &Context,
    ir: &Ir,
    body: BodyId,
    op: OpId,
    legality: Legality,
    why: &str,
) -> Diagnostic {
    let r = ir.op(body, op);
    let marked = if legality == Legality::Illegal {
        " that was explicitly marked illegal"
    } else {
        ""
    };
    Diagnostic::error(
        DiagLoc::Loc(r.loc()),
        format!(
            "failed to legalize operation '{}'{marked}: {why}",
            ctx.op_name_str(r.name())
        ),
    )
}
