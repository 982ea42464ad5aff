//! Constant folding of graph ops on whole constant tensors (weights): elementwise
//! unary ops and binary ops with numpy broadcasting. Floats are computed in `f64` and
//! rounded to the element type once; integers follow ONNX (division truncates toward
//! zero, and division by zero is left unfolded).

use acc_ir::elements::{self, DenseBuilder, DenseView, ElementKind, Scalar};
use acc_ir::minifloat::MiniFloat;
use acc_ir::{AttrId, Context, FoldResult, OpRef, TypeId};

use crate::math_functions::{library_function, math_of_graph};
use crate::ops::graph;

/// The `graph` kind named by `op`'s name without its dialect: the folders are hooks
/// that a dialect loaded at run time may name too, and they fold its ops as the
/// `graph` op of the same short name (`None`: no such op, nothing folds).
fn kind_of(op: OpRef<'_>, ctx: &Context) -> Option<graph::Op> {
    let full = ctx.op_name_str(op.name());
    let short = full.rsplit('.').next().unwrap_or(full);
    graph::Op::ALL
        .iter()
        .copied()
        .find(|k| k.short_name() == short)
}

/// Evaluates an elementwise unary graph op (`relu`, `sqrt`, ...) on one element;
/// `None` for ops it does not know or integer overflow.
pub fn unary_eval(op: graph::Op, v: Scalar) -> Option<Scalar> {
    Some(match v {
        Scalar::Float(x) => Scalar::Float(match op {
            graph::Op::Relu => x.max(0.0),
            graph::Op::Neg => -x,
            graph::Op::Abs => x.abs(),
            graph::Op::Sqrt => x.sqrt(),
            graph::Op::Floor => x.floor(),
            graph::Op::Ceil => x.ceil(),
            graph::Op::Round => x.round_ties_even(),
            graph::Op::Exp => x.exp(),
            graph::Op::Log => x.ln(),
            graph::Op::Tanh => x.tanh(),
            graph::Op::Sigmoid => 1.0 / (1.0 + (-x).exp()),
            // The trigonometric and hyperbolic functions.
            _ => (library_function(math_of_graph(op)?)?.eval)(x),
        }),
        Scalar::Int(x) => Scalar::Int(match op {
            graph::Op::Relu => x.max(0),
            graph::Op::Not => i128::from(x == 0),
            graph::Op::Neg => x.checked_neg()?,
            graph::Op::Abs => x.checked_abs()?,
            // Wrapped to the element type by its normalization.
            graph::Op::BitwiseNot => !x,
            _ => return None,
        }),
    })
}

/// An elementwise binary graph op, resolved from its kind once, so that work over
/// many elements matches the few binary ops only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    /// `add`.
    Add,
    /// `sub`.
    Sub,
    /// `mul`.
    Mul,
    /// `div` (integers truncate toward zero).
    Div,
    /// `pow`.
    Pow,
    /// `max`.
    Max,
    /// `min`.
    Min,
    /// `equal` (a boolean result; floats: a NaN compares false).
    Equal,
    /// `less`.
    Less,
    /// `greater`.
    Greater,
    /// `less_equal`.
    LessEqual,
    /// `greater_equal`.
    GreaterEqual,
    /// `and` (booleans).
    And,
    /// `or`.
    Or,
    /// `xor`.
    Xor,
    /// `mod`: the remainder with the divisor's sign (numpy.mod).
    Mod,
    /// `fmod`: the remainder with the dividend's sign (C's fmod).
    Fmod,
    /// `bitwise_and`.
    BitAnd,
    /// `bitwise_or`.
    BitOr,
    /// `bitwise_xor`.
    BitXor,
    /// `shift_left` (needs the element width: [`BinaryOp::eval_in`]).
    ShiftLeft,
    /// `shift_right` (needs the element width: [`BinaryOp::eval_in`]).
    ShiftRight,
}

impl BinaryOp {
    /// The binary op of kind `op` (`graph.add`, `graph.div`, ...), if it is one.
    pub fn of(op: graph::Op) -> Option<BinaryOp> {
        Some(match op {
            graph::Op::Add => BinaryOp::Add,
            graph::Op::Sub => BinaryOp::Sub,
            graph::Op::Mul => BinaryOp::Mul,
            graph::Op::Div => BinaryOp::Div,
            graph::Op::Pow => BinaryOp::Pow,
            graph::Op::Max => BinaryOp::Max,
            graph::Op::Min => BinaryOp::Min,
            graph::Op::Equal => BinaryOp::Equal,
            graph::Op::Less => BinaryOp::Less,
            graph::Op::Greater => BinaryOp::Greater,
            graph::Op::LessEqual => BinaryOp::LessEqual,
            graph::Op::GreaterEqual => BinaryOp::GreaterEqual,
            graph::Op::And => BinaryOp::And,
            graph::Op::Or => BinaryOp::Or,
            graph::Op::Xor => BinaryOp::Xor,
            graph::Op::Mod => BinaryOp::Mod,
            graph::Op::Fmod => BinaryOp::Fmod,
            graph::Op::BitwiseAnd => BinaryOp::BitAnd,
            graph::Op::BitwiseOr => BinaryOp::BitOr,
            graph::Op::BitwiseXor => BinaryOp::BitXor,
            graph::Op::ShiftLeft => BinaryOp::ShiftLeft,
            graph::Op::ShiftRight => BinaryOp::ShiftRight,
            _ => return None,
        })
    }

    /// The op on one pair of elements of kind `kind` (the operands' element kind):
    /// [`BinaryOp::eval`], and the shifts, whose results depend on the width. A shift
    /// amount is read as unsigned; shifting by the width or more shifts every bit
    /// out (0, or -1 for a negative signed value shifted right).
    pub fn eval_in(self, kind: ElementKind, a: Scalar, b: Scalar) -> Option<Scalar> {
        let (ElementKind::Int(width, _), Scalar::Int(x), Scalar::Int(y)) = (kind, a, b) else {
            return self.eval(a, b);
        };
        let amount = elements::normalize_int(y, width, acc_ir::Signedness::Unsigned);
        let bits = u32::try_from(amount).ok().filter(|n| *n < width);
        Some(Scalar::Int(match self {
            // Wrapped to the width by the element type's normalization.
            BinaryOp::ShiftLeft => bits.map_or(0, |n| x << n),
            // `x` is normalized to its type: zero-extended when unsigned, else
            // sign-extended (signless integers are signed at the graph level, as
            // ONNX's), so an arithmetic shift of it fills with the right bit.
            BinaryOp::ShiftRight => x >> bits.unwrap_or(width.min(127)),
            _ => return self.eval(a, b),
        }))
    }

    /// The op on one pair of elements; `None` for mixed kinds, integer overflow,
    /// integer division or remainder by zero, integer powers with a negative
    /// exponent, and the shifts (see [`BinaryOp::eval_in`]).
    pub fn eval(self, a: Scalar, b: Scalar) -> Option<Scalar> {
        if let Some(holds) = self.compare(a, b) {
            return Some(Scalar::Int(holds.into()));
        }
        Some(match (a, b) {
            (Scalar::Float(x), Scalar::Float(y)) => Scalar::Float(match self {
                BinaryOp::Add => x + y,
                BinaryOp::Sub => x - y,
                BinaryOp::Mul => x * y,
                BinaryOp::Div => x / y,
                BinaryOp::Pow => x.powf(y),
                BinaryOp::Max => x.max(y),
                BinaryOp::Min => x.min(y),
                // Rust's `%` on floats is C's fmod: exact.
                BinaryOp::Fmod => x % y,
                BinaryOp::Mod => floored_remainder(x, y),
                _ => return None,
            }),
            (Scalar::Int(x), Scalar::Int(y)) => Scalar::Int(match self {
                BinaryOp::Add => x.checked_add(y)?,
                BinaryOp::Sub => x.checked_sub(y)?,
                BinaryOp::Mul => x.checked_mul(y)?,
                BinaryOp::Div => x.checked_div(y)?,
                BinaryOp::Pow => x.checked_pow(u32::try_from(y).ok()?)?,
                BinaryOp::Max => x.max(y),
                BinaryOp::Min => x.min(y),
                BinaryOp::And => i128::from(x != 0 && y != 0),
                BinaryOp::Or => i128::from(x != 0 || y != 0),
                BinaryOp::Xor => i128::from((x != 0) != (y != 0)),
                BinaryOp::Fmod => x.checked_rem(y)?,
                BinaryOp::Mod => {
                    let r = x.checked_rem(y)?;
                    if r != 0 && (r < 0) != (y < 0) {
                        r + y
                    } else {
                        r
                    }
                }
                BinaryOp::BitAnd => x & y,
                BinaryOp::BitOr => x | y,
                BinaryOp::BitXor => x ^ y,
                _ => return None,
            }),
            _ => return None,
        })
    }
}

impl BinaryOp {
    /// A comparison's truth on `a` and `b` (`None`: not a comparison, or elements of
    /// different kinds).
    fn compare(self, a: Scalar, b: Scalar) -> Option<bool> {
        let order = match (a, b) {
            (Scalar::Float(x), Scalar::Float(y)) => x.partial_cmp(&y),
            (Scalar::Int(x), Scalar::Int(y)) => Some(x.cmp(&y)),
            _ => return None,
        };
        let holds = |f: fn(std::cmp::Ordering) -> bool| order.is_some_and(f);
        Some(match self {
            BinaryOp::Equal => holds(|o| o.is_eq()),
            BinaryOp::Less => holds(|o| o.is_lt()),
            BinaryOp::Greater => holds(|o| o.is_gt()),
            BinaryOp::LessEqual => holds(|o| o.is_le()),
            BinaryOp::GreaterEqual => holds(|o| o.is_ge()),
            _ => return None,
        })
    }
}

/// numpy.mod of two floats: C's fmod, moved by one divisor when its sign differs
/// from the divisor's; a zero remainder takes the divisor's sign.
fn floored_remainder(x: f64, y: f64) -> f64 {
    let r = x % y;
    if r == 0.0 {
        return 0.0_f64.copysign(y);
    }
    if (r < 0.0) != (y < 0.0) { r + y } else { r }
}

/// Evaluates an elementwise binary graph op (`add`, `div`, ...) on one pair of
/// elements; `None` for other kinds and where [`BinaryOp::eval`] gives none.
pub fn binary_eval(op: graph::Op, a: Scalar, b: Scalar) -> Option<Scalar> {
    BinaryOp::of(op)?.eval(a, b)
}

/// The static shape of a dense constant.
fn shape_of(ctx: &Context, ty: TypeId) -> Option<Vec<i64>> {
    let shape = ctx.type_data(ty).shape()?;
    shape.iter().all(|s| *s >= 0).then(|| shape.to_vec())
}

/// The strides (in elements) with which an operand of shape `shape` is read for each
/// dimension of `out` under numpy broadcasting: 0 where it broadcasts. `None` when the
/// shapes do not broadcast.
pub fn broadcast_strides(shape: &[i64], out: &[i64]) -> Option<Vec<usize>> {
    if shape.len() > out.len() {
        return None;
    }
    let lead = out.len() - shape.len();
    let mut strides = vec![0usize; out.len()];
    let mut stride = 1usize;
    for (i, &d) in shape.iter().enumerate().rev() {
        if d == out[lead + i] {
            strides[lead + i] = stride;
        } else if d != 1 {
            return None;
        }
        stride = stride.checked_mul(usize::try_from(d).ok()?)?;
    }
    Some(strides)
}

/// Calls `visit` with the offsets two operands are read at, for each element of an
/// output of shape `out` (static: no negative dimension) in row-major order; `sa` and
/// `sb` are their [`broadcast_strides`]. Offsets advance incrementally, with no index
/// vectors. Stops with `None` at the first `None` from `visit`.
fn for_each_broadcast_pair(
    out: &[i64],
    sa: &[usize],
    sb: &[usize],
    mut visit: impl FnMut(usize, usize) -> Option<()>,
) -> Option<()> {
    let dims: Vec<usize> = out.iter().map(|d| *d as usize).collect();
    if dims.contains(&0) {
        return Some(());
    }
    let mut counter = vec![0usize; dims.len()];
    let (mut ia, mut ib) = (0usize, 0usize);
    loop {
        visit(ia, ib)?;
        let mut d = dims.len();
        loop {
            if d == 0 {
                return Some(());
            }
            d -= 1;
            counter[d] += 1;
            ia += sa[d];
            ib += sb[d];
            if counter[d] < dims[d] {
                break;
            }
            ia -= sa[d] * dims[d];
            ib -= sb[d] * dims[d];
            counter[d] = 0;
        }
    }
}

/// For each element of `out` (a static shape), the index of the element of an operand
/// of shape `shape` that numpy broadcasting reads; `None` when the shapes do not
/// broadcast.
pub fn broadcast_index(shape: &[i64], out: &[i64]) -> Option<Vec<usize>> {
    let strides = broadcast_strides(shape, out)?;
    let n: usize = out.iter().map(|d| *d as usize).product();
    let mut index = Vec::with_capacity(n);
    for_each_broadcast_pair(out, &strides, &strides, |i, _| {
        index.push(i);
        Some(())
    })?;
    Some(index)
}

/// Constants folded here stay below this size; a larger result is left to run time.
const MAX_FOLDED_BYTES: usize = 1 << 30;

/// The element count of a folded result of static shape `shape`, when its bytes stay
/// within [`MAX_FOLDED_BYTES`].
fn folded_count(shape: &[i64], kind: ElementKind) -> Option<usize> {
    let n = shape
        .iter()
        .try_fold(1usize, |n, d| n.checked_mul(usize::try_from(*d).ok()?))?;
    (n.checked_mul(kind.bytes())? <= MAX_FOLDED_BYTES).then_some(n)
}

/// Folds an elementwise unary graph op on a constant.
pub(crate) fn fold_unary(
    op: OpRef<'_>,
    consts: &[Option<AttrId>],
    ctx: &Context,
) -> Option<Vec<FoldResult>> {
    let unary = kind_of(op, ctx);
    let out = *op.result_types().first()?;
    let input = elements::dense_view(ctx, consts.first().copied()??)?;
    let kind = ElementKind::of(ctx, ctx.type_data(out).element_type()?)?;
    let mut result = DenseBuilder::new(kind, input.stored());
    for i in 0..input.stored() {
        result.push(unary.and_then(|u| unary_eval(u, input.get(i)))?);
    }
    let attr = result.finish(ctx, out)?;
    Some(vec![FoldResult::Attr(attr)])
}

/// Folds an elementwise binary graph op (numpy broadcasting) on two constants.
pub(crate) fn fold_binary(
    op: OpRef<'_>,
    consts: &[Option<AttrId>],
    ctx: &Context,
) -> Option<Vec<FoldResult>> {
    let binary = kind_of(op, ctx).and_then(BinaryOp::of)?;
    let out = *op.result_types().first()?;
    let out_shape = shape_of(ctx, out)?;
    let kind = ElementKind::of(ctx, ctx.type_data(out).element_type()?)?;
    let a = elements::dense_view(ctx, consts.first().copied()??)?;
    let b = elements::dense_view(ctx, consts.get(1).copied()??)?;
    let operand_kind = a.kind;
    let eval = |x: Scalar, y: Scalar| binary.eval_in(operand_kind, x, y);
    if a.splat && b.splat {
        let mut result = DenseBuilder::new(kind, 1);
        result.push(eval(a.get(0), b.get(0))?);
        return Some(vec![FoldResult::Attr(result.finish(ctx, out)?)]);
    }
    let strides = |d: &DenseView<'_>| -> Option<Vec<usize>> {
        if d.splat {
            return Some(vec![0; out_shape.len()]);
        }
        broadcast_strides(&shape_of(ctx, d.ty)?, &out_shape)
    };
    let (sa, sb) = (strides(&a)?, strides(&b)?);
    let n = folded_count(&out_shape, kind)?;
    let mut result = DenseBuilder::new(kind, n);
    for_each_broadcast_pair(&out_shape, &sa, &sb, |i, j| {
        result.push(eval(a.get(i), b.get(j))?);
        Some(())
    })?;
    Some(vec![FoldResult::Attr(result.finish(ctx, out)?)])
}

/// For each element of `shape` transposed by `perm` (row-major), the index of the input
/// element it holds. `perm` must be a permutation of `0..shape.len()`.
pub fn transpose_indices(shape: &[usize], perm: &[usize]) -> Vec<usize> {
    let rank = shape.len();
    let mut strides = vec![1usize; rank];
    for d in (0..rank.saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1];
    }
    let out_shape: Vec<usize> = perm.iter().map(|d| shape[*d]).collect();
    let out_strides: Vec<usize> = perm.iter().map(|d| strides[*d]).collect();
    let n: usize = shape.iter().product();
    let mut index = Vec::with_capacity(n);
    let mut counter = vec![0usize; rank];
    for _ in 0..n {
        index.push(counter.iter().zip(&out_strides).map(|(c, s)| c * s).sum());
        for d in (0..rank).rev() {
            counter[d] += 1;
            if counter[d] < out_shape[d] {
                break;
            }
            counter[d] = 0;
        }
    }
    index
}

/// Folds `graph.transpose`: an identity permutation gives the input back; a constant
/// input gives the permuted constant (weights laid out at compile time).
pub(crate) fn fold_transpose(
    op: OpRef<'_>,
    consts: &[Option<AttrId>],
    ctx: &Context,
) -> Option<Vec<FoldResult>> {
    let input = op.operands().next()?;
    let out = *op.result_types().first()?;
    let in_ty = *op.operand_types().first()?;
    let in_shape = ctx.type_data(in_ty).shape()?.to_vec();
    let rank = in_shape.len();
    let perm: Vec<usize> = match super::attr_read::Attrs::of_op(ctx, op)
        .ints(graph::Transpose::ATTR_PERM)
        .ok()?
    {
        Some(p) => p
            .iter()
            .map(|d| usize::try_from(*d).ok())
            .collect::<Option<_>>()?,
        None => (0..rank).rev().collect(),
    };
    if perm.len() != rank || perm.iter().any(|d| *d >= rank) {
        return None;
    }
    if perm.iter().enumerate().all(|(i, d)| i == *d) && in_ty == out {
        return Some(vec![FoldResult::Value(input)]);
    }
    let dense = elements::dense(ctx, consts.first().copied()??)?;
    if dense.splat {
        let attr = elements::dense_attr(ctx, out, &[dense.get(0)])?;
        return Some(vec![FoldResult::Attr(attr)]);
    }
    if in_shape.iter().any(|d| *d < 0) {
        return None;
    }
    let shape: Vec<usize> = in_shape.iter().map(|d| *d as usize).collect();
    let values: Vec<Scalar> = transpose_indices(&shape, &perm)
        .into_iter()
        .map(|at| dense.get(at))
        .collect();
    let attr = elements::dense_attr(ctx, out, &values)?;
    Some(vec![FoldResult::Attr(attr)])
}

/// `graph.cast` of `x` to the small float `kind` (f8, f4; see [`MiniFloat`]), as ONNX's
/// Cast computes it: rounded to nearest even, beyond the range to the format's
/// infinity or NaN, or with `saturate` to its largest finite value; to `f8E8M0FNU`,
/// ONNX's exponent rule with `rounding`. `None` when `kind` is not a small float.
pub fn cast_to_small_float(
    x: f64,
    kind: acc_ir::FloatKind,
    saturate: bool,
    rounding: acc_ir::minifloat::ScaleRounding,
) -> Option<f64> {
    let format = MiniFloat::of(kind)?;
    let bits = if kind == acc_ir::FloatKind::F8E8M0FNU {
        acc_ir::minifloat::e8m0_from_f32(x as f32, rounding, saturate)
    } else {
        format.encode(x, saturate)
    };
    Some(format.decode(bits))
}

/// The `round_mode` of a `graph.cast` (ONNX's default, up, when absent).
pub fn cast_rounding(ctx: &Context, op: OpRef<'_>) -> acc_ir::minifloat::ScaleRounding {
    use acc_ir::minifloat::ScaleRounding;
    match op.attr(ctx, graph::Cast::ATTR_ROUND_MODE) {
        Some(a) => {
            let text = acc_ir::printer::attr_to_string(ctx, a);
            if text.contains("nearest") {
                ScaleRounding::Nearest
            } else if text.contains("down") {
                ScaleRounding::Down
            } else {
                ScaleRounding::Up
            }
        }
        None => ScaleRounding::Up,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasting_reads_the_right_elements() {
        // [2,1] against [2,3]: each row repeats its one element.
        assert_eq!(
            broadcast_index(&[2, 1], &[2, 3]),
            Some(vec![0, 0, 0, 1, 1, 1])
        );
        // [3] against [2,3]: the row repeats.
        assert_eq!(broadcast_index(&[3], &[2, 3]), Some(vec![0, 1, 2, 0, 1, 2]));
        assert_eq!(broadcast_index(&[2], &[2, 3]), None);
    }

    #[test]
    fn integer_division_by_zero_does_not_fold() {
        assert_eq!(
            binary_eval(graph::Op::Div, Scalar::Int(1), Scalar::Int(0)),
            None
        );
        assert_eq!(
            binary_eval(graph::Op::Div, Scalar::Int(-7), Scalar::Int(2)),
            Some(Scalar::Int(-3))
        );
    }

    /// Incremental offsets agree with the row-major definition, for a broadcast
    /// in the middle and at the front.
    #[test]
    fn broadcast_pairs_follow_numpy() {
        let out = [2i64, 3, 4];
        let sa = broadcast_strides(&[2, 1, 4], &out).unwrap();
        let sb = broadcast_strides(&[3, 1], &out).unwrap();
        let mut pairs = Vec::new();
        let walked = for_each_broadcast_pair(&out, &sa, &sb, |i, j| {
            pairs.push((i, j));
            Some(())
        });
        assert_eq!(walked, Some(()));
        let mut want = Vec::new();
        for a in 0..2 {
            for b in 0..3 {
                for c in 0..4 {
                    want.push((a * 4 + c, b));
                }
            }
        }
        assert_eq!(pairs, want);
        // A stop from the visitor ends the walk with None.
        let mut seen = 0;
        assert_eq!(
            for_each_broadcast_pair(&out, &sa, &sb, |_, _| {
                seen += 1;
                (seen < 5).then_some(())
            }),
            None
        );
        assert_eq!(seen, 5);
    }
}
