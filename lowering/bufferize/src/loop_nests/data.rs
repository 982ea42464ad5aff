//! The loop nests of the tensor ops that move elements by index: slices taken and
//! inserted, tensors generated element by element (gathers reading other tensors
//! with `tensor.extract`), and sorts.

use acc_dialects::build::BuildExt as _;
use acc_dialects::ops::{arith, func, loops, tensor};
use acc_ir::clone::{ValueMap, clone_op};
use acc_ir::{OpId, ValueId};

use crate::loop_nests::build::{index_op, parallel, rank_on_line};
use crate::{Bufferizer, buffer_type};
use acc_dialects::build::{Builder, cmpf, cmpi, is_float};

impl Bufferizer<'_> {
    /// The names of the static offsets, sizes and strides of a slice op
    /// (`tensor.insert_slice`, else `tensor.extract_slice`).
    fn slice_attrs(&self, op: OpId) -> [&'static str; 3] {
        if tensor::InsertSlice::is(self.ctx, self.ir.op(self.body, op)) {
            [
                tensor::InsertSlice::ATTR_STATIC_OFFSETS,
                tensor::InsertSlice::ATTR_STATIC_SIZES,
                tensor::InsertSlice::ATTR_STATIC_STRIDES,
            ]
        } else {
            [
                tensor::ExtractSlice::ATTR_STATIC_OFFSETS,
                tensor::ExtractSlice::ATTR_STATIC_SIZES,
                tensor::ExtractSlice::ATTR_STATIC_STRIDES,
            ]
        }
    }

    /// The static offsets, sizes and strides of a slice op; an error for dynamic ones
    /// and for slices dropping dimensions.
    fn static_slice(&self, op: OpId, rank: usize) -> Result<[Vec<i64>; 3], String> {
        let lists = self.slice_attrs(op).map(|name| self.ints(op, name));
        if lists.iter().flatten().any(|v| *v == acc_ir::DYNAMIC) {
            return Err("dynamic offsets, sizes or strides have no bufferization yet".into());
        }
        if lists.iter().any(|l| l.len() != rank) {
            return Err("slices dropping dimensions have no bufferization yet".into());
        }
        Ok(lists)
    }

    /// `tensor.extract_slice`: a new buffer holding the slice (element `i` along each
    /// dimension read at `offset + i * stride`).
    pub(crate) fn extract_slice(&mut self, op: OpId) -> Result<ValueId, String> {
        let (x, result) = self.operand_and_result(op)?;
        let shape = self.static_shape(result)?;
        if self.shape(x)?.len() != shape.len() {
            return Err("slices dropping dimensions have no bufferization yet".into());
        }
        let [offsets, _, strides] = self.static_slice(op, shape.len())?;
        let src = self
            .buffers
            .get(&x)
            .copied()
            .ok_or("the input has no buffer")?;
        let elem = self.element(x);
        let ty = buffer_type(self.ctx, self.ir.body(self.body).value_type(result));
        let mut e = self.emitter(op);
        let dest = loops::Alloc::build(&mut e, &[], ty).result()?;
        parallel(&mut e, &shape, &mut |e, ivs| {
            let at = strided_positions(e, ivs, &offsets, &strides)?;
            let v = loops::Load::build(e, src, &at, elem).result()?;
            loops::Store::build(e, v, dest, ivs).create()?;
            Ok(())
        })?;
        self.writable.insert(dest);
        Ok(dest)
    }

    /// `tensor.extract_slice` of dynamic sizes: the leading elements of a tensor of
    /// static shape (zero offsets, unit strides, each static size the source's, no
    /// dimension dropped), which only a `func.return` reads. Nothing is copied: the
    /// return gives the source's buffer and the sizes.
    pub(crate) fn bounded_slice(&mut self, op: OpId) -> Result<(), String> {
        let operands: Vec<ValueId> = self.ir.body(self.body).operands(op).collect();
        let (x, result) = self.operand_and_result(op)?;
        let source = self.static_shape(x)?;
        let result_rank = self.ir.body(self.body).value_type(result);
        let result_rank = self
            .ctx
            .type_data(result_rank)
            .shape()
            .map_or(0, <[i64]>::len);
        let (offsets, sizes, strides) = (
            self.ints(op, tensor::ExtractSlice::ATTR_STATIC_OFFSETS),
            self.ints(op, tensor::ExtractSlice::ATTR_STATIC_SIZES),
            self.ints(op, tensor::ExtractSlice::ATTR_STATIC_STRIDES),
        );
        let dynamic: Vec<usize> = (0..sizes.len())
            .filter(|d| sizes[*d] == acc_ir::DYNAMIC)
            .collect();
        let whole = |d: usize| sizes[d] == acc_ir::DYNAMIC || sizes[d] == source[d];
        let leading = offsets.iter().all(|o| *o == 0)
            && strides.iter().all(|s| *s == 1)
            && sizes.len() == source.len()
            && (0..sizes.len()).all(whole);
        if !leading || result_rank != source.len() || operands.len() != 1 + dynamic.len() {
            return Err("a slice of dynamic size is bufferized only as the leading elements of its source (zero offsets, unit strides, static sizes the source's, no dropped dimension)".into());
        }
        let b = self.ir.body(self.body);
        let returned_only = b
            .value_users(result)
            .all(|u| func::Return::is(self.ctx, self.ir.op(self.body, u)));
        if !returned_only {
            return Err("a slice of dynamic size is bufferized only as a result of its function (dynamic shapes have no bufferization elsewhere yet)".into());
        }
        let src = self
            .buffers
            .get(&x)
            .copied()
            .ok_or("the input has no buffer")?;
        let dims = dynamic
            .into_iter()
            .zip(operands[1..].iter().copied())
            .collect();
        self.bounded.insert(result, (src, dims));
        Ok(())
    }

    /// `tensor.insert_slice`: the destination's buffer (or a copy of it when it is
    /// read elsewhere) with the source stored at `offset + i * stride`.
    pub(crate) fn insert_slice(&mut self, op: OpId) -> Result<ValueId, String> {
        let operands: Vec<ValueId> = self.ir.body(self.body).operands(op).collect();
        let (source, dest_tensor) = (operands[0], operands[1]);
        let shape = self.static_shape(source)?;
        if self.shape(dest_tensor)?.len() != shape.len() {
            return Err("slices dropping dimensions have no bufferization yet".into());
        }
        let [offsets, _, strides] = self.static_slice(op, shape.len())?;
        let src = self
            .buffers
            .get(&source)
            .copied()
            .ok_or("the source has no buffer")?;
        let dest = self.destination(op, dest_tensor, true)?;
        let elem = self.element(source);
        let mut e = self.emitter(op);
        parallel(&mut e, &shape, &mut |e, ivs| {
            let v = loops::Load::build(e, src, ivs, elem).result()?;
            let at = strided_positions(e, ivs, &offsets, &strides)?;
            loops::Store::build(e, v, dest, &at).create()?;
            Ok(())
        })?;
        Ok(dest)
    }

    /// `tensor.generate`: a new buffer, each element stored by the region inlined at
    /// its indices, the region's `tensor.extract`s of tensors from above becoming
    /// loads of their buffers.
    pub(crate) fn generate(&mut self, op: OpId) -> Result<ValueId, String> {
        self.generate_in_layout(op, None)
    }

    /// [`Self::generate`] into a buffer holding the result transposed by `layout`
    /// (its dimension `i` the result's dimension `layout[i]`), walked in the
    /// buffer's order: an elementwise host op writing what an intrinsic reads in
    /// another layout, with no transposing copy after it.
    pub(crate) fn generate_in_layout(
        &mut self,
        op: OpId,
        layout: Option<&[i64]>,
    ) -> Result<ValueId, String> {
        let result = self
            .ir
            .body(self.body)
            .results(op)
            .next()
            .ok_or("no result")?;
        let logical = self.static_shape(result)?;
        let (shape, ty) = match layout {
            None => (
                logical,
                buffer_type(self.ctx, self.ir.body(self.body).value_type(result)),
            ),
            Some(perm) => {
                let ty = self.ir.body(self.body).value_type(result);
                let element = self.ctx.type_data(ty).element_type().ok_or("no elements")?;
                let shape = crate::accel::layouts::permuted_shape(&logical, perm);
                let ty = acc_dialects::build::memref_type(self.ctx, &shape, element);
                (shape, ty)
            }
        };
        let body = self.body;
        let b = self.ir.body(body);
        let region = *self.ir.op(body, op).regions().first().ok_or("no region")?;
        let block = b.entry_block(region).ok_or("an empty region")?;
        let params = b.block_args(block).to_vec();
        let ops: Vec<OpId> = b.block_ops(block).collect();
        // The buffers of the tensors the region reads.
        let mut loads = Vec::new();
        for o in &ops {
            let r = self.ir.op(body, *o);
            if tensor::Extract::is(self.ctx, r) {
                loads.push((*o, self.extracted_buffer(*o)?));
            }
        }
        let mut e = self.emitter(op);
        let dest = loops::Alloc::build(&mut e, &[], ty).result()?;
        // Copies of ops with regions (a `loop.for` walking a line): the extracts
        // inside them become loads afterwards.
        let mut nested = Vec::new();
        parallel(&mut e, &shape, &mut |e, ivs| {
            let mut map = ValueMap::default();
            // The region's indices: buffer dimension i is the result's layout[i].
            let mut logical = ivs.to_vec();
            if let Some(perm) = layout {
                for (i, p) in perm.iter().enumerate() {
                    logical[*p as usize] = ivs[i];
                }
            }
            for (p, iv) in params.iter().zip(&logical) {
                map.values.insert(*p, *iv);
            }
            let (last, inner) = ops.split_last().ok_or("an empty block")?;
            let mapped = |map: &ValueMap, v: ValueId| map.values.get(&v).copied().unwrap_or(v);
            for o in inner {
                if let Some((_, buf)) = loads.iter().find(|(x, _)| x == o) {
                    let indices: Vec<ValueId> =
                        e.ir.body(body)
                            .operands(*o)
                            .skip(1)
                            .map(|v| mapped(&map, v))
                            .collect();
                    let old = e.ir.body(body).results(*o).next().ok_or("no result")?;
                    let elem = e.type_of(old);
                    let v = loops::Load::build(e, *buf, &indices, elem).result()?;
                    map.values.insert(old, v);
                } else {
                    let copy = clone_op(e.ir, body, *o, body, e.point, &mut map);
                    nested.push(copy);
                }
            }
            let y = e.ir.body(body).operand(*last, 0);
            let y = mapped(&map, y);
            loops::Store::build(e, y, dest, ivs).create()?;
            Ok(())
        })?;
        for copy in nested {
            self.loads_for_nested_extracts(copy)?;
        }
        self.writable.insert(dest);
        Ok(dest)
    }

    /// The buffer of the tensor the `tensor.extract` `op` reads.
    fn extracted_buffer(&self, op: OpId) -> Result<ValueId, String> {
        let t = self.ir.body(self.body).operand(op, 0);
        self.buffers
            .get(&t)
            .copied()
            .ok_or_else(|| "a tensor the region reads has no buffer".to_string())
    }

    /// Every `tensor.extract` nested in `op`'s regions replaced by a `loop.load` of
    /// its tensor's buffer at the same indices.
    fn loads_for_nested_extracts(&mut self, op: OpId) -> Result<(), String> {
        let mut extracts = Vec::new();
        self.ir.walk_nested(self.body, op, &mut |b, o| {
            if b == self.body && tensor::Extract::is(self.ctx, self.ir.op(b, o)) {
                extracts.push(o);
            }
        });
        for x in extracts {
            let buf = self.extracted_buffer(x)?;
            let indices: Vec<ValueId> = self.ir.body(self.body).operands(x).skip(1).collect();
            let old = self
                .ir
                .body(self.body)
                .results(x)
                .next()
                .ok_or("no result")?;
            let mut e = self.emitter(x);
            let elem = e.type_of(old);
            let v = loops::Load::build(&mut e, buf, &indices, elem).result()?;
            let b = self.ir.body_mut(self.body);
            b.replace_all_uses(old, v);
            b.erase_op(x);
        }
        Ok(())
    }

    /// `tensor.sort`, by ranks: element `i` of each line goes to position `rank(i)`,
    /// the number of elements of its line ordered before it (smaller, or equal and
    /// earlier; NaN above every number), computed with one pass over the line. Both
    /// inits' buffers are written; the results are `[values, indices]`.
    pub(crate) fn sort(&mut self, op: OpId) -> Result<[ValueId; 2], String> {
        let operands: Vec<ValueId> = self.ir.body(self.body).operands(op).collect();
        let [x, values_init, indices_init] = operands[..] else {
            return Err("expects an input and two inits".into());
        };
        let dim = self
            .int(op, tensor::Sort::ATTR_DIMENSION)
            .ok_or("no dimension")? as usize;
        let descending = self.attrs(op).flag(tensor::Sort::ATTR_DESCENDING);
        let shape = self.static_shape(x)?;
        let src = self
            .buffers
            .get(&x)
            .copied()
            .ok_or("the input has no buffer")?;
        let values = self.destination(op, values_init, false)?;
        let indices = self.destination(op, indices_init, false)?;
        let (elem, index_elem) = (self.element(x), self.element(indices_init));
        let len = shape[dim];
        let mut e = self.emitter(op);
        parallel(&mut e, &shape, &mut |e, ivs| {
            let xi = loops::Load::build(e, src, ivs, elem).result()?;
            let end = e.index(len)?;
            let rank = rank_on_line(e, end, ivs[dim], &mut |e, j, strict| {
                let mut at = ivs.to_vec();
                at[dim] = j;
                let xj = loops::Load::build(e, src, &at, elem).result()?;
                // x_j is strictly before x_i in the direction; or, the order being
                // total, x_i is not strictly before x_j.
                let (a, b) = if descending { (xi, xj) } else { (xj, xi) };
                if strict {
                    return less(e, a, b);
                }
                let after = less(e, b, a)?;
                let i1 = e.ctx.int_type(1);
                let yes = bool_attr(e, true)?;
                let t = arith::Constant::build(e, i1).value(yes).result()?;
                arith::Xori::build(e, after, t, i1).result()
            })?;
            let mut to = ivs.to_vec();
            to[dim] = rank;
            loops::Store::build(e, xi, values, &to).create()?;
            let position = arith::IndexCast::build(e, ivs[dim], index_elem).result()?;
            loops::Store::build(e, position, indices, &to).create()?;
            Ok(())
        })?;
        Ok([values, indices])
    }

    /// The static shape of `v`; an error for a dynamic one.
    pub(crate) fn static_shape(&self, v: ValueId) -> Result<Vec<i64>, String> {
        let shape = self.shape(v)?;
        if shape.iter().any(|d| *d < 0) {
            return Err("dynamic shapes have no bufferization yet".into());
        }
        Ok(shape)
    }

    /// The one tensor operand and the one result of an op.
    fn operand_and_result(&self, op: OpId) -> Result<(ValueId, ValueId), String> {
        let b = self.ir.body(self.body);
        let x = b.operands(op).next().ok_or("no operand")?;
        let r = b.results(op).next().ok_or("no result")?;
        Ok((x, r))
    }
}

/// `offset + i * stride` along each dimension.
fn strided_positions(
    e: &mut Builder<'_>,
    ivs: &[ValueId],
    offsets: &[i64],
    strides: &[i64],
) -> Result<Vec<ValueId>, String> {
    let mut at = Vec::with_capacity(ivs.len());
    for ((iv, o), s) in ivs.iter().zip(offsets).zip(strides) {
        let scaled = if *s == 1 {
            *iv
        } else {
            index_op(e, arith::Op::Muli, *iv, *s)?
        };
        at.push(if *o == 0 {
            scaled
        } else {
            index_op(e, arith::Op::Addi, scaled, *o)?
        });
    }
    Ok(at)
}

/// `a < b` in the sort order: signless integers as signed, floats by value with NaN
/// above every number.
fn less(e: &mut Builder<'_>, a: ValueId, b: ValueId) -> Result<ValueId, String> {
    if !is_float(e.ctx, e.type_of(a)) {
        return e.cmpi(cmpi::SLT, a, b);
    }
    let i1 = e.ctx.int_type(1);
    let lt = e.cmpf(cmpf::OLT, a, b)?;
    let a_nan = e.cmpf(cmpf::UNO, a, a)?;
    let b_nan = e.cmpf(cmpf::UNO, b, b)?;
    let yes = bool_attr(e, true)?;
    let t = arith::Constant::build(e, i1).value(yes).result()?;
    let a_number = arith::Xori::build(e, a_nan, t, i1).result()?;
    let number_below_nan = arith::Andi::build(e, a_number, b_nan, i1).result()?;
    arith::Ori::build(e, lt, number_below_nan, i1).result()
}

fn bool_attr(e: &Builder<'_>, v: bool) -> Result<acc_ir::AttrId, String> {
    let i1 = e.ctx.int_type(1);
    acc_ir::elements::scalar_attr(e.ctx, i1, acc_ir::elements::Scalar::Int(i128::from(v)))
        .ok_or_else(|| "cannot make an i1 constant".to_string())
}
