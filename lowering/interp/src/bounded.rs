//! Results of bounded size: a function whose result has a dynamic dimension returns,
//! once bufferized, a buffer of the static bound and an `index` result with the size
//! (the triples of `loop.result_sizes`, see
//! [`acc_dialects::hooks::func::RESULT_SIZES`]). Its caller sees the result cut to
//! that size, and not the size results: the values the function had before
//! bufferization.

use acc_ir::elements::Scalar;
use acc_ir::{Context, DYNAMIC, TypeData, TypeId};

use crate::machine::functions;
use crate::value::Tensor;

/// The `(result, dimension, size result)` triples of function `name` (none for a
/// function without the attribute, or not in `ir`).
pub fn result_sizes(ctx: &Context, ir: &acc_ir::Ir, name: &str) -> Result<Vec<[usize; 3]>, String> {
    let Some((_, body, op)) = functions(ctx, ir).into_iter().find(|(n, _, _)| n == name) else {
        return Ok(Vec::new());
    };
    acc_dialects::hooks::func::result_sizes(ctx, ir.op(body, op))
}

/// `results` as the caller sees them: each result named by a `(result, dimension,
/// size result)` triple cut to that size along that dimension, the size results
/// left out. An error when a size is not an index within the bound.
pub fn trim(
    ctx: &Context,
    triples: &[[usize; 3]],
    results: Vec<Tensor>,
) -> Result<Vec<Tensor>, String> {
    if triples.is_empty() {
        return Ok(results);
    }
    let size = |s: usize| -> Result<usize, String> {
        match results.get(s).and_then(Tensor::scalar) {
            Some(Scalar::Int(n)) => {
                usize::try_from(n).map_err(|_| format!("result {s} is a negative size ({n})"))
            }
            _ => Err(format!("result {s} is not a size")),
        }
    };
    let mut out = Vec::new();
    for (i, t) in results.iter().enumerate() {
        if triples.iter().any(|[_, _, s]| *s == i) {
            continue;
        }
        let cuts = triples
            .iter()
            .filter(|[r, _, _]| *r == i)
            .map(|[_, d, s]| Ok((*d, size(*s)?)))
            .collect::<Result<Vec<_>, String>>()?;
        out.push(if cuts.is_empty() {
            t.clone()
        } else {
            cut(ctx, t, &cuts)?
        });
    }
    Ok(out)
}

/// The leading `n` elements of `t` along each dimension `d` of `cuts`.
fn cut(ctx: &Context, t: &Tensor, cuts: &[(usize, usize)]) -> Result<Tensor, String> {
    let mut shape = t.shape.clone();
    for &(d, n) in cuts {
        let bound = *shape.get(d).ok_or("a size for a missing dimension")?;
        if n > bound {
            return Err(format!(
                "a size of {n} beyond the bound {bound} of dimension {d}"
            ));
        }
        shape[d] = n;
    }
    let count: usize = shape.iter().product();
    let mut data = Vec::with_capacity(count);
    let mut index = vec![0usize; shape.len()];
    for _ in 0..count {
        data.push(match &t.view {
            Some(view) => view.buffer.read(view.cell(&t.shape, &index)?)?,
            None => t.data[flat(&t.shape, &index)],
        });
        for d in (0..index.len()).rev() {
            index[d] += 1;
            if index[d] < shape[d] {
                break;
            }
            index[d] = 0;
        }
    }
    let ty = with_dynamic(ctx, t.ty, cuts.iter().map(|(d, _)| *d));
    Tensor::with_shape(ctx, ty, shape, data)
}

fn flat(shape: &[usize], index: &[usize]) -> usize {
    index.iter().zip(shape).fold(0, |acc, (i, n)| acc * n + i)
}

/// The shaped type `ty` with dimensions `dims` dynamic.
fn with_dynamic(ctx: &Context, ty: TypeId, dims: impl Iterator<Item = usize>) -> TypeId {
    let mut data = ctx.type_data(ty).clone();
    let shape = match &mut data {
        TypeData::MemRef { shape, .. } | TypeData::RankedTensor { shape, .. } => shape,
        _ => return ty,
    };
    let mut dynamic = shape.to_vec();
    for d in dims {
        dynamic[d] = DYNAMIC;
    }
    *shape = dynamic.into();
    ctx.intern_type(data)
}
