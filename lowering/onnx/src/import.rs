//! The importer: an ONNX model's main graph as one `func.func` of graph ops, its
//! initializers as `graph.constant`s, its inputs as arguments and outputs as results.

use std::collections::HashMap;

use acc_dialects::ops::{func, graph};
use acc_ir::builder::Builder;
use acc_ir::elements::{self, Scalar};
use acc_ir::{AttrId, BlockId, BodyId, Context, InferInput, InsertPoint, Ir, TypeId, ValueId};
use prost::Message;

use crate::nodes::{Lowered, Node, lower, supported};
use crate::proto::{GraphProto, ModelProto};
use crate::tensors;

mod compose;
mod decompose;
mod fold;
mod quant;

/// The opsets of the default domain the importer accepts: 11 to 28 (onnx 1.23). For
/// the ops it converts, the versions after 21 only add element types; where an op
/// changed at 13 (axes and split sizes became inputs, Softmax and LogSoftmax stopped
/// flattening to 2-D), the importer reads the older form under opsets 11 and 12.
pub const OPSETS: std::ops::RangeInclusive<i64> = 11..=28;

/// The argument and result attribute holding a graph input's or output's ONNX name.
pub const ONNX_NAME: &str = "onnx.name";

/// Decodes an ONNX model and imports it as a module with one function named `name`.
/// Every problem found is in the error: all unsupported ops at once, then the first
/// node that cannot be converted.
pub fn import(ctx: &mut Context, bytes: &[u8], name: &str) -> Result<Ir, Vec<String>> {
    import_with(ctx, bytes, name, &[])
}

/// [`import`] with the values of some graph inputs bound (`--bind NAME=FILE.npy`):
/// each `(name, value)` is imported as an initializer of that name, so the input is no
/// longer an argument and what it feeds (a shape, axes, scales) is known at import.
/// A name that is not a graph input is an error.
pub fn import_bound(
    ctx: &mut Context,
    bytes: &[u8],
    name: &str,
    bound: &[(String, AttrId)],
) -> Result<Ir, Vec<String>> {
    let model =
        ModelProto::decode(bytes).map_err(|e| vec![format!("not a valid ONNX model: {e}")])?;
    let graph = model
        .graph
        .as_ref()
        .ok_or_else(|| vec!["the model has no graph".to_string()])?;
    let names: Vec<&str> = graph
        .input
        .iter()
        .filter_map(|i| i.name.as_deref())
        .collect();
    for (n, _) in bound {
        if !names.contains(&n.as_str()) {
            return Err(vec![format!(
                "--bind: the model has no input '{n}' (its inputs: {})",
                names.join(", ")
            )]);
        }
    }
    import_inner(ctx, model, name, bound)
}

/// The declared element type of graph input `input` of the model `bytes`.
pub fn input_element_type(ctx: &Context, bytes: &[u8], input: &str) -> Result<TypeId, String> {
    let model = ModelProto::decode(bytes).map_err(|e| format!("not a valid ONNX model: {e}"))?;
    let info = model
        .graph
        .as_ref()
        .and_then(|g| g.input.iter().find(|i| i.name.as_deref() == Some(input)))
        .ok_or_else(|| format!("the model has no input '{input}'"))?;
    let ty = tensors::value_type(ctx, info.r#type.as_ref())?;
    Ok(ctx.type_data(ty).element_type().unwrap_or(ty))
}

/// [`import`] with the values of some graph inputs fixed: `known` gives values for
/// graph inputs that must be constants (a shape, axes); they are imported as
/// initializers and are no longer arguments.
pub fn import_with(
    ctx: &mut Context,
    bytes: &[u8],
    name: &str,
    known: &[crate::proto::TensorProto],
) -> Result<Ir, Vec<String>> {
    let mut model =
        ModelProto::decode(bytes).map_err(|e| vec![format!("not a valid ONNX model: {e}")])?;
    if let Some(g) = model.graph.as_mut() {
        g.initializer.extend(known.iter().cloned());
    }
    import_inner(ctx, model, name, &[])
}

fn import_inner(
    ctx: &mut Context,
    model: ModelProto,
    name: &str,
    bound: &[(String, AttrId)],
) -> Result<Ir, Vec<String>> {
    let graph = model
        .graph
        .as_ref()
        .ok_or_else(|| vec!["the model has no graph".to_string()])?;
    for opset in &model.opset_import {
        let domain = opset.domain.as_deref().unwrap_or("");
        let version = opset.version.unwrap_or(0);
        if (domain.is_empty() || domain == "ai.onnx") && !opset_supported(graph, version) {
            return Err(vec![format!(
                "opset {version} is not supported (opsets {} to {} are, and older ones for ops defined the same way since)",
                OPSETS.start(),
                OPSETS.end()
            )]);
        }
    }
    check_supported(graph)?;
    let mut importer = Importer::new(ctx, graph)?;
    importer.opset = default_opset(&model);
    importer.constants.extend(bound.iter().cloned());
    importer.run(graph, name).map_err(|e| vec![e])
}

/// Ops whose opset-13 definition is older than opset 13, with the opset that
/// introduced it: a model of an older opset using only these (each at least as new as
/// its definition) means the same as at opset 13.
/// QuantizeLinear and DequantizeLinear of opsets 10 to 12 are the per-tensor case of
/// opset 13's; Dropout from opset 7 on is the identity at inference.
const OLDER_DEFINITIONS: [(&str, i64); 26] = [
    ("Not", 1),
    ("And", 7),
    ("Or", 7),
    ("Xor", 7),
    ("Less", 9),
    ("Greater", 9),
    ("Where", 9),
    ("Equal", 11),
    ("LessOrEqual", 12),
    ("GreaterOrEqual", 12),
    ("GlobalAveragePool", 1),
    ("GlobalMaxPool", 1),
    ("Dropout", 7),
    ("QuantizeLinear", 10),
    ("DequantizeLinear", 10),
    ("BatchNormalization", 9),
    ("QLinearConv", 10),
    ("QLinearMatMul", 10),
    ("Conv", 11),
    ("AveragePool", 11),
    ("TopK", 11),
    ("NonMaxSuppression", 11),
    ("MaxPool", 12),
    ("MatMulInteger", 10),
    ("ConvInteger", 10),
    ("Shrink", 9),
];

/// The model's opset of the default domain.
fn default_opset(model: &ModelProto) -> i64 {
    model
        .opset_import
        .iter()
        .find(|o| matches!(o.domain.as_deref(), None | Some("") | Some("ai.onnx")))
        .and_then(|o| o.version)
        .unwrap_or(*OPSETS.start())
}

/// Whether the importer reads `graph` correctly under default-domain opset `version`.
fn opset_supported(graph: &GraphProto, version: i64) -> bool {
    OPSETS.contains(&version)
        || (version < *OPSETS.start()
            && graph.node.iter().all(|n| {
                let op = n.op_type.as_deref().unwrap_or("");
                OLDER_DEFINITIONS
                    .iter()
                    .any(|(o, since)| *o == op && *since <= version)
            }))
}

/// All the unsupported op types of the graph, in one error.
fn check_supported(graph: &GraphProto) -> Result<(), Vec<String>> {
    let mut missing: Vec<(String, usize)> = Vec::new();
    for node in &graph.node {
        let op = node.op_type.clone().unwrap_or_default();
        let domain = node.domain.as_deref().unwrap_or("");
        let known = (domain.is_empty() || domain == "ai.onnx")
            && (supported(&op)
                || fold::FOLDABLE.contains(&op.as_str())
                || decompose::DECOMPOSED.contains(&op.as_str()));
        if !known {
            let shown = if domain.is_empty() {
                op
            } else {
                format!("{domain}.{op}")
            };
            match missing.iter_mut().find(|(o, _)| *o == shown) {
                Some((_, n)) => *n += 1,
                None => missing.push((shown, 1)),
            }
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    let list: Vec<String> = missing
        .iter()
        .map(|(o, n)| format!("{o} ({n} node{})", if *n == 1 { "" } else { "s" }))
        .collect();
    Err(vec![format!(
        "the model uses ops the importer does not support: {}",
        list.join(", ")
    )])
}

struct Importer<'c> {
    ctx: &'c mut Context,
    ir: Ir,
    module_body: BodyId,
    module_block: BlockId,
    /// Values by ONNX name.
    values: HashMap<String, ValueId>,
    /// Initializers (and Constant outputs) by name. Their elements are decoded only
    /// where a node needs the values (a shape, axes, scales), not for every weight.
    constants: HashMap<String, AttrId>,
    /// The default domain's opset.
    opset: i64,
}

impl<'c> Importer<'c> {
    fn new(ctx: &'c mut Context, graph: &GraphProto) -> Result<Importer<'c>, Vec<String>> {
        let (ir, module_body, module_block) = Ir::new_module(ctx);
        let mut constants = HashMap::new();
        let mut errors = Vec::new();
        for t in &graph.initializer {
            let name = t.name.clone().unwrap_or_default();
            match tensors::constant(ctx, t, &name) {
                Ok(a) => {
                    constants.insert(name, a);
                }
                Err(e) => errors.push(format!("initializer '{name}' {e}")),
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        Ok(Importer {
            ctx,
            ir,
            module_body,
            module_block,
            values: HashMap::new(),
            constants,
            opset: *OPSETS.start(),
        })
    }

    fn run(mut self, graph: &GraphProto, name: &str) -> Result<Ir, String> {
        let inputs: Vec<_> = graph
            .input
            .iter()
            .filter(|i| !self.constants.contains_key(i.name.as_deref().unwrap_or("")))
            .collect();
        let mut arg_types = Vec::new();
        for i in &inputs {
            let n = i.name.as_deref().unwrap_or("");
            arg_types.push(
                tensors::value_type(self.ctx, i.r#type.as_ref())
                    .map_err(|e| format!("input '{n}': {e}"))?,
            );
        }
        let loc = self.ctx.unknown_loc();
        let (func, body) = func::Func::build(&mut Builder::new(
            &*self.ctx,
            &mut self.ir,
            self.module_body,
            InsertPoint::End(self.module_block),
            loc,
        ))
        .create_isolated(&arg_types)?;
        let region = self.ir.body(body).top_regions()[0];
        let block = self
            .ir
            .body(body)
            .entry_block(region)
            .ok_or("no entry block")?;
        for (i, v) in inputs
            .iter()
            .zip(self.ir.body(body).block_args(block).to_vec())
        {
            self.values.insert(i.name.clone().unwrap_or_default(), v);
        }
        for node in &graph.node {
            let label = node
                .name
                .clone()
                .filter(|n| !n.is_empty())
                .unwrap_or_else(|| node.output.first().cloned().unwrap_or_default());
            let op_type = node.op_type.clone().unwrap_or_default();
            self.node(body, block, node)
                .map_err(|e| format!("node '{label}' ({op_type}): {e}"))?;
        }
        let mut results = Vec::new();
        for o in &graph.output {
            let n = o.name.clone().unwrap_or_default();
            results.push(
                self.value(body, block, &n)
                    .ok_or_else(|| format!("output '{n}' is not computed by the graph"))?,
            );
        }
        let result_types: Vec<TypeId> = results
            .iter()
            .map(|v| self.ir.body(body).value_type(*v))
            .collect();
        for (o, ty) in graph.output.iter().zip(&result_types) {
            if let Ok(declared) = tensors::value_type(self.ctx, o.r#type.as_ref())
                && self
                    .ctx
                    .type_data(declared)
                    .shape()
                    .is_some_and(|s| s.iter().all(|d| *d >= 0))
                && !refines(self.ctx, declared, *ty)
            {
                return Err(format!(
                    "output '{}' is declared {} but computes to {}",
                    o.name.as_deref().unwrap_or(""),
                    acc_ir::printer::type_to_string(self.ctx, declared),
                    acc_ir::printer::type_to_string(self.ctx, *ty)
                ));
            }
        }
        func::Return::build(
            &mut Builder::new(&*self.ctx, &mut self.ir, body, InsertPoint::End(block), loc),
            &results,
        )
        .create()?;
        let fn_type = self.ctx.function_type(&arg_types, &result_types);
        // Each argument and result carries its ONNX name (`{onnx.name = "..."}`), by
        // which acc-run's --input and --bind name them.
        let names = |ctx: &Context, names: Vec<&str>| -> Result<AttrId, String> {
            let key = ctx.sym(ONNX_NAME);
            let mut dicts = Vec::new();
            for n in names {
                dicts.push(
                    ctx.dict_attr(vec![(key, ctx.string_attr(n))])
                        .map_err(|_| "bad name")?,
                );
            }
            Ok(ctx.intern_attr(acc_ir::attrs::AttrData::Array(dicts.into())))
        };
        let arg_names = names(
            self.ctx,
            inputs
                .iter()
                .map(|i| i.name.as_deref().unwrap_or(""))
                .collect(),
        )?;
        let result_names = names(
            self.ctx,
            graph
                .output
                .iter()
                .map(|o| o.name.as_deref().unwrap_or(""))
                .collect(),
        )?;
        let props = vec![
            (self.ctx.sym(func::Func::ATTR_ARG_ATTRS), arg_names),
            (self.ctx.sym(func::Func::ATTR_RES_ATTRS), result_names),
            (
                self.ctx.sym(func::Func::ATTR_SYM_NAME),
                self.ctx.string_attr(name),
            ),
            (
                self.ctx.sym(func::Func::ATTR_FUNCTION_TYPE),
                self.ctx.type_attr(fn_type),
            ),
        ];
        let props = self
            .ctx
            .dict_attr(props)
            .map_err(|_| "bad function properties")?;
        self.ir.body_mut(self.module_body).op_mut(func).props = Some(props);
        Ok(self.ir)
    }

    /// The value named `name`: computed, an argument, or an initializer (made a
    /// `graph.constant` at its first use).
    fn value(&mut self, body: BodyId, block: BlockId, name: &str) -> Option<ValueId> {
        if let Some(v) = self.values.get(name) {
            return Some(*v);
        }
        let attr = *self.constants.get(name)?;
        let ty = acc_ir::rewrite::attr_type(self.ctx, attr)?;
        let loc = self.ctx.unknown_loc();
        let v = graph::Constant::build(
            &mut Builder::new(&*self.ctx, &mut self.ir, body, InsertPoint::End(block), loc),
            ty,
        )
        .value(attr)
        .result()
        .ok()?;
        self.values.insert(name.to_string(), v);
        Some(v)
    }

    fn node(
        &mut self,
        body: BodyId,
        block: BlockId,
        node: &crate::proto::NodeProto,
    ) -> Result<(), String> {
        if node.op_type.as_deref() == Some("Constant") {
            let out = node.output.first().cloned().unwrap_or_default();
            let t = constant_tensor(node)?;
            let attr = tensors::constant(self.ctx, &t, &out)?;
            self.constants.insert(out, attr);
            return Ok(());
        }
        let op_type = node.op_type.as_deref().unwrap_or("");
        if fold::FOLDABLE.contains(&op_type) {
            match self.fold(body, node)? {
                true => return Ok(()),
                false if !supported(op_type) && !decompose::DECOMPOSED.contains(&op_type) => {
                    // Name the first input that is not known (a caller may bind it).
                    let unknown = node
                        .input
                        .iter()
                        .enumerate()
                        .find(|(_, n)| !n.is_empty() && !self.constants.contains_key(*n));
                    return Err(match unknown {
                        Some((i, name)) => format!(
                            "acc computes {op_type} at import only, from known inputs: its input {i} ('{name}') must be a constant (an initializer, a shape of a statically shaped value, or a model input fixed with --bind)"
                        ),
                        None => format!(
                            "acc computes {op_type} at import only, and not for these inputs (an element type or size it does not fold)"
                        ),
                    });
                }
                false => {}
            }
        }
        if self.decomposed(body, block, node)? {
            return Ok(());
        }
        let constants = node
            .input
            .iter()
            .map(|i| self.constants.get(i).copied())
            .collect();
        let types: Vec<Option<TypeId>> = node
            .input
            .iter()
            .map(|i| {
                self.values
                    .get(i)
                    .map(|v| self.ir.body(body).value_type(*v))
                    .or_else(|| {
                        self.constants
                            .get(i)
                            .and_then(|a| acc_ir::rewrite::attr_type(self.ctx, *a))
                    })
            })
            .collect();
        if let Some(op) = compose::variadic_op(node) {
            return self.variadic(body, block, node, op);
        }
        if compose::is_mixed_pow(node, &types) {
            return self.mixed_pow(body, block, node, &types);
        }
        if quant::handles(node) {
            return self.quantized(body, block, node, types);
        }
        let lowered = lower(&Node {
            ctx: self.ctx,
            proto: node,
            constants,
            types,
        })?;
        let mut operands = Vec::new();
        for &i in &lowered.operands {
            let name = node.input.get(i).cloned().unwrap_or_default();
            if name.is_empty() {
                return Err(format!("its input {i} is missing"));
            }
            operands.push(
                self.value(body, block, &name)
                    .ok_or_else(|| format!("input '{name}' is not defined"))?,
            );
        }
        if lowered.op.is_none() {
            // Identity, Dropout (inference): the output is the input.
            let input = *operands.first().ok_or("has no input")?;
            let out = node.output.first().cloned().unwrap_or_default();
            self.values.insert(out, input);
            if let Some(mask) = node.output.get(1).filter(|m| !m.is_empty()) {
                let ty = self.ir.body(body).value_type(input);
                let mask_value = self.dropout_mask(body, block, ty)?;
                self.values.insert(mask.clone(), mask_value);
            }
            return Ok(());
        }
        let mut results = self.create(body, block, &lowered, &operands)?;
        if node.op_type.as_deref() == Some("LayerNormalization")
            && node.output.iter().skip(1).any(|o| !o.is_empty())
        {
            let axis = node
                .attribute
                .iter()
                .find(|a| a.name.as_deref() == Some("axis"))
                .and_then(|a| a.i)
                .unwrap_or(-1);
            let eps = node
                .attribute
                .iter()
                .find(|a| a.name.as_deref() == Some("epsilon"))
                .and_then(|a| a.f)
                .unwrap_or(1e-5);
            results.extend(self.layer_norm_statistics(body, block, operands[0], axis, eps)?);
        }
        if node
            .output
            .iter()
            .skip(results.len())
            .any(|o| !o.is_empty())
        {
            return Err(format!(
                "its outputs after the first {} (such as training-mode statistics) are not supported",
                results.len()
            ));
        }
        for (name, v) in node.output.iter().zip(results) {
            self.values.insert(name.clone(), v);
        }
        Ok(())
    }

    /// Folds `node` when its inputs are known ([`fold`]): its outputs become constants.
    /// False when it is left to run.
    fn fold(&mut self, body: BodyId, node: &crate::proto::NodeProto) -> Result<bool, String> {
        // Only Shape and Size (and CastLike's second input) fold from types: any other
        // node with an input that is not a constant is left to run before its
        // constants are expanded (a Mul of a large weight by an activation would
        // expand the weight for nothing).
        let op = node.op_type.as_deref().unwrap_or("");
        let needed = match op {
            "Shape" | "Size" => 0,
            "CastLike" => 1,
            _ => node.input.len(),
        };
        if node
            .input
            .iter()
            .take(needed)
            .any(|n| !n.is_empty() && !self.constants.contains_key(n))
        {
            return Ok(false);
        }
        let mut inputs = Vec::new();
        for name in &node.input {
            let input = if name.is_empty() {
                fold::Input::Absent
            } else if let Some(&attr) = self.constants.get(name) {
                let ty = acc_ir::rewrite::attr_type(self.ctx, attr).ok_or("bad constant")?;
                let data = self.ctx.type_data(ty);
                match (data.element_type(), data.shape()) {
                    (Some(element), Some(shape))
                        if elements::num_elements(self.ctx, ty)
                            .is_some_and(|n| n <= fold::MAX_ELEMENTS) =>
                    {
                        let shape = shape.to_vec();
                        match expand(self.ctx, attr) {
                            Some(data) => fold::Input::Known(fold::Known {
                                element,
                                shape,
                                data,
                                splat: false,
                            }),
                            None => fold::Input::Typed(ty),
                        }
                    }
                    _ => fold::Input::Typed(ty),
                }
            } else if let Some(v) = self.values.get(name) {
                fold::Input::Typed(self.ir.body(body).value_type(*v))
            } else {
                fold::Input::Absent
            };
            inputs.push(input);
        }
        let Some(outputs) = fold::fold(self.ctx, node, &inputs, self.opset) else {
            return Ok(false);
        };
        for (name, k) in node.output.iter().zip(outputs?) {
            let data = if k.splat { &k.data[..1] } else { &k.data[..] };
            let attr = tensors::computed_constant(self.ctx, k.element, &k.shape, data, name)?;
            self.constants.insert(name.clone(), attr);
        }
        Ok(true)
    }

    /// Imports `node` as the simpler nodes [`decompose`] writes for it, if it
    /// writes any (false: it does not).
    fn decomposed(
        &mut self,
        body: BodyId,
        block: BlockId,
        node: &crate::proto::NodeProto,
    ) -> Result<bool, String> {
        let op = node.op_type.as_deref().unwrap_or("");
        if !decompose::may_decompose(op) {
            return Ok(false);
        }
        let first = node.input.first().cloned().unwrap_or_default();
        let ty = self
            .values
            .get(&first)
            .map(|v| self.ir.body(body).value_type(*v))
            .or_else(|| {
                self.constants
                    .get(&first)
                    .and_then(|a| acc_ir::rewrite::attr_type(self.ctx, *a))
            })
            .ok_or_else(|| format!("input '{first}' is not defined"))?;
        let data = self.ctx.type_data(ty);
        let element = data.element_type().ok_or("its input must be a tensor")?;
        let static_shape = |ty: TypeId| {
            self.ctx
                .type_data(ty)
                .shape()
                .filter(|s| s.iter().all(|d| *d >= 0))
                .map(<[i64]>::to_vec)
        };
        let second = node.input.get(1).cloned().unwrap_or_default();
        let second_type = self
            .values
            .get(&second)
            .map(|v| self.ir.body(body).value_type(*v))
            .or_else(|| {
                self.constants
                    .get(&second)
                    .and_then(|a| acc_ir::rewrite::attr_type(self.ctx, *a))
            });
        let data_type = tensors::data_type(self.ctx, element)
            .ok_or("its input's element type is not supported")?;
        let half = [
            crate::proto::tensor_proto::DataType::Float16 as i32,
            crate::proto::tensor_proto::DataType::Bfloat16 as i32,
        ];
        if half.contains(&data_type) && decompose::computes_in_f32(op) {
            return self.in_f32(body, block, node, data_type).map(|()| true);
        }
        let operand = decompose::Operand {
            data_type,
            shape: static_shape(ty),
            second_shape: second_type.and_then(static_shape),
            second_known: self.constants.contains_key(&second),
        };
        let known = |i: usize| -> Option<Vec<i64>> {
            let name = node.input.get(i)?;
            let values = expand(self.ctx, *self.constants.get(name)?)?;
            values
                .into_iter()
                .map(|v| match v {
                    Scalar::Int(x) => i64::try_from(x).ok(),
                    // OneHot's depth may be a float holding a count.
                    Scalar::Float(f) if f.fract() == 0.0 && f.abs() < 9e15 => Some(f as i64),
                    Scalar::Float(_) => None,
                })
                .collect()
        };
        let Some(expansion) = decompose::decompose(node, &operand, &known, self.opset) else {
            return Ok(false);
        };
        let expansion = expansion?;
        for t in &expansion.constants {
            let name = t.name.clone().unwrap_or_default();
            let attr = tensors::constant(self.ctx, t, &name)?;
            self.constants.insert(name, attr);
        }
        for n in &expansion.nodes {
            self.node(body, block, n)?;
        }
        Ok(true)
    }

    /// `node` (of an f16 or bf16 input, ONNX type `data_type`) computed in f32: its
    /// inputs of that type cast up, the node, its output cast back.
    fn in_f32(
        &mut self,
        body: BodyId,
        block: BlockId,
        node: &crate::proto::NodeProto,
        data_type: i32,
    ) -> Result<(), String> {
        use crate::proto::{AttributeProto, NodeProto, attribute_proto::AttributeType};
        let out = node.output.first().cloned().unwrap_or_default();
        let cast = |input: &str, output: &str, to: i32| NodeProto {
            op_type: Some("Cast".into()),
            input: vec![input.into()],
            output: vec![output.into()],
            attribute: vec![AttributeProto {
                name: Some("to".into()),
                r#type: Some(AttributeType::Int as i32),
                i: Some(to.into()),
                ..Default::default()
            }],
            ..Default::default()
        };
        let wide = format!("{out}::f32");
        let float = crate::proto::tensor_proto::DataType::Float as i32;
        let mut inner = node.clone();
        inner.output = vec![wide.clone()];
        // Every input of the half type (the data, and a slope, scale or bias) is cast
        // up; integer inputs (axes) stay.
        let mut steps = Vec::new();
        for (i, name) in node.input.iter().enumerate() {
            let ty = self
                .values
                .get(name)
                .map(|v| self.ir.body(body).value_type(*v))
                .or_else(|| {
                    self.constants
                        .get(name)
                        .and_then(|a| acc_ir::rewrite::attr_type(self.ctx, *a))
                });
            let same_half = ty
                .and_then(|t| self.ctx.type_data(t).element_type())
                .and_then(|e| tensors::data_type(self.ctx, e))
                == Some(data_type);
            if !name.is_empty() && same_half {
                let up = format!("{out}::f32_input{i}");
                steps.push(cast(name, &up, float));
                inner.input[i] = up;
            }
        }
        steps.push(inner);
        steps.push(cast(&wide, &out, data_type));
        for n in &steps {
            self.node(body, block, n)?;
        }
        Ok(())
    }

    /// A `graph.constant` of type `ty` holding `value` everywhere.
    fn constant(
        &mut self,
        body: BodyId,
        block: BlockId,
        ty: TypeId,
        value: Scalar,
    ) -> Result<ValueId, String> {
        let attr = elements::dense_attr(self.ctx, ty, &[value]).ok_or("bad constant")?;
        let loc = self.ctx.unknown_loc();
        graph::Constant::build(
            &mut Builder::new(&*self.ctx, &mut self.ir, body, InsertPoint::End(block), loc),
            ty,
        )
        .value(attr)
        .result()
    }

    /// Creates the graph op, its result types inferred.
    fn create(
        &mut self,
        body: BodyId,
        block: BlockId,
        l: &Lowered,
        operands: &[ValueId],
    ) -> Result<Vec<ValueId>, String> {
        let operand_types: Vec<TypeId> = operands
            .iter()
            .map(|v| self.ir.body(body).value_type(*v))
            .collect();
        let types = match &l.result_types {
            Some(t) => t.clone(),
            None => self.infer(l, &operand_types)?,
        };
        let loc = self.ctx.unknown_loc();
        let props: Vec<(&str, AttrId)> = l.attrs.iter().map(|(k, v)| (*k, *v)).collect();
        Builder::new(&*self.ctx, &mut self.ir, body, InsertPoint::End(block), loc).op(
            op_name(l),
            operands,
            &types,
            &props,
        )
    }
}

impl Importer<'_> {
    /// The result types `l`'s op infers for operands of `operand_types`.
    fn infer(&self, l: &Lowered, operand_types: &[TypeId]) -> Result<Vec<TypeId>, String> {
        let ctx = &*self.ctx;
        let op = op_name(l);
        let name = ctx
            .lookup_op_name(op)
            .ok_or_else(|| format!("'{op}' is not registered"))?;
        let def = ctx
            .op_def(name)
            .ok_or_else(|| format!("'{op}' is not registered"))?;
        let infer = def
            .infer
            .as_ref()
            .ok_or_else(|| format!("'{op}' cannot infer its result types"))?;
        let props: Vec<_> = l.attrs.iter().map(|(k, v)| (ctx.sym(k), *v)).collect();
        let input = InferInput {
            operand_types,
            props: acc_ir::builder::with_defaults(ctx, name, props)?,
            attrs: ctx.empty_dict(),
        };
        Ok(infer(ctx, &input)?
            .into_iter()
            .map(|t| ctx.intern_type(t))
            .collect())
    }
}

/// The name of `l`'s graph op (empty when the node forwards its input).
fn op_name(l: &Lowered) -> &'static str {
    l.op.map_or("", graph::Op::name)
}

/// Whether `declared` is `computed` with some dynamic dimensions made static (a model
/// may declare the shape an op such as NonMaxSuppression only knows when it runs).
fn refines(ctx: &Context, declared: TypeId, computed: TypeId) -> bool {
    let (d, c) = (ctx.type_data(declared), ctx.type_data(computed));
    match (d.shape(), c.shape()) {
        (Some(ds), Some(cs)) => {
            d.element_type() == c.element_type()
                && ds.len() == cs.len()
                && ds
                    .iter()
                    .zip(cs)
                    .all(|(a, b)| a == b || *b == acc_ir::DYNAMIC)
        }
        _ => declared == computed,
    }
}

/// Every element of a constant attribute (a splat repeated).
pub(crate) fn expand(ctx: &Context, a: AttrId) -> Option<Vec<Scalar>> {
    let d = elements::dense_view(ctx, a)?;
    let n = elements::num_elements(ctx, d.ty)?;
    // A splat of absurd size stays unexpanded: the model is then refused where its
    // values were needed, not by exhausting the machine.
    acc_ir::budget::allocation("a constant", n as u64, std::mem::size_of::<Scalar>() as u64)
        .ok()?;
    Some((0..n).map(|i| d.get(i)).collect())
}

/// The tensor a Constant node holds: `value`, or one of the scalar and list forms.
fn constant_tensor(node: &crate::proto::NodeProto) -> Result<crate::proto::TensorProto, String> {
    use crate::proto::{TensorProto, tensor_proto::DataType};
    let a = node.attribute.first().ok_or("a Constant needs a value")?;
    let mut t = TensorProto::default();
    match a.name.as_deref() {
        Some("value") => {
            return a
                .t
                .clone()
                .ok_or_else(|| "its value is not a tensor".to_string());
        }
        Some("value_float") => {
            t.data_type = Some(DataType::Float as i32);
            t.float_data = vec![a.f.unwrap_or(0.0)];
        }
        Some("value_floats") => {
            t.data_type = Some(DataType::Float as i32);
            t.dims = vec![a.floats.len() as i64];
            t.float_data = a.floats.clone();
        }
        Some("value_int") => {
            t.data_type = Some(DataType::Int64 as i32);
            t.int64_data = vec![a.i.unwrap_or(0)];
        }
        Some("value_ints") => {
            t.data_type = Some(DataType::Int64 as i32);
            t.dims = vec![a.ints.len() as i64];
            t.int64_data = a.ints.clone();
        }
        other => {
            return Err(format!(
                "a Constant given by '{}' is not supported",
                other.unwrap_or("")
            ));
        }
    }
    Ok(t)
}
