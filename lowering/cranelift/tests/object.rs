//! Object files: an x86-64 object linked with a small C driver (through the generated
//! header) computes what the interpreter computes; AArch64 and RISC-V objects are
//! produced for the same code; vector code for RISC-V without the V extension is a
//! clear error.

mod common;

use std::process::Command;

use acc_interp::{Interpreter, Limits, Tensor};
use acc_ir::Context;
use acc_ir::elements::Scalar;
use common::parse;

/// A small kernel: `out[i, j] = max(sum_k a[i, k] * b[k, j] + bias, 0)` and the
/// number of positive outputs, with loops, a carried sum, a call and an allocation.
const KERNEL: &str = r#"
func.func @relu(%x: f32) -> f32 {
  %zero = arith.constant 0.0 : f32
  %y = arith.maximumf %x, %zero : f32
  return %y : f32
}
func.func @dense(%a: memref<3x4xf32>, %b: memref<4x2xf32>, %bias: f32) -> (memref<3x2xf32>, i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %none = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %out = loop.alloc() : memref<3x2xf32>
  %count = loop.for %i = %c0 to %c3 step %c1 iter_args(%n = %none) -> (i32) {
    %row = loop.for %j = %c0 to %c2 step %c1 iter_args(%m = %n) -> (i32) {
      %s = loop.for %k = %c0 to %c4 step %c1 iter_args(%acc = %bias) -> (f32) {
        %x = loop.load %a[%i, %k] : memref<3x4xf32>
        %y = loop.load %b[%k, %j] : memref<4x2xf32>
        %p = arith.mulf %x, %y : f32
        %t = arith.addf %acc, %p : f32
        loop.yield %t : f32
      }
      %r = func.call @relu(%s) : (f32) -> f32
      loop.store %r, %out[%i, %j] : memref<3x2xf32>
      %pos = arith.cmpf ogt, %r, %zero : f32
      %inc = arith.select %pos, %one, %none : i32
      %m2 = arith.addi %m, %inc : i32
      loop.yield %m2 : i32
    }
    loop.yield %row : i32
  }
  return %out, %count : memref<3x2xf32>, i32
}
"#;

const DRIVER: &str = r#"
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <stdlib.h>
#include "kernel.h"

/* `dense` builds its memref result in `out`: it allocates nothing. */
static int allocations = 0;

void *acc_alloc(int64_t bytes, int64_t alignment) {
    void *p = NULL;
    allocations++;
    return posix_memalign(&p, (size_t)alignment, (size_t)bytes) == 0 ? p : NULL;
}
void acc_free(void *p) { free(p); }

int main(void) {
    float a[12], b[8], out[6];
    int32_t count = -1;
    for (int i = 0; i < 12; i++) a[i] = (float)(i % 5) - 2.0f + 0.25f * (float)i;
    for (int i = 0; i < 8; i++) b[i] = 1.5f - 0.5f * (float)i;
    dense(a, b, 0.75f, out, &count);
    for (int i = 0; i < 6; i++) printf("%.9g\n", out[i]);
    printf("%d\n", count);
    /* The packed form computes the same. */
    float out2[6];
    int32_t count2 = -1;
    float bias = 0.75f;
    void *slots[5] = {a, b, &bias, out2, &count2};
    dense_packed(slots);
    for (int i = 0; i < 6; i++) if (out2[i] != out[i]) return 3;
    if (count2 != count) return 4;
    return allocations == 0 ? 0 : 5;
}
"#;

fn inputs(ctx: &mut Context) -> Vec<Tensor> {
    let ty = |ctx: &mut Context, t: &str| acc_ir::parser::parse_type_str(ctx, t).expect("a type");
    let a: Vec<Scalar> = (0..12)
        .map(|i| Scalar::Float(f64::from((i % 5) as f32 - 2.0 + 0.25 * i as f32)))
        .collect();
    let b: Vec<Scalar> = (0..8)
        .map(|i| Scalar::Float(f64::from(1.5f32 - 0.5 * i as f32)))
        .collect();
    let (ta, tb, tf) = (
        ty(ctx, "memref<3x4xf32>"),
        ty(ctx, "memref<4x2xf32>"),
        ty(ctx, "f32"),
    );
    vec![
        Tensor::new(ctx, ta, a).expect("a"),
        Tensor::new(ctx, tb, b).expect("b"),
        Tensor::new(ctx, tf, vec![Scalar::Float(0.75)]).expect("bias"),
    ]
}

#[test]
fn an_x86_64_object_links_with_c_and_matches_the_interpreter() {
    let mut ctx = acc_dialects::new_context();
    let ir = parse(&mut ctx, KERNEL);
    let args = inputs(&mut ctx);
    let want = Interpreter::new(&ctx, &ir, Limits::default())
        .call("dense", args)
        .expect("the interpreter runs it");
    let object = acc_cranelift::object::emit(&ctx, &ir, "x86_64", "kernel").expect("compiles");
    assert!(object.header.contains("void dense(const float *arg0, const float *arg1, float arg2, float *result0, int32_t *result1);"), "{}", object.header);
    assert!(object.header.contains("void dense_packed(void **slots);"));
    let text = link_and_run(&object, DRIVER, &[]);
    let lines: Vec<&str> = text.lines().collect();
    let floats: Vec<f32> = lines[..6]
        .iter()
        .map(|l| l.parse().expect("a float"))
        .collect();
    assert_eq!(floats, as_f32(&want[0]));
    assert_eq!(
        lines[6],
        format!(
            "{:?}",
            match want[1].data[0] {
                Scalar::Int(i) => i,
                Scalar::Float(_) => -1,
            }
        )
    );
}

/// A product through the runtime library's GEMM (`hw.intrinsic "acc_sgemm"`, as
/// `bufferize` emits for the host target).
const LIBRARY_CALL: &str = r#"
func.func @product(%a: memref<3x4xf32>, %b: memref<4x2xf32>) -> memref<3x2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %out = loop.alloc() : memref<3x2xf32>
  loop.parallel (%i, %j) = (%c0, %c0) to (%c3, %c2) step (%c1, %c1) {
    loop.store %zero, %out[%i, %j] : memref<3x2xf32>
    loop.yield
  }
  hw.intrinsic "acc_sgemm"(%a, %b, %out, %c3, %c2, %c4) : (memref<3x4xf32>, memref<4x2xf32>, memref<3x2xf32>, index, index, index) -> ()
  return %out : memref<3x2xf32>
}
"#;

const LIBRARY_DRIVER: &str = r#"
#include <stdio.h>
#include <stdint.h>
#include "kernel.h"

int32_t acc_set_threads(int64_t n);

void *acc_alloc(int64_t bytes, int64_t alignment) { (void)alignment; (void)bytes; return 0; }
void acc_free(void *p) { (void)p; }

int main(void) {
    float a[12], b[8], out[6];
    for (int i = 0; i < 12; i++) a[i] = (float)i * 0.5f - 2.0f;
    for (int i = 0; i < 8; i++) b[i] = (float)(i % 3) - 0.25f;
    if (acc_set_threads(2) != 0) return 2;
    product(a, b, out);
    for (int i = 0; i < 6; i++) printf("%.9g\n", out[i]);
    return 0;
}
"#;

/// The runtime's static library: `cargo build -p acc-runtime --lib` builds it (a
/// dependency's static library is not built for tests), in a target directory of
/// its own so as not to wait for the lock of the build running this test.
fn runtime_library() -> std::path::PathBuf {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let target = root.join("target/runtime-staticlib");
    let built = Command::new(env!("CARGO"))
        .current_dir(&root)
        .args([
            "build",
            "-q",
            "--offline",
            "-p",
            "acc-runtime",
            "--lib",
            "--target-dir",
        ])
        .arg(&target)
        .output()
        .expect("cargo runs");
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    target.join("debug/libacc_runtime.a")
}

#[test]
fn an_object_calling_the_runtime_links_with_its_static_library() {
    let mut ctx = acc_dialects::new_context();
    let ir = parse(&mut ctx, LIBRARY_CALL);
    let a: Vec<Scalar> = (0..12)
        .map(|i| Scalar::Float(f64::from(i) * 0.5 - 2.0))
        .collect();
    let b: Vec<Scalar> = (0..8)
        .map(|i| Scalar::Float(f64::from(i % 3) - 0.25))
        .collect();
    let ty = |ctx: &mut Context, t: &str| acc_ir::parser::parse_type_str(ctx, t).expect("type");
    let (ta, tb) = (
        ty(&mut ctx, "memref<3x4xf32>"),
        ty(&mut ctx, "memref<4x2xf32>"),
    );
    let args = vec![
        Tensor::new(&ctx, ta, a).expect("a"),
        Tensor::new(&ctx, tb, b).expect("b"),
    ];
    let want = Interpreter::new(&ctx, &ir, Limits::default())
        .call("product", args)
        .expect("the interpreter runs it");
    let object = acc_cranelift::object::emit(&ctx, &ir, "x86_64", "kernel").expect("compiles");
    let library = runtime_library();
    let library = library.to_str().expect("a UTF-8 path");
    let text = link_and_run(
        &object,
        LIBRARY_DRIVER,
        &[library, "-lpthread", "-ldl", "-lm"],
    );
    let got: Vec<f32> = text.lines().map(|l| l.parse().expect("a float")).collect();
    assert_eq!(got, as_f32(&want[0]));
}

/// Links `object` (as kernel.o, with kernel.h) with the C `driver` and `libraries`,
/// runs it and returns what it prints.
fn link_and_run(
    object: &acc_cranelift::object::Object,
    driver: &str,
    libraries: &[&str],
) -> String {
    let dir = tempfile::tempdir().expect("a directory");
    std::fs::write(dir.path().join("kernel.o"), &object.bytes).expect("write");
    std::fs::write(dir.path().join("kernel.h"), &object.header).expect("write");
    std::fs::write(dir.path().join("driver.c"), driver).expect("write");
    let cc = Command::new("gcc")
        .current_dir(dir.path())
        .args([
            "-std=c99", "-Wall", "-Werror", "-o", "driver", "driver.c", "kernel.o",
        ])
        .args(libraries)
        .output()
        .expect("gcc runs (the machine has it)");
    assert!(
        cc.status.success(),
        "{}",
        String::from_utf8_lossy(&cc.stderr)
    );
    let run = Command::new(dir.path().join("driver"))
        .output()
        .expect("the driver runs");
    assert!(run.status.success(), "exit {:?}", run.status.code());
    String::from_utf8_lossy(&run.stdout).into_owned()
}

/// The elements of an interpreter result as f32.
fn as_f32(t: &Tensor) -> Vec<f32> {
    t.data
        .iter()
        .map(|v| match v {
            Scalar::Float(f) => *f as f32,
            Scalar::Int(i) => *i as f32,
        })
        .collect()
}

/// The ELF machine field of an object.
fn elf_machine(bytes: &[u8]) -> u16 {
    assert_eq!(&bytes[..4], b"\x7fELF");
    u16::from_le_bytes([bytes[18], bytes[19]])
}

#[test]
fn objects_for_every_architecture() {
    let mut ctx = acc_dialects::new_context();
    let ir = parse(&mut ctx, KERNEL);
    for (arch, machine) in [("x86_64", 62), ("aarch64", 183), ("riscv64", 243)] {
        let o = acc_cranelift::object::emit(&ctx, &ir, arch, "kernel")
            .unwrap_or_else(|e| panic!("{arch}: {}", e.message));
        assert_eq!(elf_machine(&o.bytes), machine, "{arch}");
    }
    let e = acc_cranelift::object::emit(&ctx, &ir, "mips", "kernel")
        .err()
        .expect("unknown");
    assert!(e.message.contains("unknown target 'mips'"), "{}", e.message);
}

#[test]
fn vector_code_for_riscv_without_v_is_refused() {
    let mut ctx = acc_dialects::new_context();
    let ir = parse(
        &mut ctx,
        r#"
func.func @v(%x: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %v = loop.vload %x[%c0] : memref<4xf32>, vector<4xf32>
  %s = loop.vreduce <add>, %v : vector<4xf32>
  return %s : f32
}
"#,
    );
    let e = acc_cranelift::object::emit(&ctx, &ir, "riscv64", "v")
        .err()
        .expect("no V");
    assert!(
        e.message.contains("RISC-V needs the V extension"),
        "{}",
        e.message
    );
    assert!(acc_cranelift::object::emit(&ctx, &ir, "aarch64", "v").is_ok());
}

/// A function reading `copies` `loop.constant` ops of one 16 KiB value.
fn reads_of_one_constant(copies: usize) -> String {
    let mut body = String::new();
    let mut sum = "%zero".to_string();
    for i in 0..copies {
        body.push_str(&format!(
            "  %w{i} = loop.constant dense<1.5> : tensor<4096xf32> to memref<4096xf32>\n  %x{i} = loop.load %w{i}[%c0] : memref<4096xf32>\n  %s{i} = arith.addf {sum}, %x{i} : f32\n"
        ));
        sum = format!("%s{i}");
    }
    format!(
        "func.func @f() -> f32 {{\n  %c0 = arith.constant 0 : index\n  %zero = arith.constant 0.0 : f32\n{body}  return {sum} : f32\n}}\n"
    )
}

#[test]
fn ops_with_the_same_constant_value_share_one_copy_of_its_data() {
    let size = |copies: usize| {
        let mut ctx = acc_dialects::new_context();
        let ir = parse(&mut ctx, &reads_of_one_constant(copies));
        let o = acc_cranelift::object::emit(&ctx, &ir, "x86_64", "f")
            .unwrap_or_else(|e| panic!("{}", e.message));
        o.bytes.len()
    };
    let (one, three) = (size(1), size(3));
    assert!(one > 16384, "the data is in the object: {one} bytes");
    // Two more reads add code and relocations, not two more 16 KiB copies.
    assert!(three < one + 4096, "1 read: {one} bytes, 3 reads: {three}");
}
