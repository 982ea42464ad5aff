//! # acc-passes-loops
//!
//! Optimizations of loop-level IR (after `bufferize`), each leaving IR that computes
//! what its input computed:
//!
//! - [`fuse`] (`fuse-parallel`): elementwise chains of parallel nests as one nest;
//! - [`emulate_floats`] (`emulate-narrow-floats`): arithmetic on `f16` and `bf16`
//!   computed in `f32`, for machines that only load and store them;
//! - [`math_approximation`] (`math-approximation`): f32 `exp` and `erf` as inline
//!   polynomials that vectorize;
//! - [`unroll`] (`unroll`): small constant-trip loops as straight-line code;
//! - [`collapse`] (`collapse-parallel`): trailing dimensions of parallel nests that
//!   every access walks contiguously as one long dimension;
//! - [`vectorize`] (`vectorize`): the innermost dimension of parallel loop nests on
//!   vectors: the host's 128-bit ones, a device's as its `hw.device` declares;
//! - [`deallocation`] (`buffer-deallocation`): each buffer freed after its last use.

#![deny(missing_docs)]

pub mod collapse;
pub mod deallocation;
pub mod emulate_floats;
pub mod fuse;
pub mod math_approximation;
pub mod unroll;
pub mod vectorize;

use acc_dialects::ops::loops;
use acc_ir::{BlockId, BodyId, Context, Ir, OpId};
use acc_pass::PassRegistry;

/// The `loop.parallel` ops of a body that no other one contains (a nest inside
/// another is part of that one's body).
pub(crate) fn outermost_parallel_nests(ctx: &Context, ir: &Ir, body: BodyId) -> Vec<OpId> {
    let b = ir.body(body);
    let mut out = Vec::new();
    let mut stack: Vec<BlockId> = b
        .top_regions()
        .iter()
        .flat_map(|r| b.region_blocks(*r))
        .collect();
    while let Some(block) = stack.pop() {
        for op in b.block_ops(block) {
            if loops::Parallel::is(ctx, ir.op(body, op)) {
                out.push(op);
                continue;
            }
            for r in b.op_regions(op) {
                stack.extend(b.region_blocks(*r));
            }
        }
    }
    out
}

/// Adds the loop-level passes to `r`.
pub fn register_all(r: &mut PassRegistry) {
    r.register(fuse::info());
    r.register(emulate_floats::info());
    r.register(math_approximation::info());
    r.register(unroll::info());
    r.register(collapse::info());
    r.register(vectorize::info());
    r.register(deallocation::info());
}
