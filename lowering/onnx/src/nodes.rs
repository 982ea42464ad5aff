//! ONNX nodes as graph ops: which op, which inputs stay operands, and the attributes
//! (ONNX attributes, and constant inputs such as shapes and axes, which the graph
//! dialect takes as attributes).

use acc_ir::attrs::AttrData;
use acc_ir::elements::{self, Scalar};
use acc_ir::{AttrId, Context, FloatKind, TypeId};

use crate::proto::{AttributeProto, NodeProto};

/// A node ready to become a graph op.
pub struct Lowered {
    /// The graph op.
    pub op: &'static str,
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
    /// The constant value of each input, when it is an initializer or a Constant.
    pub constants: Vec<Option<Vec<Scalar>>>,
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
    /// Constant input `i` as integers (shapes, axes, pads).
    fn const_ints(&self, i: usize, what: &str) -> Result<Vec<i64>, String> {
        let values = self
            .constants
            .get(i)
            .cloned()
            .flatten()
            .ok_or_else(|| format!("its {what} (input {i}) must be a constant"))?;
        values
            .into_iter()
            .map(|v| match v {
                Scalar::Int(x) => i64::try_from(x).map_err(|_| format!("{what} out of range")),
                Scalar::Float(_) => Err(format!("{what} must be integers")),
            })
            .collect()
    }
    /// Constant scalar input `i` as a number.
    fn const_number(&self, i: usize, what: &str) -> Result<f64, String> {
        let values = self
            .constants
            .get(i)
            .cloned()
            .flatten()
            .ok_or_else(|| format!("its {what} (input {i}) must be a constant"))?;
        match values.as_slice() {
            [Scalar::Float(f)] => Ok(*f),
            [Scalar::Int(i)] => Ok(*i as f64),
            _ => Err(format!("{what} must be one number")),
        }
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
    name: &'static str,
    operands: Vec<usize>,
    attrs: Vec<(&'static str, AttrId)>,
) -> Result<Lowered, String> {
    Ok(Lowered {
        op: name,
        operands,
        attrs,
        result_types: None,
    })
}

/// Elementwise and other ops that map one to one, without attributes.
const DIRECT: [(&str, &str, usize); 19] = [
    ("Relu", "graph.relu", 1),
    ("Sigmoid", "graph.sigmoid", 1),
    ("Tanh", "graph.tanh", 1),
    ("Erf", "graph.erf", 1),
    ("Exp", "graph.exp", 1),
    ("Log", "graph.log", 1),
    ("Sqrt", "graph.sqrt", 1),
    ("Neg", "graph.neg", 1),
    ("Abs", "graph.abs", 1),
    ("Add", "graph.add", 2),
    ("Sub", "graph.sub", 2),
    ("Mul", "graph.mul", 2),
    ("Div", "graph.div", 2),
    ("Pow", "graph.pow", 2),
    ("MatMul", "graph.matmul", 2),
    ("GlobalAveragePool", "graph.global_avg_pool", 1),
    ("GlobalMaxPool", "graph.global_max_pool", 1),
    ("Identity", "", 1),
    ("Dropout", "", 1),
];

/// The ONNX op types this importer converts.
pub fn supported(op_type: &str) -> bool {
    DIRECT.iter().any(|(o, _, _)| *o == op_type)
        || matches!(
            op_type,
            "Constant"
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
                | "Gelu"
                | "ReduceSum"
                | "ReduceMean"
                | "ReduceMax"
                | "ReduceMin"
                | "ReduceProd"
        )
}

/// The graph op for `node` (an empty op name: the node forwards its input).
pub fn lower(n: &Node<'_>) -> Result<Lowered, String> {
    let op_type = n.proto.op_type.as_deref().unwrap_or("");
    if let Some((_, name, arity)) = DIRECT.iter().find(|(o, _, _)| *o == op_type) {
        let given = n.proto.input.iter().filter(|i| !i.is_empty()).count();
        if given != *arity && !name.is_empty() {
            return Err(format!(
                "{op_type} with {given} inputs is not supported ({arity} are)"
            ));
        }
        if name.is_empty() && n.proto.output.iter().skip(1).any(|o| !o.is_empty()) {
            return Err(format!("the mask output of {op_type} is not supported"));
        }
        let float = |t: &Option<TypeId>| {
            t.and_then(|t| n.ctx.type_data(t).element_type())
                .is_some_and(|e| matches!(n.ctx.type_data(e), acc_ir::TypeData::Float(_)))
        };
        if op_type == "Pow" && !n.types.iter().all(float) {
            return Err("Pow of integers is not supported (graph.pow is on floats)".into());
        }
        return op(name, (0..*arity).collect(), Vec::new());
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
                    "strides",
                    n.i64s_attr(&n.ints("strides").unwrap_or(vec![1, 1])),
                ),
                (
                    "dilations",
                    n.i64s_attr(&n.ints("dilations").unwrap_or(vec![1, 1])),
                ),
                ("pads", n.i64s_attr(&pads_2d(n, &conv_kernel(n))?)),
                ("groups", n.i64_attr(n.int("group").unwrap_or(1))),
            ];
            let operands = if n.has_input(2) {
                vec![0, 1, 2]
            } else {
                vec![0, 1]
            };
            op("graph.conv2d", operands, attrs)
        }
        "Gemm" => {
            let attrs = vec![
                ("alpha", n.f32_attr(n.float("alpha").unwrap_or(1.0).into())),
                ("beta", n.f32_attr(n.float("beta").unwrap_or(1.0).into())),
                ("transA", n.bool_attr(n.int("transA").unwrap_or(0) != 0)),
                ("transB", n.bool_attr(n.int("transB").unwrap_or(0) != 0)),
            ];
            let operands = if n.has_input(2) {
                vec![0, 1, 2]
            } else {
                vec![0, 1]
            };
            op("graph.gemm", operands, attrs)
        }
        "BatchNormalization" => op(
            "graph.batch_norm",
            vec![0, 1, 2, 3, 4],
            vec![(
                "epsilon",
                n.f32_attr(n.float("epsilon").unwrap_or(1e-5).into()),
            )],
        ),
        "LayerNormalization" => op(
            "graph.layer_norm",
            if n.has_input(2) {
                vec![0, 1, 2]
            } else {
                vec![0, 1]
            },
            vec![
                ("axis", n.i64_attr(n.int("axis").unwrap_or(-1))),
                (
                    "epsilon",
                    n.f32_attr(n.float("epsilon").unwrap_or(1e-5).into()),
                ),
            ],
        ),
        "TopK" => op(
            "graph.topk",
            vec![0],
            vec![
                (
                    "k",
                    n.i64_attr(
                        *n.const_ints(1, "k")?
                            .first()
                            .ok_or("k must have one value")?,
                    ),
                ),
                ("axis", n.i64_attr(n.int("axis").unwrap_or(-1))),
                ("largest", n.bool_attr(n.int("largest").unwrap_or(1) != 0)),
                ("sorted", n.bool_attr(n.int("sorted").unwrap_or(1) != 0)),
            ],
        ),
        "Softmax" => op(
            "graph.softmax",
            vec![0],
            vec![("axis", n.i64_attr(n.int("axis").unwrap_or(-1)))],
        ),
        "MaxPool" | "AveragePool" => {
            let kernel = n.ints("kernel_shape").ok_or("requires kernel_shape")?;
            spatial("pooling", kernel.len())?;
            let mut attrs = vec![
                ("kernel_shape", n.i64s_attr(&kernel)),
                (
                    "strides",
                    n.i64s_attr(&n.ints("strides").unwrap_or(vec![1, 1])),
                ),
                ("pads", n.i64s_attr(&pads_2d(n, &kernel)?)),
                (
                    "dilations",
                    n.i64s_attr(&n.ints("dilations").unwrap_or(vec![1, 1])),
                ),
                (
                    "ceil_mode",
                    n.bool_attr(n.int("ceil_mode").unwrap_or(0) != 0),
                ),
            ];
            if op_type == "AveragePool" {
                attrs.push((
                    "count_include_pad",
                    n.bool_attr(n.int("count_include_pad").unwrap_or(0) != 0),
                ));
                return op("graph.avg_pool", vec![0], attrs);
            }
            op("graph.max_pool", vec![0], attrs)
        }
        "Reshape" => {
            if n.int("allowzero").unwrap_or(0) != 0 {
                return Err("allowzero = 1 is not supported".into());
            }
            op(
                "graph.reshape",
                vec![0],
                vec![("shape", n.i64s_attr(&n.const_ints(1, "shape")?))],
            )
        }
        "Flatten" => op(
            "graph.flatten",
            vec![0],
            vec![("axis", n.i64_attr(n.int("axis").unwrap_or(1)))],
        ),
        "Transpose" => {
            let attrs = n
                .ints("perm")
                .map(|p| vec![("perm", n.i64s_attr(&p))])
                .unwrap_or_default();
            op("graph.transpose", vec![0], attrs)
        }
        "Concat" => op(
            "graph.concat",
            (0..n.proto.input.len()).collect(),
            vec![("axis", n.i64_attr(n.int("axis").ok_or("requires axis")?))],
        ),
        "Squeeze" | "Unsqueeze" => {
            let axes = if n.has_input(1) {
                Some(n.const_ints(1, "axes")?)
            } else {
                n.ints("axes")
            };
            let name = if op_type == "Squeeze" {
                "graph.squeeze"
            } else {
                "graph.unsqueeze"
            };
            let attrs = axes
                .map(|a| vec![("axes", n.i64s_attr(&a))])
                .unwrap_or_default();
            op(name, vec![0], attrs)
        }
        "Slice" => {
            let mut attrs = vec![
                ("starts", n.i64s_attr(&n.const_ints(1, "starts")?)),
                ("ends", n.i64s_attr(&n.const_ints(2, "ends")?)),
            ];
            if n.has_input(3) {
                attrs.push(("axes", n.i64s_attr(&n.const_ints(3, "axes")?)));
            }
            if n.has_input(4) {
                attrs.push(("steps", n.i64s_attr(&n.const_ints(4, "steps")?)));
            }
            op("graph.slice", vec![0], attrs)
        }
        "Pad" => {
            if n.has_input(3) {
                return Err("the axes input of Pad is not supported".into());
            }
            let mode = n.string("mode").unwrap_or_else(|| "constant".into());
            if !matches!(mode.as_str(), "constant" | "reflect" | "edge") {
                return Err(format!("pad mode '{mode}' is not supported"));
            }
            let mode_attr = n.enum_attr("pad_mode", &mode);
            let mut attrs = vec![
                ("pads", n.i64s_attr(&n.const_ints(1, "pads")?)),
                ("mode", mode_attr),
            ];
            if n.has_input(2) {
                attrs.push(("value", n.f64_attr(n.const_number(2, "constant value")?)));
            }
            op("graph.pad", vec![0], attrs)
        }
        "Clip" => {
            let mut attrs = Vec::new();
            if n.has_input(1) {
                attrs.push(("min", n.f32_attr(n.const_number(1, "min")?)));
            }
            if n.has_input(2) {
                attrs.push(("max", n.f32_attr(n.const_number(2, "max")?)));
            }
            op("graph.clip", vec![0], attrs)
        }
        "Gelu" => {
            let approx = n.string("approximate").unwrap_or_else(|| "none".into());
            if !matches!(approx.as_str(), "none" | "tanh") {
                return Err(format!("approximate '{approx}' is not supported"));
            }
            let attr = n.enum_attr("gelu_approximation", &approx);
            op("graph.gelu", vec![0], vec![("approximate", attr)])
        }
        "Cast" => {
            let to = n.int("to").ok_or("requires 'to'")?;
            let element = crate::tensors::element_type(n.ctx, to as i32)?;
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
            let mut lowered = op("graph.cast", vec![0], Vec::new())?;
            lowered.result_types = Some(vec![crate::tensors::tensor_type(n.ctx, &shape, element)]);
            Ok(lowered)
        }
        "ReduceSum" | "ReduceMean" | "ReduceMax" | "ReduceMin" | "ReduceProd" => {
            let name = match op_type {
                "ReduceSum" => "graph.reduce_sum",
                "ReduceMean" => "graph.reduce_mean",
                "ReduceMax" => "graph.reduce_max",
                "ReduceMin" => "graph.reduce_min",
                _ => "graph.reduce_prod",
            };
            let axes = if n.has_input(1) {
                Some(n.const_ints(1, "axes")?)
            } else {
                n.ints("axes")
            };
            let mut attrs = vec![("keepdims", n.bool_attr(n.int("keepdims").unwrap_or(1) != 0))];
            match axes {
                Some(a) if !a.is_empty() => attrs.push(("axes", n.i64s_attr(&a))),
                Some(_) if n.int("noop_with_empty_axes").unwrap_or(0) != 0 => {
                    return Err("noop_with_empty_axes is not supported".into());
                }
                _ => {}
            }
            op(name, vec![0], attrs)
        }
        other => Err(format!("unsupported op '{other}'")),
    }
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
