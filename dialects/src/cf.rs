//! The `cf` dialect: unstructured control flow, `cf.br` and `cf.cond_br`, with MLIR's
//! custom forms (`cf.br ^bb1(%a : i32)`, `cf.cond_br %c, ^bb1, ^bb2(%x : f32)`) and
//! generic forms (`cond_br` carries `operandSegmentSizes` as mlir-opt 22 prints it).

use std::ops::Range;
use std::sync::Arc;

use acc_ir::attrs::AttrData;
use acc_ir::parser::lexer::Tok;
use acc_ir::parser::{CustomParse, OperationState, PResult, UnresolvedOperand};
use acc_ir::printer::OpPrinter;
use acc_ir::{
    BlockId, Context, CustomSyntax, DiagLoc, Diagnostic, OpDef, OpRef, OpTraits, Signedness,
    TypeData, TypeId, ValueId,
};

use crate::syntax::{make_props, print_remaining_attrs, remaining_attrs, shape_error};

/// Registers the cf dialect.
pub fn register(ctx: &mut Context) {
    let terminator = OpTraits {
        terminator: true,
        pure: true,
        ..Default::default()
    };
    ctx.register_op(OpDef {
        name: "cf.br".into(),
        summary: "Branches to a block, passing operands to its arguments".into(),
        description: "Branches to its successor, passing all operands to the successor's block arguments. Custom form: `cf.br ^bb(%a : T)`.".into(),
        traits: terminator,
        inherent_attrs: vec![],
        verify: Some(Arc::new(verify_br)),
        successor_operands: Some(|op, _, _| Some(0..op.operands().len())),
        syntax: Some(Arc::new(BrSyntax)),
        default_dialect: None,
    });
    ctx.register_op(OpDef {
        name: "cf.cond_br".into(),
        summary: "Branches to one of two blocks on an i1 condition".into(),
        description: "Branches on an `i1` condition to the first (true) or second (false) successor, each with its own operands, as given by `operandSegmentSizes`. Custom form: `cf.cond_br %c, ^t(%a : T), ^f`.".into(),
        traits: terminator,
        inherent_attrs: vec!["operandSegmentSizes".into(), "branch_weights".into()],
        verify: Some(Arc::new(verify_cond_br)),
        successor_operands: Some(cond_br_successor_operands),
        syntax: Some(Arc::new(CondBrSyntax)),
        default_dialect: None,
    });
}

fn err(op: OpRef<'_>, msg: impl Into<String>) -> Vec<Diagnostic> {
    vec![Diagnostic::error(DiagLoc::Loc(op.loc()), msg)]
}

fn verify_br(op: OpRef<'_>, _ctx: &Context) -> Vec<Diagnostic> {
    shape_error(op, "cf.br", None, 0, 0, 1)
}

/// `[condition, true operands, false operands]` sizes from `operandSegmentSizes`.
fn segment_sizes(op: OpRef<'_>, ctx: &Context) -> Option<[usize; 3]> {
    let attr = op.attr(ctx, "operandSegmentSizes")?;
    let AttrData::DenseArray { element, data } = ctx.attr_data(attr) else {
        return None;
    };
    let i32_elements = matches!(
        ctx.type_data(*element),
        TypeData::Integer {
            width: 32,
            signedness: Signedness::Signless
        }
    );
    if !i32_elements || data.len() != 12 {
        return None;
    }
    let size = |i: usize| {
        i32::from_le_bytes([
            data[4 * i],
            data[4 * i + 1],
            data[4 * i + 2],
            data[4 * i + 3],
        ])
    };
    let sizes = [size(0), size(1), size(2)];
    if sizes.iter().any(|&s| s < 0) {
        return None;
    }
    Some(sizes.map(|s| s as usize))
}

fn cond_br_successor_operands(op: OpRef<'_>, ctx: &Context, index: usize) -> Option<Range<usize>> {
    let [c, t, f] = segment_sizes(op, ctx)?;
    if c + t + f != op.operands().len() {
        return None;
    }
    match index {
        0 => Some(c..c + t),
        1 => Some(c + t..c + t + f),
        _ => None,
    }
}

fn verify_cond_br(op: OpRef<'_>, ctx: &Context) -> Vec<Diagnostic> {
    let shape = shape_error(op, "cf.cond_br", None, 0, 0, 2);
    if !shape.is_empty() {
        return shape;
    }
    let Some([c, t, f]) = segment_sizes(op, ctx) else {
        return err(
            op,
            "'cf.cond_br' op requires an 'operandSegmentSizes' property of three non-negative i32 sizes",
        );
    };
    if c != 1 || c + t + f != op.operands().len() {
        return err(
            op,
            format!(
                "'cf.cond_br' op operand segment sizes [{c}, {t}, {f}] do not match its {} operands with one condition",
                op.operands().len()
            ),
        );
    }
    let cond_ty = op.operand_types()[0];
    if !matches!(
        ctx.type_data(cond_ty),
        TypeData::Integer {
            width: 1,
            signedness: Signedness::Signless
        }
    ) {
        return err(
            op,
            "'cf.cond_br' op operand #0 must be 1-bit signless integer",
        );
    }
    Vec::new()
}

/// Prints `^bb(%a, %b : T, U)` (or just `^bb`).
fn print_dest(p: &mut OpPrinter<'_, '_>, op: OpRef<'_>, block: BlockId, range: Range<usize>) {
    p.print_successor(block);
    let operands: Vec<ValueId> = op.operands().collect();
    let Some(passed) = operands.get(range) else {
        return;
    };
    if passed.is_empty() {
        return;
    }
    p.write_str("(");
    p.print_operands(passed.iter().copied());
    p.write_str(" : ");
    let b = op.body_data();
    let types: Vec<TypeId> = passed.iter().map(|v| b.value_type(*v)).collect();
    p.print_types(&types);
    p.write_str(")");
}

/// Parses `^bb` with an optional `(%a, %b : T, U)`, resolving the operands.
fn parse_dest(cp: &mut CustomParse<'_, '_, '_>) -> PResult<(BlockId, Vec<ValueId>)> {
    let block = cp.parse_successor()?;
    let mut values = Vec::new();
    if cp.p.try_consume(Tok::LParen) {
        let span = cp.p.tok_span();
        let mut ops: Vec<UnresolvedOperand<'_>> = vec![cp.p.parse_operand()?];
        while cp.p.try_consume(Tok::Comma) {
            ops.push(cp.p.parse_operand()?);
        }
        cp.p.expect(Tok::Colon, "':' and the operand types")?;
        let types = cp.p.parse_type_list()?;
        cp.p.expect(Tok::RParen, "')'")?;
        values = cp.resolve_all(&ops, &types, span)?.to_vec();
    }
    Ok((block, values))
}

struct BrSyntax;

impl CustomSyntax for BrSyntax {
    fn can_print(&self, op: OpRef<'_>, ctx: &Context) -> bool {
        verify_br(op, ctx).is_empty() && remaining_attrs(ctx, op, &[]).is_some()
    }

    fn print(&self, p: &mut OpPrinter<'_, '_>, op: OpRef<'_>) -> std::fmt::Result {
        if let Some(dest) = op.successors().next() {
            p.write_str(" ");
            print_dest(p, op, dest, 0..op.operands().len());
        }
        print_remaining_attrs(p, op, &[], " ");
        Ok(())
    }

    fn parse(&self, cp: &mut CustomParse<'_, '_, '_>, state: &mut OperationState) -> PResult<()> {
        let (block, values) = parse_dest(cp)?;
        state.successors.push(block);
        state.operands.extend(values);
        if cp.p.peek() == Tok::LBrace {
            state.attrs = cp.p.parse_attr_dict()?;
        }
        Ok(())
    }
}

struct CondBrSyntax;

impl CustomSyntax for CondBrSyntax {
    fn can_print(&self, op: OpRef<'_>, ctx: &Context) -> bool {
        verify_cond_br(op, ctx).is_empty()
            && remaining_attrs(ctx, op, &["operandSegmentSizes"]).is_some()
    }

    fn print(&self, p: &mut OpPrinter<'_, '_>, op: OpRef<'_>) -> std::fmt::Result {
        let ctx = p.ctx();
        let succs: Vec<BlockId> = op.successors().collect();
        let (Some(t_range), Some(f_range), &[t, f]) = (
            cond_br_successor_operands(op, ctx, 0),
            cond_br_successor_operands(op, ctx, 1),
            &succs[..],
        ) else {
            return Ok(());
        };
        p.write_str(" ");
        p.print_operands(op.operands().take(1));
        p.write_str(", ");
        print_dest(p, op, t, t_range);
        p.write_str(", ");
        print_dest(p, op, f, f_range);
        print_remaining_attrs(p, op, &["operandSegmentSizes"], " ");
        Ok(())
    }

    fn parse(&self, cp: &mut CustomParse<'_, '_, '_>, state: &mut OperationState) -> PResult<()> {
        let cond = cp.p.parse_operand()?;
        let i1 = cp.p.context().int_type(1);
        let cond = cp.resolve(&cond, i1)?;
        cp.p.expect(Tok::Comma, "','")?;
        let (t, t_values) = parse_dest(cp)?;
        cp.p.expect(Tok::Comma, "','")?;
        let (f, f_values) = parse_dest(cp)?;
        if cp.p.peek() == Tok::LBrace {
            state.attrs = cp.p.parse_attr_dict()?;
        }
        let sizes: Vec<u8> = [1, t_values.len() as i32, f_values.len() as i32]
            .iter()
            .flat_map(|s| s.to_le_bytes())
            .collect();
        let ctx = cp.p.context();
        let i32t = ctx.int_type(32);
        let seg = ctx.intern_attr(AttrData::DenseArray {
            element: i32t,
            data: sizes.into(),
        });
        let key = ctx.sym("operandSegmentSizes");
        state.props = Some(make_props(cp, vec![(key, seg)])?);
        state.operands.push(cond);
        state.operands.extend(t_values);
        state.operands.extend(f_values);
        state.successors.extend([t, f]);
        Ok(())
    }
}
