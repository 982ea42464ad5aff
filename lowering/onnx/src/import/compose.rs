//! ONNX nodes that become several graph ops: Max, Min and Sum of any number of inputs,
//! Pow of a base and an exponent of different types, LayerNormalization's statistics
//! outputs and Dropout's mask.

use acc_dialects::ops::graph;
use acc_ir::elements::Scalar;
use acc_ir::{BlockId, BodyId, TypeData, TypeId, ValueId};

use super::Importer;
use crate::nodes::Lowered;
use crate::proto::NodeProto;

impl Importer<'_> {
    /// Max, Min and Sum of any number of inputs: a chain of the binary graph op (one
    /// input is the result itself).
    pub(super) fn variadic(
        &mut self,
        body: BodyId,
        block: BlockId,
        node: &crate::proto::NodeProto,
        op: graph::Op,
    ) -> Result<(), String> {
        let mut inputs = Vec::new();
        for name in node.input.iter().filter(|n| !n.is_empty()) {
            inputs.push(
                self.value(body, block, name)
                    .ok_or_else(|| format!("input '{name}' is not defined"))?,
            );
        }
        let (&first, rest) = inputs.split_first().ok_or("it has no inputs")?;
        let binary = Lowered {
            op: Some(op),
            operands: Vec::new(),
            attrs: Vec::new(),
            result_types: None,
        };
        let mut acc = first;
        for &v in rest {
            acc = self.create(body, block, &binary, &[acc, v])?[0];
        }
        let out = node.output.first().cloned().unwrap_or_default();
        self.values.insert(out, acc);
        Ok(())
    }

    /// LayerNormalization's optional outputs: the mean and the inverse standard
    /// deviation over the dimensions from `axis` on (kept as size 1), computed in f32
    /// (ONNX's default stash type) with graph ops.
    pub(super) fn layer_norm_statistics(
        &mut self,
        body: BodyId,
        block: BlockId,
        x: ValueId,
        axis: i64,
        eps: f32,
    ) -> Result<Vec<ValueId>, String> {
        let ty = self.ir.body(body).value_type(x);
        let f32_type = self.ctx.float_type(acc_ir::FloatKind::F32);
        if self.ctx.type_data(ty).element_type() != Some(f32_type) {
            return Err("its statistics outputs are supported for float32 inputs only".into());
        }
        let rank = self.ctx.type_data(ty).shape().map_or(0, <[i64]>::len) as i64;
        let first = if axis < 0 { axis + rank } else { axis };
        let axes: Vec<i64> = (first..rank).collect();
        let reduce = Lowered {
            op: Some(graph::Op::ReduceMean),
            operands: Vec::new(),
            attrs: vec![
                (
                    graph::ReduceMean::ATTR_AXES,
                    crate::nodes::i64s_attr(self.ctx, &axes),
                ),
                (
                    graph::ReduceMean::ATTR_KEEPDIMS,
                    crate::nodes::bool_attr(self.ctx, true),
                ),
            ],
            result_types: None,
        };
        let plain = |op| Lowered {
            op: Some(op),
            operands: Vec::new(),
            attrs: Vec::new(),
            result_types: None,
        };
        let mean = self.create(body, block, &reduce, &[x])?[0];
        let centred = self.create(body, block, &plain(graph::Op::Sub), &[x, mean])?[0];
        let squared = self.create(body, block, &plain(graph::Op::Mul), &[centred, centred])?[0];
        let var = self.create(body, block, &reduce, &[squared])?[0];
        let scalar = self.ctx.intern_type(acc_ir::TypeData::RankedTensor {
            shape: Box::new([]),
            element: f32_type,
            encoding: None,
        });
        let eps = self.constant(body, block, scalar, Scalar::Float(f64::from(eps)))?;
        let one = self.constant(body, block, scalar, Scalar::Float(1.0))?;
        let var_eps = self.create(body, block, &plain(graph::Op::Add), &[var, eps])?[0];
        let std = self.create(body, block, &plain(graph::Op::Sqrt), &[var_eps])?[0];
        let inv = self.create(body, block, &plain(graph::Op::Div), &[one, std])?[0];
        Ok(vec![mean, inv])
    }

    /// Pow of a base and an exponent of different element types (ONNX allows it; the
    /// result has the base's type): a float base takes the exponent cast to its type;
    /// an integer base is raised in the exponent's type (floats) or takes the exponent
    /// cast to its own (integers), the result cast back, truncated, as numpy does.
    pub(super) fn mixed_pow(
        &mut self,
        body: BodyId,
        block: BlockId,
        node: &NodeProto,
        types: &[Option<TypeId>],
    ) -> Result<(), String> {
        let name = |i: usize| node.input.get(i).cloned().unwrap_or_default();
        let (base, exponent) = (
            self.input(body, block, &name(0))?,
            self.input(body, block, &name(1))?,
        );
        let (bt, et) = (
            types[0].ok_or("no base type")?,
            types[1].ok_or("no exponent type")?,
        );
        let float = |t: TypeId| matches!(self.ctx.type_data(element(self, t)), TypeData::Float(_));
        let pow = plain(graph::Op::Pow, None);
        let result = if float(bt) || !float(et) {
            let cast_exponent = self.cast_to(body, block, exponent, et, element(self, bt))?;
            self.create(body, block, &pow, &[base, cast_exponent])?[0]
        } else {
            let float_base = self.cast_to(body, block, base, bt, element(self, et))?;
            let raised = self.create(body, block, &pow, &[float_base, exponent])?[0];
            let raised_type = self.ir.body(body).value_type(raised);
            self.cast_to(body, block, raised, raised_type, element(self, bt))?
        };
        self.values
            .insert(node.output.first().cloned().unwrap_or_default(), result);
        Ok(())
    }

    /// Dropout's mask at inference: every element kept (true), in the input's shape.
    pub(super) fn dropout_mask(
        &mut self,
        body: BodyId,
        block: BlockId,
        input: TypeId,
    ) -> Result<ValueId, String> {
        let shape = self.ctx.type_data(input).shape().unwrap_or(&[]).to_vec();
        if shape.iter().any(|d| *d < 0) {
            return Err("Dropout's mask needs a static shape".into());
        }
        let mask = crate::tensors::tensor_type(self.ctx, &shape, self.ctx.int_type(1));
        self.constant(body, block, mask, Scalar::Int(1))
    }

    /// `graph.cast` of `v` (of type `ty`) to the same shape with elements `to`.
    fn cast_to(
        &mut self,
        body: BodyId,
        block: BlockId,
        v: ValueId,
        ty: TypeId,
        to: TypeId,
    ) -> Result<ValueId, String> {
        let shape = self.ctx.type_data(ty).shape().unwrap_or(&[]).to_vec();
        let target = crate::tensors::tensor_type(self.ctx, &shape, to);
        Ok(self.create(body, block, &plain(graph::Op::Cast, Some(target)), &[v])?[0])
    }

    fn input(&mut self, body: BodyId, block: BlockId, name: &str) -> Result<ValueId, String> {
        self.value(body, block, name)
            .ok_or_else(|| format!("input '{name}' is not defined"))
    }
}

/// Whether `node` is a Pow whose base and exponent have different element types.
pub(super) fn is_mixed_pow(node: &NodeProto, types: &[Option<TypeId>]) -> bool {
    node.op_type.as_deref() == Some("Pow") && matches!(types, [Some(a), Some(b)] if a != b)
}

fn element(i: &Importer<'_>, ty: TypeId) -> TypeId {
    i.ctx.type_data(ty).element_type().unwrap_or(ty)
}

fn plain(op: graph::Op, result: Option<TypeId>) -> Lowered {
    Lowered {
        op: Some(op),
        operands: Vec::new(),
        attrs: Vec::new(),
        result_types: result.map(|t| vec![t]),
    }
}

/// The binary graph op of a variadic ONNX op (Max, Min, Sum).
pub(super) fn variadic_op(node: &crate::proto::NodeProto) -> Option<graph::Op> {
    match node.op_type.as_deref()? {
        "Max" => Some(graph::Op::Max),
        "Min" => Some(graph::Op::Min),
        "Sum" => Some(graph::Op::Add),
        _ => None,
    }
}
