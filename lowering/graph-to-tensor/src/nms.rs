//! `non_max_suppression`, whose result has a dynamic number of rows: a
//! `tensor.non_max_suppression` into a static init of as many rows as it can select
//! (B x C x min(N, max_output_boxes_per_class)), then the first `count` rows of it as
//! a `tensor.extract_slice` of dynamic size.

use acc_dialects::hooks::attr_read::Attrs;
use acc_dialects::hooks::nms::{Suppression, bound};
use acc_dialects::ops::{graph, tensor};
use acc_ir::{DYNAMIC, TypeId, ValueId};

use acc_dialects::build::{Builder, i64s, shape_of, tensor_type};

/// Lowers `graph.non_max_suppression(boxes, scores)` of result type `out`; the
/// selected triples.
pub(super) fn non_max_suppression(
    e: &mut Builder<'_>,
    boxes: ValueId,
    scores: ValueId,
    out: TypeId,
    a: &Attrs<'_>,
) -> Result<ValueId, String> {
    let i64t = e.ctx.int_type(64);
    let dynamic = tensor_type(e.ctx, &[DYNAMIC, 3], i64t);
    if out != dynamic {
        return Err(format!(
            "its result must be tensor<?x3xi64> (as many rows as it selects), got {}",
            acc_ir::printer::type_to_string(e.ctx, out)
        ));
    }
    let (box_shape, _) = shape_of(e.ctx, e.type_of(boxes))?;
    let (score_shape, _) = shape_of(e.ctx, e.type_of(scores))?;
    let max = Suppression::of(a)?.max_per_class;
    let rows = bound(&box_shape, &score_shape, max).ok_or_else(|| {
        format!("needs static boxes B x N x 4 and scores B x C x N, got {box_shape:?} and {score_shape:?}")
    })?;
    let bounded = tensor_type(e.ctx, &[rows, 3], i64t);
    let init = tensor::Empty::build(e, &[], bounded).result()?;
    // The attributes the tensor op takes over from the graph op.
    type G<'a> = graph::NonMaxSuppression<'a>;
    let max_output_boxes_per_class = a.get(G::ATTR_MAX_OUTPUT_BOXES_PER_CLASS);
    let iou_threshold = a.get(G::ATTR_IOU_THRESHOLD);
    let score_threshold = a.get(G::ATTR_SCORE_THRESHOLD);
    let center_point_box = a.get(G::ATTR_CENTER_POINT_BOX);
    let index = e.ctx.index_type();
    let mut nms = tensor::NonMaxSuppression::build(e, boxes, scores, init, bounded, index);
    if let Some(v) = max_output_boxes_per_class {
        nms = nms.max_output_boxes_per_class(v);
    }
    if let Some(v) = iou_threshold {
        nms = nms.iou_threshold(v);
    }
    if let Some(v) = score_threshold {
        nms = nms.score_threshold(v);
    }
    if let Some(v) = center_point_box {
        nms = nms.center_point_box(v);
    }
    let selected = nms.results()?;
    let (offsets, sizes, strides) = (
        i64s(e.ctx, &[0, 0]),
        i64s(e.ctx, &[DYNAMIC, 3]),
        i64s(e.ctx, &[1, 1]),
    );
    tensor::ExtractSlice::build(e, selected[0], &[], &[selected[1]], &[], dynamic)
        .static_offsets(offsets)
        .static_sizes(sizes)
        .static_strides(strides)
        .result()
}
