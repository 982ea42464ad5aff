//! Building ops from a lowering: an insertion point in one body, ops by name with
//! named properties, ops with one single-block region built by a closure, and the
//! types and attributes lowerings keep making.

use acc_ir::attrs::{AttrData, DenseData};
use acc_ir::body::OpSpec;
use acc_ir::elements::{self, Scalar};
use acc_ir::{AttrId, BodyId, Context, InsertPoint, Ir, ResourceValue, TypeData, TypeId, ValueId};

/// Builds the ops of a region's block from its arguments; the values it yields.
pub type RegionBuilder<'f> =
    dyn FnMut(&mut Emitter<'_>, &[ValueId]) -> Result<Vec<ValueId>, String> + 'f;

/// Builds ops at given indices (a loop body).
pub type BodyBuilder<'f> = dyn FnMut(&mut Emitter<'_>, &[ValueId]) -> Result<(), String> + 'f;

/// Creates ops at an insertion point of one body, at one location.
pub struct Emitter<'a> {
    /// The context.
    pub ctx: &'a Context,
    /// The IR.
    pub ir: &'a mut Ir,
    /// The body ops go into.
    pub body: BodyId,
    /// Where they go.
    pub point: InsertPoint,
    /// Their location (the op being lowered).
    pub loc: AttrId,
}

impl Emitter<'_> {
    /// Creates `name(operands) {props} : result_types`; its results.
    pub fn op(
        &mut self,
        name: &str,
        operands: &[ValueId],
        result_types: &[TypeId],
        props: &[(&str, AttrId)],
    ) -> Result<Vec<ValueId>, String> {
        self.create(name, operands, result_types, props, Vec::new())
    }

    /// Creates an op whose single region has one block with arguments of `arg_types`;
    /// `fill` builds the block's ops (from its arguments) and returns the values
    /// `terminator` (a yield) ends it with.
    #[allow(clippy::too_many_arguments)]
    pub fn op_with_region(
        &mut self,
        name: &str,
        operands: &[ValueId],
        result_types: &[TypeId],
        props: &[(&str, AttrId)],
        arg_types: &[TypeId],
        terminator: &str,
        fill: &mut RegionBuilder<'_>,
    ) -> Result<Vec<ValueId>, String> {
        let body = self.ir.body_mut(self.body);
        let region = body.new_region(None);
        let block = body.append_block(region);
        let args: Vec<ValueId> = arg_types
            .iter()
            .map(|t| body.add_block_arg(block, *t))
            .collect();
        let mut inner = Emitter {
            ctx: self.ctx,
            ir: &mut *self.ir,
            body: self.body,
            point: InsertPoint::End(block),
            loc: self.loc,
        };
        let yielded = fill(&mut inner, &args)?;
        inner.op(terminator, &yielded, &[], &[])?;
        self.create(name, operands, result_types, props, vec![region])
    }

    fn create(
        &mut self,
        name: &str,
        operands: &[ValueId],
        result_types: &[TypeId],
        props: &[(&str, AttrId)],
        regions: Vec<acc_ir::RegionId>,
    ) -> Result<Vec<ValueId>, String> {
        let op_name = self
            .ctx
            .lookup_op_name(name)
            .ok_or_else(|| format!("'{name}' is not registered"))?;
        let props: Vec<_> = props.iter().map(|(k, v)| (self.ctx.sym(k), *v)).collect();
        let props = acc_ir::rewrite::with_defaults(self.ctx, op_name, props);
        let body = self.ir.body_mut(self.body);
        let op = body.create_op(OpSpec {
            name: op_name,
            loc: self.loc,
            attrs: self.ctx.empty_dict(),
            props,
            operands,
            result_types,
            successors: &[],
            regions,
            nested: None,
        });
        body.insert_op(op, self.point);
        Ok(body.results(op).collect())
    }

    /// `hw.intrinsic "callee"(operands)`: a call without semantics (its region empty).
    pub fn intrinsic_call(&mut self, callee: &str, operands: &[ValueId]) -> Result<(), String> {
        let callee = self.ctx.string_attr(callee);
        let region = self.ir.body_mut(self.body).new_region(None);
        self.create(
            "hw.intrinsic",
            operands,
            &[],
            &[("callee", callee)],
            vec![region],
        )?;
        Ok(())
    }

    /// The one result of an op.
    pub fn op1(
        &mut self,
        name: &str,
        operands: &[ValueId],
        result: TypeId,
        props: &[(&str, AttrId)],
    ) -> Result<ValueId, String> {
        Ok(self.op(name, operands, &[result], props)?[0])
    }

    /// The type of a value of this body.
    pub fn type_of(&self, v: ValueId) -> TypeId {
        self.ir.body(self.body).value_type(v)
    }

    /// `arith.constant` of a scalar.
    pub fn scalar(&mut self, ty: TypeId, value: f64) -> Result<ValueId, String> {
        let v = if matches!(self.ctx.type_data(ty), TypeData::Float(_)) {
            Scalar::Float(value)
        } else {
            Scalar::Int(value as i128)
        };
        let attr = elements::scalar_attr(self.ctx, ty, v).ok_or("not a scalar constant type")?;
        self.op1("arith.constant", &[], ty, &[("value", attr)])
    }

    /// `arith.constant` of an index.
    pub fn index(&mut self, i: i64) -> Result<ValueId, String> {
        let ty = self.ctx.index_type();
        self.scalar(ty, i as f64)
    }
}

/// The predicates of `arith.cmpi` the lowerings use, as MLIR numbers them.
pub mod cmpi {
    /// Not equal.
    pub const NE: i64 = 1;
    /// Signed less than.
    pub const SLT: i64 = 2;
    /// Signed greater than.
    pub const SGT: i64 = 4;
    /// Signed greater than or equal.
    pub const SGE: i64 = 5;
}

/// The predicates of `arith.cmpf` the lowerings use, as MLIR numbers them.
pub mod cmpf {
    /// Ordered and greater than.
    pub const OGT: i64 = 2;
    /// Ordered and less than.
    pub const OLT: i64 = 4;
    /// Unordered (either is NaN).
    pub const UNO: i64 = 14;
}

impl Emitter<'_> {
    /// `arith.cmpi` with `predicate` (a [`cmpi`] constant) of `a` and `b`.
    pub fn cmpi(&mut self, predicate: i64, a: ValueId, b: ValueId) -> Result<ValueId, String> {
        self.compare("arith.cmpi", predicate, a, b)
    }

    /// `arith.cmpf` with `predicate` (a [`cmpf`] constant) of `a` and `b`.
    pub fn cmpf(&mut self, predicate: i64, a: ValueId, b: ValueId) -> Result<ValueId, String> {
        self.compare("arith.cmpf", predicate, a, b)
    }

    fn compare(
        &mut self,
        op: &str,
        predicate: i64,
        a: ValueId,
        b: ValueId,
    ) -> Result<ValueId, String> {
        let i1 = self.ctx.int_type(1);
        let p = i64_attr(self.ctx, predicate);
        self.op1(op, &[a, b], i1, &[("predicate", p)])
    }
}

/// `arith.{op}` (addi, subi, muli, remsi, ...) of the index `a` and the constant `c`.
pub fn index_op(e: &mut Emitter<'_>, op: &str, a: ValueId, c: i64) -> Result<ValueId, String> {
    let k = e.index(c)?;
    let index = e.ctx.index_type();
    e.op1(&format!("arith.{op}"), &[a, k], index, &[])
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

/// Whether `ty`'s elements are floats.
pub fn is_float(ctx: &Context, ty: TypeId) -> bool {
    let e = ctx.type_data(ty).element_type().unwrap_or(ty);
    matches!(ctx.type_data(e), TypeData::Float(_))
}

/// `array<i32: ...>`: the `operandSegmentSizes` of an op with several variadic
/// operand groups.
pub fn segments(ctx: &Context, sizes: &[i32]) -> AttrId {
    let data: Vec<u8> = sizes.iter().flat_map(|x| x.to_le_bytes()).collect();
    ctx.intern_attr(AttrData::DenseArray {
        element: ctx.int_type(32),
        data: data.into(),
    })
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
    let acc_ir::ValueDef::Result(op, _) = ir.body(body).value(v).def else {
        return None;
    };
    let o = ir.op(body, op);
    if ctx.op_name_str(o.name()) != "arith.constant" {
        return None;
    }
    element_bytes(ctx, o.attr(ctx, "value")?)
}

/// The integer value of `v` when an `arith.constant` defines it.
pub fn constant_int(ctx: &Context, ir: &Ir, body: BodyId, v: ValueId) -> Option<i64> {
    let acc_ir::ValueDef::Result(op, _) = ir.body(body).value(v).def else {
        return None;
    };
    let o = ir.op(body, op);
    if ctx.op_name_str(o.name()) != "arith.constant" {
        return None;
    }
    match elements::scalar(ctx, o.attr(ctx, "value")?)?.1 {
        Scalar::Int(i) => i64::try_from(i).ok(),
        Scalar::Float(_) => None,
    }
}

/// The buffer a view was taken of, through `loop.reshape` and `loop.subview`.
pub fn buffer_root(ctx: &Context, ir: &Ir, body: BodyId, mut v: ValueId) -> ValueId {
    while let acc_ir::ValueDef::Result(op, _) = ir.body(body).value(v).def {
        match ctx.op_name_str(ir.body(body).op(op).name) {
            "loop.reshape" | "loop.subview" => v = ir.body(body).operand(op, 0),
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
