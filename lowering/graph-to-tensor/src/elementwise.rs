//! Element computations of graph ops that take several arith ops: remainders, shifts
//! by any amount, integer powers and bitwise negation. Each builds scalar ops inside a
//! `tensor.map` region and computes, for every pair of elements, what the graph op's
//! semantics (`graph_fold::BinaryOp::eval_in`) computes.

use acc_dialects::build::{BuildExt as _, Builder, cmpf, cmpi, is_float};
use acc_dialects::ops::arith;
use acc_ir::{TypeId, ValueId};

use super::is_unsigned;

/// The bit width of integer type `elem`.
fn int_width(e: &Builder<'_>, elem: TypeId) -> Result<u32, String> {
    match *e.ctx.type_data(elem) {
        acc_ir::TypeData::Integer { width, .. } => Ok(width),
        _ => Err("needs integers".into()),
    }
}

/// The remainder of `a` by `b`: numpy.mod (`floored`: with the divisor's sign) or C's
/// fmod (with the dividend's sign). numpy.mod adds the divisor to fmod's remainder
/// when the two signs differ and the remainder is not zero; a zero float remainder
/// takes the divisor's sign, and a NaN stays NaN. A signed remainder by -1 is 0
/// (`arith.remsi` leaves the smallest integer by -1 undefined, so it divides by 1).
pub(crate) fn remainder(
    e: &mut Builder<'_>,
    floored: bool,
    a: ValueId,
    b: ValueId,
    elem: TypeId,
) -> Result<ValueId, String> {
    let bool_type = e.ctx.int_type(1);
    if is_float(e.ctx, elem) {
        let r = arith::Remf::build(e, a, b, elem).result()?;
        if !floored {
            return Ok(r);
        }
        let zero = e.scalar(elem, 0.0)?;
        let nonzero = e.cmpf(cmpf::UNE, r, zero)?;
        let r_negative = e.cmpf(cmpf::OLT, r, zero)?;
        let b_negative = e.cmpf(cmpf::OLT, b, zero)?;
        let differ = arith::Xori::build(e, r_negative, b_negative, bool_type).result()?;
        let fix = arith::Andi::build(e, nonzero, differ, bool_type).result()?;
        let moved = arith::Addf::build(e, r, b, elem).result()?;
        let fixed = arith::Select::build(e, fix, moved, r, elem).result()?;
        let is_zero = e.cmpf(cmpf::OEQ, r, zero)?;
        let negative_zero = e.scalar(elem, -0.0)?;
        let signed_zero =
            arith::Select::build(e, b_negative, negative_zero, zero, elem).result()?;
        return arith::Select::build(e, is_zero, signed_zero, fixed, elem).result();
    }
    if is_unsigned(e.ctx, elem) {
        return arith::Remui::build(e, a, b, elem).result();
    }
    let one = e.scalar(elem, 1.0)?;
    let minus_one = e.scalar(elem, -1.0)?;
    let by_minus_one = e.cmpi(cmpi::EQ, b, minus_one)?;
    let divisor = arith::Select::build(e, by_minus_one, one, b, elem).result()?;
    let r = arith::Remsi::build(e, a, divisor, elem).result()?;
    if !floored {
        return Ok(r);
    }
    let zero = e.scalar(elem, 0.0)?;
    let nonzero = e.cmpi(cmpi::NE, r, zero)?;
    let r_negative = e.cmpi(cmpi::SLT, r, zero)?;
    let b_negative = e.cmpi(cmpi::SLT, b, zero)?;
    let differ = arith::Xori::build(e, r_negative, b_negative, bool_type).result()?;
    let fix = arith::Andi::build(e, nonzero, differ, bool_type).result()?;
    let moved = arith::Addi::build(e, r, b, elem).result()?;
    arith::Select::build(e, fix, moved, r, elem).result()
}

/// `a` shifted left (`left`) or right by `b` bits, `b` read as unsigned: by the width
/// or more, every bit is shifted out. The amount given to `arith.shli`/`shrui` stays
/// below the width, where MLIR defines them; a signed right shift (`shrsi`) by the
/// width less one already fills every bit with the sign.
pub(crate) fn shift(
    e: &mut Builder<'_>,
    left: bool,
    a: ValueId,
    b: ValueId,
    elem: TypeId,
) -> Result<ValueId, String> {
    let width = int_width(e, elem)?;
    let last = e.scalar(elem, f64::from(width - 1))?;
    let clamped = arith::Minui::build(e, b, last, elem).result()?;
    if !left && !is_unsigned(e.ctx, elem) {
        return arith::Shrsi::build(e, a, clamped, elem).result();
    }
    let shifted = if left {
        arith::Shli::build(e, a, clamped, elem).result()?
    } else {
        arith::Shrui::build(e, a, clamped, elem).result()?
    };
    let out_of_range = e.cmpi(cmpi::UGT, b, last)?;
    let zero = e.scalar(elem, 0.0)?;
    arith::Select::build(e, out_of_range, zero, shifted, elem).result()
}

/// `base` to the power `exponent` (integers, wrapping): square and multiply over every
/// bit of the exponent, from the lowest. A negative exponent has no graph semantics.
pub(crate) fn integer_power(
    e: &mut Builder<'_>,
    base: ValueId,
    exponent: ValueId,
    elem: TypeId,
) -> Result<ValueId, String> {
    let width = int_width(e, elem)?;
    let one = e.scalar(elem, 1.0)?;
    let zero = e.scalar(elem, 0.0)?;
    let mut result = one;
    let mut square = base;
    let mut rest = exponent;
    for bit in 0..width {
        let low = arith::Andi::build(e, rest, one, elem).result()?;
        let set = e.cmpi(cmpi::NE, low, zero)?;
        let product = arith::Muli::build(e, result, square, elem).result()?;
        result = arith::Select::build(e, set, product, result, elem).result()?;
        if bit + 1 < width {
            square = arith::Muli::build(e, square, square, elem).result()?;
            rest = arith::Shrui::build(e, rest, one, elem).result()?;
        }
    }
    Ok(result)
}

/// `~x`: `x` xor all ones.
pub(crate) fn bitwise_not(
    e: &mut Builder<'_>,
    x: ValueId,
    elem: TypeId,
) -> Result<ValueId, String> {
    int_width(e, elem)?;
    let ones = e.scalar(elem, -1.0)?;
    arith::Xori::build(e, x, ones, elem).result()
}
