//! The IR benchmark: a generator of N-op generic-form files, and a timer for parsing,
//! verifying and printing them.
//!
//! Generated functions mix `arith` integer and float ops, `arith.cmpi`/`select`,
//! constants, nested `scf.if` regions and repeated expressions (the same op on the
//! same operands, which CSE will remove later), written in MLIR's generic form so that
//! `mlir-opt` parses the very same file.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// Ops per generated function (approximately).
const OPS_PER_FUNCTION: usize = 100;

/// Writes a generic-form module of about `ops` ops (the count includes functions,
/// returns and yields). Deterministic for a given `ops`.
pub fn generate(ops: usize) -> String {
    generate_with(ops, true)
}

/// As [`generate`]; without `scf.if` regions when `regions` is false, so that only
/// `func` and `arith` ops remain (what both acc and `mlir-opt` know, for comparing
/// passes that do the same work).
pub fn generate_with(ops: usize, regions: bool) -> String {
    let mut out = String::with_capacity(ops * 70);
    out.push_str("\"builtin.module\"() ({\n");
    let mut emitted = 1;
    let mut f = 0;
    while emitted < ops {
        let budget = (ops - emitted).clamp(4, OPS_PER_FUNCTION);
        emitted += write_function(&mut out, f, budget, regions);
        f += 1;
    }
    out.push_str("}) : () -> ()\n");
    out
}

/// One function of about `budget` ops; returns how many it wrote.
fn write_function(out: &mut String, index: usize, budget: usize, regions: bool) -> usize {
    let _ = writeln!(
        out,
        "  \"func.func\"() <{{function_type = (i32, i32, f32) -> i32, sym_name = \"f{index}\"}}> ({{\n  ^bb0(%arg0: i32, %arg1: i32, %arg2: f32):"
    );
    let mut n = 2; // the function and its return
    let mut ints: Vec<String> = vec!["%arg0".into(), "%arg1".into()];
    let mut floats: Vec<String> = vec!["%arg2".into()];
    let mut next = 0usize;
    let fresh = |next: &mut usize| {
        let v = format!("%{}", *next);
        *next += 1;
        v
    };
    let pick = |vals: &[String], k: usize| vals[(k * 7 + 3) % vals.len()].clone();
    let mut k = index;
    while n + 1 < budget {
        k += 1;
        let v = fresh(&mut next);
        match k % 10 {
            0 => {
                let _ = writeln!(
                    out,
                    "    {v} = \"arith.constant\"() <{{value = {} : i32}}> : () -> i32",
                    k % 97
                );
                ints.push(v);
                n += 1;
            }
            1 | 2 => {
                let (a, b) = (pick(&ints, k), pick(&ints, k + 1));
                let _ = writeln!(
                    out,
                    "    {v} = \"arith.addi\"({a}, {b}) : (i32, i32) -> i32"
                );
                // A repeated expression: the same op on the same operands.
                let w = fresh(&mut next);
                let _ = writeln!(
                    out,
                    "    {w} = \"arith.addi\"({a}, {b}) : (i32, i32) -> i32"
                );
                ints.push(v);
                ints.push(w);
                n += 2;
            }
            3 => {
                let (a, b) = (pick(&ints, k), pick(&ints, k + 2));
                let _ = writeln!(
                    out,
                    "    {v} = \"arith.muli\"({a}, {b}) : (i32, i32) -> i32"
                );
                ints.push(v);
                n += 1;
            }
            4 => {
                let (a, b) = (pick(&ints, k), pick(&ints, k + 3));
                let _ = writeln!(
                    out,
                    "    {v} = \"arith.subi\"({a}, {b}) : (i32, i32) -> i32"
                );
                ints.push(v);
                n += 1;
            }
            5 => {
                let (a, b) = (pick(&floats, k), pick(&floats, k + 1));
                let _ = writeln!(
                    out,
                    "    {v} = \"arith.mulf\"({a}, {b}) : (f32, f32) -> f32"
                );
                floats.push(v);
                n += 1;
            }
            6 => {
                let (a, b) = (pick(&ints, k), pick(&ints, k + 4));
                let c = fresh(&mut next);
                let _ = writeln!(
                    out,
                    "    {v} = \"arith.cmpi\"({a}, {b}) <{{predicate = 2 : i64}}> : (i32, i32) -> i1"
                );
                let _ = writeln!(
                    out,
                    "    {c} = \"arith.select\"({v}, {a}, {b}) : (i1, i32, i32) -> i32"
                );
                ints.push(c);
                n += 2;
            }
            7 if regions && n + 6 < budget => {
                let (a, b) = (pick(&ints, k), pick(&ints, k + 5));
                let cond = v;
                let r = fresh(&mut next);
                let x = fresh(&mut next);
                let _ = writeln!(
                    out,
                    "    {cond} = \"arith.cmpi\"({a}, {b}) <{{predicate = 4 : i64}}> : (i32, i32) -> i1"
                );
                let _ = writeln!(out, "    {r} = \"scf.if\"({cond}) ({{");
                let _ = writeln!(
                    out,
                    "      {x} = \"arith.muli\"({a}, {b}) : (i32, i32) -> i32"
                );
                let _ = writeln!(out, "      \"scf.yield\"({x}) : (i32) -> ()");
                let _ = writeln!(
                    out,
                    "    }}, {{\n      \"scf.yield\"({a}) : (i32) -> ()\n    }}) : (i1) -> i32"
                );
                ints.push(r);
                n += 5;
            }
            _ => {
                let a = pick(&floats, k);
                let _ = writeln!(
                    out,
                    "    {v} = \"arith.addf\"({a}, {a}) : (f32, f32) -> f32"
                );
                floats.push(v);
                n += 1;
            }
        }
    }
    let _ = writeln!(
        out,
        "    \"func.return\"({}) : (i32) -> ()\n  }}) : () -> ()",
        ints[ints.len() - 1]
    );
    n
}

/// Timings of one parse, verify and print run.
#[derive(Debug, Clone)]
pub struct Timings {
    /// Ops in the parsed IR.
    pub ops: usize,
    /// Parse time.
    pub parse: Duration,
    /// Verify time.
    pub verify: Duration,
    /// Print time (generic form, to a discarding sink).
    pub print: Duration,
    /// Bytes printed.
    pub printed_bytes: usize,
}

/// Parses, verifies and prints `text`, timing each phase.
pub fn measure(text: &str) -> Result<Timings, String> {
    let mut ctx = acc_dialects::new_context();
    ctx.allow_unregistered = true;
    let mut sources = acc_ir::SourceMap::new();
    let file = sources.add("bench.mlir", text.to_string());
    let t0 = Instant::now();
    let ir = acc_ir::parser::parse_file(&mut ctx, &sources, file).map_err(|d| d.message)?;
    let parse = t0.elapsed();
    let t1 = Instant::now();
    acc_ir::verifier::verify(&ctx, &ir).map_err(|d| d[0].message.clone())?;
    let verify = t1.elapsed();
    let t2 = Instant::now();
    let mut sink = CountingSink(0);
    let opts = acc_ir::printer::PrintOptions {
        generic: true,
        ..Default::default()
    };
    acc_ir::printer::write_ir(&ctx, &ir, &opts, &mut sink).map_err(|e| e.to_string())?;
    let print = t2.elapsed();
    Ok(Timings {
        ops: ir.count_ops(),
        parse,
        verify,
        print,
        printed_bytes: sink.0,
    })
}

/// A writer that counts and discards.
struct CountingSink(usize);

impl std::io::Write for CountingSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Peak resident memory of this process in KiB (Linux `VmHWM`), if known.
pub fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_file_parses_verifies_and_has_the_requested_size() {
        let text = generate(5_000);
        let t = measure(&text).expect("generated IR is valid");
        assert!((4_900..=5_100).contains(&t.ops), "ops = {}", t.ops);
        assert!(t.printed_bytes > 100_000);
        assert_eq!(generate(5_000), text, "generator is deterministic");
    }
}
