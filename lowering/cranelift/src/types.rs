//! acc types as Cranelift types: integers (an `i1` is a byte holding 0 or 1, an `i2`
//! or `i4` a byte holding its value sign-extended), `index` as a 64-bit integer,
//! `f32`/`f64`, `f16`/`bf16` as their 16 bits and the f8/f6/f4 floats as their bits in
//! a byte, 128-bit vectors, and `memref`s with a static shape and strides as a pointer.

use acc_dialects::hooks::loops::memref_strides;
use acc_interp::Tensor;
use acc_ir::elements::{ElementKind, Scalar};
use acc_ir::minifloat::MiniFloat;
use acc_ir::{Context, FloatKind, TypeData, TypeId};
use cranelift_codegen::ir::{Type, types};

/// How a value of some acc type is held in generated code.
#[derive(Clone, Debug)]
pub enum Repr {
    /// One machine value of this type.
    Scalar(Type),
    /// A pointer to the first element of a buffer laid out as described.
    Memref(MemrefLayout),
}

/// A memref's static shape and layout.
#[derive(Clone, Debug, PartialEq)]
pub struct MemrefLayout {
    /// Sizes per dimension.
    pub shape: Vec<usize>,
    /// Elements between neighbours along each dimension.
    pub strides: Vec<usize>,
    /// The element type in generated code.
    pub element: Type,
    /// The element's acc type.
    pub element_ty: TypeId,
}

impl MemrefLayout {
    /// Bytes per element.
    pub fn element_bytes(&self) -> u32 {
        self.element.bytes()
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    /// Whether the elements are consecutive in row-major order.
    pub fn is_contiguous(&self) -> bool {
        let mut expected = 1;
        for (size, stride) in self.shape.iter().zip(&self.strides).rev() {
            if *size > 1 && *stride != expected {
                return false;
            }
            expected *= size;
        }
        true
    }
}

/// The Cranelift type of a scalar or vector acc type.
pub fn scalar_type(ctx: &Context, ty: TypeId) -> Result<Type, String> {
    Ok(match ctx.type_data(ty) {
        TypeData::Integer {
            width: 1 | 2 | 4 | 8,
            ..
        } => types::I8,
        TypeData::Integer { width: 16, .. } => types::I16,
        TypeData::Integer { width: 32, .. } => types::I32,
        TypeData::Integer { width: 64, .. } | TypeData::Index => types::I64,
        // A quantized element is its stored integer.
        TypeData::QuantUniform(q) if matches!(q.storage_width, 2 | 4) => types::I8,
        TypeData::QuantUniform(q) if matches!(q.storage_width, 8 | 16 | 32) => {
            types::Type::int(q.storage_width as u16).ok_or("no storage type")?
        }
        TypeData::Float(FloatKind::F32) => types::F32,
        TypeData::Float(FloatKind::F64) => types::F64,
        // Their bits: `emulate-narrow-floats` leaves no arithmetic on them.
        TypeData::Float(FloatKind::F16 | FloatKind::BF16) => types::I16,
        TypeData::Float(k) if MiniFloat::of(*k).is_some() => types::I8,
        TypeData::Vector { .. } => {
            let shape = ctx.type_data(ty).shape().unwrap_or(&[]);
            let element = ctx.type_data(ty).element_type().unwrap_or(ty);
            if narrow_int(ctx, element).is_some() {
                return Err(format!(
                    "{} is a vector of sub-byte integers, which have no vector instructions",
                    acc_ir::printer::type_to_string(ctx, ty)
                ));
            }
            let lane = scalar_type(ctx, element)?;
            let lanes = shape.iter().product::<i64>();
            let vector = u32::try_from(lanes)
                .ok()
                .and_then(|n| lane.by(n))
                .filter(|v| v.bits() == 128 && shape.len() == 1);
            vector.ok_or_else(|| {
                format!(
                    "{} is not a 128-bit vector of one dimension (the vectors Cranelift has)",
                    acc_ir::printer::type_to_string(ctx, ty)
                )
            })?
        }
        _ => {
            return Err(format!(
                "{} has no machine type here",
                acc_ir::printer::type_to_string(ctx, ty)
            ));
        }
    })
}

/// How a value of type `ty` is held.
pub fn repr(ctx: &Context, ty: TypeId) -> Result<Repr, String> {
    let TypeData::MemRef { shape, element, .. } = ctx.type_data(ty) else {
        return Ok(Repr::Scalar(scalar_type(ctx, ty)?));
    };
    let text = || acc_ir::printer::type_to_string(ctx, ty);
    let shape: Vec<usize> = shape
        .iter()
        .map(|d| usize::try_from(*d).map_err(|_| format!("{} has a dynamic size", text())))
        .collect::<Result<_, _>>()?;
    // Every byte offset into the memref fits 64 bits, and it is no bigger than the
    // memory budget (what the native code allocates or is handed).
    let element_bytes = u64::from(scalar_type(ctx, *element)?.bytes());
    let dims: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
    acc_ir::budget::shape_allocation(&text(), &dims, element_bytes)?;
    let (strides, _) = memref_strides(ctx, ty)?;
    let strides: Vec<usize> = strides
        .iter()
        .map(|s| usize::try_from(*s).map_err(|_| format!("{} has a dynamic stride", text())))
        .collect::<Result<_, _>>()?;
    Ok(Repr::Memref(MemrefLayout {
        shape,
        strides,
        element: scalar_type(ctx, *element)?,
        element_ty: *element,
    }))
}

/// The format of `ty` (or its element type) when it is a float held as its bits:
/// `f16`, `bf16`, or one of 8 bits or fewer (f8, f6, f4).
pub fn narrow_float(ctx: &Context, ty: TypeId) -> Option<FloatKind> {
    let element = ctx.type_data(ty).element_type().unwrap_or(ty);
    match ctx.type_data(element) {
        TypeData::Float(k @ (FloatKind::F16 | FloatKind::BF16)) => Some(*k),
        TypeData::Float(k) if MiniFloat::of(*k).is_some() => Some(*k),
        _ => None,
    }
}

/// The width of `ty` (or its element type) when it is an `i2` or `i4` (or a quantized
/// type stored in one), held in a byte sign-extended: every op producing one
/// sign-extends its result from this width.
pub fn narrow_int(ctx: &Context, ty: TypeId) -> Option<u32> {
    let element = ctx.type_data(ty).element_type().unwrap_or(ty);
    match ctx.type_data(element) {
        TypeData::Integer {
            width: w @ (2 | 4), ..
        } => Some(*w),
        TypeData::QuantUniform(q) if matches!(q.storage_width, 2 | 4) => Some(q.storage_width),
        _ => None,
    }
}

/// Whether `ty` is an `i1`.
pub fn is_bool(ctx: &Context, ty: TypeId) -> bool {
    let element = ctx.type_data(ty).element_type().unwrap_or(ty);
    matches!(ctx.type_data(element), TypeData::Integer { width: 1, .. })
}

/// The elements of `t` as generated code lays them out: little-endian, row-major, an
/// `i1` as one byte holding 0 or 1, an `i2`/`i4` as one byte holding it sign-extended.
pub fn encode(t: &Tensor) -> Result<Vec<u8>, String> {
    let values = t.values()?;
    let mut bytes = Vec::with_capacity(values.len() * t.kind.bytes());
    for v in values {
        match t.kind {
            ElementKind::Int(1, _) => bytes.push(u8::from(v != Scalar::Int(0))),
            ElementKind::Int(w @ (2 | 4), _) => {
                let low = match v {
                    Scalar::Int(i) => i as u8,
                    Scalar::Float(_) => 0,
                };
                bytes.push((((low << (8 - w)) as i8) >> (8 - w)) as u8);
            }
            k => k.encode(v, &mut bytes),
        }
    }
    Ok(bytes)
}
