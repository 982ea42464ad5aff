//! The one registry of acc's passes: every tool (`acc-opt`, `acc-run`, `acc-repl`,
//! and tools built on this crate, such as the custom-pass example) starts from
//! [`registry`], so that they all know the same passes.
//!
//! The passes come from the crates that hold them, in pipeline order: the generic
//! ones (`acc-passes-generic`), quantization (`acc-passes-quant`), the accelerator
//! passes (`acc-passes-accel`), the conversions between levels
//! (`acc-graph-to-tensor`, `acc-bufferize`) and the loop-level optimizations
//! (`acc-passes-loops`).

use acc_pass::PassRegistry;

/// Every pass acc provides.
pub fn registry() -> PassRegistry {
    let mut r = PassRegistry::default();
    acc_passes_generic::register_all(&mut r);
    acc_passes_quant::register_all(&mut r);
    acc_passes_accel::register_all(&mut r);
    r.register(acc_graph_to_tensor::info());
    r.register(acc_bufferize::info());
    acc_passes_loops::register_all(&mut r);
    r
}
