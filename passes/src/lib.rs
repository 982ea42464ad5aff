//! # acc-passes
//!
//! acc's passes. Each module holds one pass and its [`PassInfo`]; [`registry`] lists
//! them all, for `acc-opt`, `acc-repl` and tools that add their own.

#![deny(missing_docs)]

pub mod canonicalize;
pub mod cse;
pub mod dce;
pub mod inline;
pub mod symbol_dce;

use acc_ir::pass::PassRegistry;

/// Every pass acc provides.
pub fn registry() -> PassRegistry {
    let mut r = PassRegistry::default();
    register_all(&mut r);
    r
}

/// Adds every pass acc provides to `r`.
pub fn register_all(r: &mut PassRegistry) {
    r.register(canonicalize::info());
    r.register(cse::info());
    r.register(dce::dce_info());
    r.register(dce::fold_info());
    r.register(symbol_dce::info());
    r.register(inline::info());
}
