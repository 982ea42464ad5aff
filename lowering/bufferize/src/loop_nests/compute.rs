//! The loop nests of each tensor op: maps, gathers (broadcast, transpose), matrix
//! products and convolutions (loops, or the library GEMM), pools, reductions, pads.

use acc_dialects::build::BuildExt as _;
use acc_dialects::ops::{arith, loops, tensor};
use acc_ir::{OpId, TypeId, ValueId};

use crate::library::window;
use crate::library::{
    Activation, ConvKind, Gate, LibraryFunction, call_gemm, call_library, conv_as_gemm,
};
use crate::loop_nests::blocks::{Tiling, pack_nest, unpack_nest};
use crate::loop_nests::build::{
    and_also, clamp, convert, for_range, in_range, index_add, index_op, multiply_add, parallel,
    parallel_range, pos,
};
use crate::{Bufferizer, buffer_type};
use acc_dialects::build::Builder;
use acc_dialects::build::is_float;

impl Bufferizer<'_> {
    /// Whether a pad's region yields the same value at every index: a constant made in
    /// the region, or a value from outside it.
    fn pad_value_is_uniform(&self, op: OpId) -> bool {
        let b = self.ir.body(self.body);
        let Some(region) = b.op_regions(op).first() else {
            return false;
        };
        let Some(block) = b.entry_block(*region) else {
            return false;
        };
        let Some(terminator) = b.block_ops(block).last() else {
            return false;
        };
        b.operands(terminator).all(|v| match b.value(v).def {
            acc_ir::ValueDef::Result(def, _) => {
                b.op_block(def) != Some(block)
                    || arith::Constant::is(self.ctx, self.ir.op(self.body, def))
            }
            acc_ir::ValueDef::BlockArg(blk, _) => blk != block,
            acc_ir::ValueDef::Detached => false,
        })
    }

    /// `tensor.map`: a `loop.parallel` computing each element with the region. When
    /// the region's result is an f32 `math` function the library has (`exp`, `erf`),
    /// the loop stores that function's argument and the library call then applies it
    /// to the whole buffer in place; a map of the function alone is just the call,
    /// and so is a map of `exp(-x)` alone when the library has e^-x (`exp-neg`).
    pub(crate) fn map(&mut self, op: OpId) -> Result<ValueId, String> {
        let operands: Vec<ValueId> = self.ir.body(self.body).operands(op).collect();
        let (inputs, init) = operands.split_at(operands.len() - 1);
        let dest = self.destination(op, init[0], false)?;
        // Each input's buffer, and the dimensions its loads leave out (an input read
        // through a broadcast loads the broadcast's source).
        let mut ins: Vec<(ValueId, Vec<i64>)> = Vec::new();
        for v in inputs {
            let (tensor, dropped) = match self.broadcasts_read_by_maps.get(v) {
                Some((source, dims)) => (*source, dims.clone()),
                None => (*v, Vec::new()),
            };
            let buffer = self.buffers.get(&tensor).copied();
            ins.push((buffer.ok_or("an input has no buffer")?, dropped));
        }
        let shape = self.shape(init[0])?;
        let elem_types: Vec<TypeId> = inputs.iter().map(|v| self.element(*v)).collect();
        let library = self.library_function_of_map(op);
        let body = self.body;
        let mut e = self.emitter(op);
        let elements = shape.iter().product::<i64>();
        if let Some(LibraryFunction {
            callee,
            argument: Some(input),
            ..
        }) = &library
            && ins[*input].1.is_empty()
        {
            call_library(&mut e, callee, &[ins[*input].0, dest], &[elements], None)?;
            return Ok(dest);
        }
        if let Some(LibraryFunction {
            negated_argument: Some((callee, input)),
            ..
        }) = &library
            && ins[*input].1.is_empty()
        {
            call_library(&mut e, callee, &[ins[*input].0, dest], &[elements], None)?;
            return Ok(dest);
        }
        let skip = library.as_ref().map(|l| l.op);
        parallel(&mut e, &shape, &mut |e, ivs| {
            let mut args = Vec::new();
            for ((b, dropped), t) in ins.iter().zip(&elem_types) {
                let at: Vec<ValueId> = ivs
                    .iter()
                    .enumerate()
                    .filter(|(d, _)| !dropped.contains(&(*d as i64)))
                    .map(|(_, v)| *v)
                    .collect();
                args.push(loops::Load::build(e, *b, &at, *t).result()?);
            }
            let at = e.point;
            let y = Self::inline_skipping(e.ir, body, op, 0, &args, at, skip)?;
            loops::Store::build(e, y[0], dest, ivs).create()?;
            Ok(())
        })?;
        if let Some(l) = &library {
            call_library(&mut e, &l.callee, &[dest, dest], &[elements], None)?;
        }
        Ok(dest)
    }

    /// Whether every user of the broadcast result `v` is a `tensor.map` reading it as
    /// an input (not writing into it as its init), so that it needs no buffer.
    pub(crate) fn only_maps_read(&self, v: ValueId) -> bool {
        let b = self.ir.body(self.body);
        b.has_uses(v)
            && b.value_users(v).all(|user| {
                let r = self.ir.op(self.body, user);
                let n = b.operands(user).count();
                tensor::Map::is(self.ctx, r) && b.operand(user, n - 1) != v
            })
    }

    /// Whether buffer `b` is a whole buffer (a memref without a layout: row-major,
    /// contiguous), as library kernels read them.
    fn identity_layout(&self, b: ValueId) -> bool {
        let ty = self.ir.body(self.body).value_type(b);
        matches!(
            self.ctx.type_data(ty),
            acc_ir::TypeData::MemRef { layout: None, .. }
        )
    }

    pub(crate) fn broadcast(&mut self, op: OpId) -> Result<ValueId, String> {
        let dims = self.ints(op, tensor::Broadcast::ATTR_DIMENSIONS);
        // The input's dimensions are the init's not in `dimensions`.
        self.gather(op, &|ivs| {
            ivs.iter()
                .enumerate()
                .filter(|(d, _)| !dims.contains(&(*d as i64)))
                .map(|(_, v)| *v)
                .collect()
        })
    }

    pub(crate) fn transpose(&mut self, op: OpId) -> Result<ValueId, String> {
        let perm = self.ints(op, tensor::Transpose::ATTR_PERMUTATION);
        // Result dimension i is input dimension perm[i].
        self.gather(op, &|ivs| {
            let mut at = ivs.to_vec();
            for (i, p) in perm.iter().enumerate() {
                at[*p as usize] = ivs[i];
            }
            at
        })
    }

    /// `tensor.pack`: each element of the blocked result read from the source at
    /// `outer * tile + inner` along each tiled dimension; positions past the
    /// source's end (a partial last block) take the padding value.
    pub(crate) fn pack(&mut self, op: OpId) -> Result<ValueId, String> {
        let operands: Vec<ValueId> = self.ir.body(self.body).operands(op).collect();
        let (x, init, padding) = (operands[0], operands[1], operands.get(2).copied());
        let (positions, tiles) = self.tiling(op)?;
        let sx = self.shape(x)?;
        let partial = positions.iter().zip(&tiles).any(|(d, t)| sx[*d] % t != 0);
        if partial && padding.is_none() {
            return Err("a partial last block needs a padding_value".into());
        }
        let dest = self.destination(op, init, false)?;
        let src = self
            .buffers
            .get(&x)
            .copied()
            .ok_or("the input has no buffer")?;
        let shape = self.shape(init)?;
        let elem = self.element(x);
        let mut e = self.emitter(op);
        let tiling = Tiling {
            positions: &positions,
            tiles: &tiles,
        };
        pack_nest(&mut e, src, dest, &sx, &shape, &tiling, padding, elem)?;
        Ok(dest)
    }

    /// `tensor.unpack`: each element of the plain result read from the blocked
    /// source at block `i / tile`, position `i % tile` along each tiled dimension.
    pub(crate) fn unpack(&mut self, op: OpId) -> Result<ValueId, String> {
        let (x, init) = self.two(op);
        let (positions, tiles) = self.tiling(op)?;
        let dest = self.destination(op, init, false)?;
        let src = self
            .buffers
            .get(&x)
            .copied()
            .ok_or("the input has no buffer")?;
        let shape = self.shape(init)?;
        let elem = self.element(x);
        let mut e = self.emitter(op);
        let tiling = Tiling {
            positions: &positions,
            tiles: &tiles,
        };
        unpack_nest(&mut e, src, dest, &shape, &tiling, elem)?;
        Ok(dest)
    }

    /// A pack's or unpack's tiled dimensions (of the plain side) and their tiles;
    /// permuted outer dimensions have no bufferization yet.
    fn tiling(&self, op: OpId) -> Result<(Vec<usize>, Vec<i64>), String> {
        let [outer_dims_perm, inner_dims_pos, inner_tiles] =
            if tensor::Unpack::is(self.ctx, self.ir.op(self.body, op)) {
                [
                    tensor::Unpack::ATTR_OUTER_DIMS_PERM,
                    tensor::Unpack::ATTR_INNER_DIMS_POS,
                    tensor::Unpack::ATTR_INNER_TILES,
                ]
            } else {
                [
                    tensor::Pack::ATTR_OUTER_DIMS_PERM,
                    tensor::Pack::ATTR_INNER_DIMS_POS,
                    tensor::Pack::ATTR_INNER_TILES,
                ]
            };
        if !self.ints(op, outer_dims_perm).is_empty() {
            return Err("outer_dims_perm has no bufferization yet".into());
        }
        let positions = self.ints(op, inner_dims_pos);
        let tiles = self.ints(op, inner_tiles);
        if positions.len() != tiles.len() || tiles.iter().any(|t| *t <= 0) {
            return Err("inner_dims_pos and inner_tiles do not agree".into());
        }
        Ok((positions.iter().map(|p| *p as usize).collect(), tiles))
    }

    /// An op (input, init) whose result element at each index is the input's element
    /// at `source(index)`.
    pub(crate) fn gather(
        &mut self,
        op: OpId,
        source: &dyn Fn(&[ValueId]) -> Vec<ValueId>,
    ) -> Result<ValueId, String> {
        let (x, init) = self.two(op);
        let dest = self.destination(op, init, false)?;
        let src = self
            .buffers
            .get(&x)
            .copied()
            .ok_or("the input has no buffer")?;
        let shape = self.shape(init)?;
        let elem = self.element(x);
        let mut e = self.emitter(op);
        parallel(&mut e, &shape, &mut |e, ivs| {
            let v = loops::Load::build(e, src, &source(ivs), elem).result()?;
            loops::Store::build(e, v, dest, ivs).create()?;
            Ok(())
        })?;
        Ok(dest)
    }

    pub(crate) fn matmul(&mut self, op: OpId) -> Result<ValueId, String> {
        let operands: Vec<ValueId> = self.ir.body(self.body).operands(op).collect();
        let (a, b, init) = (operands[0], operands[1], operands[2]);
        if self.packed_weights.contains(&b) {
            let (sa, sb) = (self.shape(a)?, self.shape(b)?);
            let panels = self.packed_constant(op, b)?;
            let ba = self.buffers.get(&a).copied().ok_or("A has no buffer")?;
            let callee = self.library.packed_gemm.clone().ok_or("no packed-gemm")?;
            // A constant init (a product from zero, as MatMul imports): the call
            // starts each column from its value, and C is neither filled nor read.
            let splat = match self.absorbed_biases.contains_key(&init) {
                true => None,
                false => self.splat_bias(op, init, sb[1])?,
            };
            let dest = self.destination(op, init, splat.is_none())?;
            // A bias broadcast into the init: the call starts each column from it.
            let (callee, buffers) = match splat {
                Some(bias) => (format!("{callee}_bias"), vec![ba, panels, bias, dest]),
                None => self.biased_call(init, callee, &[ba, panels], dest)?,
            };
            // The activation of the result (maps that are its only uses, possibly
            // after a reshape), applied by the call as it stores: `NAME_bias_act`.
            let activation = callee
                .ends_with("_bias")
                .then(|| self.product_activation(op))
                .flatten();
            let sizes = [sa[0], sb[1], sa[1]];
            let Some((x, activation)) = activation else {
                call_library(&mut self.emitter(op), &callee, &buffers, &sizes, None)?;
                return Ok(dest);
            };
            let mut e = self.emitter(op);
            let callee = format!("{callee}_act");
            call_library(&mut e, &callee, &buffers, &sizes, Some((&activation, true)))?;
            // The maps' result: the output, seen in their shape.
            let result = self.ir.body(self.body).results(op).next();
            let view = if Some(x) == result {
                dest
            } else {
                let ty = buffer_type(self.ctx, self.ir.body(self.body).value_type(x));
                loops::Reshape::build(&mut self.emitter(op), dest, ty).result()?
            };
            for (map, empty) in activation.maps {
                self.absorbed_maps.insert(map, view);
                self.absorbed_empties.insert(empty);
            }
            return Ok(dest);
        }
        let dest = self.destination(op, init, true)?;
        if let Some(gemm) = self.library_gemm(&[a, b, init])? {
            let (sa, sb) = (self.shape(a)?, self.shape(b)?);
            if sa.len() == 2 {
                let (ba, bb) = (
                    self.buffers.get(&a).copied().ok_or("A has no buffer")?,
                    self.buffers.get(&b).copied().ok_or("B has no buffer")?,
                );
                let mut e = self.emitter(op);
                call_gemm(&mut e, &gemm, [ba, bb, dest], [sa[0], sb[1], sa[1]])?;
                return Ok(dest);
            }
            if sa.len() == 3 {
                // One product per batch, on windows of the three buffers.
                let (ba, bb) = (
                    self.buffers.get(&a).copied().ok_or("A has no buffer")?,
                    self.buffers.get(&b).copied().ok_or("B has no buffer")?,
                );
                let (batch, m, k, n) = (sa[0], sa[1], sa[2], sb[2]);
                let mut e = self.emitter(op);
                for i in 0..batch {
                    let wa = window(&mut e, ba, 0, i)?;
                    let wb = window(&mut e, bb, 0, i)?;
                    let wc = window(&mut e, dest, 0, i)?;
                    call_gemm(&mut e, &gemm, [wa, wb, wc], [m, n, k])?;
                }
                return Ok(dest);
            }
        }
        let (ba, bb) = (
            self.buffers.get(&a).copied().ok_or("A has no buffer")?,
            self.buffers.get(&b).copied().ok_or("B has no buffer")?,
        );
        let shape = self.shape(init)?;
        let sa = self.shape(a)?;
        let k = sa[sa.len() - 1];
        let (ea, eb, ec) = (self.element(a), self.element(b), self.element(init));
        let batched = shape.len() == 3;
        let mut e = self.emitter(op);
        parallel(&mut e, &shape, &mut |e, ivs| {
            let c0 = loops::Load::build(e, dest, ivs, ec).result()?;
            let sum = for_range(e, k, c0, &mut |e, kv, acc| {
                let (ai, bi) = if batched {
                    (vec![ivs[0], ivs[1], kv], vec![ivs[0], kv, ivs[2]])
                } else {
                    (vec![ivs[0], kv], vec![kv, ivs[1]])
                };
                let x = loops::Load::build(e, ba, &ai, ea).result()?;
                let y = loops::Load::build(e, bb, &bi, eb).result()?;
                let (x, y) = (convert(e, x, ea, ec)?, convert(e, y, eb, ec)?);
                multiply_add(e, x, y, acc, ec)
            })?;
            loops::Store::build(e, sum, dest, ivs).create()?;
            Ok(())
        })?;
        Ok(dest)
    }

    pub(crate) fn conv2d(&mut self, op: OpId) -> Result<ValueId, String> {
        let operands: Vec<ValueId> = self.ir.body(self.body).operands(op).collect();
        let (x, w, init) = (operands[0], operands[1], operands[2]);
        let library = self.conv_library(op);
        for (name, plain) in [
            (tensor::Conv2d::ATTR_INPUT_LAYOUT, "NCHW"),
            (tensor::Conv2d::ATTR_FILTER_LAYOUT, "OIHW"),
            (tensor::Conv2d::ATTR_OUTPUT_LAYOUT, "NCHW"),
        ] {
            let l = self.text(op, name);
            let blocked_call = matches!(
                library,
                Some((
                    _,
                    ConvKind::Blocked
                        | ConvKind::BlockedGrouped
                        | ConvKind::BlockedDepthwise
                        | ConvKind::BlockedOutput
                ))
            );
            if !l.is_empty() && !l.contains(&format!("\"{plain}\"")) && !blocked_call {
                return Err(format!(
                    "{name} {l} has no bufferization without a library convolution for it: give the target whose kernels take it (--target lowering/runtime/host.acc for the host's), or leave the layout plain ({plain})"
                ));
            }
        }
        let strides = self.ints_or(op, tensor::Conv2d::ATTR_STRIDES, &[1, 1]);
        let dilations = self.ints_or(op, tensor::Conv2d::ATTR_DILATIONS, &[1, 1]);
        let groups = self.int(op, tensor::Conv2d::ATTR_GROUPS).unwrap_or(1);
        let dest = self.destination(op, init, true)?;
        let bw = self
            .buffers
            .get(&w)
            .copied()
            .ok_or("the filter has no buffer")?;
        let shape = self.shape(init)?;
        let sw = self.shape(w)?;
        if let Some((callee, kind)) = library {
            // The input as the library reads it: a zero pad's source, padded in place.
            let (source, [pt, pl]) = self.absorbed_pads.get(&x).copied().unwrap_or((x, [0, 0]));
            let bx = self
                .buffers
                .get(&source)
                .copied()
                .ok_or("the input has no buffer")?;
            let sx = self.shape(source)?;
            let window = [
                shape[2],
                shape[3],
                strides[0],
                strides[1],
                dilations[0],
                dilations[1],
                pt,
                pl,
            ];
            let sizes = match kind {
                ConvKind::Full => {
                    [&[sx[1], sx[2], sx[3], sw[0], sw[2], sw[3]][..], &window].concat()
                }
                ConvKind::Depthwise => [&[sx[1], sx[2], sx[3], sw[2], sw[3]][..], &window].concat(),
                // Channel counts are the blocked extents: blocks x block size.
                ConvKind::Blocked => [
                    &[sx[1] * sx[4], sx[2], sx[3], sw[0] * sw[5], sw[2], sw[3]][..],
                    &window,
                ]
                .concat(),
                // The groups after the padding.
                ConvKind::BlockedGrouped => [
                    &[sx[1] * sx[4], sx[2], sx[3], sw[0] * sw[5], sw[2], sw[3]][..],
                    &window,
                    &[groups],
                ]
                .concat(),
                ConvKind::BlockedDepthwise => {
                    [&[sx[1] * sx[4], sx[2], sx[3], sw[2], sw[3]][..], &window].concat()
                }
                ConvKind::BlockedOutput => [
                    &[sx[1], sx[2], sx[3], sw[0] * sw[4], sw[2], sw[3]][..],
                    &window,
                ]
                .concat(),
            };
            // The activation of the result (the maps that are its only uses) done
            // by the call as it stores: a clamp, or for blocked calls a gate too.
            let gated = kind != ConvKind::Full && kind != ConvKind::Depthwise;
            let activation = self.absorbable_activation(op, gated).unwrap_or(Activation {
                maps: Vec::new(),
                bounds: [f64::NEG_INFINITY, f64::INFINITY],
                gate: Gate::None,
            });
            // A per-channel bias broadcast into the init: the call starts from it.
            let (callee, buffers) = self.biased_call(init, callee, &[bx, bw], dest)?;
            let mut e = self.emitter(op);
            call_library(
                &mut e,
                &callee,
                &buffers,
                &sizes,
                Some((&activation, gated)),
            )?;
            for (map, empty) in activation.maps {
                self.absorbed_maps.insert(map, dest);
                self.absorbed_empties.insert(empty);
            }
            return Ok(dest);
        }
        if self.absorbed_pads.contains_key(&x) {
            return Err(
                "the input's padding was left to a library convolution that does not take it"
                    .into(),
            );
        }
        let bx = self
            .buffers
            .get(&x)
            .copied()
            .ok_or("the input has no buffer")?;
        if let Some(gemm) = self.library_gemm(&[x, w, init])?
            && groups == 1
            && shape[0] == 1
        {
            let sx = self.shape(x)?;
            let mut e = self.emitter(op);
            conv_as_gemm(
                &mut e,
                &gemm,
                [bx, bw, dest],
                &sx,
                &sw,
                &shape,
                &strides,
                &dilations,
            )?;
            return Ok(dest);
        }
        let (m, cg, kh, kw) = (sw[0], sw[1], sw[2], sw[3]);
        let mg = m / groups.max(1);
        let (ex, ew, ec) = (self.element(x), self.element(w), self.element(init));
        let mut e = self.emitter(op);
        parallel(&mut e, &shape, &mut |e, ivs| {
            let (n, oc, oy, ox) = (ivs[0], ivs[1], ivs[2], ivs[3]);
            // The first input channel of this output channel's group.
            let g = index_op(e, arith::Op::Divui, oc, mg)?;
            let c_base = index_op(e, arith::Op::Muli, g, cg)?;
            let y0 = index_op(e, arith::Op::Muli, oy, strides[0])?;
            let x0 = index_op(e, arith::Op::Muli, ox, strides[1])?;
            let c0 = loops::Load::build(e, dest, ivs, ec).result()?;
            let s1 = for_range(e, cg, c0, &mut |e, c, acc| {
                let ch = index_add(e, c_base, c)?;
                for_range(e, kh, acc, &mut |e, i, acc| {
                    let di = index_op(e, arith::Op::Muli, i, dilations[0])?;
                    let iy = index_add(e, y0, di)?;
                    for_range(e, kw, acc, &mut |e, j, acc| {
                        let dj = index_op(e, arith::Op::Muli, j, dilations[1])?;
                        let ix = index_add(e, x0, dj)?;
                        let xv = loops::Load::build(e, bx, &[n, ch, iy, ix], ex).result()?;
                        let wv = loops::Load::build(e, bw, &[oc, c, i, j], ew).result()?;
                        let (xv, wv) = (convert(e, xv, ex, ec)?, convert(e, wv, ew, ec)?);
                        multiply_add(e, xv, wv, acc, ec)
                    })
                })
            })?;
            loops::Store::build(e, s1, dest, ivs).create()?;
            Ok(())
        })?;
        Ok(dest)
    }

    pub(crate) fn pool(&mut self, op: OpId) -> Result<ValueId, String> {
        let (x, init) = self.two(op);
        let l = self.text(op, tensor::Pool::ATTR_LAYOUT);
        // NCHW16c: the channels within a block are a fifth dimension, indexed as is.
        let blocked = l.contains("\"NCHW16c\"");
        if !l.is_empty() && !l.contains("\"NCHW\"") && !blocked {
            return Err(format!(
                "layout {l} has no bufferization yet (only NCHW and NCHW16c)"
            ));
        }
        let kind = self.text(op, tensor::Pool::ATTR_KIND);
        let max = kind.contains("max");
        let avg = kind.contains("avg");
        let window = self.ints(op, tensor::Pool::ATTR_WINDOW);
        let strides = self.ints_or(op, tensor::Pool::ATTR_STRIDES, &[1, 1]);
        let dilations = self.ints_or(op, tensor::Pool::ATTR_DILATIONS, &[1, 1]);
        let pads = self.ints_or(op, tensor::Pool::ATTR_PADS, &[0, 0, 0, 0]);
        let include_pad = self
            .int(op, tensor::Pool::ATTR_COUNT_INCLUDE_PAD)
            .unwrap_or(0)
            != 0;
        let dest = self.destination(op, init, false)?;
        let bx = self
            .buffers
            .get(&x)
            .copied()
            .ok_or("the input has no buffer")?;
        let shape = self.shape(init)?;
        let sx = self.shape(x)?;
        let elem = self.element(x);
        let f32t = self.ctx.float_type(acc_ir::FloatKind::F32);
        if let Some(callee) = self.library.blocked_pool.clone()
            && blocked
            && (max || avg)
            && elem == f32t
            && sx.first() == Some(&1)
            && self.identity_layout(bx)
            && self.identity_layout(dest)
        {
            // Batch 1, f32, both buffers whole: the library's blocked pool.
            let sizes = [
                sx[1],
                sx[2],
                sx[3],
                shape[2],
                shape[3],
                window[0],
                window[1],
                strides[0],
                strides[1],
                dilations[0],
                dilations[1],
                pads[0],
                pads[1],
                i64::from(avg),
                i64::from(include_pad),
            ];
            let mut e = self.emitter(op);
            call_library(&mut e, &callee, &[bx, dest], &sizes, None)?;
            return Ok(dest);
        }
        // Integers are max pooled from the least value of their type (signless ones
        // compared as signed, as the interpreter does).
        let (start_max, max_op) = match self.ctx.type_data(elem) {
            acc_ir::TypeData::Integer { signedness, .. }
                if max && *signedness == acc_ir::Signedness::Unsigned =>
            {
                (0.0, arith::Op::Maxui)
            }
            acc_ir::TypeData::Integer { width, .. } if max && *width <= 64 => {
                (-(2f64.powi(*width as i32 - 1)), arith::Op::Maxsi)
            }
            _ if is_float(self.ctx, elem) => (f64::NEG_INFINITY, arith::Op::Maximumf),
            // Integers are summed (a quantized average pool's window sums).
            acc_ir::TypeData::Integer { .. } if !avg => (0.0, arith::Op::Addi),
            _ => return Err("integer average pooling has no bufferization yet".into()),
        };
        let add = if is_float(self.ctx, elem) {
            arith::Op::Addf
        } else {
            arith::Op::Addi
        };
        // One output element: its window combined (`checked`: positions in the
        // padding skipped; unchecked where the whole window lies inside the input).
        let element = |e: &mut Builder<'_>, ivs: &[ValueId], checked: bool| {
            let start = if max { start_max } else { 0.0 };
            let init_v = e.scalar(elem, start)?;
            let count0 = e.scalar(elem, 0.0)?;
            let mut total = (init_v, count0);
            for i in 0..window[0] {
                for j in 0..window[1] {
                    // The input position, possibly in the padding.
                    let y = pos(e, ivs[2], strides[0], i * dilations[0] - pads[0])?;
                    let xx = pos(e, ivs[3], strides[1], j * dilations[1] - pads[1])?;
                    let inside = if checked {
                        let inside_y = in_range(e, y, sx[2])?;
                        let inside_x = in_range(e, xx, sx[3])?;
                        let i1 = e.ctx.int_type(1);
                        Some(arith::Andi::build(e, inside_y, inside_x, i1).result()?)
                    } else {
                        None
                    };
                    let (cy, cx) = if checked {
                        (clamp(e, y, sx[2])?, clamp(e, xx, sx[3])?)
                    } else {
                        (y, xx)
                    };
                    let mut at = vec![ivs[0], ivs[1], cy, cx];
                    if blocked {
                        at.push(ivs[4]);
                    }
                    let v = loops::Load::build(e, bx, &at, elem).result()?;
                    let combined = if max {
                        e.op1(max_op.name(), &[total.0, v], elem, &[])?
                    } else {
                        e.op1(add.name(), &[total.0, v], elem, &[])?
                    };
                    let acc = match inside {
                        Some(inside) => {
                            arith::Select::build(e, inside, combined, total.0, elem).result()?
                        }
                        None => combined,
                    };
                    let count = if avg && !include_pad {
                        let one = e.scalar(elem, 1.0)?;
                        let bumped = arith::Addf::build(e, total.1, one, elem).result()?;
                        match inside {
                            Some(inside) => {
                                arith::Select::build(e, inside, bumped, total.1, elem).result()?
                            }
                            None => bumped,
                        }
                    } else {
                        total.1
                    };
                    total = (acc, count);
                }
            }
            let result = if avg {
                let divisor = if include_pad {
                    e.scalar(elem, (window[0] * window[1]) as f64)?
                } else {
                    total.1
                };
                arith::Divf::build(e, total.0, divisor, elem).result()?
            } else {
                total.0
            };
            loops::Store::build(e, result, dest, ivs).create()?;
            Ok(())
        };
        // The output rows and columns whose windows lie inside the input.
        let inner: [(i64, i64); 2] = std::array::from_fn(|a| {
            interior(
                shape[2 + a],
                sx[2 + a],
                window[a],
                strides[a],
                dilations[a],
                pads[a],
            )
        });
        let mut e = self.emitter(op);
        for (lower, upper, checked) in window_regions(&shape, inner) {
            parallel_range(&mut e, &lower, &upper, &mut |e, ivs| {
                element(e, ivs, checked)
            })?;
        }
        Ok(dest)
    }

    pub(crate) fn reduce(&mut self, op: OpId) -> Result<ValueId, String> {
        let (x, init) = self.two(op);
        let dims = self.ints(op, tensor::Reduce::ATTR_DIMENSIONS);
        let dest = self.destination(op, init, true)?;
        let bx = self
            .buffers
            .get(&x)
            .copied()
            .ok_or("the input has no buffer")?;
        let sx = self.shape(x)?;
        let (ex, ei) = (self.element(x), self.element(init));
        let body = self.body;
        let kept_shape: Vec<i64> = sx
            .iter()
            .enumerate()
            .filter(|(d, _)| !dims.contains(&(*d as i64)))
            .map(|(_, n)| *n)
            .collect();
        let reduced: Vec<usize> = (0..sx.len())
            .filter(|d| dims.contains(&(*d as i64)))
            .collect();
        let mut e = self.emitter(op);
        // Each result element independently: its reduced indices in order, the
        // accumulator carried in a register (the same order of combination as one
        // sequential walk over the input).
        parallel(&mut e, &kept_shape, &mut |e, kept| {
            let acc = loops::Load::build(e, dest, kept, ei).result()?;
            let sum = reduce_nest(e, &sx, &reduced, kept, acc, &mut |e, at, acc| {
                let v = loops::Load::build(e, bx, at, ex).result()?;
                let point = e.point;
                Ok(Self::inline(e.ir, body, op, 0, &[v, acc], point)?[0])
            })?;
            loops::Store::build(e, sum, dest, kept).create()?;
            Ok(())
        })?;
        Ok(dest)
    }

    pub(crate) fn pad(&mut self, op: OpId) -> Result<ValueId, String> {
        let operands: Vec<ValueId> = self.ir.body(self.body).operands(op).collect();
        if operands.len() != 1 {
            return Err("dynamic pad amounts have no bufferization yet".into());
        }
        let x = operands[0];
        let low = self.ints(op, tensor::Pad::ATTR_STATIC_LOW);
        let bx = self
            .buffers
            .get(&x)
            .copied()
            .ok_or("the input has no buffer")?;
        let result = self
            .ir
            .body(self.body)
            .results(op)
            .next()
            .ok_or("no result")?;
        let rty = buffer_type(self.ctx, self.ir.body(self.body).value_type(result));
        let shape = self.shape(result)?;
        let sx = self.shape(x)?;
        let elem = self.element(x);
        let body = self.body;
        let uniform_fill = self.pad_value_is_uniform(op);
        let mut e = self.emitter(op);
        let dest = loops::Alloc::build(&mut e, &[], rty).result()?;
        if uniform_fill {
            // The padding value everywhere, then the input over the interior: two nests
            // of plain accesses (no bounds test per element).
            parallel(&mut e, &shape, &mut |e, ivs| {
                let point = e.point;
                let fill = Self::inline(e.ir, body, op, 0, ivs, point)?;
                loops::Store::build(e, fill[0], dest, ivs).create()?;
                Ok(())
            })?;
            parallel(&mut e, &sx, &mut |e, ivs| {
                let v = loops::Load::build(e, bx, ivs, elem).result()?;
                let mut at = Vec::new();
                for (d, iv) in ivs.iter().enumerate() {
                    at.push(if low[d] == 0 {
                        *iv
                    } else {
                        index_op(e, arith::Op::Addi, *iv, low[d])?
                    });
                }
                loops::Store::build(e, v, dest, &at).create()?;
                Ok(())
            })?;
            self.writable.insert(dest);
            return Ok(dest);
        }
        parallel(&mut e, &shape, &mut |e, ivs| {
            let mut inside: Option<ValueId> = None;
            let mut at = Vec::new();
            for (d, iv) in ivs.iter().enumerate() {
                let p = index_op(e, arith::Op::Subi, *iv, low[d])?;
                let ok = in_range(e, p, sx[d])?;
                inside = Some(and_also(e, inside, ok)?);
                at.push(clamp(e, p, sx[d])?);
            }
            let v = loops::Load::build(e, bx, &at, elem).result()?;
            let point = e.point;
            let fill = Self::inline(e.ir, body, op, 0, ivs, point)?;
            let chosen = match inside {
                Some(c) => arith::Select::build(e, c, v, fill[0], elem).result()?,
                None => v,
            };
            loops::Store::build(e, chosen, dest, ivs).create()?;
            Ok(())
        })?;
        self.writable.insert(dest);
        Ok(dest)
    }
}

/// Combines the element at a full index into the accumulator.
type Combine<'f> = dyn FnMut(&mut Builder<'_>, &[ValueId], ValueId) -> Result<ValueId, String> + 'f;

/// `loop.for` loops over the `reduced` dimensions of `shape` (in order) carrying one
/// value from `init`; `step` combines the value at the full index (the `kept` indices
/// in the other dimensions) into it.
fn reduce_nest(
    e: &mut Builder<'_>,
    shape: &[i64],
    reduced: &[usize],
    kept: &[ValueId],
    init: ValueId,
    step: &mut Combine<'_>,
) -> Result<ValueId, String> {
    fn level(
        e: &mut Builder<'_>,
        shape: &[i64],
        reduced: &[usize],
        at: &mut Vec<Option<ValueId>>,
        kept: &[ValueId],
        acc: ValueId,
        step: &mut Combine<'_>,
    ) -> Result<ValueId, String> {
        let Some((&d, rest)) = reduced.split_first() else {
            let mut k = kept.iter();
            let index: Vec<ValueId> = at
                .iter()
                .map(|i| i.or_else(|| k.next().copied()).ok_or("too few indices"))
                .collect::<Result<_, _>>()?;
            return step(e, &index, acc);
        };
        for_range(e, shape[d], acc, &mut |e, iv, acc| {
            at[d] = Some(iv);
            let r = level(e, shape, rest, at, kept, acc, step);
            at[d] = None;
            r
        })
    }
    let mut at = vec![None; shape.len()];
    level(e, shape, reduced, &mut at, kept, init, step)
}

/// The outputs `lo..hi` (of `out`) along one spatial dimension whose whole window
/// lies inside the input (`input` long): output o reads `o * stride - pad + i *
/// dilation` for i below `window`.
fn interior(out: i64, input: i64, window: i64, stride: i64, dilation: i64, pad: i64) -> (i64, i64) {
    if stride <= 0 {
        return (0, 0);
    }
    let lo = (pad.max(0) + stride - 1) / stride;
    let last = input - 1 + pad - (window - 1) * dilation;
    let hi = if last < 0 { 0 } else { last / stride + 1 };
    let hi = hi.clamp(0, out);
    (lo.min(hi), hi)
}

/// The boxes that cover an NCHW(16c) output of `shape` given the interior rows and
/// columns `inner` (dimensions 2 and 3): the interior, unchecked, and the rows
/// above and below it and the columns beside it, checked; empty ones left out.
fn window_regions(shape: &[i64], inner: [(i64, i64); 2]) -> Vec<(Vec<i64>, Vec<i64>, bool)> {
    let [(top, bottom), (left, right)] = inner;
    let (rows, columns) = (shape[2], shape[3]);
    let boxes = [
        ((0, top), (0, columns), true),
        ((bottom, rows), (0, columns), true),
        ((top, bottom), (0, left), true),
        ((top, bottom), (right, columns), true),
        ((top, bottom), (left, right), false),
    ];
    boxes
        .into_iter()
        .filter(|((y0, y1), (x0, x1), _)| y0 < y1 && x0 < x1)
        .map(|((y0, y1), (x0, x1), checked)| {
            let mut lower = vec![0; shape.len()];
            let mut upper = shape.to_vec();
            (lower[2], upper[2], lower[3], upper[3]) = (y0, y1, x0, x1);
            (lower, upper, checked)
        })
        .collect()
}
