//! acc's host runtime: the library kernels that generated code calls through
//! `hw.intrinsic` (the host's counterpart of a vendor's HWlib).
//!
//! Every kernel has a portable version, and faster ones chosen at run time from the
//! host's instruction set; all versions compute the same products (up to the
//! association of floating-point sums).

pub mod conv;
pub mod sgemm;
