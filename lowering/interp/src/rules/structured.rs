//! Rules for the `tensor` dialect's compute ops, in destination-passing style: matmul
//! and conv2d add into their init; pool, map, broadcast and transpose overwrite it;
//! reduce combines into it with its region.

use acc_dialects::hooks::attr_read::Attrs;
use acc_dialects::hooks::graph_fold::transpose_indices;
use acc_dialects::ops::tensor;
use acc_ir::elements::Scalar;

use super::RuleInput;
use super::indexing::{all_indices, flat};
use super::nn::{conv2d_values, conv2d_values_sized, matmul_values};
use super::shape::case;
use crate::value::Tensor;

fn float(v: Scalar) -> f64 {
    match v {
        Scalar::Int(i) => i as f64,
        Scalar::Float(f) => f,
    }
}

/// The single result, of the init's shape.
fn result_like_init(
    r: &RuleInput<'_>,
    init: &Tensor,
    data: Vec<Scalar>,
) -> Result<Vec<Tensor>, String> {
    Ok(vec![Tensor::with_shape(
        r.ctx,
        r.result_type(0)?,
        init.shape.clone(),
        data,
    )?])
}

/// The one element a region yields.
fn yielded(out: Vec<Tensor>) -> Result<Scalar, String> {
    out.first()
        .and_then(Tensor::scalar)
        .ok_or_else(|| "the region yields one element".to_string())
}

/// The result of a compute op that adds into its init: `init + values`.
fn accumulate(r: &RuleInput<'_>, values: Vec<Scalar>) -> Result<Vec<Tensor>, String> {
    let init = r.operands.last().ok_or("expects an init")?;
    if values.len() != init.data.len() {
        return Err(format!(
            "computed {} elements for an init of {}",
            values.len(),
            init.data.len()
        ));
    }
    let data = values
        .iter()
        .zip(&init.data)
        .map(|(v, c)| match (v, c) {
            (Scalar::Int(a), Scalar::Int(b)) => Scalar::Int(a.wrapping_add(*b)),
            _ => Scalar::Float(float(*v) + float(*c)),
        })
        .collect();
    result_like_init(r, init, data)
}

/// `tensor.matmul` / `tensor.batch_matmul`: `init + A x B`.
pub(super) fn matmul(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let (a, b) = (r.operand(0)?, r.operand(1)?);
    accumulate(r, matmul_values(a, b)?)
}

/// The layout attribute `name` as its order string (`"NCHW"`).
fn layout(r: &RuleInput<'_>, name: &str, default: &str) -> String {
    Attrs::of_op(r.ctx, r.op)
        .get(name)
        .map(|a| acc_ir::printer::attr_to_string(r.ctx, a))
        .and_then(|text| text.split('"').nth(1).map(str::to_string))
        .unwrap_or_else(|| default.to_string())
}

/// `tensor.conv2d`: `init + conv2d(input, filter)` without padding, in the layouts its
/// attributes give (blocked ones computed as their plain layouts with the blocks'
/// extents: a partial block's padding channels take part like the others).
pub(super) fn conv2d(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let layouts = [
        ("input_layout", "NCHW"),
        ("filter_layout", "OIHW"),
        ("output_layout", "NCHW"),
    ]
    .map(|(name, plain)| (layout(r, name, plain), plain));
    if layouts.iter().all(|(l, plain)| l == plain) {
        return accumulate(r, conv2d_values(r, r.operand(0)?, r.operand(1)?, None)?);
    }
    let [input, filter, output] = layouts.map(|(l, plain)| Relayout::new(&l, plain));
    let (input, filter, output) = (input?, filter?, output?);
    let init = r.operands.last().ok_or("expects an init")?;
    let plain_init = output.to_plain(init)?;
    let [_, _, oh, ow] = <[usize; 4]>::try_from(plain_init.shape.as_slice())
        .map_err(|_| "the output must have rank 4")?;
    let x = input.to_plain(r.operand(0)?)?;
    let w = filter.to_plain(r.operand(1)?)?;
    let values = conv2d_values_sized(r, &x, &w, None, [oh, ow])?;
    let sums: Vec<Scalar> = values
        .iter()
        .zip(&plain_init.data)
        .map(|(v, c)| Scalar::Float(float(*v) + float(*c)))
        .collect();
    result_like_init(r, init, output.to_stored(&plain_init.shape, &sums)?)
}

/// How a tensor stored in a (possibly blocked) layout maps to its plain layout: for
/// each stored dimension, the plain dimension it indexes and its block size (the
/// stored extent of a blocked dimension's outer part counts blocks).
struct Relayout {
    /// Per stored dimension: (plain dimension, Some(block) for an inner block,
    /// the block size of the same letter's inner block when this is its outer part).
    dims: Vec<(usize, Option<usize>, Option<usize>)>,
    rank: usize,
}

impl Relayout {
    fn new(layout: &str, plain: &str) -> Result<Relayout, String> {
        let parsed = acc_dialects::hooks::layout::Layout::parse(layout)?;
        let position = |letter: char| {
            plain
                .chars()
                .position(|c| c == letter)
                .ok_or_else(|| format!("layout \"{layout}\" has a '{letter}' that {plain} lacks"))
        };
        let block_of = |letter: char| {
            parsed
                .dims
                .iter()
                .find(|d| d.letter == letter && d.block.is_some())
                .and_then(|d| d.block)
                .map(|b| b as usize)
        };
        let dims = parsed
            .dims
            .iter()
            .map(|d| {
                let at = position(d.letter)?;
                Ok(match d.block {
                    Some(b) => (at, Some(b as usize), None),
                    None => (at, None, block_of(d.letter)),
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Relayout {
            dims,
            rank: plain.len(),
        })
    }

    /// The plain extents of a stored shape.
    fn plain_shape(&self, stored: &[usize]) -> Result<Vec<usize>, String> {
        if stored.len() != self.dims.len() {
            return Err(format!(
                "a tensor of rank {} for a layout of rank {}",
                stored.len(),
                self.dims.len()
            ));
        }
        let mut shape = vec![1usize; self.rank];
        for (&(at, _, _), &n) in self.dims.iter().zip(stored) {
            shape[at] *= n;
        }
        Ok(shape)
    }

    /// The stored position of a plain index.
    fn stored_index(&self, plain: &[usize]) -> Vec<usize> {
        self.dims
            .iter()
            .map(|&(at, inner, outer)| match (inner, outer) {
                (Some(b), _) => plain[at] % b,
                (None, Some(b)) => plain[at] / b,
                (None, None) => plain[at],
            })
            .collect()
    }

    /// The tensor in its plain layout.
    fn to_plain(&self, t: &Tensor) -> Result<Tensor, String> {
        let shape = self.plain_shape(&t.shape)?;
        let data = all_indices(&shape)
            .iter()
            .map(|i| t.data[flat(&t.shape, &self.stored_index(i))])
            .collect();
        Ok(Tensor {
            shape,
            data,
            undefined: None,
            ..t.clone()
        })
    }

    /// Plain elements (of `plain_shape`) in the stored layout.
    fn to_stored(&self, plain_shape: &[usize], data: &[Scalar]) -> Result<Vec<Scalar>, String> {
        let stored_shape: Vec<usize> = self
            .dims
            .iter()
            .map(|&(at, inner, outer)| match (inner, outer) {
                (Some(b), _) => b,
                (None, Some(b)) => plain_shape[at] / b,
                (None, None) => plain_shape[at],
            })
            .collect();
        let mut out = vec![Scalar::Float(0.0); data.len()];
        for (i, index) in all_indices(plain_shape).iter().enumerate() {
            out[flat(&stored_shape, &self.stored_index(index))] = data[i];
        }
        Ok(out)
    }
}

/// `tensor.pool`: max, sum or average pooling written over the init, in the layout
/// its attribute gives (NCHW, or a blocked one computed as NCHW).
pub(super) fn pool(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let l = layout(r, "layout", "NCHW");
    let init = r.operands.last().ok_or("expects an init")?;
    if l == "NCHW" {
        let data = pool_values(r, r.operand(0)?, &init.shape)?;
        return result_like_init(r, init, data);
    }
    let relayout = Relayout::new(&l, "NCHW")?;
    let x = relayout.to_plain(r.operand(0)?)?;
    let plain_init = relayout.plain_shape(&init.shape)?;
    let data = pool_values(r, &x, &plain_init)?;
    result_like_init(r, init, relayout.to_stored(&plain_init, &data)?)
}

/// The pooled elements of a plain NCHW input into an output of shape `out`.
fn pool_values(r: &RuleInput<'_>, x: &Tensor, out: &[usize]) -> Result<Vec<Scalar>, String> {
    let kind = case(r, "kind", tensor::enums::POOL_KIND).ok_or("requires 'kind'")?;
    let attrs = Attrs::of_op(r.ctx, r.op);
    let nonneg = |name: &str, n: usize, default: i64| -> Result<Vec<usize>, String> {
        attrs
            .ints_n(name, n, default)?
            .iter()
            .map(|v| usize::try_from(*v).map_err(|_| format!("negative '{name}'")))
            .collect()
    };
    let (window, s, d, p) = (
        nonneg("window", 2, 1)?,
        nonneg("strides", 2, 1)?,
        nonneg("dilations", 2, 1)?,
        nonneg("pads", 4, 0)?,
    );
    let include_pad = attrs.flag("count_include_pad");
    let [n, c, h, w] = <[usize; 4]>::try_from(x.shape.as_slice()).map_err(|_| "rank 4 input")?;
    let [_, _, oh, ow] = <[usize; 4]>::try_from(out).map_err(|_| "rank 4 init")?;
    let mut data = Vec::with_capacity(n * c * oh * ow);
    for b in 0..n {
        for ch in 0..c {
            for y in 0..oh {
                for xo in 0..ow {
                    let mut acc: Option<f64> = None;
                    let mut count = 0usize;
                    for i in 0..window[0] {
                        for j in 0..window[1] {
                            let iy = (y * s[0] + i * d[0]) as isize - p[0] as isize;
                            let ix = (xo * s[1] + j * d[1]) as isize - p[1] as isize;
                            if iy < 0 || ix < 0 || iy as usize >= h || ix as usize >= w {
                                continue;
                            }
                            let v =
                                float(x.data[((b * c + ch) * h + iy as usize) * w + ix as usize]);
                            count += 1;
                            acc = Some(match (acc, kind.as_str()) {
                                (None, _) => v,
                                (Some(a), "max") => a.max(v),
                                (Some(a), _) => a + v,
                            });
                        }
                    }
                    let total = acc.ok_or("a pooling window lies entirely in the padding")?;
                    let value = match kind.as_str() {
                        "avg" if include_pad => total / (window[0] * window[1]) as f64,
                        "avg" => total / count as f64,
                        _ => total,
                    };
                    data.push(Scalar::Float(value));
                }
            }
        }
    }
    Ok(data)
}

/// A rank-0 value of `element` type.
fn element_value(r: &RuleInput<'_>, t: &Tensor, v: Scalar) -> Result<Tensor, String> {
    let element = r.ctx.type_data(t.ty).element_type().unwrap_or(t.ty);
    Tensor::new(r.ctx, element, vec![v])
}

/// `tensor.map`: the region applied to the inputs' elements at each index.
pub(super) fn map(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let (inputs, init) = r.operands.split_at(r.operands.len().saturating_sub(1));
    let init = init.first().ok_or("expects an init")?;
    if let Some(bad) = inputs.iter().find(|t| t.shape != init.shape) {
        return Err(format!(
            "an input of shape {:?} for an init of {:?}",
            bad.shape, init.shape
        ));
    }
    let mut data = Vec::with_capacity(init.data.len());
    for i in 0..init.data.len() {
        let args = inputs
            .iter()
            .map(|t| element_value(r, t, t.data[i]))
            .collect::<Result<Vec<_>, _>>()?;
        let out = (r.regions)(0, args)?;
        data.push(yielded(out)?);
    }
    result_like_init(r, init, data)
}

/// `tensor.reduce`: the input's elements combined into the init along `dimensions`, in
/// row-major order, by the region (element, accumulator) -> accumulator.
pub(super) fn reduce(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let (x, init) = (r.operand(0)?, r.operand(1)?);
    let dims = Attrs::of_op(r.ctx, r.op)
        .ints("dimensions")?
        .unwrap_or_default();
    let kept: Vec<usize> = (0..x.shape.len())
        .filter(|d| !dims.contains(&(*d as i64)))
        .collect();
    let kept_shape: Vec<usize> = kept.iter().map(|d| x.shape[*d]).collect();
    if kept_shape != init.shape {
        return Err(format!(
            "reducing {:?} over {dims:?} does not give the init's shape {:?}",
            x.shape, init.shape
        ));
    }
    let mut acc = init.data.clone();
    for (k, at) in all_indices(&x.shape).iter().enumerate() {
        let target: Vec<usize> = kept.iter().map(|d| at[*d]).collect();
        let j = flat(&init.shape, &target);
        let args = vec![
            element_value(r, x, x.data[k])?,
            element_value(r, init, acc[j])?,
        ];
        let out = (r.regions)(0, args)?;
        acc[j] = yielded(out)?;
    }
    result_like_init(r, init, acc)
}

/// `tensor.broadcast`: the input copied along the init's added `dimensions`.
pub(super) fn broadcast(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let (x, init) = (r.operand(0)?, r.operand(1)?);
    let dims = Attrs::of_op(r.ctx, r.op)
        .ints("dimensions")?
        .unwrap_or_default();
    let kept: Vec<usize> = (0..init.shape.len())
        .filter(|d| !dims.contains(&(*d as i64)))
        .collect();
    if kept.iter().map(|d| init.shape[*d]).collect::<Vec<_>>() != x.shape {
        return Err(format!(
            "the input {:?} is not the init {:?} without dimensions {dims:?}",
            x.shape, init.shape
        ));
    }
    let data = all_indices(&init.shape)
        .iter()
        .map(|at| {
            let from: Vec<usize> = kept.iter().map(|d| at[*d]).collect();
            x.data[flat(&x.shape, &from)]
        })
        .collect();
    result_like_init(r, init, data)
}

/// `tensor.transpose`: dimension `i` of the init is dimension `permutation[i]` of the
/// input.
pub(super) fn transpose(r: &RuleInput<'_>) -> Result<Vec<Tensor>, String> {
    let x = r.operand(0)?;
    let perm: Vec<usize> = Attrs::of_op(r.ctx, r.op)
        .ints("permutation")?
        .ok_or("requires 'permutation'")?
        .iter()
        .map(|d| usize::try_from(*d).ok().filter(|d| *d < x.shape.len()))
        .collect::<Option<_>>()
        .ok_or("permutation out of range")?;
    if perm.len() != x.shape.len() {
        return Err("the permutation does not match the rank".into());
    }
    let data = transpose_indices(&x.shape, &perm)
        .into_iter()
        .map(|at| x.data[at])
        .collect();
    Ok(vec![Tensor::new(r.ctx, r.result_type(0)?, data)?])
}
