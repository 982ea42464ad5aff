//! Helpers the tests that compile emitted C share: running the tools, reading and
//! writing inputs, building the C with gcc and a small driver.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// examples/onnx.
pub fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/onnx")
}

/// Runs a command that must succeed; its standard output.
pub fn run(cmd: &mut Command) -> String {
    let out = cmd.output().expect("the command runs");
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs `cmd`, which must succeed; its standard error (where remarks go).
pub fn run_stderr(cmd: &mut Command) -> String {
    let out = cmd.output().expect("the command runs");
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The f32 elements of an `.npy` file.
pub fn floats(path: &Path) -> Vec<f32> {
    let bytes = std::fs::read(path).expect("an .npy file");
    npyz::NpyFile::new(&bytes[..])
        .expect("valid npy")
        .into_vec::<f32>()
        .expect("f32 data")
}

/// Reads `input.bin` (n_in floats), calls the entry, writes `output.bin` (n_out).
pub fn driver(n_in: usize, n_out: usize) -> String {
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

/// Writes `x` (of `shape`) as `x.npy` for acc-run and as raw `input.bin` for the
/// driver, in `dir`.
pub fn write_input(dir: &Path, shape: &[usize], x: &[f32]) {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let dims = if shape.len() == 1 {
        format!("{},", dims[0])
    } else {
        dims.join(", ")
    };
    let mut header = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': ({dims}), }}");
    while !(10 + header.len() + 1).is_multiple_of(64) {
        header.push(' ');
    }
    header.push('\n');
    let bytes: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut npy = b"\x93NUMPY\x01\x00".to_vec();
    npy.extend_from_slice(&(header.len() as u16).to_le_bytes());
    npy.extend_from_slice(header.as_bytes());
    npy.extend_from_slice(&bytes);
    std::fs::write(dir.join("x.npy"), npy).expect("input");
    std::fs::write(dir.join("input.bin"), &bytes).expect("input");
}

/// Compiles `dir/c/model.c` with `driver` (strict warnings, float operations as
/// written), runs it on `input.bin` and returns the bits of `output.bin`.
pub fn compile_and_run(dir: &Path, driver: &str, extra: &[&str]) -> Vec<u32> {
    build_and_run(dir, driver, extra, "gcc", &[], None)
}

/// The same cross-compiled for 64-bit RISC-V (statically, with Debian's
/// gcc-riscv64-linux-gnu) and run under qemu-user; `None` when either is missing.
pub fn cross_compile_and_run_riscv64(dir: &Path, driver: &str, extra: &[&str]) -> Option<Vec<u32>> {
    let found = |tool: &str| {
        Command::new(tool)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !found("riscv64-linux-gnu-gcc") || !found("qemu-riscv64") {
        return None;
    }
    Some(build_and_run(
        dir,
        driver,
        extra,
        "riscv64-linux-gnu-gcc",
        &["-static"],
        Some("qemu-riscv64"),
    ))
}

/// Builds `driver.c` and `c/model.c` with `compiler`, runs the program (under
/// `emulator` when given) and returns the bits of `output.bin`.
fn build_and_run(
    dir: &Path,
    driver: &str,
    extra: &[&str],
    compiler: &str,
    flags: &[&str],
    emulator: Option<&str>,
) -> Vec<u32> {
    std::fs::write(dir.join("driver.c"), driver).expect("driver");
    let _ = std::fs::remove_file(dir.join("output.bin"));
    run(Command::new(compiler)
        .current_dir(dir)
        .args([
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
        ])
        .args(flags)
        .args(extra));
    match emulator {
        Some(e) => run(Command::new(e).arg(dir.join("run")).current_dir(dir)),
        None => run(Command::new(dir.join("run")).current_dir(dir)),
    };
    std::fs::read(dir.join("output.bin"))
        .expect("output")
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The bits of each float.
pub fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// Runs acc-`name` (`opt`, `translate`, `run`) in `dir`, which must succeed; its
/// standard output.
pub fn tool(name: &str, dir: &Path, args: &[&str]) -> String {
    let out = Command::new(match name {
        "opt" => env!("CARGO_BIN_EXE_acc-opt"),
        "translate" => env!("CARGO_BIN_EXE_acc-translate"),
        _ => env!("CARGO_BIN_EXE_acc-run"),
    })
    .current_dir(dir)
    .args(args)
    .output()
    .expect("the tool runs");
    assert!(
        out.status.success(),
        "acc-{name} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The number after `key=` on the `sim:` lines of `report`.
pub fn figure(report: &str, key: &str) -> i64 {
    report
        .lines()
        .filter(|l| l.starts_with("sim: "))
        .flat_map(|l| l.split_whitespace())
        .find_map(|w| w.strip_prefix(&format!("{key}=")))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no {key}= in {report}"))
}

/// The data of an .npy file (after its header).
pub fn npy_data(path: &Path) -> Vec<u8> {
    let bytes = std::fs::read(path).expect("an .npy output");
    let header = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    bytes[10 + header..].to_vec()
}

/// Builds `out/` (the host's program and its two devices', `model.dla.c` and
/// `model.dsp.c`) with `driver.c` in `d`, on the thread-per-device runtime
/// (examples/hwlib/acc_devices.c) and the device library `sources` (`includes` its
/// headers' folders), twice: with warnings as errors, and under ThreadSanitizer.
/// Each program runs in `d` and must print `expected` and nothing else.
pub fn build_and_run_on_threads(
    d: &Path,
    sources: &[PathBuf],
    includes: &[PathBuf],
    expected: &[u8],
) {
    let hwlib = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/hwlib");
    for (name, flags) in [
        ("threads", &["-O2", "-Wall", "-Wextra", "-Werror"][..]),
        ("tsan", &["-O1", "-g", "-fsanitize=thread"][..]),
    ] {
        let built = Command::new("gcc")
            .current_dir(d)
            .args([
                "-std=c99",
                "-ffp-contract=off",
                "-fno-strict-aliasing",
                "-pthread",
                "-Iout",
            ])
            .args(flags)
            .arg(format!("-I{}", hwlib.display()))
            .args(includes.iter().map(|i| format!("-I{}", i.display())))
            .args([
                "out/model.c",
                "out/model.dla.c",
                "out/model.dsp.c",
                "driver.c",
            ])
            .arg(hwlib.join("acc_devices.c"))
            .args(sources)
            .args(["-o", name, "-lm"])
            .output()
            .expect("gcc runs");
        assert!(
            built.status.success(),
            "gcc {name}: {}",
            String::from_utf8_lossy(&built.stderr)
        );
        let ran = Command::new(d.join(name))
            .current_dir(d)
            .env("TSAN_OPTIONS", "halt_on_error=1 exitcode=66")
            .output()
            .expect("the program runs");
        let report = String::from_utf8_lossy(&ran.stderr);
        assert!(
            ran.status.success() && report.is_empty(),
            "{name}: {report}"
        );
        assert_eq!(
            ran.stdout, expected,
            "{name}: the C differs from the interpreter"
        );
    }
}
