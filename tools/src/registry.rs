//! The one registry of acc's passes and named pipelines: every tool (`acc-opt`,
//! `acc-run`, `acc-repl`, and tools built on this crate, such as the custom-pass
//! example) starts from [`registry`], so that they all know the same passes.
//!
//! The passes come from the crates that hold them, in pipeline order: the generic
//! ones (`acc-passes-generic`), quantization (`acc-passes-quant`), the accelerator
//! passes (`acc-passes-accel`), the conversions between levels
//! (`acc-graph-to-tensor`, `acc-bufferize`) and the loop-level optimizations
//! (`acc-passes-loops`).
//!
//! The named pipelines are declared here, once: each is a pass list with options,
//! usable wherever a pass name is (`acc-opt --pipeline host-pipeline`,
//! `--pass 'accel-pipeline{bits=4}'`, inside `--pass-pipeline=...`), listed with its
//! expansion by `acc-opt --list-pipelines`, and nameable by a target file
//! (`pipeline "accel-pipeline"`).

use acc_pass::{OptionKind, PassOption, PassOptions, PassRegistry, PipelineInfo};

/// Every pass and named pipeline acc provides.
pub fn registry() -> PassRegistry {
    let mut r = PassRegistry::default();
    acc_passes_generic::register_all(&mut r);
    acc_passes_quant::register_all(&mut r);
    acc_passes_accel::register_all(&mut r);
    r.register(acc_graph_to_tensor::info());
    r.register(acc_bufferize::info());
    acc_passes_loops::register_all(&mut r);
    r.register_pipeline(host_pipeline());
    r.register_pipeline(quantize_pipeline());
    r.register_pipeline(accel_pipeline());
    r
}

/// The `target` option of a pipeline, forwarded to the passes that consult one.
fn target_option() -> PassOption {
    PassOption {
        description: "the target its passes consult, by name (empty: the compilation's first)",
        ..acc_pass::target_option()
    }
}

/// `{target=NAME}` for a pass, or nothing for the default target.
fn with_target(pass: &str, o: &PassOptions) -> String {
    match o.get("target") {
        "" => pass.to_string(),
        name => format!("{pass}{{target={name}}}"),
    }
}

/// The host JIT pipeline: a graph-level network to vectorized loops over one
/// static arena, calling the host target's kernels (`lowering/runtime/host.acc`).
fn host_pipeline() -> PipelineInfo {
    PipelineInfo {
        name: "host-pipeline",
        summary: "A graph-level network to vectorized loops for the host CPU, calling the host target's kernels: what acc-run --mode jit and acc-translate --emit-object compile",
        options: vec![
            PassOption {
                name: "assume-finite",
                description: "assume no infinity or NaN reaches a convolution (layout's option: blocked results keep zero padding channels)",
                kind: OptionKind::Bool,
                default: "false",
            },
            target_option(),
        ],
        expand: |o| {
            format!(
                "canonicalize,graph-to-tensor,layout{{assume-finite={}}},{},fuse-parallel,emulate-narrow-floats,math-approximation,unroll,collapse-parallel,vectorize,buffer-deallocation,{}",
                o.get("assume-finite"),
                with_target("bufferize", o),
                with_target("memory-plan", o)
            )
        },
    }
}

/// `requant`: the scheme the quantized ops requantize by, passed to `quantize` (a
/// target whose library computes in fixed point names `requant=fixed_point`).
fn requant_option() -> PassOption {
    PassOption {
        name: "requant",
        description: "how the quantized ops requantize: float (onnxruntime's arithmetic) or fixed_point (TFLite's and CMSIS-NN's); the scheme the target's intrinsics declare",
        kind: OptionKind::OneOf(&["float", "fixed_point"]),
        default: "float",
    }
}

/// The quantization front: canonicalization, then a float model calibrated into a
/// QDQ model when sample inputs are given, then QDQ groups folded into integer ops.
fn quantize_pipeline() -> PipelineInfo {
    PipelineInfo {
        name: "quantize-pipeline",
        summary: "Quantize a model: a QDQ model's groups folded into integer ops, or a float model calibrated on sample inputs first",
        options: vec![
            PassOption {
                name: "samples",
                description: "a .npy file of sample inputs: calibrate the float model on them first (empty: the model is a QDQ model already)",
                kind: OptionKind::String,
                default: "",
            },
            PassOption {
                name: "bits",
                description: "storage bits of activations and weights when calibrating: 8, 4 or 2",
                kind: OptionKind::Int,
                default: "8",
            },
            requant_option(),
        ],
        expand: |o| {
            let quantize = format!("quantize{{requant={}}}", o.get("requant"));
            match o.get("samples") {
                "" => format!("canonicalize,{quantize}"),
                samples => format!(
                    "canonicalize,calibrate{{samples=\"{samples}\" bits={}}},{quantize}",
                    o.get("bits")
                ),
            }
        },
    }
}

/// The accelerator-to-C pipeline: quantization, placement on the target's devices,
/// tiling into local memories and compile-time call arguments, then loops over static
/// arenas that the C back end emits (`acc-translate --emit-c`).
fn accel_pipeline() -> PipelineInfo {
    PipelineInfo {
        name: "accel-pipeline",
        summary: "A model to loops and accelerator calls over static arenas, for a target's devices: quantized, placed, tiled, its call arguments computed at compile time; what acc-translate --emit-c emits",
        options: vec![
            PassOption {
                name: "samples",
                description: "a .npy file of sample inputs to calibrate a float model on (empty: quantize a QDQ model as it is)",
                kind: OptionKind::String,
                default: "",
            },
            PassOption {
                name: "bits",
                description: "storage bits when calibrating: 8, 4 or 2",
                kind: OptionKind::Int,
                default: "8",
            },
            requant_option(),
            target_option(),
        ],
        expand: |o| {
            let front = match o.get("samples") {
                "" => format!("quantize-pipeline{{requant={}}}", o.get("requant")),
                samples => format!(
                    "quantize-pipeline{{samples=\"{samples}\" bits={} requant={}}}",
                    o.get("bits"),
                    o.get("requant")
                ),
            };
            format!(
                "{front},{},{},weight-prep,graph-to-tensor,{},fuse-parallel,emulate-narrow-floats,math-approximation,buffer-deallocation,{}",
                with_target("partition", o),
                with_target("tensorize", o),
                with_target("bufferize", o),
                with_target("memory-plan", o)
            )
        },
    }
}

#[cfg(test)]
mod tests {
    use acc_pass::pipeline::Pipeline;

    /// Every named pipeline expands, with its defaults and with every option given,
    /// to passes the registry has.
    #[test]
    fn pipelines_expand_to_registered_passes() {
        let r = super::registry();
        for p in r.pipelines() {
            Pipeline::from_pass_list(p.name, &r)
                .unwrap_or_else(|e| panic!("{} does not expand: {e:?}", p.name));
        }
        for text in [
            "host-pipeline{assume-finite=true target=host}",
            "quantize-pipeline{samples=x.npy bits=4}",
            "accel-pipeline{samples=x.npy bits=2 requant=fixed_point target=tinynpu}",
        ] {
            let p = Pipeline::from_pass_list(text, &r)
                .unwrap_or_else(|e| panic!("{text} does not expand: {e:?}"));
            assert!(p.passes().len() > 2, "{text}");
        }
        let accel = Pipeline::from_pass_list("accel-pipeline{target=npu}", &r).unwrap();
        let text = accel.to_text();
        assert!(
            text.contains("partition{target=npu placement=schedule}"),
            "{text}"
        );
        assert!(text.contains("memory-plan{target=npu}"), "{text}");
    }
}
