//! Runtime values: tensors of numbers. A scalar (`i32`, `f32`) is a tensor of rank 0
//! whose type is the scalar type itself.
//!
//! Invariant: `data.len()` is the product of `shape`, and every element is normalized
//! for `kind` (integers wrapped to their width, floats rounded to their format).

use acc_ir::elements::{self, ElementKind, Scalar};
use acc_ir::{AttrId, Context, TypeData, TypeId};

/// A value of the interpreter.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    /// Its IR type (`tensor<2x3xf32>`, or `f32` for a scalar).
    pub ty: TypeId,
    /// Its static shape (empty for a scalar).
    pub shape: Vec<usize>,
    /// How its elements are stored.
    pub kind: ElementKind,
    /// The elements, row-major.
    pub data: Vec<Scalar>,
}

impl Tensor {
    /// The element type and static shape of `ty`; an error for dynamic or unsupported
    /// types.
    pub fn layout(ctx: &Context, ty: TypeId) -> Result<(Vec<usize>, ElementKind), String> {
        let (shape, element) = match ctx.type_data(ty) {
            TypeData::RankedTensor { .. } | TypeData::Vector { .. } | TypeData::MemRef { .. } => {
                let shape = ctx.type_data(ty).shape().unwrap_or(&[]);
                let dims: Option<Vec<usize>> =
                    shape.iter().map(|d| usize::try_from(*d).ok()).collect();
                let dims = dims.ok_or_else(|| "dynamic shapes are not supported".to_string())?;
                (dims, ctx.type_data(ty).element_type().unwrap_or(ty))
            }
            _ => (Vec::new(), ty),
        };
        let kind = ElementKind::of(ctx, element)
            .ok_or_else(|| format!("unsupported element type in {}", type_text(ctx, ty)))?;
        Ok((shape, kind))
    }

    /// A tensor of type `ty` holding `data` (normalized), checked against its shape.
    pub fn new(ctx: &Context, ty: TypeId, data: Vec<Scalar>) -> Result<Tensor, String> {
        let (shape, kind) = Tensor::layout(ctx, ty)?;
        let n: usize = shape.iter().product();
        if data.len() != n {
            return Err(format!(
                "{} needs {n} elements, got {}",
                type_text(ctx, ty),
                data.len()
            ));
        }
        let data = data.into_iter().map(|v| kind.normalize(v)).collect();
        Ok(Tensor {
            ty,
            shape,
            kind,
            data,
        })
    }

    /// The value of a constant attribute (integer, float, dense, dense resource).
    pub fn from_attr(ctx: &Context, a: AttrId) -> Result<Tensor, String> {
        if let Some((ty, v)) = elements::scalar(ctx, a) {
            return Tensor::new(ctx, ty, vec![v]);
        }
        let dense = elements::dense(ctx, a).ok_or("unsupported constant attribute")?;
        let n: usize = Tensor::layout(ctx, dense.ty)?.0.iter().product();
        let data = if dense.splat {
            vec![dense.get(0); n]
        } else {
            dense.values
        };
        Tensor::new(ctx, dense.ty, data)
    }

    /// Element `i` of a scalar or one-element tensor.
    pub fn scalar(&self) -> Option<Scalar> {
        (self.data.len() == 1).then(|| self.data[0])
    }
}

/// A type as text, for messages.
pub(crate) fn type_text(ctx: &Context, ty: TypeId) -> String {
    acc_ir::printer::type_to_string(ctx, ty)
}
