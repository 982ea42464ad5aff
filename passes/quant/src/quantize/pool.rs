//! Average pools of dequantized values as `qavg_pool` (a global one as the window
//! of the whole plane), per tensor.

use acc_dialects::build::{i64s, shape_of};
use acc_dialects::hooks::attr_read::Attrs;
use acc_dialects::ops::graph;
use acc_ir::requant::Scheme;
use acc_ir::{OpId, TypeId, ValueId};

use super::Folds;

impl Folds<'_> {
    /// `quantize(avg_pool(dequantize(x)))` or `quantize(global_avg_pool(...))` (`global`)
    /// as `qavg_pool`.
    pub(super) fn avg_pool(
        &mut self,
        op: OpId,
        global: bool,
        at: OpId,
        out: TypeId,
    ) -> Result<Option<ValueId>, String> {
        let Some(x) = self.dequantized(self.ir.body(self.body).operand(op, 0)) else {
            return Ok(None);
        };
        let per_tensor = |t: TypeId| self.quant(t).is_some_and(|q| q.axis.is_none());
        if !per_tensor(self.type_of(x)) || !per_tensor(out) {
            return Ok(None);
        }
        let (shape, _) = shape_of(self.ctx, self.type_of(x))?;
        if shape.len() != 4 || shape.iter().any(|d| *d < 0) {
            return Ok(None);
        }
        let attrs = Attrs::of_op(self.ctx, self.ir.op(self.body, op));
        let names = [
            graph::AvgPool::ATTR_KERNEL_SHAPE,
            graph::AvgPool::ATTR_STRIDES,
            graph::AvgPool::ATTR_PADS,
            graph::AvgPool::ATTR_DILATIONS,
            graph::AvgPool::ATTR_CEIL_MODE,
            graph::AvgPool::ATTR_COUNT_INCLUDE_PAD,
        ];
        let mut taken = names.map(|n| attrs.get(n));
        if global {
            taken = [
                Some(i64s(self.ctx, &shape[2..])),
                None,
                None,
                None,
                None,
                None,
            ];
        }
        // The fixed-point lowering counts padding only without ceil_mode's overhang.
        if self.requant == Scheme::FixedPoint
            && attrs.flag(graph::AvgPool::ATTR_CEIL_MODE)
            && attrs.flag(graph::AvgPool::ATTR_COUNT_INCLUDE_PAD)
        {
            return Ok(None);
        }
        let [kernel, strides, pads, dilations, ceil, include_pad] = taken;
        let Some(kernel) = kernel else {
            return Ok(None);
        };
        let requant = self.requant_attr();
        let mut e = self.emitter(at);
        let mut pool = graph::QavgPool::build(&mut e, x, out).kernel_shape(kernel);
        if let Some(a) = strides {
            pool = pool.strides(a);
        }
        if let Some(a) = pads {
            pool = pool.pads(a);
        }
        if let Some(a) = dilations {
            pool = pool.dilations(a);
        }
        if let Some(a) = ceil {
            pool = pool.ceil_mode(a);
        }
        if let Some(a) = include_pad {
            pool = pool.count_include_pad(a);
        }
        if let Some(a) = requant {
            pool = pool.requant(a);
        }
        Ok(Some(pool.result()?))
    }
}
