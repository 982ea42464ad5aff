//! `symbol-dce`: erases private symbols (functions, globals) of a symbol table that
//! nothing references, repeating until none is left (erasing one may orphan another).
//! Public symbols are kept; nested symbol tables (a module in the module) are cleaned
//! the same way, each on its own, as in MLIR.

use acc_dialects::ops::builtin;
use acc_ir::attrs::AttrData;
use acc_ir::{AttrId, BodyId, Context, Diagnostic, Ir, OpId, Sym};
use acc_pass::{Pass, PassInfo, PassOptions, PassTarget};
use rustc_hash::FxHashSet;

/// The pass.
pub struct SymbolDce;

/// Its registration.
pub fn info() -> PassInfo {
    PassInfo {
        name: "symbol-dce",
        title: "SymbolDCE",
        summary: "Erase private symbols that nothing references",
        anchor: Some(builtin::Module::NAME),
        options: Vec::new(),
        create: |_: &PassOptions| Ok(Box::new(SymbolDce)),
    }
}

/// Adds the root symbol of every symbol reference in `a` (and what it nests) to `out`.
fn references(ctx: &Context, a: AttrId, out: &mut FxHashSet<Sym>) {
    match ctx.attr_data(a) {
        AttrData::SymbolRef { root, .. } => {
            out.insert(*root);
        }
        AttrData::Array(items) => items.iter().for_each(|i| references(ctx, *i, out)),
        AttrData::Dictionary(entries) => entries.iter().for_each(|(_, v)| references(ctx, *v, out)),
        _ => {}
    }
}

/// The name a private symbol op defines, if it is one.
fn private_symbol(ctx: &Context, op: acc_ir::OpRef<'_>) -> Option<Sym> {
    let private = op.attr(ctx, "sym_visibility").is_some_and(|v| {
        matches!(ctx.attr_data(v), AttrData::String { value, .. } if ctx.str(*value) == "private")
    });
    match op.attr(ctx, "sym_name").map(|n| ctx.attr_data(n)) {
        Some(AttrData::String { value, .. }) if private => Some(*value),
        _ => None,
    }
}

impl Pass for SymbolDce {
    fn run(&self, t: &mut PassTarget<'_>) -> Result<(), Diagnostic> {
        clean_table(t.ctx, t.ir, t.body, t.op);
        Ok(())
    }
}

/// Erases the unreferenced private symbols of the symbol table `op` (of `body`), then
/// cleans the symbol tables nested in it.
fn clean_table(ctx: &Context, ir: &mut Ir, body: BodyId, op: OpId) {
    let inner = ir.region_body(body, op);
    // The symbols defined directly in the table, and whether each is private.
    let mut symbols: Vec<(OpId, Option<Sym>)> = Vec::new();
    for &r in ir.op(body, op).regions() {
        let b = ir.body(inner);
        for bl in b.region_blocks(r) {
            for o in b.block_ops(bl) {
                symbols.push((o, private_symbol(ctx, ir.op(inner, o))));
            }
        }
    }
    // Live: what non-private ops reference, then what live symbols reference.
    let refs_of = |o: OpId| {
        let mut refs = FxHashSet::default();
        let data = ir.body(inner).op(o);
        references(ctx, data.attrs, &mut refs);
        if let Some(p) = data.props {
            references(ctx, p, &mut refs);
        }
        ir.walk_nested(inner, o, &mut |b, n| {
            let d = ir.body(b).op(n);
            references(ctx, d.attrs, &mut refs);
            if let Some(p) = d.props {
                references(ctx, p, &mut refs);
            }
        });
        refs
    };
    let mut live: FxHashSet<Sym> = FxHashSet::default();
    let mut frontier: Vec<OpId> = symbols
        .iter()
        .filter(|(_, p)| p.is_none())
        .map(|(o, _)| *o)
        .collect();
    while let Some(o) = frontier.pop() {
        for s in refs_of(o) {
            if live.insert(s)
                && let Some((def, _)) = symbols.iter().find(|(_, p)| *p == Some(s))
            {
                frontier.push(*def);
            }
        }
    }
    let mut nested_tables = Vec::new();
    for (o, private) in symbols {
        if private.is_some_and(|s| !live.contains(&s)) {
            ir.erase_op(inner, o);
        } else if ctx
            .op_def(ir.body(inner).op(o).name)
            .is_some_and(|d| d.traits.symbol_table)
            && ir.body(inner).nested_body(o).is_some()
        {
            nested_tables.push(o);
        }
    }
    for o in nested_tables {
        clean_table(ctx, ir, inner, o);
    }
}
