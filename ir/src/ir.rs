//! The IR container: an [`Ir`] owns one [`Body`] per isolated-from-above op, and each
//! body owns the ops, values, blocks, regions and uses inside it.
//!
//! Invariants:
//! - The root op (usually `builtin.module`) sits detached in [`Ir::root_body`].
//! - An op with the `IsolatedFromAbove` trait keeps its regions in its own body
//!   (`OpData::nested`); every other op keeps its regions in the body it lives in. So no
//!   value or block ID ever crosses a body, and bodies can be mutated in parallel.
//! - Data (what an op is) is kept apart from layout (where it is, see
//!   [`layout`](crate::layout)): moving an op never touches its operands or results.
//! - Every use of a value is on that value's intrusive use list; every successor use of a
//!   block is on that block's list. Erased ops have no uses and are unlinked.

use crate::attrs::AttrId;
use crate::context::{Context, ResourceValue};
use crate::entity::{EntityId, PackedId, Table, entity_id};
use crate::intern::Sym;
use crate::registry::OpName;
use crate::types::TypeId;

entity_id!(
    /// An op in a body.
    OpId, "op"
);
entity_id!(
    /// An SSA value (op result or block argument) in a body.
    ValueId, "v"
);
entity_id!(
    /// A block in a body.
    BlockId, "bb"
);
entity_id!(
    /// A region in a body.
    RegionId, "region"
);
entity_id!(
    /// One operand slot of an op: a use of a value.
    UseId, "use"
);
entity_id!(
    /// One successor slot of an op: a use of a block.
    SuccId, "succ"
);
entity_id!(
    /// A body of an [`Ir`].
    BodyId, "body"
);

/// What defines a value.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum ValueDef {
    /// Result number `index` of `op`.
    Result(OpId, u32),
    /// Argument number `index` of `block`.
    BlockArg(BlockId, u32),
    /// Not defined yet (a forward reference while parsing), or its definer was erased.
    Detached,
}

impl ValueDef {}

/// An SSA value.
#[derive(Clone, Debug)]
pub struct ValueData {
    /// Its type.
    pub ty: TypeId,
    /// Its definition.
    pub def: ValueDef,
    pub(crate) first_use: PackedId<UseId>,
}

/// An operand slot: doubly linked into the value's use list.
#[derive(Clone, Debug)]
pub(crate) struct UseData {
    pub(crate) value: ValueId,
    pub(crate) owner: OpId,
    pub(crate) prev: PackedId<UseId>,
    pub(crate) next: PackedId<UseId>,
}

/// A successor slot: doubly linked into the block's use list.
#[derive(Clone, Debug)]
pub(crate) struct SuccData {
    pub(crate) block: BlockId,
    pub(crate) owner: OpId,
    pub(crate) prev: PackedId<SuccId>,
    pub(crate) next: PackedId<SuccId>,
}

/// What an op is: name, operands, results, attributes, regions, successors.
#[derive(Clone, Debug)]
pub struct OpData {
    /// Its name.
    pub name: OpName,
    /// Its location attribute.
    pub loc: AttrId,
    /// Discardable attributes (a dictionary attribute).
    pub attrs: AttrId,
    /// Inherent attributes printed as `<{...}>` (a dictionary attribute), if any.
    pub props: Option<AttrId>,
    pub(crate) first_result: u32,
    pub(crate) num_results: u32,
    pub(crate) first_use: u32,
    pub(crate) num_operands: u32,
    pub(crate) first_succ: u32,
    pub(crate) num_succs: u32,
    pub(crate) regions: Box<[RegionId]>,
    pub(crate) nested: PackedId<BodyId>,
    pub(crate) erased: bool,
}

/// A block: arguments and the position of its ops.
#[derive(Clone, Debug)]
pub struct BlockData {
    pub(crate) args: Vec<ValueId>,
    pub(crate) region: RegionId,
    pub(crate) first_op: PackedId<OpId>,
    pub(crate) last_op: PackedId<OpId>,
    pub(crate) prev: PackedId<BlockId>,
    pub(crate) next: PackedId<BlockId>,
    pub(crate) first_succ_use: PackedId<SuccId>,
    pub(crate) erased: bool,
}

/// A region: an ordered list of blocks, owned by an op.
#[derive(Clone, Debug)]
pub struct RegionData {
    /// The op owning this region when it lives in the same body; `None` for the regions
    /// of a body's owner (see [`Body::owner`]).
    pub(crate) parent: PackedId<OpId>,
    pub(crate) first_block: PackedId<BlockId>,
    pub(crate) last_block: PackedId<BlockId>,
}

/// Where an op sits: its block and neighbours, plus an order key for O(1) "is before".
#[derive(Clone, Debug, Default)]
pub(crate) struct OpNode {
    pub(crate) block: PackedId<BlockId>,
    pub(crate) prev: PackedId<OpId>,
    pub(crate) next: PackedId<OpId>,
    pub(crate) seq: u64,
}

impl Default for PackedId<OpId> {
    fn default() -> Self {
        PackedId::NONE
    }
}
impl Default for PackedId<BlockId> {
    fn default() -> Self {
        PackedId::NONE
    }
}

/// The ops of one isolated-from-above op (or of the root) and everything they contain.
#[derive(Clone, Debug, Default)]
pub struct Body {
    pub(crate) ops: Table<OpId, OpData>,
    pub(crate) layout: Table<OpId, OpNode>,
    pub(crate) values: Table<ValueId, ValueData>,
    pub(crate) uses: Table<UseId, UseData>,
    pub(crate) succs: Table<SuccId, SuccData>,
    pub(crate) blocks: Table<BlockId, BlockData>,
    pub(crate) regions: Table<RegionId, RegionData>,
    /// The op (in the parent body) whose regions this body holds.
    pub(crate) owner: Option<(BodyId, OpId)>,
    /// The regions of the owner, in order.
    pub(crate) top_regions: Vec<RegionId>,
    /// Locations of block arguments that have one.
    pub(crate) arg_locs: rustc_hash::FxHashMap<ValueId, AttrId>,
}

/// A whole IR unit: the root op and all bodies.
#[derive(Clone, Debug)]
pub struct Ir {
    pub(crate) bodies: Table<BodyId, Body>,
    pub(crate) dead_bodies: Vec<bool>,
    /// The body holding the root op.
    pub root_body: BodyId,
    /// The root op (usually `builtin.module`), detached in [`Ir::root_body`].
    pub root: OpId,
    /// The `{-# external_resources: ... #-}` entries of the file, which acc keeps and
    /// prints back without reading them: groups in the order first seen, each with
    /// its entries in source order (a repeated key keeps its place, the last value).
    pub external_resources: Vec<(Sym, Vec<(Sym, ResourceValue)>)>,
}

/// A borrowed handle on one op: the IR, its body and its ID.
#[derive(Copy, Clone)]
pub struct OpRef<'a> {
    /// The IR.
    pub ir: &'a Ir,
    /// The body the op lives in.
    pub body: BodyId,
    /// The op.
    pub op: OpId,
}

impl Ir {
    /// An IR with an empty root body; the caller creates the root op and sets
    /// [`Ir::root`].
    pub fn new() -> Ir {
        let mut bodies = Table::default();
        bodies.push(Body::default());
        Ir {
            bodies,
            dead_bodies: vec![false],
            root_body: BodyId(0),
            root: OpId::from_index(0),
            external_resources: Vec::new(),
        }
    }

    /// Sets the external resource `key` of `group` (see [`Ir::external_resources`]).
    pub fn set_external_resource(&mut self, group: Sym, key: Sym, value: ResourceValue) {
        let index = match self
            .external_resources
            .iter()
            .position(|(g, _)| *g == group)
        {
            Some(i) => i,
            None => {
                self.external_resources.push((group, Vec::new()));
                self.external_resources.len() - 1
            }
        };
        let entries = &mut self.external_resources[index].1;
        match entries.iter_mut().find(|(k, _)| *k == key) {
            Some(entry) => entry.1 = value,
            None => entries.push((key, value)),
        }
    }

    /// Creates an empty body owned by `owner` (set later with [`Ir::set_body_owner`] when
    /// the owner does not exist yet).
    pub fn new_body(&mut self) -> BodyId {
        self.dead_bodies.push(false);
        self.bodies.push(Body::default())
    }
    /// Records which op owns `body`.
    pub fn set_body_owner(&mut self, body: BodyId, owner: (BodyId, OpId)) {
        self.bodies[body].owner = Some(owner);
    }
    /// A body.
    pub fn body(&self, id: BodyId) -> &Body {
        &self.bodies[id]
    }
    /// A body, mutably.
    pub fn body_mut(&mut self, id: BodyId) -> &mut Body {
        &mut self.bodies[id]
    }
    /// A handle on an op.
    pub fn op(&self, body: BodyId, op: OpId) -> OpRef<'_> {
        OpRef { ir: self, body, op }
    }
    /// The body holding the regions of `op`: its nested body when isolated, else `body`.
    pub fn region_body(&self, body: BodyId, op: OpId) -> BodyId {
        self.bodies[body].ops[op].nested.get().unwrap_or(body)
    }
    /// Erases `op` (which must be detached or will be unlinked, and whose results must
    /// have no uses), its regions and any nested bodies.
    pub fn erase_op(&mut self, body: BodyId, op: OpId) {
        let mut dead = Vec::new();
        self.bodies[body].erase_op_collect(op, &mut dead);
        while let Some(b) = dead.pop() {
            self.dead_bodies[b.index()] = true;
            let inner = std::mem::take(&mut self.bodies[b]);
            for o in inner.ops.keys() {
                if let Some(n) = inner.ops[o].nested.get() {
                    dead.push(n);
                }
            }
        }
    }
    /// Walks every op of body `body` and of the bodies nested in it, in pre-order,
    /// calling `f(body, op)`.
    pub fn walk(&self, body: BodyId, f: &mut dyn FnMut(BodyId, OpId)) {
        for &region in &self.bodies[body].top_regions {
            self.walk_region(body, region, f);
        }
    }
    fn walk_region(&self, body: BodyId, region: RegionId, f: &mut dyn FnMut(BodyId, OpId)) {
        let b = &self.bodies[body];
        for block in b.region_blocks(region) {
            for op in b.block_ops(block) {
                f(body, op);
                match b.ops[op].nested.get() {
                    Some(nested) => self.walk(nested, f),
                    None => {
                        for &r in b.ops[op].regions.iter() {
                            self.walk_region(body, r, f);
                        }
                    }
                }
            }
        }
    }
    /// Walks every op nested in `op` (not `op` itself), in pre-order.
    pub fn walk_nested(&self, body: BodyId, op: OpId, f: &mut dyn FnMut(BodyId, OpId)) {
        match self.bodies[body].ops[op].nested.get() {
            Some(nested) => self.walk(nested, f),
            None => {
                for &r in self.bodies[body].ops[op].regions.iter() {
                    self.walk_region(body, r, f);
                }
            }
        }
    }
    /// Number of ops in the whole IR, root included (walks everything: O(n)).
    pub fn count_ops(&self) -> usize {
        let mut n = 1;
        self.walk_nested(self.root_body, self.root, &mut |_, _| n += 1);
        n
    }
}

impl Default for Ir {
    fn default() -> Self {
        Ir::new()
    }
}

impl<'a> OpRef<'a> {
    fn data(&self) -> &'a OpData {
        &self.ir.bodies[self.body].ops[self.op]
    }
    /// The op's body.
    pub fn body_data(&self) -> &'a Body {
        &self.ir.bodies[self.body]
    }
    /// Its name.
    pub fn name(&self) -> OpName {
        self.data().name
    }
    /// Its location.
    pub fn loc(&self) -> AttrId {
        self.data().loc
    }
    /// Discardable attributes.
    pub fn attrs(&self) -> AttrId {
        self.data().attrs
    }
    /// Properties.
    pub fn props(&self) -> Option<AttrId> {
        self.data().props
    }
    /// An inherent attribute (from the properties, else from the attribute dictionary).
    pub fn attr(&self, ctx: &Context, name: &str) -> Option<AttrId> {
        self.props()
            .and_then(|p| ctx.dict_get(p, name))
            .or_else(|| ctx.dict_get(self.attrs(), name))
    }
    /// [`OpRef::attr`] by the name's symbol.
    pub fn attr_sym(&self, ctx: &Context, name: crate::Sym) -> Option<AttrId> {
        self.props()
            .and_then(|p| ctx.dict_get_sym(p, name))
            .or_else(|| ctx.dict_get_sym(self.attrs(), name))
    }
    /// Operand values.
    pub fn operands(&self) -> impl ExactSizeIterator<Item = ValueId> + 'a {
        self.body_data().operands(self.op)
    }
    /// Result values.
    pub fn results(&self) -> impl ExactSizeIterator<Item = ValueId> + 'a {
        self.body_data().results(self.op)
    }
    /// Operand types.
    pub fn operand_types(&self) -> Vec<TypeId> {
        let b = self.body_data();
        b.operands(self.op).map(|v| b.values[v].ty).collect()
    }
    /// Result types.
    pub fn result_types(&self) -> Vec<TypeId> {
        let b = self.body_data();
        b.results(self.op).map(|v| b.values[v].ty).collect()
    }
    /// Successor blocks.
    pub fn successors(&self) -> impl ExactSizeIterator<Item = BlockId> + 'a {
        self.body_data().successors(self.op)
    }
    /// The body holding this op's regions.
    pub fn region_body(&self) -> BodyId {
        self.data().nested.get().unwrap_or(self.body)
    }
    /// Its regions (in [`OpRef::region_body`]).
    pub fn regions(&self) -> &'a [RegionId] {
        match self.data().nested.get() {
            Some(nested) => &self.ir.bodies[nested].top_regions,
            None => &self.data().regions,
        }
    }
    /// The op whose region contains this op, if any.
    pub fn parent_op(&self) -> Option<OpRef<'a>> {
        let b = self.body_data();
        let block = b.layout[self.op].block.get()?;
        let region = b.blocks[block].region;
        match b.regions[region].parent.get() {
            Some(p) => Some(OpRef {
                ir: self.ir,
                body: self.body,
                op: p,
            }),
            None => b.owner.map(|(body, op)| OpRef {
                ir: self.ir,
                body,
                op,
            }),
        }
    }
    /// The block containing this op.
    pub fn block(&self) -> Option<BlockId> {
        self.body_data().layout[self.op].block.get()
    }
}
