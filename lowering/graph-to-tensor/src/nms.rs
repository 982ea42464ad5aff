//! `non_max_suppression`, whose result has a dynamic number of rows: a
//! `tensor.non_max_suppression` into a static init of as many rows as it can select
//! (B x C x min(N, max_output_boxes_per_class)), then the first `count` rows of it as
//! a `tensor.extract_slice` of dynamic size.

use acc_dialects::hooks::attr_read::Attrs;
use acc_dialects::hooks::nms::{Suppression, bound};
use acc_ir::{DYNAMIC, TypeId, ValueId};

use acc_dialects::build::{Builder, i64s, segments, shape_of, tensor_type};

/// The attributes the tensor op takes over from the graph op.
const ATTRIBUTES: [&str; 4] = [
    "max_output_boxes_per_class",
    "iou_threshold",
    "score_threshold",
    "center_point_box",
];

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
    let init = e.op1("tensor.empty", &[], bounded, &[])?;
    let props: Vec<(&str, acc_ir::AttrId)> = ATTRIBUTES
        .iter()
        .filter_map(|name| Some((*name, a.get(name)?)))
        .collect();
    let index = e.ctx.index_type();
    let selected = e.op(
        "tensor.non_max_suppression",
        &[boxes, scores, init],
        &[bounded, index],
        &props,
    )?;
    let slice = [
        ("static_offsets", i64s(e.ctx, &[0, 0])),
        ("static_sizes", i64s(e.ctx, &[DYNAMIC, 3])),
        ("static_strides", i64s(e.ctx, &[1, 1])),
        ("operandSegmentSizes", segments(e.ctx, &[1, 0, 1, 0])),
    ];
    e.op1(
        "tensor.extract_slice",
        &[selected[0], selected[1]],
        dynamic,
        &slice,
    )
}
