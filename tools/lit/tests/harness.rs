//! Runs `test/lit/harness`, the lit runner's own tests, through
//! [`acc_lit::run_lit_suite`], exactly as `tools/tests/lit.rs` runs the whole
//! suite (this process also serves as the RUN lines' `FileCheck` and `not`).

fn main() -> std::process::ExitCode {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../test/lit/harness");
    acc_lit::run_lit_suite(acc_lit::LitConfig::new(root).temp_root(env!("CARGO_TARGET_TMPDIR")))
}
