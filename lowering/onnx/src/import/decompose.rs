//! ONNX ops the importer writes as several simpler ONNX nodes, which it then imports
//! one by one: activations (HardSigmoid, HardSwish, LeakyRelu, PRelu, Elu, Selu, Celu,
//! Softplus, Softsign, Mish, Swish, ThresholdedRelu), Reciprocal, Mean, IsNaN, IsInf,
//! Trilu, EyeLike, Hardmax and OneHot (masks of index positions: `masks`),
//! LpNormalization, SpaceToDepth and DepthToSpace (reshapes around a transpose), LRN,
//! LogSoftmax, the reductions ReduceL1, ReduceL2, ReduceSumSquare, ReduceLogSum and
//! ReduceLogSumExp, InstanceNormalization, RMSNormalization, GroupNormalization,
//! BatchNormalization in training mode, Split, Tile, Expand and Gather (a few known
//! indices) of a computed tensor, ConvTranspose (a convolution of the input with zeros
//! inserted), LSTM, GRU and RNN (unrolled over a static sequence length: `recurrent`),
//! 1-D convolution and pooling (as 2-D), and 3-D pooling (as two 2-D pools). Most are
//! ONNX functions, and the expansions follow the function bodies of the ONNX standard
//! (or onnxruntime's kernels, where those compute differently); every level below the
//! graph dialect then runs them as it runs their parts.
//!
//! Invariant: an expansion's last node writes the original node's output (its
//! outputs, for Split and a training BatchNormalization, the last nodes);
//! intermediate names start with the output's name and `::`, which no ONNX name the
//! exporters write contains (an expansion that another one writes to the same output,
//! a 3-D Conv, adds a further `3d::`).

use crate::proto::{AttributeProto, NodeProto, TensorProto, attribute_proto, tensor_proto};

mod einsum;
mod losses;
mod masks;
mod recurrent;

/// The op types [`decompose`] may expand.
pub(super) const DECOMPOSED: [&str; 50] = [
    "BatchNormalization",
    "ConvTranspose",
    "GroupNormalization",
    "LSTM",
    "GRU",
    "RNN",
    "Gather",
    "LRN",
    "HardSigmoid",
    "HardSwish",
    "LeakyRelu",
    "PRelu",
    "Elu",
    "Selu",
    "Celu",
    "Softplus",
    "Softsign",
    "Mish",
    "LogSoftmax",
    "ReduceL1",
    "ReduceL2",
    "ReduceSumSquare",
    "ReduceLogSum",
    "ReduceLogSumExp",
    "InstanceNormalization",
    "RMSNormalization",
    "Split",
    "Tile",
    "Expand",
    "Reciprocal",
    "Mean",
    "Swish",
    "ThresholdedRelu",
    "IsNaN",
    "IsInf",
    "Trilu",
    "LpNormalization",
    "Hardmax",
    "EyeLike",
    "OneHot",
    "SpaceToDepth",
    "DepthToSpace",
    "MatMulInteger",
    "ConvInteger",
    "Shrink",
    "DynamicQuantizeLinear",
    "Einsum",
    "LpPool",
    "NegativeLogLikelihoodLoss",
    "SoftmaxCrossEntropyLoss",
];

/// What expanding a node needs to know of its first input.
pub(super) struct Operand {
    /// The ONNX element type (`TensorProto.DataType`).
    pub data_type: i32,
    /// Its static shape, if it has one.
    pub shape: Option<Vec<i64>>,
    /// The static shape of the second input (a convolution's weights), if it has one.
    pub second_shape: Option<Vec<i64>>,
    /// Whether the second input's values are known at import.
    pub second_known: bool,
}

/// Whether an expansion of `op` computes in its operand's element type with several
/// rounded steps: for f16 and bf16 it runs in f32 between two casts, as onnxruntime
/// computes these ops.
pub(super) fn computes_in_f32(op: &str) -> bool {
    DECOMPOSED.contains(&op)
        && !matches!(
            op,
            "Split"
                | "Tile"
                | "Expand"
                | "Gather"
                | "ConvTranspose"
                | "LSTM"
                | "GRU"
                | "RNN"
                | "BatchNormalization"
                | "IsNaN"
                | "IsInf"
                | "Trilu"
                | "Hardmax"
                | "EyeLike"
                | "OneHot"
                | "SpaceToDepth"
                | "DepthToSpace"
                | "MatMulInteger"
                | "ConvInteger"
                | "DynamicQuantizeLinear"
                | "NegativeLogLikelihoodLoss"
                | "SoftmaxCrossEntropyLoss"
        )
}

/// A node written as others: new constants, then the nodes in order.
#[derive(Default)]
pub(super) struct Expansion {
    pub constants: Vec<TensorProto>,
    pub nodes: Vec<NodeProto>,
}

/// The expansion of `node` (under default-domain opset `opset`), whose first input is
/// `x`; `known(i)` gives the values of input `i` when it is a known integer tensor.
/// `None`: this node is not expanded.
pub(super) fn decompose(
    node: &NodeProto,
    x: &Operand,
    known: &dyn Fn(usize) -> Option<Vec<i64>>,
    opset: i64,
) -> Option<Result<Expansion, String>> {
    let op = node.op_type.as_deref().unwrap_or("");
    if matches!(op, "Softmax" | "LogSoftmax" | "Hardmax") {
        if let Some(e) = coerced_to_2d(node, x, opset) {
            return Some(e);
        }
        if op == "Softmax" {
            return None;
        }
    }
    if matches!(op, "Conv" | "ConvTranspose" | "MaxPool" | "AveragePool")
        && x.shape.as_ref().is_some_and(|s| s.len() == 3)
    {
        return x.shape.as_ref().filter(|s| s.len() == 3).map(|_| {
            if op == "ConvTranspose" && !x.second_known {
                return Err(must_be_known(node, 1, "weights"));
            }
            Ok(one_d_as_2d(node, x))
        });
    }
    if op == "MaxPool"
        && node.output.get(1).is_some_and(|o| !o.is_empty())
        && x.shape.as_ref().is_some_and(|s| s.len() == 4)
    {
        return Some(max_pool_with_indices(node, x));
    }
    if op == "Conv" && x.shape.as_ref().is_some_and(|s| s.len() == 5) {
        return Some(three_d_conv(node, x));
    }
    if matches!(op, "MaxPool" | "AveragePool") && x.shape.as_ref().is_some_and(|s| s.len() == 5) {
        return Some(three_d_pool(node, x));
    }
    if !DECOMPOSED.contains(&op) {
        return None;
    }
    let training = attr(node, "training_mode").and_then(|a| a.i).unwrap_or(0) != 0;
    if op == "BatchNormalization" && !training {
        // Inference: `graph.batch_norm`.
        return None;
    }
    if op == "Gather" && !gather_as_slices(node, x, known) {
        // Indices known at run time only, or many scattered ones: `graph.gather`.
        return None;
    }
    let out = node.output.first().cloned().unwrap_or_default();
    let input = |i: usize| node.input.get(i).cloned().unwrap_or_default();
    let mut w = Writer {
        prefix: out.clone(),
        data_type: x.data_type,
        e: Expansion::default(),
    };
    let f = |name: &str, default: f32| attr(node, name).and_then(|a| a.f).unwrap_or(default);
    let x_name = input(0);
    let result: Result<(), String> = (|| {
        match op {
            "HardSigmoid" => {
                let (alpha, beta) = (f("alpha", 0.2), f("beta", 0.5));
                w.hard_sigmoid(&x_name, alpha, beta, &out);
            }
            "HardSwish" => {
                let s = w.fresh();
                w.hard_sigmoid(&x_name, 1.0 / 6.0, 0.5, &s);
                w.node_to("Mul", &[&x_name, &s], vec![], &out);
            }
            "LeakyRelu" => {
                let alpha = w.scalar(f("alpha", 0.01));
                w.relu_plus_scaled_negative(&x_name, &alpha, &out);
            }
            "PRelu" => {
                let slope = input(1);
                w.relu_plus_scaled_negative(&x_name, &slope, &out);
            }
            "Elu" | "Selu" | "Celu" => {
                // x > 0 ? x : alpha (exp(x) - 1)   (Celu: alpha (exp(x / alpha) - 1)),
                // Selu scaled by gamma: max(x, 0) + alpha (exp(min(x, 0)) - 1).
                let default_alpha = if op == "Selu" { 1.673_263_2 } else { 1.0 };
                let alpha = f("alpha", default_alpha);
                let zero = w.scalar(0.0);
                let one = w.scalar(1.0);
                let pos = w.node("Max", &[&x_name, &zero], vec![]);
                let neg = w.node("Min", &[&x_name, &zero], vec![]);
                let scaled = if op == "Celu" {
                    let inv = w.scalar(1.0 / alpha);
                    w.node("Mul", &[&neg, &inv], vec![])
                } else {
                    neg
                };
                let e = w.node("Exp", &[&scaled], vec![]);
                let em1 = w.node("Sub", &[&e, &one], vec![]);
                let a = w.scalar(alpha);
                let negative = w.node("Mul", &[&em1, &a], vec![]);
                if op == "Selu" {
                    let sum = w.node("Add", &[&pos, &negative], vec![]);
                    let gamma = w.scalar(f("gamma", 1.050_701));
                    w.node_to("Mul", &[&sum, &gamma], vec![], &out);
                } else {
                    w.node_to("Add", &[&pos, &negative], vec![], &out);
                }
            }
            "Reciprocal" => {
                let one = w.scalar(1.0);
                w.node_to("Div", &[&one, &x_name], vec![], &out);
            }
            "Mean" => {
                // The sum of the inputs divided by their count, as ONNX's reference.
                let inputs: Vec<&str> = node.input.iter().map(String::as_str).collect();
                if inputs.len() == 1 {
                    w.node_to("Identity", &inputs, vec![], &out);
                } else {
                    let sum = w.node("Sum", &inputs, vec![]);
                    let count = w.scalar(inputs.len() as f32);
                    w.node_to("Div", &[&sum, &count], vec![], &out);
                }
            }
            "Swish" => {
                // x * sigmoid(alpha * x)
                let alpha = f("alpha", 1.0);
                let scaled = if alpha == 1.0 {
                    x_name.clone()
                } else {
                    let a = w.scalar(alpha);
                    w.node("Mul", &[&x_name, &a], vec![])
                };
                let s = w.node("Sigmoid", &[&scaled], vec![]);
                w.node_to("Mul", &[&x_name, &s], vec![], &out);
            }
            "ThresholdedRelu" => {
                // x > alpha ? x : 0
                let alpha = w.scalar(f("alpha", 1.0));
                let zero = w.scalar(0.0);
                let above = w.node("Greater", &[&x_name, &alpha], vec![]);
                w.node_to("Where", &[&above, &x_name, &zero], vec![], &out);
            }
            "IsNaN" => {
                // Only a NaN is unequal to itself.
                let same = w.node("Equal", &[&x_name, &x_name], vec![]);
                w.node_to("Not", &[&same], vec![], &out);
            }
            "IsInf" => {
                let flag = |name: &str| attr(node, name).and_then(|a| a.i).unwrap_or(1) != 0;
                let (negative, positive) = (flag("detect_negative"), flag("detect_positive"));
                let inf = w.scalar(f32::INFINITY);
                match (negative, positive) {
                    (true, true) => {
                        let a = w.node("Abs", &[&x_name], vec![]);
                        w.node_to("Equal", &[&a, &inf], vec![], &out);
                    }
                    (false, true) => w.node_to("Equal", &[&x_name, &inf], vec![], &out),
                    (true, false) => {
                        let minus_inf = w.scalar(f32::NEG_INFINITY);
                        w.node_to("Equal", &[&x_name, &minus_inf], vec![], &out);
                    }
                    (false, false) => {
                        // Nothing is detected: |x| < 0 holds for no value, NaN included.
                        let a = w.node("Abs", &[&x_name], vec![]);
                        let zero = w.scalar(0.0);
                        w.node_to("Less", &[&a, &zero], vec![], &out);
                    }
                }
            }
            "Trilu" => masks::trilu(node, x, known, &x_name, &out, &mut w)?,
            "LpNormalization" => {
                // x / ||x||_p along `axis`, 0 where the norm is 0 (ONNX's reference).
                let p = attr(node, "p").and_then(|a| a.i).unwrap_or(2);
                let reduce = match p {
                    1 => "ReduceL1",
                    2 => "ReduceL2",
                    other => return Err(format!("p {other} is not 1 or 2")),
                };
                let axis = attr(node, "axis").and_then(|a| a.i).unwrap_or(-1);
                let keep = vec![ints("axes", &[axis]), int("keepdims", 1)];
                let norm = w.node(reduce, &[&x_name], keep);
                let zero = w.scalar(0.0);
                let is_zero = w.node("Equal", &[&norm, &zero], vec![]);
                let q = w.node("Div", &[&x_name, &norm], vec![]);
                w.node_to("Where", &[&is_zero, &zero, &q], vec![], &out);
            }
            "MatMulInteger" => {
                // (A - a_zero_point) (B - b_zero_point) in int32, whose products and
                // sums wrap as ONNX's int32 accumulators. A zero point of A is a scalar
                // or one per row: as a column it broadcasts either way.
                let a = w.node("Cast", &[&x_name], vec![int("to", INT32)]);
                let a = match node.input.get(2).filter(|n| !n.is_empty()) {
                    Some(zp) => {
                        let zp = w.node("Cast", &[zp], vec![int("to", INT32)]);
                        let column = w.node("Unsqueeze", &[&zp], vec![ints("axes", &[-1])]);
                        w.node("Sub", &[&a, &column], vec![])
                    }
                    None => a,
                };
                let b = w.node("Cast", &[&input(1)], vec![int("to", INT32)]);
                let b = match node.input.get(3).filter(|n| !n.is_empty()) {
                    Some(zp) => {
                        let zp = w.node("Cast", &[zp], vec![int("to", INT32)]);
                        w.node("Sub", &[&b, &zp], vec![])
                    }
                    None => b,
                };
                w.node_to("MatMul", &[&a, &b], vec![], &out);
            }
            "ConvInteger" => {
                // Conv of (x - x_zero_point) and (w - w_zero_point) in f64, exact for
                // every int32 accumulator (each is below 2^53 in magnitude), then
                // int32; padding adds zeros after the zero point is taken off, as in
                // ONNX's reference. A zero point of w is a scalar or one per output
                // channel: reshaped to [M, 1, ...] it broadcasts either way.
                let rank = x
                    .second_shape
                    .as_ref()
                    .map(Vec::len)
                    .filter(|r| *r >= 3)
                    .ok_or("it needs weights of a known shape with at least 3 dimensions")?;
                let centred = |w: &mut Writer, v: &str, zp: Option<&String>, as_shape: &[i64]| {
                    let d = w.node("Cast", &[v], vec![int("to", DOUBLE)]);
                    match zp.filter(|n| !n.is_empty()) {
                        Some(zp) => {
                            let z = w.node("Cast", &[zp], vec![int("to", DOUBLE)]);
                            let z = if as_shape.is_empty() {
                                z
                            } else {
                                let shape = w.ints(as_shape);
                                w.node("Reshape", &[&z, &shape], vec![])
                            };
                            w.node("Sub", &[&d, &z], vec![])
                        }
                        None => d,
                    }
                };
                let xd = centred(&mut w, &x_name, node.input.get(2), &[]);
                let mut per_channel = vec![1; rank];
                per_channel[0] = -1;
                let wd = centred(&mut w, &input(1), node.input.get(3), &per_channel);
                let y = w.node("Conv", &[&xd, &wd], node.attribute.clone());
                w.node_to("Cast", &[&y], vec![int("to", INT32)], &out);
            }
            "DynamicQuantizeLinear" => {
                // ONNX's function body: the range of x widened to hold 0, a scale
                // spreading it over 0..255, the zero point where 0 lands (clipped,
                // rounded half to even), then QuantizeLinear with both.
                let output = |i: usize| node.output.get(i).cloned().unwrap_or_default();
                let (q_min, q_max) = (w.scalar(0.0), w.scalar(255.0));
                let all = vec![int("keepdims", 0)];
                let x_min = w.node("ReduceMin", &[&x_name], all.clone());
                let x_min = w.node("Min", &[&x_min, &q_min], vec![]);
                let x_max = w.node("ReduceMax", &[&x_name], all);
                let x_max = w.node("Max", &[&x_max, &q_min], vec![]);
                let range = w.node("Sub", &[&x_max, &x_min], vec![]);
                w.node_to("Div", &[&range, &q_max], vec![], &output(1));
                let min_scaled = w.node("Div", &[&x_min, &output(1)], vec![]);
                let initial = w.node("Sub", &[&q_min, &min_scaled], vec![]);
                let clipped = w.node("Clip", &[&initial, &q_min, &q_max], vec![]);
                let rounded = w.node("Round", &[&clipped], vec![]);
                let uint8 = tensor_proto::DataType::Uint8 as i64;
                w.node_to("Cast", &[&rounded], vec![int("to", uint8)], &output(2));
                w.node_to(
                    "QuantizeLinear",
                    &[&x_name, &output(1), &output(2)],
                    vec![],
                    &out,
                );
            }
            "Shrink" => {
                // x < -lambd ? x + bias : (x > lambd ? x - bias : 0)
                let (lambd, bias) = (f("lambd", 0.5), f("bias", 0.0));
                let (low, high) = (w.scalar(-lambd), w.scalar(lambd));
                let (b, zero) = (w.scalar(bias), w.scalar(0.0));
                let below = w.node("Less", &[&x_name, &low], vec![]);
                let above = w.node("Greater", &[&x_name, &high], vec![]);
                let plus = w.node("Add", &[&x_name, &b], vec![]);
                let minus = w.node("Sub", &[&x_name, &b], vec![]);
                let inner = w.node("Where", &[&above, &minus, &zero], vec![]);
                w.node_to("Where", &[&below, &plus, &inner], vec![], &out);
            }
            "Einsum" => einsum::einsum(node, x, &out, &mut w)?,
            "NegativeLogLikelihoodLoss" => losses::loss(node, x, false, &mut w)?,
            "SoftmaxCrossEntropyLoss" => losses::loss(node, x, true, &mut w)?,
            "LpPool" => {
                // (sum over the window of |x|^p)^(1/p): an AveragePool counting the
                // padding (which adds zeros) times the window's size.
                let p = attr(node, "p").and_then(|a| a.i).unwrap_or(2);
                if p < 1 {
                    return Err(format!("p {p} is not a positive integer"));
                }
                let kernel = attr(node, "kernel_shape")
                    .map(|a| a.ints.clone())
                    .ok_or("it needs 'kernel_shape'")?;
                let area = kernel
                    .iter()
                    .try_fold(1i64, |n, k| n.checked_mul(*k).filter(|_| *k > 0))
                    .ok_or("its kernel_shape is not positive")?;
                let magnitude = w.node("Abs", &[&x_name], vec![]);
                let powered = match p {
                    1 => magnitude,
                    2 => w.node("Mul", &[&magnitude, &magnitude], vec![]),
                    _ => {
                        let e = w.scalar(p as f32);
                        w.node("Pow", &[&magnitude, &e], vec![])
                    }
                };
                let mut pool_attrs: Vec<AttributeProto> = node
                    .attribute
                    .iter()
                    .filter(|a| a.name.as_deref() != Some("p"))
                    .cloned()
                    .collect();
                pool_attrs.push(int("count_include_pad", 1));
                let mean = w.node("AveragePool", &[&powered], pool_attrs);
                let size = w.scalar(area as f32);
                let sum = w.node("Mul", &[&mean, &size], vec![]);
                match p {
                    1 => w.node_to("Identity", &[&sum], vec![], &out),
                    2 => w.node_to("Sqrt", &[&sum], vec![], &out),
                    _ => {
                        let root = w.scalar(1.0 / p as f32);
                        w.node_to("Pow", &[&sum, &root], vec![], &out);
                    }
                }
            }
            "Hardmax" => masks::hardmax(node, x, &x_name, &out, &mut w)?,
            "EyeLike" => masks::eye_like(node, x, &out, &mut w)?,
            "OneHot" => masks::one_hot(node, x, known, &x_name, &out, &mut w)?,
            "SpaceToDepth" | "DepthToSpace" => {
                let shape = x.shape.as_ref().ok_or("it needs a static input shape")?;
                let &[n, c, h, wd] = &shape[..] else {
                    return Err("its input must have 4 dimensions".into());
                };
                let b = attr(node, "blocksize")
                    .and_then(|a| a.i)
                    .ok_or("it needs 'blocksize'")?;
                let square = b
                    .checked_mul(b)
                    .filter(|_| b >= 1)
                    .ok_or_else(|| format!("blocksize {b} is not a positive block size"))?;
                let crd = attr(node, "mode")
                    .and_then(|a| a.s.as_deref())
                    .is_some_and(|m| m == b"CRD");
                let (split, perm, joined) = if op == "SpaceToDepth" {
                    if h % b != 0 || wd % b != 0 {
                        return Err(format!("blocksize {b} does not divide {h}x{wd}"));
                    }
                    let split = [n, c, h / b, b, wd / b, b];
                    let perm = if crd {
                        [0, 1, 3, 5, 2, 4]
                    } else {
                        [0, 3, 5, 1, 2, 4]
                    };
                    let depth = c.checked_mul(square).ok_or("its channels overflow")?;
                    (split, perm, [n, depth, h / b, wd / b])
                } else {
                    if c % square != 0 {
                        return Err(format!(
                            "blocksize {b} squared does not divide {c} channels"
                        ));
                    }
                    let d = c / square;
                    let (split, perm) = if crd {
                        ([n, d, b, b, h, wd], [0, 1, 4, 2, 5, 3])
                    } else {
                        ([n, b, b, d, h, wd], [0, 3, 4, 1, 5, 2])
                    };
                    let (tall, wide) = (h.checked_mul(b), wd.checked_mul(b));
                    let (Some(tall), Some(wide)) = (tall, wide) else {
                        return Err("its height or width overflows".into());
                    };
                    (split, perm, [n, d, tall, wide])
                };
                let split = w.ints(&split);
                let r = w.node("Reshape", &[&x_name, &split], vec![]);
                let t = w.node("Transpose", &[&r], vec![ints("perm", &perm)]);
                let joined = w.ints(&joined);
                w.node_to("Reshape", &[&t, &joined], vec![], &out);
            }
            "Softplus" => w.softplus(&x_name, &out),
            "Softsign" => {
                let one = w.scalar(1.0);
                let a = w.node("Abs", &[&x_name], vec![]);
                let d = w.node("Add", &[&a, &one], vec![]);
                w.node_to("Div", &[&x_name, &d], vec![], &out);
            }
            "Mish" => {
                let sp = w.fresh();
                w.softplus(&x_name, &sp);
                let t = w.node("Tanh", &[&sp], vec![]);
                w.node_to("Mul", &[&x_name, &t], vec![], &out);
            }
            "LogSoftmax" => {
                let rank = x
                    .shape
                    .as_ref()
                    .map(Vec::len)
                    .ok_or("it needs a ranked input")?;
                let axis = attr(node, "axis")
                    .and_then(|a| a.i)
                    .unwrap_or(if opset < 13 { 1 } else { -1 });
                let axis = if axis < 0 { axis + rank as i64 } else { axis };
                let keep = vec![ints("axes", &[axis]), int("keepdims", 1)];
                let m = w.node("ReduceMax", &[&x_name], keep.clone());
                let shifted = w.node("Sub", &[&x_name, &m], vec![]);
                let e = w.node("Exp", &[&shifted], vec![]);
                let s = w.node("ReduceSum", &[&e], keep);
                let l = w.node("Log", &[&s], vec![]);
                w.node_to("Sub", &[&shifted, &l], vec![], &out);
            }
            "ReduceL1" | "ReduceL2" | "ReduceSumSquare" | "ReduceLogSum" | "ReduceLogSumExp" => {
                let reduce_attrs: Vec<AttributeProto> = node.attribute.clone();
                let mut reduce_inputs = vec![String::new()];
                if node.input.len() > 1 {
                    reduce_inputs.push(input(1));
                }
                let (pre, post) = match op {
                    "ReduceL1" => (Some("Abs"), None),
                    "ReduceL2" => (Some("Square"), Some("Sqrt")),
                    "ReduceSumSquare" => (Some("Square"), None),
                    "ReduceLogSum" => (None, Some("Log")),
                    _ => (Some("Exp"), Some("Log")),
                };
                reduce_inputs[0] = match pre {
                    Some("Square") => w.node("Mul", &[&x_name, &x_name], vec![]),
                    Some(p) => w.node(p, &[&x_name], vec![]),
                    None => x_name.clone(),
                };
                let refs: Vec<&str> = reduce_inputs.iter().map(String::as_str).collect();
                match post {
                    Some(p) => {
                        let s = w.node("ReduceSum", &refs, reduce_attrs);
                        w.node_to(p, &[&s], vec![], &out);
                    }
                    None => w.node_to("ReduceSum", &refs, reduce_attrs, &out),
                }
            }
            "InstanceNormalization" => {
                let rank = x
                    .shape
                    .as_ref()
                    .map(Vec::len)
                    .ok_or("it needs a ranked input")?;
                if rank < 3 {
                    return Err("its input must have at least 3 dimensions".into());
                }
                let axes: Vec<i64> = (2..rank as i64).collect();
                let normal = w.normalize(&x_name, &axes, f("epsilon", 1e-5));
                // scale and bias are [C]: as [C, 1, ...] they broadcast over N and space.
                let trailing: Vec<i64> = (1..rank as i64 - 1).collect();
                let scale = w.node("Unsqueeze", &[&input(1)], vec![ints("axes", &trailing)]);
                let bias = w.node("Unsqueeze", &[&input(2)], vec![ints("axes", &trailing)]);
                let scaled = w.node("Mul", &[&normal, &scale], vec![]);
                w.node_to("Add", &[&scaled, &bias], vec![], &out);
            }
            "RMSNormalization" => {
                // x * (1 / sqrt(mean(x^2) + eps)) * scale over the axes from `axis` on,
                // as ONNX's reference (in f32 for f16 and bf16: `stash_type` 1).
                let rank = x
                    .shape
                    .as_ref()
                    .map(Vec::len)
                    .ok_or("it needs a ranked input")? as i64;
                let stash = attr(node, "stash_type").and_then(|a| a.i).unwrap_or(1);
                if stash != 1 {
                    return Err(format!("stash_type {stash} is not supported (1, f32, is)"));
                }
                let axis = attr(node, "axis").and_then(|a| a.i).unwrap_or(-1);
                let axis = if axis < 0 { axis + rank } else { axis };
                if !(0..rank).contains(&axis) {
                    return Err(format!("axis {axis} is out of range for rank {rank}"));
                }
                let axes: Vec<i64> = (axis..rank).collect();
                let keep = vec![ints("axes", &axes), int("keepdims", 1)];
                let sq = w.node("Mul", &[&x_name, &x_name], vec![]);
                let mean = w.node("ReduceMean", &[&sq], keep);
                let eps = w.scalar(f("epsilon", 1e-5));
                let shifted = w.node("Add", &[&mean, &eps], vec![]);
                let rms = w.node("Sqrt", &[&shifted], vec![]);
                let one = w.scalar(1.0);
                let inverse = w.node("Div", &[&one, &rms], vec![]);
                let normal = w.node("Mul", &[&x_name, &inverse], vec![]);
                w.node_to("Mul", &[&normal, &input(1)], vec![], &out);
            }
            "LRN" => {
                // x / (bias + alpha / size * sum of squares over a window of channels)^beta,
                // the window [c - floor((size - 1) / 2), c + ceil((size - 1) / 2)]: the
                // squares as [N, 1, C, rest] averaged by a size x 1 pool whose padding
                // counts (so it divides by size).
                let shape = x.shape.as_ref().ok_or("it needs a static input shape")?;
                if shape.len() < 3 {
                    return Err("its input must have at least 3 dimensions".into());
                }
                let size = attr(node, "size")
                    .and_then(|a| a.i)
                    .ok_or("it needs 'size'")?;
                if size < 1 {
                    return Err(format!("size {size} is not positive"));
                }
                let rest: i64 = shape[2..].iter().product();
                let (lo, hi) = ((size - 1) / 2, size - 1 - (size - 1) / 2);
                let sq = w.node("Mul", &[&x_name, &x_name], vec![]);
                let as_image = w.ints(&[shape[0], 1, shape[1], rest]);
                let r = w.node("Reshape", &[&sq, &as_image], vec![]);
                let pool_attrs = vec![
                    ints("kernel_shape", &[size, 1]),
                    ints("pads", &[lo, 0, hi, 0]),
                    int("count_include_pad", 1),
                ];
                let avg = w.node("AveragePool", &[&r], pool_attrs);
                let back_shape = w.ints(shape);
                let back = w.node("Reshape", &[&avg, &back_shape], vec![]);
                let alpha = w.scalar(f("alpha", 1e-4));
                let bias = w.scalar(f("bias", 1.0));
                let beta = w.scalar(f("beta", 0.75));
                let scaled = w.node("Mul", &[&back, &alpha], vec![]);
                let base = w.node("Add", &[&scaled, &bias], vec![]);
                let denominator = w.node("Pow", &[&base, &beta], vec![]);
                w.node_to("Div", &[&x_name, &denominator], vec![], &out);
            }
            "ConvTranspose" => conv_transpose(node, x, &mut w)?,
            "BatchNormalization" => {
                // Training mode (opset 14+): normalized with the batch's statistics
                // over every dimension but the channels (population variance), and
                // the running statistics updated as
                // `running * momentum + batch * (1 - momentum)`.
                let rank = x
                    .shape
                    .as_ref()
                    .map(Vec::len)
                    .ok_or("it needs a ranked input")?;
                if rank < 2 {
                    return Err("its input must have at least 2 dimensions".into());
                }
                let axes: Vec<i64> = std::iter::once(0).chain(2..rank as i64).collect();
                let keep = vec![ints("axes", &axes), int("keepdims", 1)];
                let mean = w.node("ReduceMean", &[&x_name], keep.clone());
                let d = w.node("Sub", &[&x_name, &mean], vec![]);
                let sq = w.node("Mul", &[&d, &d], vec![]);
                let var = w.node("ReduceMean", &[&sq], keep);
                let eps = w.scalar(f("epsilon", 1e-5));
                let ve = w.node("Add", &[&var, &eps], vec![]);
                let sd = w.node("Sqrt", &[&ve], vec![]);
                let normal = w.node("Div", &[&d, &sd], vec![]);
                // scale and bias are [C]: as [C, 1, ...] they broadcast over N and space.
                let trailing: Vec<i64> = (1..rank as i64 - 1).collect();
                let scale = w.node("Unsqueeze", &[&input(1)], vec![ints("axes", &trailing)]);
                let bias = w.node("Unsqueeze", &[&input(2)], vec![ints("axes", &trailing)]);
                let scaled = w.node("Mul", &[&normal, &scale], vec![]);
                w.node_to("Add", &[&scaled, &bias], vec![], &out);
                let momentum = f("momentum", 0.9);
                let (keep_old, take_new) = (w.scalar(momentum), w.scalar(1.0 - momentum));
                for (i, (running, batch)) in [(input(3), mean), (input(4), var)].iter().enumerate()
                {
                    let Some(name) = node.output.get(i + 1).filter(|o| !o.is_empty()) else {
                        continue;
                    };
                    let flat = w.node("Squeeze", &[batch], vec![ints("axes", &axes)]);
                    let old = w.node("Mul", &[running, &keep_old], vec![]);
                    let new = w.node("Mul", &[&flat, &take_new], vec![]);
                    w.node_to("Add", &[&old, &new], vec![], name);
                }
            }
            "GroupNormalization" => {
                // Each group of C / G channels normalized over its channels and space:
                // x as [N, G, rest], then scale and bias per channel (opset 21) or per
                // group (opsets 18 to 20, repeated over the group's channels).
                let shape = x.shape.as_ref().ok_or("it needs a static input shape")?;
                if shape.len() < 3 {
                    return Err("its input must have at least 3 dimensions".into());
                }
                let groups = attr(node, "num_groups")
                    .and_then(|a| a.i)
                    .ok_or("it needs num_groups")?;
                let channels = shape[1];
                if groups < 1 || channels % groups != 0 {
                    return Err(format!(
                        "{channels} channels do not split into {groups} groups"
                    ));
                }
                let grouped = w.ints(&[shape[0], groups, -1]);
                let r = w.node("Reshape", &[&x_name, &grouped], vec![]);
                let normal = w.normalize(&r, &[2], f("epsilon", 1e-5));
                let back_shape = w.ints(shape);
                let back = w.node("Reshape", &[&normal, &back_shape], vec![]);
                let per_channel = |w: &mut Writer, v: &str| -> String {
                    let v = if opset >= 21 {
                        v.to_string()
                    } else {
                        let column = w.ints(&[groups, 1]);
                        let g = w.node("Reshape", &[v, &column], vec![]);
                        let wide = w.ints(&[groups, channels / groups]);
                        let spread = w.node("Expand", &[&g, &wide], vec![]);
                        let flat = w.ints(&[channels]);
                        w.node("Reshape", &[&spread, &flat], vec![])
                    };
                    let trailing: Vec<i64> = (1..shape.len() as i64 - 1).collect();
                    w.node("Unsqueeze", &[&v], vec![ints("axes", &trailing)])
                };
                let scale = per_channel(&mut w, &input(1));
                let bias = per_channel(&mut w, &input(2));
                let scaled = w.node("Mul", &[&back, &scale], vec![]);
                w.node_to("Add", &[&scaled, &bias], vec![], &out);
            }
            "Gather" => {
                // Known indices into a computed tensor (ViT's class token, a head's
                // slice): one Slice per index, concatenated, reshaped to
                // data[:axis] + indices + data[axis + 1:]; a run of consecutive
                // indices is one Slice.
                let shape = x.shape.as_ref().ok_or("it needs a static data shape")?;
                let indices = known(1).ok_or_else(|| must_be_known(node, 1, "indices"))?;
                let index_shape = x
                    .second_shape
                    .clone()
                    .ok_or("its indices need a static shape")?;
                let rank = shape.len() as i64;
                let axis = attr(node, "axis").and_then(|a| a.i).unwrap_or(0);
                let axis = if axis < 0 { axis + rank } else { axis };
                if !(0..rank).contains(&axis) {
                    return Err(format!("axis {axis} is out of range"));
                }
                let dim = shape[axis as usize];
                let mut resolved = Vec::new();
                for i in &indices {
                    let j = if *i < 0 { i + dim } else { *i };
                    if !(0..dim).contains(&j) {
                        return Err(format!(
                            "index {i} is out of range for a dimension of {dim}"
                        ));
                    }
                    resolved.push(j);
                }
                let consecutive = resolved.windows(2).all(|p| p[1] == p[0] + 1);
                let axes = w.ints(&[axis]);
                let slice = |w: &mut Writer, from: i64, to: i64| {
                    let (s, e) = (w.ints(&[from]), w.ints(&[to]));
                    w.node("Slice", &[&x_name, &s, &e, &axes], vec![])
                };
                let picked = match (resolved.first(), resolved.last()) {
                    (Some(first), Some(last)) if consecutive => slice(&mut w, *first, last + 1),
                    _ => {
                        let parts: Vec<String> =
                            resolved.iter().map(|j| slice(&mut w, *j, j + 1)).collect();
                        let refs: Vec<&str> = parts.iter().map(String::as_str).collect();
                        w.node("Concat", &refs, vec![int("axis", axis)])
                    }
                };
                let mut out_shape = shape[..axis as usize].to_vec();
                out_shape.extend(&index_shape);
                out_shape.extend(&shape[axis as usize + 1..]);
                let target = w.ints(&out_shape);
                w.node_to("Reshape", &[&picked, &target], vec![], &out);
            }
            "Split" => split(node, x, known, opset, &mut w)?,
            "LSTM" | "GRU" | "RNN" => recurrent::recurrent(node, x, known, &mut w)?,
            "Tile" => {
                let shape = x.shape.as_ref().ok_or("it needs a static input shape")?;
                let repeats = known(1).ok_or_else(|| must_be_known(node, 1, "repeats"))?;
                if repeats.len() != shape.len() || repeats.iter().any(|r| *r < 0) {
                    return Err(format!("repeats {repeats:?} do not fit its input"));
                }
                let copies = repeats
                    .iter()
                    .try_fold(1u64, |n, r| n.checked_mul(*r as u64));
                if copies.is_none_or(|n| n > 4096) {
                    return Err("it repeats its input more than 4096 times".into());
                }
                let mut current = x_name.clone();
                let axes: Vec<usize> = (0..repeats.len()).filter(|a| repeats[*a] != 1).collect();
                if axes.is_empty() {
                    w.node_to("Identity", &[&current], vec![], &out);
                }
                for (k, &a) in axes.iter().enumerate() {
                    let copies = vec![current.as_str(); repeats[a] as usize];
                    let attrs = vec![int("axis", a as i64)];
                    current = if k + 1 == axes.len() {
                        w.node_to("Concat", &copies, attrs, &out);
                        out.clone()
                    } else {
                        w.node("Concat", &copies, attrs)
                    };
                }
            }
            "Expand" => {
                // x broadcast against zeros of the target shape: x + (-0.0) is x for
                // every float, -0.0 included (integers add 0).
                let shape = known(1).ok_or_else(|| must_be_known(node, 1, "shape"))?;
                if x.data_type == tensor_proto::DataType::Bool as i32 {
                    return Err("Expand of a computed boolean tensor is not supported".into());
                }
                let zeros = w.constant_of_shape(&shape);
                w.node_to("Add", &[&x_name, &zeros], vec![], &out);
            }
            _ => unreachable!("listed in DECOMPOSED"),
        }
        Ok(())
    })();
    Some(result.map(|()| w.e))
}

/// Whether a Gather is written as slices: its data has a static shape and its
/// indices are known, in range, and either consecutive or at most 16 (a class token,
/// a head's rows); any other Gather is `graph.gather`.
fn gather_as_slices(
    node: &NodeProto,
    x: &Operand,
    known: &dyn Fn(usize) -> Option<Vec<i64>>,
) -> bool {
    let (Some(shape), Some(indices), Some(_)) = (&x.shape, known(1), &x.second_shape) else {
        return false;
    };
    let rank = shape.len() as i64;
    let axis = attr(node, "axis").and_then(|a| a.i).unwrap_or(0);
    let axis = if axis < 0 { axis + rank } else { axis };
    let Some(dim) = usize::try_from(axis).ok().and_then(|a| shape.get(a)) else {
        return false;
    };
    let consecutive = indices.windows(2).all(|p| p[1] == p[0] + 1);
    indices.iter().all(|i| (-dim..*dim).contains(i)) && (consecutive || indices.len() <= 16)
}

/// Whether [`decompose`] may expand a node of type `op` (some only in some forms).
pub(super) fn may_decompose(op: &str) -> bool {
    DECOMPOSED.contains(&op)
        || matches!(
            op,
            "Softmax" | "LogSoftmax" | "Conv" | "ConvTranspose" | "MaxPool" | "AveragePool"
        )
}

/// A 1-D convolution or pooling (input N x C x L) as the 2-D one over N x C x 1 x L:
/// the input and weights get a height of 1, the attributes a leading 1 (pads 0), and
/// the result loses the height again.
fn one_d_as_2d(node: &NodeProto, x: &Operand) -> Expansion {
    let out = node.output.first().cloned().unwrap_or_default();
    let mut w = Writer {
        prefix: out.clone(),
        data_type: x.data_type,
        e: Expansion::default(),
    };
    let axis = w.ints(&[2]);
    let mut inputs: Vec<String> = node.input.clone();
    for (i, name) in inputs.iter_mut().enumerate().take(2) {
        // The data, and a convolution's weights (O x I/G x K).
        let is_weight = i == 1 && matches!(node.op_type.as_deref(), Some("Conv" | "ConvTranspose"));
        if (i == 0 || is_weight) && !name.is_empty() {
            *name = w.node("Unsqueeze", &[name.as_str(), &axis], vec![]);
        }
    }
    let attribute: Vec<AttributeProto> = node
        .attribute
        .iter()
        .map(|a| {
            let mut a = a.clone();
            match a.name.as_deref() {
                Some("kernel_shape" | "strides" | "dilations") => a.ints.insert(0, 1),
                Some("output_padding") => a.ints.insert(0, 0),
                Some("output_shape") => a.ints.insert(a.ints.len().saturating_sub(1), 1),
                Some("pads") if a.ints.len() == 2 => a.ints = vec![0, a.ints[0], 0, a.ints[1]],
                _ => {}
            }
            a
        })
        .collect();
    let refs: Vec<&str> = inputs.iter().map(String::as_str).collect();
    let two_d = w.node(node.op_type.as_deref().unwrap_or(""), &refs, attribute);
    w.node_to("Squeeze", &[&two_d, &axis], vec![], &out);
    w.e
}

/// A 3-D MaxPool or AveragePool (input N x C x D x H x W) as two 2-D pools, since a
/// box window is separable: first over H x W with the depth folded into the
/// channels (N x C*D x H x W), then over D with the plane flattened
/// (N x C x D x H'*W', a window of kD x 1). A maximum of maxima is the maximum; an
/// average of averages is the average, since every plane of a depth window has the
/// same count of positions (with or without padding counted). `auto_pad` becomes
/// explicit pads; the second output (MaxPool's indices) is not supported.
fn three_d_pool(node: &NodeProto, x: &Operand) -> Result<Expansion, String> {
    let op = node.op_type.as_deref().unwrap_or("");
    if node.output.iter().skip(1).any(|o| !o.is_empty()) {
        return Err("MaxPool's indices output is not supported".into());
    }
    let shape = x.shape.as_ref().ok_or("it needs a static input shape")?;
    let geometry = PoolGeometry::of(node, shape)?;
    let PoolGeometry {
        kernel,
        strides,
        dilations,
        pads,
    } = &geometry;
    let out = node.output.first().cloned().unwrap_or_default();
    let mut w = Writer {
        prefix: out.clone(),
        data_type: x.data_type,
        e: Expansion::default(),
    };
    let passed: Vec<AttributeProto> = node
        .attribute
        .iter()
        .filter(|a| matches!(a.name.as_deref(), Some("ceil_mode" | "count_include_pad")))
        .cloned()
        .collect();
    let with = |mut attrs: Vec<AttributeProto>| {
        attrs.extend(passed.iter().cloned());
        attrs
    };
    let [n, c, depth, h, wd] = shape[..] else {
        unreachable!("a 5-D shape")
    };
    let planes = w.ints(&[n, c * depth, h, wd]);
    let folded = w.node("Reshape", &[&node.input[0], &planes], vec![]);
    let plane_pool = w.node(
        op,
        &[&folded],
        with(vec![
            ints("kernel_shape", &kernel[1..]),
            ints("strides", &strides[1..]),
            ints("dilations", &dilations[1..]),
            ints("pads", &[pads[1], pads[2], pads[4], pads[5]]),
        ]),
    );
    // The pooled plane's size, as the 2-D pool computes it.
    let ceil = attr(node, "ceil_mode").and_then(|a| a.i).unwrap_or(0) != 0;
    let pooled = |size: i64, d: usize| geometry.output_size(size, d, ceil);
    let (h2, w2) = (pooled(h, 1)?, pooled(wd, 2)?);
    let depth_first = w.ints(&[n, c, depth, h2 * w2]);
    let lines = w.node("Reshape", &[&plane_pool, &depth_first], vec![]);
    let depth_pool = w.node(
        op,
        &[&lines],
        with(vec![
            ints("kernel_shape", &[kernel[0], 1]),
            ints("strides", &[strides[0], 1]),
            ints("dilations", &[dilations[0], 1]),
            ints("pads", &[pads[0], 0, pads[3], 0]),
        ]),
    );
    let d2 = pooled(depth, 0)?;
    let result = w.ints(&[n, c, d2, h2, w2]);
    w.node_to("Reshape", &[&depth_pool, &result], vec![], &out);
    Ok(w.e)
}

/// A 3-D Conv as kD 2-D convolutions, one per depth tap of the kernel: the input
/// (depth-padded) as [N, D, C, H, W]; for tap k the depths k dD, k dD + sD, ...
/// (one per output depth) folded into the batch, [N OD, C, H, W], convolved with the
/// weights' slice [M, C/g, kH, kW] (the bias with the first tap only), the kD results
/// summed, and [N OD, M, OH, OW] put back as [N, M, OD, OH, OW]. The work is the 3-D
/// convolution's; groups, strides, dilations, pads and `auto_pad` carry over per
/// dimension.
fn three_d_conv(node: &NodeProto, x: &Operand) -> Result<Expansion, String> {
    let shape = x
        .shape
        .as_ref()
        .ok_or("a 3-D convolution needs a static input shape")?;
    let weights = x
        .second_shape
        .as_ref()
        .filter(|s| s.len() == 5)
        .ok_or("a 3-D convolution needs weights of a static 5-D shape")?;
    // Conv and the pools share their window attributes; the kernel may come from the
    // weights.
    let mut with_kernel = node.clone();
    if attr(node, "kernel_shape").is_none() {
        with_kernel
            .attribute
            .push(ints("kernel_shape", &weights[2..]));
    }
    let g = PoolGeometry::of(&with_kernel, shape)?;
    let [n, c, d, h, wd] = shape[..] else {
        unreachable!("a 5-D shape")
    };
    let out = node.output.first().cloned().unwrap_or_default();
    let input = |i: usize| node.input.get(i).cloned().unwrap_or_default();
    let mut w = Writer {
        // Not the output's name alone: a ConvTranspose expands into this Conv with
        // its own output name, and the two expansions' names must differ.
        prefix: format!("{out}::3d"),
        data_type: x.data_type,
        e: Expansion::default(),
    };
    let (od, oh, ow) = (
        g.output_size(d, 0, false)?,
        g.output_size(h, 1, false)?,
        g.output_size(wd, 2, false)?,
    );
    let (front, back) = (g.pads[0], g.pads[3]);
    let padded = if front + back > 0 {
        let pads = w.ints(&[0, 0, front, 0, 0, 0, 0, back, 0, 0]);
        w.node("Pad", &[&input(0), &pads], vec![])
    } else {
        input(0)
    };
    let depth_major = w.node(
        "Transpose",
        &[&padded],
        vec![ints("perm", &[0, 2, 1, 3, 4])],
    );
    let taps = g.kernel[0];
    let (stride, dilation) = (g.strides[0], g.dilations[0]);
    let axis_1 = w.ints(&[1]);
    let axis_2 = w.ints(&[2]);
    let steps = w.ints(&[stride]);
    let batch = w.ints(&[n * od, c, h, wd]);
    let conv_attrs = vec![
        ints("kernel_shape", &g.kernel[1..]),
        ints("strides", &g.strides[1..]),
        ints("dilations", &g.dilations[1..]),
        ints("pads", &[g.pads[1], g.pads[2], g.pads[4], g.pads[5]]),
        int("group", attr(node, "group").and_then(|a| a.i).unwrap_or(1)),
    ];
    let mut partial: Option<String> = None;
    for k in 0..taps {
        let first = k * dilation;
        let (start, end) = (w.ints(&[first]), w.ints(&[first + (od - 1) * stride + 1]));
        let planes = w.node(
            "Slice",
            &[&depth_major, &start, &end, &axis_1, &steps],
            vec![],
        );
        let folded = w.node("Reshape", &[&planes, &batch], vec![]);
        let (tap, next) = (w.ints(&[k]), w.ints(&[k + 1]));
        let kernel = w.node("Slice", &[&input(1), &tap, &next, &axis_2], vec![]);
        let kernel = w.node("Squeeze", &[&kernel], vec![ints("axes", &[2])]);
        let bias = input(2);
        let mut operands = vec![folded.as_str(), kernel.as_str()];
        if k == 0 && !bias.is_empty() {
            operands.push(&bias);
        }
        let y = w.node("Conv", &operands, conv_attrs.clone());
        partial = Some(match partial {
            None => y,
            Some(sum) => w.node("Add", &[&sum, &y], vec![]),
        });
    }
    let sum = partial.ok_or("the kernel has no depth")?;
    let unfolded = w.ints(&[n, od, weights[0], oh, ow]);
    let grouped = w.node("Reshape", &[&sum, &unfolded], vec![]);
    w.node_to(
        "Transpose",
        &[&grouped],
        vec![ints("perm", &[0, 2, 1, 3, 4])],
        &out,
    );
    Ok(w.e)
}

/// A 2-D MaxPool with its indices output: the values by the pool itself; the indices
/// as the first maximum, in the window's row-major order, of the K windows' elements
/// stacked on a fifth axis (each a strided Slice of the input padded with -inf),
/// ArgMax over them, and the chosen element's flat index in the input: row-major
/// (`n c h w`), or with `storage_order = 1` column-major within a plane
/// (`(n C + c) H W + w H + h`). A window whose real elements are all -inf may name
/// a padding cell.
fn max_pool_with_indices(node: &NodeProto, x: &Operand) -> Result<Expansion, String> {
    use tensor_proto::DataType as T;
    if !matches!(
        T::try_from(x.data_type),
        Ok(T::Float | T::Double | T::Float16 | T::Bfloat16)
    ) {
        return Err("MaxPool's indices output is supported for float inputs".into());
    }
    let shape = x
        .shape
        .as_ref()
        .ok_or("its indices need a static input shape")?;
    let [n, c, h, wd] = shape[..] else {
        return Err("MaxPool's indices output is supported for 2-D pools".into());
    };
    let g = PoolGeometry::of(node, shape)?;
    let ceil = attr(node, "ceil_mode").and_then(|a| a.i).unwrap_or(0) != 0;
    let column_major = attr(node, "storage_order").and_then(|a| a.i).unwrap_or(0) != 0;
    let (oh, ow) = (g.output_size(h, 0, ceil)?, g.output_size(wd, 1, ceil)?);
    let (kh, kw) = (g.kernel[0], g.kernel[1]);
    let (sh, sw) = (g.strides[0], g.strides[1]);
    let (dh, dw) = (g.dilations[0], g.dilations[1]);
    let (top, left) = (g.pads[0], g.pads[1]);
    let indices_out = node.output[1].clone();
    let mut w = Writer {
        prefix: indices_out.clone(),
        data_type: x.data_type,
        e: Expansion::default(),
    };
    if let Some(values_out) = node.output.first().filter(|o| !o.is_empty()) {
        let mut pool = node.clone();
        pool.output = vec![values_out.clone()];
        w.e.nodes.push(pool);
    }
    // The padded extent every window reaches: the begin pads, then as many -inf as
    // the last window needs past the end.
    let reach_h = (oh - 1) * sh + (kh - 1) * dh + 1;
    let reach_w = (ow - 1) * sw + (kw - 1) * dw + 1;
    let (bottom, right) = ((reach_h - h - top).max(0), (reach_w - wd - left).max(0));
    let input = node.input[0].clone();
    let padded = if top + left + bottom + right > 0 {
        let pads = w.ints(&[0, 0, top, left, 0, 0, bottom, right]);
        let low = w.scalar(f32::NEG_INFINITY);
        w.node("Pad", &[&input, &pads, &low], vec![])
    } else {
        input
    };
    let mut windows = Vec::new();
    let (axes, steps) = (w.ints(&[2, 3]), w.ints(&[sh, sw]));
    for i in 0..kh {
        for j in 0..kw {
            let starts = w.ints(&[i * dh, j * dw]);
            let ends = w.ints(&[i * dh + (oh - 1) * sh + 1, j * dw + (ow - 1) * sw + 1]);
            let slice = w.node("Slice", &[&padded, &starts, &ends, &axes, &steps], vec![]);
            windows.push(w.node("Unsqueeze", &[&slice], vec![ints("axes", &[4])]));
        }
    }
    let refs: Vec<&str> = windows.iter().map(String::as_str).collect();
    let stacked = w.node("Concat", &refs, vec![int("axis", 4)]);
    let k = w.node(
        "ArgMax",
        &[&stacked],
        vec![int("axis", 4), int("keepdims", 0)],
    );
    // k = row * kw + column within the window.
    let width = w.ints(&[kw]);
    let row = w.node("Div", &[&k, &width], vec![]);
    let whole_rows = w.node("Mul", &[&row, &width], vec![]);
    let column = w.node("Sub", &[&k, &whole_rows], vec![]);
    // Steps of the flat index for one window row and column, and each window's first
    // element (which may lie in the padding).
    let (row_step, column_step) = if column_major {
        (dh, dw * h)
    } else {
        (dh * wd, dw)
    };
    let planes: Vec<i64> = (0..n * c).map(|p| p * h * wd).collect();
    let plane = w.int_tensor(&[n, c, 1, 1], &planes);
    let mut corners = Vec::with_capacity((oh * ow) as usize);
    for y in 0..oh {
        for x in 0..ow {
            let (r, q) = (y * sh - top, x * sw - left);
            corners.push(if column_major { q * h + r } else { r * wd + q });
        }
    }
    let corner = w.int_tensor(&[1, 1, oh, ow], &corners);
    let row_step = w.ints(&[row_step]);
    let column_step = w.ints(&[column_step]);
    let down = w.node("Mul", &[&row, &row_step], vec![]);
    let across = w.node("Mul", &[&column, &column_step], vec![]);
    let within = w.node("Add", &[&down, &across], vec![]);
    let start = w.node("Add", &[&plane, &corner], vec![]);
    w.node_to("Add", &[&start, &within], vec![], &indices_out);
    Ok(w.e)
}

/// A pool's window: kernel, strides and dilations per spatial dimension, and pads
/// (all begins, then all ends) with `auto_pad` resolved.
struct PoolGeometry {
    kernel: Vec<i64>,
    strides: Vec<i64>,
    dilations: Vec<i64>,
    pads: Vec<i64>,
}

impl PoolGeometry {
    /// The window of pool `node` over an input of `shape` (N, C, spatial...).
    fn of(node: &NodeProto, shape: &[i64]) -> Result<PoolGeometry, String> {
        let spatial = shape.len().saturating_sub(2);
        let list = |name: &str, default: i64| -> Result<Vec<i64>, String> {
            match attr(node, name) {
                Some(a) if a.ints.len() == spatial => Ok(a.ints.clone()),
                Some(a) => Err(format!(
                    "{name} {:?} is not for {spatial} spatial dimensions",
                    a.ints
                )),
                None => Ok(vec![default; spatial]),
            }
        };
        let kernel = list("kernel_shape", 0)?;
        let strides = list("strides", 1)?;
        let dilations = list("dilations", 1)?;
        if kernel
            .iter()
            .chain(&strides)
            .chain(&dilations)
            .any(|v| *v < 1)
        {
            return Err("kernel_shape, strides and dilations must be positive".into());
        }
        let auto_pad = attr(node, "auto_pad")
            .and_then(|a| a.s.clone())
            .map(|s| String::from_utf8_lossy(&s).into_owned())
            .unwrap_or_else(|| "NOTSET".into());
        let pads = match auto_pad.as_str() {
            "NOTSET" => match attr(node, "pads") {
                Some(a) if a.ints.len() == 2 * spatial => a.ints.clone(),
                Some(a) => {
                    return Err(format!(
                        "pads {:?} are not for {spatial} spatial dimensions",
                        a.ints
                    ));
                }
                None => vec![0; 2 * spatial],
            },
            "VALID" => vec![0; 2 * spatial],
            "SAME_UPPER" | "SAME_LOWER" => {
                let mut p = vec![0; 2 * spatial];
                for d in 0..spatial {
                    let size = shape[2 + d];
                    let out = (size + strides[d] - 1) / strides[d];
                    let span = (kernel[d] - 1) * dilations[d] + 1;
                    let total = ((out - 1) * strides[d] + span - size).max(0);
                    let small = total / 2;
                    let (begin, end) = if auto_pad == "SAME_UPPER" {
                        (small, total - small)
                    } else {
                        (total - small, small)
                    };
                    p[d] = begin;
                    p[spatial + d] = end;
                }
                p
            }
            other => return Err(format!("auto_pad '{other}' is not known")),
        };
        Ok(PoolGeometry {
            kernel,
            strides,
            dilations,
            pads,
        })
    }

    /// The number of windows along spatial dimension `d` of `size` elements, as ONNX
    /// counts them (`ceil_mode` included: a last window starting in the end padding is
    /// dropped).
    fn output_size(&self, size: i64, d: usize, ceil: bool) -> Result<i64, String> {
        let spatial = self.kernel.len();
        let span = (self.kernel[d] - 1) * self.dilations[d] + 1;
        let room = size + self.pads[d] + self.pads[spatial + d] - span;
        if room < 0 {
            return Err(format!(
                "a window of {span} does not fit in {size} elements"
            ));
        }
        let stride = self.strides[d];
        let mut o = if ceil {
            (room + stride - 1) / stride + 1
        } else {
            room / stride + 1
        };
        if ceil && (o - 1) * stride >= size + self.pads[d] {
            o -= 1;
        }
        Ok(o)
    }
}

/// Softmax and LogSoftmax before opset 13 (default axis 1) normalize over the input
/// flattened to 2-D at `axis`: as a Reshape to 2-D, the op over its last axis, and a
/// Reshape back. `None` when that is the op over the last axis itself.
fn coerced_to_2d(node: &NodeProto, x: &Operand, opset: i64) -> Option<Result<Expansion, String>> {
    if opset >= 13 {
        return None;
    }
    let op = node.op_type.as_deref().unwrap_or("");
    let Some(shape) = &x.shape else {
        return Some(Err(format!(
            "before opset 13, {op} needs a static input shape"
        )));
    };
    let rank = shape.len() as i64;
    let axis = attr(node, "axis").and_then(|a| a.i).unwrap_or(1);
    let axis = if axis < 0 { axis + rank } else { axis };
    if axis == rank - 1 || rank == 0 {
        return None;
    }
    if !(0..rank).contains(&axis) {
        return Some(Err(format!("axis {axis} is out of range")));
    }
    let out = node.output.first().cloned().unwrap_or_default();
    let mut w = Writer {
        prefix: out.clone(),
        data_type: x.data_type,
        e: Expansion::default(),
    };
    let (a, b) = shape.split_at(axis as usize);
    let flat = w.ints(&[a.iter().product(), b.iter().product()]);
    let back = w.ints(shape);
    let x_name = node.input.first().cloned().unwrap_or_default();
    let two_d = w.node("Reshape", &[&x_name, &flat], vec![]);
    let normal = w.node(op, &[&two_d], vec![int("axis", 1)]);
    w.node_to("Reshape", &[&normal, &back], vec![], &out);
    Some(Ok(w.e))
}

/// ConvTranspose (2-D; 1-D comes here as 2-D) as a convolution: the input with
/// stride - 1 zeros inserted between neighbours, padded by dilation (kernel - 1) minus
/// the op's pads (cropped where that is negative), convolved at stride 1 with the
/// weights transposed per group (C x M/g x kH x kW to M x C/g x kH x kW) and flipped
/// in space. The weights are known, so their rearrangement folds at import.
fn conv_transpose(node: &NodeProto, x: &Operand, w: &mut Writer) -> Result<(), String> {
    let shape = x.shape.as_ref().ok_or("it needs a static input shape")?;
    // Spatial dimensions: 2 or 3 (1-D is written as 2-D before this).
    let nd = shape.len().saturating_sub(2);
    if !(2..=3).contains(&nd) {
        return Err(format!("{nd}-D ConvTranspose is not supported"));
    }
    let out = node.output.first().cloned().unwrap_or_default();
    let list = |name: &str, default: i64| -> Vec<i64> {
        attr(node, name)
            .map(|a| a.ints.clone())
            .filter(|v| !v.is_empty())
            .unwrap_or(vec![default; nd])
    };
    if !x.second_known {
        return Err(must_be_known(node, 1, "weights"));
    }
    let kernel = attr(node, "kernel_shape")
        .map(|a| a.ints.clone())
        .filter(|k| !k.is_empty())
        .or_else(|| {
            x.second_shape
                .as_ref()
                .map(|s| s[2.min(s.len())..].to_vec())
        })
        .ok_or("it needs kernel_shape (weights of unknown shape)")?;
    let (strides, dilations) = (list("strides", 1), list("dilations", 1));
    let output_padding = list("output_padding", 0);
    let group = attr(node, "group").and_then(|a| a.i).unwrap_or(1);
    let input = |i: usize| node.input.get(i).cloned().unwrap_or_default();
    if [&kernel, &strides, &dilations, &output_padding]
        .iter()
        .any(|v| v.len() != nd)
    {
        return Err(format!(
            "its kernel_shape, strides, dilations and output_padding must have {nd} values"
        ));
    }
    if strides.iter().chain(&dilations).any(|v| *v < 1) || group < 1 {
        return Err("its strides, dilations and group must be positive".into());
    }
    let (channels, spatial) = (shape[1], &shape[2..]);
    if channels % group != 0 {
        return Err(format!(
            "{channels} channels do not split into {group} groups"
        ));
    }
    // Each side's padding of the op (begin, end) per spatial axis.
    let auto_pad = attr(node, "auto_pad")
        .and_then(|a| a.s.as_ref())
        .map(|s| String::from_utf8_lossy(s).into_owned())
        .unwrap_or_else(|| "NOTSET".into());
    let full: Vec<i64> = (0..nd)
        .map(|i| {
            strides[i] * (spatial[i] - 1) + output_padding[i] + (kernel[i] - 1) * dilations[i] + 1
        })
        .collect();
    let output_shape = attr(node, "output_shape")
        .map(|a| a.ints.clone())
        .filter(|v| !v.is_empty());
    let pads: Vec<(i64, i64)> = if output_shape.is_some() || auto_pad.starts_with("SAME") {
        let wanted: Vec<i64> = match &output_shape {
            Some(o) if o.len() >= nd => o[o.len() - nd..].to_vec(),
            Some(_) => return Err("its output_shape must give every spatial size".into()),
            None => (0..nd).map(|i| spatial[i] * strides[i]).collect(),
        };
        (0..nd)
            .map(|i| {
                let total = full[i] - wanted[i];
                if auto_pad == "SAME_LOWER" {
                    (total - total / 2, total / 2)
                } else {
                    (total / 2, total - total / 2)
                }
            })
            .collect()
    } else if auto_pad == "VALID" || auto_pad == "NOTSET" {
        let p = list("pads", 0);
        let p = if p.len() == nd { vec![0; 2 * nd] } else { p };
        if p.len() != 2 * nd {
            return Err(format!("its pads must have {} values", 2 * nd));
        }
        if auto_pad == "VALID" {
            vec![(0, 0); nd]
        } else {
            (0..nd).map(|i| (p[i], p[nd + i])).collect()
        }
    } else {
        return Err(format!("auto_pad '{auto_pad}' is not supported"));
    };
    let whole_tiles = nd == 2
        && group == 1
        && kernel == strides
        && dilations == [1, 1]
        && output_padding == [0, 0]
        && pads.iter().all(|(b, e)| *b >= 0 && *e >= 0);
    if whole_tiles {
        return depth_to_space_transpose(shape, &kernel, &pads, &input, &out, w);
    }
    // 1. Zeros between neighbours: [N, C, H, W] -> [N, C, H, 1, W] padded to s - 1
    //    more along the new axis, as [N, C, H s, W], then the trailing zeros cut
    //    (likewise for a depth).
    let rank = shape.len();
    let mut current = input(0);
    let mut dims = shape.clone();
    for (axis, &s) in strides.iter().enumerate() {
        if s == 1 {
            continue;
        }
        let a = 2 + axis;
        let after = w.ints(&[a as i64 + 1]);
        let expanded = w.node("Unsqueeze", &[&current, &after], vec![]);
        let mut pad = vec![0i64; 2 * (rank + 1)];
        pad[rank + 1 + a + 1] = s - 1;
        let pads = w.ints(&pad);
        let spread = w.node("Pad", &[&expanded, &pads], vec![]);
        let mut merged = dims.clone();
        merged[a] *= s;
        let merged_shape = w.ints(&merged);
        let flat = w.node("Reshape", &[&spread, &merged_shape], vec![]);
        let (start, end, axes) = (
            w.ints(&[0]),
            w.ints(&[(dims[a] - 1) * s + 1]),
            w.ints(&[a as i64]),
        );
        current = w.node("Slice", &[&flat, &start, &end, &axes], vec![]);
        dims[a] = (dims[a] - 1) * s + 1;
    }
    // 2. Padding by dilation (kernel - 1) - pad (plus output_padding at the end);
    //    a negative amount crops.
    let mut pad = vec![0i64; 2 * rank];
    let mut crop: Vec<(i64, i64)> = vec![(0, 0); nd];
    for axis in 0..nd {
        let reach = dilations[axis] * (kernel[axis] - 1);
        let (begin, end) = (
            reach - pads[axis].0,
            reach - pads[axis].1 + output_padding[axis],
        );
        let a = 2 + axis;
        pad[a] = begin.max(0);
        pad[rank + a] = end.max(0);
        crop[axis] = ((-begin).max(0), (-end).max(0));
    }
    let space: Vec<i64> = (2..rank as i64).collect();
    if pad.iter().any(|p| *p != 0) {
        let pads = w.ints(&pad);
        current = w.node("Pad", &[&current, &pads], vec![]);
        for axis in 0..nd {
            dims[2 + axis] += pad[2 + axis] + pad[rank + 2 + axis];
        }
    }
    if crop.iter().any(|(b, e)| *b != 0 || *e != 0) {
        let starts: Vec<i64> = crop.iter().map(|(b, _)| *b).collect();
        let ends: Vec<i64> = (0..nd).map(|i| dims[2 + i] - crop[i].1).collect();
        let (starts, ends) = (w.ints(&starts), w.ints(&ends));
        let axes = w.ints(&space);
        current = w.node("Slice", &[&current, &starts, &ends, &axes], vec![]);
    }
    // 3. The weights [C, M/g, k...] as [M, C/g, k...], flipped in space.
    let per_group_in = channels / group;
    let grouped: Vec<i64> = [group, per_group_in, -1]
        .iter()
        .chain(&kernel)
        .copied()
        .collect();
    let grouped = w.ints(&grouped);
    let wg = w.node("Reshape", &[&input(1), &grouped], vec![]);
    let perm: Vec<i64> = [0, 2, 1].into_iter().chain(3..rank as i64 + 1).collect();
    let swapped = w.node("Transpose", &[&wg], vec![ints("perm", &perm)]);
    let merged: Vec<i64> = [-1, per_group_in].iter().chain(&kernel).copied().collect();
    let merged = w.ints(&merged);
    let oriented = w.node("Reshape", &[&swapped, &merged], vec![]);
    let (starts, ends) = (w.ints(&vec![-1; nd]), w.ints(&vec![i64::MIN; nd]));
    let (axes, steps) = (w.ints(&space), w.ints(&vec![-1; nd]));
    let flipped = w.node("Slice", &[&oriented, &starts, &ends, &axes, &steps], vec![]);
    let mut conv_inputs = vec![current.as_str(), flipped.as_str()];
    let bias = input(2);
    if !bias.is_empty() {
        conv_inputs.push(&bias);
    }
    let conv_attrs = vec![
        ints("kernel_shape", &kernel),
        ints("dilations", &dilations),
        int("group", group),
    ];
    w.node_to("Conv", &conv_inputs, conv_attrs, &out);
    Ok(())
}

/// ConvTranspose whose kernel equals its strides (group 1, no dilation or output
/// padding): each input pixel writes its own kH x kW tile of the output, so
/// `out[n, m, h kH + i, w kW + j] = b[m] + sum_c x[n, c, h, w] W[c, m, i, j]`. That is
/// a 1x1 convolution with M kH kW output channels (the weights [C, M, kH, kW] as
/// [M kH kW, C, 1, 1], the bias repeated per tile position), whose channels are then
/// moved into space ([N, M, kH, kW, H, W] to [N, M, H, kH, W, kW]), and the op's
/// pads cropped. A quarter of the work of the zero-inserted convolution (for 2x2)
/// and no zero-inserted copy of the input.
fn depth_to_space_transpose(
    shape: &[i64],
    kernel: &[i64],
    pads: &[(i64, i64)],
    input: &dyn Fn(usize) -> String,
    out: &str,
    w: &mut Writer,
) -> Result<(), String> {
    let (n, channels, height, width) = (shape[0], shape[1], shape[2], shape[3]);
    let (kh, kw) = (kernel[0], kernel[1]);
    let per_channel = w.node("Transpose", &[&input(1)], vec![ints("perm", &[1, 2, 3, 0])]);
    let pointwise_shape = w.ints(&[-1, channels, 1, 1]);
    let pointwise = w.node("Reshape", &[&per_channel, &pointwise_shape], vec![]);
    let mut conv_inputs = vec![input(0), pointwise];
    let bias = input(2);
    if !bias.is_empty() {
        let column = w.ints(&[-1, 1]);
        let bias_column = w.node("Reshape", &[&bias, &column], vec![]);
        let tile = w.ints(&[1, kh * kw]);
        let repeated = w.node("Expand", &[&bias_column, &tile], vec![]);
        let flat = w.ints(&[-1]);
        conv_inputs.push(w.node("Reshape", &[&repeated, &flat], vec![]));
    }
    let conv_refs: Vec<&str> = conv_inputs.iter().map(String::as_str).collect();
    let attrs = vec![ints("kernel_shape", &[1, 1])];
    let channels_out = w.node("Conv", &conv_refs, attrs);
    let split_shape = w.ints(&[n, -1, kh, kw, height, width]);
    let split = w.node("Reshape", &[&channels_out, &split_shape], vec![]);
    let moved = w.node(
        "Transpose",
        &[&split],
        vec![ints("perm", &[0, 1, 4, 2, 5, 3])],
    );
    let full = w.ints(&[n, -1, height * kh, width * kw]);
    if pads.iter().all(|(b, e)| *b == 0 && *e == 0) {
        w.node_to("Reshape", &[&moved, &full], vec![], out);
        return Ok(());
    }
    let spatial = w.node("Reshape", &[&moved, &full], vec![]);
    let starts = w.ints(&[pads[0].0, pads[1].0]);
    let ends = w.ints(&[height * kh - pads[0].1, width * kw - pads[1].1]);
    let axes = w.ints(&[2, 3]);
    w.node_to("Slice", &[&spatial, &starts, &ends, &axes], vec![], out);
    Ok(())
}

/// Split into the sizes `split` (an input from opset 13, an attribute before),
/// `num_outputs` (opset 18) or equal parts: one Slice per output.
fn split(
    node: &NodeProto,
    x: &Operand,
    known: &dyn Fn(usize) -> Option<Vec<i64>>,
    opset: i64,
    w: &mut Writer,
) -> Result<(), String> {
    let shape = x.shape.as_ref().ok_or("it needs a static input shape")?;
    let rank = shape.len() as i64;
    let axis = attr(node, "axis").and_then(|a| a.i).unwrap_or(0);
    let axis = if axis < 0 { axis + rank } else { axis };
    if !(0..rank).contains(&axis) {
        return Err(format!("axis {axis} is out of range"));
    }
    let dim = shape[axis as usize];
    let outputs = node.output.len() as i64;
    let given = if opset >= 13 && node.input.get(1).is_some_and(|n| !n.is_empty()) {
        Some(known(1).ok_or_else(|| must_be_known(node, 1, "split sizes"))?)
    } else {
        attr(node, "split")
            .map(|a| a.ints.clone())
            .filter(|s| !s.is_empty())
    };
    let sizes = match given {
        Some(s) => s,
        None => {
            let parts = attr(node, "num_outputs")
                .and_then(|a| a.i)
                .unwrap_or(outputs);
            if parts <= 0 {
                return Err("num_outputs must be positive".into());
            }
            // Equal parts, the last smaller when the dimension does not divide.
            let each = (dim + parts - 1) / parts;
            (0..parts)
                .map(|k| each.min(dim - k * each).max(0))
                .collect()
        }
    };
    if sizes.len() as i64 != outputs || sizes.iter().sum::<i64>() != dim {
        return Err(format!(
            "split sizes {sizes:?} do not split a dimension of {dim} into {outputs} outputs"
        ));
    }
    let axes = w.ints(&[axis]);
    let mut start = 0;
    for (size, out) in sizes.iter().zip(&node.output) {
        let (s, e) = (w.ints(&[start]), w.ints(&[start + size]));
        start += size;
        if !out.is_empty() {
            w.node_to("Slice", &[&node.input[0], &s, &e, &axes], vec![], out);
        }
    }
    Ok(())
}

/// The error for input `i` (a `what`) not being known at import; it names the input,
/// so that a caller can bind it (as the importer's other "must be a constant" errors).
fn must_be_known(node: &NodeProto, i: usize, what: &str) -> String {
    let name = node.input.get(i).map(String::as_str).unwrap_or("");
    format!("its {what} (input {i}, '{name}') must be a constant")
}

fn attr<'a>(node: &'a NodeProto, name: &str) -> Option<&'a AttributeProto> {
    node.attribute
        .iter()
        .find(|a| a.name.as_deref() == Some(name))
}

/// `TensorProto.DataType` INT32, for Cast's `to`.
const INT32: i64 = tensor_proto::DataType::Int32 as i64;
/// `TensorProto.DataType` DOUBLE.
const DOUBLE: i64 = tensor_proto::DataType::Double as i64;

fn int(name: &str, v: i64) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(attribute_proto::AttributeType::Int as i32),
        i: Some(v),
        ..Default::default()
    }
}

fn ints(name: &str, v: &[i64]) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(attribute_proto::AttributeType::Ints as i32),
        ints: v.to_vec(),
        ..Default::default()
    }
}

/// Writes an expansion: fresh names, constants of the operand's element type.
struct Writer {
    prefix: String,
    data_type: i32,
    e: Expansion,
}

impl Writer {
    fn fresh(&mut self) -> String {
        format!(
            "{}::{}",
            self.prefix,
            self.e.nodes.len() + self.e.constants.len()
        )
    }

    /// A node with a fresh output; returns the output's name.
    fn node(&mut self, op: &str, inputs: &[&str], attrs: Vec<AttributeProto>) -> String {
        let out = self.fresh();
        self.node_to(op, inputs, attrs, &out);
        out
    }

    fn node_to(&mut self, op: &str, inputs: &[&str], attrs: Vec<AttributeProto>, out: &str) {
        self.e.nodes.push(NodeProto {
            op_type: Some(op.into()),
            input: inputs.iter().map(|s| s.to_string()).collect(),
            output: vec![out.into()],
            attribute: attrs,
            ..Default::default()
        });
    }

    /// A scalar constant of the operand's element type.
    fn scalar(&mut self, v: f32) -> String {
        let name = self.fresh();
        let mut t = TensorProto {
            name: Some(name.clone()),
            data_type: Some(self.data_type),
            ..Default::default()
        };
        use tensor_proto::DataType as T;
        match T::try_from(self.data_type) {
            Ok(T::Double) => t.double_data = vec![f64::from(v)],
            Ok(T::Int64) => t.int64_data = vec![v as i64],
            Ok(T::Uint32 | T::Uint64) => t.uint64_data = vec![v as u64],
            Ok(T::Int32 | T::Int16 | T::Int8 | T::Uint16 | T::Uint8) => {
                t.int32_data = vec![v as i32]
            }
            Ok(tensor_proto::DataType::Float16) => {
                t.int32_data = vec![half_bits(v, acc_ir::FloatKind::F16)]
            }
            Ok(tensor_proto::DataType::Bfloat16) => {
                t.int32_data = vec![half_bits(v, acc_ir::FloatKind::BF16)]
            }
            _ => {
                t.data_type = Some(tensor_proto::DataType::Float as i32);
                t.float_data = vec![v];
            }
        }
        self.e.constants.push(t);
        name
    }

    /// A 1-D int64 constant.
    fn ints(&mut self, v: &[i64]) -> String {
        let name = self.fresh();
        self.e.constants.push(TensorProto {
            name: Some(name.clone()),
            data_type: Some(tensor_proto::DataType::Int64 as i32),
            dims: vec![v.len() as i64],
            int64_data: v.to_vec(),
            ..Default::default()
        });
        name
    }

    /// An int64 constant of shape `dims` holding `values` (row-major).
    fn int_tensor(&mut self, dims: &[i64], values: &[i64]) -> String {
        let name = self.fresh();
        self.e.constants.push(TensorProto {
            name: Some(name.clone()),
            data_type: Some(tensor_proto::DataType::Int64 as i32),
            dims: dims.to_vec(),
            int64_data: values.to_vec(),
            ..Default::default()
        });
        name
    }

    /// The int64 positions 0..`n` along dimension `axis` of a `rank`-dimensional
    /// tensor whose other dimensions are 1 (to compare with broadcasting).
    fn index_range(&mut self, rank: usize, axis: usize, n: i64) -> String {
        let mut dims = vec![1; rank];
        dims[axis] = n;
        self.int_tensor(&dims, &(0..n).collect::<Vec<_>>())
    }

    /// Zeros of the operand's element type and `shape` (a splat): -0.0 for floats,
    /// so that adding them keeps every value, -0.0 included.
    fn constant_of_shape(&mut self, shape: &[i64]) -> String {
        let zero = self.scalar(-0.0);
        let s = self.ints(shape);
        // Expand of a scalar folds at import: the shape is known.
        self.node("Expand", &[&zero, &s], vec![])
    }

    /// (x - mean) / sqrt(variance + eps) over `axes` (kept as size 1): instance and
    /// group normalization before their scale and bias.
    fn normalize(&mut self, x: &str, axes: &[i64], eps: f32) -> String {
        let keep = vec![ints("axes", axes), int("keepdims", 1)];
        let mean = self.node("ReduceMean", &[x], keep.clone());
        let d = self.node("Sub", &[x, &mean], vec![]);
        let sq = self.node("Mul", &[&d, &d], vec![]);
        let var = self.node("ReduceMean", &[&sq], keep);
        let eps = self.scalar(eps);
        let ve = self.node("Add", &[&var, &eps], vec![]);
        let sd = self.node("Sqrt", &[&ve], vec![]);
        self.node("Div", &[&d, &sd], vec![])
    }

    /// clip(alpha x + beta, 0, 1) into `out`.
    fn hard_sigmoid(&mut self, x: &str, alpha: f32, beta: f32, out: &str) {
        let (a, b) = (self.scalar(alpha), self.scalar(beta));
        let (lo, hi) = (self.scalar(0.0), self.scalar(1.0));
        let ax = self.node("Mul", &[x, &a], vec![]);
        let axb = self.node("Add", &[&ax, &b], vec![]);
        self.node_to("Clip", &[&axb, &lo, &hi], vec![], out);
    }

    /// max(x, 0) + slope min(x, 0) into `out` (LeakyRelu, PRelu).
    fn relu_plus_scaled_negative(&mut self, x: &str, slope: &str, out: &str) {
        let zero = self.scalar(0.0);
        let pos = self.node("Max", &[x, &zero], vec![]);
        let neg = self.node("Min", &[x, &zero], vec![]);
        let scaled = self.node("Mul", &[&neg, slope], vec![]);
        self.node_to("Add", &[&pos, &scaled], vec![], out);
    }

    /// log(1 + exp(x)) as onnxruntime computes it without overflow:
    /// max(x, 0) + log(1 + exp(-|x|)), into `out`.
    fn softplus(&mut self, x: &str, out: &str) {
        let (zero, one) = (self.scalar(0.0), self.scalar(1.0));
        let pos = self.node("Max", &[x, &zero], vec![]);
        let a = self.node("Abs", &[x], vec![]);
        let na = self.node("Neg", &[&a], vec![]);
        let e = self.node("Exp", &[&na], vec![]);
        let p = self.node("Add", &[&e, &one], vec![]);
        let l = self.node("Log", &[&p], vec![]);
        self.node_to("Add", &[&pos, &l], vec![], out);
    }
}

/// The bits of `v` as an f16 or bf16 (ONNX stores them in `int32_data`).
fn half_bits(v: f32, kind: acc_ir::FloatKind) -> i32 {
    acc_ir::elements::float_to_bits(f64::from(v), kind) as i32
}
