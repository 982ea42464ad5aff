//! # acc-dialects
//!
//! The dialects acc ships. For now: `builtin` (the module), `func` (functions,
//! calls, returns) and `cf` (branches), with their MLIR custom assembly forms. Later
//! the dialect language defines the rest from text files.

#![deny(missing_docs)]

pub mod builtin;
pub mod cf;
pub mod docgen;
pub mod func;
pub mod lang;
mod syntax;

use acc_ir::Context;

/// A context with every dialect acc ships registered.
pub fn new_context() -> Context {
    let mut ctx = Context::new();
    register_all(&mut ctx);
    ctx
}

/// Registers every dialect acc ships.
pub fn register_all(ctx: &mut Context) {
    builtin::register(ctx);
    func::register(ctx);
    cf::register(ctx);
}
