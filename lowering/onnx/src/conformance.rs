//! Running one ONNX backend test case (`model.onnx` and `test_data_set_*/input_*.pb`,
//! `output_*.pb`) through the importer and the reference interpreter, and comparing
//! with the expected outputs as ONNX's backend tests do (`|got - want| <= atol + rtol *
//! |want|`, NaN equal to NaN, integers exactly).

use std::path::Path;

use acc_interp::{Interpreter, Limits, Tensor};
use acc_ir::elements::Scalar;
use prost::Message;

use crate::proto::TensorProto;

/// How a case went.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Every output matched.
    Pass,
    /// Every output matched, but only with every graph input fixed at import (the
    /// importer computed the whole graph: it ran no op).
    Folded,
    /// The case uses something acc does not support (an op, a type, an attribute).
    Unsupported(String),
    /// Imported and ran, but wrongly or with an error.
    Fail(String),
}

/// Runs the case in `dir` with tolerances `rtol` and `atol`.
pub fn run_case(dir: &Path, rtol: f64, atol: f64) -> Outcome {
    match run(dir, rtol, atol) {
        Ok(true) => Outcome::Folded,
        Ok(false) => Outcome::Pass,
        Err(o) => o,
    }
}

/// Ok(true) when every graph input had to be fixed at import.
fn run(dir: &Path, rtol: f64, atol: f64) -> Result<bool, Outcome> {
    let fail = Outcome::Fail;
    let bytes = std::fs::read(dir.join("model.onnx"))
        .map_err(|e| fail(format!("cannot read model.onnx: {e}")))?;
    let mut ctx = acc_dialects::new_context();
    let mut sets: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| fail(e.to_string()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("test_data_set_"))
        })
        .collect();
    sets.sort();
    // Inputs the graph dialect takes as attributes (shapes, axes, scales) are fed as
    // data in the tests: the inputs the import asks to be constants are fixed to their
    // values in the first data set (as a compiler specializes on such inputs).
    let mut known: Vec<TensorProto> = Vec::new();
    let mut imported = crate::import(&mut ctx, &bytes, "main");
    while let (Err(errors), Some(first)) = (&imported, sets.first()) {
        let wanted: Vec<String> = errors
            .iter()
            .filter_map(|e| required_constant(e))
            .filter(|n| !known.iter().any(|t| t.name.as_deref() == Some(n)))
            .collect();
        let found = named_inputs(&bytes, first, &wanted);
        if found.is_empty() {
            break;
        }
        known.extend(found);
        imported = crate::import_with(&mut ctx, &bytes, "main", &known);
    }
    let ir = imported.map_err(|e| {
        let message = e.join("; ");
        // What the importer or the dialect cannot express yet, as opposed to a wrong
        // conversion.
        if message.contains("not support")
            || message.contains("must be a constant")
            || message.contains("is not supported")
        {
            Outcome::Unsupported(message)
        } else {
            fail(format!("import: {message}"))
        }
    })?;
    acc_ir::verifier::verify(&ctx, &ir)
        .map_err(|d| fail(format!("imported IR does not verify: {}", d[0].message)))?;
    let params = acc_interp::parameter_types(&ctx, &ir, "main")
        .ok_or_else(|| fail("no main function".into()))?;
    let fixed: Vec<&str> = known.iter().filter_map(|t| t.name.as_deref()).collect();
    let all_fixed = !fixed.is_empty() && params.is_empty();
    for set in sets {
        let read_all = |prefix: &str, ctx: &mut acc_ir::Context| -> Result<Vec<Tensor>, Outcome> {
            let mut out = Vec::new();
            for i in 0.. {
                let path = set.join(format!("{prefix}_{i}.pb"));
                if !path.exists() {
                    break;
                }
                let bytes = std::fs::read(&path).map_err(|e| fail(e.to_string()))?;
                let proto = TensorProto::decode(&bytes[..])
                    .map_err(|e| fail(format!("{}: {e}", path.display())))?;
                if prefix == "input" && proto.name.as_deref().is_some_and(|n| fixed.contains(&n)) {
                    continue;
                }
                let attr = crate::tensor_attr(ctx, &proto, "data")
                    .map_err(|e| Outcome::Unsupported(format!("{prefix} {i}: {e}")))?;
                out.push(
                    Tensor::from_attr(ctx, attr)
                        .map_err(|e| Outcome::Unsupported(format!("{prefix} {i}: {e}")))?,
                );
            }
            Ok(out)
        };
        let inputs = read_all("input", &mut ctx)?;
        let expected = read_all("output", &mut ctx)?;
        if inputs.len() != params.len() {
            return Err(fail(format!(
                "{} inputs for {} arguments",
                inputs.len(),
                params.len()
            )));
        }
        let results = Interpreter::new(&ctx, &ir, Limits::default())
            .call("main", inputs)
            .map_err(|e| {
                if e.message.contains("has no interpreter semantics")
                    || e.message.contains("no semantics")
                {
                    Outcome::Unsupported(e.message)
                } else {
                    fail(e.message)
                }
            })?;
        if results.len() != expected.len() {
            return Err(fail(format!(
                "{} results, expected {}",
                results.len(),
                expected.len()
            )));
        }
        for (i, (got, want)) in results.iter().zip(&expected).enumerate() {
            if got.shape != want.shape {
                return Err(fail(format!(
                    "output {i}: shape {:?}, expected {:?}",
                    got.shape, want.shape
                )));
            }
            for (j, (g, w)) in got.data.iter().zip(&want.data).enumerate() {
                let ok = match (g, w) {
                    (Scalar::Float(g), Scalar::Float(w)) => {
                        (g.is_nan() && w.is_nan())
                            || (g - w).abs() <= atol + rtol * w.abs()
                            || g == w
                    }
                    _ => g == w,
                };
                if !ok {
                    return Err(fail(format!(
                        "output {i}, element {j}: {g:?}, expected {w:?}"
                    )));
                }
            }
        }
    }
    Ok(all_fixed)
}

/// The name of the input an import error asks to be a constant: the last quoted name
/// before "must be a constant".
fn required_constant(error: &str) -> Option<String> {
    let before = &error[..error.find("must be a constant")?];
    let end = before.rfind('\'')?;
    let start = before[..end].rfind('\'')?;
    Some(before[start + 1..end].to_string())
}

/// The inputs of data set `set` for the graph inputs named in `names`, as tensors
/// carrying those names.
fn named_inputs(model: &[u8], set: &Path, names: &[String]) -> Vec<TensorProto> {
    let Ok(model) = crate::proto::ModelProto::decode(model) else {
        return Vec::new();
    };
    let inputs: Vec<String> = model
        .graph
        .map(|g| g.input.into_iter().filter_map(|i| i.name).collect())
        .unwrap_or_default();
    let mut out = Vec::new();
    for (i, name) in inputs.iter().enumerate() {
        if !names.contains(name) {
            continue;
        }
        let Ok(bytes) = std::fs::read(set.join(format!("input_{i}.pb"))) else {
            continue;
        };
        if let Ok(mut t) = TensorProto::decode(&bytes[..]) {
            t.name = Some(name.clone());
            out.push(t);
        }
    }
    out
}
