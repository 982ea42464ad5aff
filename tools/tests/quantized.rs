//! Quantized models from onnxruntime's static quantizer (examples/onnx/*.qdq.onnx,
//! int8, and *.qdq4.onnx, int4; made by make_quantized.py): `quantize` folds their
//! QDQ groups into integer ops that compute what the QDQ graph computes, and the
//! example target (examples/targets/tinynpu.acc) runs their convolutions, fully
//! connected layers and activation tables as calls of its C library, bit for bit as
//! the interpreter runs the graph.

use std::path::Path;
use std::process::Command;

mod support;
use support::{
    bits, compile_and_run, cross_compile_and_run_riscv64, driver, examples, floats, run,
    run_stderr, write_input,
};

/// Names with how many times they must appear.
type Counts = &'static [(&'static str, usize)];

/// The models, the ops `quantize` must leave, and the ops `partition` must place on
/// each intrinsic (function, ops; `tensorize` may split an op into several calls).
const MODELS: [(&str, Counts, Counts); 4] = [
    (
        "lenet5.qdq",
        &[
            ("graph.qconv2d", 2),
            ("graph.qmatmul", 3),
            ("graph.lookup", 2),
        ],
        &[
            ("npu_conv2d_s8", 2),
            ("npu_matmul_bias_s8", 3),
            ("npu_lut_s8", 2),
        ],
    ),
    (
        "lenet5.qdq4",
        &[
            ("graph.qconv2d", 2),
            ("graph.qmatmul", 3),
            ("graph.lookup", 2),
        ],
        &[
            ("npu_conv2d_s4", 2),
            ("npu_matmul_bias_s4", 3),
            ("npu_lut_s4", 2),
        ],
    ),
    (
        "cnn.qdq",
        &[
            ("graph.qconv2d", 2),
            ("graph.qmatmul", 1),
            ("graph.max_pool", 1),
        ],
        &[("npu_conv2d_s8", 2), ("npu_matmul_bias_s8", 1)],
    ),
    (
        "cnn.qdq4",
        &[
            ("graph.qconv2d", 2),
            ("graph.qmatmul", 1),
            ("graph.lookup", 1),
        ],
        &[
            ("npu_conv2d_s4", 2),
            ("npu_matmul_bias_s4", 1),
            ("npu_lut_s4", 1),
        ],
    ),
];

fn acc(tool: &str) -> Command {
    Command::new(match tool {
        "opt" => env!("CARGO_BIN_EXE_acc-opt"),
        "run" => env!("CARGO_BIN_EXE_acc-run"),
        _ => env!("CARGO_BIN_EXE_acc-translate"),
    })
}

/// The model's input file (the float model's: the quantized ones share it).
fn input(model: &str) -> std::path::PathBuf {
    let base = model.split('.').next().unwrap_or(model);
    examples().join(format!("{base}.input0.npy"))
}

/// Runs `ir` in the interpreter on the model's input; its output.
fn interpret(d: &Path, model: &str, ir: &str, out: &str) -> Vec<f32> {
    run(acc("run")
        .current_dir(d)
        .arg(ir)
        .arg("--input")
        .arg(format!("0={}", input(model).display()))
        .arg("-o")
        .arg(out));
    floats(&d.join(out))
}

/// Imports the model as `qdq.mlir` in `d` and folds it with `quantize` into
/// `int.mlir`.
fn import_and_fold(d: &Path, model: &str) {
    run(acc("translate")
        .current_dir(d)
        .arg("--import-onnx")
        .arg(examples().join(format!("{model}.onnx")))
        .args(["-o", "qdq.mlir"]));
    run(acc("opt").current_dir(d).args([
        "--pipeline",
        "quantize-pipeline",
        "qdq.mlir",
        "-o",
        "int.mlir",
    ]));
}

fn count(text: &str, what: &str) -> usize {
    text.matches(&format!("= {what} ")).count()
}

#[test]
fn quantize_folds_qdq_models_into_integer_ops_that_compute_the_same() {
    let dir = tempfile::tempdir().expect("a directory");
    for (model, integer_ops, _) in MODELS {
        let d = dir.path().join(model);
        std::fs::create_dir_all(&d).expect("a directory");
        import_and_fold(&d, model);
        let folded = std::fs::read_to_string(d.join("int.mlir")).expect("output");
        for (op, n) in integer_ops {
            assert_eq!(count(&folded, op), *n, "{model}: {op}\n{folded}");
        }
        // Max pooling, where it is quantized, runs on the stored integers.
        let pooled = integer_ops.iter().any(|(op, _)| *op == "graph.max_pool");
        for line in folded
            .lines()
            .filter(|l| pooled && l.contains("= graph.max_pool "))
        {
            assert!(line.contains("xi8>) -> tensor<"), "{model}: {line}");
        }
        for float_op in ["graph.conv2d", "graph.gemm", "graph.matmul"] {
            assert_eq!(count(&folded, float_op), 0, "{model}: {float_op} left");
        }
        // The integer ops compute what the QDQ graph computes, on this input bit for
        // bit (they may differ by one output step where the float graph's f32
        // rounding crosses a rounding boundary; here nothing does).
        let qdq = interpret(&d, model, "qdq.mlir", "qdq.npy");
        let int = interpret(&d, model, "int.mlir", "int.npy");
        assert_eq!(bits(&qdq), bits(&int), "{model}");
        // onnxruntime runs its own integer kernels: at most one output differs,
        // by one step of the output's scale (lenet5.qdq's last logit).
        let ort = floats(&examples().join(format!("{model}.output0.npy")));
        assert_eq!(ort.len(), qdq.len(), "{model}");
        let differing: Vec<(f32, f32)> = qdq
            .iter()
            .zip(&ort)
            .filter(|(a, b)| a != b)
            .map(|(a, b)| (*a, *b))
            .collect();
        assert!(
            differing.len() <= 1 && differing.iter().all(|(a, b)| (a - b).abs() < 0.1),
            "{model}: {differing:?}"
        );
    }
}

#[test]
fn quantized_models_run_as_c_with_the_accelerator_calls_bit_for_bit() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let target = root.join("examples/targets/tinynpu.acc");
    let hwlib = root.join("examples/hwlib");
    let hwlib_c = hwlib.join("tinynpu.c");
    let dir = tempfile::tempdir().expect("a directory");
    let mut riscv_runs = 0;
    for (model, _, calls) in MODELS {
        let d = dir.path().join(model);
        std::fs::create_dir_all(&d).expect("a directory");
        import_and_fold(&d, model);
        // Partition: every op left on the host says why.
        let placed = acc("opt")
            .current_dir(&d)
            .arg("--target")
            .arg(&target)
            .args([
                "--remarks",
                "--pass",
                "partition",
                "int.mlir",
                "-o",
                "placed.mlir",
            ])
            .output()
            .expect("acc-opt runs");
        assert!(placed.status.success(), "{model}");
        let remarks = String::from_utf8_lossy(&placed.stderr);
        let placed_ir = std::fs::read_to_string(d.join("placed.mlir")).expect("output");
        let host_ops = placed_ir
            .lines()
            .filter(|l| l.contains(" = graph.") && !l.contains("graph.constant"))
            .filter(|l| !l.contains("hw.device"))
            .count();
        assert!(host_ops > 0, "{model}");
        assert_eq!(
            remarks.matches("stays on cpu").count(),
            host_ops,
            "{model}: {remarks}"
        );
        // Lowered (checked pass by pass against the interpreter), then C.
        let lowered = acc("opt")
            .current_dir(&d)
            .arg("--target")
            .arg(&target)
            .args([
                "--check-semantics",
                "--remarks",
                "--pass",
                "tensorize,weight-prep,graph-to-tensor,bufferize,fuse-parallel,math-approximation,buffer-deallocation,memory-plan",
                "placed.mlir",
                "-o",
                "loops.mlir",
            ])
            .output()
            .expect("acc-opt runs");
        let remarks = String::from_utf8_lossy(&lowered.stderr);
        assert!(lowered.status.success(), "{model}: {remarks}");
        // Each arena (the SRAM's, the accelerator's local memory's) is within 10% of
        // the most bytes alive at once.
        for arena_of in ["in an arena of ", "in memory \"npu_local\"'s arena of "] {
            let plan = remarks
                .lines()
                .find_map(|l| l.split_once(arena_of))
                .map(|(_, rest)| rest)
                .unwrap_or_else(|| panic!("{model}: no plan '{arena_of}' in {remarks}"));
            let numbers: Vec<u64> = plan
                .split(|c: char| !c.is_ascii_digit())
                .filter_map(|w| w.parse().ok())
                .collect();
            let &[arena, bound] = numbers.as_slice() else {
                panic!("{model}: {plan}");
            };
            assert!(
                arena >= bound && arena * 10 <= bound * 11,
                "{model}: {plan}"
            );
        }
        // Every call reads and writes the local memory only: its buffers were
        // staged there by DMA.
        let loops = std::fs::read_to_string(d.join("loops.mlir")).expect("output");
        for call in loops.lines().filter(|l| l.contains("hw.intrinsic \"npu_")) {
            let signature = call.split_once(" : (").map_or("", |(_, t)| t);
            assert_eq!(
                signature.matches("memref<").count(),
                signature.matches(", \"npu_local\">").count(),
                "{model}: {call}"
            );
        }
        run(acc("translate")
            .current_dir(&d)
            .args(["--emit-c", "loops.mlir", "-o", "c"]));
        let source = std::fs::read_to_string(d.join("c/model.c")).expect("model.c");
        let mut total_calls = 0;
        for (function, n) in calls {
            // Declared once, called once per op or per tile of an op tensorize split.
            let tiles = tiles_of(&remarks, function);
            let expected = n + tiles.iter().map(|t| t - 1).sum::<usize>();
            assert_eq!(
                source.matches(&format!("{function}(")).count(),
                expected + 1,
                "{model}: {function}"
            );
            total_calls += expected;
        }
        let x = floats(&input(model));
        let want = interpret(&d, model, "int.mlir", "int.npy");
        write_input(&d, &[x.len()], &x);
        // The driver also writes the MACs the reference library counted.
        let count_macs = driver(x.len(), want.len()).replace(
            "    return 0;\n}",
            "    FILE *m = fopen(\"macs.txt\", \"w\");\n    if (!m) return 4;\n    fprintf(m, \"%llu %llu\", (unsigned long long)npu_macs(), (unsigned long long)npu_dma_bytes());\n    fclose(m);\n    return 0;\n}",
        );
        let count_macs = count_macs.replace(
            "#include \"model.h\"",
            "#include \"model.h\"\n#include \"tinynpu.h\"",
        );
        let got = compile_and_run(
            &d,
            &count_macs,
            &["-I", &hwlib.to_string_lossy(), &hwlib_c.to_string_lossy()],
        );
        assert_eq!(got, bits(&want), "{model}: C and the interpreter differ");
        // The same C on the microcontroller's architecture, when a cross compiler
        // and qemu are installed (.ci/run installs them).
        let library = [hwlib.to_string_lossy(), hwlib_c.to_string_lossy()];
        if let Some(rv) =
            cross_compile_and_run_riscv64(&d, &count_macs, &["-I", &library[0], &library[1]])
        {
            assert_eq!(
                rv,
                bits(&want),
                "{model}: C on riscv64 and the interpreter differ"
            );
            riscv_runs += 1;
        }
        // The simulator charges the target's cost model for the same calls: the MACs
        // it declares are the ones the library does.
        let sim = run(acc("run")
            .current_dir(&d)
            .arg("loops.mlir")
            .arg("--input")
            .arg(format!("0={}", input(model).display()))
            .args(["--mode", "sim", "--target"])
            .arg(&target));
        let total = sim
            .lines()
            .find_map(|l| l.strip_prefix("sim: device=npu "))
            .unwrap_or_else(|| panic!("{model}: no totals in {sim}"));
        let counted = std::fs::read_to_string(d.join("macs.txt")).expect("macs.txt");
        let (macs, dma_bytes) = counted.split_once(' ').expect("two counts");
        assert!(
            total.contains(&format!(" macs={macs} ")),
            "{model}: {total} vs {macs}"
        );
        assert!(
            total.starts_with(&format!("calls={total_calls} ")),
            "{model}: {total}"
        );
        // The bytes it charges the DMA engine for are the ones the library copied.
        let dma = sim
            .lines()
            .find_map(|l| l.strip_prefix("sim: dma=npu_dma "))
            .unwrap_or_else(|| panic!("{model}: no DMA totals in {sim}"));
        assert!(
            dma.contains(&format!(" bytes={dma_bytes} ")),
            "{model}: {dma} vs {dma_bytes}"
        );
    }
    eprintln!(
        "{riscv_runs} of {} models also ran on riscv64 under qemu",
        MODELS.len()
    );
}

/// The tile counts of the ops `tensorize` split for `intrinsic`, from its remarks.
fn tiles_of(remarks: &str, intrinsic: &str) -> Vec<usize> {
    let said = format!("tensorize: '{intrinsic}' computes this in ");
    remarks
        .lines()
        .filter_map(|l| l.split_once(&said))
        .filter_map(|(_, rest)| rest.split(' ').next()?.parse().ok())
        .collect()
}

#[test]
fn sim_mode_needs_the_target() {
    let out = acc("run")
        .args(["--mode", "sim", "model.mlir"])
        .output()
        .expect("acc-run runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("--mode sim needs the target's cost model: give it with --target FILE")
    );
}

/// Seeded standard-normal-like samples (a sum of uniform draws), as calibration data.
fn samples(n: usize, seed: u64) -> Vec<f32> {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut uniform = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 40) as f32 / (1u64 << 24) as f32
    };
    (0..n)
        .map(|_| (0..12).map(|_| uniform()).sum::<f32>() - 6.0)
        .collect()
}

#[test]
fn float_models_calibrated_to_8_4_and_2_bits_run_on_the_accelerator() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let target = root.join("examples/targets/tinynpu.acc");
    let hwlib = root.join("examples/hwlib");
    let hwlib_c = hwlib.join("tinynpu.c");
    let dir = tempfile::tempdir().expect("a directory");
    for (model, shape, convs, products, tables) in [
        ("lenet5", [1usize, 1, 28, 28], 2, 3, 4),
        ("cnn", [1, 3, 8, 8], 2, 1, 0),
    ] {
        for width in [8, 4, 2] {
            let d = dir.path().join(format!("{model}-{width}"));
            std::fs::create_dir_all(&d).expect("a directory");
            // Eight calibration samples, stacked.
            let n: usize = shape.iter().product();
            let mut stacked = shape;
            stacked[0] = 8;
            write_input(&d, &stacked, &samples(8 * n, 7));
            std::fs::rename(d.join("x.npy"), d.join("samples.npy")).expect("rename");
            run(acc("translate")
                .current_dir(&d)
                .arg("--import-onnx")
                .arg(examples().join(format!("{model}.onnx")))
                .args(["-o", "float.mlir"]));
            let pipeline = format!("accel-pipeline{{samples=samples.npy bits={width}}}");
            let remarks = run_stderr(
                acc("opt")
                    .current_dir(&d)
                    .arg("--target")
                    .arg(&target)
                    .args([
                        "--check-semantics",
                        "--remarks",
                        "--pass",
                        &pipeline,
                        "float.mlir",
                        "-o",
                        "loops.mlir",
                    ]),
            );
            run(acc("translate")
                .current_dir(&d)
                .args(["--emit-c", "loops.mlir", "-o", "c"]));
            let source = std::fs::read_to_string(d.join("c/model.c")).expect("model.c");
            let conv = format!("npu_conv2d_s{width}(");
            let fc = format!("npu_matmul_bias_s{width}(");
            let conv_tiles = tiles_of(&remarks, &format!("npu_conv2d_s{width}"));
            assert_eq!(
                source.matches(&conv).count(),
                convs + conv_tiles.iter().map(|t| t - 1).sum::<usize>() + 1,
                "{model} at {width} bits"
            );
            let fc_tiles = tiles_of(&remarks, &format!("npu_matmul_bias_s{width}"));
            assert_eq!(
                source.matches(&fc).count(),
                products + fc_tiles.iter().map(|t| t - 1).sum::<usize>() + 1,
                "{model} at {width} bits"
            );
            // Declared once and called per table, or absent.
            let lut = format!("npu_lut_s{width}(");
            let lut_tiles = tiles_of(&remarks, &format!("npu_lut_s{width}"));
            let calls = tables + lut_tiles.iter().map(|t| t - 1).sum::<usize>();
            let declared_and_called = if calls > 0 { calls + 1 } else { 0 };
            assert_eq!(
                source.matches(&lut).count(),
                declared_and_called,
                "{model} at {width} bits"
            );
            // C (with the reference library) equals the interpreter bit for bit.
            let want = interpret(&d, model, "loops.mlir", "loops.npy");
            let x = floats(&input(model));
            write_input(&d, &[x.len()], &x);
            let got = compile_and_run(
                &d,
                &driver(x.len(), want.len()),
                &["-I", &hwlib.to_string_lossy(), &hwlib_c.to_string_lossy()],
            );
            assert_eq!(got, bits(&want), "{model} at {width} bits");
            // At 8 and 4 bits the outputs still tell classes apart (at 2 bits LeNet-5's
            // collapse to zero: docs/lowering.md).
            if width >= 4 {
                assert!(
                    want.iter().any(|v| *v != want[0]),
                    "{model} at {width} bits: {want:?}"
                );
            }
            // At 8 bits the quantized model stays close to the float one: the same
            // top class, every output within 10% of the outputs' spread.
            if width == 8 {
                let float = floats(&examples().join(format!("{model}.output0.npy")));
                let top = |v: &[f32]| {
                    (0..v.len())
                        .max_by(|a, b| v[*a].total_cmp(&v[*b]))
                        .unwrap_or(0)
                };
                assert_eq!(top(&want), top(&float), "{model}: {want:?} vs {float:?}");
                let spread = float.iter().copied().fold(f32::MIN, f32::max)
                    - float.iter().copied().fold(f32::MAX, f32::min);
                let worst = want
                    .iter()
                    .zip(&float)
                    .map(|(a, b)| (a - b).abs())
                    .fold(0.0, f32::max);
                assert!(worst <= 0.1 * spread, "{model}: {worst} of {spread}");
            }
        }
    }
}

/// A convolution whose call passes Q31 tables (test/lit/targets/Inputs/
/// fixed-point-npu.acc): its semantics region holds the accumulators and a rescale,
/// and the simulator still charges the cycles its intrinsic declares for it
/// (100 + 32 outputs * 27 MACs / 32), and the host its declared cycles an op.
#[test]
fn a_call_computing_with_its_tables_and_the_host_are_charged_what_the_target_declares() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let target = root.join("test/lit/targets/Inputs/fixed-point-npu.acc");
    let dir = tempfile::tempdir().expect("a directory");
    let d = dir.path();
    let model = r#"func.func @main(%x: tensor<1x3x7x7xf32>) -> tensor<1x2x4x4xf32> {
  %q = graph.quantize %x : tensor<1x3x7x7xf32> to tensor<1x3x7x7x!quant.uniform<i8:f32, 0.05:-3>>
  %wi = graph.constant dense<[[[[1, -2, 3], [4, 5, -6], [7, 8, 9]], [[-1, 2, 3], [4, -5, 6], [7, 8, -9]], [[2, 0, 1], [0, 3, 0], [1, 0, 2]]], [[[0, 1, 0], [1, -4, 1], [0, 1, 0]], [[5, 5, 5], [5, 5, 5], [5, 5, 5]], [[-5, -5, -5], [-5, -5, -5], [-5, -5, -5]]]]> : tensor<2x3x3x3xi8>
  %w = graph.storage_cast %wi : tensor<2x3x3x3xi8> to tensor<2x3x3x3x!quant.uniform<i8:f32:0, {0.25, 0.003}>>
  %b = graph.constant dense<[5, -9]> : tensor<2xi32>
  %c = graph.qconv2d %q, %w, %b {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, requant = #graph.requantization<fixed_point>} : (tensor<1x3x7x7x!quant.uniform<i8:f32, 0.05:-3>>, tensor<2x3x3x3x!quant.uniform<i8:f32:0, {0.25, 0.003}>>, tensor<2xi32>) -> tensor<1x2x4x4x!quant.uniform<i8:f32, 0.1:5>>
  %y = graph.dequantize %c : tensor<1x2x4x4x!quant.uniform<i8:f32, 0.1:5>> to tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}
"#;
    std::fs::write(d.join("q.mlir"), model).expect("write");
    run(acc("opt")
        .current_dir(d)
        .arg("--target")
        .arg(&target)
        .args([
            "--check-semantics",
            "--pass",
            "partition,weight-prep,graph-to-tensor,bufferize,buffer-deallocation,memory-plan",
            "q.mlir",
            "-o",
            "loops.mlir",
        ]));
    let x: Vec<f32> = (0..147).map(|i| ((i as f32) * 0.43).sin()).collect();
    write_input(d, &[1, 3, 7, 7], &x);
    let sim = run(acc("run")
        .current_dir(d)
        .args(["--mode", "sim", "--target"])
        .arg(&target)
        .args(["loops.mlir", "--input", "0=x.npy"]));
    assert!(sim.contains("sim: device=npu calls=1 cycles=127 "), "{sim}");
    // The host's own code (the quantize and dequantize loops) costs the 2 cycles an
    // op the target declares, before and after the call.
    let field = |prefix: &str, key: &str| -> i64 {
        let line = sim
            .lines()
            .find_map(|l| l.strip_prefix(prefix))
            .unwrap_or_else(|| panic!("no '{prefix}' in {sim}"));
        line.split_whitespace()
            .find_map(|kv| kv.strip_prefix(key))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no '{key}' in {line}"))
    };
    let (ops, cycles) = (field("sim: host ", "ops="), field("sim: host ", "cycles="));
    assert!(ops > 179, "the loops over 147 and 32 elements: {sim}");
    assert_eq!(cycles, 2 * ops, "{sim}");
    assert_eq!(field("sim: elapsed ", "cycles="), 127 + cycles, "{sim}");
}
