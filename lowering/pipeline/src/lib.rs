//! # acc-lowering
//!
//! The passes that take a network from the `graph` dialect down to loops over
//! buffers, ready for code generation:
//!
//! 1. [`graph_to_tensor`] (`graph-to-tensor`): graph ops as the tensor dialect's
//!    destination-passing structured ops;
//! 2. [`bufferize`] (`bufferize`): tensors as buffers (`memref`), every tensor op as a
//!    loop nest of loads, arithmetic and stores;
//! 3. [`deallocation`] (`buffer-deallocation`): each buffer freed after its last use.
//!
//! Each pass leaves verifiable IR whose results the interpreter computes identically
//! to its input's (`acc-opt --check-semantics`).

#![deny(missing_docs)]

pub mod bufferize;
pub mod deallocation;
mod emit;
pub mod graph_to_tensor;

use acc_ir::pass::PassRegistry;

/// Registers the lowering passes.
pub fn register_all(r: &mut PassRegistry) {
    r.register(graph_to_tensor::info());
    r.register(bufferize::info());
    r.register(deallocation::info());
}
