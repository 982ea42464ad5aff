//! Convolutions and matrix products on dequantized operands as `qconv2d` and
//! `qmatmul`, with their biases as i32 in the accumulator's scale.

use acc_dialects::hooks::attr_read::Attrs;
use acc_dialects::ops::graph;
use acc_ir::elements::{self, Scalar};
use acc_ir::requant::Scheme;
use acc_ir::types::QuantUniform;
use acc_ir::{AttrId, OpId, TypeData, TypeId, ValueId};

use super::Folds;
use acc_dialects::build::{shape_of, tensor_type};

/// Relative difference up to which a bias's scale counts as `s_x * s_w` (both are
/// f32 products of the same scales, written by a quantizer).
const SCALE_TOLERANCE: f64 = 1e-6;

impl Folds<'_> {
    /// The `requant` attribute the integer ops made here carry: none for the float
    /// scheme (the default).
    pub(super) fn requant_attr(&self) -> Option<AttrId> {
        (self.requant != Scheme::Float)
            .then(|| acc_dialects::hooks::requant_attr(self.ctx, self.requant))
    }

    /// `qmatmul(a, b, bias)` of type `out`, requantizing by the pass's scheme.
    fn qmatmul(
        &mut self,
        at: OpId,
        a: ValueId,
        b: ValueId,
        bias: Option<ValueId>,
        out: TypeId,
    ) -> Result<ValueId, String> {
        let requant = self.requant_attr();
        let mut e = self.emitter(at);
        let mut op = graph::Qmatmul::build(&mut e, a, b, bias, out);
        if let Some(a) = requant {
            op = op.requant(a);
        }
        op.result()
    }

    /// `quantize(conv2d(dequantize(x), dequantize(w), bias))` as `qconv2d`.
    pub(super) fn conv2d(
        &mut self,
        conv: OpId,
        at: OpId,
        out: TypeId,
    ) -> Result<Option<ValueId>, String> {
        let operands: Vec<ValueId> = self.ir.body(self.body).operands(conv).collect();
        let (Some(x), Some(w)) = (self.dequantized(operands[0]), self.dequantized(operands[1]))
        else {
            return Ok(None);
        };
        let (Some(qx), Some(qw)) = (self.quant(self.type_of(x)), self.quant(self.type_of(w)))
        else {
            return Ok(None);
        };
        if qx.axis.is_some() || qw.axis.is_some_and(|a| a != 0) {
            return Ok(None);
        }
        let bias = match operands.get(2) {
            Some(&b) => self.bias(b, &qx, &qw, at)?,
            None => self.zero_bias(w, at)?,
        };
        let Some(bias) = bias else {
            return Ok(None);
        };
        let op = self.ir.op(self.body, conv);
        let [strides, pads, dilations, groups] = [
            graph::Conv2d::ATTR_STRIDES,
            graph::Conv2d::ATTR_PADS,
            graph::Conv2d::ATTR_DILATIONS,
            graph::Conv2d::ATTR_GROUPS,
        ]
        .map(|k| op.attr(self.ctx, k));
        let requant = self.requant_attr();
        let mut e = self.emitter(at);
        let mut qconv = graph::Qconv2d::build(&mut e, x, w, Some(bias), out);
        if let Some(a) = strides {
            qconv = qconv.strides(a);
        }
        if let Some(a) = pads {
            qconv = qconv.pads(a);
        }
        if let Some(a) = dilations {
            qconv = qconv.dilations(a);
        }
        if let Some(a) = groups {
            qconv = qconv.groups(a);
        }
        if let Some(a) = requant {
            qconv = qconv.requant(a);
        }
        Ok(Some(qconv.result()?))
    }

    /// A bias of zeros for a convolution without one (one per output channel of the
    /// weight `w`), so that every `qconv2d` made here has one form for targets to
    /// match.
    /// `None` when the channel count is not static.
    fn zero_bias(&mut self, w: ValueId, at: OpId) -> Result<Option<ValueId>, String> {
        let channels = self
            .ctx
            .type_data(self.type_of(w))
            .shape()
            .and_then(|s| s.first().copied())
            .filter(|c| *c >= 0);
        let Some(channels) = channels else {
            return Ok(None);
        };
        let ty = tensor_type(self.ctx, &[channels], self.ctx.int_type(32));
        let zeros = elements::dense_attr(self.ctx, ty, &[Scalar::Int(0)]).ok_or("a zero bias")?;
        let zero = graph::Constant::build(&mut self.emitter(at), ty)
            .value(zeros)
            .result()?;
        Ok(Some(zero))
    }

    /// `quantize(matmul(dequantize(a), dequantize(b)))` as `qmatmul`.
    pub(super) fn matmul(
        &mut self,
        mm: OpId,
        at: OpId,
        out: TypeId,
    ) -> Result<Option<ValueId>, String> {
        let operands: Vec<ValueId> = self.ir.body(self.body).operands(mm).collect();
        let (Some(a), Some(b)) = (self.dequantized(operands[0]), self.dequantized(operands[1]))
        else {
            return Ok(None);
        };
        if !self.product_operands(a, b) {
            return Ok(None);
        }
        Ok(Some(self.qmatmul(at, a, b, None, out)?))
    }

    /// `quantize(gemm(dequantize(a), dequantize(b), c))` as `qmatmul`, when alpha and
    /// beta are 1 and A is not transposed; a transposed B must be a constant, which is
    /// transposed at compile time.
    pub(super) fn gemm(
        &mut self,
        gemm: OpId,
        at: OpId,
        out: TypeId,
    ) -> Result<Option<ValueId>, String> {
        let operands: Vec<ValueId> = self.ir.body(self.body).operands(gemm).collect();
        let attrs = Attrs::of_op(self.ctx, self.ir.op(self.body, gemm));
        let float = |name: &str| {
            attrs
                .get(name)
                .and_then(|a| elements::scalar(self.ctx, a))
                .map_or(1.0, |(_, v)| match v {
                    Scalar::Float(f) => f,
                    Scalar::Int(i) => i as f64,
                })
        };
        if float(graph::Gemm::ATTR_ALPHA) != 1.0
            || (operands.len() > 2 && float(graph::Gemm::ATTR_BETA) != 1.0)
            || attrs.flag(graph::Gemm::ATTR_TRANS_A)
        {
            return Ok(None);
        }
        let (Some(a), Some(mut b)) = (self.dequantized(operands[0]), self.dequantized(operands[1]))
        else {
            return Ok(None);
        };
        if attrs.flag(graph::Gemm::ATTR_TRANS_B) {
            match self.transposed_constant(b, at)? {
                Some(t) => b = t,
                None => return Ok(None),
            }
        }
        if !self.product_operands(a, b) {
            return Ok(None);
        }
        let (qa, qb) = (self.quant(self.type_of(a)), self.quant(self.type_of(b)));
        let (Some(qa), Some(qb)) = (qa, qb) else {
            return Ok(None);
        };
        let mut bias = None;
        if let Some(&c) = operands.get(2) {
            let columns = shape_of(self.ctx, self.type_of(b))?.0.last().copied();
            if shape_of(self.ctx, self.type_of(c))?.0 != [columns.unwrap_or(-1)] {
                return Ok(None);
            }
            match self.bias(c, &qa, &qb, at)? {
                Some(c) => bias = Some(c),
                None => return Ok(None),
            }
        }
        Ok(Some(self.qmatmul(at, a, b, bias, out)?))
    }

    /// Whether `a` and `b` can be a `qmatmul`'s operands: `a` per tensor, `b` per
    /// tensor or per column.
    fn product_operands(&self, a: ValueId, b: ValueId) -> bool {
        let (Some(qa), Some(qb)) = (self.quant(self.type_of(a)), self.quant(self.type_of(b)))
        else {
            return false;
        };
        let rank = self
            .ctx
            .type_data(self.type_of(b))
            .shape()
            .map_or(0, |s| s.len());
        // Per column needs columns: a rank-1 right-hand side's one axis is summed.
        qa.axis.is_none() && qb.axis.is_none_or(|d| rank >= 2 && d as usize + 1 == rank)
    }

    /// The constant quantized matrix `w` (stored integers cast to their quantized
    /// type) transposed at compile time, its per-row scales becoming per-column.
    fn transposed_constant(&mut self, w: ValueId, at: OpId) -> Result<Option<ValueId>, String> {
        let Some(cast) = self
            .producer(w)
            .filter(|op| self.kind(*op) == Some(graph::Op::StorageCast))
        else {
            return Ok(None);
        };
        let ints = self.ir.body(self.body).operand(cast, 0);
        let Some(attr) = acc_ir::rewrite::constant_value(self.ctx, self.ir, self.body, ints) else {
            return Ok(None);
        };
        let (Some(dense), Some(q)) = (elements::dense(self.ctx, attr), self.quant(self.type_of(w)))
        else {
            return Ok(None);
        };
        let (shape, element) = shape_of(self.ctx, self.type_of(ints))?;
        let &[rows, cols] = shape.as_slice() else {
            return Ok(None);
        };
        if q.axis.is_some_and(|a| a != 0) {
            return Ok(None);
        }
        let (r, c) = (rows as usize, cols as usize);
        let values: Vec<Scalar> = (0..r * c).map(|i| dense.get((i % r) * c + i / r)).collect();
        let int_ty = tensor_type(self.ctx, &[cols, rows], element);
        let attr = elements::dense_attr(self.ctx, int_ty, &values)
            .ok_or("an unsupported weight element type")?;
        let transposed = QuantUniform {
            axis: q.axis.map(|_| 1),
            ..q
        };
        let q_ty = tensor_type(
            self.ctx,
            &[cols, rows],
            self.ctx.intern_type(TypeData::QuantUniform(transposed)),
        );
        let mut e = self.emitter(at);
        let ints = graph::Constant::build(&mut e, int_ty)
            .value(attr)
            .result()?;
        Ok(Some(
            graph::StorageCast::build(&mut e, ints, q_ty).result()?,
        ))
    }

    /// The i32 bias in the accumulator's scale `s_x * s_w[c]` of the float bias `b`:
    /// the integers it dequantizes when their scale is that one, or a float constant
    /// quantized to it at compile time. `None` when `b` is neither.
    fn bias(
        &mut self,
        b: ValueId,
        qx: &QuantUniform,
        qw: &QuantUniform,
        at: OpId,
    ) -> Result<Option<ValueId>, String> {
        let (shape, _) = shape_of(self.ctx, self.type_of(b))?;
        let &[n] = shape.as_slice() else {
            return Ok(None);
        };
        if qw.params.len() > 1 && qw.params.len() as i64 != n {
            return Ok(None);
        }
        let s_x = qx.params_of(0).0;
        let scale = |c: usize| {
            f64::from((s_x * qw.params_of(if qw.params.len() > 1 { c } else { 0 }).0) as f32)
        };
        let i32_ty = tensor_type(self.ctx, &[n], self.ctx.int_type(32));
        if let Some(bq) = self.dequantized(b) {
            let Some(qb) = self.quant(self.type_of(bq)) else {
                return Ok(None);
            };
            let agrees = (0..n as usize).all(|c| {
                let (s, zero) = qb.params_of(if qb.params.len() > 1 { c } else { 0 });
                zero == 0 && (s - scale(c)).abs() <= SCALE_TOLERANCE * scale(c)
            });
            if qb.storage_width != 32 || !qb.storage_signed || !agrees {
                return Ok(None);
            }
            let ints = self
                .producer(bq)
                .filter(|op| self.kind(*op) == Some(graph::Op::StorageCast))
                .map(|op| self.ir.body(self.body).operand(op, 0))
                .filter(|v| self.type_of(*v) == i32_ty);
            return Ok(Some(match ints {
                Some(v) => v,
                None => graph::StorageCast::build(&mut self.emitter(at), bq, i32_ty).result()?,
            }));
        }
        let Some(dense) = acc_ir::rewrite::constant_value(self.ctx, self.ir, self.body, b)
            .and_then(|a| elements::dense(self.ctx, a))
        else {
            return Ok(None);
        };
        let mut ints = Vec::with_capacity(n as usize);
        for c in 0..n as usize {
            let Scalar::Float(v) = dense.get(c) else {
                return Ok(None);
            };
            let q = (v / scale(c)).round_ties_even();
            if !(f64::from(i32::MIN)..=f64::from(i32::MAX)).contains(&q) {
                return Ok(None);
            }
            ints.push(Scalar::Int(q as i128));
        }
        let attr = elements::dense_attr(self.ctx, i32_ty, &ints).ok_or("an i32 bias constant")?;
        Ok(Some(
            graph::Constant::build(&mut self.emitter(at), i32_ty)
                .value(attr)
                .result()?,
        ))
    }
}
