//! The conversion driver on a real lowering: 32-bit `arith.addi` widened to 64 bits
//! (`trunci(addi(extsi a, extsi b))`), with a type converter, a dynamic legality rule
//! and ops the pattern creates checked in turn; and the error naming the op that could
//! not be converted.

use std::sync::Arc;

use acc_ir::printer::{PrintOptions, print_ir};
use acc_ir::rewrite::conversion::{
    ConversionMode, ConversionTarget, TypeConverter, apply_conversion,
};
use acc_ir::rewrite::{RewritePattern, Rewriter};
use acc_ir::{Context, DiagLoc, Ir, OpId, SourceMap, TypeData, TypeId, ValueId};

/// i32 becomes i64; other types stay.
struct Widen;

impl TypeConverter for Widen {
    fn convert(&self, ctx: &Context, ty: TypeId) -> Option<TypeId> {
        match ctx.type_data(ty) {
            TypeData::Integer {
                width: 32,
                signedness,
            } => Some(ctx.intern_type(TypeData::Integer {
                width: 64,
                signedness: *signedness,
            })),
            _ => Some(ty),
        }
    }
}

/// `addi` on i32: computed on the converted type, truncated back.
struct WidenAddi;

impl RewritePattern for WidenAddi {
    fn name(&self) -> &str {
        "widen-addi"
    }
    fn root(&self) -> Option<&str> {
        Some("arith.addi")
    }
    fn match_and_rewrite(&self, op: OpId, rw: &mut Rewriter<'_>) -> bool {
        let operands: Vec<ValueId> = rw.op_ref(op).operands().collect();
        let ty = rw.op_ref(op).result_types()[0];
        let Some(wide) = Widen.convert(rw.ctx, ty).filter(|w| *w != ty) else {
            return false;
        };
        let mut widened = Vec::new();
        for v in operands {
            widened.push(rw.op1("arith.extsi", &[v], wide, &[]).expect("extsi"));
        }
        let sum = rw.op1("arith.addi", &widened, wide, &[]).expect("addi");
        let t = rw.op1("arith.trunci", &[sum], ty, &[]).expect("trunci");
        rw.replace_op(op, &[t]);
        true
    }
}

fn parse(ctx: &mut Context, text: &str) -> Ir {
    let mut sources = SourceMap::new();
    let file = sources.add("input.mlir", text.to_string());
    acc_ir::parser::parse_file(ctx, &sources, file).expect("the input parses")
}

/// Runs the lowering on the function `@f` of `text`.
fn lower(ctx: &mut Context, text: &str) -> (Ir, Result<u64, acc_ir::Diagnostic>) {
    let mut ir = parse(ctx, text);
    let (module_body, module) = (ir.root_body, ir.root);
    let module_region = ir.op(module_body, module).regions()[0];
    let b = ir.body(ir.region_body(module_body, module));
    let block = b.region_blocks(module_region).next().expect("a block");
    let func = b.block_ops(block).next().expect("a function");
    let body = b.nested_body(func).expect("functions are isolated");
    let regions = ir.body(body).top_regions().to_vec();
    // addi is legal on 64 bits only; extsi and trunci and the rest of arith are legal.
    let target = ConversionTarget::default()
        .legal_dialects(&["arith", "func"])
        .dynamically_legal(
            "arith.addi",
            Arc::new(|op, ctx| {
                Widen.convert(ctx, op.result_types()[0]) == Some(op.result_types()[0])
            }),
        )
        .illegal_ops(&["arith.muli"]);
    let patterns: Vec<Arc<dyn RewritePattern>> = vec![Arc::new(WidenAddi)];
    let result = apply_conversion(
        ctx,
        &mut ir,
        body,
        &regions,
        &target,
        &patterns,
        ConversionMode::Full,
    )
    .map(|r| r.converted);
    (ir, result)
}

#[test]
fn widens_every_narrow_addi_and_leaves_the_rest() {
    let mut ctx = acc_dialects::new_context();
    let text = "func.func @f(%a: i32, %b: i32, %c: i64) -> (i32, i64) {\n\
                \x20 %0 = arith.addi %a, %b : i32\n\
                \x20 %1 = arith.addi %c, %c : i64\n\
                \x20 return %0, %1 : i32, i64\n\
                }\n";
    let (ir, result) = lower(&mut ctx, text);
    assert_eq!(result.expect("the lowering succeeds"), 1);
    acc_ir::verifier::verify(&ctx, &ir).expect("valid IR after the conversion");
    let printed = print_ir(&ctx, &ir, &PrintOptions::default());
    let body: Vec<&str> = printed.lines().map(str::trim).collect();
    let expected = [
        "%0 = arith.extsi %arg0 : i32 to i64",
        "%1 = arith.extsi %arg1 : i32 to i64",
        "%2 = arith.addi %0, %1 : i64",
        "%3 = arith.trunci %2 : i64 to i32",
        "%4 = arith.addi %arg2, %arg2 : i64",
        "return %3, %4 : i32, i64",
    ];
    for line in expected {
        assert!(body.contains(&line), "missing `{line}` in:\n{printed}");
    }
}

#[test]
fn an_op_without_a_pattern_is_named_in_the_error() {
    let mut ctx = acc_dialects::new_context();
    let text = "func.func @f(%a: i32) -> i32 {\n\
                \x20 %0 = arith.muli %a, %a : i32\n\
                \x20 return %0 : i32\n\
                }\n";
    let (_, result) = lower(&mut ctx, text);
    let error = result.expect_err("muli is illegal and nothing converts it");
    assert!(
        error
            .message
            .contains("failed to legalize operation 'arith.muli'"),
        "{}",
        error.message
    );
    // At the op's location: line 2 of the input.
    let DiagLoc::Loc(loc) = error.loc else {
        panic!("the error has no location");
    };
    let shown = acc_ir::printer::attr_to_string(&ctx, loc);
    assert!(shown.contains("input.mlir\":2:"), "{shown}");
}
