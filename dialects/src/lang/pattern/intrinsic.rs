//! Intrinsics of a target file: `intrinsic NAME on DEVICE { match {...} where ...
//! cost ... call(...) }`. The match is a pattern's match (a DAG of ops rooted at its
//! last op); the conditions are pattern constraints or comparisons of integer
//! expressions ([`super::expr`]); the cost and the call's scalar arguments are
//! expressions too. [`TextIntrinsic`] answers, for one op, where the intrinsic would
//! compute it or which condition refused it.

use std::ops::Range;

use acc_ir::diag::{DiagLoc, Diagnostic, FileId};
use acc_ir::requant::Scheme;
use acc_ir::{BodyId, Context, Ir, OpId, TypeId, ValueId};
use acc_target::{BufferLayout, CallArg, IntrinsicRule, Placement};
use pest::iterators::Pair;

use super::apply::Bindings;
use super::ast::{CallAst, OpAst, PatternAst, Spanned, read_call, read_op};
use super::compile::Compiler;
use super::expr::{self, Bound, Comparison, Expr, ExprAst, Param, SlotConstants};
use super::functions::{self, ArgVal, Scope};
use super::tables::{MAX_TABLE_ENTRIES, TableKind, packed, packed_len, requant_scales};
use super::{Arg, AttrMatch, TextPattern};
use crate::lang::read::{GrammarRule as Rule, span, unquote};

/// An intrinsic as written.
#[derive(Clone, Debug)]
pub struct IntrinsicAst {
    /// Its name (the C symbol).
    pub name: Spanned,
    /// The device running it.
    pub device: Spanned,
    /// The ops it computes; the last is the root.
    pub matched: Vec<OpAst>,
    /// Its conditions, each with its text.
    pub conditions: Vec<(ConditionAst, String)>,
    /// How the library requantizes (`requant float` or `requant fixed_point`).
    pub requant: Option<Spanned>,
    /// The memory its buffers must be in, when not the host's.
    pub memory: Option<Spanned>,
    /// The layouts of its buffers: a value and the layout its buffer holds it in.
    pub layouts: Vec<(Spanned, LayoutAst, Range<usize>)>,
    /// Values whose buffers have the layout of another's (`layout %y like %x`).
    pub layouts_like: Vec<(Spanned, Spanned)>,
    /// Its cost.
    pub cost: Option<ExprAst>,
    /// The multiply-accumulates it does, and how many the device does a cycle.
    pub macs: Option<(ExprAst, ExprAst)>,
    /// The arguments of its call.
    pub call: Vec<ExprAst>,
    /// The parameter each argument carries (`input_offset: ...`), when it names one:
    /// as many as `call`.
    pub labels: Vec<Option<Spanned>>,
    /// The whole declaration.
    pub span: Range<usize>,
    /// Written as `code NAME on DEVICE`: the device's own loops, no call.
    pub compiled: bool,
}

/// A buffer's layout as written.
#[derive(Clone, Debug)]
pub enum LayoutAst {
    /// `(0, 2, 3, 1)`: the value's dimensions permuted.
    Permutation(Vec<i64>),
    /// `"NCHW" -> "NCHW16c"`: the value's dimensions named, then stored (without
    /// their quotes).
    Named(String, String),
}

/// A condition as written.
#[derive(Clone, Debug)]
pub enum ConditionAst {
    /// A pattern constraint: `constant(%w)`.
    Constraint(CallAst),
    /// `dim(%w, 2) <= 7`.
    Compare(ExprAst, String, ExprAst),
}

/// Reads an `intrinsic_def` or `code_def` pair.
pub fn read_intrinsic(pair: Pair<'_, Rule>) -> IntrinsicAst {
    let whole = span(&pair);
    let compiled = pair.as_rule() == Rule::code_def;
    let mut inner = pair.into_inner();
    let mut name_of = || {
        inner
            .next()
            .map(|p| (p.as_str().to_string(), span(&p)))
            .unwrap_or_default()
    };
    let (name, device) = (name_of(), name_of());
    let mut ast = IntrinsicAst {
        name,
        device,
        matched: Vec::new(),
        conditions: Vec::new(),
        requant: None,
        memory: None,
        layouts: Vec::new(),
        layouts_like: Vec::new(),
        cost: None,
        macs: None,
        call: Vec::new(),
        labels: Vec::new(),
        span: whole,
        compiled,
    };
    for item in inner {
        match item.as_rule() {
            Rule::match_block => ast.matched = item.into_inner().map(read_op).collect(),
            Rule::intrinsic_where => {
                for condition in item.into_inner() {
                    let text = condition.as_str().trim().to_string();
                    let Some(c) = condition.into_inner().next() else {
                        continue;
                    };
                    let c = if c.as_rule() == Rule::comparison {
                        let mut p = c.into_inner();
                        let lhs = p.next().map(expr::read_expr);
                        let op = p.next().map(|o| o.as_str().to_string());
                        let rhs = p.next().map(expr::read_expr);
                        match (lhs, op, rhs) {
                            (Some(l), Some(o), Some(r)) => ConditionAst::Compare(l, o, r),
                            _ => continue,
                        }
                    } else {
                        ConditionAst::Constraint(read_call(c))
                    };
                    ast.conditions.push((c, text));
                }
            }
            Rule::intrinsic_requant => {
                ast.requant = item
                    .into_inner()
                    .next()
                    .map(|p| (p.as_str().to_string(), span(&p)))
            }
            Rule::intrinsic_memory => {
                ast.memory = item
                    .into_inner()
                    .next()
                    .map(|p| (p.as_str().to_string(), span(&p)))
            }
            Rule::intrinsic_layout => {
                for item in item.into_inner() {
                    let at = span(&item);
                    let mut p = item.into_inner();
                    let Some(value) = p.next().map(|v| (v.as_str().to_string(), span(&v))) else {
                        continue;
                    };
                    let rest: Vec<_> = p.collect();
                    if let [like] = rest.as_slice()
                        && like.as_rule() == Rule::value_ref
                    {
                        ast.layouts_like
                            .push((value, (like.as_str().to_string(), span(like))));
                        continue;
                    }
                    let layout = match rest.as_slice() {
                        [from, to] if from.as_rule() == Rule::string => {
                            LayoutAst::Named(unquote(from.as_str()), unquote(to.as_str()))
                        }
                        _ => LayoutAst::Permutation(
                            rest.iter()
                                .map(|d| d.as_str().parse::<i64>().unwrap_or(-1))
                                .collect(),
                        ),
                    };
                    ast.layouts.push((value, layout, at));
                }
            }
            Rule::intrinsic_cost => ast.cost = item.into_inner().next().map(expr::read_expr),
            Rule::intrinsic_macs => {
                let mut e = item.into_inner().map(expr::read_expr);
                ast.macs = e.next().zip(e.next());
            }
            Rule::intrinsic_call => {
                let mut label = None;
                for arg in item.into_inner() {
                    if arg.as_rule() == Rule::call_label {
                        label = arg
                            .into_inner()
                            .next()
                            .map(|p| (p.as_str().to_string(), span(&p)));
                        continue;
                    }
                    ast.call.push(expr::read_expr(arg));
                    ast.labels.push(label.take());
                }
            }
            _ => {}
        }
    }
    ast
}

/// A compiled condition with its text.
enum Condition {
    Constraint(functions::ConstraintFn, Vec<Arg>),
    Compare(Comparison),
}

/// An argument of the call.
enum CallItem {
    /// A matched value's buffer.
    Value(usize),
    /// An integer.
    Int(Expr),
    /// `requant_scales(%x, %w, %y, n)`: per output channel, the multiplier
    /// `f32(f32(s_x * s_w[c]) / s_y)` that turns an exact accumulator into output
    /// steps, as the quantized ops' semantics compute it; `n` entries (a per-tensor
    /// weight repeats its one).
    RequantScales([usize; 3], Expr),
    /// A table computed at compile time, one entry per channel: its kind, length and
    /// entry (a real expression, evaluated for each channel).
    Table(TableKind, Expr, Expr),
    /// `f32(E)`: a real computed at compile time, passed as a `float`.
    Float(Expr),
    /// `packed(%w)` or `packed(%w, d0, d1, ...)`: the stored integers of the constant
    /// `%w`, its dimensions in the order given (as they are without one), `8 / width`
    /// to a byte, the first in the lowest bits (ONNX's order for int4 and int2).
    Packed(usize, Vec<Expr>),
    /// `count(%y)`: where the library writes the number of rows of the result `%y`,
    /// of dynamic shape.
    Count(usize),
}

/// Tables the call may compute: name and parameters.
const TABLES: [(&str, &[Param]); 8] = [
    (
        "requant_scales",
        &[Param::Value, Param::Value, Param::Value, Param::Int],
    ),
    ("packed", &[Param::Value]),
    ("q31_multipliers", &[Param::Int, Param::Int]),
    ("q31_shifts", &[Param::Int, Param::Int]),
    ("i32_table", &[Param::Int, Param::Int]),
    ("i16_table", &[Param::Int, Param::Int]),
    ("f32_table", &[Param::Int, Param::Int]),
    ("f32", &[Param::Int]),
];

/// An intrinsic ready to consult.
pub struct TextIntrinsic {
    root: String,
    matcher: TextPattern,
    /// How the library requantizes.
    requant: Scheme,
    /// Whether the call passes `act_min` and `act_max` of the root's result.
    passes_clamp: bool,
    /// A `code` rule: the device's own loops compute the op as its semantics say
    /// (its requantization and clamp included), so neither is checked.
    compiled: bool,
    /// The parameters of the root op's semantics the call's arguments carry (see
    /// [`call_params`]): each name and its argument's position.
    params: Vec<(String, usize)>,
    conditions: Vec<(Condition, String)>,
    layouts: Vec<(usize, BufferLayout)>,
    layouts_like: Vec<(usize, usize)>,
    cost: Option<Expr>,
    macs: Option<(Expr, Expr)>,
    call: Vec<CallItem>,
}

/// Resolves an intrinsic against the registered ops, or reports every mistake in it.
pub fn compile_intrinsic(
    ctx: &mut Context,
    file: FileId,
    ast: &IntrinsicAst,
) -> Result<TextIntrinsic, Vec<Diagnostic>> {
    let pattern = PatternAst {
        name: ast.name.clone(),
        benefit: 1,
        benefit_span: ast.span.clone(),
        matched: ast.matched.clone(),
        constraints: Vec::new(),
        rewrite: Vec::new(),
        replaces: Vec::new(),
        span: ast.span.clone(),
    };
    let mut c = Compiler::new(ctx, file);
    // The call computes the root op; ops matched before it would be lowered apart
    // from it and the call no longer found where partition placed it.
    if let [first, _, ..] = ast.matched.as_slice() {
        c.error(
            &first.name.1,
            format!(
                "an intrinsic's match is one op, not {}: a library function computing several ops is not lowered as one call yet (a ReLU, ReLU6 or Clip after a quantized op reaches its call as act_min(%y) and act_max(%y))",
                ast.matched.len()
            ),
        );
    }
    let matched: Vec<_> = ast
        .matched
        .iter()
        .enumerate()
        .filter_map(|(k, op)| c.match_op(k, op))
        .collect();
    c.check_connected(&pattern);
    let mut conditions = Vec::new();
    for (condition, text) in &ast.conditions {
        let compiled = match condition {
            ConditionAst::Constraint(call) => {
                c.constraint(call).map(|(f, a)| Condition::Constraint(f, a))
            }
            ConditionAst::Compare(l, op, r) => match (int_expr(&mut c, l), int_expr(&mut c, r)) {
                (Some(lhs), Some(rhs)) => Some(Condition::Compare(Comparison {
                    op: op.clone(),
                    lhs,
                    rhs,
                })),
                _ => None,
            },
        };
        if let Some(compiled) = compiled {
            conditions.push((compiled, text.clone()));
        }
    }
    let mut layouts = Vec::new();
    for (value, written, at) in &ast.layouts {
        let layout = match written {
            LayoutAst::Permutation(perm) => {
                let mut sorted = perm.clone();
                sorted.sort_unstable();
                if !sorted.iter().copied().eq(0..perm.len() as i64) {
                    c.error(
                        at,
                        format!(
                            "layout {perm:?} is not a permutation of dimensions 0 to {}",
                            perm.len() - 1
                        ),
                    );
                    continue;
                }
                BufferLayout::permutation(perm.clone())
            }
            LayoutAst::Named(from, to) => match named_layout(from, to) {
                Ok(layout) => layout,
                Err(why) => {
                    c.error(at, why);
                    continue;
                }
            },
        };
        if let Some(slot) = c.value(value) {
            layouts.push((slot, layout));
        }
    }
    let mut layouts_like = Vec::new();
    for (a, b) in &ast.layouts_like {
        if let (Some(a), Some(b)) = (c.value(a), c.value(b)) {
            layouts_like.push((a, b));
        }
    }
    // A number written as the cost or the peak is checked here; an expression, when
    // it is evaluated for an op.
    let max = crate::lang::read::MAX_CYCLES;
    if let Some(ExprAst::Int(n, at)) = &ast.cost
        && !(0..=max).contains(n)
    {
        c.error(at, format!("a cost is a number of cycles from 0 to {max}"));
    }
    if let Some((_, ExprAst::Int(n, at))) = &ast.macs
        && !(1..=max).contains(n)
    {
        c.error(at, format!("a peak is from 1 to {max} MACs a cycle"));
    }
    let cost = ast.cost.as_ref().and_then(|e| int_expr(&mut c, e));
    let macs = ast.macs.as_ref().and_then(|(work, peak)| {
        let work = int_expr(&mut c, work);
        work.zip(int_expr(&mut c, peak))
    });
    let call: Vec<CallItem> = ast
        .call
        .iter()
        .filter_map(|e| call_item(&mut c, e))
        .collect();
    if let Some(root) = ast.matched.last() {
        for e in &ast.call {
            check_requant_roles(&mut c, root, e);
        }
    }
    let requant = match &ast.requant {
        None => Scheme::Float,
        Some((name, at)) => Scheme::of_name(name).unwrap_or_else(|| {
            c.error(
                at,
                format!("unknown requantization scheme '{name}': acc provides float, fixed_point"),
            );
            Scheme::Float
        }),
    };
    // `weight_sum` and `element` give a number per channel: only table entries have
    // one. A real literal has a place only where reals are computed.
    let (mut per_channel, mut reals) = (Vec::new(), Vec::new());
    let top = ExprPlace::default();
    for e in &ast.call {
        misplaced(e, top, &mut per_channel, &mut reals);
    }
    for (condition, _) in &ast.conditions {
        if let ConditionAst::Compare(lhs, _, rhs) = condition {
            misplaced(lhs, top, &mut per_channel, &mut reals);
            misplaced(rhs, top, &mut per_channel, &mut reals);
        }
    }
    for e in ast
        .cost
        .iter()
        .chain(ast.macs.iter().flat_map(|(w, p)| [w, p]))
    {
        misplaced(e, top, &mut per_channel, &mut reals);
    }
    for at in per_channel {
        c.error(
            &at,
            "weight_sum(...) and element(...) give a number per channel: use them in a table (i32_table, q31_multipliers, ...)",
        );
    }
    for at in reals {
        c.error(
            &at,
            "a real number where an integer is computed: reals go in tables, f32(...), q31_multiplier(...) and q31_shift(...)",
        );
    }
    let root_result = ast
        .matched
        .last()
        .and_then(|op| op.results.first())
        .and_then(|r| c.value(r));
    let passes_clamp = root_result.is_some_and(|y| {
        ["act_min", "act_max"].iter().all(|f| {
            call.iter()
                .any(|item| matches!(item, CallItem::Int(e) if e.calls(f, y)))
        })
    });
    let params = match ast.matched.last() {
        Some(root) if call.len() == ast.call.len() => {
            call_params(&mut c, ast, root, requant, &call, root_result)
        }
        _ => Vec::new(),
    };
    let root = ast.matched.last().map(|op| op.name.0.clone());
    if !c.errors.is_empty() || matched.len() != ast.matched.len() || call.len() != ast.call.len() {
        return Err(c.errors);
    }
    let Some(root) = root else {
        return Err(vec![Diagnostic::error(
            DiagLoc::Span(file, ast.span.clone()),
            "an intrinsic matches at least one op",
        )]);
    };
    Ok(TextIntrinsic {
        requant,
        passes_clamp,
        compiled: ast.compiled,
        params,
        root: root.clone(),
        matcher: TextPattern {
            name: ast.name.0.clone(),
            root,
            benefit: 1,
            matched,
            slots: c.slots,
            captures: c.captures.len(),
            constraints: Vec::new(),
            created: Vec::new(),
            replacements: Vec::new(),
        },
        conditions,
        layouts,
        layouts_like,
        cost,
        macs,
        call,
    })
}

/// The parameters of the root op's semantics (`acc_dialects::hooks::params`) the
/// call's arguments carry: those their labels name (`input_offset: ...`), and without
/// a label `q31_multipliers(...)` (`multipliers`), `q31_shifts(...)` (`shifts`),
/// `requant_scales(...)` (`scales`), and `act_min(%y)` / `act_max(%y)` of the root's
/// result. Each must be one the root takes, of the argument's kind and the
/// intrinsic's scheme (an error at the label, or the argument, otherwise), and
/// whose zero points and clamps are those of its role ([`check_param_roles`]).
fn call_params(
    c: &mut Compiler<'_>,
    ast: &IntrinsicAst,
    root_op: &OpAst,
    scheme: Scheme,
    call: &[CallItem],
    root_result: Option<usize>,
) -> Vec<(String, usize)> {
    use crate::hooks::params::{self, ParamKind};
    let root = root_op.name.0.as_str();
    let takes_clamp = !params::params_of(root).is_empty();
    let mut found: Vec<(String, usize)> = Vec::new();
    let mut clamps = Vec::new();
    for (k, (item, label)) in call.iter().zip(&ast.labels).enumerate() {
        let exactly = |f: &str| {
            matches!(item, CallItem::Int(Expr::Call(g, args))
                if g.name == f && matches!(args.as_slice(), [Expr::Value(s)] if Some(*s) == root_result))
        };
        let implicit = match item {
            CallItem::Table(TableKind::Q31Multipliers, ..) => Some("multipliers"),
            CallItem::Table(TableKind::Q31Shifts, ..) => Some("shifts"),
            CallItem::RequantScales(..) => Some("scales"),
            _ if takes_clamp && exactly("act_min") => Some("act_min"),
            _ if takes_clamp && exactly("act_max") => Some("act_max"),
            _ => None,
        };
        let (name, at) = match (label, implicit) {
            (Some((name, at)), _) => (name.clone(), at.clone()),
            (None, Some(name)) => (name.to_string(), ast.call[k].span()),
            (None, None) => continue,
        };
        let kind = match item {
            CallItem::Int(_) => Some(ParamKind::Int),
            CallItem::Table(
                TableKind::Q31Multipliers | TableKind::Q31Shifts | TableKind::I32,
                ..,
            ) => Some(ParamKind::I32Table),
            CallItem::Table(TableKind::F32, ..) | CallItem::RequantScales(..) => {
                Some(ParamKind::F32Table)
            }
            _ => None,
        };
        let Some(kind) = kind else {
            c.error(
                &at,
                format!("'{name}': no parameter of an op's semantics is a buffer, packed bytes, an int16 table or a float scalar"),
            );
            continue;
        };
        if name == "act_min" || name == "act_max" {
            // The op's own clamp attributes.
            if !takes_clamp || kind != ParamKind::Int || clamps.contains(&name) {
                c.error(
                    &at,
                    format!(
                        "'{name}' is an integer clamp of a requantizing op's result, given once"
                    ),
                );
            }
            clamps.push(name.clone());
            check_param_roles(c, root_op, &name, &ast.call[k]);
            found.push((name, k));
            continue;
        }
        let before: Vec<&str> = found.iter().map(|(n, _)| n.as_str()).collect();
        if let Err(e) = params::check_name(root, scheme, &before, &name, kind) {
            c.error(&at, e);
            continue;
        }
        check_param_roles(c, root_op, &name, &ast.call[k]);
        found.push((name, k));
    }
    let names: Vec<&str> = found.iter().map(|(n, _)| n.as_str()).collect();
    if let Err(e) = params::check_set(&names) {
        c.error(&ast.name.1, e);
    }
    found
}

/// An expression whose value is an integer.
fn int_expr(c: &mut Compiler<'_>, e: &ExprAst) -> Option<Expr> {
    match e {
        ExprAst::Value((_, at)) | ExprAst::Capture((_, at)) => {
            c.error(at, "an integer expression is expected here");
            None
        }
        _ => any_expr(c, e),
    }
}

fn any_expr(c: &mut Compiler<'_>, e: &ExprAst) -> Option<Expr> {
    match e {
        ExprAst::Int(i, at) => {
            if *i == i64::MAX {
                c.error(at, "integer out of range");
            }
            Some(Expr::Int(*i))
        }
        ExprAst::Real(r, at) => {
            if !r.is_finite() {
                c.error(at, "real number out of range");
            }
            Some(Expr::Real(*r))
        }
        ExprAst::Value(v) => c.value(v).map(Expr::Value),
        ExprAst::Capture((name, at)) => match c.captures.get(name) {
            Some(i) => Some(Expr::Capture(*i)),
            None => {
                c.error(at, format!("'{name}' is not captured by the match"));
                None
            }
        },
        ExprAst::Binary(op, l, r, _) => {
            let (l, r) = (int_expr(c, l), int_expr(c, r));
            Some(Expr::Binary(*op, Box::new(l?), Box::new(r?)))
        }
        ExprAst::Call((name, at), args, whole) => {
            let Some(f) = expr::function(name) else {
                let known: Vec<&str> = expr::FUNCTIONS.iter().map(|f| f.name).collect();
                c.error(
                    at,
                    format!(
                        "unknown function '{name}': acc provides {}",
                        known.join(", ")
                    ),
                );
                return None;
            };
            let args = params(c, name, f.params, args, whole)?;
            Some(Expr::Call(f, args))
        }
    }
}

/// The arguments of a function call, checked against its parameters.
fn params(
    c: &mut Compiler<'_>,
    name: &str,
    kinds: &[Param],
    args: &[ExprAst],
    whole: &Range<usize>,
) -> Option<Vec<Expr>> {
    if args.len() != kinds.len() {
        c.error(
            whole,
            format!(
                "'{name}' takes {} arguments, not {}",
                kinds.len(),
                args.len()
            ),
        );
        return None;
    }
    let mut out = Vec::new();
    for (a, kind) in args.iter().zip(kinds) {
        let ok = match (a, kind) {
            (ExprAst::Value(_), Param::Value) | (ExprAst::Capture(_), Param::Attr) => true,
            (ExprAst::Value(_) | ExprAst::Capture(_), _) | (_, Param::Value | Param::Attr) => false,
            _ => true,
        };
        if !ok {
            let want = match kind {
                Param::Value => "a value (%name)",
                Param::Attr => "a captured attribute ($name)",
                Param::Int => "an integer expression",
            };
            c.error(
                &a.span(),
                format!("this argument of '{name}' must be {want}"),
            );
            return None;
        }
        out.push(any_expr(c, a)?);
    }
    Some(out)
}

/// Where `e` is: inside a table's entry (`weight_sum` and `element` apply), and
/// inside an expression computed in reals (a real literal applies: a table's entry,
/// `f32(...)`, the argument of `q31_multiplier` or `q31_shift`).
#[derive(Clone, Copy, Default)]
struct ExprPlace {
    table: bool,
    real: bool,
}

/// The places in `e` where `weight_sum` or `element` is called outside a table's
/// entry (`per_channel`), and where a real literal stands outside a real expression
/// (`reals`).
fn misplaced(
    e: &ExprAst,
    at: ExprPlace,
    per_channel: &mut Vec<Range<usize>>,
    reals: &mut Vec<Range<usize>>,
) {
    match e {
        ExprAst::Call((name, span), args, _) => {
            if !at.table && (name == "weight_sum" || name == "element") {
                per_channel.push(span.clone());
            }
            if !at.real && name == "real" {
                reals.push(span.clone());
            }
            let table = TableKind::of_name(name).is_some();
            let real_argument = matches!(name.as_str(), "f32" | "q31_multiplier" | "q31_shift");
            for (i, a) in args.iter().enumerate() {
                // A table's first argument is its length, its second the entry.
                let entry = table && i == 1;
                let inner = ExprPlace {
                    table: at.table || entry,
                    real: at.real || entry || real_argument,
                };
                misplaced(a, inner, per_channel, reals);
            }
        }
        ExprAst::Binary(_, x, y, _) => {
            misplaced(x, at, per_channel, reals);
            misplaced(y, at, per_channel, reals);
        }
        ExprAst::Real(_, span) if !at.real => reals.push(span.clone()),
        _ => {}
    }
}

/// `requant_scales(%x, %w, %y, n)` computes `s_x * s_w[c] / s_y`, as the quantized
/// ops' semantics do with their input (operand 0), weights (operand 1) and result: an
/// error at each value given in another role (the scales would be wrong for every
/// model while the call still looks right).
fn check_requant_roles(c: &mut Compiler<'_>, root: &OpAst, e: &ExprAst) {
    let ExprAst::Call((name, _), args, _) = e else {
        return;
    };
    if name != "requant_scales" {
        return;
    }
    let roles = [
        (
            root.operands.first(),
            "the input (operand 0 of the matched op)",
        ),
        (
            root.operands.get(1),
            "the weights (operand 1 of the matched op)",
        ),
        (root.results.first(), "the matched op's result"),
    ];
    for (arg, (want, role)) in args.iter().zip(roles) {
        let ExprAst::Value((given, at)) = arg else {
            continue;
        };
        match want {
            Some((want, _)) if want != given => c.error(
                at,
                format!(
                    "requant_scales takes {role} here, {want}, not {given}: its multiplier is \
                     s_x * s_w / s_y, of requant_scales(%x, %w, %y, n)"
                ),
            ),
            None => c.error(
                at,
                format!("requant_scales takes {role} here, and the matched op has none"),
            ),
            _ => {}
        }
    }
}

/// The value of the matched op whose zero point (`zero_point(%v)`) or clamp
/// (`act_min(%v)`, `act_max(%v)`) parameter `name` carries, if it carries one: an
/// input's offset its input's, the result's offset and the clamp the result's.
fn param_role<'a>(
    root: &'a OpAst,
    name: &str,
) -> Option<(&'static [&'static str], &'a str, &'static str)> {
    const ZERO_POINT: &[&str] = &["zero_point"];
    const CLAMP: &[&str] = &["act_min", "act_max"];
    let (functions, value, role) = match name {
        "input_offset" | "input1_offset" => {
            (ZERO_POINT, root.operands.first(), "input (operand 0)")
        }
        "input2_offset" => (ZERO_POINT, root.operands.get(1), "second input (operand 1)"),
        "output_offset" => (ZERO_POINT, root.results.first(), "result"),
        "act_min" | "act_max" => (CLAMP, root.results.first(), "result"),
        _ => return None,
    };
    Some((functions, value?.0.as_str(), role))
}

/// An error at each `zero_point(%v)` (or `act_min(%v)` / `act_max(%v)`) in parameter
/// `name`'s expression `e` whose `%v` is an operand or result of the matched op other
/// than the one the parameter belongs to (`output_offset: zero_point(%x)`): the
/// library would be given another value's zero point, right only when the two happen
/// to agree. Values of the other matched ops are left alone.
fn check_param_roles(c: &mut Compiler<'_>, root: &OpAst, name: &str, e: &ExprAst) {
    let Some((functions, want, role)) = param_role(root, name) else {
        return;
    };
    let of_root = |v: &str| {
        root.operands
            .iter()
            .chain(&root.results)
            .any(|(n, _)| n == v)
    };
    let mut pending = vec![e];
    while let Some(e) = pending.pop() {
        match e {
            ExprAst::Call((f, _), args, _) => {
                if functions.contains(&f.as_str())
                    && let [ExprAst::Value((given, at))] = args.as_slice()
                    && given != want
                    && of_root(given)
                {
                    c.error(
                        at,
                        format!(
                            "'{name}' is {f} of the matched op's {role}, {want}, not of {given}"
                        ),
                    );
                }
                pending.extend(args);
            }
            ExprAst::Binary(_, x, y, _) => pending.extend([x.as_ref(), y.as_ref()]),
            _ => {}
        }
    }
}

fn call_item(c: &mut Compiler<'_>, e: &ExprAst) -> Option<CallItem> {
    match e {
        ExprAst::Value(v) => c.value(v).map(CallItem::Value),
        ExprAst::Call((name, _), args, whole) if name == "count" => match args.as_slice() {
            [ExprAst::Value(v)] => c.value(v).map(CallItem::Count),
            _ => {
                c.error(
                    whole,
                    "'count' takes one value (%name): a result of dynamic shape".to_string(),
                );
                None
            }
        },
        ExprAst::Call((name, _), args, whole) if TABLES.iter().any(|(n, _)| n == name) => {
            let mut kinds = TABLES.iter().find(|(n, _)| n == name)?.1.to_vec();
            // `packed` takes a dimension order after its value, of any length.
            if name == "packed" {
                kinds.resize(args.len().max(1), Param::Int);
            }
            let counts = args.clone();
            let args = params(c, name, &kinds, args, whole)?;
            // A literal count out of range is wrong for every op.
            let literal_count = |n: &Expr| match n {
                Expr::Int(v) if !(1..=MAX_TABLE_ENTRIES).contains(v) => Some(*v),
                _ => None,
            };
            let count_at = |k: usize| counts.get(k).map(ExprAst::span).unwrap_or(whole.clone());
            if let (Some(kind), [n, entry]) = (TableKind::of_name(name), args.as_slice()) {
                if let Some(v) = literal_count(n) {
                    c.error(
                        &count_at(0),
                        format!(
                            "{}: a table of {v} entries (1 to {MAX_TABLE_ENTRIES})",
                            kind.name()
                        ),
                    );
                    return None;
                }
                return Some(CallItem::Table(kind, n.clone(), entry.clone()));
            }
            if let (true, [_, _, _, n]) = (name == "requant_scales", args.as_slice())
                && let Some(v) = literal_count(n)
            {
                c.error(
                    &count_at(3),
                    format!("requant_scales: a table of {v} entries (1 to {MAX_TABLE_ENTRIES})"),
                );
                return None;
            }
            match args.as_slice() {
                [value] if name == "f32" => Some(CallItem::Float(value.clone())),
                [Expr::Value(x), Expr::Value(w), Expr::Value(y), n] => {
                    Some(CallItem::RequantScales([*x, *w, *y], n.clone()))
                }
                [Expr::Value(w), order @ ..] if name == "packed" => {
                    Some(CallItem::Packed(*w, order.to_vec()))
                }
                _ => None,
            }
        }
        _ => int_expr(c, e).map(CallItem::Int),
    }
}

impl TextIntrinsic {
    /// The types of the bound values.
    fn types(ir: &Ir, body: BodyId, b: &Bindings) -> Vec<Option<TypeId>> {
        b.values
            .iter()
            .map(|v| v.map(|v| ir.body(body).value_type(v)))
            .collect()
    }

    /// The clamp of each bound value a quantized op defines (its storage range, or
    /// a fused activation's).
    fn clamps(ctx: &Context, ir: &Ir, body: BodyId, b: &Bindings) -> Vec<Option<(i64, i64)>> {
        b.values
            .iter()
            .map(|v| {
                let v = (*v)?;
                let acc_ir::ValueDef::Result(op, _) = ir.body(body).value(v).def else {
                    return None;
                };
                crate::hooks::activation_bounds(ctx, ir.op(body, op)).ok()
            })
            .collect()
    }

    /// Checks that each per-channel table among the call's parameters (`multipliers`,
    /// `shifts`, `scales`, `bias`, `kernel_sum`) has one entry per output channel of
    /// the root `op` (dimension 1 of a convolution's result, the last of a matrix
    /// product's).
    fn check_param_tables(
        &self,
        ctx: &Context,
        ir: &Ir,
        body: BodyId,
        op: OpId,
        call: &[CallArg],
    ) -> Result<(), String> {
        let conv = crate::ops::graph::Qconv2d::is(ctx, ir.op(body, op));
        for (name, at) in &self.params {
            let n = match &call[*at] {
                CallArg::I32Table(t) => t.len(),
                CallArg::F32Table(t) => t.len(),
                _ => continue,
            };
            let Some(out) = ir.body(body).results(op).next() else {
                return Err("an op without results".into());
            };
            let shape = ctx
                .type_data(ir.body(body).value_type(out))
                .shape()
                .map(<[i64]>::to_vec)
                .ok_or("the result is not shaped")?;
            let channels = if conv { shape.get(1) } else { shape.last() }
                .copied()
                .ok_or("the result has no channel dimension")?;
            if n as i64 != channels {
                return Err(format!(
                    "'{name}' has {n} entries for the {channels} output channels"
                ));
            }
        }
        Ok(())
    }

    /// Why the match failed at the root: the first attribute that differs, or its
    /// operands.
    fn mismatch(&self, ctx: &Context, ir: &Ir, body: BodyId, op: OpId) -> String {
        let root = &self.matcher.matched[self.matcher.matched.len() - 1];
        let b = ir.body(body);
        if b.operands(op).len() != root.operands.len() {
            return format!(
                "it has {} operands, the match takes {}",
                b.operands(op).len(),
                root.operands.len()
            );
        }
        for (name, want) in &root.attrs {
            let found = ir.op(body, op).attr_sym(ctx, *name);
            if let AttrMatch::Equals(want) = want
                && found != Some(*want)
            {
                let show = |a: Option<acc_ir::AttrId>| {
                    a.map_or("absent".to_string(), |a| {
                        acc_ir::printer::attr_to_string(ctx, a)
                    })
                };
                return format!(
                    "its '{}' is {}, the match needs {}",
                    ctx.str(*name),
                    show(found),
                    show(Some(*want))
                );
            }
        }
        "its operands are not computed by the ops the match names".into()
    }
}

impl IntrinsicRule for TextIntrinsic {
    fn root(&self) -> &str {
        &self.root
    }

    fn place_with(
        &self,
        ctx: &Context,
        ir: &Ir,
        body: BodyId,
        op: OpId,
        prepared: Option<&[CallArg]>,
    ) -> Result<Placement, String> {
        let m = &self.matcher;
        let mut b = Bindings::new(m);
        if !m.match_op(ctx, ir.body(body), m.matched.len() - 1, op, &mut b) {
            return Err(self.mismatch(ctx, ir, body, op));
        }
        let types = Self::types(ir, body, &b);
        let clamps = Self::clamps(ctx, ir, body, &b);
        let constants = SlotConstants::new(ctx, ir, body, &b.values);
        let bound = Bound {
            ctx,
            types: &types,
            clamps: &clamps,
            captures: &b.captures,
            constants: Some(&constants),
        };
        let scope = Scope { ctx, ir, body };
        for (condition, text) in &self.conditions {
            match condition {
                Condition::Constraint(check, args) => {
                    let args: Option<Vec<ArgVal>> =
                        args.iter().map(|a| m.eval(&scope, a, &b)).collect();
                    if !args.is_some_and(|a| check(&scope, &a)) {
                        return Err(format!("'{text}' does not hold"));
                    }
                }
                Condition::Compare(cmp) => match cmp.check(&bound) {
                    Ok(None) => {}
                    Ok(Some((x, y))) => {
                        return Err(format!("'{text}' does not hold ({x} {} {y})", cmp.op));
                    }
                    Err(e) => return Err(format!("'{text}': {e}")),
                },
            }
        }
        if let Some(scheme) = crate::hooks::requantizes(ctx, ir.op(body, op))
            && !self.compiled
            && scheme != self.requant
        {
            return Err(format!(
                "the library requantizes in {} and this op in {} (its `requant`)",
                scheme_text(self.requant),
                scheme_text(scheme)
            ));
        }
        // A clamp narrower than the result's storage range (a fused activation) the
        // library would not apply unless the call passes it.
        if let Ok(clamp) = crate::hooks::activation_bounds(ctx, ir.op(body, op))
            && let Some(out) = ir.body(body).results(op).next()
            && Some(clamp) != crate::hooks::storage_range(ctx, ir.body(body).value_type(out))
            && !self.passes_clamp
            && !self.compiled
        {
            return Err(format!(
                "the op clamps its result to [{}, {}] (a fused activation) and the call passes no act_min(...) and act_max(...) of it",
                clamp.0, clamp.1
            ));
        }
        let cost = match &self.cost {
            Some(e) => e.eval(&bound).map_err(|e| format!("its cost: {e}"))?,
            None => 0,
        };
        let max = crate::lang::read::MAX_CYCLES;
        if !(0..=max).contains(&cost) {
            return Err(format!("its cost, {cost} cycles, is outside 0 to {max}"));
        }
        // Only the simulator reads the MACs: an expression that does not apply to
        // this op leaves its calls uncounted rather than refusing it; one that gives
        // a negative count or a peak below one a cycle is wrong.
        let macs = self
            .macs
            .as_ref()
            .and_then(|(work, peak)| Some((work.eval(&bound).ok()?, peak.eval(&bound).ok()?)));
        if let Some((work, peak)) = macs
            && (!(0..=i64::MAX / 2).contains(&work) || !(1..=max).contains(&peak))
        {
            return Err(format!(
                "its macs, {work} at {peak} per cycle, are not a count of 0 or more at 1 to {max} a cycle"
            ));
        }
        let mut call = Vec::new();
        let mut compile_time = Vec::new();
        let mut prepared = prepared.map(|p| p.iter());
        // The next prepared argument, when they are given, if it is of `kind`.
        let mut take_prepared = |kind: &str| -> Result<Option<CallArg>, String> {
            let Some(rest) = prepared.as_mut() else {
                return Ok(None);
            };
            match (rest.next(), kind) {
                (Some(a @ CallArg::F32Table(_)), "requant_scales")
                | (Some(a @ CallArg::Bytes(_)), "packed") => Ok(Some(a.clone())),
                (
                    Some(a @ (CallArg::I32Table(_) | CallArg::I16Table(_) | CallArg::F32Table(_))),
                    k,
                ) if TableKind::of_name(k).is_some() => Ok(Some(a.clone())),
                (Some(_), _) => Err(format!(
                    "its prepared argument for {kind}(...) is of another kind"
                )),
                (None, _) => Err(format!("it has no prepared argument for {kind}(...)")),
            }
        };
        for item in &self.call {
            call.push(match item {
                CallItem::Value(slot) => {
                    CallArg::Value(b.values[*slot].ok_or("a call argument is not bound")?)
                }
                CallItem::Int(e) => {
                    let v = e
                        .eval(&bound)
                        .map_err(|e| format!("a call argument: {e}"))?;
                    if i32::try_from(v).is_err() {
                        return Err(format!("a call argument ({v}) does not fit an int32_t"));
                    }
                    CallArg::Int(v)
                }
                CallItem::RequantScales(slots, n) => {
                    // The float scheme's multipliers: the intrinsic is `requant float`
                    // (checked when it loads), and so is the op (checked above).
                    let n = n.eval(&bound).map_err(|e| format!("requant_scales: {e}"))?;
                    if !(1..=MAX_TABLE_ENTRIES).contains(&n) {
                        return Err(format!(
                            "requant_scales: a table of {n} entries (1 to {MAX_TABLE_ENTRIES})"
                        ));
                    }
                    match take_prepared("requant_scales")? {
                        Some(CallArg::F32Table(t)) if t.len() as i64 == n => CallArg::F32Table(t),
                        Some(_) => {
                            return Err(format!(
                                "its prepared requantization table does not have {n} entries"
                            ));
                        }
                        None => CallArg::F32Table(requant_scales(ctx, slots.map(|s| types[s]), n)?),
                    }
                }
                CallItem::Table(kind, n, entry) => {
                    let n = n
                        .eval(&bound)
                        .map_err(|e| format!("{}: {e}", kind.name()))?;
                    if !(1..=MAX_TABLE_ENTRIES).contains(&n) {
                        return Err(format!(
                            "{}: a table of {n} entries (1 to {MAX_TABLE_ENTRIES})",
                            kind.name()
                        ));
                    }
                    match take_prepared(kind.name())? {
                        Some(a) if kind.holds(&a, n as usize) => a,
                        Some(_) => {
                            return Err(format!(
                                "its prepared {} is not of {n} entries",
                                kind.name()
                            ));
                        }
                        None => {
                            let values = (0..n as usize)
                                .map(|c| entry.eval_real(&bound, c))
                                .collect::<Result<Vec<f64>, String>>()
                                .map_err(|e| format!("{}: {e}", kind.name()))?;
                            kind.argument(&values)?
                        }
                    }
                }
                CallItem::Float(e) => {
                    let v = e.eval_real(&bound, 0).map_err(|e| format!("f32: {e}"))?;
                    let f = v as f32;
                    if !f.is_finite() {
                        return Err(format!("f32: {v} does not fit a float"));
                    }
                    CallArg::Float(f)
                }
                CallItem::Count(slot) => {
                    CallArg::Count(b.values[*slot].ok_or("a call argument is not bound")?)
                }
                CallItem::Packed(slot, order) => {
                    let v = b.values[*slot].ok_or("a call argument is not bound")?;
                    let order = order
                        .iter()
                        .map(|e| e.eval(&bound).map_err(|e| format!("packed: {e}")))
                        .collect::<Result<Vec<i64>, String>>()?;
                    compile_time.push(v);
                    match take_prepared("packed")? {
                        Some(CallArg::Bytes(b))
                            if b.len() == packed_len(ctx, ir, body, v, &order)? =>
                        {
                            CallArg::Bytes(b)
                        }
                        Some(_) => {
                            return Err(
                                "its prepared packed bytes are not as many as the value packs into"
                                    .into(),
                            );
                        }
                        None => CallArg::Bytes(packed(ctx, ir, body, v, &order)?),
                    }
                }
            });
        }
        if prepared.as_mut().is_some_and(|rest| rest.next().is_some()) {
            return Err("it has more prepared arguments than its call computes".into());
        }
        // An operand a table reads (`weight_sum(%w, 0)`, `element(%b)`) and the call
        // does not pass as a buffer reaches the library only through the table.
        for (slot, v) in b.values.iter().enumerate() {
            let read = self.call.iter().any(|item| match item {
                CallItem::Table(_, _, entry) => {
                    entry.calls("weight_sum", slot) || entry.calls("element", slot)
                }
                _ => false,
            });
            if let Some(v) = v
                && read
                && !call.contains(&CallArg::Value(*v))
                && !compile_time.contains(v)
            {
                compile_time.push(*v);
            }
        }
        self.check_param_tables(ctx, ir, body, op, &call)?;
        let bounds = bounded_results(ctx, ir, body, op, &call)?;
        let mut layouts = Vec::new();
        for (slot, layout) in &self.layouts {
            let v = b.values[*slot].ok_or("a layout's value is not bound")?;
            if !call.contains(&CallArg::Value(v)) {
                return Err(format!(
                    "layout {layout} is for a value the call does not pass as a buffer"
                ));
            }
            let shape = ctx.type_data(ir.body(body).value_type(v)).shape();
            if shape.map(<[i64]>::len) != Some(layout.rank()) {
                return Err(format!(
                    "layout {layout} has {} dimensions, its value {}",
                    layout.rank(),
                    shape.map_or("is not shaped".to_string(), |s| format!("has {}", s.len()))
                ));
            }
            if layout.block.is_some() && shape.is_some_and(|s| s.contains(&acc_ir::DYNAMIC)) {
                return Err(format!("layout {layout} blocks a value of dynamic shape"));
            }
            layouts.push((v, layout.clone()));
        }
        let mut layouts_like = Vec::new();
        for (a, b2) in &self.layouts_like {
            let pair = (b.values[*a], b.values[*b2]);
            let (Some(x), Some(y)) = pair else {
                return Err("a layout's value is not bound".into());
            };
            if !call.contains(&CallArg::Value(x)) || !call.contains(&CallArg::Value(y)) {
                return Err("a layout is for a value the call does not pass as a buffer".into());
            }
            let shape = |v| {
                ctx.type_data(ir.body(body).value_type(v))
                    .shape()
                    .map(<[i64]>::to_vec)
            };
            if shape(x) != shape(y) {
                return Err("'like' layouts need values of one shape".into());
            }
            layouts_like.push((x, y));
        }
        Ok(Placement {
            params: self.params.clone(),
            cost,
            macs,
            call,
            compile_time,
            layouts,
            layouts_like,
            bounds,
        })
    }
}

/// The results of `op` of dynamic shape the call passes, each with the static shape
/// of the buffer it gets (its bound): each must be passed as a buffer and with
/// `count(...)`, and `count(...)` names only such results.
fn bounded_results(
    ctx: &Context,
    ir: &Ir,
    body: BodyId,
    op: OpId,
    call: &[CallArg],
) -> Result<Vec<(ValueId, Vec<i64>)>, String> {
    let results: Vec<ValueId> = ir.body(body).results(op).collect();
    let dynamic = |v: ValueId| {
        ctx.type_data(ir.body(body).value_type(v))
            .shape()
            .is_some_and(|s| s.contains(&acc_ir::DYNAMIC))
    };
    let mut bounds = Vec::new();
    for arg in call {
        if let CallArg::Count(v) = arg
            && !results.iter().any(|r| r == v && dynamic(*v))
        {
            return Err("count(...) names a value that is not a result of dynamic shape".into());
        }
    }
    for (k, r) in results.iter().enumerate() {
        if !dynamic(*r) || !call.contains(&CallArg::Value(*r)) {
            continue;
        }
        if !call.contains(&CallArg::Count(*r)) {
            return Err("its result has a dynamic shape: the call must pass count(...) of it, where the library writes how many rows it wrote".into());
        }
        let bound = crate::hooks::nms::bounded_result_shape(ctx, ir, body, op, k)
            .ok_or("its result has a dynamic shape with no static bound")?;
        bounds.push((*r, bound));
    }
    Ok(bounds)
}

/// The buffer layout `"NCHW" -> "NCHW16c"` names: `from` the value's dimensions
/// (plain letters, in the value's order), `to` how the buffer stores them (each of
/// `from`'s letters once, and at most one block, innermost), or why it is not one.
fn named_layout(from: &str, to: &str) -> Result<BufferLayout, String> {
    use crate::hooks::layout::Layout;
    let value = Layout::parse(from)?;
    let stored = Layout::parse(to)?;
    if value.dims.iter().any(|d| d.block.is_some()) {
        return Err(format!(
            "layout \"{from}\" names the value's dimensions: it has no blocks"
        ));
    }
    let position = |letter: char| value.dims.iter().position(|d| d.letter == letter);
    let outer: Vec<_> = stored.dims.iter().filter(|d| d.block.is_none()).collect();
    let blocks: Vec<_> = stored.dims.iter().filter(|d| d.block.is_some()).collect();
    let same_letters =
        outer.len() == value.dims.len() && outer.iter().all(|d| position(d.letter).is_some());
    if !same_letters {
        return Err(format!(
            "layout \"{to}\" must store each dimension of \"{from}\" once"
        ));
    }
    let perm = outer
        .iter()
        .filter_map(|d| position(d.letter).map(|p| p as i64))
        .collect();
    let block = match blocks.as_slice() {
        [] => None,
        [b] if stored.dims.last() == Some(*b) => position(b.letter).zip(b.block),
        _ => {
            return Err(format!(
                "layout \"{to}\": acc's buffers hold at most one block, innermost (as \"NCHW16c\")"
            ));
        }
    };
    Ok(BufferLayout { perm, block })
}

/// A scheme as the target file names it.
fn scheme_text(scheme: Scheme) -> &'static str {
    match scheme {
        Scheme::Float => "float",
        Scheme::FixedPoint => "fixed_point",
    }
}
