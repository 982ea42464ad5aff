//! # acc-passes-quant
//!
//! Quantization, at the graph level:
//!
//! - [`calibrate`] (`calibrate`): a float model made a QDQ model (quantize and
//!   dequantize pairs around each op) from the ranges its values take in the
//!   interpreter on sample inputs, at 8, 4 or 2 bits;
//! - [`quantize`] (`quantize`): a QDQ model's dequantize/op/quantize groups folded into
//!   integer ops (`graph.qconv2d`, `graph.qmatmul`, lookup tables).
//!
//! `quantize` accumulates exactly where a QDQ model rounds to f32, so a result lying
//! within f32 rounding of a rounding boundary can move by one step of its scale;
//! `calibrate` changes what the model computes by design
//! ([`acc_pass::Pass::approximates`]).

#![deny(missing_docs)]

pub mod calibrate;
pub mod quantize;

use acc_pass::PassRegistry;

/// Adds the quantization passes to `r`.
pub fn register_all(r: &mut PassRegistry) {
    r.register(calibrate::info());
    r.register(quantize::info());
}
