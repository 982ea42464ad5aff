//! Rules for the `tensor` dialect's data movement: MLIR's empty, extract_slice,
//! insert_slice, pad, generate, extract and insert, and acc's pack and unpack (blocked layouts).
//!
//! `tensor.empty` gives a tensor whose elements are unspecified: they may be moved
//! (sliced, inserted into, overwritten by a compute op's result) but reading one is an
//! error, which the interpreter reports at the reading op.

use acc_dialects::hooks::attr_read::{Attrs, is_dyn};
use acc_ir::elements::Scalar;
use acc_ir::{Context, TypeId};

use super::RuleInput;
use super::indexing::{all_indices, check_in_bounds, flat, index, index_list};
use crate::value::Tensor;

/// A tensor of type `ty` and runtime `shape` with `data` and, when some are
/// unspecified, that mask.
fn tensor_of(
    ctx: &Context,
    ty: TypeId,
    shape: Vec<usize>,
    data: Vec<Scalar>,
    undefined: Vec<bool>,
) -> Result<Tensor, String> {
    let mut t = Tensor::with_shape(ctx, ty, shape, data)?;
    if undefined.iter().any(|u| *u) {
        t.undefined = Some(undefined);
    }
    Ok(t)
}

fn is_undefined(t: &Tensor, i: usize) -> bool {
    t.undefined.as_ref().is_some_and(|u| u[i])
}

/// The runtime shape of result type `ty`, its dynamic sizes taken from `dynamic`.
fn shape_of(ctx: &Context, ty: TypeId, dynamic: &[Tensor]) -> Result<Vec<usize>, String> {
    let declared = ctx.type_data(ty).shape().ok_or("expects a tensor result")?;
    let mut next = dynamic.iter();
    declared
        .iter()
        .map(|d| {
            if is_dyn(*d) {
                index(next.next().ok_or("missing a dynamic size")?)
            } else {
                usize::try_from(*d).map_err(|_| "negative size".to_string())
            }
        })
        .collect()
}

/// `tensor.empty`: every element unspecified.
pub(super) fn empty(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let ty = r.result_type(0)?;
    let shape = shape_of(r.ctx, ty, r.operands)?;
    let dims: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
    let what = acc_ir::printer::type_to_string(r.ctx, ty);
    let n = acc_ir::budget::shape_allocation(&what, &dims, std::mem::size_of::<Scalar>() as u64)?;
    let zero = match Tensor::layout(r.ctx, r.ctx.type_data(ty).element_type().unwrap_or(ty))?.1 {
        acc_ir::elements::ElementKind::Float(_) => Scalar::Float(0.0),
        _ => Scalar::Int(0),
    };
    Ok(vec![tensor_of(
        r.ctx,
        ty,
        shape,
        vec![zero; n],
        vec![true; n],
    )?])
}

/// A slice: offsets, sizes and strides per dimension.
type Slice = (Vec<usize>, Vec<usize>, Vec<usize>);

/// The offsets, sizes and strides of a slice op: static attributes, dynamic entries
/// from the index operands after the first `skip`.
fn slice_params(r: &RuleInput<'_>, skip: usize) -> Result<Slice, String> {
    let mut dynamic = r.operands[skip.min(r.operands.len())..].iter();
    Ok((
        index_list(r, "static_offsets", &mut dynamic)?,
        index_list(r, "static_sizes", &mut dynamic)?,
        index_list(r, "static_strides", &mut dynamic)?,
    ))
}

/// The positions in a tensor of `shape` that a slice covers, row-major over the slice.
fn slice_positions(shape: &[usize], (offsets, sizes, steps): &Slice) -> Result<Vec<usize>, String> {
    if offsets.len() != shape.len() || sizes.len() != shape.len() || steps.len() != shape.len() {
        return Err(format!("needs {} offsets, sizes and strides", shape.len()));
    }
    for d in 0..shape.len() {
        let last = offsets[d] + sizes[d].saturating_sub(1) * steps[d];
        if sizes[d] > 0 && last >= shape[d] {
            return Err(format!(
                "the slice reaches index {last} of dimension {d} of size {}",
                shape[d]
            ));
        }
    }
    Ok(all_indices(sizes)
        .iter()
        .map(|i| {
            let at: Vec<usize> = (0..shape.len())
                .map(|d| offsets[d] + i[d] * steps[d])
                .collect();
            flat(shape, &at)
        })
        .collect())
}

/// `tensor.extract_slice`: the elements of the slice (unit dimensions the result type
/// drops are dropped).
pub(super) fn extract_slice(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let source = r.operand(0)?;
    let params = slice_params(r, 1)?;
    let positions = slice_positions(&source.shape, &params)?;
    let ty = r.result_type(0)?;
    let rank = r.ctx.type_data(ty).shape().map_or(0, <[i64]>::len);
    let mut shape = params.1.clone();
    while shape.len() > rank {
        let unit = shape
            .iter()
            .position(|s| *s == 1)
            .ok_or("cannot drop a dimension")?;
        shape.remove(unit);
    }
    let data = positions.iter().map(|p| source.data[*p]).collect();
    let undefined = positions.iter().map(|p| is_undefined(source, *p)).collect();
    Ok(vec![tensor_of(r.ctx, ty, shape, data, undefined)?])
}

/// `tensor.insert_slice`: the destination with the source written over the slice.
pub(super) fn insert_slice(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let (source, dest) = (r.operand(0)?, r.operand(1)?);
    let params = slice_params(r, 2)?;
    let positions = slice_positions(&dest.shape, &params)?;
    if positions.len() != source.data.len() {
        return Err(format!(
            "a slice of {} elements for a source of {}",
            positions.len(),
            source.data.len()
        ));
    }
    let writes = positions
        .iter()
        .enumerate()
        .map(|(k, p)| (*p, source.data[k], is_undefined(source, k)));
    written(r, dest, writes)
}

/// `dest` with the elements `(position, value, unspecified)` replaced.
pub(super) fn written(
    r: &RuleInput<'_>,
    dest: &Tensor,
    writes: impl Iterator<Item = (usize, Scalar, bool)>,
) -> Result<Vec<Tensor>, String> {
    let mut data = dest.data.clone();
    let mut undefined = dest
        .undefined
        .clone()
        .unwrap_or_else(|| vec![false; data.len()]);
    for (p, v, u) in writes {
        data[p] = dest.kind.normalize(v);
        undefined[p] = u;
    }
    Ok(vec![tensor_of(
        r.ctx,
        r.result_type(0)?,
        dest.shape.clone(),
        data,
        undefined,
    )?])
}

/// `tensor.extract`: one element (an error if it is unspecified).
pub(super) fn extract(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let t = r.operand(0)?;
    let at: Vec<usize> = r.operands[1..]
        .iter()
        .map(index)
        .collect::<Result<_, _>>()?;
    check_in_bounds(&t.shape, &at)?;
    let p = flat(&t.shape, &at);
    if is_undefined(t, p) {
        return Err(format!(
            "reads the unspecified element {at:?} (from tensor.empty)"
        ));
    }
    Ok(vec![Tensor::new(
        r.ctx,
        r.result_type(0)?,
        vec![t.data[p]],
    )?])
}

/// `tensor.dim`: the size of one dimension (the tensor's elements are not read).
pub(super) fn dim(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let t = r.operand(0)?;
    let d = index(r.operand(1)?)?;
    let size = t
        .shape
        .get(d)
        .ok_or_else(|| format!("dimension {d} of a tensor of rank {}", t.shape.len()))?;
    Ok(vec![Tensor::new(
        r.ctx,
        r.result_type(0)?,
        vec![Scalar::Int(*size as i128)],
    )?])
}

/// `tensor.insert`: the destination with one element replaced.
pub(super) fn insert(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let value = r.operand(0)?.scalar().ok_or("inserts one element")?;
    let dest = r.operand(1)?;
    let at: Vec<usize> = r.operands[2..]
        .iter()
        .map(index)
        .collect::<Result<_, _>>()?;
    check_in_bounds(&dest.shape, &at)?;
    written(
        r,
        dest,
        std::iter::once((flat(&dest.shape, &at), value, false)),
    )
}

/// `tensor.pad`: the source surrounded by `low` and `high` elements, each new element
/// the value the region yields for its index.
pub(super) fn pad(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let source = r.operand(0)?;
    let rank = source.shape.len();
    let mut dynamic = r.operands[1..].iter();
    let low = index_list(r, "static_low", &mut dynamic)?;
    let high = index_list(r, "static_high", &mut dynamic)?;
    if low.len() != rank || high.len() != rank {
        return Err(format!("'low' and 'high' need {rank} values"));
    }
    let shape: Vec<usize> = (0..rank)
        .map(|d| low[d] + source.shape[d] + high[d])
        .collect();
    let mut data = Vec::new();
    let mut undefined = Vec::new();
    for at in all_indices(&shape) {
        let inside = (0..rank).all(|d| at[d] >= low[d] && at[d] < low[d] + source.shape[d]);
        if inside {
            let from: Vec<usize> = (0..rank).map(|d| at[d] - low[d]).collect();
            let p = flat(&source.shape, &from);
            data.push(source.data[p]);
            undefined.push(is_undefined(source, p));
        } else {
            let args = at
                .iter()
                .map(|i| Tensor::new(r.ctx, r.ctx.index_type(), vec![Scalar::Int(*i as i128)]))
                .collect::<Result<Vec<_>, _>>()?;
            let yielded = (r.regions)(0, args)?;
            let v = yielded
                .first()
                .and_then(Tensor::scalar)
                .ok_or("the region yields one element")?;
            data.push(v);
            undefined.push(false);
        }
    }
    Ok(vec![tensor_of(
        r.ctx,
        r.result_type(0)?,
        shape,
        data,
        undefined,
    )?])
}

/// `tensor.bitcast`: the same stored integers under the result type.
pub(super) fn bitcast(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let x = r.operand(0)?;
    Ok(vec![Tensor::new(r.ctx, r.result_type(0)?, x.data.clone())?])
}

/// `tensor.generate`: each element the region's value at its indices (the region
/// may read tensors from above with `tensor.extract`).
pub(super) fn generate(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let ty = r.result_type(0)?;
    let shape = shape_of(r.ctx, ty, r.operands)?;
    let mut data = Vec::with_capacity(shape.iter().product());
    for at in all_indices(&shape) {
        let args = at
            .iter()
            .map(|i| Tensor::new(r.ctx, r.ctx.index_type(), vec![Scalar::Int(*i as i128)]))
            .collect::<Result<Vec<_>, _>>()?;
        let yielded = (r.regions)(0, args)?;
        data.push(
            yielded
                .first()
                .and_then(Tensor::scalar)
                .ok_or("the region yields one element")?,
        );
    }
    Ok(vec![tensor_of(r.ctx, ty, shape, data, Vec::new())?])
}

/// The tiling of a `pack` / `unpack`: packed dimensions, tile sizes, outer permutation.
struct Tiling {
    pos: Vec<usize>,
    tiles: Vec<usize>,
    perm: Vec<usize>,
}

fn tiling(r: &RuleInput<'_>, rank: usize) -> Result<Tiling, String> {
    let attrs = Attrs::of_op(r.ctx, r.op);
    let list = |name: &str| -> Result<Option<Vec<usize>>, String> {
        attrs
            .ints(name)?
            .map(|v| {
                v.iter()
                    .map(|x| usize::try_from(*x).map_err(|_| format!("negative '{name}'")))
                    .collect()
            })
            .transpose()
    };
    let pos = list("inner_dims_pos")?.ok_or("requires 'inner_dims_pos'")?;
    let tiles = list("inner_tiles")?.ok_or("requires 'inner_tiles'")?;
    let perm = list("outer_dims_perm")?.unwrap_or_else(|| (0..rank).collect());
    if pos.len() != tiles.len() || perm.len() != rank || pos.iter().any(|p| *p >= rank) {
        return Err("inconsistent packing attributes".into());
    }
    if tiles.contains(&0) {
        return Err("tiles must not be empty".into());
    }
    Ok(Tiling { pos, tiles, perm })
}

impl Tiling {
    /// The packed index holding element `at` of the plain tensor.
    fn packed(&self, at: &[usize]) -> Vec<usize> {
        let mut outer = at.to_vec();
        let mut inner = Vec::new();
        for (p, t) in self.pos.iter().zip(&self.tiles) {
            outer[*p] = at[*p] / t;
            inner.push(at[*p] % t);
        }
        let mut index: Vec<usize> = self.perm.iter().map(|d| outer[*d]).collect();
        index.extend(inner);
        index
    }
}

/// `tensor.pack`: the source in blocks; positions past its end take `padding_value`.
pub(super) fn pack(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let (x, dest) = (r.operand(0)?, r.operand(1)?);
    let t = tiling(r, x.shape.len())?;
    let padding = r.operands.get(2).and_then(Tensor::scalar);
    let n = dest.data.len();
    let mut data = vec![padding.unwrap_or(Scalar::Int(0)); n];
    let mut written = vec![false; n];
    for (k, at) in all_indices(&x.shape).iter().enumerate() {
        let p = t.packed(at);
        check_in_bounds(&dest.shape, &p)?;
        let j = flat(&dest.shape, &p);
        data[j] = x.data[k];
        written[j] = true;
    }
    if padding.is_none() && written.iter().any(|w| !w) {
        return Err("the tiles run past the source and there is no padding value".into());
    }
    Ok(vec![Tensor::with_shape(
        r.ctx,
        r.result_type(0)?,
        dest.shape.clone(),
        data,
    )?])
}

/// `tensor.unpack`: the plain tensor back from its blocks.
pub(super) fn unpack(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let (x, dest) = (r.operand(0)?, r.operand(1)?);
    let t = tiling(r, dest.shape.len())?;
    let data = all_indices(&dest.shape)
        .iter()
        .map(|at| {
            let p = t.packed(at);
            check_in_bounds(&x.shape, &p)?;
            Ok(x.data[flat(&x.shape, &p)])
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(vec![Tensor::with_shape(
        r.ctx,
        r.result_type(0)?,
        dest.shape.clone(),
        data,
    )?])
}
