//! Constant folding at import, as onnxruntime's: a node of the shape arithmetic that
//! exporters write (Shape, Gather, Concat, Slice, Unsqueeze, Range, ConstantOfShape,
//! Expand, Where, comparisons, Cast, integer arithmetic, ...) whose inputs are all
//! known when the model is imported computes there, and its outputs become constants.
//! A `Reshape` whose shape a `Shape -> Gather -> Concat` chain computes then sees a
//! constant shape.
//!
//! Invariants: a folded value is exactly what the op computes at run time (integers
//! wrap to their width, float results of `+ - * /`, `sqrt` and conversions are rounded
//! once to the element type: computing in f64 first does not change them); a node with
//! an input that is not known, or an operation folding cannot reproduce exactly (a
//! division by zero, an out-of-range index), is left to run.

use acc_dialects::hooks::graph_fold::{BinaryOp, cast_to_small_float};
use acc_ir::elements::{ElementKind, Scalar};
use acc_ir::minifloat::{MiniFloat, ScaleRounding};
use acc_ir::{Context, FloatKind, TypeData, TypeId};

use crate::proto::NodeProto;

/// A known tensor: its element type, shape and elements (row-major).
#[derive(Clone, Debug)]
pub(super) struct Known {
    pub element: TypeId,
    pub shape: Vec<i64>,
    /// The elements; one for a splat.
    pub data: Vec<Scalar>,
    /// Whether every element is `data[0]` (ConstantOfShape's result: no bound on
    /// its size, as it is never expanded).
    pub splat: bool,
}

/// What folding sees of a node's input.
pub(super) enum Input {
    /// The input's value is known.
    Known(Known),
    /// Only its type is known (enough for `Shape` and `Size`).
    Typed(TypeId),
    /// Not given, or of no known type.
    Absent,
}

/// The most elements folding reads or makes (bigger tensors are left to run).
pub(super) const MAX_ELEMENTS: usize = 1 << 21;

/// The op types folding may compute.
pub(super) const FOLDABLE: [&str; 39] = [
    "Shape",
    "Size",
    "Gather",
    "Concat",
    "Slice",
    "Unsqueeze",
    "Squeeze",
    "Reshape",
    "Flatten",
    "Identity",
    "Range",
    "ConstantOfShape",
    "Expand",
    "Where",
    "Equal",
    "Less",
    "Greater",
    "LessOrEqual",
    "GreaterOrEqual",
    "Not",
    "And",
    "Or",
    "Xor",
    "Cast",
    "CastLike",
    "Add",
    "Sub",
    "Mul",
    "Div",
    "Mod",
    "Neg",
    "Abs",
    "Min",
    "Max",
    "Floor",
    "Ceil",
    "Round",
    "Sqrt",
    "Transpose",
];

/// Folds `node` whose inputs are `inputs` under default-domain opset `opset`. `None`:
/// the node is left to run (an input is unknown, or folding cannot compute it
/// exactly); `Some(Err)`: the node is malformed.
pub(super) fn fold(
    ctx: &Context,
    node: &NodeProto,
    inputs: &[Input],
    opset: i64,
) -> Option<Result<Vec<Known>, String>> {
    let op = node.op_type.as_deref().unwrap_or("");
    let attrs = Attrs(node);
    let known = |i: usize| match inputs.get(i) {
        Some(Input::Known(k)) => Some(k),
        _ => None,
    };
    // Shape and Size need only the type.
    if op == "Shape" || op == "Size" {
        let shape = match inputs.first()? {
            Input::Known(k) => k.shape.clone(),
            Input::Typed(t) => {
                let s = ctx.type_data(*t).shape()?.to_vec();
                if s.iter().any(|d| *d < 0) {
                    return None;
                }
                s
            }
            Input::Absent => return None,
        };
        let i64_type = ctx.int_type(64);
        if op == "Size" {
            let n: i64 = shape.iter().product();
            return Some(Ok(vec![scalar(i64_type, Scalar::Int(n.into()))]));
        }
        let rank = shape.len() as i64;
        let clamp = |v: i64| (if v < 0 { v + rank } else { v }).clamp(0, rank) as usize;
        let start = clamp(attrs.int("start").unwrap_or(0));
        let end = clamp(attrs.int("end").unwrap_or(rank));
        let dims: Vec<Scalar> = shape[start..end.max(start)]
            .iter()
            .map(|d| Scalar::Int((*d).into()))
            .collect();
        return Some(Ok(vec![vector(i64_type, dims)]));
    }
    if op == "ConstantOfShape" {
        let shape = ints(known(0)?)?;
        let (element, value) = match attrs.tensor("value") {
            Some(t) => match crate::tensors::element_values(ctx, t) {
                Ok((element, values)) => match values.as_slice() {
                    [v] => (element, *v),
                    _ => return Some(Err("its value must hold one element".into())),
                },
                Err(e) => return Some(Err(format!("its value {e}"))),
            },
            None => (ctx.float_type(FloatKind::F32), Scalar::Float(0.0)),
        };
        if shape.iter().any(|d| *d < 0) {
            return Some(Err(format!("shape {shape:?} has a negative dimension")));
        }
        return Some(Ok(vec![Known {
            element,
            shape,
            data: vec![value],
            splat: true,
        }]));
    }
    if op == "CastLike" {
        // To the second input's element type, which its type alone gives.
        let to = match inputs.get(1)? {
            Input::Known(k) => k.element,
            Input::Typed(t) => ctx.type_data(*t).element_type().unwrap_or(*t),
            Input::Absent => return None,
        };
        return cast(ctx, known(0)?, to, cast_options(&attrs))
            .ok()
            .map(|k| Ok(vec![k]));
    }
    // Every other op needs all its given inputs known.
    let mut given = Vec::new();
    for (i, name) in node.input.iter().enumerate() {
        if name.is_empty() {
            given.push(None);
            continue;
        }
        given.push(Some(known(i)?));
    }
    let arg = |i: usize| given.get(i).copied().flatten();
    let result = match op {
        "Identity" => Ok(arg(0)?.clone()),
        "Gather" => gather(arg(0)?, arg(1)?, attrs.int("axis").unwrap_or(0)),
        "Concat" => concat(
            &given.iter().flatten().copied().collect::<Vec<_>>(),
            attrs.int("axis")?,
        ),
        "Slice" => slice(arg(0)?, arg(1)?, arg(2)?, arg(3), arg(4)),
        "Unsqueeze" | "Squeeze" => {
            // Axes are an input from opset 13, an attribute before (the importer's own
            // expansions write the attribute at any opset).
            let axes = match arg(1) {
                Some(a) if opset >= 13 => ints(a)?,
                _ => attrs.ints("axes").unwrap_or_default(),
            };
            let x = arg(0)?;
            let shape = if op == "Unsqueeze" {
                unsqueeze_shape(&x.shape, &axes)
            } else {
                squeeze_shape(&x.shape, &axes)
            };
            shape.map(|shape| reshaped(x, shape))
        }
        "Reshape" => {
            let x = arg(0)?;
            reshape_shape(
                &x.shape,
                &ints(arg(1)?)?,
                attrs.int("allowzero").unwrap_or(0) != 0,
            )
            .map(|shape| reshaped(x, shape))
        }
        "Flatten" => {
            let x = arg(0)?;
            let rank = x.shape.len() as i64;
            let axis = attrs.int("axis").unwrap_or(1);
            let axis = if axis < 0 { axis + rank } else { axis };
            if !(0..=rank).contains(&axis) {
                return Some(Err(format!("axis {axis} is out of range")));
            }
            let (a, b) = x.shape.split_at(axis as usize);
            let shape = vec![a.iter().product(), b.iter().product()];
            Ok(reshaped(x, shape))
        }
        "Transpose" => transpose(arg(0)?, attrs.ints("perm")),
        "Range" => range(ctx, arg(0)?, arg(1)?, arg(2)?)?,
        "Expand" => {
            let x = arg(0)?;
            let shape = broadcast_shape(&[&x.shape, &ints(arg(1)?)?]);
            if let ([v], Ok(shape)) = (x.data.as_slice(), &shape) {
                return Some(Ok(vec![Known {
                    element: x.element,
                    shape: shape.clone(),
                    data: vec![*v],
                    splat: true,
                }]));
            }
            shape.and_then(|s| broadcast(&[x], &s, x.element, |v| v[0]))
        }
        "Where" => {
            let (c, x, y) = (arg(0)?, arg(1)?, arg(2)?);
            broadcast_shape(&[&c.shape, &x.shape, &y.shape]).and_then(|s| {
                broadcast(&[c, x, y], &s, x.element, |v| {
                    if truthy(v[0]) { v[1] } else { v[2] }
                })
            })
        }
        "Equal" | "Less" | "Greater" | "LessOrEqual" | "GreaterOrEqual" => {
            let (a, b) = (arg(0)?, arg(1)?);
            let test: fn(std::cmp::Ordering) -> bool = match op {
                "Equal" => |o| o.is_eq(),
                "Less" => |o| o.is_lt(),
                "Greater" => |o| o.is_gt(),
                "LessOrEqual" => |o| o.is_le(),
                _ => |o| o.is_ge(),
            };
            binary(a, b, ctx.int_type(1), |x, y| {
                Scalar::Int(compare(x, y).is_some_and(test).into())
            })
        }
        "Not" => Ok(map(arg(0)?, |v| Scalar::Int((!truthy(v)).into()))),
        "And" | "Or" | "Xor" => {
            let f: fn(bool, bool) -> bool = match op {
                "And" => |a, b| a && b,
                "Or" => |a, b| a || b,
                _ => |a, b| a != b,
            };
            binary(arg(0)?, arg(1)?, ctx.int_type(1), |x, y| {
                Scalar::Int(f(truthy(x), truthy(y)).into())
            })
        }
        "Cast" => {
            let to = crate::tensors::element_type(ctx, attrs.int("to")? as i32).ok()?;
            // An out-of-range value is the runtime's error to report.
            return cast(ctx, arg(0)?, to, cast_options(&attrs))
                .ok()
                .map(|k| Ok(vec![k]));
        }
        "Add" | "Sub" | "Mul" | "Div" | "Min" | "Max" => arithmetic(ctx, op, arg(0)?, arg(1)?)?,
        "Mod" => remainder(ctx, attrs.int("fmod").unwrap_or(0) != 0, arg(0)?, arg(1)?)?,
        "Neg" | "Abs" | "Floor" | "Ceil" | "Round" | "Sqrt" => unary(ctx, op, arg(0)?)?,
        _ => return None,
    };
    Some(result.and_then(|k| {
        if k.data.len() > MAX_ELEMENTS {
            Err(format!("folding makes {} elements", k.data.len()))
        } else {
            Ok(vec![k])
        }
    }))
}

/// A node's attributes, by name.
struct Attrs<'a>(&'a NodeProto);

impl Attrs<'_> {
    fn find(&self, name: &str) -> Option<&crate::proto::AttributeProto> {
        self.0
            .attribute
            .iter()
            .find(|a| a.name.as_deref() == Some(name))
    }
    fn int(&self, name: &str) -> Option<i64> {
        self.find(name).and_then(|a| a.i)
    }
    fn ints(&self, name: &str) -> Option<Vec<i64>> {
        self.find(name).map(|a| a.ints.clone())
    }
    fn string(&self, name: &str) -> Option<String> {
        self.find(name)
            .and_then(|a| a.s.as_ref())
            .map(|s| String::from_utf8_lossy(s).into_owned())
    }
    fn tensor(&self, name: &str) -> Option<&crate::proto::TensorProto> {
        self.find(name).and_then(|a| a.t.as_ref())
    }
}

fn scalar(element: TypeId, v: Scalar) -> Known {
    Known {
        element,
        shape: Vec::new(),
        data: vec![v],
        splat: false,
    }
}

fn vector(element: TypeId, data: Vec<Scalar>) -> Known {
    Known {
        element,
        shape: vec![data.len() as i64],
        data,
        splat: false,
    }
}

fn reshaped(x: &Known, shape: Vec<i64>) -> Known {
    Known {
        element: x.element,
        shape,
        data: x.data.clone(),
        splat: false,
    }
}

/// The elements of a known integer tensor.
fn ints(k: &Known) -> Option<Vec<i64>> {
    k.data
        .iter()
        .map(|v| match v {
            Scalar::Int(i) => i64::try_from(*i).ok(),
            Scalar::Float(_) => None,
        })
        .collect()
}

/// The number of elements of `shape`, if it is a valid shape of a foldable size.
fn count(shape: &[i64]) -> Option<usize> {
    let mut n: usize = 1;
    for d in shape {
        n = n.checked_mul(usize::try_from(*d).ok()?)?;
    }
    (n <= MAX_ELEMENTS).then_some(n)
}

fn truthy(v: Scalar) -> bool {
    match v {
        Scalar::Int(i) => i != 0,
        Scalar::Float(f) => f != 0.0,
    }
}

fn compare(a: Scalar, b: Scalar) -> Option<std::cmp::Ordering> {
    match (a, b) {
        (Scalar::Int(x), Scalar::Int(y)) => Some(x.cmp(&y)),
        (Scalar::Float(x), Scalar::Float(y)) => x.partial_cmp(&y),
        (Scalar::Int(x), Scalar::Float(y)) => (x as f64).partial_cmp(&y),
        (Scalar::Float(x), Scalar::Int(y)) => x.partial_cmp(&(y as f64)),
    }
}

/// Row-major strides of `shape`.
fn strides(shape: &[i64]) -> Vec<usize> {
    let mut s = vec![1usize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1] as usize;
    }
    s
}

/// numpy's broadcast of `shapes`.
fn broadcast_shape(shapes: &[&[i64]]) -> Result<Vec<i64>, String> {
    let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![1i64; rank];
    for s in shapes {
        for (i, d) in s.iter().enumerate() {
            let o = &mut out[rank - s.len() + i];
            if *o == 1 {
                *o = *d;
            } else if *d != 1 && *d != *o {
                return Err(format!(
                    "shapes {:?} do not broadcast",
                    shapes.iter().map(|s| s.to_vec()).collect::<Vec<_>>()
                ));
            }
        }
    }
    Ok(out)
}

/// `f` of the elements of `args` broadcast to `shape`.
fn broadcast(
    args: &[&Known],
    shape: &[i64],
    element: TypeId,
    f: impl Fn(&[Scalar]) -> Scalar,
) -> Result<Known, String> {
    let n = count(shape).ok_or("the folded tensor is too large")?;
    let out_strides = strides(shape);
    let rank = shape.len();
    // Each argument's stride per output dimension (0 where it broadcasts).
    let arg_strides: Vec<Vec<usize>> = args
        .iter()
        .map(|a| {
            let s = strides(&a.shape);
            (0..rank)
                .map(|i| {
                    let j = i as isize - (rank - a.shape.len()) as isize;
                    if j < 0 || a.shape[j as usize] == 1 {
                        0
                    } else {
                        s[j as usize]
                    }
                })
                .collect()
        })
        .collect();
    let mut data = Vec::with_capacity(n);
    let mut values = vec![Scalar::Int(0); args.len()];
    for flat in 0..n {
        for (k, a) in args.iter().enumerate() {
            let mut index = 0;
            let mut rest = flat;
            for d in 0..rank {
                let coord = rest / out_strides[d];
                rest %= out_strides[d];
                index += coord * arg_strides[k][d];
            }
            values[k] = a.data[index];
        }
        data.push(f(&values));
    }
    Ok(Known {
        element,
        shape: shape.to_vec(),
        data,
        splat: false,
    })
}

fn binary(
    a: &Known,
    b: &Known,
    element: TypeId,
    f: impl Fn(Scalar, Scalar) -> Scalar,
) -> Result<Known, String> {
    let shape = broadcast_shape(&[&a.shape, &b.shape])?;
    broadcast(&[a, b], &shape, element, |v| f(v[0], v[1]))
}

fn map(a: &Known, f: impl Fn(Scalar) -> Scalar) -> Known {
    Known {
        element: a.element,
        shape: a.shape.clone(),
        data: a.data.iter().map(|v| f(*v)).collect(),
        splat: false,
    }
}

fn kind(ctx: &Context, element: TypeId) -> Option<ElementKind> {
    ElementKind::of(ctx, element)
}

/// Add, Sub, Mul, Div, Min and Max of two known tensors of one element type. `None`
/// (left to run) for an integer division by zero and mixed element types.
fn arithmetic(ctx: &Context, op: &str, a: &Known, b: &Known) -> Option<Result<Known, String>> {
    if a.element != b.element {
        return None;
    }
    let k = kind(ctx, a.element)?;
    if matches!(k, ElementKind::Int(..)) && op == "Div" && b.data.contains(&Scalar::Int(0)) {
        return None;
    }
    let f = |x: Scalar, y: Scalar| -> Scalar {
        let r = match (x, y) {
            (Scalar::Int(x), Scalar::Int(y)) => Scalar::Int(match op {
                "Add" => x.wrapping_add(y),
                "Sub" => x.wrapping_sub(y),
                "Mul" => x.wrapping_mul(y),
                "Div" => x.wrapping_div(y),
                "Min" => x.min(y),
                _ => x.max(y),
            }),
            (Scalar::Float(x), Scalar::Float(y)) => Scalar::Float(match op {
                "Add" => x + y,
                "Sub" => x - y,
                "Mul" => x * y,
                "Div" => x / y,
                // ONNX's Min and Max propagate NaN.
                "Min" if x.is_nan() || y.is_nan() => f64::NAN,
                "Max" if x.is_nan() || y.is_nan() => f64::NAN,
                "Min" => x.min(y),
                _ => x.max(y),
            }),
            _ => x,
        };
        k.normalize(r)
    };
    Some(binary(a, b, a.element, f))
}

/// How Cast and CastLike round to small floats: `saturate` and `round_mode`.
fn cast_options(attrs: &Attrs<'_>) -> SmallFloatCast {
    SmallFloatCast {
        saturate: attrs.int("saturate").unwrap_or(1) != 0,
        rounding: match attrs.string("round_mode").as_deref() {
            Some("down") => ScaleRounding::Down,
            Some("nearest") => ScaleRounding::Nearest,
            _ => ScaleRounding::Up,
        },
    }
}

/// Mod (`fmod`: C's fmod, else numpy.mod) as the graph ops compute it; an integer
/// remainder by zero is left to run.
fn remainder(ctx: &Context, fmod: bool, a: &Known, b: &Known) -> Option<Result<Known, String>> {
    if a.element != b.element {
        return None;
    }
    let k = kind(ctx, a.element)?;
    if matches!(k, ElementKind::Int(..)) && b.data.contains(&Scalar::Int(0)) {
        return None;
    }
    let op = if fmod { BinaryOp::Fmod } else { BinaryOp::Mod };
    Some(binary(a, b, a.element, |x, y| {
        k.normalize(op.eval_in(k, x, y).unwrap_or(x))
    }))
}

fn unary(ctx: &Context, op: &str, a: &Known) -> Option<Result<Known, String>> {
    let k = kind(ctx, a.element)?;
    let float = matches!(k, ElementKind::Float(_));
    if !float && matches!(op, "Floor" | "Ceil" | "Round" | "Sqrt") {
        return None;
    }
    Some(Ok(map(a, |v| {
        k.normalize(match v {
            Scalar::Int(i) => Scalar::Int(match op {
                "Neg" => i.wrapping_neg(),
                _ => i.abs(),
            }),
            Scalar::Float(f) => Scalar::Float(match op {
                "Neg" => -f,
                "Abs" => f.abs(),
                "Floor" => f.floor(),
                "Ceil" => f.ceil(),
                "Round" => f.round_ties_even(),
                _ => f.sqrt(),
            }),
        })
    })))
}

/// Cast as the graph dialect defines it: floats to integers round toward zero; a
/// value out of the target's range, or a NaN, is left to run (where it is an error).
/// ONNX Cast's options for small float results (see `graph.cast`).
#[derive(Copy, Clone)]
struct SmallFloatCast {
    saturate: bool,
    rounding: ScaleRounding,
}

fn cast(ctx: &Context, x: &Known, to: TypeId, small: SmallFloatCast) -> Result<Known, String> {
    let target = kind(ctx, to).ok_or("unsupported cast target")?;
    let bool_target = matches!(ctx.type_data(to), TypeData::Integer { width: 1, .. });
    let mut data = Vec::with_capacity(x.data.len());
    for v in &x.data {
        let out = if bool_target {
            Scalar::Int(truthy(*v).into())
        } else {
            match (target, *v) {
                (ElementKind::Int(w, s), Scalar::Float(f)) => {
                    let t = f.trunc();
                    let r = acc_ir::elements::normalize_int(t as i128, w, s);
                    if !f.is_finite() || r as f64 != t {
                        return Err("a value is out of the cast's range".into());
                    }
                    Scalar::Int(r)
                }
                (ElementKind::Int(w, s), Scalar::Int(i)) => {
                    Scalar::Int(acc_ir::elements::normalize_int(i, w, s))
                }
                (ElementKind::Float(k), v) if MiniFloat::of(k).is_some() => {
                    let x = match v {
                        Scalar::Float(f) => f,
                        Scalar::Int(i) => i as f64,
                    };
                    let y = cast_to_small_float(x, k, small.saturate, small.rounding);
                    Scalar::Float(y.ok_or("not a small float")?)
                }
                (k, v) => k.normalize(v),
            }
        };
        data.push(out);
    }
    Ok(Known {
        element: to,
        shape: x.shape.clone(),
        data,
        splat: false,
    })
}

fn gather(data: &Known, indices: &Known, axis: i64) -> Result<Known, String> {
    let rank = data.shape.len() as i64;
    let axis = if axis < 0 { axis + rank } else { axis };
    if !(0..rank).contains(&axis) {
        return Err(format!("axis {axis} is out of range for rank {rank}"));
    }
    let axis = axis as usize;
    let dim = data.shape[axis];
    let idx = ints(indices).ok_or("its indices must be integers")?;
    let mut resolved = Vec::with_capacity(idx.len());
    for i in idx {
        let j = if i < 0 { i + dim } else { i };
        if !(0..dim).contains(&j) {
            return Err(format!(
                "index {i} is out of range for a dimension of {dim}"
            ));
        }
        resolved.push(j as usize);
    }
    let outer: usize = data.shape[..axis].iter().product::<i64>() as usize;
    let inner: usize = data.shape[axis + 1..].iter().product::<i64>() as usize;
    let mut shape = data.shape[..axis].to_vec();
    shape.extend(&indices.shape);
    shape.extend(&data.shape[axis + 1..]);
    count(&shape).ok_or("the folded tensor is too large")?;
    let mut out = Vec::new();
    for o in 0..outer {
        for &j in &resolved {
            let start = (o * dim as usize + j) * inner;
            out.extend_from_slice(&data.data[start..start + inner]);
        }
    }
    Ok(Known {
        element: data.element,
        shape,
        data: out,
        splat: false,
    })
}

fn concat(parts: &[&Known], axis: i64) -> Result<Known, String> {
    let first = parts.first().ok_or("it has no inputs")?;
    let rank = first.shape.len() as i64;
    let axis = if axis < 0 { axis + rank } else { axis };
    if !(0..rank).contains(&axis) {
        return Err(format!("axis {axis} is out of range for rank {rank}"));
    }
    let axis = axis as usize;
    let mut shape = first.shape.clone();
    shape[axis] = 0;
    for p in parts {
        let same = p.shape.len() == first.shape.len()
            && p.shape
                .iter()
                .zip(&first.shape)
                .enumerate()
                .all(|(i, (a, b))| i == axis || a == b);
        if !same || p.element != first.element {
            return Err("its inputs differ in rank, shape or element type".into());
        }
        shape[axis] += p.shape[axis];
    }
    let outer: usize = first.shape[..axis].iter().product::<i64>() as usize;
    let mut data = Vec::new();
    for o in 0..outer {
        for p in parts {
            let chunk = p.shape[axis..].iter().product::<i64>() as usize;
            data.extend_from_slice(&p.data[o * chunk..(o + 1) * chunk]);
        }
    }
    Ok(Known {
        element: first.element,
        shape,
        data,
        splat: false,
    })
}

fn slice(
    x: &Known,
    starts: &Known,
    ends: &Known,
    axes: Option<&Known>,
    steps: Option<&Known>,
) -> Result<Known, String> {
    let rank = x.shape.len() as i64;
    let starts = ints(starts).ok_or("starts must be integers")?;
    let ends = ints(ends).ok_or("ends must be integers")?;
    let axes = match axes {
        Some(a) => ints(a).ok_or("axes must be integers")?,
        None => (0..starts.len() as i64).collect(),
    };
    let steps = match steps {
        Some(s) => ints(s).ok_or("steps must be integers")?,
        None => vec![1; starts.len()],
    };
    if ends.len() != starts.len() || axes.len() != starts.len() || steps.len() != starts.len() {
        return Err("starts, ends, axes and steps differ in length".into());
    }
    // Per dimension: first index, step and count.
    let mut first: Vec<i64> = vec![0; rank as usize];
    let mut step: Vec<i64> = vec![1; rank as usize];
    let mut len: Vec<i64> = x.shape.clone();
    for k in 0..starts.len() {
        let a = if axes[k] < 0 { axes[k] + rank } else { axes[k] };
        if !(0..rank).contains(&a) {
            return Err(format!("axis {} is out of range", axes[k]));
        }
        let (a, dim, st) = (a as usize, x.shape[a as usize], steps[k]);
        if st == 0 {
            return Err("a step is 0".into());
        }
        let adjust = |v: i64| if v < 0 { v.saturating_add(dim) } else { v };
        let (s, e) = (adjust(starts[k]), adjust(ends[k]));
        let (s, e) = if st > 0 {
            (s.clamp(0, dim), e.clamp(0, dim))
        } else {
            (s.clamp(0, dim - 1), e.clamp(-1, dim - 1))
        };
        // In i128: a step near i64's limits must not overflow (the count is at most
        // the dimension, so it fits back).
        let (s1, e1, st1) = (i128::from(s), i128::from(e), i128::from(st));
        let n = if st > 0 {
            (e1 - s1 + st1 - 1).div_euclid(st1).max(0)
        } else {
            (s1 - e1 - st1 - 1).div_euclid(-st1).max(0)
        } as i64;
        first[a] = s;
        step[a] = st;
        len[a] = n;
    }
    let n = count(&len).ok_or("the folded tensor is too large")?;
    let in_strides = strides(&x.shape);
    let out_strides = strides(&len);
    let mut data = Vec::with_capacity(n);
    for flat in 0..n {
        let mut rest = flat;
        let mut index = 0i64;
        for d in 0..len.len() {
            let c = (rest / out_strides[d]) as i64;
            rest %= out_strides[d];
            index += (first[d] + c * step[d]) * in_strides[d] as i64;
        }
        data.push(x.data[index as usize]);
    }
    Ok(Known {
        element: x.element,
        shape: len,
        data,
        splat: false,
    })
}

fn unsqueeze_shape(shape: &[i64], axes: &[i64]) -> Result<Vec<i64>, String> {
    let rank = (shape.len() + axes.len()) as i64;
    let mut norm: Vec<i64> = axes
        .iter()
        .map(|a| if *a < 0 { a + rank } else { *a })
        .collect();
    norm.sort();
    if norm.windows(2).any(|w| w[0] == w[1]) || norm.iter().any(|a| !(0..rank).contains(a)) {
        return Err(format!("axes {axes:?} are invalid"));
    }
    let mut dims = shape.iter();
    Ok((0..rank)
        .map(|i| {
            if norm.contains(&i) {
                1
            } else {
                *dims.next().unwrap_or(&1)
            }
        })
        .collect())
}

fn squeeze_shape(shape: &[i64], axes: &[i64]) -> Result<Vec<i64>, String> {
    let rank = shape.len() as i64;
    let norm: Vec<i64> = axes
        .iter()
        .map(|a| if *a < 0 { a + rank } else { *a })
        .collect();
    if norm
        .iter()
        .any(|a| !(0..rank).contains(a) || shape[*a as usize] != 1)
    {
        return Err(format!("axes {axes:?} are not dimensions of size 1"));
    }
    Ok(shape
        .iter()
        .enumerate()
        .filter(|(i, d)| {
            if norm.is_empty() {
                **d != 1
            } else {
                !norm.contains(&(*i as i64))
            }
        })
        .map(|(_, d)| *d)
        .collect())
}

/// ONNX Reshape's target: 0 copies the input's dimension (unless `allowzero`), one -1
/// is inferred.
pub(super) fn reshape_shape(
    input: &[i64],
    target: &[i64],
    allowzero: bool,
) -> Result<Vec<i64>, String> {
    let total: i64 = input.iter().product();
    let mut out = Vec::with_capacity(target.len());
    let mut inferred = None;
    for (i, d) in target.iter().enumerate() {
        match *d {
            0 if !allowzero => out.push(
                *input
                    .get(i)
                    .ok_or("a 0 in the shape has no input dimension")?,
            ),
            -1 if inferred.is_none() => {
                inferred = Some(i);
                out.push(1);
            }
            d if d < 0 => return Err(format!("shape {target:?} is invalid")),
            d => out.push(d),
        }
    }
    let known = out
        .iter()
        .try_fold(1i64, |n, d| n.checked_mul(*d))
        .ok_or_else(|| format!("shape {target:?} is too large"))?;
    if let Some(i) = inferred {
        if known == 0 || total % known != 0 {
            return Err(format!("cannot reshape {input:?} to {target:?}"));
        }
        out[i] = total / known;
    } else if known != total {
        return Err(format!("cannot reshape {input:?} to {target:?}"));
    }
    Ok(out)
}

fn transpose(x: &Known, perm: Option<Vec<i64>>) -> Result<Known, String> {
    let rank = x.shape.len();
    let perm: Vec<usize> = match perm {
        Some(p) => p.iter().map(|d| *d as usize).collect(),
        None => (0..rank).rev().collect(),
    };
    let mut sorted = perm.clone();
    sorted.sort();
    if sorted != (0..rank).collect::<Vec<_>>() {
        return Err(format!("perm {perm:?} is not a permutation"));
    }
    let shape: Vec<i64> = perm.iter().map(|p| x.shape[*p]).collect();
    let in_strides = strides(&x.shape);
    let out_strides = strides(&shape);
    let data = (0..x.data.len())
        .map(|flat| {
            let mut rest = flat;
            let mut index = 0;
            for d in 0..rank {
                let c = rest / out_strides[d];
                rest %= out_strides[d];
                index += c * in_strides[perm[d]];
            }
            x.data[index]
        })
        .collect();
    Ok(Known {
        element: x.element,
        shape,
        data,
        splat: false,
    })
}

/// Range: `start + i * delta` for i below ceil((limit - start) / delta), computed
/// in the element type as onnxruntime does (for floats, the product and the sum each
/// rounded to it).
fn range(
    ctx: &Context,
    start: &Known,
    limit: &Known,
    delta: &Known,
) -> Option<Result<Known, String>> {
    let number = |k: &Known| -> Option<f64> {
        match k.data.first()? {
            Scalar::Int(i) => Some(*i as f64),
            Scalar::Float(f) => Some(*f),
        }
    };
    let (s, l, d) = (number(start)?, number(limit)?, number(delta)?);
    if d == 0.0 {
        return Some(Err("its delta is 0".into()));
    }
    let n = ((l - s) / d).ceil();
    if !n.is_finite() || n > MAX_ELEMENTS as f64 {
        return None;
    }
    let kind = kind(ctx, start.element)?;
    let data = (0..n.max(0.0) as i64)
        .map(|i| match (start.data[0], delta.data[0]) {
            (Scalar::Int(s), Scalar::Int(d)) => kind.normalize(Scalar::Int(s + i128::from(i) * d)),
            _ => {
                let step = kind.normalize(Scalar::Float(i as f64 * d));
                let Scalar::Float(step) = step else {
                    return step;
                };
                kind.normalize(Scalar::Float(s + step))
            }
        })
        .collect();
    Some(Ok(vector(start.element, data)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints_of(ctx: &Context, shape: &[i64], v: &[i64]) -> Known {
        Known {
            element: ctx.int_type(64),
            shape: shape.to_vec(),
            data: v.iter().map(|x| Scalar::Int((*x).into())).collect(),
            splat: false,
        }
    }

    fn values(k: &Known) -> Vec<i64> {
        ints(k).expect("integers")
    }

    #[test]
    fn slices_with_negative_steps_and_clamped_bounds() {
        let ctx = Context::new();
        let x = ints_of(&ctx, &[2, 3], &[0, 1, 2, 3, 4, 5]);
        let (s, e) = (ints_of(&ctx, &[1], &[-1]), ints_of(&ctx, &[1], &[i64::MIN]));
        let (a, st) = (ints_of(&ctx, &[1], &[1]), ints_of(&ctx, &[1], &[-1]));
        let r = slice(&x, &s, &e, Some(&a), Some(&st)).expect("slice");
        assert_eq!(
            (r.shape.clone(), values(&r)),
            (vec![2, 3], vec![2, 1, 0, 5, 4, 3])
        );
        let (s, e) = (ints_of(&ctx, &[1], &[1]), ints_of(&ctx, &[1], &[1000]));
        let r = slice(&x, &s, &e, Some(&a), None).expect("slice");
        assert_eq!(
            (r.shape.clone(), values(&r)),
            (vec![2, 2], vec![1, 2, 4, 5])
        );
    }

    #[test]
    fn gathers_with_negative_indices_and_rejects_out_of_range() {
        let ctx = Context::new();
        let x = ints_of(&ctx, &[2, 3], &[0, 1, 2, 3, 4, 5]);
        let i = ints_of(&ctx, &[2], &[-1, 0]);
        let r = gather(&x, &i, 1).expect("gather");
        assert_eq!(
            (r.shape.clone(), values(&r)),
            (vec![2, 2], vec![2, 0, 5, 3])
        );
        assert!(gather(&x, &ints_of(&ctx, &[1], &[3]), 1).is_err());
    }

    #[test]
    fn reshape_targets_copy_zeros_and_infer_one_dimension() {
        assert_eq!(reshape_shape(&[2, 3, 4], &[0, -1], false), Ok(vec![2, 12]));
        assert_eq!(reshape_shape(&[2, 3, 4], &[4, 0, -1], true).ok(), None);
        assert!(reshape_shape(&[2, 3], &[4, 2], false).is_err());
        assert!(reshape_shape(&[2, 3], &[i64::MAX, 4], false).is_err());
    }

    #[test]
    fn integer_division_by_zero_and_out_of_range_casts_are_left_to_run() {
        let ctx = Context::new();
        let a = ints_of(&ctx, &[2], &[7, -7]);
        let b = ints_of(&ctx, &[2], &[2, 0]);
        assert!(arithmetic(&ctx, "Div", &a, &b).is_none());
        let b = ints_of(&ctx, &[1], &[2]);
        let q = arithmetic(&ctx, "Div", &a, &b).expect("folds").expect("ok");
        assert_eq!(values(&q), vec![3, -3], "truncates toward zero");
        let big = Known {
            element: ctx.float_type(FloatKind::F32),
            shape: vec![1],
            data: vec![Scalar::Float(300.0)],
            splat: false,
        };
        let plain = SmallFloatCast {
            saturate: true,
            rounding: ScaleRounding::Up,
        };
        assert!(cast(&ctx, &big, ctx.int_type(8), plain).is_err());
        assert_eq!(
            values(&cast(&ctx, &big, ctx.int_type(16), plain).expect("cast")),
            vec![300]
        );
    }

    #[test]
    fn unsqueeze_and_squeeze_shapes() {
        assert_eq!(unsqueeze_shape(&[3, 4], &[0, -1]), Ok(vec![1, 3, 4, 1]));
        assert!(unsqueeze_shape(&[3], &[0, 0]).is_err());
        assert_eq!(squeeze_shape(&[1, 3, 1], &[]), Ok(vec![3]));
        assert!(squeeze_shape(&[1, 3], &[1]).is_err());
    }
}
