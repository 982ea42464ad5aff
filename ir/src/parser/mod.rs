//! The hand-written recursive-descent parser of the textual IR (MLIR's syntax).
//!
//! [`parse_file`] turns one loaded source file into an [`Ir`], or returns the first
//! error as a [`Diagnostic`] with its span. The parser never panics: every malformed
//! input, however truncated or nested, ends in a diagnostic (nesting is bounded by
//! [`MAX_NESTING`] so that recursion cannot overflow the stack).
//!
//! Naming rule (from xDSL): `try_*` may fail softly and returns `Option`/`bool`,
//! `parse_*` must succeed or report an error, `expect` consumes one given token.

mod attrs;
pub mod lexer;
mod ops;
mod types;

use rustc_hash::FxHashMap as HashMap;

use crate::attrs::AttrId;
use crate::context::Context;
use crate::diag::{DiagLoc, Diagnostic, FileId, SourceMap};
use crate::intern::Sym;
use crate::ir::Ir;
use crate::types::TypeId;
use lexer::{Lexer, Tok, Token};

pub use ops::{CustomParse, OperationState, RegionArg, UnresolvedOperand};

/// Deepest nesting of types, attributes and regions the parser accepts.
pub const MAX_NESTING: u32 = 200;

/// Most type and attribute nodes one type or attribute may expand to (through aliases).
pub const MAX_EXPANDED_SIZE: u64 = 1 << 20;

/// Marker for a failed parse; the diagnostic is kept in the parser.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Failed;

/// Result of a parse step.
pub type PResult<T> = Result<T, Failed>;

/// Parser state over one source buffer.
pub struct Parser<'s, 'c> {
    pub(crate) ctx: &'c mut Context,
    src: &'s str,
    lexer: Lexer<'s>,
    tok: Token,
    file: FileId,
    file_sym: Sym,
    line_starts: Vec<u32>,
    line_cursor: usize,
    depth: u32,
    /// Where the text being parsed starts (locates the implicit module of a chunk).
    chunk_start: usize,
    /// Deepest `depth` reached since last reset (see `parse_top_level`).
    max_depth: u32,
    error: Option<Diagnostic>,
    type_aliases: HashMap<&'s str, TypeId>,
    attr_aliases: HashMap<&'s str, AttrId>,
    /// Bytes that alias references in opaque dialect bodies have been written out to
    /// so far ([`types::MAX_INLINED_TOTAL`] at most: nested aliases could otherwise
    /// turn a small file into gigabytes).
    inlined_bytes: usize,
    pub(crate) scopes: ops::Scopes<'s>,
    /// Ops and block arguments whose `loc(#alias)` was used before its definition.
    deferred_locs: Vec<ops::DeferredLoc<'s>>,
    /// Default dialects of the enclosing ops (innermost last), for custom op names.
    default_dialect: Vec<String>,
}

/// Parses a whole file of the source map into an [`Ir`].
pub fn parse_file(ctx: &mut Context, sources: &SourceMap, file: FileId) -> Result<Ir, Diagnostic> {
    parse_chunk(ctx, sources, file, 0..sources.text(file).len())
}

/// Parses the bytes `range` of `file` (a `--split-input-file` chunk). Spans and
/// locations stay relative to the whole file, so line numbers are the original ones.
pub fn parse_chunk(
    ctx: &mut Context,
    sources: &SourceMap,
    file: FileId,
    range: std::ops::Range<usize>,
) -> Result<Ir, Diagnostic> {
    let text = sources.text(file);
    let end = range.end.min(text.len());
    let src = text.get(..end).unwrap_or(text);
    // Every op gets a location attribute; ops take about 50 bytes of text.
    let mut p = Parser::new(ctx, src, file, sources.name(file));
    p.lexer.reset(range.start);
    p.chunk_start = range.start.min(end);
    p.bump();
    match p.parse_top_level() {
        Ok(ir) => Ok(ir),
        Err(Failed) => Err(p
            .error
            .take()
            .unwrap_or_else(|| Diagnostic::error(DiagLoc::Span(file, 0..0), "parse failed"))),
    }
}

/// Parses a whole string as one type (as written in a dialect definition). Errors
/// carry the message and the byte range in `text`.
pub fn parse_type_str(
    ctx: &mut Context,
    text: &str,
) -> Result<TypeId, (String, std::ops::Range<usize>)> {
    let mut p = Parser::new(ctx, text, 0, "<type>");
    p.bump();
    let result = p.parse_type();
    p.finish_str(result)
}

/// Parses a whole string as one attribute (as written in a dialect definition).
pub fn parse_attribute_str(
    ctx: &mut Context,
    text: &str,
) -> Result<AttrId, (String, std::ops::Range<usize>)> {
    let mut p = Parser::new(ctx, text, 0, "<attribute>");
    p.bump();
    let result = p.parse_attribute();
    p.finish_str(result)
}

/// Parses a whole string as one attribute of a known kind, as custom forms write it
/// (`3` for an `i32`, `<nsw>` for an enum): the defaults of a dialect definition.
pub fn parse_attr_of_kind_str(
    ctx: &mut Context,
    text: &str,
    kind: &crate::attr_kind::AttrKind,
) -> Result<AttrId, (String, std::ops::Range<usize>)> {
    let mut p = Parser::new(ctx, text, 0, "<attribute>");
    p.bump();
    let result = p.parse_attr_of_kind(kind);
    p.finish_str(result)
}

impl<'s, 'c> Parser<'s, 'c> {
    /// Ends a whole-string parse: the value, or the error with its range in the string.
    fn finish_str<T>(&mut self, result: PResult<T>) -> Result<T, (String, std::ops::Range<usize>)> {
        let result = result.and_then(|v| {
            if self.peek() == Tok::Eof {
                Ok(v)
            } else {
                self.err_expected("end of text").map(|()| v)
            }
        });
        result.map_err(|Failed| match self.error.take() {
            Some(Diagnostic {
                message,
                loc: DiagLoc::Span(_, range),
                ..
            }) => (message, range),
            Some(d) => (d.message, 0..0),
            None => ("parse failed".to_string(), 0..0),
        })
    }

    fn new(ctx: &'c mut Context, src: &'s str, file: FileId, name: &str) -> Self {
        let file_sym = ctx.sym(name);
        let line_starts = std::iter::once(0u32)
            .chain(
                src.bytes()
                    .enumerate()
                    .filter(|(_, b)| *b == b'\n')
                    .map(|(i, _)| i as u32 + 1),
            )
            .collect();
        Parser {
            ctx,
            src,
            lexer: Lexer::new(src),
            tok: Token {
                kind: Tok::Eof,
                start: 0,
                end: 0,
            },
            file,
            file_sym,
            line_starts,
            line_cursor: 0,
            depth: 0,
            max_depth: 0,
            chunk_start: 0,
            error: None,
            type_aliases: HashMap::default(),
            attr_aliases: HashMap::default(),
            inlined_bytes: 0,
            scopes: ops::Scopes::default(),
            deferred_locs: Vec::new(),
            default_dialect: Vec::new(),
        }
    }

    // ----- tokens -----

    /// The context, to look things up.
    pub fn context_ref(&self) -> &Context {
        self.ctx
    }

    /// The context, mutably (to intern what is parsed).
    pub fn context(&mut self) -> &mut Context {
        self.ctx
    }

    /// Advances to the next token.
    pub(crate) fn bump(&mut self) {
        self.tok = self.lexer.next_token();
    }

    /// The current token's kind.
    pub fn peek(&self) -> Tok {
        self.tok.kind
    }

    /// The current token's text.
    pub fn tok_text(&self) -> &'s str {
        &self.src[self.tok.start as usize..self.tok.end as usize]
    }

    /// The byte range of the current token.
    pub fn tok_span(&self) -> std::ops::Range<usize> {
        self.tok.start as usize..self.tok.end as usize
    }

    /// True when the current token is the bare identifier `kw`.
    pub fn at_keyword(&self, kw: &str) -> bool {
        self.tok.kind == Tok::BareIdent && self.tok_text() == kw
    }

    /// Consumes the token if it is `kind`.
    pub fn try_consume(&mut self, kind: Tok) -> bool {
        if self.tok.kind == kind {
            self.bump();
            true
        } else {
            false
        }
    }

    /// Consumes the bare identifier `kw` if present.
    pub fn try_keyword(&mut self, kw: &str) -> bool {
        if self.at_keyword(kw) {
            self.bump();
            true
        } else {
            false
        }
    }

    /// Consumes a token of kind `kind` or reports `expected {what}`.
    pub fn expect(&mut self, kind: Tok, what: &str) -> PResult<()> {
        if self.try_consume(kind) {
            Ok(())
        } else {
            self.err_expected(what)
        }
    }

    /// Consumes the keyword `kw` or reports an error.
    pub fn expect_keyword(&mut self, kw: &str) -> PResult<()> {
        if self.try_keyword(kw) {
            Ok(())
        } else {
            self.err_expected(&format!("'{kw}'"))
        }
    }

    // ----- errors -----

    /// Reports `message` at `span` and returns the failure marker.
    pub fn err_at<T>(
        &mut self,
        span: std::ops::Range<usize>,
        message: impl Into<String>,
    ) -> PResult<T> {
        if self.error.is_none() {
            self.error = Some(Diagnostic::error(DiagLoc::Span(self.file, span), message));
        }
        Err(Failed)
    }

    /// Reports `message` at `span` with a note at `note_span` (MLIR's "previously
    /// defined here").
    pub fn err_with_note<T>(
        &mut self,
        span: std::ops::Range<usize>,
        message: impl Into<String>,
        note_span: std::ops::Range<usize>,
        note: impl Into<String>,
    ) -> PResult<T> {
        if self.error.is_none() {
            let mut d = Diagnostic::error(DiagLoc::Span(self.file, span), message);
            d.notes.push(Diagnostic::new(
                crate::diag::Severity::Note,
                DiagLoc::Span(self.file, note_span),
                note,
            ));
            self.error = Some(d);
        }
        Err(Failed)
    }

    /// Reports `message` at the current token.
    pub fn err<T>(&mut self, message: impl Into<String>) -> PResult<T> {
        let span = self.tok_span();
        self.err_at(span, message)
    }

    /// Reports `expected {what}` at the current token.
    pub fn err_expected<T>(&mut self, what: &str) -> PResult<T> {
        let found = match self.tok.kind {
            Tok::Eof => "end of file".to_string(),
            Tok::Error => "an invalid token".to_string(),
            _ => format!("'{}'", self.tok_text()),
        };
        self.err(format!("expected {what}, found {found}"))
    }

    /// Runs `f` one nesting level deeper, failing past [`MAX_NESTING`].
    pub(crate) fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        if self.depth >= MAX_NESTING {
            return self.err(format!("nesting deeper than {MAX_NESTING} levels"));
        }
        self.depth += 1;
        self.max_depth = self.max_depth.max(self.depth);
        let r = f(self);
        self.depth -= 1;
        r
    }

    /// Rejects a type or attribute (written from `start` to here) whose expansion is too
    /// deep or too large, which aliases make possible with little text. Printed without
    /// aliases, it must still fit at the current nesting depth.
    pub(crate) fn check_weight(
        &mut self,
        weight: crate::weight::Weight,
        start: usize,
    ) -> PResult<()> {
        if self.depth.saturating_add(weight.depth) > MAX_NESTING || weight.size > MAX_EXPANDED_SIZE
        {
            let end = (self.tok.start as usize).max(start);
            return self.err_at(start..end, format!(
                "this type or attribute expands to {} levels and {} nodes; at most {MAX_NESTING} levels and {MAX_EXPANDED_SIZE} nodes are allowed",
                weight.depth, weight.size
            ));
        }
        Ok(())
    }

    /// Parses `elem` separated by commas until `close` (consumed). Handles the empty list.
    pub fn parse_comma_list_until(
        &mut self,
        close: Tok,
        what: &str,
        mut elem: impl FnMut(&mut Self) -> PResult<()>,
    ) -> PResult<()> {
        if self.try_consume(close) {
            return Ok(());
        }
        loop {
            elem(self)?;
            if self.try_consume(Tok::Comma) {
                continue;
            }
            return self.expect(close, what);
        }
    }

    // ----- locations -----

    /// A `file:line:col` location for byte offset `offset` of this file.
    pub(crate) fn loc_at(&mut self, offset: usize) -> AttrId {
        let offset = offset as u32;
        let starts = &self.line_starts;
        let mut line = self.line_cursor;
        if starts[line] > offset {
            line = starts.partition_point(|s| *s <= offset).saturating_sub(1);
        } else {
            while line + 1 < starts.len() && starts[line + 1] <= offset {
                line += 1;
            }
        }
        self.line_cursor = line;
        let col = offset - starts[line] + 1;
        let line = line as u32 + 1;
        let file = self.file_sym;
        self.ctx.file_loc(file, line, col)
    }

    /// Parses a string literal token into its unescaped text.
    pub fn parse_string(&mut self) -> PResult<String> {
        if self.tok.kind != Tok::String {
            return self.err_expected("string literal");
        }
        let text = self.tok_text();
        match lexer::unescape(&text[1..text.len() - 1]) {
            Some(s) => {
                self.bump();
                Ok(s)
            }
            None => self.err("invalid escape sequence or non-UTF-8 bytes in string literal"),
        }
    }

    /// Parses an optionally negative integer literal as i128.
    pub fn parse_integer(&mut self) -> PResult<i128> {
        let neg = self.try_consume(Tok::Minus);
        if self.tok.kind != Tok::Integer {
            return self.err_expected("integer literal");
        }
        let value = match parse_int_literal(self.tok_text()) {
            Some(v) => v,
            None => return self.err("integer literal is too large"),
        };
        self.bump();
        Ok(if neg { -value } else { value })
    }

    /// Parses an integer that must fit in `i64`.
    pub fn parse_i64(&mut self) -> PResult<i64> {
        let span = self.tok_span();
        let v = self.parse_integer()?;
        i64::try_from(v).or_else(|_| self.err_at(span, "integer does not fit in 64 bits"))
    }
}

/// Parses a decimal or `0x` hex literal (no sign) into an i128.
pub(crate) fn parse_int_literal(text: &str) -> Option<i128> {
    if let Some(hex) = text.strip_prefix("0x") {
        u128::from_str_radix(hex, 16)
            .ok()
            .and_then(|v| i128::try_from(v).ok())
    } else {
        text.parse::<i128>().ok()
    }
}
