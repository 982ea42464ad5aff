//! Copying ops, with their regions, into another place of the IR (the same body or
//! another one): what inlining and outlining need.
//!
//! A [`ValueMap`] says what each value used by the copied ops becomes; values defined
//! by the copies are added to it as they are made, and blocks of copied regions go to
//! its block map. A used value that is not in the map must belong to the destination
//! body (it is then used as is).

use rustc_hash::FxHashMap;

use crate::body::OpSpec;
use crate::ir::{BlockId, BodyId, Ir, OpId, RegionId, ValueId};
use crate::layout::InsertPoint;
use crate::types::TypeId;

/// Values and blocks of the source and what they became.
#[derive(Default, Debug)]
pub struct ValueMap {
    /// Source value to destination value.
    pub values: FxHashMap<ValueId, ValueId>,
    /// Source block to destination block.
    pub blocks: FxHashMap<BlockId, BlockId>,
}

impl ValueMap {
    fn value(&self, v: ValueId) -> ValueId {
        self.values.get(&v).copied().unwrap_or(v)
    }
    fn block(&self, b: BlockId) -> BlockId {
        self.blocks.get(&b).copied().unwrap_or(b)
    }
}

/// Copies op `op` of body `src` into body `dst` at `at`, returning the copy.
pub fn clone_op(
    ir: &mut Ir,
    src: BodyId,
    op: OpId,
    dst: BodyId,
    at: InsertPoint,
    map: &mut ValueMap,
) -> OpId {
    let data = ir.body(src).op(op).clone();
    let operands: Vec<ValueId> = ir.body(src).operands(op).map(|v| map.value(v)).collect();
    let results: Vec<ValueId> = ir.body(src).results(op).collect();
    let result_types: Vec<TypeId> = results
        .iter()
        .map(|v| ir.body(src).value_type(*v))
        .collect();
    let successors: Vec<BlockId> = ir.body(src).successors(op).map(|b| map.block(b)).collect();
    let src_regions: Vec<RegionId> = ir.op(src, op).regions().to_vec();
    let nested_src = ir.body(src).nested_body(op);
    let (regions, nested) = match nested_src {
        Some(_) => (Vec::new(), Some(ir.new_body())),
        None => {
            let dst_body = ir.body_mut(dst);
            (
                src_regions
                    .iter()
                    .map(|_| dst_body.new_region(None))
                    .collect(),
                None,
            )
        }
    };
    let new = ir.body_mut(dst).create_op(OpSpec {
        name: data.name,
        loc: data.loc,
        attrs: data.attrs,
        props: data.props,
        operands: &operands,
        result_types: &result_types,
        successors: &successors,
        regions: regions.clone(),
        nested,
    });
    ir.body_mut(dst).insert_op(new, at);
    let new_results: Vec<ValueId> = ir.body(dst).results(new).collect();
    for (old, new) in results.into_iter().zip(new_results) {
        map.values.insert(old, new);
    }
    match (nested_src, nested) {
        (Some(from), Some(to)) => {
            ir.set_body_owner(to, (dst, new));
            // A fresh map: nothing outside an isolated op is visible inside it.
            let mut inner = ValueMap::default();
            for &r in &src_regions {
                let region = ir.body_mut(to).new_top_region();
                clone_region(ir, from, r, to, region, &mut inner);
            }
        }
        _ => {
            for (&r, &new_region) in src_regions.iter().zip(&regions) {
                clone_region(ir, src, r, dst, new_region, map);
            }
        }
    }
    new
}

/// Copies the blocks of region `region` of body `src` into the empty region `into` of
/// body `dst`.
pub fn clone_region(
    ir: &mut Ir,
    src: BodyId,
    region: RegionId,
    dst: BodyId,
    into: RegionId,
    map: &mut ValueMap,
) {
    let blocks: Vec<BlockId> = ir.body(src).region_blocks(region).collect();
    // Blocks first, so that branches to later blocks find them.
    for &b in &blocks {
        let new = ir.body_mut(dst).append_block(into);
        map.blocks.insert(b, new);
        let args: Vec<ValueId> = ir.body(src).block_args(b).to_vec();
        for a in args {
            let ty = ir.body(src).value_type(a);
            let na = ir.body_mut(dst).add_block_arg(new, ty);
            map.values.insert(a, na);
        }
    }
    for &b in &blocks {
        let target = map.blocks[&b];
        let ops: Vec<OpId> = ir.body(src).block_ops(b).collect();
        for o in ops {
            clone_op(ir, src, o, dst, InsertPoint::End(target), map);
        }
    }
}
