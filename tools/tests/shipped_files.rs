//! Every file acc ships loads, every name in it resolving when it loads: the dialect
//! definitions (`dialects/defs`: hooks, interpreter rules, rewrite patterns), the
//! target files (`examples/targets`, `lowering/runtime/host.acc`: kernel interfaces,
//! intrinsic matches and expression functions, the pipeline each names), and the
//! example IR. Every interpreter rule a definition names has an implementation.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn files(dir: &str, ext: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(repo().join(dir))
        .expect("a shipped folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    out.sort();
    out
}

#[test]
fn every_definition_file_loads_and_is_shipped() {
    let shipped: Vec<&str> = acc_dialects::BUILTIN_DEFINITIONS
        .iter()
        .map(|(name, _)| *name)
        .collect();
    for f in files("dialects/defs", "acc") {
        let name = f.file_name().and_then(|n| n.to_str()).expect("a file name");
        assert!(
            shipped.contains(&name),
            "{name} is not in BUILTIN_DEFINITIONS"
        );
    }
    // Loaded in order into one context, as acc_dialects::new_context does.
    let mut ctx = acc_ir::Context::new();
    let mut sources = acc_ir::SourceMap::new();
    for (name, text) in acc_dialects::BUILTIN_DEFINITIONS {
        let file = sources.add(name, text.to_string());
        if let Err(errors) = acc_dialects::lang::load_file(&mut ctx, &sources, file) {
            panic!("{name}:\n{}", sources.render(&ctx, &errors));
        }
    }
    // Every rule a shipped op names is one the interpreter implements.
    let mut named = 0;
    for def in ctx.registered_ops() {
        let Some(rule) = def.interpret.as_deref() else {
            continue;
        };
        let rule = acc_dialects::semantics::Rule::from_name(rule)
            .unwrap_or_else(|| panic!("{} names an unknown rule '{rule}'", def.name));
        assert!(
            acc_interp::rules::rule(rule).is_some()
                || rule == acc_dialects::semantics::Rule::Intrinsic,
            "{}: rule '{}' has no implementation",
            def.name,
            rule.name()
        );
        named += 1;
    }
    assert!(named > 100, "the shipped ops name their rules ({named})");
}

#[test]
fn every_target_file_loads_and_runs_its_pipeline() {
    let mut targets = files("examples/targets", "acc");
    targets.push(repo().join("lowering/runtime/host.acc"));
    assert!(targets.len() >= 2);
    let dir = tempfile::tempdir().expect("a directory");
    let empty = dir.path().join("empty.mlir");
    std::fs::write(&empty, "").expect("an empty module");
    for t in targets {
        let out = Command::new(env!("CARGO_BIN_EXE_acc-opt"))
            .arg("--target")
            .arg(&t)
            .args(["--pipeline", "target", "--dump-pass-pipeline"])
            .arg(&empty)
            .output()
            .expect("acc-opt runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{}: {err}", t.display());
        assert!(
            err.contains("Pass Manager with"),
            "{} names a pipeline: {err}",
            t.display()
        );
    }
}

#[test]
fn every_example_ir_file_verifies() {
    for f in files("examples/ir", "mlir") {
        let out = Command::new(env!("CARGO_BIN_EXE_acc-opt"))
            .arg(&f)
            .args(["-o", "/dev/null"])
            .output()
            .expect("acc-opt runs");
        assert!(
            out.status.success(),
            "{}: {}",
            f.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
