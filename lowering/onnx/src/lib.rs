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

pub use import::{OPSETS, import, import_with};
pub use tensors::constant as tensor_attr;
