//! A bias added to a matrix product becomes the product's init: `MatMul` then `Add`
//! of a vector along the last dimension (a linear layer as the exporters write it)
//! is one `tensor.matmul` whose sums start from the bias broadcast over its rows,
//! as a convolution's sums start from its bias. The sums then add the bias first
//! instead of last (within f32 rounding of the unfused result), and the separate
//! pass over the product's result disappears; a library with a biased product
//! (`packed-gemm`'s `_bias`) then reads the bias itself.

use acc_dialects::ops::{arith, tensor};
use acc_ir::{BodyId, Context, InsertPoint, Ir, OpId, ValueDef, ValueId};
use rustc_hash::FxHashMap;

use acc_dialects::build::{Builder, i64s, shape_of};

/// Folds every bias add of `body` that qualifies ([`BiasAdd::find`]).
pub(super) fn fold_matmul_biases(ctx: &Context, ir: &mut Ir, body: BodyId) -> Result<(), String> {
    let order: FxHashMap<OpId, usize> = top_ops(ir, body)
        .into_iter()
        .enumerate()
        .map(|(i, op)| (op, i))
        .collect();
    for op in top_ops(ir, body) {
        if ir.body(body).is_erased(op) {
            continue;
        }
        if let Some(add) = BiasAdd::find(ctx, ir, body, op, &order) {
            add.fold(ctx, ir, body)?;
        }
    }
    Ok(())
}

fn top_ops(ir: &Ir, body: BodyId) -> Vec<OpId> {
    let b = ir.body(body);
    b.top_regions()
        .iter()
        .flat_map(|r| b.region_blocks(*r))
        .flat_map(|bl| b.block_ops(bl).collect::<Vec<_>>())
        .collect()
}

/// A `tensor.map` adding a broadcast vector to a matrix product's result.
struct BiasAdd {
    /// The map, and the product's result as the map reads it (through reshapes).
    map: OpId,
    product: ValueId,
    /// The product, whose init is a zero splat constant used by it alone.
    matmul: OpId,
    /// The vector of `n` values (any shape of ones but its last dimension), a block
    /// argument or defined before the product.
    bias: ValueId,
}

impl BiasAdd {
    /// `op` as a bias add: a map whose region is one `addf` of its two inputs; one
    /// input a reshape chain (each link used once) of a `tensor.matmul` result (used
    /// once) of `[m, n]` ending in a shape whose last dimension is `n`; the other a
    /// broadcast of a vector of `n` values along that last dimension
    /// ([`broadcast_vector`]).
    fn find(
        ctx: &Context,
        ir: &Ir,
        body: BodyId,
        op: OpId,
        order: &FxHashMap<OpId, usize>,
    ) -> Option<BiasAdd> {
        let b = ir.body(body);
        if tensor::Op::of(ctx, ir.op(body, op)) != Some(tensor::Op::Map)
            || !adds_its_inputs(ctx, ir, body, op)
        {
            return None;
        }
        let operands: Vec<ValueId> = b.operands(op).collect();
        let [x, y, _init] = operands[..] else {
            return None;
        };
        let (shape, _) = shape_of(ctx, b.value_type(x)).ok()?;
        let n = *shape.last()?;
        let ((product, matmul), other) = match product_of(ctx, ir, body, x, n) {
            Some(p) => (p, y),
            None => (product_of(ctx, ir, body, y, n)?, x),
        };
        let vector = broadcast_vector(ctx, ir, body, other, n)?;
        let bias = through_reshapes(ctx, ir, body, vector);
        let before = match b.value(bias).def {
            ValueDef::Result(def, _) => order.get(&def)? < order.get(&matmul)?,
            _ => true,
        };
        before.then_some(BiasAdd {
            map: op,
            product,
            matmul,
            bias,
        })
    }

    /// The product started from the bias broadcast over its rows; the map's users
    /// read the product instead.
    fn fold(self, ctx: &Context, ir: &mut Ir, body: BodyId) -> Result<(), String> {
        let b = ir.body(body);
        let init = b.operand(self.matmul, 2);
        let init_def = match b.value(init).def {
            ValueDef::Result(def, _) => Some(def),
            _ => None,
        };
        let ty = b.value_type(init);
        let (shape, _) = shape_of(ctx, ty)?;
        let loc = ir.op(body, self.matmul).loc();
        let mut e = Builder::new(ctx, &mut *ir, body, InsertPoint::Before(self.matmul), loc);
        let vector = super::reshape(&mut e, self.bias, &shape[1..])?;
        let empty = tensor::Empty::build(&mut e, &[], ty).result()?;
        let dims = i64s(ctx, &[0]);
        let start = tensor::Broadcast::build(&mut e, vector, empty, ty)
            .dimensions(dims)
            .result()?;
        let map_result = ir
            .body(body)
            .results(self.map)
            .next()
            .ok_or("a map without a result")?;
        let map_inputs: Vec<ValueId> = ir.body(body).operands(self.map).collect();
        let bm = ir.body_mut(body);
        bm.set_operand(self.matmul, 2, start);
        bm.replace_all_uses(map_result, self.product);
        ir.erase_op(body, self.map);
        if let Some(def) = init_def {
            ir.erase_op(body, def);
        }
        // The broadcast, its reshapes and the map's init, now read by nothing.
        let mut e = Builder::new(ctx, &mut *ir, body, InsertPoint::Before(self.matmul), loc);
        for v in map_inputs {
            super::erase_unused(&mut e, v);
        }
        Ok(())
    }
}

/// Whether map `op`'s region yields `addf` of its two inputs.
fn adds_its_inputs(ctx: &Context, ir: &Ir, body: BodyId, op: OpId) -> bool {
    let b = ir.body(body);
    let Some(region) = ir.op(body, op).regions().first().copied() else {
        return false;
    };
    let Some(block) = b.entry_block(region) else {
        return false;
    };
    let ops: Vec<OpId> = b.block_ops(block).collect();
    let params = b.block_args(block);
    let [add, done] = ops[..] else {
        return false;
    };
    let args: Vec<ValueId> = b.operands(add).collect();
    arith::Addf::is(ctx, ir.op(body, add))
        && params.len() == 2
        && (args == [params[0], params[1]] || args == [params[1], params[0]])
        && b.operands(done).collect::<Vec<_>>() == b.results(add).collect::<Vec<_>>()
}

/// The value `v` reads through `collapse_shape`/`expand_shape` links: their source,
/// repeatedly.
fn through_reshapes(ctx: &Context, ir: &Ir, body: BodyId, mut v: ValueId) -> ValueId {
    let b = ir.body(body);
    while let ValueDef::Result(def, 0) = b.value(v).def {
        match tensor::Op::of(ctx, ir.op(body, def)) {
            Some(tensor::Op::CollapseShape | tensor::Op::ExpandShape) => v = b.operand(def, 0),
            _ => break,
        }
    }
    v
}

/// `v` as a product `[m, n]` read through reshapes, each value of the chain used
/// once, from a zero splat init used by the product alone: the product's result and
/// op.
fn product_of(ctx: &Context, ir: &Ir, body: BodyId, v: ValueId, n: i64) -> Option<(ValueId, OpId)> {
    let b = ir.body(body);
    let mut at = v;
    loop {
        if b.value_users(at).count() != 1 {
            return None;
        }
        let ValueDef::Result(def, 0) = b.value(at).def else {
            return None;
        };
        match tensor::Op::of(ctx, ir.op(body, def)) {
            Some(tensor::Op::CollapseShape | tensor::Op::ExpandShape) => at = b.operand(def, 0),
            Some(tensor::Op::Matmul) => {
                let (shape, _) = shape_of(ctx, b.value_type(at)).ok()?;
                let init = b.operand(def, 2);
                let zero = zero_splat(ctx, ir, body, init) && b.value_users(init).count() == 1;
                return (zero && shape.len() == 2 && shape[1] == n).then_some((v, def));
            }
            _ => return None,
        }
    }
}

/// Whether `v` is an `arith.constant` splat of zero.
fn zero_splat(ctx: &Context, ir: &Ir, body: BodyId, v: ValueId) -> bool {
    let ValueDef::Result(def, 0) = ir.body(body).value(v).def else {
        return false;
    };
    arith::Constant::of(ctx, ir.op(body, def))
        .and_then(|c| c.value_attr())
        .and_then(|a| acc_dialects::build::element_bytes(ctx, a))
        .is_some_and(|(bytes, splat)| splat && bytes.iter().all(|x| *x == 0))
}

/// `v` as a `tensor.broadcast` of a value of `n` elements, all along its last
/// dimension, that keeps the last dimension (its other dimensions, of size 1, kept
/// or not): that value, on which each element of `v` depends through its last
/// index alone.
fn broadcast_vector(ctx: &Context, ir: &Ir, body: BodyId, v: ValueId, n: i64) -> Option<ValueId> {
    let b = ir.body(body);
    let ValueDef::Result(def, 0) = b.value(v).def else {
        return None;
    };
    let op = ir.op(body, def);
    if tensor::Op::of(ctx, op) != Some(tensor::Op::Broadcast) {
        return None;
    }
    let input = b.operand(def, 0);
    let (out, _) = shape_of(ctx, b.value_type(v)).ok()?;
    let (shape, _) = shape_of(ctx, b.value_type(input)).ok()?;
    let dims = acc_dialects::hooks::attr_read::Attrs::of_op(ctx, op)
        .ints(tensor::Broadcast::ATTR_DIMENSIONS)
        .ok()
        .flatten()?;
    let keeps_last = !out.is_empty() && !dims.contains(&(out.len() as i64 - 1));
    let vector = shape.iter().product::<i64>() == n && shape.last() == Some(&n);
    (vector && keeps_last).then_some(input)
}
