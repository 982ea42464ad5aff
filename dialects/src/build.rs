//! What lowerings build over and over, on the one [`Builder`] of `acc_ir`: index and
//! scalar constants, comparisons, library calls ([`BuildExt`]), and the types and
//! attributes they keep making.

use acc_ir::attrs::{AttrData, DenseData};
pub use acc_ir::builder::{Builder, NewOp, RegionBuilder};

use crate::ops::{arith, hw, loops};
use acc_ir::elements::{self, Scalar};
use acc_ir::{AttrId, BodyId, Context, Ir, ResourceValue, TypeData, TypeId, ValueId};

/// Builds ops at given indices (a loop body).
pub type BodyBuilder<'f> = dyn FnMut(&mut Builder<'_>, &[ValueId]) -> Result<(), String> + 'f;

/// The `arith` and `hw` ops lowerings make over and over.
pub trait BuildExt {
    /// `arith.constant` of a scalar.
    fn scalar(&mut self, ty: TypeId, value: f64) -> Result<ValueId, String>;
    /// `arith.constant` of an index.
    fn index(&mut self, i: i64) -> Result<ValueId, String>;
    /// `arith.cmpi` with `predicate` (a [`cmpi`] constant) of `a` and `b`.
    fn cmpi(&mut self, predicate: i64, a: ValueId, b: ValueId) -> Result<ValueId, String>;
    /// `arith.cmpf` with `predicate` (a [`cmpf`] constant) of `a` and `b`.
    fn cmpf(&mut self, predicate: i64, a: ValueId, b: ValueId) -> Result<ValueId, String>;
    /// `hw.intrinsic "callee"(operands)`: a call without semantics (its region empty).
    fn intrinsic_call(&mut self, callee: &str, operands: &[ValueId]) -> Result<(), String>;
}

impl BuildExt for Builder<'_> {
    fn scalar(&mut self, ty: TypeId, value: f64) -> Result<ValueId, String> {
        let v = if matches!(self.ctx.type_data(ty), TypeData::Float(_)) {
            Scalar::Float(value)
        } else {
            Scalar::Int(value as i128)
        };
        let attr = elements::scalar_attr(self.ctx, ty, v).ok_or("not a scalar constant type")?;
        arith::Constant::build(self, ty).value(attr).result()
    }

    fn index(&mut self, i: i64) -> Result<ValueId, String> {
        let ty = self.ctx.index_type();
        self.scalar(ty, i as f64)
    }

    fn cmpi(&mut self, predicate: i64, a: ValueId, b: ValueId) -> Result<ValueId, String> {
        let i1 = self.ctx.int_type(1);
        let p = i64_attr(self.ctx, predicate);
        arith::Cmpi::build(self, a, b, i1).predicate(p).result()
    }

    fn cmpf(&mut self, predicate: i64, a: ValueId, b: ValueId) -> Result<ValueId, String> {
        let i1 = self.ctx.int_type(1);
        let p = i64_attr(self.ctx, predicate);
        arith::Cmpf::build(self, a, b, i1).predicate(p).result()
    }

    fn intrinsic_call(&mut self, callee: &str, operands: &[ValueId]) -> Result<(), String> {
        let callee = self.ctx.string_attr(callee);
        let region = self.ir.body_mut(self.body).new_region(None);
        hw::Intrinsic::build(self, operands, &[])
            .callee(callee)
            .semantics(region)
            .create()?;
        Ok(())
    }
}

/// The predicates of `arith.cmpi` the lowerings use, as MLIR numbers them.
pub mod cmpi {
    /// Equal.
    pub const EQ: i64 = 0;
    /// Not equal.
    pub const NE: i64 = 1;
    /// Signed less than.
    pub const SLT: i64 = 2;
    /// Signed less than or equal.
    pub const SLE: i64 = 3;
    /// Signed greater than.
    pub const SGT: i64 = 4;
    /// Signed greater than or equal.
    pub const SGE: i64 = 5;
    /// Unsigned less than.
    pub const ULT: i64 = 6;
    /// Unsigned less than or equal.
    pub const ULE: i64 = 7;
    /// Unsigned greater than.
    pub const UGT: i64 = 8;
    /// Unsigned greater than or equal.
    pub const UGE: i64 = 9;
}

/// The predicates of `arith.cmpf` the lowerings use, as MLIR numbers them.
pub mod cmpf {
    /// Ordered and equal.
    pub const OEQ: i64 = 1;
    /// Ordered and greater than.
    pub const OGT: i64 = 2;
    /// Ordered and greater than or equal.
    pub const OGE: i64 = 3;
    /// Ordered and less than.
    pub const OLT: i64 = 4;
    /// Ordered and less than or equal.
    pub const OLE: i64 = 5;
    /// Unordered (either is NaN) or not equal.
    pub const UNE: i64 = 13;
    /// Unordered (either is NaN).
    pub const UNO: i64 = 14;
}

/// The body of a [`for_carrying`] loop: the next carried values from the index and
/// the carried ones.
pub type CarriedStep<'f> =
    dyn FnMut(&mut Builder<'_>, ValueId, &[ValueId]) -> Result<Vec<ValueId>, String> + 'f;

/// A `loop.for` from `lb` to `ub` (index values) by 1, carrying `inits`; `step` gives
/// the next carried values from the index and the carried ones. The values carried
/// out of the last iteration.
pub fn for_carrying(
    e: &mut Builder<'_>,
    [lb, ub]: [ValueId; 2],
    inits: &[ValueId],
    step: &mut CarriedStep<'_>,
) -> Result<Vec<ValueId>, String> {
    let one = e.index(1)?;
    let types: Vec<TypeId> = inits.iter().map(|v| e.type_of(*v)).collect();
    let mut arg_types = vec![e.ctx.index_type()];
    arg_types.extend(&types);
    let mut fill = |inner: &mut Builder<'_>, args: &[ValueId]| step(inner, args[0], &args[1..]);
    let region = e.region(&arg_types, loops::Yield::NAME, &mut fill)?;
    loops::For::build(e, lb, ub, one, inits, &types)
        .region(region)
        .results()
}

/// `i` clamped to `[0, n - 1]`.
pub fn clamp_index(e: &mut Builder<'_>, i: ValueId, n: i64) -> Result<ValueId, String> {
    let index = e.ctx.index_type();
    let zero = e.index(0)?;
    let last = e.index(n - 1)?;
    let lo = arith::Maxsi::build(e, i, zero, index).result()?;
    arith::Minsi::build(e, lo, last, index).result()
}

/// The binary `arith` op `op` (addi, subi, muli, remsi, ...) of the index `a` and the
/// constant `c`.
pub fn index_op(e: &mut Builder<'_>, op: arith::Op, a: ValueId, c: i64) -> Result<ValueId, String> {
    let k = e.index(c)?;
    let index = e.ctx.index_type();
    e.op1(op.name(), &[a, k], index, &[])
}

/// `tensor<shape x element>`.
pub fn tensor_type(ctx: &Context, shape: &[i64], element: TypeId) -> TypeId {
    ctx.intern_type(TypeData::RankedTensor {
        shape: shape.into(),
        element,
        encoding: None,
    })
}

/// `memref<shape x element>` with the identity layout.
pub fn memref_type(ctx: &Context, shape: &[i64], element: TypeId) -> TypeId {
    ctx.intern_type(TypeData::MemRef {
        shape: shape.into(),
        element,
        layout: None,
        memory_space: None,
    })
}

/// The static shape and element type of a shaped type.
pub fn shape_of(ctx: &Context, ty: TypeId) -> Result<(Vec<i64>, TypeId), String> {
    let d = ctx.type_data(ty);
    let shape = d.shape().ok_or("expects a shaped type")?.to_vec();
    if shape.iter().any(|s| *s < 0) {
        return Err(format!(
            "{} has a dynamic shape",
            acc_ir::printer::type_to_string(ctx, ty)
        ));
    }
    Ok((shape, d.element_type().unwrap_or(ty)))
}

/// `array<i64: ...>`.
pub fn i64s(ctx: &Context, v: &[i64]) -> AttrId {
    let data: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    ctx.intern_attr(AttrData::DenseArray {
        element: ctx.int_type(64),
        data: data.into(),
    })
}

/// `[[0, 1], [2]]`: a reassociation (lists of dimension indices).
pub fn reassociation(ctx: &Context, groups: &[Vec<i64>]) -> AttrId {
    let int = |i: i64| {
        elements::scalar_attr(ctx, ctx.int_type(64), Scalar::Int(i.into())).expect("an i64")
    };
    let groups: Vec<AttrId> = groups
        .iter()
        .map(|g| ctx.intern_attr(AttrData::Array(g.iter().map(|i| int(*i)).collect())))
        .collect();
    ctx.intern_attr(AttrData::Array(groups.into()))
}

/// An `i64` attribute.
pub fn i64_attr(ctx: &Context, v: i64) -> AttrId {
    elements::scalar_attr(ctx, ctx.int_type(64), Scalar::Int(v.into())).expect("an i64")
}

/// Sets the properties `props` of `op` (replacing those of the same names) and
/// drops those named in `removed`.
pub fn set_props(
    ctx: &Context,
    ir: &mut Ir,
    body: BodyId,
    op: acc_ir::OpId,
    props: &[(&str, AttrId)],
    removed: &[&str],
) -> Result<(), String> {
    let mut entries: Vec<(acc_ir::Sym, AttrId)> = ir
        .body(body)
        .op(op)
        .props
        .map(|p| ctx.dict_entries(p).to_vec())
        .unwrap_or_default();
    entries.retain(|(k, _)| !removed.contains(&ctx.str(*k)));
    for (name, value) in props {
        let key = ctx.sym(name);
        entries.retain(|(k, _)| *k != key);
        entries.push((key, *value));
    }
    let dict = ctx
        .dict_attr(entries)
        .map_err(|_| "duplicate properties".to_string())?;
    ir.body_mut(body).op_mut(op).props = Some(dict);
    Ok(())
}

/// Whether `ty`'s elements are floats.
pub fn is_float(ctx: &Context, ty: TypeId) -> bool {
    let e = ctx.type_data(ty).element_type().unwrap_or(ty);
    matches!(ctx.type_data(e), TypeData::Float(_))
}

/// The little-endian bytes of a dense constant's elements (one element when
/// `splat`), from `dense<...>` or a `dense_resource` blob.
pub fn element_bytes(ctx: &Context, a: AttrId) -> Option<(Vec<u8>, bool)> {
    match ctx.attr_data(a) {
        AttrData::DenseElements { data, .. } => match data {
            DenseData::Splat(b) => Some((b.to_vec(), true)),
            DenseData::Elements(b) => Some((b.to_vec(), false)),
            DenseData::Strings(_) => None,
        },
        AttrData::DenseResource { handle, .. } => {
            match ctx.resource(ctx.lookup_sym("builtin")?, *handle)? {
                ResourceValue::Blob { data, .. } => Some((data.to_vec(), false)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The bytes of the dense constant that defines `v` (`arith.constant`), as
/// [`element_bytes`].
pub fn dense_bytes(ctx: &Context, ir: &Ir, body: BodyId, v: ValueId) -> Option<(Vec<u8>, bool)> {
    let c: arith::Constant<'_> = crate::ops::defining(ctx, ir, body, v)?;
    element_bytes(ctx, c.value_attr()?)
}

/// The integer value of `v` when an `arith.constant` defines it.
pub fn constant_int(ctx: &Context, ir: &Ir, body: BodyId, v: ValueId) -> Option<i64> {
    let c: arith::Constant<'_> = crate::ops::defining(ctx, ir, body, v)?;
    match elements::scalar(ctx, c.value_attr()?)?.1 {
        Scalar::Int(i) => i64::try_from(i).ok(),
        Scalar::Float(_) => None,
    }
}

/// The buffer a view was taken of, through `loop.reshape` and `loop.subview`.
pub fn buffer_root(ctx: &Context, ir: &Ir, body: BodyId, mut v: ValueId) -> ValueId {
    while let acc_ir::ValueDef::Result(op, _) = ir.body(body).value(v).def {
        match loops::Op::of(ctx, ir.op(body, op)) {
            Some(loops::Op::Reshape | loops::Op::Subview) => v = ir.body(body).operand(op, 0),
            _ => break,
        }
    }
    v
}

/// Every op of a body, nested ones included, each after the ops of its regions
/// (post-order: inner loops before the loops holding them).
pub fn ops_post_order(ir: &Ir, body: BodyId) -> Vec<acc_ir::OpId> {
    fn visit(ir: &Ir, body: BodyId, block: acc_ir::BlockId, out: &mut Vec<acc_ir::OpId>) {
        let b = ir.body(body);
        for op in b.block_ops(block) {
            for r in b.op_regions(op) {
                for blk in b.region_blocks(*r) {
                    visit(ir, body, blk, out);
                }
            }
            out.push(op);
        }
    }
    let b = ir.body(body);
    let mut out = Vec::new();
    for r in b.top_regions() {
        for blk in b.region_blocks(*r) {
            visit(ir, body, blk, &mut out);
        }
    }
    out
}
