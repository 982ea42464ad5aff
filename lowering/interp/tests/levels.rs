//! The interpreter below the graph level: `loop` buffers and loop nests (aliasing
//! subviews, vectors, carried values) and the `tensor` dialect's destination-passing
//! ops, on hand-worked values; and the errors each level must report instead of
//! running on: unwritten cells, out-of-bounds accesses, freed buffers, unspecified
//! tensor elements.

mod common;

use acc_interp::{Interpreter, Limits, Tensor};
use common::{numbers, parse, value};

fn run(text: &str, name: &str, args: &[(&str, &[f64])]) -> Result<Vec<Vec<f64>>, String> {
    let mut ctx = acc_dialects::new_context();
    let ir = parse(&mut ctx, text);
    let args: Vec<Tensor> = args.iter().map(|(t, d)| value(&mut ctx, t, d)).collect();
    Interpreter::new(&ctx, &ir, Limits::default())
        .call(name, args)
        .map(|r| r.iter().map(numbers).collect())
        .map_err(|e| e.message)
}

/// A 2x3 by 3x2 matrix product as a loop nest over buffers: alloc, zero-fill in a
/// parallel loop, accumulate with loads, arith and stores, return the buffer.
const LOOP_MATMUL: &str = r#"
func.func @matmul(%a: memref<2x3xf32>, %b: memref<3x2xf32>) -> memref<2x2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %c = loop.alloc() : memref<2x2xf32>
  loop.parallel (%i, %j) = (%c0, %c0) to (%c2, %c2) step (%c1, %c1) {
    loop.store %zero, %c[%i, %j] : memref<2x2xf32>
    loop.yield
  }
  loop.for %i = %c0 to %c2 step %c1 {
    loop.for %j = %c0 to %c2 step %c1 {
      %sum = loop.for %k = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f32) {
        %x = loop.load %a[%i, %k] : memref<2x3xf32>
        %y = loop.load %b[%k, %j] : memref<3x2xf32>
        %next = loop.fma %x, %y, %acc : f32
        loop.yield %next : f32
      }
      %old = loop.load %c[%i, %j] : memref<2x2xf32>
      %new = arith.addf %old, %sum : f32
      loop.store %new, %c[%i, %j] : memref<2x2xf32>
      loop.yield
    }
    loop.yield
  }
  return %c : memref<2x2xf32>
}
"#;

#[test]
fn loop_nest_over_buffers_computes_a_matrix_product() {
    let out = run(
        LOOP_MATMUL,
        "matmul",
        &[
            ("memref<2x3xf32>", &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
            ("memref<3x2xf32>", &[7.0, 8.0, 9.0, 10.0, 11.0, 12.0]),
        ],
    )
    .expect("runs");
    assert_eq!(out, vec![vec![58.0, 64.0, 139.0, 154.0]]);
}

#[test]
fn subviews_share_their_buffer_and_vectors_move_lanes() {
    let text = r#"
func.func @window(%src: memref<8xf32>) -> (memref<4x4xf32>, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %m = loop.alloc() : memref<4x4xf32>
  %zero = arith.constant 0.0 : f32
  %z = loop.splat %zero : vector<4xf32>
  loop.for %r = %c0 to %c4 step %c1 {
    loop.vstore %z, %m[%r, %c0] : memref<4x4xf32>, vector<4xf32>
    loop.yield
  }
  %v = loop.vload %src[%c4] : memref<8xf32>, vector<4xf32>
  %col = loop.subview %m[0, 1] [4, 2] [1, 2] : memref<4x4xf32> to memref<4x2xf32, strided<[4, 2], offset: 1>>
  %x = loop.vreduce <add>, %v : vector<4xf32>
  loop.store %x, %col[%c1, %c1] : memref<4x2xf32, strided<[4, 2], offset: 1>>
  %y = loop.vreduce <max>, %v : vector<4xf32>
  return %m, %y : memref<4x4xf32>, f32
}
"#;
    let out = run(
        text,
        "window",
        &[("memref<8xf32>", &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0])],
    )
    .expect("runs");
    // col[1, 1] is m[1, 1 + 2] = m[1, 3]; 5 + 6 + 7 + 8 = 26.
    let mut want = vec![0.0; 16];
    want[7] = 26.0;
    assert_eq!(out, vec![want, vec![8.0]]);
}

#[test]
fn buffer_misuse_is_an_error_naming_the_op() {
    let text = r#"
func.func @unwritten() -> f32 {
  %c0 = arith.constant 0 : index
  %m = loop.alloc() : memref<4xf32>
  %x = loop.load %m[%c0] : memref<4xf32>
  return %x : f32
}
func.func @outside(%m: memref<4xf32>) -> f32 {
  %c4 = arith.constant 4 : index
  %x = loop.load %m[%c4] : memref<4xf32>
  return %x : f32
}
func.func @freed(%v: f32) {
  %c0 = arith.constant 0 : index
  %m = loop.alloc() : memref<4xf32>
  loop.dealloc %m : memref<4xf32>
  loop.store %v, %m[%c0] : memref<4xf32>
  return
}
func.func @twice() {
  %m = loop.alloc() : memref<4xf32>
  loop.dealloc %m : memref<4xf32>
  loop.dealloc %m : memref<4xf32>
  return
}
func.func @lanes(%m: memref<6xf32>) -> vector<4xf32> {
  %c4 = arith.constant 4 : index
  %v = loop.vload %m[%c4] : memref<6xf32>, vector<4xf32>
  return %v : vector<4xf32>
}
func.func @partly(%v: f32) -> memref<2xf32> {
  %c0 = arith.constant 0 : index
  %m = loop.alloc() : memref<2xf32>
  loop.store %v, %m[%c0] : memref<2xf32>
  return %m : memref<2xf32>
}
"#;
    let four = [1.0, 2.0, 3.0, 4.0];
    type Args<'a> = Vec<(&'a str, &'a [f64])>;
    let cases: [(&str, Args, &str); 6] = [
        (
            "unwritten",
            vec![],
            "reads cell 0 of a buffer before it is written",
        ),
        (
            "outside",
            vec![("memref<4xf32>", &four)],
            "index 4 is out of bounds for dimension 0 of size 4",
        ),
        (
            "freed",
            vec![("f32", &[1.0])],
            "writes a buffer after its dealloc",
        ),
        ("twice", vec![], "frees a buffer twice"),
        (
            "lanes",
            vec![("memref<6xf32>", &[0.0; 6])],
            "4 lanes from index Some(4) run past dimension 0 of size 6",
        ),
        (
            "partly",
            vec![("f32", &[1.0])],
            "reads cell 1 of a buffer before it is written",
        ),
    ];
    for (name, args, want) in cases {
        let e = run(text, name, &args).expect_err(name);
        assert!(e.contains(want), "{name}: {e}");
    }
}

#[test]
fn tensor_ops_in_destination_passing_style() {
    let text = r#"
func.func @dps(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>, tensor<3x2x2xf32>, tensor<2x2xf32>, tensor<4x4xf32>) {
  %half = arith.constant dense<0.5> : tensor<2x2xf32>
  %init = tensor.empty() : tensor<2x2xf32>
  %ones = tensor.map ins(%half, %half : tensor<2x2xf32>, tensor<2x2xf32>) outs(%init : tensor<2x2xf32>) -> tensor<2x2xf32> {
  ^bb0(%p: f32, %q: f32):
    %one = arith.addf %p, %q : f32
    tensor.yield %one : f32
  }
  %c = tensor.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x2xf32>) outs(%ones : tensor<2x2xf32>) -> tensor<2x2xf32>
  %e = tensor.empty() : tensor<2xf32>
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z0 = tensor.insert %zero into %e[%c0] : tensor<2xf32>
  %z = tensor.insert %zero into %z0[%c1] : tensor<2xf32>
  %rows = tensor.reduce ins(%c : tensor<2x2xf32>) outs(%z : tensor<2xf32>) dimensions = [1] -> tensor<2xf32> {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    tensor.yield %s : f32
  }
  %e3 = tensor.empty() : tensor<3x2x2xf32>
  %bc = tensor.broadcast ins(%c : tensor<2x2xf32>) outs(%e3 : tensor<3x2x2xf32>) dimensions = [0] -> tensor<3x2x2xf32>
  %et = tensor.empty() : tensor<2x2xf32>
  %t = tensor.transpose ins(%c : tensor<2x2xf32>) outs(%et : tensor<2x2xf32>) permutation = [1, 0] -> tensor<2x2xf32>
  %p = tensor.pad %c low[1, 1] high[1, 1] {
  ^bb0(%i: index, %j: index):
    %minus = arith.constant -1.0 : f32
    tensor.yield %minus : f32
  } : tensor<2x2xf32> to tensor<4x4xf32>
  return %c, %rows, %bc, %t, %p : tensor<2x2xf32>, tensor<2xf32>, tensor<3x2x2xf32>, tensor<2x2xf32>, tensor<4x4xf32>
}
"#;
    let out = run(
        text,
        "dps",
        &[
            ("tensor<2x3xf32>", &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
            ("tensor<3x2xf32>", &[7.0, 8.0, 9.0, 10.0, 11.0, 12.0]),
        ],
    )
    .expect("runs");
    let c = vec![59.0, 65.0, 140.0, 155.0];
    assert_eq!(out[0], c);
    assert_eq!(out[1], vec![124.0, 295.0]);
    assert_eq!(out[2], [c.clone(), c.clone(), c.clone()].concat());
    assert_eq!(out[3], vec![59.0, 140.0, 65.0, 155.0]);
    let m = -1.0;
    assert_eq!(
        out[4],
        vec![m, m, m, m, m, 59.0, 65.0, m, m, 140.0, 155.0, m, m, m, m, m]
    );
}

#[test]
fn slices_and_blocked_layouts_round_trip() {
    let text = r#"
func.func @blocks(%x: tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x2xf32>, tensor<2x5xf32>) {
  %pad = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x2xf32>
  %packed = tensor.pack %x padding_value(%pad : f32) inner_dims_pos = [1] inner_tiles = [2] into %e : tensor<2x5xf32> -> tensor<2x3x2xf32>
  %u = tensor.empty() : tensor<2x5xf32>
  %back = tensor.unpack %packed inner_dims_pos = [1] inner_tiles = [2] into %u : tensor<2x3x2xf32> -> tensor<2x5xf32>
  %s = tensor.extract_slice %x[0, 1] [2, 2] [1, 2] : tensor<2x5xf32> to tensor<2x2xf32>
  %w = tensor.insert_slice %s into %x[0, 0] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x5xf32>
  return %back, %s, %w : tensor<2x5xf32>, tensor<2x2xf32>, tensor<2x5xf32>
}
"#;
    let x: Vec<f64> = (0..10).map(f64::from).collect();
    let out = run(text, "blocks", &[("tensor<2x5xf32>", &x)]).expect("runs");
    assert_eq!(out[0], x);
    assert_eq!(out[1], vec![1.0, 3.0, 6.0, 8.0]);
    assert_eq!(
        out[2],
        vec![1.0, 3.0, 2.0, 3.0, 4.0, 6.0, 8.0, 7.0, 8.0, 9.0]
    );
}

#[test]
fn unspecified_tensor_elements_cannot_be_read() {
    let text = r#"
func.func @accumulate(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %init = tensor.empty() : tensor<2x2xf32>
  %c = tensor.matmul ins(%a, %a : tensor<2x2xf32>, tensor<2x2xf32>) outs(%init : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %c : tensor<2x2xf32>
}
func.func @element() -> f32 {
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<2xf32>
  %x = tensor.extract %e[%c0] : tensor<2xf32>
  return %x : f32
}
func.func @returned() -> tensor<2xf32> {
  %e = tensor.empty() : tensor<2xf32>
  return %e : tensor<2xf32>
}
"#;
    let e = run(text, "accumulate", &[("tensor<2x2xf32>", &[1.0; 4])]).expect_err("reads init");
    assert!(
        e.contains("'tensor.matmul' reads operand #2, whose elements are unspecified"),
        "{e}"
    );
    let e = run(text, "element", &[]).expect_err("reads an element");
    assert!(e.contains("reads the unspecified element [0]"), "{e}");
    let e = run(text, "returned", &[]).expect_err("returns garbage");
    assert!(
        e.contains("returns a tensor with unspecified elements"),
        "{e}"
    );
}

/// A vendor's Rust semantics for its own op: three times its input.
fn triple(r: &acc_interp::rules::RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let x = r.operand(0)?;
    let data = x
        .data
        .iter()
        .map(|v| match v {
            acc_ir::elements::Scalar::Float(f) => acc_ir::elements::Scalar::Float(3.0 * f),
            other => *other,
        })
        .collect();
    Ok(vec![Tensor::new(r.ctx, r.result_type(0)?, data)?])
}

#[test]
fn a_vendor_rule_added_in_rust_runs_its_op() {
    let mut ctx = acc_dialects::new_context();
    let mut sources = acc_ir::SourceMap::new();
    let file = sources.add(
        "vendor.acc",
        r#"dialect vendor {
  op triple {
    traits Pure, SameOperandsAndResultType
    operands (input: AnyType)
    results (output: AnyType)
    format "$input attr-dict `:` type($input)"
    interpret vendor_triple
  }
}"#
        .to_string(),
    );
    // The rule is the tool's own: undeclared, the file is refused at the name.
    let refused = acc_dialects::lang::load_file(&mut acc_dialects::new_context(), &sources, file)
        .err()
        .expect("an unknown interpreter rule");
    assert!(
        refused[0]
            .message
            .contains("unknown interpreter rule 'vendor_triple'"),
        "{}",
        refused[0].message
    );
    ctx.declare_interpreter_rule("vendor_triple");
    acc_dialects::lang::load_file(&mut ctx, &sources, file).expect("the vendor dialect loads");
    let ir = parse(
        &mut ctx,
        r#"
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = vendor.triple %x : tensor<2xf32>
  return %y : tensor<2xf32>
}
"#,
    );
    let x = value(&mut ctx, "tensor<2xf32>", &[1.0, -2.5]);
    let e = Interpreter::new(&ctx, &ir, Limits::default())
        .call("f", vec![x.clone()])
        .expect_err("no rule of that name yet");
    assert!(
        e.message
            .contains("'vendor.triple' has no interpreter semantics"),
        "{}",
        e.message
    );
    let out = Interpreter::new(&ctx, &ir, Limits::default())
        .add_rule("vendor_triple", triple)
        .call("f", vec![x])
        .expect("runs");
    assert_eq!(numbers(&out[0]), vec![3.0, -7.5]);
}
