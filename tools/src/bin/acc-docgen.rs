//! `acc-docgen`: writes the dialect reference, `docs/dialects/<name>.md`, from the
//! registered definitions (and any `--dialect FILE`), or checks it with `--check`.
//!
//! ```text
//! cargo run --bin acc-docgen -- --out docs/dialects [--dialect FILE]... [--check]
//! ```

use std::process::ExitCode;

fn main() -> ExitCode {
    acc_tools::abort_on_panic();
    let args = match acc_tools::cli::tool_args("acc-docgen") {
        Ok(rest) => rest,
        Err(code) => return code,
    };
    acc_tools::docgen::main_with_args(&args)
}
