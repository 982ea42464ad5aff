//! `calibrate{samples=FILE bits=8}`: a float model made a QDQ model by calibration,
//! as onnxruntime's static quantizer makes one: the function runs in the interpreter
//! on sample inputs, and the ranges its values took give their quantization.
//!
//! - Activations (the inputs and outputs of convolutions, matrix products and the
//!   elementwise functions `quantize` turns into tables) are quantized per tensor,
//!   asymmetric: the range (widened to hold 0) maps onto the storage range. A relu
//!   right after a convolution or product is quantized at its output instead (its
//!   zero point then lands on the least stored value, and `quantize` drops it). Ops
//!   that only move elements (pooling by max, reshapes) keep their input's
//!   quantization.
//! - Constant weights are quantized per output channel, symmetric; constant biases
//!   to i32 with scale `s_x * s_w[c]`.
//!
//! Each quantized value `v` becomes `dequantize(quantize(v))` (weights: a constant of
//! stored integers, cast and dequantized), so the result is a QDQ model: `quantize`
//! then folds it into integer ops. `bits` is the storage width of activations and
//! weights: 8, 4 or 2. `samples` is a `.npy` file of one input of the function's
//! only argument, or of several stacked along a leading dimension (when the
//! argument's first dimension is 1).

use std::path::Path;

use acc_dialects::hooks::attr_read::{ranked, tensor};
use acc_dialects::ops::{builtin, graph};
use acc_interp::{Interpreter, Limits, Ranges, Tensor};
use acc_ir::builder::Builder;
use acc_ir::elements::{self, Scalar};
use acc_ir::types::QuantUniform;
use acc_ir::{
    BodyId, Context, DiagLoc, Diagnostic, FloatKind, InsertPoint, Ir, OpId, TypeData, TypeId,
    ValueDef, ValueId,
};
use acc_pass::{OptionKind, Pass, PassInfo, PassOption, PassOptions, PassTarget};
use std::collections::HashMap;

/// Ops computed in integers once quantized: their data inputs and outputs are
/// quantized, their constant weights per channel.
const PRODUCTS: [graph::Op; 3] = [graph::Op::Conv2d, graph::Op::Gemm, graph::Op::Matmul];

/// The pass.
pub struct Calibrate {
    samples: String,
    bits: u32,
}

/// Its registration.
pub fn info() -> PassInfo {
    PassInfo {
        name: "calibrate",
        title: "Calibrate",
        summary: "Make a float model a QDQ model from the ranges its values take on sample inputs (then `quantize` folds it)",
        anchor: Some(builtin::Module::NAME),
        options: vec![
            PassOption {
                name: "samples",
                description: "a .npy file of inputs of the module's first function (one, or several stacked on a leading dimension)",
                kind: OptionKind::String,
                default: "",
            },
            PassOption {
                name: "bits",
                description: "storage bits of activations and weights: 8, 4 or 2",
                kind: OptionKind::Int,
                default: "8",
            },
        ],
        create: |o: &PassOptions| {
            let bits = o.int("bits");
            if ![2, 4, 8].contains(&bits) {
                return Err(format!("calibrate: 'bits' must be 8, 4 or 2, not {bits}"));
            }
            if o.get("samples").is_empty() {
                return Err("calibrate: give the sample inputs with samples=FILE.npy".into());
            }
            Ok(Box::new(Calibrate {
                samples: o.get("samples").to_string(),
                bits: bits as u32,
            }))
        },
    }
}

impl Pass for Calibrate {
    fn approximates(&self) -> bool {
        true
    }

    fn run(&self, t: &mut PassTarget<'_>) -> Result<(), Diagnostic> {
        let at = DiagLoc::Loc(t.op_ref().loc());
        let fail = |m: String| Diagnostic::error(at.clone(), format!("calibrate: {m}"));
        let (name, outer, func) = acc_interp::functions(t.ctx, t.ir)
            .into_iter()
            .next()
            .ok_or_else(|| fail("the module has no function".into()))?;
        let body = t.ir.region_body(outer, func);
        let samples = read_samples(t.ctx, t.ir, &name, Path::new(&self.samples)).map_err(&fail)?;
        let mut ranges = {
            let mut interp = Interpreter::new(t.ctx, t.ir, Limits::default());
            interp.record_ranges(true);
            for s in &samples {
                interp
                    .call(&name, vec![s.clone()])
                    .map_err(|e| fail(format!("running '@{name}' on a sample: {}", e.message)))?;
            }
            interp.record_ranges(false).unwrap_or_default()
        };
        // The interpreter records the values it computes; the argument's range is the
        // samples'.
        let b = t.ir.body(body);
        let argument = b
            .top_regions()
            .first()
            .and_then(|r| b.entry_block(*r))
            .and_then(|bl| b.block_args(bl).first().copied())
            .ok_or_else(|| fail(format!("'@{name}' has no argument")))?;
        for s in &samples {
            for v in s.values().map_err(&fail)? {
                if let Scalar::Float(f) = v
                    && f.is_finite()
                {
                    let slot = ranges.entry((body, argument)).or_insert((f, f));
                    *slot = (slot.0.min(f), slot.1.max(f));
                }
            }
        }
        let mut q = Quantizer {
            ctx: t.ctx,
            ir: t.ir,
            body,
            bits: self.bits,
            ranges,
            params: HashMap::new(),
        };
        q.run().map_err(fail)
    }
}

/// The sample inputs of `@name`'s one argument in `path`.
fn read_samples(ctx: &Context, ir: &Ir, name: &str, path: &Path) -> Result<Vec<Tensor>, String> {
    let params = acc_interp::parameter_types(ctx, ir, name).unwrap_or_default();
    let &[arg] = params.as_slice() else {
        return Err(format!(
            "'@{name}' must take one argument, not {}",
            params.len()
        ));
    };
    let found = acc_interp::npy::shape(path)?;
    let (shape, element) = ranked(ctx, arg, &format!("'@{name}''s argument"))?;
    let wanted: Vec<usize> = shape.iter().map(|d| *d as usize).collect();
    if found == wanted {
        return Ok(vec![acc_interp::npy::read(ctx, path, arg)?]);
    }
    if wanted.first() != Some(&1) || found.len() != wanted.len() || found[1..] != wanted[1..] {
        return Err(format!(
            "'{}' has shape {found:?}: samples of {wanted:?} must be one, or several stacked along the first dimension",
            path.display()
        ));
    }
    let all_shape: Vec<i64> = found.iter().map(|d| *d as i64).collect();
    let all_ty = ctx.intern_type(tensor(all_shape, element));
    let all = acc_interp::npy::read(ctx, path, all_ty)?.values()?;
    let per = all.len() / found[0].max(1);
    all.chunks(per.max(1))
        .map(|c| Tensor::new(ctx, arg, c.to_vec()))
        .collect()
}

/// Quantization parameters: scale and zero point.
type Params = (f64, i64);

/// Inserts the quantize/dequantize pairs of one function.
struct Quantizer<'a> {
    ctx: &'a Context,
    ir: &'a mut Ir,
    body: BodyId,
    bits: u32,
    ranges: Ranges,
    /// The activation parameters chosen so far.
    params: HashMap<ValueId, Params>,
}

impl Quantizer<'_> {
    fn run(&mut self) -> Result<(), String> {
        let ops = self.ops();
        // Activations first (biases need their inputs' scales), in program order.
        let mut chosen: Vec<ValueId> = Vec::new();
        for &op in &ops {
            let kind = self.kind(op);
            let operands: Vec<ValueId> = self.ir.body(self.body).operands(op).collect();
            let Some(&out) = self
                .ir
                .body(self.body)
                .results(op)
                .collect::<Vec<_>>()
                .first()
            else {
                continue;
            };
            let is = |kinds: &[graph::Op]| kind.is_some_and(|k| kinds.contains(&k));
            if is(&PRODUCTS) || is(crate::quantize::TABLED) {
                let data: &[ValueId] = if kind == Some(graph::Op::Matmul) {
                    &operands[..2]
                } else {
                    &operands[..1]
                };
                for &v in data {
                    // A relu after a product is quantized at its output only.
                    let fused = kind == Some(graph::Op::Relu) && self.through_relu(v) != v;
                    if !fused && !self.is_constant(v) && self.choose(v, None) {
                        chosen.push(v);
                    }
                }
                let at = if is(&PRODUCTS) {
                    self.through_relu(out)
                } else {
                    out
                };
                if self.choose(at, None) {
                    chosen.push(at);
                }
            } else if is(crate::quantize::MOVES)
                && let Some(&p) = operands.first().and_then(|v| self.params.get(v))
                && self.choose(out, Some(p))
            {
                chosen.push(out);
            }
        }
        for &op in &ops {
            if self.kind(op).is_some_and(|k| PRODUCTS.contains(&k)) {
                self.weights(op)?;
            }
        }
        for v in chosen {
            let p = self.params[&v];
            let ty = self.quant_type(self.type_of(v), &[p], None, self.bits)?;
            self.qdq(v, ty)?;
        }
        Ok(())
    }

    /// The function's ops, in order (its one block).
    fn ops(&self) -> Vec<OpId> {
        let b = self.ir.body(self.body);
        b.top_regions()
            .iter()
            .flat_map(|r| b.region_blocks(*r).collect::<Vec<_>>())
            .flat_map(|bl| b.block_ops(bl).collect::<Vec<_>>())
            .collect()
    }

    /// The kind of `op`, when it is a graph op.
    fn kind(&self, op: OpId) -> Option<graph::Op> {
        graph::Op::of(self.ctx, self.ir.op(self.body, op))
    }

    fn type_of(&self, v: ValueId) -> TypeId {
        self.ir.body(self.body).value_type(v)
    }

    fn is_constant(&self, v: ValueId) -> bool {
        acc_ir::rewrite::constant_value(self.ctx, self.ir, self.body, v).is_some()
    }

    /// The relu `v` feeds, when it is `v`'s only user; else `v`.
    fn through_relu(&self, v: ValueId) -> ValueId {
        let b = self.ir.body(self.body);
        let users: Vec<OpId> = b.value_users(v).collect();
        match users.as_slice() {
            [relu] if self.kind(*relu) == Some(graph::Op::Relu) => {
                b.results(*relu).next().unwrap_or(v)
            }
            _ => v,
        }
    }

    /// Chooses `v`'s parameters (`given`, or from its range) unless it has them;
    /// whether it is newly chosen.
    fn choose(&mut self, v: ValueId, given: Option<Params>) -> bool {
        if self.params.contains_key(&v) || !self.is_f32(v) {
            return false;
        }
        let p = given.or_else(|| {
            let (lo, hi) = self.ranges.get(&(self.body, v)).copied()?;
            Some(asymmetric(lo, hi, self.bits))
        });
        match p {
            Some(p) => {
                self.params.insert(v, p);
                true
            }
            None => false,
        }
    }

    fn is_f32(&self, v: ValueId) -> bool {
        let f32t = self.ctx.float_type(FloatKind::F32);
        self.ctx.type_data(self.type_of(v)).element_type() == Some(f32t)
    }

    /// `v` replaced, for its users, by `dequantize(quantize(v))` to `ty`.
    fn qdq(&mut self, v: ValueId, ty: TypeId) -> Result<(), String> {
        let users: Vec<OpId> = self.ir.body(self.body).value_users(v).collect();
        let (point, loc) = self.after(v)?;
        let float = self.type_of(v);
        let mut b = Builder::new(self.ctx, self.ir, self.body, point, loc);
        let qv = graph::Quantize::build(&mut b, v, ty).result()?;
        let dv = graph::Dequantize::build(&mut b, qv, float).result()?;
        for user in users {
            let b = self.ir.body_mut(self.body);
            let slots: Vec<usize> = (0..b.operands(user).len())
                .filter(|i| b.operand(user, *i) == v)
                .collect();
            for i in slots {
                b.set_operand(user, i, dv);
            }
        }
        Ok(())
    }

    /// Where ops computing from `v` go: after its definition (at the start of the
    /// block for an argument), and the location they take.
    fn after(&self, v: ValueId) -> Result<(InsertPoint, acc_ir::AttrId), String> {
        let b = self.ir.body(self.body);
        match b.value(v).def {
            ValueDef::Result(op, _) => {
                let next = b.next_op(op).ok_or("no op after")?;
                Ok((InsertPoint::Before(next), b.op(op).loc))
            }
            ValueDef::BlockArg(block, _) => {
                let first = b.block_ops(block).next().ok_or("an empty block")?;
                Ok((InsertPoint::Before(first), b.op(first).loc))
            }
            ValueDef::Detached => Err("a detached value".into()),
        }
    }

    /// The constant weight and bias of a product, quantized: weights per output
    /// channel, symmetric; the bias to i32 in the accumulator's scale.
    fn weights(&mut self, op: OpId) -> Result<(), String> {
        let kind = self.kind(op);
        let operands: Vec<ValueId> = self.ir.body(self.body).operands(op).collect();
        let (Some(&x), Some(&w)) = (operands.first(), operands.get(1)) else {
            return Ok(());
        };
        let Some(&(s_x, _)) = self.params.get(&x) else {
            return Ok(());
        };
        let Some(dense) = self.constant_floats(w) else {
            return Ok(());
        };
        let (shape, _) = ranked(self.ctx, self.type_of(w), "a weight")?;
        let trans_b =
            acc_dialects::hooks::attr_read::Attrs::of_op(self.ctx, self.ir.op(self.body, op))
                .flag(graph::Gemm::ATTR_TRANS_B);
        let axis = match kind {
            Some(graph::Op::Conv2d) => 0,
            Some(graph::Op::Gemm) if trans_b => 0,
            _ => shape.len().saturating_sub(1),
        };
        // A vector's one dimension is summed over: one scale for all of it.
        let (ints, scales) = if shape.len() >= 2 {
            per_channel(&dense, &shape, axis, self.bits)
        } else {
            per_channel(&dense, &[1, dense.len() as i64], 0, self.bits)
        };
        let params: Vec<Params> = scales.iter().map(|s| (*s, 0)).collect();
        let q_ty = self.quant_type(self.type_of(w), &params, Some(axis as i32), self.bits)?;
        let int_ty = self.int_tensor(&shape, self.bits);
        let dq = self.dequantized_constant(op, &ints, int_ty, q_ty, self.type_of(w))?;
        self.ir.body_mut(self.body).set_operand(op, 1, dq);
        let vector = |v: ValueId| {
            self.ctx
                .type_data(self.type_of(v))
                .shape()
                .map(|s| s.to_vec())
        };
        if let Some(&b) = operands.get(2)
            && vector(b) == Some(vec![scales.len() as i64])
            && let Some(bias) = self.constant_floats(b)
        {
            let scales: Vec<f64> = scales
                .iter()
                .map(|s_w| f64::from((s_x * s_w) as f32))
                .collect();
            let ints: Vec<Scalar> = bias
                .iter()
                .zip(&scales)
                .map(|(v, s)| {
                    Scalar::Int(
                        (v / s)
                            .round_ties_even()
                            .clamp(i32::MIN as f64, i32::MAX as f64)
                            as i128,
                    )
                })
                .collect();
            let params: Vec<Params> = scales.iter().map(|s| (*s, 0)).collect();
            let bias_ty = self.type_of(b);
            let q_ty = self.quant_type(bias_ty, &params, Some(0), 32)?;
            let int_ty = self.int_tensor(&[scales.len() as i64], 32);
            let dq = self.dequantized_constant(op, &ints, int_ty, q_ty, bias_ty)?;
            self.ir.body_mut(self.body).set_operand(op, 2, dq);
        }
        Ok(())
    }

    /// The elements of a float constant.
    fn constant_floats(&self, v: ValueId) -> Option<Vec<f64>> {
        let attr = acc_ir::rewrite::constant_value(self.ctx, self.ir, self.body, v)?;
        let dense = elements::dense(self.ctx, attr)?;
        let n = elements::num_elements(self.ctx, self.type_of(v))?;
        (0..n)
            .map(|i| match dense.get(i) {
                Scalar::Float(f) => Some(f),
                Scalar::Int(_) => None,
            })
            .collect()
    }

    /// `dequantize(storage_cast(constant ints))` before `op`.
    fn dequantized_constant(
        &mut self,
        op: OpId,
        ints: &[Scalar],
        int_ty: TypeId,
        q_ty: TypeId,
        float: TypeId,
    ) -> Result<ValueId, String> {
        let attr = elements::dense_attr(self.ctx, int_ty, ints).ok_or("a weight constant")?;
        let loc = self.ir.body(self.body).op(op).loc;
        let mut b = Builder::new(self.ctx, self.ir, self.body, InsertPoint::Before(op), loc);
        let cv = graph::Constant::build(&mut b, int_ty)
            .value(attr)
            .result()?;
        let sv = graph::StorageCast::build(&mut b, cv, q_ty).result()?;
        graph::Dequantize::build(&mut b, sv, float).result()
    }

    fn int_tensor(&self, shape: &[i64], bits: u32) -> TypeId {
        self.ctx
            .intern_type(tensor(shape.to_vec(), self.ctx.int_type(bits)))
    }

    /// `float_ty` with its float elements quantized: signed, `bits` wide, per tensor
    /// (one parameter pair) or along `axis`.
    fn quant_type(
        &self,
        float_ty: TypeId,
        params: &[Params],
        axis: Option<i32>,
        bits: u32,
    ) -> Result<TypeId, String> {
        let (shape, element) = ranked(self.ctx, float_ty, "a quantized value")?;
        let q = QuantUniform {
            storage_width: bits,
            storage_signed: true,
            storage_range: None,
            expressed: element,
            axis: if params.len() > 1 { axis } else { None },
            params: params.iter().map(|(s, z)| (s.to_bits(), *z)).collect(),
        };
        let element = self.ctx.intern_type(TypeData::QuantUniform(q));
        Ok(self.ctx.intern_type(tensor(shape, element)))
    }
}

/// Asymmetric parameters mapping `[min(lo, 0), max(hi, 0)]` onto the signed
/// `bits`-bit range; the scale rounded to f32.
fn asymmetric(lo: f64, hi: f64, bits: u32) -> Params {
    let (qmin, qmax) = QuantUniform::full_range(bits, true);
    let (lo, hi) = (lo.min(0.0), hi.max(0.0));
    if hi - lo <= 0.0 {
        return (1.0, 0);
    }
    let scale = f64::from(((hi - lo) / (qmax - qmin) as f64) as f32);
    let zero = (qmin as f64 - lo / scale)
        .round_ties_even()
        .clamp(qmin as f64, qmax as f64);
    (scale, zero as i64)
}

/// Symmetric per-channel quantization of `w` (of `shape`) along `axis`: the stored
/// integers and each channel's scale (its largest magnitude onto the largest stored
/// value; f32).
fn per_channel(w: &[f64], shape: &[i64], axis: usize, bits: u32) -> (Vec<Scalar>, Vec<f64>) {
    let (_, qmax) = QuantUniform::full_range(bits, true);
    let (qmin, _) = QuantUniform::full_range(bits, true);
    let channels = shape[axis] as usize;
    let inner: usize = shape[axis + 1..].iter().product::<i64>() as usize;
    let channel = |i: usize| (i / inner.max(1)) % channels.max(1);
    let mut largest = vec![0f64; channels];
    for (i, v) in w.iter().enumerate() {
        largest[channel(i)] = largest[channel(i)].max(v.abs());
    }
    let scales: Vec<f64> = largest
        .iter()
        .map(|m| {
            if *m > 0.0 {
                f64::from((m / qmax as f64) as f32)
            } else {
                1.0
            }
        })
        .collect();
    let ints = w
        .iter()
        .enumerate()
        .map(|(i, v)| {
            Scalar::Int(
                (v / scales[channel(i)])
                    .round_ties_even()
                    .clamp(qmin as f64, qmax as f64) as i128,
            )
        })
        .collect();
    (ints, scales)
}
