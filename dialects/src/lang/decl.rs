//! Reading a dialect file: the pest grammar (`grammar.pest`) and its translation into
//! op declarations, with every mistake reported as a diagnostic at its span.

use std::ops::Range;

use acc_ir::attrs::{AttrData, AttrId};
use acc_ir::diag::{DiagLoc, Diagnostic, FileId};
use acc_ir::{Context, TypeData};
use pest::Parser as _;
use pest::iterators::Pair;

use super::constraint::{ShapedKind, TypeConstraint, builtin_class};

#[derive(pest_derive::Parser)]
#[grammar = "lang/grammar.pest"]
struct DialectGrammar;

/// How many values an operand or result declaration stands for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Quantifier {
    /// Exactly one.
    Single,
    /// Zero or one.
    Optional,
    /// Any number.
    Variadic,
}

/// A declared operand or result.
#[derive(Clone, Debug)]
pub struct ValueDecl {
    /// Its name (used in the format and in messages).
    pub name: String,
    /// How many values.
    pub quantifier: Quantifier,
    /// What types they may have.
    pub constraint: TypeConstraint,
}

/// The kinds of attributes a declaration can require.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AttrKind {
    /// Any attribute.
    Any,
    /// An integer attribute of this many bits (`i1` is `bool`), or of `index`.
    Int(Option<u32>),
    /// A float attribute of 32 or 64 bits.
    Float(u32),
    /// A string.
    String,
    /// A unit attribute (a flag).
    Unit,
    /// A type.
    Type,
    /// A symbol reference.
    Symbol,
    /// An array of attributes.
    Array,
    /// A dictionary.
    Dict,
    /// Dense elements (or a dense resource).
    Dense,
    /// A dense array of integers of this width.
    IntArray(u32),
    /// An affine map.
    AffineMap,
    /// An enum attribute of the dialect, by full name (`arith.overflow`).
    Enum(String),
}

impl AttrKind {
    const NAMES: [(&'static str, AttrKind); 18] = [
        ("any", AttrKind::Any),
        ("bool", AttrKind::Int(Some(1))),
        ("i8", AttrKind::Int(Some(8))),
        ("i16", AttrKind::Int(Some(16))),
        ("i32", AttrKind::Int(Some(32))),
        ("i64", AttrKind::Int(Some(64))),
        ("index", AttrKind::Int(None)),
        ("f32", AttrKind::Float(32)),
        ("f64", AttrKind::Float(64)),
        ("string", AttrKind::String),
        ("unit", AttrKind::Unit),
        ("type", AttrKind::Type),
        ("symbol", AttrKind::Symbol),
        ("array", AttrKind::Array),
        ("dict", AttrKind::Dict),
        ("dense", AttrKind::Dense),
        ("i64_array", AttrKind::IntArray(64)),
        ("affine_map", AttrKind::AffineMap),
    ];

    /// The builtin kind named `name`.
    pub fn from_name(name: &str) -> Option<AttrKind> {
        Self::NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, k)| k.clone())
    }

    /// The name of the kind.
    pub fn name(&self) -> String {
        match self {
            AttrKind::Enum(full) => full
                .split_once('.')
                .map(|(_, n)| n)
                .unwrap_or(full)
                .to_string(),
            _ => Self::NAMES
                .iter()
                .find(|(_, k)| k == self)
                .map(|(n, _)| n.to_string())
                .unwrap_or_default(),
        }
    }

    /// The type of the numbers of this kind, when it is a number kind.
    pub fn number_type(&self, ctx: &mut Context) -> Option<acc_ir::TypeId> {
        match *self {
            AttrKind::Int(Some(w)) => Some(ctx.int_type(w)),
            AttrKind::Int(None) => Some(ctx.index_type()),
            AttrKind::Float(32) => Some(ctx.float_type(acc_ir::FloatKind::F32)),
            AttrKind::Float(_) => Some(ctx.float_type(acc_ir::FloatKind::F64)),
            _ => None,
        }
    }

    /// True when `attr` is of this kind.
    pub fn matches(&self, ctx: &Context, attr: AttrId) -> bool {
        let data = ctx.attr_data(attr);
        match *self {
            AttrKind::Any => true,
            AttrKind::Int(width) => match data {
                AttrData::Integer { ty, .. } => match (width, ctx.type_data(*ty)) {
                    (None, TypeData::Index) => true,
                    (Some(w), TypeData::Integer { width, .. }) => *width == w,
                    _ => false,
                },
                _ => false,
            },
            AttrKind::Float(w) => {
                matches!(data, AttrData::Float { ty, .. } if matches!(ctx.type_data(*ty), TypeData::Float(k) if k.width() == w))
            }
            AttrKind::String => matches!(data, AttrData::String { ty: None, .. }),
            AttrKind::Unit => matches!(data, AttrData::Unit),
            AttrKind::Type => matches!(data, AttrData::Type(_)),
            AttrKind::Symbol => matches!(data, AttrData::SymbolRef { .. }),
            AttrKind::Array => matches!(data, AttrData::Array(_)),
            AttrKind::Dict => matches!(data, AttrData::Dictionary(_)),
            AttrKind::Dense => matches!(
                data,
                AttrData::DenseElements { .. } | AttrData::DenseResource { .. }
            ),
            AttrKind::IntArray(w) => matches!(data, AttrData::DenseArray { element, .. }
                if matches!(ctx.type_data(*element), TypeData::Integer { width, .. } if *width == w)),
            AttrKind::AffineMap => matches!(data, AttrData::AffineMap(_)),
            AttrKind::Enum(ref full) => match data {
                AttrData::Dialect { dialect, body, .. } => {
                    let (d, n) = full.split_once('.').unwrap_or((full, ""));
                    ctx.str(*dialect) == d
                        && ctx
                            .str(*body)
                            .strip_prefix('.')
                            .and_then(|b| b.strip_prefix(n))
                            .is_some_and(|b| b.starts_with('<'))
                }
                _ => false,
            },
        }
    }
}

/// A declared attribute.
#[derive(Clone, Debug)]
pub struct AttrDecl {
    /// Its name.
    pub name: String,
    /// Whether it may be absent.
    pub optional: bool,
    /// Its kind.
    pub kind: AttrKind,
    /// The value assumed when absent.
    pub default: Option<AttrId>,
}

/// A declared region.
#[derive(Clone, Debug)]
pub struct RegionDecl {
    /// Its name.
    pub name: String,
    /// Whether it must have at most one block.
    pub single_block: bool,
}

/// Everything a dialect file says about one op.
#[derive(Clone, Debug, Default)]
pub struct OpDecl {
    /// Full name, `dialect.op`.
    pub name: String,
    /// Where the declaration is.
    pub span: Range<usize>,
    /// One-line summary.
    pub summary: String,
    /// Longer description.
    pub description: String,
    /// Trait names.
    pub traits: Vec<(String, Range<usize>)>,
    /// Operands, in order.
    pub operands: Vec<ValueDecl>,
    /// Results, in order.
    pub results: Vec<ValueDecl>,
    /// Attributes.
    pub attributes: Vec<AttrDecl>,
    /// Regions, in order.
    pub regions: Vec<RegionDecl>,
    /// Successor names, in order.
    pub successors: Vec<String>,
    /// The assembly format and where it is written.
    pub format: Option<(String, Range<usize>)>,
}

/// A parsed dialect.
#[derive(Clone, Debug, Default)]
pub struct DialectDecl {
    /// Namespace.
    pub name: String,
    /// One-line summary.
    pub summary: String,
    /// Longer description.
    pub description: String,
    /// Its ops.
    pub ops: Vec<OpDecl>,
    /// Its enum attributes: full name and definition.
    pub enums: Vec<(String, acc_ir::context::EnumAttrDef)>,
}

/// Turns pest pairs into declarations, collecting errors.
struct Reader<'c> {
    ctx: &'c mut Context,
    file: FileId,
    errors: Vec<Diagnostic>,
    constraints: Vec<(String, TypeConstraint)>,
    /// Full names of the enum attributes of the dialect being read.
    enums: Vec<String>,
}

/// Reads the dialects declared in `text` (the contents of `file`): the declarations
/// and the errors found in them, or the syntax error that stopped the reading.
pub fn read(
    ctx: &mut Context,
    file: FileId,
    text: &str,
) -> Result<(Vec<DialectDecl>, Vec<Diagnostic>), Diagnostic> {
    let pairs = DialectGrammar::parse(Rule::file, text).map_err(|e| pest_error(file, text, e))?;
    let mut reader = Reader {
        ctx,
        file,
        errors: Vec::new(),
        constraints: Vec::new(),
        enums: Vec::new(),
    };
    let mut dialects = Vec::new();
    for pair in pairs.flatten().filter(|p| p.as_rule() == Rule::dialect) {
        dialects.push(reader.dialect(pair));
    }
    Ok((dialects, reader.errors))
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

fn span(p: &Pair<'_, Rule>) -> Range<usize> {
    p.as_span().start()..p.as_span().end()
}

/// The contents of a string literal (escapes `\"`, `\\`, `\n`).
fn unquote(s: &str) -> String {
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

impl Reader<'_> {
    fn error(&mut self, range: Range<usize>, message: impl Into<String>) {
        self.errors
            .push(Diagnostic::error(DiagLoc::Span(self.file, range), message));
    }

    fn dialect(&mut self, pair: Pair<'_, Rule>) -> DialectDecl {
        let mut inner = pair.into_inner();
        let name = inner
            .next()
            .map(|p| p.as_str().to_string())
            .unwrap_or_default();
        let mut d = DialectDecl {
            name,
            ..Default::default()
        };
        self.constraints.clear();
        self.enums.clear();
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
                    let constraint = self.constraint(c);
                    self.constraints.push((
                        name.clone(),
                        TypeConstraint::Named(name, Box::new(constraint)),
                    ));
                }
                Rule::enum_def => {
                    let mut parts = item.into_inner();
                    let name = parts
                        .next()
                        .map(|p| format!("{}.{}", d.name, p.as_str()))
                        .unwrap_or_default();
                    let flags = parts.next().is_some_and(|k| k.as_str() == "flags");
                    let cases = parts.map(|c| c.as_str().to_string()).collect();
                    self.enums.push(name.clone());
                    d.enums
                        .push((name, acc_ir::context::EnumAttrDef { cases, flags }));
                }
                Rule::op_def => {
                    let op = self.op(item, &d.name);
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

    fn op(&mut self, pair: Pair<'_, Rule>, dialect: &str) -> OpDecl {
        let sp = span(&pair);
        let mut inner = pair.into_inner();
        let name = inner
            .next()
            .map(|p| p.as_str().to_string())
            .unwrap_or_default();
        let mut op = OpDecl {
            name: format!("{dialect}.{name}"),
            span: sp,
            ..Default::default()
        };
        for item in inner {
            match item.as_rule() {
                Rule::summary => op.summary = self.string_of(item),
                Rule::description => op.description = self.string_of(item),
                Rule::traits => {
                    op.traits = item
                        .into_inner()
                        .map(|t| (t.as_str().to_string(), span(&t)))
                        .collect()
                }
                Rule::operands => op.operands = item.into_inner().map(|v| self.value(v)).collect(),
                Rule::results => op.results = item.into_inner().map(|v| self.value(v)).collect(),
                Rule::attributes => {
                    op.attributes = item
                        .into_inner()
                        .filter_map(|a| self.attribute(a))
                        .collect()
                }
                Rule::regions => {
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
                        op.regions.push(RegionDecl { name, single_block });
                    }
                }
                Rule::successors => {
                    op.successors = item.into_inner().map(|s| s.as_str().to_string()).collect()
                }
                Rule::format => {
                    if let Some(s) = item.into_inner().next() {
                        op.format = Some((unquote(s.as_str()), span(&s)));
                    }
                }
                _ => {}
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
        let mut default = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::optional => optional = true,
                Rule::ident if name.is_empty() => name = p.as_str().to_string(),
                Rule::ident => {
                    kind = AttrKind::from_name(p.as_str()).or_else(|| {
                        self.enums
                            .iter()
                            .find(|e| e.rsplit('.').next() == Some(p.as_str()))
                            .map(|e| AttrKind::Enum(e.clone()))
                    });
                    if kind.is_none() {
                        let names: Vec<&str> = AttrKind::NAMES.iter().map(|(n, _)| *n).collect();
                        self.error(
                            span(&p),
                            format!(
                                "unknown attribute kind '{}': expected one of {}",
                                p.as_str(),
                                names.join(", ")
                            ),
                        );
                    }
                }
                Rule::string => {
                    let text = unquote(p.as_str());
                    match acc_ir::parser::parse_attribute_str(self.ctx, &text) {
                        Ok(a) => default = Some(a),
                        Err((m, _)) => self.error(span(&p), format!("invalid default value: {m}")),
                    }
                }
                _ => {}
            }
        }
        let kind = kind?;
        if let Some(d) = default
            && !kind.matches(self.ctx, d)
        {
            self.error(
                sp,
                format!(
                    "the default of attribute '{name}' is not of kind '{}'",
                    kind.name()
                ),
            );
        }
        Some(AttrDecl {
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
        match pair.as_rule() {
            Rule::shaped_constraint => {
                let mut parts = pair.into_inner();
                let kind = parts
                    .next()
                    .and_then(|k| ShapedKind::from_keyword(k.as_str()))
                    .unwrap_or(ShapedKind::Tensor);
                let element = parts
                    .next()
                    .map(|c| self.constraint(c))
                    .unwrap_or(TypeConstraint::Any);
                TypeConstraint::Shaped(kind, Box::new(element))
            }
            _ => {
                let name = pair.as_str();
                if let Some((_, c)) = self.constraints.iter().find(|(n, _)| n == name) {
                    return c.clone();
                }
                if let Some(c) = builtin_class(name) {
                    return c;
                }
                match acc_ir::parser::parse_type_str(self.ctx, name) {
                    Ok(t) => TypeConstraint::Exact(t),
                    Err(_) => {
                        self.error(sp, format!(
                            "unknown type constraint '{name}': not a constraint of this dialect, a builtin class (AnyType, AnyInteger, AnySignlessInteger, AnyFloat, AnyQuantized, tensor, ranked_tensor, memref, vector) or a type"
                        ));
                        TypeConstraint::Any
                    }
                }
            }
        }
    }
}
