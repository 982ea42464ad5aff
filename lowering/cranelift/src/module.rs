//! A whole IR module into a Cranelift module (JIT or object): every `func.func` with
//! a body is declared with its convention, defined, and given its packed wrapper.

use acc_dialects::ops::func;
use acc_ir::{BodyId, Context, EntityId, Ir, OpId};
use cranelift_codegen::control::ControlPlane;
use cranelift_codegen::ir::UserFuncName;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_module::{FuncId, Linkage, Module, ModuleReloc};
use rustc_hash::FxHashMap;

use crate::CodegenError;
use crate::abi::{FnAbi, build_packed, packed_signature};
use crate::target::Features;
use crate::translate::{FnTranslator, OutlinedBody, Shared};

/// One compiled function.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// Its name in the IR (and the symbol).
    pub name: String,
    /// Its convention.
    pub abi: FnAbi,
    /// The function.
    pub id: FuncId,
    /// Its `NAME_packed` wrapper.
    pub packed: FuncId,
    /// The body holding the function's ops.
    pub body: BodyId,
    /// The machine code of each of its top-level ops: (start, end) byte offsets from
    /// the function's start and the op (several ranges per op when the code of an op is
    /// interleaved with another's).
    pub code_ranges: Vec<(u32, u32, OpId)>,
    /// The functions made of its threaded nests' bodies, with their code ranges.
    pub outlined: Vec<OutlinedBody>,
}

/// The `func.func` ops of the module with a body: name, the body holding the op, op.
fn functions(ctx: &Context, ir: &Ir) -> Vec<(String, BodyId, OpId)> {
    acc_interp::functions(ctx, ir)
        .into_iter()
        .filter(|(_, body, op)| ir.body(*body).nested_body(*op).is_some())
        .collect()
}

/// Declares and defines every function of `ir` in `module`.
pub fn compile<M: Module>(
    ctx: &Context,
    ir: &Ir,
    module: &mut M,
    features: Features,
) -> Result<Vec<Compiled>, CodegenError> {
    let call_conv = module.isa().default_call_conv();
    let config = module.target_config();
    let pointer = config.pointer_type();
    let funcs = functions(ctx, ir);
    if funcs.is_empty() {
        return Err(CodegenError::new("the module has no function with a body"));
    }
    let mut table: FxHashMap<String, (FuncId, FnAbi)> = FxHashMap::default();
    let mut compiled = Vec::new();
    for (name, body, op) in &funcs {
        let r = ir.op(*body, *op);
        let fn_type = r
            .attr(ctx, func::Func::ATTR_FUNCTION_TYPE)
            .and_then(|a| match ctx.attr_data(a) {
                acc_ir::AttrData::Type(t) => Some(*t),
                _ => None,
            })
            .ok_or_else(|| CodegenError::at(r.loc(), "a function without a type"))?;
        let mut abi = FnAbi::of_function_type(ctx, fn_type).map_err(|m| {
            let hint = if takes_tensors(ctx, fn_type) {
                " (tensors must be lowered to buffers first: acc-opt --pass 'graph-to-tensor,bufferize,buffer-deallocation')"
            } else {
                ""
            };
            CodegenError::at(r.loc(), format!("'@{name}': {m}{hint}"))
        })?;
        let params = abi.args.len() + abi.results.len();
        if params > MAX_PARAMS {
            return Err(CodegenError::at(
                r.loc(),
                format!(
                    "'@{name}' takes {params} arguments and result buffers: native code takes \
                     at most {MAX_PARAMS} (a limit of Cranelift's); pass them in buffers"
                ),
            ));
        }
        abi.result_sizes = acc_dialects::hooks::func::result_sizes(ctx, r)
            .map_err(|m| CodegenError::at(r.loc(), format!("'@{name}': {m}")))?;
        let declare = |module: &mut M, symbol: &str, sig: &cranelift_codegen::ir::Signature| {
            module
                .declare_function(symbol, Linkage::Export, sig)
                .map_err(|e| CodegenError::at(r.loc(), format!("cannot declare '{symbol}': {e}")))
        };
        let signature = abi.signature(call_conv, pointer);
        let id = declare(module, name, &signature)?;
        let packed = declare(
            module,
            &format!("{name}_packed"),
            &packed_signature(call_conv, pointer),
        )?;
        table.insert(name.clone(), (id, abi.clone()));
        compiled.push(Compiled {
            name: name.clone(),
            abi,
            id,
            packed,
            body: ir.body(*body).nested_body(*op).unwrap_or(*body),
            code_ranges: Vec::new(),
            outlined: Vec::new(),
        });
    }
    let mut cctx = module.make_context();
    let mut fctx = FunctionBuilderContext::new();
    let mut constants = FxHashMap::default();
    for ((_, body, op), c) in funcs.iter().zip(compiled.iter_mut()) {
        let r = ir.op(*body, *op);
        let inner = ir
            .body(*body)
            .nested_body(*op)
            .ok_or_else(|| CodegenError::at(r.loc(), "a function without a body"))?;
        let region = *r
            .regions()
            .first()
            .ok_or_else(|| CodegenError::at(r.loc(), "a function without a region"))?;
        cctx.func.signature = c.abi.signature(call_conv, pointer);
        cctx.func.name = UserFuncName::user(0, c.id.as_u32());
        let b = FunctionBuilder::new(&mut cctx.func, &mut fctx);
        let shared = Shared {
            module: &mut *module,
            functions: &table,
            features,
            config,
            outlined: &mut c.outlined,
            constants: &mut constants,
        };
        FnTranslator::new(ctx, ir, inner, b, shared, c.abi.clone()).run(region)?;
        let wide = c.abi.args.len() + c.abi.results.len() > WIDE;
        define(module, c.id, &mut cctx, wide).map_err(|e| {
            CodegenError::at(r.loc(), format!("Cranelift rejected '@{}': {e}", c.name))
        })?;
        if let Some(code) = cctx.compiled_code() {
            c.code_ranges = code
                .buffer
                .get_srclocs_sorted()
                .iter()
                .filter(|s| !s.loc.is_default())
                .map(|s| (s.start, s.end, OpId::from_index(s.loc.bits() as usize)))
                .collect();
        }
        module.clear_context(&mut cctx);
        // The packed wrapper.
        cctx.func.signature = packed_signature(call_conv, pointer);
        cctx.func.name = UserFuncName::user(0, c.packed.as_u32());
        let callee = module.declare_func_in_func(c.id, &mut cctx.func);
        build_packed(&mut cctx.func, &mut fctx, &c.abi, callee, config);
        define(module, c.packed, &mut cctx, wide).map_err(|e| {
            CodegenError::new(format!("Cranelift rejected '{}_packed': {e}", c.name))
        })?;
        module.clear_context(&mut cctx);
    }
    Ok(compiled)
}

/// The most parameters (arguments and result pointers) Cranelift takes in a signature.
const MAX_PARAMS: usize = 65535;

/// Above this many arguments and results, a function and its packed wrapper are
/// compiled with the single-pass register allocator ([`crate::target::single_pass`]):
/// the default one takes time quadratic in the values live at once (20,000 arguments:
/// 7.5 s instead of 0.1 s), and such a function is all argument passing anyway.
const WIDE: usize = 256;

/// Compiles and defines the function in `cctx` as `id`: with the module's ISA, or
/// when `wide`, with its single-pass variant.
fn define<M: Module>(
    module: &mut M,
    id: FuncId,
    cctx: &mut cranelift_codegen::Context,
    wide: bool,
) -> Result<(), String> {
    let single_pass = if wide {
        crate::target::single_pass(module.isa()).ok()
    } else {
        None
    };
    let Some(isa) = single_pass else {
        return module
            .define_function(id, cctx)
            .map_err(|e| format!("{e:?}"));
    };
    cctx.compile(&*isa, &mut ControlPlane::default())
        .map_err(|e| format!("{:?}", e.inner))?;
    let code = cctx.compiled_code().ok_or("no code after compiling")?;
    let relocs: Vec<ModuleReloc> = code
        .buffer
        .relocs()
        .iter()
        .map(|r| ModuleReloc::from_mach_reloc(r, &cctx.func, id))
        .collect();
    module
        .define_function_bytes(
            id,
            u64::from(code.buffer.alignment),
            code.buffer.data(),
            &relocs,
        )
        .map_err(|e| format!("{e:?}"))
}

/// Whether a function type has tensor arguments or results.
fn takes_tensors(ctx: &Context, fn_type: acc_ir::TypeId) -> bool {
    match ctx.type_data(fn_type) {
        acc_ir::TypeData::Function { inputs, results } => inputs
            .iter()
            .chain(results.iter())
            .any(|t| matches!(ctx.type_data(*t), acc_ir::TypeData::RankedTensor { .. })),
        _ => false,
    }
}

/// The C header declaring every compiled function.
pub fn header(ctx: &Context, compiled: &[Compiled], guard: &str) -> String {
    let mut out = format!(
        "/* Generated by acc: the functions of the object file beside this header. */\n#ifndef {guard}\n#define {guard}\n\n#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {{\n#endif\n\n/* Buffers made inside the functions come from these; the program provides them. */\nvoid *acc_alloc(int64_t bytes, int64_t alignment);\nvoid acc_free(void *pointer);\n\n"
    );
    for c in compiled {
        out.push_str(&c.abi.c_declaration(ctx, &c.name));
        out.push('\n');
    }
    out.push_str(&format!(
        "#ifdef __cplusplus\n}}\n#endif\n\n#endif /* {guard} */\n"
    ));
    out
}
