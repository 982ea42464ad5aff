//! `acc-run`: runs a function of an IR file (or of an ONNX model, imported in the same
//! process) on `.npy` inputs with the reference interpreter or as native code (the
//! JIT), after the passes of `--pass` if any, writing `.npy` outputs or printing a
//! summary of each result, and optionally timing repeated runs.
//!
//! ```text
//! acc-run FILE [--pass LIST] [--entry NAME] [--input ARG=in.npy ...] [--output out.npy ...]
//!         [--mode interp|jit|sim] [--target FILE] [--trace FILE.json] [--repeat K]
//!         [--threads N] [--perf-map] [--dialect FILE ...]
//! ```
//!
//! `ARG` names an argument by position: `0`, `arg0` or `%arg0`. Outputs are written
//! only when the whole run succeeds, each atomically. Exit status: 0 on success, 1 on
//! any error, 2 on a bad command line.

use std::path::PathBuf;
use std::process::ExitCode;

use acc_interp::{Interpreter, Limits, Tensor};
use acc_ir::elements::Scalar;
use acc_ir::{Context, SourceMap};

const USAGE: &str = "usage: acc-run FILE [--pass LIST] [--pipeline NAME] [--entry NAME] [--input ARG=in.npy ...] [--bind NAME=FILE.npy ...] [--output out.npy ...] [--mode interp|jit|sim] [--target FILE] [--trace FILE.json] [--repeat K] [--threads N] [--dialect FILE ...]

Runs a function of FILE (acc IR, or an ONNX model when it ends in .onnx, imported
with its graph named main) in the reference interpreter or as native code.

  --pass LIST         run these passes first (comma-separated, as acc-opt --pass;
                      repeatable), in this process and verified after each
  --pipeline NAME     run the named pipeline NAME first (acc-opt --list-pipelines;
                      'target': the one the first target file names)
  --entry NAME        the function to run (default: the first function of the module)
  --input ARG=FILE    the value of argument ARG (0, arg0, %arg0, or the model input's
                      name, as onnxruntime takes it) from a .npy file
  --bind NAME=FILE    (ONNX models) fix model input NAME to the value in a .npy file
                      at import: what it feeds (a shape, axes) is then known to the
                      compiler, and it is no longer an argument
  --output FILE       where to write the next result (.npy), in order
  --mode MODE         interp (the reference interpreter, default), jit (native code
                      through Cranelift; the function must be at the loop level) or
                      sim (the interpreter, with the target's cycles and MAC
                      utilisation for each accelerator call; needs --target)
  --target FILE       a target description: what the passes lower for and whose
                      intrinsics the IR calls (repeatable)
  --trace FILE.json   (sim) write the timeline, one lane per device and DMA engine,
                      in the Chrome trace event format (Perfetto, chrome://tracing)
  --repeat K          run K more times after the first and print
                      `latency_ms median=X min=Y` (and, for jit, `compile_ms=X`:
                      from reading FILE to native code, with its parts)
  --threads N         threads of the library kernels generated code calls (JIT;
                      default 1; loop nests run on the calling thread)
  --perf-map          (jit) write /tmp/perf-PID.map naming the code of each top-level
                      op, so that `perf record` + `perf report` profile per op
  --dialect FILE      load a dialect file first (repeatable)
";

/// How the function runs.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The reference interpreter.
    #[default]
    Interp,
    /// Native code from the Cranelift back end.
    Jit,
    /// The interpreter, charging the target's cost model for each intrinsic call.
    Sim,
}

/// Command-line options.
#[derive(Debug, Default)]
pub struct RunOptions {
    /// The IR file or ONNX model.
    pub file: Option<PathBuf>,
    /// Passes to run first (`--pass`, comma-separated lists joined).
    pub passes: Vec<String>,
    /// The function to run.
    pub entry: Option<String>,
    /// Argument (position, `argN`, `%argN` or ONNX name) and `.npy` file.
    pub inputs: Vec<(String, PathBuf)>,
    /// ONNX model inputs fixed at import, and their `.npy` files.
    pub binds: Vec<(String, PathBuf)>,
    /// Where to write results, in order.
    pub outputs: Vec<PathBuf>,
    /// Dialect files to load.
    pub dialects: Vec<PathBuf>,
    /// The target descriptions (`--target`, repeatable), in order.
    pub targets: Vec<PathBuf>,
    /// How to run.
    pub mode: Mode,
    /// Timed runs after the first, when benchmarking.
    pub repeat: Option<usize>,
    /// Threads of the runtime's library kernels (JIT mode).
    pub threads: usize,
    /// Write a perf map of the generated code.
    pub perf_map: bool,
    /// Where to write the simulated timeline (Chrome trace JSON).
    pub trace: Option<PathBuf>,
    /// Warnings for options given that the mode chosen does not use.
    pub ignored: Vec<String>,
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
            "--pass" | "--pipeline" => o.passes.push(value()?),
            "--input" => o
                .inputs
                .push(crate::translate::name_and_file("--input", &value()?)?),
            "--bind" => o
                .binds
                .push(crate::translate::name_and_file("--bind", &value()?)?),
            "--output" | "-o" => o.outputs.push(PathBuf::from(value()?)),
            "--dialect" => o.dialects.push(PathBuf::from(value()?)),
            "--target" => o.targets.push(PathBuf::from(value()?)),
            "--mode" => {
                o.mode = match value()?.as_str() {
                    "interp" => Mode::Interp,
                    "jit" => Mode::Jit,
                    "sim" => Mode::Sim,
                    m => return Err(format!("unknown mode '{m}': expected interp, jit or sim")),
                }
            }
            "--repeat" => {
                let v = value()?;
                o.repeat = Some(
                    v.parse()
                        .map_err(|_| format!("--repeat expects a count, got '{v}'"))?,
                );
            }
            "--perf-map" => o.perf_map = true,
            "--trace" => o.trace = Some(PathBuf::from(value()?)),
            "--threads" => {
                let v = value()?;
                match v.parse::<usize>() {
                    Ok(n) if n >= 1 => o.threads = n,
                    _ => return Err(format!("--threads expects a positive count, got '{v}'")),
                }
            }
            f if f.starts_with('-') => return Err(crate::cli::unknown_option(f, USAGE)),
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
    if o.mode == Mode::Sim && o.targets.is_empty() {
        return Err("--mode sim needs the target's cost model: give it with --target FILE".into());
    }
    if o.trace.is_some() && o.mode != Mode::Sim {
        return Err("--trace writes the simulated timeline: it needs --mode sim".into());
    }
    if o.mode == Mode::Sim && o.repeat.is_some() {
        return Err(
            "--repeat times runs; --mode sim counts cycles instead: use one or the other".into(),
        );
    }
    if o.mode != Mode::Jit {
        for (given, flag) in [(o.threads != 0, "--threads"), (o.perf_map, "--perf-map")] {
            if given {
                o.ignored
                    .push(format!("{flag} applies to --mode jit only; it is ignored"));
            }
        }
    }
    Ok(o)
}

/// Runs `acc-run` with `args`.
pub fn main_with_args(args: &[String]) -> ExitCode {
    match parse_args(args) {
        Ok(o) => {
            for warning in &o.ignored {
                eprintln!("acc-run: warning: {warning}");
            }
            run(&o)
        }
        Err(e) if e.is_empty() => {
            print!("{USAGE}\ncommon options:\n{}", crate::cli::COMMON_USAGE);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("acc-run: {e}\n(acc-run --help lists the options)");
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
    // Every file written is reserved first, and all are written at the end or none.
    let mut outputs = crate::output::OutputSet::new();
    let fail = |e: String| format!("acc-run: {e}\n");
    let trace_file = match &o.trace {
        Some(p) if o.mode == Mode::Sim => Some(outputs.reserve(p).map_err(fail)?),
        _ => None,
    };
    let result_files = o
        .outputs
        .iter()
        .map(|p| outputs.reserve(p))
        .collect::<Result<Vec<_>, _>>()
        .map_err(fail)?;
    let mut sources = SourceMap::new();
    let mut ctx = acc_dialects::new_context();
    let read = |p: &PathBuf| {
        acc_ir::budget::read_file(p.as_ref())
            .map_err(|e| format!("acc-run: cannot read '{}': {e}\n", p.display()))
    };
    for d in &o.dialects {
        let (file, bad) = sources.add_bytes(&d.display().to_string(), read(d)?);
        if let Some(diag) = bad {
            return Err(sources.render(&ctx, &[diag]));
        }
        acc_dialects::lang::load_file(&mut ctx, &sources, file)
            .map_err(|e| sources.render(&ctx, &e))?;
    }
    let mut targets = acc_target::Targets::new();
    for t in &o.targets {
        let (file, bad) = sources.add_bytes(&t.display().to_string(), read(t)?);
        if let Some(diag) = bad {
            return Err(sources.render(&ctx, &[diag]));
        }
        crate::target_file::load_target(
            &mut ctx,
            &sources,
            file,
            &mut targets,
            &crate::opt::registry(),
        )
        .map_err(|e| sources.render(&ctx, &e))?;
    }
    let path = o.file.as_ref().ok_or("acc-run: no input file\n")?;
    let mut passes = o.passes.clone();
    if passes.iter().any(|p| p == "target") {
        let text =
            crate::target_file::target_pipeline(&targets).map_err(|e| format!("acc-run: {e}\n"))?;
        for p in &mut passes {
            if p == "target" {
                p.clone_from(&text);
            }
        }
    }
    let passes = (!passes.is_empty()).then(|| passes.join(","));
    let loaded = crate::run_input::load(
        &mut ctx,
        &mut sources,
        &targets,
        path,
        &o.binds,
        passes.as_deref(),
    )?;
    let ir = loaded.ir;
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
    let names = acc_interp::argument_names(&ctx, &ir, &entry, acc_onnx::ONNX_NAME);
    for (arg, p) in &o.inputs {
        let i = &argument_index(arg)
            .or_else(|| names.iter().position(|n| n.as_deref() == Some(arg.as_str())))
            .ok_or_else(|| {
                let known: Vec<&str> = names.iter().flatten().map(String::as_str).collect();
                let listed = if known.is_empty() {
                    String::new()
                } else {
                    format!(" or one of its names: {}", known.join(", "))
                };
                format!(
                    "acc-run: --input: '{arg}' is not an argument of '@{entry}' (give 0, arg0 or %arg0{listed})\n"
                )
            })?;
        let ty = *params.get(*i).ok_or_else(|| {
            format!(
                "acc-run: '@{entry}' has {} arguments; there is no argument {i}\n",
                params.len()
            )
        })?;
        if args[*i].is_some() {
            return Err(format!("acc-run: argument {i} is given twice\n"));
        }
        args[*i] = Some(acc_interp::npy::read(&ctx, p, ty).map_err(|e| format!("acc-run: {e}\n"))?);
    }
    let args: Vec<Tensor> = args
        .into_iter()
        .enumerate()
        .map(|(i, a)| {
            a.ok_or_else(|| format!("acc-run: argument {i} of '@{entry}' has no --input\n"))
        })
        .collect::<Result<_, _>>()?;
    let render = |d: acc_ir::Diagnostic| sources.render(&ctx, &[d]);
    // Timing lines, printed after the results.
    let mut timing = Vec::new();
    let results = match o.mode {
        Mode::Sim => {
            let mut interp = Interpreter::new(&ctx, &ir, Limits::default());
            interp.trace_hw_ops(true);
            let results = interp
                .call(&entry, args.clone())
                .map_err(|e| render(e.diagnostic()))?;
            let trace = interp.trace_hw_ops(false);
            let sim = acc_sim::simulate(&ctx, &ir, &targets, &trace)
                .map_err(|e| format!("acc-run: {e}\n"))?;
            timing.push(acc_sim::report(&sim).trim_end().to_string());
            if let Some(index) = trace_file {
                let json = acc_sim::chrome::trace_json(&sim);
                outputs.write(index, json.as_bytes()).map_err(fail)?;
            }
            results
        }
        Mode::Interp => {
            let mut interp = Interpreter::new(&ctx, &ir, Limits::default());
            let results = interp
                .call(&entry, args.clone())
                .map_err(|e| render(e.diagnostic()))?;
            if let Some(k) = o.repeat {
                let times = (0..k)
                    .map(|_| {
                        let start = std::time::Instant::now();
                        interp
                            .call(&entry, args.clone())
                            .map(|_| start.elapsed())
                            .map_err(|e| render(e.diagnostic()))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                timing.push(latency(&times));
            }
            results
        }
        Mode::Jit => {
            acc_runtime::threads::set_threads(o.threads).map_err(|e| format!("acc-run: {e}\n"))?;
            let jit = acc_cranelift::jit::JitModule::compile(&ctx, &ir)
                .map_err(|e| render(e.diagnostic()))?;
            if o.perf_map {
                let path = jit
                    .write_perf_map(&ctx, &ir)
                    .map_err(|e| format!("acc-run: cannot write the perf map: {e}\n"))?;
                eprintln!("acc-run: perf map in {}", path.display());
            }
            let mut frame = jit
                .frame(&ctx, &entry, &args)
                .map_err(|e| render(e.diagnostic()))?;
            frame.run();
            let results = frame.results(&ctx).map_err(|e| render(e.diagnostic()))?;
            // Results of bounded size cut to their sizes, as the interpreter gives them.
            let results = acc_interp::bounded::result_sizes(&ctx, &ir, &entry)
                .and_then(|triples| acc_interp::bounded::trim(&ctx, &triples, results))
                .map_err(|m| format!("acc-run: result of '@{entry}': {m}\n"))?;
            if let Some(k) = o.repeat {
                let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
                let total = loaded.read + loaded.passes + jit.compile_time;
                timing.push(format!(
                    "compile_ms={:.3} read={:.3} passes={:.3} codegen={:.3}",
                    ms(total),
                    ms(loaded.read),
                    ms(loaded.passes),
                    ms(jit.compile_time)
                ));
                timing.push(latency(&frame.time(k)));
            }
            results
        }
    };
    if o.outputs.is_empty() {
        for (i, r) in results.iter().enumerate() {
            println!("result {i}: {}", summary(&ctx, r));
        }
    }
    for line in &timing {
        println!("{line}");
    }
    if !o.outputs.is_empty() && o.outputs.len() != results.len() {
        return Err(format!(
            "acc-run: '@{entry}' has {} results but {} --output files were given\n",
            results.len(),
            o.outputs.len()
        ));
    }
    for ((r, &index), path) in results.iter().zip(&result_files).zip(&o.outputs) {
        acc_interp::npy::write(r, outputs.writer(index))
            .map_err(|e| format!("acc-run: cannot write '{}': {e}\n", path.display()))?;
    }
    outputs.commit().map_err(fail)
}

/// `tensor<2x3xf32> [1, 2.5, ...]`: the type and the first elements.
/// `latency_ms median=X min=Y runs=K` over the timed runs.
fn latency(times: &[std::time::Duration]) -> String {
    let mut ms: Vec<f64> = times.iter().map(|t| t.as_secs_f64() * 1e3).collect();
    ms.sort_by(f64::total_cmp);
    if ms.is_empty() {
        return "latency_ms runs=0".into();
    }
    let median = if ms.len() % 2 == 1 {
        ms[ms.len() / 2]
    } else {
        (ms[ms.len() / 2 - 1] + ms[ms.len() / 2]) / 2.0
    };
    format!(
        "latency_ms median={median:.4} min={:.4} runs={}",
        ms[0],
        ms.len()
    )
}

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
