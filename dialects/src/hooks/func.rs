//! Rust hooks of the `func` dialect (`defs/func.acc`): the custom form of `func.func`,
//! and the verifiers that look beyond one op (function signatures, callees).
//!
//! `func.func` keeps `sym_name`, `function_type`, `sym_visibility`, `arg_attrs` and
//! `res_attrs` as properties, as MLIR 22 prints them in generic form.

use crate::ops::func;
use acc_ir::attrs::{AttrData, AttrId};
use acc_ir::parser::lexer::Tok;
use acc_ir::parser::{CustomParse, OperationState, PResult, RegionArg};
use acc_ir::printer::OpPrinter;
use acc_ir::{Context, CustomSyntax, DiagLoc, Diagnostic, OpRef, Sym, TypeData, TypeId};

use crate::syntax::{
    make_props, parse_optional_attributes, print_remaining_attrs, remaining_attrs, shape_error,
    string_value, verify_symbol_attrs,
};

fn err(op: OpRef<'_>, msg: String) -> Vec<Diagnostic> {
    vec![Diagnostic::error(DiagLoc::Loc(op.loc()), msg)]
}

/// The `(inputs, results)` of a function op's `function_type`.
pub fn function_signature(ctx: &Context, op: OpRef<'_>) -> Option<(Vec<TypeId>, Vec<TypeId>)> {
    let attr = op.attr(ctx, func::Func::ATTR_FUNCTION_TYPE)?;
    let AttrData::Type(t) = ctx.attr_data(attr) else {
        return None;
    };
    match ctx.type_data(*t) {
        TypeData::Function { inputs, results } => Some((inputs.to_vec(), results.to_vec())),
        _ => None,
    }
}

/// The discardable attribute of a function whose results include buffers of bounded
/// size (set by `bufferize` for a result of dynamic shape): `array<i64: r, d, s, ...>`,
/// triples saying that dimension `d` of result `r` (a static bound) holds, at run
/// time, as many elements as the `index` result `s` says; the rest is padding.
pub const RESULT_SIZES: &str = "loop.result_sizes";

/// The discardable attribute of a function `memory-plan` planned: the bytes of its
/// arena in the host's memory (an `i64`), which the back ends allocate once.
pub const ARENA_SIZE: &str = "loop.arena_size";

/// The discardable attribute of a function `memory-plan` planned with buffers in other
/// memories: a dictionary from each memory's name to the bytes of its arena.
pub const ARENA_SIZES: &str = "loop.arena_sizes";

/// The discardable attribute of a function whose host arena the target places in a
/// linker section (`memory NAME ... section ".sec"`): the section's name, which the
/// C back end gives the arena.
pub const ARENA_SECTION: &str = "loop.arena_section";

/// The same for the arenas in other memories: a dictionary from memory name to
/// section.
pub const ARENA_SECTIONS: &str = "loop.arena_sections";

/// The `(result, dimension, size result)` triples of [`RESULT_SIZES`] on the function
/// `op` (none without the attribute); an error when they do not fit its signature.
pub fn result_sizes(ctx: &Context, op: OpRef<'_>) -> Result<Vec<[usize; 3]>, String> {
    let attrs = super::attr_read::Attrs::of_op(ctx, op);
    let Some(values) = attrs.ints(RESULT_SIZES)? else {
        return Ok(Vec::new());
    };
    let results = function_signature(ctx, op).map(|s| s.1).unwrap_or_default();
    if values.len() % 3 != 0 {
        return Err(format!(
            "'{RESULT_SIZES}' must hold (result, dimension, size result) triples"
        ));
    }
    let mut triples = Vec::new();
    for t in values.chunks_exact(3) {
        let at = |v: i64| usize::try_from(v).ok().filter(|i| *i < results.len());
        let (Some(r), Some(s)) = (at(t[0]), at(t[2])) else {
            return Err(format!(
                "'{RESULT_SIZES}' names result {} or {} of a function with {}",
                t[0],
                t[2],
                results.len()
            ));
        };
        let rank = ctx.type_data(results[r]).shape().map_or(0, <[i64]>::len);
        let d = usize::try_from(t[1])
            .ok()
            .filter(|d| *d < rank)
            .ok_or_else(|| format!("'{RESULT_SIZES}': result {r} has no dimension {}", t[1]))?;
        if r == s || !matches!(ctx.type_data(results[s]), TypeData::Index) {
            return Err(format!(
                "'{RESULT_SIZES}': the size of result {r} must be another result, of type index"
            ));
        }
        triples.push([r, d, s]);
    }
    Ok(triples)
}

/// What a C header says of result `r` beyond its type when it has a bounded size:
/// `, of which the first *NAME are valid along dimension D` for each of its triples
/// (`name` gives a result's parameter name).
pub fn result_size_note(
    triples: &[[usize; 3]],
    r: usize,
    name: &dyn Fn(usize) -> String,
) -> String {
    triples
        .iter()
        .filter(|t| t[0] == r)
        .map(|[_, d, s]| {
            format!(
                ", of which the first *{} are valid along dimension {d}",
                name(*s)
            )
        })
        .collect()
}

/// The names `func.func` prints itself rather than in its attribute dictionary.
const FUNC_PRINTED_ATTRS: [&str; 5] = [
    func::Func::ATTR_SYM_NAME,
    func::Func::ATTR_FUNCTION_TYPE,
    func::Func::ATTR_SYM_VISIBILITY,
    func::Func::ATTR_ARG_ATTRS,
    func::Func::ATTR_RES_ATTRS,
];

pub(crate) fn verify_func(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let shape = shape_error(op, func::Func::NAME, Some(0), 0, 1, 0);
    if !shape.is_empty() {
        return shape;
    }
    let symbol = verify_symbol_attrs(op, ctx, func::Func::NAME);
    if !symbol.is_empty() {
        return symbol;
    }
    if op
        .attr(ctx, func::Func::ATTR_SYM_NAME)
        .and_then(|a| string_value(ctx, a))
        .is_none()
    {
        return err(
            op,
            "'func.func' op requires string attribute 'sym_name'".into(),
        );
    }
    let Some((inputs, _)) = function_signature(ctx, op) else {
        return err(
            op,
            "'func.func' op requires attribute 'function_type' to be a function type".into(),
        );
    };
    let (inputs_len, results_len) = function_signature(ctx, op)
        .map(|(i, r)| (i.len(), r.len()))
        .unwrap_or_default();
    for (key, expected) in [
        (func::Func::ATTR_ARG_ATTRS, inputs_len),
        (func::Func::ATTR_RES_ATTRS, results_len),
    ] {
        let Some(a) = op.attr(ctx, key) else { continue };
        let ok = matches!(ctx.attr_data(a), AttrData::Array(items)
            if items.len() == expected && items.iter().all(|d| matches!(ctx.attr_data(*d), AttrData::Dictionary(_))));
        if !ok {
            return err(
                op,
                format!("'func.func' op expects '{key}' to be an array of {expected} dictionaries"),
            );
        }
    }
    if let Err(m) = result_sizes(ctx, op) {
        return err(op, format!("'func.func' op {m}"));
    }
    let body = op.ir.body(op.region_body());
    let region = op.regions()[0];
    if let Some(entry) = body.entry_block(region) {
        let args = body.block_args(entry);
        if args.len() != inputs.len() {
            return err(
                op,
                format!(
                    "entry block must have {} arguments to match function signature",
                    inputs.len()
                ),
            );
        }
        for (i, (&a, &t)) in args.iter().zip(&inputs).enumerate() {
            if body.value_type(a) != t {
                let (want, got) = (
                    acc_ir::printer::type_to_string(ctx, t),
                    acc_ir::printer::type_to_string(ctx, body.value_type(a)),
                );
                return err(
                    op,
                    format!(
                        "type of entry block argument #{i}({got}) must match the type of the corresponding argument in function signature({want})"
                    ),
                );
            }
        }
    } else if op
        .attr(ctx, func::Func::ATTR_SYM_VISIBILITY)
        .and_then(|a| string_value(ctx, a))
        != Some("private")
    {
        return err(
            op,
            "'func.func' op symbol declaration cannot have public visibility".into(),
        );
    }
    Vec::new()
}

pub(crate) fn verify_return(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let shape = shape_error(op, func::Return::NAME, None, 0, 0, 0);
    if !shape.is_empty() {
        return shape;
    }
    let Some(parent) = op.parent_op() else {
        return err(op, "'func.return' op expects parent op 'func.func'".into());
    };
    if !func::Func::is(ctx, parent) {
        return err(op, "'func.return' op expects parent op 'func.func'".into());
    }
    let Some((_, results)) = function_signature(ctx, parent) else {
        return Vec::new();
    };
    let types = op.operand_types();
    let fname = parent
        .attr(ctx, func::Func::ATTR_SYM_NAME)
        .and_then(|a| string_value(ctx, a))
        .unwrap_or("");
    if types.len() != results.len() {
        return err(
            op,
            format!(
                "'func.return' op has {} operands, but enclosing function (@{fname}) returns {}",
                types.len(),
                results.len()
            ),
        );
    }
    for (i, (t, r)) in types.iter().zip(&results).enumerate() {
        if t != r {
            return err(
                op,
                format!(
                    "'func.return' op type of return operand {i} ({}) doesn't match function result type ({}) in function @{fname}",
                    acc_ir::printer::type_to_string(ctx, *t),
                    acc_ir::printer::type_to_string(ctx, *r)
                ),
            );
        }
    }
    Vec::new()
}

pub(crate) fn verify_call(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let shape = shape_error(op, func::Call::NAME, None, op.results().len(), 0, 0);
    if !shape.is_empty() {
        return shape;
    }
    let Some(callee) = op.attr(ctx, func::Call::ATTR_CALLEE) else {
        return err(op, "'func.call' op requires attribute 'callee'".into());
    };
    let AttrData::SymbolRef { root, nested } = ctx.attr_data(callee) else {
        return err(
            op,
            "'func.call' op requires 'callee' to be a symbol reference".into(),
        );
    };
    if !nested.is_empty() {
        return Vec::new();
    }
    let name = ctx.str(*root);
    let Some(f) = crate::syntax::lookup_symbol(op, ctx, *root).filter(|f| func::Func::is(ctx, *f))
    else {
        return err(
            op,
            format!("'func.call' op '{name}' does not reference a valid function"),
        );
    };
    let Some((inputs, results)) = function_signature(ctx, f) else {
        return Vec::new();
    };
    let types = op.operand_types();
    if types.len() != inputs.len() {
        return err(
            op,
            "'func.call' op incorrect number of operands for callee".into(),
        );
    }
    if types != inputs {
        return err(
            op,
            "'func.call' op operand type mismatch with callee signature".into(),
        );
    }
    if op.result_types() != results {
        return err(
            op,
            "'func.call' op result type mismatch with callee signature".into(),
        );
    }
    Vec::new()
}

/// Writes `type {attrs}` items of a signature.
fn print_sig_item(p: &mut OpPrinter<'_, '_>, dict: Option<AttrId>) {
    if let Some(d) = dict
        && !p.ctx().dict_entries(d).is_empty()
    {
        p.print_optional_attr_dict(d, &[]);
    }
}

fn array_item(ctx: &Context, array: Option<AttrId>, i: usize) -> Option<AttrId> {
    match array.map(|a| ctx.attr_data(a)) {
        Some(AttrData::Array(items)) => items.get(i).copied(),
        _ => None,
    }
}

pub(crate) struct FuncSyntax;

impl CustomSyntax for FuncSyntax {
    fn can_print(&self, op: OpRef<'_>, ctx: &Context) -> bool {
        verify_func(op, ctx).is_empty() && remaining_attrs(ctx, op, &FUNC_PRINTED_ATTRS).is_some()
    }

    fn print(&self, p: &mut OpPrinter<'_, '_>, op: OpRef<'_>) -> std::fmt::Result {
        let ctx = p.ctx();
        if let Some(v) = op
            .attr(ctx, func::Func::ATTR_SYM_VISIBILITY)
            .and_then(|a| string_value(ctx, a))
        {
            p.write_str(" ");
            p.write_str(v);
        }
        p.write_str(" ");
        let mut s = String::new();
        acc_ir::printer::write_symbol(
            &mut s,
            op.attr(ctx, func::Func::ATTR_SYM_NAME)
                .and_then(|a| string_value(ctx, a))
                .unwrap_or(""),
        );
        p.write_str(&s);
        let (inputs, results) = function_signature(ctx, op).unwrap_or_default();
        let arg_attrs = op.attr(ctx, func::Func::ATTR_ARG_ATTRS);
        let res_attrs = op.attr(ctx, func::Func::ATTR_RES_ATTRS);
        let body = op.ir.body(op.region_body());
        let entry = op.regions().first().and_then(|r| body.entry_block(*r));
        p.write_str("(");
        for (i, &t) in inputs.iter().enumerate() {
            if i > 0 {
                p.write_str(", ");
            }
            let arg = entry.and_then(|e| body.block_args(e).get(i).copied());
            match arg {
                Some(arg) => p.with_body(op.region_body(), |p| p.print_arg_name_and_type(arg)),
                None => p.print_type(t),
            }
            print_sig_item(p, array_item(ctx, arg_attrs, i));
            if let Some(arg) = arg {
                p.with_body(op.region_body(), |p| p.print_arg_loc(arg));
            }
        }
        p.write_str(")");
        if !results.is_empty() {
            p.write_str(" -> ");
            let any_attrs = (0..results.len()).any(|i| {
                array_item(ctx, res_attrs, i).is_some_and(|d| !ctx.dict_entries(d).is_empty())
            });
            let bare = results.len() == 1
                && !any_attrs
                && !matches!(ctx.type_data(results[0]), TypeData::Function { .. });
            if !bare {
                p.write_str("(");
            }
            for (i, &t) in results.iter().enumerate() {
                if i > 0 {
                    p.write_str(", ");
                }
                p.print_type(t);
                print_sig_item(p, array_item(ctx, res_attrs, i));
            }
            if !bare {
                p.write_str(")");
            }
        }
        print_remaining_attrs(p, op, &FUNC_PRINTED_ATTRS, " attributes ");
        if entry.is_some() {
            p.write_str(" ");
            p.print_region_of(op, op.regions()[0], false, false);
        }
        Ok(())
    }

    fn parse(&self, cp: &mut CustomParse<'_, '_, '_>, state: &mut OperationState) -> PResult<()> {
        let mut props: Vec<(Sym, AttrId)> = Vec::new();
        for vis in ["private", "public", "nested"] {
            if cp.p.try_keyword(vis) {
                let a = cp.p.context().string_attr(vis);
                let k = cp.p.context().sym(func::Func::ATTR_SYM_VISIBILITY);
                props.push((k, a));
                break;
            }
        }
        let name = cp.p.parse_symbol_name()?;
        let name_text = cp.p.context().str(name).to_string();
        let name_attr = cp.p.context().string_attr(&name_text);
        let k = cp.p.context().sym(func::Func::ATTR_SYM_NAME);
        props.push((k, name_attr));
        // Arguments: `%a: T {attrs} loc(..)` (definition) or `T {attrs}` (declaration).
        cp.p.expect(Tok::LParen, "'(' to start the argument list")?;
        let mut args: Vec<RegionArg<'_>> = Vec::new();
        let mut inputs = Vec::new();
        let mut arg_attrs = Vec::new();
        let mut named = None;
        cp.p.parse_comma_list_until(Tok::RParen, "')' or ','", |p| {
            let is_named = p.peek() == Tok::ValueId;
            if *named.get_or_insert(is_named) != is_named {
                return p.err("expected SSA identifier: all arguments must be named or none");
            }
            let ty = if is_named {
                let a = p.parse_region_argument_no_loc()?;
                let t = a.ty;
                args.push(a);
                t
            } else {
                p.parse_type()?
            };
            inputs.push(ty);
            let attrs = if p.peek() == Tok::LBrace {
                p.parse_attr_dict()?
            } else {
                Vec::new()
            };
            let d = p.context().intern_attr(AttrData::Dictionary(attrs.into()));
            arg_attrs.push(d);
            if is_named && let Some(a) = args.last_mut() {
                p.parse_optional_arg_loc(a)?;
            }
            Ok(())
        })?;
        let mut results = Vec::new();
        let mut res_attrs = Vec::new();
        if cp.p.try_consume(Tok::Arrow) {
            if cp.p.try_consume(Tok::LParen) {
                cp.p.parse_comma_list_until(Tok::RParen, "')' or ','", |p| {
                    results.push(p.parse_type()?);
                    let attrs = if p.peek() == Tok::LBrace {
                        p.parse_attr_dict()?
                    } else {
                        Vec::new()
                    };
                    res_attrs.push(p.context().intern_attr(AttrData::Dictionary(attrs.into())));
                    Ok(())
                })?;
            } else {
                results.push(cp.p.parse_type()?);
                let empty = cp.p.context().empty_dict();
                res_attrs.push(empty);
            }
        }
        let ctx = cp.p.context();
        let fty = ctx.function_type(&inputs, &results);
        let fty_attr = ctx.type_attr(fty);
        props.push((ctx.sym(func::Func::ATTR_FUNCTION_TYPE), fty_attr));
        let empty = ctx.empty_dict();
        if arg_attrs.iter().any(|&d| d != empty) {
            let a = ctx.intern_attr(AttrData::Array(arg_attrs.into()));
            props.push((ctx.sym(func::Func::ATTR_ARG_ATTRS), a));
        }
        if res_attrs.iter().any(|&d| d != empty) {
            let a = ctx.intern_attr(AttrData::Array(res_attrs.into()));
            props.push((ctx.sym(func::Func::ATTR_RES_ATTRS), a));
        }
        parse_optional_attributes(cp.p, &mut state.attrs)?;
        state.props = Some(make_props(cp, props)?);
        if cp.p.peek() == Tok::LBrace {
            if named == Some(false) && !inputs.is_empty() {
                return cp
                    .p
                    .err("expected named arguments (%name: type) for a function with a body");
            }
            cp.parse_region(state, &args)?;
        } else {
            // A declaration still owns an empty region.
            let body = *state.nested.get_or_insert_with(|| cp.ir.new_body());
            let region = cp.ir.body_mut(body).new_top_region();
            state.regions.push(region);
        }
        Ok(())
    }
}
