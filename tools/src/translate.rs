//! `acc-translate`: converts between acc IR and other formats. Today:
//! `acc-translate --import-onnx model.onnx [-o model.mlir] [--function NAME]`.
//! The output is written only when the import succeeds (atomically); errors list every
//! unsupported op at once. Exit status: 0, 1 on any error, 2 on a bad command line.

use std::path::PathBuf;
use std::process::ExitCode;

use acc_ir::printer::{PrintOptions, write_ir};

const USAGE: &str = "usage: acc-translate --import-onnx MODEL.onnx [-o OUT.mlir] [--function NAME] [--print-generic]

Imports an ONNX model (opsets 13 to 21) as acc IR in the graph dialect: one function
(default name: main), initializers as constants (large ones in dense_resource blobs).
";

#[derive(Debug, Default)]
struct Options {
    input: Option<PathBuf>,
    output: Option<PathBuf>,
    function: Option<String>,
    generic: bool,
}

fn parse_args(args: &[String]) -> Result<Options, String> {
    let mut o = Options::default();
    let mut import = false;
    let mut words = crate::cli::Words::new(args);
    while let Some((flag, inline)) = words.next_word() {
        let mut value = || words.value(flag, inline);
        match flag {
            "-h" | "--help" => return Err(String::new()),
            "--import-onnx" => import = true,
            "-o" | "--output" => o.output = Some(PathBuf::from(value()?)),
            "--function" => o.function = Some(value()?),
            "--print-generic" | "--mlir-print-op-generic" => o.generic = true,
            f if f.starts_with('-') => return Err(format!("unknown option '{f}'")),
            _ => {
                if o.input.replace(PathBuf::from(flag)).is_some() {
                    return Err(format!("unexpected extra input '{flag}'"));
                }
            }
        }
    }
    if !import {
        return Err("choose a translation: --import-onnx".into());
    }
    if o.input.is_none() {
        return Err("no input model".into());
    }
    Ok(o)
}

/// Runs `acc-translate` with `args`.
pub fn main_with_args(args: &[String]) -> ExitCode {
    let o = match parse_args(args) {
        Ok(o) => o,
        Err(e) if e.is_empty() => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("acc-translate: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&o) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

fn run(o: &Options) -> Result<(), String> {
    let path = o.input.as_ref().ok_or("acc-translate: no input model")?;
    let shown = path.display();
    let bytes =
        std::fs::read(path).map_err(|e| format!("acc-translate: cannot read '{shown}': {e}"))?;
    let mut ctx = acc_dialects::new_context();
    let name = o.function.as_deref().unwrap_or("main");
    let ir = acc_onnx::import(&mut ctx, &bytes, name).map_err(|errors| {
        errors
            .iter()
            .map(|e| format!("{shown}: error: {e}"))
            .collect::<Vec<_>>()
            .join("\n")
    })?;
    acc_ir::verifier::verify(&ctx, &ir).map_err(|d| {
        format!("{shown}: error: the imported IR does not verify (a bug in the importer):\n{d:?}")
    })?;
    let mut out = crate::output::Output::open(o.output.as_deref())
        .map_err(|e| format!("acc-translate: cannot open output: {e}"))?;
    let print = PrintOptions {
        generic: o.generic,
        ..Default::default()
    };
    write_ir(&ctx, &ir, &print, out.writer())
        .and_then(|()| out.commit())
        .map_err(|e| format!("acc-translate: cannot write output: {e}"))
}
