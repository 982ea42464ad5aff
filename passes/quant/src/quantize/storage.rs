//! Ops that need no arithmetic on quantized values: those that only move or select
//! elements run on the stored integers, and elementwise functions become tables.

use acc_dialects::hooks::graph_fold::unary_eval;
use acc_dialects::ops::graph;
use acc_ir::elements::{self, ElementKind, Scalar};
use acc_ir::types::QuantUniform;
use acc_ir::{FloatKind, OpId, TypeId, ValueId};

use super::Folds;
use acc_dialects::build::{shape_of, tensor_type};

/// Ops whose results are elements of their input: quantizing commutes with them
/// when the input and output are quantized alike (the quantization is monotonic,
/// so it commutes with `max` too).
pub const MOVES: &[graph::Op] = &[
    graph::Op::MaxPool,
    graph::Op::GlobalMaxPool,
    graph::Op::Reshape,
    graph::Op::Flatten,
    graph::Op::Transpose,
    graph::Op::Squeeze,
    graph::Op::Unsqueeze,
    graph::Op::Slice,
];

/// Those of [`MOVES`] that compare elements.
const COMPARES: [graph::Op; 2] = [graph::Op::MaxPool, graph::Op::GlobalMaxPool];

/// Elementwise ops a table can stand for (those with compile-time semantics; `clip`
/// too, which `quantize` tables without calibrating around it).
pub const TABLED: &[graph::Op] = &[
    graph::Op::Relu,
    graph::Op::Neg,
    graph::Op::Abs,
    graph::Op::Sqrt,
    graph::Op::Exp,
    graph::Op::Log,
    graph::Op::Tanh,
    graph::Op::Sigmoid,
];

/// The widest storage a table is made for (256 entries).
const MAX_TABLE_BITS: u32 = 8;

impl Folds<'_> {
    /// `quantize(op(dequantize(x)))`, `op` one of [`MOVES`] (of kind `kind`), as `op`
    /// on `x`'s stored integers, when `x` has the result's quantized element type
    /// (per tensor).
    pub(super) fn on_storage(
        &mut self,
        op: OpId,
        kind: graph::Op,
        at: OpId,
        out: TypeId,
    ) -> Result<Option<ValueId>, String> {
        let b = self.ir.body(self.body);
        if b.operands(op).len() != 1 {
            return Ok(None);
        }
        let Some(x) = self.dequantized(b.operand(op, 0)) else {
            return Ok(None);
        };
        let (Ok((x_shape, x_elem)), Ok((out_shape, out_elem))) =
            (shape_of(self.ctx, self.type_of(x)), shape_of(self.ctx, out))
        else {
            return Ok(None);
        };
        let Some(q) = self
            .quant(out)
            .filter(|q| q.axis.is_none() && x_elem == out_elem)
        else {
            return Ok(None);
        };
        // The stored integers are seen as signless, which compare as signed: a
        // maximum of unsigned storage would be wrong.
        if !q.storage_signed && COMPARES.contains(&kind) {
            return Ok(None);
        }
        let int = self.ctx.int_type(q.storage_width);
        let props: Vec<(String, acc_ir::AttrId)> = self
            .ir
            .body(self.body)
            .op(op)
            .props
            .map(|p| {
                self.ctx
                    .dict_entries(p)
                    .iter()
                    .map(|(k, v)| (self.ctx.str(*k).to_string(), *v))
                    .collect()
            })
            .unwrap_or_default();
        let props: Vec<(&str, acc_ir::AttrId)> =
            props.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        let (in_ty, out_ty) = (
            tensor_type(self.ctx, &x_shape, int),
            tensor_type(self.ctx, &out_shape, int),
        );
        let mut e = self.emitter(at);
        let ints = graph::StorageCast::build(&mut e, x, in_ty).result()?;
        let moved = e.op1(kind.name(), &[ints], out_ty, &props)?;
        Ok(Some(
            graph::StorageCast::build(&mut e, moved, out).result()?,
        ))
    }

    /// `quantize(f(dequantize(x)))`, `f` one of [`TABLED`] on f32 (the op `op` of
    /// kind `kind`), as a `lookup` in the table of its results for every stored value
    /// of `x`, computed as the interpreter computes the three ops. Per-tensor, signed
    /// storage up to 8 bits.
    pub(super) fn table(
        &mut self,
        op: OpId,
        kind: graph::Op,
        at: OpId,
        out: TypeId,
    ) -> Result<Option<ValueId>, String> {
        let b = self.ir.body(self.body);
        let Some(x) = self.dequantized(b.operand(op, 0)) else {
            return Ok(None);
        };
        let float = self.ctx.float_type(FloatKind::F32);
        let f32_result = b
            .results(op)
            .all(|r| shape_of(self.ctx, b.value_type(r)).is_ok_and(|(_, e)| e == float));
        let (Some(qx), Some(qo)) = (self.quant(self.type_of(x)), self.quant(out)) else {
            return Ok(None);
        };
        let fits = |q: &QuantUniform| {
            q.axis.is_none()
                && q.storage_signed
                && q.storage_width <= MAX_TABLE_BITS
                && q.expressed == float
        };
        if !f32_result || !fits(&qx) || !fits(&qo) {
            return Ok(None);
        }
        let entries = if kind == graph::Op::Clip {
            let Some((lo, hi)) = self.activation(op) else {
                return Ok(None);
            };
            table_entries(&|x| Some(Scalar::Float(clip(x, lo, hi))), &qx, &qo)
        } else {
            table_entries(&|x| unary_eval(kind, x), &qx, &qo)
        };
        let Some(entries) = entries else {
            return Ok(None);
        };
        let table_ty = tensor_type(
            self.ctx,
            &[entries.len() as i64],
            self.ctx.int_type(qo.storage_width),
        );
        let attr = elements::dense_attr(self.ctx, table_ty, &entries).ok_or("a table constant")?;
        let mut e = self.emitter(at);
        let table = graph::Constant::build(&mut e, table_ty)
            .value(attr)
            .result()?;
        Ok(Some(graph::Lookup::build(&mut e, x, table, out).result()?))
    }
}

/// `x` (a float) clamped to `[lo, hi]`, as the interpreter's `clip`.
fn clip(x: Scalar, lo: f64, hi: f64) -> f64 {
    let x = match x {
        Scalar::Float(f) => f,
        Scalar::Int(i) => i as f64,
    };
    x.max(lo).min(hi)
}

/// For each stored value of `qx` from the least, the stored value of
/// `quantize(f(dequantize(value)))` in `qo`, with f32 rounding after each step as
/// the interpreter has it; `None` when `f` has no compile-time semantics.
fn table_entries(
    f: &dyn Fn(Scalar) -> Option<Scalar>,
    qx: &QuantUniform,
    qo: &QuantUniform,
) -> Option<Vec<Scalar>> {
    let f32k = ElementKind::Float(FloatKind::F32);
    let (lo, hi) = QuantUniform::full_range(qx.storage_width, qx.storage_signed);
    let (s_x, z_x) = qx.params_of(0);
    let (s_o, z_o) = qo.params_of(0);
    let (min, max) = qo.storage_bounds();
    (lo..=hi)
        .map(|stored| {
            let x = f32k.normalize(Scalar::Float((stored - z_x) as f64 * s_x));
            let Scalar::Float(y) = f32k.normalize(f(x)?) else {
                return None;
            };
            let scaled = elements::round_float(y / s_o, FloatKind::F32);
            let q = if scaled.is_nan() {
                z_o as f64
            } else {
                scaled.round_ties_even() + z_o as f64
            };
            Some(Scalar::Int(q.clamp(min as f64, max as f64) as i128))
        })
        .collect()
}
