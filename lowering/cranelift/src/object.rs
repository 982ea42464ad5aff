//! Object files: every function of a module compiled for a named architecture into
//! an ELF relocatable object, with the C header declaring them.

use acc_ir::{Context, Ir};
use cranelift_object::{ObjectBuilder, ObjectModule};

use crate::CodegenError;
use crate::module::{compile, header};
use crate::target;

/// An object file and its header.
pub struct Object {
    /// The ELF object.
    pub bytes: Vec<u8>,
    /// The C header declaring its functions (and the runtime it needs).
    pub header: String,
}

/// Compiles `ir` for `arch` (`x86_64`, `aarch64` or `riscv64`). `name` names the
/// object (and the header's include guard).
pub fn emit(ctx: &Context, ir: &Ir, arch: &str, name: &str) -> Result<Object, CodegenError> {
    let target = target::named(arch)?;
    let builder =
        ObjectBuilder::new(target.isa, name, cranelift_module::default_libcall_names())
            .map_err(|e| CodegenError::new(format!("cannot make an object for {arch}: {e}")))?;
    let mut module = ObjectModule::new(builder);
    let compiled = compile(ctx, ir, &mut module, target.features)?;
    let product = module.finish();
    let bytes = product
        .emit()
        .map_err(|e| CodegenError::new(format!("cannot write the object: {e}")))?;
    let guard: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    Ok(Object {
        bytes,
        header: header(ctx, &compiled, &format!("ACC_{guard}_H")),
    })
}
