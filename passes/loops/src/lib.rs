//! # acc-passes-loops
//!
//! Optimizations of loop-level IR (after `bufferize`), each leaving IR that computes
//! what its input computed:
//!
//! - [`fuse`] (`fuse-parallel`): elementwise chains of parallel nests as one nest;
//! - [`math_approximation`] (`math-approximation`): f32 `exp` and `erf` as inline
//!   polynomials that vectorize;
//! - [`unroll`] (`unroll`): small constant-trip loops as straight-line code;
//! - [`collapse`] (`collapse-parallel`): trailing dimensions of parallel nests that
//!   every access walks contiguously as one long dimension;
//! - [`vectorize`] (`vectorize`): the innermost dimension of parallel loop nests on
//!   128-bit vectors;
//! - [`deallocation`] (`buffer-deallocation`): each buffer freed after its last use.

#![deny(missing_docs)]

pub mod collapse;
pub mod deallocation;
pub mod fuse;
pub mod math_approximation;
pub mod unroll;
pub mod vectorize;

use acc_pass::PassRegistry;

/// Adds the loop-level passes to `r`.
pub fn register_all(r: &mut PassRegistry) {
    r.register(fuse::info());
    r.register(math_approximation::info());
    r.register(unroll::info());
    r.register(collapse::info());
    r.register(vectorize::info());
    r.register(deallocation::info());
}
