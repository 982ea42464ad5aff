//! # acc-bufferize
//!
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
//! - `extract_slice`, `insert_slice`: a `loop.parallel` moving the slice's elements
//!   (static offsets, sizes and strides);
//! - `generate`: a `loop.parallel` storing the region's value at each index, its
//!   `tensor.extract`s of tensors from above loads of their buffers (those inside
//!   loops of the region too);
//! - `sort`: each element stored at its rank on its line, counted by a `loop.for`;
//! - `non_max_suppression`: loops selecting boxes into its init's buffer and counting
//!   them (`nms`); the slice of its first rows it returns, of dynamic size, is that
//!   buffer (the static bound) and the count: the function gains an `index` result
//!   per dynamic dimension, named by `loop.result_sizes` (see
//!   [`acc_dialects::hooks::func::RESULT_SIZES`]);
//! - `collapse_shape` / `expand_shape`, `bitcast`: `loop.reshape` (no copy);
//! - an op `partition` placed on a device: the call of its intrinsic (`placed`).
//!
//! The crate is split by job:
//!
//! - this file: bufferization proper: the pass, function signatures, the buffer each
//!   tensor gets, and which job each op goes to;
//! - `loop_nests`: loop generation, for every op nothing below computes;
//! - `library`: calls of the host's kernels (the target's `kernel`s), and what a
//!   kernel convolution absorbs from the ops around it;
//! - `accel`: accelerator calls, the layouts intrinsics read, and DMA staging into
//!   local memories.

#![deny(missing_docs)]

use acc_ir::clone::{ValueMap, clone_op};
use acc_ir::rewrite::greedy::{GreedyConfig, apply_greedily};
use acc_ir::{
    AttrId, BodyId, Context, DYNAMIC, DiagLoc, Diagnostic, InsertPoint, Ir, OpId, TypeData, TypeId,
    ValueId,
};
use acc_pass::{Pass, PassInfo, PassOptions, PassTarget};
use acc_target::Targets;
use rustc_hash::{FxHashMap, FxHashSet};

use acc_dialects::build::{Builder, i64s, memref_type, shape_of};
use acc_dialects::ops::{arith, builtin, func, loops, tensor};

mod accel;
mod library;
mod loop_nests;

pub use accel::LAYOUT_ATTR;
use library::Library;

/// The columns of a packed B's panels (`packed-gemm`).
pub const PANEL_COLUMNS: i64 = 48;

/// The pass.
pub struct Bufferize {
    /// The kernels its options name, by interface (`gemm`, ...); its target names
    /// the others.
    named: Vec<(&'static str, String)>,
    /// The target whose host kernels it calls (empty: the compilation's first).
    target: String,
}

/// Its registration.
pub fn info() -> PassInfo {
    PassInfo {
        name: "bufferize",
        title: "Bufferize",
        summary: "Turn tensors into buffers and tensor ops into loop nests (function signatures included)",
        anchor: Some(builtin::Module::NAME),
        options: vec![
            acc_pass::target_option(),
            acc_pass::PassOption {
                name: "gemm",
                description: "a library f32 matrix product (C += A x B, row-major: a, b, c, m, n, k) for matmuls and convolutions, e.g. acc_sgemm; empty: loops",
                kind: acc_pass::OptionKind::String,
                default: "",
            },
            acc_pass::PassOption {
                name: "conv",
                description: "a library f32 convolution (out += conv(x, w), batch 1, NCHW, ungrouped: x, w, out, c, h, w, m, kh, kw, oh, ow, sh, sw, dh, dw, pad top, pad left, clamp lo, clamp hi; zero padding read in place, a following ReLU/Clip applied as it stores; NAME_bias takes a per-channel bias after w and starts from it), e.g. acc_sconv2d; empty: gemm or loops",
                kind: acc_pass::OptionKind::String,
                default: "",
            },
            acc_pass::PassOption {
                name: "blocked",
                description: "a library f32 convolution in blocked layouts (x and out NCHW16c, w OIHW16i16o; arguments as for conv, channel counts in whole blocks, then a gate: code 0 none, 1 x * clamp(x * scale + shift) as HardSwish, 2 x * clamp(sigmoid(x)) as SiLU, then scale and shift), e.g. acc_sconv2d_nchw16c; empty: blocked convolutions are refused",
                kind: acc_pass::OptionKind::String,
                default: "",
            },
            acc_pass::PassOption {
                name: "blocked-depthwise",
                description: "a library f32 depthwise convolution in blocked layouts (x and out NCHW16c, w OIHW16o; arguments as for depthwise, the channel count in whole blocks, then a gate as for blocked), e.g. acc_sdwconv2d_nchw16c; empty: blocked depthwise convolutions are refused",
                kind: acc_pass::OptionKind::String,
                default: "",
            },
            acc_pass::PassOption {
                name: "blocked-grouped",
                description: "a library f32 grouped convolution in blocked layouts, each group whole blocks of input and output channels (w OIHW16i16o over a group's input channels; arguments as for blocked with the groups after the padding), e.g. acc_sgconv2d_nchw16c; empty: such convolutions are refused",
                kind: acc_pass::OptionKind::String,
                default: "",
            },
            acc_pass::PassOption {
                name: "blocked-nchw-input",
                description: "a library f32 convolution from a plain NCHW input into NCHW16c (w OIHW16o; arguments as for blocked), e.g. acc_sconv2d_nchw_nchw16c; empty: such convolutions are refused",
                kind: acc_pass::OptionKind::String,
                default: "",
            },
            acc_pass::PassOption {
                name: "packed-gemm",
                description: "a library f32 matrix product whose B, a constant, is packed at compile time into 48-column panels (layout NK48n: ceil(n/48) panels of k rows of 48 floats, zero-padded; arguments as for gemm; NAME_bias takes a per-column bias after b and starts from it, NAME_bias_act then the clamp bounds and gate of the blocked convolutions), e.g. acc_sgemm_nk48n; empty: gemm",
                kind: acc_pass::OptionKind::String,
                default: "",
            },
            acc_pass::PassOption {
                name: "strided-gemm",
                description: "a library f32 matrix product on strided operands (a, b, c, m, n, k, then a row and a column stride for each of a, b and c, then accumulate: C += A x B, or C = A x B when 0) that reads transposes feeding matmuls in place and overwrites zero inits, e.g. acc_sgemm_strided; empty: transposes are materialized",
                kind: acc_pass::OptionKind::String,
                default: "",
            },
            acc_pass::PassOption {
                name: "blocked-pool",
                description: "a library f32 max or average pool in NCHW16c, batch 1 (x, out, blocks, h, w, oh, ow, kh, kw, sh, sw, dh, dw, pad top, pad left, average, count_include_pad; max as arith.maximumf, an average summed in window order), e.g. acc_spool2d_nchw16c; empty: loops",
                kind: acc_pass::OptionKind::String,
                default: "",
            },
            acc_pass::PassOption {
                name: "exp",
                description: "a library f32 exponential over an array (out[i] = e^x[i]: x, out, n; in place allowed) that finishes maps yielding math.exp, e.g. acc_vexp; empty: loops",
                kind: acc_pass::OptionKind::String,
                default: "",
            },
            acc_pass::PassOption {
                name: "exp-neg",
                description: "a library f32 exponential of the negation over an array (out[i] = e^-x[i]: x, out, n) that computes maps of exactly exp(-x) of an input (a sigmoid's first half) from the input, e.g. acc_vexpneg; empty: exp",
                kind: acc_pass::OptionKind::String,
                default: "",
            },
            acc_pass::PassOption {
                name: "erf",
                description: "a library f32 error function over an array (out[i] = erf(x[i]): x, out, n; in place allowed) that finishes maps yielding math.erf, e.g. acc_verf; empty: loops",
                kind: acc_pass::OptionKind::String,
                default: "",
            },
            acc_pass::PassOption {
                name: "tanh",
                description: "a library f32 hyperbolic tangent over an array (out[i] = tanh(x[i]): x, out, n; in place allowed) that finishes maps yielding math.tanh, e.g. acc_vtanh; empty: loops",
                kind: acc_pass::OptionKind::String,
                default: "",
            },
            acc_pass::PassOption {
                name: "depthwise",
                description: "a library f32 depthwise convolution (out += conv(x, w), groups = channels, batch 1, NCHW: x, w, out, c, h, w, kh, kw, oh, ow, sh, sw, dh, dw, pad top, pad left, clamp lo, clamp hi; NAME_bias as for conv), e.g. acc_sdwconv2d; empty: loops",
                kind: acc_pass::OptionKind::String,
                default: "",
            },
        ],
        create: |o: &PassOptions| {
            let named = |option: &str| Some(o.get(option).to_string()).filter(|s| !s.is_empty());
            let named = acc_target::HOST_INTERFACES
                .iter()
                .filter_map(|(i, _)| Some((*i, named(i)?)))
                .collect();
            Ok(Box::new(Bufferize {
                named,
                target: o.get("target").to_string(),
            }))
        },
    }
}

impl Pass for Bufferize {
    fn run(&self, t: &mut PassTarget<'_>) -> Result<(), Diagnostic> {
        let ctx = t.ctx;
        // Options name kernels explicitly; the target (`acc-opt --target`) gives the
        // others.
        let target = t.targets.select(&self.target);
        if !self.target.is_empty() && target.is_none() {
            return Err(Diagnostic::error(
                DiagLoc::Loc(t.op_ref().loc()),
                t.targets.missing(&self.target, "bufferize"),
            ));
        }
        let library = Library::from_names(&|interface| {
            let named = self.named.iter().find(|(i, _)| *i == interface);
            named
                .map(|(_, n)| n.clone())
                .or_else(|| target?.kernel(interface).map(str::to_string))
        });
        let module_body = t.ir.region_body(t.body, t.op);
        let funcs: Vec<OpId> = {
            let b = t.ir.body(module_body);
            b.top_regions()
                .iter()
                .flat_map(|r| b.region_blocks(*r).collect::<Vec<_>>())
                .flat_map(|bl| b.block_ops(bl).collect::<Vec<_>>())
                .filter(|o| func::Func::is(ctx, t.ir.op(module_body, *o)))
                .collect()
        };
        for f in funcs {
            convert_signature(ctx, t.ir, module_body, f);
            if let Some(inner) = t.ir.body(module_body).nested_body(f) {
                let returned =
                    Bufferizer::new(ctx, t.ir, inner, t.targets, library.clone()).run()?;
                if let Some(r) = returned.filter(|r| !r.sizes.is_empty()) {
                    bound_results(ctx, t.ir, module_body, f, &r);
                }
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
    let Some((inputs, results)) =
        acc_dialects::hooks::func::function_signature(ctx, ir.op(body, f))
    else {
        return;
    };
    let inputs: Vec<TypeId> = inputs.iter().map(|t| buffer_type(ctx, *t)).collect();
    let results: Vec<TypeId> = results.iter().map(|t| buffer_type(ctx, *t)).collect();
    set_function_type(ctx, ir, body, f, &inputs, &results, Vec::new());
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

/// Sets the `function_type` property of function `f` to `(inputs) -> (results)`;
/// `res_attrs`, if any, gains an empty dictionary per result beyond those it had.
/// The function's discardable attributes become `attrs` when some are given.
fn set_function_type(
    ctx: &Context,
    ir: &mut Ir,
    body: BodyId,
    f: OpId,
    inputs: &[TypeId],
    results: &[TypeId],
    attrs: Vec<(acc_ir::Sym, AttrId)>,
) {
    let r = ir.op(body, f);
    let mut props: Vec<_> = r
        .props()
        .map(|p| ctx.dict_entries(p).to_vec())
        .unwrap_or_default();
    let (function_type, res_attrs) = (
        ctx.sym(func::Func::ATTR_FUNCTION_TYPE),
        ctx.sym(func::Func::ATTR_RES_ATTRS),
    );
    for e in props.iter_mut() {
        if e.0 == function_type {
            e.1 = ctx.type_attr(ctx.function_type(inputs, results));
        } else if e.0 == res_attrs
            && let acc_ir::AttrData::Array(items) = ctx.attr_data(e.1)
        {
            let mut items = items.to_vec();
            items.resize(results.len(), ctx.empty_dict());
            e.1 = ctx.intern_attr(acc_ir::AttrData::Array(items.into()));
        }
    }
    let props = ctx.dict_attr(props).ok();
    let attrs = (!attrs.is_empty())
        .then(|| ctx.dict_attr(attrs).ok())
        .flatten();
    let op = ir.body_mut(body).op_mut(f);
    if props.is_some() {
        op.props = props;
    }
    if let Some(a) = attrs {
        op.attrs = a;
    }
}

/// Gives function `f` the result types its return now has and the
/// `loop.result_sizes` triples saying which of them are sizes of which (replacing
/// any it had).
fn bound_results(ctx: &Context, ir: &mut Ir, body: BodyId, f: OpId, returned: &Returned) {
    let r = ir.op(body, f);
    let inputs = acc_dialects::hooks::func::function_signature(ctx, r)
        .map(|s| s.0)
        .unwrap_or_default();
    let key = ctx.sym(acc_dialects::hooks::func::RESULT_SIZES);
    let mut attrs: Vec<_> = ctx.dict_entries(r.attrs()).to_vec();
    attrs.retain(|e| e.0 != key);
    attrs.push((key, i64s(ctx, &returned.sizes)));
    set_function_type(ctx, ir, body, f, &inputs, &returned.types, attrs);
}

/// Bufferizes one function body.
struct Bufferizer<'a> {
    ctx: &'a Context,
    ir: &'a mut Ir,
    body: BodyId,
    /// The compilation's targets: where placed ops find their intrinsics.
    targets: &'a Targets,
    /// Tensor value to the buffer holding it.
    buffers: FxHashMap<ValueId, ValueId>,
    /// Buffers allocated here (which ops may write into).
    writable: FxHashSet<ValueId>,
    /// Zero pads left to the library convolution that reads them: the pad's result
    /// to its source and [top, left] amounts (the result has no buffer).
    absorbed_pads: FxHashMap<ValueId, (ValueId, [i64; 2])>,
    /// Broadcasts only maps read (as inputs): the result to its source and the
    /// broadcast `dimensions`. The result has no buffer; each map loads the source at
    /// its indices without those dimensions, so no buffer of copies is made.
    broadcasts_read_by_maps: FxHashMap<ValueId, (ValueId, Vec<i64>)>,
    /// Clamps (ReLU, ReLU6, Clip) a library convolution applies as it stores: the
    /// `tensor.map` to the convolution's buffer, which becomes the map's.
    absorbed_maps: FxHashMap<OpId, ValueId>,
    /// The `tensor.empty` inits of those maps: never allocated.
    absorbed_empties: FxHashSet<ValueId>,
    /// Per-channel biases broadcast into a library convolution's init, which the
    /// call starts from itself (`NAME_bias`): the broadcast's result to the bias.
    /// The result's buffer is left unwritten.
    absorbed_biases: FxHashMap<ValueId, ValueId>,
    /// Constants used only as the B of matrix products that take them packed
    /// (`packed-gemm`): never bufferized as they are.
    packed_weights: FxHashSet<ValueId>,
    /// Transposes read in place by strided products (`strided-gemm`): the result
    /// to its source and permutation (the result has no buffer).
    absorbed_transposes: FxHashMap<ValueId, (ValueId, Vec<i64>)>,
    /// The products that take the strided call.
    strided_products: FxHashSet<OpId>,
    /// Zero constants only strided products use as their init (which they
    /// overwrite): never bufferized.
    unread_constants: FxHashSet<ValueId>,
    /// Strided products whose result only a transpose reads: the transpose, whose
    /// buffer the product writes through permuted strides.
    transposed_outputs: FxHashMap<OpId, OpId>,
    library: Library,
    /// Values an intrinsic wrote in another layout: the buffer holding the value in
    /// it, and the layout (`buffers` has the plain one only when some user reads it
    /// so).
    permuted: FxHashMap<ValueId, (ValueId, acc_target::BufferLayout)>,
    /// What consecutive calls staging into a local memory share.
    staging: accel::staging::StagingState,
    /// Tensors of dynamic shape the function returns: the leading elements of a
    /// buffer of static shape, with the size of each dynamic dimension.
    bounded: FxHashMap<ValueId, (ValueId, Vec<(usize, ValueId)>)>,
    /// What the function's return gave.
    returned: Option<Returned>,
}

/// The results of a bufferized function's return.
struct Returned {
    /// Their types.
    types: Vec<TypeId>,
    /// Its `loop.result_sizes` triples (none unless a result has a bounded size).
    sizes: Vec<i64>,
}

/// The kind of an op [`Bufferizer::op`] dispatches on, when it is one of a shipped
/// dialect it bufferizes ops of.
#[derive(Clone, Copy)]
enum Kind {
    Func(func::Op),
    Arith(arith::Op),
    Tensor(tensor::Op),
}

/// Whether the top-level op `op` computes data (a loop nest, a copy, a call), not an
/// address or a buffer's lifetime: what runs where the op it was lowered from runs.
pub(crate) fn is_work(ctx: &Context, ir: &Ir, body: BodyId, op: OpId) -> bool {
    let r = ir.op(body, op);
    !(arith::Constant::is(ctx, r)
        || func::Return::is(ctx, r)
        || matches!(
            loops::Op::of(ctx, r),
            Some(
                loops::Op::Alloc
                    | loops::Op::Dealloc
                    | loops::Op::Constant
                    | loops::Op::Reshape
                    | loops::Op::Subview
            )
        ))
}

fn err(loc: AttrId, m: impl Into<String>) -> Diagnostic {
    Diagnostic::error(DiagLoc::Loc(loc), m.into())
}

impl<'a> Bufferizer<'a> {
    fn new(
        ctx: &'a Context,
        ir: &'a mut Ir,
        body: BodyId,
        targets: &'a Targets,
        library: Library,
    ) -> Self {
        Bufferizer {
            ctx,
            ir,
            body,
            targets,
            buffers: FxHashMap::default(),
            writable: FxHashSet::default(),
            absorbed_pads: FxHashMap::default(),
            broadcasts_read_by_maps: FxHashMap::default(),
            absorbed_maps: FxHashMap::default(),
            absorbed_empties: FxHashSet::default(),
            absorbed_biases: FxHashMap::default(),
            packed_weights: FxHashSet::default(),
            absorbed_transposes: FxHashMap::default(),
            strided_products: FxHashSet::default(),
            unread_constants: FxHashSet::default(),
            transposed_outputs: FxHashMap::default(),
            library,
            permuted: FxHashMap::default(),
            staging: accel::staging::StagingState::default(),
            bounded: FxHashMap::default(),
            returned: None,
        }
    }

    /// Bufferizes the body; what its return gives (if it has one).
    fn run(mut self) -> Result<Option<Returned>, Diagnostic> {
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
        let ops: Vec<OpId> = blocks
            .iter()
            .flat_map(|bl| self.ir.body(self.body).block_ops(*bl))
            .collect();
        self.plan_strided_products(&ops);
        let mut done = Vec::new();
        for op in ops {
            let created = self.ir.body(self.body).created_ops();
            let device = acc_target::placement::code_device(self.ctx, self.ir, self.body, op);
            if self.op(op)? {
                done.push(op);
            }
            // An op a programmable device runs: so do its loop nests.
            if let Some(device) = device {
                acc_target::placement::mark_lowered(
                    self.ctx, self.ir, self.body, created, op, &device, is_work,
                );
            }
        }
        for op in done.into_iter().rev() {
            self.ir.erase_op(self.body, op);
        }
        // Buffers nothing reads any more (a weight an intrinsic receives packed).
        let regions = self.ir.body(self.body).top_regions().to_vec();
        let dce = GreedyConfig::dead_code_only();
        apply_greedily(self.ctx, self.ir, self.body, &regions, &[], &dce);
        // Allocations nothing uses (a result that stayed in an accelerator's memory):
        // allocating is their only effect.
        let unused: Vec<OpId> = blocks
            .iter()
            .flat_map(|bl| self.ir.body(self.body).block_ops(*bl))
            .filter(|o| {
                let b = self.ir.body(self.body);
                loops::Alloc::is(self.ctx, self.ir.op(self.body, *o))
                    && b.results(*o).all(|r| !b.has_uses(r))
            })
            .collect();
        for o in unused {
            self.ir.erase_op(self.body, o);
        }
        Ok(self.returned)
    }

    fn emitter(&mut self, op: OpId) -> Builder<'_> {
        let loc = self.ir.op(self.body, op).loc();
        Builder::new(
            self.ctx,
            &mut *self.ir,
            self.body,
            InsertPoint::Before(op),
            loc,
        )
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
        if !self.is_placed(op) && !accel::staging::keeps_staged(&name) {
            self.staging.reset();
        }
        let tensor_in_or_out = operands.iter().chain(&results).any(|v| self.is_tensor(*v));
        if !tensor_in_or_out {
            return Ok(false);
        }
        let fail = |m: String| err(loc, format!("cannot bufferize '{name}': {m}"));
        if self.is_placed(op) {
            self.placed(op).map_err(fail)?;
            return Ok(true);
        }
        if self.is_external_region(op) {
            self.external_region(op).map_err(fail)?;
            return Ok(true);
        }
        if self.permuted_bitcast(op).map_err(fail)? || self.generate_for_layout(op).map_err(fail)? {
            return Ok(true);
        }
        let r = self.ir.op(self.body, op);
        let kind = func::Op::of(self.ctx, r)
            .map(Kind::Func)
            .or_else(|| arith::Op::of(self.ctx, r).map(Kind::Arith))
            .or_else(|| tensor::Op::of(self.ctx, r).map(Kind::Tensor));
        let out = match kind {
            Some(Kind::Func(func::Op::Return)) => {
                let vals = self.returned_values(loc, &operands)?;
                let mut e = self.emitter(op);
                func::Return::build(&mut e, &vals).create().map_err(fail)?;
                return Ok(true);
            }
            Some(Kind::Arith(arith::Op::Constant))
                if self.unread_constants.contains(&results[0]) =>
            {
                return Ok(true);
            }
            Some(Kind::Arith(arith::Op::Constant)) if self.packable_weight(results[0]) => {
                self.packed_weights.insert(results[0]);
                return Ok(true);
            }
            Some(Kind::Arith(arith::Op::Constant)) => {
                let value = r
                    .attr(self.ctx, arith::Constant::ATTR_VALUE)
                    .ok_or_else(|| fail("no value".into()))?;
                let ty = buffer_type(self.ctx, self.ir.body(self.body).value_type(results[0]));
                let mut e = self.emitter(op);
                loops::Constant::build(&mut e, ty)
                    .value(value)
                    .result()
                    .map_err(fail)?
            }
            Some(Kind::Tensor(tensor::Op::Empty))
                if self.absorbed_empties.contains(&results[0]) =>
            {
                return Ok(true);
            }
            Some(Kind::Tensor(tensor::Op::Empty)) => {
                let ty = buffer_type(self.ctx, self.ir.body(self.body).value_type(results[0]));
                let v = loops::Alloc::build(&mut self.emitter(op), &[], ty)
                    .result()
                    .map_err(fail)?;
                self.writable.insert(v);
                v
            }
            // A bitcast is the same buffer seen with the stored integers' type.
            Some(Kind::Tensor(
                tensor::Op::CollapseShape | tensor::Op::ExpandShape | tensor::Op::Bitcast,
            )) => {
                let src = self.buffer(loc, operands[0])?;
                let ty = buffer_type(self.ctx, self.ir.body(self.body).value_type(results[0]));
                let v = loops::Reshape::build(&mut self.emitter(op), src, ty)
                    .result()
                    .map_err(fail)?;
                // The reshaped buffer may be written into only when nothing else reads
                // the tensor it reshapes (the two share the buffer).
                let sole_use = self.ir.body(self.body).value_users(operands[0]).count() == 1;
                if self.writable.contains(&src) && sole_use {
                    self.writable.insert(v);
                }
                v
            }
            Some(Kind::Tensor(tensor::Op::Map)) => match self.absorbed_maps.get(&op) {
                Some(&buffer) => buffer,
                None => self.map(op).map_err(fail)?,
            },
            Some(Kind::Tensor(tensor::Op::Broadcast)) => match self.absorbable_bias(op) {
                Some(bias) => {
                    // The init's buffer (or a new one), left as it is.
                    self.absorbed_biases.insert(results[0], bias);
                    self.destination(op, operands[1], false).map_err(fail)?
                }
                None if self.only_maps_read(results[0]) => {
                    let dims = self.ints(op, tensor::Broadcast::ATTR_DIMENSIONS);
                    self.broadcasts_read_by_maps
                        .insert(results[0], (operands[0], dims));
                    return Ok(true);
                }
                None => self.broadcast(op).map_err(fail)?,
            },
            Some(Kind::Tensor(tensor::Op::Transpose))
                if self.absorbed_transposes.contains_key(&results[0]) =>
            {
                return Ok(true);
            }
            // Written by the product it transposes (its buffer is already known).
            Some(Kind::Tensor(tensor::Op::Transpose)) if self.buffers.contains_key(&results[0]) => {
                return Ok(true);
            }
            Some(Kind::Tensor(tensor::Op::Transpose)) => self.transpose(op).map_err(fail)?,
            Some(Kind::Tensor(tensor::Op::Pack)) => self.pack(op).map_err(fail)?,
            Some(Kind::Tensor(tensor::Op::Unpack)) => self.unpack(op).map_err(fail)?,
            Some(Kind::Tensor(tensor::Op::Matmul | tensor::Op::BatchMatmul))
                if self.strided_products.contains(&op) =>
            {
                self.strided_matmul(op).map_err(fail)?
            }
            Some(Kind::Tensor(tensor::Op::Matmul | tensor::Op::BatchMatmul)) => {
                self.matmul(op).map_err(fail)?
            }
            Some(Kind::Tensor(tensor::Op::Conv2d)) => self.conv2d(op).map_err(fail)?,
            Some(Kind::Tensor(tensor::Op::Pool)) => self.pool(op).map_err(fail)?,
            Some(Kind::Tensor(tensor::Op::Reduce)) => self.reduce(op).map_err(fail)?,
            Some(Kind::Tensor(tensor::Op::ExtractSlice)) if self.is_dynamic(results[0]) => {
                self.bounded_slice(op).map_err(fail)?;
                return Ok(true);
            }
            Some(Kind::Tensor(tensor::Op::ExtractSlice)) => self.extract_slice(op).map_err(fail)?,
            Some(Kind::Tensor(tensor::Op::InsertSlice)) => self.insert_slice(op).map_err(fail)?,
            Some(Kind::Tensor(tensor::Op::Generate)) => self.generate(op).map_err(fail)?,
            Some(Kind::Tensor(tensor::Op::NonMaxSuppression)) => {
                let [selected, count] = self.non_max_suppression(op).map_err(fail)?;
                self.buffers.insert(results[0], selected);
                self.ir
                    .body_mut(self.body)
                    .replace_all_uses(results[1], count);
                return Ok(true);
            }
            Some(Kind::Tensor(tensor::Op::Sort)) => {
                let [values, indices] = self.sort(op).map_err(fail)?;
                self.buffers.insert(results[0], values);
                self.buffers.insert(results[1], indices);
                return Ok(true);
            }
            Some(Kind::Tensor(tensor::Op::Pad)) => {
                if let Some(absorbed) = self.absorbable_pad(op) {
                    self.absorbed_pads.insert(results[0], absorbed);
                    return Ok(true);
                }
                self.pad(op).map_err(fail)?
            }
            _ if name.starts_with("graph.") => {
                return Err(fail(
                    "it is a graph op: run graph-to-tensor before bufferize (or the whole \
                     lowering: --pipeline host-pipeline)"
                        .into(),
                ));
            }
            _ => {
                return Err(fail(
                    "bufferize has no rule for it: it takes the tensor dialect's ops, func, \
                     arith and the ops of a target's placed regions"
                        .into(),
                ));
            }
        };
        self.buffers.insert(results[0], out);
        Ok(true)
    }

    /// The values a `func.return` of `operands` returns: buffers for tensors, a
    /// bounded tensor's buffer and (after every result) its sizes. Records the
    /// result types and their `loop.result_sizes` triples.
    fn returned_values(
        &mut self,
        loc: AttrId,
        operands: &[ValueId],
    ) -> Result<Vec<ValueId>, Diagnostic> {
        let mut vals = Vec::new();
        let mut sizes = Vec::new();
        for v in operands {
            if let Some((buffer, dims)) = self.bounded.get(v) {
                for (d, size) in dims {
                    sizes.push((vals.len(), *d, *size));
                }
                vals.push(*buffer);
            } else if self.is_tensor(*v) {
                vals.push(self.buffer(loc, *v)?);
            } else {
                vals.push(*v);
            }
        }
        let mut triples = Vec::new();
        for (r, d, size) in sizes {
            triples.extend([r as i64, d as i64, vals.len() as i64]);
            vals.push(size);
        }
        let types: Vec<TypeId> = vals
            .iter()
            .map(|v| self.ir.body(self.body).value_type(*v))
            .collect();
        let returned = Returned {
            types,
            sizes: triples,
        };
        let conflicting = |earlier: &Returned| {
            earlier.sizes != returned.sizes
                || (!returned.sizes.is_empty() && earlier.types != returned.types)
        };
        match &self.returned {
            Some(earlier) if conflicting(earlier) => {
                return Err(err(
                    loc,
                    format!(
                        "cannot bufferize '{}': its results have other bounds than another return's",
                        func::Return::NAME
                    ),
                ));
            }
            _ => self.returned = Some(returned),
        }
        Ok(vals)
    }

    /// Whether `v` has a shaped type with a dynamic dimension.
    fn is_dynamic(&self, v: ValueId) -> bool {
        let t = self.ir.body(self.body).value_type(v);
        let shape = self.ctx.type_data(t).shape();
        shape.is_some_and(|s| s.contains(&DYNAMIC))
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
        let fresh = loops::Alloc::build(&mut e, &[], ty).result()?;
        if keep {
            loops::Copy::build(&mut e, buf, fresh).create()?;
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
        Self::inline_skipping(ir, body, op, index, args, at, None)
    }

    /// As [`Self::inline`], with op `skip` of the region (one operand, one result)
    /// left out: its result stands for its operand.
    fn inline_skipping(
        ir: &mut Ir,
        body: BodyId,
        op: OpId,
        index: usize,
        args: &[ValueId],
        at: InsertPoint,
        skip: Option<OpId>,
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
            if Some(*o) == skip {
                let x = ir.body(body).operand(*o, 0);
                let y = ir
                    .body(body)
                    .results(*o)
                    .next()
                    .ok_or("a skipped op without a result")?;
                let x = map.values.get(&x).copied().unwrap_or(x);
                map.values.insert(y, x);
                continue;
            }
            clone_op(ir, body, *o, body, at, &mut map);
        }
        Ok(ir
            .body(body)
            .operands(*last)
            .map(|v| map.values.get(&v).copied().unwrap_or(v))
            .collect())
    }

    fn all_f32(&self, values: &[ValueId]) -> bool {
        let f32t = self.ctx.float_type(acc_ir::FloatKind::F32);
        values.iter().all(|v| self.element(*v) == f32t)
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
