//! Rust hooks of the `builtin` dialect (`defs/builtin.acc`): the verifier and custom
//! form of `builtin.module`, printed `module @name attributes {...} {...}`.

use crate::ops::builtin;
use acc_ir::parser::{CustomParse, OperationState, PResult};
use acc_ir::printer::OpPrinter;
use acc_ir::{Context, CustomSyntax, OpRef};

use crate::syntax::{
    make_props, parse_optional_attributes, print_remaining_attrs, remaining_attrs, shape_error,
    string_value, verify_symbol_attrs,
};

pub(crate) fn verify_module(op: OpRef<'_>, ctx: &Context) -> Vec<acc_ir::Diagnostic> {
    let shape = shape_error(op, builtin::Module::NAME, Some(0), 0, 1, 0);
    if !shape.is_empty() {
        return shape;
    }
    let symbol = verify_symbol_attrs(op, ctx, builtin::Module::NAME);
    if !symbol.is_empty() {
        return symbol;
    }
    let body = op.ir.body(op.region_body());
    // More than one block is reported by the single-block trait.
    let message = match body.entry_block(op.regions()[0]) {
        None => "'builtin.module' op expects one region with one block",
        Some(b) if !body.block_args(b).is_empty() => {
            "'builtin.module' op expects its block to have no arguments"
        }
        Some(_) => return Vec::new(),
    };
    vec![acc_ir::Diagnostic::error(
        acc_ir::DiagLoc::Loc(op.loc()),
        message,
    )]
}

pub(crate) struct ModuleSyntax;

impl CustomSyntax for ModuleSyntax {
    fn can_print(&self, op: OpRef<'_>, ctx: &Context) -> bool {
        verify_module(op, ctx).is_empty()
            && remaining_attrs(ctx, op, &[builtin::Module::ATTR_SYM_NAME]).is_some()
    }

    fn print(&self, p: &mut OpPrinter<'_, '_>, op: OpRef<'_>) -> std::fmt::Result {
        let ctx = p.ctx();
        if let Some(name) = op
            .attr(ctx, builtin::Module::ATTR_SYM_NAME)
            .and_then(|a| string_value(ctx, a))
        {
            p.write_str(" ");
            let mut s = String::new();
            acc_ir::printer::write_symbol(&mut s, name);
            p.write_str(&s);
        }
        print_remaining_attrs(p, op, &[builtin::Module::ATTR_SYM_NAME], " attributes ");
        p.write_str(" ");
        if let Some(&region) = op.regions().first() {
            p.print_region_of(op, region, false, false);
        }
        Ok(())
    }

    fn parse(&self, cp: &mut CustomParse<'_, '_, '_>, state: &mut OperationState) -> PResult<()> {
        let mut props = Vec::new();
        if cp.p.peek() == acc_ir::parser::lexer::Tok::AtId {
            let name = cp.p.parse_symbol_name()?;
            let text = cp.p.context().str(name).to_string();
            let attr = cp.p.context().string_attr(&text);
            let key = cp.p.context().sym(builtin::Module::ATTR_SYM_NAME);
            props.push((key, attr));
        }
        parse_optional_attributes(cp.p, &mut state.attrs)?;
        if !props.is_empty() {
            state.props = Some(make_props(cp, props)?);
        }
        cp.parse_region(state, &[])?;
        // `module {}` still has its one (empty) block.
        if let (Some(body), Some(&region)) = (state.nested, state.regions.first())
            && cp.ir.body(body).entry_block(region).is_none()
        {
            cp.ir.body_mut(body).append_block(region);
        }
        Ok(())
    }
}
