//! Tiles of output rows, for a convolution or pool whose input alone overflows the
//! local memory (output-channel tiles all read the whole input, so they cannot
//! help). Tile `i` computes output rows `[r, r + n)` from the input rows
//! `[r * s - pad_top, (r + n - 1) * s - pad_top + (k - 1) * d + 1)` clipped to the
//! plane: neighbouring tiles both read the `(k - 1) * d + 1 - s` rows between them
//! (the halo). A tile's padding is the op's where it meets the plane's top or bottom
//! edge and none inside, so each tile is the same op on a slice of the input
//! (`graph.slice` along the rows), and their results joined along the rows are the
//! op's. The intrinsic must accept every tile; the weights, bias and tables every
//! tile reads whole.

use acc_dialects::build::{Builder, i64_attr, i64s, set_props, shape_of};
use acc_dialects::hooks::attr_read::Attrs;
use acc_dialects::hooks::hw::stored_bytes;
use acc_dialects::ops::graph;
use acc_ir::clone::{ValueMap, clone_op};
use acc_ir::{BodyId, Context, InsertPoint, Ir, OpId, ValueId};
use acc_target::{Intrinsic, Placement};

use super::{aligned, slice, sliced_type};

/// The row axis of an NCHW value.
const ROWS: usize = 2;

/// How an op's output rows map to its input rows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct RowRule {
    /// The input's rows.
    pub in_rows: i64,
    /// The output's rows.
    pub out_rows: i64,
    /// The row stride.
    pub stride: i64,
    /// Rows a window spans: `(k - 1) * dilation + 1`.
    pub extent: i64,
    /// The op's padding, `[top, left, bottom, right]`.
    pub pads: Vec<i64>,
}

impl RowRule {
    /// The input rows tile `[first, first + n)` reads, clipped to the plane, and the
    /// padding above and below them.
    fn input_rows(&self, first: i64, n: i64) -> (i64, i64, i64, i64) {
        let top = first * self.stride - self.pads[0];
        let end = (first + n - 1) * self.stride - self.pads[0] + self.extent;
        let (start, stop) = (top.max(0), end.min(self.in_rows));
        (
            start,
            stop - start,
            (-top).max(0),
            (end - self.in_rows).max(0),
        )
    }
}

/// The row rule of `op`: a `graph.qconv2d`, `graph.max_pool` or `graph.qavg_pool` on
/// NCHW values, windows rounded down (`ceil_mode` false), whose output rows its
/// input rows, stride, window and padding give exactly.
pub(super) fn row_rule(ctx: &Context, ir: &Ir, body: BodyId, op: OpId) -> Option<RowRule> {
    let b = ir.body(body);
    let r = ir.op(body, op);
    let operands: Vec<ValueId> = b.operands(op).collect();
    let (x_shape, _) = shape_of(ctx, b.value_type(*operands.first()?)).ok()?;
    let (y_shape, _) = shape_of(ctx, b.value_type(b.results(op).next()?)).ok()?;
    if x_shape.len() != 4 || y_shape.len() != 4 {
        return None;
    }
    let attrs = Attrs::of_op(ctx, r);
    let kernel_rows = match graph::Op::of(ctx, r)? {
        graph::Op::Qconv2d => *shape_of(ctx, b.value_type(*operands.get(1)?))
            .ok()?
            .0
            .get(2)?,
        graph::Op::MaxPool | graph::Op::QavgPool => {
            if attrs.flag("ceil_mode") {
                return None;
            }
            *attrs.ints("kernel_shape").ok()??.first()?
        }
        _ => return None,
    };
    let stride = attrs.ints_n("strides", 2, 1).ok()?[0];
    let dilation = attrs.ints_n("dilations", 2, 1).ok()?[0];
    let pads = attrs.ints_n("pads", 4, 0).ok()?;
    let rule = RowRule {
        in_rows: x_shape[ROWS],
        out_rows: y_shape[ROWS],
        stride,
        extent: (kernel_rows - 1).checked_mul(dilation)? + 1,
        pads,
    };
    // The output rows must be the ones the windows give, so that each tile's are.
    let rows = (rule.in_rows + rule.pads[0] + rule.pads[2] - rule.extent)
        .checked_div(stride)
        .map(|q| q + 1);
    let sane = stride > 0 && kernel_rows > 0 && rule.in_rows > 0 && rule.out_rows > 1;
    (sane && rows == Some(rule.out_rows)).then_some(rule)
}

/// The largest number of output rows a tile can have for its buffers, twice over,
/// to fit `size` bytes beside the ones every tile reads (of the call's `total`
/// bytes, all but its input's and result's): `None` when not even one row fits, or
/// the call does not pass the input as a buffer.
pub(super) fn rows_per_tile(
    ctx: &Context,
    ir: &Ir,
    body: BodyId,
    (op, p): (OpId, &Placement),
    rule: &RowRule,
    (size, total): (u64, u64),
) -> Option<i64> {
    let b = ir.body(body);
    // A buffer in a blocked layout holds its padding too (a block's lanes past the
    // last channel): a row of it is that much larger.
    let bytes = |v: ValueId| {
        shape_of(ctx, b.value_type(v))
            .ok()
            .and_then(|(shape, element)| {
                let shape = match p.layouts.iter().find(|(x, _)| *x == v) {
                    Some((_, layout)) => layout.stored_shape(&shape),
                    None => shape,
                };
                stored_bytes(ctx, acc_dialects::build::memref_type(ctx, &shape, element))
                    .map(|b| b.0)
            })
    };
    let x = b.operands(op).next()?;
    let y = b.results(op).next()?;
    if !p.call.contains(&acc_target::CallArg::Value(x)) {
        return None;
    }
    let (x_bytes, y_bytes) = (bytes(x)?, bytes(y)?);
    let shared = total.checked_sub(aligned(x_bytes) + aligned(y_bytes))?;
    let (x_row, y_row) = (
        x_bytes.div_ceil(rule.in_rows as u64),
        y_bytes.div_ceil(rule.out_rows as u64),
    );
    (1..rule.out_rows).rev().find(|n| {
        let (_, in_rows, _, _) = rule.input_rows(0, *n);
        let tile = aligned(x_row * in_rows as u64) + aligned(y_row * *n as u64);
        shared + 2 * tile <= size
    })
}

/// Replaces `op` by tiles of `per_tile` output rows joined along the rows; on an
/// error nothing is left of the tiles. The tiles.
pub(super) fn split_rows(
    ctx: &Context,
    ir: &mut Ir,
    body: BodyId,
    op: OpId,
    intrinsic: &Intrinsic,
    rule: &RowRule,
    per_tile: i64,
) -> Result<Vec<OpId>, String> {
    let loc = ir.op(body, op).loc();
    let result = ir.body(body).results(op).next().ok_or("no result")?;
    let result_type = ir.body(body).value_type(result);
    let x = ir.body(body).operands(op).next().ok_or("no input")?;
    let mut made = Vec::new();
    let built = (|| {
        // Every tile's input rows first, then the tiles one after another: nothing
        // runs between two tiles, so the weights stay in the local memory.
        let mut bands = Vec::new();
        let mut first = 0;
        while first < rule.out_rows {
            let n = per_tile.min(rule.out_rows - first);
            let (start, rows, top, bottom) = rule.input_rows(first, n);
            let input = slice(ctx, ir, body, op, x, ROWS, start, rows, &mut made)?;
            bands.push((first, n, input, [top, bottom]));
            first += n;
        }
        let mut tiles = Vec::new();
        for (first, n, input, padding) in bands {
            let (tile_op, out) = row_tile(ctx, ir, body, op, input, first, n, padding, &mut made)?;
            intrinsic
                .rule
                .place(ctx, ir, body, tile_op)
                .map_err(|why| format!("'{}' refuses a tile of {n} rows: {why}", intrinsic.name))?;
            tiles.push((tile_op, out));
        }
        let values: Vec<ValueId> = tiles.iter().map(|(_, v)| *v).collect();
        let mut e = Builder::new(ctx, &mut *ir, body, InsertPoint::Before(op), loc);
        let joined = graph::Concat::build(&mut e, &values, result_type)
            .axis(i64_attr(ctx, ROWS as i64))
            .result()?;
        Ok::<_, String>((tiles, joined))
    })();
    match built {
        Ok((tiles, joined)) => {
            ir.body_mut(body).replace_all_uses(result, joined);
            Ok(tiles.into_iter().map(|(o, _)| o).collect())
        }
        Err(e) => {
            for o in made.into_iter().rev() {
                ir.erase_op(body, o);
            }
            Err(e)
        }
    }
}

/// One tile: output rows `[first, first + n)` of `op` reading the input rows
/// `input`, padded `[top, bottom]` above and below, before `op`; the tile op (added
/// to `made`) and its result.
#[allow(clippy::too_many_arguments)]
fn row_tile(
    ctx: &Context,
    ir: &mut Ir,
    body: BodyId,
    op: OpId,
    input: ValueId,
    first: i64,
    n: i64,
    [top, bottom]: [i64; 2],
    made: &mut Vec<OpId>,
) -> Result<(OpId, ValueId), String> {
    let pads = Attrs::of_op(ctx, ir.op(body, op)).ints_n("pads", 4, 0)?;
    let mut map = ValueMap::default();
    let copy = clone_op(ir, body, op, body, InsertPoint::Before(op), &mut map);
    made.push(copy);
    acc_target::placement::clear_prepared(ctx, ir, body, copy)?;
    ir.body_mut(body).set_operand(copy, 0, input);
    let out = ir.body(body).results(copy).next().ok_or("no result")?;
    let ty = sliced_type(ctx, ir.body(body).value_type(out), ROWS, first, n)?;
    ir.body_mut(body).set_value_type(out, ty);
    let tile_pads = i64s(ctx, &[top, pads[1], bottom, pads[3]]);
    set_props(ctx, ir, body, copy, &[("pads", tile_pads)], &[])?;
    Ok((copy, out))
}
