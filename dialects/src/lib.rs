//! # acc-dialects
//!
//! The dialects acc ships and the dialect language they are written in. Every dialect
//! is a definition file under `defs/` (embedded in the binaries, see
//! [`BUILTIN_DEFINITIONS`]) read by [`lang`]; what a declaration cannot say is a Rust
//! hook from [`hooks`], named in the file.

#![deny(missing_docs)]

pub mod build;
pub mod docgen;
pub mod hooks;
pub mod lang;
pub mod math_functions;
pub mod ops;
pub mod semantics;
mod syntax;

use std::sync::{Mutex, OnceLock};

use acc_ir::{Context, SourceMap};

/// The definition files acc ships: file name and text, in load order.
pub const BUILTIN_DEFINITIONS: [(&str, &str); 11] = [
    ("builtin.acc", include_str!("../defs/builtin.acc")),
    ("func.acc", include_str!("../defs/func.acc")),
    ("cf.acc", include_str!("../defs/cf.acc")),
    ("arith.acc", include_str!("../defs/arith.acc")),
    ("math.acc", include_str!("../defs/math.acc")),
    ("graph.acc", include_str!("../defs/graph.acc")),
    ("tensor.acc", include_str!("../defs/tensor.acc")),
    ("loop.acc", include_str!("../defs/loop.acc")),
    ("hw.acc", include_str!("../defs/hw.acc")),
    (
        "arith-rewrites.acc",
        include_str!("../defs/arith-rewrites.acc"),
    ),
    (
        "graph-rewrites.acc",
        include_str!("../defs/graph-rewrites.acc"),
    ),
];

/// A context with every dialect acc ships registered: a copy of one loaded once per
/// process, since reading the definition files is the costly part.
pub fn new_context() -> Context {
    static LOADED: OnceLock<Mutex<Context>> = OnceLock::new();
    let loaded = LOADED.get_or_init(|| {
        let mut ctx = Context::new();
        register_all(&mut ctx);
        Mutex::new(ctx)
    });
    // A poisoned lock only means another thread panicked while cloning; the context
    // itself is never mutated after loading.
    match loaded.lock() {
        Ok(ctx) => ctx.clone(),
        Err(poisoned) => poisoned.into_inner().clone(),
    }
}

/// Registers every dialect acc ships.
///
/// # Panics
/// When a built-in definition file has an error: a bug in acc that the test suite
/// catches (`builtin_definitions_load`), never a consequence of user input.
pub fn register_all(ctx: &mut Context) {
    let _ = load_builtin_definitions(ctx);
}

/// Loads the built-in definition files into `ctx` and returns their declarations (the
/// generated docs are made from them).
pub fn load_builtin_definitions(ctx: &mut Context) -> Vec<lang::DialectDecl> {
    let mut sources = SourceMap::new();
    let mut dialects = Vec::new();
    for (name, text) in BUILTIN_DEFINITIONS {
        let file = sources.add(name, text.to_string());
        match lang::load_file(ctx, &sources, file) {
            Ok(loaded) => dialects.extend(loaded.dialects),
            Err(errors) => panic!(
                "built-in dialect definition {name} is invalid:\n{}",
                sources.render(ctx, &errors)
            ),
        }
    }
    dialects
}

#[cfg(test)]
mod tests {
    #[test]
    fn builtin_definitions_load() {
        let mut ctx = acc_ir::Context::new();
        let dialects = super::load_builtin_definitions(&mut ctx);
        assert!(dialects.iter().any(|d| d.name == "func"));
        assert!(ctx.lookup_op_name("cf.cond_br").is_some());
    }
}
