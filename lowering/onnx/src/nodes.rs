//! ONNX nodes as graph ops: which op, which inputs stay operands, and the attributes
//! (ONNX attributes, and constant inputs such as shapes and axes, which the graph
//! dialect takes as attributes).

use acc_dialects::ops::graph;
use acc_ir::attrs::AttrData;
use acc_ir::elements::{self, Scalar};
use acc_ir::{AttrId, Context, FloatKind, TypeId};

use crate::proto::{AttributeProto, NodeProto};

/// A node ready to become a graph op.
pub struct Lowered {
    /// The graph op (`None`: the node forwards its input).
    pub op: Option<graph::Op>,
    /// Which of the node's inputs are operands, in order.
    pub operands: Vec<usize>,
    /// Attributes, by name.
    pub attrs: Vec<(&'static str, AttrId)>,
    /// Result types when the op cannot infer them (`cast`).
    pub result_types: Option<Vec<TypeId>>,
}

/// What a conversion sees of a node.
pub struct Node<'a> {
    /// The context (attributes are built in it).
    pub ctx: &'a Context,
    /// The node.
    pub proto: &'a NodeProto,
    /// The constant attribute of each input, when it is an initializer or a Constant
    /// (its elements are read by [`Node::constant`] when needed).
    pub constants: Vec<Option<AttrId>>,
    /// The type of each input.
    pub types: Vec<Option<TypeId>>,
}

impl Node<'_> {
    fn attr(&self, name: &str) -> Option<&AttributeProto> {
        self.proto
            .attribute
            .iter()
            .find(|a| a.name.as_deref() == Some(name))
    }
    fn int(&self, name: &str) -> Option<i64> {
        self.attr(name).and_then(|a| a.i)
    }
    fn float(&self, name: &str) -> Option<f32> {
        self.attr(name).and_then(|a| a.f)
    }
    fn ints(&self, name: &str) -> Option<Vec<i64>> {
        self.attr(name).map(|a| a.ints.clone())
    }
    fn string(&self, name: &str) -> Option<String> {
        self.attr(name)
            .and_then(|a| a.s.as_ref())
            .map(|s| String::from_utf8_lossy(s).into_owned())
    }
    /// Whether input `i` is given (ONNX marks an absent optional input with "").
    fn has_input(&self, i: usize) -> bool {
        self.proto.input.get(i).is_some_and(|n| !n.is_empty())
    }
    /// The error for input `i` (a `what`) not being a constant; it names the input, so
    /// that a caller can supply its value.
    fn not_constant(&self, i: usize, what: &str) -> String {
        let name = self.proto.input.get(i).map(String::as_str).unwrap_or("");
        format!("its {what} (input {i}, '{name}') must be a constant")
    }
    /// The values of constant input `i`.
    fn constant(&self, i: usize, what: &str) -> Result<Vec<Scalar>, String> {
        self.constants
            .get(i)
            .copied()
            .flatten()
            .and_then(|a| crate::import::expand(self.ctx, a))
            .ok_or_else(|| self.not_constant(i, what))
    }
    /// Constant input `i` as integers (shapes, axes, pads).
    fn const_ints(&self, i: usize, what: &str) -> Result<Vec<i64>, String> {
        self.constant(i, what)?
            .into_iter()
            .map(|v| match v {
                Scalar::Int(x) => i64::try_from(x).map_err(|_| format!("{what} out of range")),
                Scalar::Float(_) => Err(format!("{what} must be integers")),
            })
            .collect()
    }
    /// Constant input `i` as numbers (scales, regions of interest).
    fn const_floats(&self, i: usize, what: &str) -> Result<Vec<f64>, String> {
        Ok(self
            .constant(i, what)?
            .into_iter()
            .map(|v| match v {
                Scalar::Float(f) => f,
                Scalar::Int(i) => i as f64,
            })
            .collect())
    }
    /// Constant scalar input `i` as a number.
    fn const_number(&self, i: usize, what: &str) -> Result<f64, String> {
        match self.const_floats(i, what)?.as_slice() {
            [x] => Ok(*x),
            _ => Err(format!("{what} must be one number")),
        }
    }
    /// The static shape of input `i`.
    fn static_shape(&self, i: usize) -> Option<Vec<i64>> {
        let ty = self.types.get(i).copied().flatten()?;
        let shape = self.ctx.type_data(ty).shape()?;
        shape.iter().all(|d| *d >= 0).then(|| shape.to_vec())
    }
    fn f32s_attr(&self, v: &[f64]) -> AttrId {
        let data: Vec<u8> = v.iter().flat_map(|x| (*x as f32).to_le_bytes()).collect();
        self.ctx.intern_attr(AttrData::DenseArray {
            element: self.ctx.float_type(FloatKind::F32),
            data: data.into(),
        })
    }
    fn i64_attr(&self, v: i64) -> AttrId {
        elements::scalar_attr(self.ctx, self.ctx.int_type(64), Scalar::Int(v.into()))
            .expect("i64 attribute")
    }
    fn f32_attr(&self, v: f64) -> AttrId {
        elements::scalar_attr(
            self.ctx,
            self.ctx.float_type(FloatKind::F32),
            Scalar::Float(v),
        )
        .expect("f32 attribute")
    }
    fn f64_attr(&self, v: f64) -> AttrId {
        elements::scalar_attr(
            self.ctx,
            self.ctx.float_type(FloatKind::F64),
            Scalar::Float(v),
        )
        .expect("f64 attribute")
    }
    fn bool_attr(&self, v: bool) -> AttrId {
        bool_attr(self.ctx, v)
    }
    /// `#graph.NAME<case>`.
    fn enum_attr(&self, name: &str, case: &str) -> AttrId {
        self.ctx.intern_attr(AttrData::Dialect {
            dialect: self.ctx.sym("graph"),
            body: self.ctx.sym(&format!(".{name}<{case}>")),
            ty: None,
        })
    }
    fn i64s_attr(&self, v: &[i64]) -> AttrId {
        i64s_attr(self.ctx, v)
    }
}

/// `array<i64: ...>`.
pub(crate) fn i64s_attr(ctx: &Context, v: &[i64]) -> AttrId {
    let data: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    ctx.intern_attr(AttrData::DenseArray {
        element: ctx.int_type(64),
        data: data.into(),
    })
}

/// `true` or `false` (an `i1`).
pub(crate) fn bool_attr(ctx: &Context, v: bool) -> AttrId {
    elements::scalar_attr(ctx, ctx.int_type(1), Scalar::Int(v.into())).expect("bool attribute")
}

fn op(
    kind: impl Into<Option<graph::Op>>,
    operands: Vec<usize>,
    attrs: Vec<(&'static str, AttrId)>,
) -> Result<Lowered, String> {
    Ok(Lowered {
        op: kind.into(),
        operands,
        attrs,
        result_types: None,
    })
}

/// Elementwise and other ops that map one to one, without attributes (no op: the
/// node forwards its input).
const DIRECT: [(&str, Option<graph::Op>, usize); 47] = [
    ("Relu", Some(graph::Op::Relu), 1),
    ("Equal", Some(graph::Op::Equal), 2),
    ("Less", Some(graph::Op::Less), 2),
    ("Greater", Some(graph::Op::Greater), 2),
    ("LessOrEqual", Some(graph::Op::LessEqual), 2),
    ("GreaterOrEqual", Some(graph::Op::GreaterEqual), 2),
    ("And", Some(graph::Op::And), 2),
    ("Or", Some(graph::Op::Or), 2),
    ("Xor", Some(graph::Op::Xor), 2),
    ("Not", Some(graph::Op::Not), 1),
    ("BitwiseAnd", Some(graph::Op::BitwiseAnd), 2),
    ("BitwiseOr", Some(graph::Op::BitwiseOr), 2),
    ("BitwiseXor", Some(graph::Op::BitwiseXor), 2),
    ("BitwiseNot", Some(graph::Op::BitwiseNot), 1),
    ("Where", Some(graph::Op::Where), 3),
    ("Floor", Some(graph::Op::Floor), 1),
    ("Ceil", Some(graph::Op::Ceil), 1),
    ("Round", Some(graph::Op::Round), 1),
    ("Sigmoid", Some(graph::Op::Sigmoid), 1),
    ("Tanh", Some(graph::Op::Tanh), 1),
    ("Erf", Some(graph::Op::Erf), 1),
    ("Exp", Some(graph::Op::Exp), 1),
    ("Log", Some(graph::Op::Log), 1),
    ("Sqrt", Some(graph::Op::Sqrt), 1),
    ("Neg", Some(graph::Op::Neg), 1),
    ("Sin", Some(graph::Op::Sin), 1),
    ("Cos", Some(graph::Op::Cos), 1),
    ("Tan", Some(graph::Op::Tan), 1),
    ("Asin", Some(graph::Op::Asin), 1),
    ("Acos", Some(graph::Op::Acos), 1),
    ("Atan", Some(graph::Op::Atan), 1),
    ("Sinh", Some(graph::Op::Sinh), 1),
    ("Cosh", Some(graph::Op::Cosh), 1),
    ("Asinh", Some(graph::Op::Asinh), 1),
    ("Acosh", Some(graph::Op::Acosh), 1),
    ("Atanh", Some(graph::Op::Atanh), 1),
    ("Abs", Some(graph::Op::Abs), 1),
    ("Add", Some(graph::Op::Add), 2),
    ("Sub", Some(graph::Op::Sub), 2),
    ("Mul", Some(graph::Op::Mul), 2),
    ("Div", Some(graph::Op::Div), 2),
    ("Pow", Some(graph::Op::Pow), 2),
    ("MatMul", Some(graph::Op::Matmul), 2),
    ("GlobalAveragePool", Some(graph::Op::GlobalAvgPool), 1),
    ("GlobalMaxPool", Some(graph::Op::GlobalMaxPool), 1),
    ("Identity", None, 1),
    ("Dropout", None, 1),
];

/// The ONNX op types this importer converts.
pub fn supported(op_type: &str) -> bool {
    DIRECT.iter().any(|(o, _, _)| *o == op_type)
        || matches!(
            op_type,
            "Constant"
                | "Mod"
                | "BitShift"
                | "Max"
                | "Min"
                | "Sum"
                | "TopK"
                | "Conv"
                | "Gemm"
                | "BatchNormalization"
                | "LayerNormalization"
                | "Softmax"
                | "MaxPool"
                | "AveragePool"
                | "Reshape"
                | "Flatten"
                | "Transpose"
                | "Concat"
                | "Squeeze"
                | "Unsqueeze"
                | "Slice"
                | "Pad"
                | "Clip"
                | "Cast"
                | "CastLike"
                | "Gelu"
                | "ReduceSum"
                | "ReduceMean"
                | "ReduceMax"
                | "ReduceMin"
                | "ReduceProd"
                | "QuantizeLinear"
                | "DequantizeLinear"
                | "QLinearConv"
                | "QLinearMatMul"
                | "Resize"
                | "NonMaxSuppression"
                | "Gather"
                | "GatherElements"
                | "GatherND"
                | "ArgMax"
                | "ArgMin"
                | "CumSum"
        )
}

/// The graph op for `node` (an empty op name: the node forwards its input).
pub fn lower(n: &Node<'_>) -> Result<Lowered, String> {
    let op_type = n.proto.op_type.as_deref().unwrap_or("");
    if let Some((_, name, arity)) = DIRECT.iter().find(|(o, _, _)| *o == op_type) {
        let given = n.proto.input.iter().filter(|i| !i.is_empty()).count();
        if given != *arity && name.is_some() {
            return Err(format!(
                "{op_type} with {given} inputs is not supported ({arity} are)"
            ));
        }
        if op_type == "Dropout" && n.has_input(2) {
            let training = n.const_ints(2, "training_mode")?;
            // Training with a ratio of 0 drops nothing: the output is the input and
            // the mask all true, as in inference.
            let ratio = if n.has_input(1) {
                n.const_floats(1, "ratio")?
            } else {
                vec![0.5]
            };
            if training.iter().any(|t| *t != 0) && ratio.iter().any(|r| *r != 0.0) {
                return Err(
                    "training-mode Dropout with a non-zero ratio (random masks) is not supported"
                        .into(),
                );
            }
        }
        return op(*name, (0..*arity).collect(), Vec::new());
    }
    let spatial = |what: &str, dims: usize| {
        if dims == 2 {
            Ok(())
        } else {
            Err(format!("{dims}-D {what} is not supported (2-D only)"))
        }
    };
    match op_type {
        "Conv" => {
            let rank = n
                .types
                .get(1)
                .copied()
                .flatten()
                .and_then(|t| n.ctx.type_data(t).shape().map(<[i64]>::len));
            spatial("convolution", rank.unwrap_or(4).saturating_sub(2))?;
            let attrs = vec![
                (
                    graph::Conv2d::ATTR_STRIDES,
                    n.i64s_attr(&n.ints("strides").unwrap_or(vec![1, 1])),
                ),
                (
                    graph::Conv2d::ATTR_DILATIONS,
                    n.i64s_attr(&n.ints("dilations").unwrap_or(vec![1, 1])),
                ),
                (
                    graph::Conv2d::ATTR_PADS,
                    n.i64s_attr(&pads_2d(n, &conv_kernel(n))?),
                ),
                (
                    graph::Conv2d::ATTR_GROUPS,
                    n.i64_attr(n.int("group").unwrap_or(1)),
                ),
            ];
            let operands = if n.has_input(2) {
                vec![0, 1, 2]
            } else {
                vec![0, 1]
            };
            op(graph::Op::Conv2d, operands, attrs)
        }
        "Gemm" => {
            let attrs = vec![
                (
                    graph::Gemm::ATTR_ALPHA,
                    n.f32_attr(n.float("alpha").unwrap_or(1.0).into()),
                ),
                (
                    graph::Gemm::ATTR_BETA,
                    n.f32_attr(n.float("beta").unwrap_or(1.0).into()),
                ),
                (
                    graph::Gemm::ATTR_TRANS_A,
                    n.bool_attr(n.int("transA").unwrap_or(0) != 0),
                ),
                (
                    graph::Gemm::ATTR_TRANS_B,
                    n.bool_attr(n.int("transB").unwrap_or(0) != 0),
                ),
            ];
            let operands = if n.has_input(2) {
                vec![0, 1, 2]
            } else {
                vec![0, 1]
            };
            op(graph::Op::Gemm, operands, attrs)
        }
        "BatchNormalization" => op(
            graph::Op::BatchNorm,
            vec![0, 1, 2, 3, 4],
            vec![(
                graph::BatchNorm::ATTR_EPSILON,
                n.f32_attr(n.float("epsilon").unwrap_or(1e-5).into()),
            )],
        ),
        "LayerNormalization" => op(
            graph::Op::LayerNorm,
            if n.has_input(2) {
                vec![0, 1, 2]
            } else {
                vec![0, 1]
            },
            vec![
                (
                    graph::LayerNorm::ATTR_AXIS,
                    n.i64_attr(n.int("axis").unwrap_or(-1)),
                ),
                (
                    graph::LayerNorm::ATTR_EPSILON,
                    n.f32_attr(n.float("epsilon").unwrap_or(1e-5).into()),
                ),
            ],
        ),
        "TopK" => op(
            graph::Op::Topk,
            vec![0],
            vec![
                (
                    graph::Topk::ATTR_K,
                    n.i64_attr(
                        *n.const_ints(1, "k")?
                            .first()
                            .ok_or("k must have one value")?,
                    ),
                ),
                (
                    graph::Topk::ATTR_AXIS,
                    n.i64_attr(n.int("axis").unwrap_or(-1)),
                ),
                (
                    graph::Topk::ATTR_LARGEST,
                    n.bool_attr(n.int("largest").unwrap_or(1) != 0),
                ),
                (
                    graph::Topk::ATTR_SORTED,
                    n.bool_attr(n.int("sorted").unwrap_or(1) != 0),
                ),
            ],
        ),
        "Softmax" => op(
            graph::Op::Softmax,
            vec![0],
            vec![(
                graph::Softmax::ATTR_AXIS,
                n.i64_attr(n.int("axis").unwrap_or(-1)),
            )],
        ),
        "MaxPool" | "AveragePool" => {
            let kernel = n.ints("kernel_shape").ok_or("requires kernel_shape")?;
            spatial("pooling", kernel.len())?;
            let [kernel_shape, strides, pads, dilations, ceil_mode] = if op_type == "AveragePool" {
                [
                    graph::AvgPool::ATTR_KERNEL_SHAPE,
                    graph::AvgPool::ATTR_STRIDES,
                    graph::AvgPool::ATTR_PADS,
                    graph::AvgPool::ATTR_DILATIONS,
                    graph::AvgPool::ATTR_CEIL_MODE,
                ]
            } else {
                [
                    graph::MaxPool::ATTR_KERNEL_SHAPE,
                    graph::MaxPool::ATTR_STRIDES,
                    graph::MaxPool::ATTR_PADS,
                    graph::MaxPool::ATTR_DILATIONS,
                    graph::MaxPool::ATTR_CEIL_MODE,
                ]
            };
            let mut attrs = vec![
                (kernel_shape, n.i64s_attr(&kernel)),
                (
                    strides,
                    n.i64s_attr(&n.ints("strides").unwrap_or(vec![1, 1])),
                ),
                (pads, n.i64s_attr(&pads_2d(n, &kernel)?)),
                (
                    dilations,
                    n.i64s_attr(&n.ints("dilations").unwrap_or(vec![1, 1])),
                ),
                (ceil_mode, n.bool_attr(n.int("ceil_mode").unwrap_or(0) != 0)),
            ];
            if op_type == "AveragePool" {
                attrs.push((
                    graph::AvgPool::ATTR_COUNT_INCLUDE_PAD,
                    n.bool_attr(n.int("count_include_pad").unwrap_or(0) != 0),
                ));
                return op(graph::Op::AvgPool, vec![0], attrs);
            }
            op(graph::Op::MaxPool, vec![0], attrs)
        }
        "Reshape" => {
            let mut shape = n.const_ints(1, "shape")?;
            // allowzero = 1 makes a 0 a size rather than a copy (an empty result, of
            // an empty input). ONNX forbids a -1 beside it, so one such 0 is the
            // dimension `graph.reshape` infers from the others: a -1.
            if n.int("allowzero").unwrap_or(0) != 0 && shape.contains(&0) {
                let zeros = shape.iter().filter(|d| **d == 0).count();
                if zeros > 1 || shape.contains(&-1) {
                    return Err(
                        "allowzero = 1 with several 0s, or a 0 and a -1, in the shape is not supported"
                            .into(),
                    );
                }
                let input_shape = n
                    .types
                    .first()
                    .copied()
                    .flatten()
                    .and_then(|t| n.ctx.type_data(t).shape().map(<[i64]>::to_vec))
                    .ok_or("its input must be a ranked tensor")?;
                if !input_shape.contains(&0) {
                    return Err(format!(
                        "a 0 in the shape (allowzero = 1) makes an empty tensor, but the input has shape {input_shape:?}"
                    ));
                }
                shape = shape
                    .iter()
                    .map(|d| if *d == 0 { -1 } else { *d })
                    .collect();
            }
            op(
                graph::Op::Reshape,
                vec![0],
                vec![(graph::Reshape::ATTR_SHAPE, n.i64s_attr(&shape))],
            )
        }
        "Flatten" => op(
            graph::Op::Flatten,
            vec![0],
            vec![(
                graph::Flatten::ATTR_AXIS,
                n.i64_attr(n.int("axis").unwrap_or(1)),
            )],
        ),
        "Transpose" => {
            let attrs = n
                .ints("perm")
                .map(|p| vec![(graph::Transpose::ATTR_PERM, n.i64s_attr(&p))])
                .unwrap_or_default();
            op(graph::Op::Transpose, vec![0], attrs)
        }
        "Concat" => op(
            graph::Op::Concat,
            (0..n.proto.input.len()).collect(),
            vec![(
                graph::Concat::ATTR_AXIS,
                n.i64_attr(n.int("axis").ok_or("requires axis")?),
            )],
        ),
        "Squeeze" | "Unsqueeze" => {
            let axes = if n.has_input(1) {
                Some(n.const_ints(1, "axes")?)
            } else {
                n.ints("axes")
            };
            let (kind, axes_name) = if op_type == "Squeeze" {
                (graph::Op::Squeeze, graph::Squeeze::ATTR_AXES)
            } else {
                (graph::Op::Unsqueeze, graph::Unsqueeze::ATTR_AXES)
            };
            let attrs = axes
                .map(|a| vec![(axes_name, n.i64s_attr(&a))])
                .unwrap_or_default();
            op(kind, vec![0], attrs)
        }
        "Slice" => {
            let mut attrs = vec![
                (
                    graph::Slice::ATTR_STARTS,
                    n.i64s_attr(&n.const_ints(1, "starts")?),
                ),
                (
                    graph::Slice::ATTR_ENDS,
                    n.i64s_attr(&n.const_ints(2, "ends")?),
                ),
            ];
            if n.has_input(3) {
                attrs.push((
                    graph::Slice::ATTR_AXES,
                    n.i64s_attr(&n.const_ints(3, "axes")?),
                ));
            }
            if n.has_input(4) {
                attrs.push((
                    graph::Slice::ATTR_STEPS,
                    n.i64s_attr(&n.const_ints(4, "steps")?),
                ));
            }
            op(graph::Op::Slice, vec![0], attrs)
        }
        "Pad" => {
            let mode = n.string("mode").unwrap_or_else(|| "constant".into());
            if !matches!(mode.as_str(), "constant" | "reflect" | "edge" | "wrap") {
                return Err(format!("pad mode '{mode}' is not supported"));
            }
            let mode_attr = n.enum_attr("pad_mode", &mode);
            let mut pads = n.const_ints(1, "pads")?;
            if n.has_input(3) {
                // Pads for some axes only: zero for the others.
                let axes = n.const_ints(3, "axes")?;
                let rank = n
                    .static_shape(0)
                    .map(|s| s.len())
                    .ok_or("its input must have a static shape")?;
                if pads.len() != 2 * axes.len() {
                    return Err(format!("{} pads for {} axes", pads.len(), axes.len()));
                }
                let mut full = vec![0; 2 * rank];
                for (i, a) in axes.iter().enumerate() {
                    let a = if *a < 0 { a + rank as i64 } else { *a };
                    let a = usize::try_from(a)
                        .ok()
                        .filter(|a| *a < rank)
                        .ok_or("pad axis out of range")?;
                    full[a] = pads[i];
                    full[rank + a] = pads[axes.len() + i];
                }
                pads = full;
            }
            let mut attrs = vec![
                (graph::Pad::ATTR_PADS, n.i64s_attr(&pads)),
                (graph::Pad::ATTR_MODE, mode_attr),
            ];
            if n.has_input(2) {
                attrs.push((
                    graph::Pad::ATTR_VALUE,
                    n.f64_attr(n.const_number(2, "constant value")?),
                ));
            }
            op(graph::Op::Pad, vec![0], attrs)
        }
        "Clip" => {
            let mut attrs = Vec::new();
            if n.has_input(1) {
                attrs.push((graph::Clip::ATTR_MIN, n.f32_attr(n.const_number(1, "min")?)));
            }
            if n.has_input(2) {
                attrs.push((graph::Clip::ATTR_MAX, n.f32_attr(n.const_number(2, "max")?)));
            }
            op(graph::Op::Clip, vec![0], attrs)
        }
        "Mod" => {
            let kind = match n.int("fmod").unwrap_or(0) {
                0 => graph::Op::Mod,
                1 => graph::Op::Fmod,
                other => return Err(format!("fmod {other} is not 0 or 1")),
            };
            op(kind, vec![0, 1], Vec::new())
        }
        "BitShift" => {
            let kind = match n.string("direction").as_deref() {
                Some("LEFT") => graph::Op::ShiftLeft,
                Some("RIGHT") => graph::Op::ShiftRight,
                Some(other) => return Err(format!("direction '{other}' is not LEFT or RIGHT")),
                None => return Err("requires 'direction'".into()),
            };
            op(kind, vec![0, 1], Vec::new())
        }
        "Gelu" => {
            let approx = n.string("approximate").unwrap_or_else(|| "none".into());
            if !matches!(approx.as_str(), "none" | "tanh") {
                return Err(format!("approximate '{approx}' is not supported"));
            }
            let attr = n.enum_attr("gelu_approximation", &approx);
            op(
                graph::Op::Gelu,
                vec![0],
                vec![(graph::Gelu::ATTR_APPROXIMATE, attr)],
            )
        }
        "Cast" | "CastLike" => {
            let element = if op_type == "CastLike" {
                let like = n
                    .types
                    .get(1)
                    .copied()
                    .flatten()
                    .ok_or("its second input has no type")?;
                n.ctx.type_data(like).element_type().unwrap_or(like)
            } else {
                let to = n.int("to").ok_or("requires 'to'")?;
                crate::tensors::element_type(n.ctx, to as i32)?
            };
            let input = n
                .types
                .first()
                .copied()
                .flatten()
                .ok_or("its input has no type")?;
            let shape = n
                .ctx
                .type_data(input)
                .shape()
                .ok_or("its input must be a ranked tensor")?
                .to_vec();
            // ONNX wraps floats cast to 4- and 2-bit integers.
            let from_float = n
                .ctx
                .type_data(input)
                .element_type()
                .is_some_and(|e| matches!(n.ctx.type_data(e), acc_ir::TypeData::Float(_)));
            let sub_byte = matches!(
                n.ctx.type_data(element),
                acc_ir::TypeData::Integer { width, .. } if *width < 8 && *width > 1
            );
            let mut attrs = if from_float && sub_byte {
                vec![(graph::Cast::ATTR_WRAP, n.bool_attr(true))]
            } else {
                Vec::new()
            };
            // ONNX saturates casts to float8 unless told not to; float4 always does.
            let small_float = match n.ctx.type_data(element) {
                acc_ir::TypeData::Float(k) => acc_ir::minifloat::MiniFloat::of(*k).is_some(),
                _ => false,
            };
            if small_float {
                if n.int("saturate").unwrap_or(1) != 0 {
                    attrs.push((graph::Cast::ATTR_SATURATE, n.bool_attr(true)));
                }
                let mode = n.string("round_mode").unwrap_or_else(|| "up".into());
                if !matches!(mode.as_str(), "up" | "down" | "nearest") {
                    return Err(format!("round_mode '{mode}' is not supported"));
                }
                attrs.push((
                    graph::Cast::ATTR_ROUND_MODE,
                    n.enum_attr("cast_rounding", &mode),
                ));
            }
            let mut lowered = op(graph::Op::Cast, vec![0], attrs)?;
            lowered.result_types = Some(vec![crate::tensors::tensor_type(n.ctx, &shape, element)]);
            Ok(lowered)
        }
        "ReduceSum" | "ReduceMean" | "ReduceMax" | "ReduceMin" | "ReduceProd" => {
            let (kind, axes_name, keepdims_name) = match op_type {
                "ReduceSum" => (
                    graph::Op::ReduceSum,
                    graph::ReduceSum::ATTR_AXES,
                    graph::ReduceSum::ATTR_KEEPDIMS,
                ),
                "ReduceMean" => (
                    graph::Op::ReduceMean,
                    graph::ReduceMean::ATTR_AXES,
                    graph::ReduceMean::ATTR_KEEPDIMS,
                ),
                "ReduceMax" => (
                    graph::Op::ReduceMax,
                    graph::ReduceMax::ATTR_AXES,
                    graph::ReduceMax::ATTR_KEEPDIMS,
                ),
                "ReduceMin" => (
                    graph::Op::ReduceMin,
                    graph::ReduceMin::ATTR_AXES,
                    graph::ReduceMin::ATTR_KEEPDIMS,
                ),
                _ => (
                    graph::Op::ReduceProd,
                    graph::ReduceProd::ATTR_AXES,
                    graph::ReduceProd::ATTR_KEEPDIMS,
                ),
            };
            let axes = if n.has_input(1) {
                Some(n.const_ints(1, "axes")?)
            } else {
                n.ints("axes")
            };
            let mut attrs = vec![(
                keepdims_name,
                n.bool_attr(n.int("keepdims").unwrap_or(1) != 0),
            )];
            match axes {
                Some(a) if !a.is_empty() => attrs.push((axes_name, n.i64s_attr(&a))),
                Some(_) if n.int("noop_with_empty_axes").unwrap_or(0) != 0 => {
                    // No axes and noop_with_empty_axes: the input itself.
                    return op(None, vec![0], Vec::new());
                }
                _ => {}
            }
            op(kind, vec![0], attrs)
        }
        "Resize" => resize(n),
        "Gather" | "GatherElements" => {
            let (kind, axis) = if op_type == "Gather" {
                (graph::Op::Gather, graph::Gather::ATTR_AXIS)
            } else {
                (graph::Op::GatherElements, graph::GatherElements::ATTR_AXIS)
            };
            op(
                kind,
                vec![0, 1],
                vec![(axis, n.i64_attr(n.int("axis").unwrap_or(0)))],
            )
        }
        "GatherND" => op(
            graph::Op::GatherNd,
            vec![0, 1],
            vec![(
                graph::GatherNd::ATTR_BATCH_DIMS,
                n.i64_attr(n.int("batch_dims").unwrap_or(0)),
            )],
        ),
        "ArgMax" | "ArgMin" => op(
            if op_type == "ArgMax" {
                graph::Op::ArgMax
            } else {
                graph::Op::ArgMin
            },
            vec![0],
            vec![
                (
                    graph::ArgMax::ATTR_AXIS,
                    n.i64_attr(n.int("axis").unwrap_or(0)),
                ),
                (
                    graph::ArgMax::ATTR_KEEPDIMS,
                    n.bool_attr(n.int("keepdims").unwrap_or(1) != 0),
                ),
                (
                    graph::ArgMax::ATTR_SELECT_LAST_INDEX,
                    n.bool_attr(n.int("select_last_index").unwrap_or(0) != 0),
                ),
            ],
        ),
        "CumSum" => {
            let axis = n.const_ints(1, "axis")?;
            let [axis] = axis[..] else {
                return Err("its axis must be one value".into());
            };
            op(
                graph::Op::Cumsum,
                vec![0],
                vec![
                    (graph::Cumsum::ATTR_AXIS, n.i64_attr(axis)),
                    (
                        graph::Cumsum::ATTR_EXCLUSIVE,
                        n.bool_attr(n.int("exclusive").unwrap_or(0) != 0),
                    ),
                    (
                        graph::Cumsum::ATTR_REVERSE,
                        n.bool_attr(n.int("reverse").unwrap_or(0) != 0),
                    ),
                ],
            )
        }
        "NonMaxSuppression" => {
            let mut attrs = vec![(
                graph::NonMaxSuppression::ATTR_CENTER_POINT_BOX,
                n.bool_attr(n.int("center_point_box").unwrap_or(0) != 0),
            )];
            if n.has_input(2) {
                let max = n.const_ints(2, "max_output_boxes_per_class")?;
                attrs.push((
                    graph::NonMaxSuppression::ATTR_MAX_OUTPUT_BOXES_PER_CLASS,
                    n.i64_attr(*max.first().unwrap_or(&0)),
                ));
            }
            if n.has_input(3) {
                let iou = n.const_number(3, "iou_threshold")?;
                attrs.push((
                    graph::NonMaxSuppression::ATTR_IOU_THRESHOLD,
                    n.f32_attr(iou),
                ));
            }
            if n.has_input(4) {
                let score = n.const_number(4, "score_threshold")?;
                attrs.push((
                    graph::NonMaxSuppression::ATTR_SCORE_THRESHOLD,
                    n.f32_attr(score),
                ));
            }
            op(graph::Op::NonMaxSuppression, vec![0, 1], attrs)
        }
        other => Err(format!("unsupported op '{other}'")),
    }
}

/// Resize: the `roi`, `scales` and `sizes` inputs (constants) become attributes with
/// one value per dimension (`axes` expanded); keep_aspect_ratio_policy is resolved here
/// into both `sizes` (the output shape) and `scales` (the factor used for coordinates).
fn resize(n: &Node<'_>) -> Result<Lowered, String> {
    if n.int("antialias").unwrap_or(0) != 0 && n.string("mode").as_deref() == Some("nearest") {
        return Err("antialias with mode 'nearest' is not supported".into());
    }
    let mode = n.string("mode").unwrap_or_else(|| "nearest".into());
    let coordinates = n
        .string("coordinate_transformation_mode")
        .unwrap_or_else(|| "half_pixel".into());
    let nearest = n
        .string("nearest_mode")
        .unwrap_or_else(|| "round_prefer_floor".into());
    if !matches!(mode.as_str(), "nearest" | "linear" | "cubic") {
        return Err(format!("mode '{mode}' is not supported"));
    }
    if !matches!(
        coordinates.as_str(),
        "half_pixel"
            | "asymmetric"
            | "align_corners"
            | "pytorch_half_pixel"
            | "half_pixel_symmetric"
            | "tf_crop_and_resize"
    ) {
        return Err(format!(
            "coordinate_transformation_mode '{coordinates}' is not supported"
        ));
    }
    if !matches!(
        nearest.as_str(),
        "round_prefer_floor" | "round_prefer_ceil" | "floor" | "ceil"
    ) {
        return Err(format!("nearest_mode '{nearest}' is not supported"));
    }
    let shape = n
        .static_shape(0)
        .ok_or("its input must have a static shape")?;
    let rank = shape.len();
    let axes: Vec<usize> = match n.ints("axes") {
        Some(a) => a
            .iter()
            .map(|x| {
                let x = if *x < 0 { x + rank as i64 } else { *x };
                usize::try_from(x)
                    .ok()
                    .filter(|x| *x < rank)
                    .ok_or_else(|| format!("axis {x} is out of range"))
            })
            .collect::<Result<_, _>>()?,
        None => (0..rank).collect(),
    };
    let given = |i: usize| -> Result<Option<Vec<f64>>, String> {
        if !n.has_input(i) {
            return Ok(None);
        }
        let v = n.const_floats(i, ["", "roi", "scales", "sizes"][i])?;
        Ok((!v.is_empty()).then_some(v))
    };
    let (roi, scales, sizes) = (given(1)?, given(2)?, given(3)?);
    let expand = |values: &[f64], fill: f64, what: &str| -> Result<Vec<f64>, String> {
        if values.len() != axes.len() {
            return Err(format!("{} {what} for {} axes", values.len(), axes.len()));
        }
        let mut full = vec![fill; rank];
        for (a, v) in axes.iter().zip(values) {
            full[*a] = *v;
        }
        Ok(full)
    };
    let mut attrs = vec![
        (graph::Resize::ATTR_MODE, n.enum_attr("resize_mode", &mode)),
        (
            graph::Resize::ATTR_COORDINATE_TRANSFORMATION_MODE,
            n.enum_attr("coordinate_mode", &coordinates),
        ),
        (
            graph::Resize::ATTR_NEAREST_MODE,
            n.enum_attr("nearest_mode", &nearest),
        ),
        (
            graph::Resize::ATTR_CUBIC_COEFF_A,
            n.f32_attr(n.float("cubic_coeff_a").unwrap_or(-0.75).into()),
        ),
        (
            graph::Resize::ATTR_EXCLUDE_OUTSIDE,
            n.bool_attr(n.int("exclude_outside").unwrap_or(0) != 0),
        ),
        (
            graph::Resize::ATTR_EXTRAPOLATION_VALUE,
            n.f32_attr(n.float("extrapolation_value").unwrap_or(0.0).into()),
        ),
        (
            graph::Resize::ATTR_ANTIALIAS,
            n.bool_attr(n.int("antialias").unwrap_or(0) != 0),
        ),
    ];
    if let Some(roi) = roi.filter(|_| coordinates == "tf_crop_and_resize") {
        let k = axes.len();
        if roi.len() != 2 * k {
            return Err(format!("roi has {} values for {k} axes", roi.len()));
        }
        let mut full = expand(&roi[..k], 0.0, "roi starts")?;
        full.extend(expand(&roi[k..], 1.0, "roi ends")?);
        attrs.push((graph::Resize::ATTR_ROI, n.f32s_attr(&full)));
    }
    match (scales, sizes) {
        (Some(scales), None) => attrs.push((
            graph::Resize::ATTR_SCALES,
            n.f32s_attr(&expand(&scales, 1.0, "scales")?),
        )),
        (None, Some(sizes)) => {
            let current: Vec<f64> = shape.iter().map(|d| *d as f64).collect();
            let mut out = current.clone();
            let wanted = expand(&sizes, 0.0, "sizes")?;
            for a in &axes {
                out[*a] = wanted[*a];
            }
            let policy = n
                .string("keep_aspect_ratio_policy")
                .unwrap_or_else(|| "stretch".into());
            let pick = match policy.as_str() {
                "stretch" => None,
                "not_larger" => Some(f64::min as fn(f64, f64) -> f64),
                "not_smaller" => Some(f64::max as fn(f64, f64) -> f64),
                other => {
                    return Err(format!(
                        "keep_aspect_ratio_policy '{other}' is not supported"
                    ));
                }
            };
            if let Some(pick) = pick {
                let scale = axes
                    .iter()
                    .map(|a| out[*a] / current[*a])
                    .reduce(pick)
                    .ok_or("no axes to resize")?;
                let mut factors = vec![1.0; rank];
                for a in &axes {
                    factors[*a] = scale;
                    out[*a] = (scale * current[*a] + 0.5).floor();
                }
                attrs.push((graph::Resize::ATTR_SCALES, n.f32s_attr(&factors)));
            }
            let out: Vec<i64> = out.iter().map(|d| *d as i64).collect();
            attrs.push((graph::Resize::ATTR_SIZES, n.i64s_attr(&out)));
        }
        _ => return Err("exactly one of scales and sizes must be given".into()),
    }
    op(graph::Op::Resize, vec![0], attrs)
}

/// ONNX 2-D pads (x1_begin, x2_begin, x1_end, x2_end) are the graph dialect's
/// [top, left, bottom, right]. `auto_pad` SAME_UPPER / SAME_LOWER pads so that the
/// output is the input size divided by the stride, rounded up (the extra pixel at the
/// end for SAME_UPPER, at the start for SAME_LOWER); VALID pads nothing.
fn pads_2d(n: &Node<'_>, kernel: &[i64]) -> Result<Vec<i64>, String> {
    let auto = n.string("auto_pad").unwrap_or_else(|| "NOTSET".into());
    match auto.as_str() {
        "NOTSET" => return Ok(n.ints("pads").unwrap_or(vec![0, 0, 0, 0])),
        "VALID" => return Ok(vec![0, 0, 0, 0]),
        "SAME_UPPER" | "SAME_LOWER" => {}
        other => return Err(format!("auto_pad '{other}' is not supported")),
    }
    let input = n
        .types
        .first()
        .copied()
        .flatten()
        .ok_or("its input has no type")?;
    let shape = n
        .ctx
        .type_data(input)
        .shape()
        .ok_or("its input must be ranked")?
        .to_vec();
    if shape.len() != 4 || kernel.len() != 2 || shape[2..].iter().any(|d| *d < 0) {
        return Err("auto_pad needs a static NCHW input".into());
    }
    let strides = n.ints("strides").unwrap_or(vec![1, 1]);
    let dilations = n.ints("dilations").unwrap_or(vec![1, 1]);
    let mut begin = [0i64; 2];
    let mut end = [0i64; 2];
    for i in 0..2 {
        let (size, s, d) = (shape[2 + i], strides[i].max(1), dilations[i].max(1));
        let out = (size + s - 1) / s;
        let total = ((out - 1) * s + (kernel[i] - 1) * d + 1 - size).max(0);
        let small = total / 2;
        (begin[i], end[i]) = if auto == "SAME_UPPER" {
            (small, total - small)
        } else {
            (total - small, small)
        };
    }
    Ok(vec![begin[0], begin[1], end[0], end[1]])
}

/// The spatial kernel size of a Conv: its attribute, else the weight's last two dims.
fn conv_kernel(n: &Node<'_>) -> Vec<i64> {
    n.ints("kernel_shape").unwrap_or_else(|| {
        n.types
            .get(1)
            .copied()
            .flatten()
            .and_then(|t| {
                n.ctx
                    .type_data(t)
                    .shape()
                    .map(|s| s[s.len().saturating_sub(2)..].to_vec())
            })
            .unwrap_or_default()
    })
}
