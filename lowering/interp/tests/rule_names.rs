//! Rules shared by several ops tell them apart by the op's name without its dialect
//! (`interpret unary` computes `relu`, `sigmoid`, ... so that a dialect loaded at run
//! time can reuse them): the rule maps that name to a shipped op's kind
//! (`acc_dialects::ops`) and dispatches on the kind, so renaming a shipped op fails
//! the build where its semantics is. What the build cannot see, a shipped op whose
//! rule has no case for it (an op added to a definition file, or moved to another
//! shared rule), is caught here: every shipped op whose rule dispatches so runs on
//! sample values for which all of them are defined, and must give its results.

mod common;

use acc_dialects::ops::{arith, graph};
use acc_dialects::semantics::Rule;
use acc_interp::{Interpreter, Limits};
use common::{numbers, value};

/// The rules that tell the ops naming them apart by name.
const SHARED: &[Rule] = &[
    Rule::IntBinary,
    Rule::IntExtended,
    Rule::FloatBinary,
    Rule::FloatUnary,
    Rule::MathUnary,
    Rule::MathBinary,
    Rule::Cast,
    Rule::Unary,
    Rule::Binary,
    Rule::Reduce,
    Rule::Topk,
    Rule::Sort,
    Rule::ArgReduce,
];

/// The generic form of `name` with operand types `inputs`, results of types
/// `outputs` and attributes `attrs` (`{...}` or empty), in a function `@f` taking the
/// operands as arguments and returning the results.
fn function(name: &str, inputs: &[&str], outputs: &[&str], attrs: &str) -> String {
    let args: Vec<String> = inputs
        .iter()
        .enumerate()
        .map(|(i, t)| format!("%a{i}: {t}"))
        .collect();
    let uses: Vec<String> = (0..inputs.len()).map(|i| format!("%a{i}")).collect();
    let results: Vec<String> = (0..outputs.len()).map(|i| format!("%r{i}")).collect();
    let outs = outputs.join(", ");
    format!(
        "func.func @f({}) -> ({outs}) {{\n  {} = \"{name}\"({}) {attrs} : ({}) -> ({outs})\n  return {} : {outs}\n}}\n",
        args.join(", "),
        results.join(", "),
        uses.join(", "),
        inputs.join(", "),
        results.join(", "),
    )
}

/// A cast's operand and result types.
fn cast_types(name: &str) -> (&'static str, &'static str) {
    if let Some(kind) = arith::Op::from_name(name) {
        return match kind {
            arith::Op::Extsi | arith::Op::Extui => ("i8", "i32"),
            arith::Op::Trunci => ("i32", "i8"),
            arith::Op::Extf => ("f16", "f32"),
            arith::Op::Truncf => ("f32", "f16"),
            arith::Op::Sitofp | arith::Op::Uitofp => ("i32", "f32"),
            arith::Op::Fptosi | arith::Op::Fptoui | arith::Op::Bitcast => ("f32", "i32"),
            arith::Op::IndexCast | arith::Op::IndexCastui => ("i32", "index"),
            other => panic!("no sample types for the cast {}", other.name()),
        };
    }
    match graph::Op::from_name(name) {
        Some(graph::Op::Cast) => ("tensor<2xf32>", "tensor<2xi32>"),
        _ => panic!("no sample types for the cast {name}"),
    }
}

/// Operand types, result types, attributes and the sample values of the operands.
type Sample = (
    Vec<&'static str>,
    Vec<&'static str>,
    &'static str,
    &'static [f64],
);

/// The sample run of the op `name` of rule `rule`: every shipped op of the rule is
/// defined on it.
fn sample(name: &str, rule: Rule) -> Sample {
    match rule {
        Rule::IntBinary => (vec!["i32", "i32"], vec!["i32"], "", &[12.0]),
        Rule::IntExtended => {
            let second = match arith::Op::from_name(name) {
                Some(arith::Op::AdduiExtended) => "i1",
                _ => "i32",
            };
            (vec!["i32", "i32"], vec!["i32", second], "", &[12.0])
        }
        Rule::FloatBinary | Rule::MathBinary => (vec!["f32", "f32"], vec!["f32"], "", &[1.5]),
        Rule::FloatUnary | Rule::MathUnary => (vec!["f32"], vec!["f32"], "", &[0.5]),
        Rule::Cast => {
            let (from, to) = cast_types(name);
            (vec![from], vec![to], "", &[1.5])
        }
        Rule::Unary if name.ends_with(".not") => {
            (vec!["tensor<2xi1>"], vec!["tensor<2xi1>"], "", &[0.0, 1.0])
        }
        Rule::Unary if name.ends_with(".bitwise_not") => (
            vec!["tensor<2xi32>"],
            vec!["tensor<2xi32>"],
            "",
            &[0.0, 5.0],
        ),
        Rule::Unary => (
            vec!["tensor<2xf32>"],
            vec!["tensor<2xf32>"],
            "",
            &[0.5, -1.5],
        ),
        // Comparisons give booleans; the logical ops take them.
        Rule::Binary => match graph::Op::from_name(name) {
            Some(
                graph::Op::Equal
                | graph::Op::Less
                | graph::Op::Greater
                | graph::Op::LessEqual
                | graph::Op::GreaterEqual,
            ) => (
                vec!["tensor<2xf32>", "tensor<2xf32>"],
                vec!["tensor<2xi1>"],
                "",
                &[1.5, 2.0],
            ),
            // The bit operations take integers.
            Some(
                graph::Op::BitwiseAnd
                | graph::Op::BitwiseOr
                | graph::Op::BitwiseXor
                | graph::Op::ShiftLeft
                | graph::Op::ShiftRight,
            ) => (
                vec!["tensor<2xi32>", "tensor<2xi32>"],
                vec!["tensor<2xi32>"],
                "",
                &[6.0, 2.0],
            ),
            Some(graph::Op::And | graph::Op::Or | graph::Op::Xor) => (
                vec!["tensor<2xi1>", "tensor<2xi1>"],
                vec!["tensor<2xi1>"],
                "",
                &[0.0, 1.0],
            ),
            _ => (
                vec!["tensor<2xf32>", "tensor<2xf32>"],
                vec!["tensor<2xf32>"],
                "",
                &[1.5, 2.0],
            ),
        },
        Rule::Reduce => (
            vec!["tensor<2x2xf32>"],
            vec!["tensor<1x1xf32>"],
            "",
            &[1.0, 2.0, 3.0, 4.0],
        ),
        // Run as a sort, a topk would give two values where its type says one.
        Rule::Topk => (
            vec!["tensor<2xf32>"],
            vec!["tensor<1xf32>", "tensor<1xi64>"],
            "{k = 1 : i64}",
            &[1.5, 2.0],
        ),
        Rule::Sort => (
            vec!["tensor<2xf32>"],
            vec!["tensor<2xf32>", "tensor<2xi64>"],
            "",
            &[1.5, 2.0],
        ),
        Rule::ArgReduce => (
            vec!["tensor<2x2xf32>"],
            vec!["tensor<1x2xi64>"],
            "",
            &[1.0, 2.0, 3.0, 4.0],
        ),
        _ => unreachable!("{} is not a shared rule", rule.name()),
    }
}

/// The samples for `ty`: `data` repeated to its element count.
fn filled(ctx: &mut acc_ir::Context, ty: &str, data: &[f64]) -> acc_interp::Tensor {
    let parsed = acc_ir::parser::parse_type_str(ctx, ty).expect("a type");
    let (shape, _) = acc_interp::Tensor::layout(ctx, parsed).expect("a supported type");
    let n: usize = shape.iter().product();
    let values: Vec<f64> = data.iter().copied().cycle().take(n).collect();
    value(ctx, ty, &values)
}

#[test]
fn every_op_a_shared_rule_names_is_known_to_it() {
    let base = acc_dialects::new_context();
    let ops: Vec<(String, Rule)> = base
        .registered_ops()
        .filter_map(|d| Some((d.name.clone(), Rule::from_name(d.interpret.as_deref()?)?)))
        .filter(|(_, rule)| SHARED.contains(rule))
        .collect();
    let mut failures = Vec::new();
    for (name, rule) in &ops {
        let (inputs, outputs, attrs, data) = sample(name, *rule);
        let mut ctx = base.clone();
        let ir = common::parse(&mut ctx, &function(name, &inputs, &outputs, attrs));
        let args = inputs.iter().map(|t| filled(&mut ctx, t, data)).collect();
        let run = Interpreter::new(&ctx, &ir, Limits::default()).call("f", args);
        // Every shipped op is defined on its samples: any error means that the rule
        // does not know the op.
        if let Err(e) = run {
            failures.push(format!("{name} ({}): {}", rule.name(), e.message));
        }
    }
    assert!(
        failures.is_empty(),
        "shared rules refuse shipped ops:\n{}",
        failures.join("\n")
    );
    for rule in SHARED {
        let n = ops.iter().filter(|(_, r)| r == rule).count();
        assert!(n > 0, "no shipped op names {}", rule.name());
    }
    assert!(
        ops.len() > 50,
        "the shared rules' ops were found ({})",
        ops.len()
    );
}

/// A loaded op run: its short name, operand and result types, the sample of every
/// operand, and the numbers it gives or its error.
type Case = (
    &'static str,
    &'static [&'static str],
    &'static [&'static str],
    &'static [f64],
    Result<&'static [f64], &'static str>,
);

/// An op of a dialect loaded at run time that names a shared rule runs as the shipped
/// op of the same short name; a short name no shipped op of the rule has is refused
/// by the rule, with its own message.
#[test]
fn loaded_ops_reuse_shared_rules_by_short_name() {
    let mut ctx = acc_dialects::new_context();
    let unary = |name: &str, rule: &str| {
        format!(
            "  op {name} {{\n    traits Pure\n    operands (input: AnyType)\n    results (output: AnyType)\n    interpret {rule}\n  }}\n"
        )
    };
    let binary = |name: &str, rule: &str| {
        format!(
            "  op {name} {{\n    traits Pure\n    operands (lhs: AnyType, rhs: AnyType)\n    results (output: AnyType)\n    interpret {rule}\n  }}\n"
        )
    };
    let extended = |name: &str| {
        format!(
            "  op {name} {{\n    traits Pure\n    operands (lhs: AnyType, rhs: AnyType)\n    results (low: AnyType, high: AnyType)\n    interpret int_extended\n  }}\n"
        )
    };
    let text = [
        unary("relu", "unary"),
        unary("frob", "unary"),
        unary("exp", "math_unary"),
        unary("wobble", "math_unary"),
        unary("negf", "float_unary"),
        unary("flip", "float_unary"),
        unary("extsi", "cast"),
        unary("cast", "cast"),
        unary("morph", "cast"),
        binary("add", "binary"),
        binary("blend", "binary"),
        binary("subi", "int_binary"),
        binary("twiddle", "int_binary"),
        binary("mulf", "float_binary"),
        binary("mix", "float_binary"),
        binary("powf", "math_binary"),
        binary("raise", "math_binary"),
        extended("mului_extended"),
        extended("widen"),
    ]
    .concat();
    let mut sources = acc_ir::SourceMap::new();
    let file = sources.add("vendor.acc", format!("dialect vendor {{\n{text}}}\n"));
    acc_dialects::lang::load_file(&mut ctx, &sources, file).expect("the vendor dialect loads");
    let cases: &[Case] = &[
        (
            "relu",
            &["tensor<2xf32>"],
            &["tensor<2xf32>"],
            &[0.5, -1.5],
            Ok(&[0.5, 0.0]),
        ),
        (
            "frob",
            &["tensor<2xf32>"],
            &["tensor<2xf32>"],
            &[0.5, -1.5],
            Err("'vendor.frob': no semantics for Float(0.5) (or it overflows)"),
        ),
        ("exp", &["f32"], &["f32"], &[0.0], Ok(&[1.0])),
        (
            "wobble",
            &["f32"],
            &["f32"],
            &[0.0],
            Err("'vendor.wobble': unknown function 'wobble'"),
        ),
        ("negf", &["f32"], &["f32"], &[0.5], Ok(&[-0.5])),
        (
            "flip",
            &["f32"],
            &["f32"],
            &[0.5],
            Err("'vendor.flip': unknown float operation"),
        ),
        ("extsi", &["i8"], &["i32"], &[-3.0], Ok(&[-3.0])),
        (
            "cast",
            &["tensor<2xf32>"],
            &["tensor<2xi32>"],
            &[2.75, -2.75],
            Ok(&[2.0, -2.0]),
        ),
        (
            "morph",
            &["i8"],
            &["i32"],
            &[-3.0],
            Err("'vendor.morph': Int(-3) is out of range of the result type"),
        ),
        (
            "add",
            &["tensor<2xf32>", "tensor<2xf32>"],
            &["tensor<2xf32>"],
            &[1.5, 2.0],
            Ok(&[3.0, 4.0]),
        ),
        (
            "blend",
            &["tensor<2xf32>", "tensor<2xf32>"],
            &["tensor<2xf32>"],
            &[1.5, 2.0],
            Err("'vendor.blend': no binary op 'blend'"),
        ),
        ("subi", &["i32", "i32"], &["i32"], &[5.0], Ok(&[0.0])),
        (
            "twiddle",
            &["i32", "i32"],
            &["i32"],
            &[5.0],
            Err(
                "'vendor.twiddle': undefined for 5 and 5 (division by zero, overflow or shift too large)",
            ),
        ),
        ("mulf", &["f32", "f32"], &["f32"], &[1.5], Ok(&[2.25])),
        (
            "mix",
            &["f32", "f32"],
            &["f32"],
            &[1.5],
            Err("'vendor.mix': unknown float operation"),
        ),
        ("powf", &["f32", "f32"], &["f32"], &[2.0], Ok(&[4.0])),
        (
            "raise",
            &["f32", "f32"],
            &["f32"],
            &[2.0],
            Err("'vendor.raise': expects two floats"),
        ),
        (
            "mului_extended",
            &["i8", "i8"],
            &["i8", "i8"],
            &[-1.0],
            Ok(&[1.0, -2.0]),
        ),
        (
            "widen",
            &["i8", "i8"],
            &["i8", "i8"],
            &[-1.0],
            Err("'vendor.widen': no extended integer op 'widen'"),
        ),
    ];
    for (op, inputs, outputs, data, want) in cases {
        let mut ctx = ctx.clone();
        let name = format!("vendor.{op}");
        let ir = common::parse(&mut ctx, &function(&name, inputs, outputs, ""));
        let args = inputs.iter().map(|t| filled(&mut ctx, t, data)).collect();
        let run = Interpreter::new(&ctx, &ir, Limits::default()).call("f", args);
        match (run, want) {
            (Ok(out), Ok(want)) => {
                let got: Vec<f64> = out.iter().flat_map(numbers).collect();
                assert_eq!(&got, want, "{name}");
            }
            (Err(e), Err(want)) => assert_eq!(e.message, *want, "{name}"),
            (Ok(out), Err(want)) => panic!("{name} ran ({out:?}) where it should fail: {want}"),
            (Err(e), Ok(_)) => panic!("{name} failed: {}", e.message),
        }
    }
}
