//! The interpreter rules a definition may name with `interpret NAME`: the vocabulary
//! of semantics acc's reference interpreter (`acc-interp`) implements.
//!
//! The loader resolves every `interpret` name of a dialect file against [`Rule`] (or
//! the names a tool declared with [`acc_ir::Context::declare_interpreter_rule`]
//! before loading, for rules it adds to its interpreter), and refuses the file with a
//! diagnostic at an unknown name. The interpreter implements [`Rule`] by an exhaustive
//! `match`, so a rule named here without an implementation, or the reverse, fails the
//! build.

/// Declares [`Rule`]: its variants and the name a definition writes for each.
macro_rules! rules {
    ($($(#[$doc:meta])* $variant:ident = $name:literal,)*) => {
        /// An interpreter rule, by the name definitions give it.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Rule {
            $($(#[$doc])* $variant,)*
        }

        impl Rule {
            /// Every rule.
            pub const ALL: &'static [Rule] = &[$(Rule::$variant,)*];

            /// The name a definition writes (`interpret binary`).
            pub const fn name(self) -> &'static str {
                match self {
                    $(Rule::$variant => $name,)*
                }
            }

            /// The rule named `name`.
            pub fn from_name(name: &str) -> Option<Rule> {
                match name {
                    $($name => Some(Rule::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

rules! {
    /// A constant's `value` attribute.
    Constant = "constant",
    /// Integer binary arithmetic, by the op's short name (`addi`, `divsi`, ...).
    IntBinary = "int_binary",
    /// Integer arithmetic with a second result: a carry or the high half
    /// (`addui_extended`, `mulsi_extended`, `mului_extended`).
    IntExtended = "int_extended",
    /// Float binary arithmetic, by short name (`addf`, `maximumf`, ...).
    FloatBinary = "float_binary",
    /// Float unary arithmetic (`negf`, ...).
    FloatUnary = "float_unary",
    /// `math` functions of one operand.
    MathUnary = "math_unary",
    /// `math` functions of two operands.
    MathBinary = "math_binary",
    /// Integer comparison.
    Cmpi = "cmpi",
    /// Float comparison.
    Cmpf = "cmpf",
    /// Select by a condition.
    Select = "select",
    /// Conversions between element types, by short name.
    Cast = "cast",
    /// Graph elementwise ops of one operand, by short name (`relu`, `sigmoid`, ...).
    Unary = "unary",
    /// Graph elementwise ops of two operands with numpy broadcasting, by short name.
    Binary = "binary",
    /// Graph `where`: a choice by a condition, the three operands broadcast.
    Where = "where",
    /// Reshapes (`reshape`, `flatten`, `squeeze`, `unsqueeze`).
    Reshape = "reshape",
    /// Graph transpose.
    Transpose = "transpose",
    /// 2-D convolution (graph).
    Conv2d = "conv2d",
    /// Matrix product with numpy semantics (graph).
    Matmul = "matmul",
    /// ONNX Gemm.
    Gemm = "gemm",
    /// Batch normalization in inference mode.
    BatchNorm = "batch_norm",
    /// Softmax along an axis.
    Softmax = "softmax",
    /// Concatenation.
    Concat = "concat",
    /// Max pooling.
    MaxPool = "max_pool",
    /// Average pooling.
    AvgPool = "avg_pool",
    /// Global max pooling.
    GlobalMaxPool = "global_max_pool",
    /// Global average pooling.
    GlobalAvgPool = "global_avg_pool",
    /// Reductions over axes, by short name.
    Reduce = "reduce",
    /// ONNX Slice.
    Slice = "slice",
    /// ONNX Pad.
    Pad = "pad",
    /// Layer normalization.
    LayerNorm = "layer_norm",
    /// The k largest or smallest along an axis.
    Topk = "topk",
    /// Sort along an axis.
    Sort = "sort",
    /// ONNX Gather: slices along an axis at an index tensor.
    Gather = "gather",
    /// ONNX GatherElements.
    GatherElements = "gather_elements",
    /// ONNX GatherND.
    GatherNd = "gather_nd",
    /// The position of the largest or smallest element along an axis, by short name.
    ArgReduce = "arg_reduce",
    /// Running sums along an axis.
    Cumsum = "cumsum",
    /// The tensor dialect's sort.
    TensorSort = "tensor_sort",
    /// Quantize to a quantized type.
    Quantize = "quantize",
    /// Dequantize to floats.
    Dequantize = "dequantize",
    /// Quantized values as their stored integers, or back.
    StorageCast = "storage_cast",
    /// Quantized convolution.
    Qconv2d = "qconv2d",
    /// Quantized matrix product.
    Qmatmul = "qmatmul",
    /// A table lookup on stored integers.
    Lookup = "lookup",
    /// Quantized elementwise addition.
    Qadd = "qadd",
    /// Quantized elementwise product.
    Qmul = "qmul",
    /// Quantized values rescaled to another quantized type.
    Requantize = "requantize",
    /// Quantized average pooling.
    QavgPool = "qavg_pool",
    /// Accumulators scaled by explicit Q31 multipliers and shifts.
    Rescale = "rescale",
    /// Resize (nearest, linear, cubic).
    Resize = "resize",
    /// ONNX NonMaxSuppression.
    Nms = "nms",
    /// The tensor dialect's non-max suppression into a bounded init.
    TensorNms = "tensor_nms",
    /// A fresh buffer.
    Alloc = "alloc",
    /// A constant buffer.
    BufferConstant = "buffer_constant",
    /// A buffer viewed in another shape.
    BufferReshape = "buffer_reshape",
    /// Frees a buffer.
    Dealloc = "dealloc",
    /// A strided view of a buffer.
    Subview = "subview",
    /// Copies a buffer.
    Copy = "copy",
    /// Starts a DMA transfer, landing at its wait.
    DmaStart = "dma_start",
    /// Waits for tokens.
    Wait = "wait",
    /// Loads an element.
    Load = "load",
    /// Stores an element.
    Store = "store",
    /// A sequential loop carrying values.
    For = "for",
    /// A parallel loop nest.
    Parallel = "parallel",
    /// Loads a vector.
    Vload = "vload",
    /// Stores a vector.
    Vstore = "vstore",
    /// Fused multiply-add.
    Fma = "fma",
    /// A vector of one value.
    Splat = "splat",
    /// Reduces a vector.
    Vreduce = "vreduce",
    /// Calls a target intrinsic: its `semantics` region, or the host kernel its
    /// callee names.
    Intrinsic = "intrinsic",
    /// A tensor of unspecified elements.
    Empty = "empty",
    /// Extracts a slice.
    ExtractSlice = "extract_slice",
    /// Inserts a slice.
    InsertSlice = "insert_slice",
    /// The size of a dimension.
    TensorDim = "tensor_dim",
    /// Extracts an element.
    Extract = "extract",
    /// Inserts an element.
    Insert = "insert",
    /// The tensor dialect's pad.
    TensorPad = "tensor_pad",
    /// A tensor from its region's value at each index.
    Generate = "generate",
    /// Elements reinterpreted in another element type.
    TensorBitcast = "tensor_bitcast",
    /// The tensor dialect's matrix products.
    TensorMatmul = "tensor_matmul",
    /// The tensor dialect's convolution.
    TensorConv2d = "tensor_conv2d",
    /// The tensor dialect's pooling.
    TensorPool = "tensor_pool",
    /// Elementwise by a region.
    Map = "map",
    /// Reduction by a region.
    TensorReduce = "tensor_reduce",
    /// Broadcast along dimensions.
    Broadcast = "broadcast",
    /// The tensor dialect's transpose.
    TensorTranspose = "tensor_transpose",
    /// Packs into a blocked layout.
    Pack = "pack",
    /// Unpacks from a blocked layout.
    Unpack = "unpack",
}

#[cfg(test)]
mod tests {
    use super::Rule;

    #[test]
    fn names_round_trip() {
        for r in Rule::ALL {
            assert_eq!(Rule::from_name(r.name()), Some(*r));
        }
        assert_eq!(Rule::from_name("no_such_rule"), None);
    }
}
