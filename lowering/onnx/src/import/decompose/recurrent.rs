//! LSTM, GRU and RNN of a static sequence length, unrolled over time: the input
//! projections of every step as one MatMul, then per step the recurrent MatMul, the
//! gates (Slices of the projections, Sigmoid and Tanh) and the state update, as the
//! ONNX standard defines them (default activations, gate order i, o, f, c for LSTM and
//! z, r, h for GRU). Directions forward, reverse and bidirectional; `layout` 0 and 1
//! (batch first, as Transposes around the unrolled steps); `sequence_lens` when known
//! and equal to the sequence length.
//! Weights that are initializers make the transposes and slices fold at import.

use super::{Operand, Writer, attr, int, ints};
use crate::proto::NodeProto;

/// Which recurrent op.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cell {
    Lstm,
    Gru,
    Rnn,
}

/// The expansion of an LSTM or GRU node whose input X is `x`.
pub(super) fn recurrent(
    node: &NodeProto,
    x: &Operand,
    known: &dyn Fn(usize) -> Option<Vec<i64>>,
    w: &mut Writer,
) -> Result<(), String> {
    let cell = match node.op_type.as_deref() {
        Some("LSTM") => Cell::Lstm,
        Some("GRU") => Cell::Gru,
        _ => Cell::Rnn,
    };
    let gates: i64 = match cell {
        Cell::Lstm => 4,
        Cell::Gru => 3,
        Cell::Rnn => 1,
    };
    let shape = x.shape.as_ref().ok_or("it needs a static input shape")?;
    let batch_first = attr(node, "layout").and_then(|a| a.i).unwrap_or(0) != 0;
    let [seq, batch, _input] = match shape[..] {
        [b, s, i] if batch_first => [s, b, i],
        [s, b, i] => [s, b, i],
        _ => return Err("its input must be [sequence, batch, input]".into()),
    };
    if attr(node, "clip").is_some() {
        return Err("clip is not supported".into());
    }
    if attr(node, "input_forget").and_then(|a| a.i).unwrap_or(0) != 0 {
        return Err("input_forget is not supported".into());
    }
    if let Some(a) = attr(node, "activations") {
        let names: Vec<String> = a
            .strings
            .iter()
            .map(|s| String::from_utf8_lossy(s).to_lowercase())
            .collect();
        let default = match cell {
            Cell::Rnn => names.iter().all(|n| n == "tanh"),
            _ => names
                .chunks(if cell == Cell::Lstm { 3 } else { 2 })
                .all(|c| c[0] == "sigmoid" && c[1..].iter().all(|n| n == "tanh")),
        };
        if !default {
            return Err(format!(
                "activations {names:?} are not supported (the defaults are)"
            ));
        }
    }
    let hidden = attr(node, "hidden_size")
        .and_then(|a| a.i)
        .ok_or("it needs hidden_size")?;
    let direction = attr(node, "direction")
        .and_then(|a| a.s.as_ref())
        .map(|s| String::from_utf8_lossy(s).into_owned())
        .unwrap_or_else(|| "forward".into());
    let reverse: Vec<bool> = match direction.as_str() {
        "forward" => vec![false],
        "reverse" => vec![true],
        "bidirectional" => vec![false, true],
        d => return Err(format!("direction '{d}' is not supported")),
    };
    let input = |i: usize| node.input.get(i).cloned().unwrap_or_default();
    if !input(4).is_empty() {
        let lengths = known(4).ok_or_else(|| super::must_be_known(node, 4, "sequence lengths"))?;
        if lengths.iter().any(|n| *n != seq) {
            return Err(
                "sequence_lens other than the input's length for every sequence is not supported"
                    .into(),
            );
        }
    }
    // Batch first: the steps run on [S, B, I]; the outputs are transposed back.
    let x_name = if batch_first {
        w.node("Transpose", &[&input(0)], vec![ints("perm", &[1, 0, 2])])
    } else {
        input(0)
    };
    let linear_before_reset = attr(node, "linear_before_reset")
        .and_then(|a| a.i)
        .unwrap_or(0)
        != 0;
    let h = hidden;
    let zeros_state = w.constant_of_shape(&[batch, h]);
    let mut ys = Vec::new();
    let mut last_h = Vec::new();
    let mut last_c = Vec::new();
    for (d, &backward) in reverse.iter().enumerate() {
        let d = d as i64;
        // This direction's weights: W [G H, I] and R [G H, H] transposed, biases [G H].
        let pick = |w: &mut Writer, name: &str| {
            let (s, e, a) = (w.ints(&[d]), w.ints(&[d + 1]), w.ints(&[0]));
            let one = w.node("Slice", &[name, &s, &e, &a], vec![]);
            let axes = w.ints(&[0]);
            w.node("Squeeze", &[&one, &axes], vec![])
        };
        let wd = pick(w, &input(1));
        let rd = pick(w, &input(2));
        let wt = w.node("Transpose", &[&wd], vec![ints("perm", &[1, 0])]);
        let rt = w.node("Transpose", &[&rd], vec![ints("perm", &[1, 0])]);
        let (wb, rb) = if input(3).is_empty() {
            (None, None)
        } else {
            let b = pick(w, &input(3));
            let half = |w: &mut Writer, from: i64| {
                let (s, e, a) = (w.ints(&[from]), w.ints(&[from + gates * h]), w.ints(&[0]));
                w.node("Slice", &[&b, &s, &e, &a], vec![])
            };
            (Some(half(w, 0)), Some(half(w, gates * h)))
        };
        let initial = |w: &mut Writer, i: usize, zeros: &str| {
            if input(i).is_empty() {
                zeros.to_string()
            } else {
                pick(w, &input(i))
            }
        };
        let mut hs = initial(w, 5, &zeros_state);
        let mut cs = if cell == Cell::Lstm {
            initial(w, 6, &zeros_state)
        } else {
            String::new()
        };
        let peepholes = (cell == Cell::Lstm && !input(7).is_empty()).then(|| pick(w, &input(7)));
        // Every step's input projection at once: [S, B, I] x [I, G H] (+ W's bias).
        let mut projected = w.node("MatMul", &[&x_name, &wt], vec![]);
        if let Some(wb) = &wb {
            projected = w.node("Add", &[&projected, wb], vec![]);
        }
        let gate = |w: &mut Writer, v: &str, k: i64| {
            let (s, e, a) = (w.ints(&[k * h]), w.ints(&[(k + 1) * h]), w.ints(&[1]));
            w.node("Slice", &[v, &s, &e, &a], vec![])
        };
        let peephole = |w: &mut Writer, k: i64| {
            peepholes.as_ref().map(|p| {
                let (s, e, a) = (w.ints(&[k * h]), w.ints(&[(k + 1) * h]), w.ints(&[0]));
                w.node("Slice", &[p, &s, &e, &a], vec![])
            })
        };
        let mut outputs = vec![String::new(); seq as usize];
        let steps: Vec<i64> = if backward {
            (0..seq).rev().collect()
        } else {
            (0..seq).collect()
        };
        for t in steps {
            let (s, e, a) = (w.ints(&[t]), w.ints(&[t + 1]), w.ints(&[0]));
            let step = w.node("Slice", &[&projected, &s, &e, &a], vec![]);
            let as_matrix = w.ints(&[batch, gates * h]);
            let xt = w.node("Reshape", &[&step, &as_matrix], vec![]);
            match cell {
                Cell::Lstm => {
                    let mut hr = w.node("MatMul", &[&hs, &rt], vec![]);
                    if let Some(rb) = &rb {
                        hr = w.node("Add", &[&hr, rb], vec![]);
                    }
                    let pre = w.node("Add", &[&xt, &hr], vec![]);
                    let with_peephole =
                        |w: &mut Writer, g: String, k: i64, c: &str| match peephole(w, k) {
                            Some(p) => {
                                let pc = w.node("Mul", &[&p, c], vec![]);
                                w.node("Add", &[&g, &pc], vec![])
                            }
                            None => g,
                        };
                    let i_pre = gate(w, &pre, 0);
                    let i_pre = with_peephole(w, i_pre, 0, &cs);
                    let f_pre = gate(w, &pre, 2);
                    let f_pre = with_peephole(w, f_pre, 2, &cs);
                    let i_gate = w.node("Sigmoid", &[&i_pre], vec![]);
                    let f_gate = w.node("Sigmoid", &[&f_pre], vec![]);
                    let c_pre = gate(w, &pre, 3);
                    let c_new = w.node("Tanh", &[&c_pre], vec![]);
                    let kept = w.node("Mul", &[&f_gate, &cs], vec![]);
                    let added = w.node("Mul", &[&i_gate, &c_new], vec![]);
                    cs = w.node("Add", &[&kept, &added], vec![]);
                    let o_pre = gate(w, &pre, 1);
                    let o_pre = with_peephole(w, o_pre, 1, &cs);
                    let o_gate = w.node("Sigmoid", &[&o_pre], vec![]);
                    let squashed = w.node("Tanh", &[&cs], vec![]);
                    hs = w.node("Mul", &[&o_gate, &squashed], vec![]);
                }
                Cell::Rnn => {
                    let mut hr = w.node("MatMul", &[&hs, &rt], vec![]);
                    if let Some(rb) = &rb {
                        hr = w.node("Add", &[&hr, rb], vec![]);
                    }
                    let pre = w.node("Add", &[&xt, &hr], vec![]);
                    hs = w.node("Tanh", &[&pre], vec![]);
                }
                Cell::Gru => {
                    let mut hr = w.node("MatMul", &[&hs, &rt], vec![]);
                    if let Some(rb) = &rb {
                        hr = w.node("Add", &[&hr, rb], vec![]);
                    }
                    let (xz, xr, xh) = (gate(w, &xt, 0), gate(w, &xt, 1), gate(w, &xt, 2));
                    let (hz, hrr) = (gate(w, &hr, 0), gate(w, &hr, 1));
                    let z_pre = w.node("Add", &[&xz, &hz], vec![]);
                    let r_pre = w.node("Add", &[&xr, &hrr], vec![]);
                    let z = w.node("Sigmoid", &[&z_pre], vec![]);
                    let r = w.node("Sigmoid", &[&r_pre], vec![]);
                    let h_pre = if linear_before_reset {
                        // r (.) (H R_h^T + Rb_h)
                        let hh = gate(w, &hr, 2);
                        let reset = w.node("Mul", &[&r, &hh], vec![]);
                        w.node("Add", &[&xh, &reset], vec![])
                    } else {
                        // (r (.) H) R_h^T + Rb_h
                        let reset = w.node("Mul", &[&r, &hs], vec![]);
                        let (s, e, a) = (w.ints(&[2 * h]), w.ints(&[3 * h]), w.ints(&[1]));
                        let rh = w.node("Slice", &[&rt, &s, &e, &a], vec![]);
                        let mut projected_reset = w.node("MatMul", &[&reset, &rh], vec![]);
                        if let Some(rb) = &rb {
                            let (s, e, a) = (w.ints(&[2 * h]), w.ints(&[3 * h]), w.ints(&[0]));
                            let rbh = w.node("Slice", &[rb, &s, &e, &a], vec![]);
                            projected_reset = w.node("Add", &[&projected_reset, &rbh], vec![]);
                        }
                        w.node("Add", &[&xh, &projected_reset], vec![])
                    };
                    let candidate = w.node("Tanh", &[&h_pre], vec![]);
                    // (1 - z) (.) candidate + z (.) H = candidate + z (.) (H - candidate)
                    let diff = w.node("Sub", &[&hs, &candidate], vec![]);
                    let kept = w.node("Mul", &[&z, &diff], vec![]);
                    hs = w.node("Add", &[&candidate, &kept], vec![]);
                }
            }
            let axes = w.ints(&[0, 1]);
            outputs[t as usize] = w.node("Unsqueeze", &[&hs, &axes], vec![]);
        }
        // Y of this direction: [S, 1, B, H].
        let refs: Vec<&str> = outputs.iter().map(String::as_str).collect();
        ys.push(w.node("Concat", &refs, vec![int("axis", 0)]));
        let axes = w.ints(&[0]);
        last_h.push(w.node("Unsqueeze", &[&hs, &axes], vec![]));
        if cell == Cell::Lstm {
            last_c.push(w.node("Unsqueeze", &[&cs, &axes], vec![]));
        }
    }
    let out = |i: usize| node.output.get(i).filter(|o| !o.is_empty()).cloned();
    // Y is [S, D, B, H] ([B, S, D, H] batch first), Y_h and Y_c [D, B, H] ([B, D, H]).
    let finish =
        |w: &mut Writer, parts: &[String], axis: i64, perm: &[i64], name: Option<String>| {
            if let Some(name) = name {
                let refs: Vec<&str> = parts.iter().map(String::as_str).collect();
                if batch_first {
                    let joined = w.node("Concat", &refs, vec![int("axis", axis)]);
                    w.node_to("Transpose", &[&joined], vec![ints("perm", perm)], &name);
                } else {
                    w.node_to("Concat", &refs, vec![int("axis", axis)], &name);
                }
            }
        };
    finish(w, &ys, 1, &[2, 0, 1, 3], out(0));
    finish(w, &last_h, 0, &[1, 0, 2], out(1));
    if cell == Cell::Lstm {
        finish(w, &last_c, 0, &[1, 0, 2], out(2));
    }
    Ok(())
}
