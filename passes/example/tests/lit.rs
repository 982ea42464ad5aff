//! Runs the example pass's lit tests (`test/`) with its `acc-opt-example` binary.

fn main() -> std::process::ExitCode {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/test");
    let config = acc_lit::LitConfig::new(root)
        .tool("acc-opt-example", env!("CARGO_BIN_EXE_acc-opt-example"))
        .temp_root(env!("CARGO_TARGET_TMPDIR"));
    acc_lit::run_lit_suite(config)
}
