//! Einsum of one or two operands with static shapes, as the ops it is made of (as
//! onnxruntime's kernel computes it): a label repeated within an operand takes the
//! diagonal (a Where on equal positions, then a ReduceSum), a label of one operand
//! that the output lacks is summed out, and two operands are transposed to
//! `[batch, free, contracted]` and `[batch, contracted, free]`, reshaped to three
//! dimensions and multiplied by one MatMul; the result is reshaped and transposed to
//! the output's order.

use super::{Operand, Writer, attr, int, ints};
use crate::proto::NodeProto;

/// One operand on the way: its value's name and the label of each of its dimensions
/// (with their sizes).
struct Term {
    name: String,
    labels: Vec<char>,
    sizes: Vec<i64>,
}

/// Writes Einsum `node` (inputs `x`, `y`) into `out`.
pub(super) fn einsum(
    node: &NodeProto,
    x: &Operand,
    out: &str,
    w: &mut Writer,
) -> Result<(), String> {
    let equation = attr(node, "equation")
        .and_then(|a| a.s.as_deref())
        .map(|s| String::from_utf8_lossy(s).replace(' ', ""))
        .ok_or("it needs 'equation'")?;
    let shapes: Vec<&Vec<i64>> = match node.input.len() {
        1 => vec![x.shape.as_ref().ok_or("it needs static input shapes")?],
        2 => vec![
            x.shape.as_ref().ok_or("it needs static input shapes")?,
            x.second_shape
                .as_ref()
                .ok_or("it needs static input shapes")?,
        ],
        n => return Err(format!("{n} operands are not supported (one or two are)")),
    };
    let (inputs, output) = match equation.split_once("->") {
        Some((i, o)) => (i.to_string(), Some(o.to_string())),
        None => (equation.clone(), None),
    };
    let specs: Vec<&str> = inputs.split(',').collect();
    if specs.len() != shapes.len() {
        return Err(format!(
            "equation '{equation}' names {} operands, the node has {}",
            specs.len(),
            shapes.len()
        ));
    }
    let ellipsis_rank = specs
        .iter()
        .zip(&shapes)
        .map(|(s, shape)| ellipsis_dims(s, shape.len()))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .max()
        .unwrap_or(0);
    let mut terms = Vec::new();
    for (k, (spec, shape)) in specs.iter().zip(&shapes).enumerate() {
        let labels = expand(spec, shape.len())?;
        if labels.len() != shape.len() {
            return Err(format!(
                "'{spec}' labels {} dimensions of an operand of {}",
                labels.len(),
                shape.len()
            ));
        }
        let name = node.input.get(k).cloned().unwrap_or_default();
        terms.push(Term {
            name,
            labels,
            sizes: shape.to_vec(),
        });
    }
    let output: Vec<char> = match output {
        Some(o) => expand(
            &o,
            ellipsis_rank + o.chars().filter(|c| c.is_ascii_alphabetic()).count(),
        )?,
        None => implicit_output(&terms, ellipsis_rank),
    };
    for t in &mut terms {
        take_diagonals(t, w)?;
    }
    let result = if terms.len() == 1 {
        let t = terms.pop().ok_or("no operand")?;
        sum_out(t, &output, w)
    } else {
        let right = terms.pop().ok_or("no operand")?;
        let left = terms.pop().ok_or("no operand")?;
        let keep_left: Vec<char> = output.iter().chain(&right.labels).copied().collect();
        let keep_right: Vec<char> = output.iter().chain(&left.labels).copied().collect();
        let left = sum_out(left, &keep_left, w);
        let right = sum_out(right, &keep_right, w);
        contract(left, right, &output, w)?
    };
    let order: Vec<i64> = output
        .iter()
        .map(|l| result.labels.iter().position(|m| m == l).map(|p| p as i64))
        .collect::<Option<_>>()
        .ok_or("an output label appears in no operand")?;
    if result.labels.len() != output.len() {
        return Err("an output label repeats".into());
    }
    if order.iter().enumerate().all(|(i, p)| i as i64 == *p) {
        w.node_to("Identity", &[&result.name], vec![], out);
    } else {
        w.node_to(
            "Transpose",
            &[&result.name],
            vec![ints("perm", &order)],
            out,
        );
    }
    Ok(())
}

/// How many dimensions the `...` of `spec` stands for in an operand of `rank`.
fn ellipsis_dims(spec: &str, rank: usize) -> Result<usize, String> {
    let letters = spec.chars().filter(|c| c.is_ascii_alphabetic()).count();
    if spec.contains("...") {
        rank.checked_sub(letters)
            .ok_or_else(|| format!("'{spec}' has more labels than its operand's {rank} dimensions"))
    } else if letters == rank {
        Ok(0)
    } else {
        Err(format!(
            "'{spec}' labels {letters} dimensions of an operand of {rank}"
        ))
    }
}

/// The labels of `spec` with its `...` written as `count - letters` labels of their
/// own (digits, aligned from the right so that broadcast dimensions share them).
fn expand(spec: &str, count: usize) -> Result<Vec<char>, String> {
    let letters = spec.chars().filter(|c| c.is_ascii_alphabetic()).count();
    if let Some(bad) = spec.chars().find(|c| !c.is_ascii_alphabetic() && *c != '.') {
        return Err(format!("'{bad}' is not an Einsum label"));
    }
    let stray = |part: &str| {
        if part.contains('.') {
            Err(format!("'{spec}' has a '.' outside one '...'"))
        } else {
            Ok(())
        }
    };
    let Some((before, after)) = spec.split_once("...") else {
        stray(spec)?;
        return Ok(spec.chars().collect());
    };
    stray(before)?;
    stray(after)?;
    let hidden = count
        .checked_sub(letters)
        .filter(|n| *n <= 10)
        .ok_or_else(|| format!("'{spec}' stands for too many dimensions"))?;
    let mut labels: Vec<char> = before.chars().collect();
    labels.extend((0..hidden).map(|i| char::from(b'0' + (10 - hidden + i) as u8)));
    labels.extend(after.chars());
    Ok(labels)
}

/// The output of an equation without `->`: the ellipsis, then the labels that appear
/// once, in alphabetical order.
fn implicit_output(terms: &[Term], ellipsis_rank: usize) -> Vec<char> {
    let mut out: Vec<char> = (0..ellipsis_rank)
        .map(|i| char::from(b'0' + (10 - ellipsis_rank + i) as u8))
        .collect();
    let all: Vec<char> = terms
        .iter()
        .flat_map(|t| t.labels.iter().copied())
        .collect();
    let mut once: Vec<char> = all
        .iter()
        .copied()
        .filter(|c| c.is_ascii_alphabetic() && all.iter().filter(|d| *d == c).count() == 1)
        .collect();
    once.sort_unstable();
    out.extend(once);
    out
}

/// `t` with each label it repeats reduced to one dimension holding the diagonal.
fn take_diagonals(t: &mut Term, w: &mut Writer) -> Result<(), String> {
    while let Some((a, b)) = repeated(&t.labels) {
        if t.sizes[a] != t.sizes[b] {
            return Err(format!(
                "label '{}' has sizes {} and {}",
                t.labels[a], t.sizes[a], t.sizes[b]
            ));
        }
        let rank = t.labels.len();
        let rows = w.index_range(rank, a, t.sizes[a]);
        let columns = w.index_range(rank, b, t.sizes[b]);
        let on = w.node("Equal", &[&rows, &columns], vec![]);
        let zero = w.scalar(0.0);
        let kept = w.node("Where", &[&on, &t.name, &zero], vec![]);
        let keep = vec![ints("axes", &[b as i64]), int("keepdims", 0)];
        t.name = w.node("ReduceSum", &[&kept], keep);
        t.labels.remove(b);
        t.sizes.remove(b);
    }
    Ok(())
}

/// The first two positions holding the same label.
fn repeated(labels: &[char]) -> Option<(usize, usize)> {
    (0..labels.len()).find_map(|a| {
        (a + 1..labels.len())
            .find(|b| labels[*b] == labels[a])
            .map(|b| (a, b))
    })
}

/// `t` with the labels not in `keep` summed out.
fn sum_out(t: Term, keep: &[char], w: &mut Writer) -> Term {
    let axes: Vec<i64> = (0..t.labels.len())
        .filter(|i| !keep.contains(&t.labels[*i]))
        .map(|i| i as i64)
        .collect();
    if axes.is_empty() {
        return t;
    }
    let name = w.node(
        "ReduceSum",
        &[&t.name],
        vec![ints("axes", &axes), int("keepdims", 0)],
    );
    let (labels, sizes) = t
        .labels
        .iter()
        .zip(&t.sizes)
        .filter(|(l, _)| keep.contains(l))
        .map(|(l, s)| (*l, *s))
        .unzip();
    Term {
        name,
        labels,
        sizes,
    }
}

/// The product of `left` and `right` summed over their shared labels not in
/// `output`: one batched MatMul, its result labelled batch, left free, right free.
fn contract(left: Term, right: Term, output: &[char], w: &mut Writer) -> Result<Term, String> {
    let shared = |l: &char| right.labels.contains(l);
    let batch: Vec<char> = left
        .labels
        .iter()
        .copied()
        .filter(|l| shared(l) && output.contains(l))
        .collect();
    let summed: Vec<char> = left
        .labels
        .iter()
        .copied()
        .filter(|l| shared(l) && !output.contains(l))
        .collect();
    let left_free: Vec<char> = left.labels.iter().copied().filter(|l| !shared(l)).collect();
    let right_free: Vec<char> = right
        .labels
        .iter()
        .copied()
        .filter(|l| !left.labels.contains(l))
        .collect();
    let size = |t: &Term, l: char| {
        t.labels
            .iter()
            .position(|m| *m == l)
            .map(|p| t.sizes[p])
            .unwrap_or(1)
    };
    for l in batch.iter().chain(&summed) {
        if size(&left, *l) != size(&right, *l) {
            return Err(format!(
                "label '{l}' has sizes {} and {} (broadcasting is not supported)",
                size(&left, *l),
                size(&right, *l)
            ));
        }
    }
    let product = |t: &Term, ls: &[char]| {
        ls.iter()
            .try_fold(1i64, |n, l| n.checked_mul(size(t, *l)))
            .ok_or_else(|| "its operands are too large".to_string())
    };
    let arrange = |w: &mut Writer, t: &Term, order: &[char], dims: [i64; 3]| {
        let perm: Vec<i64> = order
            .iter()
            .filter_map(|l| t.labels.iter().position(|m| m == l).map(|p| p as i64))
            .collect();
        let moved = if perm.iter().enumerate().all(|(i, p)| i as i64 == *p) {
            t.name.clone()
        } else {
            w.node("Transpose", &[&t.name], vec![ints("perm", &perm)])
        };
        let shape = w.ints(&dims);
        w.node("Reshape", &[&moved, &shape], vec![])
    };
    let (b, k) = (product(&left, &batch)?, product(&left, &summed)?);
    let (m, n) = (product(&left, &left_free)?, product(&right, &right_free)?);
    let left_order: Vec<char> = batch
        .iter()
        .chain(&left_free)
        .chain(&summed)
        .copied()
        .collect();
    let right_order: Vec<char> = batch
        .iter()
        .chain(&summed)
        .chain(&right_free)
        .copied()
        .collect();
    let a = arrange(w, &left, &left_order, [b, m, k]);
    let c = arrange(w, &right, &right_order, [b, k, n]);
    let p = w.node("MatMul", &[&a, &c], vec![]);
    let labels: Vec<char> = batch
        .iter()
        .chain(&left_free)
        .chain(&right_free)
        .copied()
        .collect();
    let sizes: Vec<i64> = batch
        .iter()
        .chain(&left_free)
        .map(|l| size(&left, *l))
        .chain(right_free.iter().map(|l| size(&right, *l)))
        .collect();
    let shape = w.ints(&sizes);
    let name = w.node("Reshape", &[&p, &shape], vec![]);
    Ok(Term {
        name,
        labels,
        sizes,
    })
}
