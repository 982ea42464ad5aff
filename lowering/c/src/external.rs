//! External compilers (a device's `external "COMMAND"` in its target file;
//! docs/codegen.md, "External compilers"). An `hw.intrinsic` with `compiler` is a
//! region `outline-external` made of the ops a device's `code` rules placed; the C back
//! end builds it the way TVM's BYOC build calls an external codegen: the semantics
//! region, as a function named after the callee that takes the region's inputs and
//! returns its outputs (`func.func @CALLEE(tensor<...>, ...) -> (tensor<...>, ...)`,
//! MLIR text), goes to the command with each constant of the region as a `.npy` file
//! (the constant op names its file: `acc.file = "K.npy"`); the command writes a C
//! file defining `void CALLEE(const T *acc_arg0, ..., T *acc_result0, ...)` (row-major
//! buffers, inputs then outputs, as acc's own functions take them), which goes out
//! beside `model.c` as `model.CALLEE.c`. A command naming `{object}` instead of
//! `{output}` writes an object file defining that function (built for the
//! processor that runs the call: the host's, or a device's when the call runs in
//! its launches), which goes out as `model.CALLEE.o`, to be linked with the rest;
//! `model.c` declares the function either way.
//!
//! The command runs through `sh -c` in the current directory, with `{ir}`,
//! `{constants}`, `{function}` and `{output}` (or `{object}`) replaced by the
//! function's file, the constants' directory (paths quoted for the shell: the
//! command does not quote them), the callee's name (a C identifier) and the file to
//! write. A command that fails, or writes no file (or an empty one), is an error
//! showing what it printed. The files live in
//! a fresh directory of the system's temporary one, removed afterwards. The command
//! comes from the IR (the target file's, through `outline-external`): emitting C runs
//! it, so emit C only from IR of a trusted origin, as one runs only trusted
//! makefiles.

use std::path::Path;
use std::process::Command;

use acc_dialects::build::Builder;
use acc_dialects::ops::func;
use acc_ir::clone::{ValueMap, clone_op};
use acc_ir::{Context, InsertPoint, Ir, OpRef, ValueId};

/// The discardable attribute naming a constant's `.npy` file (in the constants'
/// directory) in the function handed to an external compiler.
pub const FILE_ATTR: &str = "acc.file";

/// A region to hand to an external compiler: its function's text and constants.
pub(crate) struct Region {
    /// The callee.
    callee: String,
    /// The function, MLIR text with its resources.
    pub text: String,
    /// Each constant's file name and value.
    constants: Vec<(String, acc_interp::Tensor)>,
}

/// A function an external compiler built.
pub(crate) struct Built {
    /// Its name.
    pub callee: String,
    /// The text of the region it was built from.
    pub text: String,
    /// What the compiler wrote: C source, or an object file when `object`.
    pub output: Vec<u8>,
    /// Whether `output` is an object file.
    pub object: bool,
}

impl Built {
    /// The name of the file it goes out as: `model.CALLEE.c` or `model.CALLEE.o`.
    pub(crate) fn file_name(&self) -> String {
        let extension = if self.object { "o" } else { "c" };
        format!("model.{}.{extension}", self.callee)
    }
}

/// Whether a buffer of `shape` with `strides` (in elements) is row-major and
/// contiguous (a dimension of one element may have any stride).
pub(crate) fn is_row_major(shape: &[i64], strides: &[i64]) -> bool {
    let mut expected = 1;
    for (d, s) in shape.iter().zip(strides).rev() {
        if *d != 1 && *s != expected {
            return false;
        }
        expected *= d;
    }
    shape.len() == strides.len()
}

impl Region {
    /// The region `op` (an `hw.intrinsic` with a semantics region) as function
    /// `callee`.
    pub(crate) fn of(
        ctx: &Context,
        ir: &Ir,
        op: OpRef<'_>,
        callee: &str,
    ) -> Result<Region, String> {
        let (text, constants) = function_text(ctx, ir, op, callee)?;
        Ok(Region {
            callee: callee.to_string(),
            text,
            constants,
        })
    }

    /// Runs the external compiler `command` on the region: what it built.
    pub(crate) fn build(self, command: &str) -> Result<Built, String> {
        let dir = tempfile::Builder::new()
            .prefix("acc-external-")
            .tempdir()
            .map_err(|e| format!("no temporary directory for the external compiler: {e}"))?;
        let object = command.contains("{object}");
        let output = run(
            dir.path(),
            command,
            &self.callee,
            &self.text,
            &self.constants,
            object,
        )?;
        Ok(Built {
            callee: self.callee,
            text: self.text,
            output,
            object,
        })
    }
}

/// Writes the function and its constants into `dir`, runs the command, reads what
/// it wrote: C source, or an object file when `object`.
fn run(
    dir: &Path,
    command: &str,
    callee: &str,
    text: &str,
    constants: &[(String, acc_interp::Tensor)],
    object: bool,
) -> Result<Vec<u8>, String> {
    let io = |what: &Path, e: std::io::Error| format!("{}: {e}", what.display());
    let values = dir.join("constants");
    std::fs::create_dir(&values).map_err(|e| io(&values, e))?;
    let ir_file = dir.join(format!("{callee}.mlir"));
    std::fs::write(&ir_file, text).map_err(|e| io(&ir_file, e))?;
    for (name, t) in constants {
        let path = values.join(name);
        let mut f = std::fs::File::create(&path).map_err(|e| io(&path, e))?;
        acc_interp::npy::write(t, &mut f).map_err(|e| io(&path, e))?;
    }
    let (output, what) = if object {
        (dir.join(format!("{callee}.o")), "object file")
    } else {
        (dir.join(format!("{callee}.c")), "C file")
    };
    let line = substitute(
        command,
        &[
            ("{ir}", quoted(&ir_file)),
            ("{constants}", quoted(&values)),
            ("{function}", callee.to_string()),
            ("{output}", quoted(&output)),
            ("{object}", quoted(&output)),
        ],
    );
    let ran = Command::new("sh")
        .arg("-c")
        .arg(&line)
        .output()
        .map_err(|e| format!("cannot run the external compiler `{line}`: {e}"))?;
    let printed = || {
        let mut s = String::from_utf8_lossy(&ran.stderr).trim().to_string();
        if s.is_empty() {
            s = String::from_utf8_lossy(&ran.stdout).trim().to_string();
        }
        s
    };
    if !ran.status.success() {
        return Err(format!(
            "the external compiler `{line}` failed ({}): {}",
            ran.status,
            printed()
        ));
    }
    let said = || match printed() {
        p if p.is_empty() => String::new(),
        p => format!(": {p}"),
    };
    let bytes = std::fs::read(&output).map_err(|e| {
        format!(
            "the external compiler `{line}` wrote no {what} ({e}){}",
            said()
        )
    })?;
    if bytes.is_empty() {
        return Err(format!(
            "the external compiler `{line}` wrote an empty {what}{}",
            said()
        ));
    }
    if !object && std::str::from_utf8(&bytes).is_err() {
        return Err(format!(
            "the external compiler `{line}` wrote a C file that is not UTF-8 text (a compiler writing an object file names {{object}}, not {{output}})"
        ));
    }
    Ok(bytes)
}

/// `command` with each placeholder replaced, in one pass (a replacement is not
/// searched again).
fn substitute(command: &str, placeholders: &[(&str, String)]) -> String {
    let mut out = String::new();
    let mut rest = command;
    'scan: while !rest.is_empty() {
        for (key, value) in placeholders {
            if let Some(after) = rest.strip_prefix(key) {
                out.push_str(value);
                rest = after;
                continue 'scan;
            }
        }
        let mut chars = rest.chars();
        if let Some(c) = chars.next() {
            out.push(c);
        }
        rest = chars.as_str();
    }
    out
}

/// `path` quoted for `sh`.
fn quoted(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', "'\\''"))
}

/// The semantics region of `op` as a module's function `callee` (MLIR text, with the
/// resources it uses), and the constants it holds, each with its file's name.
fn function_text(
    ctx: &Context,
    ir: &Ir,
    op: OpRef<'_>,
    callee: &str,
) -> Result<(String, Vec<(String, acc_interp::Tensor)>), String> {
    let region = *op.regions().first().ok_or("no semantics region")?;
    let region_body = op.region_body();
    let b = ir.body(region_body);
    let block = b.entry_block(region).ok_or("an empty semantics region")?;
    let args = b.block_args(block).to_vec();
    let arg_types: Vec<_> = args.iter().map(|a| b.value_type(*a)).collect();
    let ops: Vec<_> = b.block_ops(block).collect();
    let (last, ops) = ops.split_last().ok_or("an empty semantics region")?;
    let yielded: Vec<ValueId> = b.operands(*last).collect();
    let result_types: Vec<_> = yielded.iter().map(|v| b.value_type(*v)).collect();
    // The function goes into a copy of the module, which is printed from it alone.
    let mut copy = ir.clone();
    let module = copy
        .body(copy.root_body)
        .nested_body(copy.root)
        .ok_or("the module has no body")?;
    let m = copy.body(module);
    let module_block = m
        .top_regions()
        .first()
        .and_then(|r| m.entry_block(*r))
        .ok_or("the module has no block")?;
    let loc = op.loc();
    let mut e = Builder::new(ctx, &mut copy, module, InsertPoint::End(module_block), loc);
    let (f, fbody) = func::Func::build(&mut e)
        .sym_name(ctx.string_attr(callee))
        .function_type(ctx.type_attr(ctx.function_type(&arg_types, &result_types)))
        .create_isolated(&arg_types)?;
    let fb = copy.body(fbody);
    let entry = fb
        .top_regions()
        .first()
        .and_then(|r| fb.entry_block(*r))
        .ok_or("the function has no block")?;
    let mut map = ValueMap::default();
    for (a, p) in args.iter().zip(fb.block_args(entry).to_vec()) {
        map.values.insert(*a, p);
    }
    let mut constants = Vec::new();
    for o in ops {
        let c = clone_op(
            &mut copy,
            region_body,
            *o,
            fbody,
            InsertPoint::End(entry),
            &mut map,
        );
        let r = copy.op(fbody, c);
        let constant_like = ctx.op_def(r.name()).is_some_and(|d| d.traits.constant_like);
        let value = r.attr(ctx, "value");
        if let (true, Some(value)) = (constant_like, value) {
            let t = acc_interp::Tensor::from_attr(ctx, value)
                .map_err(|m| format!("a constant of the region has no .npy form: {m}"))?;
            let name = format!("{}.npy", constants.len());
            let mut e = Builder::new(ctx, &mut copy, fbody, InsertPoint::End(entry), loc);
            e.set_attr(c, FILE_ATTR, ctx.string_attr(&name))?;
            constants.push((name, t));
        }
    }
    let outs: Vec<ValueId> = yielded
        .iter()
        .map(|v| map.values.get(v).copied().unwrap_or(*v))
        .collect();
    let mut e = Builder::new(ctx, &mut copy, fbody, InsertPoint::End(entry), loc);
    func::Return::build(&mut e, &outs).create()?;
    let text = acc_ir::printer::print_op_with_resources(
        ctx,
        &copy,
        module,
        f,
        &acc_ir::printer::PrintOptions::default(),
    );
    Ok((text, constants))
}
