//! `acc-translate --emit-c` on the example models (examples/onnx: an MLP, a CNN with
//! batch norm and a residual add, LeNet-5 with tanh): imported, lowered to scalar
//! loops with a static memory plan, written as C, compiled by gcc with a small driver,
//! run, and compared bit for bit with the interpreter running the same loops, and
//! within 1e-5 with onnxruntime's reference output. The C needs nothing beyond
//! stdint.h and string.h (no malloc, no math library). Bad input writes nothing.

use std::path::Path;
use std::process::Command;

mod support;
use support::{bits, compile_and_run, driver, examples, floats, run, write_input};

/// Scalar loops in a static arena, exp/erf/tanh as polynomials: what a
/// microcontroller without an OS or a math library can run.
const C_PIPELINE: &str = "canonicalize,graph-to-tensor,bufferize,fuse-parallel,emulate-narrow-floats,math-approximation,buffer-deallocation,memory-plan";

#[test]
fn example_models_as_c_match_the_interpreter_bit_for_bit() {
    let dir = tempfile::tempdir().expect("a directory");
    let vectorized = format!("{C_PIPELINE},vectorize");
    let runs = ["mlp", "cnn", "lenet5"]
        .into_iter()
        .flat_map(|m| [(m, C_PIPELINE, ""), (m, vectorized.as_str(), "-vectors")]);
    for (model, pipeline, variant) in runs {
        let d = dir.path().join(format!("{model}{variant}"));
        std::fs::create_dir_all(&d).expect("a directory");
        let ir = d.join("model.mlir");
        let loops = d.join("loops.mlir");
        let input = examples().join(format!("{model}.input0.npy"));
        run(Command::new(env!("CARGO_BIN_EXE_acc-translate"))
            .arg("--import-onnx")
            .arg(examples().join(format!("{model}.onnx")))
            .arg("-o")
            .arg(&ir));
        // (The passes are checked against the interpreter in their own tests; here
        // the reference output checks the whole chain.)
        run(Command::new(env!("CARGO_BIN_EXE_acc-opt"))
            .args(["--pass", pipeline])
            .arg(&ir)
            .arg("-o")
            .arg(&loops));
        run(Command::new(env!("CARGO_BIN_EXE_acc-translate"))
            .arg("--emit-c")
            .arg(&loops)
            .arg("-o")
            .arg(d.join("c")));
        let source = std::fs::read_to_string(d.join("c/model.c")).expect("model.c");
        let includes: Vec<&str> = source
            .lines()
            .filter(|l| l.starts_with("#include"))
            .collect();
        assert_eq!(
            includes,
            [
                "#include <stdint.h>",
                "#include <string.h>",
                "#include \"model.h\"",
                "#include \"weights.h\""
            ],
            "{model}"
        );
        assert!(!source.contains("malloc"), "{model}");
        // `vectorize`'s loops are GNU C vectors of 4 lanes (the host's 128 bits).
        assert_eq!(
            source.contains("__attribute__((vector_size(16)))"),
            !variant.is_empty(),
            "{model}{variant}"
        );
        // The interpreter on the same loops, and the reference.
        let interp = d.join("interp.npy");
        run(Command::new(env!("CARGO_BIN_EXE_acc-run"))
            .arg(&loops)
            .arg("--input")
            .arg(format!("0={}", input.display()))
            .arg("-o")
            .arg(&interp));
        let (x, want) = (floats(&input), floats(&interp));
        write_input(&d, &[x.len()], &x);
        let got = compile_and_run(&d, &driver(x.len(), want.len()), &[]);
        assert_eq!(got, bits(&want), "{model}: C and the interpreter differ");
        let got: Vec<f32> = got.into_iter().map(f32::from_bits).collect();
        let reference = floats(&examples().join(format!("{model}.output0.npy")));
        for (g, r) in got.iter().zip(&reference) {
            assert!(
                (g - r).abs() <= 1e-5 * (1.0 + r.abs()),
                "{model}: {g} vs {r}"
            );
        }
    }
}

#[test]
fn code_the_c_back_end_cannot_take_is_an_error_and_writes_nothing() {
    let dir = tempfile::tempdir().expect("a directory");
    let cases = [
        (
            "unplanned.mlir",
            "func.func @f(%x: memref<4xf32>) -> memref<4xf32> {\n  %t = loop.alloc() : memref<4xf32>\n  loop.copy %x, %t : memref<4xf32> to memref<4xf32>\n  %r = loop.alloc() : memref<4xf32>\n  loop.copy %t, %r : memref<4xf32> to memref<4xf32>\n  return %r : memref<4xf32>\n}\n",
            "a buffer without a place: run memory-plan first",
        ),
        (
            "vector.mlir",
            "func.func @f(%x: memref<4xf32>) -> memref<4xf32> {\n  %c0 = arith.constant 0 : index\n  %v = loop.vload %x[%c0] : memref<4xf32>, vector<3xf32>\n  %r = loop.alloc() : memref<4xf32>\n  loop.vstore %v, %r[%c0] : memref<4xf32>, vector<3xf32>\n  return %r : memref<4xf32>\n}\n",
            "vectors of one dimension, a power of two of lanes",
        ),
    ];
    for (file, text, message) in cases {
        let path = dir.path().join(file);
        std::fs::write(&path, text).expect("write");
        let out_dir = dir.path().join(format!("{file}.c"));
        let out = Command::new(env!("CARGO_BIN_EXE_acc-translate"))
            .arg("--emit-c")
            .arg(&path)
            .arg("-o")
            .arg(&out_dir)
            .output()
            .expect("runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains(message), "{err}");
        assert!(err.contains(&format!("{file}:")), "a location: {err}");
        assert!(!out_dir.exists(), "{file}: nothing written");
    }
}

/// Scalar semantics at their edges, C against the interpreter bit for bit: the
/// negation of a negative constant, sign-extended booleans, NaN through maximumf
/// (the quiet NaN), an i64 rounded once to f32, rsqrt and the C library's functions
/// computed in double and rounded once, floor and roundeven, and a conversion to
/// an integer (toward zero).
const EDGES: &str = r#"
func.func @edges(%x: memref<4xf32>) -> memref<10xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %out = loop.alloc() : memref<10xf32>
  %x0 = loop.load %x[%c0] : memref<4xf32>
  %x1 = loop.load %x[%c1] : memref<4xf32>
  %x2 = loop.load %x[%c2] : memref<4xf32>
  %a = arith.constant -1.5 : f32
  %n = arith.negf %a : f32
  %t = arith.constant true
  %e = arith.extsi %t : i1 to i32
  %ef = arith.sitofp %e : i32 to f32
  %z = arith.constant 0.0 : f32
  %q = arith.divf %z, %z : f32
  %m = arith.maximumf %q, %x0 : f32
  %big = arith.constant 1152921573326323713 : i64
  %bf = arith.sitofp %big : i64 to f32
  %ax = math.absf %x1 : f32
  %r = math.rsqrt %ax : f32
  %fl = math.floor %x2 : f32
  %re = math.roundeven %x2 : f32
  %hi = arith.fptosi %x1 : f32 to i32
  %hf = arith.sitofp %hi : i32 to f32
  %ex = math.exp %x1 : f32
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c9 = arith.constant 9 : index
  loop.store %n, %out[%c0] : memref<10xf32>
  loop.store %ef, %out[%c1] : memref<10xf32>
  loop.store %m, %out[%c2] : memref<10xf32>
  loop.store %bf, %out[%c3] : memref<10xf32>
  loop.store %r, %out[%c4] : memref<10xf32>
  loop.store %fl, %out[%c5] : memref<10xf32>
  loop.store %re, %out[%c6] : memref<10xf32>
  loop.store %hf, %out[%c7] : memref<10xf32>
  loop.store %ex, %out[%c8] : memref<10xf32>
  loop.store %x0, %out[%c9] : memref<10xf32>
  return %out : memref<10xf32>
}
"#;

#[test]
fn scalar_edge_cases_match_the_interpreter_bit_for_bit() {
    let dir = tempfile::tempdir().expect("a directory");
    let d = dir.path();
    std::fs::write(d.join("edges.mlir"), EDGES).expect("write");
    let x: [f32; 4] = [0.25, -2.7, -2.5, 1.0];
    write_input(d, &[4], &x);
    run(Command::new(env!("CARGO_BIN_EXE_acc-run"))
        .current_dir(d)
        .args(["edges.mlir", "--input", "0=x.npy", "-o", "interp.npy"]));
    run(Command::new(env!("CARGO_BIN_EXE_acc-translate"))
        .current_dir(d)
        .args(["--emit-c", "edges.mlir", "-o", "c"]));
    let want = floats(&d.join("interp.npy"));
    let driver = driver(4, 10).replace("acc_main(x, y)", "edges(x, y)");
    let got = compile_and_run(d, &driver, &["-lm"]);
    assert_eq!(got, bits(&want));
    // The values themselves: -(-1.5), sext(true) = -1, the quiet NaN, 2^60 once
    // rounded, floor(-2.5) = -3, roundeven(-2.5) = -2, -2.7 toward zero.
    assert_eq!(f32::from_bits(got[0]), 1.5);
    assert_eq!(f32::from_bits(got[1]), -1.0);
    assert_eq!(got[2], 0x7fc0_0000);
    assert_eq!(f32::from_bits(got[3]), 1_152_921_573_326_323_713_i64 as f32);
    assert_eq!(f32::from_bits(got[5]), -3.0);
    assert_eq!(f32::from_bits(got[6]), -2.0);
    assert_eq!(f32::from_bits(got[7]), -2.0);
}

/// Loops whose induction variable would step past INT64_MAX, with steps read from
/// the input: `out[0]` counts a `loop.parallel`'s iterations, `out[1]` a
/// `loop.for`'s, `out[2]` a parallel loop's of constant step 5.
const NEAR_MAX: &str = r#"
func.func @near_max(%x: memref<4xf32>) -> memref<3xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %lb = arith.constant 9223372036854775797 : index
  %ub = arith.constant 9223372036854775807 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %out = loop.alloc() : memref<3xf32>
  loop.store %zero, %out[%c0] : memref<3xf32>
  loop.store %zero, %out[%c1] : memref<3xf32>
  loop.store %zero, %out[%c2] : memref<3xf32>
  %x0 = loop.load %x[%c0] : memref<4xf32>
  %s0 = arith.fptosi %x0 : f32 to i64
  %step0 = arith.index_cast %s0 : i64 to index
  loop.parallel (%i) = (%lb) to (%ub) step (%step0) {
    %n = loop.load %out[%c0] : memref<3xf32>
    %m = arith.addf %n, %one : f32
    loop.store %m, %out[%c0] : memref<3xf32>
    loop.yield
  }
  %x1 = loop.load %x[%c1] : memref<4xf32>
  %s1 = arith.fptosi %x1 : f32 to i64
  %step1 = arith.index_cast %s1 : i64 to index
  loop.for %i = %lb to %ub step %step1 {
    %n = loop.load %out[%c1] : memref<3xf32>
    %m = arith.addf %n, %one : f32
    loop.store %m, %out[%c1] : memref<3xf32>
    loop.yield
  }
  loop.parallel (%i) = (%lb) to (%ub) step (%c5) {
    %n = loop.load %out[%c2] : memref<3xf32>
    %m = arith.addf %n, %one : f32
    loop.store %m, %out[%c2] : memref<3xf32>
    loop.yield
  }
  return %out : memref<3xf32>
}
"#;

/// The C of [`NEAR_MAX`] ends each loop after its last iteration below the bound (no
/// signed overflow, no endless loop), as the interpreter counts; steps of 0 and -2
/// run no iteration (the interpreter refuses them) instead of forever.
#[test]
fn loops_stepping_past_int64_max_or_by_zero_end_in_c() {
    let dir = tempfile::tempdir().expect("a directory");
    let d = dir.path();
    std::fs::write(d.join("near_max.mlir"), NEAR_MAX).expect("write");
    run(Command::new(env!("CARGO_BIN_EXE_acc-translate"))
        .current_dir(d)
        .args(["--emit-c", "near_max.mlir", "-o", "c"]));
    let driver = driver(4, 3).replace("acc_main(x, y)", "near_max(x, y)");
    // Steps 3 and 4 from MAX - 10: 4 and 3 iterations; 5: 2.
    write_input(d, &[4], &[3.0, 4.0, 0.0, 0.0]);
    run(Command::new(env!("CARGO_BIN_EXE_acc-run"))
        .current_dir(d)
        .args(["near_max.mlir", "--input", "0=x.npy", "-o", "interp.npy"]));
    let want = floats(&d.join("interp.npy"));
    assert_eq!(want, [4.0, 3.0, 2.0]);
    assert_eq!(compile_and_run(d, &driver, &[]), bits(&want));
    write_input(d, &[4], &[0.0, -2.0, 0.0, 0.0]);
    let got = compile_and_run(d, &driver, &[]);
    assert_eq!(got, bits(&[0.0, 0.0, 2.0]));
}

/// Reductions along rows of 64 (a softmax's max and sum, a mean) and a
/// convolution's sums, which `vectorize` carries in vectors and folds with
/// `loop.vreduce`.
const REDUCTIONS: &str = r#"
func.func @main(%x: tensor<4x64xf32>) -> (tensor<4x64xf32>, tensor<4x1xf32>) {
  %s = graph.softmax %x {axis = 1 : i64} : tensor<4x64xf32>
  %m = graph.reduce_mean %x {axes = array<i64: 1>, keepdims = true} : (tensor<4x64xf32>) -> tensor<4x1xf32>
  return %s, %m : tensor<4x64xf32>, tensor<4x1xf32>
}
"#;

#[test]
fn vectorized_reductions_as_c_match_the_interpreter_bit_for_bit() {
    let dir = tempfile::tempdir().expect("a directory");
    let d = dir.path();
    std::fs::write(d.join("r.mlir"), REDUCTIONS).expect("write");
    run(Command::new(env!("CARGO_BIN_EXE_acc-opt"))
        .current_dir(d)
        .args(["--check-semantics", "--pass"])
        .arg(format!("{C_PIPELINE},vectorize"))
        .args(["r.mlir", "-o", "loops.mlir"]));
    let loops = std::fs::read_to_string(d.join("loops.mlir")).expect("loops");
    assert!(loops.contains("loop.vreduce"), "{loops}");
    run(Command::new(env!("CARGO_BIN_EXE_acc-translate"))
        .current_dir(d)
        .args(["--emit-c", "loops.mlir", "-o", "c"]));
    let x: Vec<f32> = (0..256)
        .map(|i| ((i * 37 % 101) as f32 - 50.0) * 0.173)
        .collect();
    write_input(d, &[4, 64], &x);
    run(Command::new(env!("CARGO_BIN_EXE_acc-run"))
        .current_dir(d)
        .args([
            "loops.mlir",
            "--input",
            "0=x.npy",
            "--output",
            "out0.npy",
            "--output",
            "out1.npy",
        ]));
    let mut want = floats(&d.join("out0.npy"));
    want.extend(floats(&d.join("out1.npy")));
    // The softmax's 256 values, then the 4 means.
    let driver = driver(256, 260).replace("acc_main(x, y)", "acc_main(x, y, y + 256)");
    let got = compile_and_run(d, &driver, &["-lm"]);
    assert_eq!(got, bits(&want), "C and the interpreter differ");
}

/// Arithmetic on i4 and i2 (kept sign-extended in an int8_t): wrapping sums and
/// products, truncation, sign and zero extension, unsigned comparison and shift, and
/// conversions from floats, each stored as f32.
const NARROW: &str = r#"
func.func @narrow(%x: memref<4xf32>) -> memref<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %out = loop.alloc() : memref<8xf32>
  %x0 = loop.load %x[%c0] : memref<4xf32>
  %x1 = loop.load %x[%c1] : memref<4xf32>
  %i0 = arith.fptosi %x0 : f32 to i32
  %i1 = arith.fptosi %x1 : f32 to i32
  %a = arith.trunci %i0 : i32 to i4
  %b = arith.trunci %i1 : i32 to i4
  %sum = arith.addi %a, %b : i4
  %prod = arith.muli %a, %b : i4
  %two = arith.trunci %i0 : i32 to i2
  %zx = arith.extui %a : i4 to i32
  %lt = arith.cmpi ult, %a, %b : i4
  %one = arith.constant 1 : i4
  %sh = arith.shrui %a, %one : i4
  %sat = arith.fptosi %x1 : f32 to i4
  %f0 = arith.sitofp %sum : i4 to f32
  %f1 = arith.sitofp %prod : i4 to f32
  %f2 = arith.sitofp %two : i2 to f32
  %f3 = arith.sitofp %zx : i32 to f32
  %l = arith.extui %lt : i1 to i32
  %f4 = arith.sitofp %l : i32 to f32
  %f5 = arith.sitofp %sh : i4 to f32
  %f6 = arith.sitofp %sat : i4 to f32
  %f7 = arith.uitofp %b : i4 to f32
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  loop.store %f0, %out[%c0] : memref<8xf32>
  loop.store %f1, %out[%c1] : memref<8xf32>
  loop.store %f2, %out[%c2] : memref<8xf32>
  loop.store %f3, %out[%c3] : memref<8xf32>
  loop.store %f4, %out[%c4] : memref<8xf32>
  loop.store %f5, %out[%c5] : memref<8xf32>
  loop.store %f6, %out[%c6] : memref<8xf32>
  loop.store %f7, %out[%c7] : memref<8xf32>
  return %out : memref<8xf32>
}
"#;

#[test]
fn narrow_integers_match_the_interpreter_bit_for_bit() {
    let dir = tempfile::tempdir().expect("a directory");
    let d = dir.path();
    std::fs::write(d.join("narrow.mlir"), NARROW).expect("write");
    // -3 and 6: as i4 -3 + 6 = 3, -3 * 6 = -18 wraps to -2, -3 as i2 is 1, -3 zero
    // extended from i4 is 13, 13 < 6 unsigned is false, 13 >> 1 = 6, 6.9 to i4 is 6,
    // 6 unsigned is 6.
    let mut want_exact = vec![3.0, -2.0, 1.0, 13.0, 0.0, 6.0, 6.0, 6.0];
    for (x, exact) in [
        ([-3.2f32, 6.9, 0.0, 0.0], true),
        ([7.5, -8.0, 0.0, 0.0], false),
    ] {
        write_input(d, &[4], &x);
        run(Command::new(env!("CARGO_BIN_EXE_acc-run"))
            .current_dir(d)
            .args(["narrow.mlir", "--input", "0=x.npy", "-o", "interp.npy"]));
        run(Command::new(env!("CARGO_BIN_EXE_acc-translate"))
            .current_dir(d)
            .args(["--emit-c", "narrow.mlir", "-o", "c"]));
        let want = floats(&d.join("interp.npy"));
        let driver = driver(4, 8).replace("acc_main(x, y)", "narrow(x, y)");
        let got = compile_and_run(d, &driver, &[]);
        assert_eq!(got, bits(&want), "{x:?}");
        if exact {
            assert_eq!(want, std::mem::take(&mut want_exact));
        }
    }
}

/// Writes `text` as `name` in `d`, lowers it with `C_PIPELINE` under
/// `--check-semantics` into `loops.mlir`, and writes its C into `d/c`; the loops' IR.
fn lower_to_c(d: &Path, name: &str, text: &str) -> String {
    std::fs::write(d.join(name), text).expect("write");
    run(Command::new(env!("CARGO_BIN_EXE_acc-opt"))
        .current_dir(d)
        .args([
            "--check-semantics",
            "--pass",
            C_PIPELINE,
            name,
            "-o",
            "loops.mlir",
        ]));
    run(Command::new(env!("CARGO_BIN_EXE_acc-translate"))
        .current_dir(d)
        .args(["--emit-c", "loops.mlir", "-o", "c"]));
    std::fs::read_to_string(d.join("loops.mlir")).expect("loops")
}

/// Unsigned integers (ONNX's uint8..uint64) where signed arithmetic would differ:
/// values of 128 and above divided, compared, max pooled, reduced, averaged and
/// sorted, with a `ui8` constant. Below the graph level they are signless integers
/// with the unsigned ops.
const UNSIGNED: &str = r#"
func.func @main(%x: tensor<8xf32>) -> tensor<41xf32> {
  %u = graph.cast %x : tensor<8xf32> to tensor<8xui8>
  %k = graph.constant dense<[7, 200, 3, 129, 2, 250, 9, 1]> : tensor<8xui8>
  %q = graph.div %u, %k : (tensor<8xui8>, tensor<8xui8>) -> tensor<8xui8>
  %mx = graph.max %u, %k : (tensor<8xui8>, tensor<8xui8>) -> tensor<8xui8>
  %mn = graph.min %u, %k : (tensor<8xui8>, tensor<8xui8>) -> tensor<8xui8>
  %lt = graph.less %u, %k : (tensor<8xui8>, tensor<8xui8>) -> tensor<8xi1>
  %l8 = graph.cast %lt : tensor<8xi1> to tensor<8xui8>
  %u4 = graph.reshape %u {shape = array<i64: 1, 1, 2, 4>} : (tensor<8xui8>) -> tensor<1x1x2x4xui8>
  %p4 = graph.max_pool %u4 {kernel_shape = array<i64: 2, 2>} : (tensor<1x1x2x4xui8>) -> tensor<1x1x1x3xui8>
  %p = graph.reshape %p4 {shape = array<i64: 3>} : (tensor<1x1x1x3xui8>) -> tensor<3xui8>
  %u2 = graph.reshape %u {shape = array<i64: 2, 4>} : (tensor<8xui8>) -> tensor<2x4xui8>
  %rm = graph.reduce_max %u2 {axes = array<i64: 1>, keepdims = false} : (tensor<2x4xui8>) -> tensor<2xui8>
  %t:2 = graph.topk %u {k = 3 : i64} : (tensor<8xui8>) -> (tensor<3xui8>, tensor<3xi64>)
  %mean = graph.reduce_mean %u : (tensor<8xui8>) -> tensor<1xui8>
  %all = graph.concat %q, %mx, %mn, %l8, %p, %rm, %t#0, %mean {axis = 0 : i64} : (tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<3xui8>, tensor<2xui8>, tensor<3xui8>, tensor<1xui8>) -> tensor<41xui8>
  %y = graph.cast %all : tensor<41xui8> to tensor<41xf32>
  return %y : tensor<41xf32>
}
"#;

#[test]
fn unsigned_integers_in_c_and_native_code_match_the_interpreter() {
    let dir = tempfile::tempdir().expect("a directory");
    let d = dir.path();
    let loops = lower_to_c(d, "unsigned.mlir", UNSIGNED);
    assert!(loops.contains("arith.divui"), "{loops}");
    let x = [200.0f32, 3.0, 130.0, 255.0, 7.0, 128.0, 90.0, 1.0];
    write_input(d, &[8], &x);
    run(Command::new(env!("CARGO_BIN_EXE_acc-run"))
        .current_dir(d)
        .args(["unsigned.mlir", "--input", "0=x.npy", "-o", "graph.npy"]));
    let want = floats(&d.join("graph.npy"));
    // numpy's uint8 results: x // k, maximum, minimum, x < k, the 2x2 max pool, the
    // row maxima, the three largest, and the mean 814 // 8.
    let numpy: Vec<f32> = [
        28, 0, 43, 1, 3, 0, 10, 1, 200, 200, 130, 255, 7, 250, 90, 1, 7, 3, 3, 129, 2, 128, 9, 1,
        0, 1, 0, 0, 0, 1, 0, 0, 200, 130, 255, 255, 128, 255, 200, 130, 101,
    ]
    .iter()
    .map(|v| *v as f32)
    .collect();
    assert_eq!(want, numpy);
    let got = compile_and_run(d, &driver(8, 41), &[]);
    assert_eq!(got, bits(&want), "C");
    assert_eq!(run_jit(d, "unsigned.mlir"), want, "native code");
}

/// The output of `file` (in `d`) run on `x.npy` as native code: the host pipeline in
/// JIT mode.
fn run_jit(d: &Path, file: &str) -> Vec<f32> {
    run(Command::new(env!("CARGO_BIN_EXE_acc-run"))
        .current_dir(d)
        .args([file, "--mode", "jit", "--pipeline", "host-pipeline"])
        .args(["--input", "0=x.npy", "-o", "jit.npy"]));
    floats(&d.join("jit.npy"))
}

/// Remainders (numpy.mod and C's fmod, integers and floats), shifts by amounts at and
/// beyond the width and negative ones, bit operations on signed and unsigned bytes,
/// and an integer power: ONNX's Mod, BitShift, Bitwise* and Pow.
const BITS: &str = r#"
func.func @main(%x: tensor<8xf32>) -> tensor<88xf32> {
  %i = graph.cast %x : tensor<8xf32> to tensor<8xi32>
  %d = graph.constant dense<[3, -3, 4, -5, 2, -7, 9, -1]> : tensor<8xi32>
  %m = graph.mod %i, %d : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  %f = graph.fmod %i, %d : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  %fd = graph.constant dense<[2.5, -2.5, 3.0, -4.0, 0.5, -1.0, 7.0, 3.0]> : tensor<8xf32>
  %mf = graph.mod %x, %fd : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %ff = graph.fmod %x, %fd : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %a = graph.cast %x : tensor<8xf32> to tensor<8xi8>
  %s = graph.constant dense<[1, 7, 8, -1, 3, 0, 1, 2]> : tensor<8xi8>
  %l = graph.shift_left %a, %s : (tensor<8xi8>, tensor<8xi8>) -> tensor<8xi8>
  %r = graph.shift_right %a, %s : (tensor<8xi8>, tensor<8xi8>) -> tensor<8xi8>
  %ax = graph.abs %x : tensor<8xf32>
  %u = graph.cast %ax : tensor<8xf32> to tensor<8xui8>
  %su = graph.constant dense<[1, 7, 8, 9, 3, 0, 255, 6]> : tensor<8xui8>
  %ur = graph.shift_right %u, %su : (tensor<8xui8>, tensor<8xui8>) -> tensor<8xui8>
  %ux = graph.bitwise_xor %u, %su : (tensor<8xui8>, tensor<8xui8>) -> tensor<8xui8>
  %n = graph.bitwise_not %a : tensor<8xi8>
  %an = graph.bitwise_and %a, %s : (tensor<8xi8>, tensor<8xi8>) -> tensor<8xi8>
  %e = graph.constant dense<[0, 1, 2, 3, 5, 7, 2, 3]> : tensor<8xi32>
  %p = graph.pow %i, %e : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  %c0 = graph.cast %m : tensor<8xi32> to tensor<8xf32>
  %c1 = graph.cast %f : tensor<8xi32> to tensor<8xf32>
  %c4 = graph.cast %l : tensor<8xi8> to tensor<8xf32>
  %c5 = graph.cast %r : tensor<8xi8> to tensor<8xf32>
  %c6 = graph.cast %ur : tensor<8xui8> to tensor<8xf32>
  %c7 = graph.cast %ux : tensor<8xui8> to tensor<8xf32>
  %c8 = graph.cast %n : tensor<8xi8> to tensor<8xf32>
  %c9 = graph.cast %an : tensor<8xi8> to tensor<8xf32>
  %c10 = graph.cast %p : tensor<8xi32> to tensor<8xf32>
  %y = graph.concat %c0, %c1, %mf, %ff, %c4, %c5, %c6, %c7, %c8, %c9, %c10 {axis = 0 : i64} : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<88xf32>
  return %y : tensor<88xf32>
}
"#;

#[test]
fn remainders_shifts_and_bit_operations_in_c_and_native_code_match_numpy() {
    let dir = tempfile::tempdir().expect("a directory");
    let d = dir.path();
    let loops = lower_to_c(d, "bits.mlir", BITS);
    for op in [
        "arith.remsi",
        "arith.remf",
        "arith.shli",
        "arith.shrsi",
        "arith.shrui",
    ] {
        assert!(loops.contains(op), "{op}: {loops}");
    }
    let x = [-7.0f32, 7.0, -6.5, 13.0, -1.0, 0.0, 100.0, -128.0];
    write_input(d, &[8], &x);
    run(Command::new(env!("CARGO_BIN_EXE_acc-run"))
        .current_dir(d)
        .args(["bits.mlir", "--input", "0=x.npy", "-o", "graph.npy"]));
    let want = floats(&d.join("graph.npy"));
    // numpy's results (int32, float32, int8 and uint8 arrays): mod, fmod, mod and
    // fmod of floats (signed zeros included), the shifts as ONNX's reference computes
    // them (an amount at the width or beyond, or negative, shifts every bit out),
    // xor, invert, and, and power.
    let numpy: [f32; 88] = [
        2.0, -2.0, 2.0, -2.0, 1.0, 0.0, 1.0, 0.0, -1.0, 1.0, -2.0, 3.0, -1.0, 0.0, 1.0, 0.0, 0.5,
        -0.5, 2.5, -3.0, 0.0, -0.0, 2.0, 1.0, -2.0, 2.0, -0.5, 1.0, -0.0, 0.0, 2.0, -2.0, -14.0,
        -128.0, 0.0, 0.0, -8.0, 0.0, -56.0, 0.0, -4.0, 0.0, -1.0, 0.0, -1.0, 0.0, 50.0, -32.0, 3.0,
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 6.0, 0.0, 14.0, 4.0, 2.0, 0.0, 155.0, 134.0, 6.0, -8.0,
        5.0, -14.0, 0.0, -1.0, -101.0, 127.0, 1.0, 7.0, 8.0, 13.0, 3.0, 0.0, 0.0, 0.0, 1.0, 7.0,
        36.0, 2197.0, -1.0, 0.0, 10000.0, -2097152.0,
    ];
    assert_eq!(bits(&want), bits(&numpy), "the interpreter");
    let got = compile_and_run(d, &driver(8, 88), &["-lm"]);
    assert_eq!(got, bits(&want), "C");
    assert_eq!(bits(&run_jit(d, "bits.mlir")), bits(&want), "native code");
}

/// A half-precision network: an f16 convolution (computed in f32, rounded once), a
/// SiLU and a multiply in f16, then a bf16 add, between casts from and to f32.
fn half_model() -> String {
    let w: Vec<String> = (0..54)
        .map(|i| format!("{:.3}", (((i * 37) % 29) as f32 - 14.0) / 17.0))
        .collect();
    format!(
        r#"func.func @main(%x: tensor<1x2x5x5xf32>) -> tensor<1x3x3x3xf32> {{
  %h = graph.cast %x : tensor<1x2x5x5xf32> to tensor<1x2x5x5xf16>
  %wf = graph.constant dense<[{w}]> : tensor<54xf16>
  %w = graph.reshape %wf {{shape = array<i64: 3, 2, 3, 3>}} : (tensor<54xf16>) -> tensor<3x2x3x3xf16>
  %c = graph.conv2d %h, %w : (tensor<1x2x5x5xf16>, tensor<3x2x3x3xf16>) -> tensor<1x3x3x3xf16>
  %s = graph.sigmoid %c : tensor<1x3x3x3xf16>
  %m = graph.mul %c, %s : (tensor<1x3x3x3xf16>, tensor<1x3x3x3xf16>) -> tensor<1x3x3x3xf16>
  %b = graph.cast %m : tensor<1x3x3x3xf16> to tensor<1x3x3x3xbf16>
  %k = graph.constant dense<0.3> : tensor<1x3x3x3xbf16>
  %a = graph.add %b, %k : (tensor<1x3x3x3xbf16>, tensor<1x3x3x3xbf16>) -> tensor<1x3x3x3xbf16>
  %y = graph.cast %a : tensor<1x3x3x3xbf16> to tensor<1x3x3x3xf32>
  return %y : tensor<1x3x3x3xf32>
}}
"#,
        w = w.join(", ")
    )
}

#[test]
fn half_precision_as_c_and_native_code_matches_the_interpreter() {
    let dir = tempfile::tempdir().expect("a directory");
    let d = dir.path();
    let loops = lower_to_c(d, "half.mlir", &half_model());
    assert!(loops.contains(" f16") && loops.contains(" bf16"), "{loops}");
    assert!(loops.contains("arith.truncf"), "{loops}");
    let x: Vec<f32> = (0..50).map(|i| ((i as f32) * 0.73).sin() * 3.0).collect();
    write_input(d, &[1, 2, 5, 5], &x);
    run(Command::new(env!("CARGO_BIN_EXE_acc-run"))
        .current_dir(d)
        .args(["loops.mlir", "--input", "0=x.npy", "-o", "loops.npy"]));
    let want = floats(&d.join("loops.npy"));
    let got = compile_and_run(d, &driver(50, 27), &[]);
    assert_eq!(got, bits(&want), "C");
    // Every result is a bf16 (its low 16 bits zero), and they differ.
    assert!(got.iter().all(|b| b & 0xffff == 0), "{got:?}");
    let distinct: std::collections::BTreeSet<u32> = got.iter().copied().collect();
    assert!(distinct.len() > 10, "{got:?}");
    let host = Path::new(env!("CARGO_MANIFEST_DIR")).join("../lowering/runtime/host.acc");
    run(Command::new(env!("CARGO_BIN_EXE_acc-run"))
        .current_dir(d)
        .args(["half.mlir", "--mode", "jit", "--pipeline", "host-pipeline"])
        .arg("--target")
        .arg(&host)
        .args(["--input", "0=x.npy", "-o", "jit.npy"]));
    run(Command::new(env!("CARGO_BIN_EXE_acc-run"))
        .current_dir(d)
        .args(["half.mlir", "--input", "0=x.npy", "-o", "graph.npy"]));
    // The graph rounds its exponential once; the polynomial may end an f16 unit
    // away, which the bf16 add then rounds away or keeps.
    let (jit, graph) = (floats(&d.join("jit.npy")), floats(&d.join("graph.npy")));
    assert_eq!(jit.len(), graph.len());
    for (a, b) in jit.iter().zip(&graph) {
        assert!(
            (a - b).abs() <= 2f32.powi(-6) * (1.0 + b.abs()),
            "{a} vs {b}"
        );
    }
}

/// f32 values at rounding boundaries of f16 and bf16 (every seventh finite value
/// of each, the tie to its successor and the f32 neighbours of the tie, both signs),
/// then overflow, underflow, infinities and signed zeros.
fn half_boundaries() -> Vec<f32> {
    let mut out = Vec::new();
    for (kind, last) in [
        (acc_ir::FloatKind::F16, 0x7bffu32),
        (acc_ir::FloatKind::BF16, 0x7f7f),
    ] {
        for bits in (0..last).step_by(7) {
            let v = acc_ir::elements::float_from_bits(u128::from(bits), kind) as f32;
            let next = acc_ir::elements::float_from_bits(u128::from(bits + 1), kind) as f32;
            // The tie is exact in f32 (at most 12 significant bits).
            let tie = (f64::from(v) + f64::from(next)) as f32 / 2.0;
            for x in [
                v,
                tie,
                f32::from_bits(tie.to_bits() + 1),
                f32::from_bits(tie.to_bits().saturating_sub(1)),
            ] {
                out.extend([x, -x]);
            }
        }
    }
    out.extend([
        65504.0,
        65519.996,
        65520.0,
        f32::MAX,
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        2.9802322e-8,
        2.9802326e-8,
        1e-40,
    ]);
    out
}

/// The C conversions to and from f16 and bf16 (prelude.h) on every rounding
/// boundary: each value narrowed to both formats and widened back, bit-equal to
/// the interpreter.
#[test]
fn half_precision_conversions_in_c_match_the_interpreter_exactly() {
    let x = half_boundaries();
    let n = x.len();
    let text = format!(
        r#"func.func @main(%x: memref<{n}xf32>) -> memref<{m}xf32> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant {n} : index
  %y = loop.alloc() : memref<{m}xf32>
  loop.for %i = %c0 to %n step %c1 {{
    %v = loop.load %x[%i] : memref<{n}xf32>
    %h = arith.truncf %v : f32 to f16
    %b = arith.truncf %v : f32 to bf16
    %hw = arith.extf %h : f16 to f32
    %bw = arith.extf %b : bf16 to f32
    %j = arith.addi %i, %n : index
    loop.store %hw, %y[%i] : memref<{m}xf32>
    loop.store %bw, %y[%j] : memref<{m}xf32>
    loop.yield
  }}
  return %y : memref<{m}xf32>
}}
"#,
        m = 2 * n
    );
    let dir = tempfile::tempdir().expect("a directory");
    let d = dir.path();
    std::fs::write(d.join("convert.mlir"), text).expect("write");
    run(Command::new(env!("CARGO_BIN_EXE_acc-translate"))
        .current_dir(d)
        .args(["--emit-c", "convert.mlir", "-o", "c"]));
    write_input(d, &[n], &x);
    run(Command::new(env!("CARGO_BIN_EXE_acc-run"))
        .current_dir(d)
        .args(["convert.mlir", "--input", "0=x.npy", "-o", "want.npy"]));
    let want = floats(&d.join("want.npy"));
    assert_eq!(want.len(), 2 * n);
    let got = compile_and_run(d, &driver(n, 2 * n), &[]);
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        let same = *g == w.to_bits() || (f32::from_bits(*g).is_nan() && w.is_nan());
        assert!(
            same,
            "element {i} (of {}): {:#x} instead of {:#x}",
            x[i % n],
            g,
            w.to_bits()
        );
    }
}

/// The C conversions to and from the floats of 8 bits and fewer (prelude.h): values
/// at every rounding boundary of each format narrowed to each and widened back, and
/// every pattern of the formats C can bitcast to (from `i8` and `i4`) widened,
/// bit-equal to the interpreter.
#[test]
fn small_float_conversions_in_c_match_the_interpreter_exactly() {
    use acc_ir::FloatKind;
    use acc_ir::minifloat::MiniFloat;
    let small: Vec<(&str, MiniFloat)> = FloatKind::ALL
        .iter()
        .filter_map(|(k, name)| MiniFloat::of(*k).map(|m| (*name, m)))
        .collect();
    let x: Vec<f32> = small
        .iter()
        .flat_map(|(_, m)| m.rounding_cases(1))
        .map(|v| v as f32)
        .collect();
    let n = x.len();
    let mut body = String::new();
    let mut slot = 0;
    for (name, m) in &small {
        if m.width() == 8 || m.width() == 4 {
            // Every pattern (the index's low bits) bitcast and widened.
            let bits = m.width();
            body += &format!(
                "    %p{slot} = arith.trunci %i64 : i64 to i{bits}\n    %k{slot} = arith.bitcast %p{slot} : i{bits} to {name}\n    %w{slot} = arith.extf %k{slot} : {name} to f32\n    %o{slot} = arith.addi %i, %base{slot} : index\n    loop.store %w{slot}, %y[%o{slot}] : memref<{{m}}xf32>\n"
            );
            slot += 1;
        }
        if m.non_finite == acc_ir::minifloat::NonFinite::ExponentOnly {
            continue;
        }
        body += &format!(
            "    %t{slot} = arith.truncf %v : f32 to {name}\n    %w{slot} = arith.extf %t{slot} : {name} to f32\n    %o{slot} = arith.addi %i, %base{slot} : index\n    loop.store %w{slot}, %y[%o{slot}] : memref<{{m}}xf32>\n"
        );
        slot += 1;
    }
    let m = slot * n;
    let bases: String = (0..slot)
        .map(|k| format!("  %base{k} = arith.constant {} : index\n", k * n))
        .collect();
    let body = body.replace("{m}", &m.to_string());
    let text = format!(
        r#"func.func @main(%x: memref<{n}xf32>) -> memref<{m}xf32> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant {n} : index
{bases}  %y = loop.alloc() : memref<{m}xf32>
  loop.for %i = %c0 to %n step %c1 {{
    %v = loop.load %x[%i] : memref<{n}xf32>
    %i64 = arith.index_cast %i : index to i64
{body}    loop.yield
  }}
  return %y : memref<{m}xf32>
}}
"#
    );
    let dir = tempfile::tempdir().expect("a directory");
    let d = dir.path();
    std::fs::write(d.join("convert.mlir"), text).expect("write");
    run(Command::new(env!("CARGO_BIN_EXE_acc-translate"))
        .current_dir(d)
        .args(["--emit-c", "convert.mlir", "-o", "c"]));
    write_input(d, &[n], &x);
    run(Command::new(env!("CARGO_BIN_EXE_acc-run"))
        .current_dir(d)
        .args(["convert.mlir", "--input", "0=x.npy", "-o", "want.npy"]));
    let want = floats(&d.join("want.npy"));
    assert_eq!(want.len(), m);
    let got = compile_and_run(d, &driver(n, m), &[]);
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        let same = *g == w.to_bits() || (f32::from_bits(*g).is_nan() && w.is_nan());
        assert!(
            same,
            "slot {}, element {} (of {}): {:#x} instead of {:#x}",
            i / n,
            i % n,
            x[i % n],
            g,
            w.to_bits()
        );
    }
}

/// An int8 network as a QDQ model gives it (quantize, a qconv2d with an i32 bias and
/// constant weights stored as i8 and cast to their quantized type, a qmatmul,
/// dequantize), as C: integer code bit for bit equal to the interpreter.
/// A quantized convolution and matrix product under requantization `scheme`
/// (`float` or `fixed_point`), the product's result of scale `out_scale`.
fn quantized_model(scheme: &str, out_scale: &str) -> String {
    let w: Vec<String> = (0..54)
        .map(|i| ((i * 37) % 255 - 127).to_string())
        .collect();
    let m: Vec<String> = (0..20)
        .map(|i| ((i * 53) % 200 - 100).to_string())
        .collect();
    format!(
        r#"func.func @main(%x: tensor<1x2x5x5xf32>) -> tensor<1x3x5x4xf32> {{
  %wi = graph.constant dense<[{w}]> : tensor<54xi8>
  %wr = graph.reshape %wi {{shape = array<i64: 3, 2, 3, 3>}} : (tensor<54xi8>) -> tensor<3x2x3x3xi8>
  %w4 = graph.storage_cast %wr : tensor<3x2x3x3xi8> to tensor<3x2x3x3x!quant.uniform<i8:f32, 2.000000e-02>>
  %b = graph.constant dense<[120, -340, 75]> : tensor<3xi32>
  %mi = graph.constant dense<[{m}]> : tensor<20xi8>
  %mr = graph.reshape %mi {{shape = array<i64: 5, 4>}} : (tensor<20xi8>) -> tensor<5x4xi8>
  %m2 = graph.storage_cast %mr : tensor<5x4xi8> to tensor<5x4x!quant.uniform<i8:f32, 4.000000e-02:1>>
  %q = graph.quantize %x : tensor<1x2x5x5xf32> to tensor<1x2x5x5x!quant.uniform<i8:f32, 1.000000e-02:-2>>
  %c = graph.qconv2d %q, %w4, %b {{pads = array<i64: 1, 1, 1, 1>, requant = #graph.requantization<{scheme}>}} : (tensor<1x2x5x5x!quant.uniform<i8:f32, 1.000000e-02:-2>>, tensor<3x2x3x3x!quant.uniform<i8:f32, 2.000000e-02>>, tensor<3xi32>) -> tensor<1x3x5x5x!quant.uniform<i8:f32, 3.000000e-01:3>>
  %p = graph.qmatmul %c, %m2 {{requant = #graph.requantization<{scheme}>}} : (tensor<1x3x5x5x!quant.uniform<i8:f32, 3.000000e-01:3>>, tensor<5x4x!quant.uniform<i8:f32, 4.000000e-02:1>>) -> tensor<1x3x5x4x!quant.uniform<i8:f32, {out_scale}>>
  %y = graph.dequantize %p : tensor<1x3x5x4x!quant.uniform<i8:f32, {out_scale}>> to tensor<1x3x5x4xf32>
  return %y : tensor<1x3x5x4xf32>
}}
"#,
        w = w.join(", "),
        m = m.join(", ")
    )
}

/// Both requantization schemes: the float one (the product's multiplier 0.006) and the
/// fixed-point one (multipliers 6.7e-4 and 0.024, right shifts by 10 and 5; left
/// shifts are in lit lowering/graph-to-tensor-fixed-point.mlir), as C and as
/// native code, bit for bit the interpreter's graph.
#[test]
fn a_quantized_network_as_c_matches_the_interpreter_bit_for_bit() {
    for (scheme, out_scale) in [("float", "2.000000e+00"), ("fixed_point", "5.000000e-01")] {
        let dir = tempfile::tempdir().expect("a directory");
        let d = dir.path();
        lower_to_c(d, "q.mlir", &quantized_model(scheme, out_scale));
        let x: Vec<f32> = (0..50).map(|i| ((i as f32) * 0.61).sin()).collect();
        write_input(d, &[1, 2, 5, 5], &x);
        run(Command::new(env!("CARGO_BIN_EXE_acc-run"))
            .current_dir(d)
            .args(["q.mlir", "--input", "0=x.npy", "-o", "graph.npy"]));
        let want = floats(&d.join("graph.npy"));
        let got = compile_and_run(d, &driver(50, 60), &[]);
        // The quantized lowerings are exact, so C equals the graph in the interpreter.
        assert_eq!(got, bits(&want), "{scheme}");
        assert_eq!(
            bits(&run_jit(d, "q.mlir")),
            bits(&want),
            "{scheme} natively"
        );
        let distinct: std::collections::BTreeSet<u32> = got.iter().copied().collect();
        assert!(distinct.len() > 10, "{scheme}: {got:?}");
        let weights = std::fs::read_to_string(d.join("c/weights.h")).expect("weights");
        assert!(
            weights.contains("static const int8_t"),
            "int8 weights: {weights}"
        );
    }
}

/// A residual block in both schemes: a convolution clamped as a fused ReLU6 would
/// clamp it, a quantized add of its input back, a product, an average pool keeping
/// the scale (CMSIS-NN's rounded average), a global one into another scale (a
/// multiplier per count), a requantize.
fn residual_model(scheme: &str) -> String {
    let w: Vec<String> = (0..36)
        .map(|i| ((i * 41) % 251 - 125).to_string())
        .collect();
    let q = |s: &str| format!("!quant.uniform<i8:f32, {s}>");
    let (x, c, a, m, g, r) = (
        q("1.000000e-02:-2"),
        q("3.000000e-02:3"),
        q("4.000000e-02:-1"),
        q("5.000000e-02"),
        q("2.000000e-02:4"),
        q("7.000000e-02:2"),
    );
    let rq = format!("requant = #graph.requantization<{scheme}>");
    format!(
        r#"func.func @main(%x: tensor<1x2x5x5xf32>) -> tensor<70xf32> {{
  %wi = graph.constant dense<[{w}]> : tensor<36xi8>
  %wr = graph.reshape %wi {{shape = array<i64: 2, 2, 3, 3>}} : (tensor<36xi8>) -> tensor<2x2x3x3xi8>
  %w4 = graph.storage_cast %wr : tensor<2x2x3x3xi8> to tensor<2x2x3x3x!quant.uniform<i8:f32:0, {{2.000000e-02, 7.000000e-03}}>>
  %b = graph.constant dense<[120, -340]> : tensor<2xi32>
  %q = graph.quantize %x : tensor<1x2x5x5xf32> to tensor<1x2x5x5x{x}>
  %c = graph.qconv2d %q, %w4, %b {{pads = array<i64: 1, 1, 1, 1>, {rq}, act_min = 3 : i64, act_max = 103 : i64}} : (tensor<1x2x5x5x{x}>, tensor<2x2x3x3x!quant.uniform<i8:f32:0, {{2.000000e-02, 7.000000e-03}}>>, tensor<2xi32>) -> tensor<1x2x5x5x{c}>
  %a = graph.qadd %c, %q {{{rq}}} : (tensor<1x2x5x5x{c}>, tensor<1x2x5x5x{x}>) -> tensor<1x2x5x5x{a}>
  %m = graph.qmul %a, %c {{{rq}, act_min = -100 : i64}} : (tensor<1x2x5x5x{a}>, tensor<1x2x5x5x{c}>) -> tensor<1x2x5x5x{m}>
  %p = graph.qavg_pool %m {{kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, {rq}}} : (tensor<1x2x5x5x{m}>) -> tensor<1x2x3x3x{m}>
  %g = graph.qavg_pool %a {{kernel_shape = array<i64: 5, 5>, {rq}}} : (tensor<1x2x5x5x{a}>) -> tensor<1x2x1x1x{g}>
  %r = graph.requantize %p {{{rq}}} : (tensor<1x2x3x3x{m}>) -> tensor<1x2x3x3x{r}>
  %ad = graph.dequantize %a : tensor<1x2x5x5x{a}> to tensor<1x2x5x5xf32>
  %rd = graph.dequantize %r : tensor<1x2x3x3x{r}> to tensor<1x2x3x3xf32>
  %gd = graph.dequantize %g : tensor<1x2x1x1x{g}> to tensor<1x2x1x1xf32>
  %a1 = graph.reshape %ad {{shape = array<i64: 50>}} : (tensor<1x2x5x5xf32>) -> tensor<50xf32>
  %r1 = graph.reshape %rd {{shape = array<i64: 18>}} : (tensor<1x2x3x3xf32>) -> tensor<18xf32>
  %g1 = graph.reshape %gd {{shape = array<i64: 2>}} : (tensor<1x2x1x1xf32>) -> tensor<2xf32>
  %y = graph.concat %a1, %r1, %g1 {{axis = 0 : i64}} : (tensor<50xf32>, tensor<18xf32>, tensor<2xf32>) -> tensor<70xf32>
  return %y : tensor<70xf32>
}}
"#,
        w = w.join(", "),
    )
}

#[test]
fn quantized_adds_products_and_pools_as_c_match_the_interpreter_bit_for_bit() {
    for scheme in ["float", "fixed_point"] {
        let dir = tempfile::tempdir().expect("a directory");
        let d = dir.path();
        lower_to_c(d, "r.mlir", &residual_model(scheme));
        let x: Vec<f32> = (0..50).map(|i| ((i as f32) * 0.37).cos() * 1.1).collect();
        write_input(d, &[1, 2, 5, 5], &x);
        run(Command::new(env!("CARGO_BIN_EXE_acc-run"))
            .current_dir(d)
            .args(["r.mlir", "--input", "0=x.npy", "-o", "graph.npy"]));
        let want = floats(&d.join("graph.npy"));
        let got = compile_and_run(d, &driver(50, 70), &[]);
        assert_eq!(got, bits(&want), "{scheme}");
        assert_eq!(
            bits(&run_jit(d, "r.mlir")),
            bits(&want),
            "{scheme} natively"
        );
        let distinct: std::collections::BTreeSet<u32> = got.iter().copied().collect();
        assert!(distinct.len() > 15, "{scheme}: {got:?}");
    }
}

/// Ops that read at computed positions (gather, gather_elements, gather_nd with
/// indices computed from the input, out-of-range ones clamped) and walk lines with a
/// loop inside a generated tensor (cumsum forward and reverse-exclusive, arg_max).
const INDEXING: &str = r#"
func.func @main(%x: tensor<12xf32>) -> tensor<33xf32> {
  %r = graph.reshape %x {shape = array<i64: 3, 4>} : (tensor<12xf32>) -> tensor<3x4xf32>
  %sum = graph.cumsum %r {axis = 1 : i64} : tensor<3x4xf32>
  %rsum = graph.cumsum %r {axis = 0 : i64, reverse = true, exclusive = true} : tensor<3x4xf32>
  %best = graph.arg_max %r {axis = 1 : i64, keepdims = false} : (tensor<3x4xf32>) -> tensor<3xi64>
  %i = graph.cast %x : tensor<12xf32> to tensor<12xi64>
  %g = graph.gather %x, %i {axis = 0 : i64} : (tensor<12xf32>, tensor<12xi64>) -> tensor<12xf32>
  %i2 = graph.reshape %i {shape = array<i64: 3, 4>} : (tensor<12xi64>) -> tensor<3x4xi64>
  %ge = graph.gather_elements %r, %i2 {axis = 1 : i64} : (tensor<3x4xf32>, tensor<3x4xi64>) -> tensor<3x4xf32>
  %i3 = graph.slice %i {starts = array<i64: 0>, ends = array<i64: 4>} : (tensor<12xi64>) -> tensor<4xi64>
  %i4 = graph.reshape %i3 {shape = array<i64: 2, 2>} : (tensor<4xi64>) -> tensor<2x2xi64>
  %nd = graph.gather_nd %r, %i4 : (tensor<3x4xf32>, tensor<2x2xi64>) -> tensor<2xf32>
  %bf = graph.cast %best : tensor<3xi64> to tensor<3xf32>
  %s1 = graph.reshape %sum {shape = array<i64: 12>} : (tensor<3x4xf32>) -> tensor<12xf32>
  %s2 = graph.slice %rsum {starts = array<i64: 0>, ends = array<i64: 1>} : (tensor<3x4xf32>) -> tensor<1x4xf32>
  %s3 = graph.reshape %s2 {shape = array<i64: 4>} : (tensor<1x4xf32>) -> tensor<4xf32>
  %e1 = graph.slice %ge {starts = array<i64: 2>, ends = array<i64: 3>} : (tensor<3x4xf32>) -> tensor<1x4xf32>
  %e2 = graph.reshape %e1 {shape = array<i64: 4>} : (tensor<1x4xf32>) -> tensor<4xf32>
  %g2 = graph.slice %g {starts = array<i64: 0>, ends = array<i64: 8>} : (tensor<12xf32>) -> tensor<8xf32>
  %out = graph.concat %s1, %s3, %bf, %e2, %g2, %nd {axis = 0 : i64} : (tensor<12xf32>, tensor<4xf32>, tensor<3xf32>, tensor<4xf32>, tensor<8xf32>, tensor<2xf32>) -> tensor<33xf32>
  return %out : tensor<33xf32>
}
"#;

#[test]
fn gathers_arg_max_and_cumsum_as_c_match_the_interpreter_bit_for_bit() {
    let dir = tempfile::tempdir().expect("a directory");
    let d = dir.path();
    lower_to_c(d, "indexing.mlir", INDEXING);
    // Indices from -3.9 (wrapping to the end) to 14.2 (clamped); sums that round.
    let x: [f32; 12] = [
        2.5, -3.9, 0.1, 7.7, 14.2, 1.0, 0.3, -1.2, 5.5, 11.0, 3.3, 0.7,
    ];
    write_input(d, &[12], &x);
    run(Command::new(env!("CARGO_BIN_EXE_acc-run"))
        .current_dir(d)
        .args(["indexing.mlir", "--input", "0=x.npy", "-o", "graph.npy"]));
    let want = floats(&d.join("graph.npy"));
    let got = compile_and_run(d, &driver(12, 33), &[]);
    assert_eq!(got, bits(&want));
    // Row 0's running sums, the arg maxima, and x gathered at trunc(x) (clamped).
    let v: Vec<f32> = got.iter().map(|b| f32::from_bits(*b)).collect();
    assert_eq!(
        v[..4],
        [
            2.5,
            2.5 + -3.9,
            2.5f32 + -3.9 + 0.1,
            2.5f32 + -3.9 + 0.1 + 7.7
        ]
    );
    assert_eq!(v[16..19], [3.0, 0.0, 1.0]);
    assert_eq!(v[23..28], [0.1, 11.0, 2.5, -1.2, 0.7]);
}

/// Detection post-processing (examples/onnx/detect.onnx: a sigmoid, then
/// non-maximum suppression): the C function fills the bounded buffer and says how
/// many rows it selected; those rows are onnxruntime's, natively and (when the
/// cross tools are installed) on 64-bit RISC-V under qemu.
#[test]
fn non_max_suppression_as_c_matches_onnxruntime() {
    let dir = tempfile::tempdir().expect("a directory");
    let d = dir.path();
    run(Command::new(env!("CARGO_BIN_EXE_acc-translate"))
        .arg("--import-onnx")
        .arg(examples().join("detect.onnx"))
        .arg("-o")
        .arg(d.join("detect.mlir")));
    run(Command::new(env!("CARGO_BIN_EXE_acc-opt"))
        .current_dir(d)
        .args(["--pass", C_PIPELINE, "detect.mlir", "-o", "loops.mlir"]));
    run(Command::new(env!("CARGO_BIN_EXE_acc-translate"))
        .current_dir(d)
        .args(["--emit-c", "loops.mlir", "-o", "c"]));
    let header = std::fs::read_to_string(d.join("c/model.h")).expect("model.h");
    assert!(
        header.contains("acc_result0: memref<24x3xi64>, of which the first *acc_result1 are valid along dimension 0"),
        "{header}"
    );
    let (boxes, logits) = (
        floats(&examples().join("detect.input0.npy")),
        floats(&examples().join("detect.input1.npy")),
    );
    let bytes: Vec<u8> = boxes
        .iter()
        .chain(&logits)
        .flat_map(|v| v.to_le_bytes())
        .collect();
    std::fs::write(d.join("input.bin"), bytes).expect("input");
    let driver = format!(
        r#"#include <stdio.h>
#include "model.h"
static float boxes[{nb}], logits[{nl}];
static int64_t selected[24 * 3], count;
static uint32_t out[1 + 24 * 3];
int main(void) {{
    FILE *f = fopen("input.bin", "rb");
    if (!f || fread(boxes, sizeof(float), {nb}, f) != {nb} || fread(logits, sizeof(float), {nl}, f) != {nl}) return 2;
    fclose(f);
    acc_main(boxes, logits, selected, &count);
    if (count < 0 || count > 24) return 4;
    out[0] = (uint32_t)count;
    for (int64_t i = 0; i < 3 * count; i++) out[1 + i] = (uint32_t)selected[i];
    FILE *g = fopen("output.bin", "wb");
    if (!g || fwrite(out, sizeof(uint32_t), 1 + 3 * count, g) != (size_t)(1 + 3 * count)) return 3;
    fclose(g);
    return 0;
}}
"#,
        nb = boxes.len(),
        nl = logits.len()
    );
    let bytes = std::fs::read(examples().join("detect.output0.npy")).expect("reference");
    let reference = npyz::NpyFile::new(&bytes[..]).expect("valid npy");
    let rows = reference.shape()[0] as u32;
    let mut want = vec![rows];
    want.extend(
        reference
            .into_vec::<i64>()
            .expect("i64 data")
            .iter()
            .map(|v| *v as u32),
    );
    assert_eq!(compile_and_run(d, &driver, &[]), want);
    if let Some(got) = support::cross_compile_and_run_riscv64(d, &driver, &[]) {
        assert_eq!(got, want, "riscv64");
    }
}

/// A comma-separated list of `n` int8 values from a simple generator.
fn int8s(n: usize, seed: usize) -> String {
    let v: Vec<String> = (0..n)
        .map(|i| (((i * 37 + seed * 11) % 251) as i64 - 125).to_string())
        .collect();
    v.join(", ")
}

/// An int8 CNN for the example accelerator: a convolution with per-channel weights,
/// a depthwise convolution with stride 2, a dilated 1 x 1 convolution the
/// accelerator does not take, and a fully connected layer.
fn npu_model() -> String {
    let x = "!quant.uniform<i8:f32, 2.000000e-02:-3>";
    let a = "!quant.uniform<i8:f32, 5.000000e-02:2>";
    let b = "!quant.uniform<i8:f32, 1.000000e-01:-1>";
    let c = "!quant.uniform<i8:f32, 1.500000e-01>";
    let o = "!quant.uniform<i8:f32, 2.500000e-01:4>";
    let scales = |n: usize, base: f64| -> String {
        let v: Vec<String> = (0..n)
            .map(|i| format!("{:.6e}", base * (1.0 + i as f64 / 8.0)))
            .collect();
        v.join(", ")
    };
    let w1 = format!("!quant.uniform<i8:f32:0, {{{}}}>", scales(8, 0.004));
    let w2 = format!("!quant.uniform<i8:f32:0, {{{}}}>", scales(8, 0.01));
    let w3 = "!quant.uniform<i8:f32, 1.000000e-02>";
    let w4 = format!("!quant.uniform<i8:f32:1, {{{}}}>", scales(10, 0.003));
    format!(
        r#"func.func @main(%x: tensor<1x4x6x6xf32>) -> tensor<1x10xf32> {{
  %w1f = graph.constant dense<[{w1v}]> : tensor<288xi8>
  %w1i = graph.reshape %w1f {{shape = array<i64: 8, 4, 3, 3>}} : (tensor<288xi8>) -> tensor<8x4x3x3xi8>
  %w1 = graph.storage_cast %w1i : tensor<8x4x3x3xi8> to tensor<8x4x3x3x{w1}>
  %b1 = graph.constant dense<[100, -200, 300, -400, 500, -600, 700, -800]> : tensor<8xi32>
  %w2f = graph.constant dense<[{w2v}]> : tensor<72xi8>
  %w2i = graph.reshape %w2f {{shape = array<i64: 8, 1, 3, 3>}} : (tensor<72xi8>) -> tensor<8x1x3x3xi8>
  %w2 = graph.storage_cast %w2i : tensor<8x1x3x3xi8> to tensor<8x1x3x3x{w2}>
  %b2 = graph.constant dense<[7, -7, 70, -70, 700, -700, 0, 1]> : tensor<8xi32>
  %w3f = graph.constant dense<[{w3v}]> : tensor<64xi8>
  %w3i = graph.reshape %w3f {{shape = array<i64: 8, 8, 1, 1>}} : (tensor<64xi8>) -> tensor<8x8x1x1xi8>
  %w3 = graph.storage_cast %w3i : tensor<8x8x1x1xi8> to tensor<8x8x1x1x{w3}>
  %b3 = graph.constant dense<[1, 2, 3, 4, 5, 6, 7, 8]> : tensor<8xi32>
  %w4f = graph.constant dense<[{w4v}]> : tensor<720xi8>
  %w4i = graph.reshape %w4f {{shape = array<i64: 72, 10>}} : (tensor<720xi8>) -> tensor<72x10xi8>
  %w4 = graph.storage_cast %w4i : tensor<72x10xi8> to tensor<72x10x{w4}>
  %q = graph.quantize %x : tensor<1x4x6x6xf32> to tensor<1x4x6x6x{x}>
  %c1 = graph.qconv2d %q, %w1, %b1 {{pads = array<i64: 1, 1, 1, 1>}} : (tensor<1x4x6x6x{x}>, tensor<8x4x3x3x{w1}>, tensor<8xi32>) -> tensor<1x8x6x6x{a}>
  %c2 = graph.qconv2d %c1, %w2, %b2 {{groups = 8 : i64, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>}} : (tensor<1x8x6x6x{a}>, tensor<8x1x3x3x{w2}>, tensor<8xi32>) -> tensor<1x8x3x3x{b}>
  %c3 = graph.qconv2d %c2, %w3, %b3 {{dilations = array<i64: 2, 2>}} : (tensor<1x8x3x3x{b}>, tensor<8x8x1x1x{w3}>, tensor<8xi32>) -> tensor<1x8x3x3x{c}>
  %f = graph.reshape %c3 {{shape = array<i64: 1, 72>}} : (tensor<1x8x3x3x{c}>) -> tensor<1x72x{c}>
  %m = graph.qmatmul %f, %w4 : (tensor<1x72x{c}>, tensor<72x10x{w4}>) -> tensor<1x10x{o}>
  %y = graph.dequantize %m : tensor<1x10x{o}> to tensor<1x10xf32>
  return %y : tensor<1x10xf32>
}}
"#,
        w1v = int8s(288, 1),
        w2v = int8s(72, 2),
        w3v = int8s(64, 3),
        w4v = int8s(720, 4),
    )
}

/// `model` (as `q.mlir` in `d`) lowered by `passes` for `target` under
/// --check-semantics (to `loops.mlir`) and emitted as C (`c/`): acc-opt's remarks
/// and `model.c`.
fn lower_for_target(d: &Path, target: &Path, model: &str, passes: &str) -> (String, String) {
    std::fs::write(d.join("q.mlir"), model).expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_acc-opt"))
        .current_dir(d)
        .arg("--target")
        .arg(target)
        .args(["--remarks", "--check-semantics", "--pass", passes])
        .args(["q.mlir", "-o", "loops.mlir"])
        .output()
        .expect("acc-opt runs");
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{stderr}");
    run(Command::new(env!("CARGO_BIN_EXE_acc-translate"))
        .current_dir(d)
        .args(["--emit-c", "loops.mlir", "-o", "c"]));
    let model = std::fs::read_to_string(d.join("c/model.c")).expect("model.c");
    (stderr, model)
}

/// What the interpreter gives for `q.mlir` in `d` on the input `x` of `shape`.
fn graph_output(d: &Path, shape: &[usize], x: &[f32]) -> Vec<f32> {
    write_input(d, shape, x);
    run(Command::new(env!("CARGO_BIN_EXE_acc-run"))
        .current_dir(d)
        .args(["q.mlir", "--input", "0=x.npy", "-o", "graph.npy"]));
    floats(&d.join("graph.npy"))
}

/// The accelerator's calls in C (examples/hwlib's reference library linked in) give
/// what the graph gives in the interpreter, bit for bit; the layer the accelerator
/// refuses runs as host loops, with a remark saying why.
#[test]
fn an_int8_network_on_the_example_accelerator_matches_the_interpreter_bit_for_bit() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let target = root.join("examples/targets/tinynpu.acc");
    let hwlib = root.join("examples/hwlib");
    let dir = tempfile::tempdir().expect("a directory");
    let d = dir.path();
    let (stderr, model) = lower_for_target(
        d,
        &target,
        &npu_model(),
        "canonicalize,partition,graph-to-tensor,bufferize,buffer-deallocation,memory-plan",
    );
    assert!(
        stderr.contains("'graph.qconv2d' stays on cpu: 'npu_conv2d_s8' refuses it: its 'dilations' is array<i64: 2, 2>, the match needs array<i64: 1, 1>"),
        "{stderr}"
    );
    for f in ["npu_conv2d_s8(", "npu_dwconv2d_s8(", "npu_matmul_s8("] {
        assert_eq!(
            model.matches(f).count(),
            2,
            "{f} declared and called once: {model}"
        );
    }
    let x: Vec<f32> = (0..144).map(|i| ((i as f32) * 0.37).sin() * 1.5).collect();
    let want = graph_output(d, &[1, 4, 6, 6], &x);
    let hwlib_c = hwlib.join("tinynpu.c");
    let got = compile_and_run(
        d,
        &driver(144, 10),
        &["-I", &hwlib.to_string_lossy(), &hwlib_c.to_string_lossy()],
    );
    assert_eq!(got, bits(&want));
    let distinct: std::collections::BTreeSet<u32> = got.iter().copied().collect();
    assert!(distinct.len() > 5, "{want:?}");
}

/// Ops holding the same constant value (a weight packed once per use, as a
/// recurrent cell's steps do) share one `weights.h` buffer.
#[test]
fn ops_with_the_same_constant_value_share_one_buffer() {
    let dir = tempfile::tempdir().expect("a directory");
    let loops = dir.path().join("loops.mlir");
    std::fs::write(
        &loops,
        r#"func.func @f(%out: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %w0 = loop.constant dense<[1.5, 2.5]> : tensor<2xf32> to memref<2xf32>
  %w1 = loop.constant dense<[1.5, 2.5]> : tensor<2xf32> to memref<2xf32>
  %w2 = loop.constant dense<[3.5, 2.5]> : tensor<2xf32> to memref<2xf32>
  %x = loop.load %w0[%c0] : memref<2xf32>
  %y = loop.load %w1[%c1] : memref<2xf32>
  %z = loop.load %w2[%c0] : memref<2xf32>
  %s = arith.addf %x, %y : f32
  loop.store %s, %out[%c0] : memref<2xf32>
  loop.store %z, %out[%c1] : memref<2xf32>
  return
}
"#,
    )
    .expect("written");
    run(Command::new(env!("CARGO_BIN_EXE_acc-translate"))
        .arg("--emit-c")
        .arg(&loops)
        .arg("-o")
        .arg(dir.path().join("c")));
    let weights = std::fs::read_to_string(dir.path().join("c/weights.h")).expect("weights.h");
    let definitions: Vec<&str> = weights
        .lines()
        .filter(|l| l.starts_with("static const float"))
        .collect();
    assert_eq!(definitions.len(), 2, "{weights}");
    let source = std::fs::read_to_string(dir.path().join("c/model.c")).expect("model.c");
    assert_eq!(
        source.matches("(float *)acc_weights_0;").count(),
        2,
        "{source}"
    );
    assert_eq!(
        source.matches("(float *)acc_weights_1;").count(),
        1,
        "{source}"
    );
}

/// A residual add for test/c/vnpu (a fixed-point library behind a vendor header):
/// two quantizations of the input added with a fused clamp.
const VENDOR_MODEL: &str = r#"func.func @main(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %a = graph.quantize %x : tensor<1x2x4x4xf32> to tensor<1x2x4x4x!quant.uniform<i8:f32, 2.000000e-02:-5>>
  %n = graph.abs %x : tensor<1x2x4x4xf32>
  %b = graph.quantize %n : tensor<1x2x4x4xf32> to tensor<1x2x4x4x!quant.uniform<i8:f32, 7.000000e-02:9>>
  %y = graph.qadd %a, %b {requant = #graph.requantization<fixed_point>, act_min = -100 : i64} : (tensor<1x2x4x4x!quant.uniform<i8:f32, 2.000000e-02:-5>>, tensor<1x2x4x4x!quant.uniform<i8:f32, 7.000000e-02:9>>) -> tensor<1x2x4x4x!quant.uniform<i8:f32, 3.000000e-02:-1>>
  %r = graph.dequantize %y : tensor<1x2x4x4x!quant.uniform<i8:f32, 3.000000e-02:-1>> to tensor<1x2x4x4xf32>
  return %r : tensor<1x2x4x4xf32>
}
"#;

/// The C of a target naming its library's header includes it instead of declaring
/// the function (so it builds against a const-correct vendor header with -Werror),
/// the arena gets the memory's linker section, the call's fixed-point parameters
/// (computed at compile time from the scales) are the library's, and the result is
/// the interpreter's, bit for bit.
#[test]
fn a_vendor_header_and_linker_sections_are_respected() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let vnpu = root.join("test/c/vnpu");
    let dir = tempfile::tempdir().expect("a directory");
    let d = dir.path();
    let (_, model) = lower_for_target(
        d,
        &vnpu.join("vnpu.acc"),
        VENDOR_MODEL,
        "canonicalize,partition,weight-prep,graph-to-tensor,bufferize,buffer-deallocation,memory-plan",
    );
    assert!(model.contains("#include \"vnpu.h\""), "{model}");
    assert_eq!(
        model.matches("vnpu_add_s8(").count(),
        1,
        "called, not declared: {model}"
    );
    assert!(
        model.contains("__attribute__((aligned(64), section(\".sram_arena\")))"),
        "{model}"
    );
    let x: Vec<f32> = (0..32).map(|i| ((i as f32) * 0.71).sin() * 2.5).collect();
    let want = graph_output(d, &[1, 2, 4, 4], &x);
    let vnpu_c = vnpu.join("vnpu.c");
    let got = compile_and_run(
        d,
        &driver(32, 32),
        &["-I", &vnpu.to_string_lossy(), &vnpu_c.to_string_lossy()],
    );
    assert_eq!(got, bits(&want));
    let distinct: std::collections::BTreeSet<u32> = got.iter().copied().collect();
    assert!(distinct.len() > 10, "{want:?}");
}

/// A convolution whose input overflows tinynpu's local memory, in tiles of output
/// rows (each reading its band of input rows and the halo around it): the C, with
/// the reference library, gives what the graph gives in the interpreter.
#[test]
fn a_convolution_in_tiles_of_rows_matches_the_interpreter_bit_for_bit() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let hwlib = root.join("examples/hwlib");
    let dir = tempfile::tempdir().expect("a directory");
    let d = dir.path();
    let model = r#"func.func @main(%x: tensor<1x4x48x48xf32>) -> tensor<1x8x24x24xf32> {
  %q = graph.quantize %x : tensor<1x4x48x48xf32> to tensor<1x4x48x48x!quant.uniform<i8:f32, 3.125000e-02:2>>
  %wi = graph.constant dense<[[[[19, -4, 2], [13, -19, 9], [-5, -17, -10]], [[-13, 3, 10], [-5, 4, 14], [-14, 16, -5]], [[-20, -7, 6], [-3, -9, 4], [-10, -16, -12]], [[19, 19, 8], [-12, -12, -20], [-20, -7, -7]]], [[[-10, -10, -2], [0, -8, 14], [20, -7, -9]], [[-8, 4, -1], [-19, 3, 6], [-10, -11, -4]], [[-16, 1, -1], [18, 17, -20], [18, 1, -16]], [[-1, 2, -1], [10, 0, -9], [10, 10, -9]]], [[[-17, -4, -19], [2, 5, -19], [15, 6, 3]], [[4, 17, -20], [8, -18, -9], [19, -8, -13]], [[-5, 9, 2], [12, 2, 13], [-4, 9, -14]], [[17, 3, -2], [-18, 7, -15], [-7, 1, 12]]], [[[19, 3, -11], [1, -3, 14], [-15, -1, 0]], [[-1, -9, -15], [20, -11, -1], [10, -10, -17]], [[-15, 18, 14], [5, -18, -5], [18, 2, -4]], [[9, 6, -11], [-17, 20, -18], [11, 1, -7]]], [[[-12, 16, -12], [20, 6, -14], [-10, 7, 3]], [[-11, -17, 6], [-2, -11, 9], [19, -10, 13]], [[9, 11, 0], [10, -3, -2], [10, 5, -11]], [[-13, 4, 14], [-9, 20, 11], [1, -9, -15]]], [[[11, -3, 12], [15, 12, 3], [-16, 2, 17]], [[-18, -1, 3], [15, -3, 11], [-4, -2, 1]], [[-9, 17, -20], [10, 15, -4], [0, -3, 9]], [[-2, 12, 2], [2, -3, 2], [6, 2, -9]]], [[[8, 3, 1], [13, -11, 13], [-10, -8, 3]], [[10, -2, -15], [6, -10, 19], [17, 13, 6]], [[-1, 19, 15], [20, -3, -19], [-8, -10, 17]], [[8, 19, -9], [-6, -9, 20], [-18, 10, -6]]], [[[-10, -17, -12], [-13, 0, -9], [10, -8, 15]], [[-18, 6, 9], [2, 4, 19], [-16, 17, -7]], [[-5, 3, -20], [2, 5, -3], [6, -13, 15]], [[3, -18, 15], [19, -1, -14], [-2, 14, 12]]]]> : tensor<8x4x3x3xi8>
  %w = graph.storage_cast %wi : tensor<8x4x3x3xi8> to tensor<8x4x3x3x!quant.uniform<i8:f32, 1.562500e-02>>
  %b = graph.constant dense<[100, -200, 300, 0, 50, -75, 10, 20]> : tensor<8xi32>
  %y = graph.qconv2d %q, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x48x48x!quant.uniform<i8:f32, 3.125000e-02:2>>, tensor<8x4x3x3x!quant.uniform<i8:f32, 1.562500e-02>>, tensor<8xi32>) -> tensor<1x8x24x24x!quant.uniform<i8:f32, 6.250000e-02:-3>>
  %r = graph.dequantize %y : tensor<1x8x24x24x!quant.uniform<i8:f32, 6.250000e-02:-3>> to tensor<1x8x24x24xf32>
  return %r : tensor<1x8x24x24xf32>
}
"#;
    let (stderr, c) = lower_for_target(
        d,
        &root.join("examples/targets/tinynpu.acc"),
        model,
        "canonicalize,partition,tensorize,weight-prep,graph-to-tensor,bufferize,buffer-deallocation,memory-plan",
    );
    assert!(stderr.contains("output rows"), "{stderr}");
    assert!(c.matches("npu_conv2d_s8(").count() > 2, "{c}");
    let x: Vec<f32> = (0..9216)
        .map(|i| ((i as f32) * 0.173).sin() * 3.0)
        .collect();
    let want = graph_output(d, &[1, 4, 48, 48], &x);
    let got = compile_and_run(
        d,
        &driver(9216, 4608),
        &[
            "-I",
            &hwlib.to_string_lossy(),
            &hwlib.join("tinynpu.c").to_string_lossy(),
        ],
    );
    assert_eq!(got, bits(&want));
    let distinct: std::collections::BTreeSet<u32> = got.iter().copied().collect();
    assert!(distinct.len() > 20, "{want:?}");
}
