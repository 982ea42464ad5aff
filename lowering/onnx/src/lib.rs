//! # acc-onnx
//!
//! ONNX models into acc's `graph` dialect.

#![deny(missing_docs)]

/// The ONNX protobuf messages (`onnx.proto`, compiled at build time).
#[allow(missing_docs, clippy::all)]
pub mod proto {
    include!(concat!(env!("OUT_DIR"), "/onnx.rs"));
}

pub mod conformance;
mod import;
mod nodes;
mod tensors;

pub use import::{ONNX_NAME, OPSETS, import, import_bound, import_with, input_element_type};
pub use tensors::constant as tensor_attr;
