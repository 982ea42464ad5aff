//! The interpreter on real functions: arith with branches and calls, graph ops with
//! broadcasting, agreement with canonicalization, and errors instead of panics.

mod common;

use acc_interp::{Interpreter, Limits};
use common::{numbers, parse, value as tensor};

const FACTORIAL: &str = r#"
func.func @factorial(%n: i32) -> i32 {
  %one = arith.constant 1 : i32
  cf.br ^loop(%n, %one : i32, i32)
^loop(%i: i32, %acc: i32):
  %done = arith.cmpi sle, %i, %one : i32
  cf.cond_br %done, ^exit(%acc : i32), ^body
^body:
  %next = arith.muli %acc, %i : i32
  %i1 = arith.subi %i, %one : i32
  cf.br ^loop(%i1, %next : i32, i32)
^exit(%r: i32):
  return %r : i32
}
func.func @twice(%n: i32) -> (i32, i8) {
  %a = func.call @factorial(%n) : (i32) -> i32
  %b = arith.addi %a, %a : i32
  %t = arith.trunci %b : i32 to i8
  return %b, %t : i32, i8
}
"#;

#[test]
fn arith_with_branches_and_calls() {
    let mut ctx = acc_dialects::new_context();
    let ir = parse(&mut ctx, FACTORIAL);
    let five = tensor(&mut ctx, "i32", &[5.0]);
    let mut interp = Interpreter::new(&ctx, &ir, Limits::default());
    let out = interp.call("factorial", vec![five.clone()]).expect("runs");
    assert_eq!(numbers(&out[0]), vec![120.0]);
    // 240 wraps to -16 in i8.
    let out = interp.call("twice", vec![five]).expect("runs");
    assert_eq!(numbers(&out[0]), vec![240.0]);
    assert_eq!(numbers(&out[1]), vec![-16.0]);
}

const EXTENDED: &str = r#"
func.func @extended(%a: i8, %b: i8) -> (i8, i1, i8, i8, i8, i8) {
  %s, %o = arith.addui_extended %a, %b : i8, i1
  %sl, %sh = arith.mulsi_extended %a, %b : i8
  %ul, %uh = arith.mului_extended %a, %b : i8
  return %s, %o, %sl, %sh, %ul, %uh : i8, i1, i8, i8, i8, i8
}
func.func @wide(%a: i64, %b: i64) -> (i64, i64, i64, i64) {
  %sl, %sh = arith.mulsi_extended %a, %b : i64
  %ul, %uh = arith.mului_extended %a, %b : i64
  return %sl, %sh, %ul, %uh : i64, i64, i64, i64
}
func.func @bit(%a: i1, %b: i1) -> (i1, i1) {
  %s, %o = arith.addui_extended %a, %b : i1, i1
  return %s, %o : i1, i1
}
"#;

/// The extended integer ops, as MLIR defines them: the carry of an unsigned sum, the
/// halves of a signed and of an unsigned product.
#[test]
fn extended_integer_arithmetic() {
    let mut ctx = acc_dialects::new_context();
    let ir = parse(&mut ctx, EXTENDED);
    // -56 is 200 unsigned: 200 + 100 = 300 = 256 + 44; -56 * 100 = -5600 =
    // -22 * 256 + 32; 200 * 100 = 20000 = 78 * 256 + 32.
    let (a, b) = (
        tensor(&mut ctx, "i8", &[-56.0]),
        tensor(&mut ctx, "i8", &[100.0]),
    );
    let (c, d) = (
        tensor(&mut ctx, "i8", &[3.0]),
        tensor(&mut ctx, "i8", &[-2.0]),
    );
    let (min, four, minus_one) = (
        tensor(&mut ctx, "i64", &[-(2f64.powi(63))]),
        tensor(&mut ctx, "i64", &[4.0]),
        tensor(&mut ctx, "i64", &[-1.0]),
    );
    let (one, zero) = (
        tensor(&mut ctx, "i1", &[1.0]),
        tensor(&mut ctx, "i1", &[0.0]),
    );
    let mut interp = Interpreter::new(&ctx, &ir, Limits::default());
    let out = interp.call("extended", vec![a, b]).expect("runs");
    let got: Vec<f64> = out.iter().flat_map(numbers).collect();
    assert_eq!(got, vec![44.0, 1.0, 32.0, -22.0, 32.0, 78.0]);
    // Then 3 and -2 (254 unsigned).
    let out = interp.call("extended", vec![c, d]).expect("runs");
    let got: Vec<f64> = out.iter().flat_map(numbers).collect();
    // 3 + 254 = 257: carry; 3 * -2 = -6: high -1; 3 * 254 = 762 = 2 * 256 + 250.
    assert_eq!(got, vec![1.0, 1.0, -6.0, -1.0, -6.0, 2.0]);
    // At 64 bits, the widest it supports: -2^63 is 2^63 unsigned, and 2^63 * 4 =
    // 2^65 (low 0, high 2); signed, -2^65 (high -2).
    let out = interp.call("wide", vec![min, four]).expect("runs");
    let got: Vec<f64> = out.iter().flat_map(numbers).collect();
    assert_eq!(got, vec![0.0, -2.0, 0.0, 2.0]);
    // -1 * -1 = 1 signed (low 1, high 0); unsigned (2^64 - 1)^2 = 2^128 - 2^65 + 1
    // (low 1, high 2^64 - 2, which is -2).
    let out = interp
        .call("wide", vec![minus_one.clone(), minus_one])
        .expect("runs");
    let got: Vec<f64> = out.iter().flat_map(numbers).collect();
    assert_eq!(got, vec![1.0, 0.0, 1.0, -2.0]);
    // At 1 bit: 1 + 1 = 2, sum 0 and carry 1; 1 + 0 has no carry.
    let out = interp
        .call("bit", vec![one.clone(), one.clone()])
        .expect("runs");
    let got: Vec<f64> = out.iter().flat_map(numbers).collect();
    assert_eq!(got, vec![0.0, 1.0]);
    let out = interp.call("bit", vec![one, zero]).expect("runs");
    let got: Vec<f64> = out.iter().flat_map(numbers).collect();
    assert_eq!(got, vec![1.0, 0.0]);
}

const GRAPH: &str = r#"
func.func @block(%x: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<3x2xf32> {
  %s = graph.add %x, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %r = graph.relu %s : tensor<2x3xf32>
  %t = graph.transpose %r : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %t : tensor<3x2xf32>
}
"#;

#[test]
fn graph_ops_broadcast_and_transpose() {
    let mut ctx = acc_dialects::new_context();
    let ir = parse(&mut ctx, GRAPH);
    let x = tensor(
        &mut ctx,
        "tensor<2x3xf32>",
        &[1.0, -2.0, 3.0, -4.0, 5.0, -6.0],
    );
    let b = tensor(&mut ctx, "tensor<3xf32>", &[0.5, 1.0, -1.0]);
    let out = Interpreter::new(&ctx, &ir, Limits::default())
        .call("block", vec![x, b])
        .expect("runs");
    // relu(x + b) = [[1.5, 0, 2], [0, 6, 0]], transposed.
    assert_eq!(numbers(&out[0]), vec![1.5, 0.0, 0.0, 6.0, 2.0, 0.0]);
}

#[test]
fn canonicalization_keeps_the_results() {
    let text = r#"
func.func @f(%x: i32) -> (i32, i1) {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c7 = arith.constant 7 : i32
  %a = arith.addi %c1, %x : i32
  %b = arith.addi %a, %c2 : i32
  %c = arith.subi %c7, %b : i32
  %d = arith.muli %c, %c2 : i32
  %e = arith.cmpi slt, %c7, %d : i32
  return %d, %e : i32, i1
}
"#;
    let mut ctx = acc_dialects::new_context();
    let before = parse(&mut ctx, text);
    let mut after = parse(&mut ctx, text);
    let pipeline =
        acc_pass::pipeline::Pipeline::from_pass_list("canonicalize,cse", &acc_passes_registry())
            .expect("a pipeline");
    let opts = acc_pass::manager::RunOptions::default();
    acc_pass::manager::run(&pipeline, &ctx, &mut after, &opts).expect("the passes run");
    for x in [-100.0, -3.0, 0.0, 1.0, 4.0, 1000.0] {
        let arg = tensor(&mut ctx, "i32", &[x]);
        let want = Interpreter::new(&ctx, &before, Limits::default()).call("f", vec![arg.clone()]);
        let got = Interpreter::new(&ctx, &after, Limits::default()).call("f", vec![arg]);
        let (want, got) = (want.expect("runs"), got.expect("runs"));
        assert_eq!(
            want.iter().map(numbers).collect::<Vec<_>>(),
            got.iter().map(numbers).collect::<Vec<_>>(),
            "x = {x}"
        );
    }
}

fn acc_passes_registry() -> acc_pass::PassRegistry {
    let mut r = acc_pass::PassRegistry::default();
    acc_passes_generic::register_all(&mut r);
    r
}

#[test]
fn errors_name_the_op_and_never_panic() {
    let text = r#"
func.func @div(%x: i32, %y: i32) -> i32 {
  %q = arith.divsi %x, %y : i32
  return %q : i32
}
func.func @forever(%x: i32) -> i32 {
  %r = func.call @forever(%x) : (i32) -> i32
  return %r : i32
}
func.func @opaque(%x: tensor<2xf32>) -> tensor<2xf32> {
  %c = vendor.opaque %x : tensor<2xf32>
  return %c : tensor<2xf32>
}
"#;
    let mut ctx = acc_dialects::new_context();
    // A vendor op loaded at run time without `interpret`: it cannot be run.
    let mut sources = acc_ir::SourceMap::new();
    let file = sources.add(
        "vendor.acc",
        r#"dialect vendor {
  op opaque {
    traits Pure, SameOperandsAndResultType
    operands (input: AnyType)
    results (output: AnyType)
    format "$input attr-dict `:` type($input)"
  }
}"#
        .to_string(),
    );
    acc_dialects::lang::load_file(&mut ctx, &sources, file).expect("the vendor dialect loads");
    let ir = parse(&mut ctx, text);
    let one = tensor(&mut ctx, "i32", &[1.0]);
    let zero = tensor(&mut ctx, "i32", &[0.0]);
    let x = tensor(&mut ctx, "tensor<2xf32>", &[1.0, 2.0]);
    let mut interp = Interpreter::new(&ctx, &ir, Limits::default());
    let e = interp
        .call("div", vec![one.clone(), zero])
        .expect_err("division by zero");
    assert!(
        e.message.contains("'arith.divsi': undefined for 1 and 0"),
        "{}",
        e.message
    );
    let e = interp
        .call("forever", vec![one.clone()])
        .expect_err("unbounded recursion");
    assert!(
        e.message.contains("calls nested deeper than 256"),
        "{}",
        e.message
    );
    let e = interp
        .call("div", vec![one.clone()])
        .expect_err("one argument missing");
    assert!(
        e.message.contains("takes 2 arguments, got 1"),
        "{}",
        e.message
    );
    let e = interp
        .call("nothing", vec![])
        .expect_err("no such function");
    assert!(
        e.message.contains("no function named '@nothing'"),
        "{}",
        e.message
    );
    let e = interp
        .call("opaque", vec![x])
        .expect_err("the vendor op has no semantics");
    assert!(
        e.message
            .contains("'vendor.opaque' has no interpreter semantics"),
        "{}",
        e.message
    );
}

#[test]
fn graph_cast_converts_like_onnx() {
    let mut ctx = acc_dialects::new_context();
    let ir = parse(
        &mut ctx,
        r#"
func.func @cast(%x: tensor<4xf32>) -> (tensor<4xi8>, tensor<4xf16>) {
  %i = graph.cast %x : tensor<4xf32> to tensor<4xi8>
  %h = graph.cast %x : tensor<4xf32> to tensor<4xf16>
  return %i, %h : tensor<4xi8>, tensor<4xf16>
}
"#,
    );
    let x = tensor(&mut ctx, "tensor<4xf32>", &[-2.75, 0.5, 100.0, 1.0e-4]);
    let out = Interpreter::new(&ctx, &ir, Limits::default())
        .call("cast", vec![x])
        .expect("runs");
    // Toward zero for integers; nearest f16 for floats (1e-4 is 1.0014e-4 in f16).
    assert_eq!(numbers(&out[0]), vec![-2.0, 0.0, 100.0, 0.0]);
    assert_eq!(numbers(&out[1])[..3], [-2.75, 0.5, 100.0]);
    assert!((numbers(&out[1])[3] - 1.0e-4).abs() < 1e-7);
}
