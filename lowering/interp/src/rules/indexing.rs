//! Index arithmetic shared by the rules of the tensor and loop levels: index operands,
//! row-major enumeration and positions, and the static-or-dynamic lists (offsets,
//! sizes, strides) of slicing ops.

use acc_dialects::hooks::attr_read::{Attrs, is_dyn};
use acc_ir::elements::Scalar;

use super::RuleInput;
use crate::value::{Tensor, row_major};

/// The value of an `index` operand.
pub(super) fn index(t: &Tensor) -> Result<usize, String> {
    match t.scalar() {
        Some(Scalar::Int(i)) => usize::try_from(i).map_err(|_| format!("index {i} is negative")),
        _ => Err("expects an index".into()),
    }
}

/// The static list attribute `name`, its dynamic entries (`?`) taken in order from
/// `dynamic`.
pub(super) fn index_list<'t>(
    r: &RuleInput<'_>,
    name: &str,
    dynamic: &mut impl Iterator<Item = &'t Tensor>,
) -> Result<Vec<usize>, String> {
    Attrs::of_op(r.ctx, r.op)
        .ints(name)?
        .ok_or_else(|| format!("requires '{name}'"))?
        .iter()
        .map(|v| {
            if is_dyn(*v) {
                index(dynamic.next().ok_or("missing a dynamic entry")?)
            } else {
                usize::try_from(*v).map_err(|_| format!("negative entry in '{name}'"))
            }
        })
        .collect()
}

/// Every index of `shape`, row-major.
pub(super) fn all_indices(shape: &[usize]) -> Vec<Vec<usize>> {
    let n: usize = shape.iter().product();
    let mut out = Vec::with_capacity(n);
    let mut index = vec![0usize; shape.len()];
    for _ in 0..n {
        out.push(index.clone());
        for d in (0..index.len()).rev() {
            index[d] += 1;
            if index[d] < shape[d] {
                break;
            }
            index[d] = 0;
        }
    }
    out
}

/// The flat position of `index` in a row-major tensor of `shape`.
pub(super) fn flat(shape: &[usize], index: &[usize]) -> usize {
    row_major(shape).iter().zip(index).map(|(s, i)| s * i).sum()
}

/// An error unless `at` is an index of `shape`.
pub(super) fn check_in_bounds(shape: &[usize], at: &[usize]) -> Result<(), String> {
    if at.len() != shape.len() || at.iter().zip(shape).any(|(i, n)| i >= n) {
        return Err(format!("index {at:?} is out of bounds for shape {shape:?}"));
    }
    Ok(())
}
