//! `acc-translate`: converts between acc IR and other formats:
//! `--import-onnx model.onnx [-o model.mlir] [--function NAME] [--bind NAME=FILE.npy]` and
//! `--emit-object in.mlir --target ARCH -o out.o [--header out.h]` and
//! `--emit-c in.mlir -o DIR` (DIR/model.c, model.h, weights.h).
//! Outputs are written only when the translation succeeds (atomically); an import
//! lists every unsupported op at once. Exit status: 0, 1 on any error, 2 on a bad
//! command line.

use std::path::PathBuf;
use std::process::ExitCode;

use acc_ir::printer::{PrintOptions, write_ir};

const USAGE: &str = "usage: acc-translate --import-onnx MODEL.onnx [-o OUT.mlir] [--function NAME] [--bind NAME=FILE.npy ...] [--print-generic]
       acc-translate --emit-object IN.mlir --target x86_64|aarch64|riscv64 -o OUT.o [--header OUT.h]
       acc-translate --emit-c IN.mlir -o DIR

--import-onnx: imports an ONNX model (opsets 11 to 28) as acc IR in the graph dialect:
one function (default name: main), initializers as constants (large ones in
dense_resource blobs).

--emit-object: compiles every function of IN.mlir (func, cf, arith and loop ops)
into an ELF object for the target, with a C header declaring them (default: OUT.o
with the extension .h).

--emit-c: writes every function of IN.mlir (loop, arith, math, func and hw.intrinsic
ops, buffers placed by memory-plan) as portable C into DIR: model.c, model.h and
weights.h (no malloc, no libc beyond stdint.h and string.h; vectorized loops as GNU
C vectors), model.DEVICE.c for each device running launched work, and
model.CALLEE.c (or model.CALLEE.o) for each region an external compiler built (it
runs then).
";

#[derive(Debug, Default, PartialEq)]
enum Translation {
    #[default]
    None,
    ImportOnnx,
    EmitObject,
    EmitC,
}

#[derive(Debug, Default)]
struct Options {
    translation: Translation,
    input: Option<PathBuf>,
    output: Option<PathBuf>,
    header: Option<PathBuf>,
    target: Option<String>,
    function: Option<String>,
    generic: bool,
    /// Model inputs fixed to values at import (`--bind NAME=FILE.npy`).
    binds: Vec<(String, PathBuf)>,
    /// Options given that the translation chosen does not use (each warned about).
    ignored: Vec<String>,
}

/// Parses `NAME=FILE` (the value of `--bind` or `--input`).
pub(crate) fn name_and_file(flag: &str, v: &str) -> Result<(String, PathBuf), String> {
    match v.split_once('=') {
        Some((name, file)) if !name.is_empty() && !file.is_empty() => {
            Ok((name.to_string(), PathBuf::from(file)))
        }
        _ => Err(format!("{flag} expects NAME=FILE, got '{v}'")),
    }
}

fn parse_args(args: &[String]) -> Result<Options, String> {
    let mut o = Options::default();
    let mut words = crate::cli::Words::new(args);
    while let Some((flag, inline)) = words.next_word() {
        let mut value = || words.value(flag, inline);
        match flag {
            "-h" | "--help" => return Err(String::new()),
            "--import-onnx" => o.translation = Translation::ImportOnnx,
            "--emit-object" => o.translation = Translation::EmitObject,
            "--emit-c" => o.translation = Translation::EmitC,
            "--target" => o.target = Some(value()?),
            "--header" => o.header = Some(PathBuf::from(value()?)),
            "-o" | "--output" => o.output = Some(PathBuf::from(value()?)),
            "--function" => o.function = Some(value()?),
            "--bind" => o.binds.push(name_and_file("--bind", &value()?)?),
            "--print-generic" | "--mlir-print-op-generic" => o.generic = true,
            f if f.starts_with('-') => return Err(crate::cli::unknown_option(f, USAGE)),
            _ => {
                if o.input.replace(PathBuf::from(flag)).is_some() {
                    return Err(format!("unexpected extra input '{flag}'"));
                }
            }
        }
    }
    if !o.binds.is_empty() && o.translation != Translation::ImportOnnx {
        return Err("--bind applies to --import-onnx only".into());
    }
    match o.translation {
        Translation::None => {
            return Err("choose a translation: --import-onnx, --emit-object or --emit-c".into());
        }
        Translation::EmitObject if o.target.is_none() => {
            return Err("--emit-object needs --target x86_64, aarch64 or riscv64".into());
        }
        Translation::EmitObject if o.output.is_none() => {
            return Err("--emit-object needs -o OUT.o".into());
        }
        Translation::EmitC if o.output.is_none() => {
            return Err("--emit-c needs -o DIR".into());
        }
        _ => {}
    }
    if o.input.is_none() {
        return Err("no input file".into());
    }
    let only = |given: bool, flag: &str, what: &str| {
        given.then(|| format!("{flag} applies to {what} only; it is ignored"))
    };
    let emit_object = o.translation == Translation::EmitObject;
    let import = o.translation == Translation::ImportOnnx;
    o.ignored = [
        only(
            o.header.is_some() && !emit_object,
            "--header",
            "--emit-object",
        ),
        only(
            o.target.is_some() && !emit_object,
            "--target",
            "--emit-object",
        ),
        only(
            o.function.is_some() && !import,
            "--function",
            "--import-onnx",
        ),
        only(o.generic && !import, "--print-generic", "--import-onnx"),
    ]
    .into_iter()
    .flatten()
    .collect();
    Ok(o)
}

/// Runs `acc-translate` with `args`.
pub fn main_with_args(args: &[String]) -> ExitCode {
    let o = match parse_args(args) {
        Ok(o) => o,
        Err(e) if e.is_empty() => {
            print!("{USAGE}\ncommon options:\n{}", crate::cli::COMMON_USAGE);
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("acc-translate: {e}\n(acc-translate --help lists the options)");
            return ExitCode::from(2);
        }
    };
    for warning in &o.ignored {
        eprintln!("acc-translate: warning: {warning}");
    }
    match run(&o) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

fn run(o: &Options) -> Result<(), String> {
    if o.translation == Translation::EmitObject {
        return emit_object(o);
    }
    if o.translation == Translation::EmitC {
        return emit_c(o);
    }
    let path = o.input.as_ref().ok_or("acc-translate: no input model")?;
    let shown = path.display();
    let mut out = crate::output::Output::open(o.output.as_deref())
        .map_err(|e| format!("acc-translate: {e}"))?;
    let bytes = acc_ir::budget::read_file(path.as_ref())
        .map_err(|e| format!("acc-translate: cannot read '{shown}': {e}"))?;
    let mut ctx = acc_dialects::new_context();
    let name = o.function.as_deref().unwrap_or("main");
    let ir = import_model(&mut ctx, path, &bytes, name, &o.binds)?;
    let print = PrintOptions {
        generic: o.generic,
        ..Default::default()
    };
    write_ir(&ctx, &ir, &print, out.writer())
        .map_err(|e| format!("acc-translate: cannot write: {e}"))?;
    out.commit().map_err(|e| format!("acc-translate: {e}"))
}

/// The ONNX model `bytes` (read from `path`) imported into `ctx` as a function
/// `name`, verified, with the inputs of `binds` fixed to the values in their `.npy`
/// files. The error is one line per problem, each naming the file.
pub(crate) fn import_model(
    ctx: &mut acc_ir::Context,
    path: &std::path::Path,
    bytes: &[u8],
    name: &str,
    binds: &[(String, PathBuf)],
) -> Result<acc_ir::Ir, String> {
    let shown = path.display();
    let mut bound = Vec::new();
    for (input, file) in binds {
        let value = bound_value(ctx, bytes, input, file)
            .map_err(|e| format!("{shown}: error: --bind {input}={}: {e}", file.display()))?;
        bound.push((input.clone(), value));
    }
    let ir = acc_onnx::import_bound(ctx, bytes, name, &bound).map_err(|errors| {
        errors
            .iter()
            .map(|e| format!("{shown}: error: {e}"))
            .collect::<Vec<_>>()
            .join("\n")
    })?;
    let rank = deepest_rank(ctx, &ir);
    let most = acc_ir::verifier::MAX_RANK;
    if rank > most {
        return Err(format!(
            "{shown}: error: the model has a tensor of {rank} dimensions: acc takes at most {most} (its lowerings nest a loop per dimension)"
        ));
    }
    acc_ir::verifier::verify(ctx, &ir).map_err(|d| {
        let why = acc_ir::SourceMap::new().render(ctx, &d);
        format!("{shown}: error: the imported IR does not verify (a bug in the importer):\n{why}")
    })?;
    Ok(ir)
}

/// The most dimensions of a value in `ir`: of an op's result, or of an argument of
/// a function's entry block.
fn deepest_rank(ctx: &acc_ir::Context, ir: &acc_ir::Ir) -> usize {
    let rank = |t: acc_ir::TypeId| ctx.type_data(t).shape().map_or(0, <[i64]>::len);
    let mut deepest = 0;
    ir.walk_nested(ir.root_body, ir.root, &mut |body, op| {
        let b = ir.body(body);
        let inner = ir.body(ir.region_body(body, op));
        let results = b.results(op).map(|v| b.value_type(v));
        let args = ir
            .op(body, op)
            .regions()
            .iter()
            .filter_map(|r| inner.entry_block(*r))
            .flat_map(|block| inner.block_args(block).iter().map(|v| inner.value_type(*v)));
        deepest = results.chain(args).map(rank).fold(deepest, usize::max);
    });
    deepest
}

/// The value of model input `input` in the `.npy` file `file`, as a constant of the
/// input's declared element type and the file's shape.
fn bound_value(
    ctx: &acc_ir::Context,
    bytes: &[u8],
    input: &str,
    file: &std::path::Path,
) -> Result<acc_ir::AttrId, String> {
    let element = acc_onnx::input_element_type(ctx, bytes, input)?;
    let shape: Vec<i64> = acc_interp::npy::shape(file)?
        .into_iter()
        .map(|d| d as i64)
        .collect();
    let ty = ctx.intern_type(acc_ir::TypeData::RankedTensor {
        shape: shape.into(),
        element,
        encoding: None,
    });
    let tensor = acc_interp::npy::read(ctx, file, ty)?;
    acc_ir::elements::dense_attr(ctx, ty, &tensor.data)
        .ok_or_else(|| "its element type cannot be a constant".to_string())
}

/// The verified IR of the input file.
fn read_ir(o: &Options) -> Result<(acc_ir::Context, acc_ir::Ir, acc_ir::SourceMap), String> {
    let path = o.input.as_ref().ok_or("acc-translate: no input file")?;
    let bytes = acc_ir::budget::read_file(path.as_ref())
        .map_err(|e| format!("acc-translate: cannot read '{}': {e}", path.display()))?;
    let mut sources = acc_ir::SourceMap::new();
    let mut ctx = acc_dialects::new_context();
    let (file, bad) = sources.add_bytes(&path.display().to_string(), bytes);
    if let Some(d) = bad {
        return Err(sources.render(&ctx, &[d]));
    }
    let ir = acc_ir::parser::parse_file(&mut ctx, &sources, file)
        .map_err(|d| sources.render(&ctx, &[d]))?;
    acc_ir::verifier::verify(&ctx, &ir).map_err(|d| sources.render(&ctx, &d))?;
    Ok((ctx, ir, sources))
}

/// `--emit-c`: model.c, model.h and weights.h in the output directory, with
/// model.DEVICE.c and model.CALLEE.c / .o, all generated before any is written and
/// written all or nothing.
fn emit_c(o: &Options) -> Result<(), String> {
    let dir = o
        .output
        .as_ref()
        .ok_or("acc-translate: no output directory")?;
    let destination =
        crate::output::OutputDir::check(dir).map_err(|e| format!("acc-translate: {e}"))?;
    let (ctx, ir, sources) = read_ir(o)?;
    let program = acc_c::emit(&ctx, &ir, "model").map_err(|d| sources.render(&ctx, &[d]))?;
    let mut files: Vec<(String, &[u8])> = Vec::new();
    for (device, text) in &program.devices {
        files.push((format!("model.{device}.c"), text.as_bytes()));
    }
    for (file, bytes) in &program.externals {
        files.push((file.clone(), bytes));
    }
    files.push(("model.h".into(), program.header.as_bytes()));
    files.push(("weights.h".into(), program.weights.as_bytes()));
    files.push(("model.c".into(), program.source.as_bytes()));
    destination
        .write_all(&files)
        .map_err(|e| format!("acc-translate: {e}"))
}

/// `--emit-object`: the object file and its header, written both or neither.
fn emit_object(o: &Options) -> Result<(), String> {
    let out = o.output.as_ref().ok_or("acc-translate: no output file")?;
    let arch = o.target.as_deref().unwrap_or("x86_64");
    let header = o.header.clone().unwrap_or_else(|| out.with_extension("h"));
    let mut outputs = crate::output::OutputSet::new();
    let fail = |e: String| format!("acc-translate: {e}");
    let object_file = outputs.reserve(out).map_err(fail)?;
    let header_file = outputs.reserve(&header).map_err(fail)?;
    let (ctx, ir, sources) = read_ir(o)?;
    let name = out
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "acc".into());
    let object = acc_cranelift::object::emit(&ctx, &ir, arch, &name)
        .map_err(|e| sources.render(&ctx, &[e.diagnostic()]))?;
    outputs.write(object_file, &object.bytes).map_err(fail)?;
    outputs
        .write(header_file, object.header.as_bytes())
        .map_err(fail)?;
    outputs.commit().map_err(fail)
}
