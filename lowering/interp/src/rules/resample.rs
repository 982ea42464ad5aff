//! `resize` and `non_max_suppression`, following ONNX's Resize and NonMaxSuppression.
//!
//! Resize resamples one dimension at a time with the taps of
//! `acc_dialects::hooks::resample` (shared with the lowering). Values are kept in
//! `f64` until the end.

use acc_dialects::hooks::attr_read::Attrs;
use acc_dialects::hooks::nms::Suppression;
use acc_dialects::hooks::resample::{Resampling, Taps, resampled_axes};
use acc_ir::elements::Scalar;

use super::{RuleInput, graph_only};
use crate::value::Tensor;

fn f(v: Scalar) -> f64 {
    match v {
        Scalar::Int(i) => i as f64,
        Scalar::Float(x) => x,
    }
}

/// Resamples dimension `axis` of `data` (of `shape`) with `taps`, one per output
/// point.
fn resize_axis(
    taps: &Taps,
    extrapolation: f64,
    data: &[f64],
    shape: &mut [usize],
    axis: usize,
) -> Vec<f64> {
    let input = shape[axis];
    let output = taps.len();
    let outer: usize = shape[..axis].iter().product();
    let inner: usize = shape[axis + 1..].iter().product();
    let mut out = Vec::with_capacity(outer * output * inner);
    for o in 0..outer {
        for point in taps {
            for i in 0..inner {
                out.push(match point {
                    None => extrapolation,
                    Some(t) => t
                        .iter()
                        .map(|(j, w)| w * data[(o * input + j) * inner + i])
                        .sum(),
                });
            }
        }
    }
    shape[axis] = output;
    out
}

/// `resize`: see the module docs; the result shape is the result type's.
pub(super) fn resize(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    graph_only(r)?;
    let x = r.operand(0)?;
    let attrs = Attrs::of_op(r.ctx, r.op);
    let ty = r.result_type(0)?;
    let out_shape = Tensor::layout(r.ctx, ty)?.0;
    let how = Resampling::of(r.ctx, &attrs)?;
    let axes = resampled_axes(&attrs, &how.coordinates, &x.shape, &out_shape)?;
    let mut shape = x.shape.clone();
    let mut data: Vec<f64> = x.data.iter().map(|v| f(*v)).collect();
    for (axis, resampling) in axes.iter().enumerate() {
        if let Some(a) = resampling {
            let taps = how.taps(shape[axis], *a);
            data = resize_axis(&taps, how.extrapolation, &data, &mut shape, axis);
        }
    }
    let data = data.into_iter().map(Scalar::Float).collect();
    Ok(vec![Tensor::new(r.ctx, ty, data)?])
}

/// One box's extent: (y_min, x_min, y_max, x_max).
fn extent(b: &[f64], center_point: bool) -> (f64, f64, f64, f64) {
    if center_point {
        let (cx, cy, w, h) = (b[0], b[1], b[2], b[3]);
        (cy - h / 2.0, cx - w / 2.0, cy + h / 2.0, cx + w / 2.0)
    } else {
        (
            b[0].min(b[2]),
            b[1].min(b[3]),
            b[0].max(b[2]),
            b[1].max(b[3]),
        )
    }
}

/// Whether the intersection over union of two boxes exceeds `threshold`.
fn overlaps(a: &[f64], b: &[f64], center_point: bool, threshold: f64) -> bool {
    let (ay0, ax0, ay1, ax1) = extent(a, center_point);
    let (by0, bx0, by1, bx1) = extent(b, center_point);
    let (w, h) = (ax1.min(bx1) - ax0.max(bx0), ay1.min(by1) - ay0.max(by0));
    if w <= 0.0 || h <= 0.0 {
        return false;
    }
    let inter = w * h;
    let (area_a, area_b) = ((ax1 - ax0) * (ay1 - ay0), (bx1 - bx0) * (by1 - by0));
    let union = area_a + area_b - inter;
    if area_a <= 0.0 || area_b <= 0.0 || union <= 0.0 {
        return false;
    }
    inter / union > threshold
}

/// The selection of a non-maximum suppression with the op's parameters.
struct Selection(Suppression);

impl Selection {
    fn of(r: &RuleInput<'_>) -> Result<Selection, String> {
        Ok(Selection(Suppression::of(&Attrs::of_op(r.ctx, r.op))?))
    }

    /// The selected [batch, class, box] triples, per batch and class, boxes by
    /// descending score (lower index first on ties), those not above
    /// `score_threshold` dropped, each kept unless it overlaps a kept one by more
    /// than `iou`, at most `max_per_class` kept.
    fn select(&self, boxes: &Tensor, scores: &Tensor) -> Result<Vec<[usize; 3]>, String> {
        let (&[batches, n, four], &[sb, classes, sn]) = (
            <&[usize; 3]>::try_from(boxes.shape.as_slice())
                .map_err(|_| "boxes must have rank 3")?,
            <&[usize; 3]>::try_from(scores.shape.as_slice())
                .map_err(|_| "scores must have rank 3")?,
        );
        if four != 4 || sb != batches || sn != n {
            return Err(format!(
                "boxes {:?} and scores {:?} do not agree",
                boxes.shape, scores.shape
            ));
        }
        let box_values: Vec<f64> = boxes.data.iter().map(|v| f(*v)).collect();
        let mut selected = Vec::new();
        for b in 0..batches {
            let batch_boxes = &box_values[b * n * 4..(b + 1) * n * 4];
            for c in 0..classes {
                let line = (b * classes + c) * n;
                let mut order: Vec<(f64, usize)> = scores.data[line..line + n]
                    .iter()
                    .enumerate()
                    .map(|(i, s)| (f(*s), i))
                    .filter(|(s, _)| self.0.score_threshold.is_none_or(|t| *s > t))
                    .collect();
                order.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
                let mut kept: Vec<usize> = Vec::new();
                for (_, i) in order {
                    if kept.len() as i64 >= self.0.max_per_class {
                        break;
                    }
                    let this = &batch_boxes[i * 4..i * 4 + 4];
                    let overlapping = |k: &usize| {
                        let other = &batch_boxes[k * 4..k * 4 + 4];
                        overlaps(this, other, self.0.center_point, self.0.iou)
                    };
                    if !kept.iter().any(overlapping) {
                        kept.push(i);
                        selected.push([b, c, i]);
                    }
                }
            }
        }
        Ok(selected)
    }
}

/// `graph.non_max_suppression`: the selected triples (see [`Selection::select`]),
/// one per row.
pub(super) fn non_max_suppression(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    graph_only(r)?;
    let selected = Selection::of(r)?.select(r.operand(0)?, r.operand(1)?)?;
    let rows = selected.len();
    let data = selected
        .iter()
        .flatten()
        .map(|v| Scalar::Int(*v as i128))
        .collect();
    Ok(vec![Tensor::with_shape(
        r.ctx,
        r.result_type(0)?,
        vec![rows, 3],
        data,
    )?])
}

/// `tensor.non_max_suppression`: the selected triples in the first rows of the
/// init, the rows after them unspecified, and their count.
pub(super) fn tensor_non_max_suppression(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let selected = Selection::of(r)?.select(r.operand(0)?, r.operand(1)?)?;
    let init = r.operand(2)?;
    if init.shape.len() != 2 || init.shape[1] != 3 || init.shape[0] < selected.len() {
        return Err(format!(
            "an init of {:?} cannot hold {} selected triples",
            init.shape,
            selected.len()
        ));
    }
    let values: Vec<Scalar> = selected
        .iter()
        .flatten()
        .map(|v| Scalar::Int(*v as i128))
        .collect();
    let written = values.len();
    let writes = (0..init.data.len()).map(|p| match values.get(p) {
        Some(v) => (p, *v, false),
        None => (p, Scalar::Int(0), true),
    });
    let mut results = super::tensors::written(r, init, writes)?;
    let count = Scalar::Int((written / 3) as i128);
    results.push(Tensor::new(r.ctx, r.ctx.index_type(), vec![count])?);
    Ok(results)
}
