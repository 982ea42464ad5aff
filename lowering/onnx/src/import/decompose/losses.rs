//! The loss functions, as ONNX's reference computes them: NegativeLogLikelihoodLoss
//! picks `-input[n, target[n, d...], d...]` with GatherElements along the class axis,
//! weighted by `weight[target]` (0 where the target is `ignore_index`), then reduced
//! (`mean` divides by the sum of the weights picked); SoftmaxCrossEntropyLoss is the
//! same on the log-softmax of its scores along the class axis, which it also gives as
//! its second output.

use super::{Operand, Writer, attr, int, ints};
use crate::proto::{NodeProto, tensor_proto};

/// NegativeLogLikelihoodLoss (`softmax` false) or SoftmaxCrossEntropyLoss (`softmax`
/// true) `node`, whose first input is `x`, into its outputs.
pub(super) fn loss(
    node: &NodeProto,
    x: &Operand,
    softmax: bool,
    w: &mut Writer,
) -> Result<(), String> {
    let rank = x
        .shape
        .as_ref()
        .map(Vec::len)
        .ok_or("it needs a ranked input")?;
    if rank < 2 {
        return Err("its input must have at least 2 dimensions (N, C, ...)".into());
    }
    let input = |i: usize| node.input.get(i).filter(|n| !n.is_empty()).cloned();
    let output = |i: usize| node.output.get(i).filter(|n| !n.is_empty()).cloned();
    let reduction = attr(node, "reduction")
        .and_then(|a| a.s.as_deref())
        .map(|s| String::from_utf8_lossy(s).into_owned())
        .unwrap_or_else(|| "mean".into());
    if !matches!(reduction.as_str(), "none" | "sum" | "mean") {
        return Err(format!("reduction '{reduction}' is not none, sum or mean"));
    }
    let ignore_index = attr(node, "ignore_index").and_then(|a| a.i);
    let scores = input(0).ok_or("it needs its input")?;
    let values = if softmax {
        // log_softmax along the class axis: (x - max) - log(sum(exp(x - max))).
        let keep = || vec![ints("axes", &[1]), int("keepdims", 1)];
        let max = w.node("ReduceMax", &[&scores], keep());
        let shifted = w.node("Sub", &[&scores, &max], vec![]);
        let e = w.node("Exp", &[&shifted], vec![]);
        let sum = w.node("ReduceSum", &[&e], keep());
        let log_sum = w.node("Log", &[&sum], vec![]);
        let log_prob = output(1).unwrap_or_else(|| w.fresh());
        w.node_to("Sub", &[&shifted, &log_sum], vec![], &log_prob);
        log_prob
    } else {
        scores
    };
    let int64 = tensor_proto::DataType::Int64 as i64;
    let target = input(1).ok_or("it needs its target")?;
    let target = w.node("Cast", &[&target], vec![int("to", int64)]);
    // Ignored positions pick class 0, then count for nothing.
    let ignored = ignore_index.map(|i| {
        let i = w.int_tensor(&[], &[i]);
        w.node("Equal", &[&target, &i], vec![])
    });
    let class = match &ignored {
        Some(ignored) => {
            let zero = w.int_tensor(&[], &[0]);
            w.node("Where", &[ignored, &zero, &target], vec![])
        }
        None => target,
    };
    let index = w.node("Unsqueeze", &[&class], vec![ints("axes", &[1])]);
    let picked = w.node("GatherElements", &[&values, &index], vec![int("axis", 1)]);
    let picked = w.node("Squeeze", &[&picked], vec![ints("axes", &[1])]);
    let mut loss = w.node("Neg", &[&picked], vec![]);
    let zero = w.scalar(0.0);
    if let Some(ignored) = &ignored {
        loss = w.node("Where", &[ignored, &zero, &loss], vec![]);
    }
    let weights = match (input(2), &ignored) {
        (Some(weight), _) => {
            let picked = w.node("Gather", &[&weight, &class], vec![int("axis", 0)]);
            Some(match &ignored {
                Some(ignored) => w.node("Where", &[ignored, &zero, &picked], vec![]),
                None => picked,
            })
        }
        (None, Some(ignored)) => {
            let one = w.scalar(1.0);
            Some(w.node("Where", &[ignored, &zero, &one], vec![]))
        }
        (None, None) => None,
    };
    if let Some(weights) = &weights {
        loss = w.node("Mul", &[weights, &loss], vec![]);
    }
    let out = output(0).ok_or("it needs its output")?;
    let all = || vec![int("keepdims", 0)];
    match (reduction.as_str(), &weights) {
        ("none", _) => w.node_to("Identity", &[&loss], vec![], &out),
        ("sum", _) => w.node_to("ReduceSum", &[&loss], all(), &out),
        (_, Some(weights)) => {
            let total = w.node("ReduceSum", &[&loss], all());
            let weight = w.node("ReduceSum", &[weights], all());
            w.node_to("Div", &[&total, &weight], vec![], &out);
        }
        (_, None) => w.node_to("ReduceMean", &[&loss], all(), &out),
    }
    Ok(())
}
