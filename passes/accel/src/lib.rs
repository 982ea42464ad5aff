//! # acc-passes-accel
//!
//! The passes that map a network onto a target's devices, all driven by the target
//! files of the compilation (`acc_target::Targets`), none naming a device, an op of a
//! vendor or a target:
//!
//! 1. [`partition`] (`partition`): ops placed on the devices of the target's
//!    intrinsics, with a remark for each op left on the host;
//! 2. [`view_graph`] (`view-graph`): the placement as a Graphviz DOT graph;
//!    [`pipeline_frames`] (`pipeline-frames`): a pipelined entry taking several
//!    frames, its placed ops ordered as a software pipeline over the devices;
//!    [`outline_external`] (`outline-external`): the ops placed on a device with an
//!    external (vendor) compiler made regions that compiler builds, with their
//!    constants;
//! 3. [`tensorize`] (`tensorize`): placed ops split into tiles an intrinsic accepts and
//!    whose buffers fit its local memory, two at a time;
//! 4. [`weight_prep`] (`weight-prep`): the compile-time arguments of accelerator calls
//!    (packed weights, requantization tables) stored on the placed ops;
//! 5. [`layout`] (`layout`): blocked layouts for the host's kernels from a preference
//!    table, propagated, weights repacked at compile time (on tensor-level IR);
//! 6. [`forward_transfers`] (`forward-transfers`): one device's result copied
//!    straight into another's memory by an engine between them (on loop-level IR);
//! 7. [`device_buffers`] (`device-buffers`): buffers only a programmable device's own
//!    loops use moved into its local memory (on loop-level IR);
//! 8. [`memory_plan`] (`memory-plan`): each function's buffers at offsets of one static
//!    arena per memory, reused by liveness (on loop-level IR);
//! 9. [`schedule_devices`] (`schedule-devices`): the devices' calls and transfers
//!    launched asynchronously, ordered by tokens (on the planned loop-level IR).
//!
//! How a placement is recorded on an op is `acc_target::placement`.

#![deny(missing_docs)]

pub mod device_buffers;
mod device_work;
pub mod forward_transfers;
pub mod layout;
pub mod memory_plan;
pub mod outline_external;
pub mod partition;
pub mod pipeline_frames;
pub mod schedule_devices;
pub mod tensorize;
pub mod view_graph;
pub mod weight_prep;

use acc_pass::PassRegistry;

/// Adds the accelerator passes to `r`.
pub fn register_all(r: &mut PassRegistry) {
    r.register(partition::info());
    r.register(outline_external::info());
    r.register(view_graph::info());
    r.register(pipeline_frames::info());
    r.register(tensorize::info());
    r.register(weight_prep::info());
    r.register(layout::info());
    r.register(forward_transfers::info());
    r.register(device_buffers::info());
    r.register(schedule_devices::info());
    r.register(memory_plan::info());
}
