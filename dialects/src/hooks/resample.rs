//! ONNX Resize's arithmetic, shared by the interpreter and the lowering: how each
//! output point of a resampled dimension maps back to input points and their weights.
//!
//! Resize is separable: each dimension is resampled in turn, each output coordinate
//! mapped back to an input coordinate by the coordinate transformation, then weighted
//! over the neighbouring input points (one for nearest, two for linear, four for cubic,
//! more when antialiasing a downsampling), points outside the input taking the edge
//! values. The taps depend only on the sizes and attributes, so a compiler can compute
//! them ahead of time.

use crate::ops::graph::{self, Resize};
use acc_ir::Context;

use super::attr_read::Attrs;

/// The input points and weights of each output point of one dimension; `None` for a
/// point outside the input (`tf_crop_and_resize`), which takes the extrapolation value.
pub type Taps = Vec<Option<Vec<(usize, f64)>>>;

/// How one dimension is resampled.
pub struct Resampling {
    /// nearest, linear or cubic.
    pub mode: String,
    /// The coordinate transformation (half_pixel, asymmetric, align_corners, ...).
    pub coordinates: String,
    /// How nearest mode rounds.
    pub nearest: String,
    /// Cubic's `a`.
    pub cubic_a: f64,
    /// Whether weights of points outside the input go to the others.
    pub exclude_outside: bool,
    /// Whether a downsampling widens the linear or cubic filter.
    pub antialias: bool,
    /// The value of output points outside the input (`tf_crop_and_resize`).
    pub extrapolation: f64,
}

/// One dimension to resample: its scale, output size and region of interest.
#[derive(Clone, Copy, Debug)]
pub struct AxisResampling {
    /// The scale of the coordinate transformation.
    pub scale: f64,
    /// The output size.
    pub output: usize,
    /// This dimension's (start, end) of `roi`.
    pub roi: (f64, f64),
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

/// The enum case of attribute `name` (of enum `enum_name`), if present.
fn case(ctx: &Context, attrs: &Attrs<'_>, name: &str, enum_name: &str) -> Option<String> {
    let a = attrs.get(name)?;
    let def = ctx.enum_attr(enum_name)?;
    let cases = def.decode(ctx, enum_name, a)?;
    Some(def.cases[*cases.first()?].clone())
}

impl Resampling {
    /// The resampling a `graph.resize` op's attributes describe.
    pub fn of(ctx: &Context, attrs: &Attrs<'_>) -> Result<Resampling, String> {
        let number = |name: &str, default: f64| {
            attrs
                .get(name)
                .and_then(|a| acc_ir::elements::scalar(ctx, a))
                .map_or(default, |(_, v)| match v {
                    acc_ir::elements::Scalar::Int(i) => i as f64,
                    acc_ir::elements::Scalar::Float(x) => x,
                })
        };
        let how = Resampling {
            mode: case(ctx, attrs, Resize::ATTR_MODE, graph::enums::RESIZE_MODE)
                .unwrap_or_else(|| "nearest".into()),
            coordinates: case(
                ctx,
                attrs,
                Resize::ATTR_COORDINATE_TRANSFORMATION_MODE,
                graph::enums::COORDINATE_MODE,
            )
            .unwrap_or_else(|| "half_pixel".into()),
            nearest: case(
                ctx,
                attrs,
                Resize::ATTR_NEAREST_MODE,
                graph::enums::NEAREST_MODE,
            )
            .unwrap_or_else(|| "round_prefer_floor".into()),
            cubic_a: number(Resize::ATTR_CUBIC_COEFF_A, -0.75),
            exclude_outside: attrs.flag(Resize::ATTR_EXCLUDE_OUTSIDE),
            antialias: attrs.flag(Resize::ATTR_ANTIALIAS),
            extrapolation: number(Resize::ATTR_EXTRAPOLATION_VALUE, 0.0),
        };
        if how.antialias && how.mode == "nearest" {
            return Err("antialiasing applies to linear and cubic modes only".into());
        }
        Ok(how)
    }

    /// The taps of each output point of a dimension of `input` points resampled as
    /// `axis` says.
    pub fn taps(&self, input: usize, axis: AxisResampling) -> Taps {
        let AxisResampling { scale, output, roi } = axis;
        (0..output)
            .map(|y| {
                let (x, outside) = self.source(y as f64, scale, input, output, roi);
                if outside {
                    return None;
                }
                let ratio = if x == x.floor() { 1.0 } else { x - x.floor() };
                let mut weights = self.coefficients(ratio, scale);
                let idx = neighbours(x, weights.len());
                if self.exclude_outside {
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
            .collect()
    }
}

/// The dimensions a resize from `input` to `output` (the shapes) resamples, in
/// order; `None` for a dimension left as it is.
pub fn resampled_axes(
    attrs: &Attrs<'_>,
    coordinates: &str,
    input: &[usize],
    output: &[usize],
) -> Result<Vec<Option<AxisResampling>>, String> {
    let rank = input.len();
    let scales = attrs.floats(Resize::ATTR_SCALES)?;
    let roi = attrs.floats(Resize::ATTR_ROI)?;
    if roi.as_ref().is_some_and(|v| v.len() != 2 * rank) {
        return Err(format!("'roi' must have {} values", 2 * rank));
    }
    if coordinates == "tf_crop_and_resize" && roi.is_none() {
        return Err("tf_crop_and_resize needs 'roi'".into());
    }
    if output.len() != rank || scales.as_ref().is_some_and(|s| s.len() != rank) {
        return Err("resize needs one scale or size per dimension".into());
    }
    let mut axes = Vec::with_capacity(rank);
    for axis in 0..rank {
        let scale = match &scales {
            Some(s) => s[axis],
            None if input[axis] == 0 => 1.0,
            None => output[axis] as f64 / input[axis] as f64,
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
            && output[axis] == input[axis]
            && (axis_roi.0.abs() <= 1e-9 && (axis_roi.1 - 1.0).abs() <= 1e-9);
        if identity {
            axes.push(None);
            continue;
        }
        if input[axis] == 0 {
            return Err(format!("cannot resample the empty dimension {axis}"));
        }
        axes.push(Some(AxisResampling {
            scale,
            output: output[axis],
            roi: axis_roi,
        }));
    }
    Ok(axes)
}
