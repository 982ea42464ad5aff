//! Reading a dialect file: the pest grammar (`grammar.pest`) and its translation into
//! declarations ([`super::decl`]), with every mistake reported as a diagnostic at its
//! span.
//!
//! Enum attributes and declared types and attributes are registered in the context as
//! soon as they are read, so that the ops below them can use them (as attribute kinds,
//! parameter kinds, constraints and defaults).

use std::ops::Range;

use acc_ir::context::{DeclaredDef, EnumAttrDef};
use acc_ir::diag::{DiagLoc, Diagnostic, FileId};
use acc_ir::{AttrKind, Context};
use pest::Parser as _;
use pest::iterators::Pair;

use super::constraint::{RankRange, ShapedKind, TypeConstraint, builtin_class};
use super::decl::*;

#[derive(pest_derive::Parser)]
#[grammar = "lang/grammar.pest"]
struct DialectGrammar;

pub(super) use self::Rule as GrammarRule;

/// A name written in a dialect file, with where it is written.
type Spanned = (String, Range<usize>);

/// An op (or class) being read: its declaration plus the names that can only be
/// resolved once all its items, its class's included, are known.
#[derive(Clone, Default)]
struct OpDraft {
    decl: OpDecl,
    /// Traits with arguments: kind and the named values, with spans.
    relations: Vec<(RelationKind, Vec<Spanned>)>,
    /// For each successor, the operand group it receives, by name.
    successor_operands: Vec<Option<Spanned>>,
}

/// Turns pest pairs into declarations, collecting errors.
struct Reader<'c> {
    ctx: &'c mut Context,
    file: FileId,
    errors: Vec<Diagnostic>,
    /// Named constraints of the dialect being read.
    constraints: Vec<(String, TypeConstraint)>,
    /// Classes of the dialect being read.
    classes: Vec<(String, OpDraft)>,
    /// The dialect being read.
    dialect: String,
}

/// What one file declares: its dialects and its rewrite patterns (still unresolved).
pub struct FileItems {
    /// The dialects, in file order.
    pub dialects: Vec<DialectDecl>,
    /// The patterns, in file order.
    pub patterns: Vec<super::pattern::PatternAst>,
    /// The targets, in file order, with the span of each name and their intrinsics
    /// (still unresolved).
    pub targets: Vec<TargetDecl>,
}

/// A target as read: the description without its intrinsics, the span of its name,
/// and its intrinsics as written.
pub struct TargetDecl {
    /// The description.
    pub target: acc_target::Target,
    /// Where its name is.
    pub name_span: Range<usize>,
    /// Its intrinsics, to compile once the file's ops are registered.
    pub intrinsics: Vec<super::pattern::IntrinsicAst>,
}

/// Reads the dialects and patterns declared in `text` (the contents of `file`): the
/// declarations and the errors found in them, or the syntax error that stopped the
/// reading.
pub fn read(
    ctx: &mut Context,
    file: FileId,
    text: &str,
) -> Result<(FileItems, Vec<Diagnostic>), Diagnostic> {
    let pairs = DialectGrammar::parse(Rule::file, text).map_err(|e| pest_error(file, text, e))?;
    check_expression_depth(file, pairs.clone())?;
    let mut reader = Reader {
        ctx,
        file,
        errors: Vec::new(),
        constraints: Vec::new(),
        classes: Vec::new(),
        dialect: String::new(),
    };
    let mut items = FileItems {
        dialects: Vec::new(),
        patterns: Vec::new(),
        targets: Vec::new(),
    };
    for pair in pairs.flatten() {
        match pair.as_rule() {
            Rule::dialect => items.dialects.push(reader.dialect(pair)),
            Rule::pattern => items.patterns.push(super::pattern::read_pattern(pair)),
            Rule::target => items.targets.push(reader.target(pair)),
            _ => {}
        }
    }
    Ok((items, reader.errors))
}

/// The deepest an expression's tree may be (its operators chained, through
/// parentheses): expressions are read, compiled, evaluated and dropped by recursion,
/// which a longer chain would take off the end of the stack.
const MAX_EXPRESSION_DEPTH: usize = 1000;

/// An error at the first expression whose tree would be deeper than
/// [`MAX_EXPRESSION_DEPTH`]. One walk of the parse tree: each `expr` or `product`
/// adds its operators (a left-leaning chain that deep) to the depth of the
/// expressions enclosing it.
fn check_expression_depth(
    file: FileId,
    pairs: pest::iterators::Pairs<'_, Rule>,
) -> Result<(), Diagnostic> {
    // The enclosing expressions: where each ends and the depth up to it.
    let mut open: Vec<(usize, usize)> = Vec::new();
    for pair in pairs.flatten() {
        if !matches!(pair.as_rule(), Rule::expr | Rule::product) {
            continue;
        }
        let at = span(&pair);
        while open.last().is_some_and(|(end, _)| *end <= at.start) {
            open.pop();
        }
        let operators = pair
            .clone()
            .into_inner()
            .filter(|p| matches!(p.as_rule(), Rule::add_op | Rule::mul_op))
            .count();
        let depth = open.last().map_or(0, |(_, d)| *d) + operators + 1;
        if depth > MAX_EXPRESSION_DEPTH {
            return Err(Diagnostic::error(
                DiagLoc::Span(file, at),
                format!(
                    "expression too deep: its operators nest {depth} levels, more than \
                     {MAX_EXPRESSION_DEPTH} (split it, or precompute a table)"
                ),
            ));
        }
        open.push((at.end, depth));
    }
    Ok(())
}

fn pest_error(file: FileId, text: &str, e: pest::error::Error<Rule>) -> Diagnostic {
    let range = match e.location {
        pest::error::InputLocation::Pos(p) => p..p,
        pest::error::InputLocation::Span((a, b)) => a..b,
    };
    let range = range.start.min(text.len())..range.end.min(text.len());
    let message = match &e.variant {
        pest::error::ErrorVariant::ParsingError { positives, .. } if !positives.is_empty() => {
            let names: Vec<String> = positives
                .iter()
                .map(|r| format!("{r:?}").replace('_', " "))
                .collect();
            format!(
                "syntax error in dialect definition: expected {}",
                names.join(" or ")
            )
        }
        _ => "syntax error in dialect definition".to_string(),
    };
    Diagnostic::error(DiagLoc::Span(file, range), message)
}

impl Reader<'_> {
    /// A `target NAME { ... }` block: its devices and kernels, each kernel's
    /// interface one acc knows and each interface implemented once.
    fn target(&mut self, pair: Pair<'_, Rule>) -> TargetDecl {
        let mut inner = pair.into_inner();
        let name = inner.next().map(|p| (p.as_str().to_string(), span(&p)));
        let (name, name_span) = name.unwrap_or_default();
        let mut t = acc_target::Target {
            name,
            ..Default::default()
        };
        let mut intrinsics: Vec<super::pattern::IntrinsicAst> = Vec::new();
        for item in inner {
            let at = span(&item);
            match item.as_rule() {
                Rule::summary | Rule::description => {
                    let text = item.into_inner().next().map(|p| unquote(p.as_str()));
                    if t.summary.is_empty() {
                        t.summary = text.unwrap_or_default();
                    }
                }
                Rule::pipeline_def => {
                    let text = item.into_inner().next().map(|p| unquote(p.as_str()));
                    if t.pipeline.is_some() {
                        self.error(
                            at.clone(),
                            "the target names its pipeline twice".to_string(),
                        );
                    }
                    t.pipeline = Some(acc_target::TargetPipeline {
                        text: text.unwrap_or_default(),
                        file: self.file,
                        span: at,
                    });
                }
                Rule::header_def => {
                    let text = item.into_inner().next().map(|p| unquote(p.as_str()));
                    let text = text.unwrap_or_default();
                    if !crate::hooks::hw::is_plain_c_string(&text) {
                        self.error(
                            at,
                            format!("header {text:?} is not a plain file name (printable characters, no quotes or angle brackets)"),
                        );
                    } else if !t.headers.contains(&text) {
                        t.headers.push(text);
                    }
                }
                Rule::device_def => {
                    let mut p = item.into_inner();
                    let name = p.next().map(|p| p.as_str().to_string()).unwrap_or_default();
                    let kind = p.next().map(|p| unquote(p.as_str())).unwrap_or_default();
                    let mut cycles = None;
                    let mut submit = None;
                    let mut compiler = None;
                    let mut vector = None;
                    let mut external = None;
                    let mut seen = Vec::new();
                    for part in p {
                        if seen.contains(&part.as_rule()) {
                            self.error(
                                span(&part),
                                format!("device '{name}': a clause given twice"),
                            );
                        }
                        seen.push(part.as_rule());
                        match part.as_rule() {
                            Rule::device_cycles => cycles = part.into_inner().next(),
                            Rule::device_vector => vector = part.into_inner().next(),
                            Rule::device_external => {
                                external = part.into_inner().next().map(|s| unquote(s.as_str()))
                            }
                            Rule::device_compiler => {
                                let mut q = part.into_inner().map(|s| unquote(s.as_str()));
                                compiler = Some(acc_target::Compiler {
                                    command: q.next().unwrap_or_default(),
                                    flags: q.next().unwrap_or_default(),
                                });
                            }
                            _ => submit = part.into_inner().next().map(|f| f.as_str().to_string()),
                        }
                    }
                    if let Some(c) = &compiler {
                        let printable = |t: &str| {
                            t.chars().all(|ch| ch == ' ' || ch.is_ascii_graphic())
                                && !t.contains("*/")
                        };
                        if c.command.trim().is_empty() || kind == "host" {
                            self.error(
                                at.clone(),
                                format!("device '{name}': `compiler` names the command building a programmable device's own C file (not empty, not on the host)"),
                            );
                        } else if !printable(&c.command) || !printable(&c.flags) {
                            self.error(
                                at.clone(),
                                format!("device '{name}': a compiler command and flags are printable characters on one line, without `*/` (the C file's first comment gives them)"),
                            );
                        } else if submit.is_none() {
                            self.error(
                                at.clone(),
                                format!("device '{name}': a programmable device needs `submit FUNCTION`, which starts its work (its code goes to its own C file, run by it)"),
                            );
                        }
                    }
                    if let Some(command) = &external {
                        let problem = if kind == "host" {
                            Some("the host's code is acc's own")
                        } else if command.trim().is_empty() || command.contains('\n') {
                            Some("the command is one line, not empty")
                        } else if command.contains("{output}") == command.contains("{object}") {
                            Some(
                                "the command names where it writes the C function, {output}, or its object file, {object}: one of them",
                            )
                        } else {
                            None
                        };
                        if let Some(problem) = problem {
                            self.error(
                                at.clone(),
                                format!("device '{name}': `external` names the command of a vendor compiler building its regions ({problem})"),
                            );
                        }
                    }
                    let runs_code = kind == "host" || compiler.is_some();
                    if submit.is_some() && kind == "host" {
                        self.error(
                            at.clone(),
                            format!("device '{name}': the host is not submitted work to (submit names a device's start function)"),
                        );
                    }
                    let cycles_per_op = match cycles.map(|c| c.as_str().parse::<i64>()) {
                        None => None,
                        Some(Ok(n)) if (0..=MAX_CYCLES_PER_OP).contains(&n) && runs_code => Some(n),
                        Some(Ok(n)) if runs_code => {
                            self.error(
                                at.clone(),
                                format!("device '{name}': cycles_per_op {n} is outside 0 to {MAX_CYCLES_PER_OP}"),
                            );
                            None
                        }
                        Some(Ok(_)) => {
                            self.error(
                                at.clone(),
                                format!("device '{name}': only the host and programmable devices (with a `compiler`) declare cycles_per_op (a device's calls cost what their intrinsics declare)"),
                            );
                            None
                        }
                        Some(Err(_)) => {
                            self.error(
                                at.clone(),
                                format!("device '{name}': cycles_per_op is out of range"),
                            );
                            None
                        }
                    };
                    let vector_bits = match vector.map(|v| v.as_str().parse::<i64>()) {
                        None => None,
                        Some(_) if compiler.is_none() => {
                            self.error(
                                at.clone(),
                                format!("device '{name}': only a programmable device (with a `compiler`) declares vector_bits (the vector types its compiler takes)"),
                            );
                            None
                        }
                        Some(Ok(n)) if crate::hooks::hw::valid_vector_bits(n) => {
                            u32::try_from(n).ok()
                        }
                        Some(_) => {
                            let range = crate::hooks::hw::VECTOR_BITS;
                            self.error(
                                at.clone(),
                                format!(
                                    "device '{name}': vector_bits is a power of two from {} to {}",
                                    range.start(),
                                    range.end()
                                ),
                            );
                            None
                        }
                    };
                    if kind.trim().is_empty() {
                        self.error(
                            at.clone(),
                            format!("device '{name}': its kind is empty (\"host\" for the processor running the program, else the device's kind, as \"npu\")"),
                        );
                    }
                    if kind == "host" && t.devices.iter().any(|d| d.kind == "host") {
                        self.error(
                            at.clone(),
                            format!("device '{name}': a target has one host, and it declares one already"),
                        );
                    }
                    if t.devices.iter().any(|d| d.name == name) {
                        self.error(at, format!("device '{name}' is declared twice"));
                    }
                    t.devices.push(acc_target::Device {
                        name,
                        kind,
                        cycles_per_op,
                        submit,
                        compiler,
                        vector_bits,
                        external,
                    });
                }
                Rule::memory_def => {
                    let mut p = item.into_inner();
                    let name = p.next().map(|p| p.as_str().to_string()).unwrap_or_default();
                    let size = p.next().map(|p| p.as_str().parse::<i64>());
                    let mut section = None;
                    let mut devices: Vec<String> = Vec::new();
                    for part in p {
                        if part.as_rule() == Rule::memory_section {
                            let text = part.into_inner().next().map(|s| unquote(s.as_str()));
                            let text = text.unwrap_or_default();
                            if !crate::hooks::hw::is_plain_c_string(&text) {
                                self.error(
                                    at.clone(),
                                    format!("memory '{name}': section {text:?} is not a plain section name (printable characters, no quotes)"),
                                );
                            }
                            section = Some(text);
                        } else {
                            devices.push(part.as_str().to_string());
                        }
                    }
                    let size = match size {
                        Some(Ok(n)) if n > 0 => n as u64,
                        _ => {
                            self.error(
                                at.clone(),
                                format!("memory '{name}' needs a positive size in bytes"),
                            );
                            0
                        }
                    };
                    if t.memories.iter().any(|m| m.name == name) {
                        self.error(at.clone(), format!("memory '{name}' is declared twice"));
                    }
                    for d in &devices {
                        if !t.devices.iter().any(|x| &x.name == d) {
                            self.error(
                                at.clone(),
                                format!("memory '{name}' names an undeclared device '{d}'"),
                            );
                        }
                    }
                    t.memories.push(acc_target::Memory {
                        name,
                        size,
                        devices,
                        section,
                    });
                }
                Rule::dma_def => {
                    if let Some(dma) = self.dma(item, &t) {
                        t.dmas.push(dma);
                    }
                }
                Rule::signal_def => self.signal(item, &mut t),
                Rule::kernel_def => {
                    let mut p = item.into_inner();
                    let symbol = p.next().map(|p| p.as_str().to_string()).unwrap_or_default();
                    let interface = p.next().map(|p| p.as_str().to_string()).unwrap_or_default();
                    let known = acc_target::HOST_INTERFACES
                        .iter()
                        .any(|(n, _)| *n == interface);
                    if !known {
                        let names: Vec<&str> = acc_target::HOST_INTERFACES
                            .iter()
                            .map(|(n, _)| *n)
                            .collect();
                        self.error(
                            at,
                            format!(
                                "unknown kernel interface '{interface}': acc's host lowering calls {}",
                                names.join(", ")
                            ),
                        );
                    } else if t.kernel(&interface).is_some() {
                        self.error(at, format!("two kernels implement '{interface}'"));
                    } else {
                        t.kernels.push(acc_target::Kernel { symbol, interface });
                    }
                }
                Rule::intrinsic_def | Rule::code_def => {
                    let ast = super::pattern::read_intrinsic(item);
                    let what = if ast.compiled { "code" } else { "intrinsic" };
                    match t.device(&ast.device.0) {
                        None => self.error(
                            ast.device.1.clone(),
                            format!(
                                "{what} '{}' runs on an undeclared device '{}'",
                                ast.name.0, ast.device.0
                            ),
                        ),
                        Some(d)
                            if ast.compiled
                                && d.compiler.is_none()
                                && d.external.is_none()
                                && d.kind != "host" =>
                        {
                            self.error(
                            ast.device.1.clone(),
                            format!(
                                "code '{}' runs on device '{}', which compiles no code of its own (give it `compiler \"CC\"` or `external \"COMMAND\"`)",
                                ast.name.0, ast.device.0
                            ),
                        )
                        }
                        Some(_) => {}
                    }
                    if let Some((memory, at)) = &ast.memory {
                        self.check_intrinsic_memory(&t, &ast.name.0, &ast.device.0, memory, at);
                    }
                    if intrinsics.iter().any(|i| i.name.0 == ast.name.0) {
                        self.error(
                            ast.name.1.clone(),
                            format!("{what} '{}' is declared twice", ast.name.0),
                        );
                    }
                    intrinsics.push(ast);
                }
                _ => {}
            }
        }
        TargetDecl {
            target: t,
            name_span,
            intrinsics,
        }
    }
}

impl Reader<'_> {
    /// A `dma START wait WAIT between(M1, M2, ...) setup N bytes_per_cycle N`
    /// declaration, its memories declared before it.
    fn dma(&mut self, item: Pair<'_, Rule>, t: &acc_target::Target) -> Option<acc_target::Dma> {
        let at = span(&item);
        let mut names = Vec::new();
        let mut numbers = Vec::new();
        for p in item.into_inner() {
            match p.as_rule() {
                Rule::ident => names.push((p.as_str().to_string(), span(&p))),
                _ => numbers.push((p.as_str().parse::<i64>().ok(), span(&p))),
            }
        }
        if names.len() < 4 || numbers.len() != 2 {
            return None;
        }
        let (start, wait) = (names[0].0.clone(), names[1].0.clone());
        let mut memories = Vec::new();
        for (m, m_at) in &names[2..] {
            if t.memory(m).is_none() {
                self.error(
                    m_at.clone(),
                    format!("dma '{start}' names an undeclared memory '{m}'"),
                );
            }
            memories.push(m.clone());
        }
        if t.dmas.iter().any(|d| d.start == start) {
            self.error(at, format!("dma '{start}' is declared twice"));
        }
        let setup = match numbers[0].0 {
            Some(n) if (0..=MAX_CYCLES).contains(&n) => n,
            _ => {
                self.error(
                    numbers[0].1.clone(),
                    format!("a DMA's setup is a number of cycles from 0 to {MAX_CYCLES}"),
                );
                0
            }
        };
        let bytes_per_cycle = match numbers[1].0 {
            Some(n) if (1..=MAX_CYCLES).contains(&n) => n,
            _ => {
                self.error(
                    numbers[1].1.clone(),
                    format!("a DMA moves from 1 to {MAX_CYCLES} bytes a cycle"),
                );
                1
            }
        };
        Some(acc_target::Dma {
            start,
            wait,
            memories,
            setup,
            bytes_per_cycle,
        })
    }

    /// A `signal FROM -> TO, ...` declaration: devices declared before it, each
    /// started by `submit` (the host waits for others anyway), pairs of two devices
    /// declared once.
    fn signal(&mut self, item: Pair<'_, Rule>, t: &mut acc_target::Target) {
        let names: Vec<(String, Range<usize>)> = item
            .into_inner()
            .map(|p| (p.as_str().to_string(), span(&p)))
            .collect();
        let Some(((from, _), to)) = names.split_first() else {
            return;
        };
        let mut ok = true;
        for (name, at) in &names {
            let problem = match t.device(name) {
                None => Some(format!("names an undeclared device '{name}'")),
                Some(d) if d.submit.is_none() => Some(format!(
                    "names device '{name}', which is not started by `submit` (the host runs its work where it is issued, or is the host)"
                )),
                Some(_) => None,
            };
            if let Some(problem) = problem {
                self.error(at.clone(), format!("signal: {problem}"));
                ok = false;
            }
        }
        for (name, at) in to {
            if name == from {
                self.error(
                    at.clone(),
                    format!(
                        "signal: '{name}' signals itself (a device runs its own work in order)"
                    ),
                );
            } else if t.signals(from, name) {
                self.error(
                    at.clone(),
                    format!("signal: '{from}' -> '{name}' is declared twice"),
                );
            } else if ok {
                t.signals.push((from.clone(), name.clone()));
            }
        }
    }

    /// An intrinsic's `memory NAME`: a declared memory its device reaches, which a DMA
    /// engine connects to the host's memory (so that `bufferize` can stage into it).
    fn check_intrinsic_memory(
        &mut self,
        t: &acc_target::Target,
        intrinsic: &str,
        device: &str,
        memory: &str,
        at: &Range<usize>,
    ) {
        let Some(m) = t.memory(memory) else {
            self.error(
                at.clone(),
                format!("intrinsic '{intrinsic}' names an undeclared memory '{memory}'"),
            );
            return;
        };
        if !m.devices.is_empty() && !m.devices.iter().any(|d| d == device) {
            self.error(
                at.clone(),
                format!("intrinsic '{intrinsic}' runs on '{device}', which memory '{memory}' does not list"),
            );
        }
        let host = t.host_memory().map(|h| h.name.clone());
        if host.as_deref() == Some(memory) {
            self.error(
                at.clone(),
                format!(
                    "intrinsic '{intrinsic}' names the host's memory '{memory}': `memory` is for a memory the host does not read from (leave it out)"
                ),
            );
            return;
        }
        match host {
            Some(h) if h != memory && t.dma_between(&h, memory).is_none() => self.error(
                at.clone(),
                format!(
                    "intrinsic '{intrinsic}' reads memory '{memory}', but no dma (declared before it) copies between '{h}' and '{memory}'"
                ),
            ),
            None => self.error(
                at.clone(),
                format!("intrinsic '{intrinsic}' names memory '{memory}', but the target has no host memory to stage from"),
            ),
            _ => {}
        }
    }
}

pub(super) fn span(p: &Pair<'_, Rule>) -> Range<usize> {
    p.as_span().start()..p.as_span().end()
}

/// The most cycles a host op may be declared to cost.
const MAX_CYCLES_PER_OP: i64 = 1_000_000;

/// The largest number of cycles (or bytes a cycle) a target may declare anywhere (a
/// DMA's setup, an intrinsic's cost): 2^40, so that the simulator's sums of them
/// cannot overflow.
pub(crate) const MAX_CYCLES: i64 = 1 << 40;

/// The contents of a string literal (escapes `\"`, `\\`, `\n`).
pub(super) fn unquote(s: &str) -> String {
    let inner = &s[1..s.len() - 1];
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some(other) => out.push(other),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The text of the first inner pair (an identifier or name).
fn first_text(pair: &Pair<'_, Rule>) -> String {
    pair.clone()
        .into_inner()
        .next()
        .map(|p| p.as_str().to_string())
        .unwrap_or_default()
}

impl Reader<'_> {
    fn error(&mut self, range: Range<usize>, message: impl Into<String>) {
        self.errors
            .push(Diagnostic::error(DiagLoc::Span(self.file, range), message));
    }

    fn dialect(&mut self, pair: Pair<'_, Rule>) -> DialectDecl {
        let mut inner = pair.into_inner();
        let name_pair = inner.next();
        let name_span = name_pair.as_ref().map(span).unwrap_or_default();
        let name = name_pair
            .map(|p| p.as_str().to_string())
            .unwrap_or_default();
        if self.ctx.is_dialect_registered(&name) {
            self.error(
                name_span.clone(),
                format!("dialect '{name}' is already loaded: a dialect file cannot redefine or extend it"),
            );
        }
        self.ctx.register_dialect(&name);
        self.dialect = name.clone();
        self.constraints.clear();
        self.classes.clear();
        let mut d = DialectDecl {
            name,
            ..Default::default()
        };
        for item in inner {
            match item.as_rule() {
                Rule::summary => d.summary = self.string_of(item),
                Rule::description => d.description = self.string_of(item),
                Rule::constraint_def => {
                    let mut parts = item.into_inner();
                    let (Some(n), Some(c)) = (parts.next(), parts.next()) else {
                        continue;
                    };
                    let name = n.as_str().to_string();
                    if self.constraints.iter().any(|(x, _)| *x == name) {
                        self.error(span(&n), format!("constraint '{name}' is defined twice"));
                    }
                    let constraint = self.constraint(c);
                    self.constraints.push((
                        name.clone(),
                        TypeConstraint::Named(name, Box::new(constraint)),
                    ));
                }
                Rule::enum_def => {
                    let sp = span(&item);
                    if let Some(e) = self.enum_def(item) {
                        let taken = d.enums.iter().any(|x| x.name == e.name)
                            || d.types.iter().chain(&d.attrs).any(|t| t.name == e.name);
                        if taken {
                            self.error(sp, format!("'{}' is declared twice", e.name));
                        }
                        self.ctx.register_enum_attr(&e.name, e.def.clone());
                        d.enums.push(e);
                    }
                }
                Rule::type_def | Rule::attr_def => {
                    let is_type = item.as_rule() == Rule::type_def;
                    let sp = span(&item);
                    let declared = self.declared_item(item);
                    let taken = d
                        .types
                        .iter()
                        .chain(&d.attrs)
                        .any(|t| t.name == declared.name)
                        || d.enums.iter().any(|e| e.name == declared.name);
                    if taken {
                        self.error(sp, format!("'{}' is declared twice", declared.name));
                    }
                    if is_type {
                        self.ctx
                            .register_declared_type(&declared.name, declared.def.clone());
                        d.types.push(declared);
                    } else {
                        self.ctx
                            .register_declared_attr(&declared.name, declared.def.clone());
                        d.attrs.push(declared);
                    }
                }
                Rule::class_def => {
                    let sp = span(&item);
                    let name = first_text(&item);
                    let mut inner = item.into_inner().skip(1).peekable();
                    let base = self.base_class(&mut inner);
                    let draft = self.op_items(base, inner);
                    if self.classes.iter().any(|(n, _)| *n == name) {
                        self.error(sp, format!("class '{name}' is defined twice"));
                    }
                    self.classes.push((name, draft));
                }
                Rule::op_def => {
                    let op = self.op(item);
                    if d.ops.iter().any(|o| o.name == op.name) {
                        self.error(
                            op.span.clone(),
                            format!("op '{}' is defined twice", op.name),
                        );
                    }
                    d.ops.push(op);
                }
                _ => {}
            }
        }
        d
    }

    fn string_of(&self, pair: Pair<'_, Rule>) -> String {
        pair.into_inner()
            .next()
            .map(|s| unquote(s.as_str()))
            .unwrap_or_default()
    }

    fn enum_def(&mut self, pair: Pair<'_, Rule>) -> Option<EnumItem> {
        let sp = span(&pair);
        let mut parts = pair.into_inner();
        let name = format!("{}.{}", self.dialect, parts.next()?.as_str());
        let flags = parts.next().is_some_and(|k| k.as_str() == "flags");
        let mut storage = None;
        let mut cases = Vec::new();
        let mut values = Vec::new();
        let mut separator = ",".to_string();
        for p in parts {
            match p.as_rule() {
                Rule::int_storage => storage = Some(if p.as_str() == "i32" { 32 } else { 64 }),
                Rule::enum_case => {
                    let case_span = span(&p);
                    let mut it = p.into_inner();
                    let case = it
                        .next()
                        .map(|c| c.as_str().to_string())
                        .unwrap_or_default();
                    if cases.contains(&case) {
                        self.error(case_span.clone(), format!("case '{case}' is listed twice"));
                    }
                    cases.push(case);
                    match it.next().map(|v| v.as_str().parse::<i64>()) {
                        Some(Ok(v)) => values.push(Some(v)),
                        Some(Err(_)) => {
                            self.error(case_span, "case value out of range");
                            values.push(None);
                        }
                        None => values.push(None),
                    }
                }
                Rule::separator => separator = self.string_of(p),
                _ => {}
            }
        }
        let int_storage = match storage {
            None if values.iter().any(Option::is_some) => {
                self.error(sp, format!("enum '{name}' gives case values but no storage type: write `enum i64 (case = 0, ...)`"));
                return None;
            }
            None => None,
            Some(_) if flags => {
                self.error(sp, format!("flags '{name}' cannot be stored as an integer"));
                return None;
            }
            Some(width) => {
                let values: Option<Vec<i64>> = values.into_iter().collect();
                let Some(values) = values else {
                    self.error(sp, format!("every case of '{name}' needs a value (`case = 0`), since it is stored as i{width}"));
                    return None;
                };
                if (1..values.len()).any(|i| values[..i].contains(&values[i])) {
                    self.error(sp, format!("two cases of '{name}' have the same value"));
                    return None;
                }
                Some((width, values))
            }
        };
        Some(EnumItem {
            name,
            def: EnumAttrDef {
                cases,
                flags,
                separator,
                int_storage,
            },
        })
    }

    fn declared_item(&mut self, pair: Pair<'_, Rule>) -> DeclaredItem {
        let mut parts = pair.into_inner();
        let name = format!(
            "{}.{}",
            self.dialect,
            parts.next().map(|p| p.as_str()).unwrap_or_default()
        );
        let mut item = DeclaredItem {
            name,
            def: DeclaredDef { params: Vec::new() },
            summary: String::new(),
            description: String::new(),
        };
        for p in parts {
            match p.as_rule() {
                Rule::params => {
                    for param in p.into_inner() {
                        let mut it = param.into_inner();
                        let (Some(n), Some(k)) = (it.next(), it.next()) else {
                            continue;
                        };
                        let pname = n.as_str().to_string();
                        if item.def.params.iter().any(|(x, _)| *x == pname) {
                            self.error(span(&n), format!("parameter '{pname}' is declared twice"));
                        }
                        if let Some(kind) = self.attr_kind(&k) {
                            item.def.params.push((pname, kind));
                        }
                    }
                }
                Rule::doc_body => {
                    for doc in p.into_inner() {
                        match doc.as_rule() {
                            Rule::summary => item.summary = self.string_of(doc),
                            Rule::description => item.description = self.string_of(doc),
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
        item
    }

    /// An attribute kind by name: a builtin kind, an enum or declared attribute of
    /// the dialect being read, or one of another dialect loaded before, qualified
    /// (`arith.fastmath`).
    fn attr_kind(&mut self, pair: &Pair<'_, Rule>) -> Option<AttrKind> {
        let word = pair.as_str();
        if let Some(k) = AttrKind::from_name(word) {
            return Some(k);
        }
        let full = if word.contains('.') {
            word.to_string()
        } else {
            format!("{}.{word}", self.dialect)
        };
        if self.ctx.enum_attr(&full).is_some() {
            return Some(AttrKind::Enum(full));
        }
        if self.ctx.declared_attr(&full).is_some() {
            return Some(AttrKind::Declared(full));
        }
        let names: Vec<&str> = AttrKind::NAMES.iter().map(|(n, _)| *n).collect();
        self.error(
            span(pair),
            format!(
                "unknown attribute kind '{word}': expected one of {}, or an attribute of dialect '{}' declared above",
                names.join(", "),
                self.dialect
            ),
        );
        None
    }

    fn op(&mut self, pair: Pair<'_, Rule>) -> OpDecl {
        let sp = span(&pair);
        let mut inner = pair.into_inner().peekable();
        let name = inner
            .next()
            .map(|p| p.as_str().to_string())
            .unwrap_or_default();
        let mut draft = self.base_class(&mut inner);
        draft.decl.name = format!("{}.{name}", self.dialect);
        draft.decl.span = sp;
        let draft = self.op_items(draft, inner);
        self.finish(draft)
    }

    /// The class named after `:` (a copy of its draft), or an empty draft.
    fn base_class<'i>(
        &mut self,
        inner: &mut std::iter::Peekable<impl Iterator<Item = Pair<'i, Rule>>>,
    ) -> OpDraft {
        let Some(class) = inner.next_if(|p| p.as_rule() == Rule::class_ref) else {
            return OpDraft::default();
        };
        let class_name = class.as_str();
        match self.classes.iter().find(|(n, _)| n == class_name) {
            Some((_, c)) => c.clone(),
            None => {
                self.error(
                    span(&class),
                    format!("unknown class '{class_name}': classes must be defined above the ops and classes that use them"),
                );
                OpDraft::default()
            }
        }
    }

    /// Applies op items to `draft`: each replaces what the class gave, except traits,
    /// which add to the class's.
    fn op_items<'i>(
        &mut self,
        mut draft: OpDraft,
        items: impl Iterator<Item = Pair<'i, Rule>>,
    ) -> OpDraft {
        for item in items {
            let op = &mut draft.decl;
            match item.as_rule() {
                Rule::summary => op.summary = self.string_of(item),
                Rule::description => op.description = self.string_of(item),
                Rule::traits => {
                    for t in item.into_inner() {
                        let mut parts = t.into_inner();
                        let Some(name_pair) = parts.next() else {
                            continue;
                        };
                        // The name's span: the trait's own would run over trailing space.
                        let tspan = span(&name_pair);
                        let tname = name_pair.as_str().to_string();
                        let args: Vec<(String, Range<usize>)> =
                            parts.map(|a| (a.as_str().to_string(), span(&a))).collect();
                        let relation = RelationKind::NAMES.iter().find(|(n, _)| *n == tname);
                        match (relation, args.is_empty()) {
                            (Some((_, kind)), false) => draft.relations.push((*kind, args)),
                            (Some(_), true) => self.error(tspan, format!("trait '{tname}' needs the operands and results it relates: {tname}(a, b)")),
                            (None, false) => self.error(tspan, format!("trait '{tname}' takes no arguments")),
                            (None, true) => draft.decl.traits.push((tname, tspan)),
                        }
                    }
                }
                Rule::operands => op.operands = item.into_inner().map(|v| self.value(v)).collect(),
                Rule::results => op.results = item.into_inner().map(|v| self.value(v)).collect(),
                Rule::attributes => {
                    let attrs: Vec<AttrDecl> = item
                        .into_inner()
                        .filter_map(|a| self.attribute(a))
                        .collect();
                    draft.decl.attributes = attrs;
                }
                Rule::regions => {
                    let mut regions = Vec::new();
                    for r in item.into_inner() {
                        let mut parts = r.into_inner();
                        let name = parts
                            .next()
                            .map(|p| p.as_str().to_string())
                            .unwrap_or_default();
                        let single_block = match parts.next() {
                            None => false,
                            Some(k) if k.as_str() == "single_block" => true,
                            Some(k) if k.as_str() == "any" => false,
                            Some(k) => {
                                self.error(span(&k), format!("unknown region kind '{}': expected 'single_block' or 'any'", k.as_str()));
                                false
                            }
                        };
                        regions.push(RegionDecl { name, single_block });
                    }
                    draft.decl.regions = regions;
                }
                Rule::successors => {
                    op.successors.clear();
                    draft.successor_operands.clear();
                    for s in item.into_inner() {
                        let mut parts = s.into_inner();
                        let name = parts
                            .next()
                            .map(|p| p.as_str().to_string())
                            .unwrap_or_default();
                        draft.decl.successors.push(SuccessorDecl {
                            name,
                            operands: None,
                        });
                        draft
                            .successor_operands
                            .push(parts.next().map(|g| (g.as_str().to_string(), span(&g))));
                    }
                }
                Rule::format => {
                    if let Some(s) = item.into_inner().next() {
                        op.format = Some((unquote(s.as_str()), span(&s)));
                    }
                }
                Rule::hook => {
                    let mut parts = item.into_inner();
                    let (Some(kind), Some(name)) = (parts.next(), parts.next()) else {
                        continue;
                    };
                    let value = Some((name.as_str().to_string(), span(&name)));
                    match kind.as_str() {
                        "verifier" => op.hooks.verifier = value,
                        "infer" => op.hooks.infer = value,
                        "folder" => op.hooks.folder = value,
                        "interpret" => op.hooks.interpret = value,
                        _ => op.hooks.syntax = value,
                    }
                }
                Rule::default_dialect => op.default_dialect = Some(first_text(&item)),
                _ => {}
            }
        }
        draft
    }

    /// Resolves the names a draft refers to and checks what needs the whole op.
    fn finish(&mut self, draft: OpDraft) -> OpDecl {
        let mut op = draft.decl;
        let mut seen: Vec<&str> = Vec::new();
        let names = op
            .operands
            .iter()
            .chain(&op.results)
            .map(|v| v.name.as_str())
            .chain(op.attributes.iter().map(|a| a.name.as_str()))
            .chain(op.regions.iter().map(|r| r.name.as_str()))
            .chain(op.successors.iter().map(|s| s.name.as_str()));
        let mut duplicate = None;
        for n in names {
            if seen.contains(&n) {
                duplicate = Some(n.to_string());
            }
            seen.push(n);
        }
        if let Some(n) = duplicate {
            self.error(
                op.span.clone(),
                format!("'{n}' names two things of op '{}'", op.name),
            );
        }
        for (kind, args) in draft.relations {
            let mut values = Vec::new();
            for (name, sp) in args {
                let found = op
                    .operands
                    .iter()
                    .position(|v| v.name == name)
                    .map(|i| (false, i))
                    .or_else(|| {
                        op.results
                            .iter()
                            .position(|v| v.name == name)
                            .map(|i| (true, i))
                    });
                match found {
                    Some(v) => values.push(v),
                    None => self.error(
                        sp,
                        format!("'{name}' is not an operand or result of '{}'", op.name),
                    ),
                }
            }
            if kind == RelationKind::ElementOf && values.len() != 2 {
                self.error(
                    op.span.clone(),
                    format!("ElementTypeOf relates exactly two values (a container, then its element), in '{}'", op.name),
                );
            }
            op.relations.push(Relation { kind, values });
        }
        for (i, group) in draft.successor_operands.into_iter().enumerate() {
            let Some((name, sp)) = group else { continue };
            match op.operands.iter().position(|v| v.name == name) {
                Some(g) if op.operands[g].quantifier == Quantifier::Variadic => {
                    op.successors[i].operands = Some(g)
                }
                _ => self.error(
                    sp,
                    format!(
                        "successor operands '{name}' must name a variadic operand group of '{}'",
                        op.name
                    ),
                ),
            }
        }
        op
    }

    fn value(&mut self, pair: Pair<'_, Rule>) -> ValueDecl {
        let mut parts = pair.into_inner();
        let name = parts
            .next()
            .map(|p| p.as_str().to_string())
            .unwrap_or_default();
        let mut quantifier = Quantifier::Single;
        let mut constraint = TypeConstraint::Any;
        for p in parts {
            match p.as_rule() {
                Rule::quantifier => {
                    quantifier = if p.as_str() == "variadic" {
                        Quantifier::Variadic
                    } else {
                        Quantifier::Optional
                    }
                }
                Rule::constraint => constraint = self.constraint(p),
                _ => {}
            }
        }
        ValueDecl {
            name,
            quantifier,
            constraint,
        }
    }

    fn attribute(&mut self, pair: Pair<'_, Rule>) -> Option<AttrDecl> {
        let sp = span(&pair);
        let mut optional = false;
        let mut name = String::new();
        let mut kind = None;
        let mut default_text = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::optional => optional = true,
                Rule::ident => name = p.as_str().to_string(),
                Rule::attr_kind_name => kind = Some(self.attr_kind(&p)?),
                Rule::string => default_text = Some((unquote(p.as_str()), span(&p))),
                _ => {}
            }
        }
        let kind = kind?;
        let mut default = None;
        if let Some((text, dspan)) = default_text {
            match acc_ir::parser::parse_attr_of_kind_str(self.ctx, &text, &kind) {
                Ok(a) if kind.matches(self.ctx, a) => default = Some(a),
                Ok(_) => self.error(
                    sp,
                    format!(
                        "the default of attribute '{name}' is not of kind '{}'",
                        kind.name()
                    ),
                ),
                Err((m, _)) => self.error(dspan, format!("invalid default value: {m}")),
            }
        }
        Some(AttrDecl {
            sym: self.ctx.sym(&name),
            name,
            optional: optional || default.is_some(),
            kind,
            default,
        })
    }

    fn constraint(&mut self, pair: Pair<'_, Rule>) -> TypeConstraint {
        let mut options: Vec<TypeConstraint> =
            pair.into_inner().map(|t| self.constraint_term(t)).collect();
        if options.len() == 1 {
            options.remove(0)
        } else {
            TypeConstraint::AnyOf(options)
        }
    }

    fn constraint_term(&mut self, pair: Pair<'_, Rule>) -> TypeConstraint {
        let sp = span(&pair);
        if pair.as_rule() == Rule::shaped_constraint {
            let mut parts = pair.into_inner();
            let kind = parts
                .next()
                .and_then(|k| ShapedKind::from_keyword(k.as_str()))
                .unwrap_or(ShapedKind::Tensor);
            let mut element = TypeConstraint::Any;
            let mut rank = None;
            for p in parts {
                match p.as_rule() {
                    Rule::constraint => element = self.constraint(p),
                    Rule::rank => rank = self.rank(p),
                    _ => {}
                }
            }
            return TypeConstraint::Shaped(kind, Box::new(element), rank);
        }
        let name = pair.as_str();
        if let Some((_, c)) = self.constraints.iter().find(|(n, _)| n == name) {
            return c.clone();
        }
        let full = format!("{}.{name}", self.dialect);
        if let Some(def) = self.ctx.declared_type(&full) {
            if !def.params.is_empty() {
                return TypeConstraint::Declared(full);
            }
            // A type without parameters is one type: the format need not write it.
            let (dialect, name) = (self.ctx.sym(&self.dialect), self.ctx.sym(name));
            return TypeConstraint::Exact(self.ctx.intern_type(acc_ir::TypeData::Declared {
                dialect,
                name,
                params: Box::new([]),
            }));
        }
        if let Some(c) = builtin_class(name) {
            return c;
        }
        match acc_ir::parser::parse_type_str(self.ctx, name) {
            Ok(t) => TypeConstraint::Exact(t),
            Err(_) => {
                self.error(sp, format!(
                    "unknown type constraint '{name}': not a constraint or type of this dialect, a builtin class (AnyType, AnyInteger, AnySignlessInteger, AnyFloat, AnyQuantized, tensor, ranked_tensor, memref, vector) or a type"
                ));
                TypeConstraint::Any
            }
        }
    }

    fn rank(&mut self, pair: Pair<'_, Rule>) -> Option<RankRange> {
        let sp = span(&pair);
        let mut min = None;
        let mut max = None;
        let mut open = false;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::rank_to => open = true,
                Rule::int => {
                    let v = p.as_str().parse::<u32>().ok();
                    if open {
                        max = v;
                    } else {
                        min = v;
                    }
                    if v.is_none() {
                        self.error(span(&p), "a rank must be a small non-negative integer");
                    }
                }
                _ => {}
            }
        }
        let min = min?;
        let max = if open { max } else { Some(min) };
        if max.is_some_and(|m| m < min) {
            self.error(sp, "empty rank range");
            return None;
        }
        Some(RankRange { min, max })
    }
}
