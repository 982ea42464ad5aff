//! # acc-cranelift
//!
//! Host code generation: functions written in `func`, `cf`, `arith` and `loop` (the
//! level after bufferization) become native code through Cranelift, either compiled
//! in memory and run at once ([`jit`]) or written as an object file for x86-64,
//! AArch64 or RISC-V 64 with a C header ([`object`]).
//!
//! Every function gets the C calling convention of [`abi`]: arguments in order (a
//! `memref` as a pointer to its first element, a scalar by value), then one pointer
//! per result, into which the function writes (a `memref` result is copied into the
//! caller's buffer). A `NAME_packed(void **slots)` wrapper takes every argument and
//! result through one array of pointers, so a host can call any signature.
//!
//! What the generator cannot translate (dynamic shapes, an op with no lowering, vector
//! code on an ISA without vectors) is a [`CodegenError`] at the op, never a panic.

#![deny(missing_docs)]

pub mod abi;
pub mod jit;
pub mod object;
pub mod target;
pub use module::{Compiled, compile, header};
mod module;
mod translate;
mod types;

use acc_ir::{AttrId, DiagLoc, Diagnostic};

/// Why code could not be generated: a message at an op's location, when known.
#[derive(Clone, Debug)]
pub struct CodegenError {
    /// What went wrong.
    pub message: String,
    /// Where (the op's location).
    pub loc: Option<AttrId>,
}

impl CodegenError {
    pub(crate) fn new(message: impl Into<String>) -> CodegenError {
        CodegenError {
            message: message.into(),
            loc: None,
        }
    }

    pub(crate) fn at(loc: AttrId, message: impl Into<String>) -> CodegenError {
        CodegenError {
            message: message.into(),
            loc: Some(loc),
        }
    }

    /// As a diagnostic, for rendering with the source.
    pub fn diagnostic(&self) -> Diagnostic {
        match self.loc {
            Some(l) => Diagnostic::error(DiagLoc::Loc(l), self.message.clone()),
            None => Diagnostic::error(DiagLoc::Unknown, self.message.clone()),
        }
    }
}

impl From<String> for CodegenError {
    fn from(message: String) -> CodegenError {
        CodegenError::new(message)
    }
}
