//! ONNX import on models built here with the protobuf types: an MLP and a small CNN
//! imported, verified, printed, and run in the interpreter against values computed by
//! hand; and errors for bad models.

use acc_interp::{Interpreter, Limits, Tensor};
use acc_ir::elements::Scalar;
use acc_onnx::proto::{
    AttributeProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto, TensorProto,
    TensorShapeProto, TypeProto, ValueInfoProto, attribute_proto::AttributeType,
    tensor_proto::DataType, tensor_shape_proto::Dimension, tensor_shape_proto::dimension,
    type_proto,
};
use prost::Message;

fn float_tensor(name: &str, dims: &[i64], data: &[f32]) -> TensorProto {
    TensorProto {
        name: Some(name.into()),
        dims: dims.to_vec(),
        data_type: Some(DataType::Float as i32),
        float_data: data.to_vec(),
        ..Default::default()
    }
}

fn int_tensor(name: &str, data: &[i64]) -> TensorProto {
    TensorProto {
        name: Some(name.into()),
        dims: vec![data.len() as i64],
        data_type: Some(DataType::Int64 as i32),
        int64_data: data.to_vec(),
        ..Default::default()
    }
}

fn value_info(name: &str, dims: &[i64]) -> ValueInfoProto {
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(DataType::Float as i32),
                shape: Some(TensorShapeProto {
                    dim: dims
                        .iter()
                        .map(|d| Dimension {
                            value: Some(dimension::Value::DimValue(*d)),
                            ..Default::default()
                        })
                        .collect(),
                }),
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn node(op: &str, inputs: &[&str], output: &str, attrs: Vec<AttributeProto>) -> NodeProto {
    NodeProto {
        op_type: Some(op.into()),
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: vec![output.into()],
        name: Some(format!("{op}_{output}")),
        attribute: attrs,
        ..Default::default()
    }
}

fn int_attr(name: &str, v: i64) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::Int as i32),
        i: Some(v),
        ..Default::default()
    }
}

fn ints_attr(name: &str, v: &[i64]) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::Ints as i32),
        ints: v.to_vec(),
        ..Default::default()
    }
}

fn model(graph: GraphProto) -> Vec<u8> {
    ModelProto {
        ir_version: Some(8),
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(17),
        }],
        graph: Some(graph),
        ..Default::default()
    }
    .encode_to_vec()
}

fn run(bytes: &[u8], inputs: &[Vec<f32>]) -> (String, Vec<Vec<f64>>) {
    let mut ctx = acc_dialects::new_context();
    let ir = acc_onnx::import(&mut ctx, bytes, "main").unwrap_or_else(|e| panic!("{e:?}"));
    acc_ir::verifier::verify(&ctx, &ir).unwrap_or_else(|e| panic!("{e:?}"));
    let printed = acc_ir::printer::print_ir(&ctx, &ir, &Default::default());
    let params = acc_interp::parameter_types(&ctx, &ir, "main").expect("main");
    let args: Vec<Tensor> = params
        .iter()
        .zip(inputs)
        .map(|(t, d)| {
            Tensor::new(
                &ctx,
                *t,
                d.iter().map(|v| Scalar::Float((*v).into())).collect(),
            )
            .expect("input")
        })
        .collect();
    let out = Interpreter::new(&ctx, &ir, Limits::default())
        .call("main", args)
        .unwrap_or_else(|e| panic!("{}", e.message));
    let values = out
        .iter()
        .map(|t| {
            t.data
                .iter()
                .map(|v| {
                    if let Scalar::Float(f) = v {
                        *f
                    } else {
                        f64::NAN
                    }
                })
                .collect()
        })
        .collect();
    (printed, values)
}

#[test]
fn mlp_imports_and_runs() {
    // x[1x2] -> Gemm(W1[2x3], b1) -> Relu -> MatMul(W2[3x2]) -> Add(b2) -> Softmax.
    let graph = GraphProto {
        name: Some("mlp".into()),
        node: vec![
            node("Gemm", &["x", "w1", "b1"], "h", vec![]),
            node("Relu", &["h"], "r", vec![]),
            node("MatMul", &["r", "w2"], "m", vec![]),
            node("Add", &["m", "b2"], "a", vec![]),
            node("Softmax", &["a"], "y", vec![int_attr("axis", -1)]),
        ],
        initializer: vec![
            float_tensor("w1", &[2, 3], &[1.0, -1.0, 0.5, 2.0, 1.0, -0.5]),
            float_tensor("b1", &[3], &[0.0, 0.5, -1.0]),
            float_tensor("w2", &[3, 2], &[1.0, 0.0, 0.0, 1.0, 1.0, 1.0]),
            float_tensor("b2", &[2], &[0.25, -0.25]),
        ],
        input: vec![value_info("x", &[1, 2])],
        output: vec![value_info("y", &[1, 2])],
        ..Default::default()
    };
    let (printed, out) = run(&model(graph), &[vec![1.0, 2.0]]);
    assert!(printed.contains("graph.gemm"), "{printed}");
    assert!(
        printed.contains(
            "func.func @main(%arg0: tensor<1x2xf32> {onnx.name = \"x\"}) -> (tensor<1x2xf32> {onnx.name = \"y\"})"
        ),
        "{printed}"
    );
    // h = [1+4, -1+2+0.5, 0.5-1-1] = [5, 1.5, -1.5]; relu = [5, 1.5, 0];
    // m = [5, 1.5]; a = [5.25, 1.25]; softmax.
    let (e0, e1) = (5.25f64.exp(), 1.25f64.exp());
    let want = [e0 / (e0 + e1), e1 / (e0 + e1)];
    assert!(
        out[0].iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-6),
        "{:?}",
        out[0]
    );
}

#[test]
fn cnn_with_constant_shape_inputs() {
    // Conv(3x3, pad 1) -> BatchNormalization -> Relu -> MaxPool(2) -> Reshape([1, -1]).
    let weights: Vec<f32> = (0..9).map(|i| if i == 4 { 1.0 } else { 0.0 }).collect();
    let graph = GraphProto {
        node: vec![
            node(
                "Conv",
                &["x", "w"],
                "c",
                vec![
                    ints_attr("pads", &[1, 1, 1, 1]),
                    ints_attr("kernel_shape", &[3, 3]),
                ],
            ),
            node(
                "BatchNormalization",
                &["c", "s", "b", "m", "v"],
                "n",
                vec![],
            ),
            node("Relu", &["n"], "r", vec![]),
            node(
                "MaxPool",
                &["r"],
                "p",
                vec![
                    ints_attr("kernel_shape", &[2, 2]),
                    ints_attr("strides", &[2, 2]),
                ],
            ),
            node("Reshape", &["p", "shape"], "y", vec![]),
        ],
        initializer: vec![
            float_tensor("w", &[1, 1, 3, 3], &weights),
            float_tensor("s", &[1], &[2.0]),
            float_tensor("b", &[1], &[0.0]),
            float_tensor("m", &[1], &[1.0]),
            float_tensor("v", &[1], &[1.0]),
            int_tensor("shape", &[1, -1]),
        ],
        input: vec![value_info("x", &[1, 1, 4, 4])],
        output: vec![value_info("y", &[1, 4])],
        ..Default::default()
    };
    let x: Vec<f32> = (0..16).map(|i| i as f32).collect();
    let (printed, out) = run(&model(graph), &[x]);
    assert!(
        printed.contains("graph.reshape %") && printed.contains("shape = array<i64: 1, -1>"),
        "{printed}"
    );
    // The identity kernel keeps x; bn: 2 * (x - 1) / sqrt(1 + 1e-5); max of each 2x2.
    let k = 2.0 / (1.0f64 + 1e-5).sqrt();
    let want: Vec<f64> = [5.0, 7.0, 13.0, 15.0]
        .iter()
        .map(|v| (v - 1.0) * k)
        .collect();
    assert!(
        out[0].iter().zip(&want).all(|(g, w)| (g - w).abs() < 1e-4),
        "{:?}",
        out[0]
    );
}

#[test]
fn bad_models_are_clear_errors() {
    let mut ctx = acc_dialects::new_context();
    let e = acc_onnx::import(&mut ctx, b"\xff\xff\xff garbage", "main").expect_err("garbage");
    assert!(e[0].starts_with("not a valid ONNX model"), "{e:?}");
    let graph = GraphProto {
        node: vec![
            node("NonZero", &["x"], "a", vec![]),
            node("Unique", &["a"], "b", vec![]),
            node("Unique", &["b"], "y", vec![]),
        ],
        input: vec![value_info("x", &[1])],
        output: vec![value_info("y", &[1])],
        ..Default::default()
    };
    let e = acc_onnx::import(&mut ctx, &model(graph), "main").expect_err("unsupported ops");
    assert_eq!(
        e,
        vec![
            "the model uses ops the importer does not support: NonZero (1 node), Unique (2 nodes)"
                .to_string()
        ]
    );
    let graph = GraphProto {
        node: vec![node("NonMaxSuppression", &["x"], "y", vec![])],
        input: vec![value_info("x", &[1, 4, 4])],
        output: vec![value_info("y", &[1])],
        ..Default::default()
    };
    let e = acc_onnx::import(&mut ctx, &model(graph), "main").expect_err("missing scores");
    assert_eq!(
        e,
        vec!["node 'NonMaxSuppression_y' (NonMaxSuppression): its input 1 is missing".to_string()]
    );
    let graph = GraphProto {
        node: vec![node("Reshape", &["x", "x"], "y", vec![])],
        input: vec![value_info("x", &[2])],
        output: vec![value_info("y", &[2])],
        ..Default::default()
    };
    let e = acc_onnx::import(&mut ctx, &model(graph), "main").expect_err("a non-constant shape");
    assert_eq!(
        e,
        vec!["node 'Reshape_y' (Reshape): its shape (input 1, 'x') must be a constant".to_string()]
    );
    // Sizes that would overflow or exhaust memory are errors, not aborts.
    let graph = GraphProto {
        node: vec![node(
            "DepthToSpace",
            &["x"],
            "y",
            vec![int_attr("blocksize", 1 << 32)],
        )],
        input: vec![value_info("x", &[1, 4, 2, 2])],
        output: vec![value_info("y", &[1, 1, 4, 4])],
        ..Default::default()
    };
    let e = acc_onnx::import(&mut ctx, &model(graph), "main").expect_err("an absurd block");
    assert_eq!(
        e,
        vec![
            "node 'DepthToSpace_y' (DepthToSpace): blocksize 4294967296 is not a positive block size"
                .to_string()
        ]
    );
    let graph = GraphProto {
        node: vec![node("OneHot", &["i", "depth", "values"], "y", vec![])],
        initializer: vec![
            int_tensor("depth", &[1 << 50]),
            float_tensor("values", &[2], &[0.0, 1.0]),
        ],
        input: vec![value_info("i", &[2])],
        output: vec![value_info("y", &[2, 1])],
        ..Default::default()
    };
    let e = acc_onnx::import(&mut ctx, &model(graph), "main").expect_err("an absurd depth");
    assert_eq!(e.len(), 1);
    assert!(
        e[0].contains("is not one count of at most 2097152"),
        "{e:?}"
    );
}

/// ConvTranspose by definition: every input pixel adds its kernel, scaled, at its
/// strided place (group 1, no dilation or output padding), the pads cropped.
fn conv_transpose_reference(
    x: &[f32],
    [c, h, w]: [usize; 3],
    weights: &[f32],
    [m, kh, kw]: [usize; 3],
    bias: &[f32],
    strides: [usize; 2],
    [top, left, bottom, right]: [usize; 4],
) -> (Vec<usize>, Vec<f64>) {
    let (oh, ow) = (
        strides[0] * (h - 1) + kh - top - bottom,
        strides[1] * (w - 1) + kw - left - right,
    );
    let mut out = vec![0f64; m * oh * ow];
    for (o, v) in out.iter_mut().enumerate() {
        *v = bias.get(o / (oh * ow)).copied().unwrap_or(0.0).into();
    }
    for ci in 0..c {
        for y in 0..h {
            for z in 0..w {
                for mo in 0..m {
                    for i in 0..kh {
                        for j in 0..kw {
                            let (r, s) = (y * strides[0] + i, z * strides[1] + j);
                            if r < top || s < left || r - top >= oh || s - left >= ow {
                                continue;
                            }
                            let xv = f64::from(x[(ci * h + y) * w + z]);
                            let wv = f64::from(weights[((ci * m + mo) * kh + i) * kw + j]);
                            out[(mo * oh + r - top) * ow + s - left] += xv * wv;
                        }
                    }
                }
            }
        }
    }
    (vec![1, m, oh, ow], out)
}

/// A ConvTranspose whose kernel equals its strides (U-Net and PP-OCR upsampling)
/// imports as a 1x1 convolution whose channels move into space; it computes the
/// op's definition, with a bias and cropping pads and without.
#[test]
fn conv_transpose_with_kernel_equal_to_strides() {
    let wave = |n: usize, k: f32| -> Vec<f32> {
        (0..n)
            .map(|i| ((i as f32 * k).sin() * 1.5 + 0.1).round() / 2.0)
            .collect()
    };
    for (kernel, pads, with_bias) in [
        ([2usize, 2usize], [0usize, 0, 0, 0], false),
        ([3, 2], [1, 0, 2, 1], true),
    ] {
        let (c, h, w, m) = (3usize, 4usize, 5usize, 2usize);
        let x = wave(c * h * w, 0.37);
        let weights = wave(c * m * kernel[0] * kernel[1], 0.91);
        let bias: Vec<f32> = if with_bias { vec![0.25, -1.5] } else { vec![] };
        let (shape, want) = conv_transpose_reference(
            &x,
            [c, h, w],
            &weights,
            [m, kernel[0], kernel[1]],
            &bias,
            kernel,
            pads,
        );
        let dims = |v: &[usize]| v.iter().map(|d| *d as i64).collect::<Vec<_>>();
        let mut initializer = vec![float_tensor(
            "W",
            &dims(&[c, m, kernel[0], kernel[1]]),
            &weights,
        )];
        let mut inputs = vec!["x", "W"];
        if with_bias {
            initializer.push(float_tensor("B", &[m as i64], &bias));
            inputs.push("B");
        }
        let k = dims(&kernel);
        let graph = GraphProto {
            node: vec![node(
                "ConvTranspose",
                &inputs,
                "y",
                vec![
                    ints_attr("kernel_shape", &k),
                    ints_attr("strides", &k),
                    ints_attr("pads", &dims(&[pads[0], pads[1], pads[2], pads[3]])),
                ],
            )],
            initializer,
            input: vec![value_info("x", &dims(&[1, c, h, w]))],
            output: vec![value_info("y", &dims(&shape))],
            ..Default::default()
        };
        let (printed, out) = run(&model(graph), &[x]);
        // No zeros inserted between input pixels: one 1x1 convolution.
        assert!(printed.contains("graph.conv2d"), "{printed}");
        assert!(!printed.contains("graph.pad"), "{printed}");
        assert_eq!(out[0].len(), want.len());
        for (got, want) in out[0].iter().zip(&want) {
            assert!((got - want).abs() < 1e-5, "{got} vs {want}\n{printed}");
        }
    }
}

/// Einsum as transposes, reshapes and one batched MatMul: an attention-score
/// equation whose operands need transposing ("bqhd,bkhd->bhqk"), a diagonal
/// ("ii->i") and an implicit output ("ij,jk"), against the sums written out.
#[test]
fn einsum_equations_match_their_sums() {
    let string_attr = |v: &str| AttributeProto {
        name: Some("equation".into()),
        r#type: Some(AttributeType::String as i32),
        s: Some(v.as_bytes().to_vec()),
        ..Default::default()
    };
    let einsum = |equation: &str, shapes: &[&[i64]], out: &[i64], inputs: &[Vec<f32>]| {
        let names: Vec<String> = (0..shapes.len()).map(|i| format!("x{i}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let graph = GraphProto {
            node: vec![node("Einsum", &refs, "y", vec![string_attr(equation)])],
            input: names
                .iter()
                .zip(shapes)
                .map(|(n, s)| value_info(n, s))
                .collect(),
            output: vec![value_info("y", out)],
            ..Default::default()
        };
        run(&model(graph), inputs).1.remove(0)
    };
    let values = |n: usize, k: f32| (0..n).map(|i| (i as f32 * k).sin()).collect::<Vec<f32>>();
    // bqhd,bkhd->bhqk with b=2, q=3, k=4, h=2, d=5.
    let (q, k) = (values(2 * 3 * 2 * 5, 0.7), values(2 * 4 * 2 * 5, 1.3));
    let got = einsum(
        "bqhd,bkhd->bhqk",
        &[&[2, 3, 2, 5], &[2, 4, 2, 5]],
        &[2, 2, 3, 4],
        &[q.clone(), k.clone()],
    );
    let mut at = 0;
    for b in 0..2 {
        for h in 0..2 {
            for i in 0..3 {
                for j in 0..4 {
                    let want: f64 = (0..5)
                        .map(|d| {
                            f64::from(q[((b * 3 + i) * 2 + h) * 5 + d])
                                * f64::from(k[((b * 4 + j) * 2 + h) * 5 + d])
                        })
                        .sum();
                    assert!((got[at] - want).abs() < 1e-5, "{at}: {} vs {want}", got[at]);
                    at += 1;
                }
            }
        }
    }
    // Malformed equations are errors naming the node, not panics.
    for (equation, shape) in [
        ("a.a", &[2i64, 2][..]),
        ("a...b...c", &[2, 2, 2, 2, 2][..]),
        ("ab->abc", &[2, 2][..]),
        ("abc", &[2, 2][..]),
        ("a,b", &[2][..]),
    ] {
        let graph = GraphProto {
            node: vec![node("Einsum", &["x0"], "y", vec![string_attr(equation)])],
            input: vec![value_info("x0", shape)],
            output: vec![value_info("y", &[2])],
            ..Default::default()
        };
        let mut ctx = acc_dialects::new_context();
        let err = acc_onnx::import(&mut ctx, &model(graph), "main").expect_err(equation);
        assert!(
            err.iter().any(|e| e.contains("Einsum")),
            "{equation}: {err:?}"
        );
    }
    let m = values(16, 0.3);
    let diagonal = einsum("ii->i", &[&[4, 4]], &[4], std::slice::from_ref(&m));
    let want: Vec<f64> = (0..4).map(|i| f64::from(m[i * 5])).collect();
    assert_eq!(diagonal, want);
    let (a, c) = (values(6, 0.5), values(12, 0.9));
    let product = einsum(
        "ij,jk",
        &[&[2, 3], &[3, 4]],
        &[2, 4],
        &[a.clone(), c.clone()],
    );
    for i in 0..2 {
        for j in 0..4 {
            let want: f64 = (0..3)
                .map(|t| f64::from(a[i * 3 + t]) * f64::from(c[t * 4 + j]))
                .sum();
            assert!((product[i * 4 + j] - want).abs() < 1e-5);
        }
    }
}
