//! The text of a rewrite pattern as written, with spans: what [`super::compile`]
//! resolves against the registered ops.

use std::ops::Range;

use pest::iterators::Pair;

use super::super::read::{GrammarRule as Rule, span, unquote};

/// A name as written (`%x`, `$p`, `graph.relu`, `constant`) and where.
pub type Spanned = (String, Range<usize>);

/// `pattern NAME { benefit N match {...} where ... rewrite {...} }`.
#[derive(Clone, Debug)]
pub struct PatternAst {
    /// The pattern's name.
    pub name: Spanned,
    /// Its benefit (1 when not written).
    pub benefit: u16,
    /// Where `benefit` was written, for range errors.
    pub benefit_span: Range<usize>,
    /// The ops to match; the last is the root.
    pub matched: Vec<OpAst>,
    /// Constraints on what matched.
    pub constraints: Vec<CallAst>,
    /// The ops to create.
    pub rewrite: Vec<OpAst>,
    /// `replace %old with %new`.
    pub replaces: Vec<(Spanned, Spanned)>,
    /// The whole pattern.
    pub span: Range<usize>,
}

/// `%a, %b = dialect.op(%x, %y) {name = value}`.
#[derive(Clone, Debug)]
pub struct OpAst {
    /// Names of its results.
    pub results: Vec<Spanned>,
    /// The op's name.
    pub name: Spanned,
    /// Its operands.
    pub operands: Vec<Spanned>,
    /// Its attributes.
    pub attrs: Vec<(Spanned, ArgAst)>,
}

/// `name(arg, ...)`: a constraint, or a function computing an attribute.
#[derive(Clone, Debug)]
pub struct CallAst {
    /// The function.
    pub name: Spanned,
    /// Its arguments.
    pub args: Vec<ArgAst>,
    /// The whole call.
    pub span: Range<usize>,
}

/// An argument or attribute value.
#[derive(Clone, Debug)]
pub enum ArgAst {
    /// `%x`: a value.
    Value(Spanned),
    /// `$p`: a captured attribute.
    Capture(Spanned),
    /// `"array<i64: 1, 0>"`: an attribute in MLIR syntax.
    Literal(Spanned),
    /// `f(...)`: a computed attribute.
    Call(CallAst),
}

fn spanned(p: &Pair<'_, Rule>) -> Spanned {
    (p.as_str().to_string(), span(p))
}

/// Reads a `pattern` pair.
pub fn read_pattern(pair: Pair<'_, Rule>) -> PatternAst {
    let whole = span(&pair);
    let mut inner = pair.into_inner();
    let name = inner.next().map(|p| spanned(&p)).unwrap_or_default();
    let mut ast = PatternAst {
        name,
        benefit: 1,
        benefit_span: whole.clone(),
        matched: Vec::new(),
        constraints: Vec::new(),
        rewrite: Vec::new(),
        replaces: Vec::new(),
        span: whole,
    };
    for item in inner {
        match item.as_rule() {
            Rule::benefit => {
                ast.benefit_span = span(&item);
                let text = item.into_inner().next().map(|p| p.as_str().to_string());
                // Out of range: 0, which compile reports.
                ast.benefit = text.and_then(|t| t.parse().ok()).unwrap_or(0);
            }
            Rule::match_block => ast.matched = item.into_inner().map(read_op).collect(),
            Rule::where_clause => ast.constraints = item.into_inner().map(read_call).collect(),
            Rule::rewrite_block => {
                for part in item.into_inner() {
                    if part.as_rule() == Rule::replace {
                        let mut names = part.into_inner().map(|p| spanned(&p));
                        if let (Some(old), Some(new)) = (names.next(), names.next()) {
                            ast.replaces.push((old, new));
                        }
                    } else {
                        ast.rewrite.push(read_op(part));
                    }
                }
            }
            _ => {}
        }
    }
    ast
}

pub(super) fn read_op(pair: Pair<'_, Rule>) -> OpAst {
    let mut op = OpAst {
        results: Vec::new(),
        name: Default::default(),
        operands: Vec::new(),
        attrs: Vec::new(),
    };
    for part in pair.into_inner() {
        match part.as_rule() {
            Rule::value_names => op.results = part.into_inner().map(|p| spanned(&p)).collect(),
            Rule::op_name => op.name = spanned(&part),
            Rule::value_ref => op.operands.push(spanned(&part)),
            Rule::pattern_attrs => {
                for attr in part.into_inner() {
                    let mut kv = attr.into_inner();
                    if let (Some(k), Some(v)) = (kv.next(), kv.next()) {
                        op.attrs.push((spanned(&k), read_arg(v)));
                    }
                }
            }
            _ => {}
        }
    }
    op
}

pub(super) fn read_call(pair: Pair<'_, Rule>) -> CallAst {
    let whole = span(&pair);
    let mut inner = pair.into_inner();
    let name = inner.next().map(|p| spanned(&p)).unwrap_or_default();
    CallAst {
        name,
        args: inner.map(read_arg).collect(),
        span: whole,
    }
}

fn read_arg(pair: Pair<'_, Rule>) -> ArgAst {
    match pair.as_rule() {
        Rule::value_ref => ArgAst::Value(spanned(&pair)),
        Rule::capture => ArgAst::Capture(spanned(&pair)),
        Rule::call => ArgAst::Call(read_call(pair)),
        _ => {
            let sp = span(&pair);
            ArgAst::Literal((unquote(pair.as_str()), sp))
        }
    }
}
