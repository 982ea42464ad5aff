//! Additions, products and concatenations of dequantized operands as `qadd`, `qmul`
//! and a `concat` of stored integers (inputs of other scales `requantize`d first).
//! Per-tensor operands only; additions and products of operands of one shape (a
//! residual connection's), as the libraries' elementwise functions take them.

use acc_dialects::build::{shape_of, tensor_type};
use acc_dialects::hooks::attr_read::Attrs;
use acc_dialects::ops::graph;
use acc_ir::{OpId, TypeId, ValueId};

use super::Folds;

impl Folds<'_> {
    /// The quantized values both operands of `op` dequantize, when they and `out`
    /// are per tensor and of one shape.
    fn same_shape_pair(&self, op: OpId, out: TypeId) -> Option<(ValueId, ValueId)> {
        let b = self.ir.body(self.body);
        if b.operands(op).len() != 2 {
            return None;
        }
        let a = self.dequantized(b.operand(op, 0))?;
        let c = self.dequantized(b.operand(op, 1))?;
        let per_tensor = |t: TypeId| self.quant(t).is_some_and(|q| q.axis.is_none());
        let shape = |t: TypeId| shape_of(self.ctx, t).ok().map(|(s, _)| s);
        let out_shape = shape(out)?;
        let fits = [self.type_of(a), self.type_of(c), out]
            .iter()
            .all(|t| per_tensor(*t) && shape(*t).as_ref() == Some(&out_shape));
        fits.then_some((a, c))
    }

    /// `quantize(add(dequantize(a), dequantize(b)))` as `qadd`, and `mul` as `qmul`
    /// (`product`).
    pub(super) fn add_or_mul(
        &mut self,
        op: OpId,
        product: bool,
        at: OpId,
        out: TypeId,
    ) -> Result<Option<ValueId>, String> {
        let Some((a, b)) = self.same_shape_pair(op, out) else {
            return Ok(None);
        };
        let requant = self.requant_attr();
        let mut e = self.emitter(at);
        let made = if product {
            let mut mul = graph::Qmul::build(&mut e, a, b, out);
            if let Some(r) = requant {
                mul = mul.requant(r);
            }
            mul.result()?
        } else {
            let mut add = graph::Qadd::build(&mut e, a, b, out);
            if let Some(r) = requant {
                add = add.requant(r);
            }
            add.result()?
        };
        Ok(Some(made))
    }

    /// `quantize(concat(dequantize(x1), ...))` as a `concat` of the stored integers,
    /// each input first requantized to the result's element type when it has
    /// another (per tensor throughout).
    pub(super) fn concat(
        &mut self,
        op: OpId,
        at: OpId,
        out: TypeId,
    ) -> Result<Option<ValueId>, String> {
        let b = self.ir.body(self.body);
        let Some(inputs) = b
            .operands(op)
            .map(|v| self.dequantized(v))
            .collect::<Option<Vec<ValueId>>>()
        else {
            return Ok(None);
        };
        let Some(q) = self.quant(out).filter(|q| q.axis.is_none()) else {
            return Ok(None);
        };
        if inputs.iter().any(|x| {
            self.quant(self.type_of(*x))
                .is_none_or(|q| q.axis.is_some())
        }) {
            return Ok(None);
        }
        let axis = Attrs::of_op(self.ctx, self.ir.op(self.body, op)).get(graph::Concat::ATTR_AXIS);
        let Some(axis) = axis else {
            return Ok(None);
        };
        let (out_shape, out_elem) = shape_of(self.ctx, out)?;
        let int = self.ctx.int_type(q.storage_width);
        let requant = self.requant_attr();
        let types: Vec<TypeId> = inputs.iter().map(|x| self.type_of(*x)).collect();
        let mut e = self.emitter(at);
        let mut ints = Vec::with_capacity(inputs.len());
        for (x, ty) in inputs.into_iter().zip(types) {
            let (shape, elem) = shape_of(e.ctx, ty)?;
            let mut x = x;
            if elem != out_elem {
                let requantized_ty = tensor_type(e.ctx, &shape, out_elem);
                let mut r = graph::Requantize::build(&mut e, x, requantized_ty);
                if let Some(a) = requant {
                    r = r.requant(a);
                }
                x = r.result()?;
            }
            let int_ty = tensor_type(e.ctx, &shape, int);
            ints.push(graph::StorageCast::build(&mut e, x, int_ty).result()?);
        }
        let joined_ty = tensor_type(e.ctx, &out_shape, int);
        let joined = graph::Concat::build(&mut e, &ints, joined_ty)
            .axis(axis)
            .result()?;
        Ok(Some(
            graph::StorageCast::build(&mut e, joined, out).result()?,
        ))
    }
}
