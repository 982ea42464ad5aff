//! The semantics of ops, by rule name: the name an op's dialect definition gives with
//! `interpret NAME`. A rule computes the results from the operand values and the op's
//! attributes; the interpreter checks their number and types.

mod arith;
mod graph;
mod indexing;
mod loops;
mod nn;
mod quant;
mod resample;
mod shape;
mod structured;
mod tensors;

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
}

impl RuleInput<'_> {
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

/// These rules are the `graph` ops' semantics (the `tensor` ops have rules of their own,
/// `tensor_matmul` and so on): another dialect's op naming one is refused rather than
/// run with semantics it may not have.
pub(super) fn graph_only(r: &RuleInput<'_>) -> Result<(), String> {
    if acc_dialects::ops::graph::Op::of(r.ctx, r.op).is_some() {
        Ok(())
    } else {
        let name = r.ctx.op_name_str(r.op.name());
        Err(format!("no semantics for '{name}' yet"))
    }
}

/// Whether rule `rule` may receive operand `i` (of `n`) with unspecified elements: the
/// destinations it writes into, and the ops that move elements without reading them.
pub fn accepts_unspecified(rule: &str, i: usize, n: usize) -> bool {
    match rule {
        "extract_slice" | "extract" => i == 0,
        "insert" | "insert_slice" | "tensor_transpose" | "broadcast" | "pack" | "unpack" => i == 1,
        "map" | "tensor_pool" => i + 1 == n,
        "tensor_sort" => i >= 1,
        "tensor_nms" => i == 2,
        _ => false,
    }
}

/// A rule: the results, or why they cannot be computed.
pub type Rule = fn(&RuleInput<'_>) -> Result<Vec<Tensor>, String>;

/// The rules acc provides, by name.
const RULES: &[(&str, Rule)] = &[
    ("constant", arith::constant),
    ("int_binary", arith::int_binary),
    ("float_binary", arith::float_binary),
    ("float_unary", arith::float_unary),
    ("math_unary", arith::math_unary),
    ("math_binary", arith::math_binary),
    ("cmpi", arith::cmpi),
    ("cmpf", arith::cmpf),
    ("select", arith::select),
    ("cast", arith::cast),
    ("unary", graph::unary),
    ("binary", graph::binary),
    ("reshape", graph::reshape),
    ("transpose", graph::transpose),
    ("conv2d", nn::conv2d),
    ("matmul", nn::matmul),
    ("gemm", nn::gemm),
    ("batch_norm", nn::batch_norm),
    ("softmax", nn::softmax),
    ("concat", nn::concat),
    ("max_pool", nn::max_pool),
    ("avg_pool", nn::avg_pool),
    ("global_max_pool", nn::global_max_pool),
    ("global_avg_pool", nn::global_avg_pool),
    ("reduce", shape::reduce),
    ("slice", shape::slice),
    ("pad", shape::pad),
    ("layer_norm", shape::layer_norm),
    ("topk", shape::topk_or_sort),
    ("sort", shape::topk_or_sort),
    ("tensor_sort", shape::tensor_sort),
    ("quantize", quant::quantize),
    ("dequantize", quant::dequantize),
    ("storage_cast", quant::storage_cast),
    ("qconv2d", quant::qconv2d),
    ("qmatmul", quant::qmatmul),
    ("lookup", quant::lookup),
    ("resize", resample::resize),
    ("nms", resample::non_max_suppression),
    ("tensor_nms", resample::tensor_non_max_suppression),
    ("alloc", loops::alloc),
    ("buffer_constant", loops::buffer_constant),
    ("buffer_reshape", loops::buffer_reshape),
    ("dealloc", loops::dealloc),
    ("subview", loops::subview),
    ("copy", loops::copy),
    ("dma_start", loops::dma_start),
    ("wait", loops::wait),
    ("load", loops::load),
    ("store", loops::store),
    ("for", loops::for_loop),
    ("parallel", loops::parallel),
    ("vload", loops::vload),
    ("vstore", loops::vstore),
    ("fma", loops::fma),
    ("splat", loops::splat),
    ("vreduce", loops::vreduce),
    ("acc_sgemm", loops::sgemm),
    ("acc_sgemm_nk48n", loops::sgemm_nk48n),
    ("acc_sgemm_nk48n_bias", loops::sgemm_nk48n_bias),
    ("acc_sgemm_strided", loops::sgemm_strided),
    ("acc_vexp", loops::vexp),
    ("acc_verf", loops::verf),
    ("acc_sconv2d", loops::sconv2d),
    ("acc_sdwconv2d", loops::sdwconv2d),
    ("acc_sconv2d_bias", loops::sconv2d_bias),
    ("acc_sdwconv2d_bias", loops::sdwconv2d_bias),
    ("acc_sconv2d_nchw16c", loops::sconv2d_nchw16c),
    ("acc_sconv2d_nchw16c_bias", loops::sconv2d_nchw16c_bias),
    ("acc_sconv2d_nchw_nchw16c", loops::sconv2d_nchw_nchw16c),
    (
        "acc_sconv2d_nchw_nchw16c_bias",
        loops::sconv2d_nchw_nchw16c_bias,
    ),
    ("acc_sdwconv2d_nchw16c", loops::sdwconv2d_nchw16c),
    ("acc_sdwconv2d_nchw16c_bias", loops::sdwconv2d_nchw16c_bias),
    ("empty", tensors::empty),
    ("extract_slice", tensors::extract_slice),
    ("insert_slice", tensors::insert_slice),
    ("extract", tensors::extract),
    ("insert", tensors::insert),
    ("tensor_pad", tensors::pad),
    ("generate", tensors::generate),
    ("tensor_bitcast", tensors::bitcast),
    ("tensor_matmul", structured::matmul),
    ("tensor_conv2d", structured::conv2d),
    ("tensor_pool", structured::pool),
    ("map", structured::map),
    ("tensor_reduce", structured::reduce),
    ("broadcast", structured::broadcast),
    ("tensor_transpose", structured::transpose),
    ("pack", tensors::pack),
    ("unpack", tensors::unpack),
];

/// The rule named `name`.
pub fn rule(name: &str) -> Option<Rule> {
    RULES.iter().find(|(n, _)| *n == name).map(|(_, r)| *r)
}

/// The names of every rule, for messages and docs.
pub fn names() -> impl Iterator<Item = &'static str> {
    RULES.iter().map(|(n, _)| *n)
}
