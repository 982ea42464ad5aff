//! Verifiers of the `tensor` dialect (`defs/tensor.acc`): the shape relations between
//! operands, attributes and results that constraints cannot state.

use crate::ops::tensor;
use acc_ir::{Context, DYNAMIC, DiagLoc, Diagnostic, OpRef, TypeData, TypeId};

use super::attr_read::{Attrs, dims_agree, is_dyn, ranked};
use super::layout::Layout;

type Check = Result<(), String>;

fn report(op: OpRef<'_>, ctx: &Context, result: Check) -> Vec<Diagnostic> {
    match result {
        Ok(()) => Vec::new(),
        Err(m) => vec![Diagnostic::error(
            DiagLoc::Loc(op.loc()),
            format!("'{}' op {m}", ctx.op_name_str(op.name())),
        )],
    }
}

fn shape_of(ctx: &Context, t: TypeId) -> Result<Vec<i64>, String> {
    ranked(ctx, t, "a tensor").map(|(s, _)| s)
}

fn element_of(ctx: &Context, t: TypeId) -> TypeId {
    ctx.type_data(t).element_type().unwrap_or(t)
}

fn same_shape(a: &[i64], b: &[i64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| dims_agree(*x, *y))
}

/// `tensor.empty`: one operand per dynamic dimension.
pub(crate) fn verify_empty(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let result = (|| {
        let shape = shape_of(ctx, op.result_types()[0])?;
        let dynamic = shape.iter().filter(|d| is_dyn(**d)).count();
        if dynamic != op.operands().len() {
            return Err(format!(
                "has {} size operands for {dynamic} dynamic dimensions",
                op.operands().len()
            ));
        }
        Ok(())
    })();
    report(op, ctx, result)
}

/// The values of a static list, checked against its dynamic operands.
fn static_list(
    attrs: &Attrs<'_>,
    name: &str,
    rank: usize,
    dynamic: usize,
) -> Result<Vec<i64>, String> {
    let values = attrs
        .ints(name)?
        .ok_or(format!("requires attribute '{name}'"))?;
    if values.len() != rank {
        return Err(format!(
            "'{name}' has {} values for rank {rank}",
            values.len()
        ));
    }
    let needed = values.iter().filter(|v| is_dyn(**v)).count();
    if needed != dynamic {
        return Err(format!(
            "'{name}' has {needed} dynamic entries but {dynamic} operands give them"
        ));
    }
    Ok(values)
}

/// True when `small` is `sizes` with some unit dimensions dropped (a rank-reducing
/// slice), or exactly `sizes`.
fn rank_reduced(sizes: &[i64], small: &[i64]) -> bool {
    // Each size is kept (agreeing with the next dimension of `small`) or, when it is
    // a static 1, dropped; either may be the way through (a dynamic dimension
    // agrees with a 1 it should not take), so both are tried. Ranks are small.
    let Some((&s, rest)) = sizes.split_first() else {
        return small.is_empty();
    };
    let kept = small
        .split_first()
        .is_some_and(|(&d, tail)| dims_agree(d, s) && rank_reduced(rest, tail));
    kept || (s == 1 && rank_reduced(rest, small))
}

/// `tensor.extract_slice` / `tensor.insert_slice`: the lists match the full tensor's
/// rank and the slice's shape; static slices stay in bounds.
pub(crate) fn verify_slice(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let result = (|| {
        let insert = tensor::InsertSlice::is(ctx, op);
        let types = op.operand_types();
        let (full, part) = if insert {
            (types[1], types[0])
        } else {
            (types[0], op.result_types()[0])
        };
        let full = shape_of(ctx, full)?;
        let part = shape_of(ctx, part)?;
        let sizes = acc_dialects_segments(ctx, op)?;
        let attrs = Attrs::of_op(ctx, op);
        let rank = full.len();
        // extract_slice and insert_slice share the attribute names.
        let offsets = static_list(
            &attrs,
            tensor::ExtractSlice::ATTR_STATIC_OFFSETS,
            rank,
            sizes[0],
        )?;
        let sizes_v = static_list(
            &attrs,
            tensor::ExtractSlice::ATTR_STATIC_SIZES,
            rank,
            sizes[1],
        )?;
        let strides = static_list(
            &attrs,
            tensor::ExtractSlice::ATTR_STATIC_STRIDES,
            rank,
            sizes[2],
        )?;
        if !rank_reduced(&sizes_v, &part) {
            return Err(format!(
                "the slice has shape {part:?}, which is not the sizes {sizes_v:?} (with unit dimensions dropped)"
            ));
        }
        for i in 0..rank {
            let (o, s, st, d) = (offsets[i], sizes_v[i], strides[i], full[i]);
            if [o, s, st, d].iter().any(|v| is_dyn(*v)) {
                continue;
            }
            if o < 0 || s < 0 || st < 1 {
                return Err(format!(
                    "dimension {i}: offset {o}, size {s} and stride {st} must be non-negative, stride positive"
                ));
            }
            if s > 0 && o + (s - 1) * st >= d {
                return Err(format!(
                    "dimension {i}: the slice runs past the end ({o} + ({s} - 1) * {st} >= {d})"
                ));
            }
        }
        Ok(())
    })();
    report(op, ctx, result)
}

/// The sizes of the last three operand groups (offsets, sizes, strides, or low, high).
fn acc_dialects_segments(ctx: &Context, op: OpRef<'_>) -> Result<Vec<usize>, String> {
    let sizes = crate::lang::segment_sizes(ctx, op, false)
        .ok_or("requires a valid 'operandSegmentSizes'")?;
    let first_list = if tensor::InsertSlice::is(ctx, op) {
        2
    } else {
        1
    };
    Ok(sizes[first_list.min(sizes.len())..].to_vec())
}

/// `tensor.pad`: result = source + low + high per dimension; the region takes one index
/// per dimension and yields an element.
pub(crate) fn verify_pad(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let result = (|| {
        let src_ty = op.operand_types()[0];
        let src = shape_of(ctx, src_ty)?;
        let out = shape_of(ctx, op.result_types()[0])?;
        let groups = acc_dialects_segments(ctx, op)?;
        let attrs = Attrs::of_op(ctx, op);
        let low = static_list(&attrs, tensor::Pad::ATTR_STATIC_LOW, src.len(), groups[0])?;
        let high = static_list(&attrs, tensor::Pad::ATTR_STATIC_HIGH, src.len(), groups[1])?;
        if out.len() != src.len() {
            return Err(format!("the result must have rank {}", src.len()));
        }
        for i in 0..src.len() {
            if [src[i], low[i], high[i], out[i]].iter().any(|v| is_dyn(*v)) {
                continue;
            }
            if src[i] + low[i] + high[i] != out[i] {
                return Err(format!(
                    "dimension {i}: {} + {} + {} is not the result's {}",
                    src[i], low[i], high[i], out[i]
                ));
            }
        }
        check_region(
            op,
            ctx,
            0,
            &vec![index_type(ctx)?; src.len()],
            element_of(ctx, src_ty),
        )
    })();
    report(op, ctx, result)
}

/// `tensor.generate`: one operand per dynamic dimension, and a region taking one
/// index per dimension and yielding one element.
pub(crate) fn verify_generate(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let result = (|| {
        let ty = op.result_types()[0];
        let shape = shape_of(ctx, ty)?;
        let dynamic = shape.iter().filter(|d| is_dyn(**d)).count();
        if dynamic != op.operands().len() {
            return Err(format!(
                "needs {dynamic} dynamic extents, one per dynamic dimension, not {}",
                op.operands().len()
            ));
        }
        check_region(
            op,
            ctx,
            0,
            &vec![index_type(ctx)?; shape.len()],
            element_of(ctx, ty),
        )
    })();
    report(op, ctx, result)
}

/// `tensor.sort`: both inits have the input's shape, the values init its element
/// type, and `dimension` is one of its dimensions.
pub(crate) fn verify_sort(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let result = (|| {
        let types = op.operand_types();
        let shape = shape_of(ctx, types[0])?;
        for t in &types[1..] {
            if !same_shape(&shape_of(ctx, *t)?, &shape) {
                return Err(format!("both inits must have the input's shape {shape:?}"));
            }
        }
        if element_of(ctx, types[1]) != element_of(ctx, types[0]) {
            return Err("the values init must have the input's element type".into());
        }
        let dim = Attrs::of_op(ctx, op)
            .int(tensor::Sort::ATTR_DIMENSION)?
            .ok_or("requires attribute 'dimension'")?;
        if usize::try_from(dim).map_or(true, |d| d >= shape.len()) {
            return Err(format!(
                "'dimension' {dim} is not a dimension of a rank-{} tensor",
                shape.len()
            ));
        }
        Ok(())
    })();
    report(op, ctx, result)
}

/// `tensor.non_max_suppression`: boxes B x N x 4 and scores B x C x N, and an init
/// of M x 3 with M at least [`super::nms::bound`].
pub(crate) fn verify_nms(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let result = (|| {
        let types = op.operand_types();
        let (boxes, scores, init) = (
            shape_of(ctx, types[0])?,
            shape_of(ctx, types[1])?,
            shape_of(ctx, types[2])?,
        );
        let max = super::nms::Suppression::of(&Attrs::of_op(ctx, op))?.max_per_class;
        let bound = super::nms::bound(&boxes, &scores, max).ok_or_else(|| {
            format!(
                "needs static boxes B x N x 4 and scores B x C x N, got {boxes:?} and {scores:?}"
            )
        })?;
        match init[..] {
            [m, 3] if m >= bound => Ok(()),
            _ => Err(format!(
                "needs an init of at least {bound} x 3 (B x C x min(N, max_output_boxes_per_class)), got {init:?}"
            )),
        }
    })();
    report(op, ctx, result)
}

fn index_type(ctx: &Context) -> Result<TypeId, String> {
    ctx.lookup_type(&TypeData::Index)
        .ok_or_else(|| "index is missing from the context".to_string())
}

/// Region `r` of `op` has one block whose arguments have types `args` and which ends
/// in a `tensor.yield` of one value of type `yields`.
fn check_region(op: OpRef<'_>, ctx: &Context, r: usize, args: &[TypeId], yields: TypeId) -> Check {
    let body = op.ir.body(op.region_body());
    let Some(&region) = op.regions().get(r) else {
        return Err("is missing its region".into());
    };
    let Some(block) = body.entry_block(region) else {
        return Err("has an empty region".into());
    };
    let got: Vec<TypeId> = body
        .block_args(block)
        .iter()
        .map(|v| body.value_type(*v))
        .collect();
    if got != args {
        let show = |ts: &[TypeId]| {
            ts.iter()
                .map(|t| acc_ir::printer::type_to_string(ctx, *t))
                .collect::<Vec<_>>()
                .join(", ")
        };
        return Err(format!(
            "region arguments must be ({}), but are ({})",
            show(args),
            show(&got)
        ));
    }
    let Some(last) = body.last_op(block) else {
        return Err("region must end with tensor.yield".into());
    };
    let yield_op = op.ir.op(op.region_body(), last);
    if !tensor::Yield::is(ctx, yield_op) {
        return Err("region must end with tensor.yield".into());
    }
    if yield_op.operand_types() != [yields] {
        return Err(format!(
            "region must yield one {}",
            acc_ir::printer::type_to_string(ctx, yields)
        ));
    }
    Ok(())
}

/// `tensor.collapse_shape` / `tensor.expand_shape`: each group of the larger shape
/// multiplies to one dimension of the smaller.
pub(crate) fn verify_reassociation(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let result = (|| {
        let src = shape_of(ctx, op.operand_types()[0])?;
        let out = shape_of(ctx, op.result_types()[0])?;
        let expand = tensor::ExpandShape::is(ctx, op);
        let (large, small) = if expand { (&out, &src) } else { (&src, &out) };
        let attrs = Attrs::of_op(ctx, op);
        let groups = attrs.reassociation()?;
        // A rank-0 side takes no groups (MLIR's `[]`); the other side's dimensions
        // are then all 1.
        let covered: usize = groups.iter().map(Vec::len).sum();
        if small.is_empty() && groups.is_empty() {
            if large.iter().any(|&d| d != 1) {
                return Err(format!(
                    "'reassociation' [] needs every dimension of {large:?} to be 1"
                ));
            }
        } else if groups.len() != small.len() || covered != large.len() {
            return Err(format!(
                "'reassociation' must group the {} dimensions of {large:?} into the {} of {small:?}",
                large.len(),
                small.len()
            ));
        }
        for (g, dims) in groups.iter().enumerate() {
            let product =
                super::attr_read::product(&dims.iter().map(|&d| large[d]).collect::<Vec<_>>());
            if !dims_agree(product, small[g]) {
                return Err(format!(
                    "dimensions {dims:?} of {large:?} do not make dimension {g} ({}) of {small:?}",
                    small[g]
                ));
            }
        }
        if expand {
            let dynamic = op.operands().len() - 1;
            let shape = static_list(
                &attrs,
                tensor::ExpandShape::ATTR_STATIC_OUTPUT_SHAPE,
                out.len(),
                dynamic,
            )?;
            if !same_shape(&shape, &out) {
                return Err(format!(
                    "'output_shape' {shape:?} is not the result's shape {out:?}"
                ));
            }
        }
        Ok(())
    })();
    report(op, ctx, result)
}

/// The input shapes of a structured op (all operands but the init) and its init shape.
fn structured(
    ctx: &Context,
    op: OpRef<'_>,
    inputs: usize,
) -> Result<(Vec<Vec<i64>>, Vec<i64>), String> {
    let types = op.operand_types();
    if types.len() != inputs + 1 {
        return Err(format!(
            "takes {inputs} inputs, but has {}",
            types.len() - 1
        ));
    }
    let ins: Result<Vec<Vec<i64>>, String> =
        types[..inputs].iter().map(|t| shape_of(ctx, *t)).collect();
    Ok((ins?, shape_of(ctx, types[inputs])?))
}

/// `tensor.matmul` (M x K, K x N into M x N) and `tensor.batch_matmul` (with a leading
/// batch dimension on all three).
pub(crate) fn verify_matmul(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let result = (|| {
        let batch = tensor::BatchMatmul::is(ctx, op);
        let (ins, c) = structured(ctx, op, 2)?;
        let (a, b) = (&ins[0], &ins[1]);
        let rank = if batch { 3 } else { 2 };
        if a.len() != rank || b.len() != rank || c.len() != rank {
            return Err(format!("operands must have rank {rank}"));
        }
        let o = rank - 2;
        let ok = dims_agree(a[o + 1], b[o])
            && dims_agree(a[o], c[o])
            && dims_agree(b[o + 1], c[o + 1])
            && (!batch || (dims_agree(a[0], b[0]) && dims_agree(a[0], c[0])));
        if !ok {
            return Err(format!("shapes {a:?} x {b:?} do not multiply into {c:?}"));
        }
        Ok(())
    })();
    report(op, ctx, result)
}

fn layout_attr(
    attrs: &Attrs<'_>,
    ctx: &Context,
    name: &str,
    default: &str,
) -> Result<Layout, String> {
    match attrs.get(name) {
        Some(a) => Layout::of_attr(ctx, a),
        None => Layout::parse(default),
    }
}

/// Output size of an unpadded window.
fn window(size: i64, kernel: i64, stride: i64, dilation: i64) -> i64 {
    if is_dyn(size) || is_dyn(kernel) {
        return DYNAMIC;
    }
    (size - dilation * (kernel - 1) - 1).div_euclid(stride) + 1
}

/// `tensor.conv2d`: the logical N, C, H, W of the input, O, I, H, W of the filter and
/// N, C, H, W of the output agree, in their layouts.
pub(crate) fn verify_conv2d(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let result = (|| {
        let (ins, out) = structured(ctx, op, 2)?;
        let attrs = Attrs::of_op(ctx, op);
        let li = layout_attr(&attrs, ctx, tensor::Conv2d::ATTR_INPUT_LAYOUT, "NCHW")?;
        let lf = layout_attr(&attrs, ctx, tensor::Conv2d::ATTR_FILTER_LAYOUT, "OIHW")?;
        let lo = layout_attr(&attrs, ctx, tensor::Conv2d::ATTR_OUTPUT_LAYOUT, "NCHW")?;
        let dim = |l: &Layout, s: &[i64], c: char, what: &str| {
            l.logical(s, c).map_err(|e| format!("{what}: {e}"))
        };
        let (n, c, h, w) = (
            dim(&li, &ins[0], 'N', "input")?,
            dim(&li, &ins[0], 'C', "input")?,
            dim(&li, &ins[0], 'H', "input")?,
            dim(&li, &ins[0], 'W', "input")?,
        );
        let (fo, fi, kh, kw) = (
            dim(&lf, &ins[1], 'O', "filter")?,
            dim(&lf, &ins[1], 'I', "filter")?,
            dim(&lf, &ins[1], 'H', "filter")?,
            dim(&lf, &ins[1], 'W', "filter")?,
        );
        let (on, oc, oh, ow) = (
            dim(&lo, &out, 'N', "output")?,
            dim(&lo, &out, 'C', "output")?,
            dim(&lo, &out, 'H', "output")?,
            dim(&lo, &out, 'W', "output")?,
        );
        let strides = attrs.ints_n(tensor::Conv2d::ATTR_STRIDES, 2, 1)?;
        let dilations = attrs.ints_n(tensor::Conv2d::ATTR_DILATIONS, 2, 1)?;
        if strides.iter().chain(&dilations).any(|v| *v < 1) {
            return Err("strides and dilations must be positive".into());
        }
        let groups = attrs.int(tensor::Conv2d::ATTR_GROUPS)?.unwrap_or(1);
        if groups < 1 || (!is_dyn(c) && !is_dyn(fi) && c != fi * groups) {
            return Err(format!(
                "the input's {c} channels are not the filter's {fi} x {groups} groups"
            ));
        }
        let want = [
            n,
            fo,
            window(h, kh, strides[0], dilations[0]),
            window(w, kw, strides[1], dilations[1]),
        ];
        if !same_shape(&want, &[on, oc, oh, ow]) {
            return Err(format!(
                "the output (N, C, H, W) is {:?}, but the input and filter give {want:?}",
                [on, oc, oh, ow]
            ));
        }
        Ok(())
    })();
    report(op, ctx, result)
}

/// `tensor.pool`: the output is the pooled input, in the op's layout.
pub(crate) fn verify_pool(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let result = (|| {
        let (ins, out) = structured(ctx, op, 1)?;
        let attrs = Attrs::of_op(ctx, op);
        let l = layout_attr(&attrs, ctx, tensor::Pool::ATTR_LAYOUT, "NCHW")?;
        let win = attrs.ints_n(tensor::Pool::ATTR_WINDOW, 2, 1)?;
        let strides = attrs.ints_n(tensor::Pool::ATTR_STRIDES, 2, 1)?;
        let dilations = attrs.ints_n(tensor::Pool::ATTR_DILATIONS, 2, 1)?;
        let pads = attrs.ints_n(tensor::Pool::ATTR_PADS, 4, 0)?;
        if win.iter().chain(&strides).chain(&dilations).any(|v| *v < 1)
            || pads.iter().any(|p| *p < 0)
        {
            return Err("window, strides and dilations must be positive, pads non-negative".into());
        }
        let mut want = Vec::new();
        let mut got = Vec::new();
        for (i, letter) in ['N', 'C', 'H', 'W'].into_iter().enumerate() {
            let size = l.logical(&ins[0], letter)?;
            want.push(match i {
                2 | 3 => window(
                    size + pads[i - 2] + pads[i],
                    win[i - 2],
                    strides[i - 2],
                    dilations[i - 2],
                ),
                _ => size,
            });
            got.push(l.logical(&out, letter)?);
        }
        if !same_shape(&want, &got) {
            return Err(format!(
                "the output (N, C, H, W) is {got:?}, but the input gives {want:?}"
            ));
        }
        Ok(())
    })();
    report(op, ctx, result)
}

/// `tensor.map`: inputs and init share a shape; the region maps one element of each
/// input to an element of the init.
pub(crate) fn verify_map(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let result = (|| {
        let types = op.operand_types();
        let init = *types.last().ok_or("needs an init")?;
        let shape = shape_of(ctx, init)?;
        for t in &types[..types.len() - 1] {
            if !same_shape(&shape_of(ctx, *t)?, &shape) {
                return Err(format!("every input must have the init's shape {shape:?}"));
            }
        }
        let args: Vec<TypeId> = types[..types.len() - 1]
            .iter()
            .map(|t| element_of(ctx, *t))
            .collect();
        check_region(op, ctx, 0, &args, element_of(ctx, init))
    })();
    report(op, ctx, result)
}

/// Sorted, distinct dimensions of a tensor of `rank`.
fn dimensions(attrs: &Attrs<'_>, rank: usize) -> Result<Vec<usize>, String> {
    // reduce and broadcast share the attribute name.
    let dims = attrs
        .ints(tensor::Reduce::ATTR_DIMENSIONS)?
        .ok_or("requires attribute 'dimensions'")?;
    let mut out: Vec<usize> = Vec::new();
    for d in &dims {
        match usize::try_from(*d) {
            Ok(i) if i < rank && out.last().is_none_or(|l| *l < i) => out.push(i),
            _ => {
                return Err(format!(
                    "'dimensions' {dims:?} must be increasing dimensions of a rank-{rank} tensor"
                ));
            }
        }
    }
    Ok(out)
}

/// The shape without `dims`.
fn without(shape: &[i64], dims: &[usize]) -> Vec<i64> {
    shape
        .iter()
        .enumerate()
        .filter(|(i, _)| !dims.contains(i))
        .map(|(_, d)| *d)
        .collect()
}

/// `tensor.reduce`: the init is the input without `dimensions`; the region combines an
/// input element with the accumulated value.
pub(crate) fn verify_reduce(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let result = (|| {
        let types = op.operand_types();
        let input = shape_of(ctx, types[0])?;
        let init = shape_of(ctx, types[1])?;
        let dims = dimensions(&Attrs::of_op(ctx, op), input.len())?;
        let want = without(&input, &dims);
        if !same_shape(&want, &init) {
            return Err(format!(
                "the init must have shape {want:?}, the input without {dims:?}"
            ));
        }
        let acc = element_of(ctx, types[1]);
        check_region(op, ctx, 0, &[element_of(ctx, types[0]), acc], acc)
    })();
    report(op, ctx, result)
}

/// `tensor.broadcast`: the init is the input with `dimensions` added.
pub(crate) fn verify_broadcast(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let result = (|| {
        let types = op.operand_types();
        let input = shape_of(ctx, types[0])?;
        let init = shape_of(ctx, types[1])?;
        let dims = dimensions(&Attrs::of_op(ctx, op), init.len())?;
        if !same_shape(&without(&init, &dims), &input) {
            return Err(format!(
                "the init {init:?} without dimensions {dims:?} must be the input {input:?}"
            ));
        }
        Ok(())
    })();
    report(op, ctx, result)
}

/// `tensor.transpose`: the init is the input permuted.
pub(crate) fn verify_transpose(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let result = (|| {
        let types = op.operand_types();
        let input = shape_of(ctx, types[0])?;
        let init = shape_of(ctx, types[1])?;
        let attrs = Attrs::of_op(ctx, op);
        let perm = attrs
            .ints(tensor::Transpose::ATTR_PERMUTATION)?
            .ok_or("requires attribute 'permutation'")?;
        let mut seen = vec![false; input.len()];
        let valid = perm.len() == input.len()
            && perm.iter().all(|p| {
                usize::try_from(*p)
                    .ok()
                    .filter(|i| *i < seen.len())
                    .is_some_and(|i| !std::mem::replace(&mut seen[i], true))
            });
        if !valid {
            return Err(format!(
                "'permutation' {perm:?} is not a permutation of {} dimensions",
                input.len()
            ));
        }
        let want: Vec<i64> = perm.iter().map(|p| input[*p as usize]).collect();
        if !same_shape(&want, &init) {
            return Err(format!("the init must have shape {want:?}"));
        }
        Ok(())
    })();
    report(op, ctx, result)
}

/// The packed shape of `plain` by these tiles and outer permutation.
pub fn packed_shape(
    plain: &[i64],
    inner_pos: &[i64],
    tiles: &[i64],
    outer_perm: Option<&[i64]>,
) -> Result<Vec<i64>, String> {
    if inner_pos.len() != tiles.len() {
        return Err("'inner_dims_pos' and 'inner_tiles' must have the same length".into());
    }
    let mut outer = plain.to_vec();
    let mut seen = vec![false; plain.len()];
    for (&pos, &tile) in inner_pos.iter().zip(tiles) {
        let Some(i) = usize::try_from(pos).ok().filter(|i| *i < plain.len()) else {
            return Err(format!("inner dimension {pos} is out of range"));
        };
        if std::mem::replace(&mut seen[i], true) || tile < 1 {
            return Err("inner dimensions must be distinct and tiles positive".into());
        }
        outer[i] = if is_dyn(plain[i]) {
            DYNAMIC
        } else {
            (plain[i] + tile - 1) / tile
        };
    }
    let mut out = match outer_perm {
        None => outer,
        Some(perm) => {
            let mut used = vec![false; plain.len()];
            let mut permuted = Vec::with_capacity(plain.len());
            for &p in perm {
                match usize::try_from(p).ok().filter(|i| *i < plain.len()) {
                    Some(i) if !std::mem::replace(&mut used[i], true) => permuted.push(outer[i]),
                    _ => return Err(format!("'outer_dims_perm' {perm:?} is not a permutation")),
                }
            }
            if permuted.len() != plain.len() {
                return Err(format!("'outer_dims_perm' {perm:?} is not a permutation"));
            }
            permuted
        }
    };
    out.extend_from_slice(tiles);
    Ok(out)
}

/// `tensor.pack` / `tensor.unpack`: the blocked side is the plain side tiled.
pub(crate) fn verify_pack(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let result = (|| {
        let types = op.operand_types();
        let pack = tensor::Pack::is(ctx, op);
        let (plain, blocked) = if pack {
            (shape_of(ctx, types[0])?, shape_of(ctx, types[1])?)
        } else {
            (shape_of(ctx, types[1])?, shape_of(ctx, types[0])?)
        };
        let attrs = Attrs::of_op(ctx, op);
        // pack and unpack share the attribute names.
        let pos = attrs
            .ints(tensor::Pack::ATTR_INNER_DIMS_POS)?
            .ok_or("requires attribute 'inner_dims_pos'")?;
        let tiles = attrs
            .ints(tensor::Pack::ATTR_INNER_TILES)?
            .ok_or("requires attribute 'inner_tiles'")?;
        let perm = attrs.ints(tensor::Pack::ATTR_OUTER_DIMS_PERM)?;
        let want = packed_shape(&plain, &pos, &tiles, perm.as_deref())?;
        if !same_shape(&want, &blocked) {
            return Err(format!(
                "the blocked tensor must have shape {want:?}, but has {blocked:?}"
            ));
        }
        if pack && op.operands().len() == 2 {
            let partial = pos.iter().zip(&tiles).any(|(&p, &t)| {
                let d = plain[p as usize];
                !is_dyn(d) && d % t != 0
            });
            if partial {
                return Err("a partial last tile needs a 'padding_value'".into());
            }
        }
        Ok(())
    })();
    report(op, ctx, result)
}

#[cfg(test)]
mod tests {
    use super::rank_reduced;
    use acc_ir::DYNAMIC;

    #[test]
    fn rank_reduction_drops_static_units_only() {
        assert!(rank_reduced(&[2, 3], &[2, 3]));
        assert!(rank_reduced(&[1, 3], &[3]));
        assert!(rank_reduced(&[1, 1], &[1]));
        // A dynamic dimension could match the unit size; it matches the next one.
        assert!(rank_reduced(&[1, DYNAMIC], &[DYNAMIC]));
        assert!(rank_reduced(&[DYNAMIC, 1], &[DYNAMIC]));
        assert!(!rank_reduced(&[DYNAMIC, 3], &[3]));
        assert!(!rank_reduced(&[2, 3], &[2]));
        assert!(!rank_reduced(&[2], &[2, 1]));
    }
}
