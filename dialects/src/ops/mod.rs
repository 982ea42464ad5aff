//! Typed views and builders of the ops acc ships, generated at build time from the
//! definition files (`defs/*.acc`, by `build/`), as Cranelift generates its instruction
//! builders from its definitions: renaming an op or an attribute in a definition file
//! renames its Rust items, and code using the old name no longer compiles. Dialects
//! loaded at run time (`--dialect FILE`) keep the generic API ([`acc_ir::OpRef`],
//! [`Builder::op`](acc_ir::builder::Builder::op)).
//!
//! For each dialect `d` (`loop` is `loops`), module `d` has:
//!
//! - `d::Op`, the kinds of its ops: `Op::of(ctx, op)` says which one an op is, for
//!   `match`es over a dialect's ops; `Op::name` and `Op::short_name` spell them;
//! - `d::enums`, the qualified names of the enum and flags attributes the dialect
//!   declares (`graph::enums::PAD_MODE` is `"graph.pad_mode"`), for the generic enum
//!   readers ([`Context::enum_attr`](acc_ir::Context::enum_attr));
//! - per op (`graph.conv2d` is `graph::Conv2d`), a view: `Conv2d::of(ctx, op)` is
//!   `Some` only for a `graph.conv2d` whose operand and result groups, regions and
//!   successors are the declared ones, so its accessors cannot fail: one method per
//!   operand or result group (`ValueId`, `Option<ValueId>` for an optional group,
//!   `Vec<ValueId>` for a variadic one), per attribute (`strides()` read by kind,
//!   `strides_attr()` as stored), per region and successor; `Conv2d::NAME`,
//!   `Conv2d::ATTR_STRIDES` name them; `Conv2d::is(ctx, op)` checks the name only;
//! - per op, a builder: `Conv2d::build(b, input, weight, bias, output)` takes the
//!   operands and result types by group, the attributes (and regions, successors) are
//!   set on what it returns, and `.create()`, `.results()` or `.result()` make the op
//!   through the one [`Builder`](acc_ir::builder::Builder) (defaults added; segment sizes set when several
//!   groups are optional or variadic).
//!
//! The hand-written [`support`] is what the generated code calls.

pub mod support;

use support::Quantifier;
pub use support::{OpView, Signature};

include!(concat!(env!("OUT_DIR"), "/ops.rs"));

/// The op of `body` that defines `v`, viewed as `V`, when it is one (a block argument
/// has none).
pub fn defining<'a, V: OpView<'a>>(
    ctx: &'a acc_ir::Context,
    ir: &'a acc_ir::Ir,
    body: acc_ir::BodyId,
    v: acc_ir::ValueId,
) -> Option<V> {
    match ir.body(body).value(v).def {
        acc_ir::ValueDef::Result(op, _) => V::of(ctx, ir.op(body, op)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use acc_ir::builder::Builder;
    use acc_ir::{InsertPoint, SourceMap, parser, printer, verifier};

    use super::*;

    /// The generator read the definitions as the loader does: same ops, groups,
    /// attributes, regions and successors.
    #[test]
    fn generated_views_match_the_loaded_definitions() {
        let mut ctx = acc_ir::Context::new();
        let dialects = crate::load_builtin_definitions(&mut ctx);
        let decls: Vec<&crate::lang::OpDecl> = dialects.iter().flat_map(|d| &d.ops).collect();
        assert_eq!(decls.len(), SIGNATURES.len(), "one view per declared op");
        for sig in SIGNATURES {
            let decl = decls
                .iter()
                .find(|d| d.name == sig.name)
                .unwrap_or_else(|| panic!("{} is generated but not declared", sig.name));
            let groups = |vs: &[crate::lang::ValueDecl]| -> Vec<(String, Quantifier)> {
                vs.iter().map(|v| (v.name.clone(), v.quantifier)).collect()
            };
            let generated = |vs: &[(&str, Quantifier)]| -> Vec<(String, Quantifier)> {
                vs.iter().map(|(n, q)| (n.to_string(), *q)).collect()
            };
            assert_eq!(
                generated(sig.operands),
                groups(&decl.operands),
                "{}",
                sig.name
            );
            assert_eq!(
                generated(sig.results),
                groups(&decl.results),
                "{}",
                sig.name
            );
            let attrs: Vec<&str> = decl.attributes.iter().map(|a| a.name.as_str()).collect();
            assert_eq!(sig.attributes, attrs.as_slice(), "{}", sig.name);
            assert_eq!(sig.regions, decl.regions.len(), "{}", sig.name);
            assert_eq!(sig.successors, decl.successors.len(), "{}", sig.name);
        }
    }

    /// A view reads a parsed op; a builder makes one (segment sizes included) that
    /// verifies and prints as the parser reads it.
    #[test]
    fn views_read_and_builders_make_ops() {
        let mut ctx = crate::new_context();
        let text = "func.func @f(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x3x3xf32> {\n  %y = graph.conv2d %x, %w {strides = array<i64: 1, 1>} : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x3x3xf32>\n  return %y : tensor<1x3x3x3xf32>\n}\n";
        let mut sources = SourceMap::new();
        let file = sources.add("t.mlir", text.to_string());
        let mut ir = parser::parse_file(&mut ctx, &sources, file).expect("parses");
        let ctx = &ctx;
        let (fbody, conv) = {
            let mut found = None;
            ir.walk_nested(ir.root_body, ir.root, &mut |b, o| {
                if graph::Conv2d::is(ctx, ir.op(b, o)) {
                    found = Some((b, o));
                }
            });
            found.expect("a conv2d")
        };
        let view = graph::Conv2d::of(ctx, ir.op(fbody, conv)).expect("a well-formed conv2d");
        assert_eq!(view.strides(), Some(vec![1, 1]));
        assert_eq!(
            view.groups(),
            Some(1),
            "the default was added by the parser"
        );
        assert_eq!(view.bias(), None);
        assert_eq!(graph::Op::of(ctx, view.op()), Some(graph::Op::Conv2d));
        assert!(graph::Relu::of(ctx, view.op()).is_none());
        let (x, w, out_ty) = (
            view.input(),
            view.weight(),
            ir.body(fbody).value_type(view.output()),
        );
        // Rebuild it with a bias, then an extract_slice with three variadic groups.
        let loc = ctx.unknown_loc();
        let mut b = Builder::new(ctx, &mut ir, fbody, InsertPoint::Before(conv), loc);
        let f32t = ctx.float_type(acc_ir::FloatKind::F32);
        let bias_ty = ctx.intern_type(acc_ir::TypeData::RankedTensor {
            shape: vec![3].into(),
            element: f32t,
            encoding: None,
        });
        let zero =
            acc_ir::elements::dense_attr(ctx, bias_ty, &[acc_ir::elements::Scalar::Float(0.0); 3])
                .expect("a constant");
        let bias = graph::Constant::build(&mut b, bias_ty)
            .value(zero)
            .result()
            .expect("builds");
        let built = graph::Conv2d::build(&mut b, x, w, Some(bias), out_ty)
            .strides(crate::build::i64s(ctx, &[1, 1]))
            .create()
            .expect("builds");
        let y = b.results_of(built)[0];
        let slice_ty = ctx.intern_type(acc_ir::TypeData::RankedTensor {
            shape: vec![1, 3, 1, 3].into(),
            element: f32t,
            encoding: None,
        });
        let one = crate::build::BuildExt::index(&mut b, 1).expect("an index");
        let slice = tensor::ExtractSlice::build(&mut b, y, &[one], &[], &[], slice_ty)
            .static_offsets(crate::build::i64s(ctx, &[0, 0, acc_ir::DYNAMIC, 0]))
            .static_sizes(crate::build::i64s(ctx, &[1, 3, 1, 3]))
            .static_strides(crate::build::i64s(ctx, &[1, 1, 1, 1]))
            .create()
            .expect("builds");
        let view = graph::Conv2d::of(ctx, ir.op(fbody, built)).expect("a well-formed conv2d");
        assert_eq!(view.bias(), Some(bias));
        let s = tensor::ExtractSlice::of(ctx, ir.op(fbody, slice)).expect("a well-formed slice");
        assert_eq!(
            (s.offsets(), s.sizes(), s.strides()),
            (vec![one], vec![], vec![])
        );
        verifier::verify(ctx, &ir).expect("the built ops verify");
        let printed = printer::print_ir(ctx, &ir, &Default::default());
        assert!(
            printed.contains("graph.conv2d %arg0, %arg1, %0"),
            "{printed}"
        );
        assert!(
            printed.contains("operandSegmentSizes") || printed.contains("[0, 0, %"),
            "{printed}"
        );
    }
}
