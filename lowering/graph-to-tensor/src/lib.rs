//! # acc-graph-to-tensor
//!
//! `graph-to-tensor`: graph ops as the tensor dialect's destination-passing ops.
//!
//! - elementwise ops become a `tensor.map` whose region computes one element with
//!   `arith` and `math` ops; operands of another shape are first broadcast (numpy
//!   rules) with `tensor.broadcast` after reshaping away their stretched dimensions;
//! - matmul and gemm become `tensor.matmul` / `tensor.batch_matmul` into a zero (or
//!   bias) init, with transposes and scalings as their own ops;
//! - conv2d becomes `tensor.pad` (when padded) and `tensor.conv2d` into the broadcast
//!   bias; pools and global pools `tensor.pool`; softmax reductions, broadcasts and
//!   maps; batch_norm one map with per-channel factors computed on the parameters;
//! - reshapes (reshape, flatten, squeeze, unsqueeze) collapse to one dimension and
//!   expand to the result's shape; transpose is `tensor.transpose`; constants become
//!   `arith.constant`;
//! - cast is a map of one conversion; concat `tensor.insert_slice`s into an empty
//!   result; slice a `tensor.extract_slice` (a `tensor.generate` for negative steps);
//!   pad a `tensor.pad` (constant) or a `tensor.generate` gathering at clamped,
//!   mirrored or wrapped indices; the reductions a `tensor.reduce` over their axes;
//!   sort a `tensor.sort`, and topk its first k; resize one `tensor.generate` per
//!   resampled dimension, reading taps computed at compile time from tables;
//!   non_max_suppression a `tensor.non_max_suppression` into a static init of as
//!   many rows as it can select, then the first rows it did select (a slice of
//!   dynamic size);
//! - gather, gather_elements and gather_nd a `tensor.generate` reading the indices
//!   and then the input; arg_max, arg_min and cumsum a `tensor.generate` whose
//!   region walks the line with a `loop.for`;
//! - the quantized ops work on the stored integers (`tensor.bitcast`): quantize and
//!   dequantize as generates, qmatmul and qconv2d as the integer product or
//!   convolution of the centered operands, then requantized.
//!
//! An op it does not lower (or a case it does not handle, such as dynamic shapes) is
//! an error at the op: the pass never leaves a half-lowered function silently.

#![deny(missing_docs)]

use acc_dialects::build::BuildExt as _;
use acc_dialects::hooks::attr_read::Attrs;
use acc_dialects::math_functions::math_of_graph;
use acc_dialects::ops::{arith, func, graph, math, tensor};
use acc_ir::{BodyId, Context, DiagLoc, Diagnostic, InsertPoint, Ir, OpId, TypeId, ValueId};
use acc_pass::{Pass, PassInfo, PassOptions, PassTarget};

use acc_dialects::build::{Builder, i64s, is_float, reassociation, shape_of, tensor_type};

mod bias;
mod data;
mod elementwise;
mod gather;
mod nms;
mod nn;
mod quant;
mod resample;
mod signless;

use nn::{batch_norm, conv2d, gemm, layer_norm, matmul, pool, softmax};

/// The pass.
pub struct GraphToTensor;

/// Its registration.
pub fn info() -> PassInfo {
    PassInfo {
        name: "graph-to-tensor",
        title: "GraphToTensor",
        summary: "Lower graph ops to the tensor dialect's destination-passing ops",
        anchor: Some(func::Func::NAME),
        options: Vec::new(),
        create: |_: &PassOptions| Ok(Box::new(GraphToTensor)),
    }
}

impl Pass for GraphToTensor {
    fn run(&self, t: &mut PassTarget<'_>) -> Result<(), Diagnostic> {
        for (body, _) in t.bodies() {
            lower_body(t.ctx, t.ir, body)?;
        }
        Ok(())
    }
}

/// The ops of `body` named `graph.*`, in order.
fn graph_ops(ctx: &Context, ir: &Ir, body: BodyId) -> Vec<OpId> {
    let b = ir.body(body);
    let mut out = Vec::new();
    for region in b.top_regions().to_vec() {
        for block in b.region_blocks(region) {
            for op in b.block_ops(block) {
                // Placed ops stay for `bufferize`, which calls their intrinsics.
                if ctx
                    .op_name_str(ir.op(body, op).name())
                    .starts_with("graph.")
                    && acc_target::placement::placement(ctx, ir, body, op).is_none()
                {
                    out.push(op);
                }
            }
        }
    }
    out
}

fn lower_body(ctx: &Context, ir: &mut Ir, body: BodyId) -> Result<(), Diagnostic> {
    widen_narrow_float_sums(ctx, ir, body)?;
    for op in graph_ops(ctx, ir, body) {
        let r = ir.op(body, op);
        let loc = r.loc();
        let name = ctx.op_name_str(r.name()).to_string();
        let created = ir.body(body).created_ops();
        let mut e = Builder::new(ctx, &mut *ir, body, InsertPoint::Before(op), loc);
        let values = lower_op(&mut e, op, &name).map_err(|m| {
            Diagnostic::error(DiagLoc::Loc(loc), format!("cannot lower '{name}': {m}"))
        })?;
        let results: Vec<ValueId> = ir.body(body).results(op).collect();
        for (old, new) in results.into_iter().zip(values) {
            ir.body_mut(body).replace_all_uses(old, new);
        }
        // An op a programmable device runs: so do the ops it became.
        if let Some(device) = acc_target::placement::code_device(ctx, ir, body, op) {
            acc_target::placement::mark_lowered(
                ctx,
                ir,
                body,
                created,
                op,
                &device,
                |_, _, _, _| true,
            );
        }
        ir.erase_op(body, op);
    }
    bias::fold_matmul_biases(ctx, ir, body)
        .and_then(|()| signless::make_signless(ctx, ir, body))
        .map_err(|m| Diagnostic::error(DiagLoc::Unknown, format!("graph-to-tensor: {m}")))
}

/// The ops that add up many values (matmuls, gemms, convolutions, average pools,
/// sum, mean and product reductions, softmax, layer and batch normalization) on
/// `f16` or `bf16` compute in `f32`: their float operands are cast up and their
/// result cast back (graph casts, lowered with the rest). Their sums then round once
/// at the end, as the interpreter's do and as onnxruntime's half-precision kernels
/// accumulate in `f32`; added up in the narrow type, a long sum loses most of its
/// digits.
fn widen_narrow_float_sums(ctx: &Context, ir: &mut Ir, body: BodyId) -> Result<(), Diagnostic> {
    use graph::Op as G;
    let narrow = |t: TypeId| {
        let e = ctx.type_data(t).element_type().unwrap_or(t);
        matches!(
            ctx.type_data(e),
            acc_ir::TypeData::Float(acc_ir::FloatKind::F16 | acc_ir::FloatKind::BF16)
        )
    };
    let f32t = ctx.float_type(acc_ir::FloatKind::F32);
    let wide = |t: TypeId| -> Result<TypeId, String> {
        let (shape, _) = shape_of(ctx, t)?;
        Ok(tensor_type(ctx, &shape, f32t))
    };
    for op in graph_ops(ctx, ir, body) {
        let r = ir.op(body, op);
        let loc = r.loc();
        let sums = matches!(
            G::of(ctx, r),
            Some(
                G::Matmul
                    | G::Gemm
                    | G::Conv2d
                    | G::AvgPool
                    | G::GlobalAvgPool
                    | G::ReduceSum
                    | G::ReduceMean
                    | G::ReduceProd
                    | G::Softmax
                    | G::LayerNorm
                    | G::BatchNorm
            )
        );
        let results: Vec<ValueId> = ir.body(body).results(op).collect();
        let [result] = results[..] else {
            continue;
        };
        let ty = ir.body(body).value_type(result);
        if !sums || !narrow(ty) {
            continue;
        }
        let fail =
            |m: String| Diagnostic::error(DiagLoc::Loc(loc), format!("graph-to-tensor: {m}"));
        let operands: Vec<ValueId> = ir.body(body).operands(op).collect();
        for (i, v) in operands.into_iter().enumerate() {
            let t = ir.body(body).value_type(v);
            if narrow(t) {
                let to = wide(t).map_err(fail)?;
                let mut e = Builder::new(ctx, &mut *ir, body, InsertPoint::Before(op), loc);
                let up = e.op1(graph::Cast::NAME, &[v], to, &[]).map_err(fail)?;
                ir.body_mut(body).set_operand(op, i, up);
            }
        }
        let next = ir
            .body(body)
            .next_op(op)
            .ok_or_else(|| fail("an op ends its block".into()))?;
        ir.body_mut(body)
            .set_value_type(result, wide(ty).map_err(fail)?);
        let mut e = Builder::new(ctx, &mut *ir, body, InsertPoint::Before(next), loc);
        let back = e.op1(graph::Cast::NAME, &[result], ty, &[]).map_err(fail)?;
        let back_op = match ir.body(body).value(back).def {
            acc_ir::ValueDef::Result(o, _) => o,
            _ => continue,
        };
        ir.body_mut(body).replace_all_uses(result, back);
        ir.body_mut(body).set_operand(back_op, 0, result);
    }
    Ok(())
}

/// The operands, result types and attributes of the op being lowered.
struct Parts {
    operands: Vec<ValueId>,
    results: Vec<TypeId>,
}

fn parts(e: &Builder<'_>, op: OpId) -> Parts {
    let r = e.ir.op(e.body, op);
    Parts {
        operands: r.operands().collect(),
        results: r.result_types().to_vec(),
    }
}

/// One element of an elementwise op, computed from the elements of its operands.
#[derive(Clone, Copy)]
enum Elementwise {
    Unary(graph::Op),
    Binary(graph::Op),
}

fn lower_op(e: &mut Builder<'_>, op: OpId, name: &str) -> Result<Vec<ValueId>, String> {
    use graph::Op as G;
    let p = parts(e, op);
    let attrs_op = e.ir.op(e.body, op);
    let kind = G::of(e.ctx, attrs_op);
    let out = *p.results.first().ok_or("an op without results")?;
    // A library's numbers (a call's semantics region sets them) are not lowered:
    // the loops would compute what the types say instead.
    if attrs_op
        .attr(e.ctx, acc_dialects::hooks::params::PARAMS_ATTR)
        .is_some()
    {
        return Err(
            "its 'params' (the numbers a library call is given) are not lowered to loops; only an accelerator call's semantics holds them".into(),
        );
    }
    if kind == Some(G::NonMaxSuppression) {
        let [boxes, scores] = p.operands[..] else {
            return Err("expects boxes and scores".into());
        };
        let a = Attrs::of_op(e.ctx, attrs_op);
        return Ok(vec![nms::non_max_suppression(e, boxes, scores, out, &a)?]);
    }
    let (out_shape, _) = shape_of(e.ctx, out)?;
    // The attributes are read now: the emitter borrows the IR mutably below.
    let attrs = AttrValues::read(e.ctx, attrs_op);
    let a = Attrs::of_op(e.ctx, attrs_op);
    let rounding = acc_dialects::hooks::graph_fold::cast_rounding(e.ctx, attrs_op);
    let requant = acc_dialects::hooks::requant_scheme(e.ctx, attrs_op);
    // The clamp of a quantized op's result (its storage range, or a fused
    // activation's).
    let bounds = match kind {
        Some(
            G::Qconv2d | G::Qmatmul | G::Qadd | G::Qmul | G::Requantize | G::QavgPool | G::Rescale,
        ) if !matches!(quant_result(e.ctx, out), Some(false)) => {
            acc_dialects::hooks::activation_bounds(e.ctx, attrs_op)?
        }
        _ => (0, 0),
    };
    if let Some(G::Sort | G::Topk) = kind {
        let outs = [out, *p.results.get(1).ok_or("a sort without indices")?];
        return data::sort(e, kind == Some(G::Topk), p.operands[0], outs, &a);
    }
    let v = match kind {
        Some(G::Constant) => {
            let value = attrs.value.ok_or("a constant without a value")?;
            arith::Constant::build(e, out).value(value).result()?
        }
        Some(
            k @ (G::Relu
            | G::Sigmoid
            | G::Tanh
            | G::Exp
            | G::Log
            | G::Sqrt
            | G::Neg
            | G::Abs
            | G::Floor
            | G::Ceil
            | G::Round
            | G::Erf
            | G::Gelu
            | G::Clip
            | G::BitwiseNot
            | G::Sin
            | G::Cos
            | G::Tan
            | G::Asin
            | G::Acos
            | G::Atan
            | G::Sinh
            | G::Cosh
            | G::Asinh
            | G::Acosh
            | G::Atanh),
        ) => {
            let x = p.operands[0];
            let (_, elem) = shape_of(e.ctx, out)?;
            if k == G::Sigmoid && elem == e.ctx.float_type(acc_ir::FloatKind::F32) {
                sigmoid_in_two_maps(e, x, out, elem)?
            } else {
                map_elements(e, &[x], out, Elementwise::Unary(k), &attrs)?
            }
        }
        Some(
            k @ (G::Equal
            | G::Less
            | G::Greater
            | G::LessEqual
            | G::GreaterEqual
            | G::And
            | G::Or
            | G::Xor),
        ) => {
            let a = broadcast_to(e, p.operands[0], &out_shape)?;
            let b = broadcast_to(e, p.operands[1], &out_shape)?;
            let operand_type = e.type_of(a);
            let elem = e
                .ctx
                .type_data(operand_type)
                .element_type()
                .ok_or("not a tensor")?;
            map_with(e, &[a, b], out, &mut |inner, args| {
                compare(inner, k, args, elem)
            })?
        }
        Some(G::Not) => {
            let bool_type = e.ctx.int_type(1);
            map_with(e, &[p.operands[0]], out, &mut |inner, args| {
                let one = inner.scalar(bool_type, 1.0)?;
                arith::Xori::build(inner, args[0], one, bool_type).result()
            })?
        }
        Some(G::Where) => {
            let (_, elem) = shape_of(e.ctx, out)?;
            let mut operands = Vec::new();
            for v in &p.operands[..3] {
                operands.push(broadcast_to(e, *v, &out_shape)?);
            }
            map_with(e, &operands, out, &mut |inner, args| {
                arith::Select::build(inner, args[0], args[1], args[2], elem).result()
            })?
        }
        Some(
            k @ (G::Add
            | G::Sub
            | G::Mul
            | G::Div
            | G::Max
            | G::Min
            | G::Pow
            | G::Mod
            | G::Fmod
            | G::BitwiseAnd
            | G::BitwiseOr
            | G::BitwiseXor
            | G::ShiftLeft
            | G::ShiftRight),
        ) => {
            let a = broadcast_to(e, p.operands[0], &out_shape)?;
            let b = broadcast_to(e, p.operands[1], &out_shape)?;
            map_elements(e, &[a, b], out, Elementwise::Binary(k), &attrs)?
        }
        Some(G::Reshape | G::Flatten | G::Squeeze | G::Unsqueeze) => {
            reshape(e, p.operands[0], &out_shape)?
        }
        Some(G::Transpose) => {
            let perm = attrs
                .ints(graph::Transpose::ATTR_PERM)
                .unwrap_or_else(|| (0..out_shape.len() as i64).rev().collect());
            let init = tensor::Empty::build(e, &[], out).result()?;
            let pa = i64s(e.ctx, &perm);
            tensor::Transpose::build(e, p.operands[0], init, out)
                .permutation(pa)
                .result()?
        }
        Some(G::Matmul) => matmul(e, p.operands[0], p.operands[1], out)?,
        Some(G::Gemm) => gemm(e, &p, out, &attrs)?,
        Some(G::Conv2d) => conv2d(e, &p, out, &attrs)?,
        Some(k @ (G::MaxPool | G::AvgPool | G::GlobalMaxPool | G::GlobalAvgPool)) => {
            pool(e, k, p.operands[0], out, &attrs)?
        }
        Some(G::Softmax) => softmax(e, p.operands[0], out, &attrs)?,
        Some(G::BatchNorm) => batch_norm(e, &p.operands, out, &attrs)?,
        Some(G::LayerNorm) => layer_norm(e, &p.operands, out, &attrs)?,
        Some(G::Cast) => data::cast(
            e,
            p.operands[0],
            out,
            a.flag(graph::Cast::ATTR_WRAP),
            a.flag(graph::Cast::ATTR_SATURATE),
            rounding,
        )?,
        Some(G::Concat) => data::concat(e, &p.operands, out, &a)?,
        Some(G::Slice) => data::slice(e, p.operands[0], out, &a)?,
        Some(G::Pad) => {
            let mode = attrs.text(graph::Pad::ATTR_MODE);
            let mode = ["edge", "reflect", "wrap"]
                .into_iter()
                .find(|m| mode.contains(m))
                .unwrap_or("constant");
            data::pad(e, p.operands[0], out, &a, mode)?
        }
        Some(G::Resize) => resample::resize(e, p.operands[0], out, &a)?,
        Some(G::Gather) => gather::gather(e, p.operands[0], p.operands[1], out, &a)?,
        Some(G::GatherElements) => {
            gather::gather_elements(e, p.operands[0], p.operands[1], out, &a)?
        }
        Some(G::GatherNd) => gather::gather_nd(e, p.operands[0], p.operands[1], out, &a)?,
        Some(k @ (G::ArgMax | G::ArgMin)) => {
            gather::arg_reduce(e, k == G::ArgMax, p.operands[0], out, &a)?
        }
        Some(G::Cumsum) => gather::cumsum(e, p.operands[0], out, &a)?,
        Some(G::Quantize) => quant::quantize(e, p.operands[0], out)?,
        Some(G::Dequantize) => quant::dequantize(e, p.operands[0], out)?,
        Some(G::StorageCast) => tensor::Bitcast::build(e, p.operands[0], out).result()?,
        Some(G::Qmatmul) => quant::qmatmul(e, &p, out, requant, bounds)?,
        Some(G::Qadd) => quant::qadd(e, p.operands[0], p.operands[1], out, requant, bounds)?,
        Some(G::Qmul) => quant::qmul(e, p.operands[0], p.operands[1], out, requant, bounds)?,
        Some(G::Requantize) => quant::requantize_op(e, p.operands[0], out, requant, bounds)?,
        Some(G::QavgPool) => quant::qavg_pool(e, p.operands[0], out, &attrs, requant, bounds)?,
        Some(G::Rescale) => {
            let [x, m, s] = p.operands[..] else {
                return Err("rescale takes an input, multipliers and shifts".into());
            };
            let rank = shape_of(e.ctx, e.type_of(x))?.0.len();
            let axis = match a.int("axis")? {
                Some(d) => Some(acc_dialects::hooks::attr_read::norm_axis(d, rank, "axis")?),
                None => None,
            };
            quant::rescale(e, [x, m, s], axis, out, bounds)?
        }
        Some(G::Lookup) => quant::lookup(e, p.operands[0], p.operands[1], out)?,
        Some(G::Qconv2d) => quant::qconv2d(e, &p, out, &attrs, requant, bounds)?,
        Some(k @ (G::ReduceSum | G::ReduceMean | G::ReduceMax | G::ReduceMin | G::ReduceProd)) => {
            data::reduce(e, k, p.operands[0], out, &a)?
        }
        // `name` is `graph.*` (see `graph_ops`): an op added to the graph dialect at
        // run time (sort, topk and non_max_suppression returned above).
        _ => {
            return Err(format!("{name} has no lowering to the tensor dialect yet"));
        }
    };
    Ok(vec![v])
}

/// Whether tensor type `ty` has a quantized element type (`None` when it is not a
/// tensor).
fn quant_result(ctx: &Context, ty: TypeId) -> Option<bool> {
    let element = ctx.type_data(ty).element_type()?;
    Some(matches!(
        ctx.type_data(element),
        acc_ir::TypeData::QuantUniform(_)
    ))
}

/// An f32 sigmoid as two maps, `t = exp(-x)` then `1 / (1 + t)` (the same operations
/// as one map): a target with a library exponential finishes the first map with it
/// (`bufferize`'s `exp` kernel, 16 lanes on AVX-512), and the second fuses with what
/// follows (SiLU's product); without one, `fuse-parallel` joins them again.
fn sigmoid_in_two_maps(
    e: &mut Builder<'_>,
    x: ValueId,
    out: TypeId,
    elem: TypeId,
) -> Result<ValueId, String> {
    let t = map_with(e, &[x], out, &mut |inner, args| {
        let n = arith::Negf::build(inner, args[0], elem).result()?;
        math_op(inner, math::Op::Exp, n, elem)
    })?;
    map_with(e, &[t], out, &mut |inner, args| {
        let one = inner.scalar(elem, 1.0)?;
        let d = arith_op(inner, arith::Op::Addf, None, &[one, args[0]], elem)?;
        arith_op(inner, arith::Op::Divf, None, &[one, d], elem)
    })
}

/// The attributes lowerings read, captured before the IR is changed.
struct AttrValues<'c> {
    ctx: &'c Context,
    value: Option<acc_ir::AttrId>,
    all: Vec<(String, acc_ir::AttrId)>,
}

impl<'c> AttrValues<'c> {
    fn read(ctx: &'c Context, op: acc_ir::OpRef<'_>) -> AttrValues<'c> {
        let names = [
            graph::Constant::ATTR_VALUE,
            graph::Transpose::ATTR_PERM,
            graph::Gemm::ATTR_ALPHA,
            graph::Gemm::ATTR_BETA,
            graph::Gemm::ATTR_TRANS_A,
            graph::Gemm::ATTR_TRANS_B,
            graph::Conv2d::ATTR_STRIDES,
            graph::Conv2d::ATTR_PADS,
            graph::Conv2d::ATTR_DILATIONS,
            graph::Conv2d::ATTR_GROUPS,
            graph::AvgPool::ATTR_KERNEL_SHAPE,
            graph::AvgPool::ATTR_CEIL_MODE,
            graph::AvgPool::ATTR_COUNT_INCLUDE_PAD,
            graph::Softmax::ATTR_AXIS,
            graph::BatchNorm::ATTR_EPSILON,
            graph::Clip::ATTR_MIN,
            graph::Clip::ATTR_MAX,
            graph::Gelu::ATTR_APPROXIMATE,
            graph::Pad::ATTR_MODE,
        ];
        let attrs = Attrs::of_op(ctx, op);
        let all: Vec<(String, acc_ir::AttrId)> = names
            .iter()
            .filter_map(|n| attrs.get(n).map(|a| (n.to_string(), a)))
            .collect();
        AttrValues {
            ctx,
            value: attrs.get(graph::Constant::ATTR_VALUE),
            all,
        }
    }

    fn get(&self, name: &str) -> Option<acc_ir::AttrId> {
        self.all.iter().find(|(n, _)| n == name).map(|(_, a)| *a)
    }

    fn ints(&self, name: &str) -> Option<Vec<i64>> {
        let a = self.get(name)?;
        match self.ctx.attr_data(a) {
            acc_ir::attrs::AttrData::DenseArray { data, .. } => Some(
                data.chunks_exact(8)
                    .map(|c| i64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
                    .collect(),
            ),
            _ => None,
        }
    }

    fn number(&self, name: &str) -> Option<f64> {
        let a = self.get(name)?;
        acc_ir::elements::scalar(self.ctx, a).map(|(_, v)| match v {
            acc_ir::elements::Scalar::Int(i) => i as f64,
            acc_ir::elements::Scalar::Float(f) => f,
        })
    }

    fn flag(&self, name: &str) -> bool {
        self.number(name).is_some_and(|v| v != 0.0)
    }

    fn text(&self, name: &str) -> String {
        self.get(name)
            .map(|a| acc_ir::printer::attr_to_string(self.ctx, a))
            .unwrap_or_default()
    }
}

/// `tensor.map` over same-shaped `inputs` into a new tensor of type `out`, each element
/// computed by `what`.
fn map_elements(
    e: &mut Builder<'_>,
    inputs: &[ValueId],
    out: TypeId,
    what: Elementwise,
    attrs: &AttrValues<'_>,
) -> Result<ValueId, String> {
    let (_, elem) = shape_of(e.ctx, out)?;
    map_with(e, inputs, out, &mut |inner, args| {
        element(inner, what, args, elem, attrs)
    })
}

/// A comparison or logical op on two elements of type `elem`: `arith.cmpf` (ordered:
/// a NaN compares false) or `arith.cmpi` (signed, or unsigned for unsigned types),
/// `arith.andi`/`ori`/`xori` on booleans.
fn compare(
    e: &mut Builder<'_>,
    k: graph::Op,
    args: &[ValueId],
    elem: TypeId,
) -> Result<ValueId, String> {
    use acc_dialects::build::{cmpf, cmpi};
    use graph::Op as G;
    let (a, b) = (args[0], args[1]);
    let bool_type = e.ctx.int_type(1);
    match k {
        G::And => return arith::Andi::build(e, a, b, bool_type).result(),
        G::Or => return arith::Ori::build(e, a, b, bool_type).result(),
        G::Xor => return arith::Xori::build(e, a, b, bool_type).result(),
        _ => {}
    }
    if is_float(e.ctx, elem) {
        let predicate = match k {
            G::Equal => cmpf::OEQ,
            G::Less => cmpf::OLT,
            G::Greater => cmpf::OGT,
            G::LessEqual => cmpf::OLE,
            _ => cmpf::OGE,
        };
        return e.cmpf(predicate, a, b);
    }
    let predicate = match (k, is_unsigned(e.ctx, elem)) {
        (G::Equal, _) => cmpi::EQ,
        (G::Less, false) => cmpi::SLT,
        (G::Greater, false) => cmpi::SGT,
        (G::LessEqual, false) => cmpi::SLE,
        (_, false) => cmpi::SGE,
        (G::Less, true) => cmpi::ULT,
        (G::Greater, true) => cmpi::UGT,
        (G::LessEqual, true) => cmpi::ULE,
        (_, true) => cmpi::UGE,
    };
    e.cmpi(predicate, a, b)
}

/// True for unsigned integer types (`ui8`..`ui64`): their ops are the unsigned
/// forms (`divui`, `maxui`, `cmpi ult`, ...) on the signless integers below the graph
/// level (see [`signless`]).
pub(crate) fn is_unsigned(ctx: &Context, elem: TypeId) -> bool {
    matches!(
        ctx.type_data(elem),
        acc_ir::TypeData::Integer {
            signedness: acc_ir::Signedness::Unsigned,
            ..
        }
    )
}

/// `x` (a tensor of integers) with the sign bit of every element flipped: unsigned
/// order becomes signed order, for the ops that compare signless integers as signed
/// (`tensor.pool`'s max, `tensor.sort`). Flipping again gives `x` back.
pub(crate) fn flip_sign_bits(e: &mut Builder<'_>, x: ValueId) -> Result<ValueId, String> {
    let ty = e.type_of(x);
    let (_, elem) = shape_of(e.ctx, ty)?;
    let acc_ir::TypeData::Integer { width, .. } = *e.ctx.type_data(elem) else {
        return Err("flips the sign bits of integers only".into());
    };
    let bit = acc_ir::elements::scalar_attr(
        e.ctx,
        elem,
        acc_ir::elements::Scalar::Int(1i128 << (width.clamp(1, 64) - 1)),
    )
    .ok_or("cannot make the sign bit")?;
    map_with(e, &[x], ty, &mut |inner, args| {
        let sign = arith::Constant::build(inner, elem).value(bit).result()?;
        arith::Xori::build(inner, args[0], sign, elem).result()
    })
}

/// Computes one element from the elements of the inputs.
type ElementBuilder<'f> = dyn FnMut(&mut Builder<'_>, &[ValueId]) -> Result<ValueId, String> + 'f;

/// A `tensor.map` with a region built by `f` (for lowerings composing several maps).
/// An input whose elements all have one known value (a one-element constant
/// broadcast, as `clip(x + 3, 0, 6)` writes its 3) is not an input: the region
/// computes with that value as an `arith.constant`, so no buffer of copies is made.
pub(crate) fn map_with(
    e: &mut Builder<'_>,
    inputs: &[ValueId],
    out: TypeId,
    f: &mut ElementBuilder<'_>,
) -> Result<ValueId, String> {
    let element_type = |e: &Builder<'_>, v: ValueId| {
        let t = e.type_of(v);
        e.ctx.type_data(t).element_type().unwrap_or(t)
    };
    let mut splats: Vec<Option<acc_ir::AttrId>> = inputs
        .iter()
        .map(|v| splat_constant(e, *v, element_type(e, *v)))
        .collect();
    if splats.iter().all(Option::is_some) {
        // A map keeps one input (the shapes come from its inputs and init).
        if let Some(first) = splats.first_mut() {
            *first = None;
        }
    }
    let kept: Vec<ValueId> = inputs
        .iter()
        .zip(&splats)
        .filter(|(_, s)| s.is_none())
        .map(|(v, _)| *v)
        .collect();
    let arg_types: Vec<TypeId> = kept.iter().map(|v| element_type(e, *v)).collect();
    let types: Vec<TypeId> = inputs.iter().map(|v| element_type(e, *v)).collect();
    let init = tensor::Empty::build(e, &[], out).result()?;
    let mut fill = |inner: &mut Builder<'_>, args: &[ValueId]| -> Result<Vec<ValueId>, String> {
        let mut given = args.iter();
        let mut all = Vec::with_capacity(splats.len());
        for (splat, ty) in splats.iter().zip(&types) {
            all.push(match splat {
                Some(value) => arith::Constant::build(inner, *ty).value(*value).result()?,
                None => *given.next().ok_or("a map input is missing")?,
            });
        }
        Ok(vec![f(inner, &all)?])
    };
    let mapper = e.region(&arg_types, tensor::Yield::NAME, &mut fill)?;
    let map = tensor::Map::build(e, &kept, init, out)
        .mapper(mapper)
        .result()?;
    for (v, splat) in inputs.iter().zip(&splats) {
        if splat.is_some() {
            erase_unused(e, *v);
        }
    }
    Ok(map)
}

/// Erases the op defining `v` when nothing uses its results any more, and then, the
/// same way, the ops defining its operands (the broadcasts, reshapes, inits and
/// constants a map no longer reads: no later pass has to remove them).
fn erase_unused(e: &mut Builder<'_>, v: ValueId) {
    let mut work = vec![v];
    while let Some(v) = work.pop() {
        let body = e.ir.body(e.body);
        let acc_ir::ValueDef::Result(op, _) = body.value(v).def else {
            continue;
        };
        if body.results(op).any(|r| body.has_uses(r)) || !body.op_regions(op).is_empty() {
            continue;
        }
        let r = e.ir.op(e.body, op);
        let removable = tensor::Broadcast::is(e.ctx, r)
            || tensor::CollapseShape::is(e.ctx, r)
            || tensor::ExpandShape::is(e.ctx, r)
            || tensor::Empty::is(e.ctx, r)
            || arith::Constant::is(e.ctx, r);
        if !removable {
            continue;
        }
        work.extend(body.operands(op));
        e.ir.body_mut(e.body).erase_op(op);
    }
}

/// The scalar attribute (of type `elem`) every element of `v` equals, when `v` is a
/// splat constant or a constant of one element, seen through broadcasts and reshapes.
fn splat_constant(e: &Builder<'_>, mut v: ValueId, elem: TypeId) -> Option<acc_ir::AttrId> {
    let body = e.ir.body(e.body);
    loop {
        let acc_ir::ValueDef::Result(op, _) = body.value(v).def else {
            return None;
        };
        let r = e.ir.op(e.body, op);
        if tensor::Broadcast::is(e.ctx, r)
            || tensor::CollapseShape::is(e.ctx, r)
            || tensor::ExpandShape::is(e.ctx, r)
        {
            v = body.operand(op, 0);
            continue;
        }
        if !arith::Constant::is(e.ctx, r) {
            return None;
        }
        let value = r.attr(e.ctx, arith::Constant::ATTR_VALUE)?;
        let view = acc_ir::elements::dense_view(e.ctx, value)?;
        if view.stored() != 1 || view.element != elem {
            return None;
        }
        return acc_ir::elements::scalar_attr(e.ctx, elem, view.get(0));
    }
}

/// One arith op on elements of type `elem`: `float_op` (`addf`) on floats, else
/// `int_op` (`addi`), an error when there is none.
pub(crate) fn arith_op(
    e: &mut Builder<'_>,
    float_op: arith::Op,
    int_op: Option<arith::Op>,
    args: &[ValueId],
    elem: TypeId,
) -> Result<ValueId, String> {
    let op = if is_float(e.ctx, elem) {
        float_op
    } else {
        int_op.ok_or_else(|| format!("'{}' has no integer form here", float_op.short_name()))?
    };
    e.op1(op.name(), args, elem, &[])
}

/// The one-operand math op `f` on `x` of float type `elem`.
pub(crate) fn math_op(
    e: &mut Builder<'_>,
    f: math::Op,
    x: ValueId,
    elem: TypeId,
) -> Result<ValueId, String> {
    if !is_float(e.ctx, elem) {
        return Err(format!("{} needs floats", f.name()));
    }
    e.op1(f.name(), &[x], elem, &[])
}

/// The element computation of an elementwise graph op.
fn element(
    e: &mut Builder<'_>,
    what: Elementwise,
    args: &[ValueId],
    elem: TypeId,
    attrs: &AttrValues<'_>,
) -> Result<ValueId, String> {
    use arith::Op as A;
    use graph::Op as G;
    let float = is_float(e.ctx, elem);
    let unsigned = is_unsigned(e.ctx, elem);
    let (max, min) = if unsigned {
        (A::Maxui, A::Minui)
    } else {
        (A::Maxsi, A::Minsi)
    };
    match what {
        Elementwise::Binary(op) => {
            let (f, i) = match op {
                G::Add => (A::Addf, A::Addi),
                G::Sub => (A::Subf, A::Subi),
                G::Mul => (A::Mulf, A::Muli),
                G::Div if unsigned => (A::Divf, A::Divui),
                G::Div => (A::Divf, A::Divsi),
                G::Max => (A::Maximumf, max),
                G::Min => (A::Minimumf, min),
                G::Mod | G::Fmod => {
                    return elementwise::remainder(e, op == G::Mod, args[0], args[1], elem);
                }
                G::BitwiseAnd => (A::Andi, A::Andi),
                G::BitwiseOr => (A::Ori, A::Ori),
                G::BitwiseXor => (A::Xori, A::Xori),
                G::ShiftLeft | G::ShiftRight => {
                    return elementwise::shift(e, op == G::ShiftLeft, args[0], args[1], elem);
                }
                _ if float => return math::Powf::build(e, args[0], args[1], elem).result(),
                _ => return elementwise::integer_power(e, args[0], args[1], elem),
            };
            if float && matches!(op, G::BitwiseAnd | G::BitwiseOr | G::BitwiseXor) {
                return Err(format!("'{}' needs integers", op.short_name()));
            }
            arith_op(e, f, Some(i), args, elem)
        }
        Elementwise::Unary(op) => {
            let x = args[0];
            if let Some(f) = math_of_graph(op) {
                return math_op(e, f, x, elem);
            }
            match op {
                // No unsigned integer is below zero.
                G::Relu | G::Abs if unsigned => Ok(x),
                G::Relu => {
                    let zero = e.scalar(elem, 0.0)?;
                    arith_op(e, A::Maximumf, Some(A::Maxsi), &[x, zero], elem)
                }
                G::Neg if float => arith::Negf::build(e, x, elem).result(),
                G::Neg => {
                    let zero = e.scalar(elem, 0.0)?;
                    arith::Subi::build(e, zero, x, elem).result()
                }
                G::Abs if float => math_op(e, math::Op::Absf, x, elem),
                G::Abs => {
                    let zero = e.scalar(elem, 0.0)?;
                    let n = arith::Subi::build(e, zero, x, elem).result()?;
                    arith::Maxsi::build(e, x, n, elem).result()
                }
                G::Sigmoid => {
                    // 1 / (1 + exp(-x))
                    let n = arith::Negf::build(e, x, elem).result()?;
                    let ex = math_op(e, math::Op::Exp, n, elem)?;
                    let one = e.scalar(elem, 1.0)?;
                    let d = arith_op(e, A::Addf, None, &[one, ex], elem)?;
                    arith_op(e, A::Divf, None, &[one, d], elem)
                }
                G::Gelu => {
                    let half = e.scalar(elem, 0.5)?;
                    let one = e.scalar(elem, 1.0)?;
                    let inner = if attrs.text(graph::Gelu::ATTR_APPROXIMATE).contains("tanh") {
                        // tanh(sqrt(2/pi) * (x + 0.044715 x^3))
                        let c = e.scalar(elem, (2.0 / std::f64::consts::PI).sqrt())?;
                        let k = e.scalar(elem, 0.044715)?;
                        let x2 = arith_op(e, A::Mulf, None, &[x, x], elem)?;
                        let x3 = arith_op(e, A::Mulf, None, &[x2, x], elem)?;
                        let kx3 = arith_op(e, A::Mulf, None, &[k, x3], elem)?;
                        let s = arith_op(e, A::Addf, None, &[x, kx3], elem)?;
                        let cs = arith_op(e, A::Mulf, None, &[c, s], elem)?;
                        math_op(e, math::Op::Tanh, cs, elem)?
                    } else {
                        // erf(x / sqrt(2))
                        let r = e.scalar(elem, std::f64::consts::FRAC_1_SQRT_2)?;
                        let xs = arith_op(e, A::Mulf, None, &[x, r], elem)?;
                        math_op(e, math::Op::Erf, xs, elem)?
                    };
                    let s = arith_op(e, A::Addf, None, &[one, inner], elem)?;
                    let hx = arith_op(e, A::Mulf, None, &[half, x], elem)?;
                    arith_op(e, A::Mulf, None, &[hx, s], elem)
                }
                G::BitwiseNot => elementwise::bitwise_not(e, x, elem),
                G::Clip => {
                    // numpy.clip: max with the lower bound, then min with the upper.
                    let mut y = x;
                    if let Some(lo) = attrs.number(graph::Clip::ATTR_MIN) {
                        let c = e.scalar(elem, lo)?;
                        y = arith_op(e, A::Maximumf, Some(max), &[y, c], elem)?;
                    }
                    if let Some(hi) = attrs.number(graph::Clip::ATTR_MAX) {
                        let c = e.scalar(elem, hi)?;
                        y = arith_op(e, A::Minimumf, Some(min), &[y, c], elem)?;
                    }
                    Ok(y)
                }
                other => Err(format!("no element lowering for '{}'", other.short_name())),
            }
        }
    }
}

/// `x` reshaped to `shape` (same number of elements): collapsed to one dimension,
/// then expanded.
pub(crate) fn reshape(e: &mut Builder<'_>, x: ValueId, shape: &[i64]) -> Result<ValueId, String> {
    let (from, elem) = shape_of(e.ctx, e.type_of(x))?;
    if from == shape {
        return Ok(x);
    }
    let n: i64 = from.iter().product();
    let flat_ty = tensor_type(e.ctx, &[n], elem);
    let flat = match from.len() {
        1 => x,
        0 => {
            let r = reassociation(e.ctx, &[]);
            let os = i64s(e.ctx, &[1]);
            tensor::ExpandShape::build(e, x, &[], flat_ty)
                .reassociation(r)
                .static_output_shape(os)
                .result()?
        }
        rank => {
            let r = reassociation(e.ctx, &[(0..rank as i64).collect()]);
            tensor::CollapseShape::build(e, x, flat_ty)
                .reassociation(r)
                .result()?
        }
    };
    let out = tensor_type(e.ctx, shape, elem);
    match shape.len() {
        1 => Ok(flat),
        0 => {
            let r = reassociation(e.ctx, &[]);
            tensor::CollapseShape::build(e, flat, out)
                .reassociation(r)
                .result()
        }
        rank => {
            let r = reassociation(e.ctx, &[(0..rank as i64).collect()]);
            let os = i64s(e.ctx, shape);
            tensor::ExpandShape::build(e, flat, &[], out)
                .reassociation(r)
                .static_output_shape(os)
                .result()
        }
    }
}

/// `x` broadcast to `shape` by numpy's rules.
pub(crate) fn broadcast_to(
    e: &mut Builder<'_>,
    x: ValueId,
    shape: &[i64],
) -> Result<ValueId, String> {
    let (from, elem) = shape_of(e.ctx, e.type_of(x))?;
    if from == shape {
        return Ok(x);
    }
    let lead = shape
        .len()
        .checked_sub(from.len())
        .ok_or("cannot broadcast to a lower rank")?;
    let mut kept = Vec::new();
    let mut added = Vec::new();
    for (d, &n) in shape.iter().enumerate() {
        let f = if d < lead { 1 } else { from[d - lead] };
        if f == n {
            kept.push(n);
        } else if f == 1 {
            added.push(d as i64);
        } else {
            return Err(format!("{from:?} does not broadcast to {shape:?}"));
        }
    }
    let core = reshape(e, x, &kept)?;
    let out = tensor_type(e.ctx, shape, elem);
    let init = tensor::Empty::build(e, &[], out).result()?;
    let dims = i64s(e.ctx, &added);
    tensor::Broadcast::build(e, core, init, out)
        .dimensions(dims)
        .result()
}

/// A tensor of type `ty` with every element `value`.
pub(crate) fn filled(e: &mut Builder<'_>, ty: TypeId, value: f64) -> Result<ValueId, String> {
    let (_, elem) = shape_of(e.ctx, ty)?;
    let v = if is_float(e.ctx, elem) {
        acc_ir::elements::Scalar::Float(value)
    } else {
        acc_ir::elements::Scalar::Int(value as i128)
    };
    let attr = acc_ir::elements::dense_attr(e.ctx, ty, &[v]).ok_or("cannot make a constant")?;
    arith::Constant::build(e, ty).value(attr).result()
}
