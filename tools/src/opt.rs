//! `acc-opt`: parse, verify, transform with a pass pipeline, and print IR.
//!
//! Options follow `mlir-opt`, and MLIR's spellings are accepted too
//! (`--mlir-print-op-generic`, `--pass-pipeline=...`, `--mlir-timing`, a registered
//! pass as a flag such as `--canonicalize`, single-dash long options). Tools that add
//! their own passes call [`main_with_registry`].

use std::path::PathBuf;
use std::process::ExitCode;

use acc_ir::diag::Diagnostic;
use acc_ir::printer::{PrintOptions, write_ir};
use acc_ir::{Context, Severity, SourceMap, expected, parser, verifier};
use acc_pass::PassRegistry;
use acc_pass::manager::{RunOptions, run as run_pipeline};
use acc_pass::pipeline::Pipeline;
use acc_pass::timing::{TimingNode, report as timing_report};

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
    /// Skip the verifier, on the input and after passes.
    pub no_verify: bool,
    /// Run the interpreter before and after each pass and fail at the first pass that
    /// changes results (`--check-semantics`).
    pub check_semantics: bool,
    /// Seed of the inputs `--check-semantics` draws (`--check-semantics-seed`).
    pub check_semantics_seed: u64,
    /// Skip verification after passes only (`--verify-each=false`); the input is
    /// still verified, as with `mlir-opt`.
    pub no_verify_each: bool,
    /// Dialect definition files to load (`--dialect FILE`, repeatable).
    pub dialects: Vec<PathBuf>,
    /// Target description files (`--target FILE`, repeatable): each loaded like a
    /// dialect file, its one target added to the compilation's targets, in order.
    pub targets: Vec<PathBuf>,
    /// Passes to run, `--pass a,b{opt=1}` (nested by anchor; repeatable, in order); a
    /// named pipeline is written as a pass (`--pipeline NAME` adds one), and the
    /// entry `target` stands for the pipeline the first target file names.
    pub passes: Vec<String>,
    /// A pipeline in MLIR's syntax (`--pass-pipeline=...`).
    pub pass_pipeline: Option<String>,
    /// List the registered passes (and named pipelines) and exit.
    pub list_passes: bool,
    /// List the named pipelines with their expansions and exit.
    pub list_pipelines: bool,
    /// Print the pipeline before running it.
    pub dump_pass_pipeline: bool,
    /// Dump the IR before passes of these names.
    pub print_ir_before: Vec<String>,
    /// Dump the IR after passes of these names.
    pub print_ir_after: Vec<String>,
    /// Dump the IR before every pass.
    pub print_ir_before_all: bool,
    /// Dump the IR after every pass.
    pub print_ir_after_all: bool,
    /// Dump the IR after a pass only when it changed.
    pub print_ir_after_change: bool,
    /// Report pass times.
    pub timing: bool,
    /// Print the remarks passes make (`partition`'s placements, `memory-plan`'s arenas).
    pub remarks: bool,
    /// Threads for passes on functions (`None`: as many as the machine has).
    pub threads: Option<usize>,
    /// Print elements attributes of more elements than this elided
    /// (`--mlir-elide-elementsattrs-if-larger`).
    pub elide_elements_larger: Option<usize>,
    /// Dump the IR after a pass that failed (`--mlir-print-ir-after-failure`).
    pub print_ir_after_failure: bool,
    /// Report the passes' counters at the end (`--mlir-pass-statistics`).
    pub pass_statistics: bool,
}

/// Usage text.
pub const USAGE: &str = "\
usage: acc-opt [FILE|-] [options]

Parses, verifies and prints acc IR (MLIR syntax).

options:
  -o FILE                        write output to FILE (atomically; nothing on error)
  --print-generic                print every op in generic form (--mlir-print-op-generic)
  --print-debuginfo              print locations (--mlir-print-debuginfo); they are
                                 always printed in place (--mlir-print-local-scope)
  --elide-elementsattrs-if-larger=N
                                 print elements attributes of more than N elements as
                                 dense_resource<__elided__> (--mlir-elide-elementsattrs-if-larger)
  --split-input-file             process '// -----' chunks independently
  --verify-diagnostics           check diagnostics against 'expected-*' comments
  --allow-unregistered-dialect   keep unknown ops, types and attributes opaque
  --no-verify                    do not run the verifier
  --dialect FILE                 load dialects defined in FILE (repeatable)
  --target FILE                  load FILE (a dialect file declaring one target) and
                                 lower for that target (docs/dialect-language.md);
                                 repeatable: passes consult the first unless their
                                 target option names another

passes:
  --pass LIST                    run passes, nested by what they run on: canonicalize,cse{...}
                                 (a named pipeline may stand for a pass: host-pipeline)
  --pipeline NAME                run the named pipeline NAME (with options: 'NAME{opt=1}');
                                 'target' runs the one the first target file names
  --pass-pipeline=PIPELINE       run a pipeline in MLIR's syntax: builtin.module(func.func(cse))
  --NAME                         run the registered pass or pipeline NAME (as --pass NAME)
  --list-passes                  list the passes and their options, then the pipelines
  --list-pipelines               list the named pipelines, their options and expansions
  --dump-pass-pipeline           print the pipeline (to standard error) before running it,
                                 named pipelines expanded
  --print-ir-before=NAME         dump the IR before pass NAME (repeatable; standard error)
  --print-ir-after=NAME          dump the IR after pass NAME (repeatable)
  --print-ir-before-all          dump the IR before every pass
  --print-ir-after-all           dump the IR after every pass
  --print-ir-after-change        dump the IR after a pass only when it changed it
  --print-ir-after-failure       dump the IR after a pass that failed, in generic form
                                 (--mlir-print-ir-after-failure)
  --timing                       report pass times (--mlir-timing)
  --pass-statistics              report the passes' counters (cse's num-cse'd, ...) at the
                                 end, in MLIR's list form (--mlir-pass-statistics)
  --remarks                      print the remarks of passes (why partition left an op
                                 on the host, memory-plan's arenas)
  --view-graph[=FILE]            run view-graph at this point of the pipeline: the
                                 functions as Graphviz DOT, ops coloured by device (to
                                 standard error, or FILE)
  --check-semantics              run every function in the interpreter before and after
                                 each pass; fail at the first pass that changes results
  --check-semantics-seed=N       seed of the random inputs it draws (default 0)
  --threads N                    threads for passes on functions (--mlir-disable-threading: 1)
  --no-verify                    do not verify, neither the input nor after each pass
  -h, --help                     show this help
";

/// Every pass and named pipeline acc provides ([`crate::registry::registry`]).
pub fn registry() -> PassRegistry {
    crate::registry::registry()
}

/// Parses arguments (without the program name); `--NAME` of a pass of `passes` runs it.
pub fn parse_args_with(args: &[String], passes: &PassRegistry) -> Result<OptOptions, String> {
    parse_args_impl(args, Some(passes))
}

/// Parses arguments (without the program name), with acc's passes.
pub fn parse_args(args: &[String]) -> Result<OptOptions, String> {
    parse_args_impl(args, Some(&crate::opt::registry()))
}

fn parse_args_impl(args: &[String], passes: Option<&PassRegistry>) -> Result<OptOptions, String> {
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
            "--target" => {
                let v = match inline_value {
                    Some(v) => v,
                    None => {
                        let v = args
                            .get(i)
                            .ok_or("option '--target' needs a file name")?
                            .clone();
                        i += 1;
                        v
                    }
                };
                o.targets.push(PathBuf::from(v));
            }
            "--pass"
            | "--pipeline"
            | "--pass-pipeline"
            | "--print-ir-before"
            | "--print-ir-after"
            | "--mlir-print-ir-before"
            | "--mlir-print-ir-after"
            | "--elide-elementsattrs-if-larger"
            | "--mlir-elide-elementsattrs-if-larger"
            | "--threads" => {
                let v = match inline_value {
                    Some(v) => v,
                    None => {
                        let v = args
                            .get(i)
                            .ok_or(format!("option '{name}' needs a value"))?
                            .clone();
                        i += 1;
                        v
                    }
                };
                match name.as_str() {
                    "--pass" | "--pipeline" => o.passes.push(v),
                    "--pass-pipeline" => o.pass_pipeline = Some(v),
                    "--print-ir-before" | "--mlir-print-ir-before" => o.print_ir_before.push(v),
                    "--print-ir-after" | "--mlir-print-ir-after" => o.print_ir_after.push(v),
                    "--elide-elementsattrs-if-larger" | "--mlir-elide-elementsattrs-if-larger" => {
                        let n = v.parse::<usize>();
                        o.elide_elements_larger =
                            Some(n.map_err(|_| {
                                format!("invalid element count '{v}' for '{name}'")
                            })?);
                    }
                    _ => {
                        let n = v.parse::<usize>().ok().filter(|n| *n >= 1);
                        o.threads = Some(n.ok_or(format!("invalid thread count '{v}'"))?);
                    }
                }
            }
            "--pass-statistics" | "--mlir-pass-statistics" => {
                o.pass_statistics = flag(&inline_value)?
            }
            "--print-ir-after-failure" | "--mlir-print-ir-after-failure" => {
                o.print_ir_after_failure = flag(&inline_value)?
            }
            // Locations are always printed where they are used, never as `#loc` aliases.
            "--mlir-print-local-scope" => {
                flag(&inline_value)?;
            }
            "--list-passes" => o.list_passes = flag(&inline_value)?,
            "--list-pipelines" => o.list_pipelines = flag(&inline_value)?,
            "--dump-pass-pipeline" | "--mlir-dump-pass-pipeline" => {
                o.dump_pass_pipeline = flag(&inline_value)?
            }
            "--print-ir-before-all" | "--mlir-print-ir-before-all" => {
                o.print_ir_before_all = flag(&inline_value)?
            }
            "--print-ir-after-all" | "--mlir-print-ir-after-all" => {
                o.print_ir_after_all = flag(&inline_value)?
            }
            "--print-ir-after-change" | "--mlir-print-ir-after-change" => {
                o.print_ir_after_change = flag(&inline_value)?
            }
            "--timing" | "--mlir-timing" => o.timing = flag(&inline_value)?,
            "--remarks" => o.remarks = flag(&inline_value)?,
            "--check-semantics" => o.check_semantics = flag(&inline_value)?,
            "--check-semantics-seed" => {
                let v = inline_value.ok_or("--check-semantics-seed needs =N")?;
                o.check_semantics_seed = v.parse().map_err(|_| format!("invalid seed '{v}'"))?;
            }
            "--mlir-disable-threading" => {
                if flag(&inline_value)? {
                    o.threads = Some(1)
                }
            }
            "--print-generic" | "--mlir-print-op-generic" => o.print_generic = flag(&inline_value)?,
            "--print-debuginfo" | "--mlir-print-debuginfo" => {
                o.print_debuginfo = flag(&inline_value)?
            }
            "--split-input-file" => o.split_input_file = flag(&inline_value)?,
            "--verify-diagnostics" => o.verify_diagnostics = flag(&inline_value)?,
            "--allow-unregistered-dialect" => o.allow_unregistered_dialect = flag(&inline_value)?,
            "--no-verify" => o.no_verify = flag(&inline_value)?,
            "--verify-each" => o.no_verify_each = !flag(&inline_value)?,
            "-" => o.input = Some(PathBuf::from("-")),
            // `--view-graph` draws to standard error, `--view-graph=FILE` to FILE (the
            // pass itself needs its file named, so that nothing writes one unasked).
            "--view-graph" if passes.is_some_and(|p| p.get("view-graph").is_some()) => {
                let options = match inline_value.map(|v| v.trim_matches('"').to_string()) {
                    Some(v) if v.contains('=') => v,
                    Some(file) => format!("file={file}"),
                    None => "file=-".to_string(),
                };
                o.passes.push(format!("view-graph{{{options}}}"));
            }
            _ if name.starts_with("--") && passes.is_some_and(|p| p.knows(&name[2..])) => {
                // `--canonicalize` or `--canonicalize="max-iterations=3"`, as mlir-opt.
                let pass = match inline_value {
                    Some(opts) => format!("{}{{{}}}", &name[2..], opts.trim_matches('"')),
                    None => name[2..].to_string(),
                };
                o.passes.push(pass);
            }
            _ if name.starts_with('-') => {
                let mut message = crate::cli::unknown_option(raw, USAGE);
                if !message.contains("did you mean")
                    && let Some(passes) = passes
                {
                    // A misspelt pass flag: `--canonicalise`.
                    let flags: Vec<String> = passes.names().map(|n| format!("--{n}")).collect();
                    message.push_str(&acc_ir::suggest::did_you_mean(
                        &name,
                        flags.iter().map(String::as_str),
                    ));
                }
                return Err(message);
            }
            _ => {
                if o.input.is_some() {
                    return Err(format!("unexpected extra input '{raw}'"));
                }
                o.input = Some(PathBuf::from(raw));
            }
        }
    }
    if let Some(passes) = passes {
        let named = [
            ("--print-ir-before", &o.print_ir_before),
            ("--print-ir-after", &o.print_ir_after),
        ];
        for (flag, names) in named {
            if let Some(unknown) = names.iter().find(|n| passes.get(n).is_none()) {
                return Err(format!(
                    "unknown pass '{unknown}' in {flag} (see --list-passes)"
                ));
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
    main_with_registry(args, &crate::opt::registry())
}

/// Runs `acc-opt` with `args` and the passes of `passes`: what a tool adding its own
/// passes to acc's calls (see `docs/writing-a-pass.md`).
pub fn main_with_registry(args: &[String], passes: &PassRegistry) -> ExitCode {
    let opts = match parse_args_with(args, passes) {
        Ok(o) => o,
        Err(e) if e.is_empty() => {
            print!("{USAGE}\ncommon options:\n{}", crate::cli::COMMON_USAGE);
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("acc-opt: {e}\n(acc-opt --help lists the options, --list-passes the passes)");
            return ExitCode::from(2);
        }
    };
    if opts.list_passes {
        print!("{}", passes.describe());
        return ExitCode::SUCCESS;
    }
    if opts.list_pipelines {
        print!("{}", passes.describe_pipelines());
        return ExitCode::SUCCESS;
    }
    run_with(&opts, passes)
}

/// Reads the input file (or standard input): its name for diagnostics and its bytes.
fn read_input(opts: &OptOptions) -> Result<(String, Vec<u8>), String> {
    match opts.input.as_deref() {
        None => read_stdin(),
        Some(p) if p.as_os_str() == "-" => read_stdin(),
        Some(p) => {
            let bytes = acc_ir::budget::read_file(p)
                .map_err(|e| format!("cannot read '{}': {e}", p.display()))?;
            Ok((p.display().to_string(), bytes))
        }
    }
}

fn read_stdin() -> Result<(String, Vec<u8>), String> {
    let bytes = acc_ir::budget::read_all(std::io::stdin())
        .map_err(|e| format!("cannot read standard input: {e}"))?;
    Ok(("<stdin>".to_string(), bytes))
}

/// The pipeline the options ask for, if any; the error is the message to print.
fn build_pipeline(opts: &OptOptions, passes: &PassRegistry) -> Result<Option<Pipeline>, String> {
    let render = |text: &str, (message, range): (String, std::ops::Range<usize>)| {
        let mut sources = SourceMap::new();
        let file = sources.add("<pass pipeline>", text.to_string());
        sources.render(
            &Context::new(),
            &[Diagnostic::error(
                acc_ir::DiagLoc::Span(file, range),
                message,
            )],
        )
    };
    match (&opts.pass_pipeline, opts.passes.is_empty()) {
        (Some(_), false) => {
            Err("acc-opt: --pass-pipeline cannot be combined with --pass or pass flags\n".into())
        }
        (Some(text), true) => Pipeline::parse(text, passes)
            .map(Some)
            .map_err(|e| render(text, e)),
        (None, false) => {
            let text = opts.passes.join(",");
            Pipeline::from_pass_list(&text, passes)
                .map(Some)
                .map_err(|e| render(&text, e))
        }
        (None, true) => Ok(None),
    }
}

/// `opts` with the entry `target` of its pass list replaced by the pipeline the first
/// target file names (`--pipeline target`); the error is the message to print.
fn with_target_pipeline(opts: &OptOptions, passes: &PassRegistry) -> Result<OptOptions, String> {
    let mut sources = SourceMap::new();
    let dialect_files = add_dialect_files(&mut sources, &opts.dialects)?;
    let target_files = add_dialect_files(&mut sources, &opts.targets)?;
    let (_, targets) = load_definitions(opts, &sources, &dialect_files, &target_files, passes)?;
    let text =
        crate::target_file::target_pipeline(&targets).map_err(|e| format!("acc-opt: {e}\n"))?;
    let mut resolved = opts.clone();
    for p in &mut resolved.passes {
        if p == "target" {
            p.clone_from(&text);
        }
    }
    Ok(resolved)
}

/// A context with acc's dialects, then the dialect files and the target files (in
/// that order: a target's intrinsics may match ops of a dialect file), and the
/// targets; the error is the rendered diagnostics.
fn load_definitions(
    opts: &OptOptions,
    sources: &SourceMap,
    dialect_files: &[usize],
    target_files: &[usize],
    passes: &PassRegistry,
) -> Result<(Context, acc_target::Targets), String> {
    let mut ctx = acc_dialects::new_context();
    ctx.allow_unregistered = opts.allow_unregistered_dialect;
    for &f in dialect_files {
        acc_dialects::lang::load_file(&mut ctx, sources, f)
            .map_err(|diags| sources.render(&ctx, &diags))?;
    }
    let mut targets = acc_target::Targets::new();
    for &f in target_files {
        crate::target_file::load_target(&mut ctx, sources, f, &mut targets, passes)
            .map_err(|diags| sources.render(&ctx, &diags))?;
    }
    Ok((ctx, targets))
}

/// Runs `acc-opt` with parsed options and the passes of `passes`.
pub fn run_with(opts: &OptOptions, passes: &PassRegistry) -> ExitCode {
    let started = std::time::Instant::now();
    let resolved;
    let opts = if opts.passes.iter().any(|p| p == "target") && !passes.knows("target") {
        match with_target_pipeline(opts, passes) {
            Ok(o) => {
                resolved = o;
                &resolved
            }
            Err(e) => {
                eprint!("{e}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        opts
    };
    let pipeline = match build_pipeline(opts, passes) {
        Ok(p) => p,
        Err(e) => {
            eprint!("{e}");
            return ExitCode::FAILURE;
        }
    };
    if opts.dump_pass_pipeline
        && let Some(p) = &pipeline
    {
        eprintln!(
            "Pass Manager with {} passes:\n{}",
            p.passes().len(),
            p.to_text()
        );
    }
    let mut run_options = RunOptions {
        verify_each: !opts.no_verify && !opts.no_verify_each,
        threads: thread_count(opts),
        print_before: opts.print_ir_before.clone(),
        print_after: opts.print_ir_after.clone(),
        print_before_all: opts.print_ir_before_all,
        print_after_all: opts.print_ir_after_all,
        print_after_change: opts.print_ir_after_change,
        print_after_failure: opts.print_ir_after_failure,
        print: print_options(opts),
        targets: acc_target::Targets::new(),
    };
    let mut timings = Timings::default();
    let (name, bytes) = match read_input(opts) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("acc-opt: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut sources = SourceMap::new();
    let (file, not_utf8) = sources.add_bytes(&name, bytes);
    if not_utf8.is_some() && name.ends_with(".onnx") {
        eprintln!(
            "acc-opt: '{name}' is an ONNX model, not IR: import it first with \
             'acc-translate --import-onnx {name} -o model.mlir' (acc-run takes .onnx files as they are)"
        );
        return ExitCode::FAILURE;
    }
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
            eprintln!("acc-opt: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut side_files = match SideFiles::reserve(pipeline.as_ref(), opts) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("acc-opt: {e}");
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
    let target_files = match add_dialect_files(&mut sources, &opts.targets) {
        Ok(f) => f,
        Err(e) => {
            eprint!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let print = print_options(opts);
    let mut failed = false;
    let mut printed_any = false;
    let mut statistics = acc_pass::manager::RunOutput::default();
    for chunk in &chunks {
        // Each chunk has its own context, and so its own targets.
        let mut ctx = match load_definitions(opts, &sources, &dialect_files, &target_files, passes)
        {
            Ok((ctx, targets)) => {
                run_options.targets = targets;
                ctx
            }
            Err(e) => {
                eprint!("{e}");
                return ExitCode::FAILURE;
            }
        };
        let parse_start = std::time::Instant::now();
        let result = process_chunk(&mut ctx, &sources, file, chunk.clone(), opts);
        timings.parser += parse_start.elapsed();
        // Remarks and warnings of passes that succeeded: printed, or checked against
        // the expectations with --verify-diagnostics.
        let mut reported = Vec::new();
        let result = match (result, &pipeline) {
            (Ok(mut ir), Some(p)) => match run_passes(p, &ctx, &mut ir, &run_options, opts) {
                Ok(outputs) => {
                    for output in outputs {
                        for (title, stats) in &output.statistics {
                            statistics.add_statistics(title, stats);
                        }
                        if let Err(e) = side_files.write(&output.files) {
                            eprintln!("acc-opt: {e}");
                            return ExitCode::FAILURE;
                        }
                        eprint!("{}", output.dumps);
                        timings.add(output.timing);
                        if opts.verify_diagnostics {
                            reported.extend(output.diagnostics);
                        } else {
                            let shown: Vec<Diagnostic> = output
                                .diagnostics
                                .into_iter()
                                .filter(|d| opts.remarks || d.severity != Severity::Remark)
                                .collect();
                            if !shown.is_empty() {
                                eprint!("{}", sources.render(&ctx, &shown));
                            }
                        }
                    }
                    Ok(ir)
                }
                Err(failure) => {
                    eprint!("{}", failure.output.dumps);
                    timings.add(failure.output.timing);
                    let mut all = failure.output.diagnostics;
                    all.extend(failure.errors);
                    Err(all)
                }
            },
            (other, _) => other,
        };
        let output_start = std::time::Instant::now();
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
                    let shown = opts
                        .output
                        .as_ref()
                        .map_or("standard output".into(), |p| format!("'{}'", p.display()));
                    eprintln!("acc-opt: cannot write {shown}: {e}");
                    return ExitCode::FAILURE;
                }
                // The process ends soon: freeing a large IR piece by piece is wasted time.
                std::mem::forget(ir);
                reported
            }
            Err(diags) => diags,
        };
        timings.output += output_start.elapsed();
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
    if opts.timing {
        eprint!("{}", timings.report(started.elapsed()));
    }
    if opts.pass_statistics && pipeline.is_some() {
        eprint!("{}", statistics.statistics_report());
    }
    if failed {
        // Dropping the output discards the temporary file: no partial output.
        return ExitCode::FAILURE;
    }
    match out.commit().and_then(|()| side_files.set.commit()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("acc-opt: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The files passes write beside the IR (`view-graph{file=F}`), reserved before the
/// run and committed with the output.
struct SideFiles {
    set: crate::output::OutputSet,
    /// Each reserved path with its index in `set`.
    paths: Vec<(PathBuf, usize)>,
}

impl SideFiles {
    /// Reserves the file of every `view-graph` of the pipeline, refusing one that is an
    /// input of the run (the IR, a dialect or a target file).
    fn reserve(pipeline: Option<&Pipeline>, opts: &OptOptions) -> Result<SideFiles, String> {
        let mut files = SideFiles {
            set: crate::output::OutputSet::new(),
            paths: Vec::new(),
        };
        let passes = pipeline.map(|p| p.passes()).unwrap_or_default();
        let inputs: Vec<PathBuf> = opts
            .input
            .iter()
            .chain(&opts.dialects)
            .chain(&opts.targets)
            .filter_map(|p| std::fs::canonicalize(p).ok())
            .collect();
        for pass in passes.iter().filter(|p| p.info.name == "view-graph") {
            let path = PathBuf::from(pass.options.get("file"));
            if path.as_os_str() == "-" || files.paths.iter().any(|(p, _)| *p == path) {
                continue;
            }
            if let Ok(real) = std::fs::canonicalize(&path)
                && inputs.contains(&real)
            {
                return Err(format!(
                    "view-graph would overwrite '{}', an input of this run: name another file",
                    path.display()
                ));
            }
            let index = files.set.reserve(&path)?;
            files.paths.push((path, index));
        }
        Ok(files)
    }

    /// Writes what the passes produced into the reserved files (a file named by a pass
    /// but not reserved is an error: the pipeline asked for no such file).
    fn write(&mut self, produced: &[acc_pass::SideFile]) -> Result<(), String> {
        for file in produced {
            let index = self
                .paths
                .iter()
                .find(|(p, _)| *p == file.path)
                .map(|(_, i)| *i)
                .ok_or_else(|| {
                    format!(
                        "a pass wrote '{}', which no option named",
                        file.path.display()
                    )
                })?;
            self.set.write(index, &file.bytes)?;
        }
        Ok(())
    }
}

/// Times of the parts of a run, for `--timing`.
#[derive(Default)]
struct Timings {
    parser: std::time::Duration,
    pipeline: Option<TimingNode>,
    output: std::time::Duration,
}

impl Timings {
    fn add(&mut self, node: TimingNode) {
        match &mut self.pipeline {
            Some(p) => p.merge(&node),
            None => self.pipeline = Some(node),
        }
    }

    fn report(&self, total: std::time::Duration) -> String {
        let mut nodes = vec![TimingNode {
            name: "Parser".into(),
            time: self.parser,
            children: Vec::new(),
        }];
        nodes.extend(self.pipeline.clone());
        nodes.push(TimingNode {
            name: "Output".into(),
            time: self.output,
            children: Vec::new(),
        });
        // What none of the parts above measured (start-up, reading files, dialect
        // loading), as `--mlir-timing`'s `Rest`.
        let measured: std::time::Duration = nodes.iter().map(|n| n.time).sum();
        nodes.push(TimingNode {
            name: "Rest".into(),
            time: total.saturating_sub(measured),
            children: Vec::new(),
        });
        timing_report(&nodes, total)
    }
}

/// Reads the dialect definition files into the source map. The error is the message to
/// print, ending in a newline.
fn add_dialect_files(sources: &mut SourceMap, paths: &[PathBuf]) -> Result<Vec<usize>, String> {
    paths
        .iter()
        .map(|p| {
            let bytes = acc_ir::budget::read_file(p.as_ref()).map_err(|e| {
                format!("acc-opt: cannot read dialect file '{}': {e}\n", p.display())
            })?;
            match sources.add_bytes(&p.display().to_string(), bytes) {
                (file, None) => Ok(file),
                (_, Some(d)) => Err(sources.render(&Context::new(), &[d])),
            }
        })
        .collect()
}

/// Runs the pipeline, pass by pass with checks under `--check-semantics`.
fn run_passes(
    p: &Pipeline,
    ctx: &Context,
    ir: &mut acc_ir::Ir,
    run_options: &RunOptions,
    opts: &OptOptions,
) -> Result<Vec<acc_pass::manager::RunOutput>, acc_pass::manager::RunFailure> {
    if opts.check_semantics {
        crate::check_semantics::run_checked(p, ctx, ir, run_options, opts.check_semantics_seed)
    } else {
        run_pipeline(p, ctx, ir, run_options).map(|o| vec![o])
    }
}

/// How the output and the dumps are printed.
fn print_options(opts: &OptOptions) -> PrintOptions {
    PrintOptions {
        generic: opts.print_generic,
        debuginfo: opts.print_debuginfo,
        elide_elements_larger: opts.elide_elements_larger,
    }
}

/// Threads for verification and passes on functions: `--threads`, else one per core.
fn thread_count(opts: &OptOptions) -> usize {
    opts.threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
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
        verifier::verify_parallel(ctx, &ir, thread_count(opts))?;
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
