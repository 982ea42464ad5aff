//! Rust hooks of the `arith` dialect (`defs/arith.acc`): result inference for
//! constants and comparisons, folders, the cast verifiers, and the custom form of
//! `arith.select`, whose condition type is written only when it is not `i1`.
//!
//! Folders follow MLIR's: they evaluate ops whose operands are all constant (scalars
//! or dense elements) and apply identities that need no new op (`x + 0 -> x`). They
//! never fold what would be undefined (division by zero, signed overflow of
//! `divsi`, out-of-range float to integer conversions, oversized shifts).

use acc_ir::attrs::AttrData;
use acc_ir::elements::{self, ElementKind, Scalar};
use acc_ir::parser::lexer::Tok;
use acc_ir::parser::{CustomParse, OperationState, PResult};
use acc_ir::printer::OpPrinter;
use acc_ir::{
    AttrId, Context, CustomSyntax, DiagLoc, Diagnostic, FoldResult, InferInput, OpRef, Signedness,
    TypeData, TypeId,
};

use super::fold::{elementwise, splat_like};
use crate::ops::arith;
use crate::syntax::{print_remaining_attrs, remaining_attrs};

/// `arith.constant`: the result has the value's type.
pub(crate) fn infer_constant(
    ctx: &Context,
    input: &InferInput<'_>,
) -> Result<Vec<TypeData>, String> {
    // arith.constant and graph.constant share the attribute name.
    let value = input
        .attr(ctx, arith::Constant::ATTR_VALUE)
        .ok_or("requires attribute 'value'")?;
    let ty = match ctx.attr_data(value) {
        AttrData::Integer { ty, .. }
        | AttrData::WideInteger { ty, .. }
        | AttrData::Float { ty, .. } => *ty,
        AttrData::DenseElements { ty, .. }
        | AttrData::DenseResource { ty, .. }
        | AttrData::Sparse { ty, .. } => *ty,
        _ => return Err("attribute 'value' must be a typed number or dense elements".into()),
    };
    Ok(vec![ctx.type_data(ty).clone()])
}

/// The `i1` type of the shape of `t`: what comparisons give.
pub(crate) fn bool_like(ctx: &Context, t: TypeId) -> Result<TypeData, String> {
    let i1 = ctx
        .lookup_type(&TypeData::Integer {
            width: 1,
            signedness: Signedness::Signless,
        })
        .ok_or("i1 is missing from the context")?;
    Ok(match ctx.type_data(t) {
        TypeData::Vector {
            shape, scalable, ..
        } => TypeData::Vector {
            shape: shape.clone(),
            scalable: scalable.clone(),
            element: i1,
        },
        TypeData::RankedTensor {
            shape, encoding, ..
        } => TypeData::RankedTensor {
            shape: shape.clone(),
            element: i1,
            encoding: *encoding,
        },
        TypeData::UnrankedTensor(_) => TypeData::UnrankedTensor(i1),
        _ => ctx.type_data(i1).clone(),
    })
}

/// `arith.cmpi` / `arith.cmpf`: `i1` of the operands' shape.
pub(crate) fn infer_compare(
    ctx: &Context,
    input: &InferInput<'_>,
) -> Result<Vec<TypeData>, String> {
    let lhs = input.operand_types.first().ok_or("expects two operands")?;
    Ok(vec![bool_like(ctx, *lhs)?])
}

pub(crate) fn fold_constant(
    op: OpRef<'_>,
    _consts: &[Option<AttrId>],
    ctx: &Context,
) -> Option<Vec<FoldResult>> {
    // arith.constant and graph.constant share the attribute name.
    op.attr(ctx, arith::Constant::ATTR_VALUE)
        .map(|v| vec![FoldResult::Attr(v)])
}

/// The element width and signedness view of an integer-like type.
fn int_info(ctx: &Context, t: TypeId) -> Option<(u32, Signedness)> {
    let element = ctx.type_data(t).element_type().unwrap_or(t);
    match ElementKind::of(ctx, element)? {
        ElementKind::Int(w, s) => Some((w, s)),
        ElementKind::Float(_) => None,
    }
}

/// `v` (held sign-extended) as the unsigned value of its low `width` bits.
pub fn unsigned(v: i128, width: u32) -> u128 {
    if width >= 128 {
        v as u128
    } else {
        (v as u128) & ((1u128 << width) - 1)
    }
}

/// `v` as a signed value of `width` bits: the held value itself, except that an `i1`
/// (held as 0 or 1) that is true is -1 to signed ops, as in MLIR (`maxsi` of true and
/// false is false, `cmpi slt` of true and false is true).
fn signed_view(v: i128, width: u32) -> i128 {
    if width == 1 { -(v & 1) } else { v }
}

/// Evaluates an integer op (`addi`, `divsi`, ...) on two values of `width` bits;
/// `None` when undefined (division by zero, overflowing division, oversized shift)
/// and for kinds that are not integer binary ops.
pub fn int_eval(op: arith::Op, a: i128, b: i128, width: u32) -> Option<i128> {
    let (ua, ub) = (unsigned(a, width), unsigned(b, width));
    let (a, b) = (signed_view(a, width), signed_view(b, width));
    // The least signed value (i128's own at 128 bits; 0 for i0).
    let min = match width {
        0 => 0,
        128.. => i128::MIN,
        w => -(1i128 << (w - 1)),
    };
    Some(match op {
        arith::Op::Addi => a.wrapping_add(b),
        arith::Op::Subi => a.wrapping_sub(b),
        arith::Op::Muli => a.wrapping_mul(b),
        arith::Op::Andi => a & b,
        arith::Op::Ori => a | b,
        arith::Op::Xori => a ^ b,
        arith::Op::Shli if ub < u128::from(width) => a << ub,
        arith::Op::Shrui if ub < u128::from(width) => (ua >> ub) as i128,
        arith::Op::Shrsi if ub < u128::from(width) => a >> ub,
        arith::Op::Divui if ub != 0 => (ua / ub) as i128,
        arith::Op::Remui if ub != 0 => (ua % ub) as i128,
        arith::Op::Ceildivui if ub != 0 => ua.div_ceil(ub) as i128,
        arith::Op::Divsi if b != 0 && !(a == min && b == -1) => a / b,
        arith::Op::Remsi if b != 0 && !(a == min && b == -1) => a % b,
        arith::Op::Ceildivsi if b != 0 && !(a == min && b == -1) => {
            let q = a / b;
            if a % b != 0 && ((a < 0) == (b < 0)) {
                q + 1
            } else {
                q
            }
        }
        arith::Op::Floordivsi if b != 0 && !(a == min && b == -1) => {
            a.div_euclid(b) - i128::from(a.rem_euclid(b) != 0 && b < 0)
        }
        arith::Op::Maxsi => a.max(b),
        arith::Op::Minsi => a.min(b),
        arith::Op::Maxui => ua.max(ub) as i128,
        arith::Op::Minui => ua.min(ub) as i128,
        _ => return None,
    })
}

/// The `arith` kind named by `op`'s name without its dialect: the folders are hooks
/// that a dialect loaded at run time may name too, and they fold its ops as the
/// `arith` op of the same short name (`None`: no such op, nothing folds).
fn kind_of(op: OpRef<'_>, ctx: &Context) -> Option<arith::Op> {
    let full = ctx.op_name_str(op.name());
    let short = full.split_once('.').map_or(full, |(_, n)| n);
    arith::Op::ALL
        .iter()
        .copied()
        .find(|k| k.short_name() == short)
}

fn is_splat_of(ctx: &Context, c: Option<AttrId>, want: Scalar) -> bool {
    let Some(c) = c else { return false };
    if let Some((_, v)) = elements::scalar(ctx, c) {
        return v == want;
    }
    elements::dense(ctx, c).is_some_and(|d| d.values.iter().all(|v| *v == want))
}

pub(crate) fn fold_int_binary(
    op: OpRef<'_>,
    consts: &[Option<AttrId>],
    ctx: &Context,
) -> Option<Vec<FoldResult>> {
    let kind = kind_of(op, ctx);
    let result_ty = op.result_types().first().copied()?;
    if let TypeData::Integer { width, signedness } = ctx.type_data(result_ty)
        && *width > 64
    {
        return fold_wide_int_binary(op, consts, ctx, kind?, (*width, *signedness));
    }
    let (width, _) = int_info(ctx, result_ty)?;
    let lhs = op.operands().next()?;
    let rhs = op.operands().nth(1)?;
    if let (Some(a), Some(b)) = (consts[0], consts[1]) {
        let folded = elementwise(ctx, &[a, b], result_ty, |v| match (v[0], v[1]) {
            (Scalar::Int(x), Scalar::Int(y)) => {
                kind.and_then(|k| int_eval(k, x, y, width)).map(Scalar::Int)
            }
            _ => None,
        })?;
        return Some(vec![FoldResult::Attr(folded)]);
    }
    let zero = is_splat_of(ctx, consts[1], Scalar::Int(0));
    let one = is_splat_of(ctx, consts[1], Scalar::Int(1));
    let keep_lhs = FoldResult::Value(lhs);
    use arith::Op as K;
    let result = match kind? {
        K::Addi | K::Subi | K::Ori | K::Xori | K::Shli | K::Shrsi | K::Shrui if zero => keep_lhs,
        K::Muli | K::Divsi | K::Divui if one => keep_lhs,
        K::Andi | K::Ori | K::Maxsi | K::Minsi | K::Maxui | K::Minui if lhs == rhs => keep_lhs,
        K::Muli | K::Andi if zero => FoldResult::Attr(consts[1]?),
        K::Subi | K::Xori if lhs == rhs => {
            FoldResult::Attr(splat_like(ctx, result_ty, Scalar::Int(0))?)
        }
        _ => return None,
    };
    Some(vec![result])
}

/// [`fold_int_binary`] on scalar integers wider than 64 bits (up to 128 held as
/// [`AttrData::Integer`], wider as [`AttrData::WideInteger`]), in arbitrary
/// precision: two constants under any integer op of [`wide_int_eval`] give their
/// result wrapped to the width (left alone where MLIR leaves it: a division by zero, a
/// shift by the width or more); `x + 0`, `x - 0`, `x | 0`, `x ^ 0`, `x * 1` give `x`.
fn fold_wide_int_binary(
    op: OpRef<'_>,
    consts: &[Option<AttrId>],
    ctx: &Context,
    kind: arith::Op,
    (width, signedness): (u32, Signedness),
) -> Option<Vec<FoldResult>> {
    use acc_ir::wide_int::BigInt;
    use arith::Op as K;
    let result_ty = op.result_types().first().copied()?;
    let (a, b) = (
        wide_value(ctx, consts[0], width),
        wide_value(ctx, consts[1], width)?,
    );
    if let Some(a) = a {
        let result = wide_int_eval(kind, &a, &b, width)?;
        return Some(vec![FoldResult::Attr(wide_attr(
            ctx, &result, result_ty, width, signedness,
        ))]);
    }
    let keeps_lhs = match kind {
        K::Addi | K::Subi | K::Ori | K::Xori => b == BigInt::from(0),
        K::Muli => b == BigInt::from(1),
        _ => false,
    };
    let lhs = op.operands().next()?;
    keeps_lhs.then(|| vec![FoldResult::Value(lhs)])
}

/// The bit pattern of a scalar integer constant of more than 64 bits, in
/// [0, 2^width).
fn wide_value(ctx: &Context, c: Option<AttrId>, width: u32) -> Option<acc_ir::wide_int::BigInt> {
    use acc_ir::wide_int::{self, BigInt};
    let v = match ctx.attr_data(c?) {
        AttrData::Integer { value, .. } => BigInt::from(*value),
        AttrData::WideInteger { bytes, .. } => wide_int::value(bytes, width, Signedness::Unsigned),
        _ => return None,
    };
    Some(wide_unsigned(&v, width))
}

/// `v` modulo 2^width, in [0, 2^width).
fn wide_unsigned(v: &acc_ir::wide_int::BigInt, width: u32) -> acc_ir::wide_int::BigInt {
    use acc_ir::wide_int::BigInt;
    let modulus = BigInt::from(1) << width;
    let r = v % &modulus;
    if r < BigInt::from(0) { r + modulus } else { r }
}

/// The signed value of the `width`-bit pattern `u` (in [0, 2^width)).
fn wide_signed(u: &acc_ir::wide_int::BigInt, width: u32) -> acc_ir::wide_int::BigInt {
    use acc_ir::wide_int::BigInt;
    if width > 0 && *u >= BigInt::from(1) << (width - 1) {
        u - (BigInt::from(1) << width)
    } else {
        u.clone()
    }
}

/// An integer op on two `width`-bit patterns (in [0, 2^width)), as [`int_eval`] on
/// narrower ones: the result before wrapping; `None` when undefined or not an integer
/// binary op (`ceildivsi` and `floordivsi` are left too).
fn wide_int_eval(
    op: arith::Op,
    a: &acc_ir::wide_int::BigInt,
    b: &acc_ir::wide_int::BigInt,
    width: u32,
) -> Option<acc_ir::wide_int::BigInt> {
    use acc_ir::wide_int::BigInt;
    use arith::Op as K;
    let (sa, sb) = (wide_signed(a, width), wide_signed(b, width));
    let zero = BigInt::from(0);
    let shift = || u32::try_from(b).ok().filter(|s| *s < width);
    let least = -(BigInt::from(1) << (width - 1));
    let signed_division = *b != zero && !(sa == least && sb == BigInt::from(-1));
    Some(match op {
        K::Addi => a + b,
        K::Subi => a - b,
        K::Muli => a * b,
        K::Andi => a & b,
        K::Ori => a | b,
        K::Xori => a ^ b,
        K::Maxsi => sa.max(sb),
        K::Minsi => sa.min(sb),
        K::Maxui => a.max(b).clone(),
        K::Minui => a.min(b).clone(),
        K::Shli => a << shift()?,
        K::Shrui => a >> shift()?,
        K::Shrsi => sa >> shift()?,
        K::Divui if *b != zero => a / b,
        K::Remui if *b != zero => a % b,
        // num-bigint's division truncates toward zero, as MLIR's.
        K::Divsi if signed_division => sa / sb,
        K::Remsi if signed_division => sa % sb,
        _ => return None,
    })
}

/// A scalar integer attribute of type `ty` holding `v` wrapped to `width` bits.
fn wide_attr(
    ctx: &Context,
    v: &acc_ir::wide_int::BigInt,
    ty: TypeId,
    width: u32,
    signedness: Signedness,
) -> AttrId {
    let bytes = acc_ir::wide_int::wrapped(v, width, signedness);
    if width > 128 {
        return ctx.intern_attr(AttrData::WideInteger { bytes, ty });
    }
    let mut raw = [0u8; 16];
    raw[..bytes.len().min(16)].copy_from_slice(&bytes[..bytes.len().min(16)]);
    let value = elements::normalize_int(u128::from_le_bytes(raw) as i128, width, signedness);
    ctx.intern_attr(AttrData::Integer { value, ty })
}

/// Evaluates a float op (`addf`, `maximumf`, ...); the caller rounds the result to
/// the type. `None` for kinds that are not float binary ops.
pub fn float_eval(op: arith::Op, a: f64, b: f64) -> Option<f64> {
    Some(match op {
        arith::Op::Addf => a + b,
        arith::Op::Subf => a - b,
        arith::Op::Mulf => a * b,
        arith::Op::Divf => a / b,
        arith::Op::Remf => a % b,
        arith::Op::Maximumf if a.is_nan() || b.is_nan() => f64::NAN,
        arith::Op::Minimumf if a.is_nan() || b.is_nan() => f64::NAN,
        // -0.0 < +0.0 for maximumf / minimumf.
        arith::Op::Maximumf if a == b => {
            if a.is_sign_negative() {
                b
            } else {
                a
            }
        }
        arith::Op::Minimumf if a == b => {
            if a.is_sign_negative() {
                a
            } else {
                b
            }
        }
        arith::Op::Maximumf | arith::Op::Maxnumf => a.max(b),
        arith::Op::Minimumf | arith::Op::Minnumf => a.min(b),
        _ => return None,
    })
}

pub(crate) fn fold_float_binary(
    op: OpRef<'_>,
    consts: &[Option<AttrId>],
    ctx: &Context,
) -> Option<Vec<FoldResult>> {
    let kind = kind_of(op, ctx);
    let result_ty = op.result_types().first().copied()?;
    if let (Some(a), Some(b)) = (consts[0], consts[1]) {
        let folded = elementwise(ctx, &[a, b], result_ty, |v| match (v[0], v[1]) {
            (Scalar::Float(x), Scalar::Float(y)) => {
                kind.and_then(|k| float_eval(k, x, y)).map(Scalar::Float)
            }
            _ => None,
        })?;
        return Some(vec![FoldResult::Attr(folded)]);
    }
    let lhs = op.operands().next()?;
    let rhs_is = |want: f64| {
        consts[1].is_some_and(|c| {
            let check = |v: &Scalar| matches!(v, Scalar::Float(f) if f.to_bits() == want.to_bits());
            match elements::scalar(ctx, c) {
                Some((_, v)) => check(&v),
                None => elements::dense(ctx, c).is_some_and(|d| d.values.iter().all(check)),
            }
        })
    };
    let identity = match kind {
        Some(arith::Op::Addf) => rhs_is(-0.0),
        Some(arith::Op::Subf) => rhs_is(0.0),
        Some(arith::Op::Mulf | arith::Op::Divf) => rhs_is(1.0),
        _ => false,
    };
    identity.then(|| vec![FoldResult::Value(lhs)])
}

pub(crate) fn fold_float_unary(
    op: OpRef<'_>,
    consts: &[Option<AttrId>],
    ctx: &Context,
) -> Option<Vec<FoldResult>> {
    let result_ty = op.result_types().first().copied()?;
    let folded = elementwise(ctx, &[consts[0]?], result_ty, |v| match v[0] {
        Scalar::Float(x) => Some(Scalar::Float(-x)),
        _ => None,
    })?;
    Some(vec![FoldResult::Attr(folded)])
}

/// The case name of an op's `predicate` attribute of enum `enum_name`.
pub fn predicate(op: OpRef<'_>, ctx: &Context, enum_name: &str) -> Option<String> {
    // cmpi and cmpf share the attribute name.
    let attr = op.attr(ctx, arith::Cmpi::ATTR_PREDICATE)?;
    let def = ctx.enum_attr(enum_name)?;
    let cases = def.decode(ctx, enum_name, attr)?;
    Some(def.cases[cases[0]].clone())
}

/// Compares two integers of `width` bits by an `arith.cmpi` predicate name.
pub fn cmpi_eval(pred: &str, a: i128, b: i128, width: u32) -> Option<bool> {
    let unsigned_pair = (unsigned(a, width), unsigned(b, width));
    compare(
        pred,
        (signed_view(a, width), signed_view(b, width)),
        unsigned_pair,
    )
}

/// The `cmpi` predicate `pred` on two integers given by their signed and unsigned
/// values (`None` for an unknown predicate).
fn compare<S: Ord, U: Ord>(pred: &str, (sa, sb): (S, S), (ua, ub): (U, U)) -> Option<bool> {
    Some(match pred {
        "eq" => ua == ub,
        "ne" => ua != ub,
        "slt" => sa < sb,
        "sle" => sa <= sb,
        "sgt" => sa > sb,
        "sge" => sa >= sb,
        "ult" => ua < ub,
        "ule" => ua <= ub,
        "ugt" => ua > ub,
        "uge" => ua >= ub,
        _ => return None,
    })
}

fn bool_scalar(b: bool) -> Scalar {
    Scalar::Int(i128::from(b))
}

pub(crate) fn fold_cmpi(
    op: OpRef<'_>,
    consts: &[Option<AttrId>],
    ctx: &Context,
) -> Option<Vec<FoldResult>> {
    let pred = predicate(op, ctx, arith::enums::CMPI_PREDICATE)?;
    let result_ty = op.result_types().first().copied()?;
    let operand_ty = op.operand_types().first().copied()?;
    if let TypeData::Integer { width, .. } = *ctx.type_data(operand_ty)
        && width > 64
    {
        // Scalars only, in arbitrary precision.
        let (a, b) = (
            wide_value(ctx, consts[0], width)?,
            wide_value(ctx, consts[1], width)?,
        );
        let signed = (wide_signed(&a, width), wide_signed(&b, width));
        let r = compare(&pred, signed, (a, b))?;
        return Some(vec![FoldResult::Attr(splat_like(
            ctx,
            result_ty,
            bool_scalar(r),
        )?)]);
    }
    let (width, _) = int_info(ctx, operand_ty)?;
    let (lhs, rhs) = (op.operands().next()?, op.operands().nth(1)?);
    if lhs == rhs {
        let same = matches!(pred.as_str(), "eq" | "sle" | "sge" | "ule" | "uge");
        return Some(vec![FoldResult::Attr(splat_like(
            ctx,
            result_ty,
            bool_scalar(same),
        )?)]);
    }
    let folded = elementwise(ctx, &[consts[0]?, consts[1]?], result_ty, |v| {
        match (v[0], v[1]) {
            (Scalar::Int(a), Scalar::Int(b)) => cmpi_eval(&pred, a, b, width).map(bool_scalar),
            _ => None,
        }
    })?;
    Some(vec![FoldResult::Attr(folded)])
}

/// Compares two floats by an `arith.cmpf` predicate name (NaN makes a pair unordered).
pub fn cmpf_eval(pred: &str, a: f64, b: f64) -> Option<bool> {
    let unordered = a.is_nan() || b.is_nan();
    let ordered = |r: bool| !unordered && r;
    let or_unordered = |r: bool| unordered || r;
    Some(match pred {
        "false" => false,
        "true" => true,
        "oeq" => ordered(a == b),
        "ogt" => ordered(a > b),
        "oge" => ordered(a >= b),
        "olt" => ordered(a < b),
        "ole" => ordered(a <= b),
        "one" => ordered(a != b),
        "ord" => !unordered,
        "ueq" => or_unordered(a == b),
        "ugt" => or_unordered(a > b),
        "uge" => or_unordered(a >= b),
        "ult" => or_unordered(a < b),
        "ule" => or_unordered(a <= b),
        "une" => or_unordered(a != b),
        "uno" => unordered,
        _ => return None,
    })
}

pub(crate) fn fold_cmpf(
    op: OpRef<'_>,
    consts: &[Option<AttrId>],
    ctx: &Context,
) -> Option<Vec<FoldResult>> {
    let pred = predicate(op, ctx, arith::enums::CMPF_PREDICATE)?;
    let result_ty = op.result_types().first().copied()?;
    if matches!(pred.as_str(), "true" | "false") {
        return Some(vec![FoldResult::Attr(splat_like(
            ctx,
            result_ty,
            bool_scalar(pred == "true"),
        )?)]);
    }
    let folded = elementwise(ctx, &[consts[0]?, consts[1]?], result_ty, |v| {
        match (v[0], v[1]) {
            (Scalar::Float(a), Scalar::Float(b)) => cmpf_eval(&pred, a, b).map(bool_scalar),
            _ => None,
        }
    })?;
    Some(vec![FoldResult::Attr(folded)])
}

pub(crate) fn fold_select(
    op: OpRef<'_>,
    consts: &[Option<AttrId>],
    ctx: &Context,
) -> Option<Vec<FoldResult>> {
    let mut operands = op.operands();
    let (_, a, b) = (operands.next()?, operands.next()?, operands.next()?);
    if a == b {
        return Some(vec![FoldResult::Value(a)]);
    }
    if is_splat_of(ctx, consts[0], Scalar::Int(1)) {
        return Some(vec![FoldResult::Value(a)]);
    }
    if is_splat_of(ctx, consts[0], Scalar::Int(0)) {
        return Some(vec![FoldResult::Value(b)]);
    }
    None
}

/// Converts one value between element kinds as the cast `op` does; `None` when the
/// result is poison (an out-of-range float to integer) and for kinds that are not
/// casts.
pub fn cast_eval(op: arith::Op, v: Scalar, from: ElementKind, to: ElementKind) -> Option<Scalar> {
    let in_unsigned = |x: i128| match from {
        ElementKind::Int(w, _) => unsigned(x, w) as i128,
        ElementKind::Float(_) => x,
    };
    // An integer converted to f32 is rounded once, not through f64.
    let to_float = |x: i128| match to {
        ElementKind::Float(acc_ir::FloatKind::F32) => f64::from(x as f32),
        _ => x as f64,
    };
    use arith::Op as K;
    match (op, v) {
        // An i1 holds 0 or 1; sign-extended, true is -1 (MLIR's extsi).
        (K::Extsi | K::IndexCast, Scalar::Int(x)) if matches!(from, ElementKind::Int(1, _)) => {
            Some(Scalar::Int(-(x & 1)))
        }
        (K::Extsi | K::Trunci | K::IndexCast, Scalar::Int(x)) => Some(Scalar::Int(x)),
        (K::Extui | K::IndexCastui, Scalar::Int(x)) => Some(Scalar::Int(in_unsigned(x))),
        (K::Sitofp, Scalar::Int(x)) => Some(Scalar::Float(to_float(x))),
        (K::Uitofp, Scalar::Int(x)) => Some(Scalar::Float(to_float(in_unsigned(x)))),
        (K::Extf | K::Truncf, Scalar::Float(f)) => Some(Scalar::Float(f)),
        (K::Fptosi | K::Fptoui, Scalar::Float(f)) => {
            let ElementKind::Int(w, _) = to else {
                return None;
            };
            let t = f.trunc();
            let (lo, hi) = if op == K::Fptosi {
                (-(2f64.powi(w as i32 - 1)), 2f64.powi(w as i32 - 1) - 1.0)
            } else {
                (0.0, 2f64.powi(w as i32) - 1.0)
            };
            // Out of range (and NaN) is poison: leave it to run time.
            (t >= lo && t <= hi).then_some(Scalar::Int(t as i128))
        }
        (K::Bitcast, _) => {
            let mut bytes = Vec::new();
            from.encode(v, &mut bytes);
            (bytes.len() == to.bytes()).then(|| to.decode(&bytes))
        }
        _ => None,
    }
}

pub(crate) fn fold_cast(
    op: OpRef<'_>,
    consts: &[Option<AttrId>],
    ctx: &Context,
) -> Option<Vec<FoldResult>> {
    let kind = kind_of(op, ctx);
    if kind == Some(arith::Op::Truncf)
        && let Some(mode) = op.attr(ctx, arith::Truncf::ATTR_ROUNDINGMODE)
        && !matches!(ctx.attr_data(mode), AttrData::Integer { value: 0, .. })
    {
        return None;
    }
    let in_ty = op.operand_types().first().copied()?;
    let out_ty = op.result_types().first().copied()?;
    let elem = |t: TypeId| ctx.type_data(t).element_type().unwrap_or(t);
    let from = ElementKind::of(ctx, elem(in_ty))?;
    let to = ElementKind::of(ctx, elem(out_ty))?;
    let folded = elementwise(ctx, &[consts[0]?], out_ty, |v| {
        kind.and_then(|k| cast_eval(k, v[0], from, to))
    })?;
    Some(vec![FoldResult::Attr(folded)])
}

fn err(op: OpRef<'_>, m: String) -> Vec<Diagnostic> {
    vec![Diagnostic::error(DiagLoc::Loc(op.loc()), m)]
}

/// Bit width of the element type of `t` (index counts as 64).
fn element_width(ctx: &Context, t: TypeId) -> Option<u32> {
    let element = ctx.type_data(t).element_type().unwrap_or(t);
    match ctx.type_data(element) {
        TypeData::Integer { width, .. } => Some(*width),
        TypeData::Index => Some(64),
        TypeData::Float(k) => Some(k.width()),
        _ => None,
    }
}

fn check_width(op: OpRef<'_>, ctx: &Context, wider: bool) -> Vec<Diagnostic> {
    let (Some(&a), Some(&b)) = (op.operand_types().first(), op.result_types().first()) else {
        return Vec::new();
    };
    let (Some(wa), Some(wb)) = (element_width(ctx, a), element_width(ctx, b)) else {
        return Vec::new();
    };
    let ok = if wider { wb > wa } else { wb < wa };
    if ok {
        return Vec::new();
    }
    let name = ctx.op_name_str(op.name());
    let what = if wider { "wider" } else { "narrower" };
    err(
        op,
        format!("'{name}' op result type must be {what} than the operand type: {wb} bits vs {wa}"),
    )
}

pub(crate) fn verify_widen(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    check_width(op, ctx, true)
}

pub(crate) fn verify_narrow(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    check_width(op, ctx, false)
}

pub(crate) fn verify_index_cast(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let is_index = |t: TypeId| {
        let e = ctx.type_data(t).element_type().unwrap_or(t);
        matches!(ctx.type_data(e), TypeData::Index)
    };
    let (Some(&a), Some(&b)) = (op.operand_types().first(), op.result_types().first()) else {
        return Vec::new();
    };
    if is_index(a) != is_index(b) {
        return Vec::new();
    }
    let name = ctx.op_name_str(op.name());
    err(
        op,
        format!(
            "'{name}' op casts between index and an integer type: exactly one side must be index"
        ),
    )
}

pub(crate) fn verify_bitcast(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let (Some(&a), Some(&b)) = (op.operand_types().first(), op.result_types().first()) else {
        return Vec::new();
    };
    if element_width(ctx, a) == element_width(ctx, b) {
        return Vec::new();
    }
    err(
        op,
        "'arith.bitcast' op operand and result must have the same bit width".into(),
    )
}

pub(crate) fn verify_select(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let (Some(&cond), Some(&result)) = (op.operand_types().first(), op.result_types().first())
    else {
        return Vec::new();
    };
    let cond_shape = ctx.type_data(cond).shape();
    match cond_shape {
        None => Vec::new(),
        Some(s) if ctx.type_data(result).shape() == Some(s) => Vec::new(),
        Some(_) => err(
            op,
            "'arith.select' op a shaped condition must have the shape of the result".into(),
        ),
    }
}

/// `arith.select %c, %a, %b : T`, or `: CT, T` when the condition is not `i1`.
pub(crate) struct SelectSyntax;

impl CustomSyntax for SelectSyntax {
    fn can_print(&self, op: OpRef<'_>, ctx: &Context) -> bool {
        op.operands().len() == 3
            && op.results().len() == 1
            && op.operand_types()[1] == op.result_types()[0]
            && op.operand_types()[2] == op.result_types()[0]
            && remaining_attrs(ctx, op, &[]).is_some()
    }

    fn print(&self, p: &mut OpPrinter<'_, '_>, op: OpRef<'_>) -> std::fmt::Result {
        p.write_str(" ");
        p.print_operands(op.operands());
        print_remaining_attrs(p, op, &[], " ");
        p.write_str(" : ");
        let cond = op.operand_types()[0];
        let is_i1 = matches!(p.ctx().type_data(cond), TypeData::Integer { width: 1, .. });
        if !is_i1 {
            p.print_type(cond);
            p.write_str(", ");
        }
        p.print_type(op.result_types()[0]);
        Ok(())
    }

    fn parse(&self, cp: &mut CustomParse<'_, '_, '_>, state: &mut OperationState) -> PResult<()> {
        let span = cp.p.tok_span();
        let c = cp.p.parse_operand()?;
        cp.p.expect(Tok::Comma, "','")?;
        let a = cp.p.parse_operand()?;
        cp.p.expect(Tok::Comma, "','")?;
        let b = cp.p.parse_operand()?;
        if cp.p.peek() == Tok::LBrace {
            state.attrs.extend(cp.p.parse_attr_dict()?);
        }
        cp.p.expect(Tok::Colon, "':'")?;
        let first = cp.p.parse_type()?;
        let (cond_ty, ty) = if cp.p.try_consume(Tok::Comma) {
            (first, cp.p.parse_type()?)
        } else {
            (cp.p.context().int_type(1), first)
        };
        let values = cp.resolve_all(&[c, a, b], &[cond_ty, ty, ty], span)?;
        state.operands.extend(values);
        state.result_types.push(ty);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::hooks::testing::fold_marked;

    #[test]
    fn integer_constants_fold_with_wrapping() {
        let ir = "%a = arith.constant 100 : i8\n%b = arith.constant 100 : i8\n%r = arith.addi %a, %b {fold} : i8";
        assert_eq!(fold_marked(ir), ["-56 : i8"]);
        let ir = "%a = arith.constant -7 : i32\n%b = arith.constant 2 : i32\n%r = arith.floordivsi %a, %b {fold} : i32";
        assert_eq!(fold_marked(ir), ["-4 : i32"]);
        let ir = "%a = arith.constant -7 : i32\n%b = arith.constant 2 : i32\n%r = arith.ceildivsi %a, %b {fold} : i32";
        assert_eq!(fold_marked(ir), ["-3 : i32"]);
        let ir = "%a = arith.constant -1 : i8\n%b = arith.constant 4 : i8\n%r = arith.shrui %a, %b {fold} : i8";
        assert_eq!(fold_marked(ir), ["15 : i8"]);
        let ir = "%a = arith.constant -1 : i8\n%b = arith.constant 1 : i8\n%r = arith.maxui %a, %b {fold} : i8";
        assert_eq!(fold_marked(ir), ["-1 : i8"]);
    }

    #[test]
    fn undefined_integer_ops_do_not_fold() {
        let ir = "%a = arith.constant 1 : i32\n%b = arith.constant 0 : i32\n%r = arith.divsi %a, %b {fold} : i32";
        assert!(fold_marked(ir).is_empty());
        let ir = "%a = arith.constant -128 : i8\n%b = arith.constant -1 : i8\n%r = arith.divsi %a, %b {fold} : i8";
        assert!(fold_marked(ir).is_empty());
        let ir = "%a = arith.constant 1 : i8\n%b = arith.constant 8 : i8\n%r = arith.shli %a, %b {fold} : i8";
        assert!(fold_marked(ir).is_empty());
    }

    #[test]
    fn identities_return_an_operand() {
        let ir = "%z = arith.constant 0 : i32\n%r = arith.addi %arg0, %z {fold} : i32";
        assert_eq!(fold_marked(ir), ["%arg0"]);
        let ir = "%r = arith.subi %arg0, %arg0 {fold} : i32";
        assert_eq!(fold_marked(ir), ["0 : i32"]);
        let ir = "%o = arith.constant 1 : i32\n%r = arith.muli %arg0, %o {fold} : i32";
        assert_eq!(fold_marked(ir), ["%arg0"]);
        let ir = "%n = arith.constant -0.0 : f32\n%r = arith.addf %arg1, %n {fold} : f32";
        assert_eq!(fold_marked(ir), ["%arg1"]);
        // x + 0.0 is not x when x is -0.0.
        let ir = "%p = arith.constant 0.0 : f32\n%r = arith.addf %arg1, %p {fold} : f32";
        assert!(fold_marked(ir).is_empty());
    }

    #[test]
    fn dense_operands_fold_elementwise() {
        let ir = "%a = arith.constant dense<[1.5, -2.0]> : tensor<2xf32>\n%b = arith.constant dense<2.0> : tensor<2xf32>\n%r = arith.mulf %a, %b {fold} : tensor<2xf32>";
        assert_eq!(
            fold_marked(ir),
            ["dense<[3.000000e+00, -4.000000e+00]> : tensor<2xf32>"]
        );
        let ir = "%a = arith.constant dense<[1, 5]> : vector<2xi32>\n%r = arith.cmpi slt, %a, %arg2 {fold} : vector<2xi32>";
        assert!(fold_marked(ir).is_empty());
        let ir = "%a = arith.constant dense<[1, 5]> : vector<2xi32>\n%b = arith.constant dense<3> : vector<2xi32>\n%r = arith.cmpi slt, %a, %b {fold} : vector<2xi32>";
        assert_eq!(fold_marked(ir), ["dense<[true, false]> : vector<2xi1>"]);
    }

    #[test]
    fn comparisons_and_selects() {
        let ir = "%a = arith.constant -1 : i32\n%b = arith.constant 1 : i32\n%r = arith.cmpi ult, %a, %b {fold} : i32";
        assert_eq!(fold_marked(ir), ["false"]);
        let ir = "%r = arith.cmpi sle, %arg0, %arg0 {fold} : i32";
        assert_eq!(fold_marked(ir), ["true"]);
        let ir = "%a = arith.constant 0x7FC00000 : f32\n%r = arith.cmpf une, %a, %a {fold} : f32";
        assert_eq!(fold_marked(ir), ["true"]);
        let ir = "%a = arith.constant 0x7FC00000 : f32\n%r = arith.cmpf oeq, %a, %a {fold} : f32";
        assert_eq!(fold_marked(ir), ["false"]);
        let ir = "%c = arith.constant false\n%r = arith.select %c, %arg0, %arg3 {fold} : i32";
        assert_eq!(fold_marked(ir), ["%arg3"]);
    }

    #[test]
    fn casts_fold_exactly() {
        let ir = "%a = arith.constant -1 : i8\n%r = arith.extui %a {fold} : i8 to i32";
        assert_eq!(fold_marked(ir), ["255 : i32"]);
        let ir = "%a = arith.constant -1 : i8\n%r = arith.extsi %a {fold} : i8 to i32";
        assert_eq!(fold_marked(ir), ["-1 : i32"]);
        let ir = "%a = arith.constant 300 : i32\n%r = arith.trunci %a {fold} : i32 to i8";
        assert_eq!(fold_marked(ir), ["44 : i8"]);
        let ir = "%a = arith.constant 1.0e10 : f32\n%r = arith.fptosi %a {fold} : f32 to i32";
        assert!(fold_marked(ir).is_empty());
        let ir = "%a = arith.constant -2.75 : f32\n%r = arith.fptosi %a {fold} : f32 to i8";
        assert_eq!(fold_marked(ir), ["-2 : i8"]);
        let ir = "%a = arith.constant 1.0 : f32\n%r = arith.bitcast %a {fold} : f32 to i32";
        assert_eq!(fold_marked(ir), ["1065353216 : i32"]);
        let ir = "%a = arith.constant 0.1 : f64\n%r = arith.truncf %a {fold} : f64 to f16";
        assert_eq!(fold_marked(ir), ["9.997559e-02 : f16"]);
    }
}
