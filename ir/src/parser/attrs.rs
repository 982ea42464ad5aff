//! Parsing of attributes, dense element literals, locations, aliases and the
//! `{-# dialect_resources ... external_resources ... #-}` file metadata.

use super::lexer::Tok;
use super::{PResult, Parser, parse_int_literal};
use crate::attr_kind::AttrKind;
use crate::attrs::{AttrData, AttrId, DenseData, Location, element_bytes};
use crate::context::{DeclaredDef, EnumAttrDef, ResourceValue};
use crate::floats;
use crate::intern::Sym;
use crate::ir::Ir;
use crate::types::{DYNAMIC, FloatKind, Signedness, TypeData, TypeId};

/// The widest integer type whose values are `i128`s ([`AttrData::Integer`], dense
/// elements read through 128 bits); wider ones go through [`crate::wide_int`].
const MAX_SCALAR_INT_WIDTH: u32 = 128;

/// A literal inside `dense<...>` or `array<...>`, before its type is known.
enum Lit<'s> {
    Int {
        neg: bool,
        text: &'s str,
        span: std::ops::Range<usize>,
    },
    Float {
        neg: bool,
        text: &'s str,
        span: std::ops::Range<usize>,
    },
    Bool(bool),
    Str(String),
    Complex(Box<Lit<'s>>, Box<Lit<'s>>),
    List(Vec<Lit<'s>>, std::ops::Range<usize>),
}

/// How a scalar element of a dense attribute is stored.
#[derive(Copy, Clone)]
enum ScalarKind {
    Int { width: u32, signedness: Signedness },
    Float(FloatKind),
}

impl<'s> Parser<'s, '_> {
    /// Parses an attribute.
    pub fn parse_attribute(&mut self) -> PResult<AttrId> {
        let start = self.tok.start as usize;
        let a = self.nested(|p| p.parse_attribute_inner())?;
        let weight = self.ctx.attr_weight(a);
        self.check_weight(weight, start)?;
        Ok(a)
    }

    fn parse_attribute_inner(&mut self) -> PResult<AttrId> {
        match self.peek() {
            Tok::LSquare => {
                self.bump();
                let mut elems = Vec::new();
                self.parse_comma_list_until(Tok::RSquare, "']' or ','", |p| {
                    elems.push(p.parse_attribute()?);
                    Ok(())
                })?;
                Ok(self.ctx.intern_attr(AttrData::Array(elems.into())))
            }
            Tok::LBrace => {
                let entries = self.parse_attr_dict()?;
                Ok(self.ctx.intern_attr(AttrData::Dictionary(entries.into())))
            }
            Tok::String => {
                let s = self.parse_string()?;
                let ty = if self.try_consume(Tok::Colon) {
                    Some(self.parse_type()?)
                } else {
                    None
                };
                let value = self.ctx.sym(&s);
                Ok(self.ctx.intern_attr(AttrData::String { value, ty }))
            }
            Tok::Integer | Tok::Float | Tok::Minus => self.parse_number_attr(),
            Tok::AtId => self.parse_symbol_ref(),
            Tok::HashId => self.parse_extended_attr(),
            Tok::BangId | Tok::LParen => {
                let t = self.parse_type()?;
                Ok(self.ctx.type_attr(t))
            }
            Tok::BareIdent => {
                let kw = self.tok_text();
                match kw {
                    "true" | "false" => {
                        self.bump();
                        let i1 = self.ctx.int_type(1);
                        Ok(self.ctx.intern_attr(AttrData::Integer {
                            value: (kw == "true") as i128,
                            ty: i1,
                        }))
                    }
                    "unit" => {
                        self.bump();
                        Ok(self.ctx.intern_attr(AttrData::Unit))
                    }
                    "affine_map" | "affine_set" => self.parse_affine(kw == "affine_map"),
                    "array" => self.parse_dense_array(),
                    "dense" => self.parse_dense(),
                    "dense_resource" => self.parse_dense_resource(),
                    "sparse" => self.parse_sparse(),
                    "strided" => self.parse_strided(),
                    "distinct" => self.parse_distinct(),
                    "loc" => self.parse_loc_keyword(),
                    _ if self.at_type() => {
                        let t = self.parse_type()?;
                        Ok(self.ctx.type_attr(t))
                    }
                    _ => self.err_expected("attribute"),
                }
            }
            _ => self.err_expected("attribute"),
        }
    }

    /// Parses `{name = attr, flag, "quoted" = attr}` into entries sorted by name.
    pub fn parse_attr_dict(&mut self) -> PResult<Vec<(Sym, AttrId)>> {
        self.expect(Tok::LBrace, "'{'")?;
        let mut entries: Vec<(Sym, AttrId)> = Vec::new();
        let mut spans = Vec::new();
        self.parse_comma_list_until(Tok::RBrace, "'}' or ','", |p| {
            let span = p.tok_span();
            let name = match p.peek() {
                Tok::BareIdent => {
                    let n = p.tok_text();
                    p.bump();
                    n.to_string()
                }
                Tok::String => p.parse_string()?,
                _ => return p.err_expected("attribute name"),
            };
            if name.is_empty() {
                return p.err_at(span, "attribute names must not be empty");
            }
            let value = if p.try_consume(Tok::Equal) {
                p.parse_attribute()?
            } else {
                p.ctx.intern_attr(AttrData::Unit)
            };
            let sym = p.ctx.sym(&name);
            entries.push((sym, value));
            spans.push(span);
            Ok(())
        })?;
        let mut order: Vec<usize> = (0..entries.len()).collect();
        order.sort_by(|&a, &b| self.ctx.str(entries[a].0).cmp(self.ctx.str(entries[b].0)));
        for w in order.windows(2) {
            if entries[w[0]].0 == entries[w[1]].0 {
                let name = self.ctx.str(entries[w[1]].0).to_string();
                let span = spans[w[0].max(w[1])].clone();
                return self.err_at(
                    span,
                    format!("duplicate key '{name}' in dictionary attribute"),
                );
            }
        }
        Ok(order.into_iter().map(|i| entries[i]).collect())
    }

    /// `@a`, `@"quoted"`, `@a::@b::@c`.
    fn parse_symbol_ref(&mut self) -> PResult<AttrId> {
        let root = self.parse_symbol_name()?;
        let mut nested = Vec::new();
        while self.try_consume(Tok::ColonColon) {
            if self.peek() != Tok::AtId {
                return self.err_expected("nested symbol reference");
            }
            nested.push(self.parse_symbol_name()?);
        }
        Ok(self.ctx.intern_attr(AttrData::SymbolRef {
            root,
            nested: nested.into(),
        }))
    }

    /// Parses `@name` or `@"name"` and returns the name.
    pub fn parse_symbol_name(&mut self) -> PResult<Sym> {
        if self.peek() != Tok::AtId {
            return self.err_expected("symbol name");
        }
        let text = &self.tok_text()[1..];
        let name = if text.starts_with('"') {
            match super::lexer::unescape(&text[1..text.len() - 1]) {
                Some(s) => s,
                None => return self.err("invalid escape in symbol name"),
            }
        } else {
            text.to_string()
        };
        self.bump();
        Ok(self.ctx.sym(&name))
    }

    /// `#alias` or an opaque `#dialect.name<...>` (optionally `: type`).
    fn parse_extended_attr(&mut self) -> PResult<AttrId> {
        let span = self.tok_span();
        let name = &self.tok_text()[1..];
        if let Some(&a) = self.attr_aliases.get(name) {
            self.bump();
            return Ok(a);
        }
        let (dialect, _) = name.split_once('.').unwrap_or((name, ""));
        let is_alias_like =
            !name.contains('.') && self.src.as_bytes().get(self.tok.end as usize) != Some(&b'<');
        if is_alias_like {
            return self.err_at(span, format!("undefined symbol alias id '#{name}'"));
        }
        if let Some(def) = self.ctx.declared_attr(name).cloned() {
            self.bump();
            let params = self.parse_declared_params(name, &def)?;
            let (dialect, name) = (
                self.ctx.sym(dialect),
                self.ctx.sym(&name[dialect.len() + 1..]),
            );
            return Ok(self.ctx.intern_attr(AttrData::Declared {
                dialect,
                name,
                params,
            }));
        }
        let body = self.parse_dialect_body(name, dialect)?;
        if self.ctx.is_dialect_registered(dialect) {
            return self.enum_attr(name, dialect, &body, span);
        }
        if !self.ctx.allow_unregistered {
            return self.err_at(span, format!(
                "dialect '{dialect}' is not registered (attribute '#{name}'); use --allow-unregistered-dialect to keep it opaque"
            ));
        }
        let ty = if self.try_consume(Tok::Colon) {
            Some(self.parse_type()?)
        } else {
            None
        };
        let dialect = self.ctx.sym(dialect);
        let body = self.ctx.sym(&body);
        Ok(self
            .ctx
            .intern_attr(AttrData::Dialect { dialect, body, ty }))
    }

    /// An attribute of a registered dialect: one of its enum attributes, with its body
    /// checked against the cases and normalised (`<nnan,ninf>`).
    fn enum_attr(
        &mut self,
        name: &str,
        dialect: &str,
        body: &str,
        span: std::ops::Range<usize>,
    ) -> PResult<AttrId> {
        let def = match self.ctx.enum_attr(name) {
            Some(def) if def.int_storage.is_none() => def.clone(),
            _ => {
                return self.err_at(
                    span,
                    format!("dialect '{dialect}' has no attribute '#{name}'"),
                );
            }
        };
        let attr_name = &name[dialect.len()..];
        let cases = body
            .strip_prefix(attr_name)
            .and_then(|b| b.strip_prefix('<'))
            .and_then(|b| b.strip_suffix('>'))
            .and_then(|inner| def.parse_cases(inner));
        let Some(cases) = cases else {
            return self.err_at(span, enum_expectation(name, &def));
        };
        let dialect = self.ctx.sym(dialect);
        let body = self
            .ctx
            .sym(&format!("{attr_name}<{}>", def.cases_text(&cases)));
        Ok(self.ctx.intern_attr(AttrData::Dialect {
            dialect,
            body,
            ty: None,
        }))
    }

    /// The custom form of an enum attribute: `<nsw, nuw>` for one stored as text, or the
    /// bare keyword (`slt`) for one stored as an integer.
    pub fn parse_enum_value(&mut self, full_name: &str) -> PResult<AttrId> {
        let Some(def) = self.ctx.enum_attr(full_name).cloned() else {
            return self.err(format!("unknown enum attribute '#{full_name}'"));
        };
        let span = self.tok_span();
        if let Some((width, values)) = &def.int_storage {
            let word = self.tok_text();
            let case = def.cases.iter().position(|c| c == word);
            let Some(i) = case.filter(|_| self.peek() == Tok::BareIdent) else {
                return self.err_at(span, enum_expectation(full_name, &def));
            };
            self.bump();
            let ty = self.ctx.int_type(*width);
            return Ok(self.ctx.intern_attr(AttrData::Integer {
                value: i128::from(values[i]),
                ty,
            }));
        }
        if self.peek() == Tok::HashId {
            // The full form `#dialect.name<...>` is accepted too.
            let a = self.parse_attribute()?;
            if def.decode(self.ctx, full_name, a).is_none() {
                return self.err_at(span, enum_expectation(full_name, &def));
            }
            return Ok(a);
        }
        self.expect(Tok::Less, "'<'")?;
        let mut words = Vec::new();
        loop {
            if self.peek() != Tok::BareIdent {
                return self.err_at(span, enum_expectation(full_name, &def));
            }
            words.push(self.tok_text());
            self.bump();
            if !self.try_consume(Tok::Comma) {
                break;
            }
        }
        let end = self.tok_span();
        self.expect(Tok::Greater, "'>'")?;
        let Some(cases) = def.parse_cases(&words.join(",")) else {
            return self.err_at(span.start..end.end, enum_expectation(full_name, &def));
        };
        let (dialect, name) = full_name.split_once('.').unwrap_or((full_name, ""));
        let dialect = self.ctx.sym(dialect);
        let body = self
            .ctx
            .sym(&format!(".{name}<{}>", def.cases_text(&cases)));
        Ok(self.ctx.intern_attr(AttrData::Dialect {
            dialect,
            body,
            ty: None,
        }))
    }

    /// `<p1, p2>` after a declared type or attribute `!name` / `#name` (required when it
    /// declares parameters, absent otherwise), each parameter read by its kind.
    pub(crate) fn parse_declared_params(
        &mut self,
        name: &str,
        def: &DeclaredDef,
    ) -> PResult<Box<[AttrId]>> {
        if def.params.is_empty() {
            return Ok(Box::new([]));
        }
        let what = format!("'<' and the parameters of '{name}'");
        self.expect(Tok::Less, &what)?;
        let mut params = Vec::with_capacity(def.params.len());
        for (i, (param, kind)) in def.params.iter().enumerate() {
            if i > 0 {
                self.expect(
                    Tok::Comma,
                    &format!("',' before parameter '{param}' of '{name}'"),
                )?;
            }
            let span = self.tok_span();
            let value = self.parse_attr_of_kind(kind)?;
            if !kind.matches(self.ctx, value) {
                return self.err_at(
                    span,
                    format!(
                        "parameter '{param}' of '{name}' must be of kind '{}'",
                        kind.name()
                    ),
                );
            }
            params.push(value);
        }
        self.expect(
            Tok::Greater,
            &format!("'>' after the {} parameters of '{name}'", def.params.len()),
        )?;
        Ok(params.into())
    }

    /// An attribute whose kind is known, as custom forms write it: numbers of a number
    /// kind and strings without a type, types bare, enum cases and declared attributes
    /// without their `#dialect.name` (`<nsw>`, `<"NCHW">`), arrays as `[1, 2]`, anything
    /// else as a full attribute (which every kind also accepts).
    pub fn parse_attr_of_kind(&mut self, kind: &AttrKind) -> PResult<AttrId> {
        if let Some(ty) = kind.number_type(self.ctx) {
            return self.parse_typed_number(ty);
        }
        match kind {
            AttrKind::String => {
                let text = self.parse_string()?;
                Ok(self.ctx.string_attr(&text))
            }
            AttrKind::Type => {
                let t = self.parse_type()?;
                Ok(self.ctx.type_attr(t))
            }
            AttrKind::SymbolName if self.peek() == Tok::AtId => {
                let name = self.parse_symbol_name()?;
                let text = self.ctx.str(name).to_string();
                Ok(self.ctx.string_attr(&text))
            }
            AttrKind::Enum(full) => self.parse_enum_value(full),
            AttrKind::Declared(full) if self.peek() == Tok::Less => {
                let Some(def) = self.ctx.declared_attr(full).cloned() else {
                    return self.err(format!("unknown attribute '#{full}'"));
                };
                let params = self.parse_declared_params(full, &def)?;
                let (dialect, name) = full.split_once('.').unwrap_or((full, ""));
                let (dialect, name) = (self.ctx.sym(dialect), self.ctx.sym(name));
                Ok(self.ctx.intern_attr(AttrData::Declared {
                    dialect,
                    name,
                    params,
                }))
            }
            AttrKind::IntArray(w) if self.peek() == Tok::LSquare => {
                let element = self.ctx.int_type(*w);
                self.parse_bare_array(element)
            }
            AttrKind::FloatArray(w) if self.peek() == Tok::LSquare => {
                let kind = if *w == 32 {
                    FloatKind::F32
                } else {
                    FloatKind::F64
                };
                let element = self.ctx.float_type(kind);
                self.parse_bare_array(element)
            }
            _ => self.parse_attribute(),
        }
    }

    /// `[1, 2, 3]`: a dense array of `element` as custom forms write it.
    fn parse_bare_array(&mut self, element: TypeId) -> PResult<AttrId> {
        self.expect(Tok::LSquare, "'['")?;
        let Some(kind) = self.scalar_kind(element) else {
            return self.err("dense array element type must be an integer or float type");
        };
        let mut data = Vec::new();
        if !self.try_consume(Tok::RSquare) {
            loop {
                let lit = self.parse_literal()?;
                self.push_scalar(&mut data, &lit, kind)?;
                if !self.try_consume(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RSquare, "']' or ','")?;
        }
        Ok(self.ctx.intern_attr(AttrData::DenseArray {
            element,
            data: data.into(),
        }))
    }

    /// Defines an attribute alias `#name = attr` (at top level).
    pub(crate) fn parse_attr_alias_def(&mut self) -> PResult<()> {
        let span = self.tok_span();
        let name = &self.tok_text()[1..];
        self.bump();
        self.expect(Tok::Equal, "'=' in attribute alias definition")?;
        let attr = self.parse_attribute()?;
        if self.attr_aliases.insert(name, attr).is_some() {
            return self.err_at(span, format!("redefinition of attribute alias '#{name}'"));
        }
        Ok(())
    }

    /// An attribute alias by name, if defined.
    pub(crate) fn attr_alias(&self, name: &str) -> Option<AttrId> {
        self.attr_aliases.get(name).copied()
    }

    // ----- numbers -----

    fn parse_number_attr(&mut self) -> PResult<AttrId> {
        self.parse_number_of_type(None)
    }

    /// Parses a number (or `true`/`false`) as an attribute of type `ty` without reading
    /// a trailing `: type`, as formats need when the type is known and a `:` follows.
    pub fn parse_typed_number(&mut self, ty: TypeId) -> PResult<AttrId> {
        if matches!(self.tok_text(), "true" | "false") && self.peek() == Tok::BareIdent {
            let value = (self.tok_text() == "true") as i128;
            let span = self.tok_span();
            self.bump();
            return match self.ctx.type_data(ty) {
                TypeData::Integer { width: 1, .. } => {
                    Ok(self.ctx.intern_attr(AttrData::Integer { value, ty }))
                }
                _ => self.err_at(span, "a boolean needs an i1 attribute"),
            };
        }
        self.parse_number_of_type(Some(ty))
    }

    /// A number literal; its type is `known`, else a trailing `: type`, else i64/f64.
    fn parse_number_of_type(&mut self, known: Option<TypeId>) -> PResult<AttrId> {
        let neg = self.try_consume(Tok::Minus);
        let span = self.tok_span();
        let text = self.tok_text();
        let is_float = match self.peek() {
            Tok::Float => true,
            Tok::Integer => false,
            _ => return self.err_expected("number"),
        };
        self.bump();
        let ty = match known {
            Some(t) => t,
            None if self.try_consume(Tok::Colon) => self.parse_type()?,
            None if is_float => self.ctx.float_type(FloatKind::F64),
            None => self.ctx.int_type(64),
        };
        let lit = if is_float {
            Lit::Float {
                neg,
                text,
                span: span.clone(),
            }
        } else {
            Lit::Int {
                neg,
                text,
                span: span.clone(),
            }
        };
        match self.scalar_kind(ty) {
            Some(ScalarKind::Int { width, signedness }) if width > MAX_SCALAR_INT_WIDTH => {
                let bytes = self.wide_int_bytes(&lit, width, signedness)?;
                Ok(self.ctx.intern_attr(AttrData::WideInteger { bytes, ty }))
            }
            Some(ScalarKind::Int { width, signedness }) => {
                let value = self.int_value(&lit, width, signedness)?;
                Ok(self.ctx.intern_attr(AttrData::Integer { value, ty }))
            }
            Some(ScalarKind::Float(kind)) => {
                let bits = self.float_bits(&lit, kind)?;
                Ok(self.ctx.intern_attr(AttrData::Float { bits, ty }))
            }
            None => self.err_at(
                span,
                "number attributes need an integer, index or float type",
            ),
        }
    }

    fn scalar_kind(&self, ty: TypeId) -> Option<ScalarKind> {
        match self.ctx.type_data(ty) {
            TypeData::Integer { width, signedness } => Some(ScalarKind::Int {
                width: *width,
                signedness: *signedness,
            }),
            TypeData::Index => Some(ScalarKind::Int {
                width: 64,
                signedness: Signedness::Signless,
            }),
            TypeData::Float(k) => Some(ScalarKind::Float(*k)),
            _ => None,
        }
    }

    /// The stored bytes of an integer literal for a type wider than
    /// [`MAX_SCALAR_INT_WIDTH`] bits ([`crate::wide_int::parse`]).
    fn wide_int_bytes(
        &mut self,
        lit: &Lit<'s>,
        width: u32,
        signedness: Signedness,
    ) -> PResult<Box<[u8]>> {
        match lit {
            Lit::Int { neg, text, span } => crate::wide_int::parse(*neg, text, width, signedness)
                .or_else(|message| self.err_at(span.clone(), message)),
            Lit::Float { span, .. } => {
                self.err_at(span.clone(), "expected integer literal for an integer type")
            }
            _ => self.err_at(self.tok_span(), "expected integer literal"),
        }
    }

    /// The value of an integer literal checked against the type, stored sign-extended
    /// (signless, signed) or zero-extended (unsigned).
    fn int_value(&mut self, lit: &Lit<'s>, width: u32, signedness: Signedness) -> PResult<i128> {
        let (neg, text, span) = match lit {
            Lit::Int { neg, text, span } => (*neg, *text, span.clone()),
            Lit::Bool(b) if width == 1 => return Ok(*b as i128),
            Lit::Float { span, .. } => {
                return self.err_at(span.clone(), "expected integer literal for an integer type");
            }
            _ => return self.err_at(self.tok_span(), "expected integer literal"),
        };
        if width > MAX_SCALAR_INT_WIDTH {
            return self.err_at(
                span,
                format!(
                    "integer attributes wider than {MAX_SCALAR_INT_WIDTH} bits are not supported"
                ),
            );
        }
        // The magnitude as u128: -2^127 and, at 128 bits, values up to 2^128 - 1 (kept as
        // their bit pattern, as MLIR prints them: signed) do not fit an i128 first.
        let wide = width >= 128 && signedness == Signedness::Signless;
        let unsigned_magnitude = match text.strip_prefix("0x") {
            Some(hex) => u128::from_str_radix(hex, 16).ok(),
            None => text.parse::<u128>().ok(),
        };
        let magnitude = match unsigned_magnitude {
            Some(m) if neg && m == 1u128 << 127 => Some(i128::MIN),
            Some(m) if !neg && wide => Some(m as i128),
            _ => parse_int_literal(text),
        };
        let Some(magnitude) = magnitude else {
            return self.err_at(span, "integer literal is too large");
        };
        if width == 0 {
            // `i0` holds only 0.
            return if magnitude == 0 {
                Ok(0)
            } else {
                self.err_at(span, "integer constant out of range for 0-bit type")
            };
        }
        if neg && signedness == Signedness::Unsigned {
            return self.err_at(
                span,
                "negative integer literal not valid for unsigned integer type",
            );
        }
        let value = if neg {
            magnitude.wrapping_neg()
        } else {
            magnitude
        };
        // From 127 bits on the bounds leave i128 (the literal is one already): only
        // the lower bound can exclude a value.
        let fits = match signedness {
            Signedness::Unsigned if width >= 127 => value >= 0,
            _ if width >= 128 => true,
            Signedness::Signed if width == 127 => {
                (-(1i128 << 126)..(1i128 << 126)).contains(&value)
            }
            _ if width == 127 => value >= -(1i128 << 126),
            Signedness::Unsigned => value < (1i128 << width),
            Signedness::Signed => {
                value >= -(1i128 << (width - 1)) && value < (1i128 << (width - 1))
            }
            // Signless: MLIR accepts both the signed and the unsigned range.
            Signedness::Signless => value >= -(1i128 << (width - 1)) && value < (1i128 << width),
        };
        if !fits {
            return self.err_at(
                span,
                format!("integer constant out of range for {width}-bit type"),
            );
        }
        Ok(match signedness {
            // `true`, `1 : i1` and `-1 : i1` are the same value; an `si1` holds -1
            // or 0 (and prints so), a `ui1` 0 or 1.
            Signedness::Signless if width == 1 => value & 1,
            Signedness::Unsigned => value,
            _ => sign_extend(value, width),
        })
    }

    fn float_bits(&mut self, lit: &Lit<'s>, kind: FloatKind) -> PResult<u128> {
        let (neg, text, span, is_int) = match lit {
            Lit::Float { neg, text, span } => (*neg, *text, span.clone(), false),
            Lit::Int { neg, text, span } => (*neg, *text, span.clone(), true),
            _ => return self.err_at(self.tok_span(), "expected float literal"),
        };
        if is_int && text.starts_with("0x") {
            // A hex integer is the float's bit pattern.
            let bits = u128::from_str_radix(&text[2..], 16).ok();
            return match bits {
                Some(b) if !neg && b & !floats::width_mask(kind) == 0 => Ok(b),
                _ => self.err_at(
                    span,
                    "hexadecimal float literal does not fit the float type",
                ),
            };
        }
        let full = if neg {
            format!("-{text}")
        } else {
            text.to_string()
        };
        match floats::bits_from_decimal(kind, &full) {
            Some(b) => Ok(b),
            None => self.err_at(
                span,
                format!(
                    "decimal literals are not supported for {}; use the hex bit pattern",
                    kind.keyword()
                ),
            ),
        }
    }

    // ----- structured builtin attributes -----

    fn parse_affine(&mut self, is_map: bool) -> PResult<AttrId> {
        self.bump();
        if self.tok.kind != Tok::Less {
            return self.err_expected("'<'");
        }
        let start = self.tok.end as usize;
        let rest = &self.src[start..];
        let result = if is_map {
            crate::affine::parse_affine_map(rest).map(|(m, n)| (AttrData::AffineMap(m), n))
        } else {
            crate::affine::parse_integer_set(rest).map(|(s, n)| (AttrData::IntegerSet(s), n))
        };
        match result {
            Ok((data, consumed)) => {
                self.lexer.reset(start + consumed);
                self.bump();
                Ok(self.ctx.intern_attr(data))
            }
            Err(e) => {
                let at = (start + e.offset).min(self.src.len());
                self.err_at(at..at, e.message)
            }
        }
    }

    /// `distinct[N]<attr>`.
    fn parse_distinct(&mut self) -> PResult<AttrId> {
        self.bump();
        self.expect(Tok::LSquare, "'['")?;
        let span = self.tok_span();
        let id = match self.peek() {
            Tok::Integer => self.tok_text().parse::<u64>().ok(),
            _ => None,
        };
        let Some(id) = id else {
            return self.err_at(span, "expected the distinct attribute's number");
        };
        self.bump();
        self.expect(Tok::RSquare, "']'")?;
        self.expect(Tok::Less, "'<'")?;
        // MLIR writes a distinct unit as `distinct[N]<>`.
        let value = if self.peek() == Tok::Greater {
            self.ctx.intern_attr(AttrData::Unit)
        } else {
            self.parse_attribute()?
        };
        self.expect(Tok::Greater, "'>'")?;
        Ok(self.ctx.intern_attr(AttrData::Distinct { id, value }))
    }

    fn parse_strided(&mut self) -> PResult<AttrId> {
        self.bump();
        self.expect(Tok::Less, "'<'")?;
        self.expect(Tok::LSquare, "'['")?;
        let mut strides = Vec::new();
        self.parse_comma_list_until(Tok::RSquare, "']' or ','", |p| {
            strides.push(p.parse_dim_or_dynamic()?);
            Ok(())
        })?;
        let mut offset = 0;
        if self.try_consume(Tok::Comma) {
            self.expect_keyword("offset")?;
            self.expect(Tok::Colon, "':'")?;
            offset = self.parse_dim_or_dynamic()?;
        }
        self.expect(Tok::Greater, "'>'")?;
        Ok(self.ctx.intern_attr(AttrData::Strided {
            strides: strides.into(),
            offset,
        }))
    }

    fn parse_dim_or_dynamic(&mut self) -> PResult<i64> {
        if self.try_consume(Tok::Question) {
            Ok(DYNAMIC)
        } else {
            self.parse_i64()
        }
    }

    fn parse_dense_array(&mut self) -> PResult<AttrId> {
        self.bump();
        self.expect(Tok::Less, "'<'")?;
        let span = self.tok_span();
        let element = self.parse_type()?;
        let Some(kind) = self.scalar_kind(element) else {
            return self.err_at(
                span,
                "dense array element type must be an integer or float type",
            );
        };
        let mut data = Vec::new();
        if self.try_consume(Tok::Colon) {
            loop {
                let lit = self.parse_literal()?;
                self.push_scalar(&mut data, &lit, kind)?;
                if !self.try_consume(Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(Tok::Greater, "'>'")?;
        Ok(self.ctx.intern_attr(AttrData::DenseArray {
            element,
            data: data.into(),
        }))
    }

    fn parse_dense_resource(&mut self) -> PResult<AttrId> {
        self.bump();
        self.expect(Tok::Less, "'<'")?;
        let handle = match self.peek() {
            Tok::BareIdent | Tok::String => {
                let t = self.tok_text();
                let name = if t.starts_with('"') {
                    self.parse_string()?
                } else {
                    self.bump();
                    t.to_string()
                };
                self.ctx.sym(&name)
            }
            _ => return self.err_expected("resource handle"),
        };
        self.expect(Tok::Greater, "'>'")?;
        self.expect(
            Tok::Colon,
            "':' and a shaped type after dense_resource<...>",
        )?;
        let ty = self.parse_shaped_type_for_elements()?;
        Ok(self.ctx.intern_attr(AttrData::DenseResource { ty, handle }))
    }

    /// `sparse<indices, values> : T`, or `sparse<> : T` (no stored elements, the same
    /// attribute as `sparse<[], []> : T`).
    fn parse_sparse(&mut self) -> PResult<AttrId> {
        self.bump();
        self.expect(Tok::Less, "'<'")?;
        let (idx_lit, val_lit) = if self.peek() == Tok::Greater {
            let empty = self.tok_span();
            (
                Lit::List(Vec::new(), empty.clone()),
                Lit::List(Vec::new(), empty),
            )
        } else {
            let idx_lit = self.parse_literal()?;
            self.expect(Tok::Comma, "','")?;
            (idx_lit, self.parse_literal()?)
        };
        self.expect(Tok::Greater, "'>'")?;
        self.expect(Tok::Colon, "':' and a shaped type after sparse<...>")?;
        let span = self.tok_span();
        let ty = self.parse_shaped_type_for_elements()?;
        let (shape, element) = self.shape_and_element(ty);
        // Indices: an Nx(rank) i64 tensor; values: an N-element tensor of the element type.
        let rank = shape.len() as i64;
        let n_idx = count_leaves(&idx_lit) as i64;
        let idx_shape: Vec<i64> = if rank == 0 || n_idx == 0 {
            vec![n_idx.max(0), rank.max(1)]
        } else {
            vec![n_idx / rank.max(1), rank]
        };
        let i64t = self.ctx.int_type(64);
        let idx_ty = self.ctx.intern_type(TypeData::RankedTensor {
            shape: idx_shape.into(),
            element: i64t,
            encoding: None,
        });
        let indices = self.dense_from_literal(&idx_lit, idx_ty)?;
        let n_val = count_leaves(&val_lit) as i64;
        let val_ty = self.ctx.intern_type(TypeData::RankedTensor {
            shape: vec![n_val].into(),
            element,
            encoding: None,
        });
        let values = self.dense_from_literal(&val_lit, val_ty)?;
        self.check_sparse_indices(indices, &shape, n_val as usize, span)?;
        Ok(self.ctx.intern_attr(AttrData::Sparse {
            ty,
            indices,
            values,
        }))
    }

    /// Every index row of a sparse attribute lies inside `shape`, and there is one
    /// value per row.
    fn check_sparse_indices(
        &mut self,
        indices: AttrId,
        shape: &[i64],
        n_values: usize,
        span: std::ops::Range<usize>,
    ) -> PResult<()> {
        let AttrData::DenseElements { ty, data } = self.ctx.attr_data(indices) else {
            return Ok(());
        };
        let rows = self
            .ctx
            .type_data(*ty)
            .shape()
            .and_then(|s| s.first())
            .copied()
            .unwrap_or(0) as usize;
        let rank = shape.len().max(1);
        let value_at = |i: usize| -> i64 {
            let bytes = match data {
                DenseData::Splat(b) => &b[..],
                DenseData::Elements(b) => b.get(i * 8..i * 8 + 8).unwrap_or(&[]),
                DenseData::Strings(_) => &[],
            };
            bytes.try_into().map(i64::from_le_bytes).unwrap_or(-1)
        };
        let in_bounds = (0..rows)
            .all(|r| (0..shape.len()).all(|d| (0..shape[d]).contains(&value_at(r * rank + d))));
        if rows * rank != count_elements(self.ctx, *ty) || !in_bounds {
            return self.err_at(
                span,
                format!(
                    "sparse indices must be rows of {} in-bounds indices",
                    shape.len()
                ),
            );
        }
        if n_values != rows {
            return self.err_at(
                span,
                format!("sparse attribute has {rows} indices but {n_values} values"),
            );
        }
        Ok(())
    }

    fn parse_dense(&mut self) -> PResult<AttrId> {
        self.bump();
        self.expect(Tok::Less, "'<'")?;
        let lit = if self.peek() == Tok::Greater {
            Lit::List(Vec::new(), self.tok_span())
        } else {
            self.parse_literal()?
        };
        self.expect(Tok::Greater, "'>'")?;
        self.expect(Tok::Colon, "':' and a shaped type after dense<...>")?;
        let type_span = self.tok_span();
        let ty = self.parse_shaped_type_for_elements()?;
        let element = self.shape_and_element(ty).1;
        if matches!(
            self.ctx.type_data(element),
            TypeData::QuantUniform(_) | TypeData::QuantSubChannel(_)
        ) {
            // As in MLIR: quantized constants are their stored integers, cast.
            return self.err_at(
                type_span,
                "dense elements cannot have a quantized element type: give the stored integers their integer type (and cast them with graph.storage_cast)",
            );
        }
        self.dense_from_literal(&lit, ty)
    }

    fn parse_shaped_type_for_elements(&mut self) -> PResult<TypeId> {
        let span = self.tok_span();
        let ty = self.parse_type()?;
        match self.ctx.type_data(ty) {
            TypeData::RankedTensor { shape, .. } | TypeData::Vector { shape, .. }
                if shape.iter().all(|&d| d >= 0) =>
            {
                Ok(ty)
            }
            _ => self.err_at(
                span,
                "elements attribute type must be a statically shaped tensor or vector",
            ),
        }
    }

    fn shape_and_element(&self, ty: TypeId) -> (Vec<i64>, TypeId) {
        let d = self.ctx.type_data(ty);
        (
            d.shape().map(|s| s.to_vec()).unwrap_or_default(),
            d.element_type().unwrap_or(ty),
        )
    }

    /// One literal of a dense or array attribute: number, bool, string, `(re, im)` or a
    /// nested list.
    fn parse_literal(&mut self) -> PResult<Lit<'s>> {
        self.nested(|p| {
            let neg = p.try_consume(Tok::Minus);
            let span = p.tok_span();
            match p.peek() {
                Tok::Integer => {
                    let text = p.tok_text();
                    p.bump();
                    Ok(Lit::Int { neg, text, span })
                }
                Tok::Float => {
                    let text = p.tok_text();
                    p.bump();
                    Ok(Lit::Float { neg, text, span })
                }
                _ if neg => p.err_expected("number after '-'"),
                Tok::BareIdent if matches!(p.tok_text(), "true" | "false") => {
                    let b = p.tok_text() == "true";
                    p.bump();
                    Ok(Lit::Bool(b))
                }
                Tok::String => Ok(Lit::Str(p.parse_string()?)),
                Tok::LParen => {
                    p.bump();
                    let re = p.parse_literal()?;
                    p.expect(Tok::Comma, "','")?;
                    let im = p.parse_literal()?;
                    p.expect(Tok::RParen, "')'")?;
                    Ok(Lit::Complex(Box::new(re), Box::new(im)))
                }
                Tok::LSquare => {
                    p.bump();
                    let mut elems = Vec::new();
                    p.parse_comma_list_until(Tok::RSquare, "']' or ','", |p| {
                        elems.push(p.parse_literal()?);
                        Ok(())
                    })?;
                    Ok(Lit::List(elems, span.start..p.tok.start as usize))
                }
                _ => p.err_expected("element literal"),
            }
        })
    }

    fn push_scalar(&mut self, out: &mut Vec<u8>, lit: &Lit<'s>, kind: ScalarKind) -> PResult<()> {
        match kind {
            ScalarKind::Int { width, signedness } if width > MAX_SCALAR_INT_WIDTH => {
                out.extend_from_slice(&self.wide_int_bytes(lit, width, signedness)?);
            }
            ScalarKind::Int { width, signedness } => {
                let v = self.int_value(lit, width, signedness)?;
                out.extend_from_slice(&v.to_le_bytes()[..element_bytes(width)]);
            }
            ScalarKind::Float(k) => {
                let b = self.float_bits(lit, k)?;
                out.extend_from_slice(&b.to_le_bytes()[..element_bytes(k.width())]);
            }
        }
        Ok(())
    }

    fn dense_from_literal(&mut self, lit: &Lit<'s>, ty: TypeId) -> PResult<AttrId> {
        let (shape, element) = self.shape_and_element(ty);
        let span = self.tok_span();
        let Some(count) = shape
            .iter()
            .try_fold(1usize, |a, &d| a.checked_mul(usize::try_from(d).ok()?))
        else {
            return self.err_at(span, "shaped type has too many elements");
        };
        let (scalar, complex) = match self.ctx.type_data(element) {
            TypeData::Complex(inner) => (self.scalar_kind(*inner), true),
            _ => (self.scalar_kind(element), false),
        };
        let Some(kind) = scalar else {
            return self.dense_strings(lit, ty, count, span);
        };
        let width = match kind {
            ScalarKind::Int { width, .. } => width,
            ScalarKind::Float(k) => k.width(),
        };
        let elem_bytes = element_bytes(width) * if complex { 2 } else { 1 };
        let data = match lit {
            Lit::Str(s) => self.dense_hex_bytes(s, count, elem_bytes, width, span)?,
            // `dense<>` holds no elements.
            Lit::List(elems, _) if elems.is_empty() && count == 0 => {
                DenseData::Elements(Box::new([]))
            }
            Lit::List(_, list_span) => {
                let list_span = list_span.clone();
                let mut data = Vec::with_capacity(count.min(1 << 20) * elem_bytes);
                let mut shape_ok = true;
                self.flatten_into(&mut data, lit, &shape, kind, complex, &mut shape_ok)?;
                if !shape_ok {
                    return self.err_at(
                        list_span,
                        format!("dense literal does not match the shape {shape:?} of its type"),
                    );
                }
                DenseData::Elements(data.into())
            }
            _ => {
                let mut data = Vec::with_capacity(elem_bytes);
                self.push_element(&mut data, lit, kind, complex)?;
                DenseData::Splat(data.into())
            }
        };
        Ok(self.ctx.intern_attr(AttrData::DenseElements {
            ty,
            data: canonical_splat(data, elem_bytes),
        }))
    }

    /// String elements, for element types that are not numbers.
    fn dense_strings(
        &mut self,
        lit: &Lit<'s>,
        ty: TypeId,
        count: usize,
        span: std::ops::Range<usize>,
    ) -> PResult<AttrId> {
        let mut strings = Vec::new();
        collect_strings(lit, &mut strings);
        if (strings.len() != count && strings.len() != 1) || count_leaves(lit) != strings.len() {
            return self.err_at(
                span,
                "dense string literal does not match the element count",
            );
        }
        let syms: Vec<Sym> = strings.iter().map(|s| self.ctx.sym(s)).collect();
        Ok(self.ctx.intern_attr(AttrData::DenseElements {
            ty,
            data: DenseData::Strings(syms.into()),
        }))
    }

    /// The bytes of `dense<"0x...">`: one element (a splat) or all of them. `i1`
    /// elements must be 0 or 1.
    fn dense_hex_bytes(
        &mut self,
        s: &str,
        count: usize,
        elem_bytes: usize,
        width: u32,
        span: std::ops::Range<usize>,
    ) -> PResult<DenseData> {
        let Some(bytes) = s.strip_prefix("0x").and_then(decode_hex) else {
            return self.err_at(span, "expected a \"0x...\" hex string in dense<...>");
        };
        if width == 1 && bytes.iter().any(|&b| b > 1) {
            return self.err_at(span, "i1 elements in hex dense data must be 0 or 1");
        }
        let total = count.checked_mul(elem_bytes);
        if bytes.len() == elem_bytes && count != 1 {
            Ok(DenseData::Splat(bytes.into()))
        } else if Some(bytes.len()) == total {
            Ok(DenseData::Elements(bytes.into()))
        } else {
            self.err_at(span, format!(
                "hex dense data has {} bytes, expected {elem_bytes} (a splat) or {count} elements of {elem_bytes} bytes",
                bytes.len()
            ))
        }
    }

    fn push_element(
        &mut self,
        out: &mut Vec<u8>,
        lit: &Lit<'s>,
        kind: ScalarKind,
        complex: bool,
    ) -> PResult<()> {
        if complex {
            match lit {
                Lit::Complex(re, im) => {
                    self.push_scalar(out, re, kind)?;
                    self.push_scalar(out, im, kind)
                }
                _ => self.err_at(self.tok_span(), "expected complex literal '(re, im)'"),
            }
        } else {
            self.push_scalar(out, lit, kind)
        }
    }

    fn flatten_into(
        &mut self,
        out: &mut Vec<u8>,
        lit: &Lit<'s>,
        shape: &[i64],
        kind: ScalarKind,
        complex: bool,
        ok: &mut bool,
    ) -> PResult<()> {
        match (lit, shape.split_first()) {
            (Lit::List(elems, _), Some((&dim, rest))) => {
                if elems.len() as i64 != dim {
                    *ok = false;
                    return Ok(());
                }
                for e in elems {
                    self.flatten_into(out, e, rest, kind, complex, ok)?;
                    if !*ok {
                        return Ok(());
                    }
                }
                Ok(())
            }
            (Lit::List(..), None) => {
                *ok = false;
                Ok(())
            }
            (_, None) => self.push_element(out, lit, kind, complex),
            (_, Some(_)) => {
                *ok = false;
                Ok(())
            }
        }
    }

    // ----- locations -----

    /// Parses an optional trailing `loc(...)`; `Ok(None)` when absent. `Err` also covers
    /// a deferred alias, reported through `deferred`.
    pub(crate) fn try_parse_trailing_loc(&mut self) -> PResult<Option<LocOrAlias<'s>>> {
        if !self.at_keyword("loc") {
            return Ok(None);
        }
        self.bump();
        self.expect(Tok::LParen, "'(' after 'loc'")?;
        if self.peek() == Tok::HashId {
            let name = &self.tok_text()[1..];
            let span = self.tok_span();
            self.bump();
            self.expect(Tok::RParen, "')'")?;
            return match self.attr_alias(name) {
                Some(a) if matches!(self.ctx.attr_data(a), AttrData::Location(_)) => {
                    Ok(Some(LocOrAlias::Loc(a)))
                }
                Some(_) => self.err_at(span, format!("'#{name}' is not a location")),
                None => Ok(Some(LocOrAlias::Alias(name, span))),
            };
        }
        let loc = self.parse_location_body()?;
        self.expect(Tok::RParen, "')'")?;
        Ok(Some(LocOrAlias::Loc(loc)))
    }

    /// `loc(...)` as an attribute value (aliases must be defined).
    fn parse_loc_keyword(&mut self) -> PResult<AttrId> {
        self.bump();
        self.expect(Tok::LParen, "'(' after 'loc'")?;
        let loc = self.parse_location_body()?;
        self.expect(Tok::RParen, "')'")?;
        Ok(loc)
    }

    /// A location without the `loc(...)` wrapper. Only nested locations (names, call
    /// sites, fused) count towards the nesting limit, so that adding `loc(...)` to an op
    /// when printing never makes accepted IR too deep to read back.
    fn parse_location_body(&mut self) -> PResult<AttrId> {
        let p = self;
        let span = p.tok_span();
        let loc = match p.peek() {
            Tok::HashId => {
                let name = &p.tok_text()[1..];
                match p.attr_alias(name) {
                    Some(a) if matches!(p.ctx.attr_data(a), AttrData::Location(_)) => {
                        p.bump();
                        return Ok(a);
                    }
                    _ => {
                        return p.err(format!(
                            "expected location alias, '#{name}' is not a defined location"
                        ));
                    }
                }
            }
            Tok::BareIdent if p.tok_text() == "unknown" => {
                p.bump();
                Location::Unknown
            }
            Tok::BareIdent if p.tok_text() == "callsite" => {
                p.bump();
                p.expect(Tok::LParen, "'('")?;
                let callee = p.nested(|p| p.parse_location_body())?;
                p.expect_keyword("at")?;
                let caller = p.nested(|p| p.parse_location_body())?;
                p.expect(Tok::RParen, "')'")?;
                Location::CallSite { callee, caller }
            }
            Tok::BareIdent if p.tok_text() == "fused" => {
                p.bump();
                let metadata = if p.try_consume(Tok::Less) {
                    let m = p.parse_attribute()?;
                    p.expect(Tok::Greater, "'>'")?;
                    Some(m)
                } else {
                    None
                };
                p.expect(Tok::LSquare, "'['")?;
                let mut locs = Vec::new();
                p.parse_comma_list_until(Tok::RSquare, "']' or ','", |p| {
                    locs.push(p.nested(|p| p.parse_location_body())?);
                    Ok(())
                })?;
                return Ok(p.ctx.fused_loc(&locs, metadata));
            }
            Tok::String => {
                let s = p.parse_string()?;
                let sym = p.ctx.sym(&s);
                if p.try_consume(Tok::Colon) {
                    let line = p.parse_u32()?;
                    p.expect(Tok::Colon, "':'")?;
                    let col = p.parse_u32()?;
                    let end = if p.try_keyword("to") {
                        let l = if p.peek() == Tok::Integer {
                            p.parse_u32()?
                        } else {
                            line
                        };
                        p.expect(Tok::Colon, "':'")?;
                        Some((l, p.parse_u32()?))
                    } else {
                        None
                    };
                    Location::FileLineCol {
                        file: sym,
                        line,
                        col,
                        end,
                    }
                } else if p.try_consume(Tok::LParen) {
                    let child = p.nested(|p| p.parse_location_body())?;
                    p.expect(Tok::RParen, "')'")?;
                    Location::Name {
                        name: sym,
                        child: Some(child),
                    }
                } else {
                    Location::Name {
                        name: sym,
                        child: None,
                    }
                }
            }
            _ => return p.err_at(span, "expected location"),
        };
        Ok(p.ctx.intern_attr(AttrData::Location(loc)))
    }

    fn parse_u32(&mut self) -> PResult<u32> {
        let span = self.tok_span();
        let v = self.parse_integer()?;
        u32::try_from(v).or_else(|_| self.err_at(span, "expected a non-negative 32-bit integer"))
    }

    // ----- file metadata -----

    /// `{-# key: {...}, ... #-}` (usually at the end of a file): `dialect_resources`
    /// (blobs of the builtin dialect, for `dense_resource`, kept in the context) and
    /// `external_resources` (kept in `ir` and printed back unchanged).
    pub(crate) fn parse_file_metadata(&mut self, ir: &mut Ir) -> PResult<()> {
        self.expect(Tok::FileMetadataBegin, "'{-#'")?;
        self.parse_comma_list_until(Tok::FileMetadataEnd, "'#-}' or ','", |p| {
            let key_span = p.tok_span();
            if p.peek() != Tok::BareIdent {
                return p.err_expected("metadata key");
            }
            let key = p.tok_text();
            p.bump();
            p.expect(Tok::Colon, "':'")?;
            match key {
                "dialect_resources" => p.parse_resource_groups(None),
                "external_resources" => p.parse_resource_groups(Some(ir)),
                _ => p.err_at(key_span, format!("unknown file metadata key '{key}'")),
            }
        })
    }

    /// `{group: {key: value, ...}, ...}`: dialect resources when `external` is `None`
    /// (only the builtin dialect has any, as in mlir-opt: other dialects are errors),
    /// else external resources, appended to `external`.
    fn parse_resource_groups(&mut self, mut external: Option<&mut Ir>) -> PResult<()> {
        self.expect(Tok::LBrace, "'{'")?;
        self.parse_comma_list_until(Tok::RBrace, "'}' or ','", |p| {
            if p.peek() != Tok::BareIdent {
                let what = if external.is_some() { "resource group name" } else { "dialect name" };
                return p.err_expected(what);
            }
            let group = p.tok_text();
            let group_span = p.tok_span();
            p.bump();
            if external.is_none() && group != "builtin" && !p.ctx.is_dialect_registered(group) {
                return p.err_at(group_span, format!("dialect '{group}' is unknown"));
            }
            p.expect(Tok::Colon, "':'")?;
            p.expect(Tok::LBrace, "'{'")?;
            let group_sym = p.ctx.sym(group);
            p.parse_comma_list_until(Tok::RBrace, "'}' or ','", |p| {
                let key_span = p.tok_span();
                let key = match p.peek() {
                    Tok::BareIdent => {
                        let k = p.tok_text().to_string();
                        p.bump();
                        k
                    }
                    Tok::String => p.parse_string()?,
                    _ => return p.err_expected("resource key"),
                };
                if external.is_none() && group != "builtin" {
                    return p.err_at(key_span, format!("unexpected 'resource' section for dialect '{group}'"));
                }
                p.expect(Tok::Colon, "':'")?;
                let value = p.parse_resource_value(&key)?;
                if external.is_none() && !matches!(value.1, ResourceValue::Blob { .. }) {
                    return p.err_at(value.0, "builtin resource blobs must be \"0x\" hex strings starting with a 4-byte alignment");
                }
                let key = p.ctx.sym(&key);
                match external.as_deref_mut() {
                    Some(ir) => ir.set_external_resource(group_sym, key, value.1),
                    None => p.ctx.set_resource(group_sym, key, value.1),
                }
                Ok(())
            })
        })
    }

    /// A resource value, as MLIR reads one: `true` or `false`, a `"0x..."` hex blob
    /// whose first 4 bytes are its alignment, or any other string. Returns it with
    /// its span.
    fn parse_resource_value(
        &mut self,
        key: &str,
    ) -> PResult<(std::ops::Range<usize>, ResourceValue)> {
        let span = self.tok_span();
        let value = match self.peek() {
            Tok::BareIdent if matches!(self.tok_text(), "true" | "false") => {
                let b = self.tok_text() == "true";
                self.bump();
                ResourceValue::Bool(b)
            }
            Tok::String => {
                let s = self.parse_string()?;
                match s.strip_prefix("0x") {
                    Some(hex) => match decode_hex(hex) {
                        Some(bytes) if bytes.len() >= 4 => ResourceValue::Blob {
                            alignment: u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]),
                            data: bytes[4..].into(),
                        },
                        Some(_) => {
                            return self.err_at(span, format!(
                                "expected hex string blob for key '{key}' to encode alignment in first 4 bytes"
                            ));
                        }
                        None => {
                            return self
                                .err_at(span, format!("expected hex string blob for key '{key}'"));
                        }
                    },
                    None => ResourceValue::String(s),
                }
            }
            _ => {
                return self.err_expected(&format!(
                    "a string, 'true', 'false' or a \"0x...\" blob for resource key '{key}'"
                ));
            }
        };
        Ok((span, value))
    }
}

/// A location, or an alias not yet defined (MLIR lets `loc(#loc1)` precede `#loc1 = ...`).
pub(crate) enum LocOrAlias<'s> {
    Loc(AttrId),
    Alias(&'s str, std::ops::Range<usize>),
}

/// Elements that are all equal are stored as a splat, as MLIR does, so that equal
/// attributes get equal IDs whichever way they were written.
fn canonical_splat(data: DenseData, elem_bytes: usize) -> DenseData {
    match data {
        DenseData::Elements(bytes) if !bytes.is_empty() && elem_bytes > 0 => {
            let first = &bytes[..elem_bytes.min(bytes.len())];
            if bytes.chunks(elem_bytes).all(|c| c == first) {
                DenseData::Splat(first.into())
            } else {
                DenseData::Elements(bytes)
            }
        }
        other => other,
    }
}

fn sign_extend(value: i128, width: u32) -> i128 {
    if width >= 128 {
        return value;
    }
    let shift = 128 - width;
    (value << shift) >> shift
}

/// The bytes of hex digits (either case) whose `0x` the caller removed; `None` for an
/// odd count, a non-digit, or a second prefix (which `const_hex` would skip).
fn decode_hex(hex: &str) -> Option<Vec<u8>> {
    if hex.starts_with("0x") || hex.starts_with("0X") {
        return None;
    }
    const_hex::decode(hex).ok()
}

/// Number of elements of a statically shaped type (0 when unknown).
fn count_elements(ctx: &crate::context::Context, ty: TypeId) -> usize {
    ctx.type_data(ty)
        .shape()
        .map(|s| s.iter().map(|&d| d.max(0) as usize).product())
        .unwrap_or(0)
}

fn count_leaves(lit: &Lit<'_>) -> usize {
    match lit {
        Lit::List(e, _) => e.iter().map(count_leaves).sum(),
        _ => 1,
    }
}

fn collect_strings(lit: &Lit<'_>, out: &mut Vec<String>) {
    match lit {
        Lit::List(e, _) => e.iter().for_each(|l| collect_strings(l, out)),
        Lit::Str(s) => out.push(s.clone()),
        _ => {}
    }
}

/// What an enum attribute accepts, for its error messages.
fn enum_expectation(name: &str, def: &EnumAttrDef) -> String {
    let cases = def.cases.join(", ");
    match (&def.int_storage, def.flags) {
        (Some(_), _) => format!("'#{name}' expects one of the keywords: {cases}"),
        (None, true) => format!("'#{name}' expects <...> with one or more of: {cases}"),
        (None, false) => format!("'#{name}' expects <...> with one of: {cases}"),
    }
}
