//! The printer: an [`Ir`] to MLIR-syntax text, in generic or custom form.
//!
//! Values and blocks are renumbered densely and deterministically with MLIR's scheme:
//! numbering restarts at the isolated-from-above ops MLIR knows ([`RESTARTS_NUMBERING`]);
//! other isolated ops (acc's, such as `hw.launch`, which `mlir-opt
//! --allow-unregistered-dialect` reads as ordinary ops) continue their parent's numbers,
//! so that their generic form never redefines a name MLIR still sees; entry block arguments are
//! `%argN`, other values `%N` (one number per op, `%N:k` for k results, used as `%N#i`);
//! blocks are `^bbN` per region; nested regions continue from the counters their parent
//! region ended with. Printing then parsing yields the same IR, and printing is a fixed
//! point from the second round on.

mod values;

use std::fmt::Write as _;
use std::io;

pub use values::{
    attr_to_string, is_bare_identifier, type_data_to_string, type_to_string, write_attr,
    write_bare_value, write_dict, write_escaped, write_float, write_location, write_result_types,
    write_symbol, write_type, write_type_list,
};

use crate::context::{Context, ResourceValue};
use crate::entity::EntityId;
use crate::intern::Sym;
use crate::ir::{BlockId, BodyId, Ir, OpId, OpRef, RegionId, ValueDef, ValueId};
use crate::types::TypeId;

/// How to print.
#[derive(Clone, Debug, Default)]
pub struct PrintOptions {
    /// Print every op in generic form.
    pub generic: bool,
    /// Print locations.
    pub debuginfo: bool,
    /// Print an elements attribute of more elements than this (a splat excepted) as
    /// `dense_resource<__elided__>`, as `--mlir-elide-elementsattrs-if-larger` does.
    pub elide_elements_larger: Option<usize>,
}

/// The isolated-from-above ops at which value numbering restarts, as in MLIR: those
/// `mlir-opt` itself knows to be isolated.
pub const RESTARTS_NUMBERING: [&str; 2] = ["builtin.module", "func.func"];

const NO_NAME: u32 = u32::MAX;
const ARG_FLAG: u32 = 1 << 31;

/// Value and block numbers of one body.
struct Names {
    values: Vec<u32>,
    blocks: Vec<u32>,
}

/// Prints ops; also the API custom syntaxes print with.
pub struct OpPrinter<'a, 'w> {
    ctx: &'a Context,
    ir: &'a Ir,
    opts: &'a PrintOptions,
    buf: String,
    sink: &'w mut dyn io::Write,
    io_error: Option<io::Error>,
    indent: usize,
    names: Vec<Option<Names>>,
    /// Where numbering starts in the bodies of isolated ops that continue their
    /// parent's numbers: `(next value, next argument)`, recorded when the parent is
    /// numbered.
    name_starts: rustc_hash::FxHashMap<BodyId, (u32, u32)>,
    default_dialects: Vec<String>,
    resources: Vec<Sym>,
    /// The body of the op being printed.
    body: BodyId,
}

/// Prints the whole IR to a string.
pub fn print_ir(ctx: &Context, ir: &Ir, opts: &PrintOptions) -> String {
    let mut out = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = write_ir(ctx, ir, opts, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// Streams the whole IR, followed by the resources it uses, to `sink`.
pub fn write_ir(
    ctx: &Context,
    ir: &Ir,
    opts: &PrintOptions,
    sink: &mut dyn io::Write,
) -> io::Result<()> {
    let mut p = OpPrinter {
        ctx,
        ir,
        opts,
        buf: String::with_capacity(1 << 16),
        sink,
        io_error: None,
        indent: 0,
        names: Vec::new(),
        name_starts: Default::default(),
        default_dialects: Vec::new(),
        resources: Vec::new(),
        body: ir.root_body,
    };
    p.ensure_names(ir.root_body);
    let _elide = values::ElideLarger::set(opts.elide_elements_larger);
    // Custom printers verify their op first, which may look symbols up.
    crate::symbols::with_cache(|| p.print_op(ir.root_body, ir.root));
    p.print_resources();
    p.flush();
    match p.io_error.take() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Prints one op (and what it nests) in `body`, without a resource section: what pass
/// instrumentation dumps. Value names are as in the whole IR's printing.
pub fn print_op(ctx: &Context, ir: &Ir, body: BodyId, op: OpId, opts: &PrintOptions) -> String {
    print_one_op(ctx, ir, body, op, opts, false)
}

/// Prints one op as [`print_op`] does, followed by the resources it uses: a file that
/// parses on its own when the op is one a file may hold (a module, a function).
pub fn print_op_with_resources(
    ctx: &Context,
    ir: &Ir,
    body: BodyId,
    op: OpId,
    opts: &PrintOptions,
) -> String {
    print_one_op(ctx, ir, body, op, opts, true)
}

fn print_one_op(
    ctx: &Context,
    ir: &Ir,
    body: BodyId,
    op: OpId,
    opts: &PrintOptions,
    resources: bool,
) -> String {
    let mut out = Vec::new();
    let mut p = OpPrinter {
        ctx,
        ir,
        opts,
        buf: String::with_capacity(1 << 12),
        sink: &mut out,
        io_error: None,
        indent: 0,
        names: Vec::new(),
        name_starts: Default::default(),
        default_dialects: Vec::new(),
        resources: Vec::new(),
        body,
    };
    p.ensure_names(body);
    crate::symbols::with_cache(|| p.print_op(body, op));
    p.buf.push('\n');
    if resources {
        p.print_resources();
    }
    p.flush();
    String::from_utf8(out).unwrap_or_default()
}

impl<'a> OpPrinter<'a, '_> {
    /// The context.
    pub fn ctx(&self) -> &'a Context {
        self.ctx
    }

    /// Appends raw text.
    pub fn write_str(&mut self, s: &str) {
        self.buf.push_str(s);
        if self.buf.len() >= 1 << 16 {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if self.io_error.is_none()
            && let Err(e) = self.sink.write_all(self.buf.as_bytes())
        {
            self.io_error = Some(e);
        }
        self.buf.clear();
    }

    fn newline(&mut self) {
        self.buf.push('\n');
        for _ in 0..self.indent {
            self.buf.push_str("  ");
        }
    }

    // ----- naming -----

    fn ensure_names(&mut self, body: BodyId) {
        let i = body.index();
        if self.names.len() <= i {
            self.names.resize_with(i + 1, || None);
        }
        if self.names[i].is_some() {
            return;
        }
        let b = self.ir.body(body);
        let mut names = Names {
            values: vec![NO_NAME; b.values.len()],
            blocks: vec![NO_NAME; b.blocks.len()],
        };
        let (first_value, first_arg) = self.name_starts.get(&body).copied().unwrap_or((0, 0));
        let restarts = RestartRule {
            ctx: self.ctx,
            starts: &mut self.name_starts,
        };
        let mut numbering = Numbering {
            ir: self.ir,
            body,
            names: &mut names,
            rule: restarts,
        };
        for &r in b.top_regions() {
            numbering.region(r, first_value, first_arg);
        }
        // A detached root op's results get numbers too.
        if body == self.ir.root_body {
            let mut next = 0;
            for op in [self.ir.root] {
                if let Some(v) = b.results(op).next() {
                    names.values[v.index()] = next;
                    next += 1;
                }
            }
        }
        self.names[i] = Some(names);
    }

    fn value_number(&self, body: BodyId, v: ValueId) -> u32 {
        self.names
            .get(body.index())
            .and_then(|n| n.as_ref())
            .map(|n| n.values[v.index()])
            .unwrap_or(NO_NAME)
    }

    /// Writes the name of a value as used: `%3`, `%arg0`, `%3#1`.
    pub fn print_operand(&mut self, v: ValueId) {
        let body = self.body;
        let b = self.ir.body(body);
        let (named, index) = match b.value(v).def {
            ValueDef::Result(op, i) => {
                let first = b.results(op).next().unwrap_or(v);
                (first, (b.op(op).num_results > 1).then_some(i))
            }
            _ => (v, None),
        };
        let n = self.value_number(body, named);
        if n == NO_NAME {
            // A value with no definer (never the case in verified IR).
            let _ = write!(self.buf, "%<<UNKNOWN SSA VALUE {}>>", v.index());
        } else if n & ARG_FLAG != 0 {
            let _ = write!(self.buf, "%arg{}", n & !ARG_FLAG);
        } else {
            let _ = write!(self.buf, "%{n}");
        }
        if let Some(i) = index {
            let _ = write!(self.buf, "#{i}");
        }
    }

    /// Writes `%a, %b`.
    pub fn print_operands(&mut self, vs: impl IntoIterator<Item = ValueId>) {
        for (i, v) in vs.into_iter().enumerate() {
            if i > 0 {
                self.buf.push_str(", ");
            }
            self.print_operand(v);
        }
    }

    /// Writes `%name: type` (plus its location with debug info): a region argument
    /// declaration.
    pub fn print_arg_decl(&mut self, v: ValueId) {
        self.print_arg_name_and_type(v);
        self.print_arg_loc(v);
    }

    /// Writes `%name: type`.
    pub fn print_arg_name_and_type(&mut self, v: ValueId) {
        self.print_operand(v);
        self.buf.push_str(": ");
        let ty = self.ir.body(self.body).value_type(v);
        self.print_type(ty);
    }

    /// Writes ` loc(...)` of a block argument when printing debug info.
    pub fn print_arg_loc(&mut self, v: ValueId) {
        if self.opts.debuginfo {
            let loc = self.ir.body(self.body).arg_locs.get(&v).copied();
            self.buf.push_str(" loc(");
            match loc {
                Some(l) => write_location(&mut self.buf, self.ctx, l),
                None => self.buf.push_str("unknown"),
            }
            self.buf.push(')');
        }
    }

    /// Runs `f` with `body` as the body whose values are named (for custom syntaxes that
    /// print region arguments outside the region, like `func.func`).
    pub fn with_body(&mut self, body: BodyId, f: impl FnOnce(&mut Self)) {
        self.ensure_names(body);
        let saved = self.body;
        self.body = body;
        f(self);
        self.body = saved;
    }

    /// Writes `^bbN`.
    pub fn print_successor(&mut self, block: BlockId) {
        let n = self.names[self.body.index()]
            .as_ref()
            .map(|n| n.blocks[block.index()])
            .unwrap_or(NO_NAME);
        let _ = write!(self.buf, "^bb{n}");
    }

    // ----- types and attributes -----

    /// Writes a type.
    pub fn print_type(&mut self, t: TypeId) {
        write_type(&mut self.buf, self.ctx, t, &mut self.resources);
    }

    /// Writes `a, b`.
    pub fn print_types(&mut self, tys: &[TypeId]) {
        write_type_list(&mut self.buf, self.ctx, tys, &mut self.resources);
    }

    /// Writes a result type list (`i32` or `(i32, f32)` or `()`).
    pub fn print_result_types(&mut self, tys: &[TypeId]) {
        write_result_types(&mut self.buf, self.ctx, tys, &mut self.resources);
    }

    /// Writes an attribute.
    pub fn print_attr(&mut self, a: crate::attrs::AttrId) {
        write_attr(&mut self.buf, self.ctx, a, &mut self.resources);
    }

    /// Writes an attribute whose kind the reader knows: numbers without their type
    /// (see [`write_bare_value`]).
    pub fn print_bare_value(&mut self, a: crate::attrs::AttrId) {
        write_bare_value(&mut self.buf, self.ctx, a, &mut self.resources);
    }

    /// Writes a dense array as `[1, 2, 3]`.
    pub fn print_bare_array(&mut self, a: crate::attrs::AttrId) {
        values::write_bare_array(&mut self.buf, self.ctx, a, &mut self.resources);
    }

    /// Writes `{entries}` (sorted by the caller).
    pub fn print_dict_entries(&mut self, entries: &[(Sym, crate::attrs::AttrId)]) {
        write_dict(&mut self.buf, self.ctx, entries, &[], &mut self.resources);
    }

    /// Writes ` {entries}` of a dictionary minus `skip`; nothing when nothing is left.
    pub fn print_optional_attr_dict(&mut self, dict: crate::attrs::AttrId, skip: &[&str]) {
        let entries = self.ctx.dict_entries(dict);
        if entries
            .iter()
            .all(|(k, _)| skip.contains(&self.ctx.str(*k)))
        {
            return;
        }
        self.buf.push(' ');
        write_dict(&mut self.buf, self.ctx, entries, skip, &mut self.resources);
    }

    // ----- ops -----

    /// Prints one op (results, body, location), at the current indentation.
    fn print_op(&mut self, body: BodyId, op: OpId) {
        let saved = self.body;
        self.body = body;
        let r = self.ir.op(body, op);
        let b = self.ir.body(body);
        let num_results = b.op(op).num_results;
        if num_results > 0 {
            let first = b.results(op).next().expect("op has results");
            let n = self.value_number(body, first);
            let _ = write!(self.buf, "%{n}");
            if num_results > 1 {
                let _ = write!(self.buf, ":{num_results}");
            }
            self.buf.push_str(" = ");
        }
        let def = self.ctx.op_def(r.name());
        let syntax = if self.opts.generic {
            None
        } else {
            def.and_then(|d| d.syntax.clone())
                .filter(|s| s.can_print(r, self.ctx))
        };
        if let Some(d) = def.and_then(|d| d.default_dialect.clone()) {
            self.default_dialects.push(d);
        } else {
            self.default_dialects.push(String::new());
        }
        match syntax {
            Some(syntax) => {
                let full = self.ctx.op_name_str(r.name());
                let enclosing = self
                    .default_dialects
                    .iter()
                    .rev()
                    .nth(1)
                    .cloned()
                    .unwrap_or_default();
                let shown = full
                    .strip_prefix("builtin.")
                    .or_else(|| {
                        full.strip_prefix(&enclosing)
                            .and_then(|s| s.strip_prefix('.'))
                            .filter(|_| !enclosing.is_empty())
                    })
                    .unwrap_or(full);
                self.write_str(shown);
                let _ = syntax.print(self, r);
            }
            None => self.print_generic_body(r),
        }
        self.default_dialects.pop();
        if self.opts.debuginfo {
            self.buf.push_str(" loc(");
            write_location(&mut self.buf, self.ctx, r.loc());
            self.buf.push(')');
        }
        self.body = saved;
    }

    fn print_generic_body(&mut self, r: OpRef<'a>) {
        write_escaped(&mut self.buf, self.ctx.op_name_str(r.name()));
        self.buf.push('(');
        self.print_operands(r.operands());
        self.buf.push(')');
        if r.successors().len() > 0 {
            self.buf.push_str(" [");
            for (i, s) in r.successors().enumerate() {
                if i > 0 {
                    self.buf.push_str(", ");
                }
                self.print_successor(s);
            }
            self.buf.push(']');
        }
        if let Some(p) = r.props() {
            self.buf.push_str(" <");
            self.print_attr(p);
            self.buf.push('>');
        }
        let regions = r.regions();
        if !regions.is_empty() {
            self.buf.push_str(" (");
            for (i, &region) in regions.iter().enumerate() {
                if i > 0 {
                    self.buf.push_str(", ");
                }
                self.print_region_of(r, region, true, true);
            }
            self.buf.push(')');
        }
        self.print_optional_attr_dict(r.attrs(), &[]);
        self.buf.push_str(" : (");
        let operand_types = r.operand_types();
        self.print_types(&operand_types);
        self.buf.push_str(") -> ");
        let result_types = r.result_types();
        self.print_result_types(&result_types);
    }

    /// Prints region `region` of op `r`: `{`, its blocks, `}`. The entry block's label
    /// is left out when `print_entry_args` is false (a custom syntax printed the
    /// arguments) or when it has no arguments; an empty entry block gets a label when
    /// `print_empty_block`.
    pub fn print_region_of(
        &mut self,
        r: OpRef<'_>,
        region: RegionId,
        print_entry_args: bool,
        print_empty_block: bool,
    ) {
        let body = r.region_body();
        self.ensure_names(body);
        let saved = self.body;
        self.body = body;
        let b = self.ir.body(body);
        self.buf.push('{');
        for (i, block) in b.region_blocks(region).enumerate() {
            let is_empty = b.first_op(block).is_none();
            let has_args = !b.block_args(block).is_empty();
            // Non-entry blocks always have a label; the entry block has one when its
            // arguments are printed here, or when it is empty (so that it is not read
            // back as a region without blocks).
            let label = i > 0
                || (print_entry_args && has_args)
                || (print_empty_block && is_empty && !has_args);
            if label {
                self.newline();
                self.print_successor(block);
                if has_args {
                    self.buf.push('(');
                    let args = b.block_args(block).to_vec();
                    for (j, a) in args.into_iter().enumerate() {
                        if j > 0 {
                            self.buf.push_str(", ");
                        }
                        self.print_arg_decl(a);
                    }
                    self.buf.push(')');
                }
                self.buf.push(':');
            }
            self.indent += 1;
            for op in b.block_ops(block) {
                self.newline();
                self.print_op(body, op);
                if self.buf.len() >= 1 << 16 {
                    self.flush();
                }
            }
            self.indent -= 1;
        }
        self.newline();
        self.buf.push('}');
        self.body = saved;
    }

    /// Prints the file metadata: the builtin blobs of the `dense_resource` attributes
    /// printed (nothing for handles without data), then the external resources; no
    /// section at all when both are empty.
    fn print_resources(&mut self) {
        let ctx = self.ctx;
        let handles = std::mem::take(&mut self.resources);
        let blobs: Vec<(Sym, &ResourceValue)> = match ctx.lookup_sym("builtin") {
            Some(builtin) => handles
                .into_iter()
                .filter_map(|h| match ctx.resource(builtin, h) {
                    Some(v @ ResourceValue::Blob { .. }) => Some((h, v)),
                    _ => None,
                })
                .collect(),
            None => Vec::new(),
        };
        let external: Vec<&(Sym, Vec<(Sym, ResourceValue)>)> = self
            .ir
            .external_resources
            .iter()
            .filter(|(_, entries)| !entries.is_empty())
            .collect();
        if blobs.is_empty() && external.is_empty() {
            self.buf.push('\n');
            return;
        }
        self.buf.push_str("\n\n{-#");
        if !blobs.is_empty() {
            self.buf
                .push_str("\n  dialect_resources: {\n    builtin: {");
            self.print_resource_entries(blobs.iter().map(|(k, v)| (*k, *v)));
            self.buf.push_str("\n    }\n  }");
        }
        if !external.is_empty() {
            if !blobs.is_empty() {
                self.buf.push(',');
            }
            self.buf.push_str("\n  external_resources: {");
            for (i, (group, entries)) in external.into_iter().enumerate() {
                if i > 0 {
                    self.buf.push(',');
                }
                let _ = write!(self.buf, "\n    {}: {{", ctx.str(*group));
                self.print_resource_entries(entries.iter().map(|(k, v)| (*k, v)));
                self.buf.push_str("\n    }");
            }
            self.buf.push_str("\n  }");
        }
        // mlir-opt ends the section with an empty line.
        self.buf.push_str("\n#-}\n\n");
    }

    /// Writes `key: value` entries of a resource group, one per line, separated by
    /// commas, as mlir-opt does.
    fn print_resource_entries<'v>(
        &mut self,
        entries: impl Iterator<Item = (Sym, &'v ResourceValue)>,
    ) {
        for (i, (key, value)) in entries.enumerate() {
            if i > 0 {
                self.buf.push(',');
            }
            self.buf.push_str("\n      ");
            let name = self.ctx.str(key);
            if is_bare_identifier(name) {
                self.buf.push_str(name)
            } else {
                write_escaped(&mut self.buf, name)
            }
            self.buf.push_str(": ");
            match value {
                ResourceValue::Blob { alignment, data } => {
                    self.buf.push_str("\"0x");
                    self.buf
                        .push_str(&const_hex::encode_upper(alignment.to_le_bytes()));
                    self.buf.push_str(&const_hex::encode_upper(data));
                    self.buf.push('"');
                }
                ResourceValue::Bool(b) => self.buf.push_str(if *b { "true" } else { "false" }),
                ResourceValue::String(text) => write_escaped(&mut self.buf, text),
            }
            if self.buf.len() >= 1 << 16 {
                self.flush();
            }
        }
    }
}

/// Numbers the blocks and values of `region` (MLIR's `numberValuesInRegion`), then its
/// nested non-isolated regions, which start from the counters this region ended with.
/// Decides where numbering restarts, and records where it continues.
struct RestartRule<'a> {
    ctx: &'a Context,
    starts: &'a mut rustc_hash::FxHashMap<BodyId, (u32, u32)>,
}

/// Numbers the values and blocks of one body.
struct Numbering<'a> {
    ir: &'a Ir,
    body: BodyId,
    names: &'a mut Names,
    rule: RestartRule<'a>,
}

impl Numbering<'_> {
    /// Numbers `region`'s blocks, then its values from `next_value` (results and
    /// non-entry arguments) and `next_arg` (entry arguments), then nested regions,
    /// which continue from where this region ended.
    fn region(&mut self, region: RegionId, mut next_value: u32, mut next_arg: u32) {
        let b = self.ir.body(self.body);
        let entry = b.entry_block(region);
        for (i, block) in b.region_blocks(region).enumerate() {
            self.names.blocks[block.index()] = i as u32;
            for &a in b.block_args(block) {
                if Some(block) == entry {
                    self.names.values[a.index()] = next_arg | ARG_FLAG;
                    next_arg += 1;
                } else {
                    self.names.values[a.index()] = next_value;
                    next_value += 1;
                }
            }
            for op in b.block_ops(block) {
                if let Some(first) = b.results(op).next() {
                    self.names.values[first.index()] = next_value;
                    next_value += 1;
                }
            }
        }
        for block in b.region_blocks(region) {
            for op in b.block_ops(block) {
                match b.nested_body(op) {
                    None => {
                        for &r in b.op_regions(op) {
                            self.region(r, next_value, next_arg);
                        }
                    }
                    Some(nested) => {
                        let name = self.rule.ctx.op_name_str(b.op(op).name);
                        if !RESTARTS_NUMBERING.contains(&name) {
                            self.rule.starts.insert(nested, (next_value, next_arg));
                        }
                    }
                }
            }
        }
    }
}
