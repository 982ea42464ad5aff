//! Rules shared by several ops tell them apart by the op's name without its dialect
//! (`interpret unary` computes `relu`, `sigmoid`, ... so that a dialect loaded at run
//! time can reuse them). So that renaming a shipped op cannot silently leave it
//! without semantics, every shipped op whose rule dispatches so is run here, on sample
//! values, and must not be refused as unknown to its rule.

mod common;

use acc_dialects::semantics::Rule;
use acc_interp::{Interpreter, Limits};
use common::value;

/// The generic form of `name` with operand types `inputs` and one result of `output`,
/// in a function `@f` taking the operands as arguments.
fn function(name: &str, inputs: &[&str], output: &str) -> String {
    let args: Vec<String> = inputs
        .iter()
        .enumerate()
        .map(|(i, t)| format!("%a{i}: {t}"))
        .collect();
    let uses: Vec<String> = (0..inputs.len()).map(|i| format!("%a{i}")).collect();
    format!(
        "func.func @f({}) -> {output} {{\n  %r = \"{name}\"({}) : ({}) -> {output}\n  return %r : {output}\n}}\n",
        args.join(", "),
        uses.join(", "),
        inputs.join(", ")
    )
}

#[test]
fn every_op_a_shared_rule_names_is_known_to_it() {
    let base = acc_dialects::new_context();
    let mut checked = 0;
    let ops: Vec<(String, Rule)> = base
        .registered_ops()
        .filter_map(|d| Some((d.name.clone(), Rule::from_name(d.interpret.as_deref()?)?)))
        .collect();
    for (name, rule) in ops {
        let (inputs, output, sample): (&[&str], &str, &[f64]) = match rule {
            Rule::IntBinary => (&["i32", "i32"], "i32", &[12.0]),
            Rule::FloatBinary | Rule::MathBinary => (&["f32", "f32"], "f32", &[1.5]),
            Rule::FloatUnary | Rule::MathUnary => (&["f32"], "f32", &[0.5]),
            Rule::Unary => (&["tensor<2xf32>"], "tensor<2xf32>", &[0.5, -1.5]),
            Rule::Binary => (
                &["tensor<2xf32>", "tensor<2xf32>"],
                "tensor<2xf32>",
                &[1.5, 2.0],
            ),
            _ => continue,
        };
        let mut ctx = base.clone();
        let ir = common::parse(&mut ctx, &function(&name, inputs, output));
        let args = inputs.iter().map(|t| value(&mut ctx, t, sample)).collect();
        let run = Interpreter::new(&ctx, &ir, Limits::default()).call("f", args);
        if let Err(e) = run {
            // Undefined results (a shift too large, ...) are fine; an unknown name is not.
            assert!(
                !e.message.contains("unknown") && !e.message.contains("no "),
                "{name} ({}): {}",
                rule.name(),
                e.message
            );
        }
        checked += 1;
    }
    assert!(checked > 50, "the shared rules' ops were found ({checked})");
}
