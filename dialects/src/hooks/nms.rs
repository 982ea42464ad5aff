//! Non-maximum suppression's parameters, read once for every level that computes it
//! (the interpreter's rules, the loops `bufferize` writes), and the most triples it
//! can select, which sizes its bounded result.

use crate::ops::graph;
use acc_ir::elements::{self, Scalar};

use super::attr_read::Attrs;

/// What a `graph.non_max_suppression` or `tensor.non_max_suppression` asks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Suppression {
    /// The most boxes kept per batch and class (`max_output_boxes_per_class`, at
    /// least 0).
    pub max_per_class: i64,
    /// A box overlapping a kept one by more than this intersection over union is
    /// dropped.
    pub iou: f64,
    /// Boxes whose score is not above this are dropped (none: no threshold).
    pub score_threshold: Option<f64>,
    /// Boxes are (x center, y center, width, height) rather than two corners.
    pub center_point: bool,
}

impl Suppression {
    /// The parameters the op's attributes give (their defaults when absent).
    pub fn of(attrs: &Attrs<'_>) -> Result<Suppression, String> {
        let number = |name: &str| -> Result<Option<f64>, String> {
            let Some(a) = attrs.get(name) else {
                return Ok(None);
            };
            match elements::scalar(attrs.context(), a) {
                Some((_, Scalar::Float(x))) => Ok(Some(x)),
                Some((_, Scalar::Int(i))) => Ok(Some(i as f64)),
                None => Err(format!("attribute '{name}' must be a number")),
            }
        };
        // graph.non_max_suppression and tensor.non_max_suppression share the attribute
        // names.
        Ok(Suppression {
            max_per_class: attrs
                .int(graph::NonMaxSuppression::ATTR_MAX_OUTPUT_BOXES_PER_CLASS)?
                .unwrap_or(0)
                .max(0),
            iou: number(graph::NonMaxSuppression::ATTR_IOU_THRESHOLD)?.unwrap_or(0.0),
            score_threshold: number(graph::NonMaxSuppression::ATTR_SCORE_THRESHOLD)?,
            center_point: attrs.flag(graph::NonMaxSuppression::ATTR_CENTER_POINT_BOX),
        })
    }
}

/// The most triples a non-maximum suppression of `boxes` (B x N x 4) and `scores`
/// (B x C x N) keeping at most `max_per_class` boxes per class can select:
/// B x C x min(N, `max_per_class`); none when a shape is dynamic or they disagree.
pub fn bound(boxes: &[i64], scores: &[i64], max_per_class: i64) -> Option<i64> {
    let (&[b, n, 4], &[sb, c, sn]) = (boxes, scores) else {
        return None;
    };
    if [b, n, c].iter().any(|d| *d < 0) || sb != b || sn != n {
        return None;
    }
    b.checked_mul(c)?.checked_mul(n.min(max_per_class.max(0)))
}

/// The static shape that bounds result `k` of `op` when its shape is dynamic: the
/// shape of a buffer that can hold it whatever the run selects. Only
/// `graph.non_max_suppression` has such a result (M x 3, M its [`bound`]); `None`
/// for any other op, or when its operands' shapes are not static.
pub fn bounded_result_shape(
    ctx: &acc_ir::Context,
    ir: &acc_ir::Ir,
    body: acc_ir::BodyId,
    op: acc_ir::OpId,
    k: usize,
) -> Option<Vec<i64>> {
    let r = ir.op(body, op);
    if !graph::NonMaxSuppression::is(ctx, r) || k != 0 {
        return None;
    }
    let shape = |v| {
        ctx.type_data(ir.body(body).value_type(v))
            .shape()
            .map(<[i64]>::to_vec)
    };
    let mut operands = r.operands();
    let (boxes, scores) = (shape(operands.next()?)?, shape(operands.next()?)?);
    let max = Suppression::of(&Attrs::of_op(ctx, r)).ok()?.max_per_class;
    Some(vec![bound(&boxes, &scores, max)?, 3])
}
