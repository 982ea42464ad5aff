//! The lexer of the textual IR: bytes in, tokens with byte spans out.
//!
//! Invariant: token spans always lie on UTF-8 character boundaries of the source (every
//! token starts and ends on an ASCII byte, except strings, which end on `"`). Unknown
//! bytes become [`Tok::Error`] tokens; the lexer itself never fails.

/// Token kinds.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Tok {
    /// End of input.
    Eof,
    /// A byte sequence that is no token.
    Error,
    /// `foo`, `foo.bar`, `i32`, `x4xf32`.
    BareIdent,
    /// `%name`, `%0`.
    ValueId,
    /// `^bb0`.
    CaretId,
    /// `@name` or `@"quoted"`.
    AtId,
    /// `#name` (attribute alias or dialect attribute).
    HashId,
    /// `!name` (type alias or dialect type).
    BangId,
    /// Decimal or `0x` hexadecimal integer (no sign).
    Integer,
    /// Decimal float literal (no sign).
    Float,
    /// `"..."`.
    String,
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `[`
    LSquare,
    /// `]`
    RSquare,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `<`
    Less,
    /// `>`
    Greater,
    /// `,`
    Comma,
    /// `:`
    Colon,
    /// `::`
    ColonColon,
    /// `=`
    Equal,
    /// `->`
    Arrow,
    /// `?`
    Question,
    /// `*`
    Star,
    /// `+`
    Plus,
    /// `-`
    Minus,
    /// `{-#`
    FileMetadataBegin,
    /// `#-}`
    FileMetadataEnd,
}

/// A token: kind and byte range.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Token {
    /// Kind.
    pub kind: Tok,
    /// Start offset.
    pub start: u32,
    /// End offset (exclusive).
    pub end: u32,
}

/// A cursor over the source that produces tokens on demand.
pub struct Lexer<'s> {
    src: &'s [u8],
    pos: usize,
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}
fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b == b'.'
}
/// Characters allowed in `%`, `^`, `#` and `!` suffix identifiers.
pub(crate) fn is_suffix_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b == b'.' || b == b'-'
}

impl<'s> Lexer<'s> {
    /// A lexer at the start of `src`.
    pub fn new(src: &'s str) -> Lexer<'s> {
        Lexer {
            src: src.as_bytes(),
            pos: 0,
        }
    }

    /// Moves the cursor to `pos` (a character boundary).
    pub fn reset(&mut self, pos: usize) {
        self.pos = pos.min(self.src.len());
    }

    /// Skips whitespace and `//` comments.
    pub fn skip_trivia(&mut self) {
        loop {
            while self.pos < self.src.len() && self.src[self.pos].is_ascii_whitespace() {
                self.pos += 1;
            }
            if self.src[self.pos..].starts_with(b"//") {
                match self.src[self.pos..].iter().position(|&b| b == b'\n') {
                    Some(n) => self.pos += n + 1,
                    None => self.pos = self.src.len(),
                }
            } else {
                return;
            }
        }
    }

    fn peek_at(&self, i: usize) -> u8 {
        self.src.get(i).copied().unwrap_or(0)
    }

    /// Lexes the next token.
    pub fn next_token(&mut self) -> Token {
        self.skip_trivia();
        let start = self.pos;
        let kind = self.lex_kind();
        Token {
            kind,
            start: start as u32,
            end: self.pos as u32,
        }
    }

    fn lex_kind(&mut self) -> Tok {
        let Some(&c) = self.src.get(self.pos) else {
            return Tok::Eof;
        };
        let start = self.pos;
        self.pos += 1;
        match c {
            b'(' => Tok::LParen,
            b')' => Tok::RParen,
            b'[' => Tok::LSquare,
            b']' => Tok::RSquare,
            b'{' => {
                if self.src[self.pos..].starts_with(b"-#") {
                    self.pos += 2;
                    Tok::FileMetadataBegin
                } else {
                    Tok::LBrace
                }
            }
            b'}' => Tok::RBrace,
            b'<' => Tok::Less,
            b'>' => Tok::Greater,
            b',' => Tok::Comma,
            b'=' => Tok::Equal,
            b'?' => Tok::Question,
            b'*' => Tok::Star,
            b'+' => Tok::Plus,
            b':' => {
                if self.peek_at(self.pos) == b':' {
                    self.pos += 1;
                    Tok::ColonColon
                } else {
                    Tok::Colon
                }
            }
            b'-' => {
                if self.peek_at(self.pos) == b'>' {
                    self.pos += 1;
                    Tok::Arrow
                } else {
                    Tok::Minus
                }
            }
            b'"' => self.lex_string(),
            b'%' => self.lex_suffix(Tok::ValueId),
            b'^' => self.lex_suffix(Tok::CaretId),
            b'#' => {
                if self.src[self.pos..].starts_with(b"-}") {
                    self.pos += 2;
                    Tok::FileMetadataEnd
                } else {
                    self.lex_suffix(Tok::HashId)
                }
            }
            b'!' => self.lex_suffix(Tok::BangId),
            b'@' => {
                if self.peek_at(self.pos) == b'"' {
                    self.pos += 1;
                    match self.lex_string() {
                        Tok::String => Tok::AtId,
                        other => other,
                    }
                } else if is_ident_start(self.peek_at(self.pos)) {
                    while is_ident_char(self.peek_at(self.pos)) || self.peek_at(self.pos) == b'-' {
                        self.pos += 1;
                    }
                    Tok::AtId
                } else {
                    Tok::Error
                }
            }
            b'0'..=b'9' => self.lex_number(start),
            c if is_ident_start(c) => {
                while is_ident_char(self.peek_at(self.pos)) {
                    self.pos += 1;
                }
                Tok::BareIdent
            }
            _ => {
                // Skip the whole UTF-8 character so spans stay on boundaries.
                while self.pos < self.src.len() && (self.src[self.pos] & 0xC0) == 0x80 {
                    self.pos += 1;
                }
                Tok::Error
            }
        }
    }

    fn lex_suffix(&mut self, kind: Tok) -> Tok {
        let begin = self.pos;
        while is_suffix_char(self.peek_at(self.pos)) {
            self.pos += 1;
        }
        if self.pos == begin { Tok::Error } else { kind }
    }

    fn lex_string(&mut self) -> Tok {
        while self.pos < self.src.len() {
            match self.src[self.pos] {
                b'"' => {
                    self.pos += 1;
                    return Tok::String;
                }
                b'\\' => self.pos += 2,
                b'\n' => return Tok::Error,
                _ => self.pos += 1,
            }
        }
        self.pos = self.src.len();
        Tok::Error
    }

    fn lex_number(&mut self, start: usize) -> Tok {
        if self.src[start] == b'0'
            && self.peek_at(self.pos) == b'x'
            && self.peek_at(self.pos + 1).is_ascii_hexdigit()
        {
            self.pos += 1;
            while self.peek_at(self.pos).is_ascii_hexdigit() {
                self.pos += 1;
            }
            return Tok::Integer;
        }
        while self.peek_at(self.pos).is_ascii_digit() {
            self.pos += 1;
        }
        if self.peek_at(self.pos) != b'.' {
            return Tok::Integer;
        }
        self.pos += 1;
        while self.peek_at(self.pos).is_ascii_digit() {
            self.pos += 1;
        }
        let e = self.peek_at(self.pos);
        if e == b'e' || e == b'E' {
            let mut p = self.pos + 1;
            if matches!(self.peek_at(p), b'+' | b'-') {
                p += 1;
            }
            if self.peek_at(p).is_ascii_digit() {
                while self.peek_at(p).is_ascii_digit() {
                    p += 1;
                }
                self.pos = p;
            }
        }
        Tok::Float
    }
}

/// Decodes the escapes of a string literal's body (without quotes): `\\`, `\"`, `\n`,
/// `\t` and `\XX` hex bytes. Returns `None` when an escape is malformed or the result is
/// not UTF-8.
pub fn unescape(body: &str) -> Option<String> {
    if !body.contains('\\') {
        return Some(body.to_string());
    }
    let bytes = body.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            out.push(bytes[i]);
            i += 1;
            continue;
        }
        let next = *bytes.get(i + 1)?;
        match next {
            b'\\' | b'"' => out.push(next),
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            _ => {
                let hex = bytes.get(i + 1..i + 3)?;
                if !hex.iter().all(u8::is_ascii_hexdigit) {
                    return None;
                }
                out.push(u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?);
                i += 3;
                continue;
            }
        }
        i += 2;
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<Tok> {
        let mut lx = Lexer::new(src);
        let mut out = Vec::new();
        loop {
            let t = lx.next_token();
            if t.kind == Tok::Eof {
                return out;
            }
            out.push(t.kind);
        }
    }

    #[test]
    fn lexes_generic_op() {
        use Tok::*;
        assert_eq!(
            kinds(r#"%0:2 = "d.op"(%a) {x = 1.5e-3} : (i32) -> f32 // c"#),
            vec![
                ValueId, Colon, Integer, Equal, String, LParen, ValueId, RParen, LBrace, BareIdent,
                Equal, Float, RBrace, Colon, LParen, BareIdent, RParen, Arrow, BareIdent
            ]
        );
        assert_eq!(
            kinds("{-# #-} @\"a b\" @f::@g ^bb1 #map !t 0x1F -"),
            vec![
                FileMetadataBegin,
                FileMetadataEnd,
                AtId,
                AtId,
                ColonColon,
                AtId,
                CaretId,
                HashId,
                BangId,
                Integer,
                Minus
            ]
        );
    }

    #[test]
    fn errors_are_tokens() {
        assert_eq!(kinds("\"open"), vec![Tok::Error]);
        assert_eq!(kinds("é"), vec![Tok::Error]);
        assert_eq!(kinds("% "), vec![Tok::Error]);
    }

    #[test]
    fn unescapes() {
        assert_eq!(unescape(r#"a\"b\\c\0A\n"#).unwrap(), "a\"b\\c\n\n");
        assert_eq!(unescape(r"\Z"), None);
    }
}
