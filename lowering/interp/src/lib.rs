//! # acc-interp
//!
//! The reference interpreter: runs functions of acc IR on concrete values, so that
//! every pass and lowering can be checked against the semantics of the IR it started
//! from. An op's semantics is the *rule* its dialect definition names
//! (`interpret int_binary`); [`rules`] holds them by name, so an op declared in a
//! dialect file runs as soon as it names an existing rule.
//!
//! Errors (an op without semantics, a division by zero, a shape mismatch, a call too
//! deep) are [`InterpError`]s at the op's location, never panics.

#![deny(missing_docs)]

pub mod bounded;
pub mod check;
mod launches;
mod machine;
pub mod npy;
pub mod rules;
mod value;

pub use machine::{
    FunctionTable, HwTrace, InterpError, Interpreter, Limits, Ranges, TracedOp, argument_names,
    function_names, function_parameter_types, functions, parameter_types,
};
pub use value::Tensor;
