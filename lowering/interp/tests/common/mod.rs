//! Helpers shared by the interpreter's test files: parsing verified IR, building
//! values from numbers, and reading results back as numbers.

#![allow(dead_code)]

use acc_interp::Tensor;
use acc_ir::elements::{ElementKind, Scalar};
use acc_ir::{Context, Ir, SourceMap};

/// `text` parsed and verified.
pub fn parse(ctx: &mut Context, text: &str) -> Ir {
    let mut sources = SourceMap::new();
    let file = sources.add("input.mlir", text.to_string());
    let ir = acc_ir::parser::parse_file(ctx, &sources, file).expect("the input parses");
    acc_ir::verifier::verify(ctx, &ir).expect("the input verifies");
    ir
}

/// A value of type `ty` (text) holding `data` (integers truncated for integer types).
pub fn value(ctx: &mut Context, ty: &str, data: &[f64]) -> Tensor {
    let ty = acc_ir::parser::parse_type_str(ctx, ty).expect("a type");
    let (_, kind) = Tensor::layout(ctx, ty).expect("a supported type");
    let data = data
        .iter()
        .map(|v| match kind {
            ElementKind::Int(..) => Scalar::Int(*v as i128),
            ElementKind::Float(_) => Scalar::Float(*v),
        })
        .collect();
    Tensor::new(ctx, ty, data).expect("a value")
}

/// The elements of `t` as numbers.
pub fn numbers(t: &Tensor) -> Vec<f64> {
    t.data
        .iter()
        .map(|v| match v {
            Scalar::Int(i) => *i as f64,
            Scalar::Float(f) => *f,
        })
        .collect()
}
