//! The semantics of ops, by rule name: the name an op's dialect definition gives with
//! `interpret NAME`. A rule computes the results from the operand values and the op's
//! attributes; the interpreter checks their number and types.

mod arith;
mod gather;
mod graph;
mod indexing;
mod loops;
mod nn;
mod quant;
mod resample;
mod shape;
mod structured;
mod tensors;

use acc_dialects::ops;
use acc_dialects::semantics::Rule;
use acc_ir::{Context, OpRef};

use crate::value::Tensor;

/// What a rule sees.
pub struct RuleInput<'a> {
    /// The context.
    pub ctx: &'a Context,
    /// The op (attributes, result types).
    pub op: OpRef<'a>,
    /// The op's name without its dialect (`addi`), for rules shared by several ops.
    pub name: &'a str,
    /// The operand values, in order.
    pub operands: &'a [Tensor],
    /// Runs the op's region `i` with the given block arguments and gives the values
    /// its yield returns (values defined above the op are visible inside).
    pub regions: &'a dyn Fn(usize, Vec<Tensor>) -> Result<Vec<Tensor>, String>,
    /// How many more ops the interpreter's limit lets run: a loop whose trip count
    /// alone goes past it is refused before its first iteration.
    pub steps_left: u64,
}

impl RuleInput<'_> {
    /// Refuses a loop of `trips` iterations when, at one op per iteration for each op
    /// directly in the body of region 0 (a lower bound of what it runs), it would go
    /// past the interpreter's limit.
    pub fn check_trips(&self, trips: u128) -> Result<(), String> {
        let per_trip = least_ops(self.ctx, self.op, 0).max(1);
        let needed = trips.saturating_mul(per_trip);
        if needed > self.steps_left as u128 {
            return Err(format!(
                "runs {trips} iterations of at least {per_trip} ops: more than the {} ops \
                 left under the interpreter's limit",
                self.steps_left
            ));
        }
        Ok(())
    }

    /// Operand `i`, or an error naming it.
    pub fn operand(&self, i: usize) -> Result<&Tensor, String> {
        self.operands
            .get(i)
            .ok_or_else(|| format!("expects operand #{i}"))
    }

    /// The type of result `i`.
    pub fn result_type(&self, i: usize) -> Result<acc_ir::TypeId, String> {
        self.op
            .result_types()
            .get(i)
            .copied()
            .ok_or_else(|| format!("expects result #{i}"))
    }
}

// Rules shared by several ops tell them apart by kind, so that renaming a shipped op
// fails the build where its semantics is. An op of another dialect (one loaded at run
// time) naming such a rule runs as the shipped op of the same short name: `vendor.relu`
// with `interpret unary` is a relu. A name no kind has gives the rule's own error.

/// The `arith` kind whose name without its dialect is `name`, if one is.
pub(super) fn arith_kind(name: &str) -> Option<ops::arith::Op> {
    ops::arith::Op::ALL
        .iter()
        .copied()
        .find(|k| k.short_name() == name)
}

/// The `math` kind whose name without its dialect is `name`, if one is.
pub(super) fn math_kind(name: &str) -> Option<ops::math::Op> {
    ops::math::Op::ALL
        .iter()
        .copied()
        .find(|k| k.short_name() == name)
}

/// The `graph` kind whose name without its dialect is `name`, if one is.
pub(super) fn graph_kind(name: &str) -> Option<ops::graph::Op> {
    ops::graph::Op::ALL
        .iter()
        .copied()
        .find(|k| k.short_name() == name)
}

/// These rules are the `graph` ops' semantics (the `tensor` ops have rules of their own,
/// `tensor_matmul` and so on): another dialect's op naming one is refused rather than
/// run with semantics it may not have.
pub(super) fn graph_only(r: &RuleInput<'_>) -> Result<(), String> {
    if ops::graph::Op::of(r.ctx, r.op).is_some() {
        Ok(())
    } else {
        let name = r.ctx.op_name_str(r.op.name());
        Err(format!("no semantics for '{name}' yet"))
    }
}

/// Whether rule `rule` may receive operand `i` (of `n`) with unspecified elements: the
/// destinations it writes into, and the ops that move elements without reading them.
pub fn accepts_unspecified(rule: Rule, i: usize, n: usize) -> bool {
    match rule {
        Rule::ExtractSlice | Rule::Extract | Rule::TensorDim => i == 0,
        Rule::Insert
        | Rule::InsertSlice
        | Rule::TensorTranspose
        | Rule::Broadcast
        | Rule::Pack
        | Rule::Unpack => i == 1,
        Rule::Map | Rule::TensorPool => i + 1 == n,
        Rule::TensorSort => i >= 1,
        Rule::TensorNms => i == 2,
        _ => false,
    }
}

/// A rule: the results, or why they cannot be computed.
pub type RuleFn = fn(&RuleInput<'_>) -> Result<Vec<Tensor>, String>;

/// The implementation of `rule` (`None` for [`Rule::Intrinsic`], which the machine
/// runs itself). The match is exhaustive: a rule of the vocabulary without an
/// implementation does not compile.
pub fn rule(rule: Rule) -> Option<RuleFn> {
    match rule {
        Rule::Constant => Some(arith::constant),
        Rule::IntBinary => Some(arith::int_binary),
        Rule::FloatBinary => Some(arith::float_binary),
        Rule::FloatUnary => Some(arith::float_unary),
        Rule::MathUnary => Some(arith::math_unary),
        Rule::MathBinary => Some(arith::math_binary),
        Rule::Cmpi => Some(arith::cmpi),
        Rule::Cmpf => Some(arith::cmpf),
        Rule::Select => Some(arith::select),
        Rule::Cast => Some(arith::cast),
        Rule::Unary => Some(graph::unary),
        Rule::Binary => Some(graph::binary),
        Rule::Where => Some(graph::select_where),
        Rule::Gather => Some(gather::gather),
        Rule::GatherElements => Some(gather::gather_elements),
        Rule::GatherNd => Some(gather::gather_nd),
        Rule::ArgReduce => Some(gather::arg_reduce),
        Rule::Cumsum => Some(gather::cumsum),
        Rule::Reshape => Some(graph::reshape),
        Rule::Transpose => Some(graph::transpose),
        Rule::Conv2d => Some(nn::conv2d),
        Rule::Matmul => Some(nn::matmul),
        Rule::Gemm => Some(nn::gemm),
        Rule::BatchNorm => Some(nn::batch_norm),
        Rule::Softmax => Some(nn::softmax),
        Rule::Concat => Some(nn::concat),
        Rule::MaxPool => Some(nn::max_pool),
        Rule::AvgPool => Some(nn::avg_pool),
        Rule::GlobalMaxPool => Some(nn::global_max_pool),
        Rule::GlobalAvgPool => Some(nn::global_avg_pool),
        Rule::Reduce => Some(shape::reduce),
        Rule::Slice => Some(shape::slice),
        Rule::Pad => Some(shape::pad),
        Rule::LayerNorm => Some(shape::layer_norm),
        Rule::Topk => Some(shape::topk_or_sort),
        Rule::Sort => Some(shape::topk_or_sort),
        Rule::TensorSort => Some(shape::tensor_sort),
        Rule::Quantize => Some(quant::quantize),
        Rule::Dequantize => Some(quant::dequantize),
        Rule::StorageCast => Some(quant::storage_cast),
        Rule::Qconv2d => Some(quant::qconv2d),
        Rule::Qmatmul => Some(quant::qmatmul),
        Rule::Lookup => Some(quant::lookup),
        Rule::Qadd => Some(quant::qadd),
        Rule::Qmul => Some(quant::qmul),
        Rule::Requantize => Some(quant::requantize_op),
        Rule::QavgPool => Some(quant::qavg_pool),
        Rule::Rescale => Some(quant::rescale),
        Rule::Resize => Some(resample::resize),
        Rule::Nms => Some(resample::non_max_suppression),
        Rule::TensorNms => Some(resample::tensor_non_max_suppression),
        Rule::Alloc => Some(loops::alloc),
        Rule::BufferConstant => Some(loops::buffer_constant),
        Rule::BufferReshape => Some(loops::buffer_reshape),
        Rule::Dealloc => Some(loops::dealloc),
        Rule::Subview => Some(loops::subview),
        Rule::Copy => Some(loops::copy),
        Rule::DmaStart => Some(loops::dma_start),
        Rule::Wait => Some(loops::wait),
        Rule::Load => Some(loops::load),
        Rule::Store => Some(loops::store),
        Rule::For => Some(loops::for_loop),
        Rule::Parallel => Some(loops::parallel),
        Rule::Vload => Some(loops::vload),
        Rule::Vstore => Some(loops::vstore),
        Rule::Fma => Some(loops::fma),
        Rule::Splat => Some(loops::splat),
        Rule::Vreduce => Some(loops::vreduce),
        Rule::Empty => Some(tensors::empty),
        Rule::ExtractSlice => Some(tensors::extract_slice),
        Rule::InsertSlice => Some(tensors::insert_slice),
        Rule::TensorDim => Some(tensors::dim),
        Rule::Extract => Some(tensors::extract),
        Rule::Insert => Some(tensors::insert),
        Rule::TensorPad => Some(tensors::pad),
        Rule::Generate => Some(tensors::generate),
        Rule::TensorBitcast => Some(tensors::bitcast),
        Rule::TensorMatmul => Some(structured::matmul),
        Rule::TensorConv2d => Some(structured::conv2d),
        Rule::TensorPool => Some(structured::pool),
        Rule::Map => Some(structured::map),
        Rule::TensorReduce => Some(structured::reduce),
        Rule::Broadcast => Some(structured::broadcast),
        Rule::TensorTranspose => Some(structured::transpose),
        Rule::Pack => Some(tensors::pack),
        Rule::Unpack => Some(tensors::unpack),
        Rule::IntExtended => Some(arith::int_extended),
        // The machine runs an intrinsic: its semantics region, or the kernel its
        // callee names ([`kernel`]).
        Rule::Intrinsic => None,
    }
}

/// The host library's kernels, by C symbol: what `hw.intrinsic "SYMBOL"` without a
/// semantics region computes (`lowering/runtime` implements them natively).
const KERNELS: &[(&str, RuleFn)] = &[
    ("acc_sgemm", loops::sgemm),
    ("acc_sgemm_nk48n", loops::sgemm_nk48n),
    ("acc_sgemm_nk48n_bias", loops::sgemm_nk48n_bias),
    ("acc_sgemm_nk48n_bias_act", loops::sgemm_nk48n_bias_act),
    ("acc_sgemm_strided", loops::sgemm_strided),
    ("acc_vexp", loops::vexp),
    ("acc_vexpneg", loops::vexpneg),
    ("acc_verf", loops::verf),
    ("acc_vtanh", loops::vtanh),
    ("acc_sconv2d", loops::sconv2d),
    ("acc_sdwconv2d", loops::sdwconv2d),
    ("acc_sconv2d_bias", loops::sconv2d_bias),
    ("acc_sdwconv2d_bias", loops::sdwconv2d_bias),
    ("acc_sconv2d_nchw16c", loops::sconv2d_nchw16c),
    ("acc_sconv2d_nchw16c_bias", loops::sconv2d_nchw16c_bias),
    ("acc_sgconv2d_nchw16c", loops::sgconv2d_nchw16c),
    ("acc_sgconv2d_nchw16c_bias", loops::sgconv2d_nchw16c_bias),
    ("acc_sconv2d_nchw_nchw16c", loops::sconv2d_nchw_nchw16c),
    (
        "acc_sconv2d_nchw_nchw16c_bias",
        loops::sconv2d_nchw_nchw16c_bias,
    ),
    ("acc_sdwconv2d_nchw16c", loops::sdwconv2d_nchw16c),
    ("acc_sdwconv2d_nchw16c_bias", loops::sdwconv2d_nchw16c_bias),
    ("acc_spool2d_nchw16c", loops::spool2d_nchw16c),
];

/// The kernel whose C symbol is `symbol`.
pub fn kernel(symbol: &str) -> Option<RuleFn> {
    KERNELS.iter().find(|(n, _)| *n == symbol).map(|(_, r)| *r)
}

/// How deep [`least_ops`] looks into nested loops: deeper than the parser lets a file
/// nest (200 levels), so a nest of 50 loops of 2 iterations is refused as 2^50 at once
/// instead of running into the op limit.
const LEAST_OPS_DEPTH: u32 = 256;

/// The fewest ops one run of region 0 of `op` executes: each op of its entry block
/// once, and for a nested `loop.for` or `loop.parallel` whose bounds and steps are
/// constants, its trip count times the fewest of its own body (down to
/// [`LEAST_OPS_DEPTH`] levels): a walk of the nest each time a loop starts.
fn least_ops(ctx: &acc_ir::Context, op: acc_ir::OpRef<'_>, depth: u32) -> u128 {
    use acc_dialects::hooks::loops::constant_operand;
    use acc_dialects::ops::loops;
    let body = op.region_body();
    let b = op.ir.body(body);
    let Some(block) = op
        .regions()
        .first()
        .and_then(|&r| b.region_blocks(r).next())
    else {
        return 0;
    };
    let mut total: u128 = 0;
    for inner in b.block_ops(block) {
        let inner = op.ir.op(body, inner);
        let dims = if loops::For::is(ctx, inner) {
            1
        } else if loops::Parallel::is(ctx, inner) {
            inner.operands().len() / 3
        } else {
            0
        };
        let mut trips: Option<u128> = (dims > 0 && depth < LEAST_OPS_DEPTH).then_some(1);
        for d in 0..dims {
            let bound = |k: usize| constant_operand(inner, ctx, k * dims + d);
            trips = match (trips, bound(0), bound(1), bound(2)) {
                (Some(n), Some(lb), Some(ub), Some(step)) if step > 0 => {
                    let t = if ub > lb {
                        ((ub - lb + step - 1) / step) as u128
                    } else {
                        0
                    };
                    Some(n.saturating_mul(t))
                }
                _ => None,
            };
        }
        let nested = trips.map_or(0, |t| t.saturating_mul(least_ops(ctx, inner, depth + 1)));
        total = total.saturating_add(1).saturating_add(nested);
    }
    total
}
