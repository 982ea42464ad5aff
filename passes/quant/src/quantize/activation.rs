//! ReLU, ReLU6 and Clip folded into the clamp of the integer op before them (its
//! `act_min` / `act_max`, as TFLite fuses activations and as CMSIS-NN's functions
//! take them).
//!
//! - `quantize(act(op(...)))`, `op` a float op this pass folds: the integer op gets
//!   the activation's bounds quantized to the result type. Exact: quantizing is
//!   monotonic, so clamping before it or after gives the same integers.
//! - `quantize(act(dequantize(v)))`, `v` an integer op's only result used there (the
//!   QDQ form of symmetric activations, where onnxruntime keeps the activation):
//!   with `v` quantized as the result, the op's clamp narrows (exact). Otherwise,
//!   under the fixed-point scheme, the op's result takes the quantize's type and the
//!   clamp (TFLite's fusion: one rounding where the QDQ graph rounds twice, so a
//!   value can differ from it by a step of the coarser scale); under the float
//!   scheme the activation becomes a lookup table (exact).

use acc_dialects::build::i64_attr;
use acc_dialects::hooks::attr_read::Attrs;
use acc_dialects::ops::graph;
use acc_ir::elements;
use acc_ir::requant::Scheme;
use acc_ir::types::QuantUniform;
use acc_ir::{FloatKind, OpId, TypeData, TypeId, ValueId};

use super::Folds;

/// The integer ops a following activation folds into.
const CLAMPED: [graph::Op; 6] = [
    graph::Op::Qconv2d,
    graph::Op::Qmatmul,
    graph::Op::Qadd,
    graph::Op::Qmul,
    graph::Op::QavgPool,
    graph::Op::Requantize,
];

/// Real bounds of an activation; infinite where it does not clamp.
pub(super) type RealBounds = (f64, f64);

impl Folds<'_> {
    /// The real bounds of `op` when it is a ReLU or a Clip of constant bounds.
    pub(super) fn activation(&self, op: OpId) -> Option<RealBounds> {
        match self.kind(op)? {
            graph::Op::Relu => Some((0.0, f64::INFINITY)),
            graph::Op::Clip => {
                let attrs = Attrs::of_op(self.ctx, self.ir.op(self.body, op));
                let bound = |name: &str, default: f64| match attrs.get(name) {
                    None => Some(default),
                    Some(a) => match elements::scalar(self.ctx, a)?.1 {
                        elements::Scalar::Float(f) if !f.is_nan() => Some(f),
                        elements::Scalar::Int(i) => Some(i as f64),
                        elements::Scalar::Float(_) => None,
                    },
                };
                let lo = bound(graph::Clip::ATTR_MIN, f64::NEG_INFINITY)?;
                let hi = bound(graph::Clip::ATTR_MAX, f64::INFINITY)?;
                (lo <= hi).then_some((lo, hi))
            }
            _ => None,
        }
    }

    /// The stored-value bounds of `bounds` under the quantized type `q`: each bound
    /// quantized as `quantize` does, within the storage range. `None` for a type
    /// quantized per channel.
    fn stored_bounds(&self, q: &QuantUniform, (lo, hi): RealBounds) -> Option<(i64, i64)> {
        if q.axis.is_some() || q.params.len() != 1 {
            return None;
        }
        let (scale, zero) = q.params_of(0);
        let (min, max) = q.storage_bounds();
        let kind = match self.ctx.type_data(q.expressed) {
            TypeData::Float(k) => *k,
            _ => FloatKind::F32,
        };
        let stored = |r: f64| {
            let v = elements::round_float(r / scale, kind).round_ties_even() + zero as f64;
            v.clamp(min as f64, max as f64) as i64
        };
        Some((stored(lo), stored(hi)))
    }

    /// Narrows the clamp of `op` (an integer op just made, or one of [`CLAMPED`])
    /// to `bounds` quantized under its result type. Bounds equal to the storage range
    /// add no attribute. `false` when the result is quantized per channel.
    pub(super) fn clamp(&mut self, op: OpId, bounds: RealBounds) -> Result<bool, String> {
        let out = self.result(op)?;
        let Some(q) = self.quant(self.type_of(out)) else {
            return Ok(false);
        };
        let Some((lo, hi)) = self.stored_bounds(&q, bounds) else {
            return Ok(false);
        };
        let (old_lo, old_hi) =
            acc_dialects::hooks::activation_bounds(self.ctx, self.ir.op(self.body, op))?;
        let (lo, hi) = (lo.max(old_lo), hi.min(old_hi));
        let (min, max) = q.storage_bounds();
        let mut props = Vec::new();
        if lo > min {
            props.push((graph::Qconv2d::ATTR_ACT_MIN, i64_attr(self.ctx, lo)));
        }
        if hi < max {
            props.push((graph::Qconv2d::ATTR_ACT_MAX, i64_attr(self.ctx, hi.max(lo))));
        }
        self.set_props(op, &props)?;
        Ok(true)
    }

    /// `quantize(act(dequantize(v)))` (`act` of real `bounds`, quantizing to `out`),
    /// `v` the result of one of [`CLAMPED`] used by that dequantize only, whose only
    /// user is `act`: `v` with the clamp, or `None`. `v` must be quantized as `out`,
    /// or, under the fixed-point scheme, takes `out`'s type (TFLite's fusion, one
    /// rounding less than the QDQ graph). Otherwise the activation is left to a
    /// lookup table (exact).
    pub(super) fn fuse_activation(
        &mut self,
        act: OpId,
        bounds: RealBounds,
        out: TypeId,
    ) -> Result<Option<ValueId>, String> {
        let b = self.ir.body(self.body);
        let act_input = b.operand(act, 0);
        let Some(dq) = self
            .producer(act_input)
            .filter(|op| self.kind(*op) == Some(graph::Op::Dequantize))
        else {
            return Ok(None);
        };
        let v = b.operand(dq, 0);
        let Some(op) = self
            .producer(v)
            .filter(|op| self.kind(*op).is_some_and(|k| CLAMPED.contains(&k)))
        else {
            return Ok(None);
        };
        let one_use = |v: ValueId| b.value_users(v).count() == 1;
        let act_out = b.results(act).next().ok_or("no result")?;
        if !(one_use(v) && one_use(act_input) && one_use(act_out)) {
            return Ok(None);
        }
        if self.quant(out).is_none_or(|q| q.axis.is_some()) {
            return Ok(None);
        }
        if self.type_of(v) != out {
            if self.requant != Scheme::FixedPoint {
                return Ok(None);
            }
            // The op takes the quantize's type: a clamp it has is in the old scale.
            let attrs = Attrs::of_op(self.ctx, self.ir.op(self.body, op));
            if attrs.get(graph::Qconv2d::ATTR_ACT_MIN).is_some()
                || attrs.get(graph::Qconv2d::ATTR_ACT_MAX).is_some()
            {
                return Ok(None);
            }
            let same_shape =
                self.ctx.type_data(self.type_of(v)).shape() == self.ctx.type_data(out).shape();
            if !same_shape {
                return Ok(None);
            }
            self.ir.body_mut(self.body).set_value_type(v, out);
        }
        if !self.clamp(op, bounds)? {
            return Ok(None);
        }
        Ok(Some(v))
    }

    /// The one result of `op`.
    pub(super) fn result(&self, op: OpId) -> Result<ValueId, String> {
        self.ir
            .body(self.body)
            .results(op)
            .next()
            .ok_or_else(|| "an op without results".to_string())
    }

    /// Sets the properties `props` of `op` (replacing those of the same names).
    pub(super) fn set_props(
        &mut self,
        op: OpId,
        props: &[(&str, acc_ir::AttrId)],
    ) -> Result<(), String> {
        acc_dialects::build::set_props(self.ctx, self.ir, self.body, op, props, &[])
    }
}
