//! `math-approximation`: `math.exp`, `math.erf` and `math.tanh` on `f32` as `arith` arithmetic
//! (polynomials, as MLIR's polynomial approximations and Eigen do), so that they run
//! inline and vectorize instead of calling the C library once per element.
//!
//! - `exp(x)`: `x` clamped to [-103.97, 88.72]; `n = round(x log2 e)` (by adding and
//!   subtracting 1.5 * 2^23); `r = x - n ln 2` in two parts (Cody and Waite);
//!   `e^r` by Cephes' degree-5 polynomial; the result scaled by `2^n` as two powers of
//!   two built from their exponent bits (so that subnormal results come out right).
//!   Relative error about 1e-7 on normal results.
//! - `erf(x)`: `x` clamped to [-4, 4], then `x P(x^2) / Q(x^2)` with Eigen's
//!   coefficients (degree 13 over degree 8). Absolute error below 5e-7.
//!
//! - `tanh(x)`: `x` clamped to [-7.9053, 7.9053], then `x P(x^2) / Q(x^2)` (degree 13
//!   over degree 6, as MLIR and Eigen), `x` itself for `|x| < 0.0004`. A few ulps.
//!
//! Other types and functions are left to the C library.

use acc_dialects::build::BuildExt as _;
use acc_ir::{BodyId, Context, Diagnostic, FloatKind, InsertPoint, Ir, OpId, TypeData, ValueId};
use acc_pass::{Pass, PassInfo, PassOptions, PassTarget};

use acc_dialects::build::{Builder, ops_post_order};
use acc_dialects::ops::{arith, func, math};

/// The pass.
pub struct MathApproximation;

/// Its registration.
pub fn info() -> PassInfo {
    PassInfo {
        name: "math-approximation",
        title: "MathApproximation",
        summary: "Expand f32 math.exp, math.erf and math.tanh into polynomial arithmetic",
        anchor: Some(func::Func::NAME),
        options: Vec::new(),
        create: |_: &PassOptions| Ok(Box::new(MathApproximation)),
    }
}

impl Pass for MathApproximation {
    fn run(&self, t: &mut PassTarget<'_>) -> Result<(), Diagnostic> {
        for (body, _) in t.bodies() {
            for op in candidates(t.ctx, t.ir, body) {
                expand(t.ctx, t.ir, body, op).map_err(|m| {
                    Diagnostic::error(
                        acc_ir::DiagLoc::Loc(t.ir.op(body, op).loc()),
                        format!("math-approximation: {m}"),
                    )
                })?;
            }
        }
        Ok(())
    }
}

/// The f32 `math.exp`, `math.erf` and `math.tanh` ops of a body.
fn candidates(ctx: &Context, ir: &Ir, body: BodyId) -> Vec<OpId> {
    let b = ir.body(body);
    ops_post_order(ir, body)
        .into_iter()
        .filter(|op| {
            let f32_result = b.results(*op).next().is_some_and(|v| {
                matches!(
                    ctx.type_data(b.value_type(v)),
                    TypeData::Float(FloatKind::F32)
                )
            });
            matches!(
                math::Op::of(ctx, ir.op(body, *op)),
                Some(math::Op::Exp | math::Op::Erf | math::Op::Tanh)
            ) && f32_result
        })
        .collect()
}

/// Builds f32 and i32 arithmetic before one op.
struct Arith<'e, 'a> {
    e: &'e mut Builder<'a>,
}

impl Arith<'_, '_> {
    fn f32(&self) -> acc_ir::TypeId {
        self.e.ctx.float_type(FloatKind::F32)
    }
    fn i32(&self) -> acc_ir::TypeId {
        self.e.ctx.int_type(32)
    }
    fn k(&mut self, v: f64) -> Result<ValueId, String> {
        let t = self.f32();
        self.e.scalar(t, v)
    }
    fn ki(&mut self, v: i64) -> Result<ValueId, String> {
        let t = self.i32();
        self.e.scalar(t, v as f64)
    }
    fn bin(&mut self, op: arith::Op, a: ValueId, b: ValueId) -> Result<ValueId, String> {
        let t = self.e.type_of(a);
        self.e.op1(op.name(), &[a, b], t, &[])
    }
    fn add(&mut self, a: ValueId, b: ValueId) -> Result<ValueId, String> {
        self.bin(arith::Op::Addf, a, b)
    }
    fn mul(&mut self, a: ValueId, b: ValueId) -> Result<ValueId, String> {
        self.bin(arith::Op::Mulf, a, b)
    }
    fn clamp(&mut self, x: ValueId, lo: f64, hi: f64) -> Result<ValueId, String> {
        let (l, h) = (self.k(lo)?, self.k(hi)?);
        let x = self.bin(arith::Op::Maximumf, x, l)?;
        self.bin(arith::Op::Minimumf, x, h)
    }
    /// `c[0] + x (c[1] + x (c[2] + ...))`.
    fn horner(&mut self, x: ValueId, c: &[f64]) -> Result<ValueId, String> {
        let (last, rest) = c.split_last().ok_or("an empty polynomial")?;
        let mut acc = self.k(*last)?;
        for c in rest.iter().rev() {
            let p = self.mul(acc, x)?;
            let k = self.k(*c)?;
            acc = self.add(p, k)?;
        }
        Ok(acc)
    }
    /// `round(x)` for |x| < 2^22 (adding and removing 1.5 * 2^23).
    fn round(&mut self, x: ValueId) -> Result<ValueId, String> {
        let magic = self.k(12_582_912.0)?;
        let t = self.add(x, magic)?;
        self.bin(arith::Op::Subf, t, magic)
    }
    /// `2^n` for an integral f32 `n` in [-126, 127], from its exponent bits.
    fn pow2(&mut self, n: ValueId) -> Result<ValueId, String> {
        let i32t = self.i32();
        let f32t = self.f32();
        let ni = arith::Fptosi::build(self.e, n, i32t).result()?;
        let bias = self.ki(127)?;
        let biased = self.bin(arith::Op::Addi, ni, bias)?;
        let shift = self.ki(1 << 23)?;
        let bits = self.bin(arith::Op::Muli, biased, shift)?;
        arith::Bitcast::build(self.e, bits, f32t).result()
    }

    fn exp(&mut self, x: ValueId) -> Result<ValueId, String> {
        let x = self.clamp(x, -103.97, 88.72)?;
        let log2e = self.k(std::f64::consts::LOG2_E)?;
        let scaled = self.mul(x, log2e)?;
        let n = self.round(scaled)?;
        // r = x - n ln 2, ln 2 = 0.693359375 - 2.12194440e-4.
        let c1 = self.k(-0.693_359_375)?;
        let c2 = self.k(2.121_944_4e-4)?;
        let a = self.mul(n, c1)?;
        let r = self.add(x, a)?;
        let b = self.mul(n, c2)?;
        let r = self.add(r, b)?;
        // e^r = 1 + r + r^2 P(r).
        let p = self.horner(
            r,
            &[
                5.000_000_120_1e-1,
                1.666_666_545_9e-1,
                4.166_579_589_4e-2,
                8.333_451_907_3e-3,
                1.398_199_950_7e-3,
                1.987_569_150_0e-4,
            ],
        )?;
        let r2 = self.mul(r, r)?;
        let y = self.mul(p, r2)?;
        let y = self.add(y, r)?;
        let one = self.k(1.0)?;
        let y = self.add(y, one)?;
        // 2^n = 2^h 2^(n - h) with h = round(n / 2): both factors stay normal.
        let half = self.k(0.5)?;
        let nh = self.mul(n, half)?;
        let h = self.round(nh)?;
        let rest = self.bin(arith::Op::Subf, n, h)?;
        let s1 = self.pow2(h)?;
        let s2 = self.pow2(rest)?;
        let y = self.mul(y, s1)?;
        self.mul(y, s2)
    }

    fn erf(&mut self, x: ValueId) -> Result<ValueId, String> {
        let x = self.clamp(x, -4.0, 4.0)?;
        let x2 = self.mul(x, x)?;
        let p = self.horner(
            x2,
            &[
                -1.609_603_332_624_15e-2,
                -2.954_599_808_540_25e-3,
                -7.349_906_303_268_55e-4,
                -5.692_506_394_623_46e-5,
                -2.101_024_020_825_08e-6,
                2.770_681_424_959_02e-8,
                -2.726_142_258_013_06e-10,
            ],
        )?;
        let p = self.mul(p, x)?;
        let q = self.horner(
            x2,
            &[
                -1.426_473_905_141_89e-2,
                -7.373_329_167_204_68e-3,
                -1.682_826_974_382_03e-3,
                -2.133_740_552_789_05e-4,
                -1.456_607_184_649_96e-5,
            ],
        )?;
        self.bin(arith::Op::Divf, p, q)
    }

    /// `tanh(x)`: `x` clamped to [-7.9053, 7.9053], then `x P(x^2) / Q(x^2)` (degree
    /// 13 over degree 6, the rational approximation MLIR and Eigen use); `x` itself
    /// when `|x| < 0.0004`.
    fn tanh(&mut self, x: ValueId) -> Result<ValueId, String> {
        let c = self.clamp(x, -7.905_311_107_635_498, 7.905_311_107_635_498)?;
        let x2 = self.mul(c, c)?;
        let p = self.horner(
            x2,
            &[
                4.893_524_558_917_86e-3,
                6.372_619_288_754_36e-4,
                1.485_722_357_179_79e-5,
                5.122_297_090_371_14e-8,
                -8.604_671_522_137_35e-11,
                2.000_187_904_824_77e-13,
                -2.760_768_477_423_55e-16,
            ],
        )?;
        let p = self.mul(p, c)?;
        let q = self.horner(
            x2,
            &[
                4.893_525_185_543_85e-3,
                2.268_434_632_439e-3,
                1.185_347_056_866_54e-4,
                1.198_258_394_667_02e-6,
            ],
        )?;
        let y = self.bin(arith::Op::Divf, p, q)?;
        let f32t = self.f32();
        let magnitude = math::Absf::build(self.e, x, f32t).result()?;
        let tiny = self.k(0.0004)?;
        let small = self
            .e
            .cmpf(acc_dialects::build::cmpf::OLT, magnitude, tiny)?;
        arith::Select::build(self.e, small, x, y, f32t).result()
    }
}

fn expand(ctx: &Context, ir: &mut Ir, body: BodyId, op: OpId) -> Result<(), String> {
    let kind = math::Op::of(ctx, ir.op(body, op));
    let x = ir.body(body).operand(op, 0);
    let result = ir.body(body).results(op).next().ok_or("no result")?;
    let loc = ir.op(body, op).loc();
    let mut e = Builder::new(ctx, &mut *ir, body, InsertPoint::Before(op), loc);
    let mut a = Arith { e: &mut e };
    let y = match kind {
        Some(math::Op::Exp) => a.exp(x)?,
        Some(math::Op::Tanh) => a.tanh(x)?,
        _ => a.erf(x)?,
    };
    ir.body_mut(body).replace_all_uses(result, y);
    ir.body_mut(body).erase_op(op);
    Ok(())
}
