//! ONNX's quantization ops. ONNX carries quantized data as plain integer tensors with
//! separate scale and zero-point inputs; acc carries it in `!quant.uniform` element
//! types. So the scales and zero points must be constants: they become the type's
//! parameters, and `graph.storage_cast` moves between the integer tensors of the model
//! and the quantized tensors of the graph ops:
//!
//! - QuantizeLinear: `graph.quantize`, then a cast to the stored integers;
//! - DequantizeLinear: a cast to the quantized type, then `graph.dequantize`;
//! - QLinearConv / QLinearMatMul: casts of both operands, `graph.qconv2d` /
//!   `graph.qmatmul`, a cast of the result.

use acc_dialects::ops::graph;
use acc_ir::elements::Scalar;
use acc_ir::types::QuantUniform;
use acc_ir::{BlockId, BodyId, Signedness, TypeData, TypeId, ValueId};

use super::Importer;
use crate::nodes::{Lowered, Node, lower};
use crate::proto::NodeProto;

/// Whether `node` is one of the ops this module converts.
pub(super) fn handles(node: &NodeProto) -> bool {
    matches!(
        node.op_type.as_deref(),
        Some("QuantizeLinear" | "DequantizeLinear" | "QLinearConv" | "QLinearMatMul")
    )
}

/// Where the quantization parameters of one tensor come from.
struct Params<'a> {
    /// The scale input's name (a constant scalar or 1-D tensor).
    scale: &'a str,
    /// The zero point input's name; empty when absent (zero).
    zero: &'a str,
    /// The storage type when the zero point is absent.
    default_storage: TypeId,
    /// The dimension a 1-D scale runs along.
    axis: i64,
}

fn plain(op: graph::Op, result: TypeId) -> Lowered {
    Lowered {
        op: Some(op),
        operands: Vec::new(),
        attrs: Vec::new(),
        result_types: Some(vec![result]),
    }
}

impl Importer<'_> {
    /// Converts a quantization node (see the module docs); `types` are its inputs'.
    pub(super) fn quantized(
        &mut self,
        body: BodyId,
        block: BlockId,
        node: &NodeProto,
        types: Vec<Option<TypeId>>,
    ) -> Result<(), String> {
        let attr = |name: &str| {
            node.attribute
                .iter()
                .find(|a| a.name.as_deref() == Some(name))
        };
        if attr("block_size").and_then(|a| a.i).is_some_and(|b| b != 0) {
            return Err("blocked quantization is not supported (acc's quantized types are per tensor or per axis)".into());
        }
        if attr("precision").and_then(|a| a.i).is_some_and(|p| p != 0) {
            return Err("a 'precision' attribute is not supported".into());
        }
        let input = |i: usize| node.input.get(i).map(String::as_str).unwrap_or("");
        let ty = |i: usize| -> Result<TypeId, String> {
            types
                .get(i)
                .copied()
                .flatten()
                .ok_or_else(|| format!("input {i} has no known type"))
        };
        let axis = attr("axis").and_then(|a| a.i).unwrap_or(1);
        let out = node.output.first().cloned().unwrap_or_default();
        let result = match node.op_type.as_deref().unwrap_or("") {
            "QuantizeLinear" => {
                let x = ty(0)?;
                let default_storage = match attr("output_dtype").and_then(|a| a.i) {
                    Some(t) if t != 0 => crate::tensors::element_type(self.ctx, t as i32)?,
                    _ => self.unsigned8(),
                };
                let params = Params {
                    scale: input(1),
                    zero: input(2),
                    default_storage,
                    axis,
                };
                let (q, storage) = self.quant_tensor(x, element_of(self, x), &params)?;
                let v = self.operand(body, block, input(0))?;
                let quantized = self.create(body, block, &plain(graph::Op::Quantize, q), &[v])?[0];
                self.cast(body, block, quantized, storage)?
            }
            "DequantizeLinear" => {
                let x = ty(0)?;
                let expressed = element_of(self, ty(1)?);
                let params = Params {
                    scale: input(1),
                    zero: input(2),
                    default_storage: element_of(self, x),
                    axis,
                };
                let (q, _) = self.quant_tensor(x, expressed, &params)?;
                let v = self.operand(body, block, input(0))?;
                let quantized = self.cast(body, block, v, q)?;
                let float = retyped(self, x, expressed);
                self.create(
                    body,
                    block,
                    &plain(graph::Op::Dequantize, float),
                    &[quantized],
                )?[0]
            }
            "QLinearConv" => self.qlinear(body, block, node, &types, true)?,
            _ => self.qlinear(body, block, node, &types, false)?,
        };
        self.values.insert(out, result);
        Ok(())
    }

    /// QLinearConv (`conv`) or QLinearMatMul: inputs (a, a_scale, a_zero, b, b_scale,
    /// b_zero, y_scale, y_zero[, bias]).
    fn qlinear(
        &mut self,
        body: BodyId,
        block: BlockId,
        node: &NodeProto,
        types: &[Option<TypeId>],
        conv: bool,
    ) -> Result<ValueId, String> {
        let input = |i: usize| node.input.get(i).map(String::as_str).unwrap_or("");
        let ty = |i: usize| -> Result<TypeId, String> {
            types
                .get(i)
                .copied()
                .flatten()
                .ok_or_else(|| format!("input {i} has no known type"))
        };
        let (a, b) = (ty(0)?, ty(3)?);
        let f32_type = self.ctx.float_type(acc_ir::FloatKind::F32);
        let b_rank = self.ctx.type_data(b).shape().map_or(0, <[i64]>::len) as i64;
        let param = |scale, zero, storage, axis| Params {
            scale,
            zero,
            default_storage: storage,
            axis,
        };
        let (qa, _) = self.quant_tensor(
            a,
            f32_type,
            &param(input(1), input(2), element_of(self, a), -1),
        )?;
        if quant_axis(self, qa).is_some() {
            return Err("per-row scales of the left-hand input are not supported".into());
        }
        let b_axis = if conv { 0 } else { b_rank - 1 };
        let (qb, _) = self.quant_tensor(
            b,
            f32_type,
            &param(input(4), input(5), element_of(self, b), b_axis),
        )?;
        // The float op's result shape, inferred from float stand-ins of the operands.
        let float_a = retyped(self, a, f32_type);
        let float_b = retyped(self, b, f32_type);
        let mut stand_ins = vec![float_a, float_b];
        let (mut lowered, mut operands) = if conv {
            let mut as_conv = node.clone();
            as_conv.op_type = Some("Conv".into());
            as_conv.input = vec![input(0).into(), input(3).into()];
            let mut conv_types = vec![Some(a), Some(b)];
            if !input(8).is_empty() {
                as_conv.input.push(input(8).into());
                conv_types.push(Some(ty(8)?));
                stand_ins.push(retyped(self, ty(8)?, f32_type));
            }
            let l = lower(&Node {
                ctx: self.ctx,
                proto: &as_conv,
                constants: vec![None; as_conv.input.len()],
                types: conv_types,
            })?;
            let mut operands = Vec::new();
            for name in &as_conv.input {
                operands.push(self.operand(body, block, name)?);
            }
            (l, operands)
        } else {
            let l = plain(graph::Op::Matmul, f32_type);
            let operands = vec![
                self.operand(body, block, input(0))?,
                self.operand(body, block, input(3))?,
            ];
            (l, operands)
        };
        lowered.op = Some(if conv {
            graph::Op::Conv2d
        } else {
            graph::Op::Matmul
        });
        lowered.result_types = None;
        let float_result = *self
            .infer(&lowered, &stand_ins)?
            .first()
            .ok_or("no result type")?;
        let a_storage = element_of(self, a);
        let (q_out, storage) = self.quant_tensor(
            float_result,
            f32_type,
            &param(input(6), input(7), a_storage, 1),
        )?;
        if quant_axis(self, q_out).is_some() {
            return Err("per-channel output scales are not supported".into());
        }
        operands[0] = self.cast(body, block, operands[0], qa)?;
        operands[1] = self.cast(body, block, operands[1], qb)?;
        lowered.op = Some(if conv {
            graph::Op::Qconv2d
        } else {
            graph::Op::Qmatmul
        });
        lowered.result_types = Some(vec![q_out]);
        let result = self.create(body, block, &lowered, &operands)?[0];
        self.cast(body, block, result, storage)
    }

    /// The quantized tensor type of `shaped`'s shape expressing `expressed`, and the
    /// integer tensor type holding its stored values.
    fn quant_tensor(
        &self,
        shaped: TypeId,
        expressed: TypeId,
        p: &Params<'_>,
    ) -> Result<(TypeId, TypeId), String> {
        let shape = self
            .ctx
            .type_data(shaped)
            .shape()
            .ok_or("quantized values must be ranked tensors")?
            .to_vec();
        let scales = self.constant_values(p.scale, "scale")?;
        let (zeros, storage) = if p.zero.is_empty() {
            (vec![Scalar::Int(0)], p.default_storage)
        } else {
            let zero_type = self
                .constants
                .get(p.zero)
                .and_then(|a| acc_ir::rewrite::attr_type(self.ctx, *a))
                .ok_or_else(|| format!("its zero point '{}' must be a constant", p.zero))?;
            (
                self.constant_values(p.zero, "zero point")?,
                element_of(self, zero_type),
            )
        };
        let (width, signedness) = match self.ctx.type_data(storage) {
            TypeData::Integer { width, signedness } if *width <= 32 => (*width, *signedness),
            _ => {
                return Err(format!(
                    "quantization to {} is not supported (integers of up to 32 bits are)",
                    acc_ir::printer::type_to_string(self.ctx, storage)
                ));
            }
        };
        let axis = if scales.len() > 1 {
            let rank = shape.len() as i64;
            let a = if p.axis < 0 { p.axis + rank } else { p.axis };
            if !(0..rank).contains(&a) || shape[a as usize] != scales.len() as i64 {
                return Err(format!(
                    "{} scales do not fit dimension {} of shape {shape:?}",
                    scales.len(),
                    p.axis
                ));
            }
            Some(a as i32)
        } else {
            None
        };
        if zeros.len() != scales.len() && zeros.len() != 1 {
            return Err(format!(
                "{} zero points for {} scales",
                zeros.len(),
                scales.len()
            ));
        }
        let mut params = Vec::new();
        for (i, s) in scales.iter().enumerate() {
            let scale = match s {
                Scalar::Float(f) if f.is_finite() && *f > 0.0 => *f,
                _ => return Err(format!("scale {s:?} must be a positive finite number")),
            };
            let zero = match zeros[i.min(zeros.len() - 1)] {
                Scalar::Int(z) => i64::try_from(z).map_err(|_| "zero point out of range")?,
                Scalar::Float(_) => return Err("zero points must be integers".into()),
            };
            params.push((scale.to_bits(), zero));
        }
        let element = self.ctx.intern_type(TypeData::QuantUniform(QuantUniform {
            storage_width: width,
            storage_signed: signedness != Signedness::Unsigned,
            storage_range: None,
            expressed,
            axis,
            params: params.into(),
        }));
        Ok((
            retyped(self, shaped, element),
            retyped(self, shaped, storage),
        ))
    }

    /// The values of constant input `name`.
    fn constant_values(&self, name: &str, what: &str) -> Result<Vec<Scalar>, String> {
        self.constants
            .get(name)
            .and_then(|a| super::expand(self.ctx, *a))
            .ok_or_else(|| format!("its {what} '{name}' must be a constant"))
    }

    /// The value named `name`, or an error.
    fn operand(&mut self, body: BodyId, block: BlockId, name: &str) -> Result<ValueId, String> {
        self.value(body, block, name)
            .ok_or_else(|| format!("input '{name}' is not defined"))
    }

    /// `graph.storage_cast` of `v` to `to`.
    fn cast(
        &mut self,
        body: BodyId,
        block: BlockId,
        v: ValueId,
        to: TypeId,
    ) -> Result<ValueId, String> {
        Ok(self.create(body, block, &plain(graph::Op::StorageCast, to), &[v])?[0])
    }

    fn unsigned8(&self) -> TypeId {
        self.ctx.intern_type(TypeData::Integer {
            width: 8,
            signedness: Signedness::Unsigned,
        })
    }
}

/// The element type of a tensor type (the type itself for a scalar).
fn element_of(i: &Importer<'_>, ty: TypeId) -> TypeId {
    i.ctx.type_data(ty).element_type().unwrap_or(ty)
}

/// `shaped`'s shape with `element` elements.
fn retyped(i: &Importer<'_>, shaped: TypeId, element: TypeId) -> TypeId {
    let shape = i.ctx.type_data(shaped).shape().unwrap_or(&[]).to_vec();
    crate::tensors::tensor_type(i.ctx, &shape, element)
}

/// The quantized dimension of a quantized tensor type.
fn quant_axis(i: &Importer<'_>, ty: TypeId) -> Option<i32> {
    match i.ctx.type_data(element_of(i, ty)) {
        TypeData::QuantUniform(q) => q.axis,
        _ => None,
    }
}
