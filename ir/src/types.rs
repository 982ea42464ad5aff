//! Builtin types, uniqued in the [`Context`](crate::Context) and named by [`TypeId`].
//!
//! Two types are equal iff their IDs are equal. Shapes use [`DYNAMIC`] for `?`.
//! Types the core does not know (dialect types such as `!llvm.ptr`) are kept as
//! [`TypeData::Dialect`] with their body text verbatim, so they round-trip exactly.

use crate::attrs::AttrId;
use crate::intern::Sym;

/// A list of types, stored inline when short (function signatures, tuples), so that
/// building one to look it up allocates nothing.
pub type TypeList = smallvec::SmallVec<[TypeId; 4]>;

/// A uniqued type.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct TypeId(pub(crate) u32);

/// The marker for a dynamic dimension (`?`), as in MLIR's `ShapedType::kDynamic`.
pub const DYNAMIC: i64 = i64::MIN;

/// Signedness semantics of an integer type: `iN`, `siN` or `uiN`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Signedness {
    /// `iN`: no signedness.
    Signless,
    /// `siN`.
    Signed,
    /// `uiN`.
    Unsigned,
}

/// Floating-point formats, spelled as in MLIR.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum FloatKind {
    /// `f16`, IEEE half.
    F16,
    /// `bf16`, brain float.
    BF16,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
    /// `f80`, x87 extended (parse and print only).
    F80,
    /// `f128`, IEEE quad (parse and print only).
    F128,
    /// `tf32` (parse and print only).
    TF32,
    /// `f8E5M2`: IEEE-like float8 (OCP, ONNX FLOAT8E5M2). The small formats are
    /// described in [`crate::minifloat`].
    F8E5M2,
    /// `f8E4M3FN`: float8 without infinity (OCP, ONNX FLOAT8E4M3FN).
    F8E4M3FN,
    /// `f8E4M3`: IEEE-like float8.
    F8E4M3,
    /// `f8E3M4`: IEEE-like float8.
    F8E3M4,
    /// `f8E5M2FNUZ`: float8 without infinity or negative zero (ONNX FLOAT8E5M2FNUZ).
    F8E5M2FNUZ,
    /// `f8E4M3FNUZ`: float8 without infinity or negative zero (ONNX FLOAT8E4M3FNUZ).
    F8E4M3FNUZ,
    /// `f8E4M3B11FNUZ`: as `f8E4M3FNUZ` with bias 11.
    F8E4M3B11FNUZ,
    /// `f8E8M0FNU`: an unsigned power of two (OCP MX scales, ONNX FLOAT8E8M0).
    F8E8M0FNU,
    /// `f6E2M3FN`: float6 without infinity or NaN.
    F6E2M3FN,
    /// `f6E3M2FN`: float6 without infinity or NaN.
    F6E3M2FN,
    /// `f4E2M1FN`: float4 without infinity or NaN (ONNX FLOAT4E2M1).
    F4E2M1FN,
}

impl FloatKind {
    /// All kinds with their keywords.
    pub const ALL: [(FloatKind, &'static str); 18] = [
        (FloatKind::F16, "f16"),
        (FloatKind::BF16, "bf16"),
        (FloatKind::F32, "f32"),
        (FloatKind::F64, "f64"),
        (FloatKind::F80, "f80"),
        (FloatKind::F128, "f128"),
        (FloatKind::TF32, "tf32"),
        (FloatKind::F8E5M2, "f8E5M2"),
        (FloatKind::F8E4M3FN, "f8E4M3FN"),
        (FloatKind::F8E4M3, "f8E4M3"),
        (FloatKind::F8E3M4, "f8E3M4"),
        (FloatKind::F8E5M2FNUZ, "f8E5M2FNUZ"),
        (FloatKind::F8E4M3FNUZ, "f8E4M3FNUZ"),
        (FloatKind::F8E4M3B11FNUZ, "f8E4M3B11FNUZ"),
        (FloatKind::F8E8M0FNU, "f8E8M0FNU"),
        (FloatKind::F6E2M3FN, "f6E2M3FN"),
        (FloatKind::F6E3M2FN, "f6E3M2FN"),
        (FloatKind::F4E2M1FN, "f4E2M1FN"),
    ];

    /// The keyword naming this kind.
    pub fn keyword(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(k, _)| *k == self)
            .map(|(_, s)| *s)
            .unwrap_or("f32")
    }

    /// The kind named by a keyword.
    pub fn from_keyword(s: &str) -> Option<FloatKind> {
        Self::ALL.iter().find(|(_, n)| *n == s).map(|(k, _)| *k)
    }

    /// Storage width in bits.
    pub fn width(self) -> u32 {
        match self {
            FloatKind::F16 | FloatKind::BF16 => 16,
            FloatKind::F32 | FloatKind::TF32 => 32,
            FloatKind::F64 => 64,
            FloatKind::F80 => 80,
            FloatKind::F128 => 128,
            small => crate::minifloat::MiniFloat::of(small).map_or(8, |f| f.width()),
        }
    }
}

/// `!quant.uniform<...>`: a uniformly quantized type, per tensor or per axis.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct QuantUniform {
    /// Storage integer width (8, 4, 2, ...).
    pub storage_width: u32,
    /// `i8` (true) or `u8` (false) storage.
    pub storage_signed: bool,
    /// Explicit storage range `<min:max>`; never the full range of the storage type
    /// (the parser drops it then), so that equal types have equal data.
    pub storage_range: Option<(i64, i64)>,
    /// The expressed (real) type, usually `f32`.
    pub expressed: TypeId,
    /// The quantized dimension, for per-axis types.
    pub axis: Option<i32>,
    /// `(scale as f64 bits, zero point)` pairs: one per tensor, or one per channel.
    pub params: Box<[(u64, i64)]>,
}

impl QuantUniform {
    /// The smallest and largest stored integer: the explicit range, or the storage
    /// type's full range.
    pub fn storage_bounds(&self) -> (i64, i64) {
        self.storage_range
            .unwrap_or_else(|| Self::full_range(self.storage_width, self.storage_signed))
    }

    /// The full range of a `width`-bit (1 to 32) storage integer.
    pub fn full_range(width: u32, signed: bool) -> (i64, i64) {
        let w = width.clamp(1, 32);
        if signed {
            (-(1i64 << (w - 1)), (1i64 << (w - 1)) - 1)
        } else {
            (0, (1i64 << w) - 1)
        }
    }

    /// Scale and zero point of channel `channel` (of the only pair when per tensor).
    pub fn params_of(&self, channel: usize) -> (f64, i64) {
        let (scale, zero) = if self.params.len() == 1 {
            self.params[0]
        } else {
            self.params[channel.min(self.params.len() - 1)]
        };
        (f64::from_bits(scale), zero)
    }
}

/// `!quant.uniform<u8:f32:{0:1, 1:2}, {{2.0:120, 3.0:127}, {4.0, 5.0}}>`: sub-channel
/// (blockwise) quantization, MLIR's `UniformQuantizedSubChannelType`. A scale and zero
/// point per block of the tensor: along each listed dimension blocks of the given
/// size, along the others one block per element of the scales' dimension. acc reads,
/// checks and prints it; no pass or back end computes with it.
///
/// Invariants (checked by the parser, as MLIR's): the block sizes' dimensions are
/// non-negative, each size positive (MLIR leaves their agreement with the scales'
/// rank and a tensor's shape to the ops using the type); `shape` has no zero and
/// its product is `params.len()`; every scale is finite and positive.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct QuantSubChannel {
    /// Storage integer width, as [`QuantUniform`]'s.
    pub storage_width: u32,
    /// `i8` (true) or `u8` (false) storage.
    pub storage_signed: bool,
    /// Explicit storage range, never the storage type's full range.
    pub storage_range: Option<(i64, i64)>,
    /// The expressed (real) type.
    pub expressed: TypeId,
    /// `(dimension, block size)` pairs, in the order written.
    pub block_sizes: Box<[(i32, i64)]>,
    /// The shape of the scales (the nesting of their braces).
    pub shape: Box<[i64]>,
    /// `(scale as f64 bits, zero point)` pairs in row-major order of `shape`: each
    /// scale a value of the expressed type, each zero point wrapped to the storage
    /// width and read signed (as MLIR holds them).
    pub params: Box<[(u64, i64)]>,
}

/// The structure of a type.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum TypeData {
    /// `iN`, `siN`, `uiN`.
    Integer {
        /// Bit width (1 and up).
        width: u32,
        /// Signedness semantics.
        signedness: Signedness,
    },
    /// `index`.
    Index,
    /// A float type.
    Float(FloatKind),
    /// `complex<T>`.
    Complex(TypeId),
    /// `tuple<T...>`.
    Tuple(TypeList),
    /// `(T...) -> (T...)`.
    Function {
        /// Input types.
        inputs: TypeList,
        /// Result types.
        results: TypeList,
    },
    /// `none`.
    None,
    /// `vector<[4]x4xf32>`: `scalable[i]` marks `[n]` dimensions.
    Vector {
        /// Dimension sizes (never dynamic).
        shape: Box<[i64]>,
        /// Per-dimension scalable flags, same length as `shape`.
        scalable: Box<[bool]>,
        /// Element type.
        element: TypeId,
    },
    /// `tensor<2x?xf32, #enc>`.
    RankedTensor {
        /// Dimension sizes, [`DYNAMIC`] for `?`.
        shape: Box<[i64]>,
        /// Element type.
        element: TypeId,
        /// Optional encoding attribute.
        encoding: Option<AttrId>,
    },
    /// `tensor<*xf32>`.
    UnrankedTensor(TypeId),
    /// `memref<4x?xf32, affine_map<...>, 1>`.
    MemRef {
        /// Dimension sizes, [`DYNAMIC`] for `?`.
        shape: Box<[i64]>,
        /// Element type.
        element: TypeId,
        /// Layout: an affine map or strided attribute; `None` is the identity.
        layout: Option<AttrId>,
        /// Memory space attribute.
        memory_space: Option<AttrId>,
    },
    /// `memref<*xf32, 1>`.
    UnrankedMemRef {
        /// Element type.
        element: TypeId,
        /// Memory space attribute.
        memory_space: Option<AttrId>,
    },
    /// `!quant.uniform<...>`.
    QuantUniform(QuantUniform),
    /// `!quant.uniform<...:{d:b, ...}, {{...}}>`: sub-channel quantization.
    QuantSubChannel(QuantSubChannel),
    /// A type declared in a dialect file: `!dialect.name` or `!dialect.name<p1, p2>`,
    /// its parameters checked against the declaration when parsed.
    Declared {
        /// Dialect namespace.
        dialect: Sym,
        /// The type's name within the dialect.
        name: Sym,
        /// Parameter values, one per declared parameter.
        params: Box<[AttrId]>,
    },
    /// A type of another dialect kept as text: `!dialect.body` or `!dialect<body>`.
    Dialect {
        /// Dialect namespace.
        dialect: Sym,
        /// Everything after `dialect`, verbatim: `.name<params>` or `<"opaque">`.
        body: Sym,
    },
}

impl TypeData {
    /// True for the element types `complex<...>` allows (MLIR's rule): integers and
    /// floats.
    pub fn is_valid_complex_element(&self) -> bool {
        matches!(self, TypeData::Integer { .. } | TypeData::Float(_))
    }

    /// True for the element types `vector<...>` allows (MLIR's rule): integers,
    /// `index` and floats.
    pub fn is_valid_vector_element(&self) -> bool {
        matches!(
            self,
            TypeData::Integer { .. } | TypeData::Index | TypeData::Float(_)
        )
    }

    /// True for the element types `memref<...>` allows: integers, `index`, floats,
    /// complex numbers, vectors, memrefs, quantized types (a buffer of stored
    /// integers, as MLIR's quant types allow), and types declared in a dialect file
    /// (opaque types of unknown dialects, tuples, functions, `none` and tensors are not
    /// allowed).
    pub fn is_valid_memref_element(&self) -> bool {
        matches!(
            self,
            TypeData::Integer { .. }
                | TypeData::Index
                | TypeData::Float(_)
                | TypeData::Complex(_)
                | TypeData::Vector { .. }
                | TypeData::MemRef { .. }
                | TypeData::UnrankedMemRef { .. }
                | TypeData::Declared { .. }
                | TypeData::QuantUniform(_)
                | TypeData::QuantSubChannel(_)
        )
    }

    /// True for the element types `tensor<...>` allows (MLIR's rule): integers,
    /// `index`, floats, complex numbers, vectors and every non-builtin type; not
    /// tensors, memrefs, tuples, functions or `none`.
    pub fn is_valid_tensor_element(&self) -> bool {
        !matches!(
            self,
            TypeData::RankedTensor { .. }
                | TypeData::UnrankedTensor(_)
                | TypeData::MemRef { .. }
                | TypeData::UnrankedMemRef { .. }
                | TypeData::Tuple(_)
                | TypeData::Function { .. }
                | TypeData::None
        )
    }

    /// The shape of a ranked shaped type.
    pub fn shape(&self) -> Option<&[i64]> {
        match self {
            TypeData::Vector { shape, .. }
            | TypeData::RankedTensor { shape, .. }
            | TypeData::MemRef { shape, .. } => Some(shape),
            _ => None,
        }
    }

    /// The element type of a shaped type.
    pub fn element_type(&self) -> Option<TypeId> {
        match self {
            TypeData::Vector { element, .. }
            | TypeData::RankedTensor { element, .. }
            | TypeData::MemRef { element, .. }
            | TypeData::UnrankedMemRef { element, .. }
            | TypeData::UnrankedTensor(element) => Some(*element),
            _ => None,
        }
    }
}
