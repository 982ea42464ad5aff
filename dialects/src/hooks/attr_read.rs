//! Reading the attributes and operand types an inference hook or verifier needs, with
//! errors that say what is wrong ("attribute 'strides' must have 2 values").

use acc_ir::attrs::AttrData;
use acc_ir::elements::{self, Scalar};
use acc_ir::{AttrId, Context, DYNAMIC, InferInput, OpRef, TypeData, TypeId};

/// The attributes of an op being inferred or verified.
pub struct Attrs<'a> {
    ctx: &'a Context,
    props: Option<AttrId>,
    attrs: AttrId,
}

impl<'a> Attrs<'a> {
    /// The attributes of an op still being built.
    pub fn of_input(ctx: &'a Context, input: &InferInput<'_>) -> Attrs<'a> {
        Attrs {
            ctx,
            props: input.props,
            attrs: input.attrs,
        }
    }

    /// The attributes of an existing op.
    pub fn of_op(ctx: &'a Context, op: OpRef<'_>) -> Attrs<'a> {
        Attrs {
            ctx,
            props: op.props(),
            attrs: op.attrs(),
        }
    }

    /// The context the attributes live in.
    pub fn context(&self) -> &'a Context {
        self.ctx
    }

    /// The attribute named `name`, if present.
    pub fn get(&self, name: &str) -> Option<AttrId> {
        self.props
            .and_then(|p| self.ctx.dict_get(p, name))
            .or_else(|| self.ctx.dict_get(self.attrs, name))
    }

    /// An integer attribute, if present.
    pub fn int(&self, name: &str) -> Result<Option<i64>, String> {
        match self.get(name) {
            None => Ok(None),
            Some(a) => match elements::scalar(self.ctx, a) {
                Some((_, Scalar::Int(v))) => i64::try_from(v)
                    .map(Some)
                    .map_err(|_| format!("attribute '{name}' is out of range")),
                _ => Err(format!("attribute '{name}' must be an integer")),
            },
        }
    }

    /// A required integer attribute.
    pub fn req_int(&self, name: &str) -> Result<i64, String> {
        self.int(name)?
            .ok_or_else(|| format!("requires attribute '{name}'"))
    }

    /// A boolean attribute (absent is false).
    pub fn flag(&self, name: &str) -> bool {
        self.get(name).is_some_and(
            |a| matches!(self.ctx.attr_data(a), AttrData::Integer { value, .. } if *value != 0),
        )
    }

    /// An `array<i64: ...>` attribute, if present.
    pub fn ints(&self, name: &str) -> Result<Option<Vec<i64>>, String> {
        match self.get(name).map(|a| self.ctx.attr_data(a)) {
            None => Ok(None),
            Some(AttrData::DenseArray { element, data })
                if matches!(
                    self.ctx.type_data(*element),
                    TypeData::Integer { width: 64, .. }
                ) =>
            {
                Ok(Some(
                    data.chunks_exact(8)
                        .map(|c| i64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
                        .collect(),
                ))
            }
            Some(_) => Err(format!("attribute '{name}' must be an array<i64: ...>")),
        }
    }

    /// An `array<i64: ...>` attribute of exactly `n` values, or `default` when absent.
    pub fn ints_n(&self, name: &str, n: usize, default: i64) -> Result<Vec<i64>, String> {
        match self.ints(name)? {
            None => Ok(vec![default; n]),
            Some(v) if v.len() == n => Ok(v),
            Some(v) => Err(format!(
                "attribute '{name}' must have {n} values, but has {}",
                v.len()
            )),
        }
    }

    /// The groups of a `tensor.collapse_shape` or `tensor.expand_shape`'s
    /// `reassociation` (the dimensions of the larger shape, in order, that make each
    /// dimension of the smaller).
    pub fn reassociation(&self) -> Result<Vec<Vec<usize>>, String> {
        let ctx = self.ctx;
        // collapse_shape and expand_shape share the attribute name.
        let a = self
            .get("reassociation")
            .ok_or("requires attribute 'reassociation'")?;
        let bad = || "'reassociation' must be a list of lists of dimensions, in order".to_string();
        let AttrData::Array(groups) = ctx.attr_data(a) else {
            return Err(bad());
        };
        let mut next = 0usize;
        let mut out = Vec::new();
        for g in groups.iter() {
            let AttrData::Array(dims) = ctx.attr_data(*g) else {
                return Err(bad());
            };
            let mut group = Vec::new();
            for d in dims.iter() {
                match ctx.attr_data(*d) {
                    AttrData::Integer { value, .. } if *value == next as i128 => group.push(next),
                    _ => return Err(bad()),
                }
                next += 1;
            }
            if group.is_empty() {
                return Err(bad());
            }
            out.push(group);
        }
        Ok(out)
    }

    /// An `array<f32: ...>` attribute, if present.
    pub fn floats(&self, name: &str) -> Result<Option<Vec<f64>>, String> {
        match self.get(name).map(|a| self.ctx.attr_data(a)) {
            None => Ok(None),
            Some(AttrData::DenseArray { element, data }) if matches!(self.ctx.type_data(*element), TypeData::Float(k) if k.width() == 32) => {
                Ok(Some(
                    data.chunks_exact(4)
                        .map(|c| f32::from_le_bytes(c.try_into().unwrap_or([0; 4])) as f64)
                        .collect(),
                ))
            }
            Some(_) => Err(format!("attribute '{name}' must be an array<f32: ...>")),
        }
    }
}

/// The shape and element type of a ranked tensor.
pub fn ranked(ctx: &Context, t: TypeId, what: &str) -> Result<(Vec<i64>, TypeId), String> {
    match ctx.type_data(t) {
        TypeData::RankedTensor { shape, element, .. } => Ok((shape.to_vec(), *element)),
        _ => Err(format!("{what} must be a ranked tensor")),
    }
}

/// A ranked tensor type as data.
pub fn tensor(shape: Vec<i64>, element: TypeId) -> TypeData {
    TypeData::RankedTensor {
        shape: shape.into(),
        element,
        encoding: None,
    }
}

/// The operand types an inference needs: exactly `n` of them, else an error.
pub fn operands<'t>(input: &InferInput<'t>, n: usize) -> Result<&'t [TypeId], String> {
    if input.operand_types.len() < n {
        return Err(format!(
            "expects at least {n} operands, but found {}",
            input.operand_types.len()
        ));
    }
    Ok(input.operand_types)
}

/// `axis` brought into `0..rank` (negative counts from the end), or an error.
pub fn norm_axis(axis: i64, rank: usize, what: &str) -> Result<usize, String> {
    let r = rank as i64;
    if axis < -r || axis >= r {
        return Err(format!("{what} {axis} is out of range for rank {rank}"));
    }
    Ok(if axis < 0 { axis + r } else { axis } as usize)
}

/// True for a dynamic dimension.
pub fn is_dyn(d: i64) -> bool {
    d == DYNAMIC
}

/// `a` and `b` are equal or one is dynamic.
pub fn dims_agree(a: i64, b: i64) -> bool {
    a == b || is_dyn(a) || is_dyn(b)
}

/// The product of dimensions, dynamic if any is; `i64::MAX` when it overflows (no
/// shape has that many elements, so a comparison with it fails as it should).
pub fn product(dims: &[i64]) -> i64 {
    if dims.iter().any(|d| is_dyn(*d)) {
        return DYNAMIC;
    }
    dims.iter()
        .try_fold(1i64, |n, d| n.checked_mul(*d))
        .unwrap_or(i64::MAX)
}
