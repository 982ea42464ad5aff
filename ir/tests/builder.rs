//! Building IR from code: the builder's insertion points, isolated ops, moving,
//! erasing and replacing uses, checked by verifying and printing the result.

use acc_ir::attrs::AttrData;
use acc_ir::builder::{Builder, NewOp};
use acc_ir::printer::{PrintOptions, print_ir};
use acc_ir::{Context, InsertPoint, Ir, verifier};

/// A context with acc's dialects that keeps unregistered ops, knowing the names
/// `names` (an op name must be known before a builder can make one).
fn context(names: &[&str]) -> Context {
    let mut ctx = acc_dialects::new_context();
    ctx.allow_unregistered = true;
    for n in names {
        ctx.op_name(n);
    }
    ctx
}

fn func_props(
    ctx: &Context,
    name: &str,
    inputs: &[acc_ir::TypeId],
    results: &[acc_ir::TypeId],
) -> [(&'static str, acc_ir::AttrId); 2] {
    let fty = ctx.function_type(inputs, results);
    [
        ("function_type", ctx.type_attr(fty)),
        ("sym_name", ctx.string_attr(name)),
    ]
}

#[test]
fn builds_verifies_and_prints_a_function() {
    let mut ctx = context(&["t.add", "t.neg"]);
    let i32t = ctx.int_type(32);
    let loc = ctx.unknown_loc();
    let (mut ir, module_body, module_block) = Ir::new_module(&mut ctx);
    let ctx = &ctx;

    let props = func_props(ctx, "f", &[i32t], &[i32t]);
    let mut b = Builder::new(
        ctx,
        &mut ir,
        module_body,
        InsertPoint::End(module_block),
        loc,
    );
    let (_, fbody) = b
        .build_isolated(
            NewOp {
                props: &props,
                ..NewOp::named("func.func")
            },
            1,
            &[i32t],
        )
        .expect("func.func is registered");
    let region = ir.body(fbody).top_regions()[0];
    let entry = ir.body(fbody).entry_block(region).unwrap();
    let arg = ir.body(fbody).block_args(entry)[0];
    let mut b = Builder::new(ctx, &mut ir, fbody, InsertPoint::End(entry), loc);
    // Build the computation and the return, then insert a negation before the return.
    let sum = b.op1("t.add", &[arg, arg], i32t, &[]).unwrap();
    let ret = b
        .build(NewOp {
            operands: &[sum],
            ..NewOp::named("func.return")
        })
        .unwrap();
    b.set_insertion_point_before(ret);
    let neg = b.op1("t.neg", &[sum], i32t, &[]).unwrap();
    b.set_operand(ret, 0, neg);
    assert!(
        b.op1("t.unknown", &[], i32t, &[]).is_err(),
        "an unknown name"
    );

    verifier::verify(ctx, &ir).expect("built IR verifies");
    let text = print_ir(ctx, &ir, &PrintOptions::default());
    assert_eq!(
        text,
        "module {\n  func.func @f(%arg0: i32) -> i32 {\n    %0 = \"t.add\"(%arg0, %arg0) : (i32, i32) -> i32\n    %1 = \"t.neg\"(%0) : (i32) -> i32\n    return %1 : i32\n  }\n}\n"
    );

    // Move the negation after the return: now the function no longer verifies.
    let neg_op = ir.body(fbody).block_ops(entry).nth(1).unwrap();
    let mut b = Builder::new(ctx, &mut ir, fbody, InsertPoint::End(entry), loc);
    b.move_here(neg_op);
    let errors =
        verifier::verify(ctx, &ir).expect_err("moved op breaks dominance and terminator rules");
    assert!(
        errors
            .iter()
            .any(|d| d.message.contains("does not dominate")),
        "{errors:?}"
    );

    // Replace the negation's uses and erase it: valid again.
    let mut b = Builder::new(ctx, &mut ir, fbody, InsertPoint::End(entry), loc);
    b.replace_op(neg_op, &[sum]);
    verifier::verify(ctx, &ir).expect("valid after RAUW and erase");
    let text = print_ir(ctx, &ir, &PrintOptions::default());
    assert!(text.contains("return %0 : i32"), "{text}");
    assert!(!text.contains("t.neg"));
}

#[test]
fn insertion_after_and_attributes() {
    let mut ctx = context(&["t.first", "t.middle", "t.last", "t.end"]);
    let loc = ctx.unknown_loc();
    let (mut ir, module_body, block) = Ir::new_module(&mut ctx);
    let i64t = ctx.int_type(64);
    let one = ctx.intern_attr(AttrData::Integer { value: 1, ty: i64t });
    let mut b = Builder::new(&ctx, &mut ir, module_body, InsertPoint::End(block), loc);
    let first = b.build(NewOp::named("t.first")).unwrap();
    let last = b.build(NewOp::named("t.last")).unwrap();
    b.set_insertion_point_after(first);
    let middle = b.build(NewOp::named("t.middle")).unwrap();
    b.set_attr(middle, "n", one).unwrap();
    b.set_insertion_point_after(last);
    b.build(NewOp::named("t.end")).unwrap();
    let text = print_ir(&ctx, &ir, &PrintOptions::default());
    assert_eq!(
        text,
        "module {\n  \"t.first\"() : () -> ()\n  \"t.middle\"() {n = 1 : i64} : () -> ()\n  \"t.last\"() : () -> ()\n  \"t.end\"() : () -> ()\n}\n"
    );
}

#[test]
fn verifier_messages_name_the_op() {
    let mut ctx = context(&["t.inner", "t.outer"]);
    let loc = ctx.unknown_loc();
    let (mut ir, module_body, module_block) = Ir::new_module(&mut ctx);
    // "t.outer" { ^a: "t.inner" { ^b: cf.br ^c } ^c: }: a branch out of its region.
    let body = ir.body_mut(module_body);
    let outer_region = body.new_region(None);
    let a = body.append_block(outer_region);
    let c = body.append_block(outer_region);
    let inner_region = body.new_region(None);
    let b = body.append_block(inner_region);
    let mut builder = Builder::new(&ctx, &mut ir, module_body, InsertPoint::End(b), loc);
    builder
        .build(NewOp {
            successors: &[c],
            ..NewOp::named("cf.br")
        })
        .unwrap();
    builder.set_insertion_point_to_end(a);
    builder
        .build(NewOp {
            regions: &[inner_region],
            ..NewOp::named("t.inner")
        })
        .unwrap();
    builder.set_insertion_point_to_end(module_block);
    builder
        .build(NewOp {
            regions: &[outer_region],
            ..NewOp::named("t.outer")
        })
        .unwrap();
    let errors = verifier::verify(&ctx, &ir).expect_err("branch to another region");
    let messages: Vec<&str> = errors.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(
        messages,
        ["'cf.br' op branching to block of a different region"]
    );

    ctx.allow_unregistered = false;
    let errors = verifier::verify(&ctx, &ir).expect_err("unregistered ops");
    assert!(
        errors.iter().any(|d| d.message
            == "'t.outer' op created with unregistered dialect; use --allow-unregistered-dialect to keep it opaque"),
        "{errors:?}"
    );
}
