//! Building IR from code: the builder's insertion points, isolated ops, moving,
//! erasing and replacing uses, checked by verifying and printing the result.

use acc_ir::attrs::AttrData;
use acc_ir::printer::{PrintOptions, print_ir};
use acc_ir::{Builder, Context, InsertPoint, Ir, OpSpec, verifier};

fn func_props(
    ctx: &mut Context,
    name: &str,
    inputs: &[acc_ir::TypeId],
    results: &[acc_ir::TypeId],
) -> acc_ir::AttrId {
    let fty = ctx.function_type(inputs, results);
    let fty = ctx.type_attr(fty);
    let name = ctx.string_attr(name);
    let entries = vec![(ctx.sym("function_type"), fty), (ctx.sym("sym_name"), name)];
    ctx.dict_attr(entries).expect("unique keys")
}

#[test]
fn builds_verifies_and_prints_a_function() {
    let mut ctx = acc_dialects::new_context();
    ctx.allow_unregistered = true;
    let i32t = ctx.int_type(32);
    let loc = ctx.unknown_loc();
    let (mut ir, module_body, module_block) = Ir::new_module(&mut ctx);

    let props = func_props(&mut ctx, "f", &[i32t], &[i32t]);
    let spec = OpSpec::new(&mut ctx, "func.func", loc).props(props);
    let (func, fbody) = ir.create_isolated_op(module_body, spec, 1, &[i32t]);
    ir.body_mut(module_body)
        .insert_op(func, InsertPoint::End(module_block));

    let region = ir.body(fbody).top_regions()[0];
    let entry = ir.body(fbody).entry_block(region).unwrap();
    let arg = ir.body(fbody).block_args(entry)[0];
    let body = ir.body_mut(fbody);
    let mut b = Builder::at_end(body, entry);
    let ret_spec = OpSpec::new(&mut ctx, "func.return", loc);
    // Build the return first, then insert the computation before it.
    let sum_operands = [arg, arg];
    let sum_types = [i32t];
    let sum = b
        .create_value(
            OpSpec::new(&mut ctx, "t.add", loc)
                .operands(&sum_operands)
                .results(&sum_types),
        )
        .unwrap();
    let ret_operands = [sum];
    let ret = b.create(ret_spec.operands(&ret_operands));
    b.set_insertion_point_before(ret);
    let neg = b
        .create_value(
            OpSpec::new(&mut ctx, "t.neg", loc)
                .operands(&ret_operands)
                .results(&sum_types),
        )
        .unwrap();
    b.body().set_operand(ret, 0, neg);

    verifier::verify(&ctx, &ir).expect("built IR verifies");
    let text = print_ir(&ctx, &ir, &PrintOptions::default());
    assert_eq!(
        text,
        "module {\n  func.func @f(%arg0: i32) -> i32 {\n    %0 = \"t.add\"(%arg0, %arg0) : (i32, i32) -> i32\n    %1 = \"t.neg\"(%0) : (i32) -> i32\n    return %1 : i32\n  }\n}\n"
    );

    // Move the negation after the return: now the function no longer verifies.
    let body = ir.body_mut(fbody);
    let neg_op = body.block_ops(entry).nth(1).unwrap();
    let mut b = Builder::at_end(body, entry);
    b.move_here(neg_op);
    let errors =
        verifier::verify(&ctx, &ir).expect_err("moved op breaks dominance and terminator rules");
    assert!(
        errors
            .iter()
            .any(|d| d.message.contains("does not dominate")),
        "{errors:?}"
    );

    // Replace the negation's uses and erase it: valid again.
    let body = ir.body_mut(fbody);
    body.replace_all_uses(neg, sum);
    body.erase_op(neg_op);
    verifier::verify(&ctx, &ir).expect("valid after RAUW and erase");
    let text = print_ir(&ctx, &ir, &PrintOptions::default());
    assert!(text.contains("return %0 : i32"), "{text}");
    assert!(!text.contains("t.neg"));
}

#[test]
fn insertion_after_and_attributes() {
    let mut ctx = acc_dialects::new_context();
    ctx.allow_unregistered = true;
    let loc = ctx.unknown_loc();
    let (mut ir, module_body, block) = Ir::new_module(&mut ctx);
    let i64t = ctx.int_type(64);
    let one = ctx.intern_attr(AttrData::Integer { value: 1, ty: i64t });
    let key = ctx.sym("n");
    let attrs = ctx.dict_attr(vec![(key, one)]).unwrap();
    let mut b = Builder::at_end(ir.body_mut(module_body), block);
    let first = b.create(OpSpec::new(&mut ctx, "t.first", loc));
    let last = b.create(OpSpec::new(&mut ctx, "t.last", loc));
    b.set_insertion_point_after(first);
    b.create(OpSpec::new(&mut ctx, "t.middle", loc).attrs(attrs));
    b.set_insertion_point_after(last);
    b.create(OpSpec::new(&mut ctx, "t.end", loc));
    let text = print_ir(&ctx, &ir, &PrintOptions::default());
    assert_eq!(
        text,
        "module {\n  \"t.first\"() : () -> ()\n  \"t.middle\"() {n = 1 : i64} : () -> ()\n  \"t.last\"() : () -> ()\n  \"t.end\"() : () -> ()\n}\n"
    );
}

#[test]
fn verifier_messages_name_the_op() {
    let mut ctx = acc_dialects::new_context();
    ctx.allow_unregistered = true;
    let loc = ctx.unknown_loc();
    let (mut ir, module_body, module_block) = Ir::new_module(&mut ctx);
    // "t.outer" { ^a: "t.inner" { ^b: cf.br ^c } ^c: }: a branch out of its region.
    let body = ir.body_mut(module_body);
    let outer_region = body.new_region(None);
    let a = body.append_block(outer_region);
    let c = body.append_block(outer_region);
    let inner_region = body.new_region(None);
    let b = body.append_block(inner_region);
    let targets = [c];
    let br = body.create_op(OpSpec::new(&mut ctx, "cf.br", loc).successors(&targets));
    body.insert_op(br, InsertPoint::End(b));
    let inner = body.create_op(OpSpec::new(&mut ctx, "t.inner", loc).regions(vec![inner_region]));
    body.insert_op(inner, InsertPoint::End(a));
    let outer = body.create_op(OpSpec::new(&mut ctx, "t.outer", loc).regions(vec![outer_region]));
    body.insert_op(outer, InsertPoint::End(module_block));
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
