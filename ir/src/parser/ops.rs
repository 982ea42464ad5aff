//! Parsing of ops (generic and custom forms), regions, blocks, SSA name scopes and the
//! top level of a file.
//!
//! Name scoping follows MLIR: values are visible in the region that defines them and in
//! the regions nested in it, up to an isolated-from-above op, which starts a fresh
//! scope. A use before the definition creates a placeholder value that the definition
//! replaces (forward references, needed by graph regions and by uses in later blocks);
//! placeholders still unresolved when their isolated scope closes are errors.

use rustc_hash::FxHashMap as HashMap;
use std::ops::Range;

use super::attrs::LocOrAlias;
use super::lexer::Tok;
use super::{PResult, Parser};
use crate::attrs::{AttrData, AttrId};
use crate::body::OpSpec;
use crate::entity::EntityId;
use crate::intern::Sym;
use crate::ir::{BlockId, BodyId, Ir, OpId, RegionId, ValueId};
use crate::layout::InsertPoint;
use crate::registry::OpName;
use crate::types::{TypeData, TypeId, TypeList};
use smallvec::SmallVec;

/// Operand values, inline when few.
pub type ValueList = SmallVec<[ValueId; 4]>;

/// Everything parsed for one op before it is created.
#[derive(Clone, Debug)]
pub struct OperationState {
    /// Name.
    pub name: OpName,
    /// Location (defaults to where the op name starts).
    pub loc: AttrId,
    /// Operands, resolved.
    pub operands: ValueList,
    /// Result types.
    pub result_types: TypeList,
    /// Successors.
    pub successors: Vec<BlockId>,
    /// Discardable attributes, in any order.
    pub attrs: Vec<(Sym, AttrId)>,
    /// Properties dictionary.
    pub props: Option<AttrId>,
    /// Regions parsed so far (in the body where the op's regions live).
    pub regions: Vec<RegionId>,
    /// The op's own body, when it is isolated from above.
    pub nested: Option<BodyId>,
    /// Span of the op name (for diagnostics).
    pub name_span: Range<usize>,
}

/// An operand as written, before its type is known: `%name` or `%name#index`.
#[derive(Clone, Debug)]
pub struct UnresolvedOperand<'s> {
    /// Name without `%`.
    pub name: &'s str,
    /// Result index after `#`.
    pub index: u32,
    /// Where it was written.
    pub span: Range<usize>,
}

/// A definition in scope: `count` consecutive values starting at `first` (op results),
/// or one block argument.
#[derive(Clone)]
struct Def {
    first: ValueId,
    count: u32,
    /// Where the name was defined, for the notes of later errors.
    span: Range<usize>,
}

/// One isolated-from-above name scope.
#[derive(Default)]
struct IsolatedScope<'s> {
    body: Option<BodyId>,
    defs: HashMap<&'s str, Def>,
    /// Names defined in each open region, to forget when it closes.
    region_defs: Vec<Vec<&'s str>>,
    forward: HashMap<(&'s str, u32), (ValueId, Range<usize>)>,
    /// Block labels of each open region.
    blocks: Vec<HashMap<&'s str, BlockLabel>>,
    /// The regions open in this scope, innermost last (to place referenced blocks).
    regions: Vec<RegionId>,
}

/// A block label seen in a region: the block, whether its definition (`^name:`) was
/// parsed yet, and where it was first written.
#[derive(Clone)]
struct BlockLabel {
    block: BlockId,
    defined: bool,
    first_use: Range<usize>,
}

/// The stack of isolated scopes.
#[derive(Default)]
pub(crate) struct Scopes<'s> {
    stack: Vec<IsolatedScope<'s>>,
}

/// An op or block argument whose location is an alias defined later in the file.
pub(crate) struct DeferredLoc<'s> {
    alias: &'s str,
    span: Range<usize>,
    body: BodyId,
    target: LocTarget,
}

enum LocTarget {
    Op(OpId),
    Arg(ValueId),
}

/// A region entry argument declared by a custom syntax: `%name: type loc(...)`.
#[derive(Clone, Debug)]
pub struct RegionArg<'s> {
    /// The name as written (without `%`).
    pub name: &'s str,
    /// Its type.
    pub ty: TypeId,
    /// Its location, if written.
    pub loc: Option<AttrId>,
    /// A `loc(#alias)` whose alias is defined later in the file.
    pub loc_alias: Option<(&'s str, Range<usize>)>,
    /// Where the name was written.
    pub span: Range<usize>,
}

impl<'s> Parser<'s, '_> {
    fn scope(&mut self) -> &mut IsolatedScope<'s> {
        self.scopes
            .stack
            .last_mut()
            .expect("a name scope is open while parsing ops")
    }

    fn cur_body(&self) -> BodyId {
        self.scopes
            .stack
            .last()
            .and_then(|s| s.body)
            .expect("a body is open while parsing ops")
    }

    // ----- top level -----

    pub(crate) fn parse_top_level(&mut self) -> PResult<Ir> {
        let mut ir = Ir::new();
        let body0 = BodyId::from_index(0);
        let region = ir.body_mut(body0).new_top_region();
        let block = ir.body_mut(body0).append_block(region);
        self.push_isolated_scope(body0);
        self.push_region_scope(region);
        // The deepest nesting reached inside a top-level module, which gains two levels
        // if other top-level ops make the printer wrap it in an implicit module.
        let mut module_depth: Option<(u32, Range<usize>)> = None;
        loop {
            // Top-level ops other than a module count as nested in the implicit module
            // (an op and its region), so that whatever is accepted still parses once
            // printed inside `module { ... }`.
            let is_module = self.at_module_op();
            self.depth = if is_module { 0 } else { 2 };
            self.max_depth = 0;
            let span = self.tok_span();
            match self.peek() {
                Tok::Eof => break,
                Tok::BangId if self.peek_after_token_is(b'=') => self.parse_type_alias_def()?,
                Tok::HashId if self.peek_after_token_is(b'=') => self.parse_attr_alias_def()?,
                Tok::BangId | Tok::HashId => {
                    return self.err_expected("operation or alias definition");
                }
                Tok::FileMetadataBegin => self.parse_file_metadata(&mut ir)?,
                _ => {
                    self.parse_operation(&mut ir, block)?;
                    if is_module
                        && module_depth
                            .as_ref()
                            .is_none_or(|(d, _)| self.max_depth > *d)
                    {
                        module_depth = Some((self.max_depth, span));
                    }
                }
            }
        }
        let top_level_ops = ir.body(body0).block_ops(block).count();
        if let Some((depth, span)) = module_depth
            && top_level_ops > 1
            && depth + 2 > super::MAX_NESTING
        {
            return self.err_at(span, format!(
                "nesting deeper than {} levels once this module is wrapped with the other top-level ops",
                super::MAX_NESTING
            ));
        }
        self.pop_region_scope()?;
        self.pop_isolated_scope()?;
        self.apply_deferred_locs(&mut ir)?;
        self.finish_root(ir, body0, block)
    }

    /// True when the current token starts a `builtin.module` op (custom or generic form).
    fn at_module_op(&self) -> bool {
        matches!(
            self.tok_text(),
            "module" | "builtin.module" | "\"builtin.module\""
        )
    }

    /// True when the first non-space byte after the current token is `c`.
    fn peek_after_token_is(&self, c: u8) -> bool {
        self.src[self.tok.end as usize..]
            .trim_start()
            .as_bytes()
            .first()
            == Some(&c)
    }

    /// Makes the root op: the single top-level `builtin.module`, or an implicit module
    /// wrapping all top-level ops (as MLIR does).
    fn finish_root(&mut self, mut ir: Ir, body0: BodyId, block: BlockId) -> PResult<Ir> {
        let module_name = self.ctx.op_name("builtin.module");
        let ops: Vec<OpId> = ir.body(body0).block_ops(block).collect();
        if let [only] = ops[..]
            && ir.body(body0).op(only).name == module_name
        {
            ir.body_mut(body0).unlink_op(only);
            ir.root_body = body0;
            ir.root = only;
            return Ok(ir);
        }
        let root_body = ir.new_body();
        let empty = self.ctx.empty_dict();
        let loc = self.implicit_module_loc();
        let root = ir.body_mut(root_body).create_op(OpSpec {
            name: module_name,
            loc,
            attrs: empty,
            props: None,
            operands: &[],
            result_types: &[],
            successors: &[],
            regions: vec![],
            nested: Some(body0),
        });
        ir.set_body_owner(body0, (root_body, root));
        ir.root_body = root_body;
        ir.root = root;
        Ok(ir)
    }

    /// The location of an implicit module, as mlir-opt gives it: `file:0:0` for a
    /// whole file (or its first `--split-input-file` chunk), else the end of the
    /// `// -----` marker the chunk follows.
    fn implicit_module_loc(&mut self) -> AttrId {
        const MARKER: &str = "// -----";
        let before = self.src.get(..self.chunk_start).unwrap_or("");
        match before.rfind(MARKER) {
            Some(at) if self.chunk_start > 0 => self.loc_at(at + MARKER.len()),
            _ => {
                let file = self.file_sym;
                self.ctx.file_loc(file, 0, 0)
            }
        }
    }

    // ----- scopes -----

    fn push_isolated_scope(&mut self, body: BodyId) {
        self.scopes.stack.push(IsolatedScope {
            body: Some(body),
            ..Default::default()
        });
    }

    fn pop_isolated_scope(&mut self) -> PResult<()> {
        let scope = self.scopes.stack.pop().expect("balanced scopes");
        if let Some(((name, index), (_, span))) =
            scope.forward.iter().min_by_key(|(_, (_, s))| s.start)
        {
            let shown = if *index == 0 {
                format!("%{name}")
            } else {
                format!("%{name}#{index}")
            };
            let span = span.clone();
            return self.err_at(span, format!("use of undeclared SSA value name '{shown}'"));
        }
        Ok(())
    }

    fn push_region_scope(&mut self, region: RegionId) {
        let s = self.scope();
        s.region_defs.push(Vec::new());
        s.blocks.push(HashMap::default());
        s.regions.push(region);
    }

    fn pop_region_scope(&mut self) -> PResult<()> {
        let s = self.scope();
        let names = s.region_defs.pop().unwrap_or_default();
        for n in names {
            s.defs.remove(n);
        }
        s.regions.pop();
        let blocks = s.blocks.pop().unwrap_or_default();
        if let Some((name, label)) = blocks
            .iter()
            .filter(|(_, l)| !l.defined)
            .min_by_key(|(_, l)| l.first_use.start)
        {
            let (name, span) = (name.to_string(), label.first_use.clone());
            return self.err_at(span, format!("reference to an undefined block '^{name}'"));
        }
        Ok(())
    }

    /// Defines `name` as the values `first..first+count` (consecutive) in the current
    /// region, resolving forward references to it.
    fn define_values(
        &mut self,
        ir: &mut Ir,
        name: &'s str,
        first: ValueId,
        count: u32,
        span: Range<usize>,
    ) -> PResult<()> {
        let body = self.cur_body();
        if let Some(previous) = self.scope().defs.get(name).map(|d| d.span.clone()) {
            let message = format!("redefinition of SSA value '%{name}'");
            return self.err_with_note(span, message, previous, "previously defined here");
        }
        for index in 0..count {
            if let Some((placeholder, use_span)) = self.scope().forward.remove(&(name, index)) {
                let real = ValueId::from_index(first.index() + index as usize);
                let b = ir.body_mut(body);
                if b.value_type(placeholder) != b.value_type(real) {
                    let (want, got) = (b.value_type(placeholder), b.value_type(real));
                    let msg = format!(
                        "definition of SSA value '%{name}#{index}' has type {}, but a prior use expects {}",
                        crate::printer::type_to_string(self.ctx, got),
                        crate::printer::type_to_string(self.ctx, want)
                    );
                    let note = format!(
                        "previously used here with type {}",
                        crate::printer::type_to_string(self.ctx, want)
                    );
                    return self.err_with_note(span, msg, use_span, note);
                }
                b.replace_all_uses(placeholder, real);
            }
        }
        let s = self.scope();
        s.defs.insert(name, Def { first, count, span });
        if let Some(r) = s.region_defs.last_mut() {
            r.push(name);
        }
        Ok(())
    }

    /// Consumes a `%name` token, returning the name (without `%`) and its span.
    fn parse_value_name(&mut self, what: &str) -> PResult<(&'s str, Range<usize>)> {
        if self.peek() != Tok::ValueId {
            return self.err_expected(what);
        }
        let span = self.tok_span();
        let name = &self.tok_text()[1..];
        self.bump();
        Ok((name, span))
    }

    /// Parses `%name` or `%name#N` without resolving it.
    pub fn parse_operand(&mut self) -> PResult<UnresolvedOperand<'s>> {
        let (name, span) = self.parse_value_name("SSA value")?;
        let mut index = 0;
        // `#N` result index: lexed as a HashId token `#N` glued to the name.
        if self.peek() == Tok::HashId && self.tok.start as usize == span.end {
            let digits = &self.tok_text()[1..];
            match digits.parse::<u32>() {
                Ok(i) => index = i,
                Err(_) => return self.err("expected result number after '#'"),
            }
            self.bump();
        }
        Ok(UnresolvedOperand { name, index, span })
    }

    /// Resolves an operand to a value of type `ty` (creating a forward reference when
    /// the name is not defined yet).
    pub fn resolve_operand(
        &mut self,
        ir: &mut Ir,
        op: &UnresolvedOperand<'s>,
        ty: TypeId,
    ) -> PResult<ValueId> {
        let body = self.cur_body();
        let found = self.scope().defs.get(op.name).cloned();
        let mut prior = found.as_ref().map(|d| d.span.clone());
        let value = match found {
            Some(def) => {
                if op.index >= def.count {
                    return self.err_at(
                        op.span.clone(),
                        format!(
                            "result number {} of '%{}' is out of range (it has {} results)",
                            op.index, op.name, def.count
                        ),
                    );
                }
                ValueId::from_index(def.first.index() + op.index as usize)
            }
            None => {
                if let Some((v, first_use)) = self.scope().forward.get(&(op.name, op.index)) {
                    prior = Some(first_use.clone());
                    *v
                } else {
                    let v = ir.body_mut(body).new_detached_value(ty);
                    self.scope()
                        .forward
                        .insert((op.name, op.index), (v, op.span.clone()));
                    v
                }
            }
        };
        let actual = ir.body(body).value_type(value);
        if actual != ty {
            let msg = format!(
                "use of value '%{}' expects different type than prior uses: '{}' vs '{}'",
                op.name,
                crate::printer::type_to_string(self.ctx, ty),
                crate::printer::type_to_string(self.ctx, actual)
            );
            return match prior {
                Some(prior) => self.err_with_note(op.span.clone(), msg, prior, "prior use here"),
                None => self.err_at(op.span.clone(), msg),
            };
        }
        Ok(value)
    }

    /// Parses `(%a, %b#1)` operand lists.
    pub fn parse_operand_list_parens(&mut self) -> PResult<SmallVec<[UnresolvedOperand<'s>; 4]>> {
        self.expect(Tok::LParen, "'('")?;
        let mut ops = SmallVec::new();
        self.parse_comma_list_until(Tok::RParen, "')' or ','", |p| {
            ops.push(p.parse_operand()?);
            Ok(())
        })?;
        Ok(ops)
    }

    /// Resolves operands against types, reporting a count mismatch at `span`.
    pub fn resolve_operands(
        &mut self,
        ir: &mut Ir,
        ops: &[UnresolvedOperand<'s>],
        tys: &[TypeId],
        span: Range<usize>,
    ) -> PResult<ValueList> {
        if ops.len() != tys.len() {
            return self.err_at(
                span,
                format!("{} operands present, but expected {}", ops.len(), tys.len()),
            );
        }
        ops.iter()
            .zip(tys)
            .map(|(o, &t)| self.resolve_operand(ir, o, t))
            .collect()
    }

    // ----- ops -----

    /// Parses one op (with its result names) and appends it to `block`.
    pub(crate) fn parse_operation(&mut self, ir: &mut Ir, block: BlockId) -> PResult<OpId> {
        self.nested(|p| p.parse_operation_inner(ir, block))
    }

    fn parse_operation_inner(&mut self, ir: &mut Ir, block: BlockId) -> PResult<OpId> {
        let start = self.tok.start as usize;
        // Result groups: `%a, %b:2 =`.
        let mut groups: Vec<(&'s str, u32, Range<usize>)> = Vec::new();
        if self.peek() == Tok::ValueId {
            loop {
                let (name, span) = self.parse_value_name("SSA value name")?;
                let mut count = 1;
                if self.try_consume(Tok::Colon) {
                    let s = self.tok_span();
                    let n = self.parse_integer()?;
                    count = match u32::try_from(n) {
                        Ok(c) if c >= 1 => c,
                        _ => return self.err_at(s, "expected a positive result count"),
                    };
                }
                groups.push((name, count, span));
                if !self.try_consume(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::Equal, "'=' after result names")?;
        }
        // As in MLIR, an op is located at its name (after any result names).
        let loc = self.loc_at(self.tok.start as usize);
        let mut state = match self.peek() {
            Tok::String => self.parse_generic_op(ir, loc)?,
            Tok::BareIdent => self.parse_custom_op(ir, loc)?,
            _ => return self.err_expected("operation name"),
        };
        let deferred = match self.try_parse_trailing_loc()? {
            Some(LocOrAlias::Loc(l)) => {
                state.loc = l;
                None
            }
            Some(LocOrAlias::Alias(name, span)) => Some((name, span)),
            None => None,
        };
        let expected: u64 = groups.iter().map(|g| u64::from(g.1)).sum();
        if !groups.is_empty() && expected != state.result_types.len() as u64 {
            let span = start..groups.last().map(|g| g.2.end).unwrap_or(start);
            return self.err_at(
                span,
                format!(
                    "operation defines {} results but was provided {} to bind",
                    state.result_types.len(),
                    expected
                ),
            );
        }
        let op = self.create_op(ir, block, state)?;
        let body = self.cur_body();
        if let Some((alias, span)) = deferred {
            self.deferred_locs.push(DeferredLoc {
                alias,
                span,
                body,
                target: LocTarget::Op(op),
            });
        }
        let results: Vec<ValueId> = ir.body(body).results(op).collect();
        let mut next = 0usize;
        for (name, count, span) in groups {
            self.define_values(ir, name, results[next], count, span)?;
            next += count as usize;
        }
        Ok(op)
    }

    fn create_op(
        &mut self,
        ir: &mut Ir,
        block: BlockId,
        mut state: OperationState,
    ) -> PResult<OpId> {
        let body = self.cur_body();
        // Inherent attributes given in the attribute dictionary (as custom forms and
        // MLIR's older generic output write them) join the properties.
        if let Some(def) = self.ctx.op_def(state.name).cloned()
            && !def.inherent_attrs.is_empty()
        {
            let (inherent, rest): (Vec<_>, Vec<_>) = state
                .attrs
                .iter()
                .partition(|(k, _)| def.inherent_attrs.iter().any(|n| n == self.ctx.str(*k)));
            if !inherent.is_empty() {
                // As in MLIR, a property given both ways keeps its `<{...}>` value.
                let mut props: Vec<_> = state
                    .props
                    .map(|p| self.ctx.dict_entries(p).to_vec())
                    .unwrap_or_default();
                for (k, v) in inherent {
                    if !props.iter().any(|(pk, _)| *pk == k) {
                        props.push((k, v));
                    }
                }
                state.props = Some(self.dict(props, state.name_span.clone())?);
                state.attrs = rest;
            }
        }
        self.add_default_props(&mut state)?;
        let attrs = self.dict(std::mem::take(&mut state.attrs), state.name_span.clone())?;
        let op = ir.body_mut(body).create_op(OpSpec {
            name: state.name,
            loc: state.loc,
            attrs,
            props: state.props,
            operands: &state.operands,
            result_types: &state.result_types,
            successors: &state.successors,
            regions: if state.nested.is_some() {
                vec![]
            } else {
                state.regions
            },
            nested: state.nested,
        });
        if let Some(nested) = state.nested {
            ir.set_body_owner(nested, (body, op));
        }
        ir.body_mut(body).insert_op(op, InsertPoint::End(block));
        Ok(op)
    }

    /// Gives a registered op the default of every declared attribute it lacks.
    fn add_default_props(&mut self, state: &mut OperationState) -> PResult<()> {
        let Some(def) = self.ctx.op_def(state.name).cloned() else {
            return Ok(());
        };
        if def.defaults.is_empty() {
            return Ok(());
        }
        let mut props: Vec<(Sym, AttrId)> = state
            .props
            .map(|p| self.ctx.dict_entries(p).to_vec())
            .unwrap_or_default();
        let before = props.len();
        for (name, value) in &def.defaults {
            let key = self.ctx.sym(name);
            if !props.iter().any(|(k, _)| *k == key) && !state.attrs.iter().any(|(k, _)| *k == key)
            {
                props.push((key, *value));
            }
        }
        if props.len() != before {
            state.props = Some(self.dict(props, state.name_span.clone())?);
        }
        Ok(())
    }

    fn dict(&mut self, entries: Vec<(Sym, AttrId)>, span: Range<usize>) -> PResult<AttrId> {
        match self.ctx.dict_attr(entries) {
            Ok(d) => Ok(d),
            Err(dup) => {
                let name = self.ctx.str(dup).to_string();
                self.err_at(span, format!("attribute '{name}' occurs twice"))
            }
        }
    }

    fn new_state(&mut self, name: OpName, loc: AttrId, name_span: Range<usize>) -> OperationState {
        OperationState {
            name,
            loc,
            operands: ValueList::new(),
            result_types: TypeList::new(),
            successors: Vec::new(),
            attrs: Vec::new(),
            props: None,
            regions: Vec::new(),
            nested: None,
            name_span,
        }
    }

    /// `"d.op"(%a)[^bb1] <{p}> ({...}) {a} : (T) -> R`.
    fn parse_generic_op(&mut self, ir: &mut Ir, loc: AttrId) -> PResult<OperationState> {
        let name_span = self.tok_span();
        let name = self.parse_string()?;
        if name.is_empty() {
            return self.err_at(name_span, "empty operation name");
        }
        let op_name = self.ctx.op_name(&name);
        if self.ctx.op_def(op_name).is_none() {
            // acc's `builtin`, `func`, `tensor`, ... are subsets of MLIR's dialects of
            // those names: an op of MLIR's that acc lacks (`tensor.dim`) is kept opaque
            // under --allow-unregistered-dialect, like an op of an unknown dialect.
            let dialect = name.split_once('.').map(|d| d.0).unwrap_or(&name);
            if self.ctx.is_dialect_registered(dialect) && !self.ctx.allow_unregistered {
                return self.err_at(name_span, format!(
                    "unregistered operation '{name}' found in dialect ('{dialect}') that does not allow unknown operations (acc's '{dialect}' lacks it; --allow-unregistered-dialect keeps it opaque)"
                ));
            }
            if !self.ctx.allow_unregistered {
                return self.err_at(name_span, format!(
                    "operation '{name}' is of an unregistered dialect; use --allow-unregistered-dialect to keep it opaque"
                ));
            }
        }
        let mut state = self.new_state(op_name, loc, name_span.clone());
        let operands = self.parse_operand_list_parens()?;
        if self.try_consume(Tok::LSquare) {
            let mut succs = Vec::new();
            self.parse_comma_list_until(Tok::RSquare, "']' or ','", |p| {
                succs.push(p.parse_successor(ir)?);
                Ok(())
            })?;
            state.successors = succs;
        }
        if self.peek() == Tok::Less {
            self.bump();
            let span = self.tok_span();
            let props = self.parse_attribute()?;
            if !matches!(self.ctx.attr_data(props), AttrData::Dictionary(_)) {
                return self.err_at(span, "properties must be a dictionary attribute");
            }
            self.expect(Tok::Greater, "'>' after properties")?;
            state.props = Some(props);
        }
        if self.peek() == Tok::LParen {
            self.bump();
            loop {
                self.parse_region_into_state(ir, &mut state, &[])?;
                if !self.try_consume(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RParen, "')' after regions")?;
        }
        if self.peek() == Tok::LBrace {
            state.attrs = self.parse_attr_dict()?;
        }
        self.expect(Tok::Colon, "':' followed by the operation's function type")?;
        let ty_span = self.tok_span();
        let fty = self.parse_type()?;
        let (inputs, results) = match self.ctx.type_data(fty) {
            TypeData::Function { inputs, results } => (inputs.clone(), results.clone()),
            _ => return self.err_at(ty_span, "expected function type"),
        };
        state.operands = self.resolve_operands(ir, &operands, &inputs, ty_span)?;
        state.result_types = results;
        Ok(state)
    }

    /// A custom-form op: `name ...` parsed by the op's registered syntax.
    fn parse_custom_op(&mut self, ir: &mut Ir, loc: AttrId) -> PResult<OperationState> {
        let name_span = self.tok_span();
        let written = self.tok_text();
        let def = self.lookup_custom_op(written);
        let Some((op_name, syntax)) = def else {
            return self.err(format!(
                "custom op '{written}' is unknown (generic form is \"{written}\"(...) : ...)"
            ));
        };
        self.bump();
        let mut state = self.new_state(op_name, loc, name_span);
        let mut parser = CustomParse { p: self, ir };
        syntax.parse(&mut parser, &mut state)?;
        Ok(state)
    }

    /// Finds the op for a custom-form name: as written, then with the default dialect of
    /// an enclosing op, then in `builtin`.
    fn lookup_custom_op(
        &mut self,
        written: &str,
    ) -> Option<(OpName, std::sync::Arc<dyn crate::registry::CustomSyntax>)> {
        let mut candidates = vec![written.to_string()];
        if let Some(d) = self.default_dialect.last() {
            candidates.push(format!("{d}.{written}"));
        }
        candidates.push(format!("builtin.{written}"));
        for c in candidates {
            if let Some(name) = self.ctx.lookup_op_name(&c)
                && let Some(syntax) = self.ctx.op_def(name).and_then(|d| d.syntax.clone())
            {
                return Some((name, syntax));
            }
        }
        None
    }

    /// `^bb1` as a successor: the block, created now if referenced before definition.
    pub fn parse_successor(&mut self, ir: &mut Ir) -> PResult<BlockId> {
        if self.peek() != Tok::CaretId {
            return self.err_expected("block name");
        }
        let span = self.tok_span();
        let name = &self.tok_text()[1..];
        self.bump();
        let body = self.cur_body();
        let scope = self.scope();
        let Some(&region) = scope.regions.last() else {
            return self.err_at(span, "successor outside a region");
        };
        if let Some(label) = scope.blocks.last().and_then(|m| m.get(name)) {
            return Ok(label.block);
        }
        let b = ir.body_mut(body).append_block(region);
        self.scope()
            .blocks
            .last_mut()
            .expect("region scope")
            .insert(
                name,
                BlockLabel {
                    block: b,
                    defined: false,
                    first_use: span,
                },
            );
        Ok(b)
    }

    // ----- regions and blocks -----

    /// Parses a region for `state`: in the op's own body when isolated, else in the
    /// current body. `entry_args` are the entry block arguments a custom syntax declared.
    pub(crate) fn parse_region_into_state(
        &mut self,
        ir: &mut Ir,
        state: &mut OperationState,
        entry_args: &[RegionArg<'s>],
    ) -> PResult<()> {
        let isolated = self
            .ctx
            .op_def(state.name)
            .is_some_and(|d| d.traits.isolated_from_above);
        let default_dialect = self
            .ctx
            .op_def(state.name)
            .and_then(|d| d.default_dialect.clone());
        if let Some(d) = &default_dialect {
            self.default_dialect.push(d.clone());
        }
        let result = if isolated {
            let nested = *state.nested.get_or_insert_with(|| ir.new_body());
            let region = ir.body_mut(nested).new_top_region();
            self.push_isolated_scope(nested);
            let r = self.parse_region_body(ir, region, entry_args);
            let r = r.and_then(|()| self.pop_isolated_scope());
            state.regions.push(region);
            r
        } else {
            let body = self.cur_body();
            let region = ir.body_mut(body).new_region(None);
            state.regions.push(region);
            self.parse_region_body(ir, region, entry_args)
        };
        if default_dialect.is_some() {
            self.default_dialect.pop();
        }
        result
    }

    /// `{ ops... }` or `{ ^bb0(...): ops... ^bb1: ... }` into `region`.
    fn parse_region_body(
        &mut self,
        ir: &mut Ir,
        region: RegionId,
        entry_args: &[RegionArg<'s>],
    ) -> PResult<()> {
        self.nested(|p| {
            p.expect(Tok::LBrace, "'{' to begin a region")?;
            p.push_region_scope(region);
            let body = p.cur_body();
            if p.peek() == Tok::RBrace && entry_args.is_empty() {
                p.bump();
                return p.pop_region_scope();
            }
            if !entry_args.is_empty() || p.peek() != Tok::CaretId {
                let entry = ir.body_mut(body).append_block(region);
                for a in entry_args {
                    p.add_block_argument(ir, entry, a.clone())?;
                }
                p.parse_block_ops(ir, entry)?;
                if !entry_args.is_empty()
                    && p.peek() == Tok::CaretId
                    && ir.body(body).first_op(entry).is_none()
                {
                    // An explicit label after declared arguments would redefine the entry.
                    return p.err("invalid block name in region with named arguments");
                }
            }
            while p.peek() == Tok::CaretId {
                p.parse_labeled_block(ir, region)?;
            }
            p.expect(Tok::RBrace, "'}' to end the region")?;
            p.pop_region_scope()
        })
    }

    fn parse_block_ops(&mut self, ir: &mut Ir, block: BlockId) -> PResult<()> {
        while !matches!(self.peek(), Tok::CaretId | Tok::RBrace | Tok::Eof) {
            self.parse_operation(ir, block)?;
        }
        Ok(())
    }

    /// `^name(%a: T loc(...), ...):` followed by ops.
    fn parse_labeled_block(&mut self, ir: &mut Ir, region: RegionId) -> PResult<()> {
        let span = self.tok_span();
        let name = &self.tok_text()[1..];
        self.bump();
        let body = self.cur_body();
        let existing = self
            .scope()
            .blocks
            .last()
            .and_then(|m| m.get(name))
            .cloned();
        let block = match existing {
            Some(label) if label.defined => {
                return self.err_at(span, format!("redefinition of block '^{name}'"));
            }
            Some(label) => {
                // Referenced earlier by a branch: it takes its place in source order now.
                ir.body_mut(body).move_block_to_end(label.block);
                label.block
            }
            None => ir.body_mut(body).append_block(region),
        };
        self.scope()
            .blocks
            .last_mut()
            .expect("region scope")
            .insert(
                name,
                BlockLabel {
                    block,
                    defined: true,
                    first_use: span,
                },
            );
        if self.try_consume(Tok::LParen) {
            let mut args = Vec::new();
            self.parse_comma_list_until(Tok::RParen, "')' or ','", |p| {
                args.push(p.parse_region_argument()?);
                Ok(())
            })?;
            for a in args {
                self.add_block_argument(ir, block, a)?;
            }
        }
        self.expect(Tok::Colon, "':' after block name")?;
        self.parse_block_ops(ir, block)
    }

    fn add_block_argument(&mut self, ir: &mut Ir, block: BlockId, a: RegionArg<'s>) -> PResult<()> {
        let body = self.cur_body();
        let v = ir.body_mut(body).add_block_arg(block, a.ty);
        // As in MLIR, an argument without `loc(...)` is located at its `%name`.
        let loc = match a.loc {
            Some(l) => l,
            None => self.loc_at(a.span.start),
        };
        ir.body_mut(body).arg_locs.insert(v, loc);
        if let Some((alias, span)) = a.loc_alias {
            self.deferred_locs.push(DeferredLoc {
                alias,
                span,
                body,
                target: LocTarget::Arg(v),
            });
        }
        self.define_values(ir, a.name, v, 1, a.span)
    }

    /// `%name: type loc(...)`: a block or region argument declaration.
    pub fn parse_region_argument(&mut self) -> PResult<RegionArg<'s>> {
        let mut arg = self.parse_region_argument_no_loc()?;
        match self.try_parse_trailing_loc()? {
            Some(LocOrAlias::Loc(l)) => arg.loc = Some(l),
            Some(LocOrAlias::Alias(alias, aspan)) => arg.loc_alias = Some((alias, aspan)),
            None => {}
        }
        Ok(arg)
    }

    /// `%name: type`, without a location.
    pub fn parse_region_argument_no_loc(&mut self) -> PResult<RegionArg<'s>> {
        let (name, span) = self.parse_value_name("argument name")?;
        self.expect(Tok::Colon, "':' and type")?;
        let ty = self.parse_type()?;
        Ok(RegionArg {
            name,
            ty,
            loc: None,
            loc_alias: None,
            span,
        })
    }

    /// True when the `%name` at hand starts the result names of the next op (`%a =`,
    /// `%a, %b:2 =`) rather than an operand: what lets a format end with a variadic
    /// operand group and no closing literal.
    pub fn at_result_names(&self) -> bool {
        if self.peek() != Tok::ValueId {
            return false;
        }
        let bytes = self.src.as_bytes();
        let mut at = self.tok.start as usize;
        let skip_space = |mut i: usize| {
            while bytes.get(i).is_some_and(|b| b.is_ascii_whitespace()) {
                i += 1;
            }
            i
        };
        loop {
            if bytes.get(at) != Some(&b'%') {
                return false;
            }
            at += 1;
            while bytes
                .get(at)
                .is_some_and(|b| super::lexer::is_suffix_char(*b))
            {
                at += 1;
            }
            at = skip_space(at);
            if bytes.get(at) == Some(&b':') {
                at = skip_space(at + 1);
                let digits = at;
                while bytes.get(at).is_some_and(u8::is_ascii_digit) {
                    at += 1;
                }
                if at == digits {
                    return false;
                }
                at = skip_space(at);
            }
            match bytes.get(at) {
                Some(b'=') => return true,
                Some(b',') => at = skip_space(at + 1),
                _ => return false,
            }
        }
    }

    /// `%name`: a region entry argument whose type the custom syntax knows (the
    /// induction variable of a loop).
    pub fn parse_region_argument_of_type(&mut self, ty: TypeId) -> PResult<RegionArg<'s>> {
        let (name, span) = self.parse_value_name("argument name")?;
        Ok(RegionArg {
            name,
            ty,
            loc: None,
            loc_alias: None,
            span,
        })
    }

    /// An optional `loc(...)` after an argument declared by a custom syntax (where the
    /// location follows other syntax, as in `%a: i32 {attrs} loc(...)`).
    pub fn parse_optional_arg_loc(&mut self, arg: &mut RegionArg<'s>) -> PResult<()> {
        match self.try_parse_trailing_loc()? {
            Some(LocOrAlias::Loc(l)) => arg.loc = Some(l),
            Some(LocOrAlias::Alias(alias, span)) => arg.loc_alias = Some((alias, span)),
            None => {}
        }
        Ok(())
    }

    /// Applies the deferred locations once all aliases are known.
    pub(crate) fn apply_deferred_locs(&mut self, ir: &mut Ir) -> PResult<()> {
        for d in std::mem::take(&mut self.deferred_locs) {
            let Some(attr) = self
                .attr_alias(d.alias)
                .filter(|a| matches!(self.ctx.attr_data(*a), AttrData::Location(_)))
            else {
                return self.err_at(d.span, format!("undefined location alias '#{}'", d.alias));
            };
            match d.target {
                LocTarget::Op(op) => ir.body_mut(d.body).op_mut(op).loc = attr,
                LocTarget::Arg(v) => {
                    ir.body_mut(d.body).arg_locs.insert(v, attr);
                }
            }
        }
        Ok(())
    }
}

/// What a [`CustomSyntax`](crate::registry::CustomSyntax) parses with: the parser plus
/// the IR being built (needed to resolve operands and build regions).
pub struct CustomParse<'a, 's, 'c> {
    /// The parser.
    pub p: &'a mut Parser<'s, 'c>,
    /// The IR being built.
    pub ir: &'a mut Ir,
}

impl<'s> CustomParse<'_, 's, '_> {
    /// The type of a value resolved for the op being built.
    pub fn value_type(&self, v: ValueId) -> TypeId {
        self.ir.body(self.p.cur_body()).value_type(v)
    }
    /// Resolves operands against types.
    pub fn resolve_all(
        &mut self,
        ops: &[UnresolvedOperand<'s>],
        tys: &[TypeId],
        span: Range<usize>,
    ) -> PResult<ValueList> {
        self.p.resolve_operands(self.ir, ops, tys, span)
    }
    /// Parses a region for the op being built, with declared entry arguments.
    pub fn parse_region(
        &mut self,
        state: &mut OperationState,
        entry_args: &[RegionArg<'s>],
    ) -> PResult<()> {
        self.p.parse_region_into_state(self.ir, state, entry_args)
    }
    /// Gives the op being built an empty region (one its custom form left out).
    pub fn add_empty_region(&mut self, state: &mut OperationState) {
        let isolated = self
            .p
            .ctx
            .op_def(state.name)
            .is_some_and(|d| d.traits.isolated_from_above);
        let region = if isolated {
            let nested = *state.nested.get_or_insert_with(|| self.ir.new_body());
            self.ir.body_mut(nested).new_top_region()
        } else {
            let body = self.p.cur_body();
            self.ir.body_mut(body).new_region(None)
        };
        state.regions.push(region);
    }
    /// Parses a successor block reference.
    pub fn parse_successor(&mut self) -> PResult<BlockId> {
        self.p.parse_successor(self.ir)
    }
}
