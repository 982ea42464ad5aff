//! Types and attributes to text, in MLIR's syntax.
//!
//! Invariant: for every type and attribute, parsing what these functions print yields
//! the same uniqued ID (in a context with the same dialects registered).

use std::fmt::Write;

use crate::attrs::{AttrData, AttrId, DenseData, Location, element_bytes};
use crate::context::Context;
use crate::floats;
use crate::intern::Sym;
use crate::types::{DYNAMIC, FloatKind, Signedness, TypeData, TypeId};

/// Elements above which dense numeric data prints as a hex string.
pub const HEX_ELEMENTS_THRESHOLD: usize = 100;

/// A type as text.
pub fn type_to_string(ctx: &Context, t: TypeId) -> String {
    let mut s = String::new();
    write_type(&mut s, ctx, t, &mut Vec::new());
    s
}

/// An attribute as text.
pub fn attr_to_string(ctx: &Context, a: AttrId) -> String {
    let mut s = String::new();
    write_attr(&mut s, ctx, a, &mut Vec::new());
    s
}

fn write_dims(out: &mut String, shape: &[i64], scalable: Option<&[bool]>) {
    for (i, &d) in shape.iter().enumerate() {
        let sc = scalable.is_some_and(|s| s.get(i) == Some(&true));
        if d == DYNAMIC {
            out.push('?');
        } else if sc {
            let _ = write!(out, "[{d}]");
        } else {
            let _ = write!(out, "{d}");
        }
        out.push('x');
    }
}

/// Writes a type.
pub fn write_type(out: &mut String, ctx: &Context, t: TypeId, resources: &mut Vec<Sym>) {
    write_type_data(out, ctx, ctx.type_data(t), resources)
}

/// A type given as data, interned or not (what inference hooks return).
pub fn type_data_to_string(ctx: &Context, data: &TypeData) -> String {
    let mut s = String::new();
    write_type_data(&mut s, ctx, data, &mut Vec::new());
    s
}

fn write_type_data(out: &mut String, ctx: &Context, data: &TypeData, resources: &mut Vec<Sym>) {
    match data {
        TypeData::Integer { width, signedness } => {
            let prefix = match signedness {
                Signedness::Signless => "i",
                Signedness::Signed => "si",
                Signedness::Unsigned => "ui",
            };
            let _ = write!(out, "{prefix}{width}");
        }
        TypeData::Index => out.push_str("index"),
        TypeData::Float(k) => out.push_str(k.keyword()),
        TypeData::None => out.push_str("none"),
        TypeData::Complex(e) => {
            out.push_str("complex<");
            write_type(out, ctx, *e, resources);
            out.push('>');
        }
        TypeData::Tuple(elems) => {
            out.push_str("tuple<");
            write_type_list(out, ctx, elems, resources);
            out.push('>');
        }
        TypeData::Function { inputs, results } => {
            out.push('(');
            write_type_list(out, ctx, inputs, resources);
            out.push_str(") -> ");
            write_result_types(out, ctx, results, resources);
        }
        TypeData::Vector {
            shape,
            scalable,
            element,
        } => {
            out.push_str("vector<");
            write_dims(out, shape, Some(scalable));
            write_type(out, ctx, *element, resources);
            out.push('>');
        }
        TypeData::RankedTensor {
            shape,
            element,
            encoding,
        } => {
            out.push_str("tensor<");
            write_dims(out, shape, None);
            write_type(out, ctx, *element, resources);
            if let Some(e) = encoding {
                out.push_str(", ");
                write_attr(out, ctx, *e, resources);
            }
            out.push('>');
        }
        TypeData::UnrankedTensor(e) => {
            out.push_str("tensor<*x");
            write_type(out, ctx, *e, resources);
            out.push('>');
        }
        TypeData::MemRef {
            shape,
            element,
            layout,
            memory_space,
        } => {
            out.push_str("memref<");
            write_dims(out, shape, None);
            write_type(out, ctx, *element, resources);
            if let Some(l) = layout {
                out.push_str(", ");
                write_attr(out, ctx, *l, resources);
            }
            if let Some(m) = memory_space {
                out.push_str(", ");
                write_memory_space(out, ctx, *m, resources);
            }
            out.push('>');
        }
        TypeData::UnrankedMemRef {
            element,
            memory_space,
        } => {
            out.push_str("memref<*x");
            write_type(out, ctx, *element, resources);
            if let Some(m) = memory_space {
                out.push_str(", ");
                write_memory_space(out, ctx, *m, resources);
            }
            out.push('>');
        }
        TypeData::QuantUniform(q) => {
            out.push_str("!quant.uniform<");
            let _ = write!(
                out,
                "{}{}",
                if q.storage_signed { 'i' } else { 'u' },
                q.storage_width
            );
            if let Some((lo, hi)) = q.storage_range {
                let _ = write!(out, "<{lo}:{hi}>");
            }
            out.push(':');
            write_type(out, ctx, q.expressed, resources);
            if let Some(axis) = q.axis {
                let _ = write!(out, ":{axis}, {{");
                for (i, p) in q.params.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_quant_param(out, *p);
                }
                out.push('}');
            } else {
                out.push_str(", ");
                if let Some(p) = q.params.first() {
                    write_quant_param(out, *p);
                }
            }
            out.push('>');
        }
        TypeData::QuantSubChannel(q) => {
            out.push_str("!quant.uniform<");
            let sign = if q.storage_signed { 'i' } else { 'u' };
            let _ = write!(out, "{sign}{}", q.storage_width);
            if let Some((lo, hi)) = q.storage_range {
                let _ = write!(out, "<{lo}:{hi}>");
            }
            out.push(':');
            write_type(out, ctx, q.expressed, resources);
            out.push_str(":{");
            for (i, (dim, size)) in q.block_sizes.iter().enumerate() {
                let _ = write!(out, "{}{dim}:{size}", if i > 0 { ", " } else { "" });
            }
            out.push_str("}, ");
            let kind = match ctx.type_data(q.expressed) {
                TypeData::Float(k) => *k,
                _ => FloatKind::F64,
            };
            write_nested_quant_params(out, kind, &q.shape, &q.params);
            out.push('>');
        }
        TypeData::Dialect { dialect, body } => {
            let _ = write!(out, "!{}{}", ctx.str(*dialect), ctx.str(*body));
        }
        TypeData::Declared {
            dialect,
            name,
            params,
        } => {
            let _ = write!(out, "!{}.{}", ctx.str(*dialect), ctx.str(*name));
            write_params(out, ctx, params, resources);
        }
    }
}

/// `<p1, p2>` after a declared type or attribute (nothing when there are none).
/// Numbers print without their type, which the declared kind gives back.
fn write_params(out: &mut String, ctx: &Context, params: &[AttrId], resources: &mut Vec<Sym>) {
    if params.is_empty() {
        return;
    }
    out.push('<');
    for (i, &p) in params.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_bare_value(out, ctx, p, resources);
    }
    out.push('>');
}

/// A dense array as custom forms write it: `[1, 2, 3]`.
pub fn write_bare_array(out: &mut String, ctx: &Context, a: AttrId, resources: &mut Vec<Sym>) {
    let AttrData::DenseArray { element, data } = ctx.attr_data(a) else {
        return write_attr(out, ctx, a, resources);
    };
    let (width, kind) = scalar_info(ctx, *element);
    out.push('[');
    for (i, chunk) in data.chunks_exact(element_bytes(width)).enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_scalar(out, kind, chunk);
    }
    out.push(']');
}

/// An attribute as a custom form writes it when its kind is known: integers and floats
/// without their type (`3`, `true`, `2.500000e-01`), anything else in full.
pub fn write_bare_value(out: &mut String, ctx: &Context, a: AttrId, resources: &mut Vec<Sym>) {
    match ctx.attr_data(a) {
        AttrData::Integer { value, ty } => match ctx.type_data(*ty) {
            TypeData::Integer { width: 1, .. } => {
                out.push_str(if *value != 0 { "true" } else { "false" })
            }
            _ => {
                let _ = write!(out, "{value}");
            }
        },
        AttrData::WideInteger { bytes, ty } => write_wide_int(out, ctx, bytes, *ty),
        AttrData::Float { bits, ty } => write_float(out, float_kind(ctx, *ty), *bits),
        _ => write_attr(out, ctx, a, resources),
    }
}

/// An integer wider than 128 bits in decimal, signed unless its type is unsigned.
fn write_wide_int(out: &mut String, ctx: &Context, bytes: &[u8], ty: TypeId) {
    let (width, signedness) = match ctx.type_data(ty) {
        TypeData::Integer { width, signedness } => (*width, *signedness),
        _ => (bytes.len() as u32 * 8, Signedness::Signless),
    };
    out.push_str(&crate::wide_int::to_decimal(bytes, width, signedness));
}

/// Sub-channel scales as MLIR prints them: one brace level per dimension of
/// `shape`, elements separated by ", ", each scale as a value of `kind` (the
/// expressed type).
fn write_nested_quant_params(
    out: &mut String,
    kind: FloatKind,
    shape: &[i64],
    params: &[(u64, i64)],
) {
    out.push('{');
    match shape.split_first() {
        Some((&rows, inner)) if !inner.is_empty() => {
            let chunk = params.len() / rows.max(1) as usize;
            for (i, row) in params.chunks(chunk.max(1)).enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_nested_quant_params(out, kind, inner, row);
            }
        }
        _ => {
            for (i, &(scale, zero_point)) in params.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                let scale = f64::from_bits(scale);
                match floats::bits_from_f64(kind, scale) {
                    Some(bits) => write_float(out, kind, bits),
                    None => write_float(out, FloatKind::F64, u128::from(scale.to_bits())),
                }
                if zero_point != 0 {
                    let _ = write!(out, ":{zero_point}");
                }
            }
        }
    }
    out.push('}');
}

fn write_quant_param(out: &mut String, (scale, zero_point): (u64, i64)) {
    let s = f64::from_bits(scale);
    write_float(out, FloatKind::F64, s.to_bits() as u128);
    if zero_point != 0 {
        let _ = write!(out, ":{zero_point}");
    }
}

/// A memory space: integers print without their `i64` type, as in MLIR.
fn write_memory_space(out: &mut String, ctx: &Context, m: AttrId, resources: &mut Vec<Sym>) {
    match ctx.attr_data(m) {
        AttrData::Integer { value, ty }
            if matches!(
                ctx.type_data(*ty),
                TypeData::Integer {
                    width: 64,
                    signedness: Signedness::Signless
                }
            ) =>
        {
            let _ = write!(out, "{value}");
        }
        _ => write_attr(out, ctx, m, resources),
    }
}

/// Writes `a, b, c`.
pub fn write_type_list(out: &mut String, ctx: &Context, tys: &[TypeId], resources: &mut Vec<Sym>) {
    for (i, t) in tys.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_type(out, ctx, *t, resources);
    }
}

/// Writes a result type list: a lone non-function type bare, anything else in parens.
pub fn write_result_types(
    out: &mut String,
    ctx: &Context,
    tys: &[TypeId],
    resources: &mut Vec<Sym>,
) {
    let bare = tys.len() == 1 && !matches!(ctx.type_data(tys[0]), TypeData::Function { .. });
    if !bare {
        out.push('(');
    }
    write_type_list(out, ctx, tys, resources);
    if !bare {
        out.push(')');
    }
}

/// True when `s` can be printed without quotes as an identifier.
pub fn is_bare_identifier(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && (b[0].is_ascii_alphabetic() || b[0] == b'_')
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.'))
}

/// Writes a string literal with MLIR's escapes.
pub fn write_escaped(out: &mut String, s: &str) {
    out.push('"');
    for &b in s.as_bytes() {
        match b {
            b'"' | b'\\' => {
                let _ = write!(out, "\\{b:02X}");
            }
            0x20..=0x7e => out.push(b as char),
            _ => {
                let _ = write!(out, "\\{b:02X}");
            }
        }
    }
    out.push('"');
}

/// Writes `@name` or `@"name"`.
pub fn write_symbol(out: &mut String, name: &str) {
    out.push('@');
    if is_bare_identifier(name) {
        out.push_str(name);
    } else {
        write_escaped(out, name);
    }
}

/// Writes a dictionary's entries `{a = 1 : i64, flag}`; `skip` names are left out.
pub fn write_dict(
    out: &mut String,
    ctx: &Context,
    entries: &[(Sym, AttrId)],
    skip: &[&str],
    resources: &mut Vec<Sym>,
) {
    out.push('{');
    let mut first = true;
    for (k, v) in entries {
        let name = ctx.str(*k);
        if skip.contains(&name) {
            continue;
        }
        if !first {
            out.push_str(", ");
        }
        first = false;
        if is_bare_identifier(name) {
            out.push_str(name);
        } else {
            write_escaped(out, name);
        }
        if !matches!(ctx.attr_data(*v), AttrData::Unit) {
            out.push_str(" = ");
            write_attr(out, ctx, *v, resources);
        }
    }
    out.push('}');
}

thread_local! {
    /// The element count above which this thread's printing elides elements
    /// attributes ([`super::PrintOptions::elide_elements_larger`]), set for the
    /// duration of one `write_ir`.
    static ELIDE_LARGER: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

/// While alive, this thread's printing elides elements attributes larger than a count;
/// dropping it restores the previous setting.
pub(crate) struct ElideLarger(Option<usize>);

impl ElideLarger {
    pub(crate) fn set(limit: Option<usize>) -> ElideLarger {
        ElideLarger(ELIDE_LARGER.with(|c| c.replace(limit)))
    }
}

impl Drop for ElideLarger {
    fn drop(&mut self) {
        ELIDE_LARGER.with(|c| c.set(self.0));
    }
}

/// Writes an attribute. Handles of `dense_resource` attributes are pushed onto
/// `resources`, so the printer can emit the blobs they need.
pub fn write_attr(out: &mut String, ctx: &Context, a: AttrId, resources: &mut Vec<Sym>) {
    match ctx.attr_data(a) {
        AttrData::Unit => out.push_str("unit"),
        AttrData::Integer { value, ty } => {
            if let TypeData::Integer {
                width: 1,
                signedness: Signedness::Signless,
            } = ctx.type_data(*ty)
            {
                out.push_str(if *value != 0 { "true" } else { "false" });
            } else {
                let _ = write!(out, "{value} : ");
                write_type(out, ctx, *ty, resources);
            }
        }
        AttrData::WideInteger { bytes, ty } => {
            write_wide_int(out, ctx, bytes, *ty);
            out.push_str(" : ");
            write_type(out, ctx, *ty, resources);
        }
        AttrData::Float { bits, ty } => {
            let kind = float_kind(ctx, *ty);
            write_float(out, kind, *bits);
            out.push_str(" : ");
            write_type(out, ctx, *ty, resources);
        }
        AttrData::String { value, ty } => {
            write_escaped(out, ctx.str(*value));
            if let Some(t) = ty {
                out.push_str(" : ");
                write_type(out, ctx, *t, resources);
            }
        }
        AttrData::Type(t) => write_type(out, ctx, *t, resources),
        AttrData::Array(elems) => {
            out.push('[');
            for (i, e) in elems.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                // As in MLIR, array elements of the default types (i64, f64) print
                // without their type; the parser gives them those types back.
                match ctx.attr_data(*e) {
                    AttrData::Integer { ty, .. } | AttrData::Float { ty, .. }
                        if matches!(
                            ctx.type_data(*ty),
                            TypeData::Integer {
                                width: 64,
                                signedness: Signedness::Signless
                            } | TypeData::Float(FloatKind::F64)
                        ) =>
                    {
                        write_bare_value(out, ctx, *e, resources)
                    }
                    _ => write_attr(out, ctx, *e, resources),
                }
            }
            out.push(']');
        }
        AttrData::DenseArray { element, data } => {
            out.push_str("array<");
            write_type(out, ctx, *element, resources);
            let (width, kind) = scalar_info(ctx, *element);
            let n = element_bytes(width);
            for (i, chunk) in data.chunks(n).enumerate() {
                out.push_str(if i == 0 { ": " } else { ", " });
                write_scalar(out, kind, chunk);
            }
            out.push('>');
        }
        AttrData::Dictionary(entries) => write_dict(out, ctx, entries, &[], resources),
        AttrData::SymbolRef { root, nested } => {
            write_symbol(out, ctx.str(*root));
            for n in nested.iter() {
                out.push_str("::");
                write_symbol(out, ctx.str(*n));
            }
        }
        AttrData::AffineMap(m) => {
            let _ = write!(out, "affine_map<{m}>");
        }
        AttrData::IntegerSet(s) => {
            let _ = write!(out, "affine_set<{s}>");
        }
        AttrData::Strided { strides, offset } => {
            out.push_str("strided<[");
            for (i, s) in strides.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_dyn(out, *s);
            }
            out.push(']');
            if *offset != 0 {
                out.push_str(", offset: ");
                write_dyn(out, *offset);
            }
            out.push('>');
        }
        AttrData::DenseElements { ty, data }
            if !matches!(data, DenseData::Splat(_))
                && ELIDE_LARGER
                    .with(|c| c.get())
                    .is_some_and(|limit| dense_count(ctx, a) > limit) =>
        {
            // MLIR's spelling of an elided attribute: it parses, but holds no data.
            out.push_str("dense_resource<__elided__> : ");
            write_type(out, ctx, *ty, resources);
        }
        AttrData::DenseElements { ty, data } => {
            out.push_str("dense<");
            write_dense_body(out, ctx, *ty, data);
            out.push_str("> : ");
            write_type(out, ctx, *ty, resources);
        }
        AttrData::Sparse {
            ty,
            indices,
            values,
        } => {
            out.push_str("sparse<");
            // As in MLIR, no stored elements print as `sparse<>`.
            if dense_count(ctx, *indices) != 0 {
                write_dense_payload(out, ctx, *indices);
                out.push_str(", ");
                write_dense_payload(out, ctx, *values);
            }
            out.push_str("> : ");
            write_type(out, ctx, *ty, resources);
        }
        AttrData::DenseResource { ty, handle } => {
            if !resources.contains(handle) {
                resources.push(*handle);
            }
            out.push_str("dense_resource<");
            let h = ctx.str(*handle);
            if is_bare_identifier(h) {
                out.push_str(h)
            } else {
                write_escaped(out, h)
            }
            out.push_str("> : ");
            write_type(out, ctx, *ty, resources);
        }
        AttrData::Distinct { id, value } => {
            let _ = write!(out, "distinct[{id}]<");
            // A distinct unit is `distinct[N]<>`, as MLIR prints it.
            if !matches!(ctx.attr_data(*value), AttrData::Unit) {
                write_attr(out, ctx, *value, resources);
            }
            out.push('>');
        }
        AttrData::Dialect { dialect, body, ty } => {
            let _ = write!(out, "#{}{}", ctx.str(*dialect), ctx.str(*body));
            if let Some(t) = ty {
                out.push_str(" : ");
                write_type(out, ctx, *t, resources);
            }
        }
        AttrData::Declared {
            dialect,
            name,
            params,
        } => {
            let _ = write!(out, "#{}.{}", ctx.str(*dialect), ctx.str(*name));
            write_params(out, ctx, params, resources);
        }
        AttrData::Location(_) => {
            out.push_str("loc(");
            write_location(out, ctx, a);
            out.push(')');
        }
    }
}

fn write_dyn(out: &mut String, v: i64) {
    if v == DYNAMIC {
        out.push('?');
    } else {
        let _ = write!(out, "{v}");
    }
}

/// The number of elements of a dense elements attribute (0 for anything else).
fn dense_count(ctx: &Context, a: AttrId) -> usize {
    let AttrData::DenseElements { ty, .. } = ctx.attr_data(a) else {
        return 0;
    };
    let shape = ctx.type_data(*ty).shape().unwrap_or(&[]);
    shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d.max(0) as usize))
        .unwrap_or(usize::MAX)
}

/// A sparse attribute's indices or values: always a (possibly empty) nested list, with
/// splats expanded, since the parser infers the payload's shape from the list.
fn write_dense_payload(out: &mut String, ctx: &Context, a: AttrId) {
    let AttrData::DenseElements { ty, data } = ctx.attr_data(a) else {
        return;
    };
    let shape = ctx.type_data(*ty).shape().unwrap_or(&[]).to_vec();
    let (width, kind) = scalar_info(ctx, ctx.type_data(*ty).element_type().unwrap_or(*ty));
    let n = element_bytes(width);
    let count: usize = shape.iter().map(|&d| d.max(0) as usize).product();
    let chunk = |i: usize| -> &[u8] {
        match data {
            DenseData::Splat(b) => b,
            DenseData::Elements(b) => b.get(i * n..(i + 1) * n).unwrap_or(&[]),
            DenseData::Strings(_) => &[],
        }
    };
    if count == 0 {
        out.push_str("[]");
        return;
    }
    let mut items = (0..count).map(chunk);
    write_nested(out, &shape, &mut items, &mut |out, c| {
        write_scalar(out, kind, c)
    });
}

/// Writes a location without the `loc(...)` wrapper.
pub fn write_location(out: &mut String, ctx: &Context, a: AttrId) {
    let AttrData::Location(loc) = ctx.attr_data(a) else {
        out.push_str("unknown");
        return;
    };
    match loc {
        Location::Unknown => out.push_str("unknown"),
        Location::FileLineCol {
            file,
            line,
            col,
            end,
        } => {
            write_escaped(out, ctx.str(*file));
            let _ = write!(out, ":{line}:{col}");
            if let Some((l, c)) = end {
                let _ = write!(out, " to {l}:{c}");
            }
        }
        Location::Name { name, child } => {
            write_escaped(out, ctx.str(*name));
            if let Some(c) = child {
                out.push('(');
                write_location(out, ctx, *c);
                out.push(')');
            }
        }
        Location::CallSite { callee, caller } => {
            out.push_str("callsite(");
            write_location(out, ctx, *callee);
            out.push_str(" at ");
            write_location(out, ctx, *caller);
            out.push(')');
        }
        Location::Fused { metadata, locs } => {
            out.push_str("fused");
            if let Some(m) = metadata {
                out.push('<');
                write_attr(out, ctx, *m, &mut Vec::new());
                out.push('>');
            }
            out.push('[');
            for (i, l) in locs.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_location(out, ctx, *l);
            }
            out.push(']');
        }
    }
}

#[derive(Copy, Clone)]
enum Scalar {
    Int(Signedness, u32),
    Float(FloatKind),
    Index,
}

fn float_kind(ctx: &Context, ty: TypeId) -> FloatKind {
    match ctx.type_data(ty) {
        TypeData::Float(k) => *k,
        _ => FloatKind::F64,
    }
}

fn scalar_info(ctx: &Context, ty: TypeId) -> (u32, Scalar) {
    match ctx.type_data(ty) {
        TypeData::Integer { width, signedness } => (*width, Scalar::Int(*signedness, *width)),
        TypeData::Float(k) => (k.width(), Scalar::Float(*k)),
        TypeData::Index => (64, Scalar::Index),
        _ => (8, Scalar::Int(Signedness::Unsigned, 8)),
    }
}

fn write_scalar(out: &mut String, kind: Scalar, bytes: &[u8]) {
    if let Scalar::Int(signedness, w) = kind
        && w > 128
    {
        out.push_str(&crate::wide_int::to_decimal(bytes, w, signedness));
        return;
    }
    let mut raw = [0u8; 16];
    let n = bytes.len().min(16);
    raw[..n].copy_from_slice(&bytes[..n]);
    let bits = u128::from_le_bytes(raw);
    match kind {
        Scalar::Float(k) => write_float(out, k, bits),
        Scalar::Int(_, 1) => out.push_str(if bits & 1 != 0 { "true" } else { "false" }),
        Scalar::Int(Signedness::Unsigned, w) => {
            let _ = write!(out, "{}", bits & mask(w));
        }
        Scalar::Int(_, w) => {
            let shift = 128 - w.min(128);
            let _ = write!(out, "{}", ((bits << shift) as i128) >> shift);
        }
        Scalar::Index => {
            let _ = write!(out, "{}", bits as u64 as i64);
        }
    }
}

fn mask(width: u32) -> u128 {
    if width >= 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    }
}

fn write_dense_body(out: &mut String, ctx: &Context, ty: TypeId, data: &DenseData) {
    let d = ctx.type_data(ty);
    let shape = d.shape().unwrap_or(&[]).to_vec();
    let element = d.element_type().unwrap_or(ty);
    let (inner, complex) = match ctx.type_data(element) {
        TypeData::Complex(i) => (*i, true),
        _ => (element, false),
    };
    let (width, kind) = scalar_info(ctx, inner);
    let elem_bytes = element_bytes(width) * if complex { 2 } else { 1 };
    let write_elem = |out: &mut String, chunk: &[u8]| {
        if complex {
            let half = chunk.len() / 2;
            out.push('(');
            write_scalar(out, kind, &chunk[..half]);
            out.push_str(", ");
            write_scalar(out, kind, &chunk[half..]);
            out.push(')');
        } else {
            write_scalar(out, kind, chunk);
        }
    };
    match data {
        DenseData::Splat(bytes) => write_elem(out, bytes),
        DenseData::Strings(strings) => {
            if strings.len() == 1 && shape.iter().product::<i64>() != 1 {
                write_escaped(out, ctx.str(strings[0]));
            } else {
                let rendered: Vec<String> = strings
                    .iter()
                    .map(|s| {
                        let mut o = String::new();
                        write_escaped(&mut o, ctx.str(*s));
                        o
                    })
                    .collect();
                write_nested(
                    out,
                    &shape,
                    &mut rendered.iter().map(|s| s.as_str()),
                    &mut |out, s| out.push_str(s),
                );
            }
        }
        DenseData::Elements(bytes) => {
            let count = bytes.len() / elem_bytes.max(1);
            if count == 0 {
                return;
            }
            if count > HEX_ELEMENTS_THRESHOLD && width > 1 {
                out.push_str("\"0x");
                out.push_str(&const_hex::encode_upper(bytes));
                out.push('"');
                return;
            }
            let mut chunks = bytes.chunks(elem_bytes.max(1));
            write_nested(out, &shape, &mut chunks, &mut |out, c| write_elem(out, c));
        }
    }
}

fn write_nested<'x, T: 'x>(
    out: &mut String,
    shape: &[i64],
    items: &mut dyn Iterator<Item = T>,
    f: &mut dyn FnMut(&mut String, T),
) {
    match shape.split_first() {
        None => {
            if let Some(item) = items.next() {
                f(out, item);
            }
        }
        Some((&dim, rest)) => {
            out.push('[');
            for i in 0..dim {
                if i > 0 {
                    out.push_str(", ");
                }
                write_nested(out, rest, items, f);
            }
            out.push(']');
        }
    }
}

/// Writes a float of `kind` from its bits: MLIR's `%e` form when it round-trips,
/// else the shortest round-tripping decimal, else (NaN, Inf, formats without a decimal
/// conversion) the hex bit pattern.
pub fn write_float(out: &mut String, kind: FloatKind, bits: u128) {
    if let Some(v) = floats::to_f64(kind, bits)
        && v.is_finite()
    {
        let sci = mlir_scientific(v);
        if floats::bits_from_decimal(kind, &sci) == Some(bits) {
            out.push_str(&sci);
            return;
        }
        let short = match kind {
            FloatKind::F32 => ensure_dot(format!("{:e}", v as f32)),
            _ => shortest_f64(v),
        };
        if floats::bits_from_decimal(kind, &short) == Some(bits) {
            out.push_str(&short);
            return;
        }
    }
    let digits = (kind.width() as usize).div_ceil(4);
    let _ = write!(
        out,
        "0x{:0width$X}",
        bits & floats::width_mask(kind),
        width = digits
    );
}

/// `1.000000e+00` as C's `%e`.
fn mlir_scientific(v: f64) -> String {
    let s = format!("{v:.6e}");
    match s.split_once('e') {
        Some((mant, exp)) => {
            let (sign, digits) = match exp.strip_prefix('-') {
                Some(d) => ('-', d),
                None => ('+', exp),
            };
            format!("{mant}e{sign}{digits:0>2}")
        }
        None => s,
    }
}

/// The shortest decimal that parses back to `v`, always with a `.`.
pub fn shortest_f64(v: f64) -> String {
    ensure_dot(format!("{v:e}"))
}

fn ensure_dot(s: String) -> String {
    match s.split_once('e') {
        Some((mant, exp)) if !mant.contains('.') => format!("{mant}.0e{exp}"),
        _ => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_like_mlir() {
        let mut s = String::new();
        write_float(&mut s, FloatKind::F32, 1.0f32.to_bits() as u128);
        assert_eq!(s, "1.000000e+00");
        s.clear();
        write_float(&mut s, FloatKind::F64, 0.1f64.to_bits() as u128);
        assert_eq!(s, "1.000000e-01");
        s.clear();
        write_float(&mut s, FloatKind::F64, 0.123456789f64.to_bits() as u128);
        assert_eq!(s, "1.23456789e-1");
        s.clear();
        write_float(&mut s, FloatKind::F32, f32::NAN.to_bits() as u128);
        assert_eq!(s, "0x7FC00000");
        s.clear();
        write_float(&mut s, FloatKind::F64, f64::NEG_INFINITY.to_bits() as u128);
        assert_eq!(s, "0xFFF0000000000000");
    }
}
