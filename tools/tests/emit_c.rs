//! `acc-translate --emit-c` on the example models (examples/onnx: an MLP, a CNN with
//! batch norm and a residual add, LeNet-5 with tanh): imported, lowered to scalar
//! loops with a static memory plan, written as C, compiled by gcc with a small driver,
//! run, and compared bit for bit with the interpreter running the same loops, and
//! within 1e-5 with onnxruntime's reference output. The C needs nothing beyond
//! stdint.h and string.h (no malloc, no math library). Bad input writes nothing.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Scalar loops in a static arena, exp/erf/tanh as polynomials: what a
/// microcontroller without an OS or a math library can run.
const C_PIPELINE: &str = "canonicalize,graph-to-tensor,bufferize,fuse-parallel,math-approximation,buffer-deallocation,memory-plan";

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/onnx")
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().expect("the command runs");
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn floats(path: &Path) -> Vec<f32> {
    let bytes = std::fs::read(path).expect("an .npy file");
    npyz::NpyFile::new(&bytes[..])
        .expect("valid npy")
        .into_vec::<f32>()
        .expect("f32 data")
}

/// Reads `input.bin` (n_in floats), calls the entry, writes `output.bin` (n_out).
fn driver(n_in: usize, n_out: usize) -> String {
    format!(
        r#"#include <stdio.h>
#include "model.h"
static float x[{n_in}], y[{n_out}];
int main(void) {{
    FILE *f = fopen("input.bin", "rb");
    if (!f || fread(x, sizeof(float), {n_in}, f) != {n_in}) return 2;
    fclose(f);
    acc_main(x, y);
    FILE *g = fopen("output.bin", "wb");
    if (!g || fwrite(y, sizeof(float), {n_out}, g) != {n_out}) return 3;
    fclose(g);
    return 0;
}}
"#
    )
}

#[test]
fn example_models_as_c_match_the_interpreter_bit_for_bit() {
    let dir = tempfile::tempdir().expect("a directory");
    for model in ["mlp", "cnn", "lenet5"] {
        let d = dir.path().join(model);
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
            .args(["--pass", C_PIPELINE])
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
        // The interpreter on the same loops, and the reference.
        let interp = d.join("interp.npy");
        run(Command::new(env!("CARGO_BIN_EXE_acc-run"))
            .arg(&loops)
            .arg("--input")
            .arg(format!("0={}", input.display()))
            .arg("-o")
            .arg(&interp));
        let (x, want) = (floats(&input), floats(&interp));
        let bytes: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
        std::fs::write(d.join("input.bin"), bytes).expect("input");
        std::fs::write(d.join("driver.c"), driver(x.len(), want.len())).expect("driver");
        run(Command::new("gcc").current_dir(&d).args([
            "-std=c99",
            "-O2",
            "-ffp-contract=off",
            "-fno-strict-aliasing",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-Ic",
            "-o",
            "run",
            "driver.c",
            "c/model.c",
        ]));
        run(Command::new(d.join("run")).current_dir(&d));
        let got: Vec<f32> = std::fs::read(d.join("output.bin"))
            .expect("output")
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(
            bits(&got),
            bits(&want),
            "{model}: C and the interpreter differ"
        );
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
            "func.func @f(%x: memref<4xf32>) -> memref<4xf32> {\n  %c0 = arith.constant 0 : index\n  %v = loop.vload %x[%c0] : memref<4xf32>, vector<4xf32>\n  %r = loop.alloc() : memref<4xf32>\n  loop.vstore %v, %r[%c0] : memref<4xf32>, vector<4xf32>\n  return %r : memref<4xf32>\n}\n",
            "without vectors",
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
