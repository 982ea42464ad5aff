//! # acc-passes-generic
//!
//! The passes that work on any dialect: `canonicalize` (folds and the registered
//! rewrite patterns, to a fixed point), `cse`, `dce`, `fold`, `symbol-dce` and
//! `inline`. Each module holds one pass and its [`PassInfo`](acc_pass::PassInfo);
//! [`register_all`] adds them to a registry (`acc_tools::registry` holds every pass).

#![deny(missing_docs)]

pub mod canonicalize;
pub mod cse;
pub mod dce;
pub mod inline;
pub mod symbol_dce;

use acc_pass::PassRegistry;

/// Adds the generic passes to `r`.
pub fn register_all(r: &mut PassRegistry) {
    r.register(canonicalize::info());
    r.register(cse::info());
    r.register(dce::dce_info());
    r.register(dce::fold_info());
    r.register(symbol_dce::info());
    r.register(inline::info());
}
