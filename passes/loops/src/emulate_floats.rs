//! `emulate-narrow-floats`: `arith` and `math` on `f16`, `bf16` and the small floats
//! (f8, f6, f4) computed in `f32` (MLIR's `arith-emulate-unsupported-floats`), for back
//! ends whose machines hold these types only in memory.
//!
//! Each op that computes on a narrow float (an `arith` or `math` op, or `loop.fma`,
//! with an operand or a result of type `f16`, `bf16` or a vector of them) takes its narrow operands through `arith.extf` to `f32`
//! and computes in `f32`; each narrow result comes back through `arith.truncf`. What
//! stays narrow: constants, `extf` and `truncf` themselves, `bitcast` and `select`
//! (which move bits and compute nothing), loads and stores.
//!
//! The result is the narrow op's, bit for bit up to NaN payloads, for `+ - * /`, the
//! square root, comparisons and conversions to integers: `f32`'s 24 bits are at least
//! twice the narrow precision plus two (11 and 8 bits, 5 and fewer), so rounding twice (to `f32`,
//! then to the narrow type) rounds as once. An integer converted to a narrow float
//! goes through `f64`: exact up to 2^53, then one rounding, as the interpreter
//! converts (above 2^53 both round twice). Other `math` functions are as accurate as
//! their `f32` forms, then rounded; a NaN result becomes the format's positive quiet
//! NaN.

use acc_dialects::build::{Builder, ops_post_order};
use acc_dialects::ops::{arith, func, loops, math};
use acc_ir::{BodyId, Context, Diagnostic, FloatKind, InsertPoint, Ir, OpId, TypeData, TypeId};
use acc_pass::{Pass, PassInfo, PassOptions, PassTarget};

/// The pass.
pub struct EmulateNarrowFloats;

/// Its registration.
pub fn info() -> PassInfo {
    PassInfo {
        name: "emulate-narrow-floats",
        title: "EmulateNarrowFloats",
        summary: "Compute arith and math ops on f16, bf16 and the f8/f6/f4 floats in f32, between extf and truncf",
        anchor: Some(func::Func::NAME),
        options: Vec::new(),
        create: |_: &PassOptions| Ok(Box::new(EmulateNarrowFloats)),
    }
}

impl Pass for EmulateNarrowFloats {
    fn run(&self, t: &mut PassTarget<'_>) -> Result<(), Diagnostic> {
        for (body, _) in t.bodies() {
            for op in ops_post_order(t.ir, body) {
                if needs_emulation(t.ctx, t.ir, body, op) {
                    emulate(t.ctx, t.ir, body, op).map_err(|m| {
                        Diagnostic::error(
                            acc_ir::DiagLoc::Loc(t.ir.op(body, op).loc()),
                            format!("emulate-narrow-floats: {m}"),
                        )
                    })?;
                }
            }
        }
        Ok(())
    }
}

/// True for `f16`, `bf16` and the floats of 8 bits and fewer (f8, f6, f4), and vectors
/// of them.
fn is_narrow(ctx: &Context, ty: TypeId) -> bool {
    let element = ctx.type_data(ty).element_type().unwrap_or(ty);
    match ctx.type_data(element) {
        TypeData::Float(FloatKind::F16 | FloatKind::BF16) => true,
        TypeData::Float(k) => acc_ir::minifloat::MiniFloat::of(*k).is_some(),
        _ => false,
    }
}

/// `ty` (a narrow float or a vector of them) with `wide` for its narrow float type.
fn widened(ctx: &Context, ty: TypeId, wide: TypeId) -> Result<TypeId, String> {
    match ctx.type_data(ty) {
        TypeData::Vector {
            shape, scalable, ..
        } => Ok(ctx.intern_type(TypeData::Vector {
            shape: shape.clone(),
            scalable: scalable.clone(),
            element: wide,
        })),
        TypeData::Float(_) => Ok(wide),
        _ => Err(format!(
            "computes on {}, which is neither a scalar nor a vector",
            acc_ir::printer::type_to_string(ctx, ty)
        )),
    }
}

/// An `arith` or `math` op computing on a narrow float.
fn needs_emulation(ctx: &Context, ir: &Ir, body: BodyId, op: OpId) -> bool {
    let r = ir.op(body, op);
    let computes = match arith::Op::of(ctx, r) {
        Some(
            arith::Op::Constant
            | arith::Op::Extf
            | arith::Op::Truncf
            | arith::Op::Bitcast
            | arith::Op::Select,
        ) => false,
        Some(_) => true,
        None => math::Op::of(ctx, r).is_some() || loops::Fma::is(ctx, r),
    };
    let b = ir.body(body);
    computes
        && b.operands(op)
            .map(|v| b.value_type(v))
            .chain(r.result_types().iter().copied())
            .any(|t| is_narrow(ctx, t))
}

/// Rewrites `op` in place: narrow operands extended, narrow results computed wide
/// and truncated back for their users.
fn emulate(ctx: &Context, ir: &mut Ir, body: BodyId, op: OpId) -> Result<(), String> {
    let loc = ir.op(body, op).loc();
    let from_integer = matches!(
        arith::Op::of(ctx, ir.op(body, op)),
        Some(arith::Op::Sitofp | arith::Op::Uitofp)
    );
    let wide = ctx.float_type(if from_integer {
        FloatKind::F64
    } else {
        FloatKind::F32
    });
    let f32t = ctx.float_type(FloatKind::F32);
    let operands: Vec<_> = ir.body(body).operands(op).collect();
    for (i, v) in operands.into_iter().enumerate() {
        let ty = ir.body(body).value_type(v);
        if !is_narrow(ctx, ty) {
            continue;
        }
        let mut e = Builder::new(ctx, ir, body, InsertPoint::Before(op), loc);
        let ext = arith::Extf::build(&mut e, v, widened(ctx, ty, f32t)?).result()?;
        ir.body_mut(body).set_operand(op, i, ext);
    }
    let results: Vec<_> = ir.body(body).results(op).collect();
    let next = ir
        .body(body)
        .next_op(op)
        .ok_or("an op computing a value ends its block")?;
    for r in results {
        let ty = ir.body(body).value_type(r);
        if !is_narrow(ctx, ty) {
            continue;
        }
        let wide_ty = widened(ctx, ty, wide)?;
        ir.body_mut(body).set_value_type(r, wide_ty);
        let mut e = Builder::new(ctx, ir, body, InsertPoint::Before(next), loc);
        let back = arith::Truncf::build(&mut e, r, ty).result()?;
        let back_op = match ir.body(body).value(back).def {
            acc_ir::ValueDef::Result(o, _) => o,
            _ => return Err("a truncf without its op".into()),
        };
        ir.body_mut(body).replace_all_uses(r, back);
        ir.body_mut(body).set_operand(back_op, 0, r);
    }
    Ok(())
}
