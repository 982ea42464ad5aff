//! Parsing of types: builtin types, aliases (`!t`), `!quant.uniform` and opaque dialect
//! types.

use super::lexer::Tok;
use super::{PResult, Parser};
use crate::attrs::{AttrData, AttrId};
use crate::types::{
    DYNAMIC, FloatKind, QuantSubChannel, QuantUniform, Signedness, TypeData, TypeId, TypeList,
};

/// Most bytes an opaque dialect body that references aliases may hold once they are
/// written out ([`Parser::inline_aliases`]).
const MAX_INLINED_BODY: usize = 1 << 20;
/// Most bytes all the opaque bodies of one parse may gain by writing out aliases.
pub(crate) const MAX_INLINED_TOTAL: usize = 1 << 24;

/// Largest integer width MLIR accepts.
const MAX_INT_WIDTH: u32 = (1 << 24) - 1;

/// Parses `iN`, `siN`, `uiN` keywords.
pub(crate) fn integer_keyword(text: &str) -> Option<(Signedness, &str)> {
    let (sign, digits) = if let Some(d) = text.strip_prefix("si") {
        (Signedness::Signed, d)
    } else if let Some(d) = text.strip_prefix("ui") {
        (Signedness::Unsigned, d)
    } else {
        (Signedness::Signless, text.strip_prefix('i')?)
    };
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then_some((sign, digits))
}

impl<'s> Parser<'s, '_> {
    /// True when the current token can start a type.
    pub fn at_type(&self) -> bool {
        match self.peek() {
            Tok::LParen | Tok::BangId => true,
            Tok::BareIdent => {
                let t = self.tok_text();
                matches!(
                    t,
                    "index" | "none" | "tensor" | "memref" | "vector" | "complex" | "tuple"
                ) || FloatKind::from_keyword(t).is_some()
                    || integer_keyword(t).is_some()
            }
            _ => false,
        }
    }

    /// Parses a type.
    pub fn parse_type(&mut self) -> PResult<TypeId> {
        let start = self.tok.start as usize;
        let t = self.nested(|p| p.parse_type_inner())?;
        let weight = self.ctx.type_weight(t);
        self.check_weight(weight, start)?;
        Ok(t)
    }

    fn parse_type_inner(&mut self) -> PResult<TypeId> {
        match self.peek() {
            Tok::LParen => self.parse_function_type(),
            Tok::BangId => self.parse_extended_type(),
            Tok::BareIdent => {
                let text = self.tok_text();
                let data = match text {
                    "index" => TypeData::Index,
                    "none" => TypeData::None,
                    "tensor" | "memref" | "vector" | "complex" | "tuple" => {
                        let keyword = self.tok_span();
                        self.bump();
                        self.expect(Tok::Less, "'<'")?;
                        let ty = match text {
                            "tensor" => self.parse_tensor_body()?,
                            "memref" => self.parse_memref_body(keyword)?,
                            "vector" => self.parse_vector_body(keyword)?,
                            "complex" => {
                                let span = self.tok_span();
                                let e = self.parse_type()?;
                                if !self.ctx.type_data(e).is_valid_complex_element() {
                                    return self.err_at(span, "invalid element type for complex");
                                }
                                self.expect(Tok::Greater, "'>'")?;
                                TypeData::Complex(e)
                            }
                            _ => {
                                let mut elems = TypeList::new();
                                self.parse_comma_list_until(Tok::Greater, "'>' or ','", |p| {
                                    elems.push(p.parse_type()?);
                                    Ok(())
                                })?;
                                TypeData::Tuple(elems)
                            }
                        };
                        return Ok(self.ctx.intern_type(ty));
                    }
                    _ => {
                        if let Some(kind) = FloatKind::from_keyword(text) {
                            TypeData::Float(kind)
                        } else if let Some((signedness, digits)) = integer_keyword(text) {
                            match digits.parse::<u32>() {
                                Ok(width) if width <= MAX_INT_WIDTH => {
                                    TypeData::Integer { width, signedness }
                                }
                                _ => return self.err(format!("invalid integer width in '{text}'")),
                            }
                        } else {
                            return self.err_expected("type");
                        }
                    }
                };
                self.bump();
                Ok(self.ctx.intern_type(data))
            }
            _ => self.err_expected("type"),
        }
    }

    /// Parses `(T, ...) -> R` or `(T, ...) -> (R, ...)`.
    pub fn parse_function_type(&mut self) -> PResult<TypeId> {
        let inputs = self.parse_paren_type_list()?;
        self.expect(Tok::Arrow, "'->' in function type")?;
        let results = self.parse_result_type_list()?;
        Ok(self.ctx.function_type(&inputs, &results))
    }

    /// Parses `(T, ...)`.
    pub fn parse_paren_type_list(&mut self) -> PResult<TypeList> {
        self.expect(Tok::LParen, "'('")?;
        let mut tys = TypeList::new();
        self.parse_comma_list_until(Tok::RParen, "')' or ','", |p| {
            tys.push(p.parse_type()?);
            Ok(())
        })?;
        Ok(tys)
    }

    /// Parses a result type list: a single type or a parenthesized list.
    pub fn parse_result_type_list(&mut self) -> PResult<TypeList> {
        if self.peek() == Tok::LParen {
            // `(i32) -> i32` as a single function-typed result is written `((i32) -> i32)`.
            self.parse_paren_type_list()
        } else {
            Ok(smallvec::smallvec![self.parse_type()?])
        }
    }

    /// Reads `4x?x[8]x` from the raw source at the current token. Returns the dims and
    /// scalable flags; leaves the lexer at the element type.
    fn parse_dimension_list(
        &mut self,
        allow_dynamic: bool,
        allow_scalable: bool,
    ) -> PResult<(Vec<i64>, Vec<bool>)> {
        let bytes = self.src.as_bytes();
        let mut pos = self.tok.start as usize;
        let mut dims = Vec::new();
        let mut scalable = Vec::new();
        loop {
            let start = pos;
            let (dim, is_scalable) = match bytes.get(pos) {
                Some(b'?') => {
                    if !allow_dynamic {
                        return self
                            .err_at(pos..pos + 1, "dynamic dimensions are not allowed here");
                    }
                    pos += 1;
                    (DYNAMIC, false)
                }
                Some(b'[') if allow_scalable => {
                    pos += 1;
                    let d0 = pos;
                    while bytes.get(pos).is_some_and(|b| b.is_ascii_digit()) {
                        pos += 1;
                    }
                    if d0 == pos || bytes.get(pos) != Some(&b']') {
                        return self.err_at(start..pos, "expected scalable dimension '[N]'");
                    }
                    let d = self.src[d0..pos].parse::<i64>();
                    pos += 1;
                    match d {
                        Ok(d) => (d, true),
                        Err(_) => return self.err_at(start..pos, "dimension is too large"),
                    }
                }
                Some(b) if b.is_ascii_digit() => {
                    while bytes.get(pos).is_some_and(|b| b.is_ascii_digit()) {
                        pos += 1;
                    }
                    match self.src[start..pos].parse::<i64>() {
                        Ok(d) => (d, false),
                        Err(_) => return self.err_at(start..pos, "dimension is too large"),
                    }
                }
                _ => break,
            };
            if bytes.get(pos) != Some(&b'x') {
                return self.err_at(pos..pos, "expected 'x' in dimension list");
            }
            pos += 1;
            dims.push(dim);
            scalable.push(is_scalable);
        }
        self.lexer.reset(pos);
        self.bump();
        Ok((dims, scalable))
    }

    fn parse_tensor_body(&mut self) -> PResult<TypeData> {
        if self.tok.kind == Tok::Star {
            self.bump();
            self.expect_dim_x()?;
            let element = self.parse_tensor_element()?;
            self.expect(Tok::Greater, "'>'")?;
            return Ok(TypeData::UnrankedTensor(element));
        }
        let (shape, _) = self.parse_dimension_list(true, false)?;
        let element = self.parse_tensor_element()?;
        let encoding = if self.try_consume(Tok::Comma) {
            Some(self.parse_attribute()?)
        } else {
            None
        };
        self.expect(Tok::Greater, "'>'")?;
        Ok(TypeData::RankedTensor {
            shape: shape.into(),
            element,
            encoding,
        })
    }

    /// The element type of a tensor, checked as MLIR checks it.
    fn parse_tensor_element(&mut self) -> PResult<TypeId> {
        let span = self.tok_span();
        let element = self.parse_type()?;
        if !self.ctx.type_data(element).is_valid_tensor_element() {
            return self.err_at(span, "invalid tensor element type");
        }
        Ok(element)
    }

    /// After `*` in `tensor<*xf32>`: the `x` is lexed as the start of the element
    /// identifier (`xf32`), so split it off.
    fn expect_dim_x(&mut self) -> PResult<()> {
        let pos = self.tok.start as usize;
        if self.src.as_bytes().get(pos) != Some(&b'x') {
            return self.err_expected("'x'");
        }
        self.lexer.reset(pos + 1);
        self.bump();
        Ok(())
    }

    /// After `memref<`: the shape, element type, layout and memory space, checked as
    /// MLIR checks them (`keyword` is the span of `memref`, where shape errors point).
    fn parse_memref_body(&mut self, keyword: std::ops::Range<usize>) -> PResult<TypeData> {
        let unranked = self.tok.kind == Tok::Star;
        let shape = if unranked {
            self.bump();
            self.expect_dim_x()?;
            Vec::new()
        } else {
            self.parse_dimension_list(true, false)?.0
        };
        let element_span = self.tok_span();
        let element = self.parse_type()?;
        if !self.ctx.type_data(element).is_valid_memref_element() {
            return self.err_at(element_span, "invalid memref element type");
        }
        let mut layout = None;
        let mut memory_space = None;
        if self.try_consume(Tok::Comma) {
            let span = self.tok_span();
            let a = self.parse_attribute()?;
            if self.is_layout_attr(a) {
                if unranked {
                    return self.err_at(span, "cannot have affine map for unranked memref type");
                }
                self.check_layout_rank(a, shape.len(), keyword)?;
                layout = Some(a);
                if self.try_consume(Tok::Comma) {
                    memory_space = Some(self.parse_attribute()?);
                }
            } else {
                memory_space = Some(a);
            }
        }
        self.expect(Tok::Greater, "'>'")?;
        Ok(if unranked {
            TypeData::UnrankedMemRef {
                element,
                memory_space,
            }
        } else {
            TypeData::MemRef {
                shape: shape.into(),
                element,
                layout,
                memory_space,
            }
        })
    }

    /// A memref layout must fit the rank: one stride per dimension, or an affine map
    /// with one dimension per memref dimension.
    fn check_layout_rank(
        &mut self,
        layout: AttrId,
        rank: usize,
        span: std::ops::Range<usize>,
    ) -> PResult<()> {
        match self.ctx.attr_data(layout) {
            AttrData::Strided { strides, .. } if strides.len() != rank => {
                self.err_at(span, "expected the number of strides to match the rank")
            }
            AttrData::AffineMap(m) if m.num_dims as usize != rank => {
                let dims = m.num_dims;
                self.err_at(
                    span,
                    format!("memref layout mismatch between rank and affine map: {rank} != {dims}"),
                )
            }
            _ => Ok(()),
        }
    }

    fn is_layout_attr(&self, a: AttrId) -> bool {
        matches!(
            self.ctx.attr_data(a),
            AttrData::AffineMap(_) | AttrData::Strided { .. }
        )
    }

    /// After `vector<` (`keyword` is the span of `vector`, where MLIR reports an invalid
    /// element type).
    fn parse_vector_body(&mut self, keyword: std::ops::Range<usize>) -> PResult<TypeData> {
        let start = self.tok_span();
        let (shape, scalable) = self.parse_dimension_list(false, true)?;
        if shape.iter().any(|&d| d <= 0) {
            return self.err_at(start, "vector dimensions must be positive");
        }
        let element = self.parse_type()?;
        if !self.ctx.type_data(element).is_valid_vector_element() {
            return self.err_at(
                keyword,
                "invalid vector element type: expected an integer, index or float type",
            );
        }
        self.expect(Tok::Greater, "'>'")?;
        Ok(TypeData::Vector {
            shape: shape.into(),
            scalable: scalable.into(),
            element,
        })
    }

    /// `!alias`, `!quant.uniform<...>`, or an opaque `!dialect.name<...>`.
    fn parse_extended_type(&mut self) -> PResult<TypeId> {
        let span = self.tok_span();
        let name = &self.tok_text()[1..];
        if let Some(&t) = self.type_aliases.get(name) {
            self.bump();
            return Ok(t);
        }
        let (dialect, _) = name.split_once('.').unwrap_or((name, ""));
        if name == "quant.uniform" {
            self.bump();
            return self.parse_quant_uniform();
        }
        if self.ctx.is_dialect_registered(dialect) {
            let Some(def) = self.ctx.declared_type(name).cloned() else {
                return self.err_at(span, format!("dialect '{dialect}' has no type '!{name}'"));
            };
            self.bump();
            let params = self.parse_declared_params(name, &def)?;
            let (dialect, name) = (
                self.ctx.sym(dialect),
                self.ctx.sym(&name[dialect.len() + 1..]),
            );
            return Ok(self.ctx.intern_type(TypeData::Declared {
                dialect,
                name,
                params,
            }));
        }
        let body = self.parse_dialect_body(name, dialect)?;
        if !self.ctx.allow_unregistered {
            return self.err_at(span, format!(
                "dialect '{dialect}' is not registered (type '!{name}'); use --allow-unregistered-dialect to keep it opaque"
            ));
        }
        let dialect = self.ctx.sym(dialect);
        let body = self.ctx.sym(&body);
        Ok(self.ctx.intern_type(TypeData::Dialect { dialect, body }))
    }

    /// After a `!name` / `#name` token: returns the verbatim body (`.name` plus any
    /// balanced `<...>`), consuming it.
    pub(crate) fn parse_dialect_body(&mut self, name: &str, dialect: &str) -> PResult<String> {
        let mut body = name[dialect.len()..].to_string();
        let after = self.tok.end as usize;
        if self.src.as_bytes().get(after) == Some(&b'<') {
            let end = self.scan_balanced(after)?;
            let src = self.src;
            let inlined = self.inline_aliases(&src[after..end], after)?;
            body.push_str(&inlined);
            self.lexer.reset(end);
        }
        self.bump();
        Ok(body)
    }

    /// An opaque body with each reference to a defined alias (`#name`, `!name`: the
    /// lexer's identifier characters, no dot, not followed by `<`, outside string
    /// literals) replaced by the aliased attribute's or type's text. The body means
    /// the same (an alias names its value), and it stays readable where acc's output
    /// defines no aliases. `at` is where `text` starts in the source. A body that
    /// grows past [`MAX_INLINED_BODY`] bytes, or a parse whose bodies grow by more
    /// than [`MAX_INLINED_TOTAL`] in all, is an error (nested aliases could otherwise
    /// multiply sizes).
    fn inline_aliases(&mut self, text: &str, at: usize) -> PResult<String> {
        let bytes = text.as_bytes();
        let mut out = String::with_capacity(text.len());
        let mut copied = 0;
        let mut pos = 0;
        while pos < bytes.len() {
            match bytes[pos] {
                b'"' => {
                    pos += 1;
                    while pos < bytes.len() && bytes[pos] != b'"' {
                        pos += if bytes[pos] == b'\\' { 2 } else { 1 };
                    }
                    pos += 1;
                }
                sigil @ (b'#' | b'!') => {
                    let start = pos + 1;
                    let mut end = start;
                    while end < bytes.len() && super::lexer::is_suffix_char(bytes[end]) {
                        end += 1;
                    }
                    let name = &text[start..end];
                    let aliasable = !name.is_empty()
                        && !name.contains('.')
                        && !name.as_bytes()[0].is_ascii_digit()
                        && bytes.get(end) != Some(&b'<');
                    let value = match sigil {
                        _ if !aliasable => None,
                        b'#' => self
                            .attr_aliases
                            .get(name)
                            .map(|&a| crate::printer::attr_to_string(self.ctx, a)),
                        _ => self
                            .type_aliases
                            .get(name)
                            .map(|&t| crate::printer::type_to_string(self.ctx, t)),
                    };
                    if let Some(value) = value {
                        out.push_str(&text[copied..pos]);
                        out.push_str(&value);
                        copied = end;
                        self.inlined_bytes = self.inlined_bytes.saturating_add(value.len());
                        if out.len() > MAX_INLINED_BODY || self.inlined_bytes > MAX_INLINED_TOTAL {
                            return self.err_at(
                                at..at + text.len(),
                                format!(
                                    "writing out the aliases this dialect body references \
                                     makes it longer than {MAX_INLINED_BODY} bytes, or this \
                                     file's bodies longer than {MAX_INLINED_TOTAL} in all"
                                ),
                            );
                        }
                    }
                    pos = end;
                }
                _ => pos += 1,
            }
        }
        out.push_str(&text[copied.min(text.len())..]);
        Ok(out)
    }

    /// From a `<` at `start`, finds the end (exclusive) of the balanced `<...>` group,
    /// skipping strings and `->`.
    fn scan_balanced(&mut self, start: usize) -> PResult<usize> {
        let bytes = self.src.as_bytes();
        let mut stack: Vec<u8> = Vec::new();
        let mut pos = start;
        while pos < bytes.len() {
            let b = bytes[pos];
            match b {
                b'<' | b'(' | b'[' | b'{' => stack.push(b),
                b'-' if bytes.get(pos + 1) == Some(&b'>') => pos += 1,
                b'>' | b')' | b']' | b'}' => {
                    let open = match b {
                        b'>' => b'<',
                        b')' => b'(',
                        b']' => b'[',
                        _ => b'{',
                    };
                    if stack.pop() != Some(open) {
                        return self.err_at(pos..pos + 1, "unbalanced punctuation in dialect body");
                    }
                    if stack.is_empty() {
                        return Ok(pos + 1);
                    }
                }
                b'"' => {
                    pos += 1;
                    while pos < bytes.len() && bytes[pos] != b'"' {
                        if bytes[pos] == b'\\' {
                            pos += 1;
                        }
                        pos += 1;
                    }
                }
                _ => {}
            }
            pos += 1;
        }
        self.err_at(start..bytes.len(), "unterminated dialect body")
    }

    /// `<i8<-127:127>:f32:1, {0.1:2, 0.2}>` after `!quant.uniform` (or a sub-channel
    /// type, [`Self::parse_quant_sub_channel`]).
    fn parse_quant_uniform(&mut self) -> PResult<TypeId> {
        self.expect(Tok::Less, "'<'")?;
        let span = self.tok_span();
        let text = self.tok_text();
        let (storage_signed, digits) = match text.as_bytes().first() {
            Some(b'i') => (true, &text[1..]),
            Some(b'u') => (false, &text[1..]),
            _ => return self.err_expected("storage type such as 'i8' or 'u8'"),
        };
        let storage_width = match digits.parse::<u32>() {
            Ok(w) if (1..=32).contains(&w) => w,
            _ => return self.err_at(span, "storage type width must be between 1 and 32"),
        };
        self.bump();
        let storage_range = if self.try_consume(Tok::Less) {
            let lo = self.parse_i64()?;
            self.expect(Tok::Colon, "':'")?;
            let hi = self.parse_i64()?;
            self.expect(Tok::Greater, "'>'")?;
            Some((lo, hi))
        } else {
            None
        };
        self.expect(Tok::Colon, "':'")?;
        let expressed = self.parse_type()?;
        let axis = if self.try_consume(Tok::Colon) {
            if self.peek() == Tok::LBrace {
                let storage = (storage_width, storage_signed, storage_range);
                return self.parse_quant_sub_channel(span, storage, expressed);
            }
            let s = self.tok_span();
            let a = self.parse_integer()?;
            Some(i32::try_from(a).or_else(|_| self.err_at(s, "quantized dimension out of range"))?)
        } else {
            None
        };
        self.expect(Tok::Comma, "','")?;
        let mut params = Vec::new();
        if axis.is_some() {
            self.expect(Tok::LBrace, "'{'")?;
            self.parse_comma_list_until(Tok::RBrace, "'}' or ','", |p| {
                params.push(p.parse_quant_param()?);
                Ok(())
            })?;
        } else {
            params.push(self.parse_quant_param()?);
        }
        let end = self.tok.end as usize;
        self.expect(Tok::Greater, "'>'")?;
        let storage = (storage_width, storage_signed, storage_range);
        let problem = if axis.is_some_and(|a| a < 0) {
            Some("quantized dimension must not be negative".to_string())
        } else if params.is_empty() {
            Some("expected at least one scale".to_string())
        } else {
            self.quant_problem(storage, expressed, &params)
        };
        if let Some(message) = problem {
            return self.err_at(span.start..end, message);
        }
        let storage_range = Self::quant_range(storage);
        Ok(self.ctx.intern_type(TypeData::QuantUniform(QuantUniform {
            storage_width,
            storage_signed,
            storage_range,
            expressed,
            axis,
            params: params.into(),
        })))
    }

    /// The rest of a sub-channel type after `storage:expressed:`: `{0:1, 1:2},
    /// {{2.0:120, 3.0:127}, {4.0, 5.0}}>` (block sizes, then the scales nested one
    /// brace level per dimension).
    fn parse_quant_sub_channel(
        &mut self,
        span: std::ops::Range<usize>,
        (storage_width, storage_signed, storage_range): (u32, bool, Option<(i64, i64)>),
        expressed: TypeId,
    ) -> PResult<TypeId> {
        let mut block_sizes = Vec::new();
        self.expect(Tok::LBrace, "'{'")?;
        self.parse_comma_list_until(Tok::RBrace, "'}' or ','", |p| {
            let s = p.tok_span();
            let dim = i32::try_from(p.parse_integer()?)
                .or_else(|_| p.err_at(s.clone(), "quantized dimension out of range"))?;
            p.expect(Tok::Colon, "':'")?;
            let size = p.parse_i64()?;
            block_sizes.push((dim, size));
            Ok(())
        })?;
        self.expect(Tok::Comma, "','")?;
        let mut params = Vec::new();
        let shape = self.parse_quant_nest(&mut params)?;
        // As MLIR, which holds the scales as a tensor of the expressed type and the
        // zero points as one of the storage width (read back signed): each scale
        // rounded to the expressed type, each zero point wrapped to the width.
        if let TypeData::Float(kind) = self.ctx.type_data(expressed) {
            let kind = *kind;
            let shift = 64 - storage_width.min(64);
            for (scale, zero) in &mut params {
                *scale = crate::elements::round_float(f64::from_bits(*scale), kind).to_bits();
                *zero = (*zero << shift) >> shift;
            }
        }
        let end = self.tok.end as usize;
        self.expect(Tok::Greater, "'>'")?;
        let storage = (storage_width, storage_signed, storage_range);
        let problem = if let Some((dim, _)) = block_sizes.iter().find(|(d, _)| *d < 0) {
            Some(format!("illegal quantized dimension: {dim}"))
        } else if let Some((_, size)) = block_sizes.iter().find(|(_, b)| *b <= 0) {
            Some(format!("illegal block size: {size}"))
        } else {
            self.quant_problem(storage, expressed, &params)
        };
        if let Some(message) = problem {
            return self.err_at(span.start..end, message);
        }
        let storage_range = Self::quant_range(storage);
        Ok(self
            .ctx
            .intern_type(TypeData::QuantSubChannel(QuantSubChannel {
                storage_width,
                storage_signed,
                storage_range,
                expressed,
                block_sizes: block_sizes.into(),
                shape: shape.into(),
                params: params.into(),
            })))
    }

    /// What is wrong with a quantized type's storage, expressed type or scales, if
    /// anything (as MLIR, zero points are not limited to the storage range).
    fn quant_problem(
        &self,
        (width, signed, range): (u32, bool, Option<(i64, i64)>),
        expressed: TypeId,
        params: &[(u64, i64)],
    ) -> Option<String> {
        let full = QuantUniform::full_range(width, signed);
        let (lo, hi) = range.unwrap_or(full);
        if lo > hi || lo < full.0 || hi > full.1 {
            return Some(format!(
                "storage range [{lo}, {hi}] does not fit the {width}-bit storage type"
            ));
        }
        if !matches!(self.ctx.type_data(expressed), TypeData::Float(_)) {
            return Some("expressed type must be a float type".to_string());
        }
        let (scale, _) = params.iter().find(|(s, _)| {
            let s = f64::from_bits(*s);
            !(s.is_finite() && s > 0.0)
        })?;
        Some(format!(
            "scale {} is invalid: scales must be finite and positive",
            f64::from_bits(*scale)
        ))
    }

    /// The storage range a quantized type keeps: none when it is the storage type's
    /// full range (as in MLIR, so that `i4<-8:7>` and `i4` are the same type).
    fn quant_range((width, signed, range): (u32, bool, Option<(i64, i64)>)) -> Option<(i64, i64)> {
        range.filter(|&r| r != QuantUniform::full_range(width, signed))
    }

    /// One brace level of sub-channel scales, appending them to `params`: `{p, p}` or
    /// `{{...}, {...}}`; returns the shape of this level (every element of a level has
    /// the same shape). Nesting is limited as other nested syntax is.
    fn parse_quant_nest(&mut self, params: &mut Vec<(u64, i64)>) -> PResult<Vec<i64>> {
        self.nested(|p| p.parse_quant_level(params))
    }

    /// The body of [`Self::parse_quant_nest`], one level deeper.
    fn parse_quant_level(&mut self, params: &mut Vec<(u64, i64)>) -> PResult<Vec<i64>> {
        let open = self.tok_span();
        self.expect(Tok::LBrace, "'{'")?;
        let mut inner: Option<Vec<i64>> = None;
        let mut count = 0i64;
        self.parse_comma_list_until(Tok::RBrace, "'}' or ','", |p| {
            let s = p.tok_span();
            let shape = if p.peek() == Tok::LBrace {
                p.parse_quant_nest(params)?
            } else {
                params.push(p.parse_quant_param()?);
                Vec::new()
            };
            match &inner {
                Some(first) if *first != shape => {
                    return p.err_at(
                        s,
                        "scales must form a tensor: every element of a level \
                                        has the same shape",
                    );
                }
                _ => inner = Some(shape),
            }
            count += 1;
            Ok(())
        })?;
        let Some(inner) = inner else {
            return self.err_at(open, "expected at least one scale");
        };
        let mut shape = vec![count];
        shape.extend(inner);
        Ok(shape)
    }

    fn parse_quant_param(&mut self) -> PResult<(u64, i64)> {
        let scale = self.parse_f64_literal()?;
        let zero_point = if self.try_consume(Tok::Colon) {
            self.parse_i64()?
        } else {
            0
        };
        Ok((scale.to_bits(), zero_point))
    }

    /// Parses a (possibly negative) decimal float or integer literal as f64, or a
    /// hexadecimal integer as the f64's bit pattern (as MLIR writes quantized scales).
    pub fn parse_f64_literal(&mut self) -> PResult<f64> {
        let neg = self.try_consume(Tok::Minus);
        let text = self.tok_text();
        let v = match self.peek() {
            Tok::Integer if text.starts_with("0x") => match u64::from_str_radix(&text[2..], 16) {
                Ok(bits) => f64::from_bits(bits),
                Err(_) => return self.err("invalid hexadecimal float bit pattern"),
            },
            Tok::Float | Tok::Integer => match text.parse::<f64>() {
                Ok(v) => v,
                Err(_) => return self.err("invalid number"),
            },
            _ => return self.err_expected("number"),
        };
        self.bump();
        Ok(if neg { -v } else { v })
    }

    /// Defines a type alias `!name = type` (at top level).
    pub(crate) fn parse_type_alias_def(&mut self) -> PResult<()> {
        let span = self.tok_span();
        let name = &self.tok_text()[1..];
        self.bump();
        self.expect(Tok::Equal, "'=' in type alias definition")?;
        let ty = self.parse_type()?;
        if self.type_aliases.insert(name, ty).is_some() {
            return self.err_at(span, format!("redefinition of type alias '!{name}'"));
        }
        Ok(())
    }
}
