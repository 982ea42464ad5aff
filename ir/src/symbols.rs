//! Symbol lookup: the op that defines a name (its `sym_name`) in the nearest symbol
//! table (an op with the `SymbolTable` trait, such as `builtin.module`) enclosing an op.
//!
//! A lookup scans the symbol table's ops. Inside [`with_cache`] (the verifier runs its
//! hooks so, as MLIR's verifier uses a `SymbolTableCollection`) each symbol table is
//! scanned once, at its first lookup, into a map: verifying a module of N calls is then
//! O(N), not O(N²).
//!
//! The cache may outlive changes to function bodies (the pass manager holds one while
//! function passes run, which cannot add, erase or rename their siblings), and checks
//! what it gives: a hit is used only while its op is still there under that name, and
//! a name it does not hold is looked for by a scan, which rebuilds the table when it
//! finds it. [`with_cache`] drops the cache when its outermost call ends, before the
//! IR's memory can be reused by another.

use std::cell::RefCell;
use std::collections::HashMap;

use crate::attrs::AttrData;
use crate::context::Context;
use crate::entity::EntityId;
use crate::intern::Sym;
use crate::ir::{BodyId, Ir, OpId, OpRef};

/// The symbols of one symbol table op: name to the first op defining it.
type Table = HashMap<Sym, OpId>;

/// The tables built so far, by symbol table op (the IR's address, the op's body and id).
#[derive(Default)]
struct Cache {
    tables: HashMap<(usize, BodyId, OpId), Table>,
    /// Whether the IR may change while the cache lives ([`with_checked_cache`]): a
    /// name the table lacks is then looked for by a scan.
    checked: bool,
}

thread_local! {
    /// The cache of the innermost [`with_cache`] running on this thread, if any.
    static CACHE: RefCell<Option<Cache>> = const { RefCell::new(None) };
}

/// Runs `f` with symbol lookups cached on this thread; `f` must not change the IR it
/// looks symbols up in (the verifier, the printer). Nested calls share the outermost
/// cache.
pub fn with_cache<R>(f: impl FnOnce() -> R) -> R {
    cached(false, f)
}

/// Runs `f` with symbol lookups cached on this thread while it may change the IR, as
/// long as it does not add, erase or rename the ops of a symbol table that were
/// looked up in (a function pass and its siblings): every answer is checked against
/// the IR (see the module's documentation).
pub fn with_checked_cache<R>(f: impl FnOnce() -> R) -> R {
    cached(true, f)
}

fn cached<R>(checked: bool, f: impl FnOnce() -> R) -> R {
    let outermost = CACHE.with(|c| {
        let mut c = c.borrow_mut();
        let fresh = c.is_none();
        if fresh {
            *c = Some(Cache {
                checked,
                ..Cache::default()
            });
        }
        fresh
    });
    /// Drops the cache when the outermost call ends, even by unwinding.
    struct Reset(bool);
    impl Drop for Reset {
        fn drop(&mut self) {
            if self.0 {
                CACHE.with(|c| *c.borrow_mut() = None);
            }
        }
    }
    let _reset = Reset(outermost);
    f()
}

/// The name `op` defines as a symbol (its `sym_name` string attribute), if any.
pub fn symbol_name(op: OpRef<'_>, ctx: &Context) -> Option<Sym> {
    match ctx.attr_data(op.attr(ctx, "sym_name")?) {
        AttrData::String { value, .. } => Some(*value),
        _ => None,
    }
}

/// The op defining symbol `name` in the nearest symbol table enclosing `op`, if any
/// (the first such op, in order, when a malformed table defines it twice).
pub fn lookup<'a>(op: OpRef<'a>, ctx: &Context, name: Sym) -> Option<OpRef<'a>> {
    let mut cur = op.parent_op();
    while let Some(table) = cur {
        if ctx
            .op_def(table.name())
            .is_some_and(|d| d.traits.symbol_table)
        {
            return lookup_in(table, ctx, name);
        }
        cur = table.parent_op();
    }
    None
}

/// The op defining `name` directly in the regions of the symbol table op `table`.
fn lookup_in<'a>(table: OpRef<'a>, ctx: &Context, name: Sym) -> Option<OpRef<'a>> {
    let ir = table.ir;
    let inner = table.region_body();
    let key = (std::ptr::from_ref::<Ir>(ir) as usize, table.body, table.op);
    // Still the op defining `name`: present, not erased, and so named.
    let current = |o: OpId| {
        let b = ir.body(inner);
        o.index() < b.created_ops()
            && !b.is_erased(o)
            && b.op_block(o).is_some()
            && symbol_name(ir.op(inner, o), ctx) == Some(name)
    };
    let cached = CACHE.with(|c| {
        let mut c = c.borrow_mut();
        let cache = c.as_mut()?;
        let checked = cache.checked;
        let symbols = cache.tables.entry(key).or_insert_with(|| scan(table, ctx));
        Some(match symbols.get(&name).copied() {
            Some(o) if !checked || current(o) => Lookup::Found(o),
            None if !checked => Lookup::Absent,
            _ => Lookup::Unsure,
        })
    });
    match cached {
        Some(Lookup::Found(o)) => Some(ir.op(inner, o)),
        Some(Lookup::Absent) => None,
        // Not in the table or changed since, while the IR may change: scan, and
        // refresh the table when the name is there.
        Some(Lookup::Unsure) => {
            let found = scan_for(table, ctx, name)?;
            CACHE.with(|c| {
                if let Some(cache) = c.borrow_mut().as_mut() {
                    cache.tables.insert(key, scan(table, ctx));
                }
            });
            Some(ir.op(inner, found))
        }
        // No cache: one scan.
        None => scan_for(table, ctx, name).map(|o| ir.op(inner, o)),
    }
}

/// What the cache says of a name.
enum Lookup {
    Found(OpId),
    Absent,
    Unsure,
}

/// The symbols of `table`: each name to the first op defining it.
fn scan(table: OpRef<'_>, ctx: &Context) -> Table {
    let inner = table.region_body();
    let mut symbols = Table::new();
    for o in symbol_ops(table) {
        if let Some(n) = symbol_name(table.ir.op(inner, o), ctx) {
            symbols.entry(n).or_insert(o);
        }
    }
    symbols
}

/// The first op of `table` defining `name`.
fn scan_for(table: OpRef<'_>, ctx: &Context, name: Sym) -> Option<OpId> {
    let inner = table.region_body();
    symbol_ops(table).find(|o| symbol_name(table.ir.op(inner, *o), ctx) == Some(name))
}

/// The ops directly in the regions of `table`, in order.
fn symbol_ops(table: OpRef<'_>) -> impl Iterator<Item = OpId> + '_ {
    let body = table.ir.body(table.region_body());
    table
        .regions()
        .iter()
        .flat_map(move |r| body.region_blocks(*r))
        .flat_map(move |b| body.block_ops(b))
}
