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
//! The interpreter runs a call's semantics region, which does not read these
//! arguments, so `--check-semantics` cannot see a wrong table or packing; the C
//! back end's tests, which run the library on them, compare bit for bit.

use acc_ir::attrs::AttrData;
use acc_ir::elements::{self, Scalar};
use acc_ir::pass::{Pass, PassInfo, PassOptions, PassTarget};
use acc_ir::target::{CallArg, Target};
use acc_ir::{AttrId, BodyId, Context, DiagLoc, Diagnostic, Ir, OpId, Severity, TypeData, TypeId};

use crate::partition::{placed_intrinsic, without_attrs};

/// The attribute holding a placed op's prepared call arguments.
pub const PREPARED_ATTR: &str = "hw.prepared";

/// The most elements a prepared argument may have (a hand-written splat could
/// otherwise ask for any number).
const MAX_PREPARED_ELEMENTS: usize = 1 << 28;

/// The pass.
pub struct WeightPrep;

/// Its registration.
pub fn info() -> PassInfo {
    PassInfo {
        name: "weight-prep",
        title: "WeightPrep",
        summary: "Compute the compile-time arguments of accelerator calls (packed weights, requantization tables) and store them on the placed ops",
        anchor: Some("func.func"),
        options: Vec::new(),
        create: |_: &PassOptions| Ok(Box::new(WeightPrep)),
    }
}

impl Pass for WeightPrep {
    fn run(&self, t: &mut PassTarget<'_>) -> Result<(), Diagnostic> {
        let Some(target) = t.ctx.active_target().cloned() else {
            return Ok(());
        };
        for (body, ops) in t.body_ops() {
            for op in ops {
                let loc = t.ir.op(body, op).loc();
                let at = |message: String| Diagnostic::error(DiagLoc::Loc(loc), message);
                if let Some(remark) = prepare(t.ctx, t.ir, body, op, &target).map_err(at)? {
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
    target: &Target,
) -> Result<Option<String>, String> {
    let Some(intrinsic) = placed_intrinsic(ctx, ir, body, op, target)? else {
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
            CallArg::F32Table(t) => counted(t.len(), "requantization multiplier"),
            CallArg::Bytes(b) => counted(b.len(), "packed weight byte"),
            CallArg::Value(_) | CallArg::Int(_) => continue,
        };
        attrs.push(
            call_arg_attr(ctx, arg).ok_or("weight-prep: a prepared argument cannot be stored")?,
        );
        parts.push(part);
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
        parts.join(" and ")
    )))
}

/// A compile-time call argument as a constant: an f32 table as
/// `dense<...> : tensor<Nxf32>`, bytes as `dense<...> : tensor<Nxi8>`; `None` for
/// buffers and integers.
pub fn call_arg_attr(ctx: &Context, arg: &CallArg) -> Option<AttrId> {
    let (element, values): (TypeId, Vec<Scalar>) = match arg {
        CallArg::F32Table(t) => (
            ctx.float_type(acc_ir::FloatKind::F32),
            t.iter().map(|x| Scalar::Float(f64::from(*x))).collect(),
        ),
        CallArg::Bytes(b) => (
            ctx.int_type(8),
            b.iter()
                .map(|x| Scalar::Int(i128::from(*x as i8)))
                .collect(),
        ),
        CallArg::Value(_) | CallArg::Int(_) => return None,
    };
    elements::dense_attr(ctx, vector_type(ctx, element, values.len()), &values)
}

/// Drops the arguments `weight-prep` stored on `op` (a copy made for another call).
pub fn clear_prepared(ctx: &Context, ir: &mut Ir, body: BodyId, op: OpId) -> Result<(), String> {
    let kept = without_attrs(ctx, ir.body(body).op(op).attrs, &[PREPARED_ATTR])?;
    ir.body_mut(body).op_mut(op).attrs = kept;
    Ok(())
}

/// `n thing` or `n things`.
fn counted(n: usize, thing: &str) -> String {
    format!("{n} {thing}{}", if n == 1 { "" } else { "s" })
}

/// `tensor<N x element>`.
fn vector_type(ctx: &Context, element: TypeId, n: usize) -> TypeId {
    ctx.intern_type(TypeData::RankedTensor {
        shape: vec![n as i64].into(),
        element,
        encoding: None,
    })
}

/// The call arguments `weight-prep` stored on `op`, in call order, when it has them;
/// an error when the attribute is not an array of f32 tables and i8 bytes.
pub fn prepared_args(
    ctx: &Context,
    ir: &Ir,
    body: BodyId,
    op: OpId,
) -> Result<Option<Vec<CallArg>>, String> {
    let Some(attr) = ctx.dict_get(ir.body(body).op(op).attrs, PREPARED_ATTR) else {
        return Ok(None);
    };
    let AttrData::Array(items) = ctx.attr_data(attr) else {
        return Err(format!(
            "'{PREPARED_ATTR}' must be an array of dense constants"
        ));
    };
    items
        .iter()
        .map(|a| prepared_arg(ctx, *a))
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// One prepared argument: a dense f32 table or i8 bytes.
fn prepared_arg(ctx: &Context, a: AttrId) -> Result<CallArg, String> {
    let bad = || format!("'{PREPARED_ATTR}' holds something other than f32 tables and i8 bytes");
    let view = elements::dense_view(ctx, a).ok_or_else(bad)?;
    let n = elements::num_elements(ctx, view.ty).ok_or_else(bad)?;
    if n > MAX_PREPARED_ELEMENTS {
        return Err(format!(
            "'{PREPARED_ATTR}' holds a table of {n} elements, more than a call can take"
        ));
    }
    match ctx.type_data(view.element) {
        TypeData::Float(acc_ir::FloatKind::F32) => (0..n)
            .map(|i| match view.get(i) {
                Scalar::Float(f) => Ok(f as f32),
                Scalar::Int(_) => Err(bad()),
            })
            .collect::<Result<Vec<f32>, String>>()
            .map(CallArg::F32Table),
        TypeData::Integer { width: 8, .. } => (0..n)
            .map(|i| match view.get(i) {
                Scalar::Int(v) => Ok(v as u8),
                Scalar::Float(_) => Err(bad()),
            })
            .collect::<Result<Vec<u8>, String>>()
            .map(CallArg::Bytes),
        _ => Err(bad()),
    }
}
