//! ONNX's quantization ops. ONNX carries quantized data as plain integer tensors with
//! separate scale and zero-point inputs; acc carries it in `!quant.uniform` element
//! types. Constant scales and zero points become the type's parameters, and
//! `graph.storage_cast` moves between the integer tensors of the model and the
//! quantized tensors of the graph ops (scales computed at run time, as
//! DynamicQuantizeLinear's, make QuantizeLinear and DequantizeLinear plain graph
//! arithmetic instead, as do blocked and small-float quantization):
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

/// What [`Importer::quantize_arithmetic`] computes: quantize (or dequantize) values of
/// `shape` and float type `float` to (from) integers of type `storage`.
struct Arithmetic<'a> {
    quantize: bool,
    shape: &'a [i64],
    float: TypeId,
    storage: TypeId,
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
        let saturate = attr("saturate").and_then(|a| a.i).unwrap_or(1) != 0;
        let block_size = attr("block_size").and_then(|a| a.i).unwrap_or(0);
        if block_size != 0 {
            let result = self.blocked_quantization(body, block, node, &types, axis, block_size)?;
            self.values.insert(out, result);
            return Ok(());
        }
        if let Some(result) =
            self.small_float_quantization(body, block, node, &types, axis, saturate)?
        {
            self.values.insert(out, result);
            return Ok(());
        }
        let known = |name: &str| name.is_empty() || self.constants.contains_key(name);
        if matches!(
            node.op_type.as_deref(),
            Some("QuantizeLinear" | "DequantizeLinear")
        ) && !(known(input(1)) && known(input(2)))
        {
            let result = self.runtime_quantization(body, block, node, &types, axis)?;
            self.values.insert(out, result);
            return Ok(());
        }
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

    /// QuantizeLinear to, or DequantizeLinear from, a small float (float8, float4):
    /// plain graph arithmetic, as ONNX defines it, with the scale (and zero point) as
    /// values: `cast(x / scale [+ zero])` (saturating as asked) and
    /// `(cast(x) [- zero]) * scale`. A float8 zero point must be zero, so it is not
    /// added (ONNX's reference ignores it too). `None` for integer quantization.
    fn small_float_quantization(
        &mut self,
        body: BodyId,
        block: BlockId,
        node: &NodeProto,
        types: &[Option<TypeId>],
        axis: i64,
        saturate: bool,
    ) -> Result<Option<ValueId>, String> {
        let quantize = match node.op_type.as_deref() {
            Some("QuantizeLinear") => true,
            Some("DequantizeLinear") => false,
            _ => return Ok(None),
        };
        let input = |i: usize| node.input.get(i).map(String::as_str).unwrap_or("");
        let ty = |i: usize| types.get(i).copied().flatten();
        let Some(stored) = self.stored_type(node, types, quantize)? else {
            return Ok(None);
        };
        let acc_ir::TypeData::Float(kind) = *self.ctx.type_data(stored) else {
            return Ok(None);
        };
        if acc_ir::minifloat::MiniFloat::of(kind).is_none() {
            return Ok(None);
        }
        let x_type = ty(0).ok_or("input 0 has no known type")?;
        let scale_type = ty(1).ok_or("input 1 has no known type")?;
        let shape = self
            .ctx
            .type_data(x_type)
            .shape()
            .ok_or("quantized values must be ranked tensors")?
            .to_vec();
        let float = element_of(self, if quantize { x_type } else { scale_type });
        let float_x = crate::tensors::tensor_type(self.ctx, &shape, float);
        let with_zero = !input(2).is_empty() && kind == acc_ir::FloatKind::F4E2M1FN;
        let x = self.operand(body, block, input(0))?;
        let scale = self.operand(body, block, input(1))?;
        let scale = self.along_axis(body, block, scale, scale_type, shape.len(), axis)?;
        let zero = if with_zero {
            let z = self.operand(body, block, input(2))?;
            let zt = ty(2).ok_or("input 2 has no known type")?;
            let z = self.along_axis(body, block, z, zt, shape.len(), axis)?;
            let z_shape = self
                .ctx
                .type_data(self.ir.body(body).value_type(z))
                .shape()
                .unwrap_or(&[])
                .to_vec();
            let float_z = crate::tensors::tensor_type(self.ctx, &z_shape, float);
            Some(self.create(body, block, &plain(graph::Op::Cast, float_z), &[z])?[0])
        } else {
            None
        };
        let binary = |this: &mut Self, op, a, b| -> Result<ValueId, String> {
            Ok(this.create(body, block, &plain(op, float_x), &[a, b])?[0])
        };
        let result = if quantize {
            let mut y = binary(self, graph::Op::Div, x, scale)?;
            if let Some(z) = zero {
                y = binary(self, graph::Op::Add, y, z)?;
            }
            let mut cast = plain(
                graph::Op::Cast,
                crate::tensors::tensor_type(self.ctx, &shape, stored),
            );
            if saturate {
                cast.attrs.push((
                    graph::Cast::ATTR_SATURATE,
                    crate::nodes::bool_attr(self.ctx, true),
                ));
            }
            self.create(body, block, &cast, &[y])?[0]
        } else {
            let mut y = self.create(body, block, &plain(graph::Op::Cast, float_x), &[x])?[0];
            if let Some(z) = zero {
                y = binary(self, graph::Op::Sub, y, z)?;
            }
            binary(self, graph::Op::Mul, y, scale)?
        };
        Ok(Some(result))
    }

    /// The element type of the stored (quantized) values of a QuantizeLinear
    /// (`quantize`: its zero point's, else its `output_dtype`; `None` when neither
    /// says, ONNX's default uint8) or DequantizeLinear (its input's).
    fn stored_type(
        &self,
        node: &NodeProto,
        types: &[Option<TypeId>],
        quantize: bool,
    ) -> Result<Option<TypeId>, String> {
        let element = |i: usize| {
            types
                .get(i)
                .copied()
                .flatten()
                .map(|t| Some(element_of(self, t)))
                .ok_or_else(|| format!("input {i} has no known type"))
        };
        if !quantize {
            return element(0);
        }
        if node.input.get(2).is_some_and(|z| !z.is_empty()) {
            return element(2);
        }
        let output_dtype = node
            .attribute
            .iter()
            .find(|a| a.name.as_deref() == Some("output_dtype"))
            .and_then(|a| a.i)
            .filter(|t| *t != 0);
        output_dtype
            .map(|t| crate::tensors::element_type(self.ctx, t as i32))
            .transpose()
    }

    /// QuantizeLinear or DequantizeLinear with `block_size` (ONNX's blocked
    /// quantization: one scale and zero point per `block_size` consecutive indices of
    /// dimension `axis`), to integers, as graph arithmetic: the scale and zero point
    /// repeated to the input's shape, then
    /// `cast(clip(round_half_even(x / scale) + zero, storage range))` or
    /// `(cast(x) - zero) * scale`. acc's quantized types are per tensor or per axis.
    fn blocked_quantization(
        &mut self,
        body: BodyId,
        block: BlockId,
        node: &NodeProto,
        types: &[Option<TypeId>],
        axis: i64,
        block_size: i64,
    ) -> Result<ValueId, String> {
        let quantize = node.op_type.as_deref() == Some("QuantizeLinear");
        let input = |i: usize| node.input.get(i).map(String::as_str).unwrap_or("");
        let ty = |i: usize| {
            types
                .get(i)
                .copied()
                .flatten()
                .ok_or_else(|| format!("input {i} has no known type"))
        };
        if block_size < 1 {
            return Err(format!("block_size {block_size} is not positive"));
        }
        let x_type = ty(0)?;
        let shape =
            static_shape(self, x_type).ok_or("blocked quantization needs a static input shape")?;
        let rank = shape.len() as i64;
        let a = if axis < 0 { axis + rank } else { axis };
        if !(0..rank).contains(&a) {
            return Err(format!("axis {axis} is out of range for rank {rank}"));
        }
        let a = a as usize;
        let storage = match self.stored_type(node, types, quantize)? {
            Some(t) => t,
            None => self.unsigned8(),
        };
        if !matches!(self.ctx.type_data(storage), TypeData::Integer { width, .. } if *width <= 32) {
            return Err(format!(
                "blocked quantization to {} is not supported (integers of up to 32 bits are)",
                acc_ir::printer::type_to_string(self.ctx, storage)
            ));
        }
        let scale_type = ty(1)?;
        let float = element_of(self, if quantize { x_type } else { scale_type });
        let scale = self.operand(body, block, input(1))?;
        let scale = self.repeat_blocks(body, block, scale, scale_type, &shape, a, block_size)?;
        let zero = if input(2).is_empty() {
            None
        } else {
            let z = self.operand(body, block, input(2))?;
            Some(self.repeat_blocks(body, block, z, ty(2)?, &shape, a, block_size)?)
        };
        let x = self.operand(body, block, input(0))?;
        let arithmetic = Arithmetic {
            quantize,
            shape: &shape,
            float,
            storage,
        };
        self.quantize_arithmetic(body, block, &arithmetic, x, scale, zero)
    }

    /// QuantizeLinear or DequantizeLinear to or from integers whose scale or zero point
    /// is computed at run time (DynamicQuantizeLinear's body), as graph arithmetic:
    /// one scale per tensor, or per index of `axis` (reshaped to broadcast along it).
    fn runtime_quantization(
        &mut self,
        body: BodyId,
        block: BlockId,
        node: &NodeProto,
        types: &[Option<TypeId>],
        axis: i64,
    ) -> Result<ValueId, String> {
        let quantize = node.op_type.as_deref() == Some("QuantizeLinear");
        let input = |i: usize| node.input.get(i).map(String::as_str).unwrap_or("");
        let ty = |i: usize| {
            types
                .get(i)
                .copied()
                .flatten()
                .ok_or_else(|| format!("input {i} has no known type"))
        };
        let x_type = ty(0)?;
        let shape = static_shape(self, x_type)
            .ok_or("quantization with run-time parameters needs a static input shape")?;
        let storage = match self.stored_type(node, types, quantize)? {
            Some(t) => t,
            None => self.unsigned8(),
        };
        let scale_type = ty(1)?;
        let float = element_of(self, if quantize { x_type } else { scale_type });
        let scale = self.operand(body, block, input(1))?;
        let scale = self.along_axis(body, block, scale, scale_type, shape.len(), axis)?;
        let zero = if input(2).is_empty() {
            None
        } else {
            let z = self.operand(body, block, input(2))?;
            Some(self.along_axis(body, block, z, ty(2)?, shape.len(), axis)?)
        };
        let x = self.operand(body, block, input(0))?;
        let arithmetic = Arithmetic {
            quantize,
            shape: &shape,
            float,
            storage,
        };
        self.quantize_arithmetic(body, block, &arithmetic, x, scale, zero)
    }

    /// `cast(clip(round_half_even(x / scale) + zero, storage range))` (quantize) or
    /// `(cast(x) - zero) * scale` (dequantize), `scale` and `zero` broadcasting to
    /// the shape of `x`.
    fn quantize_arithmetic(
        &mut self,
        body: BodyId,
        block: BlockId,
        a: &Arithmetic<'_>,
        x: ValueId,
        scale: ValueId,
        zero: Option<ValueId>,
    ) -> Result<ValueId, String> {
        let (width, signedness) = match self.ctx.type_data(a.storage) {
            TypeData::Integer { width, signedness } if *width <= 32 => (*width, *signedness),
            _ => {
                return Err(format!(
                    "quantization to {} as arithmetic is not supported (integers of up to 32 bits are)",
                    acc_ir::printer::type_to_string(self.ctx, a.storage)
                ));
            }
        };
        let float_x = crate::tensors::tensor_type(self.ctx, a.shape, a.float);
        let zero = match zero {
            Some(z) => {
                let z_type = self.ir.body(body).value_type(z);
                let z_shape = static_shape(self, z_type).ok_or("a zero point of unknown shape")?;
                let float_z = crate::tensors::tensor_type(self.ctx, &z_shape, a.float);
                Some(self.create(body, block, &plain(graph::Op::Cast, float_z), &[z])?[0])
            }
            None => None,
        };
        let binary = |this: &mut Self, op, a, b| -> Result<ValueId, String> {
            Ok(this.create(body, block, &plain(op, float_x), &[a, b])?[0])
        };
        if a.quantize {
            let q = binary(self, graph::Op::Div, x, scale)?;
            let mut y = self.create(body, block, &plain(graph::Op::Round, float_x), &[q])?[0];
            if let Some(z) = zero {
                y = binary(self, graph::Op::Add, y, z)?;
            }
            let (lo, hi) = QuantUniform::full_range(width, signedness != Signedness::Unsigned);
            let f32_type = self.ctx.float_type(acc_ir::FloatKind::F32);
            let bound = |v: i64| {
                acc_ir::elements::scalar_attr(self.ctx, f32_type, Scalar::Float(v as f64))
                    .ok_or("a bound cannot be represented")
            };
            let mut clip = plain(graph::Op::Clip, float_x);
            clip.attrs = vec![
                (graph::Clip::ATTR_MIN, bound(lo)?),
                (graph::Clip::ATTR_MAX, bound(hi)?),
            ];
            let clipped = self.create(body, block, &clip, &[y])?[0];
            let stored = crate::tensors::tensor_type(self.ctx, a.shape, a.storage);
            Ok(self.create(body, block, &plain(graph::Op::Cast, stored), &[clipped])?[0])
        } else {
            let mut y = self.create(body, block, &plain(graph::Op::Cast, float_x), &[x])?[0];
            if let Some(z) = zero {
                y = binary(self, graph::Op::Sub, y, z)?;
            }
            binary(self, graph::Op::Mul, y, scale)
        }
    }

    /// `v` (a blocked scale or zero point: `shape` but for ceil(n / `block`) at `axis`)
    /// with each index along `axis` repeated `block` times, cut to `shape`.
    #[allow(clippy::too_many_arguments)]
    fn repeat_blocks(
        &mut self,
        body: BodyId,
        block: BlockId,
        v: ValueId,
        ty: TypeId,
        shape: &[i64],
        axis: usize,
        block_size: i64,
    ) -> Result<ValueId, String> {
        let blocks = (shape[axis] + block_size - 1) / block_size;
        let mut expected = shape.to_vec();
        expected[axis] = blocks;
        if static_shape(self, ty).as_deref() != Some(&expected[..]) {
            return Err(format!(
                "its blocked scales and zero points must have shape {expected:?}"
            ));
        }
        let element = element_of(self, ty);
        let tensor =
            |this: &Self, dims: &[i64]| crate::tensors::tensor_type(this.ctx, dims, element);
        let reshape = |this: &mut Self, v: ValueId, dims: &[i64]| -> Result<ValueId, String> {
            let mut r = plain(graph::Op::Reshape, tensor(this, dims));
            r.attrs.push((
                graph::Reshape::ATTR_SHAPE,
                crate::nodes::i64s_attr(this.ctx, dims),
            ));
            Ok(this.create(body, block, &r, &[v])?[0])
        };
        // [.., blocks, 1, ..] times ones of [.., blocks, block, ..], as [.., blocks * block, ..].
        let mut split = expected.clone();
        split.insert(axis + 1, 1);
        let column = reshape(self, v, &split)?;
        split[axis + 1] = block_size;
        let one = match self.ctx.type_data(element) {
            TypeData::Float(_) => Scalar::Float(1.0),
            _ => Scalar::Int(1),
        };
        let ones_type = tensor(self, &split);
        let ones = self.constant(body, block, ones_type, one)?;
        let repeated = self.create(
            body,
            block,
            &plain(graph::Op::Mul, ones_type),
            &[column, ones],
        )?[0];
        let mut whole = expected.clone();
        whole[axis] = blocks * block_size;
        let flat = reshape(self, repeated, &whole)?;
        if whole[axis] == shape[axis] {
            return Ok(flat);
        }
        let mut slice = plain(graph::Op::Slice, tensor(self, shape));
        slice.attrs = vec![
            (
                graph::Slice::ATTR_STARTS,
                crate::nodes::i64s_attr(self.ctx, &[0]),
            ),
            (
                graph::Slice::ATTR_ENDS,
                crate::nodes::i64s_attr(self.ctx, &[shape[axis]]),
            ),
            (
                graph::Slice::ATTR_AXES,
                crate::nodes::i64s_attr(self.ctx, &[axis as i64]),
            ),
        ];
        Ok(self.create(body, block, &slice, &[flat])?[0])
    }

    /// A scale or zero point `v` of type `ty` shaped to broadcast against a rank-`rank`
    /// tensor: a scalar or a one-element vector as it is, a vector of one value per
    /// index of dimension `axis` reshaped to run along it.
    fn along_axis(
        &mut self,
        body: BodyId,
        block: BlockId,
        v: ValueId,
        ty: TypeId,
        rank: usize,
        axis: i64,
    ) -> Result<ValueId, String> {
        let shape = self.ctx.type_data(ty).shape().unwrap_or(&[]).to_vec();
        match shape.as_slice() {
            [] | [1] => Ok(v),
            [n] => {
                let a = if axis < 0 { axis + rank as i64 } else { axis };
                if !(0..rank as i64).contains(&a) {
                    return Err(format!("axis {axis} is out of range for rank {rank}"));
                }
                let mut dims = vec![1; rank];
                dims[a as usize] = *n;
                let element = element_of(self, ty);
                let mut reshape = plain(graph::Op::Reshape, crate::tensors::tensor_type(self.ctx, &dims, element));
                reshape.attrs.push((graph::Reshape::ATTR_SHAPE, crate::nodes::i64s_attr(self.ctx, &dims)));
                Ok(self.create(body, block, &reshape, &[v])?[0])
            }
            _ => Err("blocked quantization is not supported (acc's quantized types are per tensor or per axis)".into()),
        }
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
/// The shape of `ty` when every dimension is known.
fn static_shape(i: &Importer<'_>, ty: TypeId) -> Option<Vec<i64>> {
    i.ctx
        .type_data(ty)
        .shape()
        .filter(|s| s.iter().all(|d| *d >= 0))
        .map(<[i64]>::to_vec)
}

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
