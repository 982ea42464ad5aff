//! # acc-lowering
//!
//! The passes that take a network from the `graph` dialect down to loops over
//! buffers, ready for code generation:
//!
//! 1. [`graph_to_tensor`] (`graph-to-tensor`): graph ops as the tensor dialect's
//!    destination-passing structured ops;
//! 2. [`bufferize`] (`bufferize`): tensors as buffers (`memref`), every tensor op as a
//!    loop nest of loads, arithmetic and stores;
//! 3. [`deallocation`] (`buffer-deallocation`): each buffer freed after its last use;
//! 4. [`vectorize`] (`vectorize`): the innermost dimension of parallel loop nests on
//!    128-bit vectors;
//! 5. [`unroll`] (`unroll`): small constant-trip loops as straight-line code;
//! 6. [`memory_plan`] (`memory-plan`): the buffers of a function at offsets of one
//!    static arena, reused by liveness;
//! 7. [`math_approximation`] (`math-approximation`): f32 `exp` and `erf` as inline
//!    polynomials that vectorize;
//! 8. [`fuse`] (`fuse-parallel`): elementwise chains of parallel nests as one nest;
//! 9. [`layout`] (`layout`): blocked layouts from a preference table, propagated,
//!    weights repacked at compile time;
//! 10. [`partition`] (`partition`): ops placed on the devices of the target file's
//!     intrinsics, with a remark for each op left on the host;
//! 11. [`view_graph`] (`view-graph`): the placement as a Graphviz DOT graph.
//! 12. [`quantize`] (`quantize`): a QDQ model's dequantize/op/quantize groups as
//!     integer ops.
//! 13. [`tensorize`] (`tensorize`): ops split into output-channel tiles an intrinsic
//!     accepts and whose buffers fit its memory, two at a time.
//! 14. [`weight_prep`] (`weight-prep`): the compile-time arguments of accelerator
//!     calls (packed weights, requantization tables) stored on the placed ops.
//!
//! Each pass leaves verifiable IR whose results the interpreter computes identically
//! to its input's (`acc-opt --check-semantics`), with one exception by design:
//! `quantize` accumulates exactly where a QDQ model rounds to f32, so a result lying
//! within f32 rounding of a rounding boundary can move by one step of its scale.

#![deny(missing_docs)]

pub mod bufferize;
pub mod deallocation;
mod emit;
pub mod fuse;
pub mod graph_to_tensor;
pub mod layout;
pub mod math_approximation;
pub mod memory_plan;
pub mod partition;
pub mod quantize;
pub mod tensorize;
pub mod unroll;
pub mod vectorize;
pub mod view_graph;
pub mod weight_prep;

use acc_ir::pass::PassRegistry;

/// Registers the lowering passes.
pub fn register_all(r: &mut PassRegistry) {
    r.register(quantize::info());
    r.register(partition::info());
    r.register(view_graph::info());
    r.register(tensorize::info());
    r.register(weight_prep::info());
    r.register(graph_to_tensor::info());
    r.register(layout::info());
    r.register(bufferize::info());
    r.register(deallocation::info());
    r.register(vectorize::info());
    r.register(unroll::info());
    r.register(memory_plan::info());
    r.register(math_approximation::info());
    r.register(fuse::info());
}
