//! Grouped convolutions the table has no row for, split into one dense convolution
//! per group when each group is wide enough for the dense row's kernel (RegNet's
//! groups of 8 or 24 channels): the group's slices of the input, the filter and the
//! init, its convolution, inserted into the result. The same sums in the same order.
//!
//! Groups of whole blocks (16 channels: RegNetX's) need no split: the table's
//! grouped row runs them as one op. Depthwise convolutions have their own row.

use acc_dialects::build::{Builder, i64s, tensor_type};
use acc_dialects::ops::tensor;
use acc_ir::{InsertPoint, OpId, ValueId};

use super::{Layouts, Preference};

/// Split only groups of at least this many input channels: narrower ones would
/// fill the dense kernel's blocks mostly with padding.
const MIN_GROUP_WIDTH: i64 = 8;

/// ... and at most this many groups (each becomes an op).
const MAX_SPLIT_GROUPS: i64 = 64;

impl Layouts<'_> {
    /// Splits every grouped convolution that no row of `table` takes but that a
    /// dense row would take group by group.
    pub(super) fn split_groups(&mut self, table: &[Preference]) -> Result<(), String> {
        for op in self.top_ops() {
            if self.kind(op) != Some(tensor::Op::Conv2d)
                || table
                    .iter()
                    .any(|r| r.op == tensor::Op::Conv2d && self.meets(op, r))
            {
                continue;
            }
            let Some(groups) = self.splittable_groups(op) else {
                continue;
            };
            let dense_row = table
                .iter()
                .any(|r| r.op == tensor::Op::Conv2d && !r.depthwise);
            if dense_row {
                self.split(op, groups)?;
            }
        }
        Ok(())
    }

    /// The groups of a plain f32 grouped convolution worth splitting.
    fn splittable_groups(&self, op: OpId) -> Option<i64> {
        let operands = self.operands(op);
        let [x, w, init] = operands[..] else {
            return None;
        };
        let groups = self.attrs(op).int(tensor::Conv2d::ATTR_GROUPS).ok()??;
        let plain = self.plain_layout(op, tensor::Conv2d::ATTR_INPUT_LAYOUT, "NCHW")
            && self.plain_layout(op, tensor::Conv2d::ATTR_FILTER_LAYOUT, "OIHW")
            && self.plain_layout(op, tensor::Conv2d::ATTR_OUTPUT_LAYOUT, "NCHW");
        let ((sx, _), (sw, _), (so, _)) = (self.shape(x)?, self.shape(w)?, self.shape(init)?);
        let fits = plain
            && sx.len() == 4
            && sw.len() == 4
            && so.len() == 4
            && groups > 1
            && groups <= MAX_SPLIT_GROUPS
            && sx[1] % groups == 0
            && so[1] % groups == 0
            && sw[0] == so[1]
            && sw[1] * groups == sx[1]
            && sw[1] >= MIN_GROUP_WIDTH;
        fits.then_some(groups)
    }

    /// Replaces `op` by one dense convolution per group.
    fn split(&mut self, op: OpId, groups: i64) -> Result<(), String> {
        let operands = self.operands(op);
        let (x, w, init) = (operands[0], operands[1], operands[2]);
        let result = self.result(op);
        let (sx, elem) = self.shape(x).ok_or("an unranked input")?;
        let (sw, _) = self.shape(w).ok_or("an unranked filter")?;
        let (so, _) = self.shape(init).ok_or("an unranked init")?;
        let out = self.ir.body(self.body).value_type(result);
        let window: Vec<_> = [tensor::Conv2d::ATTR_STRIDES, tensor::Conv2d::ATTR_DILATIONS]
            .into_iter()
            .map(|name| (name, self.ir.op(self.body, op).attr(self.ctx, name)))
            .collect();
        let (cg, mg) = (sx[1] / groups, so[1] / groups);
        let mut e = self.emitter(op, InsertPoint::Before(op));
        let mut whole = init;
        for g in 0..groups {
            let xs = slice(
                &mut e,
                x,
                [0, g * cg, 0, 0],
                [sx[0], cg, sx[2], sx[3]],
                elem,
            )?;
            let ws = slice(
                &mut e,
                w,
                [g * mg, 0, 0, 0],
                [mg, sw[1], sw[2], sw[3]],
                elem,
            )?;
            let part = [so[0], mg, so[2], so[3]];
            let is = slice(&mut e, init, [0, g * mg, 0, 0], part, elem)?;
            let part_ty = tensor_type(e.ctx, &part, elem);
            let mut conv = tensor::Conv2d::build(&mut e, &[xs, ws], is, part_ty);
            for (name, attr) in &window {
                if let Some(a) = attr {
                    conv = match *name {
                        tensor::Conv2d::ATTR_STRIDES => conv.strides(*a),
                        _ => conv.dilations(*a),
                    };
                }
            }
            let c = conv.result()?;
            let (o, s, st) = (
                i64s(e.ctx, &[0, g * mg, 0, 0]),
                i64s(e.ctx, &part),
                i64s(e.ctx, &[1; 4]),
            );
            whole = tensor::InsertSlice::build(&mut e, c, whole, &[], &[], &[], out)
                .static_offsets(o)
                .static_sizes(s)
                .static_strides(st)
                .result()?;
        }
        self.ir.body_mut(self.body).replace_all_uses(result, whole);
        self.ir.erase_op(self.body, op);
        Ok(())
    }
}

/// The static slice `[offsets, offsets + sizes)` of `v` (unit strides).
fn slice(
    e: &mut Builder<'_>,
    v: ValueId,
    offsets: [i64; 4],
    sizes: [i64; 4],
    elem: acc_ir::TypeId,
) -> Result<ValueId, String> {
    let ty = tensor_type(e.ctx, &sizes, elem);
    let (o, s, st) = (
        i64s(e.ctx, &offsets),
        i64s(e.ctx, &sizes),
        i64s(e.ctx, &[1; 4]),
    );
    tensor::ExtractSlice::build(e, v, &[], &[], &[], ty)
        .static_offsets(o)
        .static_sizes(s)
        .static_strides(st)
        .result()
}
