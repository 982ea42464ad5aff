//! ONNX element types, value types and initializers as acc types and attributes.
//! Initializers above [`RESOURCE_THRESHOLD`] elements become `dense_resource` blobs
//! (so the text stays small and round-trips); smaller ones are inline `dense<...>`.

use std::sync::Arc;

use acc_ir::attrs::AttrData;
use acc_ir::elements::{self, ElementKind, Scalar};
use acc_ir::{AttrId, Context, DYNAMIC, FloatKind, ResourceValue, Signedness, TypeData, TypeId};

use crate::proto::{TensorProto, TypeProto, tensor_proto::DataType, type_proto};

/// Initializers with more elements than this go to the resource section.
pub const RESOURCE_THRESHOLD: usize = 64;

/// The acc element type of an ONNX `TensorProto.DataType`.
pub fn element_type(ctx: &Context, data_type: i32) -> Result<TypeId, String> {
    let unsigned = |width| {
        ctx.intern_type(TypeData::Integer {
            width,
            signedness: Signedness::Unsigned,
        })
    };
    Ok(match DataType::try_from(data_type) {
        Ok(DataType::Float) => ctx.float_type(FloatKind::F32),
        Ok(DataType::Double) => ctx.float_type(FloatKind::F64),
        Ok(DataType::Float16) => ctx.float_type(FloatKind::F16),
        Ok(DataType::Bfloat16) => ctx.float_type(FloatKind::BF16),
        Ok(DataType::Float8e4m3fn) => ctx.float_type(FloatKind::F8E4M3FN),
        Ok(DataType::Float8e4m3fnuz) => ctx.float_type(FloatKind::F8E4M3FNUZ),
        Ok(DataType::Float8e5m2) => ctx.float_type(FloatKind::F8E5M2),
        Ok(DataType::Float8e5m2fnuz) => ctx.float_type(FloatKind::F8E5M2FNUZ),
        Ok(DataType::Float8e8m0) => ctx.float_type(FloatKind::F8E8M0FNU),
        Ok(DataType::Float4e2m1) => ctx.float_type(FloatKind::F4E2M1FN),
        Ok(DataType::Int8) => ctx.int_type(8),
        Ok(DataType::Int16) => ctx.int_type(16),
        Ok(DataType::Int32) => ctx.int_type(32),
        Ok(DataType::Int64) => ctx.int_type(64),
        Ok(DataType::Uint8) => unsigned(8),
        Ok(DataType::Uint16) => unsigned(16),
        Ok(DataType::Uint32) => unsigned(32),
        Ok(DataType::Uint64) => unsigned(64),
        Ok(DataType::Bool) => ctx.int_type(1),
        Ok(DataType::Int4) => ctx.int_type(4),
        Ok(DataType::Uint4) => unsigned(4),
        Ok(DataType::Int2) => ctx.int_type(2),
        Ok(DataType::Uint2) => unsigned(2),
        Ok(other) => {
            return Err(format!(
                "element type {} is not supported",
                other.as_str_name()
            ));
        }
        Err(_) => return Err(format!("unknown element type {data_type}")),
    })
}

/// The ONNX `TensorProto.DataType` of an acc element type (the inverse of
/// [`element_type`]).
pub fn data_type(ctx: &Context, element: TypeId) -> Option<i32> {
    use DataType as T;
    let t = match ctx.type_data(element) {
        TypeData::Float(FloatKind::F32) => T::Float,
        TypeData::Float(FloatKind::F64) => T::Double,
        TypeData::Float(FloatKind::F16) => T::Float16,
        TypeData::Float(FloatKind::BF16) => T::Bfloat16,
        TypeData::Float(FloatKind::F8E4M3FN) => T::Float8e4m3fn,
        TypeData::Float(FloatKind::F8E4M3FNUZ) => T::Float8e4m3fnuz,
        TypeData::Float(FloatKind::F8E5M2) => T::Float8e5m2,
        TypeData::Float(FloatKind::F8E5M2FNUZ) => T::Float8e5m2fnuz,
        TypeData::Float(FloatKind::F8E8M0FNU) => T::Float8e8m0,
        TypeData::Float(FloatKind::F4E2M1FN) => T::Float4e2m1,
        TypeData::Integer { width, signedness } => {
            let unsigned = *signedness == Signedness::Unsigned;
            match (width, unsigned) {
                (1, _) => T::Bool,
                (8, false) => T::Int8,
                (16, false) => T::Int16,
                (32, false) => T::Int32,
                (64, false) => T::Int64,
                (8, true) => T::Uint8,
                (16, true) => T::Uint16,
                (32, true) => T::Uint32,
                (64, true) => T::Uint64,
                (4, false) => T::Int4,
                (4, true) => T::Uint4,
                (2, false) => T::Int2,
                (2, true) => T::Uint2,
                _ => return None,
            }
        }
        _ => return None,
    };
    Some(t as i32)
}

/// `tensor<...>` of `shape` (negative for unknown) and `element`.
pub fn tensor_type(ctx: &Context, shape: &[i64], element: TypeId) -> TypeId {
    ctx.intern_type(TypeData::RankedTensor {
        shape: shape
            .iter()
            .map(|d| if *d < 0 { DYNAMIC } else { *d })
            .collect(),
        element,
        encoding: None,
    })
}

/// The type of a graph input or output.
pub fn value_type(ctx: &Context, t: Option<&TypeProto>) -> Result<TypeId, String> {
    let Some(type_proto::Value::TensorType(tt)) = t.and_then(|t| t.value.as_ref()) else {
        return Err("only tensor inputs and outputs are supported".into());
    };
    let element = element_type(ctx, tt.elem_type.unwrap_or(0))?;
    let shape = tt
        .shape
        .as_ref()
        .ok_or("a tensor of unknown rank is not supported")?;
    let dims: Vec<i64> = shape
        .dim
        .iter()
        .map(|d| match d.value {
            Some(crate::proto::tensor_shape_proto::dimension::Value::DimValue(v)) => v,
            _ => -1,
        })
        .collect();
    Ok(tensor_type(ctx, &dims, element))
}

/// The elements of an initializer, from `raw_data` or the typed fields.
fn values(t: &TensorProto, kind: ElementKind, n: usize) -> Result<Vec<Scalar>, String> {
    if t.data_location == Some(1) {
        return Err(
            "external data is not supported; save the model with the weights inside".into(),
        );
    }
    if let ElementKind::Int(width @ (2 | 4), signedness) = kind {
        return sub_byte_values(t, width, signedness, n);
    }
    if kind == ElementKind::Float(FloatKind::F4E2M1FN) {
        return Ok(packed_bits(t, 4, n)?
            .into_iter()
            .map(|bits| Scalar::Float(elements::float_from_bits(bits.into(), FloatKind::F4E2M1FN)))
            .collect());
    }
    if let Some(raw) = &t.raw_data {
        let size = kind.bytes();
        if Some(raw.len()) != n.checked_mul(size) {
            return Err(format!("raw data has {} bytes for {n} elements", raw.len()));
        }
        let mut out = Vec::with_capacity(n);
        for c in raw.chunks_exact(size) {
            out.push(match (kind, t.data_type) {
                // Booleans are one byte each, whatever their storage width in acc.
                (_, Some(9)) => Scalar::Int(i128::from(c[0] != 0)),
                _ => kind.decode(c),
            });
        }
        return Ok(out);
    }
    let out: Vec<Scalar> = match kind {
        ElementKind::Float(FloatKind::F64) => {
            t.double_data.iter().map(|v| Scalar::Float(*v)).collect()
        }
        ElementKind::Float(FloatKind::F32) => t
            .float_data
            .iter()
            .map(|v| Scalar::Float((*v).into()))
            .collect(),
        // float16, bfloat16 and the float8 types are stored as their bits in
        // int32_data.
        ElementKind::Float(k) => t
            .int32_data
            .iter()
            .map(|v| Scalar::Float(elements::float_from_bits(u128::from(*v as u32 & 0xffff), k)))
            .collect(),
        ElementKind::Int(64, Signedness::Unsigned) => t
            .uint64_data
            .iter()
            .map(|v| Scalar::Int((*v).into()))
            .collect(),
        ElementKind::Int(64, _) => t
            .int64_data
            .iter()
            .map(|v| Scalar::Int((*v).into()))
            .collect(),
        ElementKind::Int(32, Signedness::Unsigned) => t
            .uint64_data
            .iter()
            .map(|v| Scalar::Int((*v).into()))
            .collect(),
        ElementKind::Int(..) => t
            .int32_data
            .iter()
            .map(|v| Scalar::Int((*v).into()))
            .collect(),
    };
    if out.len() != n {
        return Err(format!("has {} values for {n} elements", out.len()));
    }
    Ok(out)
}

/// The initializer's `raw_data` when it already is acc's storage of its `n` elements:
/// little-endian elements of whole bytes (8 to 64-bit integers, floats). Booleans,
/// sub-byte integers and wrong sizes are left to [`values`].
fn stored_raw_bytes(t: &TensorProto, kind: ElementKind, n: usize) -> Option<&[u8]> {
    let whole_bytes = match kind {
        ElementKind::Int(w, _) => matches!(w, 8 | 16 | 32 | 64),
        ElementKind::Float(k) => k.width() >= 8,
    };
    let raw = t.raw_data.as_deref()?;
    // Booleans (data type 9) are i1, not whole bytes already; the test is kept so
    // that this stays true if their storage changes.
    let plain = t.data_location != Some(1) && t.data_type != Some(9);
    (whole_bytes && plain && raw.len() == n.checked_mul(kind.bytes())?).then_some(raw)
}

/// INT4/UINT4 (two per byte) and INT2/UINT2 (four per byte) elements, packed from the
/// low bits up, in `raw_data` or one byte per `int32_data` entry.
fn sub_byte_values(
    t: &TensorProto,
    width: u32,
    signedness: Signedness,
    n: usize,
) -> Result<Vec<Scalar>, String> {
    Ok(packed_bits(t, width, n)?
        .into_iter()
        .map(|bits| Scalar::Int(elements::normalize_int(bits.into(), width, signedness)))
        .collect())
}

/// The bit patterns of `n` elements of `width` (4 or 2) bits packed from the low bits
/// up (INT4, UINT4, INT2, UINT2, FLOAT4E2M1), in `raw_data` or one byte per
/// `int32_data` entry.
fn packed_bits(t: &TensorProto, width: u32, n: usize) -> Result<Vec<u8>, String> {
    let bytes: Vec<u8> = match &t.raw_data {
        Some(raw) => raw.clone(),
        None => t.int32_data.iter().map(|v| *v as u8).collect(),
    };
    let per_byte = (8 / width) as usize;
    if bytes.len() != n.div_ceil(per_byte) {
        return Err(format!(
            "has {} bytes for {n} {width}-bit elements",
            bytes.len()
        ));
    }
    let mask = (1u8 << width) - 1;
    Ok((0..n)
        .map(|i| (bytes[i / per_byte] >> ((i % per_byte) as u32 * width)) & mask)
        .collect())
}

/// A small tensor's element type and elements (a ConstantOfShape's value).
pub(crate) fn element_values(
    ctx: &Context,
    t: &TensorProto,
) -> Result<(TypeId, Vec<Scalar>), String> {
    let element = element_type(ctx, t.data_type.unwrap_or(0))?;
    let kind = ElementKind::of(ctx, element).ok_or("unsupported element type")?;
    let n = t.dims.iter().try_fold(1usize, |acc, d| {
        usize::try_from(*d).ok().and_then(|d| acc.checked_mul(d))
    });
    let n = n.ok_or("has a negative or too large dimension")?;
    if n > RESOURCE_THRESHOLD {
        return Err("is too large".into());
    }
    Ok((element, values(t, kind, n)?))
}

/// An initializer as a constant attribute: inline `dense<...>` or a `dense_resource`
/// blob named after it.
pub fn constant(ctx: &mut Context, t: &TensorProto, name: &str) -> Result<AttrId, String> {
    let element = element_type(ctx, t.data_type.unwrap_or(0))?;
    let ty = tensor_type(ctx, &t.dims, element);
    let kind = ElementKind::of(ctx, element).ok_or("unsupported element type")?;
    let n = t.dims.iter().try_fold(1usize, |acc, d| {
        usize::try_from(*d).ok().and_then(|d| acc.checked_mul(d))
    });
    let n = n.ok_or("has a negative or too large dimension")?;
    if n <= RESOURCE_THRESHOLD {
        let data = values(t, kind, n)?;
        return elements::dense_attr(ctx, ty, &data)
            .ok_or_else(|| "cannot be represented".to_string());
    }
    let bytes: Arc<[u8]> = match stored_raw_bytes(t, kind, n) {
        Some(raw) => Arc::from(raw),
        None => {
            let data = values(t, kind, n)?;
            let mut bytes = Vec::with_capacity(data.len() * kind.bytes());
            for v in &data {
                kind.encode(*v, &mut bytes);
            }
            Arc::from(bytes)
        }
    };
    Ok(resource(ctx, ty, kind, bytes, name))
}

/// A tensor computed at import (a folded node's output) as a constant attribute:
/// a splat when `data` is one value or all its values are equal, inline when small,
/// else a `dense_resource` blob named after `name`.
pub fn computed_constant(
    ctx: &mut Context,
    element: TypeId,
    dims: &[i64],
    data: &[Scalar],
    name: &str,
) -> Result<AttrId, String> {
    let ty = tensor_type(ctx, dims, element);
    let kind = ElementKind::of(ctx, element).ok_or("unsupported element type")?;
    let splat = data.windows(2).all(|w| w[0] == w[1]);
    if splat && let Some(first) = data.first() {
        return elements::dense_attr(ctx, ty, &[*first])
            .ok_or_else(|| "cannot be represented".into());
    }
    if data.len() <= RESOURCE_THRESHOLD {
        return elements::dense_attr(ctx, ty, data).ok_or_else(|| "cannot be represented".into());
    }
    let mut bytes = Vec::with_capacity(data.len() * kind.bytes());
    for v in data {
        kind.encode(kind.normalize(*v), &mut bytes);
    }
    Ok(resource(ctx, ty, kind, Arc::from(bytes), name))
}

/// `dense_resource<KEY>` of type `ty`, its blob `data` stored under a key made from
/// `name`.
fn resource(
    ctx: &mut Context,
    ty: TypeId,
    kind: ElementKind,
    data: Arc<[u8]>,
    name: &str,
) -> AttrId {
    let builtin = ctx.sym("builtin");
    let key = ctx.sym(&resource_key(ctx, name));
    ctx.set_resource(
        builtin,
        key,
        ResourceValue::Blob {
            alignment: kind.bytes().max(1) as u32,
            data,
        },
    );
    ctx.intern_attr(AttrData::DenseResource { ty, handle: key })
}

/// A resource key for `name`: identifier characters only, unique in the context.
fn resource_key(ctx: &Context, name: &str) -> String {
    let mut base: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if base.is_empty() || base.starts_with(|c: char| c.is_ascii_digit()) {
        base.insert_str(0, "w_");
    }
    let builtin = ctx.lookup_sym("builtin");
    let taken = |k: &str| {
        builtin.is_some_and(|b| {
            ctx.lookup_sym(k)
                .is_some_and(|s| ctx.resource(b, s).is_some())
        })
    };
    let mut key = base.clone();
    let mut n = 1;
    while taken(&key) {
        key = format!("{base}_{n}");
        n += 1;
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A large initializer's `raw_data`, copied as it is, stores the same bytes as
    /// the same values given in the typed field; booleans in `raw_data` are decoded.
    #[test]
    fn raw_and_typed_initializers_store_the_same_bytes() {
        let mut ctx = acc_ir::Context::new();
        let n = RESOURCE_THRESHOLD + 7;
        let floats: Vec<f32> = (0..n).map(|i| i as f32 * -0.375).collect();
        let typed = TensorProto {
            data_type: Some(DataType::Float as i32),
            dims: vec![n as i64],
            float_data: floats.clone(),
            ..Default::default()
        };
        let raw = TensorProto {
            raw_data: Some(floats.iter().flat_map(|f| f.to_le_bytes()).collect()),
            float_data: Vec::new(),
            ..typed.clone()
        };
        let a = constant(&mut ctx, &typed, "typed").unwrap();
        let b = constant(&mut ctx, &raw, "raw").unwrap();
        let bytes = |a| elements::dense_view(&ctx, a).unwrap().raw_bytes().to_vec();
        assert_eq!(bytes(a), bytes(b));
        assert_eq!(
            elements::dense_view(&ctx, b).unwrap().get(3),
            Scalar::Float(-1.125)
        );
        let bools = TensorProto {
            data_type: Some(DataType::Bool as i32),
            dims: vec![n as i64],
            raw_data: Some((0..n).map(|i| (i % 3) as u8).collect()),
            ..Default::default()
        };
        let c = constant(&mut ctx, &bools, "bools").unwrap();
        let view = elements::dense_view(&ctx, c).unwrap();
        assert_eq!(
            (view.get(1), view.get(2), view.get(3)),
            (Scalar::Int(1), Scalar::Int(1), Scalar::Int(0))
        );
        // A short raw_data is an error, not a copy.
        let short = TensorProto {
            raw_data: Some(vec![0; 3]),
            ..raw.clone()
        };
        assert!(constant(&mut ctx, &short, "short").is_err());
    }
}
