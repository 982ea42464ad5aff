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
//! - the quantized ops work on the stored integers (`tensor.bitcast`): quantize and
//!   dequantize as generates, qmatmul and qconv2d as the integer product or
//!   convolution of the centered operands, then requantized.
//!
//! An op it does not lower (or a case it does not handle, such as dynamic shapes) is
//! an error at the op: the pass never leaves a half-lowered function silently.

#![deny(missing_docs)]

use acc_dialects::build::BuildExt as _;
use acc_dialects::hooks::attr_read::Attrs;
use acc_ir::{BodyId, Context, DiagLoc, Diagnostic, InsertPoint, Ir, OpId, TypeId, ValueId};
use acc_pass::{Pass, PassInfo, PassOptions, PassTarget};

use acc_dialects::build::{Builder, i64s, is_float, reassociation, shape_of, tensor_type};

mod data;
mod nms;
mod nn;
mod quant;
mod resample;

use nn::{batch_norm, conv2d, gemm, layer_norm, matmul, pool, softmax};

/// The pass.
pub struct GraphToTensor;

/// Its registration.
pub fn info() -> PassInfo {
    PassInfo {
        name: "graph-to-tensor",
        title: "GraphToTensor",
        summary: "Lower graph ops to the tensor dialect's destination-passing ops",
        anchor: Some("func.func"),
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
    for op in graph_ops(ctx, ir, body) {
        let r = ir.op(body, op);
        let loc = r.loc();
        let name = ctx.op_name_str(r.name()).to_string();
        let mut e = Builder::new(ctx, &mut *ir, body, InsertPoint::Before(op), loc);
        let values = lower_op(&mut e, op, &name).map_err(|m| {
            Diagnostic::error(DiagLoc::Loc(loc), format!("cannot lower '{name}': {m}"))
        })?;
        let results: Vec<ValueId> = ir.body(body).results(op).collect();
        for (old, new) in results.into_iter().zip(values) {
            ir.body_mut(body).replace_all_uses(old, new);
        }
        ir.erase_op(body, op);
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
enum Elementwise<'n> {
    Unary(&'n str),
    Binary(&'n str),
}

fn lower_op(e: &mut Builder<'_>, op: OpId, name: &str) -> Result<Vec<ValueId>, String> {
    let p = parts(e, op);
    let attrs_op = e.ir.op(e.body, op);
    let short = name.trim_start_matches("graph.");
    let out = *p.results.first().ok_or("an op without results")?;
    if short == "non_max_suppression" {
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
    if let "sort" | "topk" = short {
        let outs = [out, *p.results.get(1).ok_or("a sort without indices")?];
        return data::sort(e, short == "topk", p.operands[0], outs, &a);
    }
    let v = match short {
        "constant" => {
            let value = attrs.value.ok_or("a constant without a value")?;
            e.op1("arith.constant", &[], out, &[("value", value)])?
        }
        "relu" | "sigmoid" | "tanh" | "exp" | "log" | "sqrt" | "neg" | "abs" | "erf" | "gelu"
        | "clip" => {
            let x = p.operands[0];
            map_elements(e, &[x], out, Elementwise::Unary(short), &attrs)?
        }
        "add" | "sub" | "mul" | "div" | "max" | "min" | "pow" => {
            let a = broadcast_to(e, p.operands[0], &out_shape)?;
            let b = broadcast_to(e, p.operands[1], &out_shape)?;
            map_elements(e, &[a, b], out, Elementwise::Binary(short), &attrs)?
        }
        "reshape" | "flatten" | "squeeze" | "unsqueeze" => reshape(e, p.operands[0], &out_shape)?,
        "transpose" => {
            let perm = attrs
                .ints("perm")
                .unwrap_or_else(|| (0..out_shape.len() as i64).rev().collect());
            let init = e.op1("tensor.empty", &[], out, &[])?;
            let pa = i64s(e.ctx, &perm);
            e.op1(
                "tensor.transpose",
                &[p.operands[0], init],
                out,
                &[("permutation", pa)],
            )?
        }
        "matmul" => matmul(e, p.operands[0], p.operands[1], out)?,
        "gemm" => gemm(e, &p, out, &attrs)?,
        "conv2d" => conv2d(e, &p, out, &attrs)?,
        "max_pool" | "avg_pool" | "global_max_pool" | "global_avg_pool" => {
            pool(e, short, p.operands[0], out, &attrs)?
        }
        "softmax" => softmax(e, p.operands[0], out, &attrs)?,
        "batch_norm" => batch_norm(e, &p.operands, out, &attrs)?,
        "layer_norm" => layer_norm(e, &p.operands, out, &attrs)?,
        "cast" => data::cast(e, p.operands[0], out, a.flag("wrap"))?,
        "concat" => data::concat(e, &p.operands, out, &a)?,
        "slice" => data::slice(e, p.operands[0], out, &a)?,
        "pad" => {
            let mode = attrs.text("mode");
            let mode = ["edge", "reflect", "wrap"]
                .into_iter()
                .find(|m| mode.contains(m))
                .unwrap_or("constant");
            data::pad(e, p.operands[0], out, &a, mode)?
        }
        "resize" => resample::resize(e, p.operands[0], out, &a)?,
        "quantize" => quant::quantize(e, p.operands[0], out)?,
        "dequantize" => quant::dequantize(e, p.operands[0], out)?,
        "storage_cast" => e.op1("tensor.bitcast", &[p.operands[0]], out, &[])?,
        "qmatmul" => quant::qmatmul(e, &p, out)?,
        "lookup" => quant::lookup(e, p.operands[0], p.operands[1], out)?,
        "qconv2d" => quant::qconv2d(e, &p, out, &attrs)?,
        "reduce_sum" | "reduce_mean" | "reduce_max" | "reduce_min" | "reduce_prod" => {
            data::reduce(e, short, p.operands[0], out, &a)?
        }
        other => {
            return Err(format!(
                "graph.{other} has no lowering to the tensor dialect yet"
            ));
        }
    };
    Ok(vec![v])
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
            "value",
            "perm",
            "alpha",
            "beta",
            "transA",
            "transB",
            "strides",
            "pads",
            "dilations",
            "groups",
            "kernel_shape",
            "ceil_mode",
            "count_include_pad",
            "axis",
            "epsilon",
            "min",
            "max",
            "approximate",
            "mode",
        ];
        let attrs = Attrs::of_op(ctx, op);
        let all: Vec<(String, acc_ir::AttrId)> = names
            .iter()
            .filter_map(|n| attrs.get(n).map(|a| (n.to_string(), a)))
            .collect();
        AttrValues {
            ctx,
            value: attrs.get("value"),
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
    what: Elementwise<'_>,
    attrs: &AttrValues<'_>,
) -> Result<ValueId, String> {
    let (_, elem) = shape_of(e.ctx, out)?;
    map_with(e, inputs, out, &mut |inner, args| {
        element(inner, what, args, elem, attrs)
    })
}

/// Computes one element from the elements of the inputs.
type ElementBuilder<'f> = dyn FnMut(&mut Builder<'_>, &[ValueId]) -> Result<ValueId, String> + 'f;

/// A `tensor.map` with a region built by `f` (for lowerings composing several maps).
pub(crate) fn map_with(
    e: &mut Builder<'_>,
    inputs: &[ValueId],
    out: TypeId,
    f: &mut ElementBuilder<'_>,
) -> Result<ValueId, String> {
    let arg_types: Vec<TypeId> = inputs
        .iter()
        .map(|v| {
            let t = e.type_of(*v);
            e.ctx.type_data(t).element_type().unwrap_or(t)
        })
        .collect();
    let init = e.op1("tensor.empty", &[], out, &[])?;
    let mut operands = inputs.to_vec();
    operands.push(init);
    let mut fill = |inner: &mut Builder<'_>, args: &[ValueId]| -> Result<Vec<ValueId>, String> {
        Ok(vec![f(inner, args)?])
    };
    Ok(e.op_with_region(
        "tensor.map",
        &operands,
        &[out],
        &[],
        &arg_types,
        "tensor.yield",
        &mut fill,
    )?[0])
}

/// One arith op on elements of type `elem` (`addf` or `addi` by the type).
pub(crate) fn arith(
    e: &mut Builder<'_>,
    float_op: &str,
    int_op: &str,
    args: &[ValueId],
    elem: TypeId,
) -> Result<ValueId, String> {
    let name = if is_float(e.ctx, elem) {
        float_op
    } else {
        int_op
    };
    if name.is_empty() {
        return Err(format!("'{float_op}' has no integer form here"));
    }
    e.op1(&format!("arith.{name}"), args, elem, &[])
}

pub(crate) fn math(
    e: &mut Builder<'_>,
    f: &str,
    x: ValueId,
    elem: TypeId,
) -> Result<ValueId, String> {
    if !is_float(e.ctx, elem) {
        return Err(format!("math.{f} needs floats"));
    }
    e.op1(&format!("math.{f}"), &[x], elem, &[])
}

/// The element computation of an elementwise graph op.
fn element(
    e: &mut Builder<'_>,
    what: Elementwise<'_>,
    args: &[ValueId],
    elem: TypeId,
    attrs: &AttrValues<'_>,
) -> Result<ValueId, String> {
    let float = is_float(e.ctx, elem);
    match what {
        Elementwise::Binary(op) => {
            let (f, i) = match op {
                "add" => ("addf", "addi"),
                "sub" => ("subf", "subi"),
                "mul" => ("mulf", "muli"),
                "div" => ("divf", "divsi"),
                "max" => ("maximumf", "maxsi"),
                "min" => ("minimumf", "minsi"),
                _ => {
                    if !float {
                        return Err("integer pow has no lowering yet".into());
                    }
                    return e.op1("math.powf", args, elem, &[]);
                }
            };
            arith(e, f, i, args, elem)
        }
        Elementwise::Unary(op) => {
            let x = args[0];
            match op {
                "relu" => {
                    let zero = e.scalar(elem, 0.0)?;
                    arith(e, "maximumf", "maxsi", &[x, zero], elem)
                }
                "neg" if float => e.op1("arith.negf", &[x], elem, &[]),
                "neg" => {
                    let zero = e.scalar(elem, 0.0)?;
                    arith(e, "", "subi", &[zero, x], elem)
                }
                "abs" if float => math(e, "absf", x, elem),
                "abs" => {
                    let zero = e.scalar(elem, 0.0)?;
                    let n = arith(e, "", "subi", &[zero, x], elem)?;
                    arith(e, "", "maxsi", &[x, n], elem)
                }
                "sigmoid" => {
                    // 1 / (1 + exp(-x))
                    let n = e.op1("arith.negf", &[x], elem, &[])?;
                    let ex = math(e, "exp", n, elem)?;
                    let one = e.scalar(elem, 1.0)?;
                    let d = arith(e, "addf", "", &[one, ex], elem)?;
                    arith(e, "divf", "", &[one, d], elem)
                }
                "tanh" | "exp" | "log" | "sqrt" | "erf" => math(e, op, x, elem),
                "gelu" => {
                    let half = e.scalar(elem, 0.5)?;
                    let one = e.scalar(elem, 1.0)?;
                    let inner = if attrs.text("approximate").contains("tanh") {
                        // tanh(sqrt(2/pi) * (x + 0.044715 x^3))
                        let c = e.scalar(elem, (2.0 / std::f64::consts::PI).sqrt())?;
                        let k = e.scalar(elem, 0.044715)?;
                        let x2 = arith(e, "mulf", "", &[x, x], elem)?;
                        let x3 = arith(e, "mulf", "", &[x2, x], elem)?;
                        let kx3 = arith(e, "mulf", "", &[k, x3], elem)?;
                        let s = arith(e, "addf", "", &[x, kx3], elem)?;
                        let cs = arith(e, "mulf", "", &[c, s], elem)?;
                        math(e, "tanh", cs, elem)?
                    } else {
                        // erf(x / sqrt(2))
                        let r = e.scalar(elem, std::f64::consts::FRAC_1_SQRT_2)?;
                        let xs = arith(e, "mulf", "", &[x, r], elem)?;
                        math(e, "erf", xs, elem)?
                    };
                    let s = arith(e, "addf", "", &[one, inner], elem)?;
                    let hx = arith(e, "mulf", "", &[half, x], elem)?;
                    arith(e, "mulf", "", &[hx, s], elem)
                }
                "clip" => {
                    // numpy.clip: max with the lower bound, then min with the upper.
                    let mut y = x;
                    if let Some(lo) = attrs.number("min") {
                        let c = e.scalar(elem, lo)?;
                        y = arith(e, "maximumf", "maxsi", &[y, c], elem)?;
                    }
                    if let Some(hi) = attrs.number("max") {
                        let c = e.scalar(elem, hi)?;
                        y = arith(e, "minimumf", "minsi", &[y, c], elem)?;
                    }
                    Ok(y)
                }
                other => Err(format!("no element lowering for '{other}'")),
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
            e.op1(
                "tensor.expand_shape",
                &[x],
                flat_ty,
                &[("reassociation", r), ("static_output_shape", os)],
            )?
        }
        rank => {
            let r = reassociation(e.ctx, &[(0..rank as i64).collect()]);
            e.op1(
                "tensor.collapse_shape",
                &[x],
                flat_ty,
                &[("reassociation", r)],
            )?
        }
    };
    let out = tensor_type(e.ctx, shape, elem);
    match shape.len() {
        1 => Ok(flat),
        0 => {
            let r = reassociation(e.ctx, &[]);
            e.op1(
                "tensor.collapse_shape",
                &[flat],
                out,
                &[("reassociation", r)],
            )
        }
        rank => {
            let r = reassociation(e.ctx, &[(0..rank as i64).collect()]);
            let os = i64s(e.ctx, shape);
            e.op1(
                "tensor.expand_shape",
                &[flat],
                out,
                &[("reassociation", r), ("static_output_shape", os)],
            )
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
    let init = e.op1("tensor.empty", &[], out, &[])?;
    let dims = i64s(e.ctx, &added);
    e.op1(
        "tensor.broadcast",
        &[core, init],
        out,
        &[("dimensions", dims)],
    )
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
    e.op1("arith.constant", &[], ty, &[("value", attr)])
}
