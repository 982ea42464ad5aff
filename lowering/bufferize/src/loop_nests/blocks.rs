//! Blocked layouts as loop nests between buffers: `tensor.pack` (a value split into
//! blocks that become its innermost dimensions, a partial last block padded) and
//! `tensor.unpack`, for the ops themselves and for the buffers an intrinsic reads
//! or writes in a blocked layout (`accel::layouts`).

use acc_dialects::build::Builder;
use acc_dialects::ops::{arith, loops};
use acc_ir::{TypeId, ValueId};

use crate::loop_nests::build::{
    and_also, clamp, in_range, index_add, index_op, parallel, parallel_range,
};

/// The tiled dimensions of the plain side and their tiles (as many of each).
pub(crate) struct Tiling<'a> {
    /// The plain dimensions split into blocks.
    pub positions: &'a [usize],
    /// Each one's block size (positive).
    pub tiles: &'a [i64],
}

/// Fills the blocked buffer `dest` (of `shape`: the plain `sx` with each tiled
/// dimension counting blocks, then the tiles) from the plain `src`: each element
/// read at `outer * tile + inner` along each tiled dimension; positions past the
/// source's end (a partial last block) take `padding`, which a partial block needs.
#[allow(clippy::too_many_arguments)]
pub(crate) fn pack_nest(
    e: &mut Builder<'_>,
    src: ValueId,
    dest: ValueId,
    sx: &[i64],
    shape: &[i64],
    tiling: &Tiling<'_>,
    padding: Option<ValueId>,
    elem: TypeId,
) -> Result<(), String> {
    let (positions, tiles) = (tiling.positions, tiling.tiles);
    let shape = shape.to_vec();
    let rank = sx.len();
    if let ([d], [tile]) = (positions, tiles) {
        // One tiled dimension: the whole blocks, then the last one's real
        // positions and its padding, each without a test per element.
        let (d, tile) = (*d, *tile);
        let (whole, rest) = (sx[d] / tile, sx[d] % tile);
        let lane = shape.len() - 1;
        for (blocks, lanes, padded) in [
            ((0, whole), (0, tile), false),
            ((whole, whole + 1), (0, rest), false),
            ((whole, whole + 1), (rest, tile), true),
        ] {
            let partial = blocks.0 == whole;
            if blocks.0 >= blocks.1 || lanes.0 >= lanes.1 || (partial && rest == 0) {
                continue;
            }
            let (mut lower, mut upper) = (vec![0; shape.len()], shape.clone());
            (lower[d], upper[d], lower[lane], upper[lane]) = (blocks.0, blocks.1, lanes.0, lanes.1);
            parallel_range(e, &lower, &upper, &mut |e, ivs| {
                let v = match (padded, padding) {
                    (true, Some(pad)) => pad,
                    _ => {
                        let mut at = ivs[..rank].to_vec();
                        let outer = index_op(e, arith::Op::Muli, ivs[d], tile)?;
                        at[d] = index_add(e, outer, ivs[lane])?;
                        loops::Load::build(e, src, &at, elem).result()?
                    }
                };
                loops::Store::build(e, v, dest, ivs).create()?;
                Ok(())
            })?;
        }
        return Ok(());
    }
    parallel(e, &shape, &mut |e, ivs| {
        let mut at = ivs[..rank].to_vec();
        let mut inside: Option<ValueId> = None;
        for (k, (&d, &tile)) in positions.iter().zip(tiles).enumerate() {
            let outer = index_op(e, arith::Op::Muli, ivs[d], tile)?;
            let p = index_add(e, outer, ivs[rank + k])?;
            if sx[d] % tile == 0 {
                at[d] = p;
                continue;
            }
            let ok = in_range(e, p, sx[d])?;
            inside = Some(and_also(e, inside, ok)?);
            at[d] = clamp(e, p, sx[d])?;
        }
        let mut v = loops::Load::build(e, src, &at, elem).result()?;
        if let (Some(c), Some(pad)) = (inside, padding) {
            v = arith::Select::build(e, c, v, pad, elem).result()?;
        }
        loops::Store::build(e, v, dest, ivs).create()?;
        Ok(())
    })?;
    Ok(())
}

/// Fills the plain buffer `dest` (of `shape`) from the blocked `src`: each element
/// read at block `i / tile`, position `i % tile` along each tiled dimension.
pub(crate) fn unpack_nest(
    e: &mut Builder<'_>,
    src: ValueId,
    dest: ValueId,
    shape: &[i64],
    tiling: &Tiling<'_>,
    elem: TypeId,
) -> Result<(), String> {
    let (positions, tiles) = (tiling.positions, tiling.tiles);
    if let ([d], [tile]) = (positions, tiles) {
        // One tiled dimension, iterated in the result's order with its index
        // split into block and lane (no division per element): the whole
        // blocks, then the last one's real lanes.
        let (d, tile) = (*d, *tile);
        let (whole, rest) = (shape[d] / tile, shape[d] % tile);
        for (blocks, lanes) in [((0, whole), (0, tile)), ((whole, whole + 1), (0, rest))] {
            if blocks.0 >= blocks.1 || lanes.0 >= lanes.1 {
                continue;
            }
            let lower: Vec<i64> = [
                &vec![0; d][..],
                &[blocks.0, lanes.0],
                &vec![0; shape.len() - d - 1],
            ]
            .concat();
            let upper: Vec<i64> = [&shape[..d], &[blocks.1, lanes.1], &shape[d + 1..]].concat();
            parallel_range(e, &lower, &upper, &mut |e, ivs| {
                let (block, lane) = (ivs[d], ivs[d + 1]);
                let rest_of = |head: ValueId| -> Vec<ValueId> {
                    [&ivs[..d], &[head], &ivs[d + 2..]].concat()
                };
                let mut from = rest_of(block);
                from.push(lane);
                let v = loops::Load::build(e, src, &from, elem).result()?;
                let outer = index_op(e, arith::Op::Muli, block, tile)?;
                let channel = index_add(e, outer, lane)?;
                loops::Store::build(e, v, dest, &rest_of(channel)).create()?;
                Ok(())
            })?;
        }
        return Ok(());
    }
    parallel(e, shape, &mut |e, ivs| {
        let mut at = ivs.to_vec();
        for (&d, &tile) in positions.iter().zip(tiles) {
            at[d] = index_op(e, arith::Op::Divui, ivs[d], tile)?;
            let inner = index_op(e, arith::Op::Remui, ivs[d], tile)?;
            at.push(inner);
        }
        let v = loops::Load::build(e, src, &at, elem).result()?;
        loops::Store::build(e, v, dest, ivs).create()?;
        Ok(())
    })?;
    Ok(())
}
