//! Rust hooks of the `loop` dialect (`defs/loop.acc`): the custom forms of `loop.for`
//! and `loop.parallel` (whose induction variables are named in the op's header, as in
//! MLIR's scf), and the verifiers of loops, allocations, views and indexed accesses.

use crate::ops::loops;
use acc_ir::attrs::AttrData;
use acc_ir::parser::lexer::Tok;
use acc_ir::parser::{CustomParse, OperationState, PResult, RegionArg};
use acc_ir::printer::OpPrinter;
use acc_ir::{
    AttrId, Context, CustomSyntax, DYNAMIC, DiagLoc, Diagnostic, OpRef, TypeData, TypeId,
};

use super::attr_read::{Attrs, is_dyn};
use crate::syntax::{print_remaining_attrs, remaining_attrs};

type Check = Result<(), String>;

fn report(op: OpRef<'_>, ctx: &Context, result: Check) -> Vec<Diagnostic> {
    match result {
        Ok(()) => Vec::new(),
        Err(m) => vec![Diagnostic::error(
            DiagLoc::Loc(op.loc()),
            format!("'{}' op {m}", ctx.op_name_str(op.name())),
        )],
    }
}

fn show(ctx: &Context, types: &[TypeId]) -> String {
    types
        .iter()
        .map(|t| acc_ir::printer::type_to_string(ctx, *t))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The types of the entry block arguments of region 0.
fn body_args(op: OpRef<'_>) -> Result<Vec<TypeId>, String> {
    let body = op.ir.body(op.region_body());
    let region = *op.regions().first().ok_or("needs a body region")?;
    let block = body.entry_block(region).ok_or("needs a body block")?;
    Ok(body
        .block_args(block)
        .iter()
        .map(|v| body.value_type(*v))
        .collect())
}

fn yield_types(op: OpRef<'_>, ctx: &Context) -> Result<Vec<TypeId>, String> {
    let body = op.ir.body(op.region_body());
    let region = *op.regions().first().ok_or("needs a body region")?;
    let block = body.entry_block(region).ok_or("needs a body block")?;
    let last = body.last_op(block).ok_or("body must end with loop.yield")?;
    let term = op.ir.op(op.region_body(), last);
    if !loops::Yield::is(ctx, term) {
        return Err("body must end with loop.yield".into());
    }
    Ok(term.operand_types())
}

/// The value of operand `i` of `op` when a constant-like op (`arith.constant`) defines it
/// as an integer.
pub fn constant_operand(op: OpRef<'_>, ctx: &Context, i: usize) -> Option<i128> {
    let b = op.ir.body(op.body);
    let v = op.operands().nth(i)?;
    let acc_ir::ValueDef::Result(def, 0) = b.value(v).def else {
        return None;
    };
    let def = op.ir.op(op.body, def);
    if !ctx
        .op_def(def.name())
        .is_some_and(|d| d.traits.constant_like)
    {
        return None;
    }
    match ctx.attr_data(def.attr_sym(ctx, ctx.value_sym())?) {
        acc_ir::AttrData::Integer { value, .. } => Some(*value),
        _ => None,
    }
}

/// A step known at compile time must be positive, as MLIR's `scf.for` requires: a zero
/// step would never end, a negative one never start.
fn positive_step(op: OpRef<'_>, ctx: &Context, step: usize) -> Result<(), String> {
    match constant_operand(op, ctx, step) {
        Some(s) if s <= 0 => Err(format!("constant step operand must be positive, not {s}")),
        _ => Ok(()),
    }
}

fn index_type(ctx: &Context) -> Result<TypeId, String> {
    ctx.lookup_type(&TypeData::Index)
        .ok_or_else(|| "index is missing from the context".to_string())
}

/// `loop.for`: the body takes the induction variable and the carried values, yields
/// values of the carried types, which are the result types.
pub(crate) fn verify_for(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let result = (|| {
        positive_step(op, ctx, 2)?;
        let inits: Vec<TypeId> = op.operand_types()[3..].to_vec();
        let results = op.result_types();
        if inits != results {
            return Err(format!(
                "carries ({}) in but gives ({}) out",
                show(ctx, &inits),
                show(ctx, &results)
            ));
        }
        let args = body_args(op)?;
        let mut want = vec![index_type(ctx)?];
        want.extend(&inits);
        if args != want {
            return Err(format!(
                "body arguments must be ({}), but are ({})",
                show(ctx, &want),
                show(ctx, &args)
            ));
        }
        let yielded = yield_types(op, ctx)?;
        if yielded != inits {
            return Err(format!(
                "body yields ({}), but carries ({})",
                show(ctx, &yielded),
                show(ctx, &inits)
            ));
        }
        Ok(())
    })();
    report(op, ctx, result)
}

/// `loop.parallel`: as many lower bounds, upper bounds and steps as body arguments,
/// all `index`; the body yields nothing.
pub(crate) fn verify_parallel(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let result = (|| {
        let sizes = crate::lang::segment_sizes(ctx, op, false)
            .ok_or("requires a valid 'operandSegmentSizes'")?;
        if sizes.len() != 3 || sizes[0] != sizes[1] || sizes[1] != sizes[2] {
            return Err(format!(
                "needs as many lower bounds, upper bounds and steps, but has {sizes:?}"
            ));
        }
        for step in 2 * sizes[0]..3 * sizes[0] {
            positive_step(op, ctx, step)?;
        }
        let args = body_args(op)?;
        if args != vec![index_type(ctx)?; sizes[0]] {
            return Err(format!("body must take {} index arguments", sizes[0]));
        }
        if !yield_types(op, ctx)?.is_empty() {
            return Err("body must yield nothing".into());
        }
        Ok(())
    })();
    report(op, ctx, result)
}

/// `loop.alloc`: one size operand per dynamic dimension.
pub(crate) fn verify_alloc(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let result = (|| {
        let t = op.result_types()[0];
        let shape = ctx
            .type_data(t)
            .shape()
            .ok_or("allocates a ranked memref")?;
        let dynamic = shape.iter().filter(|d| is_dyn(**d)).count();
        if dynamic != op.operands().len() {
            return Err(format!(
                "has {} size operands for {dynamic} dynamic dimensions",
                op.operands().len()
            ));
        }
        Ok(())
    })();
    report(op, ctx, result)
}

/// Load, store, vload, vstore, tensor.extract and tensor.insert: one index per
/// dimension of the first shaped operand, after it.
pub(crate) fn verify_indices(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let result = (|| {
        let types = op.operand_types();
        let at = types
            .iter()
            .position(|t| {
                ctx.type_data(*t).shape().is_some()
                    && ctx.type_data(*t).element_type().is_some()
                    && !matches!(ctx.type_data(*t), TypeData::Vector { .. })
            })
            .ok_or("needs a ranked buffer or tensor")?;
        let rank = ctx.type_data(types[at]).shape().map_or(0, <[i64]>::len);
        let indices = types.len() - at - 1;
        if indices != rank {
            return Err(format!(
                "needs {rank} indices, one per dimension, but has {indices}"
            ));
        }
        Ok(())
    })();
    report(op, ctx, result)
}

/// The strides and offset of a memref's layout: its `strided<...>` layout, or the
/// row-major strides of its shape at offset 0.
pub fn memref_strides(ctx: &Context, t: TypeId) -> Result<(Vec<i64>, i64), String> {
    let TypeData::MemRef { shape, layout, .. } = ctx.type_data(t) else {
        return Err("expected a ranked memref".into());
    };
    match layout.map(|l| ctx.attr_data(l)) {
        None => {
            let mut strides = vec![1i64; shape.len()];
            for i in (0..shape.len().saturating_sub(1)).rev() {
                strides[i] = if is_dyn(strides[i + 1]) || is_dyn(shape[i + 1]) {
                    DYNAMIC
                } else {
                    strides[i + 1] * shape[i + 1]
                };
            }
            Ok((strides, 0))
        }
        Some(AttrData::Strided { strides, offset }) => Ok((strides.to_vec(), *offset)),
        Some(_) => Err("views need a strided or identity layout".into()),
    }
}

fn mul(a: i64, b: i64) -> i64 {
    if is_dyn(a) || is_dyn(b) {
        DYNAMIC
    } else {
        a.saturating_mul(b)
    }
}

fn add(a: i64, b: i64) -> i64 {
    if is_dyn(a) || is_dyn(b) {
        DYNAMIC
    } else {
        a.saturating_add(b)
    }
}

/// `loop.subview`: the result has the sizes as shape, and the strided layout of the
/// window in the source.
pub(crate) fn verify_subview(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let result = (|| {
        let src = op.operand_types()[0];
        let out = op.result_types()[0];
        let (src_strides, src_offset) = memref_strides(ctx, src)?;
        let attrs = Attrs::of_op(ctx, op);
        let rank = src_strides.len();
        let list = |name: &str| -> Result<Vec<i64>, String> {
            let v = attrs
                .ints(name)?
                .ok_or(format!("requires attribute '{name}'"))?;
            if v.len() != rank {
                return Err(format!("'{name}' has {} values for rank {rank}", v.len()));
            }
            Ok(v)
        };
        let (offsets, sizes, strides) = (
            list(loops::Subview::ATTR_STATIC_OFFSETS)?,
            list(loops::Subview::ATTR_STATIC_SIZES)?,
            list(loops::Subview::ATTR_STATIC_STRIDES)?,
        );
        let sizes_in_ops: usize = crate::lang::segment_sizes(ctx, op, false)
            .map(|s| s[1..].iter().sum())
            .unwrap_or(0);
        let dynamic = [&offsets, &sizes, &strides]
            .iter()
            .map(|l| l.iter().filter(|v| is_dyn(**v)).count())
            .sum::<usize>();
        if dynamic != sizes_in_ops {
            return Err(format!(
                "has {dynamic} dynamic entries but {sizes_in_ops} index operands"
            ));
        }
        let want_strides: Vec<i64> = src_strides
            .iter()
            .zip(&strides)
            .map(|(a, b)| mul(*a, *b))
            .collect();
        let want_offset = offsets
            .iter()
            .zip(&src_strides)
            .fold(src_offset, |acc, (o, s)| add(acc, mul(*o, *s)));
        let TypeData::MemRef { shape, element, .. } = ctx.type_data(out) else {
            return Err("the result must be a ranked memref".into());
        };
        let src_element = ctx.type_data(src).element_type();
        if Some(*element) != src_element || shape.to_vec() != sizes {
            return Err(format!(
                "the result must be a memref of shape {sizes:?} with the source's element type"
            ));
        }
        let (got_strides, got_offset) = memref_strides(ctx, out)?;
        if got_strides != want_strides || got_offset != want_offset {
            return Err(format!(
                "the result's layout must be strided<{want_strides:?}, offset: {}>",
                if is_dyn(want_offset) {
                    "?".to_string()
                } else {
                    want_offset.to_string()
                }
            ));
        }
        Ok(())
    })();
    report(op, ctx, result)
}

/// `loop.for %i = %lb to %ub step %s [iter_args(%a = %init, ...) -> (T, ...)] {...}`.
pub(crate) struct ForSyntax;

impl CustomSyntax for ForSyntax {
    fn can_print(&self, op: OpRef<'_>, ctx: &Context) -> bool {
        verify_for(op, ctx).is_empty()
            && op.operands().len() >= 3
            && remaining_attrs(ctx, op, &[]).is_some()
    }

    fn print(&self, p: &mut OpPrinter<'_, '_>, op: OpRef<'_>) -> std::fmt::Result {
        let body = op.ir.body(op.region_body());
        let Some(&region) = op.regions().first() else {
            return Ok(());
        };
        let Some(block) = body.entry_block(region) else {
            return Ok(());
        };
        let args = body.block_args(block).to_vec();
        let operands: Vec<_> = op.operands().collect();
        p.write_str(" ");
        p.with_body(op.region_body(), |p| p.print_operand(args[0]));
        p.write_str(" = ");
        p.print_operand(operands[0]);
        p.write_str(" to ");
        p.print_operand(operands[1]);
        p.write_str(" step ");
        p.print_operand(operands[2]);
        if operands.len() > 3 {
            p.write_str(" iter_args(");
            for (i, (arg, init)) in args[1..].iter().zip(&operands[3..]).enumerate() {
                if i > 0 {
                    p.write_str(", ");
                }
                p.with_body(op.region_body(), |p| p.print_operand(*arg));
                p.write_str(" = ");
                p.print_operand(*init);
            }
            p.write_str(") -> (");
            p.print_types(&op.result_types());
            p.write_str(")");
        }
        p.write_str(" ");
        p.print_region_of(op, region, false, false);
        print_remaining_attrs(p, op, &[], " ");
        Ok(())
    }

    fn parse(&self, cp: &mut CustomParse<'_, '_, '_>, state: &mut OperationState) -> PResult<()> {
        let span = cp.p.tok_span();
        let index = cp.p.context().index_type();
        let mut args: Vec<RegionArg<'_>> = vec![cp.p.parse_region_argument_of_type(index)?];
        cp.p.expect(Tok::Equal, "'='")?;
        let mut bounds = vec![cp.p.parse_operand()?];
        cp.p.expect_keyword("to")?;
        bounds.push(cp.p.parse_operand()?);
        cp.p.expect_keyword("step")?;
        bounds.push(cp.p.parse_operand()?);
        let resolved = cp.resolve_all(&bounds, &[index; 3], span.clone())?;
        state.operands.extend(resolved);
        let mut inits = Vec::new();
        if cp.p.try_keyword("iter_args") {
            cp.p.expect(Tok::LParen, "'('")?;
            cp.p.parse_comma_list_until(Tok::RParen, "')' or ','", |p| {
                let placeholder = p.context().none_type();
                args.push(p.parse_region_argument_of_type(placeholder)?);
                p.expect(Tok::Equal, "'='")?;
                inits.push(p.parse_operand()?);
                Ok(())
            })?;
            cp.p.expect(Tok::Arrow, "'->' and the carried types")?;
            let types = cp.p.parse_result_type_list()?;
            if types.len() != inits.len() {
                return cp.p.err(format!(
                    "{} carried values but {} types",
                    inits.len(),
                    types.len()
                ));
            }
            for (a, t) in args[1..].iter_mut().zip(&types) {
                a.ty = *t;
            }
            let resolved = cp.resolve_all(&inits, &types, span)?;
            state.operands.extend(resolved);
            state.result_types.extend(types);
        }
        cp.parse_region(state, &args)?;
        if cp.p.peek() == Tok::LBrace {
            state.attrs.extend(cp.p.parse_attr_dict()?);
        }
        Ok(())
    }
}

/// The segment sizes property of `loop.parallel` for `n` loops.
fn parallel_segments(cp: &mut CustomParse<'_, '_, '_>, n: usize) -> AttrId {
    let ctx = cp.p.context();
    let element = ctx.int_type(32);
    let data: Vec<u8> = [n, n, n]
        .iter()
        .flat_map(|s| (*s as i32).to_le_bytes())
        .collect();
    ctx.intern_attr(AttrData::DenseArray {
        element,
        data: data.into(),
    })
}

/// `loop.parallel (%i, %j) = (%a, %b) to (%c, %d) step (%e, %f) {...}`.
pub(crate) struct ParallelSyntax;

impl CustomSyntax for ParallelSyntax {
    fn can_print(&self, op: OpRef<'_>, ctx: &Context) -> bool {
        verify_parallel(op, ctx).is_empty()
            && remaining_attrs(ctx, op, &["operandSegmentSizes"]).is_some()
    }

    fn print(&self, p: &mut OpPrinter<'_, '_>, op: OpRef<'_>) -> std::fmt::Result {
        let body = op.ir.body(op.region_body());
        let Some(&region) = op.regions().first() else {
            return Ok(());
        };
        let Some(block) = body.entry_block(region) else {
            return Ok(());
        };
        let args = body.block_args(block).to_vec();
        let operands: Vec<_> = op.operands().collect();
        let n = args.len();
        p.write_str(" (");
        p.with_body(op.region_body(), |p| p.print_operands(args.iter().copied()));
        p.write_str(") = (");
        p.print_operands(operands[..n].iter().copied());
        p.write_str(") to (");
        p.print_operands(operands[n..2 * n].iter().copied());
        p.write_str(") step (");
        p.print_operands(operands[2 * n..].iter().copied());
        p.write_str(") ");
        p.print_region_of(op, region, false, false);
        print_remaining_attrs(p, op, &["operandSegmentSizes"], " ");
        Ok(())
    }

    fn parse(&self, cp: &mut CustomParse<'_, '_, '_>, state: &mut OperationState) -> PResult<()> {
        let span = cp.p.tok_span();
        let index = cp.p.context().index_type();
        let mut args: Vec<RegionArg<'_>> = Vec::new();
        cp.p.expect(Tok::LParen, "'('")?;
        cp.p.parse_comma_list_until(Tok::RParen, "')' or ','", |p| {
            args.push(p.parse_region_argument_of_type(index)?);
            Ok(())
        })?;
        cp.p.expect(Tok::Equal, "'='")?;
        let n = args.len();
        for (i, keyword) in ["", "to", "step"].into_iter().enumerate() {
            if i > 0 {
                cp.p.expect_keyword(keyword)?;
            }
            let list = cp.p.parse_operand_list_parens()?;
            if list.len() != n {
                return cp.p.err(format!("expected {n} values, one per loop"));
            }
            let resolved = cp.resolve_all(&list, &vec![index; n], span.clone())?;
            state.operands.extend(resolved);
        }
        cp.parse_region(state, &args)?;
        if cp.p.peek() == Tok::LBrace {
            state.attrs.extend(cp.p.parse_attr_dict()?);
        }
        let segments = parallel_segments(cp, n);
        let key = cp.p.context().sym("operandSegmentSizes");
        state.props = Some(crate::syntax::make_props(cp, vec![(key, segments)])?);
        Ok(())
    }
}

/// `loop.constant`: the value's tensor type and the memref agree in shape and element
/// type, and the memref has the identity layout.
pub(crate) fn verify_buffer_constant(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let Some(&out) = op.result_types().first() else {
        return Vec::new();
    };
    let problem = (|| {
        let value = op
            .attr(ctx, loops::Constant::ATTR_VALUE)
            .ok_or("requires a value")?;
        let vt = acc_ir::rewrite::attr_type(ctx, value).ok_or("the value must be typed")?;
        let (vd, md) = (ctx.type_data(vt), ctx.type_data(out));
        if vd.shape() != md.shape() || vd.element_type() != md.element_type() {
            return Err(format!(
                "the value's type {} does not match {}",
                acc_ir::printer::type_to_string(ctx, vt),
                acc_ir::printer::type_to_string(ctx, out)
            ));
        }
        if !matches!(md, TypeData::MemRef { layout: None, .. }) {
            return Err("the buffer must have the identity layout".to_string());
        }
        Ok(())
    })();
    match problem {
        Ok(()) => Vec::new(),
        Err(m) => vec![Diagnostic::error(
            DiagLoc::Loc(op.loc()),
            format!("'loop.constant' op {m}"),
        )],
    }
}

/// `loop.reshape`: identity layouts, static shapes, the same number of elements.
pub(crate) fn verify_buffer_reshape(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let (Some(&src), Some(&out)) = (op.operand_types().first(), op.result_types().first()) else {
        return Vec::new();
    };
    let count = |t: TypeId| -> Option<i64> {
        match ctx.type_data(t) {
            TypeData::MemRef {
                shape,
                layout: None,
                ..
            } if shape.iter().all(|d| *d >= 0) => Some(shape.iter().product()),
            _ => None,
        }
    };
    let element = |t: TypeId| ctx.type_data(t).element_type().unwrap_or(t);
    let (a, b) = (element(src), element(out));
    let storage = |q: TypeId, i: TypeId| match (ctx.type_data(q), ctx.type_data(i)) {
        (TypeData::QuantUniform(q), TypeData::Integer { width, .. }) => q.storage_width == *width,
        (TypeData::Integer { width: w, .. }, TypeData::Integer { width, .. }) => w == width,
        _ => false,
    };
    if a != b && !storage(a, b) && !storage(b, a) {
        return vec![Diagnostic::error(
            DiagLoc::Loc(op.loc()),
            "'loop.reshape' op needs equal element types, a quantized type and its storage integer, or integers of one width",
        )];
    }
    match (count(src), count(out)) {
        (Some(a), Some(b)) if a == b => Vec::new(),
        (Some(_), Some(_)) => vec![Diagnostic::error(
            DiagLoc::Loc(op.loc()),
            "'loop.reshape' op changes the number of elements",
        )],
        _ => vec![Diagnostic::error(
            DiagLoc::Loc(op.loc()),
            "'loop.reshape' op needs static shapes with the identity layout",
        )],
    }
}
