//! Accelerator calls: an op `partition` placed on a device becomes the call of its
//! intrinsic (`placed`), its buffers in the layouts the intrinsic declares
//! (`layouts`) and, when the intrinsic reads a local memory, staged there by the
//! target's DMA engine, the next call's while the current one runs (`staging`); an
//! external compiler's region becomes its call on buffers (`external`).

mod external;
pub(crate) mod layouts;
mod placed;
pub(crate) mod staging;

pub use placed::LAYOUT_ATTR;
