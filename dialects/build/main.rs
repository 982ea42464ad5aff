//! The build script of acc-dialects: typed views and builders of the ops that the
//! shipped definition files (`defs/*.acc`) declare, generated into
//! `$OUT_DIR/ops.rs` and included by `src/ops/mod.rs` (as Cranelift generates its
//! instruction builders from its definitions).
//!
//! The files are read with the dialect language's own grammar
//! (`src/lang/grammar.pest`); `declarations` keeps what a typed view needs (names,
//! operand and result groups, attributes and their kinds, regions, successors), with
//! the classes resolved as the loader resolves them; `emit` writes the Rust. So
//! renaming an op or an attribute in a definition file renames its Rust item, and
//! every use of the old name fails to compile. A unit test in the crate checks that
//! the generated signatures agree with the loaded definitions.

mod declarations;
mod emit;

use std::path::Path;

fn main() {
    let root = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let defs = Path::new(&root).join("defs");
    println!("cargo::rerun-if-changed=src/lang/grammar.pest");
    println!("cargo::rerun-if-changed=build");
    println!("cargo::rerun-if-changed=defs");
    let mut files: Vec<_> = std::fs::read_dir(&defs)
        .expect("dialects/defs is readable")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "acc"))
        .collect();
    files.sort();
    let mut dialects = Vec::new();
    for path in &files {
        println!("cargo::rerun-if-changed={}", path.display());
        let text = std::fs::read_to_string(path).expect("a definition file is readable");
        match declarations::read(&text) {
            Ok(found) => dialects.extend(found),
            Err(e) => panic!("{}: {e}", path.display()),
        }
    }
    let code = emit::dialects(&dialects).unwrap_or_else(|e| panic!("generating typed ops: {e}"));
    let out = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("ops.rs");
    std::fs::write(&out, code).expect("OUT_DIR is writable");
}
