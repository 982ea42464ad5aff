//! `tensor.non_max_suppression` as loops, computing in f64 what the interpreter
//! computes (the same comparisons, so the same boxes are selected):
//!
//! - per batch and class, each box's rank by descending score (the IEEE total order,
//!   lower index first on ties) is counted by a `loop.for`, and the box stored at its
//!   rank in a scratch `order` buffer;
//! - a `loop.for` over the ranks carries the count of selected rows: a box is kept
//!   when its score is above the threshold, the class has room, and it overlaps none
//!   of the rows this class selected (a `loop.for` over them);
//! - without a conditional store, every step writes row `min(count, M - 1)`: the
//!   next free row (padding until a box is kept there) or, once all M rows are full,
//!   the last one with its own values again (they are this class's and its last
//!   kept box, carried along).

use acc_ir::elements::{Scalar, scalar};
use acc_ir::{FloatKind, OpId, ValueId};

use super::Bufferizer;
use super::build::{for_carrying, for_range, index_op, parallel, with};
use crate::emit::{Emitter, i64_attr, memref_type};

const CMPI_EQ: i64 = 0;
const CMPI_SLT: i64 = 2;
const CMPI_SGT: i64 = 4;
const CMPF_OGT: i64 = 2;

/// What the op's attributes ask.
struct Suppression {
    /// The most boxes kept per class, at most the number of boxes.
    per_class: i64,
    iou: f64,
    score_threshold: Option<f64>,
    center_point: bool,
}

/// The operands' buffers and the loop indices, as the loop bodies read them.
#[derive(Clone, Copy)]
struct Place {
    boxes: ValueId,
    scores: ValueId,
    out: ValueId,
    batch: ValueId,
    class: ValueId,
}

impl Bufferizer<'_> {
    /// `tensor.non_max_suppression`: the buffer written and the count of its rows
    /// selected.
    pub(super) fn non_max_suppression(&mut self, op: OpId) -> Result<[ValueId; 2], String> {
        let operands: Vec<ValueId> = self.ir.body(self.body).operands(op).collect();
        let [boxes, scores, init] = operands[..] else {
            return Err("expects boxes, scores and an init".into());
        };
        let (box_shape, score_shape) = (self.static_shape(boxes)?, self.static_shape(scores)?);
        let rows = self.static_shape(init)?[0];
        let (batches, n, classes) = (box_shape[0], box_shape[1], score_shape[1]);
        let number = |name: &str| {
            let a = self.attrs(op).get(name)?;
            match scalar(self.ctx, a)? {
                (_, Scalar::Float(x)) => Some(x),
                (_, Scalar::Int(i)) => Some(i as f64),
            }
        };
        let how = Suppression {
            per_class: n.min(
                self.int(op, "max_output_boxes_per_class")
                    .unwrap_or(0)
                    .max(0),
            ),
            iou: number("iou_threshold").unwrap_or(0.0),
            score_threshold: number("score_threshold"),
            center_point: self.attrs(op).flag("center_point_box"),
        };
        let out = self.destination(op, init, true)?;
        let (box_buf, score_buf) = (
            self.buffers
                .get(&boxes)
                .copied()
                .ok_or("the boxes have no buffer")?,
            self.buffers
                .get(&scores)
                .copied()
                .ok_or("the scores have no buffer")?,
        );
        let mut e = self.emitter(op);
        let zero = e.index(0)?;
        if rows == 0 || how.per_class == 0 {
            return Ok([out, zero]);
        }
        let i64t = e.ctx.int_type(64);
        let order = e.op1("loop.alloc", &[], memref_type(e.ctx, &[n], i64t), &[])?;
        let (b_end, c_end) = (e.index(batches)?, e.index(classes)?);
        let count = for_carrying(&mut e, [zero, b_end], &[zero], &mut |e, batch, count| {
            for_carrying(e, [zero, c_end], count, &mut |e, class, count| {
                let at = Place {
                    boxes: box_buf,
                    scores: score_buf,
                    out,
                    batch,
                    class,
                };
                rank_by_score(e, at, order, n)?;
                Ok(vec![select_class(e, at, order, n, rows, &how, count[0])?])
            })
        })?;
        Ok([out, count[0]])
    }
}

/// `x` widened to f64 (the interpreter's precision).
fn widened(e: &mut Emitter<'_>, x: ValueId) -> Result<ValueId, String> {
    let f64t = e.ctx.float_type(FloatKind::F64);
    if e.type_of(x) == f64t {
        return Ok(x);
    }
    e.op1("arith.extf", &[x], f64t, &[])
}

/// The score of box `i` of the class, in f64.
fn score(e: &mut Emitter<'_>, at: Place, i: ValueId) -> Result<ValueId, String> {
    let t = e
        .ctx
        .type_data(e.type_of(at.scores))
        .element_type()
        .ok_or("scores without elements")?;
    let s = e.op1("loop.load", &[at.scores, at.batch, at.class, i], t, &[])?;
    widened(e, s)
}

/// A signed integer ordered as IEEE's total order orders the f64 `x`.
fn total_order_key(e: &mut Emitter<'_>, x: ValueId) -> Result<ValueId, String> {
    let i64t = e.ctx.int_type(64);
    let bits = e.op1("arith.bitcast", &[x], i64t, &[])?;
    let (k63, k1) = (e.scalar(i64t, 63.0)?, e.scalar(i64t, 1.0)?);
    let sign = e.op1("arith.shrsi", &[bits, k63], i64t, &[])?;
    let magnitude = e.op1("arith.shrui", &[sign, k1], i64t, &[])?;
    e.op1("arith.xori", &[bits, magnitude], i64t, &[])
}

fn cmpi(e: &mut Emitter<'_>, predicate: i64, a: ValueId, b: ValueId) -> Result<ValueId, String> {
    let i1 = e.ctx.int_type(1);
    let p = i64_attr(e.ctx, predicate);
    e.op1("arith.cmpi", &[a, b], i1, &[("predicate", p)])
}

fn ogt(e: &mut Emitter<'_>, a: ValueId, b: ValueId) -> Result<ValueId, String> {
    let i1 = e.ctx.int_type(1);
    let p = i64_attr(e.ctx, CMPF_OGT);
    e.op1("arith.cmpf", &[a, b], i1, &[("predicate", p)])
}

fn and(e: &mut Emitter<'_>, a: ValueId, b: ValueId) -> Result<ValueId, String> {
    let i1 = e.ctx.int_type(1);
    e.op1("arith.andi", &[a, b], i1, &[])
}

/// `order[rank] = i` for each box i of the class, ranked by descending score.
fn rank_by_score(e: &mut Emitter<'_>, at: Place, order: ValueId, n: i64) -> Result<(), String> {
    parallel(e, &[n], &mut |e, ivs| {
        let i = ivs[0];
        let key = score(e, at, i).and_then(|s| total_order_key(e, s))?;
        let zero = e.index(0)?;
        let rank = for_range(e, n, zero, &mut |e, j, rank| {
            let other = score(e, at, j).and_then(|s| total_order_key(e, s))?;
            let higher = cmpi(e, CMPI_SGT, other, key)?;
            let tie = cmpi(e, CMPI_EQ, other, key)?;
            let earlier = cmpi(e, CMPI_SLT, j, i)?;
            let tie_earlier = and(e, tie, earlier)?;
            let i1 = e.ctx.int_type(1);
            let before = e.op1("arith.ori", &[higher, tie_earlier], i1, &[])?;
            let next = index_op(e, "addi", rank, 1)?;
            let index = e.ctx.index_type();
            e.op1("arith.select", &[before, next, rank], index, &[])
        })?;
        let i64t = e.ctx.int_type(64);
        let position = e.op1("arith.index_cast", &[i], i64t, &[])?;
        e.op("loop.store", &[position, order, rank], &[], &[])?;
        Ok(())
    })
}

/// The extent (y0, x0, y1, x1) of box `i` of the batch, in f64.
fn extent(
    e: &mut Emitter<'_>,
    at: Place,
    i: ValueId,
    center_point: bool,
) -> Result<[ValueId; 4], String> {
    let t = e
        .ctx
        .type_data(e.type_of(at.boxes))
        .element_type()
        .ok_or("boxes without elements")?;
    let mut v = [i; 4];
    for (k, slot) in v.iter_mut().enumerate() {
        let coordinate = e.index(k as i64)?;
        let x = e.op1("loop.load", &[at.boxes, at.batch, i, coordinate], t, &[])?;
        *slot = widened(e, x)?;
    }
    let f64t = e.ctx.float_type(FloatKind::F64);
    let two = e.scalar(f64t, 2.0)?;
    let mut op = |name: &str, a: ValueId, b: ValueId| e.op1(name, &[a, b], f64t, &[]);
    if center_point {
        // (cx, cy, w, h)
        let half_w = op("arith.divf", v[2], two)?;
        let half_h = op("arith.divf", v[3], two)?;
        return Ok([
            op("arith.subf", v[1], half_h)?,
            op("arith.subf", v[0], half_w)?,
            op("arith.addf", v[1], half_h)?,
            op("arith.addf", v[0], half_w)?,
        ]);
    }
    Ok([
        op("arith.minnumf", v[0], v[2])?,
        op("arith.minnumf", v[1], v[3])?,
        op("arith.maxnumf", v[0], v[2])?,
        op("arith.maxnumf", v[1], v[3])?,
    ])
}

/// Whether the intersection over union of boxes `a` and `b` exceeds `threshold`
/// (false when they do not meet or either has no area).
fn overlaps(
    e: &mut Emitter<'_>,
    a: [ValueId; 4],
    b: [ValueId; 4],
    threshold: f64,
) -> Result<ValueId, String> {
    let f64t = e.ctx.float_type(FloatKind::F64);
    let zero = e.scalar(f64t, 0.0)?;
    let limit = e.scalar(f64t, threshold)?;
    let op =
        |e: &mut Emitter<'_>, name: &str, x: ValueId, y: ValueId| e.op1(name, &[x, y], f64t, &[]);
    let right = op(e, "arith.minnumf", a[3], b[3])?;
    let left = op(e, "arith.maxnumf", a[1], b[1])?;
    let bottom = op(e, "arith.minnumf", a[2], b[2])?;
    let top = op(e, "arith.maxnumf", a[0], b[0])?;
    let w = op(e, "arith.subf", right, left)?;
    let h = op(e, "arith.subf", bottom, top)?;
    let inter = op(e, "arith.mulf", w, h)?;
    let area = |e: &mut Emitter<'_>, r: [ValueId; 4]| -> Result<ValueId, String> {
        let width = e.op1("arith.subf", &[r[3], r[1]], f64t, &[])?;
        let height = e.op1("arith.subf", &[r[2], r[0]], f64t, &[])?;
        e.op1("arith.mulf", &[width, height], f64t, &[])
    };
    let (area_a, area_b) = (area(e, a)?, area(e, b)?);
    let sum = op(e, "arith.addf", area_a, area_b)?;
    let union = op(e, "arith.subf", sum, inter)?;
    let ratio = op(e, "arith.divf", inter, union)?;
    let mut all = ogt(e, ratio, limit)?;
    for positive in [w, h, area_a, area_b, union] {
        let p = ogt(e, positive, zero)?;
        all = and(e, all, p)?;
    }
    Ok(all)
}

/// Selects the boxes of one class in rank order into `out` from row `count`; the
/// count after them.
fn select_class(
    e: &mut Emitter<'_>,
    at: Place,
    order: ValueId,
    n: i64,
    rows: i64,
    how: &Suppression,
    start: ValueId,
) -> Result<ValueId, String> {
    let i64t = e.ctx.int_type(64);
    let index = e.ctx.index_type();
    let i1 = e.ctx.int_type(1);
    let (zero, end) = (e.index(0)?, e.index(n)?);
    let none = e.scalar(i64t, 0.0)?;
    let carried = for_carrying(e, [zero, end], &[start, none], &mut |e, rank, carried| {
        let [count, last] = carried[..] else {
            return Err("a selection carries a count and a box".into());
        };
        let chosen = e.op1("loop.load", &[order, rank], i64t, &[])?;
        let i = e.op1("arith.index_cast", &[chosen], index, &[])?;
        let this = extent(e, at, i, how.center_point)?;
        let no = e.scalar(i1, 0.0)?;
        let suppressed = for_carrying(e, [start, count], &[no], &mut |e, row, flag| {
            let two = e.index(2)?;
            let kept = e.op1("loop.load", &[at.out, row, two], i64t, &[])?;
            let j = e.op1("arith.index_cast", &[kept], index, &[])?;
            let other = extent(e, at, j, how.center_point)?;
            let hit = overlaps(e, this, other, how.iou)?;
            Ok(vec![e.op1("arith.ori", &[flag[0], hit], i1, &[])?])
        })?[0];
        let taken = e.op1("arith.subi", &[count, start], index, &[])?;
        let limit = e.index(how.per_class)?;
        let room = cmpi(e, CMPI_SLT, taken, limit)?;
        let yes = e.scalar(i1, 1.0)?;
        let clear = e.op1("arith.xori", &[suppressed, yes], i1, &[])?;
        let mut keep = and(e, room, clear)?;
        if let Some(t) = how.score_threshold {
            let f64t = e.ctx.float_type(FloatKind::F64);
            let threshold = e.scalar(f64t, t)?;
            let s = score(e, at, i)?;
            let above = ogt(e, s, threshold)?;
            keep = and(e, keep, above)?;
        }
        let last_row = e.index(rows - 1)?;
        let row = e.op1("arith.minsi", &[count, last_row], index, &[])?;
        let box_value = e.op1("arith.select", &[keep, chosen, last], i64t, &[])?;
        let batch = e.op1("arith.index_cast", &[at.batch], i64t, &[])?;
        let class = e.op1("arith.index_cast", &[at.class], i64t, &[])?;
        for (column, value) in [batch, class, box_value].into_iter().enumerate() {
            let c = e.index(column as i64)?;
            e.op("loop.store", &with(value, &[at.out, row, c]), &[], &[])?;
        }
        let next = index_op(e, "addi", count, 1)?;
        Ok(vec![
            e.op1("arith.select", &[keep, next, count], index, &[])?,
            box_value,
        ])
    })?;
    Ok(carried[0])
}
