//! Shape inference of the `graph` dialect (`defs/graph.acc`), following ONNX's rules.
//! Each `infer_*` hook reads the operand types and attributes of an op and gives its
//! result types, or says why they are invalid; dynamic dimensions (`?`) propagate.
//! The shape functions they are built from are public: lowerings and the interpreter
//! compute the same shapes with them.

use crate::ops::graph;
use acc_ir::{Context, DYNAMIC, InferInput, TypeData, TypeId};

use super::attr_read::{Attrs, dims_agree, is_dyn, norm_axis, operands, product, ranked, tensor};

type Inferred = Result<Vec<TypeData>, String>;

/// Numpy broadcasting of two shapes.
pub fn broadcast_shapes(a: &[i64], b: &[i64]) -> Result<Vec<i64>, String> {
    let rank = a.len().max(b.len());
    let mut out = vec![0; rank];
    for i in 0..rank {
        let da = if i < rank - a.len() {
            1
        } else {
            a[i - (rank - a.len())]
        };
        let db = if i < rank - b.len() {
            1
        } else {
            b[i - (rank - b.len())]
        };
        out[i] = match (da, db) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            (x, y) if is_dyn(x) => y,
            (x, y) if is_dyn(y) => x,
            _ => {
                return Err(format!(
                    "operand shapes {a:?} and {b:?} do not broadcast (dimension {i}: {da} vs {db})"
                ));
            }
        };
    }
    Ok(out)
}

/// Elementwise binary ops: the broadcast shape, the element type of the left operand.
pub(crate) fn infer_broadcast(ctx: &Context, input: &InferInput<'_>) -> Inferred {
    let ops = operands(input, 2)?;
    let (a, ea) = ranked(ctx, ops[0], "operand #0")?;
    let (b, _) = ranked(ctx, ops[1], "operand #1")?;
    Ok(vec![tensor(broadcast_shapes(&a, &b)?, ea)])
}

/// Comparisons: the broadcast shape, of `i1`.
pub(crate) fn infer_compare(ctx: &Context, input: &InferInput<'_>) -> Inferred {
    let ops = operands(input, 2)?;
    let (a, _) = ranked(ctx, ops[0], "operand #0")?;
    let (b, _) = ranked(ctx, ops[1], "operand #1")?;
    Ok(vec![tensor(broadcast_shapes(&a, &b)?, ctx.int_type(1))])
}

/// `where`: the broadcast shape of all three operands, the element type of the
/// values.
pub(crate) fn infer_where(ctx: &Context, input: &InferInput<'_>) -> Inferred {
    let ops = operands(input, 3)?;
    let (c, _) = ranked(ctx, ops[0], "the condition")?;
    let (x, ex) = ranked(ctx, ops[1], "the true value")?;
    let (y, _) = ranked(ctx, ops[2], "the false value")?;
    let shape = broadcast_shapes(&broadcast_shapes(&c, &x)?, &y)?;
    Ok(vec![tensor(shape, ex)])
}

/// Output size of a sliding window over `size` elements.
fn window_out(
    size: i64,
    pad: i64,
    kernel: i64,
    stride: i64,
    dilation: i64,
    ceil: bool,
) -> Result<i64, String> {
    if is_dyn(size) {
        return Ok(DYNAMIC);
    }
    let span = dilation * (kernel - 1) + 1;
    let room = size + pad - span;
    if room < 0 {
        return Err(format!(
            "a window of {span} does not fit in {size} elements padded by {pad}"
        ));
    }
    let mut out = if ceil {
        (room + stride - 1) / stride + 1
    } else {
        room / stride + 1
    };
    // A last window starting in the padding after the input is dropped.
    if ceil && (out - 1) * stride >= size + pad / 2 + pad % 2 {
        out -= 1;
    }
    Ok(out)
}

/// The spatial attributes of a 2-D window op.
pub struct Window {
    /// Vertical and horizontal strides.
    pub strides: [i64; 2],
    /// Top, left, bottom, right padding.
    pub pads: [i64; 4],
    /// Vertical and horizontal dilations.
    pub dilations: [i64; 2],
}

/// The strides, pads and dilations of a 2-D window op, checked.
fn window_attrs(attrs: &Attrs<'_>) -> Result<Window, String> {
    // conv2d, qconv2d, max_pool and avg_pool share these attribute names.
    let strides = attrs.ints_n(graph::Conv2d::ATTR_STRIDES, 2, 1)?;
    let pads = attrs.ints_n(graph::Conv2d::ATTR_PADS, 4, 0)?;
    let dilations = attrs.ints_n(graph::Conv2d::ATTR_DILATIONS, 2, 1)?;
    if strides.iter().chain(&dilations).any(|v| *v < 1) {
        return Err("strides and dilations must be positive".into());
    }
    if pads.iter().any(|v| *v < 0) {
        return Err("pads must not be negative".into());
    }
    Ok(Window {
        strides: [strides[0], strides[1]],
        pads: [pads[0], pads[1], pads[2], pads[3]],
        dilations: [dilations[0], dilations[1]],
    })
}

/// The output shape of a 2-D convolution of `input` (NCHW) by `weight` (OIHW).
pub fn conv2d_shape(
    attrs: &Attrs<'_>,
    input: &[i64],
    weight: &[i64],
    bias: Option<&[i64]>,
) -> Result<Vec<i64>, String> {
    if input.len() != 4 || weight.len() != 4 {
        return Err("input and weight must be 4-D (NCHW and OIHW)".into());
    }
    let Window {
        strides,
        pads,
        dilations,
    } = window_attrs(attrs)?;
    // conv2d and qconv2d share the attribute name.
    let groups = attrs.int(graph::Conv2d::ATTR_GROUPS)?.unwrap_or(1);
    if groups < 1 {
        return Err("attribute 'groups' must be positive".into());
    }
    let (c, m) = (input[1], weight[0]);
    if !is_dyn(c) && !is_dyn(weight[1]) && c != weight[1] * groups {
        return Err(format!(
            "input has {c} channels, but the weight expects {} x {groups} groups",
            weight[1]
        ));
    }
    if !is_dyn(m) && m % groups != 0 {
        return Err(format!(
            "{m} output channels do not split into {groups} groups"
        ));
    }
    if let Some(b) = bias
        && (b.len() != 1 || !dims_agree(b[0], m))
    {
        return Err(format!(
            "bias must have one value per output channel ({m}), but has shape {b:?}"
        ));
    }
    let h = window_out(
        input[2],
        pads[0] + pads[2],
        weight[2],
        strides[0],
        dilations[0],
        false,
    )?;
    let w = window_out(
        input[3],
        pads[1] + pads[3],
        weight[3],
        strides[1],
        dilations[1],
        false,
    )?;
    Ok(vec![input[0], m, h, w])
}

pub(crate) fn infer_conv2d(ctx: &Context, input: &InferInput<'_>) -> Inferred {
    let ops = operands(input, 2)?;
    let (x, element) = ranked(ctx, ops[0], "input")?;
    let (w, _) = ranked(ctx, ops[1], "weight")?;
    let bias = match ops.get(2) {
        Some(t) => Some(ranked(ctx, *t, "bias")?.0),
        None => None,
    };
    let attrs = Attrs::of_input(ctx, input);
    Ok(vec![tensor(
        conv2d_shape(&attrs, &x, &w, bias.as_deref())?,
        element,
    )])
}

/// numpy.matmul's result shape.
pub fn matmul_shape(a: &[i64], b: &[i64]) -> Result<Vec<i64>, String> {
    if a.is_empty() || b.is_empty() {
        return Err("matmul operands must have rank 1 or more".into());
    }
    let a2: Vec<i64> = if a.len() == 1 {
        vec![1, a[0]]
    } else {
        a.to_vec()
    };
    let b2: Vec<i64> = if b.len() == 1 {
        vec![b[0], 1]
    } else {
        b.to_vec()
    };
    let (m, k) = (a2[a2.len() - 2], a2[a2.len() - 1]);
    let (k2, n) = (b2[b2.len() - 2], b2[b2.len() - 1]);
    if !dims_agree(k, k2) {
        return Err(format!("contracting dimensions differ: {k} vs {k2}"));
    }
    let mut out = broadcast_shapes(&a2[..a2.len() - 2], &b2[..b2.len() - 2])?;
    if a.len() > 1 {
        out.push(m);
    }
    if b.len() > 1 {
        out.push(n);
    }
    Ok(out)
}

pub(crate) fn infer_matmul(ctx: &Context, input: &InferInput<'_>) -> Inferred {
    let ops = operands(input, 2)?;
    let (a, element) = ranked(ctx, ops[0], "operand #0")?;
    let (b, _) = ranked(ctx, ops[1], "operand #1")?;
    Ok(vec![tensor(matmul_shape(&a, &b)?, element)])
}

pub(crate) fn infer_gemm(ctx: &Context, input: &InferInput<'_>) -> Inferred {
    let ops = operands(input, 2)?;
    let (a, element) = ranked(ctx, ops[0], "a")?;
    let (b, _) = ranked(ctx, ops[1], "b")?;
    let attrs = Attrs::of_input(ctx, input);
    let (m, k) = if attrs.flag(graph::Gemm::ATTR_TRANS_A) {
        (a[1], a[0])
    } else {
        (a[0], a[1])
    };
    let (k2, n) = if attrs.flag(graph::Gemm::ATTR_TRANS_B) {
        (b[1], b[0])
    } else {
        (b[0], b[1])
    };
    if !dims_agree(k, k2) {
        return Err(format!("contracting dimensions differ: {k} vs {k2}"));
    }
    if let Some(c) = ops.get(2) {
        let (c, _) = ranked(ctx, *c, "c")?;
        let out = broadcast_shapes(&c, &[m, n])?;
        if c.len() > 2 || !out.iter().zip([m, n]).all(|(x, y)| dims_agree(*x, y)) {
            return Err(format!("c of shape {c:?} does not broadcast to [{m}, {n}]"));
        }
    }
    Ok(vec![tensor(vec![m, n], element)])
}

pub(crate) fn infer_pool(ctx: &Context, input: &InferInput<'_>) -> Inferred {
    let ops = operands(input, 1)?;
    let (x, element) = ranked(ctx, ops[0], "input")?;
    let attrs = Attrs::of_input(ctx, input);
    Ok(vec![tensor(pool_shape(&attrs, &x)?, element)])
}

/// The result shape of a pool (`max_pool`, `avg_pool`, `qavg_pool`: they share the
/// attribute names) over the NCHW input shape `x`.
pub fn pool_shape(attrs: &Attrs<'_>, x: &[i64]) -> Result<Vec<i64>, String> {
    if x.len() != 4 {
        return Err("the input must be 4-D (NCHW)".into());
    }
    let kernel = attrs
        .ints(graph::MaxPool::ATTR_KERNEL_SHAPE)?
        .ok_or("requires attribute 'kernel_shape'")?;
    if kernel.len() != 2 || kernel.iter().any(|k| *k < 1) {
        return Err("attribute 'kernel_shape' must have 2 positive values".into());
    }
    let Window {
        strides,
        pads,
        dilations,
    } = window_attrs(attrs)?;
    let ceil = attrs.flag(graph::MaxPool::ATTR_CEIL_MODE);
    let h = window_out(
        x[2],
        pads[0] + pads[2],
        kernel[0],
        strides[0],
        dilations[0],
        ceil,
    )?;
    let w = window_out(
        x[3],
        pads[1] + pads[3],
        kernel[1],
        strides[1],
        dilations[1],
        ceil,
    )?;
    Ok(vec![x[0], x[1], h, w])
}

pub(crate) fn infer_global_pool(ctx: &Context, input: &InferInput<'_>) -> Inferred {
    let ops = operands(input, 1)?;
    let (x, element) = ranked(ctx, ops[0], "input")?;
    Ok(vec![tensor(vec![x[0], x[1], 1, 1], element)])
}

/// ONNX Reshape's target shape: zeros copy the input dimension, one -1 is inferred.
pub fn reshape_shape(input: &[i64], target: &[i64]) -> Result<Vec<i64>, String> {
    let mut out: Vec<i64> = Vec::with_capacity(target.len());
    let mut infer_at = None;
    for (i, &d) in target.iter().enumerate() {
        match d {
            0 => out.push(
                *input
                    .get(i)
                    .ok_or(format!("shape copies dimension {i}, which the input lacks"))?,
            ),
            -1 if infer_at.is_none() => {
                infer_at = Some(i);
                out.push(1);
            }
            -1 => return Err("shape may hold only one -1".into()),
            d if d < 0 => return Err(format!("invalid dimension {d} in shape")),
            d => out.push(d),
        }
    }
    let total = product(input);
    let known = product(&out);
    match infer_at {
        Some(i) if is_dyn(total) || is_dyn(known) => out[i] = DYNAMIC,
        Some(_) if known == 0 || total % known != 0 => {
            return Err(format!(
                "cannot reshape {input:?} ({total} elements) to {target:?}"
            ));
        }
        Some(i) => out[i] = total / known,
        None if !is_dyn(total) && !is_dyn(known) && total != known => {
            return Err(format!(
                "cannot reshape {input:?} ({total} elements) to {target:?}"
            ));
        }
        None => {}
    }
    Ok(out)
}

pub(crate) fn infer_reshape(ctx: &Context, input: &InferInput<'_>) -> Inferred {
    let ops = operands(input, 1)?;
    let (x, element) = ranked(ctx, ops[0], "input")?;
    let target = Attrs::of_input(ctx, input)
        .ints(graph::Reshape::ATTR_SHAPE)?
        .ok_or("requires attribute 'shape'")?;
    Ok(vec![tensor(reshape_shape(&x, &target)?, element)])
}

/// The permutation of a transpose: `perm`, or the reversed dimensions.
pub fn transpose_perm(attrs: &Attrs<'_>, rank: usize) -> Result<Vec<usize>, String> {
    let Some(perm) = attrs.ints(graph::Transpose::ATTR_PERM)? else {
        return Ok((0..rank).rev().collect());
    };
    let mut seen = vec![false; rank];
    let mut out = Vec::with_capacity(rank);
    for &p in &perm {
        match usize::try_from(p) {
            Ok(i) if i < rank && !seen[i] => {
                seen[i] = true;
                out.push(i);
            }
            _ => {
                return Err(format!(
                    "perm {perm:?} is not a permutation of {rank} dimensions"
                ));
            }
        }
    }
    if out.len() != rank {
        return Err(format!(
            "perm {perm:?} is not a permutation of {rank} dimensions"
        ));
    }
    Ok(out)
}

pub(crate) fn infer_transpose(ctx: &Context, input: &InferInput<'_>) -> Inferred {
    let ops = operands(input, 1)?;
    let (x, element) = ranked(ctx, ops[0], "input")?;
    let perm = transpose_perm(&Attrs::of_input(ctx, input), x.len())?;
    Ok(vec![tensor(perm.iter().map(|&p| x[p]).collect(), element)])
}

pub(crate) fn infer_concat(ctx: &Context, input: &InferInput<'_>) -> Inferred {
    let ops = operands(input, 1)?;
    let (first, element) = ranked(ctx, ops[0], "operand #0")?;
    let axis = norm_axis(
        Attrs::of_input(ctx, input).req_int(graph::Concat::ATTR_AXIS)?,
        first.len(),
        "axis",
    )?;
    let mut out = first.clone();
    for (i, t) in ops.iter().enumerate().skip(1) {
        let (s, _) = ranked(ctx, *t, "an operand")?;
        let agree = s.len() == first.len()
            && s.iter()
                .zip(&first)
                .enumerate()
                .all(|(d, (a, b))| d == axis || dims_agree(*a, *b));
        if !agree {
            return Err(format!(
                "operand #{i} of shape {s:?} does not match {first:?} outside axis {axis}"
            ));
        }
        out[axis] = if is_dyn(out[axis]) || is_dyn(s[axis]) {
            DYNAMIC
        } else {
            out[axis] + s[axis]
        };
    }
    Ok(vec![tensor(out, element)])
}

/// One dimension of an ONNX slice: start, end and step after ONNX's clamping, and the
/// resulting size.
pub fn slice_dim(dim: i64, start: i64, end: i64, step: i64) -> (i64, i64) {
    if dim <= 0 {
        return (0, 0);
    }
    let norm = |v: i64| if v < 0 { v + dim } else { v };
    let (s, e) = (norm(start), norm(end));
    let (s, e) = if step > 0 {
        (s.clamp(0, dim), e.clamp(0, dim))
    } else {
        (s.clamp(0, dim - 1), e.clamp(-1, dim - 1))
    };
    let size = if step > 0 {
        (e - s + step - 1) / step
    } else {
        (s - e - step - 1) / -step
    };
    (s, size.max(0))
}

/// What a slice takes: the (start, step) of each dimension, and the output shape.
pub struct SlicePlan {
    /// First index and step per dimension (0 and 1 for dimensions not sliced).
    pub start_step: Vec<(i64, i64)>,
    /// The shape of the result.
    pub shape: Vec<i64>,
}

/// The plan of an ONNX slice of a tensor of `shape`.
pub fn slice_plan(attrs: &Attrs<'_>, shape: &[i64]) -> Result<SlicePlan, String> {
    let starts = attrs
        .ints(graph::Slice::ATTR_STARTS)?
        .ok_or("requires attribute 'starts'")?;
    let ends = attrs
        .ints(graph::Slice::ATTR_ENDS)?
        .ok_or("requires attribute 'ends'")?;
    let n = starts.len();
    if ends.len() != n {
        return Err("'starts' and 'ends' must have the same length".into());
    }
    let axes = attrs
        .ints(graph::Slice::ATTR_AXES)?
        .unwrap_or_else(|| (0..n as i64).collect());
    let steps = attrs
        .ints(graph::Slice::ATTR_STEPS)?
        .unwrap_or_else(|| vec![1; n]);
    if axes.len() != n || steps.len() != n {
        return Err("'axes' and 'steps' must have as many values as 'starts'".into());
    }
    let mut plan: Vec<(i64, i64)> = vec![(0, 1); shape.len()];
    let mut out = shape.to_vec();
    let mut seen = vec![false; shape.len()];
    for i in 0..n {
        let axis = norm_axis(axes[i], shape.len(), "slice axis")?;
        if std::mem::replace(&mut seen[axis], true) {
            return Err(format!("axis {axis} is sliced twice"));
        }
        if steps[i] == 0 {
            return Err("slice steps must not be 0".into());
        }
        if is_dyn(shape[axis]) {
            out[axis] = DYNAMIC;
            continue;
        }
        let (start, size) = slice_dim(shape[axis], starts[i], ends[i], steps[i]);
        plan[axis] = (start, steps[i]);
        out[axis] = size;
    }
    Ok(SlicePlan {
        start_step: plan,
        shape: out,
    })
}

pub(crate) fn infer_slice(ctx: &Context, input: &InferInput<'_>) -> Inferred {
    let ops = operands(input, 1)?;
    let (x, element) = ranked(ctx, ops[0], "input")?;
    let plan = slice_plan(&Attrs::of_input(ctx, input), &x)?;
    Ok(vec![tensor(plan.shape, element)])
}

pub(crate) fn infer_flatten(ctx: &Context, input: &InferInput<'_>) -> Inferred {
    let ops = operands(input, 1)?;
    let (x, element) = ranked(ctx, ops[0], "input")?;
    let axis = Attrs::of_input(ctx, input)
        .int(graph::Flatten::ATTR_AXIS)?
        .unwrap_or(1);
    let r = x.len() as i64;
    if axis < -r || axis > r {
        return Err(format!("axis {axis} is out of range for rank {r}"));
    }
    let axis = if axis < 0 { axis + r } else { axis } as usize;
    Ok(vec![tensor(
        vec![product(&x[..axis]), product(&x[axis..])],
        element,
    )])
}

pub(crate) fn infer_pad(ctx: &Context, input: &InferInput<'_>) -> Inferred {
    let ops = operands(input, 1)?;
    let (x, element) = ranked(ctx, ops[0], "input")?;
    let pads = Attrs::of_input(ctx, input).ints_n(graph::Pad::ATTR_PADS, 2 * x.len(), 0)?;
    let r = x.len();
    let mut out = Vec::with_capacity(r);
    for (i, &d) in x.iter().enumerate() {
        if is_dyn(d) {
            out.push(DYNAMIC);
            continue;
        }
        let size = d
            .checked_add(pads[i])
            .and_then(|s| s.checked_add(pads[r + i]))
            .ok_or_else(|| format!("pads of dimension {i} overflow 64 bits"))?;
        if size < 0 {
            return Err(format!("pads crop dimension {i} of size {d} below zero"));
        }
        out.push(size);
    }
    Ok(vec![tensor(out, element)])
}

pub(crate) fn infer_squeeze(ctx: &Context, input: &InferInput<'_>) -> Inferred {
    let ops = operands(input, 1)?;
    let (x, element) = ranked(ctx, ops[0], "input")?;
    let out = match Attrs::of_input(ctx, input).ints(graph::Squeeze::ATTR_AXES)? {
        None => x.iter().copied().filter(|d| *d != 1).collect(),
        Some(axes) => {
            let mut drop = vec![false; x.len()];
            for a in axes {
                let i = norm_axis(a, x.len(), "axis")?;
                if !dims_agree(x[i], 1) {
                    return Err(format!("cannot squeeze dimension {i} of size {}", x[i]));
                }
                drop[i] = true;
            }
            x.iter()
                .zip(drop)
                .filter(|(_, d)| !d)
                .map(|(v, _)| *v)
                .collect()
        }
    };
    Ok(vec![tensor(out, element)])
}

pub(crate) fn infer_unsqueeze(ctx: &Context, input: &InferInput<'_>) -> Inferred {
    let ops = operands(input, 1)?;
    let (x, element) = ranked(ctx, ops[0], "input")?;
    let axes = Attrs::of_input(ctx, input)
        .ints(graph::Unsqueeze::ATTR_AXES)?
        .ok_or("requires attribute 'axes'")?;
    let rank = x.len() + axes.len();
    let mut ones = vec![false; rank];
    for a in axes {
        let i = norm_axis(a, rank, "axis")?;
        if std::mem::replace(&mut ones[i], true) {
            return Err(format!("axis {i} is given twice"));
        }
    }
    let mut rest = x.iter();
    let out = ones
        .iter()
        .map(|one| if *one { 1 } else { *rest.next().unwrap_or(&1) })
        .collect();
    Ok(vec![tensor(out, element)])
}

/// The dimensions a reduction reduces: `axes`, or all.
pub fn reduce_axes(attrs: &Attrs<'_>, rank: usize) -> Result<Vec<bool>, String> {
    // The reduce_* ops share the attribute name.
    match attrs.ints(graph::ReduceSum::ATTR_AXES)? {
        None => Ok(vec![true; rank]),
        Some(axes) => {
            let mut reduced = vec![false; rank];
            for a in axes {
                reduced[norm_axis(a, rank, "axis")?] = true;
            }
            Ok(reduced)
        }
    }
}

pub(crate) fn infer_reduce(ctx: &Context, input: &InferInput<'_>) -> Inferred {
    let ops = operands(input, 1)?;
    let (x, element) = ranked(ctx, ops[0], "input")?;
    let attrs = Attrs::of_input(ctx, input);
    let reduced = reduce_axes(&attrs, x.len())?;
    // The reduce_* ops share the attribute name.
    let keep = attrs.get(graph::ReduceSum::ATTR_KEEPDIMS).is_none()
        || attrs.flag(graph::ReduceSum::ATTR_KEEPDIMS);
    let out = x
        .iter()
        .zip(&reduced)
        .filter_map(|(d, r)| match (r, keep) {
            (false, _) => Some(*d),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect();
    Ok(vec![tensor(out, element)])
}

pub(crate) fn infer_resize(ctx: &Context, input: &InferInput<'_>) -> Inferred {
    let ops = operands(input, 1)?;
    let (x, element) = ranked(ctx, ops[0], "input")?;
    let attrs = Attrs::of_input(ctx, input);
    let out = match (
        attrs.floats(graph::Resize::ATTR_SCALES)?,
        attrs.ints(graph::Resize::ATTR_SIZES)?,
    ) {
        (Some(scales), None) if scales.len() == x.len() => x
            .iter()
            .zip(&scales)
            .map(|(d, s)| {
                if is_dyn(*d) {
                    return Ok(DYNAMIC);
                }
                let size = (*d as f64 * s).floor();
                // Below 2^62: a size the element counts of later passes can multiply.
                if !(s.is_finite() && *s > 0.0 && size < (1u64 << 62) as f64) {
                    return Err(format!(
                        "scale {s} of a dimension of size {d} is not a usable size"
                    ));
                }
                Ok(size as i64)
            })
            .collect::<Result<Vec<i64>, String>>()?,
        (_, Some(sizes)) if sizes.len() == x.len() => {
            if let Some(bad) = sizes.iter().find(|s| **s < 0) {
                return Err(format!("sizes must not be negative, found {bad}"));
            }
            sizes
        }
        _ => {
            return Err(format!(
                "requires one of 'scales' or 'sizes', with {} values",
                x.len()
            ));
        }
    };
    Ok(vec![tensor(out, element)])
}

pub(crate) fn infer_topk(ctx: &Context, input: &InferInput<'_>) -> Inferred {
    let ops = operands(input, 1)?;
    let (x, element) = ranked(ctx, ops[0], "input")?;
    let attrs = Attrs::of_input(ctx, input);
    let k = attrs.req_int(graph::Topk::ATTR_K)?;
    let axis = norm_axis(
        attrs.int(graph::Topk::ATTR_AXIS)?.unwrap_or(-1),
        x.len(),
        "axis",
    )?;
    if k < 0 || (!is_dyn(x[axis]) && k > x[axis]) {
        return Err(format!(
            "k = {k} is out of range for a dimension of {}",
            x[axis]
        ));
    }
    let mut out = x.clone();
    out[axis] = k;
    let i64t = i64_type(ctx)?;
    Ok(vec![tensor(out.clone(), element), tensor(out, i64t)])
}

fn i64_type(ctx: &Context) -> Result<TypeId, String> {
    ctx.lookup_type(&TypeData::Integer {
        width: 64,
        signedness: acc_ir::Signedness::Signless,
    })
    .ok_or_else(|| "i64 is missing from the context".to_string())
}

pub(crate) fn infer_nms(ctx: &Context, input: &InferInput<'_>) -> Inferred {
    let ops = operands(input, 2)?;
    let (boxes, _) = ranked(ctx, ops[0], "boxes")?;
    let (scores, _) = ranked(ctx, ops[1], "scores")?;
    if boxes.len() != 3 || !dims_agree(boxes[2], 4) {
        return Err("boxes must be B x N x 4".into());
    }
    if scores.len() != 3 || !dims_agree(scores[0], boxes[0]) || !dims_agree(scores[2], boxes[1]) {
        return Err(format!(
            "scores {scores:?} must be B x C x N for boxes {boxes:?}"
        ));
    }
    Ok(vec![tensor(vec![DYNAMIC, 3], i64_type(ctx)?)])
}

/// Which index normalization and clamping `gather`, `gather_elements` and
/// `gather_nd` apply: a negative index counts from the end of a dimension of `dim`,
/// and one still outside it is clamped into it.
pub fn gather_index(index: i64, dim: i64) -> i64 {
    let i = if index < 0 {
        index.saturating_add(dim)
    } else {
        index
    };
    i.clamp(0, (dim - 1).max(0))
}

/// The result shape of `gather` along `axis`: input[:axis] + indices + input[axis + 1:].
pub fn gather_shape(input: &[i64], indices: &[i64], axis: usize) -> Vec<i64> {
    let mut out = input[..axis].to_vec();
    out.extend(indices);
    out.extend(&input[axis + 1..]);
    out
}

/// The result shape of `gather_nd`: indices[:q - 1] + input[batch_dims + k:], after
/// checking that the batch dimensions agree and that k fits.
pub fn gather_nd_shape(
    input: &[i64],
    indices: &[i64],
    batch_dims: i64,
) -> Result<Vec<i64>, String> {
    let q = indices.len();
    let b = usize::try_from(batch_dims)
        .ok()
        .filter(|b| *b < q && *b < input.len().max(1))
        .ok_or_else(|| format!("batch_dims {batch_dims} does not fit indices of rank {q}"))?;
    let k = indices[q - 1];
    if is_dyn(k) {
        return Err("the last dimension of the indices must be static".into());
    }
    let k = usize::try_from(k)
        .ok()
        .filter(|k| *k >= 1 && b + k <= input.len())
        .ok_or_else(|| {
            format!(
                "index tuples of {k} after {b} batch dimensions do not fit an input of rank {}",
                input.len()
            )
        })?;
    for d in 0..b {
        if !dims_agree(input[d], indices[d]) {
            return Err(format!(
                "batch dimension {d} differs: {} in the input, {} in the indices",
                input[d], indices[d]
            ));
        }
    }
    let mut out = indices[..q - 1].to_vec();
    out.extend(&input[b + k..]);
    Ok(out)
}

pub(crate) fn infer_gather(ctx: &Context, input: &InferInput<'_>) -> Inferred {
    let ops = operands(input, 2)?;
    let (x, element) = ranked(ctx, ops[0], "input")?;
    let (indices, _) = ranked(ctx, ops[1], "indices")?;
    if x.is_empty() {
        return Err("gathers from a tensor of rank 0".into());
    }
    let attrs = Attrs::of_input(ctx, input);
    let axis = norm_axis(
        attrs.int(graph::Gather::ATTR_AXIS)?.unwrap_or(0),
        x.len(),
        "axis",
    )?;
    Ok(vec![tensor(gather_shape(&x, &indices, axis), element)])
}

pub(crate) fn infer_gather_elements(ctx: &Context, input: &InferInput<'_>) -> Inferred {
    let ops = operands(input, 2)?;
    let (x, element) = ranked(ctx, ops[0], "input")?;
    let (indices, _) = ranked(ctx, ops[1], "indices")?;
    if x.len() != indices.len() || x.is_empty() {
        return Err(format!(
            "indices of rank {} for an input of rank {}",
            indices.len(),
            x.len()
        ));
    }
    let attrs = Attrs::of_input(ctx, input);
    norm_axis(
        attrs.int(graph::GatherElements::ATTR_AXIS)?.unwrap_or(0),
        x.len(),
        "axis",
    )?;
    Ok(vec![tensor(indices, element)])
}

pub(crate) fn infer_gather_nd(ctx: &Context, input: &InferInput<'_>) -> Inferred {
    let ops = operands(input, 2)?;
    let (x, element) = ranked(ctx, ops[0], "input")?;
    let (indices, _) = ranked(ctx, ops[1], "indices")?;
    if indices.is_empty() || x.is_empty() {
        return Err("gather_nd needs an input and indices of rank 1 or more".into());
    }
    let attrs = Attrs::of_input(ctx, input);
    let b = attrs.int(graph::GatherNd::ATTR_BATCH_DIMS)?.unwrap_or(0);
    Ok(vec![tensor(gather_nd_shape(&x, &indices, b)?, element)])
}

pub(crate) fn infer_arg_reduce(ctx: &Context, input: &InferInput<'_>) -> Inferred {
    let ops = operands(input, 1)?;
    let (x, _) = ranked(ctx, ops[0], "input")?;
    let attrs = Attrs::of_input(ctx, input);
    let axis = norm_axis(
        attrs.int(graph::ArgMax::ATTR_AXIS)?.unwrap_or(0),
        x.len(),
        "axis",
    )?;
    if x[axis] == 0 {
        return Err("an arg reduction over an empty axis".into());
    }
    let keep = attrs
        .get(graph::ArgMax::ATTR_KEEPDIMS)
        .is_none_or(|_| attrs.flag(graph::ArgMax::ATTR_KEEPDIMS));
    let mut out = x.clone();
    if keep {
        out[axis] = 1;
    } else {
        out.remove(axis);
    }
    Ok(vec![tensor(out, i64_type(ctx)?)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasting_follows_numpy() {
        assert_eq!(
            broadcast_shapes(&[2, 1, 4], &[3, 1]).unwrap(),
            vec![2, 3, 4]
        );
        assert_eq!(broadcast_shapes(&[], &[5]).unwrap(), vec![5]);
        assert!(broadcast_shapes(&[2, 3], &[4]).is_err());
    }

    #[test]
    fn matmul_handles_vectors_and_batches() {
        assert_eq!(matmul_shape(&[4], &[4]).unwrap(), Vec::<i64>::new());
        assert_eq!(matmul_shape(&[2, 3], &[3]).unwrap(), vec![2]);
        assert_eq!(matmul_shape(&[5, 2, 3], &[1, 3, 7]).unwrap(), vec![5, 2, 7]);
        assert!(matmul_shape(&[2, 3], &[4, 5]).is_err());
    }

    #[test]
    fn windows_and_slices() {
        assert_eq!(window_out(32, 2, 3, 1, 1, false).unwrap(), 32);
        assert_eq!(window_out(32, 0, 2, 2, 1, false).unwrap(), 16);
        assert_eq!(window_out(5, 0, 2, 2, 1, true).unwrap(), 3);
        assert_eq!(window_out(4, 0, 2, 2, 1, true).unwrap(), 2);
        assert_eq!(slice_dim(10, 1, 8, 3), (1, 3));
        assert_eq!(slice_dim(10, -1, -100, -1), (9, 10));
        assert_eq!(slice_dim(10, 20, 30, 1), (10, 0));
        assert_eq!(reshape_shape(&[2, 3, 4], &[0, -1]).unwrap(), vec![2, 12]);
        assert!(reshape_shape(&[2, 3], &[4, -1]).is_err());
    }
}
