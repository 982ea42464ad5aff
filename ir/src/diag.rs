//! Diagnostics: errors, warnings, remarks and notes with a source position, rendered
//! with codespan-reporting as `file:line:col`, the source line and a caret.
//!
//! A diagnostic points either at a byte range of a loaded file ([`DiagLoc::Span`]) or at
//! a location attribute ([`DiagLoc::Loc`], used by the verifier and passes); the
//! [`SourceMap`] turns the latter back into a span when the file is loaded.

use std::ops::Range;
use std::sync::atomic::{AtomicU8, Ordering};

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label, Severity as CsSeverity};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{self, termcolor};

use crate::attrs::{AttrData, AttrId, Location};
use crate::context::Context;

/// How serious a diagnostic is.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Severity {
    /// Fails the run.
    Error,
    /// Reported, does not fail.
    Warning,
    /// Informational (optimization remarks).
    Remark,
    /// Attached to another diagnostic.
    Note,
}

impl Severity {
    /// The word used in `expected-<word>` and in plain output.
    pub fn word(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Remark => "remark",
            Severity::Note => "note",
        }
    }
}

/// How [`SourceMap::render`] writes diagnostics: one setting for the whole process,
/// chosen once by a tool's `--diagnostics-format` option.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum DiagnosticsFormat {
    /// codespan-reporting's rendering: the position, the source line and a caret,
    /// notes as labels (the default, for people).
    Codespan,
    /// One `file:line:col: severity: message` line per diagnostic and per note, as
    /// GCC, Clang and mlir-opt print (for editors, CI annotators and scripts).
    Gnu,
}

static FORMAT: AtomicU8 = AtomicU8::new(0);

impl DiagnosticsFormat {
    /// The format named `name` (`codespan` or `gnu`).
    pub fn from_name(name: &str) -> Option<DiagnosticsFormat> {
        match name {
            "codespan" => Some(DiagnosticsFormat::Codespan),
            "gnu" => Some(DiagnosticsFormat::Gnu),
            _ => None,
        }
    }

    /// Makes this the format of every later [`SourceMap::render`] in the process.
    pub fn set(self) {
        FORMAT.store(self as u8, Ordering::Relaxed);
    }

    /// The process's format.
    pub fn current() -> DiagnosticsFormat {
        match FORMAT.load(Ordering::Relaxed) {
            1 => DiagnosticsFormat::Gnu,
            _ => DiagnosticsFormat::Codespan,
        }
    }
}

/// Index of a file in a [`SourceMap`].
pub type FileId = usize;

/// Where a diagnostic points.
#[derive(Clone, Debug, PartialEq)]
pub enum DiagLoc {
    /// A byte range in a loaded file.
    Span(FileId, Range<usize>),
    /// A location attribute.
    Loc(AttrId),
    /// Nowhere in particular.
    Unknown,
}

/// One diagnostic with its notes.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    /// Severity.
    pub severity: Severity,
    /// Position.
    pub loc: DiagLoc,
    /// Message, without a trailing period.
    pub message: String,
    /// Attached notes.
    pub notes: Vec<Diagnostic>,
}

impl Diagnostic {
    /// An error at `loc`.
    pub fn error(loc: DiagLoc, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            loc,
            message: message.into(),
            notes: Vec::new(),
        }
    }
    /// A diagnostic of any severity.
    pub fn new(severity: Severity, loc: DiagLoc, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity,
            loc,
            message: message.into(),
            notes: Vec::new(),
        }
    }
}

/// The files diagnostics can point into.
#[derive(Default)]
pub struct SourceMap {
    files: SimpleFiles<String, String>,
    names: Vec<String>,
    line_starts: Vec<Vec<usize>>,
}

/// A resolved position: file name, 1-based line and column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineCol {
    /// File name.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
}

impl SourceMap {
    /// An empty map.
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    /// Adds a file and returns its ID.
    pub fn add(&mut self, name: &str, text: String) -> FileId {
        let starts = std::iter::once(0)
            .chain(
                text.bytes()
                    .enumerate()
                    .filter(|(_, b)| *b == b'\n')
                    .map(|(i, _)| i + 1),
            )
            .collect();
        self.line_starts.push(starts);
        self.names.push(name.to_string());
        self.files.add(name.to_string(), text)
    }

    /// Adds a file given as raw bytes. Text that is not UTF-8 is added with each invalid
    /// sequence replaced by U+FFFD (so that positions before the first one are
    /// unchanged), and the second result is an error pointing at the first invalid byte.
    pub fn add_bytes(&mut self, name: &str, bytes: Vec<u8>) -> (FileId, Option<Diagnostic>) {
        match String::from_utf8(bytes) {
            Ok(text) => (self.add(name, text), None),
            Err(e) => {
                let offset = e.utf8_error().valid_up_to();
                let byte = e.as_bytes()[offset];
                let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
                let file = self.add(name, text);
                // The replacement character is 3 bytes long in the added text.
                let diag = Diagnostic::error(
                    DiagLoc::Span(file, offset..offset + '\u{FFFD}'.len_utf8()),
                    format!("invalid UTF-8 byte 0x{byte:02X}: input files must be UTF-8"),
                );
                (file, Some(diag))
            }
        }
    }

    /// The text of a file.
    pub fn text(&self, file: FileId) -> &str {
        self.files
            .get(file)
            .map(|f| f.source().as_str())
            .unwrap_or("")
    }

    /// The name of a file.
    pub fn name(&self, file: FileId) -> &str {
        &self.names[file]
    }

    /// Line and column (1-based, column in bytes) of a byte offset.
    pub fn line_col(&self, file: FileId, offset: usize) -> LineCol {
        let starts = &self.line_starts[file];
        let line = starts.partition_point(|s| *s <= offset).max(1);
        let col = offset - starts[line - 1] + 1;
        LineCol {
            file: self.names[file].clone(),
            line: line as u32,
            col: col as u32,
        }
    }

    /// The byte offset of a 1-based line and column in the file named `name`.
    fn offset_of(&self, name: &str, line: u32, col: u32) -> Option<(FileId, usize)> {
        let file = self.names.iter().rposition(|n| n == name)?;
        let start = *self.line_starts[file].get((line as usize).checked_sub(1)?)?;
        let len = self.text(file).len();
        Some((file, (start + (col as usize).saturating_sub(1)).min(len)))
    }

    /// Resolves a diagnostic location to a position, when it has one.
    pub fn resolve(&self, ctx: &Context, loc: &DiagLoc) -> Option<LineCol> {
        match loc {
            DiagLoc::Span(file, range) => Some(self.line_col(*file, range.start)),
            DiagLoc::Loc(attr) => file_line_col(ctx, *attr),
            DiagLoc::Unknown => None,
        }
    }

    /// The byte range a diagnostic location covers, snapped to character boundaries
    /// of the file (locations written by users may point anywhere).
    fn span_of(&self, ctx: &Context, loc: &DiagLoc) -> Option<(FileId, Range<usize>)> {
        let (file, range) = match loc {
            DiagLoc::Span(f, r) => (*f, r.clone()),
            DiagLoc::Loc(attr) => {
                let lc = file_line_col(ctx, *attr)?;
                let (file, start) = self.offset_of(&lc.file, lc.line, lc.col)?;
                let start = floor_boundary(self.text(file), start);
                let rest = &self.text(file)[start..];
                // Underline the token at the position: up to a space or an opening bracket.
                let len = rest
                    .char_indices()
                    .find(|&(i, c)| i > 0 && (c.is_whitespace() || c == '(' || c == '<'))
                    .map(|(i, _)| i)
                    .unwrap_or(rest.len());
                (file, start..start + len)
            }
            DiagLoc::Unknown => return None,
        };
        let text = self.text(file);
        let start = floor_boundary(text, range.start);
        let end = floor_boundary(text, range.end.max(start));
        Some((file, start..end))
    }

    fn to_codespan(&self, ctx: &Context, d: &Diagnostic) -> CsDiagnostic<FileId> {
        let severity = match d.severity {
            Severity::Error => CsSeverity::Error,
            Severity::Warning => CsSeverity::Warning,
            Severity::Remark => CsSeverity::Help,
            Severity::Note => CsSeverity::Note,
        };
        let mut out = CsDiagnostic::new(severity);
        let mut message = d.message.clone();
        match self.span_of(ctx, &d.loc) {
            Some((file, range)) => out.labels.push(Label::primary(file, range)),
            None => {
                if let Some(lc) = self.resolve(ctx, &d.loc) {
                    message = format!("{}:{}:{}: {}", lc.file, lc.line, lc.col, message);
                }
            }
        }
        for note in &d.notes {
            match self.span_of(ctx, &note.loc) {
                Some((file, range)) => out
                    .labels
                    .push(Label::secondary(file, range).with_message(&note.message)),
                None => out.notes.push(note.message.clone()),
            }
        }
        out.with_message(message)
    }

    /// Renders diagnostics to a string (no colour), in the process's
    /// [`DiagnosticsFormat`].
    pub fn render(&self, ctx: &Context, diags: &[Diagnostic]) -> String {
        if DiagnosticsFormat::current() == DiagnosticsFormat::Gnu {
            return self.render_gnu(ctx, diags);
        }
        let mut buffer = termcolor::Buffer::no_color();
        let config = term::Config::default();
        for d in diags {
            let cs = self.to_codespan(ctx, d);
            if term::emit_to_write_style(&mut buffer, &config, &self.files, &cs).is_err() {
                buffer.clear();
                return diags
                    .iter()
                    .map(|d| format!("{}: {}\n", d.severity.word(), d.message))
                    .collect();
            }
        }
        String::from_utf8_lossy(buffer.as_slice()).into_owned()
    }
}

impl SourceMap {
    /// Renders diagnostics as `file:line:col: severity: message` lines, each note on a
    /// line of its own after its diagnostic (`severity: message` where there is no
    /// position).
    pub fn render_gnu(&self, ctx: &Context, diags: &[Diagnostic]) -> String {
        let mut out = String::new();
        for d in diags {
            for one in std::iter::once(d).chain(&d.notes) {
                if let Some(lc) = self.resolve(ctx, &one.loc) {
                    out.push_str(&format!("{}:{}:{}: ", lc.file, lc.line, lc.col));
                }
                // A message of several lines stays one record: continuation lines
                // are indented, as GCC does.
                let message = one.message.replace('\n', "\n  ");
                out.push_str(&format!("{}: {message}\n", one.severity.word()));
            }
        }
        out
    }
}

/// The largest character boundary of `text` at or below `offset` (clamped to its length).
fn floor_boundary(text: &str, offset: usize) -> usize {
    let mut i = offset.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The innermost `file:line:col` of a location attribute, looking through names,
/// call sites (the callee) and fused locations (the first that has one).
pub fn file_line_col(ctx: &Context, loc: AttrId) -> Option<LineCol> {
    let mut current = loc;
    for _ in 0..64 {
        match ctx.attr_data(current) {
            AttrData::Location(Location::FileLineCol {
                file, line, col, ..
            }) => {
                return Some(LineCol {
                    file: ctx.str(*file).to_string(),
                    line: *line,
                    col: *col,
                });
            }
            AttrData::Location(Location::Name { child: Some(c), .. }) => current = *c,
            AttrData::Location(Location::CallSite { callee, .. }) => current = *callee,
            AttrData::Location(Location::Fused { locs, .. }) => {
                return locs.iter().find_map(|l| file_line_col(ctx, *l));
            }
            _ => return None,
        }
    }
    None
}
