//! The Rust hooks dialect files may name: what a declaration cannot say (a verifier
//! that looks at other ops, shape inference, a folder, a hand-written custom form).
//!
//! A dialect file names a hook by kind and name (`infer broadcast`); loading looks the
//! name up in [`table`] and reports unknown names with the list of known ones. Hooks
//! are plain functions registered here once; a vendor's dialect file can name any of
//! them (an elementwise op can reuse `infer broadcast`) without touching Rust.

pub mod arith;
pub mod attr_read;
pub(crate) mod builtin;
mod fold;
pub mod func;
mod graph;
pub use graph::{activation_bounds, requant_attr, requant_scheme, requantizes, storage_range};
pub mod graph_fold;
pub mod hw;
pub mod layout;
pub mod loops;
pub mod nms;
pub mod params;
pub mod resample;
pub mod shape;
pub mod stored;
pub mod tensor;
#[cfg(test)]
mod testing;

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use acc_ir::registry::VerifyHook;
use acc_ir::{CustomSyntax, FoldHook, InferHook};

/// The hooks acc provides, by kind and name.
#[derive(Default)]
pub struct Hooks {
    verifiers: BTreeMap<&'static str, VerifyHook>,
    infers: BTreeMap<&'static str, InferHook>,
    folders: BTreeMap<&'static str, FoldHook>,
    syntaxes: BTreeMap<&'static str, Arc<dyn CustomSyntax>>,
}

impl Hooks {
    /// A verifier by name.
    pub fn verifier(&self, name: &str) -> Option<VerifyHook> {
        self.verifiers.get(name).cloned()
    }
    /// An inference hook by name.
    pub fn infer(&self, name: &str) -> Option<InferHook> {
        self.infers.get(name).cloned()
    }
    /// A folder by name.
    pub fn folder(&self, name: &str) -> Option<FoldHook> {
        self.folders.get(name).cloned()
    }
    /// A custom syntax by name.
    pub fn syntax(&self, name: &str) -> Option<Arc<dyn CustomSyntax>> {
        self.syntaxes.get(name).cloned()
    }
    /// The names of the hooks of one kind (`verifier`, `infer`, `folder`, `syntax`),
    /// sorted.
    pub fn names(&self, kind: &str) -> Vec<&'static str> {
        match kind {
            "verifier" => self.verifiers.keys().copied().collect(),
            "infer" => self.infers.keys().copied().collect(),
            "folder" => self.folders.keys().copied().collect(),
            "syntax" => self.syntaxes.keys().copied().collect(),
            _ => Vec::new(),
        }
    }

    // Each name is registered once: a second hook of one kind and name would silently
    // replace the first for every op naming it (the table is built once, at start-up).
    fn add_verifier(&mut self, name: &'static str, hook: VerifyHook) {
        let old = self.verifiers.insert(name, hook);
        assert!(old.is_none(), "verifier hook '{name}' registered twice");
    }
    fn add_infer(&mut self, name: &'static str, hook: InferHook) {
        let old = self.infers.insert(name, hook);
        assert!(old.is_none(), "infer hook '{name}' registered twice");
    }
    fn add_folder(&mut self, name: &'static str, hook: FoldHook) {
        let old = self.folders.insert(name, hook);
        assert!(old.is_none(), "folder hook '{name}' registered twice");
    }
    fn add_syntax(&mut self, name: &'static str, syntax: Arc<dyn CustomSyntax>) {
        let old = self.syntaxes.insert(name, syntax);
        assert!(old.is_none(), "syntax hook '{name}' registered twice");
    }
}

/// Every hook acc provides.
pub fn table() -> &'static Hooks {
    static TABLE: OnceLock<Hooks> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut h = Hooks::default();
        h.add_verifier("module", Arc::new(builtin::verify_module));
        h.add_syntax("module", Arc::new(builtin::ModuleSyntax));
        h.add_verifier("func", Arc::new(func::verify_func));
        h.add_syntax("func", Arc::new(func::FuncSyntax));
        h.add_verifier("return", Arc::new(func::verify_return));
        h.add_verifier("call", Arc::new(func::verify_call));
        add_arith(&mut h);
        add_graph(&mut h);
        add_tensor(&mut h);
        add_loop(&mut h);
        h.add_verifier("device", Arc::new(hw::verify_device));
        h.add_verifier("memory", Arc::new(hw::verify_memory));
        h.add_verifier("buffer", Arc::new(hw::verify_buffer));
        h.add_verifier("launch", Arc::new(hw::verify_launch));
        h.add_verifier("intrinsic", Arc::new(hw::verify_intrinsic));
        h
    })
}

fn add_arith(h: &mut Hooks) {
    h.add_infer("constant", Arc::new(arith::infer_constant));
    h.add_infer("compare", Arc::new(arith::infer_compare));
    h.add_folder("constant", Arc::new(arith::fold_constant));
    h.add_folder("int_binary", Arc::new(arith::fold_int_binary));
    h.add_folder("float_binary", Arc::new(arith::fold_float_binary));
    h.add_folder("float_unary", Arc::new(arith::fold_float_unary));
    h.add_folder("cmpi", Arc::new(arith::fold_cmpi));
    h.add_folder("cmpf", Arc::new(arith::fold_cmpf));
    h.add_folder("select", Arc::new(arith::fold_select));
    h.add_folder("cast", Arc::new(arith::fold_cast));
    h.add_verifier("widen", Arc::new(arith::verify_widen));
    h.add_verifier("narrow", Arc::new(arith::verify_narrow));
    h.add_verifier("index_cast", Arc::new(arith::verify_index_cast));
    h.add_verifier("bitcast", Arc::new(arith::verify_bitcast));
    h.add_verifier("select", Arc::new(arith::verify_select));
    h.add_syntax("select", Arc::new(arith::SelectSyntax));
}

fn add_graph(h: &mut Hooks) {
    h.add_infer("broadcast", Arc::new(shape::infer_broadcast));
    h.add_infer("broadcast_compare", Arc::new(shape::infer_compare));
    h.add_infer("broadcast_where", Arc::new(shape::infer_where));
    h.add_infer("conv2d", Arc::new(shape::infer_conv2d));
    h.add_infer("matmul", Arc::new(shape::infer_matmul));
    h.add_infer("gemm", Arc::new(shape::infer_gemm));
    h.add_infer("pool", Arc::new(shape::infer_pool));
    h.add_infer("global_pool", Arc::new(shape::infer_global_pool));
    h.add_infer("reshape", Arc::new(shape::infer_reshape));
    h.add_infer("transpose", Arc::new(shape::infer_transpose));
    h.add_infer("concat", Arc::new(shape::infer_concat));
    h.add_infer("slice", Arc::new(shape::infer_slice));
    h.add_infer("flatten", Arc::new(shape::infer_flatten));
    h.add_infer("pad", Arc::new(shape::infer_pad));
    h.add_infer("squeeze", Arc::new(shape::infer_squeeze));
    h.add_infer("unsqueeze", Arc::new(shape::infer_unsqueeze));
    h.add_infer("reduce", Arc::new(shape::infer_reduce));
    h.add_infer("resize", Arc::new(shape::infer_resize));
    h.add_infer("topk", Arc::new(shape::infer_topk));
    h.add_infer("gather", Arc::new(shape::infer_gather));
    h.add_infer("gather_elements", Arc::new(shape::infer_gather_elements));
    h.add_infer("gather_nd", Arc::new(shape::infer_gather_nd));
    h.add_infer("arg_reduce", Arc::new(shape::infer_arg_reduce));
    h.add_infer("nms", Arc::new(shape::infer_nms));
    h.add_verifier("batch_norm", Arc::new(graph::verify_batch_norm));
    h.add_verifier("layer_norm", Arc::new(graph::verify_layer_norm));
    h.add_verifier("axis", Arc::new(graph::verify_axis));
    h.add_verifier("quantize", Arc::new(graph::verify_quantize));
    h.add_verifier("quantized_result", Arc::new(graph::verify_quantized_result));
    h.add_verifier(
        "quantized_elementwise",
        Arc::new(graph::verify_quantized_elementwise),
    );
    h.add_verifier("quantized_pool", Arc::new(graph::verify_quantized_pool));
    h.add_verifier("rescale", Arc::new(graph::verify_rescale));
    h.add_verifier("storage_cast", Arc::new(graph::verify_storage_cast));
    h.add_verifier("tensor_bitcast", Arc::new(graph::verify_tensor_bitcast));
    h.add_verifier("lookup", Arc::new(graph::verify_lookup));
    h.add_verifier("buffer_constant", Arc::new(loops::verify_buffer_constant));
    h.add_verifier("buffer_reshape", Arc::new(loops::verify_buffer_reshape));
    h.add_folder("reshape", Arc::new(graph::fold_reshape));
    h.add_folder("graph_unary", Arc::new(graph_fold::fold_unary));
    h.add_folder("graph_binary", Arc::new(graph_fold::fold_binary));
    h.add_folder("transpose", Arc::new(graph_fold::fold_transpose));
}

fn add_tensor(h: &mut Hooks) {
    h.add_verifier("empty", Arc::new(tensor::verify_empty));
    h.add_verifier("slice", Arc::new(tensor::verify_slice));
    h.add_verifier("pad", Arc::new(tensor::verify_pad));
    h.add_verifier("generate", Arc::new(tensor::verify_generate));
    h.add_verifier("sort", Arc::new(tensor::verify_sort));
    h.add_verifier("nms", Arc::new(tensor::verify_nms));
    h.add_verifier("reassociation", Arc::new(tensor::verify_reassociation));
    h.add_verifier("matmul", Arc::new(tensor::verify_matmul));
    h.add_verifier("conv2d", Arc::new(tensor::verify_conv2d));
    h.add_verifier("pool", Arc::new(tensor::verify_pool));
    h.add_verifier("map", Arc::new(tensor::verify_map));
    h.add_verifier("reduce", Arc::new(tensor::verify_reduce));
    h.add_verifier("broadcast", Arc::new(tensor::verify_broadcast));
    h.add_verifier("transpose", Arc::new(tensor::verify_transpose));
    h.add_verifier("pack", Arc::new(tensor::verify_pack));
}

fn add_loop(h: &mut Hooks) {
    h.add_verifier("indices", Arc::new(loops::verify_indices));
    h.add_verifier("for", Arc::new(loops::verify_for));
    h.add_verifier("parallel", Arc::new(loops::verify_parallel));
    h.add_verifier("alloc", Arc::new(loops::verify_alloc));
    h.add_verifier("subview", Arc::new(loops::verify_subview));
    h.add_syntax("for", Arc::new(loops::ForSyntax));
    h.add_syntax("parallel", Arc::new(loops::ParallelSyntax));
}
