//! Constant values as numbers: reading integer, float and dense elements attributes
//! (dense resources included) into [`Scalar`]s, and building such attributes back.
//! Folders, weight transformations and the interpreter share these conversions.
//!
//! Conventions, as the parser stores them: an integer of a signless or signed type
//! `iN` is held sign-extended, of an unsigned type zero-extended, and `i1` as 0 or 1;
//! `index` is a 64-bit signless integer. Floats are held as `f64`, which represents
//! every `f16`, `bf16`, `f32` and small-float (`f8*`, `f6*`, `f4E2M1FN`) value
//! exactly; wider formats (`f80`, `f128`) and
//! complex elements are not supported here.

use crate::attrs::{AttrData, AttrId, DenseData, element_bytes};
use crate::context::{Context, ResourceValue};
use crate::minifloat::MiniFloat;
use crate::types::{FloatKind, Signedness, TypeData, TypeId};

/// One number.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Scalar {
    /// An integer, normalized for its type (see the module docs).
    Int(i128),
    /// A float.
    Float(f64),
}

/// How the elements of a type are stored.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ElementKind {
    /// An integer of this width and signedness (`index` is 64-bit signless).
    Int(u32, Signedness),
    /// A float of this format.
    Float(FloatKind),
}

impl ElementKind {
    /// The kind of a scalar type, if it is an integer, index or supported float.
    pub fn of(ctx: &Context, ty: TypeId) -> Option<ElementKind> {
        match ctx.type_data(ty) {
            TypeData::Integer { width, signedness } if (1..=64).contains(width) => {
                Some(ElementKind::Int(*width, *signedness))
            }
            TypeData::Index => Some(ElementKind::Int(64, Signedness::Signless)),
            TypeData::Float(
                k @ (FloatKind::F16 | FloatKind::BF16 | FloatKind::F32 | FloatKind::F64),
            ) => Some(ElementKind::Float(*k)),
            TypeData::Float(k) if MiniFloat::of(*k).is_some() => Some(ElementKind::Float(*k)),
            _ => None,
        }
    }

    /// Bytes one element takes in dense storage.
    pub fn bytes(self) -> usize {
        match self {
            ElementKind::Int(w, _) => element_bytes(w),
            ElementKind::Float(k) => element_bytes(k.width()),
        }
    }

    /// `value` brought into this kind's range and convention: integers wrap to the
    /// width, floats round to the format (round to nearest even).
    pub fn normalize(self, value: Scalar) -> Scalar {
        match (self, value) {
            (ElementKind::Int(w, s), Scalar::Int(v)) => Scalar::Int(normalize_int(v, w, s)),
            (ElementKind::Int(w, s), Scalar::Float(f)) => {
                Scalar::Int(normalize_int(f as i128, w, s))
            }
            (ElementKind::Float(k), Scalar::Float(f)) => Scalar::Float(round_float(f, k)),
            (ElementKind::Float(k), Scalar::Int(v)) => Scalar::Float(round_float(v as f64, k)),
        }
    }

    /// Decodes one element from its little-endian bytes.
    pub fn decode(self, bytes: &[u8]) -> Scalar {
        // The common storage formats read directly; the rest through 128 bits.
        match self {
            ElementKind::Float(FloatKind::F32) => {
                if let Some(b) = bytes.first_chunk::<4>() {
                    return Scalar::Float(f64::from(f32::from_le_bytes(*b)));
                }
            }
            ElementKind::Int(8, Signedness::Unsigned) if !bytes.is_empty() => {
                return Scalar::Int(i128::from(bytes[0]));
            }
            ElementKind::Int(8, _) if !bytes.is_empty() => {
                return Scalar::Int(i128::from(bytes[0] as i8));
            }
            ElementKind::Int(32, Signedness::Unsigned) => {
                if let Some(b) = bytes.first_chunk::<4>() {
                    return Scalar::Int(i128::from(u32::from_le_bytes(*b)));
                }
            }
            ElementKind::Int(32, _) => {
                if let Some(b) = bytes.first_chunk::<4>() {
                    return Scalar::Int(i128::from(i32::from_le_bytes(*b)));
                }
            }
            _ => {}
        }
        self.decode_through_128_bits(bytes)
    }

    /// [`ElementKind::decode`] for any kind: the bytes (zero-extended to 16) as one
    /// 128-bit pattern, then normalized.
    fn decode_through_128_bits(self, bytes: &[u8]) -> Scalar {
        let mut raw = [0u8; 16];
        let n = bytes.len().min(16);
        raw[..n].copy_from_slice(&bytes[..n]);
        let bits = u128::from_le_bytes(raw);
        match self {
            ElementKind::Int(w, s) => Scalar::Int(normalize_int(bits as i128, w, s)),
            ElementKind::Float(k) => Scalar::Float(float_from_bits(bits, k)),
        }
    }

    /// Encodes one element as little-endian bytes ([`ElementKind::bytes`] of them).
    pub fn encode(self, value: Scalar, out: &mut Vec<u8>) {
        if let (ElementKind::Float(FloatKind::F32), Scalar::Float(f)) = (self, value) {
            out.extend_from_slice(&(f as f32).to_le_bytes());
            return;
        }
        let bits: u128 = match self.normalize(value) {
            Scalar::Int(v) => v as u128,
            Scalar::Float(f) => match self {
                ElementKind::Float(k) => float_to_bits(f, k),
                ElementKind::Int(..) => 0,
            },
        };
        out.extend_from_slice(&bits.to_le_bytes()[..self.bytes()]);
    }
}

/// Wraps `v` to `width` bits and applies the storage convention of `signedness`.
pub fn normalize_int(v: i128, width: u32, signedness: Signedness) -> i128 {
    if width >= 128 {
        return v;
    }
    if width == 0 {
        return 0;
    }
    let masked = v & ((1i128 << width) - 1);
    match signedness {
        _ if width == 1 => masked,
        Signedness::Unsigned => masked,
        _ => {
            let shift = 128 - width;
            (masked << shift) >> shift
        }
    }
}

/// The float of format `kind` nearest to `f`, as an `f64`.
pub fn round_float(f: f64, kind: FloatKind) -> f64 {
    match kind {
        FloatKind::F32 => f as f32 as f64,
        small => MiniFloat::of(small)
            .or_else(|| MiniFloat::sixteen_bit(small))
            .map_or(f, |m| m.round(f)),
    }
}

/// The value of a float's bit pattern.
pub fn float_from_bits(bits: u128, kind: FloatKind) -> f64 {
    match kind {
        FloatKind::F16 => half::f16::from_bits(bits as u16).to_f64(),
        FloatKind::BF16 => half::bf16::from_bits(bits as u16).to_f64(),
        FloatKind::F32 => f32::from_bits(bits as u32) as f64,
        small => match MiniFloat::of(small) {
            Some(m) => m.decode(bits as u32),
            None => f64::from_bits(bits as u64),
        },
    }
}

/// The bit pattern of `f` rounded to `kind`.
pub fn float_to_bits(f: f64, kind: FloatKind) -> u128 {
    match kind {
        FloatKind::F16 | FloatKind::BF16 => {
            MiniFloat::sixteen_bit(kind).map_or(0, |m| u128::from(m.encode(f, false)))
        }
        FloatKind::F32 => u128::from((f as f32).to_bits()),
        small => match MiniFloat::of(small) {
            Some(m) => u128::from(m.encode(f, false)),
            None => u128::from(f.to_bits()),
        },
    }
}

/// The value of an integer or float attribute, with its type.
pub fn scalar(ctx: &Context, a: AttrId) -> Option<(TypeId, Scalar)> {
    match ctx.attr_data(a) {
        AttrData::Integer { value, ty } => Some((*ty, Scalar::Int(*value))),
        AttrData::Float { bits, ty } => {
            let ElementKind::Float(k) = ElementKind::of(ctx, *ty)? else {
                return None;
            };
            Some((*ty, Scalar::Float(float_from_bits(*bits, k))))
        }
        _ => None,
    }
}

/// An integer or float attribute of type `ty` holding `value` (normalized to `ty`).
pub fn scalar_attr(ctx: &Context, ty: TypeId, value: Scalar) -> Option<AttrId> {
    let kind = ElementKind::of(ctx, ty)?;
    Some(match kind.normalize(value) {
        Scalar::Int(value) => ctx.intern_attr(AttrData::Integer { value, ty }),
        Scalar::Float(f) => {
            let ElementKind::Float(k) = kind else {
                return None;
            };
            ctx.intern_attr(AttrData::Float {
                bits: float_to_bits(f, k),
                ty,
            })
        }
    })
}

/// The elements of a dense attribute.
#[derive(Clone, Debug, PartialEq)]
pub struct Dense {
    /// The shaped type.
    pub ty: TypeId,
    /// Its element type.
    pub element: TypeId,
    /// How elements are stored.
    pub kind: ElementKind,
    /// Every element in row-major order, or one when `splat`.
    pub values: Vec<Scalar>,
    /// True when one value stands for every element.
    pub splat: bool,
}

impl Dense {
    /// Element `i` (row-major), the splat value for any `i` when splat.
    pub fn get(&self, i: usize) -> Scalar {
        if self.splat {
            self.values[0]
        } else {
            self.values[i]
        }
    }
}

/// Number of elements of a statically shaped type (`None` if dynamic or unranked).
pub fn num_elements(ctx: &Context, shaped: TypeId) -> Option<usize> {
    let shape = ctx.type_data(shaped).shape()?;
    shape.iter().try_fold(1usize, |n, &d| {
        usize::try_from(d).ok().and_then(|d| n.checked_mul(d))
    })
}

/// The elements of a `dense<...>` or `dense_resource<...>` attribute, read in place:
/// each [`DenseView::get`] decodes one element from the attribute's bytes, so large
/// weights are never expanded into a vector of [`Scalar`]s.
#[derive(Clone, Copy, Debug)]
pub struct DenseView<'a> {
    /// The shaped type.
    pub ty: TypeId,
    /// Its element type.
    pub element: TypeId,
    /// How elements are stored.
    pub kind: ElementKind,
    /// True when one value stands for every element.
    pub splat: bool,
    /// The stored elements (one when `splat`), [`ElementKind::bytes`] each.
    bytes: &'a [u8],
}

impl<'a> DenseView<'a> {
    /// Stored elements: 1 for a splat, else the type's element count.
    pub fn stored(&self) -> usize {
        self.bytes.len() / self.kind.bytes()
    }

    /// Element `i` (row-major), the splat value for any `i` when splat.
    /// Panics when `i` is out of range for a non-splat view.
    pub fn get(&self, i: usize) -> Scalar {
        let size = self.kind.bytes();
        let i = if self.splat { 0 } else { i };
        self.kind.decode(&self.bytes[i * size..(i + 1) * size])
    }

    /// The stored bytes, little-endian, [`ElementKind::bytes`] per element.
    pub fn raw_bytes(&self) -> &'a [u8] {
        self.bytes
    }
}

/// The elements of a `dense<...>` or `dense_resource<...>` attribute of integer,
/// index or float elements, read in place.
pub fn dense_view(ctx: &Context, a: AttrId) -> Option<DenseView<'_>> {
    let (ty, bytes, splat): (TypeId, &[u8], bool) = match ctx.attr_data(a) {
        AttrData::DenseElements { ty, data } => match data {
            DenseData::Splat(b) => (*ty, b, true),
            DenseData::Elements(b) => (*ty, b, false),
            DenseData::Strings(_) => return None,
        },
        AttrData::DenseResource { ty, handle } => {
            let dialect = ctx.lookup_sym("builtin")?;
            match ctx.resource(dialect, *handle)? {
                ResourceValue::Blob { data, .. } => (*ty, &data[..], false),
                ResourceValue::Bool(_) | ResourceValue::String(_) => return None,
            }
        }
        _ => return None,
    };
    let element = ctx.type_data(ty).element_type()?;
    let kind = ElementKind::of(ctx, element)?;
    let n = if splat { 1 } else { num_elements(ctx, ty)? };
    let size = kind.bytes();
    let bytes = bytes.get(..n.checked_mul(size)?)?;
    Some(DenseView {
        ty,
        element,
        kind,
        splat,
        bytes,
    })
}

/// The elements of a `dense<...>` or `dense_resource<...>` attribute of integer,
/// index or float elements.
pub fn dense(ctx: &Context, a: AttrId) -> Option<Dense> {
    let view = dense_view(ctx, a)?;
    let values = (0..view.stored()).map(|i| view.get(i)).collect();
    Some(Dense {
        ty: view.ty,
        element: view.element,
        kind: view.kind,
        values,
        splat: view.splat,
    })
}

/// Builds a `dense<...>` attribute element by element, encoding each as it comes;
/// it becomes a splat when every element has the same bytes.
pub struct DenseBuilder {
    kind: ElementKind,
    bytes: Vec<u8>,
    all_same: bool,
}

impl DenseBuilder {
    /// A builder for `count` elements of `kind`.
    pub fn new(kind: ElementKind, count: usize) -> DenseBuilder {
        DenseBuilder {
            kind,
            bytes: Vec::with_capacity(count.saturating_mul(kind.bytes())),
            all_same: true,
        }
    }

    /// Appends `value`, normalized to the kind.
    pub fn push(&mut self, value: Scalar) {
        let size = self.kind.bytes();
        self.kind.encode(value, &mut self.bytes);
        let n = self.bytes.len();
        if self.all_same && n > size {
            self.all_same = self.bytes[..size] == self.bytes[n - size..];
        }
    }

    /// The attribute of type `shaped`; `None` when the element type is not this
    /// builder's kind or the number of elements is neither one (a splat) nor the
    /// type's count (which may be zero).
    pub fn finish(mut self, ctx: &Context, shaped: TypeId) -> Option<AttrId> {
        let element = ctx.type_data(shaped).element_type()?;
        if ElementKind::of(ctx, element)? != self.kind {
            return None;
        }
        let n = num_elements(ctx, shaped)?;
        let size = self.kind.bytes();
        let count = self.bytes.len() / size;
        if count != 1 && count != n {
            return None;
        }
        // An empty tensor has no element to splat.
        let data = if self.all_same && count > 0 {
            self.bytes.truncate(size);
            DenseData::Splat(self.bytes.into())
        } else {
            DenseData::Elements(self.bytes.into())
        };
        Some(ctx.intern_attr(AttrData::DenseElements { ty: shaped, data }))
    }
}

/// A `dense<...>` attribute of `shaped` type from its elements: one value, or as many
/// as the type holds. It is a splat when every element encodes to the same bytes (so
/// `0.0` and `-0.0` differ, and equal NaNs agree). `None` when the element type is not
/// supported or the count is neither.
pub fn dense_attr(ctx: &Context, shaped: TypeId, values: &[Scalar]) -> Option<AttrId> {
    let element = ctx.type_data(shaped).element_type()?;
    let kind = ElementKind::of(ctx, element)?;
    let mut builder = DenseBuilder::new(kind, values.len());
    for v in values {
        builder.push(*v);
    }
    builder.finish(ctx, shaped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_wrap_and_keep_the_convention() {
        assert_eq!(normalize_int(128, 8, Signedness::Signless), -128);
        assert_eq!(normalize_int(-1, 8, Signedness::Unsigned), 255);
        assert_eq!(normalize_int(-1, 1, Signedness::Signless), 1);
        assert_eq!(normalize_int(7, 4, Signedness::Signless), 7);
        assert_eq!(normalize_int(8, 4, Signedness::Signless), -8);
        assert_eq!(normalize_int(5, 2, Signedness::Signless), 1);
    }

    #[test]
    fn dense_round_trip() {
        let ctx = Context::new();
        let f16 = ctx.float_type(FloatKind::F16);
        let t = ctx.intern_type(TypeData::RankedTensor {
            shape: vec![3].into(),
            element: f16,
            encoding: None,
        });
        let values = [Scalar::Float(1.0), Scalar::Float(-2.5), Scalar::Float(0.1)];
        let a = dense_attr(&ctx, t, &values).unwrap();
        let d = dense(&ctx, a).unwrap();
        assert!(!d.splat);
        assert_eq!(d.values[1], Scalar::Float(-2.5));
        // 0.1 rounds to the nearest f16.
        assert_eq!(
            d.values[2],
            Scalar::Float(half::f16::from_f64(0.1).to_f64())
        );
        let s = dense_attr(&ctx, t, &[Scalar::Float(3.0)]).unwrap();
        assert_eq!(dense(&ctx, s).unwrap().get(2), Scalar::Float(3.0));
    }

    #[test]
    fn scalars_round_trip_through_attributes() {
        let ctx = Context::new();
        let i4 = ctx.int_type(4);
        let a = scalar_attr(&ctx, i4, Scalar::Int(9)).unwrap();
        assert_eq!(scalar(&ctx, a), Some((i4, Scalar::Int(-7))));
    }

    /// The direct decodings of common formats agree with the general path through
    /// 128 bits.
    #[test]
    fn fast_decodings_agree_with_the_general_one() {
        let general = |kind: ElementKind, bytes: &[u8]| kind.decode_through_128_bits(bytes);
        let kinds = [
            ElementKind::Int(8, Signedness::Signless),
            ElementKind::Int(8, Signedness::Unsigned),
            ElementKind::Int(32, Signedness::Signed),
            ElementKind::Int(32, Signedness::Unsigned),
            ElementKind::Float(FloatKind::F32),
        ];
        for bytes in [
            [0x80, 0, 0, 0x80],
            [0xff, 0xff, 0xff, 0xff],
            [1, 2, 3, 0x7f],
        ] {
            for kind in kinds {
                let b = &bytes[..kind.bytes()];
                let decoded = kind.decode(b);
                let want = general(kind, b);
                // NaN payloads compare by bits.
                match (decoded, want) {
                    (Scalar::Float(x), Scalar::Float(y)) => assert_eq!(x.to_bits(), y.to_bits()),
                    _ => assert_eq!(decoded, want, "{kind:?} {b:?}"),
                }
                let mut again = Vec::new();
                kind.encode(decoded, &mut again);
                assert_eq!(again, b, "{kind:?}");
            }
        }
    }

    /// A builder makes a splat only of equal bytes: 0.0 and -0.0 differ.
    #[test]
    fn builders_splat_equal_bytes_only() {
        let ctx = Context::new();
        let f32t = ctx.float_type(FloatKind::F32);
        let t = ctx.intern_type(TypeData::RankedTensor {
            shape: vec![2].into(),
            element: f32t,
            encoding: None,
        });
        let zeros = dense_attr(&ctx, t, &[Scalar::Float(0.0), Scalar::Float(-0.0)]).unwrap();
        let view = dense_view(&ctx, zeros).unwrap();
        assert!(!view.splat);
        assert_eq!(view.get(1), Scalar::Float(-0.0));
        assert!(matches!(view.get(1), Scalar::Float(f) if f.is_sign_negative()));
        let same = dense_attr(&ctx, t, &[Scalar::Float(1.5), Scalar::Float(1.5)]).unwrap();
        let view = dense_view(&ctx, same).unwrap();
        assert!(view.splat);
        assert_eq!((view.stored(), view.get(1)), (1, Scalar::Float(1.5)));
        // Neither one nor two elements: no attribute.
        let three = [Scalar::Float(1.0); 3];
        assert_eq!(dense_attr(&ctx, t, &three), None);
        // An empty tensor holds no bytes.
        let empty = ctx.intern_type(TypeData::RankedTensor {
            shape: vec![0].into(),
            element: f32t,
            encoding: None,
        });
        let none = dense_attr(&ctx, empty, &[]).unwrap();
        let view = dense_view(&ctx, none).unwrap();
        assert!(!view.splat);
        assert_eq!(view.stored(), 0);
    }
}
