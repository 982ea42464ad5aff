//! Network ops in the interpreter, against values worked out by hand, and the
//! batch-norm-into-conv2d rewrite checked by running the IR before and after it.

mod common;

use acc_interp::{Interpreter, Limits, Tensor};
use acc_ir::Context;
use acc_ir::elements::Scalar;
use common::{numbers as values, parse};

fn floats(ctx: &mut Context, ty: &str, data: &[f64]) -> Tensor {
    let ty = acc_ir::parser::parse_type_str(ctx, ty).expect("a type");
    Tensor::new(ctx, ty, data.iter().map(|v| Scalar::Float(*v)).collect()).expect("a tensor")
}

fn run(text: &str, func: &str, args: &[(&str, Vec<f64>)]) -> Vec<Vec<f64>> {
    let mut ctx = acc_dialects::new_context();
    let ir = parse(&mut ctx, text);
    let args: Vec<Tensor> = args.iter().map(|(t, d)| floats(&mut ctx, t, d)).collect();
    let out = Interpreter::new(&ctx, &ir, Limits::default())
        .call(func, args)
        .unwrap_or_else(|e| panic!("{}", e.message));
    out.iter().map(values).collect()
}

fn close(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| (x - y).abs() <= 1e-5 * (1.0 + y.abs()))
}

#[test]
fn conv2d_sums_each_window() {
    let text = r#"
func.func @f(%x: tensor<1x1x3x3xf32>, %w: tensor<1x1x2x2xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) {
  %a = graph.conv2d %x, %w : (tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %b = graph.conv2d %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  return %a, %b : tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>
}
"#;
    let x: Vec<f64> = (1..=9).map(f64::from).collect();
    let out = run(
        text,
        "f",
        &[
            ("tensor<1x1x3x3xf32>", x),
            ("tensor<1x1x2x2xf32>", vec![1.0; 4]),
        ],
    );
    assert_eq!(out[0], vec![12.0, 16.0, 24.0, 28.0]);
    // Padded by one, stride 2: windows at (-1,-1), (-1,1), (1,-1), (1,1).
    assert_eq!(out[1], vec![1.0, 5.0, 11.0, 28.0]);
}

#[test]
fn matmul_broadcasts_batches_and_gemm_transposes() {
    let text = r#"
func.func @f(%a: tensor<2x2x3xf32>, %b: tensor<3x2xf32>, %c: tensor<3xf32>) -> (tensor<2x2x2xf32>, tensor<3x3xf32>) {
  %m = graph.matmul %a, %b : (tensor<2x2x3xf32>, tensor<3x2xf32>) -> tensor<2x2x2xf32>
  %g = graph.gemm %b, %b, %c {transB = true, alpha = 2.0 : f32} : (tensor<3x2xf32>, tensor<3x2xf32>, tensor<3xf32>) -> tensor<3x3xf32>
  return %m, %g : tensor<2x2x2xf32>, tensor<3x3xf32>
}
"#;
    let a: Vec<f64> = (1..=12).map(f64::from).collect();
    let b = vec![1.0, 0.0, 0.0, 1.0, 1.0, 1.0];
    let out = run(
        text,
        "f",
        &[
            ("tensor<2x2x3xf32>", a),
            ("tensor<3x2xf32>", b),
            ("tensor<3xf32>", vec![10.0, 20.0, 30.0]),
        ],
    );
    // Rows [1,2,3] -> [1+3, 2+3] etc.
    assert_eq!(out[0], vec![4.0, 5.0, 10.0, 11.0, 16.0, 17.0, 22.0, 23.0]);
    // 2 * B B^T + C, with B B^T = [[1,0,1],[0,1,1],[1,1,2]] and C along the rows.
    assert_eq!(
        out[1],
        vec![12.0, 20.0, 32.0, 10.0, 22.0, 32.0, 12.0, 22.0, 34.0]
    );
}

#[test]
fn pooling_with_padding() {
    let text = r#"
func.func @f(%x: tensor<1x1x2x2xf32>) -> (tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32>, tensor<1x1x1x1xf32>) {
  %m = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x3x3xf32>
  %a = graph.avg_pool %x {kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x3x3xf32>
  %g = graph.global_avg_pool %x : (tensor<1x1x2x2xf32>) -> tensor<1x1x1x1xf32>
  return %m, %a, %g : tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32>, tensor<1x1x1x1xf32>
}
"#;
    let out = run(
        text,
        "f",
        &[("tensor<1x1x2x2xf32>", vec![1.0, 2.0, 3.0, 4.0])],
    );
    assert_eq!(out[0], vec![1.0, 2.0, 2.0, 3.0, 4.0, 4.0, 3.0, 4.0, 4.0]);
    // Padding excluded from the average.
    assert_eq!(out[1], vec![1.0, 1.5, 2.0, 2.0, 2.5, 3.0, 3.0, 3.5, 4.0]);
    assert_eq!(out[2], vec![2.5]);
}

#[test]
fn softmax_and_concat() {
    let text = r#"
func.func @f(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x6xf32>) {
  %s = graph.softmax %x : tensor<2x3xf32>
  %c = graph.concat %x, %x {axis = 1} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return %s, %c : tensor<2x3xf32>, tensor<2x6xf32>
}
"#;
    let x = vec![1.0, 2.0, 3.0, 0.0, 0.0, 0.0];
    let out = run(text, "f", &[("tensor<2x3xf32>", x)]);
    let e = [1f64.exp(), 2f64.exp(), 3f64.exp()];
    let sum: f64 = e.iter().sum();
    let third = 1.0 / 3.0;
    let want = [e[0] / sum, e[1] / sum, e[2] / sum, third, third, third];
    assert!(close(&out[0], &want), "{:?}", out[0]);
    assert_eq!(
        out[1],
        vec![1.0, 2.0, 3.0, 1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    );
}

/// Translation validation of the shipped batch-norm fold: the same function run
/// before and after canonicalization gives the same results.
#[test]
fn folding_batch_norm_into_conv2d_keeps_the_results() {
    let text = r#"
func.func @f(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %w = graph.constant dense<[[[[1.0, -1.0], [0.5, 2.0]], [[0.25, 0.0], [-2.0, 1.0]]], [[[3.0, 1.0], [1.0, 1.0]], [[-1.0, -1.0], [0.0, 4.0]]]]> : tensor<2x2x2x2xf32>
  %b = graph.constant dense<[0.5, -1.0]> : tensor<2xf32>
  %scale = graph.constant dense<[2.0, 0.75]> : tensor<2xf32>
  %shift = graph.constant dense<[0.25, -3.0]> : tensor<2xf32>
  %mean = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %var = graph.constant dense<[3.0, 0.5]> : tensor<2xf32>
  %c = graph.conv2d %x, %w, %b {pads = array<i64: 1, 1, 0, 0>} : (tensor<1x2x3x3xf32>, tensor<2x2x2x2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  %y = graph.batch_norm %c, %scale, %shift, %mean, %var {epsilon = 0.001 : f32} : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}
"#;
    let mut ctx = acc_dialects::new_context();
    let before = parse(&mut ctx, text);
    let mut after = parse(&mut ctx, text);
    let mut registry = acc_pass::PassRegistry::default();
    acc_passes_generic::register_all(&mut registry);
    let pipeline = acc_pass::pipeline::Pipeline::from_pass_list("canonicalize", &registry)
        .expect("a pipeline");
    acc_pass::manager::run(&pipeline, &ctx, &mut after, &Default::default()).expect("runs");
    let printed = acc_ir::printer::print_ir(&ctx, &after, &Default::default());
    assert!(
        !printed.contains("batch_norm"),
        "the fold applied:\n{printed}"
    );
    let x: Vec<f64> = (0..18).map(|i| ((i * 7) % 11) as f64 - 5.0).collect();
    let arg = floats(&mut ctx, "tensor<1x2x3x3xf32>", &x);
    let want = Interpreter::new(&ctx, &before, Limits::default())
        .call("f", vec![arg.clone()])
        .expect("runs");
    let got = Interpreter::new(&ctx, &after, Limits::default())
        .call("f", vec![arg])
        .expect("runs");
    assert!(
        close(&values(&got[0]), &values(&want[0])),
        "{:?}\n{:?}",
        values(&got[0]),
        values(&want[0])
    );
}

#[test]
fn reductions_slices_and_pads() {
    let text = r#"
func.func @f(%x: tensor<2x3xf32>) -> (tensor<2x1xf32>, tensor<3xf32>, tensor<1x1xf32>, tensor<2x2xf32>, tensor<2x7xf32>, tensor<2x5xf32>) {
  %s = graph.reduce_sum %x {axes = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  %m = graph.reduce_mean %x {axes = array<i64: 0>, keepdims = false} : (tensor<2x3xf32>) -> tensor<3xf32>
  %mx = graph.reduce_max %x : (tensor<2x3xf32>) -> tensor<1x1xf32>
  %sl = graph.slice %x {starts = array<i64: -1>, ends = array<i64: -4>, axes = array<i64: 1>, steps = array<i64: -2>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  %pr = graph.pad %x {pads = array<i64: 0, 2, 0, 2>, mode = #graph.pad_mode<reflect>} : (tensor<2x3xf32>) -> tensor<2x7xf32>
  %pc = graph.pad %x {pads = array<i64: 0, 1, 0, 1>, value = 9.0} : (tensor<2x3xf32>) -> tensor<2x5xf32>
  return %s, %m, %mx, %sl, %pr, %pc : tensor<2x1xf32>, tensor<3xf32>, tensor<1x1xf32>, tensor<2x2xf32>, tensor<2x7xf32>, tensor<2x5xf32>
}
"#;
    let out = run(
        text,
        "f",
        &[("tensor<2x3xf32>", vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])],
    );
    assert_eq!(out[0], vec![6.0, 15.0]);
    assert_eq!(out[1], vec![2.5, 3.5, 4.5]);
    assert_eq!(out[2], vec![6.0]);
    // Columns 2 and 0 of each row.
    assert_eq!(out[3], vec![3.0, 1.0, 6.0, 4.0]);
    // Reflect: [3 2 | 1 2 3 | 2 1].
    assert_eq!(
        out[4],
        vec![
            3.0, 2.0, 1.0, 2.0, 3.0, 2.0, 1.0, 6.0, 5.0, 4.0, 5.0, 6.0, 5.0, 4.0
        ]
    );
    assert_eq!(
        out[5],
        vec![9.0, 1.0, 2.0, 3.0, 9.0, 9.0, 4.0, 5.0, 6.0, 9.0]
    );
}

#[test]
fn layer_norm_erf_gelu_clip() {
    let text = r#"
func.func @f(%x: tensor<2x3xf32>, %g: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %n = graph.layer_norm %x, %g : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %e = graph.erf %x : tensor<2x3xf32>
  %u = graph.gelu %x : tensor<2x3xf32>
  %c = graph.clip %x {min = 1.5 : f32, max = 4.0 : f32} : tensor<2x3xf32>
  return %n, %e, %u, %c : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}
"#;
    let x = vec![1.0, 2.0, 3.0, -1.0, 0.0, 5.0];
    let out = run(
        text,
        "f",
        &[
            ("tensor<2x3xf32>", x.clone()),
            ("tensor<3xf32>", vec![1.0, 2.0, 1.0]),
        ],
    );
    // Row [1, 2, 3]: mean 2, variance 2/3.
    let sd = (2.0f64 / 3.0 + 1e-5).sqrt();
    assert!(
        close(&out[0][..3], &[-1.0 / sd, 0.0, 1.0 / sd]),
        "{:?}",
        out[0]
    );
    assert!(
        close(&out[1][..2], &[0.842_700_79, 0.995_322_27]),
        "{:?}",
        out[1]
    );
    // gelu(x) = x * Phi(x): gelu(1) = 0.8413447, gelu(-1) = -0.1586553.
    assert!(
        close(&[out[2][0], out[2][3]], &[0.841_344_7, -0.158_655_3]),
        "{:?}",
        out[2]
    );
    assert_eq!(out[3], vec![1.5, 2.0, 3.0, 1.5, 1.5, 4.0]);
}

/// Empty dimensions: a backwards slice of one is empty (no panic), and edge padding
/// cannot extend one (an error, not a panic).
#[test]
fn empty_dimensions_slice_to_nothing_and_refuse_edge_padding() {
    let text = r#"
func.func @s(%x: tensor<0x3xf32>) -> tensor<0x3xf32> {
  %r = graph.slice %x {starts = array<i64: -1>, ends = array<i64: -100>, axes = array<i64: 0>, steps = array<i64: -1>} : (tensor<0x3xf32>) -> tensor<0x3xf32>
  return %r : tensor<0x3xf32>
}
func.func @p(%x: tensor<0x3xf32>) -> tensor<2x3xf32> {
  %r = graph.pad %x {pads = array<i64: 1, 0, 1, 0>, mode = #graph.pad_mode<edge>} : (tensor<0x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
"#;
    assert_eq!(run(text, "s", &[("tensor<0x3xf32>", vec![])]), vec![vec![]]);
    let mut ctx = acc_dialects::new_context();
    let ir = parse(&mut ctx, text);
    let x = floats(&mut ctx, "tensor<0x3xf32>", &[]);
    let err = Interpreter::new(&ctx, &ir, Limits::default())
        .call("p", vec![x])
        .expect_err("edge padding of an empty dimension");
    assert!(
        err.message
            .contains("edge padding cannot extend an empty dimension"),
        "{}",
        err.message
    );
}
