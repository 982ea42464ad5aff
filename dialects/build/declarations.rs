//! What a typed view needs from a definition file: each dialect's ops, with their
//! classes applied the way the loader applies them (an op's `operands`, `results`,
//! `attributes`, `regions` and `successors` replace its class's; `summary` too).

use pest::Parser as _;
use pest::iterators::Pair;

#[derive(pest_derive::Parser)]
#[grammar = "src/lang/grammar.pest"]
struct DialectGrammar;

/// How many values an operand or result group holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantifier {
    /// Exactly one.
    Single,
    /// Zero or one.
    Optional,
    /// Any number.
    Variadic,
}

/// An operand or result group.
#[derive(Clone, Debug)]
pub struct Value {
    /// Its name in the definition.
    pub name: String,
    /// How many values it holds.
    pub quantifier: Quantifier,
}

/// A declared attribute.
#[derive(Clone, Debug)]
pub struct Attribute {
    /// Its name.
    pub name: String,
    /// Its kind as written (`i64_array`, `bool`, an enum's name, ...).
    pub kind: String,
    /// Written `optional`.
    pub optional: bool,
    /// Its default, as written.
    pub default: Option<String>,
}

/// One op, its class applied.
#[derive(Clone, Debug, Default)]
pub struct Op {
    /// Its name without the dialect (`conv2d`).
    pub name: String,
    /// Its summary.
    pub summary: String,
    /// Its operand groups, in order.
    pub operands: Vec<Value>,
    /// Its result groups, in order.
    pub results: Vec<Value>,
    /// Its attributes, in order.
    pub attributes: Vec<Attribute>,
    /// Its regions' names, in order.
    pub regions: Vec<String>,
    /// Its successors' names, in order.
    pub successors: Vec<String>,
    /// Its traits, by name (those of its class included).
    pub traits: Vec<String>,
}

/// A dialect and its ops, in file order.
#[derive(Clone, Debug)]
pub struct Dialect {
    /// Its name.
    pub name: String,
    /// Its ops.
    pub ops: Vec<Op>,
    /// Its enum attributes: name, and whether it is a set of flags.
    pub enums: Vec<(String, bool)>,
}

/// The dialects of one definition file.
pub fn read(text: &str) -> Result<Vec<Dialect>, String> {
    let file = DialectGrammar::parse(Rule::file, text)
        .map_err(|e| format!("the definition does not parse: {e}"))?;
    let mut out = Vec::new();
    for item in file.flatten().filter(|p| p.as_rule() == Rule::dialect) {
        out.push(dialect(item)?);
    }
    Ok(out)
}

fn dialect(pair: Pair<'_, Rule>) -> Result<Dialect, String> {
    let mut inner = pair.into_inner();
    let name = inner
        .next()
        .map(|p| p.as_str().to_string())
        .unwrap_or_default();
    let mut classes: Vec<(String, Op)> = Vec::new();
    let mut ops = Vec::new();
    let mut enums = Vec::new();
    for item in inner {
        match item.as_rule() {
            Rule::enum_def => {
                let flags = item
                    .clone()
                    .into_inner()
                    .any(|p| p.as_rule() == Rule::enum_kind && p.as_str() == "flags");
                enums.push((first_word(item), flags));
            }
            Rule::class_def | Rule::op_def => {
                let is_class = item.as_rule() == Rule::class_def;
                let mut parts = item.into_inner().peekable();
                let own = parts
                    .next()
                    .map(|p| p.as_str().to_string())
                    .unwrap_or_default();
                let mut op = match parts.next_if(|p| p.as_rule() == Rule::class_ref) {
                    Some(c) => classes
                        .iter()
                        .find(|(n, _)| n == c.as_str())
                        .map(|(_, op)| op.clone())
                        .ok_or_else(|| format!("unknown class '{}'", c.as_str()))?,
                    None => Op::default(),
                };
                op.name = own.clone();
                for p in parts {
                    apply(&mut op, p);
                }
                if is_class {
                    classes.push((own, op));
                } else {
                    ops.push(op);
                }
            }
            _ => {}
        }
    }
    Ok(Dialect { name, ops, enums })
}

/// Applies one op item.
fn apply(op: &mut Op, item: Pair<'_, Rule>) {
    match item.as_rule() {
        Rule::summary => op.summary = string(item.into_inner().next()),
        Rule::operands => op.operands = item.into_inner().map(value).collect(),
        Rule::results => op.results = item.into_inner().map(value).collect(),
        Rule::attributes => op.attributes = item.into_inner().map(attribute).collect(),
        Rule::regions => op.regions = item.into_inner().map(first_word).collect(),
        Rule::successors => op.successors = item.into_inner().map(first_word).collect(),
        Rule::traits => op.traits.extend(item.into_inner().map(first_word)),
        _ => {}
    }
}

fn first_word(pair: Pair<'_, Rule>) -> String {
    pair.into_inner()
        .next()
        .map(|p| p.as_str().to_string())
        .unwrap_or_default()
}

fn value(pair: Pair<'_, Rule>) -> Value {
    let mut parts = pair.into_inner();
    let name = parts
        .next()
        .map(|p| p.as_str().to_string())
        .unwrap_or_default();
    let quantifier = match parts.next() {
        Some(q) if q.as_rule() == Rule::quantifier && q.as_str() == "variadic" => {
            Quantifier::Variadic
        }
        Some(q) if q.as_rule() == Rule::quantifier => Quantifier::Optional,
        _ => Quantifier::Single,
    };
    Value { name, quantifier }
}

fn attribute(pair: Pair<'_, Rule>) -> Attribute {
    let mut a = Attribute {
        name: String::new(),
        kind: String::new(),
        optional: false,
        default: None,
    };
    for p in pair.into_inner() {
        match p.as_rule() {
            Rule::ident => a.name = p.as_str().to_string(),
            Rule::optional => a.optional = true,
            Rule::attr_kind_name => a.kind = p.as_str().to_string(),
            Rule::string => a.default = Some(string(Some(p))),
            _ => {}
        }
    }
    a
}

/// The text of a string literal, its escapes resolved.
fn string(pair: Option<Pair<'_, Rule>>) -> String {
    let raw = pair.map(|p| p.as_str()).unwrap_or("\"\"");
    let inner = &raw[1..raw.len().saturating_sub(1).max(1)];
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}
