//! The asynchronous device program end to end: `schedule-devices` on a function of
//! two devices, run by the simulator against the same function left sequential.
//! The results are the same; the launches overlap, so the makespan is below both
//! the sequential one and the sum of the devices' busy cycles; and the timeline is a
//! well-formed Chrome trace (metadata and complete events, each lane's events
//! nested or disjoint, as trace viewers require). As C, a program per device, run
//! by a thread per device (examples/hwlib/acc_devices.c, test/c/two-devices), it
//! gives the interpreter's results bit for bit, under ThreadSanitizer too. With
//! `forward-transfers`, results cross between the devices' memories directly.

use std::path::Path;

mod support;
use support::{figure, npy_data, tool};

const TARGET: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../test/lit/targets/Inputs/two-devices.acc"
);

/// Two chains crossing between the DLA (zero point 0) and the DSP (zero point 1).
fn module() -> String {
    let table: Vec<String> = (0..256)
        .map(|i| (((i * 7) % 256) - 128).to_string())
        .collect();
    format!(
        r#"!q0 = !quant.uniform<i8:f32, 1.000000e-01>
!q1 = !quant.uniform<i8:f32, 1.000000e-01:1>
func.func @crossing(%x: tensor<1x4x8x8x!q0>, %y: tensor<1x4x8x8x!q1>) -> (tensor<1x4x8x8x!q0>, tensor<1x4x8x8x!q0>) {{
  %t = graph.constant dense<[{}]> : tensor<256xi8>
  %a = graph.lookup %x, %t : (tensor<1x4x8x8x!q0>, tensor<256xi8>) -> tensor<1x4x8x8x!q1>
  %b = graph.lookup %y, %t : (tensor<1x4x8x8x!q1>, tensor<256xi8>) -> tensor<1x4x8x8x!q0>
  %c = graph.lookup %a, %t : (tensor<1x4x8x8x!q1>, tensor<256xi8>) -> tensor<1x4x8x8x!q0>
  %d = graph.lookup %b, %t : (tensor<1x4x8x8x!q0>, tensor<256xi8>) -> tensor<1x4x8x8x!q1>
  %e = graph.lookup %d, %t : (tensor<1x4x8x8x!q1>, tensor<256xi8>) -> tensor<1x4x8x8x!q0>
  return %c, %e : tensor<1x4x8x8x!q0>, tensor<1x4x8x8x!q0>
}}
"#,
        table.join(", ")
    )
}

/// An .npy file (format 1.0) of shape 1x4x8x8: `descr` the element type (`|i1`,
/// `<f4`), `data` the values' bytes.
fn npy(path: &Path, descr: &str, data: &[u8]) {
    let mut header =
        format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': (1, 4, 8, 8), }}");
    while !(10 + header.len() + 1).is_multiple_of(64) {
        header.push(' ');
    }
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    bytes.extend_from_slice(data);
    std::fs::write(path, bytes).expect("write input");
}

/// An .npy file of `int8` values of shape 1x4x8x8.
fn npy_i8(path: &Path, values: &[i8]) {
    let data: Vec<u8> = values.iter().map(|v| *v as u8).collect();
    npy(path, "|i1", &data);
}

/// The `result K: ...` lines of an acc-run report.
fn results(report: &str) -> Vec<String> {
    report
        .lines()
        .filter(|l| l.starts_with("result "))
        .map(str::to_string)
        .collect()
}

/// A directory with the module (`f.mlir`) and its two inputs (`x.npy`, `y.npy`: the
/// values the C driver below makes too).
fn setup() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let d = dir.path();
    std::fs::write(d.join("f.mlir"), module()).expect("write IR");
    let x: Vec<i8> = (0..256)
        .map(|i| ((i * 37 + 11) % 256 - 128) as i8)
        .collect();
    let y: Vec<i8> = (0..256).map(|i| ((i * 91 + 5) % 256 - 128) as i8).collect();
    npy_i8(&d.join("x.npy"), &x);
    npy_i8(&d.join("y.npy"), &y);
    dir
}

#[test]
fn launches_overlap_compute_the_same_and_give_a_well_formed_timeline() {
    let dir = setup();
    let d = dir.path();
    let lower = "partition,graph-to-tensor,bufferize,buffer-deallocation";
    let scheduled = format!("{lower},forward-transfers,memory-plan,schedule-devices");
    let sequential = format!("{lower},memory-plan");
    for (passes, out) in [(&scheduled, "async.mlir"), (&sequential, "seq.mlir")] {
        tool(
            "opt",
            d,
            &[
                "--target",
                TARGET,
                "--check-semantics",
                "--pass",
                passes,
                "f.mlir",
                "-o",
                out,
            ],
        );
    }
    let sim = |file: &str, extra: &[&str]| {
        let mut args = vec![
            file, "--mode", "sim", "--target", TARGET, "--input", "0=x.npy", "--input", "1=y.npy",
        ];
        args.extend_from_slice(extra);
        tool("run", d, &args)
    };
    let overlapped = sim("async.mlir", &["--trace", "t.json"]);
    let in_order = sim("seq.mlir", &[]);
    assert_eq!(results(&overlapped), results(&in_order));
    // Five calls; two of them split from their transfers where the memory plan
    // reuses bytes another device still reads.
    assert_eq!(figure(&overlapped, "launches"), 7, "{overlapped}");
    let makespan = figure(&overlapped, "makespan");
    let busy = figure(&overlapped, "devices_busy_sum");
    assert!(
        makespan < busy,
        "makespan {makespan}, busy {busy}:\n{overlapped}"
    );
    let elapsed = in_order
        .lines()
        .find_map(|l| l.strip_prefix("sim: elapsed cycles="))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|v| v.parse::<i64>().ok())
        .expect("elapsed cycles");
    assert!(
        makespan < elapsed,
        "{makespan} not below the sequential {elapsed}"
    );
    assert!(overlapped.contains("sim: critical_path="), "{overlapped}");
    // forward-transfers: each result crossing devices goes between the local
    // memories (three of them), none through the DDR; the DDR engines move only the
    // inputs, the tables and the two results.
    assert!(
        overlapped.contains("sim: dma=dla_to_dsp transfers=3 bytes=768"),
        "{overlapped}"
    );
    assert!(
        in_order.contains("sim: dma=dla_dma transfers=6 bytes=1536"),
        "{in_order}"
    );
    assert!(
        overlapped.contains("sim: dma=dla_dma transfers=3 bytes=768"),
        "{overlapped}"
    );

    let trace: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("t.json")).expect("the trace")).expect("JSON");
    let events = trace["traceEvents"].as_array().expect("traceEvents");
    let lanes: Vec<&str> = events
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "thread_name")
        .map(|e| e["args"]["name"].as_str().expect("a lane name"))
        .collect();
    assert_eq!(
        lanes,
        [
            "arm",
            "dla",
            "dma dla_dma",
            "dsp",
            "dma dsp_dma",
            "dma dla_to_dsp"
        ]
    );
    let mut spans: Vec<(u64, i64, i64)> = Vec::new();
    for e in events {
        match e["ph"].as_str() {
            Some("M") => {}
            Some("X") => {
                let (ts, dur) = (
                    e["ts"].as_i64().expect("ts"),
                    e["dur"].as_i64().expect("dur"),
                );
                assert!(ts >= 0 && dur >= 0, "{e}");
                assert!(
                    ts + dur <= makespan,
                    "{e} ends after the makespan {makespan}"
                );
                assert!(e["name"].is_string() && e["pid"] == 1, "{e}");
                spans.push((e["tid"].as_u64().expect("tid"), ts, ts + dur));
            }
            other => panic!("an event of phase {other:?}: {e}"),
        }
    }
    for (i, a) in spans.iter().enumerate() {
        for b in &spans[i + 1..] {
            let nested = (a.1 <= b.1 && b.2 <= a.2) || (b.1 <= a.1 && a.2 <= b.2);
            let disjoint = a.2 <= b.1 || b.2 <= a.1;
            assert!(
                a.0 != b.0 || nested || disjoint,
                "{a:?} and {b:?} overlap on one lane"
            );
        }
    }
    // Both devices work at once at some point.
    let on = |lane: u64| spans.iter().filter(move |s| s.0 == lane);
    assert!(
        on(1).any(|a| on(3).any(|b| a.1 < b.2 && b.1 < a.2)),
        "the DLA and the DSP never overlap: {spans:?}"
    );
}

/// The two-device target without its `signal dsp -> dla` (the DSP cannot start the
/// DLA: the host waits for the DSP and then starts the DLA), in `d`.
fn relayed_target(d: &Path) -> String {
    let text = std::fs::read_to_string(TARGET).expect("the target");
    let line = "  signal dsp -> dla\n";
    assert!(text.contains(line), "{text}");
    let path = d.join("relayed.acc");
    std::fs::write(&path, text.replace(line, "")).expect("write the target");
    path.display().to_string()
}

#[test]
fn without_a_signal_the_host_starts_the_device_and_the_results_are_the_same() {
    let dir = setup();
    let d = dir.path();
    let relayed = relayed_target(d);
    let passes = "partition,graph-to-tensor,bufferize,buffer-deallocation,forward-transfers,memory-plan,schedule-devices";
    let mut reports = Vec::new();
    for (target, out) in [
        (TARGET, "signalled.mlir"),
        (relayed.as_str(), "relayed.mlir"),
    ] {
        tool(
            "opt",
            d,
            &[
                "--target",
                target,
                "--check-semantics",
                "--pass",
                passes,
                "f.mlir",
                "-o",
                out,
            ],
        );
        reports.push(tool(
            "run",
            d,
            &[
                out, "--mode", "sim", "--target", target, "--input", "0=x.npy", "--input",
                "1=y.npy",
            ],
        ));
    }
    assert_eq!(results(&reports[0]), results(&reports[1]));
    // The host waits once more (for the DSP's work the DLA needs), so it finishes
    // no sooner.
    let text = |f: &str| std::fs::read_to_string(d.join(f)).expect("the IR");
    let waits = |f: &str| text(f).matches("hw.wait").count();
    assert_eq!(waits("relayed.mlir"), waits("signalled.mlir") + 1);
    assert!(
        !text("relayed.mlir")
            .lines()
            .any(|l| l.contains("hw.launch @dla after")),
        "a DLA launch after a DSP's"
    );
    let (signalled, relayed) = (
        figure(&reports[0], "makespan"),
        figure(&reports[1], "makespan"),
    );
    assert!(signalled <= relayed, "{signalled} > {relayed}");
    // As C: the host waits for the DSP's event before starting the DLA, and the
    // program computes what the interpreter computes, on threads, under
    // ThreadSanitizer too.
    let expected = interpreted_and_emitted(d, "relayed.mlir");
    let host = std::fs::read_to_string(d.join("out/model.c")).expect("the host's program");
    assert_eq!(host.matches("acc_event_wait(").count(), 2, "{host}");
    write_crossing_driver(d);
    build_and_run(d, &expected);
}

#[test]
fn the_c_of_each_device_runs_on_threads_as_the_interpreter_computes() {
    let dir = setup();
    let d = dir.path();
    let passes = "partition,graph-to-tensor,bufferize,buffer-deallocation,forward-transfers,memory-plan,schedule-devices";
    tool(
        "opt",
        d,
        &[
            "--target",
            TARGET,
            "--pass",
            passes,
            "f.mlir",
            "-o",
            "async.mlir",
        ],
    );
    let expected = interpreted_and_emitted(d, "async.mlir");
    // One program per device that runs launched work, the host's in model.c.
    let dsp = std::fs::read_to_string(d.join("out/model.dsp.c")).expect("the DSP's program");
    assert_eq!(dsp.matches("dsp_lut(").count(), 3, "{dsp}");
    assert!(!dsp.contains("dla_lut("), "{dsp}");
    // The DSP takes the DLA's results from its memory, not from the DDR.
    assert_eq!(dsp.matches("dla_to_dsp(").count(), 2, "{dsp}");
    let host = std::fs::read_to_string(d.join("out/model.c")).expect("the host's program");
    assert!(
        host.contains("dsp_submit(acc_launch3, &acc_launch3_args, acc_after"),
        "{host}"
    );
    assert_eq!(host.matches("acc_event_wait(").count(), 1, "{host}");
    write_crossing_driver(d);
    build_and_run(d, &expected);
}

/// Runs the scheduled `file` of `d` in the interpreter on the inputs of [`setup`]
/// and emits its C into `d/out`: the bytes of both results, as the C driver prints
/// them.
fn interpreted_and_emitted(d: &Path, file: &str) -> Vec<u8> {
    tool(
        "run",
        d,
        &[
            file, "--input", "0=x.npy", "--input", "1=y.npy", "-o", "c.npy", "-o", "e.npy",
        ],
    );
    let mut expected = npy_data(&d.join("c.npy"));
    expected.extend(npy_data(&d.join("e.npy")));
    std::fs::create_dir_all(d.join("out")).expect("a directory");
    tool("translate", d, &["--emit-c", file, "-o", "out"]);
    expected
}

/// `driver.c` in `d`: runs `crossing` 20 times on the inputs of [`setup`], prints
/// both results.
fn write_crossing_driver(d: &Path) {
    std::fs::write(
        d.join("driver.c"),
        r#"#include <stdint.h>
#include <stdio.h>
#include "model.h"
int main(void) {
    int8_t x[256], y[256], c[256], e[256];
    for (int i = 0; i < 256; i++) {
        x[i] = (int8_t)((i * 37 + 11) % 256 - 128);
        y[i] = (int8_t)((i * 91 + 5) % 256 - 128);
    }
    for (int round = 0; round < 20; round++) {
        crossing(x, y, c, e);
    }
    fwrite(c, 1, sizeof c, stdout);
    fwrite(e, 1, sizeof e, stdout);
    return 0;
}
"#,
    )
    .expect("write the driver");
}

/// A DLA lookup whose result the DSP dequantizes, passes through a sigmoid and
/// scales with loops of its own (`code` rules of the target), then the host adds.
fn post_processing() -> String {
    let table: Vec<String> = (0..256)
        .map(|i| (((i * 7) % 256) - 128).to_string())
        .collect();
    format!(
        r#"!q0 = !quant.uniform<i8:f32, 1.000000e-01>
!q1 = !quant.uniform<i8:f32, 1.000000e-01:1>
func.func @detect(%x: tensor<1x4x8x8x!q0>, %s: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {{
  %t = graph.constant dense<[{}]> : tensor<256xi8>
  %a = graph.lookup %x, %t : (tensor<1x4x8x8x!q0>, tensor<256xi8>) -> tensor<1x4x8x8x!q1>
  %f = graph.dequantize %a : tensor<1x4x8x8x!q1> to tensor<1x4x8x8xf32>
  %g = graph.sigmoid %f : tensor<1x4x8x8xf32>
  %h = graph.mul %g, %s : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %k = graph.add %h, %s : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %k : tensor<1x4x8x8xf32>
}}
"#,
        table.join(", ")
    )
}

/// An .npy file of `float32` values of shape 1x4x8x8.
fn npy_f32(path: &Path, values: &[f32]) {
    let data: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    npy(path, "<f4", &data);
}

#[test]
fn a_programmable_device_runs_its_own_loops_from_its_own_c_file() {
    let dir = setup();
    let d = dir.path();
    std::fs::write(d.join("post.mlir"), post_processing()).expect("write IR");
    let s: Vec<f32> = (0..256).map(|i| (i % 17) as f32 * 0.25 - 2.0).collect();
    npy_f32(&d.join("s.npy"), &s);
    let passes = "partition,graph-to-tensor,bufferize,fuse-parallel,buffer-deallocation,forward-transfers,memory-plan,schedule-devices";
    tool(
        "opt",
        d,
        &[
            "--target",
            TARGET,
            "--check-semantics",
            "--pass",
            passes,
            "post.mlir",
            "-o",
            "async.mlir",
        ],
    );
    let args = ["async.mlir", "--input", "0=x.npy", "--input", "1=s.npy"];
    tool("run", d, &[&args[..], &["--output", "k.npy"]].concat());
    let expected = npy_data(&d.join("k.npy"));
    // The simulator charges the DSP its cycles_per_op for the ops of its loops.
    let sim = tool(
        "run",
        d,
        &[&args[..], &["--mode", "sim", "--target", TARGET]].concat(),
    );
    assert_eq!(figure(&sim, "launches"), 2, "{sim}");
    let dsp_busy = sim
        .lines()
        .find_map(|l| l.strip_prefix("sim: lane=dsp busy="))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|v| v.parse::<i64>().ok())
        .unwrap_or_else(|| panic!("no DSP lane: {sim}"));
    assert!(dsp_busy >= 256 * 10, "{sim}");

    std::fs::create_dir_all(d.join("out")).expect("a directory");
    tool("translate", d, &["--emit-c", "async.mlir", "-o", "out"]);
    // The sigmoid's loop is in the DSP's file, built with its compiler; the host
    // keeps the add.
    let dsp = std::fs::read_to_string(d.join("out/model.dsp.c")).expect("the DSP's program");
    assert!(dsp.contains("Build with: cc -O2 -std=c99"), "{dsp}");
    assert!(dsp.contains("exp(") && dsp.contains("for ("), "{dsp}");
    let host = std::fs::read_to_string(d.join("out/model.c")).expect("the host's program");
    assert!(!host.contains("exp("), "{host}");
    assert!(host.contains("dsp_submit(acc_launch2"), "{host}");
    assert_eq!(host.matches("acc_event_wait(").count(), 1, "{host}");
    let values = |v: &[String]| v.join(", ");
    let x: Vec<String> = (0..256)
        .map(|i| ((i * 37 + 11) % 256 - 128).to_string())
        .collect();
    let s_text: Vec<String> = s.iter().map(|v| format!("{v:?}f")).collect();
    std::fs::write(
        d.join("driver.c"),
        format!(
            r#"#include <stdint.h>
#include <stdio.h>
#include "model.h"
int main(void) {{
    static const int8_t x[256] = {{{}}};
    static const float s[256] = {{{}}};
    float k[256];
    for (int round = 0; round < 20; round++) {{
        detect(x, s, k);
    }}
    fwrite(k, 1, sizeof k, stdout);
    return 0;
}}
"#,
            values(&x),
            values(&s_text)
        ),
    )
    .expect("write the driver");
    build_and_run(d, &expected);
}

/// Builds `out/` (the host's and both devices' programs) with `driver.c` in `d`, on
/// the thread-per-device runtime and the two devices' stubs
/// ([`support::build_and_run_on_threads`]); each run prints `expected`.
fn build_and_run(d: &Path, expected: &[u8]) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let stubs = root.join("test/c/two-devices");
    support::build_and_run_on_threads(d, &[stubs.join("two_devices.c")], &[stubs], expected);
}
