//! `tensor.non_max_suppression` as loops, computing in f64 what the interpreter
//! computes (the same comparisons, so the same boxes are selected). Per batch and
//! class:
//!
//! - the candidates (boxes whose score is above the threshold) are gathered in index
//!   order, without branches: each box's index is stored at slot `count`, or at a
//!   spare slot when it is not one; then each candidate's key, its score in IEEE's
//!   total order (its f64 bits, the magnitude flipped for negatives);
//! - each candidate's rank by descending key (lower index first on ties) is counted
//!   over the candidates, and its box stored at that rank in a scratch `order`
//!   buffer (quadratic in the number of candidates, not of boxes);
//! - a `loop.for` over the ranks carries the count of rows selected: a candidate is
//!   kept when its class has room and it overlaps none of the rows its class
//!   selected so far (a `loop.for` over their extents, kept by row in a scratch
//!   buffer; empty once the class is full);
//! - there is no conditional store: every step writes row `min(count, M - 1)`, the
//!   next free row (padding until a box is kept there) or, once all M rows are full,
//!   the last one with its own values again (they are this class's and its last
//!   kept box, carried along); the extents go to row `min(count, M)`, M spare.

use acc_dialects::build::BuildExt as _;
use acc_dialects::hooks::nms::Suppression;
use acc_dialects::ops::{arith, loops};
use acc_ir::{FloatKind, OpId, TypeId, ValueId};

use crate::Bufferizer;
use crate::loop_nests::build::{convert, rank_on_line};
use acc_dialects::build::for_carrying;
use acc_dialects::build::{Builder, cmpf, cmpi, memref_type};

/// Where the loops of one batch and class read and write.
#[derive(Clone, Copy)]
struct Place {
    boxes: ValueId,
    scores: ValueId,
    out: ValueId,
    /// The extents of the boxes in the rows of `out` (M + 1 rows of 4 f64: the
    /// last one spare).
    extents: ValueId,
    batch: ValueId,
    class: ValueId,
}

/// The constants the selection loops use, made once before them.
#[derive(Clone, Copy)]
struct Constants {
    zero: ValueId,
    one: ValueId,
    boxes: ValueId,
    last_row: ValueId,
    rows: ValueId,
    per_class: ValueId,
    yes: ValueId,
    no: ValueId,
    /// The f64 constants: 0, 2 and the IoU threshold.
    f_zero: ValueId,
    f_two: ValueId,
    iou: ValueId,
    score_threshold: Option<ValueId>,
    center_point: bool,
    /// The element types of the boxes and the scores.
    box_type: TypeId,
    score_type: TypeId,
}

impl Bufferizer<'_> {
    /// `tensor.non_max_suppression`: the buffer written and the count of its rows
    /// selected (the rows after them are padding).
    pub(crate) fn non_max_suppression(&mut self, op: OpId) -> Result<[ValueId; 2], String> {
        let operands: Vec<ValueId> = self.ir.body(self.body).operands(op).collect();
        let [boxes, scores, init] = operands[..] else {
            return Err("expects boxes, scores and an init".into());
        };
        let (box_shape, score_shape) = (self.static_shape(boxes)?, self.static_shape(scores)?);
        let (&[batches, n, 4], &[_, classes, _], &[rows, 3]) = (
            &box_shape[..],
            &score_shape[..],
            &self.static_shape(init)?[..],
        ) else {
            return Err("expects boxes B x N x 4, scores B x C x N and an init M x 3".into());
        };
        let how = Suppression::of(&self.attrs(op))?;
        let per_class = n.min(how.max_per_class);
        // The selection relies on the bound (see `select_class`); the verifier
        // checks it, and so does this, for IR that was not verified.
        let bound = acc_dialects::hooks::nms::bound(&box_shape, &score_shape, per_class)
            .ok_or("the boxes and the scores disagree")?;
        if rows < bound {
            return Err(format!(
                "an init of {rows} rows cannot hold the {bound} it may select"
            ));
        }
        let out = self.destination(op, init, false)?;
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
        let (box_type, score_type) = (self.element(boxes), self.element(scores));
        let mut e = self.emitter(op);
        let zero = e.index(0)?;
        if rows == 0 || per_class == 0 {
            return Ok([out, zero]);
        }
        let (f64t, i1, i64t) = (
            e.ctx.float_type(FloatKind::F64),
            e.ctx.int_type(1),
            e.ctx.int_type(64),
        );
        let k = Constants {
            zero,
            one: e.index(1)?,
            boxes: e.index(n)?,
            last_row: e.index(rows - 1)?,
            rows: e.index(rows)?,
            per_class: e.index(per_class)?,
            yes: e.scalar(i1, 1.0)?,
            no: e.scalar(i1, 0.0)?,
            f_zero: e.scalar(f64t, 0.0)?,
            f_two: e.scalar(f64t, 2.0)?,
            iou: e.scalar(f64t, how.iou)?,
            score_threshold: how.score_threshold.map(|t| e.scalar(f64t, t)).transpose()?,
            center_point: how.center_point,
            box_type,
            score_type,
        };
        // Candidates' keys and indices (and a spare slot), and their order by score.
        let keys = memref_type(e.ctx, &[n], i64t);
        let keys = loops::Alloc::build(&mut e, &[], keys).result()?;
        let ids = memref_type(e.ctx, &[n + 1], i64t);
        let ids = loops::Alloc::build(&mut e, &[], ids).result()?;
        let order = memref_type(e.ctx, &[n], i64t);
        let order = loops::Alloc::build(&mut e, &[], order).result()?;
        let extents = memref_type(e.ctx, &[rows + 1, 4], f64t);
        let extents = loops::Alloc::build(&mut e, &[], extents).result()?;
        let (b_end, c_end) = (e.index(batches)?, e.index(classes)?);
        let count = for_carrying(&mut e, [zero, b_end], &[zero], &mut |e, batch, count| {
            for_carrying(e, [zero, c_end], count, &mut |e, class, count| {
                let at = Place {
                    boxes: box_buf,
                    scores: score_buf,
                    out,
                    extents,
                    batch,
                    class,
                };
                let candidates = gather_candidates(e, at, &k, [keys, ids])?;
                rank_candidates(e, &k, [keys, ids, order], candidates)?;
                let selected = select_class(e, at, &k, order, [count[0], candidates])?;
                Ok(vec![selected])
            })
        })?;
        Ok([out, count[0]])
    }
}

/// The score of box `i` of the class, in f64.
fn score(e: &mut Builder<'_>, at: Place, k: &Constants, i: ValueId) -> Result<ValueId, String> {
    let s = loops::Load::build(e, at.scores, &[at.batch, at.class, i], k.score_type).result()?;
    let f64t = e.ctx.float_type(FloatKind::F64);
    convert(e, s, k.score_type, f64t)
}

/// A signed integer ordered as IEEE's total order orders the f64 `x`.
fn total_order_key(e: &mut Builder<'_>, x: ValueId) -> Result<ValueId, String> {
    let i64t = e.ctx.int_type(64);
    let bits = arith::Bitcast::build(e, x, i64t).result()?;
    let (k63, k1) = (e.scalar(i64t, 63.0)?, e.scalar(i64t, 1.0)?);
    let sign = arith::Shrsi::build(e, bits, k63, i64t).result()?;
    let magnitude = arith::Shrui::build(e, sign, k1, i64t).result()?;
    arith::Xori::build(e, bits, magnitude, i64t).result()
}

fn and(e: &mut Builder<'_>, a: ValueId, b: ValueId) -> Result<ValueId, String> {
    let i1 = e.ctx.int_type(1);
    arith::Andi::build(e, a, b, i1).result()
}

/// Gathers the class's candidates (its boxes whose score is above the threshold;
/// all of them without one), in index order: their indices into `ids`, then their
/// scores' keys into `keys`. Their count. A box that is not a candidate is written
/// to the spare slot N of `ids`, which nothing reads.
fn gather_candidates(
    e: &mut Builder<'_>,
    at: Place,
    k: &Constants,
    [keys, ids]: [ValueId; 2],
) -> Result<ValueId, String> {
    let (i64t, index) = (e.ctx.int_type(64), e.ctx.index_type());
    let count = for_carrying(e, [k.zero, k.boxes], &[k.zero], &mut |e, i, m| {
        let m = m[0];
        let next = arith::Addi::build(e, m, k.one, index).result()?;
        let (slot, next) = match k.score_threshold {
            None => (m, next),
            Some(threshold) => {
                let s = score(e, at, k, i)?;
                let above = e.cmpf(cmpf::OGT, s, threshold)?;
                (
                    arith::Select::build(e, above, m, k.boxes, index).result()?,
                    arith::Select::build(e, above, next, m, index).result()?,
                )
            }
        };
        let position = arith::IndexCast::build(e, i, i64t).result()?;
        loops::Store::build(e, position, ids, &[slot]).create()?;
        Ok(vec![next])
    })?;
    for_carrying(e, [k.zero, count[0]], &[], &mut |e, c, _| {
        let id = loops::Load::build(e, ids, &[c], i64t).result()?;
        let i = arith::IndexCast::build(e, id, index).result()?;
        let key = score(e, at, k, i).and_then(|s| total_order_key(e, s))?;
        loops::Store::build(e, key, keys, &[c]).create()?;
        Ok(Vec::new())
    })?;
    Ok(count[0])
}

/// `order[rank] = ids[c]` for each of the `count` candidates c, ranked by descending
/// key (the earlier candidate first on ties: the lower box index).
fn rank_candidates(
    e: &mut Builder<'_>,
    k: &Constants,
    [keys, ids, order]: [ValueId; 3],
    count: ValueId,
) -> Result<(), String> {
    let i64t = e.ctx.int_type(64);
    for_carrying(e, [k.zero, count], &[], &mut |e, c, _| {
        let key = loops::Load::build(e, keys, &[c], i64t).result()?;
        let rank = rank_on_line(e, count, c, &mut |e, j, strict| {
            let other = loops::Load::build(e, keys, &[j], i64t).result()?;
            e.cmpi(if strict { cmpi::SGT } else { cmpi::SGE }, other, key)
        })?;
        let id = loops::Load::build(e, ids, &[c], i64t).result()?;
        loops::Store::build(e, id, order, &[rank]).create()?;
        Ok(Vec::new())
    })?;
    Ok(())
}

/// The extent (y0, x0, y1, x1) of box `i` of the batch, in f64.
fn extent(
    e: &mut Builder<'_>,
    at: Place,
    k: &Constants,
    i: ValueId,
) -> Result<[ValueId; 4], String> {
    let f64t = e.ctx.float_type(FloatKind::F64);
    let mut v = [i; 4];
    for (c, slot) in v.iter_mut().enumerate() {
        let coordinate = e.index(c as i64)?;
        let x = loops::Load::build(e, at.boxes, &[at.batch, i, coordinate], k.box_type).result()?;
        *slot = convert(e, x, k.box_type, f64t)?;
    }
    let mut op = |kind: arith::Op, a: ValueId, b: ValueId| e.op1(kind.name(), &[a, b], f64t, &[]);
    if k.center_point {
        // (x center, y center, width, height)
        let half_w = op(arith::Op::Divf, v[2], k.f_two)?;
        let half_h = op(arith::Op::Divf, v[3], k.f_two)?;
        return Ok([
            op(arith::Op::Subf, v[1], half_h)?,
            op(arith::Op::Subf, v[0], half_w)?,
            op(arith::Op::Addf, v[1], half_h)?,
            op(arith::Op::Addf, v[0], half_w)?,
        ]);
    }
    // Corners in either order.
    Ok([
        op(arith::Op::Minnumf, v[0], v[2])?,
        op(arith::Op::Minnumf, v[1], v[3])?,
        op(arith::Op::Maxnumf, v[0], v[2])?,
        op(arith::Op::Maxnumf, v[1], v[3])?,
    ])
}

/// Whether the intersection over union of boxes `a` and `b` exceeds the threshold
/// (false when they do not meet or either has no area: every quantity divided or
/// compared must be above zero, as the interpreter's early returns say).
fn overlaps(
    e: &mut Builder<'_>,
    k: &Constants,
    a: [ValueId; 4],
    b: [ValueId; 4],
) -> Result<ValueId, String> {
    let f64t = e.ctx.float_type(FloatKind::F64);
    let op = |e: &mut Builder<'_>, kind: arith::Op, x: ValueId, y: ValueId| {
        e.op1(kind.name(), &[x, y], f64t, &[])
    };
    let right = op(e, arith::Op::Minnumf, a[3], b[3])?;
    let left = op(e, arith::Op::Maxnumf, a[1], b[1])?;
    let bottom = op(e, arith::Op::Minnumf, a[2], b[2])?;
    let top = op(e, arith::Op::Maxnumf, a[0], b[0])?;
    let w = op(e, arith::Op::Subf, right, left)?;
    let h = op(e, arith::Op::Subf, bottom, top)?;
    let inter = op(e, arith::Op::Mulf, w, h)?;
    let area = |e: &mut Builder<'_>, r: [ValueId; 4]| -> Result<ValueId, String> {
        let width = op(e, arith::Op::Subf, r[3], r[1])?;
        let height = op(e, arith::Op::Subf, r[2], r[0])?;
        op(e, arith::Op::Mulf, width, height)
    };
    let (area_a, area_b) = (area(e, a)?, area(e, b)?);
    let sum = op(e, arith::Op::Addf, area_a, area_b)?;
    let union = op(e, arith::Op::Subf, sum, inter)?;
    let ratio = op(e, arith::Op::Divf, inter, union)?;
    let mut all = e.cmpf(cmpf::OGT, ratio, k.iou)?;
    for positive in [w, h, area_a, area_b, union] {
        let p = e.cmpf(cmpf::OGT, positive, k.f_zero)?;
        all = and(e, all, p)?;
    }
    Ok(all)
}

/// Whether box `this` overlaps one of the boxes in rows `[first, end)` of the output
/// (their extents read from `extents`).
fn suppressed(
    e: &mut Builder<'_>,
    at: Place,
    k: &Constants,
    this: [ValueId; 4],
    [first, end]: [ValueId; 2],
) -> Result<ValueId, String> {
    let (f64t, i1) = (e.ctx.float_type(FloatKind::F64), e.ctx.int_type(1));
    let found = for_carrying(e, [first, end], &[k.no], &mut |e, row, flag| {
        let mut other = this;
        for (c, slot) in other.iter_mut().enumerate() {
            let c = e.index(c as i64)?;
            *slot = loops::Load::build(e, at.extents, &[row, c], f64t).result()?;
        }
        let hit = overlaps(e, k, this, other)?;
        Ok(vec![arith::Ori::build(e, flag[0], hit, i1).result()?])
    })?;
    Ok(found[0])
}

/// Selects among the `candidates` of one class, in rank order, into the output from
/// row `start`; the count after them. Each step writes row `min(count, M - 1)`: the
/// verifier's bound (M at least B x C x the most kept per class) makes the count
/// reach M only in the last class once it is full, when that row holds this class
/// and its last kept box, the values written again.
fn select_class(
    e: &mut Builder<'_>,
    at: Place,
    k: &Constants,
    order: ValueId,
    [start, candidates]: [ValueId; 2],
) -> Result<ValueId, String> {
    let (i64t, index) = (e.ctx.int_type(64), e.ctx.index_type());
    let none = e.scalar(i64t, 0.0)?;
    let carried = for_carrying(
        e,
        [k.zero, candidates],
        &[start, none],
        &mut |e, rank, carried| {
            let [count, last] = carried[..] else {
                return Err("a selection carries a count and a box".into());
            };
            let chosen = loops::Load::build(e, order, &[rank], i64t).result()?;
            let i = arith::IndexCast::build(e, chosen, index).result()?;
            let taken = arith::Subi::build(e, count, start, index).result()?;
            let room = e.cmpi(cmpi::SLT, taken, k.per_class)?;
            // Once the class is full, the loop over its rows runs zero times.
            let end = arith::Select::build(e, room, count, start, index).result()?;
            let this = extent(e, at, k, i)?;
            let hit = suppressed(e, at, k, this, [start, end])?;
            let i1 = e.ctx.int_type(1);
            let clear = arith::Xori::build(e, hit, k.yes, i1).result()?;
            let keep = and(e, room, clear)?;
            // The extent goes to row `count` (the spare row M once all are full), where
            // it stays if the box is kept.
            let spare = arith::Minsi::build(e, count, k.rows, index).result()?;
            for (c, value) in this.into_iter().enumerate() {
                let c = e.index(c as i64)?;
                loops::Store::build(e, value, at.extents, &[spare, c]).create()?;
            }
            let row = arith::Minsi::build(e, count, k.last_row, index).result()?;
            let box_value = arith::Select::build(e, keep, chosen, last, i64t).result()?;
            let batch = arith::IndexCast::build(e, at.batch, i64t).result()?;
            let class = arith::IndexCast::build(e, at.class, i64t).result()?;
            for (column, value) in [batch, class, box_value].into_iter().enumerate() {
                let c = e.index(column as i64)?;
                loops::Store::build(e, value, at.out, &[row, c]).create()?;
            }
            let next = arith::Addi::build(e, count, k.one, index).result()?;
            Ok(vec![
                arith::Select::build(e, keep, next, count, index).result()?,
                box_value,
            ])
        },
    )?;
    Ok(carried[0])
}
