//! Helpers shared by the code generator's tests.

use acc_ir::{Context, Ir, SourceMap};

/// `text` parsed and verified.
pub fn parse(ctx: &mut Context, text: &str) -> Ir {
    let mut sources = SourceMap::new();
    let file = sources.add("input.mlir", text.to_string());
    let ir = acc_ir::parser::parse_file(ctx, &sources, file).expect("the input parses");
    acc_ir::verifier::verify(ctx, &ir).expect("the input verifies");
    ir
}
