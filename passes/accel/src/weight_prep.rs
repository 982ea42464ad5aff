//! `weight-prep`: the arguments of accelerator calls that the target computes at
//! compile time, made once and stored on the placed ops.
//!
//! A target's `call(...)` clause may pass `requant_scales(...)` (per-channel
//! requantization multipliers, from the quantized types' scales) and `packed(%w, ...)`
//! (a constant weight reordered and packed `8 / bits` to a byte). For each op placed
//! on an intrinsic, this pass computes those arguments from the op as it stands and
//! stores them, in call order, as the op's `hw.prepared` attribute: an array of
//! `dense<...> : tensor<Nxf32>` tables and `dense<...> : tensor<Mxi8>` bytes.
//! `bufferize` then passes them to the call as they are instead of computing them
//! again (and checks that they still fit the call: kind, table length, byte count).
//!
//! It belongs after the passes that change placed ops (`partition`, `tensorize`): an
//! op they create has no `hw.prepared` (the tiles of a split op drop the whole op's),
//! and `bufferize` computes its arguments itself. Without a target, or on ops nothing
//! placed, the pass does nothing.
//!
//! A table that carries a parameter of the op (`multipliers`, `scales`,
//! `kernel_sum`, ...) is what the call's semantics region computes with, so
//! `--check-semantics` sees a wrong one; packed bytes and tables no parameter names
//! only the library reads, and the C back end's tests, which run it on them, compare
//! bit for bit.

use acc_dialects::ops::func;
use acc_ir::attrs::AttrData;
use acc_ir::{BodyId, Context, DiagLoc, Diagnostic, Ir, OpId, Severity};
use acc_pass::{Pass, PassInfo, PassOptions, PassTarget};
use acc_target::{CallArg, Targets};

use acc_target::placement::{PREPARED_ATTR, call_arg_attr, placed_intrinsic, without_attrs};

/// The pass.
pub struct WeightPrep;

/// Its registration.
pub fn info() -> PassInfo {
    PassInfo {
        name: "weight-prep",
        title: "WeightPrep",
        summary: "Compute the compile-time arguments of accelerator calls (packed weights, requantization tables) and store them on the placed ops",
        anchor: Some(func::Func::NAME),
        options: Vec::new(),
        create: |_: &PassOptions| Ok(Box::new(WeightPrep)),
    }
}

impl Pass for WeightPrep {
    fn run(&self, t: &mut PassTarget<'_>) -> Result<(), Diagnostic> {
        if t.targets.is_empty() {
            return Ok(());
        }
        for (body, ops) in t.body_ops() {
            for op in ops {
                let loc = t.ir.op(body, op).loc();
                let at = |message: String| Diagnostic::error(DiagLoc::Loc(loc), message);
                if let Some(remark) = prepare(t.ctx, t.ir, body, op, t.targets).map_err(at)? {
                    t.diagnostics.push(Diagnostic::new(
                        Severity::Remark,
                        DiagLoc::Loc(loc),
                        remark,
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Stores the compile-time arguments of placed `op`'s call on it; the remark saying
/// what was prepared, `None` when the op is not placed or its call has none.
fn prepare(
    ctx: &Context,
    ir: &mut Ir,
    body: BodyId,
    op: OpId,
    targets: &Targets,
) -> Result<Option<String>, String> {
    let Some((_, intrinsic)) = placed_intrinsic(ctx, ir, body, op, targets)? else {
        return Ok(None);
    };
    let placement = intrinsic.rule.place(ctx, ir, body, op).map_err(|why| {
        format!(
            "weight-prep: intrinsic '{}' no longer applies: {why}",
            intrinsic.name
        )
    })?;
    let mut attrs = Vec::new();
    let mut parts = Vec::new();
    for arg in &placement.call {
        let part = match arg {
            CallArg::F32Table(t) => ("f32 table entry", t.len()),
            CallArg::I32Table(t) => ("int32 table entry", t.len()),
            CallArg::I16Table(t) => ("int16 table entry", t.len()),
            CallArg::Bytes(b) => ("packed weight byte", b.len()),
            CallArg::Value(_) | CallArg::Int(_) | CallArg::Float(_) | CallArg::Count(_) => {
                continue;
            }
        };
        attrs.push(
            call_arg_attr(ctx, arg).ok_or("weight-prep: a prepared argument cannot be stored")?,
        );
        // Arguments of one kind are counted together.
        match parts.iter_mut().find(|(t, _)| *t == part.0) {
            Some((_, n)) => *n += part.1,
            None => parts.push(part),
        }
    }
    if attrs.is_empty() {
        return Ok(None);
    }
    let array = ctx.intern_attr(AttrData::Array(attrs.into()));
    let kept = without_attrs(ctx, ir.body(body).op(op).attrs, &[PREPARED_ATTR])?;
    let mut entries = ctx.dict_entries(kept).to_vec();
    entries.push((ctx.sym(PREPARED_ATTR), array));
    ir.body_mut(body).op_mut(op).attrs = ctx
        .dict_attr(entries)
        .map_err(|_| "weight-prep: duplicate attributes".to_string())?;
    Ok(Some(format!(
        "weight-prep: the call of '{}' gets {} prepared at compile time",
        intrinsic.name,
        parts
            .iter()
            .map(|(thing, n)| counted(*n, thing))
            .collect::<Vec<_>>()
            .join(" and ")
    )))
}

/// `n thing` or `n things`.
fn counted(n: usize, thing: &str) -> String {
    match (n, thing.strip_suffix('y')) {
        (1, _) => format!("1 {thing}"),
        (_, Some(stem)) => format!("{n} {stem}ies"),
        (_, None) => format!("{n} {thing}s"),
    }
}
