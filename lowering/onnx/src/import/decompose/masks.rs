//! Expansions built on masks of index positions: Trilu and EyeLike compare a column of
//! row indices with a row of column indices (the offset from the diagonal), Hardmax
//! and OneHot compare values with the positions along an axis. Each mask is a
//! boolean graph value, so shapes must be static; the masks of constant shapes fold
//! at import.

use super::{Operand, Writer, attr, int, ints, must_be_known};
use crate::proto::{NodeProto, tensor_proto};

/// The largest OneHot depth (its positions are a constant of that many elements).
const MAX_DEPTH: i64 = 1 << 21;

/// The offsets from the diagonal of a `rows` x `columns` matrix: column index less row
/// index (an int64 value of that shape, from a column and a row of indices).
fn diagonal_offsets(w: &mut Writer, rows: i64, columns: i64) -> String {
    let row_index = w.int_tensor(&[rows, 1], &(0..rows).collect::<Vec<_>>());
    let column_index = w.int_tensor(&[1, columns], &(0..columns).collect::<Vec<_>>());
    w.node("Sub", &[&column_index, &row_index], vec![])
}

/// EyeLike: 1 where the column index less the row index is `k`, cast to `dtype` (the
/// input's type by default).
pub(super) fn eye_like(
    node: &NodeProto,
    x: &Operand,
    out: &str,
    w: &mut Writer,
) -> Result<(), String> {
    let shape = x.shape.as_ref().ok_or("it needs a static input shape")?;
    let &[rows, columns] = &shape[..] else {
        return Err("its input must have 2 dimensions".into());
    };
    let k = attr(node, "k").and_then(|a| a.i).unwrap_or(0);
    let to = attr(node, "dtype")
        .and_then(|a| a.i)
        .unwrap_or(i64::from(x.data_type));
    let diagonal = diagonal_offsets(w, rows, columns);
    let k = w.int_tensor(&[], &[k]);
    let on = w.node("Equal", &[&diagonal, &k], vec![]);
    w.node_to("Cast", &[&on], vec![int("to", to)], out);
    Ok(())
}

/// Hardmax: 1 at the first maximum along `axis`, 0 elsewhere (ArgMax compared with the
/// positions along the axis).
pub(super) fn hardmax(
    node: &NodeProto,
    x: &Operand,
    x_name: &str,
    out: &str,
    w: &mut Writer,
) -> Result<(), String> {
    let shape = x.shape.as_ref().ok_or("it needs a static input shape")?;
    let axis = axis_in(node, "axis", -1, shape.len())?;
    let keep = vec![int("axis", axis as i64), int("keepdims", 1)];
    let at = w.node("ArgMax", &[x_name], keep);
    let positions = w.index_range(shape.len(), axis, shape[axis]);
    let hit = w.node("Equal", &[&positions, &at], vec![]);
    w.node_to(
        "Cast",
        &[&hit],
        vec![int("to", i64::from(x.data_type))],
        out,
    );
    Ok(())
}

/// Trilu: the input where the column index less the row index is at least `k` (the
/// upper triangle) or at most `k` (the lower one), zero elsewhere. The mask compares a
/// column of row indices with a row of column indices, broadcast over the last two
/// dimensions (and any leading ones).
pub(super) fn trilu(
    node: &NodeProto,
    x: &Operand,
    known: &dyn Fn(usize) -> Option<Vec<i64>>,
    x_name: &str,
    out: &str,
    w: &mut Writer,
) -> Result<(), String> {
    let shape = x.shape.as_ref().ok_or("it needs a static input shape")?;
    let [.., rows, columns] = shape[..] else {
        return Err("its input must have at least 2 dimensions".into());
    };
    let k = if node.input.get(1).is_some_and(|i| !i.is_empty()) {
        match known(1).as_deref() {
            Some([k]) => *k,
            Some(other) => return Err(format!("k {other:?} is not one integer")),
            None => return Err(must_be_known(node, 1, "k")),
        }
    } else {
        0
    };
    let upper = attr(node, "upper").and_then(|a| a.i).unwrap_or(1) != 0;
    let diagonal = diagonal_offsets(w, rows, columns);
    let k = w.int_tensor(&[], &[k]);
    let compare = if upper {
        "GreaterOrEqual"
    } else {
        "LessOrEqual"
    };
    let keep = w.node(compare, &[&diagonal, &k], vec![]);
    let zero = w.scalar(0.0);
    w.node_to("Where", &[&keep, x_name, &zero], vec![], out);
    Ok(())
}

/// OneHot: `on` where an index (wrapped once when negative) equals its position along
/// the new axis `axis`, `off` elsewhere; `values` is [off, on], `depth` must be known.
pub(super) fn one_hot(
    node: &NodeProto,
    x: &Operand,
    known: &dyn Fn(usize) -> Option<Vec<i64>>,
    indices: &str,
    out: &str,
    w: &mut Writer,
) -> Result<(), String> {
    let rank = x
        .shape
        .as_ref()
        .ok_or("it needs a static input shape")?
        .len();
    let depth = match known(1).as_deref() {
        // The positions 0..depth become a constant: bounded as folded tensors are.
        Some([d]) if (0..=MAX_DEPTH).contains(d) => *d,
        Some(other) => {
            return Err(format!(
                "depth {other:?} is not one count of at most {MAX_DEPTH}"
            ));
        }
        None => return Err(must_be_known(node, 1, "depth")),
    };
    let axis = axis_in(node, "axis", -1, rank + 1)?;
    let int64 = tensor_proto::DataType::Int64 as i32;
    let as_int = w.node("Cast", &[indices], vec![int("to", i64::from(int64))]);
    let zero = w.int_tensor(&[], &[0]);
    let d = w.int_tensor(&[], &[depth]);
    let negative = w.node("Less", &[&as_int, &zero], vec![]);
    let moved = w.node("Add", &[&as_int, &d], vec![]);
    let wrapped = w.node("Where", &[&negative, &moved, &as_int], vec![]);
    let column = w.node("Unsqueeze", &[&wrapped], vec![ints("axes", &[axis as i64])]);
    let positions = w.index_range(rank + 1, axis, depth);
    let hit = w.node("Equal", &[&column, &positions], vec![]);
    let values = node.input.get(2).cloned().unwrap_or_default();
    let first = w.int_tensor(&[], &[0]);
    let second = w.int_tensor(&[], &[1]);
    let off = w.node("Gather", &[&values, &first], vec![]);
    let on = w.node("Gather", &[&values, &second], vec![]);
    w.node_to("Where", &[&hit, &on, &off], vec![], out);
    Ok(())
}

/// The attribute `name` (default `default`) of `node` as an axis of `rank` dimensions.
fn axis_in(node: &NodeProto, name: &str, default: i64, rank: usize) -> Result<usize, String> {
    let axis = attr(node, name).and_then(|a| a.i).unwrap_or(default);
    let rank = rank as i64;
    let a = if axis < 0 { axis + rank } else { axis };
    usize::try_from(a)
        .ok()
        .filter(|a| (*a as i64) < rank)
        .ok_or_else(|| format!("{name} {axis} is out of range for rank {rank}"))
}
