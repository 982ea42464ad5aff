//! Generated code against the reference interpreter: every function here runs through
//! the JIT and through the interpreter on the same inputs, and the results must agree
//! (exactly for integers, to the last bit for float code without reassociation).

mod common;

use acc_cranelift::jit::JitModule;
use acc_interp::{Interpreter, Limits, Tensor};
use acc_ir::Context;
use acc_ir::elements::{ElementKind, Scalar};
use common::parse;

/// A deterministic pseudo-random value of type `ty` (small integers, floats in
/// [-2, 2)).
fn sample(ctx: &mut Context, ty: &str, seed: &mut u64) -> Tensor {
    let ty = acc_ir::parser::parse_type_str(ctx, ty).expect("a type");
    let (shape, kind) = Tensor::layout(ctx, ty).expect("a supported type");
    let n: usize = shape.iter().product();
    let data = (0..n)
        .map(|_| {
            *seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let r = (*seed >> 33) as f64 / (1u64 << 31) as f64;
            match kind {
                ElementKind::Int(..) => Scalar::Int((r * 20.0) as i128 - 10),
                ElementKind::Float(_) => Scalar::Float(r * 4.0 - 2.0),
            }
        })
        .collect();
    Tensor::new(ctx, ty, data).expect("a value")
}

/// Runs `entry` of `text` on seeded inputs of `types` in both engines; the results.
fn both(text: &str, entry: &str, types: &[&str], seed: u64) -> (Vec<Tensor>, Vec<Tensor>) {
    let mut ctx = acc_dialects::new_context();
    let ir = parse(&mut ctx, text);
    let mut s = seed;
    let args: Vec<Tensor> = types.iter().map(|t| sample(&mut ctx, t, &mut s)).collect();
    let want = Interpreter::new(&ctx, &ir, Limits::default())
        .call(entry, args.clone())
        .unwrap_or_else(|e| panic!("interpreter: {}", e.message));
    let jit = JitModule::compile(&ctx, &ir).unwrap_or_else(|e| panic!("compile: {}", e.message));
    let got = jit
        .call(&ctx, entry, &args)
        .unwrap_or_else(|e| panic!("jit: {}", e.message));
    (got, want)
}

fn assert_same(text: &str, entry: &str, types: &[&str]) {
    for seed in [1, 2, 3] {
        let (got, want) = both(text, entry, types, seed);
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g.shape, w.shape);
            assert_eq!(g.data, w.data, "{entry} with seed {seed}");
        }
    }
}

const MATMUL: &str = r#"
func.func @matmul(%a: memref<5x7xf32>, %b: memref<7x3xf32>) -> memref<5x3xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %zero = arith.constant 0.0 : f32
  %c = loop.alloc() : memref<5x3xf32>
  loop.parallel (%i, %j) = (%c0, %c0) to (%c5, %c3) step (%c1, %c1) {
    loop.store %zero, %c[%i, %j] : memref<5x3xf32>
    loop.yield
  }
  loop.for %i = %c0 to %c5 step %c1 {
    loop.for %j = %c0 to %c3 step %c1 {
      %sum = loop.for %k = %c0 to %c7 step %c1 iter_args(%acc = %zero) -> (f32) {
        %x = loop.load %a[%i, %k] : memref<5x7xf32>
        %y = loop.load %b[%k, %j] : memref<7x3xf32>
        %p = arith.mulf %x, %y : f32
        %next = arith.addf %acc, %p : f32
        loop.yield %next : f32
      }
      %old = loop.load %c[%i, %j] : memref<5x3xf32>
      %new = arith.addf %old, %sum : f32
      loop.store %new, %c[%i, %j] : memref<5x3xf32>
      loop.yield
    }
    loop.yield
  }
  return %c : memref<5x3xf32>
}
"#;

#[test]
fn a_loop_nest_over_buffers_matches_the_interpreter() {
    assert_same(MATMUL, "matmul", &["memref<5x7xf32>", "memref<7x3xf32>"]);
}

#[test]
fn vector_code_matches_the_interpreter() {
    let text = r#"
func.func @saxpy(%x: memref<16xf32>, %y: memref<16xf32>, %a: f32) -> (memref<16xf32>, f32, f32) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %va = loop.splat %a : vector<4xf32>
  %zero = arith.constant 0.0 : f32
  %z = loop.splat %zero : vector<4xf32>
  %out = loop.alloc() : memref<16xf32>
  %acc = loop.for %i = %c0 to %c16 step %c4 iter_args(%s = %z) -> (vector<4xf32>) {
    %vx = loop.vload %x[%i] : memref<16xf32>, vector<4xf32>
    %vy = loop.vload %y[%i] : memref<16xf32>, vector<4xf32>
    %m = arith.mulf %va, %vx : vector<4xf32>
    %r = arith.addf %m, %vy : vector<4xf32>
    loop.vstore %r, %out[%i] : memref<16xf32>, vector<4xf32>
    %s2 = arith.addf %s, %r : vector<4xf32>
    loop.yield %s2 : vector<4xf32>
  }
  %sum = loop.vreduce <add>, %acc : vector<4xf32>
  %max = loop.vreduce <max>, %acc : vector<4xf32>
  return %out, %sum, %max : memref<16xf32>, f32, f32
}
"#;
    assert_same(text, "saxpy", &["memref<16xf32>", "memref<16xf32>", "f32"]);
}

#[test]
fn strided_windows_and_copies_match_the_interpreter() {
    let text = r#"
func.func @window(%m: memref<6x8xf32>) -> memref<3x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %w = loop.subview %m[1, %c1] [3, 4] [2, 2] : memref<6x8xf32> to memref<3x4xf32, strided<[16, 2], offset: ?>>
  %out = loop.alloc() : memref<3x4xf32>
  loop.copy %w, %out : memref<3x4xf32, strided<[16, 2], offset: ?>> to memref<3x4xf32>
  %v = loop.load %w[%c2, %c0] : memref<3x4xf32, strided<[16, 2], offset: ?>>
  %d = arith.addf %v, %v : f32
  loop.store %d, %out[%c0, %c0] : memref<3x4xf32>
  return %out : memref<3x4xf32>
}
"#;
    assert_same(text, "window", &["memref<6x8xf32>"]);
}

#[test]
fn scalar_arith_branches_and_calls_match_the_interpreter() {
    let text = r#"
func.func @collatz(%n: i64) -> i64 {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %two = arith.constant 2 : i64
  %three = arith.constant 3 : i64
  %start = arith.constant 27 : i64
  %m = arith.addi %n, %start : i64
  %abs = arith.maxsi %m, %one : i64
  cf.br ^loop(%abs, %zero : i64, i64)
^loop(%x: i64, %steps: i64):
  %done = arith.cmpi sle, %x, %one : i64
  cf.cond_br %done, ^exit(%steps : i64), ^step
^step:
  %r = arith.remsi %x, %two : i64
  %even = arith.cmpi eq, %r, %zero : i64
  %half = arith.divsi %x, %two : i64
  %t = arith.muli %x, %three : i64
  %odd = arith.addi %t, %one : i64
  %next = arith.select %even, %half, %odd : i64
  %s = arith.addi %steps, %one : i64
  cf.br ^loop(%next, %s : i64, i64)
^exit(%k: i64):
  return %k : i64
}
func.func @mix(%a: i32, %b: i32, %f: f64) -> (i64, f32, i1, i8, f64) {
  %c = func.call @collatz(%w) : (i64) -> i64
  %w = arith.extsi %a : i32 to i64
  %lt = arith.cmpi slt, %a, %b : i32
  %x = arith.xori %a, %b : i32
  %seven = arith.constant 7 : i32
  %amount = arith.andi %b, %seven : i32
  %sh = arith.shrui %x, %amount : i32
  %t = arith.trunci %sh : i32 to i8
  %fl = arith.sitofp %a : i32 to f32
  %g = arith.truncf %f : f64 to f32
  %m = arith.maximumf %fl, %g : f32
  %n = arith.negf %f : f64
  %ge = arith.cmpf oge, %f, %n : f64
  %both = arith.andi %lt, %ge : i1
  %e = arith.extf %m : f32 to f64
  %q = arith.divf %e, %f : f64
  return %c, %m, %both, %t, %q : i64, f32, i1, i8, f64
}
"#;
    // %w is used before it is defined above: reorder the ops for valid SSA.
    let text = text.replace(
        "  %c = func.call @collatz(%w) : (i64) -> i64\n  %w = arith.extsi %a : i32 to i64\n",
        "  %w = arith.extsi %a : i32 to i64\n  %c = func.call @collatz(%w) : (i64) -> i64\n",
    );
    assert_same(&text, "mix", &["i32", "i32", "f64"]);
}

#[test]
fn unsupported_code_is_an_error_at_the_op() {
    let mut ctx = acc_dialects::new_context();
    let ir = parse(
        &mut ctx,
        r#"
func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.relu %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
"#,
    );
    let e = JitModule::compile(&ctx, &ir)
        .err()
        .expect("graph ops are not compiled");
    assert!(
        e.message.contains("tensor<4xf32> has no machine type"),
        "{}",
        e.message
    );
    let ir = parse(
        &mut ctx,
        r#"
func.func @g(%x: memref<4xi32>) -> i32 {
  %c0 = arith.constant 0 : index
  %y = loop.load %x[%c0] : memref<4xi32>
  %z = arith.ceildivsi %y, %y : i32
  return %z : i32
}
"#,
    );
    let e = JitModule::compile(&ctx, &ir)
        .err()
        .expect("ceildivsi has no lowering");
    assert!(
        e.message
            .contains("no code generation for 'arith.ceildivsi'"),
        "{}",
        e.message
    );
    assert!(e.loc.is_some());
}

#[test]
fn math_functions_agree_with_the_interpreter_to_an_ulp_or_two() {
    let text = r#"
func.func @f(%x: f32, %v: memref<4xf32>) -> (f32, f32, f32, f32, f64, memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %e = math.exp %x : f32
  %t = math.tanh %x : f32
  %r = math.erf %x : f32
  %a = math.absf %x : f32
  %s = math.sqrt %a : f32
  %d = arith.extf %x : f32 to f64
  %p = math.powf %d, %d : f64
  %vx = loop.vload %v[%c0] : memref<4xf32>, vector<4xf32>
  %ve = math.exp %vx : vector<4xf32>
  %vl = math.rsqrt %ve : vector<4xf32>
  %out = loop.alloc() : memref<4xf32>
  loop.vstore %vl, %out[%c0] : memref<4xf32>, vector<4xf32>
  return %e, %t, %r, %s, %p, %out : f32, f32, f32, f32, f64, memref<4xf32>
}
"#;
    for seed in [4, 5, 6] {
        let (got, want) = both(text, "f", &["f32", "memref<4xf32>"], seed);
        assert_close(&got, &want);
    }
}

/// Every float of `got` within a relative 1e-6 of `want`'s (NaN where it is NaN).
fn assert_close(got: &[Tensor], want: &[Tensor]) {
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert_eq!(g.data.len(), w.data.len());
        for (a, b) in g.data.iter().zip(&w.data) {
            let (Scalar::Float(a), Scalar::Float(b)) = (a, b) else {
                panic!("floats expected");
            };
            let close = (a - b).abs() <= 1e-6 * b.abs().max(1.0);
            assert!(close || (a.is_nan() && b.is_nan()), "{a} vs {b}");
        }
    }
}

/// The trigonometric and hyperbolic functions (C library calls, lane by lane on a
/// vector) and the float remainder (C's fmod, exact).
#[test]
fn trigonometric_functions_and_remainders_agree_with_the_interpreter() {
    let text = r#"
func.func @f(%x: f32, %v: memref<4xf32>) -> (f32, f32, f32, f32, f32, f32, f64, memref<4xf32>, f32) {
  %c0 = arith.constant 0 : index
  %s = math.sin %x : f32
  %c = math.cos %x : f32
  %t = math.atan %x : f32
  %h = math.sinh %x : f32
  %a = math.asinh %x : f32
  %half = arith.constant 0.5 : f32
  %hx = arith.mulf %x, %half : f32
  %th = math.atanh %hx : f32
  %d = arith.extf %x : f32 to f64
  %cd = math.cosh %d : f64
  %vx = loop.vload %v[%c0] : memref<4xf32>, vector<4xf32>
  %vt = math.tan %vx : vector<4xf32>
  %out = loop.alloc() : memref<4xf32>
  loop.vstore %vt, %out[%c0] : memref<4xf32>, vector<4xf32>
  %three = arith.constant 0.75 : f32
  %r = arith.remf %x, %three : f32
  return %s, %c, %t, %h, %a, %th, %cd, %out, %r : f32, f32, f32, f32, f32, f32, f64, memref<4xf32>, f32
}
"#;
    for seed in [4, 5, 6] {
        let (got, want) = both(text, "f", &["f32", "memref<4xf32>"], seed);
        assert_close(&got, &want);
        // The remainder is exact.
        assert_eq!(got[8].data, want[8].data);
    }
}

/// floor, ceil and roundeven (ties to even) on halves, on either side of zero, as
/// scalars and as a vector.
#[test]
fn rounding_functions_match_the_interpreter_exactly() {
    let text = r#"
func.func @round() -> (memref<8xf32>, memref<8xf32>, memref<8xf32>, memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %x = loop.constant dense<[-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.3, -0.7]> : tensor<8xf32> to memref<8xf32>
  %fl = loop.alloc() : memref<8xf32>
  %ce = loop.alloc() : memref<8xf32>
  %re = loop.alloc() : memref<8xf32>
  loop.for %i = %c0 to %c8 step %c1 {
    %v = loop.load %x[%i] : memref<8xf32>
    %f = math.floor %v : f32
    %c = math.ceil %v : f32
    %r = math.roundeven %v : f32
    loop.store %f, %fl[%i] : memref<8xf32>
    loop.store %c, %ce[%i] : memref<8xf32>
    loop.store %r, %re[%i] : memref<8xf32>
    loop.yield
  }
  %vx = loop.vload %x[%c0] : memref<8xf32>, vector<4xf32>
  %vr = math.roundeven %vx : vector<4xf32>
  %vo = loop.alloc() : memref<4xf32>
  loop.vstore %vr, %vo[%c0] : memref<4xf32>, vector<4xf32>
  return %fl, %ce, %re, %vo : memref<8xf32>, memref<8xf32>, memref<8xf32>, memref<4xf32>
}
"#;
    assert_same(text, "round", &[]);
}

/// Conversions between f32 and 8- and 16-bit integers, which Cranelift does not do
/// directly (before, an f32 to i16 conversion stopped the code generator).
#[test]
fn narrow_integer_conversions_match_the_interpreter() {
    let text = r#"
func.func @narrow() -> (memref<6xi8>, memref<6xi16>, memref<6xf32>, memref<6xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %x = loop.constant dense<[1.7, -2.5, 100.9, 0.0, -128.0, 127.0]> : tensor<6xf32> to memref<6xf32>
  %y = loop.constant dense<[-128, 5, 127, -1, 0, 77]> : tensor<6xi8> to memref<6xi8>
  %z = loop.constant dense<[-32768, 300, 32767, -1, 0, 1000]> : tensor<6xi16> to memref<6xi16>
  %a = loop.alloc() : memref<6xi8>
  %b = loop.alloc() : memref<6xi16>
  %c = loop.alloc() : memref<6xf32>
  %d = loop.alloc() : memref<6xf32>
  loop.for %i = %c0 to %c6 step %c1 {
    %v = loop.load %x[%i] : memref<6xf32>
    %s8 = arith.fptosi %v : f32 to i8
    %s16 = arith.fptosi %v : f32 to i16
    loop.store %s8, %a[%i] : memref<6xi8>
    loop.store %s16, %b[%i] : memref<6xi16>
    %w = loop.load %y[%i] : memref<6xi8>
    %f8 = arith.sitofp %w : i8 to f32
    loop.store %f8, %c[%i] : memref<6xf32>
    %u = loop.load %z[%i] : memref<6xi16>
    %f16 = arith.sitofp %u : i16 to f32
    loop.store %f16, %d[%i] : memref<6xf32>
    loop.yield
  }
  return %a, %b, %c, %d : memref<6xi8>, memref<6xi16>, memref<6xf32>, memref<6xf32>
}
"#;
    assert_same(text, "narrow", &[]);
}

/// Signed ops on i1, where true is -1 (MLIR's semantics): maxsi is "and", minsi is
/// "or", and true is less than false.
#[test]
fn signed_boolean_ops_match_the_interpreter() {
    let text = r#"
func.func @bools() -> (memref<4xi1>, memref<4xi1>, memref<4xi1>, memref<4xi1>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %x = loop.constant dense<[true, true, false, false]> : tensor<4xi1> to memref<4xi1>
  %y = loop.constant dense<[true, false, true, false]> : tensor<4xi1> to memref<4xi1>
  %mx = loop.alloc() : memref<4xi1>
  %mn = loop.alloc() : memref<4xi1>
  %lt = loop.alloc() : memref<4xi1>
  %ge = loop.alloc() : memref<4xi1>
  loop.for %i = %c0 to %c4 step %c1 {
    %a = loop.load %x[%i] : memref<4xi1>
    %b = loop.load %y[%i] : memref<4xi1>
    %p = arith.maxsi %a, %b : i1
    %q = arith.minsi %a, %b : i1
    %r = arith.cmpi slt, %a, %b : i1
    %s = arith.cmpi sge, %a, %b : i1
    loop.store %p, %mx[%i] : memref<4xi1>
    loop.store %q, %mn[%i] : memref<4xi1>
    loop.store %r, %lt[%i] : memref<4xi1>
    loop.store %s, %ge[%i] : memref<4xi1>
    loop.yield
  }
  return %mx, %mn, %lt, %ge : memref<4xi1>, memref<4xi1>, memref<4xi1>, memref<4xi1>
}
"#;
    assert_same(text, "bools", &[]);
}

#[test]
fn constant_buffers_and_reshapes_match_the_interpreter() {
    let text = r#"
func.func @weights(%x: memref<2x3xf32>) -> memref<3x2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %w = loop.constant dense<[[1.0, -2.0, 3.5], [0.25, 4.0, -1.0]]> : tensor<2x3xf32> to memref<2x3xf32>
  %flat = loop.reshape %x : memref<2x3xf32> to memref<6xf32>
  %wflat = loop.reshape %w : memref<2x3xf32> to memref<6xf32>
  %out = loop.alloc() : memref<6xf32>
  loop.for %i = %c0 to %c6 step %c1 {
    %a = loop.load %flat[%i] : memref<6xf32>
    %b = loop.load %wflat[%i] : memref<6xf32>
    %p = arith.mulf %a, %b : f32
    loop.store %p, %out[%i] : memref<6xf32>
    loop.yield
  }
  %r = loop.reshape %out : memref<6xf32> to memref<3x2xf32>
  return %r : memref<3x2xf32>
}
"#;
    assert_same(text, "weights", &["memref<2x3xf32>"]);
}

#[test]
fn strided_gathers_and_arena_buffers_match_the_interpreter() {
    // Two buffers planned at the same arena offset one after the other (their
    // lifetimes do not overlap), and lanes read two elements apart.
    let text = r#"
func.func @gather(%x: memref<2x17xf32>) -> memref<2x8xf32> attributes {loop.arena_size = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %t = loop.alloc() {offset = 128 : i64} : memref<2x8xf32>
  loop.parallel (%i, %j) = (%c0, %c0) to (%c2, %c8) step (%c1, %c4) {
    %k = arith.muli %j, %c2 : index
    %k1 = arith.addi %k, %c1 : index
    %v = loop.vload %x[%i, %k1] {stride = 2 : i64} : memref<2x17xf32>, vector<4xf32>
    loop.vstore %v, %t[%i, %j] : memref<2x8xf32>, vector<4xf32>
    loop.yield
  }
  %u = loop.alloc() {offset = 0 : i64} : memref<2x8xf32>
  loop.parallel (%i, %j) = (%c0, %c0) to (%c2, %c8) step (%c1, %c4) {
    %v = loop.vload %t[%i, %j] : memref<2x8xf32>, vector<4xf32>
    %w = arith.addf %v, %v : vector<4xf32>
    loop.vstore %w, %u[%i, %j] : memref<2x8xf32>, vector<4xf32>
    loop.yield
  }
  loop.dealloc %t : memref<2x8xf32>
  %again = loop.alloc() {offset = 128 : i64} : memref<2x8xf32>
  %out = loop.alloc() : memref<2x8xf32>
  loop.parallel (%i, %j) = (%c0, %c0) to (%c2, %c8) step (%c1, %c4) {
    %v = loop.vload %u[%i, %j] : memref<2x8xf32>, vector<4xf32>
    loop.vstore %v, %again[%i, %j] : memref<2x8xf32>, vector<4xf32>
    %w = loop.vload %again[%i, %j] : memref<2x8xf32>, vector<4xf32>
    %s = arith.mulf %w, %v : vector<4xf32>
    loop.vstore %s, %out[%i, %j] : memref<2x8xf32>, vector<4xf32>
    loop.yield
  }
  loop.dealloc %u : memref<2x8xf32>
  loop.dealloc %again : memref<2x8xf32>
  return %out : memref<2x8xf32>
}
"#;
    assert_same(text, "gather", &["memref<2x17xf32>"]);
}

#[test]
fn an_arena_too_small_for_its_buffers_is_an_error() {
    let text = r#"
func.func @f() attributes {loop.arena_size = 64 : i64} {
  %t = loop.alloc() {offset = 32 : i64} : memref<16xf32>
  loop.dealloc %t : memref<16xf32>
  return
}
"#;
    let mut ctx = acc_dialects::new_context();
    let ir = parse(&mut ctx, text);
    let e = JitModule::compile(&ctx, &ir).err().expect("an error");
    assert!(
        e.message.contains("do not fit the arena of 64 bytes"),
        "{}",
        e.message
    );
}

#[test]
fn returned_buffers_match_the_interpreter() {
    // %a is returned twice (copied out), %b once (built in the result buffer, and
    // read back there), %p is planned in the arena and returned (built in the
    // result buffer too).
    let text = r#"
func.func @returned(%x: memref<8xf32>) -> (memref<8xf32>, memref<8xf32>, memref<8xf32>, memref<8xf32>) attributes {loop.arena_size = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %a = loop.alloc() : memref<8xf32>
  %b = loop.alloc() : memref<8xf32>
  %p = loop.alloc() {offset = 0 : i64} : memref<8xf32>
  loop.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %v = loop.load %x[%i] : memref<8xf32>
    %w = arith.addf %v, %v : f32
    loop.store %w, %a[%i] : memref<8xf32>
    loop.store %v, %b[%i] : memref<8xf32>
    %u = loop.load %b[%i] : memref<8xf32>
    %z = arith.mulf %u, %w : f32
    loop.store %z, %b[%i] : memref<8xf32>
    %q = arith.subf %z, %v : f32
    loop.store %q, %p[%i] : memref<8xf32>
    loop.yield
  }
  return %a, %b, %a, %p : memref<8xf32>, memref<8xf32>, memref<8xf32>, memref<8xf32>
}
"#;
    assert_same(text, "returned", &["memref<8xf32>"]);
}

const THREADED: &str = r#"
func.func @threaded(%x: memref<1x48x32x32xf32>, %s: f32) -> (memref<1x48x32x32xf32>, memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c48 = arith.constant 48 : index
  %y = loop.alloc() : memref<1x48x32x32xf32>
  loop.parallel (%n, %c, %h, %w) = (%c0, %c0, %c0, %c0) to (%c1, %c48, %c32, %c32) step (%c1, %c1, %c1, %c1) {
    %v = loop.load %x[%n, %c, %h, %w] : memref<1x48x32x32xf32>
    %p = loop.for %k = %c0 to %c3 step %c1 iter_args(%acc = %v) -> (f32) {
      %m = arith.mulf %acc, %s : f32
      %a = arith.addf %m, %v : f32
      loop.yield %a : f32
    }
    loop.store %p, %y[%n, %c, %h, %w] : memref<1x48x32x32xf32>
    loop.yield
  }
  %small = loop.alloc() : memref<4xf32>
  loop.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = loop.load %x[%c0, %i, %c0, %c0] : memref<1x48x32x32xf32>
    loop.store %v, %small[%i] : memref<4xf32>
    loop.yield
  }
  return %y, %small : memref<1x48x32x32xf32>, memref<4xf32>
}
"#;

/// A large nest runs on the runtime's threads (its body outlined, split along its
/// outermost dimension of more than one iteration, the batch of 1 skipped), a small
/// one inline; on 1 and 3 threads, both match the interpreter bit for bit.
#[test]
fn large_nests_run_on_threads_and_match_the_interpreter() {
    let mut ctx = acc_dialects::new_context();
    let ir = parse(&mut ctx, THREADED);
    let jit = JitModule::compile(&ctx, &ir).unwrap_or_else(|e| panic!("compile: {}", e.message));
    assert_eq!(jit.threaded_nests("threaded"), 1);
    let types = ["memref<1x48x32x32xf32>", "f32"];
    assert_same_on_threads(THREADED, "threaded", &types, 2, 3);
}

/// Runs `entry` of `text` on 1 and on `threads` threads: each time its `results`
/// results match the interpreter's bit for bit.
fn assert_same_on_threads(text: &str, entry: &str, types: &[&str], results: usize, threads: usize) {
    for threads in [1, threads] {
        acc_runtime::threads::set_threads(threads).expect("threads");
        let (got, want) = both(text, entry, types, threads as u64);
        acc_runtime::threads::set_threads(1).expect("threads");
        assert_eq!(got.len(), results);
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g.shape, w.shape);
            assert_eq!(g.data, w.data, "on {threads} threads");
        }
    }
}

/// Nests walking whole contiguous buffers in order run as one flat loop
/// (`translate/flatten.rs`): 4-lane vectors over blocked buffers, alone and split
/// among threads, and a gathering vload; beside them nests that must keep their
/// loops (a broadcast operand indexed by part of the induction variables, a buffer
/// of another shape). All match the interpreter bit for bit on 1 and 2 threads.
#[test]
fn flat_and_nested_loops_match_the_interpreter() {
    let text = r#"
func.func @flat(%x: memref<1x3x8x16xf32>, %b: memref<3x16xf32>, %t: memref<8x16xf32>, %s: f32) -> (memref<1x3x8x16xf32>, memref<1x3x8x16xf32>, memref<8x16xf32>, memref<1x40x32x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c40 = arith.constant 40 : index
  %y = loop.alloc() : memref<1x3x8x16xf32>
  loop.parallel (%n, %c, %h, %l) = (%c0, %c0, %c0, %c0) to (%c1, %c3, %c8, %c16) step (%c1, %c1, %c1, %c4) {
    %v = loop.vload %x[%n, %c, %h, %l] : memref<1x3x8x16xf32>, vector<4xf32>
    %k = loop.splat %s : vector<4xf32>
    %m = arith.mulf %v, %k : vector<4xf32>
    %z = arith.maximumf %m, %v : vector<4xf32>
    loop.vstore %z, %y[%n, %c, %h, %l] : memref<1x3x8x16xf32>, vector<4xf32>
    loop.yield
  }
  %w = loop.alloc() : memref<1x3x8x16xf32>
  loop.parallel (%n, %c, %h, %l) = (%c0, %c0, %c0, %c0) to (%c1, %c3, %c8, %c16) step (%c1, %c1, %c1, %c4) {
    %v = loop.vload %y[%n, %c, %h, %l] : memref<1x3x8x16xf32>, vector<4xf32>
    %bv = loop.vload %b[%c, %l] : memref<3x16xf32>, vector<4xf32>
    %a = arith.addf %v, %bv : vector<4xf32>
    loop.vstore %a, %w[%n, %c, %h, %l] : memref<1x3x8x16xf32>, vector<4xf32>
    loop.yield
  }
  %u = loop.alloc() : memref<8x16xf32>
  loop.parallel (%i, %j) = (%c0, %c0) to (%c8, %c16) step (%c1, %c4) {
    %f0 = arith.constant 0.0 : f32
    %z = loop.splat %f0 : vector<4xf32>
    loop.vstore %z, %u[%i, %j] : memref<8x16xf32>, vector<4xf32>
    loop.yield
  }
  loop.parallel (%i, %j) = (%c0, %c0) to (%c8, %c16) step (%c1, %c8) {
    %v = loop.vload %t[%i, %j] {stride = 2 : i64} : memref<8x16xf32>, vector<4xf32>
    loop.vstore %v, %u[%i, %j] : memref<8x16xf32>, vector<4xf32>
    loop.yield
  }
  %big = loop.alloc() : memref<1x40x32x16xf32>
  loop.parallel (%n, %c, %h, %l) = (%c0, %c0, %c0, %c0) to (%c1, %c40, %c32, %c16) step (%c1, %c1, %c1, %c4) {
    %v = loop.vload %x[%c0, %c1, %c4, %l] : memref<1x3x8x16xf32>, vector<4xf32>
    %k = loop.splat %s : vector<4xf32>
    %a = arith.addf %v, %k : vector<4xf32>
    loop.vstore %a, %big[%n, %c, %h, %l] : memref<1x40x32x16xf32>, vector<4xf32>
    loop.yield
  }
  return %y, %w, %u, %big : memref<1x3x8x16xf32>, memref<1x3x8x16xf32>, memref<8x16xf32>, memref<1x40x32x16xf32>
}
"#;
    let types = [
        "memref<1x3x8x16xf32>",
        "memref<3x16xf32>",
        "memref<8x16xf32>",
        "f32",
    ];
    assert_same_on_threads(text, "flat", &types, 4, 2);
}

/// `f16` and `bf16`, which generated code holds as their bits: every pattern of
/// both widened to `f32`, and `f32` and `f64` values at every rounding boundary
/// narrowed (ties to even, one unit either side of a tie, subnormals, overflow to
/// infinity, NaN), exactly as the interpreter converts them.
#[test]
fn half_precision_conversions_match_the_interpreter_exactly() {
    use acc_ir::FloatKind;
    let cases = {
        let cases = |kind| {
            acc_ir::minifloat::MiniFloat::sixteen_bit(kind)
                .expect("a 16-bit format")
                .rounding_cases(3)
        };
        let mut c = cases(FloatKind::F16);
        c.extend(cases(FloatKind::BF16));
        c
    };
    let n = cases.len();
    let text = format!(
        r#"
func.func @widen(%h: memref<65536xf16>, %b: memref<65536xbf16>) -> (memref<65536xf32>, memref<65536xf64>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 65536 : index
  %hf = loop.alloc() : memref<65536xf32>
  %bf = loop.alloc() : memref<65536xf64>
  loop.for %i = %c0 to %n step %c1 {{
    %x = loop.load %h[%i] : memref<65536xf16>
    %y = loop.load %b[%i] : memref<65536xbf16>
    %wx = arith.extf %x : f16 to f32
    %wy = arith.extf %y : bf16 to f64
    loop.store %wx, %hf[%i] : memref<65536xf32>
    loop.store %wy, %bf[%i] : memref<65536xf64>
    loop.yield
  }}
  return %hf, %bf : memref<65536xf32>, memref<65536xf64>
}}
func.func @narrow(%x: memref<{n}xf64>) -> (memref<{n}xf16>, memref<{n}xbf16>, memref<{n}xf16>, memref<{n}xbf16>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant {n} : index
  %a = loop.alloc() : memref<{n}xf16>
  %b = loop.alloc() : memref<{n}xbf16>
  %c = loop.alloc() : memref<{n}xf16>
  %d = loop.alloc() : memref<{n}xbf16>
  loop.for %i = %c0 to %n step %c1 {{
    %v = loop.load %x[%i] : memref<{n}xf64>
    %h = arith.truncf %v : f64 to f16
    %g = arith.truncf %v : f64 to bf16
    %s = arith.truncf %v : f64 to f32
    %hs = arith.truncf %s : f32 to f16
    %gs = arith.truncf %s : f32 to bf16
    loop.store %h, %a[%i] : memref<{n}xf16>
    loop.store %g, %b[%i] : memref<{n}xbf16>
    loop.store %hs, %c[%i] : memref<{n}xf16>
    loop.store %gs, %d[%i] : memref<{n}xbf16>
    loop.yield
  }}
  return %a, %b, %c, %d : memref<{n}xf16>, memref<{n}xbf16>, memref<{n}xf16>, memref<{n}xbf16>
}}
"#
    );
    let mut ctx = acc_dialects::new_context();
    let ir = parse(&mut ctx, &text);
    let memref = |ctx: &mut Context, ty: &str, values: Vec<f64>| {
        let ty = acc_ir::parser::parse_type_str(ctx, ty).expect("a type");
        Tensor::new(ctx, ty, values.into_iter().map(Scalar::Float).collect()).expect("a value")
    };
    let every = |kind| {
        (0..65536u32)
            .map(|b| acc_ir::elements::float_from_bits(u128::from(b), kind))
            .collect::<Vec<f64>>()
    };
    let widen_args = vec![
        memref(&mut ctx, "memref<65536xf16>", every(FloatKind::F16)),
        memref(&mut ctx, "memref<65536xbf16>", every(FloatKind::BF16)),
    ];
    let narrow_args = vec![memref(&mut ctx, &format!("memref<{n}xf64>"), cases)];
    let jit = JitModule::compile(&ctx, &ir).unwrap_or_else(|e| panic!("compile: {}", e.message));
    for (entry, args) in [("widen", widen_args), ("narrow", narrow_args)] {
        assert_bit_equal_to_interpreter(&ctx, &ir, &jit, entry, &args);
    }
}

/// The floats of 8 bits and fewer (f8, f6, f4), which generated code holds as their
/// bits in a byte: every pattern of each widened to `f32`, and `f64` and `f32` values
/// at every rounding boundary narrowed (ties to even, a unit either side, subnormals,
/// each format's overflow rule: infinity, NaN or its largest value), exactly as the
/// interpreter converts them. `f8E8M0FNU` is only widened: ONNX's Cast to it lowers
/// to integer ops.
#[test]
fn small_float_conversions_match_the_interpreter_exactly() {
    use acc_ir::FloatKind;
    use acc_ir::minifloat::MiniFloat;
    let small: Vec<(FloatKind, &str, MiniFloat)> = FloatKind::ALL
        .iter()
        .filter_map(|(k, name)| MiniFloat::of(*k).map(|m| (*k, *name, m)))
        .collect();
    assert_eq!(small.len(), 11, "every small float format is checked");
    let mut ctx = acc_dialects::new_context();
    let mut text = String::new();
    let mut calls = Vec::new();
    for (kind, name, m) in &small {
        let patterns = 1usize << m.width();
        text += &format!(
            r#"
func.func @widen_{name}(%h: memref<{patterns}x{name}>) -> memref<{patterns}xf32> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant {patterns} : index
  %w = loop.alloc() : memref<{patterns}xf32>
  loop.for %i = %c0 to %n step %c1 {{
    %x = loop.load %h[%i] : memref<{patterns}x{name}>
    %y = arith.extf %x : {name} to f32
    loop.store %y, %w[%i] : memref<{patterns}xf32>
    loop.yield
  }}
  return %w : memref<{patterns}xf32>
}}
"#
        );
        let every: Vec<Scalar> = (0..patterns as u32)
            .map(|b| Scalar::Float(m.decode(b)))
            .collect();
        let ty = acc_ir::parser::parse_type_str(&mut ctx, &format!("memref<{patterns}x{name}>"))
            .expect("a type");
        calls.push((
            format!("widen_{name}"),
            vec![Tensor::new(&ctx, ty, every).expect("a value")],
        ));
        if *kind == FloatKind::F8E8M0FNU {
            continue;
        }
        let cases = m.rounding_cases(1);
        let n = cases.len();
        text += &format!(
            r#"
func.func @narrow_{name}(%x: memref<{n}xf64>) -> (memref<{n}x{name}>, memref<{n}x{name}>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant {n} : index
  %a = loop.alloc() : memref<{n}x{name}>
  %b = loop.alloc() : memref<{n}x{name}>
  loop.for %i = %c0 to %n step %c1 {{
    %v = loop.load %x[%i] : memref<{n}xf64>
    %d = arith.truncf %v : f64 to {name}
    %s = arith.truncf %v : f64 to f32
    %f = arith.truncf %s : f32 to {name}
    loop.store %d, %a[%i] : memref<{n}x{name}>
    loop.store %f, %b[%i] : memref<{n}x{name}>
    loop.yield
  }}
  return %a, %b : memref<{n}x{name}>, memref<{n}x{name}>
}}
"#
        );
        let ty =
            acc_ir::parser::parse_type_str(&mut ctx, &format!("memref<{n}xf64>")).expect("a type");
        let values = cases.into_iter().map(Scalar::Float).collect();
        calls.push((
            format!("narrow_{name}"),
            vec![Tensor::new(&ctx, ty, values).expect("a value")],
        ));
    }
    let ir = parse(&mut ctx, &text);
    let jit = JitModule::compile(&ctx, &ir).unwrap_or_else(|e| panic!("compile: {}", e.message));
    for (entry, args) in calls {
        assert_bit_equal_to_interpreter(&ctx, &ir, &jit, &entry, &args);
    }
}

/// Calls `entry` natively and in the interpreter: every result element the same bits
/// (any NaN equal to any other).
fn assert_bit_equal_to_interpreter(
    ctx: &Context,
    ir: &acc_ir::Ir,
    jit: &JitModule,
    entry: &str,
    args: &[Tensor],
) {
    let want = Interpreter::new(ctx, ir, Limits::default())
        .call(entry, args.to_vec())
        .unwrap_or_else(|e| panic!("interpreter: {}", e.message));
    let got = jit
        .call(ctx, entry, args)
        .unwrap_or_else(|e| panic!("jit: {}", e.message));
    assert_eq!(got.len(), want.len(), "{entry}");
    for (r, (g, w)) in got.iter().zip(&want).enumerate() {
        let (g, w) = (g.values().expect("values"), w.values().expect("values"));
        assert_eq!(g.len(), w.len(), "{entry} result {r}");
        for (i, (a, b)) in g.iter().zip(&w).enumerate() {
            let same = match (a, b) {
                (Scalar::Float(a), Scalar::Float(b)) => {
                    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
                }
                _ => a == b,
            };
            assert!(
                same,
                "{entry} result {r}, element {i}: {a:?} instead of {b:?}"
            );
        }
    }
}

/// `i2` and `i4` (held in a byte, sign-extended) through arithmetic that wraps, the
/// operations that read them unsigned, conversions and a bitcast from `f4E2M1FN`,
/// natively as in the interpreter: every pair of 4-bit values.
#[test]
fn sub_byte_integers_compute_as_the_interpreter_does() {
    let text = r#"
func.func @main(%a: memref<256xi4>, %b: memref<256xi4>) -> (memref<256xi4>, memref<256xi4>, memref<256xi4>, memref<256xi4>, memref<256xi1>, memref<256xi4>, memref<256xf32>, memref<256xi32>, memref<256xi2>, memref<256xi4>, memref<256xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 256 : index
  %one = arith.constant 1 : i4
  %eight = arith.constant 8.0 : f32
  %add = loop.alloc() : memref<256xi4>
  %mul = loop.alloc() : memref<256xi4>
  %divu = loop.alloc() : memref<256xi4>
  %shr = loop.alloc() : memref<256xi4>
  %ult = loop.alloc() : memref<256xi1>
  %maxu = loop.alloc() : memref<256xi4>
  %tofp = loop.alloc() : memref<256xf32>
  %ext = loop.alloc() : memref<256xi32>
  %trunc = loop.alloc() : memref<256xi2>
  %fromfp = loop.alloc() : memref<256xi4>
  %pattern = loop.alloc() : memref<256xi32>
  loop.for %i = %c0 to %n step %c1 {
    %x = loop.load %a[%i] : memref<256xi4>
    %y = loop.load %b[%i] : memref<256xi4>
    %s = arith.addi %x, %y : i4
    %p = arith.muli %x, %y : i4
    %ny = arith.ori %y, %one : i4
    %q = arith.divui %x, %ny : i4
    %r = arith.shrui %x, %one : i4
    %l = arith.cmpi ult, %x, %y : i4
    %m = arith.maxui %x, %y : i4
    %f = arith.uitofp %x : i4 to f32
    %e = arith.extui %x : i4 to i32
    %t = arith.trunci %p : i4 to i2
    %g = arith.subf %f, %eight : f32
    %h = arith.fptosi %g : f32 to i4
    %small = arith.truncf %g : f32 to f4E2M1FN
    %bits = arith.bitcast %small : f4E2M1FN to i4
    %wide = arith.extsi %bits : i4 to i32
    loop.store %s, %add[%i] : memref<256xi4>
    loop.store %p, %mul[%i] : memref<256xi4>
    loop.store %q, %divu[%i] : memref<256xi4>
    loop.store %r, %shr[%i] : memref<256xi4>
    loop.store %l, %ult[%i] : memref<256xi1>
    loop.store %m, %maxu[%i] : memref<256xi4>
    loop.store %f, %tofp[%i] : memref<256xf32>
    loop.store %e, %ext[%i] : memref<256xi32>
    loop.store %t, %trunc[%i] : memref<256xi2>
    loop.store %h, %fromfp[%i] : memref<256xi4>
    loop.store %wide, %pattern[%i] : memref<256xi32>
    loop.yield
  }
  return %add, %mul, %divu, %shr, %ult, %maxu, %tofp, %ext, %trunc, %fromfp, %pattern : memref<256xi4>, memref<256xi4>, memref<256xi4>, memref<256xi4>, memref<256xi1>, memref<256xi4>, memref<256xf32>, memref<256xi32>, memref<256xi2>, memref<256xi4>, memref<256xi32>
}
"#;
    let mut ctx = acc_dialects::new_context();
    let ir = parse(&mut ctx, text);
    let ty = acc_ir::parser::parse_type_str(&mut ctx, "memref<256xi4>").expect("a type");
    let a = (0..256).map(|i| Scalar::Int(i / 16 - 8)).collect();
    let b = (0..256).map(|i| Scalar::Int(i % 16 - 8)).collect();
    let args = vec![
        Tensor::new(&ctx, ty, a).expect("a value"),
        Tensor::new(&ctx, ty, b).expect("a value"),
    ];
    let want = Interpreter::new(&ctx, &ir, Limits::default())
        .call("main", args.clone())
        .unwrap_or_else(|e| panic!("interpreter: {}", e.message));
    let jit = JitModule::compile(&ctx, &ir).unwrap_or_else(|e| panic!("compile: {}", e.message));
    let got = jit
        .call(&ctx, "main", &args)
        .unwrap_or_else(|e| panic!("jit: {}", e.message));
    assert_eq!(got.len(), want.len());
    for (r, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(
            g.values().expect("values"),
            w.values().expect("values"),
            "result {r}"
        );
    }
}

/// A `loop.for` whose induction variable would step past i64::MAX ends after its last
/// iteration below the bound (as the interpreter's, which counts in i128), instead of
/// wrapping around to negative values and running forever; with the bound or the step
/// a run-time value, too.
#[test]
fn a_loop_stepping_past_i64_max_ends() {
    let text = r#"
func.func @near_max(%x: i64) -> i64 {
  %lb = arith.constant 9223372036854775799 : index
  %ub = arith.constant 9223372036854775807 : index
  %step = arith.constant 5 : index
  %one = arith.constant 1 : i64
  %n = loop.for %i = %lb to %ub step %step iter_args(%c = %x) -> (i64) {
    %d = arith.addi %c, %one : i64
    loop.yield %d : i64
  }
  return %n : i64
}
func.func @run_time_step(%x: i64) -> i64 {
  %lb = arith.constant 9223372036854775799 : index
  %ub = arith.constant 9223372036854775807 : index
  %one = arith.constant 1 : i64
  %base = arith.constant 9223372036854775700 : index
  %s = arith.index_cast %x : i64 to index
  %step = arith.addi %s, %base : index
  %n = loop.for %i = %lb to %ub step %step iter_args(%c = %x) -> (i64) {
    %d = arith.addi %c, %one : i64
    loop.yield %d : i64
  }
  return %n : i64
}
"#;
    for (entry, iterations) in [("near_max", 2), ("run_time_step", 1)] {
        let (got, want) = both(text, entry, &["i64"], 1);
        assert_eq!(got[0].data, want[0].data, "{entry}");
        // The argument `both` passed with seed 1.
        let arg = sample(&mut acc_dialects::new_context(), "i64", &mut 1).data[0];
        let (Scalar::Int(x), Scalar::Int(arg)) = (got[0].data[0], arg) else {
            panic!("{entry}: not integers");
        };
        assert_eq!(x, arg + iterations, "{entry} runs {iterations} iterations");
    }
    // A huge run-time step: one iteration, then past i64::MAX (for every sample).
    assert_same(text, "run_time_step", &["i64"]);
}

/// A `loop.parallel` dimension whose induction variable would step past i64::MAX ends
/// after its last iteration below the bound, as `loop.for`'s; one whose step is not
/// positive at run time runs no iteration (the interpreter refuses it) instead of
/// looping forever.
#[test]
fn a_parallel_loop_stepping_past_i64_max_or_by_zero_ends() {
    let counting = |name: &str, lb: &str, step: &str| {
        format!(
            r#"
func.func @{name}(%x: i64) -> i64 {{
  %lb = arith.constant {lb} : index
  %ub = arith.constant 9223372036854775807 : index
  %base = arith.constant 9223372036854775700 : index
  %s = arith.index_cast %x : i64 to index
  %huge = arith.addi %s, %base : index
  %five = arith.constant 5 : index
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i64
  %m = loop.alloc() : memref<1xi64>
  loop.store %x, %m[%c0] : memref<1xi64>
  loop.parallel (%i) = (%lb) to (%ub) step ({step}) {{
    %c = loop.load %m[%c0] : memref<1xi64>
    %d = arith.addi %c, %one : i64
    loop.store %d, %m[%c0] : memref<1xi64>
    loop.yield
  }}
  %n = loop.load %m[%c0] : memref<1xi64>
  loop.dealloc %m : memref<1xi64>
  return %n : i64
}}
"#
        )
    };
    let text = [
        counting("near_max", "9223372036854775799", "%five"),
        counting("run_time_step", "9223372036854775799", "%huge"),
        counting("step_of_x", "9223372036854775797", "%s"),
    ]
    .concat();
    for (entry, iterations) in [("near_max", 2), ("run_time_step", 1)] {
        let (got, want) = both(&text, entry, &["i64"], 1);
        assert_eq!(got[0].data, want[0].data, "{entry}");
        let arg = sample(&mut acc_dialects::new_context(), "i64", &mut 1).data[0];
        assert_eq!(
            (got[0].data[0], arg),
            match arg {
                Scalar::Int(a) => (Scalar::Int(a + iterations), arg),
                _ => panic!("not an integer"),
            },
            "{entry} runs {iterations} iterations"
        );
    }
    let mut ctx = acc_dialects::new_context();
    let ir = parse(&mut ctx, &text);
    let jit = JitModule::compile(&ctx, &ir).unwrap_or_else(|e| panic!("compile: {}", e.message));
    let ty = acc_ir::parser::parse_type_str(&mut ctx, "i64").expect("a type");
    // Steps 3 (iterations at MAX-10, -7, -4, -1: 4), 0 and -3 (none: the JIT ends
    // the loop where the interpreter refuses the step).
    for (x, want) in [(3, 7), (0, 0), (-3, -3)] {
        let arg = Tensor::new(&ctx, ty, vec![Scalar::Int(x)]).expect("a value");
        let got = jit
            .call(&ctx, "step_of_x", std::slice::from_ref(&arg))
            .unwrap_or_else(|e| panic!("jit: {}", e.message));
        assert_eq!(got[0].data, [Scalar::Int(want)], "a step of {x}");
        if x > 0 {
            let interpreted = Interpreter::new(&ctx, &ir, Limits::default())
                .call("step_of_x", vec![arg])
                .unwrap_or_else(|e| panic!("interpreter: {}", e.message));
            assert_eq!(interpreted[0].data, got[0].data);
        }
    }
}

/// A function of more arguments than `WIDE` (256) and its packed wrapper are compiled
/// with the single-pass register allocator and defined as bytes with their
/// relocations: the results are the same (a call inside, to exercise a relocation).
#[test]
fn a_function_of_300_arguments_matches_the_interpreter() {
    let n = 300;
    let params: Vec<String> = (0..n).map(|i| format!("%a{i}: i32")).collect();
    let mut text = format!(
        "func.func @twice(%x: i32) -> i32 {{\n  %y = arith.addi %x, %x : i32\n  return %y : i32\n}}\nfunc.func @wide({}) -> i32 {{\n  %s0 = arith.addi %a0, %a1 : i32\n",
        params.join(", ")
    );
    for i in 2..n {
        text.push_str(&format!(
            "  %s{} = arith.addi %s{}, %a{i} : i32\n",
            i - 1,
            i - 2
        ));
    }
    text.push_str(&format!(
        "  %t = func.call @twice(%s{}) : (i32) -> i32\n  return %t : i32\n}}\n",
        n - 2
    ));
    let types = vec!["i32"; n];
    assert_same(&text, "wide", &types);
}

/// More parameters than a Cranelift signature takes is an error at the function,
/// not Cranelift's verifier output.
#[test]
fn a_function_of_too_many_arguments_is_refused_with_a_message() {
    let params: Vec<String> = (0..65536).map(|i| format!("%a{i}: i32")).collect();
    let text = format!(
        "func.func @huge({}) -> i32 {{\n  return %a0 : i32\n}}\n",
        params.join(", ")
    );
    let mut ctx = acc_dialects::new_context();
    let ir = parse(&mut ctx, &text);
    let Err(e) = JitModule::compile(&ctx, &ir) else {
        panic!("65536 arguments compiled");
    };
    assert!(
        e.message
            .contains("takes 65537 arguments and result buffers: native code takes at most 65535"),
        "{}",
        e.message
    );
}
