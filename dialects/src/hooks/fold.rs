//! Helpers for folders: evaluating an op element by element on constant operands.

use acc_ir::elements::{self, Scalar};
use acc_ir::{AttrId, Context, TypeId};

/// Applies `f` to the elements of constant operands, giving an attribute of
/// `result_ty`: all operands scalar for a scalar result, or all dense elements with as
/// many elements as a statically shaped result (splats stay splats). `None` when an
/// operand is neither, or `f` declines an element.
pub(crate) fn elementwise(
    ctx: &Context,
    consts: &[AttrId],
    result_ty: TypeId,
    f: impl Fn(&[Scalar]) -> Option<Scalar>,
) -> Option<AttrId> {
    if ctx.type_data(result_ty).shape().is_none() {
        let values: Option<Vec<Scalar>> = consts
            .iter()
            .map(|c| elements::scalar(ctx, *c).map(|(_, v)| v))
            .collect();
        let value = f(&values?)?;
        return elements::scalar_attr(ctx, result_ty, value);
    }
    let n = elements::num_elements(ctx, result_ty)?;
    let dense: Option<Vec<elements::Dense>> =
        consts.iter().map(|c| elements::dense(ctx, *c)).collect();
    let dense = dense?;
    if dense
        .iter()
        .any(|d| !d.splat && elements::num_elements(ctx, d.ty) != Some(n))
    {
        return None;
    }
    let count = if dense.iter().all(|d| d.splat) { 1 } else { n };
    let mut args = Vec::with_capacity(dense.len());
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        args.clear();
        args.extend(dense.iter().map(|d| d.get(i)));
        out.push(f(&args)?);
    }
    elements::dense_attr(ctx, result_ty, &out)
}

/// `value` as a constant of type `ty`: a scalar attribute, or a splat of a shaped type.
pub(crate) fn splat_like(ctx: &Context, ty: TypeId, value: Scalar) -> Option<AttrId> {
    if ctx.type_data(ty).shape().is_some() {
        elements::dense_attr(ctx, ty, &[value])
    } else {
        elements::scalar_attr(ctx, ty, value)
    }
}
