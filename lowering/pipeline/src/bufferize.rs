//! `bufferize`: tensors become buffers and tensor ops loop nests.
//!
//! Every function's tensor arguments and results become `memref`s of the same shape
//! (the identity layout); a tensor constant a `loop.constant`; `tensor.empty` a
//! `loop.alloc`. A destination-passing op writes into its init's buffer when that
//! buffer was allocated here and the init has no other use; otherwise into a new
//! buffer (holding a copy of the init when the op accumulates into it). Each op then
//! becomes loops over its result:
//!
//! - `tensor.map`: a `loop.parallel` loading each input, with the map's region inlined;
//! - `broadcast`, `transpose`, `pad`: a `loop.parallel` moving elements (a pad's new
//!   elements come from its region, the source read at a clamped index and chosen with
//!   `arith.select`);
//! - `matmul`, `batch_matmul`, `conv2d`: a `loop.parallel` over the result and a
//!   `loop.for` nest carrying the sum, started from the init;
//! - `pool`: windows read at clamped indices, padding positions masked out;
//! - `reduce`: a `loop.for` nest over the input combining into the init with the
//!   region;
//! - `collapse_shape` / `expand_shape`: `loop.reshape` (no copy).

use acc_ir::clone::{ValueMap, clone_op};
use acc_ir::pass::{Pass, PassInfo, PassOptions, PassTarget};
use acc_ir::{
    AttrId, BodyId, Context, DiagLoc, Diagnostic, InsertPoint, Ir, OpId, TypeData, TypeId, ValueId,
};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::emit::{BodyBuilder, Emitter, is_float, memref_type, shape_of};

/// The pass.
pub struct Bufferize {
    /// The library matrix product f32 matmuls and convolutions call (`hw.intrinsic`),
    /// when the host has one; loops otherwise.
    gemm: Option<String>,
}

/// Its registration.
pub fn info() -> PassInfo {
    PassInfo {
        name: "bufferize",
        title: "Bufferize",
        summary: "Turn tensors into buffers and tensor ops into loop nests (function signatures included)",
        anchor: Some("builtin.module"),
        options: vec![acc_ir::pass::PassOption {
            name: "gemm",
            description: "a library f32 matrix product (C += A x B, row-major: a, b, c, m, n, k) for matmuls and convolutions, e.g. acc_sgemm; empty: loops",
            kind: acc_ir::pass::OptionKind::String,
            default: "",
        }],
        create: |o: &PassOptions| {
            let g = o.get("gemm");
            Ok(Box::new(Bufferize {
                gemm: (!g.is_empty()).then(|| g.to_string()),
            }))
        },
    }
}

impl Pass for Bufferize {
    fn run(&self, t: &mut PassTarget<'_>) -> Result<(), Diagnostic> {
        let ctx = t.ctx;
        let module_body = t.ir.region_body(t.body, t.op);
        let funcs: Vec<OpId> = {
            let b = t.ir.body(module_body);
            b.top_regions()
                .iter()
                .flat_map(|r| b.region_blocks(*r).collect::<Vec<_>>())
                .flat_map(|bl| b.block_ops(bl).collect::<Vec<_>>())
                .filter(|o| ctx.op_name_str(t.ir.op(module_body, *o).name()) == "func.func")
                .collect()
        };
        for f in funcs {
            convert_signature(ctx, t.ir, module_body, f);
            if let Some(inner) = t.ir.body(module_body).nested_body(f) {
                Bufferizer::new(ctx, t.ir, inner, self.gemm.clone()).run()?;
            }
        }
        Ok(())
    }
}

/// `ty` with tensors as memrefs.
fn buffer_type(ctx: &Context, ty: TypeId) -> TypeId {
    match ctx.type_data(ty) {
        TypeData::RankedTensor { shape, element, .. } => memref_type(ctx, shape, *element),
        _ => ty,
    }
}

/// The function's type and entry block arguments with memrefs for tensors.
fn convert_signature(ctx: &Context, ir: &mut Ir, body: BodyId, f: OpId) {
    let r = ir.op(body, f);
    let Some(fn_type_attr) = r.attr(ctx, "function_type") else {
        return;
    };
    let acc_ir::AttrData::Type(fn_type) = ctx.attr_data(fn_type_attr) else {
        return;
    };
    let TypeData::Function { inputs, results } = ctx.type_data(*fn_type) else {
        return;
    };
    let inputs: Vec<TypeId> = inputs.iter().map(|t| buffer_type(ctx, *t)).collect();
    let results: Vec<TypeId> = results.iter().map(|t| buffer_type(ctx, *t)).collect();
    let new_type = ctx.function_type(&inputs, &results);
    let props = r.props().map(|p| match ctx.attr_data(p) {
        acc_ir::AttrData::Dictionary(entries) => entries.to_vec(),
        _ => Vec::new(),
    });
    let mut entries = props.unwrap_or_default();
    let key = ctx.sym("function_type");
    for e in entries.iter_mut() {
        if e.0 == key {
            e.1 = ctx.type_attr(new_type);
        }
    }
    if let Ok(dict) = ctx.dict_attr(entries) {
        ir.body_mut(body).op_mut(f).props = Some(dict);
    }
    if let Some(inner) = ir.body(body).nested_body(f) {
        let b = ir.body(inner);
        let entry = b.top_regions().first().and_then(|r| b.entry_block(*r));
        if let Some(entry) = entry {
            let args = b.block_args(entry).to_vec();
            for a in args {
                let t = ir.body(inner).value_type(a);
                ir.body_mut(inner).set_value_type(a, buffer_type(ctx, t));
            }
        }
    }
}

/// Bufferizes one function body.
struct Bufferizer<'a> {
    ctx: &'a Context,
    ir: &'a mut Ir,
    body: BodyId,
    /// Tensor value to the buffer holding it.
    buffers: FxHashMap<ValueId, ValueId>,
    /// Buffers allocated here (which ops may write into).
    writable: FxHashSet<ValueId>,
    /// The library matrix product, if any.
    gemm: Option<String>,
}

fn err(loc: AttrId, m: impl Into<String>) -> Diagnostic {
    Diagnostic::error(DiagLoc::Loc(loc), m.into())
}

impl<'a> Bufferizer<'a> {
    fn new(ctx: &'a Context, ir: &'a mut Ir, body: BodyId, gemm: Option<String>) -> Self {
        Bufferizer {
            ctx,
            ir,
            body,
            buffers: FxHashMap::default(),
            writable: FxHashSet::default(),
            gemm,
        }
    }

    fn run(mut self) -> Result<(), Diagnostic> {
        let b = self.ir.body(self.body);
        let blocks: Vec<_> = b
            .top_regions()
            .iter()
            .flat_map(|r| b.region_blocks(*r).collect::<Vec<_>>())
            .collect();
        // Arguments were retyped to memrefs: they are their own buffers.
        for &bl in &blocks {
            for &a in self.ir.body(self.body).block_args(bl) {
                self.buffers.insert(a, a);
            }
        }
        let mut done = Vec::new();
        for bl in blocks {
            let ops: Vec<OpId> = self.ir.body(self.body).block_ops(bl).collect();
            for op in ops {
                if self.op(op)? {
                    done.push(op);
                }
            }
        }
        for op in done.into_iter().rev() {
            self.ir.erase_op(self.body, op);
        }
        Ok(())
    }

    fn emitter(&mut self, op: OpId) -> Emitter<'_> {
        let loc = self.ir.op(self.body, op).loc();
        Emitter {
            ctx: self.ctx,
            ir: &mut *self.ir,
            body: self.body,
            point: InsertPoint::Before(op),
            loc,
        }
    }

    fn buffer(&self, loc: AttrId, v: ValueId) -> Result<ValueId, Diagnostic> {
        self.buffers.get(&v).copied().ok_or_else(|| {
            err(
                loc,
                "a tensor operand has no buffer (defined by an op bufferize does not handle)",
            )
        })
    }

    /// Bufferizes one op; true when the op is to be erased.
    fn op(&mut self, op: OpId) -> Result<bool, Diagnostic> {
        let r = self.ir.op(self.body, op);
        let name = self.ctx.op_name_str(r.name()).to_string();
        let loc = r.loc();
        let operands: Vec<ValueId> = r.operands().collect();
        let results: Vec<ValueId> = r.results().collect();
        let tensor_in_or_out = operands.iter().chain(&results).any(|v| self.is_tensor(*v));
        if !tensor_in_or_out {
            return Ok(false);
        }
        let fail = |m: String| err(loc, format!("cannot bufferize '{name}': {m}"));
        let out = match name.as_str() {
            "func.return" => {
                let vals = operands
                    .iter()
                    .map(|v| {
                        if self.is_tensor(*v) {
                            self.buffer(loc, *v)
                        } else {
                            Ok(*v)
                        }
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                let mut e = self.emitter(op);
                e.op("func.return", &vals, &[], &[]).map_err(fail)?;
                return Ok(true);
            }
            "arith.constant" => {
                let value = r
                    .attr(self.ctx, "value")
                    .ok_or_else(|| fail("no value".into()))?;
                let ty = buffer_type(self.ctx, self.ir.body(self.body).value_type(results[0]));
                let mut e = self.emitter(op);
                e.op1("loop.constant", &[], ty, &[("value", value)])
                    .map_err(fail)?
            }
            "tensor.empty" => {
                let ty = buffer_type(self.ctx, self.ir.body(self.body).value_type(results[0]));
                let v = self
                    .emitter(op)
                    .op1("loop.alloc", &[], ty, &[])
                    .map_err(fail)?;
                self.writable.insert(v);
                v
            }
            "tensor.collapse_shape" | "tensor.expand_shape" => {
                let src = self.buffer(loc, operands[0])?;
                let ty = buffer_type(self.ctx, self.ir.body(self.body).value_type(results[0]));
                let v = self
                    .emitter(op)
                    .op1("loop.reshape", &[src], ty, &[])
                    .map_err(fail)?;
                // The reshaped buffer may be written into only when nothing else reads
                // the tensor it reshapes (the two share the buffer).
                let sole_use = self.ir.body(self.body).value_users(operands[0]).count() == 1;
                if self.writable.contains(&src) && sole_use {
                    self.writable.insert(v);
                }
                v
            }
            "tensor.map" => self.map(op).map_err(fail)?,
            "tensor.broadcast" => self.broadcast(op).map_err(fail)?,
            "tensor.transpose" => self.transpose(op).map_err(fail)?,
            "tensor.matmul" | "tensor.batch_matmul" => self.matmul(op).map_err(fail)?,
            "tensor.conv2d" => self.conv2d(op).map_err(fail)?,
            "tensor.pool" => self.pool(op).map_err(fail)?,
            "tensor.reduce" => self.reduce(op).map_err(fail)?,
            "tensor.pad" => self.pad(op).map_err(fail)?,
            _ => return Err(fail("no bufferization for this op yet".into())),
        };
        self.buffers.insert(results[0], out);
        Ok(true)
    }

    fn is_tensor(&self, v: ValueId) -> bool {
        let t = self.ir.body(self.body).value_type(v);
        matches!(self.ctx.type_data(t), TypeData::RankedTensor { .. })
    }

    /// The buffer a destination-passing op writes into: its init's when that buffer
    /// was allocated here and the init has no other use, else a new one (holding a
    /// copy of the init when `keep` says the op reads it).
    fn destination(&mut self, op: OpId, init: ValueId, keep: bool) -> Result<ValueId, String> {
        let buf = self
            .buffers
            .get(&init)
            .copied()
            .ok_or("the init has no buffer")?;
        let uses = self.ir.body(self.body).value_users(init).count();
        if uses == 1 && self.writable.contains(&buf) {
            return Ok(buf);
        }
        let ty = self.ir.body(self.body).value_type(buf);
        let mut e = self.emitter(op);
        let fresh = e.op1("loop.alloc", &[], ty, &[])?;
        if keep {
            e.op("loop.copy", &[buf, fresh], &[], &[])?;
        }
        self.writable.insert(fresh);
        Ok(fresh)
    }

    fn shape(&self, v: ValueId) -> Result<Vec<i64>, String> {
        let t = self.ir.body(self.body).value_type(v);
        Ok(shape_of(self.ctx, t)?.0)
    }

    fn element(&self, v: ValueId) -> TypeId {
        let t = self.ir.body(self.body).value_type(v);
        self.ctx.type_data(t).element_type().unwrap_or(t)
    }

    /// Inlines the single block of region `index` of `op` at the emitter's point with
    /// its arguments bound to `args`; the values its yield gives.
    fn inline(
        ir: &mut Ir,
        body: BodyId,
        op: OpId,
        index: usize,
        args: &[ValueId],
        at: InsertPoint,
    ) -> Result<Vec<ValueId>, String> {
        let b = ir.body(body);
        let region = *ir
            .op(body, op)
            .regions()
            .get(index)
            .ok_or("a missing region")?;
        let block = b.entry_block(region).ok_or("an empty region")?;
        let params = b.block_args(block).to_vec();
        let ops: Vec<OpId> = b.block_ops(block).collect();
        let mut map = ValueMap::default();
        for (p, a) in params.iter().zip(args) {
            map.values.insert(*p, *a);
        }
        let (last, inner) = ops.split_last().ok_or("an empty block")?;
        for o in inner {
            clone_op(ir, body, *o, body, at, &mut map);
        }
        Ok(ir
            .body(body)
            .operands(*last)
            .map(|v| map.values.get(&v).copied().unwrap_or(v))
            .collect())
    }

    fn map(&mut self, op: OpId) -> Result<ValueId, String> {
        let operands: Vec<ValueId> = self.ir.body(self.body).operands(op).collect();
        let (inputs, init) = operands.split_at(operands.len() - 1);
        let dest = self.destination(op, init[0], false)?;
        let ins: Vec<ValueId> = inputs
            .iter()
            .map(|v| self.buffers.get(v).copied().ok_or("an input has no buffer"))
            .collect::<Result<_, _>>()?;
        let shape = self.shape(init[0])?;
        let elem_types: Vec<TypeId> = inputs.iter().map(|v| self.element(*v)).collect();
        let body = self.body;
        let mut e = self.emitter(op);
        parallel(&mut e, &shape, &mut |e, ivs| {
            let mut args = Vec::new();
            for (b, t) in ins.iter().zip(&elem_types) {
                args.push(e.op1("loop.load", &with(*b, ivs), *t, &[])?);
            }
            let at = e.point;
            let y = Self::inline(e.ir, body, op, 0, &args, at)?;
            e.op("loop.store", &[&[y[0], dest][..], ivs].concat(), &[], &[])?;
            Ok(())
        })?;
        Ok(dest)
    }

    fn broadcast(&mut self, op: OpId) -> Result<ValueId, String> {
        let dims = self.ints(op, "dimensions");
        // The input's dimensions are the init's not in `dimensions`.
        self.gather(op, &|ivs| {
            ivs.iter()
                .enumerate()
                .filter(|(d, _)| !dims.contains(&(*d as i64)))
                .map(|(_, v)| *v)
                .collect()
        })
    }

    fn transpose(&mut self, op: OpId) -> Result<ValueId, String> {
        let perm = self.ints(op, "permutation");
        // Result dimension i is input dimension perm[i].
        self.gather(op, &|ivs| {
            let mut at = ivs.to_vec();
            for (i, p) in perm.iter().enumerate() {
                at[*p as usize] = ivs[i];
            }
            at
        })
    }

    /// An op (input, init) whose result element at each index is the input's element
    /// at `source(index)`.
    fn gather(
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
            let v = e.op1("loop.load", &with(src, &source(ivs)), elem, &[])?;
            e.op("loop.store", &[&[v, dest][..], ivs].concat(), &[], &[])?;
            Ok(())
        })?;
        Ok(dest)
    }

    fn matmul(&mut self, op: OpId) -> Result<ValueId, String> {
        let operands: Vec<ValueId> = self.ir.body(self.body).operands(op).collect();
        let (a, b, init) = (operands[0], operands[1], operands[2]);
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
                    let wa = matrix_window(&mut e, ba, i, m, k)?;
                    let wb = matrix_window(&mut e, bb, i, k, n)?;
                    let wc = matrix_window(&mut e, dest, i, m, n)?;
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
            let c0 = e.op1("loop.load", &with(dest, ivs), ec, &[])?;
            let sum = for_range(e, k, c0, &mut |e, kv, acc| {
                let (ai, bi) = if batched {
                    (vec![ivs[0], ivs[1], kv], vec![ivs[0], kv, ivs[2]])
                } else {
                    (vec![ivs[0], kv], vec![kv, ivs[1]])
                };
                let x = e.op1("loop.load", &with(ba, &ai), ea, &[])?;
                let y = e.op1("loop.load", &with(bb, &bi), eb, &[])?;
                let (x, y) = (convert(e, x, ea, ec)?, convert(e, y, eb, ec)?);
                multiply_add(e, x, y, acc, ec)
            })?;
            e.op("loop.store", &[&[sum, dest][..], ivs].concat(), &[], &[])?;
            Ok(())
        })?;
        Ok(dest)
    }

    fn conv2d(&mut self, op: OpId) -> Result<ValueId, String> {
        let operands: Vec<ValueId> = self.ir.body(self.body).operands(op).collect();
        let (x, w, init) = (operands[0], operands[1], operands[2]);
        for (name, plain) in [
            ("input_layout", "NCHW"),
            ("filter_layout", "OIHW"),
            ("output_layout", "NCHW"),
        ] {
            let l = self.text(op, name);
            if !l.is_empty() && !l.contains(&format!("\"{plain}\"")) {
                return Err(format!(
                    "{name} {l} has no bufferization yet (only {plain})"
                ));
            }
        }
        let strides = self.ints_or(op, "strides", &[1, 1]);
        let dilations = self.ints_or(op, "dilations", &[1, 1]);
        let groups = self.int(op, "groups").unwrap_or(1);
        let dest = self.destination(op, init, true)?;
        let (bx, bw) = (
            self.buffers
                .get(&x)
                .copied()
                .ok_or("the input has no buffer")?,
            self.buffers
                .get(&w)
                .copied()
                .ok_or("the filter has no buffer")?,
        );
        let shape = self.shape(init)?;
        let sw = self.shape(w)?;
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
            let g = index_op(e, "divui", oc, mg)?;
            let c_base = index_op(e, "muli", g, cg)?;
            let y0 = index_op(e, "muli", oy, strides[0])?;
            let x0 = index_op(e, "muli", ox, strides[1])?;
            let c0 = e.op1("loop.load", &with(dest, ivs), ec, &[])?;
            let s1 = for_range(e, cg, c0, &mut |e, c, acc| {
                let ch = index_add(e, c_base, c)?;
                for_range(e, kh, acc, &mut |e, i, acc| {
                    let di = index_op(e, "muli", i, dilations[0])?;
                    let iy = index_add(e, y0, di)?;
                    for_range(e, kw, acc, &mut |e, j, acc| {
                        let dj = index_op(e, "muli", j, dilations[1])?;
                        let ix = index_add(e, x0, dj)?;
                        let xv = e.op1("loop.load", &with(bx, &[n, ch, iy, ix]), ex, &[])?;
                        let wv = e.op1("loop.load", &with(bw, &[oc, c, i, j]), ew, &[])?;
                        let (xv, wv) = (convert(e, xv, ex, ec)?, convert(e, wv, ew, ec)?);
                        multiply_add(e, xv, wv, acc, ec)
                    })
                })
            })?;
            e.op("loop.store", &[&[s1, dest][..], ivs].concat(), &[], &[])?;
            Ok(())
        })?;
        Ok(dest)
    }

    fn pool(&mut self, op: OpId) -> Result<ValueId, String> {
        let (x, init) = self.two(op);
        let l = self.text(op, "layout");
        if !l.is_empty() && !l.contains("\"NCHW\"") {
            return Err(format!("layout {l} has no bufferization yet (only NCHW)"));
        }
        let kind = self.text(op, "kind");
        let max = kind.contains("max");
        let avg = kind.contains("avg");
        let window = self.ints(op, "window");
        let strides = self.ints_or(op, "strides", &[1, 1]);
        let dilations = self.ints_or(op, "dilations", &[1, 1]);
        let pads = self.ints_or(op, "pads", &[0, 0, 0, 0]);
        let include_pad = self.int(op, "count_include_pad").unwrap_or(0) != 0;
        let dest = self.destination(op, init, false)?;
        let bx = self
            .buffers
            .get(&x)
            .copied()
            .ok_or("the input has no buffer")?;
        let shape = self.shape(init)?;
        let sx = self.shape(x)?;
        let elem = self.element(x);
        if !is_float(self.ctx, elem) {
            return Err("integer pooling has no bufferization yet".into());
        }
        let mut e = self.emitter(op);
        parallel(&mut e, &shape, &mut |e, ivs| {
            let start = if max { f64::NEG_INFINITY } else { 0.0 };
            let init_v = e.scalar(elem, start)?;
            let count0 = e.scalar(elem, 0.0)?;
            let mut total = (init_v, count0);
            for i in 0..window[0] {
                for j in 0..window[1] {
                    // The input position, possibly in the padding.
                    let y = pos(e, ivs[2], strides[0], i * dilations[0] - pads[0])?;
                    let xx = pos(e, ivs[3], strides[1], j * dilations[1] - pads[1])?;
                    let inside_y = in_range(e, y, sx[2])?;
                    let inside_x = in_range(e, xx, sx[3])?;
                    let inside =
                        e.op1("arith.andi", &[inside_y, inside_x], e.ctx.int_type(1), &[])?;
                    let cy = clamp(e, y, sx[2])?;
                    let cx = clamp(e, xx, sx[3])?;
                    let v = e.op1("loop.load", &with(bx, &[ivs[0], ivs[1], cy, cx]), elem, &[])?;
                    let combined = if max {
                        e.op1("arith.maximumf", &[total.0, v], elem, &[])?
                    } else {
                        e.op1("arith.addf", &[total.0, v], elem, &[])?
                    };
                    let acc = e.op1("arith.select", &[inside, combined, total.0], elem, &[])?;
                    let one = e.scalar(elem, 1.0)?;
                    let bumped = e.op1("arith.addf", &[total.1, one], elem, &[])?;
                    let count = e.op1("arith.select", &[inside, bumped, total.1], elem, &[])?;
                    total = (acc, count);
                }
            }
            let result = if avg {
                let divisor = if include_pad {
                    e.scalar(elem, (window[0] * window[1]) as f64)?
                } else {
                    total.1
                };
                e.op1("arith.divf", &[total.0, divisor], elem, &[])?
            } else {
                total.0
            };
            e.op("loop.store", &[&[result, dest][..], ivs].concat(), &[], &[])?;
            Ok(())
        })?;
        Ok(dest)
    }

    fn reduce(&mut self, op: OpId) -> Result<ValueId, String> {
        let (x, init) = self.two(op);
        let dims = self.ints(op, "dimensions");
        let dest = self.destination(op, init, true)?;
        let bx = self
            .buffers
            .get(&x)
            .copied()
            .ok_or("the input has no buffer")?;
        let sx = self.shape(x)?;
        let (ex, ei) = (self.element(x), self.element(init));
        let body = self.body;
        let mut e = self.emitter(op);
        sequential(&mut e, &sx, &mut |e, ivs| {
            let kept: Vec<ValueId> = ivs
                .iter()
                .enumerate()
                .filter(|(d, _)| !dims.contains(&(*d as i64)))
                .map(|(_, v)| *v)
                .collect();
            let v = e.op1("loop.load", &with(bx, ivs), ex, &[])?;
            let acc = e.op1("loop.load", &with(dest, &kept), ei, &[])?;
            let at = e.point;
            let y = Self::inline(e.ir, body, op, 0, &[v, acc], at)?;
            e.op(
                "loop.store",
                &[&[y[0], dest][..], &kept[..]].concat(),
                &[],
                &[],
            )?;
            Ok(())
        })?;
        Ok(dest)
    }

    fn pad(&mut self, op: OpId) -> Result<ValueId, String> {
        let operands: Vec<ValueId> = self.ir.body(self.body).operands(op).collect();
        if operands.len() != 1 {
            return Err("dynamic pad amounts have no bufferization yet".into());
        }
        let x = operands[0];
        let low = self.ints(op, "static_low");
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
        let mut e = self.emitter(op);
        let dest = e.op1("loop.alloc", &[], rty, &[])?;
        parallel(&mut e, &shape, &mut |e, ivs| {
            let mut inside: Option<ValueId> = None;
            let mut at = Vec::new();
            for (d, iv) in ivs.iter().enumerate() {
                let p = index_op(e, "subi", *iv, low[d])?;
                let ok = in_range(e, p, sx[d])?;
                inside = Some(match inside {
                    None => ok,
                    Some(prev) => e.op1("arith.andi", &[prev, ok], e.ctx.int_type(1), &[])?,
                });
                at.push(clamp(e, p, sx[d])?);
            }
            let v = e.op1("loop.load", &with(bx, &at), elem, &[])?;
            let point = e.point;
            let fill = Self::inline(e.ir, body, op, 0, ivs, point)?;
            let chosen = match inside {
                Some(c) => e.op1("arith.select", &[c, v, fill[0]], elem, &[])?,
                None => v,
            };
            e.op("loop.store", &[&[chosen, dest][..], ivs].concat(), &[], &[])?;
            Ok(())
        })?;
        self.writable.insert(dest);
        Ok(dest)
    }

    /// The library matrix product, when there is one and every value is f32.
    fn library_gemm(&self, values: &[ValueId]) -> Result<Option<String>, String> {
        let f32t = self.ctx.float_type(acc_ir::FloatKind::F32);
        Ok(self
            .gemm
            .clone()
            .filter(|_| values.iter().all(|v| self.element(*v) == f32t)))
    }

    // ----- attribute helpers -----

    fn two(&self, op: OpId) -> (ValueId, ValueId) {
        let o: Vec<ValueId> = self.ir.body(self.body).operands(op).collect();
        (o[0], o[o.len() - 1])
    }

    fn attrs(&self, op: OpId) -> acc_dialects::hooks::attr_read::Attrs<'_> {
        acc_dialects::hooks::attr_read::Attrs::of_op(self.ctx, self.ir.op(self.body, op))
    }

    fn ints(&self, op: OpId, name: &str) -> Vec<i64> {
        self.attrs(op).ints(name).ok().flatten().unwrap_or_default()
    }

    fn ints_or(&self, op: OpId, name: &str, default: &[i64]) -> Vec<i64> {
        self.attrs(op)
            .ints(name)
            .ok()
            .flatten()
            .unwrap_or_else(|| default.to_vec())
    }

    fn int(&self, op: OpId, name: &str) -> Option<i64> {
        self.attrs(op).int(name).ok().flatten()
    }

    fn text(&self, op: OpId, name: &str) -> String {
        self.attrs(op)
            .get(name)
            .map(|a| acc_ir::printer::attr_to_string(self.ctx, a))
            .unwrap_or_default()
    }
}

/// `buffer` followed by `indices`, as operands.
fn with(buffer: ValueId, indices: &[ValueId]) -> Vec<ValueId> {
    let mut v = vec![buffer];
    v.extend_from_slice(indices);
    v
}

/// An index op of `a` and a constant.
fn index_op(e: &mut Emitter<'_>, op: &str, a: ValueId, c: i64) -> Result<ValueId, String> {
    let k = e.index(c)?;
    let index = e.ctx.index_type();
    e.op1(&format!("arith.{op}"), &[a, k], index, &[])
}

fn index_add(e: &mut Emitter<'_>, a: ValueId, b: ValueId) -> Result<ValueId, String> {
    let index = e.ctx.index_type();
    e.op1("arith.addi", &[a, b], index, &[])
}

/// `iv * stride + offset`.
fn pos(e: &mut Emitter<'_>, iv: ValueId, stride: i64, offset: i64) -> Result<ValueId, String> {
    let s = index_op(e, "muli", iv, stride)?;
    index_op(e, "addi", s, offset)
}

/// Whether `0 <= i < n`.
fn in_range(e: &mut Emitter<'_>, i: ValueId, n: i64) -> Result<ValueId, String> {
    let zero = e.index(0)?;
    let limit = e.index(n)?;
    let i1 = e.ctx.int_type(1);
    let pred = |k: i64| crate::emit::i64_attr(e.ctx, k);
    let (sge, slt) = (pred(5), pred(2));
    let lo = e.op1("arith.cmpi", &[i, zero], i1, &[("predicate", sge)])?;
    let hi = e.op1("arith.cmpi", &[i, limit], i1, &[("predicate", slt)])?;
    e.op1("arith.andi", &[lo, hi], i1, &[])
}

/// `i` clamped to `[0, n - 1]`.
fn clamp(e: &mut Emitter<'_>, i: ValueId, n: i64) -> Result<ValueId, String> {
    let index = e.ctx.index_type();
    let zero = e.index(0)?;
    let last = e.index(n - 1)?;
    let lo = e.op1("arith.maxsi", &[i, zero], index, &[])?;
    e.op1("arith.minsi", &[lo, last], index, &[])
}

/// `x` converted from element type `from` to `to` (a narrower integer or float
/// widened), or `x` when they agree.
fn convert(e: &mut Emitter<'_>, x: ValueId, from: TypeId, to: TypeId) -> Result<ValueId, String> {
    if from == to {
        return Ok(x);
    }
    let op = match (is_float(e.ctx, from), is_float(e.ctx, to)) {
        (true, true) => "arith.extf",
        (false, false) => "arith.extsi",
        (false, true) => "arith.sitofp",
        (true, false) => return Err("float inputs into an integer result".into()),
    };
    e.op1(op, &[x], to, &[])
}

/// `acc + x * y` in element type `ty`.
fn multiply_add(
    e: &mut Emitter<'_>,
    x: ValueId,
    y: ValueId,
    acc: ValueId,
    ty: TypeId,
) -> Result<ValueId, String> {
    let (mul, add) = if is_float(e.ctx, ty) {
        ("arith.mulf", "arith.addf")
    } else {
        ("arith.muli", "arith.addi")
    };
    let p = e.op1(mul, &[x, y], ty, &[])?;
    e.op1(add, &[acc, p], ty, &[])
}

/// A `loop.for` from 0 to `n` carrying one value from `init`; `step` gives the next
/// value from the index and the carried one.
fn for_range(
    e: &mut Emitter<'_>,
    n: i64,
    init: ValueId,
    step: &mut dyn FnMut(&mut Emitter<'_>, ValueId, ValueId) -> Result<ValueId, String>,
) -> Result<ValueId, String> {
    let (lb, ub, one) = (e.index(0)?, e.index(n)?, e.index(1)?);
    let ty = e.type_of(init);
    let index = e.ctx.index_type();
    let mut fill = |inner: &mut Emitter<'_>, args: &[ValueId]| -> Result<Vec<ValueId>, String> {
        Ok(vec![step(inner, args[0], args[1])?])
    };
    Ok(e.op_with_region(
        "loop.for",
        &[lb, ub, one, init],
        &[ty],
        &[],
        &[index, ty],
        "loop.yield",
        &mut fill,
    )?[0])
}

/// A `loop.parallel` over `shape` running `body` with the indices (directly when the
/// shape has no dimension).
fn parallel(e: &mut Emitter<'_>, shape: &[i64], body: &mut BodyBuilder<'_>) -> Result<(), String> {
    if shape.is_empty() {
        return body(e, &[]);
    }
    let mut operands = Vec::new();
    for _ in shape {
        operands.push(e.index(0)?);
    }
    for n in shape {
        operands.push(e.index(*n)?);
    }
    for _ in shape {
        operands.push(e.index(1)?);
    }
    let k = shape.len() as i32;
    let segments = {
        let data: Vec<u8> = [k, k, k].iter().flat_map(|x| x.to_le_bytes()).collect();
        e.ctx.intern_attr(acc_ir::AttrData::DenseArray {
            element: e.ctx.int_type(32),
            data: data.into(),
        })
    };
    let index = e.ctx.index_type();
    let mut fill = |inner: &mut Emitter<'_>, ivs: &[ValueId]| -> Result<Vec<ValueId>, String> {
        body(inner, ivs)?;
        Ok(Vec::new())
    };
    e.op_with_region(
        "loop.parallel",
        &operands,
        &[],
        &[("operandSegmentSizes", segments)],
        &vec![index; shape.len()],
        "loop.yield",
        &mut fill,
    )?;
    Ok(())
}

/// Nested `loop.for`s over `shape`, in order (for reductions, whose iterations depend
/// on each other).
fn sequential(
    e: &mut Emitter<'_>,
    shape: &[i64],
    body: &mut BodyBuilder<'_>,
) -> Result<(), String> {
    fn level(
        e: &mut Emitter<'_>,
        shape: &[i64],
        ivs: &mut Vec<ValueId>,
        body: &mut BodyBuilder<'_>,
    ) -> Result<(), String> {
        let Some((&n, rest)) = shape.split_first() else {
            return body(e, ivs);
        };
        let (lb, ub, one) = (e.index(0)?, e.index(n)?, e.index(1)?);
        let index = e.ctx.index_type();
        let mut fill =
            |inner: &mut Emitter<'_>, args: &[ValueId]| -> Result<Vec<ValueId>, String> {
                ivs.push(args[0]);
                let r = level(inner, rest, ivs, body);
                ivs.pop();
                r.map(|()| Vec::new())
            };
        e.op_with_region(
            "loop.for",
            &[lb, ub, one],
            &[],
            &[],
            &[index],
            "loop.yield",
            &mut fill,
        )?;
        Ok(())
    }
    level(e, shape, &mut Vec::new(), body)
}

/// `hw.intrinsic "gemm"(a, b, c, m, n, k)`: C += A x B (row-major, contiguous).
fn call_gemm(
    e: &mut Emitter<'_>,
    gemm: &str,
    [a, b, c]: [ValueId; 3],
    [m, n, k]: [i64; 3],
) -> Result<(), String> {
    let dims = [e.index(m)?, e.index(n)?, e.index(k)?];
    let callee = e.ctx.string_attr(gemm);
    e.op(
        "hw.intrinsic",
        &[a, b, c, dims[0], dims[1], dims[2]],
        &[],
        &[("callee", callee)],
    )?;
    Ok(())
}

/// A batch-1, ungrouped NCHW convolution as one matrix product: the filter
/// (M x C*kh*kw) times the input's patches (C*kh*kw x OH*OW, gathered into a new
/// buffer, or the input itself for a 1x1 convolution with unit strides), added into
/// the output seen as M x OH*OW.
#[allow(clippy::too_many_arguments)]
fn conv_as_gemm(
    e: &mut Emitter<'_>,
    gemm: &str,
    [x, w, out]: [ValueId; 3],
    sx: &[i64],
    sw: &[i64],
    so: &[i64],
    strides: &[i64],
    dilations: &[i64],
) -> Result<(), String> {
    let (c, h, wd) = (sx[1], sx[2], sx[3]);
    let (m, kh, kw) = (sw[0], sw[2], sw[3]);
    let (oh, ow) = (so[2], so[3]);
    let f32t = e.ctx.float_type(acc_ir::FloatKind::F32);
    let depth = c * kh * kw;
    let plane = oh * ow;
    let as_matrix = |e: &mut Emitter<'_>, v: ValueId, rows: i64, cols: i64| {
        let ty = memref_type(e.ctx, &[rows, cols], f32t);
        e.op1("loop.reshape", &[v], ty, &[])
    };
    let filter = as_matrix(e, w, m, depth)?;
    let output = as_matrix(e, out, m, plane)?;
    let direct = kh == 1 && kw == 1 && strides == [1, 1] && oh == h && ow == wd;
    let patches = if direct {
        as_matrix(e, x, c, plane)?
    } else {
        // patches[(ci, i, j), (y, x)] = input[0, ci, y * sh + i * dh, x * sw + j * dw]
        let ty = memref_type(e.ctx, &[c, kh, kw, oh, ow], f32t);
        let buf = e.op1("loop.alloc", &[], ty, &[])?;
        parallel(e, &[c, kh, kw, oh, ow], &mut |e, ivs| {
            let zero = e.index(0)?;
            let y0 = index_op(e, "muli", ivs[3], strides[0])?;
            let di = index_op(e, "muli", ivs[1], dilations[0])?;
            let iy = index_add(e, y0, di)?;
            let x0 = index_op(e, "muli", ivs[4], strides[1])?;
            let dj = index_op(e, "muli", ivs[2], dilations[1])?;
            let ix = index_add(e, x0, dj)?;
            let v = e.op1("loop.load", &with(x, &[zero, ivs[0], iy, ix]), f32t, &[])?;
            e.op("loop.store", &[&[v, buf][..], ivs].concat(), &[], &[])?;
            Ok(())
        })?;
        as_matrix(e, buf, depth, plane)?
    };
    call_gemm(e, gemm, [filter, patches, output], [m, plane, depth])
}

/// Matrix `i` (rows x cols) of a contiguous batch of matrices, as a window of shape
/// 1 x rows x cols.
fn matrix_window(
    e: &mut Emitter<'_>,
    batch: ValueId,
    i: i64,
    rows: i64,
    cols: i64,
) -> Result<ValueId, String> {
    let f32t = e.ctx.float_type(acc_ir::FloatKind::F32);
    let layout = e.ctx.intern_attr(acc_ir::AttrData::Strided {
        strides: vec![rows * cols, cols, 1].into(),
        offset: i * rows * cols,
    });
    let ty = e.ctx.intern_type(TypeData::MemRef {
        shape: vec![1, rows, cols].into(),
        element: f32t,
        layout: Some(layout),
        memory_space: None,
    });
    let list = |v: &[i64]| crate::emit::i64s(e.ctx, v);
    let props = [
        ("static_offsets", list(&[i, 0, 0])),
        ("static_sizes", list(&[1, rows, cols])),
        ("static_strides", list(&[1, 1, 1])),
        (
            "operandSegmentSizes",
            crate::emit::segments(e.ctx, &[1, 0, 0, 0]),
        ),
    ];
    e.op1("loop.subview", &[batch], ty, &props)
}
