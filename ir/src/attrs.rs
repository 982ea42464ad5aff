//! Builtin attributes and locations, uniqued in the [`Context`](crate::Context) and named
//! by [`AttrId`].
//!
//! Two attributes are equal iff their IDs are equal. Dictionaries are kept sorted by name
//! with unique names. Numeric payloads are stored as bit patterns so that every value,
//! NaN payloads included, round-trips exactly. Locations are attributes too, as in MLIR.

use crate::affine::{AffineMap, IntegerSet};
use crate::intern::Sym;
use crate::types::TypeId;

/// A uniqued attribute.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct AttrId(pub(crate) u32);

/// The payload of a dense elements attribute.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum DenseData {
    /// One value repeated for every element: the bytes of one element.
    Splat(Box<[u8]>),
    /// Every element, row-major, each in [`element_bytes`] little-endian bytes
    /// (complex elements are two consecutive values).
    Elements(Box<[u8]>),
    /// String elements (`dense<["a", "b"]>`), or one repeated string when of length 1
    /// and the type has more elements.
    Strings(Box<[Sym]>),
}

/// Bytes one scalar of `width` bits takes in dense storage (i1 takes a whole byte).
pub fn element_bytes(width: u32) -> usize {
    width.div_ceil(8).max(1) as usize
}

/// A source location.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Location {
    /// `loc(unknown)`.
    Unknown,
    /// `loc("file":line:col)`, with an optional `to line:col` end.
    FileLineCol {
        /// File name.
        file: Sym,
        /// 1-based line.
        line: u32,
        /// 1-based column.
        col: u32,
        /// Optional end `(line, col)` of a range.
        end: Option<(u32, u32)>,
    },
    /// `loc("name")` or `loc("name"(child))`.
    Name {
        /// The name.
        name: Sym,
        /// The wrapped location.
        child: Option<AttrId>,
    },
    /// `loc(callsite(callee at caller))`.
    CallSite {
        /// Where the code is.
        callee: AttrId,
        /// Where it was called from.
        caller: AttrId,
    },
    /// `loc(fused<metadata>[a, b])`.
    Fused {
        /// Optional metadata attribute.
        metadata: Option<AttrId>,
        /// The fused locations.
        locs: Box<[AttrId]>,
    },
}

/// The structure of an attribute.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum AttrData {
    /// `unit` (a present flag).
    Unit,
    /// An integer of an integer or index type (`true`/`false` are `i1`). Stored
    /// sign- or zero-extended to 128 bits according to the type's signedness.
    Integer {
        /// The value.
        value: i128,
        /// Its type.
        ty: TypeId,
    },
    /// An integer of an integer type wider than 128 bits: its two's complement
    /// little-endian bytes, `element_bytes(width)` of them, the bits above the width
    /// sign-extended (signless, signed) or zero (unsigned) ([`crate::wide_int`]).
    WideInteger {
        /// The value's bytes.
        bytes: Box<[u8]>,
        /// Its type.
        ty: TypeId,
    },
    /// A float of a float type: the IEEE bit pattern in the low bits.
    Float {
        /// Bit pattern.
        bits: u128,
        /// Its type.
        ty: TypeId,
    },
    /// `"text"`, optionally typed.
    String {
        /// The text, unescaped.
        value: Sym,
        /// Optional type (`"x" : i32`).
        ty: Option<TypeId>,
    },
    /// A type used as an attribute.
    Type(TypeId),
    /// `[a, b]`.
    Array(Box<[AttrId]>),
    /// `array<i64: 1, 2>`: element type and little-endian element bytes.
    DenseArray {
        /// Element type (integer or float).
        element: TypeId,
        /// Values, each [`element_bytes`] wide.
        data: Box<[u8]>,
    },
    /// `{a = 1, b}`: entries sorted by name, names unique.
    Dictionary(Box<[(Sym, AttrId)]>),
    /// `@root::@nested`.
    SymbolRef {
        /// Root symbol.
        root: Sym,
        /// Nested references.
        nested: Box<[Sym]>,
    },
    /// `affine_map<...>`.
    AffineMap(AffineMap),
    /// `affine_set<...>`.
    IntegerSet(IntegerSet),
    /// `strided<[s0, s1], offset: o>` ([`crate::DYNAMIC`] for `?`).
    Strided {
        /// Strides.
        strides: Box<[i64]>,
        /// Offset.
        offset: i64,
    },
    /// `dense<...> : T`.
    DenseElements {
        /// The shaped type.
        ty: TypeId,
        /// The values.
        data: DenseData,
    },
    /// `sparse<indices, values> : T`.
    Sparse {
        /// The shaped type.
        ty: TypeId,
        /// Indices (a dense i64 attribute).
        indices: AttrId,
        /// Values (a dense attribute).
        values: AttrId,
    },
    /// `dense_resource<handle> : T`: data in the file's `dialect_resources` section.
    DenseResource {
        /// The shaped type.
        ty: TypeId,
        /// Resource key.
        handle: Sym,
    },
    /// An attribute declared in a dialect file: `#dialect.name<p1, p2>`, its parameters
    /// checked against the declaration when parsed.
    Declared {
        /// Dialect namespace.
        dialect: Sym,
        /// The attribute's name within the dialect.
        name: Sym,
        /// Parameter values, one per declared parameter.
        params: Box<[AttrId]>,
    },
    /// An attribute of another dialect kept as text: `#dialect.body` or `#dialect<body>`,
    /// optionally typed.
    Dialect {
        /// Dialect namespace.
        dialect: Sym,
        /// Everything after `dialect`, verbatim.
        body: Sym,
        /// Trailing `: type`, if any.
        ty: Option<TypeId>,
    },
    /// A location.
    Location(Location),
    /// `distinct[N]<value>`: a value made unique by its number N (MLIR's
    /// `DistinctAttr`). Occurrences of one number in a file are one attribute; the
    /// number is kept as written (MLIR numbers them in the order it prints them).
    Distinct {
        /// The number.
        id: u64,
        /// The attribute made distinct.
        value: AttrId,
    },
}
