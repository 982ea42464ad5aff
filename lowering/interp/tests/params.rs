//! Library parameters (`params`, dialects/src/hooks/params.rs): a quantized op given
//! the numbers it would derive from its types computes what it computes without
//! them, and one given other numbers computes with those.

mod common;

use acc_interp::{Interpreter, Limits};
use common::{numbers, parse, value};

/// Runs `@f` of `text` on stored integers `args` (type text and data).
fn run(text: &str, args: &[(&str, Vec<f64>)]) -> Vec<Vec<f64>> {
    let mut ctx = acc_dialects::new_context();
    let ir = parse(&mut ctx, text);
    let args = args.iter().map(|(t, d)| value(&mut ctx, t, d)).collect();
    let out = Interpreter::new(&ctx, &ir, Limits::default())
        .call("f", args)
        .unwrap_or_else(|e| panic!("{}", e.message));
    out.iter().map(numbers).collect()
}

const X: &str = "tensor<1x1x2x2x!quant.uniform<i8:f32, 0.5:-3>>";
const A: &str = "tensor<4x!quant.uniform<i8:f32, 0.5:3>>";
const B: &str = "tensor<4x!quant.uniform<i8:f32, 0.25:-1>>";

/// The convolution's multiplier 0.5 * 0.25 / 0.1 = 1.25 = 0.625 * 2^1; the add's
/// inputs at 0.5 / 1 and 0.25 / 1 of twice the larger scale, the sum at 1 / 2^20;
/// the requantization's 0.5 / 0.25 = 0.5 * 2^2; the product's 0.5 * 0.25 / 0.5 =
/// 0.5 * 2^-1; the mean's 0.5 / (0.25 * 4) = 0.5 * 2^0.
const DERIVED: &str = r#"
func.func @f(%x: tensor<1x1x2x2x!quant.uniform<i8:f32, 0.5:-3>>, %a: tensor<4x!quant.uniform<i8:f32, 0.5:3>>, %b: tensor<4x!quant.uniform<i8:f32, 0.25:-1>>) -> (tensor<1x1x2x2x!quant.uniform<i8:f32, 0.1:5>>, tensor<1x1x2x2x!quant.uniform<i8:f32, 0.1:5>>, tensor<4x!quant.uniform<i8:f32, 1.0:4>>, tensor<4x!quant.uniform<i8:f32, 1.0:4>>, tensor<4x!quant.uniform<i8:f32, 0.25:-2>>, tensor<4x!quant.uniform<i8:f32, 0.25:-2>>, tensor<4x!quant.uniform<i8:f32, 0.5:0>>, tensor<4x!quant.uniform<i8:f32, 0.5:0>>, tensor<1x1x1x1x!quant.uniform<i8:f32, 0.25:2>>, tensor<1x1x1x1x!quant.uniform<i8:f32, 0.25:2>>) {
  %wi = graph.constant dense<2> : tensor<1x1x1x1xi8>
  %w = graph.storage_cast %wi : tensor<1x1x1x1xi8> to tensor<1x1x1x1x!quant.uniform<i8:f32, 0.25>>
  %bias = graph.constant dense<7> : tensor<1xi32>
  %c0 = graph.qconv2d %x, %w, %bias {requant = #graph.requantization<fixed_point>} : (tensor<1x1x2x2x!quant.uniform<i8:f32, 0.5:-3>>, tensor<1x1x1x1x!quant.uniform<i8:f32, 0.25>>, tensor<1xi32>) -> tensor<1x1x2x2x!quant.uniform<i8:f32, 0.1:5>>
  %c1 = graph.qconv2d %x, %w {requant = #graph.requantization<fixed_point>, params = {input_offset = 3 : i64, bias = array<i32: 7>, multipliers = array<i32: 1342177280>, shifts = array<i32: 1>, output_offset = 5 : i64}} : (tensor<1x1x2x2x!quant.uniform<i8:f32, 0.5:-3>>, tensor<1x1x1x1x!quant.uniform<i8:f32, 0.25>>) -> tensor<1x1x2x2x!quant.uniform<i8:f32, 0.1:5>>
  %s0 = graph.qadd %a, %b {requant = #graph.requantization<fixed_point>} : (tensor<4x!quant.uniform<i8:f32, 0.5:3>>, tensor<4x!quant.uniform<i8:f32, 0.25:-1>>) -> tensor<4x!quant.uniform<i8:f32, 1.0:4>>
  %s1 = graph.qadd %a, %b {requant = #graph.requantization<fixed_point>, params = {input1_offset = -3 : i64, input1_multiplier = 1073741824 : i64, input1_shift = 0 : i64, input2_offset = 1 : i64, input2_multiplier = 1073741824 : i64, input2_shift = -1 : i64, left_shift = 20 : i64, output_multiplier = 1073741824 : i64, output_shift = -19 : i64, output_offset = 4 : i64}} : (tensor<4x!quant.uniform<i8:f32, 0.5:3>>, tensor<4x!quant.uniform<i8:f32, 0.25:-1>>) -> tensor<4x!quant.uniform<i8:f32, 1.0:4>>
  %r0 = graph.requantize %a {requant = #graph.requantization<fixed_point>} : (tensor<4x!quant.uniform<i8:f32, 0.5:3>>) -> tensor<4x!quant.uniform<i8:f32, 0.25:-2>>
  %r1 = graph.requantize %a {requant = #graph.requantization<fixed_point>, params = {input_offset = -3 : i64, multiplier = 1073741824 : i64, shift = 2 : i64, output_offset = -2 : i64}} : (tensor<4x!quant.uniform<i8:f32, 0.5:3>>) -> tensor<4x!quant.uniform<i8:f32, 0.25:-2>>
  %m0 = graph.qmul %a, %b {requant = #graph.requantization<fixed_point>} : (tensor<4x!quant.uniform<i8:f32, 0.5:3>>, tensor<4x!quant.uniform<i8:f32, 0.25:-1>>) -> tensor<4x!quant.uniform<i8:f32, 0.5:0>>
  %m1 = graph.qmul %a, %b {requant = #graph.requantization<fixed_point>, params = {input1_offset = -3 : i64, input2_offset = 1 : i64, multiplier = 1073741824 : i64, shift = -1 : i64, output_offset = 0 : i64}} : (tensor<4x!quant.uniform<i8:f32, 0.5:3>>, tensor<4x!quant.uniform<i8:f32, 0.25:-1>>) -> tensor<4x!quant.uniform<i8:f32, 0.5:0>>
  %g0 = graph.qavg_pool %x {kernel_shape = array<i64: 2, 2>, requant = #graph.requantization<fixed_point>} : (tensor<1x1x2x2x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<1x1x1x1x!quant.uniform<i8:f32, 0.25:2>>
  %g1 = graph.qavg_pool %x {kernel_shape = array<i64: 2, 2>, requant = #graph.requantization<fixed_point>, params = {input_offset = 3 : i64, multiplier = 1073741824 : i64, shift = 0 : i64, output_offset = 2 : i64}} : (tensor<1x1x2x2x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<1x1x1x1x!quant.uniform<i8:f32, 0.25:2>>
  return %c0, %c1, %s0, %s1, %r0, %r1, %m0, %m1, %g0, %g1 : tensor<1x1x2x2x!quant.uniform<i8:f32, 0.1:5>>, tensor<1x1x2x2x!quant.uniform<i8:f32, 0.1:5>>, tensor<4x!quant.uniform<i8:f32, 1.0:4>>, tensor<4x!quant.uniform<i8:f32, 1.0:4>>, tensor<4x!quant.uniform<i8:f32, 0.25:-2>>, tensor<4x!quant.uniform<i8:f32, 0.25:-2>>, tensor<4x!quant.uniform<i8:f32, 0.5:0>>, tensor<4x!quant.uniform<i8:f32, 0.5:0>>, tensor<1x1x1x1x!quant.uniform<i8:f32, 0.25:2>>, tensor<1x1x1x1x!quant.uniform<i8:f32, 0.25:2>>
}
"#;

#[test]
fn the_numbers_an_op_derives_given_as_params_change_nothing() {
    let out = run(
        DERIVED,
        &[
            (X, vec![-3.0, 5.0, -20.0, 17.0]),
            (A, vec![3.0, 20.0, -40.0, 9.0]),
            (B, vec![-1.0, 13.0, 30.0, -50.0]),
        ],
    );
    for pair in out.chunks(2) {
        assert_eq!(pair[0], pair[1]);
    }
    // Not all at the zero point: the ops computed something.
    assert_ne!(out[0], vec![5.0; 4]);
    assert_ne!(out[2], vec![4.0; 4]);
}

/// Other numbers than the types': a convolution with a kernel sum (stored inputs, no
/// offset), another multiplier and output offset, clamped by `act_min`.
#[test]
fn an_op_computes_with_the_params_it_is_given() {
    let text = r#"
func.func @f(%x: tensor<1x1x2x2x!quant.uniform<i8:f32, 0.5:-3>>, %a: tensor<4x!quant.uniform<i8:f32, 0.5:3>>) -> (tensor<1x1x2x2x!quant.uniform<i8:f32, 0.1:5>>, tensor<4x!quant.uniform<i8:f32, 0.25:-2>>) {
  %wi = graph.constant dense<2> : tensor<1x1x1x1xi8>
  %w = graph.storage_cast %wi : tensor<1x1x1x1xi8> to tensor<1x1x1x1x!quant.uniform<i8:f32, 0.25>>
  %c = graph.qconv2d %x, %w {requant = #graph.requantization<fixed_point>, act_min = 0 : i64, params = {kernel_sum = array<i32: 100>, multipliers = array<i32: 1073741824>, shifts = array<i32: -2>, output_offset = -10 : i64}} : (tensor<1x1x2x2x!quant.uniform<i8:f32, 0.5:-3>>, tensor<1x1x1x1x!quant.uniform<i8:f32, 0.25>>) -> tensor<1x1x2x2x!quant.uniform<i8:f32, 0.1:5>>
  %r = graph.requantize %a {requant = #graph.requantization<fixed_point>, params = {input_offset = 1 : i64, multiplier = 1073741824 : i64, shift = 1 : i64, output_offset = 7 : i64}} : (tensor<4x!quant.uniform<i8:f32, 0.5:3>>) -> tensor<4x!quant.uniform<i8:f32, 0.25:-2>>
  return %c, %r : tensor<1x1x2x2x!quant.uniform<i8:f32, 0.1:5>>, tensor<4x!quant.uniform<i8:f32, 0.25:-2>>
}
"#;
    let out = run(
        text,
        &[
            (X, vec![-3.0, 6.0, -20.0, 18.0]),
            (A, vec![3.0, 20.0, -40.0, 9.0]),
        ],
    );
    // (2x + 100) / 8, rounded, - 10, at least 0: 94/8, 112/8, 60/8, 136/8.
    assert_eq!(out[0], vec![2.0, 4.0, 0.0, 7.0]);
    // (a + 1) * 0.5 * 2^1 = a + 1, + 7.
    assert_eq!(out[1], vec![11.0, 28.0, -32.0, 17.0]);
}

/// Numbers that are not a multiplier and a shift are refused when the op runs.
#[test]
fn a_multiplier_out_of_range_is_an_error() {
    let text = r#"
func.func @f(%a: tensor<4x!quant.uniform<i8:f32, 0.5:3>>) -> tensor<4x!quant.uniform<i8:f32, 0.25:-2>> {
  %r = graph.requantize %a {requant = #graph.requantization<fixed_point>, params = {multiplier = -5 : i64, shift = 1 : i64}} : (tensor<4x!quant.uniform<i8:f32, 0.5:3>>) -> tensor<4x!quant.uniform<i8:f32, 0.25:-2>>
  return %r : tensor<4x!quant.uniform<i8:f32, 0.25:-2>>
}
"#;
    let mut ctx = acc_dialects::new_context();
    let ir = parse(&mut ctx, text);
    let a = value(&mut ctx, A, &[3.0, 4.0, 5.0, 6.0]);
    let err = Interpreter::new(&ctx, &ir, Limits::default())
        .call("f", vec![a])
        .expect_err("a negative multiplier");
    assert!(
        err.message.contains("not a Q31 multiplier"),
        "{}",
        err.message
    );
}
