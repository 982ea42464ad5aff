//! `acc-run`: runs a function of an IR file on `.npy` inputs with the reference
//! interpreter, writing `.npy` outputs or printing a summary of each result.
//!
//! ```text
//! acc-run FILE [--entry NAME] [--input ARG=in.npy ...] [--output out.npy ...]
//!         [--mode interp] [--dialect FILE ...]
//! ```
//!
//! `ARG` names an argument by position: `0`, `arg0` or `%arg0`. Outputs are written
//! only when the whole run succeeds, each atomically. Exit status: 0 on success, 1 on
//! any error, 2 on a bad command line.

use std::path::PathBuf;
use std::process::ExitCode;

use acc_interp::{Interpreter, Limits, Tensor};
use acc_ir::elements::Scalar;
use acc_ir::{Context, SourceMap, parser, verifier};

const USAGE: &str = "usage: acc-run FILE [--entry NAME] [--input ARG=in.npy ...] [--output out.npy ...] [--mode interp] [--dialect FILE ...]

Runs a function of FILE (acc IR) in the reference interpreter.

  --entry NAME        the function to run (default: the first function of the module)
  --input ARG=FILE    the value of argument ARG (0, arg0 or %arg0) from a .npy file
  --output FILE       where to write the next result (.npy), in order
  --mode interp       the execution mode (the JIT arrives with host code generation)
  --dialect FILE      load a dialect file first (repeatable)
";

/// Command-line options.
#[derive(Debug, Default)]
pub struct RunOptions {
    /// The IR file.
    pub file: Option<PathBuf>,
    /// The function to run.
    pub entry: Option<String>,
    /// Argument position and `.npy` file.
    pub inputs: Vec<(usize, PathBuf)>,
    /// Where to write results, in order.
    pub outputs: Vec<PathBuf>,
    /// Dialect files to load.
    pub dialects: Vec<PathBuf>,
}

fn argument_index(name: &str) -> Option<usize> {
    name.trim_start_matches('%')
        .trim_start_matches("arg")
        .parse()
        .ok()
}

/// Parses the command line.
pub fn parse_args(args: &[String]) -> Result<RunOptions, String> {
    let mut o = RunOptions::default();
    let mut words = crate::cli::Words::new(args);
    while let Some((flag, inline)) = words.next_word() {
        let mut value = || words.value(flag, inline);
        match flag {
            "-h" | "--help" => return Err(String::new()),
            "--entry" => o.entry = Some(value()?),
            "--input" => {
                let v = value()?;
                let (arg, path) = v
                    .split_once('=')
                    .ok_or(format!("--input expects ARG=FILE, got '{v}'"))?;
                let i = argument_index(arg).ok_or(format!(
                    "--input: '{arg}' is not an argument (0, arg0 or %arg0)"
                ))?;
                o.inputs.push((i, PathBuf::from(path)));
            }
            "--output" | "-o" => o.outputs.push(PathBuf::from(value()?)),
            "--dialect" => o.dialects.push(PathBuf::from(value()?)),
            "--mode" => match value()?.as_str() {
                "interp" => {}
                "jit" => {
                    return Err(
                        "--mode jit arrives with host code generation; use --mode interp".into(),
                    );
                }
                m => return Err(format!("unknown mode '{m}': expected interp")),
            },
            f if f.starts_with('-') => return Err(format!("unknown option '{f}'")),
            _ => {
                if o.file.replace(PathBuf::from(flag)).is_some() {
                    return Err(format!("unexpected extra input '{flag}'"));
                }
            }
        }
    }
    if o.file.is_none() {
        return Err("no input file".into());
    }
    Ok(o)
}

/// Runs `acc-run` with `args`.
pub fn main_with_args(args: &[String]) -> ExitCode {
    match parse_args(args) {
        Ok(o) => run(&o),
        Err(e) if e.is_empty() => {
            print!("{USAGE}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("acc-run: {e}\n\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

/// Runs with parsed options.
pub fn run(o: &RunOptions) -> ExitCode {
    match run_inner(o) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprint!("{message}");
            ExitCode::FAILURE
        }
    }
}

/// Everything, with errors as the text to print (ending in a newline).
fn run_inner(o: &RunOptions) -> Result<(), String> {
    let mut sources = SourceMap::new();
    let mut ctx = acc_dialects::new_context();
    let read = |p: &PathBuf| {
        std::fs::read(p).map_err(|e| format!("acc-run: cannot read '{}': {e}\n", p.display()))
    };
    for d in &o.dialects {
        let (file, bad) = sources.add_bytes(&d.display().to_string(), read(d)?);
        if let Some(diag) = bad {
            return Err(sources.render(&ctx, &[diag]));
        }
        acc_dialects::lang::load_file(&mut ctx, &sources, file)
            .map_err(|e| sources.render(&ctx, &e))?;
    }
    let path = o.file.as_ref().ok_or("acc-run: no input file\n")?;
    let (file, bad) = sources.add_bytes(&path.display().to_string(), read(path)?);
    if let Some(diag) = bad {
        return Err(sources.render(&ctx, &[diag]));
    }
    let ir =
        parser::parse_file(&mut ctx, &sources, file).map_err(|d| sources.render(&ctx, &[d]))?;
    verifier::verify(&ctx, &ir).map_err(|d| sources.render(&ctx, &d))?;
    let entry = match &o.entry {
        Some(e) => e.clone(),
        None => acc_interp::function_names(&ctx, &ir)
            .into_iter()
            .next()
            .ok_or("acc-run: the module has no function\n")?,
    };
    let params = acc_interp::parameter_types(&ctx, &ir, &entry)
        .ok_or_else(|| format!("acc-run: no function '@{entry}' with a body in the module\n"))?;
    let mut args: Vec<Option<Tensor>> = vec![None; params.len()];
    for (i, p) in &o.inputs {
        let ty = *params.get(*i).ok_or_else(|| {
            format!(
                "acc-run: '@{entry}' has {} arguments; there is no argument {i}\n",
                params.len()
            )
        })?;
        if args[*i].is_some() {
            return Err(format!("acc-run: argument {i} is given twice\n"));
        }
        args[*i] = Some(crate::npy::read(&ctx, p, ty).map_err(|e| format!("acc-run: {e}\n"))?);
    }
    let args: Vec<Tensor> = args
        .into_iter()
        .enumerate()
        .map(|(i, a)| {
            a.ok_or_else(|| format!("acc-run: argument {i} of '@{entry}' has no --input\n"))
        })
        .collect::<Result<_, _>>()?;
    let results = Interpreter::new(&ctx, &ir, Limits::default())
        .call(&entry, args)
        .map_err(|e| sources.render(&ctx, &[e.diagnostic()]))?;
    if o.outputs.is_empty() {
        for (i, r) in results.iter().enumerate() {
            println!("result {i}: {}", summary(&ctx, r));
        }
        return Ok(());
    }
    if o.outputs.len() != results.len() {
        return Err(format!(
            "acc-run: '@{entry}' has {} results but {} --output files were given\n",
            results.len(),
            o.outputs.len()
        ));
    }
    for (r, p) in results.iter().zip(&o.outputs) {
        let mut out = crate::output::Output::open(Some(p))
            .map_err(|e| format!("acc-run: cannot write '{}': {e}\n", p.display()))?;
        crate::npy::write(r, out.writer())
            .and_then(|()| out.commit())
            .map_err(|e| format!("acc-run: cannot write '{}': {e}\n", p.display()))?;
    }
    Ok(())
}

/// `tensor<2x3xf32> [1, 2.5, ...]`: the type and the first elements.
fn summary(ctx: &Context, t: &Tensor) -> String {
    const SHOWN: usize = 8;
    let items: Vec<String> = t
        .data
        .iter()
        .take(SHOWN)
        .map(|v| match v {
            Scalar::Int(i) => i.to_string(),
            Scalar::Float(f) => f.to_string(),
        })
        .collect();
    let more = if t.data.len() > SHOWN {
        format!(", ... ({} elements)", t.data.len())
    } else {
        String::new()
    };
    format!(
        "{} [{}{more}]",
        acc_ir::printer::type_to_string(ctx, t.ty),
        items.join(", ")
    )
}
