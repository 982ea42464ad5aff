//! The [`Context`]: uniqued types, attributes and strings, the op registry, and the
//! resource blobs of `dense_resource` attributes.
//!
//! Invariant: a [`TypeId`], [`AttrId`] or [`Sym`] is only meaningful in the context that
//! made it; IDs are never removed, so an ID stays valid as long as its context. IR stores
//! only these small IDs, which is what makes a module cheap to clone.

use std::sync::Arc;

use indexmap::{IndexMap, IndexSet};
use rustc_hash::FxBuildHasher;

type FxIndexSet<T> = IndexSet<T, FxBuildHasher>;
type FxIndexMap<K, V> = IndexMap<K, V, FxBuildHasher>;

use crate::attrs::{AttrData, AttrId, Location};
use crate::intern::{StrInterner, Sym};
use crate::registry::{OpDef, OpName};
use crate::rewrite::RewritePattern;
use crate::types::{FloatKind, Signedness, TypeData, TypeId};
use crate::uniquer::Uniquer;
use crate::weight::{Weight, weigh_attr, weigh_type};

/// Data of one entry of the `{-# dialect_resources: ... #-}` or
/// `{-# external_resources: ... #-}` sections.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResourceValue {
    /// A `"0x..."` blob: the alignment (first 4 bytes of the hex) and the data.
    Blob {
        /// Required alignment in bytes.
        alignment: u32,
        /// Raw bytes.
        data: Arc<[u8]>,
    },
    /// `true` or `false`.
    Bool(bool),
    /// Any other string, unescaped.
    String(String),
}

/// A dialect attribute whose value is one case, or a set of flags, of a fixed list:
/// `#arith.overflow<nsw>`, `#arith.fastmath<nnan,ninf>`; or, for enums stored as
/// integers (MLIR's `I64EnumAttr`), a plain integer such as `predicate = 2 : i64` whose
/// custom form is the case's keyword (`slt`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnumAttrDef {
    /// The allowed cases.
    pub cases: Vec<String>,
    /// Whether several cases may be combined (`<a,b>`).
    pub flags: bool,
    /// What joins the cases of a flag set when printed (`","` or `", "`).
    pub separator: String,
    /// For an enum stored as an integer: its width and the value of each case.
    pub int_storage: Option<(u32, Vec<i64>)>,
}

impl EnumAttrDef {
    /// The cases `attr` holds (indices into [`EnumAttrDef::cases`], in declaration
    /// order), when it is a valid value of the enum named `full_name`.
    pub fn decode(&self, ctx: &Context, full_name: &str, attr: AttrId) -> Option<Vec<usize>> {
        match (ctx.attr_data(attr), &self.int_storage) {
            (AttrData::Integer { value, ty }, Some((width, values))) => {
                let TypeData::Integer { width: w, .. } = ctx.type_data(*ty) else {
                    return None;
                };
                let i = values.iter().position(|v| i128::from(*v) == *value)?;
                (w == width).then(|| vec![i])
            }
            (
                AttrData::Dialect {
                    dialect,
                    body,
                    ty: None,
                },
                None,
            ) => {
                let (d, n) = full_name.split_once('.')?;
                let inner = ctx
                    .str(*body)
                    .strip_prefix('.')?
                    .strip_prefix(n)?
                    .strip_prefix('<')?
                    .strip_suffix('>')?;
                if ctx.str(*dialect) != d {
                    return None;
                }
                self.parse_cases(inner)
            }
            _ => None,
        }
    }

    /// The cases named in `text` (`nsw, nuw`), sorted in declaration order; `None` when
    /// one is unknown, or several are given to an enum that is not a flag set.
    pub fn parse_cases(&self, text: &str) -> Option<Vec<usize>> {
        let mut found = Vec::new();
        for word in text.split(',').map(str::trim) {
            let i = self.cases.iter().position(|c| c == word)?;
            if !found.contains(&i) {
                found.push(i);
            }
        }
        found.sort_unstable();
        (!found.is_empty() && (self.flags || found.len() == 1)).then_some(found)
    }

    /// The cases joined with the separator: what goes between `<` and `>`.
    pub fn cases_text(&self, cases: &[usize]) -> String {
        let names: Vec<&str> = cases.iter().map(|&i| self.cases[i].as_str()).collect();
        names.join(&self.separator)
    }
}

/// The parameters of a type or attribute a dialect file declared, such as
/// `!hw.token` or `#hw.memory<@sram>`: written `!dialect.name<p1, p2>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeclaredDef {
    /// Each parameter's name and kind, in order.
    pub params: Vec<(String, crate::attr_kind::AttrKind)>,
}

/// Owner of everything uniqued. See the module docs for the invariants. A clone keeps
/// every ID valid: it is how a context with all dialects loaded is copied cheaply.
///
/// Strings, types and attributes are interned through `&Context` (a lock-protected
/// [`Uniquer`](crate::uniquer)), and read without locks, so threads running passes on
/// different functions share one context. Registration (dialects, ops, enums) needs
/// `&mut Context`: it happens before any IR is processed.
#[derive(Clone)]
pub struct Context {
    strings: StrInterner,
    types: Uniquer<TypeData, Weight>,
    attrs: Uniquer<AttrData, Weight>,
    ops: FxIndexMap<Sym, Option<Arc<OpDef>>>,
    dialects: FxIndexSet<String>,
    resources: FxIndexMap<(Sym, Sym), ResourceValue>,
    enum_attrs: FxIndexMap<String, EnumAttrDef>,
    declared_types: FxIndexMap<String, DeclaredDef>,
    declared_attrs: FxIndexMap<String, DeclaredDef>,
    patterns: rustc_hash::FxHashMap<OpName, Vec<Arc<dyn RewritePattern>>>,
    any_op_patterns: Vec<Arc<dyn RewritePattern>>,
    empty_dict: AttrId,
    /// `value`: the attribute of constant-like ops, looked up on every fold.
    value_sym: Sym,
    /// Accept ops, types and attributes of dialects that are not registered.
    pub allow_unregistered: bool,
    /// Interpreter rules beyond acc's own, which a tool implements and declares before
    /// loading dialect files that name them (`interpret NAME`).
    interpreter_rules: FxIndexSet<String>,
}

impl Default for Context {
    fn default() -> Self {
        Self::new()
    }
}

impl Context {
    /// An empty context with no dialect registered. The scalar types `i1`, `i8`,
    /// `i16`, `i32`, `i64`, `index`, `f16`, `bf16`, `f32` and `f64` exist from the start,
    /// so that code holding only `&Context` (verifiers, shape inference) can name them
    /// with [`Context::lookup_type`].
    pub fn new() -> Context {
        let attrs = Uniquer::default();
        let empty = attrs.intern(AttrData::Dictionary(Box::new([])), |_| Weight::LEAF);
        let strings = StrInterner::default();
        let value_sym = strings.intern("value");
        let ctx = Context {
            strings,
            types: Uniquer::default(),
            attrs,
            ops: FxIndexMap::default(),
            dialects: FxIndexSet::default(),
            resources: FxIndexMap::default(),
            enum_attrs: FxIndexMap::default(),
            declared_types: FxIndexMap::default(),
            declared_attrs: FxIndexMap::default(),
            patterns: Default::default(),
            any_op_patterns: Vec::new(),
            empty_dict: AttrId(empty),
            value_sym,
            allow_unregistered: false,
            interpreter_rules: FxIndexSet::default(),
        };
        for width in [1, 8, 16, 32, 64] {
            ctx.int_type(width);
        }
        ctx.index_type();
        for kind in [
            FloatKind::F16,
            FloatKind::BF16,
            FloatKind::F32,
            FloatKind::F64,
        ] {
            ctx.float_type(kind);
        }
        ctx
    }

    // ----- strings -----

    /// Interns a string.
    pub fn sym(&self, s: &str) -> Sym {
        self.strings.intern(s)
    }
    /// The text of an interned string.
    pub fn str(&self, s: Sym) -> &str {
        self.strings.get(s)
    }
    /// Looks a string up without interning it.
    pub fn lookup_sym(&self, s: &str) -> Option<Sym> {
        self.strings.lookup(s)
    }

    // ----- types -----

    /// Uniques a type.
    pub fn intern_type(&self, data: TypeData) -> TypeId {
        let weigh =
            |d: &TypeData| weigh_type(d, &|t| self.types.meta(t.0), &|a| self.attrs.meta(a.0));
        TypeId(self.types.intern(data, weigh))
    }
    /// The ID of a type if it was ever interned (never creates one).
    pub fn lookup_type(&self, data: &TypeData) -> Option<TypeId> {
        self.types.lookup(data).map(TypeId)
    }
    /// Depth and size of a type (see [`crate::weight`]).
    pub fn type_weight(&self, t: TypeId) -> Weight {
        self.types.meta(t.0)
    }
    /// Depth and size of an attribute (see [`crate::weight`]).
    pub fn attr_weight(&self, a: AttrId) -> Weight {
        self.attrs.meta(a.0)
    }
    /// The structure of a type.
    pub fn type_data(&self, t: TypeId) -> &TypeData {
        self.types.get(t.0)
    }
    /// `iN` (signless).
    pub fn int_type(&self, width: u32) -> TypeId {
        self.intern_type(TypeData::Integer {
            width,
            signedness: Signedness::Signless,
        })
    }
    /// `index`.
    pub fn index_type(&self) -> TypeId {
        self.intern_type(TypeData::Index)
    }
    /// A float type.
    pub fn float_type(&self, kind: FloatKind) -> TypeId {
        self.intern_type(TypeData::Float(kind))
    }
    /// `none`.
    pub fn none_type(&self) -> TypeId {
        self.intern_type(TypeData::None)
    }
    /// `(inputs) -> (results)`.
    pub fn function_type(&self, inputs: &[TypeId], results: &[TypeId]) -> TypeId {
        self.intern_type(TypeData::Function {
            inputs: inputs.into(),
            results: results.into(),
        })
    }

    // ----- attributes -----

    /// Uniques an attribute. Dictionaries must already be sorted with unique names
    /// (use [`Context::dict_attr`] to build one from any order).
    pub fn intern_attr(&self, data: AttrData) -> AttrId {
        if let AttrData::Dictionary(entries) = &data {
            debug_assert!(
                entries
                    .windows(2)
                    .all(|w| self.str(w[0].0) < self.str(w[1].0)),
                "dictionary entries must be sorted by name and unique"
            );
        }
        let weigh =
            |d: &AttrData| weigh_attr(d, &|t| self.types.meta(t.0), &|a| self.attrs.meta(a.0));
        AttrId(self.attrs.intern(data, weigh))
    }
    /// The structure of an attribute.
    pub fn attr_data(&self, a: AttrId) -> &AttrData {
        self.attrs.get(a.0)
    }
    /// A dictionary from entries in any order; on a repeated name, returns that name.
    pub fn dict_attr(&self, mut entries: Vec<(Sym, AttrId)>) -> Result<AttrId, Sym> {
        if entries.is_empty() {
            return Ok(self.empty_dict);
        }
        entries.sort_by(|a, b| self.strings.get(a.0).cmp(self.strings.get(b.0)));
        if let Some(w) = entries.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(w[0].0);
        }
        Ok(self.intern_attr(AttrData::Dictionary(entries.into())))
    }
    /// The entries of a dictionary attribute (empty for any other attribute).
    pub fn dict_entries(&self, a: AttrId) -> &[(Sym, AttrId)] {
        match self.attr_data(a) {
            AttrData::Dictionary(e) => e,
            _ => &[],
        }
    }
    /// Looks `name` up in a dictionary attribute.
    pub fn dict_get(&self, dict: AttrId, name: &str) -> Option<AttrId> {
        let key = self.lookup_sym(name)?;
        self.dict_entries(dict)
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| *v)
    }
    /// Looks the key `key` up in a dictionary attribute (no string lookup: for hot
    /// paths holding the key's symbol).
    pub fn dict_get_sym(&self, dict: AttrId, key: Sym) -> Option<AttrId> {
        self.dict_entries(dict)
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| *v)
    }
    /// The symbol `value` (constants' attribute), interned once.
    pub fn value_sym(&self) -> Sym {
        self.value_sym
    }
    /// `{}`.
    pub fn empty_dict(&self) -> AttrId {
        self.empty_dict
    }
    /// `"text"`.
    pub fn string_attr(&self, s: &str) -> AttrId {
        let value = self.sym(s);
        self.intern_attr(AttrData::String { value, ty: None })
    }
    /// A type attribute.
    pub fn type_attr(&self, t: TypeId) -> AttrId {
        self.intern_attr(AttrData::Type(t))
    }
    /// `loc(unknown)`.
    pub fn unknown_loc(&self) -> AttrId {
        self.intern_attr(AttrData::Location(Location::Unknown))
    }
    /// `loc("file":line:col)`.
    pub fn file_loc(&self, file: Sym, line: u32, col: u32) -> AttrId {
        self.intern_attr(AttrData::Location(Location::FileLineCol {
            file,
            line,
            col,
            end: None,
        }))
    }

    /// A fused location, normalised as MLIR's `FusedLoc::get`: fused locations with the
    /// same metadata are flattened into it, `unknown` entries and duplicates are
    /// dropped; then no location left is `unknown` (or `fused<m>[unknown]` with
    /// metadata `m`), and one left without metadata is that location itself.
    pub fn fused_loc(&self, locs: &[AttrId], metadata: Option<AttrId>) -> AttrId {
        let unknown = self.unknown_loc();
        let mut kept: Vec<AttrId> = Vec::with_capacity(locs.len());
        let mut seen = rustc_hash::FxHashSet::default();
        for &l in locs {
            match self.attr_data(l) {
                AttrData::Location(Location::Fused {
                    metadata: m,
                    locs: inner,
                }) if *m == metadata => {
                    // Already normalised: only `fused<m>[unknown]` holds `unknown`.
                    kept.extend(inner.iter().filter(|i| seen.insert(**i)));
                }
                _ if l == unknown => {}
                _ => {
                    if seen.insert(l) {
                        kept.push(l);
                    }
                }
            }
        }
        match (kept.as_slice(), metadata) {
            ([], None) => unknown,
            ([], Some(_)) => self.intern_attr(AttrData::Location(Location::Fused {
                metadata,
                locs: Box::new([unknown]),
            })),
            ([one], None) => *one,
            _ => self.intern_attr(AttrData::Location(Location::Fused {
                metadata,
                locs: kept.into(),
            })),
        }
    }

    // ----- dialects and ops -----

    /// Registers a dialect namespace.
    pub fn register_dialect(&mut self, name: &str) {
        self.dialects.insert(name.to_string());
    }
    /// True when `name` is a registered dialect namespace.
    pub fn is_dialect_registered(&self, name: &str) -> bool {
        self.dialects.contains(name)
    }
    /// Registers an op (replacing any previous definition of the same name) and its dialect.
    pub fn register_op(&mut self, def: OpDef) -> OpName {
        if let Some((dialect, _)) = def.name.split_once('.') {
            self.register_dialect(dialect);
        }
        let name = self.sym(&def.name);
        let (index, _) = self.ops.insert_full(name, Some(Arc::new(def)));
        OpName(index as u32)
    }
    /// The name for an op spelled `name`, registered or not.
    pub fn op_name(&mut self, name: &str) -> OpName {
        let sym = self.sym(name);
        let entry = self.ops.entry(sym);
        let index = entry.index();
        entry.or_insert(None);
        OpName(index as u32)
    }
    /// Looks up an op name without creating one.
    pub fn lookup_op_name(&self, name: &str) -> Option<OpName> {
        let sym = self.lookup_sym(name)?;
        self.ops.get_index_of(&sym).map(|i| OpName(i as u32))
    }
    /// The spelling of an op name.
    pub fn op_name_str(&self, name: OpName) -> &str {
        let (sym, _) = self
            .ops
            .get_index(name.0 as usize)
            .expect("OpName from this context");
        self.str(*sym)
    }
    /// The definition of a registered op.
    pub fn op_def(&self, name: OpName) -> Option<&Arc<OpDef>> {
        self.ops
            .get_index(name.0 as usize)
            .and_then(|(_, d)| d.as_ref())
    }
    /// All registered ops, in registration order.
    pub fn registered_ops(&self) -> impl Iterator<Item = &Arc<OpDef>> {
        self.ops.values().flatten()
    }

    /// Registers the enum attribute `dialect.name` (and its dialect).
    pub fn register_enum_attr(&mut self, full_name: &str, def: EnumAttrDef) {
        if let Some((dialect, _)) = full_name.split_once('.') {
            self.register_dialect(dialect);
        }
        self.enum_attrs.insert(full_name.to_string(), def);
    }
    /// The enum attribute named `dialect.name`, if registered.
    pub fn enum_attr(&self, full_name: &str) -> Option<&EnumAttrDef> {
        self.enum_attrs.get(full_name)
    }

    /// Registers a type declared by a dialect file, by full name (`hw.token`).
    pub fn register_declared_type(&mut self, full_name: &str, def: DeclaredDef) {
        if let Some((dialect, _)) = full_name.split_once('.') {
            self.register_dialect(dialect);
        }
        self.declared_types.insert(full_name.to_string(), def);
    }
    /// The declared type named `dialect.name`, if registered.
    pub fn declared_type(&self, full_name: &str) -> Option<&DeclaredDef> {
        self.declared_types.get(full_name)
    }
    /// Registers an attribute declared by a dialect file, by full name (`hw.memory`).
    pub fn register_declared_attr(&mut self, full_name: &str, def: DeclaredDef) {
        if let Some((dialect, _)) = full_name.split_once('.') {
            self.register_dialect(dialect);
        }
        self.declared_attrs.insert(full_name.to_string(), def);
    }
    /// The declared attribute named `dialect.name`, if registered.
    pub fn declared_attr(&self, full_name: &str) -> Option<&DeclaredDef> {
        self.declared_attrs.get(full_name)
    }

    // ----- rewrite patterns -----

    /// Adds a pattern that canonicalization applies (to ops of its root's name, or to
    /// any op). Patterns of one root are kept by decreasing benefit.
    pub fn add_pattern(&mut self, pattern: Arc<dyn RewritePattern>) {
        let list = match pattern.root() {
            Some(root) => {
                let name = self.op_name(root);
                self.patterns.entry(name).or_default()
            }
            None => &mut self.any_op_patterns,
        };
        list.push(pattern);
        list.sort_by_key(|p| std::cmp::Reverse(p.benefit()));
    }
    /// The patterns rooted at ops named `name`, highest benefit first.
    pub fn patterns_for(&self, name: OpName) -> &[Arc<dyn RewritePattern>] {
        self.patterns.get(&name).map_or(&[], Vec::as_slice)
    }
    /// The patterns that apply to any op.
    pub fn patterns_for_any_op(&self) -> &[Arc<dyn RewritePattern>] {
        &self.any_op_patterns
    }
    /// Declares an interpreter rule that a tool implements itself (besides the
    /// interpreter's own), so that dialect files loaded afterwards may name it with
    /// `interpret NAME`.
    pub fn declare_interpreter_rule(&mut self, name: &str) {
        self.interpreter_rules.insert(name.to_string());
    }

    /// Whether a tool declared the interpreter rule `name`.
    pub fn is_interpreter_rule_declared(&self, name: &str) -> bool {
        self.interpreter_rules.contains(name)
    }

    /// The interpreter rules tools declared, in declaration order.
    pub fn declared_interpreter_rules(&self) -> impl Iterator<Item = &str> {
        self.interpreter_rules.iter().map(String::as_str)
    }

    /// Every pattern, in no particular order.
    pub fn all_patterns(&self) -> impl Iterator<Item = &Arc<dyn RewritePattern>> {
        self.patterns
            .values()
            .flatten()
            .chain(&self.any_op_patterns)
    }

    // ----- resources -----

    /// Stores a resource entry under `(dialect, key)`.
    pub fn set_resource(&mut self, dialect: Sym, key: Sym, value: ResourceValue) {
        self.resources.insert((dialect, key), value);
    }
    /// Looks a resource entry up.
    pub fn resource(&self, dialect: Sym, key: Sym) -> Option<&ResourceValue> {
        self.resources.get(&(dialect, key))
    }
}
