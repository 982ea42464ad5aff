//! `acc-opt`: parse, verify and print IR (passes arrive with the pass manager).
//!
//! Options follow `mlir-opt`, and MLIR's spellings are accepted too
//! (`--mlir-print-op-generic`, `--mlir-print-debuginfo`, single-dash long options).

use std::path::PathBuf;
use std::process::ExitCode;

use acc_ir::diag::Diagnostic;
use acc_ir::printer::{PrintOptions, write_ir};
use acc_ir::{Context, SourceMap, expected, parser, verifier};

/// Parsed command line.
#[derive(Debug, Default, Clone)]
pub struct OptOptions {
    /// Input path; `None` or `-` reads standard input.
    pub input: Option<PathBuf>,
    /// Output path; `None` writes standard output.
    pub output: Option<PathBuf>,
    /// Print ops in generic form.
    pub print_generic: bool,
    /// Print locations.
    pub print_debuginfo: bool,
    /// Process `// -----` chunks independently.
    pub split_input_file: bool,
    /// Check diagnostics against `expected-*` comments.
    pub verify_diagnostics: bool,
    /// Keep ops, types and attributes of unregistered dialects.
    pub allow_unregistered_dialect: bool,
    /// Skip the verifier.
    pub no_verify: bool,
    /// Dialect definition files to load (`--dialect FILE`, repeatable).
    pub dialects: Vec<PathBuf>,
}

/// Usage text.
pub const USAGE: &str = "\
usage: acc-opt [FILE|-] [options]

Parses, verifies and prints acc IR (MLIR syntax).

options:
  -o FILE                        write output to FILE (atomically; nothing on error)
  --print-generic                print every op in generic form (--mlir-print-op-generic)
  --print-debuginfo              print locations (--mlir-print-debuginfo)
  --split-input-file             process '// -----' chunks independently
  --verify-diagnostics           check diagnostics against 'expected-*' comments
  --allow-unregistered-dialect   keep unknown ops, types and attributes opaque
  --no-verify                    do not run the verifier
  --dialect FILE                 load dialects defined in FILE (repeatable)
  -h, --help                     show this help
";

/// Parses arguments (without the program name).
pub fn parse_args(args: &[String]) -> Result<OptOptions, String> {
    let mut o = OptOptions::default();
    let mut i = 0;
    while i < args.len() {
        let raw = &args[i];
        i += 1;
        // `-foo` is `--foo`, as in LLVM tools; `-` alone is standard input; `-o` is short.
        let arg = if raw.starts_with('-') && !raw.starts_with("--") && raw.len() > 2 {
            format!("-{raw}")
        } else {
            raw.clone()
        };
        let (name, inline_value) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let flag = |v: &Option<String>| -> Result<bool, String> {
            match v.as_deref() {
                None | Some("true") | Some("1") => Ok(true),
                Some("false") | Some("0") => Ok(false),
                Some(x) => Err(format!("invalid value '{x}' for '{name}'")),
            }
        };
        match name.as_str() {
            "-h" | "--help" => return Err(String::new()),
            "-o" | "--o" => {
                let v = match inline_value {
                    Some(v) => v,
                    None => {
                        let v = args.get(i).ok_or("option '-o' needs a file name")?.clone();
                        i += 1;
                        v
                    }
                };
                o.output = Some(PathBuf::from(v));
            }
            "--dialect" => {
                let v = match inline_value {
                    Some(v) => v,
                    None => {
                        let v = args
                            .get(i)
                            .ok_or("option '--dialect' needs a file name")?
                            .clone();
                        i += 1;
                        v
                    }
                };
                o.dialects.push(PathBuf::from(v));
            }
            "--print-generic" | "--mlir-print-op-generic" => o.print_generic = flag(&inline_value)?,
            "--print-debuginfo" | "--mlir-print-debuginfo" => {
                o.print_debuginfo = flag(&inline_value)?
            }
            "--split-input-file" => o.split_input_file = flag(&inline_value)?,
            "--verify-diagnostics" => o.verify_diagnostics = flag(&inline_value)?,
            "--allow-unregistered-dialect" => o.allow_unregistered_dialect = flag(&inline_value)?,
            "--no-verify" => o.no_verify = flag(&inline_value)?,
            "--verify-each" => o.no_verify = !flag(&inline_value)?,
            "-" => o.input = Some(PathBuf::from("-")),
            _ if name.starts_with('-') => return Err(format!("unknown option '{raw}'")),
            _ => {
                if o.input.is_some() {
                    return Err(format!("unexpected extra input '{raw}'"));
                }
                o.input = Some(PathBuf::from(raw));
            }
        }
    }
    Ok(o)
}

/// Byte ranges of the `// -----` chunks of `text`.
pub fn split_chunks(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut chunks = Vec::new();
    let mut start = 0;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if line.trim_end().starts_with("// -----") && line.trim_start().starts_with("// -----") {
            chunks.push(start..offset);
            start = offset + line.len();
        }
        offset += line.len();
    }
    chunks.push(start..text.len());
    chunks
}

/// Runs `acc-opt` with `args` (without the program name).
pub fn main_with_args(args: &[String]) -> ExitCode {
    let opts = match parse_args(args) {
        Ok(o) => o,
        Err(e) if e.is_empty() => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("acc-opt: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    run(&opts)
}

/// Reads the input file (or standard input): its name for diagnostics and its bytes.
fn read_input(opts: &OptOptions) -> Result<(String, Vec<u8>), String> {
    match opts.input.as_deref() {
        None => read_stdin(),
        Some(p) if p.as_os_str() == "-" => read_stdin(),
        Some(p) => {
            let bytes =
                std::fs::read(p).map_err(|e| format!("cannot read '{}': {e}", p.display()))?;
            Ok((p.display().to_string(), bytes))
        }
    }
}

fn read_stdin() -> Result<(String, Vec<u8>), String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::io::stdin()
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read standard input: {e}"))?;
    Ok(("<stdin>".to_string(), bytes))
}

/// Runs `acc-opt` with parsed options.
pub fn run(opts: &OptOptions) -> ExitCode {
    let (name, bytes) = match read_input(opts) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("acc-opt: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut sources = SourceMap::new();
    let (file, not_utf8) = sources.add_bytes(&name, bytes);
    if let Some(d) = not_utf8 {
        eprint!("{}", sources.render(&Context::new(), &[d]));
        return ExitCode::FAILURE;
    }
    let text = sources.text(file);
    let chunks = if opts.split_input_file {
        split_chunks(text)
    } else {
        std::iter::once(0..text.len()).collect()
    };
    let mut out = match crate::output::Output::open(opts.output.as_deref()) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("acc-opt: cannot open output: {e}");
            return ExitCode::FAILURE;
        }
    };
    let dialect_files = match add_dialect_files(&mut sources, &opts.dialects) {
        Ok(f) => f,
        Err(e) => {
            eprint!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let print = PrintOptions {
        generic: opts.print_generic,
        debuginfo: opts.print_debuginfo,
    };
    let mut failed = false;
    let mut printed_any = false;
    for chunk in &chunks {
        let mut ctx = acc_dialects::new_context();
        ctx.allow_unregistered = opts.allow_unregistered_dialect;
        for &f in &dialect_files {
            if let Err(diags) = acc_dialects::lang::load_file(&mut ctx, &sources, f) {
                eprint!("{}", sources.render(&ctx, &diags));
                return ExitCode::FAILURE;
            }
        }
        let result = process_chunk(&mut ctx, &sources, file, chunk.clone(), opts);
        let diags = match result {
            Ok(ir) => {
                // Outputs of successive chunks are separated like their inputs.
                let separator = if printed_any { &b"// -----\n"[..] } else { b"" };
                printed_any = true;
                let written = out
                    .writer()
                    .write_all(separator)
                    .and_then(|()| write_ir(&ctx, &ir, &print, out.writer()));
                if let Err(e) = written {
                    eprintln!("acc-opt: cannot write output: {e}");
                    return ExitCode::FAILURE;
                }
                // The process ends soon: freeing a large IR piece by piece is wasted time.
                std::mem::forget(ir);
                Vec::new()
            }
            Err(diags) => diags,
        };
        if opts.verify_diagnostics {
            let (expected, mut problems) =
                expected::parse_expectations(&sources, file, chunk.start, chunk.end);
            problems.extend(expected::check(&ctx, &sources, file, &diags, expected));
            if !problems.is_empty() {
                eprint!("{}", sources.render(&ctx, &problems));
                failed = true;
            }
        } else if !diags.is_empty() {
            eprint!("{}", sources.render(&ctx, &diags));
            failed = true;
        }
    }
    if failed {
        // Dropping the output discards the temporary file: no partial output.
        return ExitCode::FAILURE;
    }
    match out.commit() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("acc-opt: cannot write output: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Reads the dialect definition files into the source map. The error is the message to
/// print, ending in a newline.
fn add_dialect_files(sources: &mut SourceMap, paths: &[PathBuf]) -> Result<Vec<usize>, String> {
    paths
        .iter()
        .map(|p| {
            let bytes = std::fs::read(p).map_err(|e| {
                format!("acc-opt: cannot read dialect file '{}': {e}\n", p.display())
            })?;
            match sources.add_bytes(&p.display().to_string(), bytes) {
                (file, None) => Ok(file),
                (_, Some(d)) => Err(sources.render(&Context::new(), &[d])),
            }
        })
        .collect()
}

/// Parses and verifies one chunk.
fn process_chunk(
    ctx: &mut Context,
    sources: &SourceMap,
    file: usize,
    range: std::ops::Range<usize>,
    opts: &OptOptions,
) -> Result<acc_ir::Ir, Vec<Diagnostic>> {
    let ir = parser::parse_chunk(ctx, sources, file, range).map_err(|d| vec![d])?;
    if !opts.no_verify {
        verifier::verify(ctx, &ir)?;
    }
    Ok(ir)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn accepts_mlir_spellings() {
        let o = parse_args(&args(&[
            "in.mlir",
            "-mlir-print-op-generic",
            "--mlir-print-debuginfo",
            "-allow-unregistered-dialect",
            "-o",
            "x",
        ]))
        .unwrap();
        assert!(o.print_generic && o.print_debuginfo && o.allow_unregistered_dialect);
        assert_eq!(o.output.unwrap(), PathBuf::from("x"));
        assert!(parse_args(&args(&["--bogus"])).is_err());
        assert!(parse_args(&args(&["a", "b"])).is_err());
    }

    #[test]
    fn splits_chunks() {
        let t = "a\n// -----\nb\n// -----   \nc";
        let c = split_chunks(t);
        assert_eq!(
            c.iter().map(|r| &t[r.clone()]).collect::<Vec<_>>(),
            vec!["a\n", "b\n", "c"]
        );
    }
}
