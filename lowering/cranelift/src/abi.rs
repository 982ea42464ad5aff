//! The calling convention of generated functions, its C declaration, and the packed
//! wrapper every function gets.
//!
//! `func.func @f(%a: memref<4x4xf32>, %n: index) -> (memref<4xf32>, f32)` becomes
//!
//! ```c
//! void f(const float *a, int64_t n, float *result0, float *result1);
//! void f_packed(void **slots); /* slots: &a[0], &n, result0, result1 */
//! ```
//!
//! A memref is passed as a pointer to its first element, laid out as its type says
//! (row-major for the identity layout); a scalar by value; each result through a
//! pointer the caller provides (a memref result is copied into the caller's buffer,
//! or built there directly when the function allocates it only to return it).
//! Result buffers overlap neither the arguments nor each other.
//! In the packed form, every slot is a pointer: to the buffer for a memref, to the
//! value for a scalar argument, to where a result goes.

use acc_ir::{Context, TypeData, TypeId};
use cranelift_codegen::ir::{AbiParam, InstBuilder, MemFlagsData, Signature, Type};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};

use crate::types::{Repr, repr};

/// One argument or result of a generated function.
#[derive(Clone, Debug)]
pub struct Slot {
    /// Its acc type.
    pub ty: TypeId,
    /// How it is held.
    pub repr: Repr,
}

/// The calling convention of one function.
#[derive(Clone, Debug)]
pub struct FnAbi {
    /// The arguments, in order.
    pub args: Vec<Slot>,
    /// The results, in order (each passed as a pointer after the arguments).
    pub results: Vec<Slot>,
    /// The function's `loop.result_sizes` triples (results of bounded size).
    pub result_sizes: Vec<[usize; 3]>,
}

impl FnAbi {
    /// The convention for a function of type `(inputs) -> (results)`.
    pub fn of(ctx: &Context, inputs: &[TypeId], results: &[TypeId]) -> Result<FnAbi, String> {
        let slot = |ty: &TypeId| -> Result<Slot, String> {
            let r = repr(ctx, *ty)?;
            if let Repr::Memref(m) = &r
                && !m.is_contiguous()
            {
                return Err(format!(
                    "{} at a function boundary must be contiguous",
                    acc_ir::printer::type_to_string(ctx, *ty)
                ));
            }
            Ok(Slot { ty: *ty, repr: r })
        };
        Ok(FnAbi {
            args: inputs.iter().map(slot).collect::<Result<_, _>>()?,
            results: results.iter().map(slot).collect::<Result<_, _>>()?,
            result_sizes: Vec::new(),
        })
    }

    /// The convention of the `func.func` type `fn_type`.
    pub fn of_function_type(ctx: &Context, fn_type: TypeId) -> Result<FnAbi, String> {
        match ctx.type_data(fn_type) {
            TypeData::Function { inputs, results } => FnAbi::of(ctx, inputs, results),
            _ => Err("a function must have a function type".into()),
        }
    }

    /// The machine signature: arguments, then one pointer per result.
    pub fn signature(&self, call_conv: CallConv, pointer: Type) -> Signature {
        let mut sig = Signature::new(call_conv);
        for a in &self.args {
            sig.params.push(AbiParam::new(match &a.repr {
                Repr::Scalar(t) => *t,
                Repr::Memref(_) => pointer,
            }));
        }
        for _ in &self.results {
            sig.params.push(AbiParam::new(pointer));
        }
        sig
    }

    /// The C declarations of the function and of its packed wrapper.
    pub fn c_declaration(&self, ctx: &Context, name: &str) -> String {
        let mut params = Vec::new();
        for (i, a) in self.args.iter().enumerate() {
            let (c, pointer) = c_type(ctx, a.ty);
            params.push(if pointer {
                format!("const {c} *arg{i}")
            } else {
                format!("{c} arg{i}")
            });
        }
        for (i, r) in self.results.iter().enumerate() {
            params.push(format!("{} *result{i}", c_type(ctx, r.ty).0));
        }
        let mut shapes = String::new();
        for (i, s) in self.args.iter().chain(&self.results).enumerate() {
            let role = if i < self.args.len() {
                format!("arg{i}")
            } else {
                format!("result{}", i - self.args.len())
            };
            let note = match i.checked_sub(self.args.len()) {
                Some(r) => {
                    acc_dialects::hooks::func::result_size_note(&self.result_sizes, r, &|s| {
                        format!("result{s}")
                    })
                }
                None => String::new(),
            };
            shapes.push_str(&format!(
                "\n * {role}: {}{note}",
                acc_ir::printer::type_to_string(ctx, s.ty)
            ));
        }
        format!(
            "/* @{name}{shapes}\n */\nvoid {name}({});\n/* slots: a pointer per argument (to the buffer or the value), then per result. */\nvoid {name}_packed(void **slots);\n",
            if params.is_empty() {
                "void".to_string()
            } else {
                params.join(", ")
            }
        )
    }
}

/// The C element type of `ty` (its element type for a memref) and whether it is
/// passed as a pointer.
fn c_type(ctx: &Context, ty: TypeId) -> (&'static str, bool) {
    let (element, pointer) = match ctx.type_data(ty) {
        TypeData::MemRef { element, .. } => (*element, true),
        _ => (ty, false),
    };
    let c = match ctx.type_data(element) {
        TypeData::Integer { width: 1, .. } => "uint8_t",
        TypeData::Integer {
            width,
            signedness: acc_ir::Signedness::Unsigned,
        } => match width {
            8 => "uint8_t",
            16 => "uint16_t",
            32 => "uint32_t",
            _ => "uint64_t",
        },
        TypeData::Integer { width, .. } => match width {
            8 => "int8_t",
            16 => "int16_t",
            32 => "int32_t",
            _ => "int64_t",
        },
        TypeData::Index => "int64_t",
        TypeData::QuantUniform(q) => match (q.storage_width, q.storage_signed) {
            (8, true) => "int8_t",
            (8, false) => "uint8_t",
            (16, true) => "int16_t",
            (16, false) => "uint16_t",
            (_, true) => "int32_t",
            (_, false) => "uint32_t",
        },
        TypeData::Float(acc_ir::FloatKind::F64) => "double",
        // Their bits.
        TypeData::Float(acc_ir::FloatKind::F16 | acc_ir::FloatKind::BF16) => "uint16_t",
        _ => "float",
    };
    (c, pointer)
}

/// The body of `NAME_packed(void **slots)`: loads each argument from its slot and
/// calls the function (`callee`, already imported into `func`).
pub(crate) fn build_packed(
    func: &mut cranelift_codegen::ir::Function,
    fctx: &mut FunctionBuilderContext,
    abi: &FnAbi,
    callee: cranelift_codegen::ir::FuncRef,
    config: cranelift_codegen::isa::TargetFrontendConfig,
) {
    let pointer = config.pointer_type();
    let mut b = FunctionBuilder::new(func, fctx);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let slots = b.block_params(entry)[0];
    let flags = MemFlagsData::trusted();
    let mut args = Vec::new();
    let step = i32::from(pointer.bytes() as u8);
    for (i, a) in abi.args.iter().enumerate() {
        let slot = b.ins().load(pointer, flags, slots, step * i as i32);
        args.push(match &a.repr {
            Repr::Scalar(t) => b.ins().load(*t, flags, slot, 0),
            Repr::Memref(_) => slot,
        });
    }
    for i in 0..abi.results.len() {
        let at = step * (abi.args.len() + i) as i32;
        args.push(b.ins().load(pointer, flags, slots, at));
    }
    b.ins().call(callee, &args);
    b.ins().return_(&[]);
    b.seal_all_blocks();
    b.finalize(config);
}

/// The packed wrapper's signature: one pointer, no results.
pub(crate) fn packed_signature(call_conv: CallConv, pointer: Type) -> Signature {
    let mut sig = Signature::new(call_conv);
    sig.params.push(AbiParam::new(pointer));
    sig
}
