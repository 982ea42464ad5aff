//! Runs acc's lit suite, `test/lit`, under `cargo test`: one test per file.
//!
//! `cargo test -p acc-tools --test lit -- <filter>` runs the files whose path
//! (relative to `test/lit`) contains `<filter>`. RUN lines call `acc-opt`,
//! `acc-run`, `acc-translate` and `acc-repl` (this package's binaries) and `FileCheck` / `not`, which this very test program
//! provides (see `acc_lit::toolbin`). With `ACC_LIT_LLVM_BIN_DIR=/usr/lib/llvm-22/bin`
//! LLVM's FileCheck and not are used instead. Under LLVM's lit: `lit -v test/lit`.

fn main() -> std::process::ExitCode {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../test/lit");
    let config = acc_lit::LitConfig::new(root)
        .tool("acc-opt", env!("CARGO_BIN_EXE_acc-opt"))
        .tool("acc-run", env!("CARGO_BIN_EXE_acc-run"))
        .tool("acc-translate", env!("CARGO_BIN_EXE_acc-translate"))
        .tool("acc-repl", env!("CARGO_BIN_EXE_acc-repl"))
        .temp_root(env!("CARGO_TARGET_TMPDIR"));
    acc_lit::run_lit_suite(config)
}
