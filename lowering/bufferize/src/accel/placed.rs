//! Ops `partition` placed on a device: each becomes the call of its intrinsic.
//!
//! The target file's `call(...)` list gives the arguments: a matched operand is its
//! buffer, a result a new buffer (one of dynamic size, the buffer of its bound, and
//! its `count(%y)` a one-element `i32` buffer the library writes its number of rows
//! into), an integer an `i32` constant, a table or packed bytes a constant buffer.
//! The `hw.intrinsic` keeps the op itself, on tensors, as its `semantics` region
//! (`inputs` and `outputs` say which arguments the region reads and which it writes;
//! an operand the call receives packed is a constant the region makes itself), so
//! the interpreter runs what the op computes and
//! `--check-semantics` compares the call with the op it replaces. The arguments that
//! carry a parameter of the op (`input_offset: ...`, `q31_multipliers(...)`,
//! `act_min(%y)`; `Placement::params`) are set on the region's copy of the op, which
//! computes with them: a wrong zero point, multiplier, bias table or clamp shows as a
//! wrong result. (Packed bytes and tables no parameter names are what only the C
//! library reads; the C tests check them, bit for bit.)

use acc_dialects::build::BuildExt as _;
use acc_ir::clone::{ValueMap, clone_op};
use acc_ir::{OpId, ValueId};
use acc_target::{BufferLayout, CallArg, Intrinsic, Placement};

use super::layouts::stored_integers;
use crate::{Bufferizer, buffer_type};
use acc_dialects::build::{i64s, memref_type, shape_of, tensor_type};
use acc_dialects::hooks::stored::constant_chain;
use acc_dialects::ops::{graph, hw, loops, tensor};
pub use acc_target::placement::LAYOUT_ATTR;
use acc_target::placement::{clear_placement, placed_intrinsic, placement};

impl Bufferizer<'_> {
    /// Whether `op` was placed on a device by `partition`.
    pub(crate) fn is_placed(&self, op: OpId) -> bool {
        placement(self.ctx, self.ir, self.body, op).is_some()
    }

    /// A `loop.constant` buffer holding the dense constant `dense` (of rank 1), before
    /// `op`.
    fn constant_buffer(&mut self, op: OpId, dense: acc_ir::AttrId) -> Result<ValueId, String> {
        let ty = acc_ir::rewrite::attr_type(self.ctx, dense).ok_or("a constant without a type")?;
        let (shape, element) = shape_of(self.ctx, ty)?;
        let ty = memref_type(self.ctx, &shape, element);
        loops::Constant::build(&mut self.emitter(op), ty)
            .value(dense)
            .result()
    }

    /// How `intrinsic` computes placed `op`, with the call arguments `weight-prep`
    /// stored on it when it ran (computed here otherwise).
    pub(crate) fn place(&self, intrinsic: &Intrinsic, op: OpId) -> Result<Placement, String> {
        let prepared = acc_target::placement::prepared_args(self.ctx, self.ir, self.body, op)?;
        intrinsic
            .rule
            .place_with(self.ctx, self.ir, self.body, op, prepared.as_deref())
    }

    /// Replaces the placed `op` by its intrinsic's call; the buffers of its results.
    pub(crate) fn placed(&mut self, op: OpId) -> Result<(), String> {
        if self.targets.is_empty() {
            return Err("it is placed on a device, but no target is given (--target FILE)".into());
        }
        let (target, intrinsic) = placed_intrinsic(self.ctx, self.ir, self.body, op, self.targets)?
            .ok_or("not placed")?;
        let name = &intrinsic.name;
        let placement = self
            .place(intrinsic, op)
            .map_err(|why| format!("intrinsic '{name}' no longer applies: {why}"))?;
        let layouts = self.call_layouts(&placement);
        let layout_of = |v: ValueId| {
            layouts
                .iter()
                .find(|(x, _)| *x == v)
                .map(|(_, p)| p.clone())
        };
        // What follows the op: copies back go before it (plain buffers before their
        // first reader).
        let next = self
            .ir
            .body(self.body)
            .next_op(op)
            .ok_or("a placed op ends its block")?;
        let r = self.ir.op(self.body, op);
        let loc = r.loc();
        let operands: Vec<ValueId> = r.operands().collect();
        let results: Vec<ValueId> = r.results().collect();
        let (mut args, mut inputs, mut outputs) = (Vec::new(), Vec::new(), Vec::new());
        // Results of dynamic shape: the buffer of each one's bound, and where the call
        // writes its number of rows (`count(%y)`), by result index.
        let (mut bounded, mut counts) = (Vec::new(), Vec::new());
        let bound_of = |v: ValueId| {
            placement
                .bounds
                .iter()
                .find(|(x, _)| *x == v)
                .map(|(_, b)| b.clone())
        };
        if !placement.bounds.is_empty() && intrinsic.memory.is_some() {
            return Err(format!(
                "'{name}' writes a result of dynamic shape and stages its buffers in a local memory: results of dynamic shape are passed only in place (declare no `memory`)"
            ));
        }
        let i32_type = self.ctx.int_type(32);
        for arg in &placement.call {
            let at = args.len() as i64;
            let value = match arg {
                CallArg::Value(v) => {
                    let layout = layout_of(*v);
                    if let Some(k) = operands.iter().position(|o| o == v) {
                        inputs.push((k, at));
                        match &layout {
                            Some(layout) => self.input_in_layout(op, *v, layout)?,
                            None => self.buffer(loc, *v).map_err(|d| d.message)?,
                        }
                    } else if let Some(k) = results.iter().position(|o| o == v)
                        && let Some(bound) = bound_of(*v)
                    {
                        if layout.is_some() {
                            return Err(format!(
                                "'{name}' declares a layout for a result of dynamic shape"
                            ));
                        }
                        let ty = self.ir.body(self.body).value_type(*v);
                        let element = self
                            .ctx
                            .type_data(ty)
                            .element_type()
                            .ok_or("a result of dynamic shape without elements")?;
                        let ty = memref_type(self.ctx, &bound, element);
                        let buffer =
                            loops::Alloc::build(&mut self.emitter(op), &[], ty).result()?;
                        bounded.push((k, buffer, bound));
                        outputs.push((k, at));
                        buffer
                    } else if let Some(k) = results.iter().position(|o| o == v) {
                        let ty = self.ir.body(self.body).value_type(*v);
                        let (shape, element) = shape_of(self.ctx, ty)?;
                        let ty = match &layout {
                            Some(layout) => {
                                memref_type(self.ctx, &layout.stored_shape(&shape), element)
                            }
                            None => buffer_type(self.ctx, ty),
                        };
                        let buffer =
                            loops::Alloc::build(&mut self.emitter(op), &[], ty).result()?;
                        match layout {
                            Some(layout) => {
                                self.permuted.insert(results[k], (buffer, layout));
                            }
                            None => {
                                self.buffers.insert(results[k], buffer);
                            }
                        }
                        outputs.push((k, at));
                        buffer
                    } else {
                        return Err(format!(
                            "the call of '{name}' passes a value that is neither an operand nor a result of the op"
                        ));
                    }
                }
                CallArg::Count(v) => {
                    let k = results.iter().position(|r| r == v).ok_or_else(|| {
                        format!(
                            "the call of '{name}' counts a value that is not a result of the op"
                        )
                    })?;
                    let ty = memref_type(self.ctx, &[1], i32_type);
                    let buffer = loops::Alloc::build(&mut self.emitter(op), &[], ty).result()?;
                    counts.push((k, at, buffer));
                    buffer
                }
                CallArg::Int(i) => self.emitter(op).scalar(i32_type, *i as f64)?,
                CallArg::Float(f) => {
                    let f32t = self.ctx.float_type(acc_ir::FloatKind::F32);
                    self.emitter(op).scalar(f32t, f64::from(*f))?
                }
                CallArg::F32Table(_)
                | CallArg::Bytes(_)
                | CallArg::I32Table(_)
                | CallArg::I16Table(_) => {
                    let dense = acc_target::placement::call_arg_attr(self.ctx, arg)
                        .ok_or("cannot build a constant argument")?;
                    self.constant_buffer(op, dense)?
                }
            };
            args.push(value);
        }
        // The region reads the operands passed as buffers in order (those passed in a
        // compile-time form are constants it makes itself) and yields the results in
        // order: each must be passed exactly once.
        inputs.sort();
        outputs.sort();
        bounded.sort_by_key(|b| b.0);
        counts.sort_by_key(|c| c.0);
        if counts.len() != bounded.len() {
            return Err(format!(
                "the call of '{name}' must pass count(...) of each result of dynamic shape, once"
            ));
        }
        let by_buffer: Vec<usize> = (0..operands.len())
            .filter(|k| !placement.compile_time.contains(&operands[*k]))
            .collect();
        let mut constants = Vec::new();
        for v in &placement.compile_time {
            let chain = constant_chain(self.ctx, self.ir, self.body, *v).ok_or_else(|| {
                format!("the call of '{name}' packs a value that is not a constant")
            })?;
            constants.push((*v, chain));
        }
        let each_once = |passed: &[(usize, i64)], want: &[usize]| {
            passed.iter().map(|p| p.0).eq(want.iter().copied())
        };
        let all_results: Vec<usize> = (0..results.len()).collect();
        if !each_once(&inputs, &by_buffer) || !each_once(&outputs, &all_results) {
            return Err(format!(
                "the call of '{name}' must pass every operand (as its buffer or packed) and result of the op once"
            ));
        }
        // The region works on tensors (a function's arguments are memrefs by now),
        // in the layouts the call passes them.
        let arg_types = by_buffer
            .iter()
            .map(|k| {
                let (shape, element) =
                    shape_of(self.ctx, self.ir.body(self.body).value_type(operands[*k]))?;
                let shape = match layout_of(operands[*k]) {
                    Some(layout) => layout.stored_shape(&shape),
                    None => shape,
                };
                Ok(tensor_type(self.ctx, &shape, element))
            })
            .collect::<Result<Vec<_>, String>>()?;
        let region_inputs: Vec<i64> = inputs.iter().map(|p| p.1).collect();
        // The numbers the library is given for the op's parameters: the region's
        // copy of the op computes with them (so that a wrong one shows under
        // --check-semantics).
        let given = given_params(self.ctx, &placement)?;
        let operand_layouts: Vec<Option<BufferLayout>> =
            operands.iter().map(|v| layout_of(*v)).collect();
        let result_layouts: Vec<Option<BufferLayout>> =
            results.iter().map(|v| layout_of(*v)).collect();
        let staging = match &intrinsic.memory {
            Some(memory) => Some(crate::accel::staging::Staging::new(target, memory, name)?),
            None => None,
        };
        let staged = match &staging {
            Some(st) => {
                let outputs_at: Vec<i64> = outputs.iter().map(|p| p.1).collect();
                let staged = self.stage(op, st, &args, &outputs_at)?;
                args = staged.args.clone();
                Some(staged)
            }
            None => None,
        };
        let body = self.body;
        // The region yields the results, then the counts.
        let written: Vec<i64> = outputs
            .iter()
            .map(|p| p.1)
            .chain(counts.iter().map(|c| c.1))
            .collect();
        let bounds: Vec<Option<Vec<i64>>> = (0..results.len())
            .map(|k| bounded.iter().find(|b| b.0 == k).map(|b| b.2.clone()))
            .collect();
        let (callee, inputs_attr, outputs_attr) = (
            self.ctx.string_attr(name),
            i64s(self.ctx, &region_inputs),
            i64s(self.ctx, &written),
        );
        let ctx = self.ctx;
        let mut e = self.emitter(op);
        let semantics = e.region(&arg_types, hw::Yield::NAME, &mut |e, block_args| {
            let mut map = ValueMap::default();
            for (k, a) in by_buffer.iter().zip(block_args) {
                // An argument in another layout is made plain first.
                let value = match &operand_layouts[*k] {
                    Some(layout) => {
                        let (shape, _) = shape_of(e.ctx, e.ir.body(body).value_type(operands[*k]))?;
                        from_layout(e, *a, layout, &shape)?
                    }
                    None => *a,
                };
                map.values.insert(operands[*k], value);
            }
            for (_, chain) in &constants {
                for c in chain {
                    clone_op(e.ir, body, *c, body, e.point, &mut map);
                }
            }
            let copy = clone_op(e.ir, body, op, body, e.point, &mut map);
            // The copy states what the call computes; it is placed nowhere.
            clear_placement(ctx, e.ir, body, copy)?;
            let given: Vec<(&str, acc_ir::AttrId)> =
                given.iter().map(|(n, a)| (n.as_str(), *a)).collect();
            acc_dialects::build::set_props(ctx, e.ir, body, copy, &given, &[])?;
            let computed: Vec<ValueId> = e.ir.body(body).results(copy).collect();
            let mut yielded = Vec::new();
            let mut rows = Vec::new();
            for ((v, layout), bound) in computed.iter().zip(&result_layouts).zip(&bounds) {
                yielded.push(match (layout, bound) {
                    (Some(layout), _) => into_layout(e, *v, layout)?,
                    (None, Some(bound)) => {
                        let (padded, n) = into_bound(e, *v, bound)?;
                        rows.push(n);
                        padded
                    }
                    (None, None) => *v,
                });
            }
            for n in rows {
                yielded.push(count_tensor(e, n)?);
            }
            Ok(yielded)
        })?;
        let made = hw::Intrinsic::build(&mut e, &args, &[])
            .callee(callee)
            .inputs(inputs_attr)
            .outputs(outputs_attr)
            .semantics(semantics)
            .create()?;
        acc_dialects::hooks::hw::set_headers(self.ctx, self.ir, self.body, made, &target.headers)?;
        if let (Some(st), Some(staged)) = (&staging, staged) {
            // The call was inserted just before the op.
            let call = self
                .ir
                .body(self.body)
                .prev_op(op)
                .ok_or("the call is missing")?;
            // Each staged result (in call order) with its value and layout.
            let mut by_position: Vec<(i64, usize)> =
                outputs.iter().map(|(k, at)| (*at, *k)).collect();
            by_position.sort_unstable();
            let settled: Vec<(ValueId, Option<BufferLayout>)> = by_position
                .iter()
                .map(|(_, k)| (results[*k], result_layouts[*k].clone()))
                .collect();
            self.settle_staged_results(op, call, next, st, staged, &settled)?;
        }
        // A result of dynamic shape is the leading rows of its bound's buffer: their
        // number is read where the function returns it (the only use such a value
        // has after bufferization), so that work issued in between need not wait.
        for ((k, buffer, _), (_, _, count)) in bounded.iter().zip(&counts) {
            let v = results[*k];
            let b = self.ir.body(self.body);
            let users: Vec<OpId> = b.value_users(v).collect();
            let returned = match users.as_slice() {
                [only]
                    if acc_dialects::ops::func::Return::is(
                        self.ctx,
                        self.ir.op(self.body, *only),
                    ) =>
                {
                    *only
                }
                _ => {
                    return Err(format!(
                        "'{name}' writes a result of dynamic shape that is used other than by the function's return (dynamic shapes have no bufferization elsewhere yet)"
                    ));
                }
            };
            let mut e = self.emitter(returned);
            let zero = e.index(0)?;
            let n = loops::Load::build(&mut e, *count, &[zero], i32_type).result()?;
            let index = e.ctx.index_type();
            let rows = acc_dialects::ops::arith::IndexCast::build(&mut e, n, index).result()?;
            self.bounded.insert(v, (*buffer, vec![(0, rows)]));
        }
        // A result in another layout gets its plain buffer when some user reads it
        // plain: made just before the first such user (so that what runs between,
        // another frame's work, need not wait for it), on the device whose code reads
        // it, if one device's does.
        for (v, layout) in results.iter().zip(&result_layouts) {
            let Some(layout) = layout else {
                continue;
            };
            if self.users_agree(*v, layout) {
                continue;
            }
            let (buffer, _) = self.permuted[v].clone();
            let (shape, _) = shape_of(self.ctx, self.ir.body(self.body).value_type(*v))?;
            let at = self.first_plain_reader(*v, layout, next);
            let created = self.ir.body(self.body).created_ops();
            let plain = self.plain_copy(at, buffer, layout, &shape)?;
            if let Some(device) = self.consuming_device(*v, layout) {
                self.run_on(created, at, &device);
            }
            self.buffers.insert(*v, plain);
        }
        Ok(())
    }
}

/// The properties the region's copy of the placed op gets from the call's arguments
/// that carry its parameters (`Placement::params`): `act_min` and `act_max`, and the
/// others in its `params` dictionary (`acc_dialects::hooks::params`).
fn given_params(
    ctx: &acc_ir::Context,
    placement: &Placement,
) -> Result<Vec<(String, acc_ir::AttrId)>, String> {
    use acc_dialects::hooks::params::{PARAMS_ATTR, ParamValue, params_attr};
    let mut props = Vec::new();
    let mut params = Vec::new();
    for (name, at) in &placement.params {
        let value = match placement.call.get(*at) {
            Some(CallArg::Int(v)) => ParamValue::Int(*v),
            Some(CallArg::I32Table(t)) => ParamValue::I32s(t.clone()),
            Some(CallArg::F32Table(t)) => ParamValue::F32s(t.clone()),
            _ => {
                return Err(format!(
                    "the argument carrying '{name}' is not a number or table"
                ));
            }
        };
        match (name.as_str(), value) {
            ("act_min" | "act_max", ParamValue::Int(v)) => {
                props.push((name.clone(), acc_dialects::build::i64_attr(ctx, v)));
            }
            (_, value) => params.push((name.clone(), value)),
        }
    }
    if !params.is_empty() {
        props.push((PARAMS_ATTR.to_string(), params_attr(ctx, &params)?));
    }
    Ok(props)
}

/// The tensor `v` of dynamic shape in the leading rows of a tensor of shape `bound`
/// (the rows after them zero), and its number of rows: what a call writing `v`
/// into the buffer of its bound computes. Both ops are marked as layout changes,
/// so that a simulator finds the op the call computes under them.
fn into_bound(
    e: &mut acc_dialects::build::Builder<'_>,
    v: ValueId,
    bound: &[i64],
) -> Result<(ValueId, ValueId), String> {
    let element = e
        .ctx
        .type_data(e.type_of(v))
        .element_type()
        .ok_or("a result of dynamic shape without elements")?;
    let zero = e.index(0)?;
    let index = e.ctx.index_type();
    let rows = tensor::Dim::build(e, v, zero, index).result()?;
    mark_layout(e, rows)?;
    let ty = tensor_type(e.ctx, bound, element);
    let n: i64 = bound.iter().product();
    let zeros = vec![acc_ir::elements::Scalar::Int(0); n as usize];
    let dense = acc_ir::elements::dense_attr(e.ctx, ty, &zeros).ok_or("a bound of no elements")?;
    let dest = acc_dialects::ops::arith::Constant::build(e, ty)
        .value(dense)
        .result()?;
    let mut sizes = bound.to_vec();
    sizes[0] = acc_ir::DYNAMIC;
    let (offsets, sizes, strides) = (
        i64s(e.ctx, &vec![0; bound.len()]),
        i64s(e.ctx, &sizes),
        i64s(e.ctx, &vec![1; bound.len()]),
    );
    let padded = tensor::InsertSlice::build(e, v, dest, &[], &[rows], &[], ty)
        .static_offsets(offsets)
        .static_sizes(sizes)
        .static_strides(strides)
        .result()?;
    mark_layout(e, padded)?;
    Ok((padded, rows))
}

/// The number of rows `n` (an index) as the `tensor<1xi32>` a call writes it into.
fn count_tensor(e: &mut acc_dialects::build::Builder<'_>, n: ValueId) -> Result<ValueId, String> {
    let i32_type = e.ctx.int_type(32);
    let count = acc_dialects::ops::arith::IndexCast::build(e, n, i32_type).result()?;
    let ty = tensor_type(e.ctx, &[1], i32_type);
    let dest = tensor::Empty::build(e, &[], ty).result()?;
    let zero = e.index(0)?;
    tensor::Insert::build(e, count, dest, &[zero], ty).result()
}

/// The plain value (of `shape`) of the tensor `v` a buffer holds in `layout`:
/// unblocked (`tensor.unpack`), then transposed back.
fn from_layout(
    e: &mut acc_dialects::build::Builder<'_>,
    v: ValueId,
    layout: &BufferLayout,
    shape: &[i64],
) -> Result<ValueId, String> {
    let unblocked = match layout.block {
        Some((d, size)) => {
            let (_, element) = shape_of(e.ctx, e.type_of(v))?;
            // The transposed value, the blocked dimension whole again.
            let at = layout.inverse()[d] as usize;
            let whole: Vec<i64> = layout.perm.iter().map(|p| shape[*p as usize]).collect();
            let ty = tensor_type(e.ctx, &whole, element);
            let dest = tensor::Empty::build(e, &[], ty).result()?;
            let (positions, tiles) = (i64s(e.ctx, &[at as i64]), i64s(e.ctx, &[size]));
            let out = tensor::Unpack::build(e, v, dest, ty)
                .inner_dims_pos(positions)
                .inner_tiles(tiles)
                .result()?;
            mark_layout(e, out)?;
            out
        }
        None => v,
    };
    transpose(e, unblocked, &layout.inverse())
}

/// The tensor `v` as a buffer holds it in `layout`: transposed, then split into
/// blocks (`tensor.pack`; a partial last block's lanes the stored integer 0).
fn into_layout(
    e: &mut acc_dialects::build::Builder<'_>,
    v: ValueId,
    layout: &BufferLayout,
) -> Result<ValueId, String> {
    let transposed = transpose(e, v, &layout.perm)?;
    let Some((d, size)) = layout.block else {
        return Ok(transposed);
    };
    let (shape, element) = shape_of(e.ctx, e.type_of(transposed))?;
    let at = layout.inverse()[d] as usize;
    let tiled = BufferLayout {
        perm: (0..shape.len() as i64).collect(),
        block: Some((at, size)),
    };
    let stored = tiled.stored_shape(&shape);
    // Quantized values are packed as their stored integers, padded with 0.
    let integers = stored_integers(e.ctx, element);
    let source = match integers {
        Some(int) => {
            let ty = tensor_type(e.ctx, &shape, int);
            let seen = tensor::Bitcast::build(e, transposed, ty).result()?;
            mark_layout(e, seen)?;
            seen
        }
        None => transposed,
    };
    let packed_element = integers.unwrap_or(element);
    let ty = tensor_type(e.ctx, &stored, packed_element);
    let dest = tensor::Empty::build(e, &[], ty).result()?;
    let padding = if shape[at] % size != 0 {
        Some(e.scalar(packed_element, 0.0)?)
    } else {
        None
    };
    let (positions, tiles) = (i64s(e.ctx, &[at as i64]), i64s(e.ctx, &[size]));
    let packed = tensor::Pack::build(e, source, dest, padding, ty)
        .inner_dims_pos(positions)
        .inner_tiles(tiles)
        .result()?;
    mark_layout(e, packed)?;
    if integers.is_none() {
        return Ok(packed);
    }
    let ty = tensor_type(e.ctx, &stored, element);
    let out = tensor::Bitcast::build(e, packed, ty).result()?;
    mark_layout(e, out)?;
    Ok(out)
}

/// `graph.transpose` of the tensor `v` by `perm` (result dimension `i` is `v`'s
/// dimension `perm[i]`); `v` itself for the identity.
fn transpose(
    e: &mut acc_dialects::build::Builder<'_>,
    v: ValueId,
    perm: &[i64],
) -> Result<ValueId, String> {
    if perm.iter().copied().eq(0..perm.len() as i64) {
        return Ok(v);
    }
    let (shape, element) = shape_of(e.ctx, e.type_of(v))?;
    let permuted: Vec<i64> = perm.iter().map(|p| shape[*p as usize]).collect();
    let ty = tensor_type(e.ctx, &permuted, element);
    let perm = i64s(e.ctx, perm);
    let out = graph::Transpose::build(e, v, ty).perm(perm).result()?;
    mark_layout(e, out)?;
    Ok(out)
}

/// Marks the op defining `out` as a layout change, so that a simulator finds the op
/// the call computes under it (following operand 0).
fn mark_layout(e: &mut acc_dialects::build::Builder<'_>, out: ValueId) -> Result<(), String> {
    if let acc_ir::ValueDef::Result(t, _) = e.ir.body(e.body).value(out).def {
        let unit = e.ctx.intern_attr(acc_ir::AttrData::Unit);
        e.ir.body_mut(e.body).op_mut(t).attrs = e
            .ctx
            .dict_attr(vec![(e.ctx.sym(LAYOUT_ATTR), unit)])
            .map_err(|_| "duplicate attributes")?;
    }
    Ok(())
}
