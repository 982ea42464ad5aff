//! `resize` and `non_max_suppression`, following ONNX's Resize and NonMaxSuppression.
//!
//! Resize is separable: it resamples one dimension at a time, each output coordinate
//! mapped back to an input coordinate by the coordinate transformation, then weighted
//! over the neighbouring input points (one for nearest, two for linear, four for cubic,
//! more when antialiasing a downsampling), points outside the input taking the edge
//! values. Values are kept in `f64` until the end.

use acc_dialects::hooks::attr_read::Attrs;
use acc_ir::elements::Scalar;

use super::shape::case;
use super::{RuleInput, graph_only};
use crate::value::Tensor;

fn f(v: Scalar) -> f64 {
    match v {
        Scalar::Int(i) => i as f64,
        Scalar::Float(x) => x,
    }
}

/// How one dimension is resampled.
struct Resampling {
    mode: String,
    coordinates: String,
    nearest: String,
    cubic_a: f64,
    exclude_outside: bool,
    antialias: bool,
    extrapolation: f64,
}

impl Resampling {
    /// The input coordinate of output index `y`, and whether it lies outside the input
    /// (`tf_crop_and_resize` only). `roi` is this dimension's (start, end).
    fn source(
        &self,
        y: f64,
        scale: f64,
        input: usize,
        output: usize,
        roi: (f64, f64),
    ) -> (f64, bool) {
        let (len_in, len_out) = (input as f64, scale * input as f64);
        let x = match self.coordinates.as_str() {
            "align_corners" if len_out == 1.0 => 0.0,
            "align_corners" => y * (len_in - 1.0) / (len_out - 1.0),
            "asymmetric" => y / scale,
            "tf_crop_and_resize" => {
                let span = (roi.1 - roi.0) * (len_in - 1.0);
                let x = if len_out == 1.0 {
                    span / 2.0
                } else {
                    y * span / (len_out - 1.0)
                } + roi.0 * (len_in - 1.0);
                return (x, x < 0.0 || x > len_in - 1.0);
            }
            "pytorch_half_pixel" if len_out == 1.0 => -0.5,
            "half_pixel_symmetric" => {
                let adjustment = output as f64 / len_out;
                let offset = len_in / 2.0 * (1.0 - adjustment);
                offset + (y + 0.5) / scale - 0.5
            }
            _ => (y + 0.5) / scale - 0.5,
        };
        (x, false)
    }

    /// The weights of the neighbours of a point `ratio` (in (0, 1]) past the one below.
    fn coefficients(&self, ratio: f64, scale: f64) -> Vec<f64> {
        let a = self.cubic_a;
        match self.mode.as_str() {
            "nearest" => {
                let up = if ratio == 1.0 {
                    true
                } else {
                    match self.nearest.as_str() {
                        "round_prefer_ceil" => ratio >= 0.5,
                        "floor" => false,
                        "ceil" => true,
                        _ => ratio > 0.5,
                    }
                };
                vec![f64::from(!up), f64::from(up)]
            }
            "linear" if self.antialias => {
                let scale = scale.min(1.0);
                let start = (-1.0 / scale).floor() as i64 + 1;
                let taps: Vec<f64> = (start..start + 2 - 2 * start)
                    .map(|i| (1.0 - ((i as f64 - ratio) * scale).abs()).clamp(0.0, 1.0))
                    .collect();
                normalized(taps)
            }
            "linear" => vec![1.0 - ratio, ratio],
            _ if self.antialias => {
                let scale = scale.min(1.0);
                let start = (-2.0 / scale).floor() as i64 + 1;
                let taps = (start..2 - start)
                    .map(|i| cubic_kernel(scale * (i as f64 - ratio), a))
                    .collect();
                normalized(taps)
            }
            _ => {
                let (r, s) = (ratio, 1.0 - ratio);
                vec![
                    ((a * (r + 1.0) - 5.0 * a) * (r + 1.0) + 8.0 * a) * (r + 1.0) - 4.0 * a,
                    ((a + 2.0) * r - (a + 3.0)) * r * r + 1.0,
                    ((a + 2.0) * s - (a + 3.0)) * s * s + 1.0,
                    ((a * (s + 1.0) - 5.0 * a) * (s + 1.0) + 8.0 * a) * (s + 1.0) - 4.0 * a,
                ]
            }
        }
    }
}

/// The cubic convolution kernel with parameter `a` at distance `x`.
fn cubic_kernel(x: f64, a: f64) -> f64 {
    let x = x.abs();
    if x <= 1.0 {
        (a + 2.0) * x * x * x - (a + 3.0) * x * x + 1.0
    } else if x < 2.0 {
        a * x * x * x - 5.0 * a * x * x + 8.0 * a * x - 4.0 * a
    } else {
        0.0
    }
}

fn normalized(taps: Vec<f64>) -> Vec<f64> {
    let sum: f64 = taps.iter().sum();
    taps.into_iter().map(|t| t / sum).collect()
}

/// The input indices (unclamped) the `n` weights of source coordinate `x` apply to:
/// the `n` nearest, preferring lower ones.
fn neighbours(x: f64, n: usize) -> Vec<i64> {
    let pad = n.div_ceil(2) as f64;
    let padded = x + pad;
    let p = padded.floor();
    let frac = padded - p;
    let half = (n / 2) as i64;
    let offset = if n.is_multiple_of(2) {
        if frac == 0.0 { -half } else { -half + 1 }
    } else {
        let base = -(((n - 1) / 2) as i64);
        if frac <= 0.5 { base } else { base + 1 }
    };
    let start = p as i64 + offset;
    (0..n as i64).map(|k| start + k - pad as i64).collect()
}

/// Resamples dimension `axis` of `data` (of `shape`) to `output` points.
fn resize_axis(
    how: &Resampling,
    data: &[f64],
    shape: &mut [usize],
    axis: usize,
    (scale, output): (f64, usize),
    roi: (f64, f64),
) -> Vec<f64> {
    let input = shape[axis];
    let outer: usize = shape[..axis].iter().product();
    let inner: usize = shape[axis + 1..].iter().product();
    // The weights and input indices of each output point along the axis.
    let taps: Vec<Option<Vec<(usize, f64)>>> = (0..output)
        .map(|y| {
            let (x, outside) = how.source(y as f64, scale, input, output, roi);
            if outside {
                return None;
            }
            let ratio = if x == x.floor() { 1.0 } else { x - x.floor() };
            let mut weights = how.coefficients(ratio, scale);
            let idx = neighbours(x, weights.len());
            if how.exclude_outside {
                for (w, i) in weights.iter_mut().zip(&idx) {
                    if *i < 0 || *i >= input as i64 {
                        *w = 0.0;
                    }
                }
                let sum: f64 = weights.iter().sum();
                if sum != 0.0 {
                    weights.iter_mut().for_each(|w| *w /= sum);
                }
            }
            let last = input.saturating_sub(1) as i64;
            Some(
                idx.iter()
                    .zip(weights)
                    .map(|(i, w)| ((*i).clamp(0, last) as usize, w))
                    .collect(),
            )
        })
        .collect();
    let mut out = Vec::with_capacity(outer * output * inner);
    for o in 0..outer {
        for point in &taps {
            for i in 0..inner {
                out.push(match point {
                    None => how.extrapolation,
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
    let rank = x.shape.len();
    let number = |name: &str, default: f64| {
        attrs
            .get(name)
            .and_then(|a| acc_ir::elements::scalar(r.ctx, a))
            .map_or(default, |(_, v)| f(v))
    };
    let how = Resampling {
        mode: case(r, "mode", "graph.resize_mode").unwrap_or_else(|| "nearest".into()),
        coordinates: case(r, "coordinate_transformation_mode", "graph.coordinate_mode")
            .unwrap_or_else(|| "half_pixel".into()),
        nearest: case(r, "nearest_mode", "graph.nearest_mode")
            .unwrap_or_else(|| "round_prefer_floor".into()),
        cubic_a: number("cubic_coeff_a", -0.75),
        exclude_outside: attrs.flag("exclude_outside"),
        antialias: attrs.flag("antialias"),
        extrapolation: number("extrapolation_value", 0.0),
    };
    if how.antialias && how.mode == "nearest" {
        return Err("antialiasing applies to linear and cubic modes only".into());
    }
    let scales = attrs.floats("scales")?;
    let roi = attrs.floats("roi")?;
    if roi.as_ref().is_some_and(|v| v.len() != 2 * rank) {
        return Err(format!("'roi' must have {} values", 2 * rank));
    }
    if how.coordinates == "tf_crop_and_resize" && roi.is_none() {
        return Err("tf_crop_and_resize needs 'roi'".into());
    }
    if out_shape.len() != rank || scales.as_ref().is_some_and(|s| s.len() != rank) {
        return Err("resize needs one scale or size per dimension".into());
    }
    let mut shape = x.shape.clone();
    let mut data: Vec<f64> = x.data.iter().map(|v| f(*v)).collect();
    for axis in 0..rank {
        let output = out_shape[axis];
        let scale = match &scales {
            Some(s) => s[axis],
            None if shape[axis] == 0 => 1.0,
            None => output as f64 / shape[axis] as f64,
        };
        if !(scale.is_finite() && scale > 0.0) {
            return Err(format!(
                "scale {scale} of dimension {axis} must be positive"
            ));
        }
        let axis_roi = roi
            .as_ref()
            .map_or((0.0, 1.0), |v| (v[axis], v[rank + axis]));
        let identity = (scale - 1.0).abs() <= 1e-9
            && output == shape[axis]
            && (axis_roi.0.abs() <= 1e-9 && (axis_roi.1 - 1.0).abs() <= 1e-9);
        if identity {
            continue;
        }
        if shape[axis] == 0 {
            return Err(format!("cannot resample the empty dimension {axis}"));
        }
        data = resize_axis(&how, &data, &mut shape, axis, (scale, output), axis_roi);
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

/// `non_max_suppression`: per batch and class, boxes by descending score (lower index
/// first on ties), those not above `score_threshold` dropped, each kept unless it
/// overlaps a kept one by more than `iou_threshold`, at most
/// `max_output_boxes_per_class` kept. The result lists [batch, class, box] triples.
pub(super) fn non_max_suppression(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    graph_only(r)?;
    let (boxes, scores) = (r.operand(0)?, r.operand(1)?);
    let attrs = Attrs::of_op(r.ctx, r.op);
    let number = |name: &str| {
        attrs
            .get(name)
            .and_then(|a| acc_ir::elements::scalar(r.ctx, a))
            .map(|(_, v)| f(v))
    };
    let max_out = number("max_output_boxes_per_class").unwrap_or(0.0).max(0.0) as usize;
    let iou = number("iou_threshold").unwrap_or(0.0);
    let score_threshold = number("score_threshold");
    let center_point = attrs.flag("center_point_box");
    let (&[batches, n, four], &[sb, classes, sn]) = (
        <&[usize; 3]>::try_from(boxes.shape.as_slice()).map_err(|_| "boxes must have rank 3")?,
        <&[usize; 3]>::try_from(scores.shape.as_slice()).map_err(|_| "scores must have rank 3")?,
    );
    if four != 4 || sb != batches || sn != n {
        return Err(format!(
            "boxes {:?} and scores {:?} do not agree",
            boxes.shape, scores.shape
        ));
    }
    let box_values: Vec<f64> = boxes.data.iter().map(|v| f(*v)).collect();
    let mut selected: Vec<Scalar> = Vec::new();
    for b in 0..batches {
        let batch_boxes = &box_values[b * n * 4..(b + 1) * n * 4];
        for c in 0..classes {
            let class_scores = &scores.data[(b * classes + c) * n..(b * classes + c + 1) * n];
            let mut order: Vec<(f64, usize)> = class_scores
                .iter()
                .enumerate()
                .map(|(i, s)| (f(*s), i))
                .filter(|(s, _)| score_threshold.is_none_or(|t| *s > t))
                .collect();
            order.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
            let mut kept: Vec<usize> = Vec::new();
            for (_, i) in order {
                if kept.len() >= max_out {
                    break;
                }
                let this = &batch_boxes[i * 4..i * 4 + 4];
                if kept
                    .iter()
                    .all(|k| !overlaps(this, &batch_boxes[k * 4..k * 4 + 4], center_point, iou))
                {
                    kept.push(i);
                    selected.extend([b, c, i].map(|v| Scalar::Int(v as i128)));
                }
            }
        }
    }
    let rows = selected.len() / 3;
    Ok(vec![Tensor::with_shape(
        r.ctx,
        r.result_type(0)?,
        vec![rows, 3],
        selected,
    )?])
}
