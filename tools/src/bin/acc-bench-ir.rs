//! `acc-bench-ir`: generate N-op IR files and time parse/verify/print.
//!
//! ```text
//! acc-bench-ir gen --ops N [--no-regions] -o FILE
//!                                      write a generic-form file of about N ops
//!                                      (--no-regions: only func and arith ops)
//! acc-bench-ir run FILE                parse, verify and print FILE; report ops/s and peak memory
//! ```

use std::process::ExitCode;

use acc_tools::bench_ir::{generate_with, measure, peak_rss_kib};

fn usage() -> ExitCode {
    eprintln!("usage: acc-bench-ir gen --ops N [--no-regions] -o FILE | acc-bench-ir run FILE");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args = match acc_tools::cli::tool_args("acc-bench-ir") {
        Ok(rest) => rest,
        Err(code) => return code,
    };
    match args.first().map(String::as_str) {
        Some("gen") => {
            let mut ops = None;
            let mut out = None;
            let mut regions = true;
            let mut it = args[1..].iter();
            while let Some(a) = it.next() {
                match a.as_str() {
                    "--ops" => {
                        ops = it
                            .next()
                            .and_then(|v| v.replace('_', "").parse::<usize>().ok())
                    }
                    "-o" => out = it.next().cloned(),
                    "--no-regions" => regions = false,
                    _ => return usage(),
                }
            }
            let (Some(ops), Some(out)) = (ops, out) else {
                return usage();
            };
            if let Err(e) = std::fs::write(&out, generate_with(ops, regions)) {
                eprintln!("acc-bench-ir: cannot write '{out}': {e}");
                return ExitCode::FAILURE;
            }
            ExitCode::SUCCESS
        }
        Some("run") if args.len() == 2 => {
            let text = match std::fs::read_to_string(&args[1]) {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("acc-bench-ir: cannot read '{}': {e}", args[1]);
                    return ExitCode::FAILURE;
                }
            };
            match measure(&text) {
                Ok(t) => {
                    let total = t.parse + t.print;
                    let rate = |d: std::time::Duration| t.ops as f64 / d.as_secs_f64();
                    println!("ops            {}", t.ops);
                    println!(
                        "parse          {:.3} s  ({:.0} ops/s)",
                        t.parse.as_secs_f64(),
                        rate(t.parse)
                    );
                    println!("verify         {:.3} s", t.verify.as_secs_f64());
                    println!(
                        "print          {:.3} s  ({:.0} ops/s, {} bytes)",
                        t.print.as_secs_f64(),
                        rate(t.print),
                        t.printed_bytes
                    );
                    println!(
                        "parse+print    {:.3} s  ({:.0} ops/s)",
                        total.as_secs_f64(),
                        rate(total)
                    );
                    if let Some(kib) = peak_rss_kib() {
                        println!(
                            "peak memory    {:.1} MiB (input text included)",
                            kib as f64 / 1024.0
                        );
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("acc-bench-ir: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        _ => usage(),
    }
}
