//! Signless integers below the graph level.
//!
//! The graph dialect keeps ONNX's `ui8`..`ui64` (and MLIR's `si*`) element types;
//! `arith`, `math` and the tensor dialect's compute ops take signless integers only, as
//! in MLIR. The lowerings choose their ops from the graph types (`divui`, `maxui`,
//! `cmpi ult`, `uitofp`, `extui`, ...), and then [`make_signless`] retypes every value
//! and constant the lowered ops compute with to the signless type of the same width.
//!
//! Invariant after it: a value of a signed or unsigned integer type (or a tensor of
//! them) in the function is one its signature or a `func`/`graph` op (a call, a return,
//! an op placed on a device) gives or takes; such a value meets the signless ops through
//! a `tensor.bitcast`, which keeps the bits.

use std::collections::HashMap;

use acc_dialects::hooks::hw::is_external_region;
use acc_dialects::ops::tensor;
use acc_ir::attrs::{AttrData, DenseData};
use acc_ir::{AttrId, BodyId, Context, InsertPoint, Ir, OpId, TypeData, TypeId, ValueId};

use acc_dialects::build::Builder;

/// `ty` with signless integers for signed and unsigned ones (the element type of a
/// tensor or vector too); `None` when it has none.
pub(crate) fn signless_type(ctx: &Context, ty: TypeId) -> Option<TypeId> {
    match ctx.type_data(ty) {
        TypeData::Integer { width, signedness } if *signedness != acc_ir::Signedness::Signless => {
            Some(ctx.int_type(*width))
        }
        TypeData::RankedTensor {
            shape,
            element,
            encoding,
        } => {
            let element = signless_type(ctx, *element)?;
            Some(ctx.intern_type(TypeData::RankedTensor {
                shape: shape.clone(),
                element,
                encoding: *encoding,
            }))
        }
        TypeData::Vector {
            shape,
            scalable,
            element,
        } => {
            let element = signless_type(ctx, *element)?;
            Some(ctx.intern_type(TypeData::Vector {
                shape: shape.clone(),
                scalable: scalable.clone(),
                element,
            }))
        }
        _ => None,
    }
}

/// `a` holding the same bits under the signless type, for integer and dense
/// attributes (and types) of signed or unsigned integers; `None` for any other.
fn signless_attr(ctx: &Context, a: AttrId) -> Option<AttrId> {
    match ctx.attr_data(a) {
        AttrData::Integer { value, ty } => {
            let ty = signless_type(ctx, *ty)?;
            acc_ir::elements::scalar_attr(ctx, ty, acc_ir::elements::Scalar::Int(*value))
        }
        AttrData::Type(t) => {
            let t = signless_type(ctx, *t)?;
            Some(ctx.intern_attr(AttrData::Type(t)))
        }
        AttrData::DenseElements { ty, .. } | AttrData::DenseResource { ty, .. } => {
            let ty = signless_type(ctx, *ty)?;
            // Signed, unsigned and signless integers of one width store the same bytes.
            let view = acc_ir::elements::dense_view(ctx, a)?;
            let bytes: Box<[u8]> = view.raw_bytes().into();
            let data = if view.splat {
                DenseData::Splat(bytes)
            } else {
                DenseData::Elements(bytes)
            };
            Some(ctx.intern_attr(AttrData::DenseElements { ty, data }))
        }
        _ => None,
    }
}

/// The dictionary `dict` with its signed and unsigned values made signless, or `None`
/// when none is.
fn signless_dict(ctx: &Context, dict: AttrId) -> Result<Option<AttrId>, String> {
    let entries = ctx.dict_entries(dict);
    if entries
        .iter()
        .all(|(_, v)| signless_attr(ctx, *v).is_none())
    {
        return Ok(None);
    }
    let entries = entries
        .iter()
        .map(|(k, v)| (*k, signless_attr(ctx, *v).unwrap_or(*v)))
        .collect();
    ctx.dict_attr(entries)
        .map(Some)
        .map_err(|_| "cannot rebuild an attribute dictionary".to_string())
}

/// Gives each of `values` of an unsigned integer type its signless type, recording
/// the type it had in `before`.
fn retype(
    ctx: &Context,
    ir: &mut Ir,
    body: BodyId,
    values: Vec<ValueId>,
    before: &mut HashMap<ValueId, TypeId>,
) {
    for v in values {
        let ty = ir.body(body).value_type(v);
        if let Some(new) = signless_type(ctx, ty) {
            ir.body_mut(body).set_value_type(v, new);
            before.insert(v, ty);
        }
    }
}

/// Ops whose operand and result types are fixed from outside the lowered code: the
/// function's calls and return, graph ops left for `bufferize` (placed ops), and an
/// external compiler's region (`outline-external`), which is handed over as it is.
fn is_boundary(ctx: &Context, ir: &Ir, body: BodyId, op: OpId) -> bool {
    let r = ir.op(body, op);
    let name = ctx.op_name_str(r.name());
    name.starts_with("func.") || name.starts_with("graph.") || is_external_region(ctx, r)
}

/// Whether `op` is inside an external compiler's region.
fn in_external_region(ctx: &Context, ir: &Ir, body: BodyId, op: OpId) -> bool {
    let mut at = ir.op(body, op).parent_op();
    while let Some(p) = at {
        if is_external_region(ctx, p) {
            return true;
        }
        at = p.parent_op();
    }
    false
}

/// Retypes the signed and unsigned integers of `body` (a lowered function) to
/// signless ones, as the module documentation says.
pub(crate) fn make_signless(ctx: &Context, ir: &mut Ir, body: BodyId) -> Result<(), String> {
    let mut ops = Vec::new();
    ir.walk(body, &mut |b, op| {
        if b == body {
            ops.push(op);
        }
    });
    ops.retain(|op| !in_external_region(ctx, ir, body, *op));
    // The types values had before (for the bitcasts back at the boundary).
    let mut before: HashMap<ValueId, TypeId> = HashMap::new();
    // Arguments of the function's other blocks (branch targets) are computed values.
    let b = ir.body(body);
    let mut block_args = Vec::new();
    for &region in b.top_regions() {
        let entry = b.entry_block(region);
        for block in b.region_blocks(region) {
            if Some(block) != entry {
                block_args.extend_from_slice(b.block_args(block));
            }
        }
    }
    retype(ctx, ir, body, block_args, &mut before);
    for &op in &ops {
        if is_boundary(ctx, ir, body, op) {
            continue;
        }
        let b = ir.body(body);
        let mut values: Vec<ValueId> = b.results(op).collect();
        for &region in b.op_regions(op) {
            for block in b.region_blocks(region) {
                values.extend_from_slice(b.block_args(block));
            }
        }
        retype(ctx, ir, body, values, &mut before);
        let data = ir.body(body).op(op);
        let (attrs, props) = (data.attrs, data.props);
        if let Some(d) = signless_dict(ctx, attrs)? {
            ir.body_mut(body).op_mut(op).attrs = d;
        }
        if let Some(p) = props
            && let Some(d) = signless_dict(ctx, p)?
        {
            ir.body_mut(body).op_mut(op).props = Some(d);
        }
    }
    // Values typed from outside (the arguments, what boundary ops give) seen as
    // signless by the converted ops that use them.
    let b = ir.body(body);
    let mut outside: Vec<(ValueId, InsertPoint)> = Vec::new();
    if let Some(&region) = b.top_regions().first()
        && let Some(entry) = b.entry_block(region)
        && let Some(first) = b.first_op(entry)
    {
        for &arg in b.block_args(entry) {
            outside.push((arg, InsertPoint::Before(first)));
        }
    }
    for &op in &ops {
        if !is_boundary(ctx, ir, body, op) {
            continue;
        }
        let after = match ir.body(body).next_op(op) {
            Some(next) => InsertPoint::Before(next),
            None => continue,
        };
        for r in ir.body(body).results(op) {
            outside.push((r, after));
        }
    }
    for (v, at) in outside {
        let b = ir.body(body);
        let Some(new) = signless_type(ctx, b.value_type(v)) else {
            continue;
        };
        let users: Vec<OpId> = b
            .value_users(v)
            .filter(|u| !is_boundary(ctx, ir, body, *u))
            .collect();
        if users.is_empty() {
            continue;
        }
        let loc = ir.op(body, users[0]).loc();
        let cast = bitcast(ctx, ir, body, at, loc, v, new)?;
        for user in users {
            replace_operand(ir, body, user, v, cast);
        }
    }
    // Converted values given to boundary ops: a bitcast back to the type they had.
    for &op in &ops {
        if !is_boundary(ctx, ir, body, op) {
            continue;
        }
        let operands: Vec<ValueId> = ir.body(body).operands(op).collect();
        for (i, v) in operands.into_iter().enumerate() {
            if let Some(&old) = before.get(&v) {
                let loc = ir.op(body, op).loc();
                let cast = bitcast(ctx, ir, body, InsertPoint::Before(op), loc, v, old)?;
                ir.body_mut(body).set_operand(op, i, cast);
            }
        }
    }
    Ok(())
}

/// A `tensor.bitcast` of `v` to `ty` at `at`; scalars have none.
fn bitcast(
    ctx: &Context,
    ir: &mut Ir,
    body: BodyId,
    at: InsertPoint,
    loc: AttrId,
    v: ValueId,
    ty: TypeId,
) -> Result<ValueId, String> {
    if !matches!(ctx.type_data(ty), TypeData::RankedTensor { .. }) {
        let from = ir.body(body).value_type(v);
        let signed = if signless_type(ctx, from).is_some() {
            from
        } else {
            ty
        };
        return Err(format!(
            "{} values at the function's boundary have no lowering yet (only tensors of them)",
            acc_ir::printer::type_to_string(ctx, signed)
        ));
    }
    let mut e = Builder::new(ctx, ir, body, at, loc);
    tensor::Bitcast::build(&mut e, v, ty).result()
}

/// Makes every use of `old` by `op` a use of `new`.
fn replace_operand(ir: &mut Ir, body: BodyId, op: OpId, old: ValueId, new: ValueId) {
    let operands: Vec<ValueId> = ir.body(body).operands(op).collect();
    for (i, v) in operands.into_iter().enumerate() {
        if v == old {
            ir.body_mut(body).set_operand(op, i, new);
        }
    }
}
