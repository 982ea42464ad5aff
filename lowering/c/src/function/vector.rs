//! Vectors (what `vectorize` makes) as C: a value of type `vector<NxT>` is a variable
//! of GNU C's vector type of N lanes of T (`float v __attribute__((vector_size(64)))`
//! for `vector<16xf32>`), which GCC, Clang and the Clang-based DSP compilers take; a
//! device declares such vectors with `vector_bits` (docs/codegen.md, "Vectors").
//!
//! Float addition, subtraction, multiplication and division are GNU C's operators on
//! the vectors (IEEE in each lane, as the scalar operators are). Every other op is
//! written lane by lane: a loop over the lanes applies the op's scalar C expression
//! (the one scalar code uses) to each, so a lane computes exactly what the scalar op
//! computes, bit for bit, whatever the op; a vectorizing compiler may turn the
//! fixed-count loop into its vector instructions (not a lane calling a helper). A
//! load reads lanes `stride` elements apart, a store writes consecutive ones, a
//! reduction combines the lanes in order with the scalar op.

use super::{FnEmitter, Val, fail};
use crate::expr::{CType, ScalarOp, expression};
use acc_dialects::ops::{arith, loops};
use acc_ir::{Context, Diagnostic, OpRef, TypeData, TypeId, ValueId};

/// The lanes and the C element type of a vector type; `None` for other types.
pub(super) fn vector_type(ctx: &Context, ty: TypeId) -> Option<Result<(CType, usize), String>> {
    let TypeData::Vector { shape, element, .. } = ctx.type_data(ty) else {
        return None;
    };
    Some(match shape.as_ref() {
        [n] if *n > 0 && (*n as u64).is_power_of_two() => {
            CType::of(ctx, *element).map(|t| (t, *n as usize))
        }
        _ => Err(format!(
            "{}: the C back end takes vectors of one dimension, a power of two of lanes",
            acc_ir::printer::type_to_string(ctx, ty)
        )),
    })
}

/// The lanes and the C element type of `op`'s result type `ty`, which must be a vector.
fn vector_result(op: OpRef<'_>, ctx: &Context, ty: TypeId) -> Result<(CType, usize), Diagnostic> {
    vector_type(ctx, ty)
        .ok_or_else(|| fail(op, "expects a vector result"))?
        .map_err(|m| fail(op, m))
}

/// The declaration of a variable `name` holding `lanes` lanes of `elem`, without
/// its initializer.
pub(super) fn declaration(elem: CType, lanes: usize, name: &str) -> String {
    format!(
        "{} {name} __attribute__((vector_size({})))",
        elem.name(),
        lanes * elem.bytes()
    )
}

/// The declaration of a variable `name` of scalar type `t`, or of `lanes` lanes of
/// it.
pub(super) fn variable(t: CType, lanes: Option<usize>, name: &str) -> String {
    match lanes {
        Some(n) => declaration(t, n, name),
        None => format!("{} {name}", t.name()),
    }
}

/// The value `v` held in variable `name` instead (a loop's carried variable).
pub(super) fn renamed(v: &Val, name: &str) -> Val {
    match v {
        Val::Vector(_, t, n) => Val::Vector(name.to_string(), *t, *n),
        Val::Scalar(_, t) => Val::Scalar(name.to_string(), *t),
        Val::Memref { .. } => v.clone(),
    }
}

impl FnEmitter<'_> {
    /// A value a loop carries or yields, a scalar or a vector: its C expression, its
    /// (element) type and its lanes.
    pub(super) fn carried(
        &self,
        op: OpRef<'_>,
        v: ValueId,
    ) -> Result<(String, CType, Option<usize>), Diagnostic> {
        match self.get(op, v)? {
            Val::Scalar(x, t) => Ok((x, t, None)),
            Val::Vector(x, t, n) => Ok((x, t, Some(n))),
            Val::Memref { .. } => Err(fail(op, "carries a buffer")),
        }
    }

    /// A new vector variable of `count` lanes of `elem`, zeroed, and a loop over its
    /// lanes whose body `body` writes, given the variable and the lane's index; the
    /// variable.
    fn lane_loop(
        &mut self,
        elem: CType,
        count: usize,
        body: impl FnOnce(&str, &str) -> String,
    ) -> String {
        let v = self.fresh("v");
        let l = self.fresh("l");
        self.line(&format!("{} = {{0}};", declaration(elem, count, &v)));
        let text = body(&v, &l);
        self.line(&format!(
            "for (int {l} = 0; {l} < {count}; {l}++) {{ {text} }}"
        ));
        v
    }

    /// An `arith` or `math` op whose result is a vector: its scalar expression on each
    /// lane (scalar operands, a select's condition, taken as they are).
    pub(super) fn lane_op(
        &mut self,
        op: OpRef<'_>,
        scalar: ScalarOp,
        operands: &[ValueId],
        result: (ValueId, TypeId),
        predicate: Option<i64>,
    ) -> Result<(), Diagnostic> {
        let (out, lanes) = vector_result(op, self.ctx, result.1)?;
        let mut xs = Vec::new();
        for v in operands {
            match self.get(op, *v)? {
                Val::Memref { .. } => return Err(fail(op, "expects scalar or vector operands")),
                x => xs.push(x),
            }
        }
        // IEEE arithmetic, which GNU C applies lane by lane: the operator itself.
        let operator = match scalar {
            ScalarOp::Arith(arith::Op::Addf) => Some("+"),
            ScalarOp::Arith(arith::Op::Subf) => Some("-"),
            ScalarOp::Arith(arith::Op::Mulf) => Some("*"),
            ScalarOp::Arith(arith::Op::Divf) => Some("/"),
            _ => None,
        };
        if let (Some(operator), [Val::Vector(a, ta, _), Val::Vector(b, tb, _)]) =
            (operator, xs.as_slice())
            && *ta == out
            && *tb == out
            && matches!(out, CType::F32 | CType::F64)
        {
            let v = self.fresh("v");
            self.line(&format!(
                "const {} = {a} {operator} {b};",
                declaration(out, lanes, &v)
            ));
            self.values.insert(result.0, Val::Vector(v, out, lanes));
            return Ok(());
        }
        let mut libm = false;
        let mut failure = None;
        let v = self.lane_loop(out, lanes, |v, l| {
            let (names, types): (Vec<String>, Vec<CType>) = xs
                .iter()
                .map(|x| match x {
                    Val::Vector(name, t, _) => (format!("{name}[{l}]"), *t),
                    Val::Scalar(name, t) => (name.clone(), *t),
                    Val::Memref { elem, .. } => (String::new(), *elem),
                })
                .unzip();
            match expression(scalar, &names, &types, out, predicate, &mut libm) {
                Ok(x) => format!("{v}[{l}] = {x};"),
                Err(m) => {
                    failure = Some(m);
                    String::new()
                }
            }
        });
        if let Some(m) = failure {
            return Err(fail(op, m));
        }
        self.shared.uses_libm |= libm;
        self.values.insert(result.0, Val::Vector(v, out, lanes));
        Ok(())
    }

    /// `loop.splat`: the scalar in every lane.
    pub(super) fn splat(
        &mut self,
        op: OpRef<'_>,
        operands: &[ValueId],
        result: (ValueId, TypeId),
    ) -> Result<(), Diagnostic> {
        let (elem, lanes) = vector_result(op, self.ctx, result.1)?;
        let (x, _) = self.scalar(op, operands[0])?;
        let v = self.lane_loop(elem, lanes, |v, l| format!("{v}[{l}] = {x};"));
        self.values.insert(result.0, Val::Vector(v, elem, lanes));
        Ok(())
    }

    /// `loop.vload`: lanes `stride` elements apart along the last dimension.
    pub(super) fn vload(
        &mut self,
        op: OpRef<'_>,
        operands: &[ValueId],
        result: (ValueId, TypeId),
    ) -> Result<(), Diagnostic> {
        let (elem, lanes) = vector_result(op, self.ctx, result.1)?;
        let (ptr, _, _, strides) = self.memref(op, operands[0])?;
        let at = self.offset(op, &operands[1..], &strides)?;
        let stride = op
            .attr(self.ctx, loops::Vload::ATTR_STRIDE)
            .and_then(|a| acc_dialects::ops::support::int_value(self.ctx, a))
            .unwrap_or(1);
        let step = stride
            .checked_mul(strides.last().copied().unwrap_or(1))
            .ok_or_else(|| fail(op, "a stride out of range"))?;
        let v = self.lane_loop(elem, lanes, |v, l| {
            format!("{v}[{l}] = {ptr}[{at} + (int64_t){l} * {step}];")
        });
        self.values.insert(result.0, Val::Vector(v, elem, lanes));
        Ok(())
    }

    /// `loop.vstore`: the lanes into consecutive elements along the last dimension.
    pub(super) fn vstore(&mut self, op: OpRef<'_>, operands: &[ValueId]) -> Result<(), Diagnostic> {
        let (x, lanes) = match self.get(op, operands[0])? {
            Val::Vector(x, _, lanes) => (x, lanes),
            _ => return Err(fail(op, "stores a vector")),
        };
        let (ptr, _, _, strides) = self.memref(op, operands[1])?;
        let at = self.offset(op, &operands[2..], &strides)?;
        let step = strides.last().copied().unwrap_or(1);
        let l = self.fresh("l");
        self.line(&format!(
            "for (int {l} = 0; {l} < {lanes}; {l}++) {{ {ptr}[{at} + (int64_t){l} * {step}] = {x}[{l}]; }}"
        ));
        Ok(())
    }

    /// `loop.vreduce`: lane 0 combined with each next lane in order by the scalar op
    /// of its kind (float add, mul, max, min; integer add, mul).
    pub(super) fn vreduce(
        &mut self,
        op: OpRef<'_>,
        operands: &[ValueId],
        result: ValueId,
    ) -> Result<(), Diagnostic> {
        let (x, elem, lanes) = match self.get(op, operands[0])? {
            Val::Vector(x, t, lanes) => (x, t, lanes),
            _ => return Err(fail(op, "reduces a vector")),
        };
        let kind = loops::Vreduce::of(self.ctx, op)
            .and_then(|r| r.kind())
            .ok_or_else(|| fail(op, "a vreduce without its kind"))?;
        let float = matches!(elem, CType::F32 | CType::F64);
        let combine = match (kind, float) {
            ("add", true) => arith::Op::Addf,
            ("mul", true) => arith::Op::Mulf,
            ("max", true) => arith::Op::Maximumf,
            ("min", true) => arith::Op::Minimumf,
            ("add", false) => arith::Op::Addi,
            ("mul", false) => arith::Op::Muli,
            _ => {
                return Err(fail(
                    op,
                    format!("no C for a vreduce {kind} of {} lanes", elem.name()),
                ));
            }
        };
        let r = self.fresh("r");
        let l = self.fresh("l");
        let mut libm = false;
        let step = expression(
            ScalarOp::Arith(combine),
            &[r.clone(), format!("{x}[{l}]")],
            &[elem, elem],
            elem,
            None,
            &mut libm,
        )
        .map_err(|m| fail(op, m))?;
        self.shared.uses_libm |= libm;
        self.line(&format!("{} {r} = {x}[0];", elem.name()));
        self.line(&format!(
            "for (int {l} = 1; {l} < {lanes}; {l}++) {{ {r} = {step}; }}"
        ));
        self.values.insert(result, Val::Scalar(r, elem));
        Ok(())
    }
}
